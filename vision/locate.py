"""Find the 9x10 Xiangqi lattice in a photo or frame, with no markers.

Why this way: the drawn lines are the one thing every board shares (wood, mat, plastic, paper),
but pieces cover most intersections and much of each line. So we collect line-segment evidence
(LSD), group it into the two dominant line families by their vanishing points, undo the
perspective (vanishing points to infinity, families to the axes) so the lattice becomes two
1-D combs of equally spaced lines, fit 9- and 10-tooth combs, and verify every candidate
lattice directly in the image with ridge tests, including negative evidence: the river, where
the inner files have no line, and the continuation of lines past the board edge. Candidates are
refined on sub-pixel ridge points along every visible line segment (`lines.measure` +
`geometry.fit_h_from_line_points`); then a 9x10 window is slid over the refined lattice
extended by a few lines both ways round (off-by-n lines, swapped files/ranks), edge lines that
locked onto a board frame are re-fitted without, and the result is refined at full resolution.

Pipeline order: segments weighted by ridge-ness (thin drawn lines, not step edges of tiles or
table edges) -> angle peaks -> vanishing points -> combs -> coarse verification -> refinement ->
window search -> edge-line check -> support gate -> full-resolution refinement.
Orientation (which of the lattice's symmetries) comes from handedness (a photo is never
mirrored) and from which half holds red's pieces (reader.py uses the classifier's readings).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from . import geometry as geo
from .lines import measure, measure_both, ridge_response
from .observation import BoardPose

WORK_MAX = 1000  # working resolution (longest side, px) for finding
MIN_SUPPORT = 0.5  # fraction of lattice line samples that must show a line


class BoardNotFoundError(RuntimeError):
    """No Xiangqi board could be found in the image."""


@dataclass
class LatticeFit:
    """A located lattice before orientation by colour."""

    homography: np.ndarray  # board -> full-resolution image
    support: float          # fraction of visible line samples with a ridge (0..1)
    river_clear: float      # fraction of river samples WITHOUT a ridge (0..1)
    polarity: int           # 1 dark lines, -1 light lines
    score: float


# ----------------------------------------------------------------------------- preparation
def to_gray(image: np.ndarray) -> np.ndarray:
    """Grey image for line evidence. Accepts BGR, BGRA or grey uint8."""
    if image is None or not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("image must be a non-empty HxW or HxWx3 numpy array")
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    if image.shape[2] != 3:
        raise ValueError(f"image has {image.shape[2]} channels; expected 1, 3 or 4")
    # green-weighted grey: red ink (the other common line colour besides black) is dark in
    # green, so red lines on a yellow or white board keep their contrast (OpenCV's standard
    # weights on swapped channels are close and cheaper, but lose street photo 2)
    return cv2.transform(image, np.array([[0.25, 0.6, 0.15]], dtype=np.float32)).astype(np.uint8, copy=False) \
        if image.dtype == np.uint8 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


LSD_MAX = 720  # line segments are found at this resolution (longest side): LSD is the costliest step
LSD_SCALE = 0.7  # LSD's own Gaussian down-scaling in the first look (OpenCV default 0.8): ~25 % cheaper


def _segments(gray: np.ndarray, lsd_max: int = LSD_MAX, lsd_scale: float = LSD_SCALE) -> np.ndarray:
    """Line segments (N, 4) x1 y1 x2 y2 (in `gray` pixels) from LSD on a contrast-normalised image."""
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    k = min(1.0, lsd_max / max(gray.shape))
    g = cv2.resize(gray, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else gray
    g = clahe.apply(g)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD, lsd_scale)
    segs = lsd.detect(g)[0]
    if segs is None:
        return np.zeros((0, 4))
    # pixel centres: u_small = (u + 0.5) * k - 0.5
    segs = (segs.reshape(-1, 4).astype(np.float64) + 0.5) / k - 0.5
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    return segs[length >= max(8.0, 0.008 * max(gray.shape))]


def _ridge_weight(gray: np.ndarray, segs: np.ndarray, w: int = 2) -> np.ndarray:
    """Per segment, how much it looks like a thin drawn line (0.05..1) rather than a step edge.

    LSD reports edges; board lines are ridges (darker or lighter than BOTH sides), while table
    edges, tiles, gingham and paper borders are steps. Profiles across three places of each
    segment are tested for a ridge within a few pixels (LSD sits on the line's flank).
    """
    from .lines import ridge_response
    n = len(segs)
    if n == 0:
        return np.zeros(0)
    t = np.array([0.25, 0.5, 0.75])
    p = segs[:, None, 0:2] * (1 - t)[None, :, None] + segs[:, None, 2:4] * t[None, :, None]  # (n,3,2)
    d = segs[:, 2:4] - segs[:, 0:2]
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-12
    u = np.c_[-d[:, 1], d[:, 0]]
    half = 3 + 3 * w + 1
    o = np.arange(-half, half + 1, dtype=np.float64)
    mx = (p[:, :, 0, None] + u[:, None, 0, None] * o).reshape(n * 3, -1).astype(np.float32)
    my = (p[:, :, 1, None] + u[:, None, 1, None] * o).reshape(n * 3, -1).astype(np.float32)
    prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    mid = half
    r = np.maximum(ridge_response(prof, w, 1)[:, mid - 3: mid + 4].max(axis=1),
                   ridge_response(prof, w, -1)[:, mid - 3: mid + 4].max(axis=1))
    r = np.median(np.where(np.isfinite(r), r, 0.0).reshape(n, 3), axis=1)
    return np.clip(r / 12.0, 0.05, 1.0)


# ----------------------------------------------------------------------------- vanishing points
def _hom_lines(segs: np.ndarray, norm: np.ndarray) -> np.ndarray:
    p1 = np.c_[segs[:, 0:2], np.ones(len(segs))] @ norm.T
    p2 = np.c_[segs[:, 2:4], np.ones(len(segs))] @ norm.T
    l = np.cross(p1, p2)
    return l / (np.linalg.norm(l[:, :2], axis=1, keepdims=True) + 1e-12)


def _vp_error(segs_n: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Distance (normalised units) of segment endpoints from the line joining midpoint and v."""
    m = 0.5 * (segs_n[:, 0:2] + segs_n[:, 2:4])
    d = v[None, :2] - v[2] * m
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-12
    e = segs_n[:, 2:4] - m
    return np.abs(e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0])


