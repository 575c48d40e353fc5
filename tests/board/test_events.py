"""Journal events are typed both ways: every line type is written from a dataclass and read back into one."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board.events import (INCIDENT_KINDS, ClockEvent, EventFormatError, GameEndEvent, IncidentEvent, MoveEvent,
                          TrackingEvent, event_from_dict)
from rules import Side

JOURNALS = Path(__file__).resolve().parent.parent / "data" / "board" / "journals"

times = st.floats(min_value=0.0, max_value=1e5, allow_nan=False, allow_infinity=False)
plies = st.integers(min_value=0, max_value=600)
sides = st.sampled_from(list(Side))
points = st.lists(st.integers(min_value=0, max_value=89), max_size=4)
words = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=20)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | words
                           | st.floats(allow_nan=False, allow_infinity=False),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
                           max_leaves=6)


def _extras(reserved: frozenset[str]) -> st.SearchStrategy[dict]:
    return st.dictionaries(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
                           .filter(lambda k: k not in reserved), json_values, max_size=3)


frames = st.dictionaries(st.sampled_from(["before", "during", "after"]), st.integers(0, 10**6))
walls = st.none() | st.just("2026-12-01T15:04:02.604+00:00")

move_events = st.builds(
    MoveEvent, t=times, ply=plies, iccs=st.sampled_from(["h2e2", "h9g7", "a0a1"]), side=sides, san=words,
    fen_after=words, frame_index=st.integers(-1, 10**6), score=st.floats(-1e3, 1e3), inferred=st.booleans(),
    capture=st.none() | st.sampled_from(["p", "N", "r"]),
    clock_ms=st.none() | st.fixed_dictionaries({"red": st.integers(0, 10**7), "black": st.integers(0, 10**7)}),
    t_hand_left=st.none() | times, t_touch=st.none() | times, corrected=st.booleans(),
    extra=_extras(MoveEvent._KEYS), wall=walls)
incident_events = st.builds(
    IncidentEvent, t=times, ply=plies, kind=st.sampled_from(INCIDENT_KINDS), side=st.none() | sides, points=points,
    detail=words, frames=frames, evidence=st.dictionaries(st.sampled_from(["before", "after"]), words),
    extra=_extras(IncidentEvent._KEYS), wall=walls)
tracking_events = st.builds(
    TrackingEvent, t=times, ply=plies, status=st.sampled_from(["started", "out_of_sync", "corrected", "board_lost"]),
    detail=words, points=points, extra=_extras(TrackingEvent._KEYS), wall=walls)
clock_events = st.builds(
    ClockEvent, t=times, ply=plies, kind=st.sampled_from(["press", "start", "flag", "pause"]),
    side=st.none() | sides, remaining_ms=st.fixed_dictionaries({"red": st.integers(0, 10**7),
                                                                "black": st.integers(0, 10**7)}),
    seq=st.none() | st.integers(0, 10**6), boot_id=st.none() | st.integers(0, 2**32),
    clock_ms=st.none() | st.integers(0, 2**40), extra=_extras(ClockEvent._KEYS), wall=walls)
game_end_events = st.builds(GameEndEvent, t=times, ply=plies, result=st.sampled_from(["1-0", "0-1", "1/2-1/2"]),
                            reason=words, extra=_extras(GameEndEvent._KEYS), wall=walls)
any_event = st.one_of(move_events, incident_events, tracking_events, clock_events, game_end_events)


@settings(max_examples=300, deadline=None)
@given(any_event)
def test_an_event_written_then_read_back_writes_the_same_line(ev):
    d = ev.to_dict()
    back = event_from_dict(json.loads(json.dumps(d, ensure_ascii=False)))
    assert type(back) is type(ev)
    assert back.to_dict() == d


@settings(max_examples=100, deadline=None)
@given(any_event)
def test_an_event_read_back_is_the_same_event_up_to_the_journal_rounding(ev):
    once = event_from_dict(ev.to_dict())
    assert event_from_dict(once.to_dict()) == once


@pytest.mark.parametrize("name", ["incidents", "clock", "corrected", "checkmate"])
def test_a_journal_written_by_the_previous_version_reads_back_line_for_line(name):
    lines = [json.loads(s) for s in (JOURNALS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if s]
    assert lines
    for line in lines:
        ev = event_from_dict(line)
        assert ev.type == line["type"]
        assert ev.to_dict() == line


def test_the_lines_of_an_older_journal_read_into_their_fields():
    lines = [json.loads(s) for s in (JOURNALS / "clock.jsonl").read_text(encoding="utf-8").splitlines() if s]
    evs = [event_from_dict(d) for d in lines]
    started = evs[0]
    assert isinstance(started, TrackingEvent) and started.status == "started"
    assert started.fen is not None and started.fen.endswith(" w - - 0 1") and started.notation == "chinese"
    assert started.headers == {"Date": "2026.12.01"}
    move = evs[1]
    assert isinstance(move, MoveEvent) and move.side is Side.RED and move.iccs == "h2e2" and move.frame_index == 42
    clock = evs[2]
    assert isinstance(clock, ClockEvent) and clock.side is Side.BLACK and clock.seq == 1
    assert clock.remaining_for(Side.RED) == 900000
    incident = next(e for e in evs if isinstance(e, IncidentEvent))
    assert incident.kind == "clock_no_press" and incident.side is Side.BLACK and incident.points == []
    end = event_from_dict(json.loads((JOURNALS / "checkmate.jsonl").read_text(encoding="utf-8").splitlines()[2]))
    assert isinstance(end, GameEndEvent) and (end.result, end.reason) == ("1-0", "checkmate")


def test_incident_points_are_written_as_point_names_and_read_back_as_indices():
    ev = IncidentEvent(1.0, 3, "retouch", Side.RED, [0, 89], "x")
    assert ev.to_dict()["points"] == ["a0", "i9"]
    back = IncidentEvent.from_dict(ev.to_dict())
    assert back.points == [0, 89]


def test_a_corrected_tracking_line_keeps_its_replaced_and_new_plies_readable():
    line = json.loads((JOURNALS / "corrected.jsonl").read_text(encoding="utf-8").splitlines()[4])
    ev = event_from_dict(line)
    assert isinstance(ev, TrackingEvent) and ev.status == "corrected"
    assert (ev.was, ev.now, ev.ply) == ("a0a2", "a0a1", 3)


@pytest.mark.parametrize("line, words", [
    ({"type": "move", "t": 1.0, "ply": 1, "side": "red"}, ["move", "'iccs'"]),
    ({"type": "move", "t": 1.0, "ply": 1, "iccs": "h2e2", "side": "green"}, ["move", "'side'", "green"]),
    ({"type": "incident", "t": 1.0, "ply": 1, "kind": "sneezed"}, ["incident", "sneezed"]),
    ({"type": "incident", "t": 1.0, "ply": 1, "kind": "retouch", "points": ["z9"]}, ["incident", "'points'"]),
    ({"type": "tracking", "t": "soon", "ply": 1, "status": "started"}, ["tracking", "'t'", "soon"]),
    ({"type": "chat", "t": 1.0, "ply": 1}, ["'chat'", "move"]),
    ({"t": 1.0, "ply": 1}, ["None"]),
])
def test_a_line_that_does_not_read_gets_one_error_naming_the_type_and_field(line, words):
    with pytest.raises(EventFormatError) as err:
        event_from_dict(line)
    for w in words:
        assert w in str(err.value)


def test_sides_are_written_as_the_journal_words():
    ev = MoveEvent(1.0, 1, "h2e2", Side.RED, "炮二平五", "fen", 3)
    assert json.loads(json.dumps(ev.to_dict()))["side"] == "red"
    assert MoveEvent(1.0, 2, "h9g7", Side.BLACK, "", "", 4).to_dict()["side"] == "black"


def test_fields_other_parts_add_to_a_line_are_kept_as_read():
    hall_end = {"type": "game_end", "t": 61.2, "ply": 40, "result": "0-1", "reason": "resignation",
                "note": "red resigned", "by": "arbiter", "command": "c7"}
    ev = event_from_dict(hall_end)
    assert isinstance(ev, GameEndEvent) and ev.extra == {"note": "red resigned", "by": "arbiter", "command": "c7"}
    assert ev.to_dict() == hall_end
    incident = {"type": "incident", "t": 3.0, "ply": 2, "kind": "retouch", "side": "black", "points": ["e7"],
                "detail": "x", "frames": {}, "id": 4}
    assert event_from_dict(incident).to_dict() == incident
