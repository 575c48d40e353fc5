"""Whether the pieces themselves confirm the locked lattice, so that a board search can be spared.

Why: a full board search costs about 0.1 s on a board seen from above and seconds on a steep side
view, and the reader repeats it while it holds a lock (audits at doubling intervals, rechecks of
a lock whose lines score weakly). On a side camera those searches were most of the machine's
work. But the pieces are the best witness of the lattice: they stand on its points. When the
game's known position reads on the locked points, and the discs' measured centres show no shift,
scale or turn common to them all, the lattice is where the board is, and a search could only
find it again. What a search is for then never arises:

- a lattice a line or a file off reads the known position on too few points (the pieces read
  from their neighbours' points, a rank of points on the table);
- a lattice a fraction of a spacing off, or a little wrong in scale or perspective, puts every
  disc off its point the same way, growing across the board; a least-squares fit of one affine
  map of the board plane to the discs' offsets measures that, a single disc knocked aside or
  left between points being no more than one point among many (points measured that far off are
  left out of the fit, and when too many are, nothing is confirmed).

Pure: arrays in, a verdict out.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import POINTS
from .observation import NUM_POINTS

# The affine map's design matrix over the 90 points (board-plane coordinates, centred on the board).
_DESIGN = np.column_stack([np.ones(NUM_POINTS), POINTS - POINTS.mean(axis=0)])


@dataclass(frozen=True)
class LockWitness:
    """What the pieces say of the locked lattice."""

    known_share: float        # share of the 90 points read as the known position says
    discs: int                # discs whose offsets entered the fit
    drift: float | None       # largest offset the fitted common map gives any point (spacings); None: too few discs
    confirmed: bool


def lattice_drift(offsets: np.ndarray, occupied: np.ndarray, far: float, min_discs: int) -> tuple[float | None, int]:
    """The largest offset (spacings) that one affine map of the board plane, fitted by least squares
    to the measured offsets of the occupied points, gives any of the 90 points; and how many discs
    the fit used. Discs measured `far` or more off their points are left out (a knocked disc); None
    when fewer than `min_discs` remain or they are fewer than two thirds of the occupied points
    (the lattice itself may be that far off)."""
    off = np.asarray(offsets, np.float64).reshape(NUM_POINTS, 2)
    occ = np.asarray(occupied, bool).reshape(NUM_POINTS)
    near = occ & np.all(np.isfinite(off), axis=1) & (np.hypot(off[:, 0], off[:, 1]) < far)
    used = int(near.sum())
    if used < min_discs or used < (2 * int(occ.sum())) / 3:
        return None, used
    coef, *_ = np.linalg.lstsq(_DESIGN[near], off[near], rcond=None)
    fitted = _DESIGN @ coef
    return float(np.hypot(fitted[:, 0], fitted[:, 1]).max()), used


def witness(probs: np.ndarray, offsets: np.ndarray, known: np.ndarray, explained_share: float,
            max_drift: float, far: float, min_discs: int) -> LockWitness:
    """The pieces' verdict on the lattice: `probs` (90, C) the reader's latest reading, `offsets`
    (90, 2) the discs' measured offsets (spacings), `known` (90,) the known position's class ids.
    Confirmed when at least `explained_share` of the points read as the known position says and
    the discs drift less than `max_drift` spacings (`lattice_drift`)."""
    p = np.asarray(probs)
    ids = np.asarray(known).reshape(NUM_POINTS)
    share = float((p.argmax(axis=1) == ids).mean())
    drift, used = lattice_drift(offsets, ids != 0, far, min_discs)
    ok = share >= explained_share and drift is not None and drift < max_drift
    return LockWitness(round(share, 3), used, None if drift is None else round(drift, 3), ok)


__all__ = ["LockWitness", "lattice_drift", "witness"]