def _fit_vp(segs_n: np.ndarray, lines: np.ndarray, w: np.ndarray, tol: float,
            rng: np.random.Generator, iters: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """RANSAC + least squares vanishing point of a family of segments. Returns (v, inlier mask)."""
    n = len(lines)
    p = w / w.sum()
    i = rng.choice(n, size=iters, p=p)
    j = rng.choice(n, size=iters, p=p)
    vs = np.cross(lines[i], lines[j])
    nv = np.linalg.norm(vs, axis=1)
    keep = (nv > 1e-12) & (i != j)
    vs = vs[keep] / nv[keep, None]
    if len(vs) == 0:
        return np.array([0.0, 0.0, 1.0]), np.zeros(n, bool)
    m = 0.5 * (segs_n[:, 0:2] + segs_n[:, 2:4])
    e = segs_n[:, 2:4] - m
    # error of every segment against every candidate at once
    dx = vs[:, None, 0] - vs[:, None, 2] * m[None, :, 0]
    dy = vs[:, None, 1] - vs[:, None, 2] * m[None, :, 1]
    dn = np.sqrt(dx * dx + dy * dy) + 1e-12
    err = np.abs(e[None, :, 0] * dy - e[None, :, 1] * dx) / dn
    v = vs[int(np.argmax((err < tol).astype(np.float64) @ w))]
    # least squares on the inliers; a segment's direction is known to ~1/length, so long
    # segments get weight length^2 (the distance of v from the line scales with it)
    # (the angular error seen from each segment's midpoint: divide by its distance to v).
    mids = 0.5 * (segs_n[:, 0:2] + segs_n[:, 2:4])
    for _ in range(5):
        inl = _vp_error(segs_n, v) < tol
        if inl.sum() < 2:
            break
        dist = np.linalg.norm(v[None, :2] - v[2] * mids[inl], axis=1) + 1e-9
        a = lines[inl] * (w[inl] / dist)[:, None]
        v = np.linalg.eigh(a.T @ a)[1][:, 0]
    return v, _vp_error(segs_n, v) < tol


# ----------------------------------------------------------------------------- combs
def _comb_candidates(pos: np.ndarray, wt: np.ndarray, teeth: tuple[int, ...] = (9, 10),
                     top: int = 4) -> dict[int, list[tuple[float, float, float]]]:
    """Best equally spaced combs of n lines through 1-D weighted line positions, for each n in `teeth`.

    Returns {n: [(offset, spacing, score)]} in the units of `pos`. The score sums sqrt(support)
    per tooth, so many moderately supported teeth beat one strong table edge. One pass over the
    (spacing, offset) grid serves every n: the n-tooth score is a partial sum of the longest comb.
    """
    out: dict[int, list[tuple[float, float, float]]] = {n: [] for n in teeth}
    if len(pos) < 3:
        return out
    lo, hi = np.percentile(pos, 0.5), np.percentile(pos, 99.5)
    span = hi - lo
    if span <= 0:
        return out
    bins = 500
    lo -= 0.02 * span
    hi += 0.02 * span
    scale = bins / (hi - lo)
    raw = np.bincount(np.clip(((pos - lo) * scale).astype(int), 0, bins - 1), weights=wt, minlength=bins)
    n_max = max(teeth)

    def prep(sigma: float) -> np.ndarray:
        h = cv2.GaussianBlur(raw.reshape(1, -1).astype(np.float64), (0, 0), sigma).ravel()
        h = np.sqrt(h / (h.max() + 1e-12))
        return np.concatenate([h, np.zeros(2 * bins + 2)]).astype(np.float32)

    def tooth_values(ext: np.ndarray, offs: np.ndarray, spacings: np.ndarray, n: int) -> np.ndarray:
        t = offs[None, :, None] + spacings[:, None, None] * np.arange(n)[None, None, :]
        ti = np.minimum(t.astype(np.int32), 3 * bins)
        fr = (t - ti).astype(np.float32)
        return ext[ti] * (1 - fr) + ext[ti + 1] * fr  # (spacings, offsets, n)

    # coarse: every spacing (2 % steps) and every other offset bin on a blurred histogram
    # (tolerates vanishing-point error; teeth rounded to whole bins, well inside the blur);
    # the fine pass below polishes to half a bin
    coarse = prep(2.5)
    spacings = np.exp(np.arange(np.log(bins / 60), np.log(bins / (min(teeth) - 1)), 0.02))
    offs = np.arange(0, bins, 2.0)
    steps = np.rint(spacings[:, None] * np.arange(n_max)[None, :]).astype(np.int32)   # (spacings, teeth)
    ti = offs.astype(np.int32)[None, :, None] + steps[:, None, :]
    vals = np.cumsum(coarse[np.minimum(ti, 3 * bins)], axis=2)
    fine = prep(1.2)
    for n in teeth:
        sc = vals[:, :, n - 1].copy()
        sc[(offs[None, :] + spacings[:, None] * (n - 1) >= bins) | (spacings[:, None] > bins / (n - 1))] = -1
        kbest = np.argpartition(-sc, 6, axis=1)[:, :6]
        cands = [(float(offs[k]), float(spacings[si]), float(sc[si, k]))
                 for si in range(len(spacings)) for k in kbest[si] if sc[si, k] > 0]
        cands.sort(key=lambda c: -c[2])
        picked: list[tuple[float, float, float]] = []
        for o, s_, c in cands:
            if all(abs(s_ - s2) > 0.04 * s2 or abs(o - o2) > 0.3 * s2 for o2, s2, _ in picked):
                picked.append((o, s_, c))
            if len(picked) >= top:
                break
        # fine: polish each pick locally on a sharp histogram
        for o, s_, _ in picked:
            ss = s_ * np.linspace(0.97, 1.03, 25)
            oo = o + np.arange(-4.0, 4.01, 0.5)
            f = tooth_values(fine, oo, ss, n).sum(axis=2)
            f[(oo[None, :] < 0) | (oo[None, :] + ss[:, None] * (n - 1) >= bins)] = -1
            i, j = np.unravel_index(int(np.argmax(f)), f.shape)
            out[n].append((float(oo[j]) / scale + lo, float(ss[i]) / scale, float(f[i, j])))
    return out


# ----------------------------------------------------------------------------- verification
def _line_width(spacing_px: float) -> int:
    return int(max(2, round(0.035 * spacing_px)))


def _verify(gray: np.ndarray, h: np.ndarray, polarity: int | None = None,
            tol_frac: float = 0.03, coarse: bool = False) -> tuple[float, int, float, float]:
    """Score a lattice hypothesis in the image: (score, polarity, support, river_clear)."""
    sp = geo.point_spacing_px(h)
    if not np.isfinite(sp) or sp < 6:
        return -1.0, 1, 0.0, 0.0
    c = geo.apply_h(h, geo.CORNERS)
    if not np.all(np.isfinite(c)):
        return -1.0, 1, 0.0, 0.0
    w = _line_width(sp)
    step = 0.0 if coarse else 0.2  # coarse: one sample mid-segment
    pts, nrm, ids = geo.lattice_segments(step=step, lo=0.3, hi=0.7)
    rpts, rnrm, _ = geo.lattice_segments(step=step, lo=0.3, hi=0.7, include_river=True)
    ext, enrm = _extension_samples()
    tol = max(1.5, tol_frac * sp)
    best = (-1.0, 1, 0.0, 0.0)
    thr = 5.0
    pols = (1, -1) if polarity is None else (polarity,)
    n1, n2 = len(pts), len(pts) + len(rpts)
    allp = np.concatenate([pts, rpts, ext])
    alln = np.concatenate([nrm, rnrm, enrm])
    for pol, m in zip(pols, measure_both(gray, h, allp, alln, tol, w, pols, thr, tol)):
        hit_all = m.centre_strength >= thr
        hit = hit_all[:n1]
        sup = float(np.mean(hit))
        # every one of the 19 lines must show somewhere: an extrapolated, empty line is the
        # typical wrong hypothesis (lattice shifted by one onto a frame or a table edge)
        per_line = np.bincount(ids, weights=hit, minlength=19) / np.maximum(np.bincount(ids, minlength=19), 1)
        lines_ok = float(np.mean(per_line >= 0.15))
        river_line = float(np.mean(hit_all[n1:n2]))
        ext_line = float(np.mean(hit_all[n2:]))
        score = sup * lines_ok ** 2 * (1.0 - 0.5 * river_line) - 0.5 * ext_line
        if score > best[0]:
            best = (score, pol, sup, 1.0 - river_line)
    return best


def _verify_coarse_many(gray: np.ndarray, hs: list[np.ndarray]) -> list[tuple[float, int]]:
    """(score, polarity) of `_verify(gray, h, tol_frac=0.1, coarse=True)` for many hypotheses
    in one sampling pass (one remap, one ridge response per polarity): the first look at
    every comb hypothesis, where per-call overhead dominated. Profiles share the longest
    length; only the window at each sample's centre counts, so the scores are those of
    `_verify` (bar samples whose longer profile runs off the image: no evidence either way).
    """
    out = [(-1.0, 1)] * len(hs)
    pts, nrm, ids = geo.lattice_segments(step=0.0, lo=0.3, hi=0.7)
    rpts, rnrm, _ = geo.lattice_segments(step=0.0, lo=0.3, hi=0.7, include_river=True)
    ext, enrm = _extension_samples()
    n1, n2 = len(pts), len(pts) + len(rpts)
    allp = np.concatenate([pts, rpts, ext])
    alln = np.concatenate([nrm, rnrm, enrm])
    tan = np.c_[alln[:, 1], -alln[:, 0]]
    cnt_line = np.maximum(np.bincount(ids, minlength=19), 1)
    groups: dict[int, list[tuple[int, np.ndarray, int]]] = {}  # line width -> (index, h, centre window)
    for k, h in enumerate(hs):
        sp = geo.point_spacing_px(h)
        if not np.isfinite(sp) or sp < 6 or not np.all(np.isfinite(geo.apply_h(h, geo.CORNERS))):
            continue
        groups.setdefault(_line_width(sp), []).append((k, h, int(np.ceil(max(1.5, 0.1 * sp)))))
    for w, members in groups.items():
        half = max(t for _, _, t in members) + 3 * w + 1
        s_ = np.arange(-half, half + 1, dtype=np.float64)
        mxs, mys = [], []
        for _, h, _ in members:
            c = geo.apply_h(h, allp)
            d = geo.apply_h(h, allp + 0.05 * tan) - c
            d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-12
            mxs.append(c[:, 0:1] - d[:, 1:2] * s_[None, :])
            mys.append(c[:, 1:2] + d[:, 0:1] * s_[None, :])
        mx = np.concatenate(mxs).astype(np.float32)
        my = np.concatenate(mys).astype(np.float32)
        prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        hgt, wid = gray.shape[:2]
        prof[(mx < 0) | (my < 0) | (mx > wid - 1) | (my > hgt - 1)] = np.nan
        m = len(allp)
        for pol in (1, -1):
            resp = ridge_response(prof, w, pol)
            for j, (k, _, t) in enumerate(members):
                cs = resp[j * m:(j + 1) * m, half - t: half + t + 1].max(axis=1)
                hit_all = cs >= 5.0  # (-inf where the profile left the image)
                hit = hit_all[:n1]
                sup = float(np.mean(hit))
                per_line = np.bincount(ids, weights=hit, minlength=19) / cnt_line
                lines_ok = float(np.mean(per_line >= 0.15))
                score = sup * lines_ok ** 2 * (1.0 - 0.5 * float(np.mean(hit_all[n1:n2]))) \
                    - 0.5 * float(np.mean(hit_all[n2:]))
                if score > out[k][0]:
                    out[k] = (score, pol)
    return out


@lru_cache(maxsize=1)
def _extension_samples() -> tuple[np.ndarray, np.ndarray]:
    """Continuations of every lattice line past the board edge (0.4 and 0.6 spacing out)."""
    ext, enrm = [], []
    for d in (0.4, 0.6):
        for f in range(9):
            ext += [(f, -d), (f, 9 + d)]
            enrm += [(1.0, 0.0)] * 2
        for r in range(10):
            ext += [(-d, r), (8 + d, r)]
            enrm += [(0.0, 1.0)] * 2
    return np.array(ext, float), np.array(enrm, float)


def refine(gray: np.ndarray, h: np.ndarray, polarity: int, search_frac: float = 0.15,
           rounds: int = 3, min_strength: float = 5.0, step: float = 0.1,
           extra: int = 2, exclude: tuple[int, ...] = ()) -> tuple[np.ndarray, float]:
    """Refine H on sub-pixel ridge points along all lattice segments. Returns (H, support).

    `exclude`: line ids (0..8 files, 9..18 ranks) to leave out of the fit."""
    pts, nrm, ids = geo.lattice_segments(step=step, lo=0.3, hi=0.7)
    if exclude:
        keep_lines = ~np.isin(ids, exclude)
        pts, nrm, ids = pts[keep_lines], nrm[keep_lines], ids[keep_lines]
    axis = np.where(ids < geo.FILES, 0, 1)
    value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
    support = 0.0
    frac = search_frac
    for _ in range(rounds + extra):
        sp = geo.point_spacing_px(h)
        w = _line_width(sp)
        search = max(2.0, frac * sp)
        m = measure(gray, h, pts, nrm, search, w, polarity, min_strength)
        support = float(m.found.mean())
        ok = m.found
        # each direction needs several distinct lines
        if len(np.unique(ids[ok & (axis == 0)])) < 3 or len(np.unique(ids[ok & (axis == 1)])) < 3:
            break
        h_new = geo.fit_h_from_line_points(m.image_pts[ok], axis[ok], value[ok],
                                           weights=np.sqrt(m.strength[ok]), h0=h, iters=3)
        # a whole line pulled onto something parallel (a board frame hugging the edge line,
        # blurred together with it) shows as one line off the fit of all the others: drop it
        bp = geo.apply_h(np.linalg.inv(h_new), m.image_pts[ok])
        res = np.abs(np.where(axis[ok] == 0, bp[:, 0], bp[:, 1]) - value[ok])
        ids_ok = ids[ok]
        cnt = np.bincount(ids_ok, minlength=19)
        med = np.bincount(ids_ok, weights=np.minimum(res, 0.3), minlength=19) / np.maximum(cnt, 1)
        bad_lines = np.flatnonzero(med > max(0.05, 3 * geo.median(med)))
        if len(bad_lines) and len(bad_lines) <= 3:
            keep = ok & ~np.isin(ids, bad_lines)
            if len(np.unique(ids[keep & (axis == 0)])) >= 3 and len(np.unique(ids[keep & (axis == 1)])) >= 3:
                h_new = geo.fit_h_from_line_points(m.image_pts[keep], axis[keep], value[keep],
                                                   weights=np.sqrt(m.strength[keep]), h0=h, iters=3)
        h = h_new
        moved = geo.median(np.abs(m.offset[ok]))
        # keep the window wide while the lattice is still moving; narrow it once it has settled
        # (a narrow window cannot pull a lattice in from far, a wide one picks up piece rims)
        if moved < 0.04 * sp:
            frac = max(0.05, frac * 0.6)
            rounds -= 1
            if rounds <= 0 or moved < 0.15:
                break
    return h, support


# ----------------------------------------------------------------------------- orientation
def red_score(image_bgr: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Per point, how much red ink sits on the point beyond what an empty point shows.

    Red pieces carry red characters (or are red discs); black ones dark/green/blue. Hue near 0
    with strong saturation, excluding the orange of wood (hue ~10-25 in OpenCV units). Boards
    drawn in red ink show red at every point, so the typical empty point's red is subtracted.
    Used only to orient the board when no piece readings decide it.
    """
    from .hands import MARGIN, P, rectify
    top = rectify(image_bgr, h)  # small top-down board, one P x P cell per point
    hsv = cv2.cvtColor(top, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0].astype(np.int16), hsv[..., 1], hsv[..., 2]
    red = (((hue <= 7) | (hue >= 165)) & (sat >= 90) & (val >= 60)).astype(np.float32)
    yy, xx = np.mgrid[0:P, 0:P]
    disc = ((xx - (P - 1) / 2) ** 2 + (yy - (P - 1) / 2) ** 2 <= (0.32 * P) ** 2).astype(np.float32)
    cells = red.reshape(red.shape[0] // P, P, red.shape[1] // P, P).transpose(0, 2, 1, 3)
    frac = (cells * disc).sum(axis=(2, 3)) / disc.sum()
    inner = frac[MARGIN:MARGIN + 10, MARGIN:MARGIN + 9][::-1].reshape(-1)  # point-index order
    return np.maximum(inner - np.percentile(inner, 30), 0.0)


def orient(h: np.ndarray, red: np.ndarray | None = None) -> np.ndarray:
    """Pick the symmetry of the lattice fit that is not mirrored and puts red at rank 0.

    `red` is a per-point red-ness score (red pieces) in the point order of `h`; the half with
    more red (the palace counted double: generals and advisors live there) is red's.
    """
    if not geo.is_proper(h):
        h = h @ geo.board_symmetry("flip_x")
    if red is not None:
        r = np.asarray(red, dtype=np.float64).reshape(10, 9)
        wgt = np.ones((10, 9))
        wgt[0:3, 3:6] = 2.0
        wgt[7:10, 3:6] = 2.0
        low, high = float((r[:5] * wgt[:5]).sum()), float((r[5:] * wgt[5:]).sum())
        if high > low:
            h = h @ geo.board_symmetry("rot180")
    return h / h[2, 2]


# ----------------------------------------------------------------------------- main entry
def _search(gray: np.ndarray, lsd_max: int, rng_seed: int, lsd_scale: float = LSD_SCALE,
            exclude: tuple[np.ndarray, ...] = ()) -> tuple[float, np.ndarray, int, float] | None:
    """Best lattice (score, H board->gray, polarity, support) from line segments found at lsd_max px."""
    gh, gw = gray.shape
    segs = _segments(gray, lsd_max, lsd_scale)
    if len(segs) < 20:
        return None
    c = np.array([gw / 2, gh / 2])
    s = 2.0 / max(gw, gh)
    norm = np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])
    segs_n = np.c_[(segs[:, 0:2] - c) * s, (segs[:, 2:4] - c) * s]
    lines = _hom_lines(segs, norm)
    # evidence weight: length, discounted for segments that are step edges rather than lines
    rwt = _ridge_weight(gray, segs)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1]) * rwt
    ang = np.degrees(np.arctan2(segs[:, 3] - segs[:, 1], segs[:, 2] - segs[:, 0])) % 180
    hist = np.bincount(ang.astype(int) % 180, weights=length, minlength=180).astype(np.float64)
    hist = np.convolve(np.r_[hist[-6:], hist, hist[:6]], np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2), "same")[6:-6]
    rng = np.random.default_rng(rng_seed)
    tol = 1.2 * s  # 1.2 working px in normalised units
    peaks = []
    hh = hist.copy()
    for _ in range(7):
        p = int(np.argmax(hh))
        if hh[p] <= 0.05 * hist.max():
            break
        peaks.append(p)
        for d in range(-12, 13):
            hh[(p + d) % 180] = 0
    pairs = []
    for i in range(len(peaks)):
        for j in range(i + 1, len(peaks)):
            da = abs(peaks[i] - peaks[j]) % 180
            if min(da, 180 - da) >= 30:
                pairs.append((hist[peaks[i]] * hist[peaks[j]], peaks[i], peaks[j]))
    pairs.sort(key=lambda q: -q[0])
    best: tuple[float, np.ndarray, int, float] | None = None
    vp_cache: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
    for _, pi, pj in pairs[:8]:
        # cheap, tolerant first look at every hypothesis (the comb only knows the lattice
        # roughly: vanishing points come from short, broken segments) ...
        hbs = [np.linalg.inv(norm) @ hyp for hyp in _hypotheses(segs_n, lines, length, ang, pi, pj, tol, rng,
                                                                 vp_cache, rwt)]
        rough = [(sc, hb, pol) for hb, (sc, pol) in zip(hbs, _verify_coarse_many(gray, hbs)) if sc >= 0.1]
        rough.sort(key=lambda r: -r[0])
        # ... then pull the best few onto the nearby ridges and judge them strictly
        refined = []
        # (candidates far behind the best rough score are not worth a refinement; once the best
        # already looks like a board, only close runners-up are)
        keep = 0.75 if rough and rough[0][0] >= 0.45 else 0.5
        for _, hb, pol in [r for r in rough[:3] if r[0] >= keep * rough[0][0]]:
            hb, _ = refine(gray, hb, pol, search_frac=0.15, rounds=1, step=0.2, extra=1)
            refined.append((_verify(gray, hb, pol)[0], hb, pol))
        refined.sort(key=lambda r: -r[0])
        # the geometry of the best ones is now right; find which 9x10 window of lines it is
        for _, hb, pol in refined[:2]:
            hb, _ = refine(gray, hb, pol, search_frac=0.12, rounds=3)
            hb = _window_search(gray, hb, pol, exclude=exclude)
            if any(same_lattice(hb, e) for e in exclude):
                continue
            sc, _, sup, _ = _verify(gray, hb, pol)
            if best is None or sc > best[0]:
                best = (sc, hb, pol, sup)
            if sc > 0.45:  # clearly a board: no need to look at the runner-up
                break
        if best is not None and best[0] > 0.45:
            break
    return best


def _reduce(gray: np.ndarray, f: float) -> np.ndarray:
    """`gray` scaled by f (<= 1) for the search.

    Down to half size, linear (every drawn line still darkens the samples it crosses, if
    fainter); below that, a whole-number area reduction (OpenCV's fast path) first, then
    linear. A direct area resize by a fraction costs ~6 ms at 1080p, this ~0.5 ms; on the
    renders and the real photos it finds the same boards (all within a pixel on renders).
    """
    if f >= 1:
        return gray
    n = int(np.floor(1.0 / f))
    if n < 2:
        return cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_LINEAR)
    small = cv2.resize(gray, (gray.shape[1] // n, gray.shape[0] // n), interpolation=cv2.INTER_AREA)
    k = f * n
    return cv2.resize(small, None, fx=k, fy=k, interpolation=cv2.INTER_LINEAR) if k < 0.999 else small


def same_lattice(h1: np.ndarray, h2: np.ndarray, frac: float = 0.5) -> bool:
    """True when two homographies put the 90 points within `frac` of a spacing of each other,
    up to the lattice's symmetries (the same lattice, whichever way round)."""
    p2 = geo.apply_h(h2, geo.POINTS)
    tol = frac * geo.point_spacing_px(h2)
    return any(float(np.abs(geo.apply_h(h1 @ geo.board_symmetry(k), geo.POINTS) - p2).max()) < tol
               for k in ("id", "flip_x", "flip_y", "rot180"))


LSD_COARSE = 640  # a last, coarser look (LSD's default smoothing): boards whose lines LSD breaks up at 720


def find_lattice(image: np.ndarray, rng_seed: int = 0, exclude: tuple[np.ndarray, ...] = ()) -> LatticeFit:
    """Locate the lattice (up to its symmetries) in an image. Raises BoardNotFoundError.

    `exclude`: lattices (board -> image homographies) already refused by the caller, e.g.
    because the pieces read on them are implausible; candidates on the same lattice are passed
    over so the next best is returned.
    """
    gray_full = to_gray(image)
    H, W = gray_full.shape
    if min(H, W) < 60:
        raise BoardNotFoundError(f"image too small ({W}x{H}) to hold a readable board")
    f = min(1.0, WORK_MAX / max(H, W))
    gray = _reduce(gray_full, f)
    down = np.diag([f, f, 1.0])
    excl = tuple(down @ e for e in exclude)
    best: tuple[float, np.ndarray, int, float] | None = None  # best search result that passed
    fit: LatticeFit | None = None                               # ... and its final fit
    why = "no 9x10 lattice of lines in the image"
    # segments at a modest resolution and light smoothing first (LSD is the costliest step);
    # finer, with LSD's default smoothing, only if needed; coarser as a last resort when
    # nothing passed (each look finds boards the others miss: street photos 1, 2, 14)
    for k, (lsd_max, lsd_scale) in enumerate(((LSD_MAX, LSD_SCALE), (WORK_MAX, 0.8), (LSD_COARSE, 0.8))):
        if k == 1 and lsd_max > max(gray.shape):
            continue
        if k == 1 and fit is not None and best is not None and best[0] >= 0.55:
            # a small board (fine lines at the LSD resolution) or a doubtful fit deserves a
            # second, finer look; a clear fit of a well-sized board does not
            if geo.point_spacing_px(best[1]) * LSD_MAX / max(gray.shape) >= 22:
                break
        if k == 2 and (fit is not None or lsd_max >= max(gray.shape)):
            break  # the coarse look only rescues what would otherwise be "no board"
        got = _search(gray, lsd_max, rng_seed, lsd_scale, excl)
        # (compared with the best that passed: one refused in this look's place may hide a
        # real board another look finds with a lower score)
        if got is None or got[0] < 0.3 or (best is not None and got[0] <= best[0]):
            continue
        done, why_not = _finish(gray, gray_full, f, got)
        if done is not None:
            fit, best = done, got
        else:
            why = why_not
    if fit is None:
        raise BoardNotFoundError(f"no board found: {why}")
    return fit


def _finish(gray: np.ndarray, gray_full: np.ndarray, f: float,
            found: tuple[float, np.ndarray, int, float]) -> tuple[LatticeFit | None, str]:
    """Last checks and full-resolution refinement of a search result: (fit or None, why not)."""
    sc0, hb, pol, sup = found
    if sc0 < 0.7:  # a clear fit has no stretched edge line to undo
        hb2 = _edge_line_check(gray, hb, pol)
        if hb2 is not hb:
            hb, sup = hb2, _verify(gray, hb2, pol)[2]
    # textures (wallpaper, cloth, tiles) can line up with a lattice here and there; a real
    # board shows most of its line segments even with pieces and a hand on it, and at full
    # resolution as well as at the working one (a wrong lattice can pass in the blur)
    if sup < MIN_SUPPORT:
        return None, f"the best lattice candidate shows only {sup:.0%} of its lines"
    up = np.diag([1.0 / f, 1.0 / f, 1.0])
    hf = up @ hb
    if f < 1:
        hf, _ = refine(gray_full, hf, pol, search_frac=0.04, rounds=2)
    sc, pol, sup, rc = _verify(gray_full, hf, pol)
    if sup < MIN_SUPPORT:
        return None, f"the best lattice candidate shows only {sup:.0%} of its lines at full resolution"
    return LatticeFit(homography=hf / hf[2, 2], support=sup, river_clear=rc, polarity=pol, score=sc), ""


def _window_scores(a_lines: np.ndarray, a_segs: np.ndarray) -> np.ndarray:
    """Lattice score of every 9x10 window of an extended grid of line measurements, at once.

    `a_lines[i, j]`: fraction of ridge hits on file-direction line i between rank lines j and
    j+1; `a_segs[j, i]`: the same for rank-direction line j between file lines i and i+1.
    Returns scores[a0, b0] for the window whose first file line is a0 and first rank line b0:
    support inside, every line present, a blank river, blank continuations past the edges
    (the `_verify` score, measured on the shared grid).
    """
    from numpy.lib.stride_tricks import sliding_window_view as windows
    files = windows(a_lines, (9, 9))                                  # [a0, b0, file, segment]
    ranks = windows(a_segs, (10, 8)).transpose(1, 0, 2, 3)            # [a0, b0, rank, segment]
    river = files[:, :, 1:8, 4]
    sup = (files.sum(axis=(2, 3)) - river.sum(axis=2) + ranks.sum(axis=(2, 3))) / (81 - 7 + 80)
    per_file = (files.sum(axis=3) - files[:, :, :, 4]) / 8.0
    per_rank = ranks.mean(axis=3)
    lines_ok = ((per_file >= 0.15).sum(axis=2) + (per_rank >= 0.15).sum(axis=2)) / 19.0
    # continuations one segment past each edge (absent past the measured grid: NaN padding)
    lp = np.pad(a_lines, ((0, 0), (1, 1)), constant_values=np.nan)
    sp_ = np.pad(a_segs, ((0, 0), (1, 1)), constant_values=np.nan)
    fl = windows(lp, (9, 11))                                         # [a0, b0, file, segment+1]
    rk = windows(sp_, (10, 10)).transpose(1, 0, 2, 3)                 # [a0, b0, rank, segment+1]
    ext = np.concatenate([fl[..., 0], fl[..., 10], rk[..., 0], rk[..., 9]], axis=2)
    cnt = np.sum(~np.isnan(ext), axis=2)
    ext_line = np.where(cnt > 0, np.nansum(ext, axis=2) / np.maximum(cnt, 1), 0.0)
    return sup * lines_ok ** 2 * (1.0 - 0.5 * river.mean(axis=2)) - 0.5 * ext_line


def _window_search(gray: np.ndarray, h: np.ndarray, pol: int, reach: int = 4,
                   exclude: tuple[np.ndarray, ...] = ()) -> np.ndarray:
    """Slide a 9x10 window over the refined lattice extended by `reach` lines, both ways round.

    Once refined on the visible lines, spacing and perspective are right even when the lattice
    is off by whole lines (a frame taken for the edge line, a faint edge line missed, a tiled
    floor continuing the grid) or has its 9- and 10-line directions swapped. One ridge
    measurement on the extended grid scores every window: lines present inside, blank river
    between the inner files, blank continuations past the edges.
    """
    lo_x, hi_x = -reach, 8 + reach
    lo_y, hi_y = -reach, 9 + reach
    nx, ny = hi_x - lo_x + 1, hi_y - lo_y + 1
    fr = (0.35, 0.5, 0.65)
    pts, nrm, kind = [], [], []
    for i in range(lo_x, hi_x + 1):          # lines x = i, segments y in [j, j+1]
        for j in range(lo_y, hi_y):
            for t in fr:
                pts.append((i, j + t)); nrm.append((1.0, 0.0))
    for j in range(lo_y, hi_y + 1):          # lines y = j, segments x in [i, i+1]
        for i in range(lo_x, hi_x):
            for t in fr:
                pts.append((i + t, j)); nrm.append((0.0, 1.0))
    pts, nrm = np.array(pts, float), np.array(nrm, float)
    sp = geo.point_spacing_px(h)
    tol = max(1.5, 0.03 * sp)
    m = measure(gray, h, pts, nrm, tol, _line_width(sp), pol, 5.0, tol)
    hit = (m.centre_strength >= 5.0).astype(np.float64)
    n_v = nx * (ny - 1) * len(fr)
    vx = hit[:n_v].reshape(nx, ny - 1, len(fr)).mean(axis=2)   # [x line, y segment]
    hy = hit[n_v:].reshape(ny, nx - 1, len(fr)).mean(axis=2)   # [y line, x segment]
    cands = []  # (score, swap, a0, b0)
    for swap in (False, True):
        # in the swapped case the board's files run along this grid's y lines
        a_lines, a_segs = (hy, vx) if swap else (vx, hy)  # a = the 9 file lines, b = the 10 rank lines
        sc = _window_scores(a_lines, a_segs)
        a0, b0 = np.unravel_index(np.arange(sc.size), sc.shape)
        cands.append(np.c_[sc.ravel(), np.full(sc.size, float(swap)), a0, b0])
    allc = np.concatenate(cands)
    best = (-np.inf, h)
    for k in np.argsort(-allc[:, 0], kind="stable"):
        score, swap, a0, b0 = allc[k]
        a0, b0 = int(a0), int(b0)
        x0, y0 = (b0 + lo_x, a0 + lo_y) if swap else (a0 + lo_x, b0 + lo_y)
        t = np.array([[0, 1, x0], [1, 0, y0], [0, 0, 1.0]]) if swap else \
            np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1.0]])
        if exclude and any(same_lattice(h @ t, e) for e in exclude):
            continue  # a window the caller has refused
        best = (float(score), h @ t)
        break
    hb = best[1]
    if hb is not h:
        hb, _ = refine(gray, hb, pol, search_frac=0.1, rounds=2)
    return hb


