"""Measure where lattice lines really are: 1-D ridge search across each predicted line.

Both the board finder (verification and refinement) and the video lock use this: given a
homography guess, sample short intensity profiles across the predicted lines at places where
pieces rarely cover them (midway between points), find the ink ridge in each profile with
sub-pixel precision, and hand the measured points to `geometry.fit_h_from_line_points`.
A ridge test (darker than BOTH sides) ignores the step edges of piece rims and shadows.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import CheckedSettings, apply_h


@dataclass(frozen=True)
class RidgeConfig(CheckedSettings):
    """How a drawn line is measured across: its width, and which ridge in the search window wins.

    Shared by the finder (vision.locate) and the lock (vision.lock), which must see lines alike.
    """

    line_width_frac: float = 0.035  # drawn line width, as a fraction of the point spacing
    min_line_width_px: int = 2      # ... but never thinner than this (px): a ridge needs flanks
    prefer_sigma_frac: float = 0.5  # width of the preference for ridges near the prediction, fraction of the search half-width
    prefer_sigma_px: float = 0.5    # ... plus this (px), so a tiny window still prefers its centre
    clear_ridge_share: float = 0.5  # a local maximum this share of a typical line's contrast is a clear ridge (nearest wins)
    typical_cap: float = 4.0        # a sample's peak counts towards "typical" only up to this many times the minimum contrast (+ the mean)
    direction_step: float = 0.05    # board-plane step (spacings) along a line used to find its image direction


DEFAULT_RIDGE = RidgeConfig()


def line_width_px(spacing_px: float, ridge: RidgeConfig = DEFAULT_RIDGE) -> int:
    """Drawn line width (px) on a board whose points are `spacing_px` apart: the ridge filter's half-width."""
    return int(max(ridge.min_line_width_px, round(ridge.line_width_frac * spacing_px)))


@dataclass
class LineSamples:
    """Measured ridge positions for a set of board-plane samples."""

    found: np.ndarray      # (N,) bool: a ridge was found within the search range
    offset: np.ndarray     # (N,) ridge position along the image normal, px (0 = predicted)
    strength: np.ndarray   # (N,) ridge contrast (grey levels)
    image_pts: np.ndarray  # (N, 2) measured image points (predicted point where not found)
    centre_strength: np.ndarray  # (N,) ridge contrast right at the predicted position


