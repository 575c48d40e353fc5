"""The settle window: the frames since the board last changed, and when they count as settled.

Why its own object: deciding *when* a stretch has settled (and keeping the running sums that
make that cheap) is separate from deciding *what* the settled board means. The tracker owns one
window; it adds each frame of an episode, asks `settle_kind()`, and reads the settled frames
back as one `SettleReading`. Pure: numpy arrays in, numbers out.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .explain import Evidence, log_readings
from .sync import SettleKind
from .turning import turned_offsets, turned_points


@dataclass
class Frame:
    """One observation as the tracker keeps it (arrays already converted)."""

    t: float
    frame_index: int
    quiet: bool
    occluded: np.ndarray     # (90,) bool
    probs: np.ndarray        # (90, 15) reader probabilities
    offsets: np.ndarray      # (90, 2) disc offsets, spacings

    @property
    def clean(self) -> bool:
        """Quiet and with no point covered: a frame that shows the whole board at rest."""
        return self.quiet and not self.occluded.any()

    def turned(self) -> "Frame":
        """The frame read with red's end and black's swapped (board.turning)."""
        return Frame(self.t, self.frame_index, self.quiet, turned_points(self.occluded), turned_points(self.probs),
                     turned_offsets(self.offsets))


@dataclass
class WindowConfig:
    """When a window has settled, and what breaks it (times in seconds of source time)."""

    quiet_settle_s: float = 0.08    # clean frames spanning this long = settled
    min_settle_frames: int = 3      # ... and at least this many of them
    rest_settle_s: float = 0.7      # an arm resting at the edge: visible points unchanged this long
    change_nats: float = 2.5        # a reading contradicting the window's mean by this much is a change
    offset_wobble: float = 0.12     # disc offset change (spacings) that is a change
    rest_try_every: int = 4         # an arm at rest: try explaining on every n-th frame (explaining costs)


@dataclass
class Misread:
    """Points the reader keeps reading as another piece than the accepted position's, and what it reads
    there: the same reading later is no news (a look-alike), so it never counts as contradicting."""

    points: np.ndarray       # (90,) bool
    reads_as: np.ndarray     # (90,) class the reader read at each point


@dataclass
class SettleReading:
    """What a run of settled frames says: the evidence for explaining, the mean disc offsets."""

    evidence: Evidence
    offsets: np.ndarray      # (90, 2) mean offsets over the frames each point was visible in


def read_frames(frames: list[Frame], misread: Misread | None = None) -> SettleReading:
    """Average the frames' readings over the frames each point was visible in; a point covered in
    any frame is not visible (its evidence could be half a hand)."""
    occ_any = np.zeros(90, dtype=bool)
    psum = np.zeros((90, 15), dtype=np.float64)
    osum = np.zeros((90, 2), dtype=np.float64)
    n = np.zeros(90, dtype=np.float64)
    for f in frames:
        occ_any |= f.occluded
        vis = ~f.occluded
        psum[vis] += f.probs[vis]
        osum[vis] += f.offsets[vis]
        n += vis
    visible = ~occ_any
    nn = np.maximum(n, 1.0)[:, None]
    probs = np.where(n[:, None] > 0, psum / nn, 1.0 / 15)
    offsets = osum / nn
    ev = Evidence(log_readings(probs), visible)
    if misread is not None:
        ev.ignore = misread.points & (ev.observed() == misread.reads_as)
    return SettleReading(ev, offsets)


class SettleWindow:
    """The frames of the current episode since its last real change, with running sums.

    A real change restarts the window; a one-frame flicker of the reader does not. The window
    also remembers since when the set of covered points has stayed the same (an arm at rest), which
    survives a restart, and whether an unexplained board is being held for a moment (`hold`).
    """

    def __init__(self, config: WindowConfig | None = None) -> None:
        self.cfg = config or WindowConfig()
        self.frames: deque[Frame] = deque()
        self._occ_set: np.ndarray | None = None
        self.occ_since = 0.0
        self._rest_tries = 0
        self.reset()

    def reset(self) -> None:
        """Empty the window (a settle, a lost board, a new episode)."""
        self.frames.clear()
        self._psum = np.zeros((90, 15), dtype=np.float64)
        self._osum = np.zeros((90, 2), dtype=np.float64)
        self._n = np.zeros(90, dtype=np.float64)
        self._streak = np.zeros(90, dtype=np.int64)
        self.holding = False
        self.hold_s = 0.0

    def __len__(self) -> int:
        return len(self.frames)

    def turn(self) -> None:
        """Hold the same frames read with red's end and black's swapped (board.turning); a hold
        and an arm's rest go on as they were."""
        self.frames = deque(f.turned() for f in self.frames)
        self._psum = turned_points(self._psum)
        self._osum = turned_offsets(self._osum)
        self._n = turned_points(self._n)
        self._streak = turned_points(self._streak)
        if self._occ_set is not None:
            self._occ_set = turned_points(self._occ_set)

    def hold(self, seconds: float) -> None:
        """An unexplained board: do not settle on it before its clean frames span `seconds`."""
        self.holding = True
        self.hold_s = seconds

    def extend(self, fr: Frame) -> None:
        """Add a frame, or restart the window at a real change.

        A real change is a point (seen in both) whose reading contradicts the
        window's mean reading, or whose disc moved, in two frames running; a
        single-frame flicker of the reader is tolerated (and averaged away).
        """
        if self.frames:
            n = self._n
            mean = self._psum / np.maximum(n, 1.0)[:, None]
            ref = np.argmax(mean, axis=1)
            both = ~fr.occluded & (n > 0)
            lp = log_readings(fr.probs)
            contra = (lp.max(axis=1) - lp[np.arange(90), ref] > self.cfg.change_nats) & both
            mean_off = self._osum / np.maximum(n, 1.0)[:, None]
            moved = (np.linalg.norm(fr.offsets - mean_off, axis=1) > self.cfg.offset_wobble) & both
            bad = contra | moved
            self._streak = np.where(bad, self._streak + 1, 0)
            if np.any(self._streak >= 2):
                prev = self.frames[-1]
                self.reset()
                self._add(prev)
                self._streak[:] = 0
        self._add(fr)

    def _add(self, fr: Frame) -> None:
        if not fr.clean:
            self.holding = False
        if self._occ_set is None or not np.array_equal(fr.occluded, self._occ_set):
            self._occ_set = fr.occluded
            self.occ_since = fr.t
            self._rest_tries = 0
        self.frames.append(fr)
        vis = ~fr.occluded
        self._psum[vis] += fr.probs[vis]
        self._osum[vis] += fr.offsets[vis]
        self._n += vis

    def clean_tail(self) -> int:
        """How many of the last frames are clean (quiet, nothing covered)."""
        n = 0
        for f in reversed(self.frames):
            if not f.clean:
                break
            n += 1
        return n

    def settle_kind(self) -> SettleKind | None:
        """Whether the window has settled now, and how; None to keep waiting.

        QUIET: enough clean frames spanning quiet_settle_s (and any hold). REST: no clean frame, the
        covered points unchanged for rest_settle_s; tried on every few frames only.
        """
        w = self.frames
        if len(w) < self.cfg.min_settle_frames:
            return None
        n_clean = self.clean_tail()
        if n_clean >= self.cfg.min_settle_frames:
            span = w[-1].t - w[-n_clean].t
            if self.holding and span < self.hold_s:
                return None
            if span >= self.cfg.quiet_settle_s - 1e-6:
                return SettleKind.QUIET
        if n_clean == 0 and w[-1].t - max(w[0].t, self.occ_since) >= self.cfg.rest_settle_s:
            self._rest_tries += 1
            if self._rest_tries % self.cfg.rest_try_every == 1:
                return SettleKind.REST
        return None

    def settled_frames(self, kind: SettleKind) -> list[Frame]:
        """The frames a settle of `kind` reads: the clean tail (QUIET), or the frames since the
        covered points last changed (REST)."""
        frames = list(self.frames)
        if kind == SettleKind.QUIET:
            n_clean = self.clean_tail()
            return frames[-n_clean:]
        return [f for f in frames if f.t >= self.occ_since]

    def hand_left_time(self) -> float | None:
        """Source time the last hand left: the first clean frame in the window."""
        for f in self.frames:
            if f.clean:
                return f.t
        return None
