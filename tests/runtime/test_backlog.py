"""The recorder's backlog: frames thinned evenly when the recorder falls behind."""
from __future__ import annotations

import queue
from dataclasses import dataclass

import pytest
from hypothesis import given, settings, strategies as st

from runtime.backlog import EvenBacklog


@dataclass
class F:
    t: float


def _drain(q: EvenBacklog) -> list[float]:
    out = []
    while True:
        try:
            out.append(q.get(timeout=0.0).t)
        except queue.Empty:
            return out


def test_a_stall_keeps_frames_spread_over_it_not_its_last_second():
    q = EvenBacklog(capacity=15, max_lag_s=10.0)
    for i in range(60):                      # 4 s at 15 fps while the recorder is busy elsewhere
        q.put(F(i / 15))
    ts = _drain(q)
    assert len(ts) == 15 and ts[0] == 0.0 and ts[-1] == pytest.approx(59 / 15)
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    assert max(gaps) <= 2.0 * (ts[-1] - ts[0]) / (len(ts) - 1)
    assert q.dropped == 45


def test_no_waiting_frame_lags_the_newest_by_more_than_the_bound():
    q = EvenBacklog(capacity=15, max_lag_s=4.0)
    for i in range(300):
        q.put(F(i / 15))
    ts = _drain(q)
    assert ts[-1] - ts[0] <= 4.0 and ts[-1] == pytest.approx(299 / 15)


def test_the_end_of_the_source_comes_after_the_frames_still_waiting():
    q = EvenBacklog(capacity=4, max_lag_s=4.0)
    q.put(F(0.0))
    q.put(F(0.1))
    end = object()
    q.put_control(end)
    assert q.get(0.0).t == 0.0 and q.get(0.0).t == 0.1 and q.get(0.0) is end
    with pytest.raises(queue.Empty):
        q.get(0.01)


@settings(max_examples=60, deadline=None)
@given(capacity=st.integers(2, 40), gaps=st.lists(st.floats(0.0, 0.5), min_size=1, max_size=300),
       takes=st.lists(st.booleans(), max_size=300))
def test_frames_come_out_in_time_order_and_every_frame_is_either_handed_out_or_counted_dropped(capacity, gaps, takes):
    q = EvenBacklog(capacity=capacity, max_lag_s=3.0)
    t, out = 0.0, []
    for i, g in enumerate(gaps):
        t += g
        q.put(F(t))
        assert len(q) <= capacity
        if i < len(takes) and takes[i]:
            out.append(q.get(0.0).t)
    out += _drain(q)
    assert out == sorted(out)
    assert len(out) + q.dropped == len(gaps)
