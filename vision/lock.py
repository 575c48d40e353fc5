"""Keep the board lock in video cheaply, and notice when it is lost (a bump).

Why this way: finding the board from scratch costs hundreds of milliseconds; confirming it
costs one remap of a few hundred short profiles. Each frame we look for the line ridges
where the current homography says they are (only between points, where pieces rarely sit, and
skipping points a hand hides). If they are still there (sub-pixel), we keep H and only refit
when the lines have really drifted (no jitter) and no hand seen is over the board. If too few
are found the lock check fails: the board was bumped or moved, and the caller re-finds it.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import geometry as geo
from .geometry import CheckedSettings
from .lines import DEFAULT_RIDGE, LineSamples, RidgeConfig, line_width_px, measure


@dataclass(frozen=True)
class LockConfig(CheckedSettings):
    """Every threshold of the lock check, with its unit."""

    sample_step: float = 0.25        # step between line samples along each unit segment (spacings)
    sample_lo: float = 0.25          # samples run from this fraction of each segment ...
    sample_hi: float = 0.75          # ... to this one (midway between points, where pieces rarely sit)
    min_visible: int = 30            # fewer unhidden samples than this: the lock cannot be checked and is kept
    search_frac: float = 0.22        # ridge search half-width, fraction of the point spacing ...
    min_search_px: float = 3.0       # ... and at least this (px)
    line_contrast: float = 5.0       # ridge contrast (grey levels) that counts as a drawn line
    tol_frac: float = 0.04           # a ridge this close to the prediction (fraction of a spacing) is on the line ...
    min_tol_px: float = 1.5          # ... and never closer than this (px)
    min_baseline: float = 0.2        # the support the lock is judged against is at least this (fraction of samples)
    min_ratio: float = 0.55          # the lock holds while support is at least this share of the baseline
    refit_px: float = 0.35           # ridges shifted by more than this (px, median) get H refitted (less: no jitter)
    slide_frac: float = 0.15         # a lost lock is followed only for a slide below this fraction of a spacing (median)
    slide_min_lines: int = 8         # ... with ridges found on at least this many distinct lines
    min_lines: int = 3               # distinct lines per direction a refit needs
    fit_iters: int = 3               # robust line-fit iterations of a refit
    lattice_share: float = 0.6       # a followed slide must still pass the lattice test at this share of the found score
    all_hidden: float = 0.95         # a share of points reported hidden that no hand reaches: the view moved under the hand detector
    ridge: RidgeConfig = DEFAULT_RIDGE


DEFAULT_LOCK = LockConfig()


@dataclass
class LockResult:
    """The outcome of one lock check."""

    ok: bool             # the lattice is still where the lock has it (possibly refitted)
    homography: np.ndarray
    support: float       # fraction of the checked samples with a ridge within tolerance
    moved_px: float      # median shift of the ridges from where H predicted them
    slid: bool = False   # the lock was lost and followed a slide of the lattice (the camera knocked)


class LockKeeper:
    """Verifies and follows a found lattice frame to frame."""

    def __init__(self, homography: np.ndarray, polarity: int, baseline_support: float,
                 baseline_score: float = 0.5, config: LockConfig = DEFAULT_LOCK) -> None:
        self.h = homography.copy()
        self.baseline_score = baseline_score
        self.polarity = polarity
        self.config = config
        self.baseline = max(baseline_support, config.min_baseline)
        pts, nrm, ids = geo.lattice_segments(step=config.sample_step, lo=config.sample_lo, hi=config.sample_hi)
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

    def check(self, gray: np.ndarray, hidden: np.ndarray | None = None, hand_seen: bool = True) -> LockResult:
        """Look for the lattice near where it was; refit if it drifted. Does not modify on failure.

        `hidden`: the points a hand hides (their lines are not looked for); `hand_seen`: they are
        a hand the hand detector saw against a board it had seen bare (False while it still doubts
        its background: at the start, after a knock, or after a new lock): the pose is then not
        refitted, only followed through a knock."""
        cfg = self.config
        use = np.ones(len(self.pts), bool)
        covered = False     # a hand seen over part of the board: no refit below
        if hidden is not None and hidden.any() and float(np.mean(hidden)) < cfg.all_hidden:
            # (nearly every point hidden is no hand: a lock that followed a bump only part of
            # the way leaves the whole board departing from the hand detector's background, and
            # skipping those points would keep that lock for good)
            use = ~(hidden[self.near[:, 0]] | hidden[self.near[:, 1]])
            covered = hand_seen
        if use.sum() < cfg.min_visible:
            # almost everything hidden: can't verify, keep the lock as it is
            return LockResult(True, self.h, 1.0, 0.0)
        sp = geo.point_spacing_px(self.h)
        w = line_width_px(sp, cfg.ridge)
        search = max(cfg.min_search_px, cfg.search_frac * sp)
        m = self._measure(gray, self.h, use, search, w)
        tol = max(cfg.min_tol_px, cfg.tol_frac * sp)
        near = m.found & (np.abs(m.offset) <= tol)
        support = float(near.mean())
        moved = float(np.median(np.abs(m.offset[m.found]))) if m.found.any() else np.inf
        needed = cfg.min_ratio * self.baseline
        if support < needed:
            # maybe it slid a little: refit on the ridges found in the search range. The lattice
            # is periodic, so only a small slide is trusted, and the result must still pass the
            # full lattice test (blank river, blank beyond the edges), else it is a bump.
            if moved <= cfg.slide_frac * sp and m.found.mean() >= needed \
                    and len(np.unique(self.ids[use][m.found])) >= cfg.slide_min_lines:
                h2 = self._fit(m, use, m.found)
                m2 = self._measure(gray, h2, use, tol, w)
                s2 = float(m2.found.mean())
                if s2 >= needed and self._lattice_ok(gray, h2):
                    # accepted: the one fit from a wide window follows a large slide only part
                    # of the way, so pull it in on the ridges right by it (after the check, so
                    # the polish cannot carry a wrong alias of the periodic lattice through it)
                    if self._fittable(use, m2.found):
                        h3 = self._fit(m2, use, m2.found, h0=h2)
                        if float(self._measure(gray, h3, use, tol, w).found.mean()) >= s2:
                            h2 = h3
                    self.h = h2
                    return LockResult(True, h2, s2, moved, slid=True)
            return LockResult(False, self.h, support, moved)
        if moved > cfg.refit_px and not covered and self._fittable(use, near):
            # not while a hand seen is over the board: the board and the camera do not move under a
            # hand unless knocked, and a knock moves the lines beyond the tolerance (followed as
            # a slide above). A refit then would see the lines of the uncovered part only, and
            # an arm's edges beside them; fitted to part of the board, the pose drifts where it
            # is not seen, a little with each refit, and once the hand has gone the lines there
            # lie beyond the tolerance and the points the drift makes depart from the hand
            # detector's background are skipped, so no later refit pulls it back: the board is
            # never quiet again
            self.h = self._fit(m, use, near)
        return LockResult(True, self.h, support, moved)

    def _measure(self, gray: np.ndarray, h: np.ndarray, use: np.ndarray, search_px: float, w: int) -> LineSamples:
        """Ridges across the unhidden samples' lines within +-search_px of where `h` puts them."""
        cfg = self.config
        return measure(gray, h, self.pts[use], self.nrm[use], search_px, w, self.polarity, cfg.line_contrast,
                       ridge=cfg.ridge)

    def _fittable(self, use: np.ndarray, sel: np.ndarray) -> bool:
        """The selected samples lie on enough distinct lines of each direction for a refit."""
        ids, axis, k = self.ids[use], self.axis[use], self.config.min_lines
        return len(np.unique(ids[sel & (axis == 0)])) >= k and len(np.unique(ids[sel & (axis == 1)])) >= k

    def _lattice_ok(self, gray: np.ndarray, h: np.ndarray) -> bool:
        """The whole lattice test (locate's) still passes: a slide, not an alias of the periodic lattice."""
        from .locate import _verify
        score = _verify(gray, h, self.polarity).score
        return score >= self.config.lattice_share * self.baseline_score

    def _fit(self, m: LineSamples, use: np.ndarray, sel: np.ndarray, h0: np.ndarray | None = None) -> np.ndarray:
        """H refitted to the selected samples' ridges (starting from `h0`, else the current H)."""
        ax = self.axis[use][sel]
        val = self.value[use][sel]
        return geo.fit_h_from_line_points(m.image_pts[sel], ax, val, weights=np.sqrt(m.strength[sel]),
                                          h0=self.h if h0 is None else h0, iters=self.config.fit_iters)


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
    """OpenCV's standard grey of a BGR frame (a grey frame as it is) for the per-frame lock check."""
    return cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