def sample_profiles(gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray,
                    half_len: int, ridge: RidgeConfig = DEFAULT_RIDGE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intensity profiles (N, 2*half_len+1) across the image lines through board points `pts`.

    The profile direction is the image normal of the mapped line (not the mapped board normal,
    which is skewed by perspective). Returns (profiles, centres (N,2), unit normals (N,2)).
    """
    tan = np.c_[nrm[:, 1], -nrm[:, 0]]
    c = apply_h(h, pts)
    d = apply_h(h, pts + ridge.direction_step * tan) - c
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-12
    u = np.c_[-d[:, 1], d[:, 0]]
    s = np.arange(-half_len, half_len + 1, dtype=np.float64)
    mx = (c[:, 0:1] + u[:, 0:1] * s[None, :]).astype(np.float32)
    my = (c[:, 1:2] + u[:, 1:2] * s[None, :]).astype(np.float32)
    prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    hgt, wid = gray.shape[:2]
    outside = (mx < 0) | (my < 0) | (mx > wid - 1) | (my > hgt - 1)
    prof[outside] = np.nan  # off the image: no evidence either way
    return prof, c, u


def ridge_response(prof: np.ndarray, w: int, polarity: int = 1) -> np.ndarray:
    """Ridge contrast at every profile position: min(mean of left flank, mean of right flank) - value.

    polarity 1 = dark ink on a lighter board, -1 = light lines on a dark board. Flanks are the
    windows [w, 3w] px away on each side. Positions whose flanks leave the profile get -inf.
    (Slices of one running sum: this runs for every line sample of every hypothesis.)
    """
    p = prof * polarity if polarity != 1 else prof
    n, L = p.shape
    a, b = w, 3 * w
    resp = np.full((n, L), -np.inf, dtype=np.float32)
    if L - 2 * b <= 0:
        return resp
    cs = np.zeros((n, L + 1), np.float32)
    np.cumsum(p, axis=1, out=cs[:, 1:])
    m = b - a + 1
    # valid positions i in [b, L - b): left flank [i-b, i-a], right flank [i+a, i+b]
    left = cs[:, b - a + 1: L - b - a + 1] - cs[:, 0: L - 2 * b]
    right = cs[:, 2 * b + 1: L + 1] - cs[:, a + b: L - b + a]
    centre = p[:, b: L - b]
    if w >= 2:  # a little smoothing of the centre value against noise / anti-aliasing
        centre = (p[:, b - 1: L - b - 1] + 2 * centre + p[:, b + 1: L - b + 1]) / 4
    r = np.minimum(left, right) / m - centre
    r[~np.isfinite(r)] = -np.inf  # profiles running off the image
    resp[:, b: L - b] = r
    return resp


def measure(gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray, search_px: float,
            w: int, polarity: int = 1, min_strength: float = 6.0, tol_px: float = 1.5,
            ridge: RidgeConfig = DEFAULT_RIDGE) -> LineSamples:
    """Find the ridge nearest each predicted line sample within +-search_px (sub-pixel).

    `w`: line width (px, `line_width_px`); `min_strength`: ridge contrast (grey levels) that
    counts as a line; `tol_px`: how far from the prediction `centre_strength` looks."""
    return measure_both(gray, h, pts, nrm, search_px, w, (polarity,), min_strength, tol_px, ridge)[0]


def measure_both(gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray, search_px: float,
                 w: int, polarities: tuple[int, ...] = (1, -1), min_strength: float = 6.0,
                 tol_px: float = 1.5, ridge: RidgeConfig = DEFAULT_RIDGE) -> list[LineSamples]:
    """`measure` for several ink polarities sharing one profile sampling."""
    search = max(int(np.ceil(search_px)), 1)
    half = search + 3 * w + 1
    prof, c, u = sample_profiles(gray, h, pts, nrm, half, ridge)
    return [_measure_prof(prof, c, u, search, half, w, pol, min_strength, tol_px, ridge) for pol in polarities]


def _measure_prof(prof: np.ndarray, c: np.ndarray, u: np.ndarray, search: int, half: int, w: int,
                  polarity: int, min_strength: float, tol_px: float, ridge: RidgeConfig) -> LineSamples:
    resp = ridge_response(prof, w, polarity)
    L = prof.shape[1]
    mid = half
    win = resp[:, mid - search: mid + search + 1]
    # prefer the ridge nearest the prediction: a board's outer frame or a piece rim a little
    # further away is often stronger than the lattice line itself
    ds = np.arange(-search, search + 1, dtype=np.float32)
    pref = np.exp(-0.5 * (ds / (ridge.prefer_sigma_frac * search + ridge.prefer_sigma_px)) ** 2)
    k = np.argmax(np.where(np.isfinite(win), np.maximum(win, 0) * pref[None, :], -1.0), axis=1)
    # among clear ridges (local maxima at least half as strong as a typical lattice line
    # here), take the nearest: lattice lines are alike, a frame is thicker and darker
    if win.shape[1] >= 3:
        wf = np.where(np.isfinite(win), win, -np.inf)
        peak = np.zeros_like(wf, dtype=bool)
        peak[:, 1:-1] = (wf[:, 1:-1] >= wf[:, :-2]) & (wf[:, 1:-1] >= wf[:, 2:])
        top = np.max(wf, axis=1)
        ok_top = np.isfinite(top) & (top >= min_strength)
        if ok_top.any():
            typical = float(np.mean(np.minimum(top[ok_top], ridge.typical_cap * min_strength + np.mean(top[ok_top]))))
            strong = peak & (wf >= max(min_strength, ridge.clear_ridge_share * typical))
            has = strong.any(axis=1)
            dist = np.where(strong, np.abs(ds)[None, :], np.inf)
            k = np.where(has, np.argmin(dist, axis=1), k)
    best = win[np.arange(len(win)), k]
    kk = k + mid - search
    # sub-pixel parabola
    r0 = resp[np.arange(len(resp)), np.clip(kk - 1, 0, L - 1)]
    r2 = resp[np.arange(len(resp)), np.clip(kk + 1, 0, L - 1)]
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = r0 - 2 * best + r2
        frac = np.where(np.isfinite(denom) & (denom < -1e-6), 0.5 * (r0 - r2) / denom, 0.0)
    frac = np.clip(np.nan_to_num(frac), -0.5, 0.5)
    off = (kk - mid) + frac
    found = np.isfinite(best) & (best >= min_strength)
    t = int(np.ceil(tol_px))
    cwin = resp[:, mid - t: mid + t + 1]
    cs = np.max(cwin, axis=1)
    cs = np.where(np.isfinite(cs), cs, 0.0)
    img = c + u * np.where(found, off, 0.0)[:, None]
    return LineSamples(found=found, offset=np.where(found, off, 0.0), strength=np.where(np.isfinite(best), best, 0.0),
                       image_pts=img, centre_strength=cs)
