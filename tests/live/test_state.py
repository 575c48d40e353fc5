"""The live view folded from journal events: position, moves, clocks, incidents, sync."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from live.state import SYNC_IN_SYNC, SYNC_OUT_OF_SYNC, SYNC_READING, fold
from rules import START_FEN, Position
from rules.notation import format_move

STARTED = {"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "fen": START_FEN,
           "headers": {"Red": "A", "Black": "B"}}


def _move(ply, iccs, **extra):
    return {"type": "move", "t": float(ply), "wall": f"2026-01-01T10:00:{ply:02d}.000+00:00", "ply": ply,
            "iccs": iccs, "side": "red" if ply % 2 else "black", **extra}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_legal_game_folds_to_the_position_the_rules_reach(data):
    pos = Position()
    events = [STARTED]
    n = data.draw(st.integers(0, 30))
    expected = []
    for ply in range(1, n + 1):
        legal = sorted(pos.legal_moves(), key=lambda m: m.iccs())
        if not legal:
            break
        m = data.draw(st.sampled_from(legal))
        expected.append((m.iccs(), format_move(pos, m, "chinese"), format_move(pos, m, "wxf")))
        pos.push(m)
        events.append(_move(ply, m.iccs()))
    game = fold(events)
    state = game.to_dict()
    assert state["fen"] == pos.fen()
    assert state["moves"] == [e[0] for e in expected]
    assert [(p["iccs"], p["chinese"], p["wxf"]) for p in state["plies"]] == expected
    assert state["ply"] == len(expected)
    assert state["last_move"] == (expected[-1][0] if expected else None)
    assert not game.warnings


def test_a_correction_replaces_the_plies_it_restates():
    events = [STARTED, _move(1, "h2e2"), _move(2, "h9g7"), _move(3, "a0a2"),
              {"type": "tracking", "t": 4.0, "ply": 3, "status": "corrected", "was": "a0a2", "now": "a0a1"},
              _move(3, "a0a1", corrected=True), _move(4, "b9c7")]
    state = fold(events).to_dict()
    assert state["moves"] == ["h2e2", "h9g7", "a0a1", "b9c7"]
    assert state["plies"][2]["corrected"] is True
    p = Position()
    for m in state["moves"]:
        from rules import Move
        p.push(Move.from_iccs(m))
    assert state["fen"] == p.fen()


def test_a_move_that_does_not_follow_is_a_warning_naming_its_event_not_a_crash():
    game = fold([STARTED, _move(1, "h2e2"), _move(2, "a0a1")])   # a0a1 is red's, but black is to move
    assert game.moves == ["h2e2"]
    assert any("event 3" in w and "a0a1" in w for w in game.warnings)


def test_a_line_that_does_not_read_is_a_warning_and_the_game_goes_on():
    broken = {"type": "move", "t": 2.0, "ply": 2}                 # no iccs, no side
    game = fold([STARTED, _move(1, "h2e2"), broken, _move(2, "h9g7"),
                 {"type": "ruling", "t": 3.0, "ply": 2, "incident": 1, "decision": "maybe"}])
    assert game.moves == ["h2e2", "h9g7"]
    assert any(w.startswith("event 3:") and "iccs" in w for w in game.warnings)
    assert any(w.startswith("event 5:") and "maybe" in w for w in game.warnings)


def test_incidents_keep_their_journal_ids_and_rulings_attach_to_them():
    events = [STARTED, _move(1, "h2e2"),
              {"type": "incident", "t": 1.0, "ply": 1, "kind": "retouch", "side": "red", "points": ["e2"],
               "detail": "x", "id": 1},
              {"type": "incident", "t": 1.5, "ply": 1, "kind": "knocked", "side": "red", "points": ["a3"],
               "detail": "y"},
              {"type": "ruling", "t": 2.0, "ply": 1, "incident": 2, "decision": "dismissed", "note": "no"}]
    state = fold(events).to_dict()
    assert [i["id"] for i in state["incidents"]] == [1, 2]
    assert state["incidents"][0]["ruling"] is None
    assert state["incidents"][1]["ruling"]["decision"] == "dismissed"
    assert state["incidents"][1]["ruling"]["note"] == "no"


def test_an_incident_of_a_ply_no_move_was_recorded_for_folds_against_the_start_position():
    """A knock or a touch at the game's first ply, reported before any move is read (or in a game
    where no move was ever read), names its points on the start position: no crash of the live
    page or the review (it raised IndexError at the end of a recording)."""
    events = [{"type": "session", "t": 0.0},
              {"type": "incident", "t": 1.0, "ply": 1, "kind": "knocked", "side": "red", "points": ["a3"],
               "detail": "x", "id": 1},
              {"type": "incident", "t": 2.0, "ply": 3, "kind": "touch_move_other", "side": "black",
               "points": ["b9"], "detail": "y", "id": 2}]
    state = fold(events).to_dict()
    assert [i["id"] for i in state["incidents"]] == [1, 2] and state["moves"] == []


def test_clock_presses_set_who_runs_and_give_the_last_move_its_time():
    events = [STARTED,
              {"type": "clock", "t": 0.1, "ply": 0, "kind": "start", "side": "red",
               "remaining_ms": {"red": 600000, "black": 600000}},
              _move(1, "h2e2"),
              {"type": "clock", "t": 1.2, "ply": 1, "kind": "press", "side": "red",
               "remaining_ms": {"red": 598800, "black": 600000}}]
    game = fold(events)
    assert game.clocks is not None
    assert game.clocks.running == "black"
    assert (game.clocks.red_ms, game.clocks.black_ms) == (598800, 600000)
    assert game.plies[0].clock_ms == 598800
    paused = fold(events + [{"type": "clock", "t": 2.0, "ply": 1, "kind": "pause", "side": None,
                             "remaining_ms": {"red": 598800, "black": 599000}}])
    assert paused.clocks is not None and paused.clocks.running is None


def test_sync_reads_then_follows_the_tracking_events():
    assert fold([STARTED]).sync == SYNC_READING
    assert fold([STARTED, _move(1, "h2e2")]).sync == SYNC_IN_SYNC
    out = fold([STARTED, _move(1, "h2e2"), {"type": "tracking", "t": 3, "ply": 1, "status": "out_of_sync",
                                             "detail": "e2 differs"}])
    assert out.sync == SYNC_OUT_OF_SYNC and out.to_dict()["sync_text"] == "out of sync: check the board"
    ended = fold([STARTED, {"type": "tracking", "t": 3, "ply": 0, "status": "source_ended"}])
    assert ended.ended and ended.to_dict()["ended"] is True
