"""Keep the board lock in video cheaply, and notice when it is lost (a bump).

Why this way: finding the board from scratch costs hundreds of milliseconds; confirming it
costs one remap of a few hundred short profiles. Each frame we look for the line ridges
where the current homography says they are (only between points, where pieces rarely sit, and
skipping points a hand hides). If they are still there (sub-pixel), we keep H and only refit
when the lines have really drifted (no jitter). If too few are found the lock check fails: the
board was bumped or moved, and the caller re-finds it.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import geometry as geo
from .lines import measure


@dataclass
class LockResult:
    ok: bool
    homography: np.ndarray
    support: float       # fraction of the checked samples with a ridge within tolerance
    moved_px: float      # median shift of the ridges from where H predicted them


def _line_width(sp: float) -> int:
    return int(max(2, round(0.035 * sp)))


class LockKeeper:
    """Verifies and follows a found lattice frame to frame."""

    def __init__(self, homography: np.ndarray, polarity: int, baseline_support: float,
                 baseline_score: float = 0.5, min_ratio: float = 0.55, refit_px: float = 0.35) -> None:
        self.h = homography.copy()
        self.baseline_score = baseline_score
        self.polarity = polarity
        self.baseline = max(baseline_support, 0.2)
        self.min_ratio = min_ratio
        self.refit_px = refit_px
        pts, nrm, ids = geo.lattice_segments(step=0.25, lo=0.25, hi=0.75)
        self.pts, self.nrm, self.ids = pts, nrm, ids
        self.axis = np.where(ids < geo.FILES, 0, 1)
        self.value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
        # which points bound each sample (to skip samples next to hidden points)
        f0 = np.floor(pts[:, 0] + 1e-9).astype(int)
        r0 = np.floor(pts[:, 1] + 1e-9).astype(int)
        along_rank = self.axis == 1
        f1 = np.where(along_rank, np.minimum(f0 + 1, 8), f0)
        r1 = np.where(along_rank, r0, np.minimum(r0 + 1, 9))
        self.near = np.c_[r0 * 9 + f0, r1 * 9 + f1]

    def check(self, gray: np.ndarray, hidden: np.ndarray | None = None) -> LockResult:
        """Look for the lattice near where it was; refit if it drifted. Does not modify on failure."""
        use = np.ones(len(self.pts), bool)
        if hidden is not None and hidden.any():
            use = ~(hidden[self.near[:, 0]] | hidden[self.near[:, 1]])
        if use.sum() < 30:
            # almost everything hidden: can't verify, keep the lock as it is
            return LockResult(True, self.h, 1.0, 0.0)
        sp = geo.point_spacing_px(self.h)
        w = _line_width(sp)
        search = max(3.0, 0.22 * sp)
        m = measure(gray, self.h, self.pts[use], self.nrm[use], search, w, self.polarity, 5.0)
        tol = max(1.5, 0.04 * sp)
        near = m.found & (np.abs(m.offset) <= tol)
        support = float(near.mean())
        moved = float(np.median(np.abs(m.offset[m.found]))) if m.found.any() else np.inf
        ok = support >= self.min_ratio * self.baseline
        if not ok:
            # maybe it slid a little: refit on the ridges found in the search range. The lattice
            # is periodic, so only a small slide is trusted, and the result must still pass the
            # full lattice test (blank river, blank beyond the edges), else it is a bump.
            if moved <= 0.15 * sp and m.found.mean() >= self.min_ratio * self.baseline \
                    and len(np.unique(self.ids[use][m.found])) >= 8:
                h2 = self._fit(m, use, m.found)
                m2 = measure(gray, h2, self.pts[use], self.nrm[use], tol, w, self.polarity, 5.0)
                s2 = float(m2.found.mean())
                if s2 >= self.min_ratio * self.baseline and self._lattice_ok(gray, h2):
                    # accepted: the one fit from a wide window follows a large slide only part
                    # of the way, so pull it in on the ridges right by it (after the check, so
                    # the polish cannot carry a wrong alias of the periodic lattice through it)
                    sel2 = m2.found
                    if len(np.unique(self.ids[use][sel2 & (self.axis[use] == 0)])) >= 3 and \
                            len(np.unique(self.ids[use][sel2 & (self.axis[use] == 1)])) >= 3:
                        h3 = self._fit(m2, use, sel2, h0=h2)
                        if float(measure(gray, h3, self.pts[use], self.nrm[use], tol, w, self.polarity,
                                         5.0).found.mean()) >= s2:
                            h2 = h3
                    self.h = h2
                    return LockResult(True, h2, s2, moved)
            return LockResult(False, self.h, support, moved)
        if moved > self.refit_px:
            sel = near
            if len(np.unique(self.ids[use][sel & (self.axis[use] == 0)])) >= 3 and \
                    len(np.unique(self.ids[use][sel & (self.axis[use] == 1)])) >= 3:
                self.h = self._fit(m, use, sel)
        return LockResult(True, self.h, support, moved)

    def _lattice_ok(self, gray: np.ndarray, h: np.ndarray) -> bool:
        from .locate import _verify
        score = _verify(gray, h, self.polarity)[0]
        return score >= 0.6 * self.baseline_score

    def _fit(self, m, use: np.ndarray, sel: np.ndarray, h0: np.ndarray | None = None) -> np.ndarray:
        ax = self.axis[use][sel]
        val = self.value[use][sel]
        return geo.fit_h_from_line_points(m.image_pts[sel], ax, val, weights=np.sqrt(m.strength[sel]),
                                          h0=self.h if h0 is None else h0, iters=3)


def same_orientation(h_new: np.ndarray, h_old: np.ndarray) -> np.ndarray:
    """Of the lattice symmetries of h_new, the one whose corners lie nearest h_old's.

    After a bump the board moves a little but red stays where it was; re-deciding the side by
    colour could flip it mid-game.
    """
    best, bd = h_new, np.inf
    co = geo.corners_of(h_old)
    for k in ("id", "flip_x", "flip_y", "rot180"):
        h = h_new @ geo.board_symmetry(k)
        if not geo.is_proper(h):
            continue
        d = float(np.linalg.norm(geo.corners_of(h) - co, axis=1).sum())
        if d < bd:
            best, bd = h, d
    return best / best[2, 2]


def to_gray(frame_bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
