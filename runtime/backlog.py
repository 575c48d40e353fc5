"""Frames waiting for the recorder, thinned evenly when it falls behind.

Why evenly: a recorder that cannot keep up must drop frames, and which ones decides whether the
game can still be followed. Dropping the oldest waiting frame keeps the newest second and loses
everything before it whenever the recorder stalls: a move made during a stall is gone whole
(its hand, its lift, its put-down). Thinning instead keeps the waiting frames spread over the
whole time the recorder was behind, fewer per second the longer it stalls: a move still shows
its hand coming and going and its board before and after, only in fewer frames, and is recorded
late instead of never. The frames kept are the ones whose neighbours are closest in time (the
oldest and the newest always stay), and no frame waits longer than `max_lag_s`, so a recorder
that is slower than the source for good follows it at a bounded delay instead of an ever
growing one.

Pure logic plus a lock and a condition: the capture thread puts, the recorder gets.
"""
from __future__ import annotations

import queue
import threading
from collections import deque
from typing import Any

__all__ = ["EvenBacklog"]


class EvenBacklog:
    """A bounded queue of timed frames (any objects with a `t` in seconds) that thins evenly.

    capacity: frames held at most (the source's fps times the seconds of backlog wanted).
    max_lag_s: the oldest waiting frame is at most this much older than the newest.
    Control items (end of source, an exception) are put with `put_control` and never dropped.
    `dropped` counts the frames thinned or aged out.
    """

    def __init__(self, capacity: int, max_lag_s: float) -> None:
        if capacity < 2:
            raise ValueError(f"capacity {capacity}: at least 2 frames")
        if max_lag_s <= 0:
            raise ValueError(f"max_lag_s {max_lag_s}: must be positive")
        self.capacity = int(capacity)
        self.max_lag_s = float(max_lag_s)
        self.dropped = 0
        self._items: deque[Any] = deque()
        self._control: deque[Any] = deque()
        self._cond = threading.Condition()

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def put(self, frame: Any) -> int:
        """Add a frame (times never decrease); returns how many waiting frames it pushed out."""
        with self._cond:
            before = self.dropped
            self._items.append(frame)
            newest = frame.t
            while len(self._items) > 1 and newest - self._items[0].t > self.max_lag_s:
                self._items.popleft()
                self.dropped += 1
            while len(self._items) > self.capacity:
                self._thin_one()
            self._cond.notify()
            return self.dropped - before

    def _thin_one(self) -> None:
        """Drop the interior frame whose neighbours are closest in time (evens the spacing out)."""
        items = self._items
        best_i, best_gap = 1, float("inf")
        for i in range(1, len(items) - 1):
            gap = items[i + 1].t - items[i - 1].t
            if gap < best_gap:
                best_i, best_gap = i, gap
        del items[best_i]
        self.dropped += 1

    def put_control(self, item: Any) -> None:
        """An item that ends or breaks the stream: handed out after the frames waiting now."""
        with self._cond:
            self._control.append(item)
            self._cond.notify()

    def get(self, timeout: float) -> Any:
        """The oldest waiting frame, else a control item; queue.Empty after `timeout` seconds."""
        with self._cond:
            if not self._items and not self._control:
                self._cond.wait(timeout)
            if self._items:
                return self._items.popleft()
            if self._control:
                return self._control.popleft()
            raise queue.Empty
