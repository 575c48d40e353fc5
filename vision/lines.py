"""Measure where lattice lines really are: 1-D ridge search across each predicted line.

Both the board finder (verification and refinement) and the video lock use this: given a
homography guess, sample short intensity profiles across the predicted lines at places where
pieces rarely cover them (midway between points), find the ink ridge in each profile with
sub-pixel precision, and hand the measured points to `geometry.fit_h_from_line_points`.
A ridge test (darker than BOTH sides) ignores the step edges of piece rims and shadows.

`sample_profiles` + `ridge_response` are the plain statement of the test; the finder measures
thousands of profiles a search, so `measure` and `centre_strengths` compute the same numbers
through `RidgeProfiles` (exactly the same for a uint8 image), in far fewer array passes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

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


def image_normals(h: np.ndarray, pts: np.ndarray, nrm: np.ndarray,
                  ridge: RidgeConfig = DEFAULT_RIDGE) -> tuple[np.ndarray, np.ndarray]:
    """Image points of board points `pts` and the unit image normals of the lines through them
    (the image normal of the mapped line, not the mapped board normal, which perspective skews)."""
    tan = np.empty_like(nrm)
    tan[:, 0] = nrm[:, 1]
    tan[:, 1] = -nrm[:, 0]
    c = apply_h(h, pts)
    d = apply_h(h, pts + ridge.direction_step * tan) - c
    d /= (np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + 1e-12)[:, None]
    u = np.empty_like(d)
    u[:, 0] = -d[:, 1]
    u[:, 1] = d[:, 0]
    return c, u


def sample_profiles(gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray,
                    half_len: int, ridge: RidgeConfig = DEFAULT_RIDGE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intensity profiles (N, 2*half_len+1) across the image lines through board points `pts`.

    The profile direction is the image normal of the mapped line (not the mapped board normal,
    which is skewed by perspective). Returns (profiles, centres (N,2), unit normals (N,2)).
    """
    c, u = image_normals(h, pts, nrm, ridge)
    s = np.arange(-half_len, half_len + 1, dtype=np.float64)
    mx = (c[:, 0:1] + u[:, 0:1] * s[None, :]).astype(np.float32)
    my = (c[:, 1:2] + u[:, 1:2] * s[None, :]).astype(np.float32)
    prof = remap_rows(gray, mx, my).astype(np.float32)
    hgt, wid = gray.shape[:2]
    outside = (mx < 0) | (my < 0) | (mx > wid - 1) | (my > hgt - 1)
    prof[outside] = np.nan  # off the image: no evidence either way
    return prof, c, u


