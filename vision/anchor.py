"""Re-seating the locked lattice on a position known to stand on the board, and when to try.

Why apart from the reader: judging a lattice against a known position reads the board 18 times
(the lock shifted a point either way, and turned) and, when none of those explains it, searches
the frame for other lattices (seconds on a steep view). That is a job for the search thread
(vision.search_worker): `propose_anchor` takes a frame and the lock as they were and touches no
reader state; the reader applies the proposal later, if its lock has not moved on meanwhile.
`AnchorWatch` is the policy of when to ask at all (AnchorConfig), which the reader holds so that
the recorder only tells it the game's position.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import geometry as geo
from .config import AnchorConfig
from .locate import BoardNotFoundError, LatticeFit, find_lattice, orient
from .observation import CLASSES, NUM_POINTS

if TYPE_CHECKING:
    from .classifier import PieceClassifier

__all__ = ["AnchorProposal", "AnchorResult", "AnchorWatch", "Seat", "board_ids", "propose_anchor"]


@dataclass(frozen=True)
class AnchorResult:
    """The lattice moved by (shift_x, shift_y) points (turned when `turned`), `gain_nats` more likely."""

    shift_x: int
    shift_y: int
    turned: bool
    gain_nats: float
    fresh: bool = False          # a lattice searched for anew, not the locked one shifted
    explained: float = 0.0       # share of points read as the known position under the result


@dataclass(frozen=True)
class Seat:
    """One lattice tried against the known position: where it came from and how well the
    position reads under it."""

    h: np.ndarray
    shift_x: int
    shift_y: int
    turned: bool
    loglik: float                # of the known position
    share: float                 # of points read as it
    fit: "LatticeFit | None"     # a lattice searched for anew; None: the locked one shifted


@dataclass(frozen=True)
class AnchorProposal:
    """What `propose_anchor` found: the known position's likelihood and share under the lock as it
    was, and the best other seat (which replaces the lock only if it gains enough)."""

    here_loglik: float
    here_share: float
    best: Seat


def board_ids(board: str, who: str) -> np.ndarray:
    """A 90-character board (point-index order) as class indices; a clear error naming `who`."""
    if len(board) != NUM_POINTS:
        raise ValueError(f"{who}: board must be {NUM_POINTS} characters in point-index order, got {len(board)}")
    try:
        return np.array([CLASSES.index(c) for c in board])
    except ValueError:
        raise ValueError(f"{who}: board has characters outside {''.join(CLASSES)!r}") from None


def propose_anchor(frame_bgr: np.ndarray, here: np.ndarray, model: "PieceClassifier", ids: np.ndarray,
                   config: AnchorConfig) -> AnchorProposal:
    """The lattice `here` shifted by up to `max_shift` points either way, and turned, scored by how
    likely the known position (`ids`, class per point) is under it; if none explains the position
    on `explained_share` of the points, other lattices found in the frame are tried the same way
    (AnchorConfig). Reads only its arguments: safe on the search thread."""
    rows = np.arange(NUM_POINTS)

    def judge(h: np.ndarray) -> tuple[float, float]:
        """(log-likelihood of the known position, share of points read as it) under h."""
        p = np.clip(model.predict(model.extract(frame_bgr, h)), 1e-6, 1.0)
        return float(np.log(p[rows, ids]).sum()), float((p.argmax(axis=1) == ids).mean())

    def best_of(h0: np.ndarray, fit: "LatticeFit | None", best: Seat | None) -> Seat | None:
        """The best of `best` and h0 shifted by up to max_shift points and turned (h0 itself
        left out when it is the locked lattice), by the known position's likelihood."""
        k = config.max_shift
        for turned in (False, True):
            base = h0 @ geo.board_symmetry("rot180") if turned else h0
            for dx in range(-k, k + 1):
                for dy in range(-k, k + 1):
                    if fit is None and not turned and dx == 0 and dy == 0:
                        continue
                    h = base @ np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])
                    h = h / h[2, 2]
                    ll, share = judge(h)
                    if best is None or ll > best.loglik:
                        best = Seat(h, dx, dy, turned, ll, share, fit)
        return best

    here_ll, here_share = judge(here)
    best = best_of(here, None, None)
    assert best is not None
    if max(best.share, here_share) < config.explained_share and config.fresh_lattices > 0:
        tried: list[np.ndarray] = [here]
        for _ in range(config.fresh_lattices):
            try:
                fit = find_lattice(frame_bgr, exclude=tuple(tried))
            except BoardNotFoundError:
                break
            tried.append(fit.homography)
            best = best_of(orient(fit.homography), fit, best)
    assert best is not None
    return AnchorProposal(here_ll, here_share, best)


class AnchorWatch:
    """When the reader checks its lattice against the game's position by itself (AnchorConfig):
    on the tracker's disagreement at most every `every_s`, and once for a lock that gave no quiet
    frame within `unquiet_lock_s` of being taken. Times are source seconds."""

    def __init__(self, config: AnchorConfig) -> None:
        self.config = config
        self._asked_t: float | None = None     # when a check was last asked for
        self._lock_t: float | None = None      # when the lock watched was taken; None: no watch

    def lock_taken(self, t: float) -> None:
        """A new lock (found, or re-seated on a lattice found anew) is watched from `t`."""
        self._lock_t = t

    def lock_lost(self) -> None:
        self._lock_t = None

    def unquiet_too_long(self, t: float, quiet: bool) -> bool:
        """One locked frame seen: True once, when the watched lock has gone `unquiet_lock_s`
        without a quiet frame; a quiet frame ends the watch."""
        if self._lock_t is None:
            return False
        if quiet:
            self._lock_t = None
            return False
        if t - self._lock_t >= self.config.unquiet_lock_s:
            self._lock_t = None
            return True
        return False

    def allow(self, t: float) -> bool:
        """Whether a check may be asked for at `t` (none in the last `every_s`); if so it counts as asked."""
        if self._asked_t is not None and t - self._asked_t < self.config.every_s:
            return False
        self._asked_t = t
        return True
