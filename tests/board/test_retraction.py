"""An incident a later correction makes void is retracted (issue 10, item 6): the tracker says so
with an IncidentRetracted event naming the incident, typed both ways like the other events."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from board.events import IncidentEvent, IncidentRetracted, event_from_dict
from board.explain import CLASS_LETTERS
from board.incidents import void_after_correction
from board.tracker import Tracker
from board_scenario import Script, idx
from rules import Move, Side
from synth import NoiseProfile, observations


def glare_game_with_the_disc_seen_off_a2(put_down: tuple[float, float] = (0.0, 0.0), put_right: bool = False):
    """The rook goes a0 -> a1; until black's reply glare makes a1 read empty and a2 read as a rook
    seen off its point (toward a1). So a0a2 is recorded with a between-points incident on a2,
    and black's settle later shows a1 plainly: the record is corrected to a0a1.
    `put_down`: where on a1 the rook really went (0.42 toward a2: between a1 and a2);
    `put_right`: red's hand puts it back on a1 after black's reply, before the board settles."""
    s = Script(seed=14).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7").quiet(0.6)
    s.move("a0a1", place_offset=put_down).quiet(0.8)
    s.move("b9c7")
    if put_right:
        s.retouch("a1", "w")
        s.offsets[idx("a1")] = 0.0
    s.quiet(1.5)
    rook = CLASS_LETTERS.index("R")
    glare = range(s.moves[2]["frame_hand_leaves"] - 12, s.moves[2]["frame_hand_leaves"] + 18)
    obs_list = []
    for fr, obs in zip(s.frames, observations(s.frames, NoiseProfile(seed=14, flicker=0.0))):
        if fr.frame_index in glare:
            obs.probs[9] = 0.01
            obs.probs[9, 0], obs.probs[9, rook] = 0.6, 0.27
            obs.probs[18] = 0.01
            obs.probs[18, 0], obs.probs[18, rook] = 0.27, 0.6
            obs.offset[18] = (0.0, -0.4)
        obs_list.append(obs)
    return obs_list


def run(obs_list):
    tr, events = Tracker(), []
    for o in obs_list:
        events.extend(tr.feed(o))
    events.extend(tr.finish())
    return tr, events


def test_a_between_points_incident_on_a_ply_the_correction_restates_is_retracted():
    tr, events = run(glare_game_with_the_disc_seen_off_a2())
    between = [e for e in events if isinstance(e, IncidentEvent) and e.kind == "between_points"]
    assert [(e.ply, e.points) for e in between] == [(3, [idx("a2")])], "the misread must raise the incident first"
    fixes = [e for e in events if e.type == "tracking" and e.status == "corrected"]
    assert [(f.was, f.now) for f in fixes] == [("a0a2", "a0a1")]
    gone = [e for e in events if isinstance(e, IncidentRetracted)]
    assert len(gone) == 1
    r = gone[0]
    assert r.target is between[0] and (r.kind, r.incident_ply, r.points) == ("between_points", 3, [idx("a2")])
    assert "a0a2" in r.reason and "a0a1" in r.reason
    # after the correction's own line, before the re-stated move
    order = [e.type for e in events]
    assert order.index("tracking", order.index("incident")) < events.index(r)
    assert between[0] not in tr.raised


def _between(events):
    return [(e.ply, e.points) for e in events if isinstance(e, IncidentEvent) and e.kind == "between_points"]


def test_a_disc_really_left_between_two_points_is_reported_again_on_the_point_the_correction_names():
    """Tuning 8402: a soldier left between b4 and b5, read as b7b5 and reported off b5; the
    correction to b7b4 voided that report and the disc was never mentioned again. The disc lay
    between the point reported and the corrected destination beside it: the correction says so
    again, on both points, at the ply and with the evidence of the first report."""
    tr, events = run(glare_game_with_the_disc_seen_off_a2(put_down=(0.0, 0.42)))
    assert _between(events) == [(3, [idx("a2")]), (3, [idx("a1"), idx("a2")])]
    first, again = [e for e in events if isinstance(e, IncidentEvent) and e.kind == "between_points"]
    gone = [e for e in events if isinstance(e, IncidentRetracted)]
    assert [r.target for r in gone] == [first]
    assert events.index(gone[0]) < events.index(again) and again in tr.raised
    assert again.frames == first.frames and again.t == first.t
    assert "a0a1" in again.detail and "a0a2" in again.detail and "between a1 and a2" in again.detail
    # the disc put right by a hand before the correction's settle: it had been between points all the same
    _, events = run(glare_game_with_the_disc_seen_off_a2(put_down=(0.0, 0.42), put_right=True))
    assert _between(events)[-1] == (3, [idx("a1"), idx("a2")])


def test_a_disc_that_only_glare_showed_off_its_point_is_not_reported_again_after_the_correction():
    # on its point at the correction and no hand near it since: never between points
    _, events = run(glare_game_with_the_disc_seen_off_a2())
    assert _between(events) == [(3, [idx("a2")])]
    assert [e.kind for e in events if isinstance(e, IncidentRetracted)] == ["between_points"]


def test_a_retraction_names_the_id_the_journal_gave_the_incident():
    inc = IncidentEvent(5.7, 3, "between_points", Side.RED, [idx("a2")], "left between points")
    r = IncidentRetracted.of(inc, 7.9, 3, "ply 3 re-stated")
    inc.extra["id"] = 4            # the recorder numbers incidents as it writes them
    d = r.to_dict()
    assert d["type"] == "incident_retracted" and d["incident"] == 4
    assert d["points"] == ["a2"] and d["incident_ply"] == 3 and d["kind"] == "between_points"
    back = event_from_dict(d)
    assert isinstance(back, IncidentRetracted) and back.incident == 4 and back.to_dict() == d


def test_a_retraction_line_that_does_not_read_says_which_key():
    import pytest
    from board.events import EventFormatError
    with pytest.raises(EventFormatError, match="incident_ply"):
        event_from_dict({"type": "incident_retracted", "t": 1.0, "ply": 2, "kind": "knocked", "incident": 1})
    with pytest.raises(EventFormatError, match="kind 'nudged'"):
        event_from_dict({"type": "incident_retracted", "t": 1.0, "ply": 2, "kind": "nudged", "incident_ply": 2})


@settings(max_examples=60, deadline=None)
@given(t=st.floats(0, 1e5, allow_nan=False), ply=st.integers(0, 400), ident=st.one_of(st.none(), st.integers(1, 999)),
       kind=st.sampled_from(["touch_move_other", "retouch", "between_points", "knocked"]),
       pts=st.lists(st.integers(0, 89), max_size=3), reason=st.text(max_size=40),
       extra=st.dictionaries(st.sampled_from(["by", "note", "seen"]), st.integers(0, 9), max_size=2))
def test_every_retraction_reads_back_as_written(t, ply, ident, kind, pts, reason, extra):
    r = IncidentRetracted(t, ply, ident, kind, max(0, ply - 1), pts, reason, extra=extra)
    d = r.to_dict()
    assert event_from_dict(d).to_dict() == d


def _inc(kind: str, ply: int, points: list[str]) -> IncidentEvent:
    return IncidentEvent(1.0, ply, kind, Side.RED, [idx(p) for p in points], "x")


def test_a_correction_voids_only_incidents_raised_since_its_ply_on_the_points_it_changes():
    was, now = [Move.from_iccs("a0a2")], [Move.from_iccs("a0a1")]
    on_it = _inc("between_points", 3, ["a2"])
    knock_at_new = _inc("knocked", 3, ["a1"])               # a1 was thought empty then: judged wrongly
    touch = _inc("touch_move_other", 3, ["b0", "a0"])       # same piece picked up from a0: the touch stands
    elsewhere = _inc("knocked", 3, ["i3"])
    earlier = _inc("knocked", 2, ["a2"])                     # raised before ply 3 was recorded
    void = void_after_correction([on_it, knock_at_new, touch, elsewhere, earlier], 3, was, now)
    assert void == [on_it, knock_at_new]


def test_a_touch_is_void_when_the_correction_says_another_piece_was_moved():
    was, now = [Move.from_iccs("b0c2")], [Move.from_iccs("h0g2")]
    touch = _inc("touch_move_other", 3, ["c3", "b0"])
    assert void_after_correction([touch], 3, was, now) == [touch]


def test_a_game_without_corrections_retracts_nothing():
    from board_scenario import Script as S
    s = S(seed=3).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7", touch_first="b9").quiet(0.6)
    _, events = run(list(observations(s.frames, NoiseProfile(seed=3))))
    assert [e.iccs for e in events if e.type == "move"] == ["h2e2", "h9g7"]
    assert not [e for e in events if isinstance(e, IncidentRetracted)]