def ridge_response(prof: np.ndarray, w: int, polarity: int = 1) -> np.ndarray:
    """Ridge contrast at every profile position: min(mean of left flank, mean of right flank) - value.

    polarity 1 = dark ink on a lighter board, -1 = light lines on a dark board. Flanks are the
    windows [w, 3w] px away on each side. Positions whose flanks leave the profile get -inf,
    as do (through the running sum's NaN) all positions from a sample off the image on, less 3w.
    The plain statement of the test; `RidgeProfiles.valid` gives the same numbers for many
    profiles at once.
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
    rp = RidgeProfiles.sample(gray, h, pts, nrm, search + 3 * w + 1, w, ridge)
    return [_pick_ridges(rp.valid(pol), rp.c, rp.u, search, min_strength, tol_px, ridge, rp.first_off is not None)
            for pol in polarities]


def centre_strengths(gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray, search_px: float,
                     w: int, polarities: tuple[int, ...] = (1, -1), tol_px: float = 1.5,
                     ridge: RidgeConfig = DEFAULT_RIDGE) -> list[np.ndarray]:
    """`measure_both(...)[i].centre_strength` alone, per polarity: the strongest ridge within
    `tol_px` of each predicted sample (0 where there is no evidence). What the lattice tests
    use; the ridge search, its choice and the sub-pixel fit are skipped (the profiles sampled
    are the same, so the numbers are too)."""
    search = max(int(np.ceil(search_px)), 1)
    rp = RidgeProfiles.sample(gray, h, pts, nrm, search + 3 * w + 1, w, ridge)
    t = int(np.ceil(tol_px))
    out = []
    for pol in polarities:
        cs = rp.valid(pol)[max(0, search + 1 - t): search + 2 + t].max(axis=0)
        out.append(np.where(cs > -np.inf, cs, 0.0) if rp.first_off is not None else cs)
    return out


@dataclass
class RidgeProfiles:
    """Profiles across predicted lines of a grey image, ready for the ridge test.

    The finder measures thousands of these a search (every refinement round of every hypothesis),
    so this is `sample_profiles` + `ridge_response` in the fewest array passes, giving the same
    numbers: a profile of a uint8 image holds whole grey levels, so every flank sum is exact in
    float32 whichever way it is added up (another image type rounds differently, by float32's
    last bits), and `ridge_response`'s running sums (whose NaN, once a profile leaves the image,
    spoils every later position) are matched by masking the positions from the first sample off
    the image on. Arrays are positions x samples (one column a profile), so the steps along a
    profile are whole-row operations. Only the positions whose flanks stay on the profile are
    computed: `valid(pol)[j, i]` is `ridge_response(prof, w, pol)[i, j + 3w]`.
    """

    prof: np.ndarray       # (L, N) float32 grey levels (off the image: the border's value, masked below)
    c: np.ndarray          # (N, 2) image points of the samples
    u: np.ndarray          # (N, 2) unit image normals
    w: int                 # ridge half-width (px)
    first_off: np.ndarray | None  # (N,) index of each profile's first sample off the image (L: none); None: all on
    _parts_cache: "tuple[np.ndarray, np.ndarray, np.ndarray, int] | None" = field(default=None, repr=False)

    @classmethod
    def sample(cls, gray: np.ndarray, h: np.ndarray, pts: np.ndarray, nrm: np.ndarray, half_len: int, w: int,
               ridge: RidgeConfig = DEFAULT_RIDGE) -> "RidgeProfiles":
        """Profiles of `half_len` px either side of each board point's image, across its line."""
        c, u = image_normals(h, pts, nrm, ridge)
        s = np.arange(-half_len, half_len + 1, dtype=np.float64)
        mx = (c[None, :, 0] + u[None, :, 0] * s[:, None]).astype(np.float32)
        my = (c[None, :, 1] + u[None, :, 1] * s[:, None]).astype(np.float32)
        return cls.from_maps(gray, mx, my, c, u, w)

    @classmethod
    def from_maps(cls, gray: np.ndarray, mx: np.ndarray, my: np.ndarray, c: np.ndarray, u: np.ndarray,
                  w: int, off_image: bool = True) -> "RidgeProfiles":
        """Profiles at the given remap coordinates (L, N): each column a straight run of samples.
        `off_image` False: samples off the image count with the border's grey (no masking)."""
        prof = remap_rows(gray, mx, my).astype(np.float32)
        if not off_image:
            return cls(prof, c, u, w, None)
        hgt, wid = gray.shape[:2]
        # a column is a straight run: it lies on the image when both its ends do (the image is
        # convex, and rounding to float32 keeps the order of the coordinates)
        part = np.zeros(mx.shape[1], dtype=bool)
        for row in (0, -1):
            x, y = mx[row], my[row]
            part |= (x < 0) | (y < 0) | (x > wid - 1) | (y > hgt - 1)
        first_off = None
        if part.any():
            cols = np.flatnonzero(part)
            xs, ys = mx[:, cols], my[:, cols]
            off = (xs < 0) | (ys < 0) | (xs > wid - 1) | (ys > hgt - 1)
            first_off = np.full(mx.shape[1], mx.shape[0], np.int64)
            first_off[cols] = np.where(off.any(axis=0), np.argmax(off, axis=0), mx.shape[0])
        return cls(prof, c, u, w, first_off)

    def valid(self, polarity: int = 1) -> np.ndarray:
        """Ridge contrast (L - 6w, N) at the positions whose flanks stay on the profile; -inf where a
        flank or the centre reaches past a sample off the image (see `ridge_response`)."""
        left, right, centre, m = self._parts()
        if polarity == 1:
            r = np.minimum(left, right) / m - centre
        else:  # the same numbers ridge_response gets from the negated profile (negation is exact)
            r = -np.maximum(left, right) / m + centre
        if self.first_off is not None:
            j = np.arange(r.shape[0])
            r[j[:, None] >= (self.first_off - 6 * self.w)[None, :]] = -np.inf
        return r

    def _parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(left flank sums, right flank sums, smoothed centre values, flank length), computed once."""
        if self._parts_cache is not None:
            return self._parts_cache
        p = self.prof
        w = self.w
        a, b = w, 3 * w
        m = b - a + 1
        n_pos = p.shape[0] - 2 * b
        if n_pos <= 0:
            raise ValueError(f"profiles of {p.shape[0]} samples are too short for a ridge of half-width {w}")
        span = p.shape[0] - m + 1
        sums = p[0:span].copy()      # sums[j] = p[j] + ... + p[j + m - 1]
        for k in range(1, m):
            sums += p[k:k + span]
        left = sums[0:n_pos]                  # [i - b, i - a] for i = j + b
        right = sums[a + b:a + b + n_pos]     # [i + a, i + b]
        centre = p[b:b + n_pos]
        if w >= 2:  # a little smoothing of the centre value against noise / anti-aliasing
            centre = (p[b - 1:b - 1 + n_pos] + 2 * centre + p[b + 1:b + 1 + n_pos]) / 4
        self._parts_cache = (left, right, centre, m)
        return self._parts_cache


def remap_rows(gray: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    """`cv2.remap(gray, mx, my)` (bilinear, border replicated) of 2-D float32 maps, any shape.

    remap works row by row, and a row costs it more than its samples do; the maps are handed
    over as few long rows as it takes (under its 32767-column limit). Each sample is interpolated
    on its own, so the values are those of a plain remap."""
    n = mx.size
    rows = -(-n // _REMAP_MAX_COLS)
    cols = -(-n // rows)
    fx, fy = mx.reshape(-1), my.reshape(-1)
    if rows * cols > n:   # padded to whole rows with the image's corner (valid coordinates)
        pad = np.zeros(rows * cols - n, np.float32)
        fx, fy = np.concatenate([fx, pad]), np.concatenate([fy, pad])
    out = cv2.remap(gray, fx.reshape(rows, cols), fy.reshape(rows, cols), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1)[:n].reshape(mx.shape)


_REMAP_MAX_COLS = 32000


@lru_cache(maxsize=64)
def _preference(search: int, ridge: RidgeConfig) -> tuple[np.ndarray, np.ndarray]:
    """(|offset| px, preference weight) of the positions -search..search px, as columns (K, 1):
    the weight favours ridges near the prediction."""
    ds = np.arange(-search, search + 1, dtype=np.float32)
    pref = np.exp(-0.5 * (ds / (ridge.prefer_sigma_frac * search + ridge.prefer_sigma_px)) ** 2)
    out = (np.abs(ds)[:, None], pref[:, None])
    for a in out:
        a.setflags(write=False)
    return out


def first_true(mask: np.ndarray) -> np.ndarray:
    """Per column of a (K, N) bool array, the row of its first True (0 where none), as
    `np.argmax(mask, axis=0)` gives it, the fast way round (bool argmax along contiguous rows)."""
    return np.argmax(np.ascontiguousarray(mask.T), axis=1)


def _pick_ridges(r: np.ndarray, c: np.ndarray, u: np.ndarray, search: int, min_strength: float,
                 tol_px: float, ridge: RidgeConfig, masked: bool = True) -> LineSamples:
    """The ridge each profile shows within +-search px of the prediction, from its valid ridge
    contrasts `r` (`RidgeProfiles.valid`: row j is the offset j - search - 1 px).

    The ridge nearest the prediction is preferred: a board's outer frame or a piece rim a little
    further away is often stronger than the lattice line itself. Among clear ridges (local
    maxima at least `clear_ridge_share` of a typical lattice line's contrast here) the nearest
    wins: lattice lines are alike, a frame is thicker and darker. Then a parabola through the
    chosen position and its neighbours places it to a fraction of a pixel. (A first maximum
    along a profile is found as its first position equal to the maximum, as argmax does.)
    `masked` False: no position of `r` is -inf (no profile left the image)."""
    n = r.shape[1]
    cols = np.arange(n)
    win = r[1:-1]
    dist_px, pref = _preference(search, ridge)
    score = np.maximum(win, 0) * pref
    all_fin = not masked or bool(win.min() > -np.inf)
    if not all_fin:
        score[win == -np.inf] = -1.0   # (the valid response is finite or -inf)
    k = first_true(score == score.max(axis=0))
    if win.shape[0] >= 3:
        top = win.max(axis=0)
        ok_top = top >= min_strength
        if ok_top.any():
            tt = top[ok_top]
            typical = float(np.mean(np.minimum(tt, ridge.typical_cap * min_strength + np.mean(tt))))
            inner = win[1:-1]
            clear = max(min_strength, ridge.clear_ridge_share * typical)
            strong = (inner >= win[:-2]) & (inner >= win[2:]) & (inner >= clear)
            has = strong.any(axis=0)
            if has.any():
                dist = np.where(strong, dist_px[1:-1], np.inf)
                near = first_true(dist == dist.min(axis=0)) + 1
                k = np.where(has, near, k)
    flat = r.reshape(-1)
    at = k * n + cols
    best = flat[at + n]
    r0 = flat[at]
    r2 = flat[at + 2 * n]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        denom = r0 - 2 * best + r2
        frac = np.where((denom < -1e-6) & (denom > -np.inf), 0.5 * (r0 - r2) / denom, 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    off = (k - search) + frac
    found = best >= min_strength
    t = int(np.ceil(tol_px))
    cs = r[max(0, search + 1 - t): search + 2 + t].max(axis=0)
    if not all_fin:
        cs = np.where(cs > -np.inf, cs, 0.0)
        strength = np.where(best > -np.inf, best, 0.0)
    else:
        strength = best
    off_found = np.where(found, off, 0.0)
    img = c + u * off_found[:, None]
    return LineSamples(found=found, offset=off_found, strength=strength, image_pts=img, centre_strength=cs)