def _edge_line_check(gray: np.ndarray, h: np.ndarray, pol: int) -> np.ndarray:
    """Refit without each edge line in turn; keep a variant the image likes better.

    A board's frame often runs a fraction of a spacing outside its edge line; when the edge
    line locks onto it, the lattice is stretched a few per cent and every other line still
    fits well enough. Fitting without that line, from the inner lines alone, undoes it.
    """
    # cheap screen first: fit the lattice without each edge line on one measurement and see
    # whether that edge line's ridge sits where the inner lines put it. Only an edge line that
    # sits off (stretching the fit) is worth the full refit below.
    pts, nrm, ids = geo.lattice_segments(step=0.2, lo=0.3, hi=0.7)
    axis = np.where(ids < geo.FILES, 0, 1)
    value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
    sp = geo.point_spacing_px(h)
    m = measure(gray, h, pts, nrm, max(2.0, 0.06 * sp), _line_width(sp), pol, 5.0)
    suspects = []
    for edge in (0, 8, 9, 18):
        keep = m.found & (ids != edge)
        on_edge = m.found & (ids == edge)
        if on_edge.sum() < 3 or len(np.unique(ids[keep & (axis == 0)])) < 3 \
                or len(np.unique(ids[keep & (axis == 1)])) < 3:
            continue
        hh = geo.fit_h_from_line_points(m.image_pts[keep], axis[keep], value[keep],
                                        weights=np.sqrt(m.strength[keep]), h0=h, iters=2)
        bp = geo.apply_h(np.linalg.inv(hh), m.image_pts[on_edge])
        off = geo.median(np.abs(np.where(axis[on_edge] == 0, bp[:, 0], bp[:, 1]) - value[on_edge]))
        if off > 0.02:  # the edge ridge is > 2 % of a spacing off the inner lines' lattice
            suspects.append((edge,))
    if not suspects:
        return h
    best_s, best_h = _verify(gray, h, pol)[0], h
    for edge in suspects:
        hh, _ = refine(gray, h, pol, search_frac=0.06, rounds=2, extra=0, exclude=edge, step=0.2)
        hh, _ = refine(gray, hh, pol, search_frac=0.04, rounds=1, extra=0, step=0.2)
        sc = _verify(gray, hh, pol)[0]
        if sc > best_s + 0.01:
            best_s, best_h = sc, hh
    return best_h


