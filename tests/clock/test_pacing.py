"""The host's pacing of repair requests and handshakes (firmware_bridge/pacing.py), without a port."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.pacing import (
    EVENT_WIRE_BYTES,
    MASK_BITS,
    HelloPacer,
    LinkPacing,
    RepairPlanner,
    missing_events,
)
from firmware_bridge import codec
from firmware_bridge.codec import EventRecord, Frame, MsgType


def test_wire_sizes_match_what_the_codec_really_sends():
    event = codec.encode_frame(Frame(MsgType.EVENT, 7, EventRecord(1, 0, 123, 456, 789, 0, 3).pack()))
    assert len(event) == EVENT_WIRE_BYTES
    assert LinkPacing(baudrate=115200).wire_s(EVENT_WIRE_BYTES) == pytest.approx(EVENT_WIRE_BYTES * 10 / 115200)


def test_a_new_hole_is_asked_for_at_once_and_again_only_once_the_answer_could_have_arrived():
    pacing = LinkPacing()
    planner = RepairPlanner(pacing)
    first = planner.plan(10.0, delivered=4, held={6, 7}, newest_known=7, since_rx_s=0.0)
    assert first is not None and first.after == 4 and first.mask == 0b1  # event 5 only
    wait = pacing.repair_interval_s(1)
    assert planner.plan(10.0 + wait * 0.9, 4, {6, 7}, 7, 0.0) is None
    again = planner.plan(10.0 + wait, 4, {6, 7}, 7, 0.0)
    assert again is not None and again.mask == 0b1


def test_nothing_missing_asks_nothing_and_the_next_hole_is_asked_for_at_once():
    planner = RepairPlanner()
    assert planner.plan(1.0, 3, {5}, 5, 0.0) is not None  # 4 missing: asked for, timer set
    assert planner.plan(1.0, 5, set(), 5, 0.0) is None  # 4 and 5 delivered: nothing open
    req = planner.plan(1.001, 5, {7}, 7, 0.0)
    assert req is not None and req.mask == 0b1


def test_a_tail_event_known_only_from_a_snapshot_is_asked_for():
    req = RepairPlanner().plan(0.0, delivered=10, held=set(), newest_known=12, since_rx_s=0.0)
    assert req is not None and (req.after, req.mask) == (10, 0b11)


def test_a_noisy_line_is_not_backed_off_but_a_quiet_one_is_up_to_the_cap():
    pacing = LinkPacing(max_interval_s=0.4)
    noisy = RepairPlanner(pacing)
    t = 0.0
    for _ in range(20):  # twenty requests unanswered, but the clock's bytes keep arriving
        assert noisy.plan(t, 0, set(), 1, since_rx_s=0.01) is not None
        assert noisy.next_at - t == pytest.approx(pacing.repair_interval_s(1))
        t = noisy.next_at
    quiet = RepairPlanner(pacing)
    t, gaps = 0.0, []
    for _ in range(2000):  # a clock switched off for a long time: the interval stays capped
        assert quiet.plan(t, 0, set(), 1, since_rx_s=5.0) is not None
        gaps.append(quiet.next_at - t)
        t = quiet.next_at
    assert all(b >= a - 1e-9 for a, b in zip(gaps, gaps[1:]))
    assert gaps[0] > pacing.repair_interval_s(1) and gaps[-1] == pytest.approx(0.4)
    # bytes arrive again: back to the line's pace at once
    assert quiet.plan(t, 0, set(), 1, since_rx_s=0.0) is not None
    assert quiet.next_at - t == pytest.approx(pacing.repair_interval_s(1))


held_sets = st.sets(st.integers(min_value=1, max_value=80), max_size=60)


@settings(max_examples=200, deadline=None)
@given(delivered=st.integers(min_value=0, max_value=40), held=held_sets, newest=st.integers(min_value=0, max_value=90),
       limit=st.integers(min_value=1, max_value=MASK_BITS), since=st.floats(min_value=0, max_value=10))
def test_a_request_names_only_missing_events_oldest_first_and_its_answer_fits_the_interval(delivered, held, newest, limit, since):
    pacing = LinkPacing(repair_max_events=limit)
    planner = RepairPlanner(pacing)
    req = planner.plan(100.0, delivered, held, newest, since)
    expected = [s for s in range(delivered + 1, min(newest, delivered + MASK_BITS) + 1) if s not in held][:limit]
    assert missing_events(delivered, held, newest, limit) == expected
    if not expected:
        assert req is None
        return
    assert req is not None and req.after == delivered
    named = [req.after + 1 + i for i in range(MASK_BITS) if req.mask >> i & 1]
    assert named == expected and req.count == len(expected)
    # the clock's answer (every named event) is on the wire before the next request: never a flood
    assert planner.next_at - 100.0 >= pacing.wire_s(len(named) * EVENT_WIRE_BYTES)


def test_hellos_are_quick_while_the_clock_is_heard_and_back_off_while_the_line_is_quiet():
    pacing = LinkPacing(max_interval_s=0.5)
    pacer = HelloPacer(pacing)
    assert pacer.due(0.0, since_rx_s=0.0)
    assert not pacer.due(pacing.hello_interval_s() * 0.5, 0.0)
    assert pacer.due(pacing.hello_interval_s(), 0.0)
    assert pacing.hello_interval_s() < 0.05
    t, gaps = pacer.next_at, []
    for _ in range(10):
        assert pacer.due(t, since_rx_s=3.0)
        gaps.append(pacer.next_at - t)
        t = pacer.next_at
    assert gaps[-1] == pytest.approx(0.5) and all(b >= a - 1e-9 for a, b in zip(gaps, gaps[1:]))


@pytest.mark.parametrize(
    "field, value",
    [("baudrate", 0), ("repair_max_events", 0), ("repair_max_events", 33), ("quiet_backoff", 0.5), ("turnaround_s", 0.0)],
)
def test_bad_pacing_settings_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=f"LinkPacing.{field}"):
        LinkPacing(**{field: value})


def test_a_new_connection_forgets_the_backoff_and_waits_for_the_replay_only():
    pacing = LinkPacing(max_interval_s=0.5)
    planner = RepairPlanner(pacing)
    t = 0.0
    for _ in range(10):  # the clock fell silent: backed off to the cap
        assert planner.plan(t, 0, set(), 1, since_rx_s=9.0) is not None
        gap, t = planner.next_at - t, planner.next_at
    assert gap == pytest.approx(0.5)
    planner.restart(100.0, pacing.full_replay_s(5))
    assert planner.plan(100.0 + pacing.full_replay_s(5) * 0.9, 0, set(), 5, 0.0) is None
    req = planner.plan(100.0 + pacing.full_replay_s(5), 0, set(), 5, 0.0)
    assert req is not None and req.mask == 0b11111
    assert planner.next_at - (100.0 + pacing.full_replay_s(5)) == pytest.approx(pacing.repair_interval_s(5))
