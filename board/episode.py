"""What happened to each point while hands were over the board.

An episode runs from the first frame that is not quiet (or whose reading
departs from the settled board) to the frame the board settles again. The
tracker feeds it every frame; at settle time the incident rules read the
per-point record: when a point was first covered, how far its disc moved
while it could be seen, how sure the reader stayed that the settled piece
was still there. Pure numpy, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Settled:
    """A settled board: what the tracker compares the next episode against."""

    t: float
    frame_index: int
    classes: np.ndarray          # (90,) class index per point (the legal position's placement)
    offsets: np.ndarray          # (90, 2) mean disc offsets over the settle window
    visible: np.ndarray          # (90,) bool, seen during the settle window
    ref_prob: np.ndarray         # (90,) mean probability of `classes` at each point
    provisional: bool = False    # no settle seen yet: offsets unknown, judge no incident against it


@dataclass
class Episode:
    """Per-point record of one hands-over-board stretch."""

    t_start: float
    frame_start: int
    before: Settled
    frames: int = 0
    t_last: float = 0.0
    frame_last: int = 0
    first_occluded: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    last_occluded: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    occluded_frames: np.ndarray = field(default_factory=lambda: np.zeros(90, dtype=np.int64))
    # largest offset departure from the settled offset while the point was visible
    max_shift: np.ndarray = field(default_factory=lambda: np.zeros(90, dtype=np.float64))
    max_shift_frame: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    # lowest probability of the settled class while visible (a lifted or turned disc)
    min_prob: np.ndarray = field(default_factory=lambda: np.ones(90, dtype=np.float64))
    min_prob_frame: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    # first frame each point looked disturbed (covered, shifted or doubtful)
    first_disturbed: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    busiest_frame: int = -1
    busiest_count: int = -1
    lost_frames: int = 0

    def update(self, t: float, frame_index: int, occluded: np.ndarray | None, probs: np.ndarray | None,
               offsets: np.ndarray | None, shift_threshold: float = 0.12, prob_threshold: float = 0.35) -> None:
        """Add one frame. `occluded` None means the board was not found in this frame."""
        self.frames += 1
        self.t_last = t
        self.frame_last = frame_index
        if occluded is None or probs is None or offsets is None:
            self.lost_frames += 1
            return
        occ = np.asarray(occluded, dtype=bool)
        new = occ & (self.first_occluded < 0)
        self.first_occluded[new] = frame_index
        self.last_occluded[occ] = frame_index
        self.occluded_frames += occ
        n = int(occ.sum())
        if n > self.busiest_count:
            self.busiest_count, self.busiest_frame = n, frame_index
        vis = ~occ
        shift = np.linalg.norm(np.asarray(offsets, dtype=np.float64) - self.before.offsets, axis=1)
        shift = np.where(vis, shift, 0.0)
        grow = shift > self.max_shift
        self.max_shift[grow] = shift[grow]
        self.max_shift_frame[grow] = frame_index
        p = np.asarray(probs, dtype=np.float64)[np.arange(90), self.before.classes]
        p = np.where(vis, p, 1.0)
        low = p < self.min_prob
        self.min_prob[low] = p[low]
        self.min_prob_frame[low] = frame_index
        disturbed = occ | (shift > shift_threshold) | (p < prob_threshold)
        first = disturbed & (self.first_disturbed < 0)
        self.first_disturbed[first] = frame_index