def _family(segs_n, lines, length, ang, p, tol, rng, cache):
    """Vanishing point and member segments of the line family around angle peak p (cached)."""
    if p not in cache:
        d = np.abs((ang - p + 90) % 180 - 90)
        sel = d < 15
        if sel.sum() < 6:
            cache[p] = None
        else:
            v, inl = _fit_vp(segs_n[sel], lines[sel], length[sel], tol, rng)
            cache[p] = (v, np.flatnonzero(sel)[inl])
    return cache[p]


def _hypotheses(segs_n, lines, length, ang, pa, pb, tol, rng, cache, rw):
    """Lattice homographies (board -> normalised image) from two angle peaks."""
    fams = []
    for p in (pa, pb):
        fam = _family(segs_n, lines, length, ang, p, tol, rng, cache)
        if fam is None:
            return []
        fams.append(fam)
    (v1, i1), (v2, i2) = fams
    hz = np.cross(v1, v2)
    if abs(hz[2]) < 1e-9:
        return []
    hp = np.array([[1, 0, 0], [0, 1, 0], [hz[0] / hz[2], hz[1] / hz[2], 1.0]])
    # all of the image must be on one side of the horizon
    corners = np.array([[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], float)
    sgn = np.sign(corners @ hz)
    if not (np.all(sgn > 0) or np.all(sgn < 0)):
        return []
    d1 = (hp @ v1)[:2]
    d2 = (hp @ v2)[:2]
    m = np.c_[d1, d2]
    if abs(np.linalg.det(m)) < 1e-12:
        return []
    a = np.eye(3)
    a[:2, :2] = np.linalg.inv(m)
    r = a @ hp  # family 1 -> horizontal lines (constant y), family 2 -> vertical (constant x)

    def rect(idx):
        p1 = np.c_[segs_n[idx, 0:2], np.ones(len(idx))] @ r.T
        p2 = np.c_[segs_n[idx, 2:4], np.ones(len(idx))] @ r.T
        return p1[:, :2] / p1[:, 2:3], p2[:, :2] / p2[:, 2:3]

    a1, b1 = rect(i1)
    a2, b2 = rect(i2)
    # weights: rectified length (undoing foreshortening) times the segment's line-likeness
    pos1, len1 = 0.5 * (a1[:, 1] + b1[:, 1]), np.abs(a1[:, 0] - b1[:, 0]) * rw[i1]
    pos2, len2 = 0.5 * (a2[:, 0] + b2[:, 0]), np.abs(a2[:, 1] - b2[:, 1]) * rw[i2]
    # weights: rectified length, but capped relative to the median so one table edge can't dominate
    len1 = np.minimum(len1, 8 * np.median(len1) + 1e-12)
    len2 = np.minimum(len2, 8 * np.median(len2) + 1e-12)
    rinv = np.linalg.inv(r)
    out = []
    combs1 = _comb_candidates(pos1, len1, (9, 10), top=2)  # y positions (family 1 horizontal)
    combs2 = _comb_candidates(pos2, len2, (9, 10), top=2)  # x positions
    for n1, n2 in ((10, 9), (9, 10)):
        c1, c2 = combs1[n1], combs2[n2]
        for o1, s1, _ in c1:
            for o2, s2, _ in c2:
                if n2 == 9:  # family 2 (x positions) are files, family 1 (y) ranks
                    lat = np.array([[s2, 0, o2], [0, s1, o1], [0, 0, 1]])
                else:  # family 1 (y positions) are files: board x -> rect y
                    lat = np.array([[0, s2, o2], [s1, 0, o1], [0, 0, 1]])
                out.append(rinv @ lat)
    return out


def locate(image_bgr: np.ndarray) -> BoardPose:
    """Find the board in a colour image and orient it (red's back rank = rank 0)."""
    fit = find_lattice(image_bgr)
    h = orient(fit.homography)
    if image_bgr.ndim == 3:
        h = orient(h, red_score(image_bgr, h))
    return BoardPose(homography=h, corners=geo.corners_of(h), confidence=float(np.clip(fit.support, 0, 1)),
                     red_side=geo.red_side_of(h))
