"""Sub-pixel disc centres: where each piece really sits relative to its point.

Why: arbiters' incidents (a piece left between points, a piece knocked, a piece
nudged while touched) are judged from how far a disc sits from its point, and a
disc put down between two points reads as an empty point to the classifier
(half a disc on each crop). The classifier's own offset head is trained for
reading, not measuring, and underestimates offsets 2-3x. A disc seen from above
is a circle with a strong rim; its centre is a geometric fact we can measure.

How (per point, all points of a call in one vectorised pass):
1. a rectified top-down patch around the point on the disc-top plane
   (vision.crops convention: the plane `height` spacings above the board, so an
   oblique camera does not push the face off the point), `span` spacings wide;
2. colour gradients (the strongest channel per pixel: a red disc on a brown
   board can have almost no luminance edge);
3. a gradient-direction circle vote: every strong edge pixel votes for centres
   one radius along and against its gradient (polarity-free: light discs on
   dark boards and the reverse), for the range of disc radii real sets use;
   the accumulator's peak inside the search window is the coarse centre;
4. refinement: the rim pixels near the coarse circle whose gradient points
   radially are lines through the centre; the least-squares point closest to
   all of them is the sub-pixel centre (independent of the radius, so the
   inner ring of a disc helps instead of hurting), iterated twice;
5. confidence: the fraction of the rim's angular sectors with such a pixel
   (a disc is a full circle; board lines, shadows and glyph strokes are not).

Pure image maths (OpenCV + numpy), no model, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import cv2
import numpy as np

from .crops import DISC_TOP_HEIGHT, extract_point_crops, point_grid
from .geometry import CheckedSettings
from .observation import NUM_POINTS

__all__ = ["CentredRead", "DiscConfig", "DiscFit", "DiscMeter", "DiscWalk", "fit_discs", "point_offsets", "walk_to_disc",
           "MIN_COVERAGE", "DEFAULT_DISC"]


@dataclass(frozen=True)
class DiscConfig(CheckedSettings):
    """Every threshold of the disc fit and of the offsets it reports, with its unit.

    Patch px: pixels of the rectified patch round each point (`fit_discs`' px_per_spacing a spacing).
    """

    # -- the fit (fit_discs)
    edge_blur_px: float = 0.8        # Gaussian sigma smoothing the patches before their gradients (patch px)
    edge_percentile: float = 75.0    # a patch's strong edges: gradients at least this percentile of its own (%) ...
    min_edge: float = 4.0            # ... and at least this strong (grey levels per patch px)
    vote_blur_px: float = 1.0        # Gaussian sigma smoothing the centre votes (patch px)
    peak_window_px: int = 5          # a vote peak is the largest within this square window (patch px)
    patch_margin: float = 0.3        # the patch reaches this far beyond the farthest rim searched (spacings)
    radius_slack_px: float = 1.0     # rim pixels are looked for this far outside the radius range (patch px)
    rim_cos: float = 0.97            # a rim pixel's gradient points at the centre within ~14 degrees (cosine) ...
    rim_band_px: float = 1.2         # ... and it lies within this of the rim radius (patch px)
    rim_edge_share: float = 0.5      # rim pixels need an edge this share of the patch's strong-edge threshold
    wall_min_shift: float = 0.04     # a disc's wall shows when its top is seen shifted by this (spacings) from its foot
    wall_side_cos: float = 0.35      # rim directions with a cosine above this towards the camera are on the wall's side
    refine_rounds: int = 3           # least-squares centre refinements
    min_conditioning: float = 1e-3   # the rim's gradient lines fix the centre when det >= this x trace^2 of their normal matrix
    stay_px: float = 2.5             # a refined centre further than this from the chosen vote is refused (patch px)
    min_coverage: float = 0.55       # rim coverage from which a fit counts as a disc (full rim ~0.8-1.0, empty points well below 0.5)
    # -- the offsets reported (point_offsets, DiscMeter)
    empty_prob: float = 0.5          # a point is read as empty when the model's empty probability is at least this
    big_offset: float = 0.2          # from this size (spacings) a disc offset is measured by the fit rather than the model's
    model_share: float = 0.4         # the model sees large offsets at 0.45-0.65 of their size: a fit over 1/this times it found something else
    model_level: float = 0.15        # ... but it levels off at ~0.2: from this size it backs a clear rim of any size (spacings) ...
    sure_coverage: float = 0.75      # ... as clear as this (rim coverage)
    agree_cos: float = 0.8           # the fit and the model agree on an offset's direction with at least this cosine
    radius_tolerance: float = 0.1    # a rim whose radius differs from the set's by more than this fraction is another circle (fits spread 1-4 %; at 0.15 a circle beside an untouched disc passes for its rim and reads as a knock of a fifth of a spacing)
    near_offset: float = 0.2         # a disc this far (spacings, on either axis) from an empty point sits off it, not on it
    near_radius_tolerance: float = 0.2  # ... its rim may differ this much from the set's (fraction) when the crop confirms it surely (discs left between points fit 11-13 % off the set's radius)
    confirm_empty_max: float = 0.05  # a crop centred on that disc confirms a piece when its empty probability is below this (discs left beside an empty point read at most about 0.03 empty, while rims that the lattice lines or the river's characters make read up to 0.35, many below 0.05: a blank square framed by lines can read low enough to take the move of a disc left between points elsewhere)
    off_crop_empty: float = 0.15     # a piece read this likely empty on its own point may sit off it: the crop on its rim must read it surely (above)
    faint_offset: float = 0.35       # a rim this far off its point is a disc clearly off it, however short the model's offset, when the crop on it reads the piece surely (the model reads a disc well off its point a third as far as its rim; a corner disc's rim is measured 0.2-0.25 off on its point)
    faint_coverage: float = 0.7      # ... its rim as covered as this (a disc put down between points shows part of its rim against the lattice lines: a disc half a spacing off fits a rim at about three quarters coverage)
    faint_near_coverage: float = 0.4  # a right-size rim this covered beside an empty point, below min_coverage, is a disc when the crop centred on it reads a piece surely (a disc put down half way between two points may fit a rim at under half coverage, its crop reading it surely)
    shy_cos: float = 0.5             # ... where the model's short offset points roughly (cosine; it is short and its direction wanders: for a disc 0.4 off the model may say 0.14 at some 40 degrees from the rim's direction)
    learn_coverage: float = 0.75     # fits this confident teach the meter the set's disc radius
    radius_samples: int = 8          # ... and this many of them on pieces make the radius known (DiscMeter)
    still: float = 0.1               # a disc whose rim moved less than this since its last fit has not moved (spacings)
    # -- walking the model's offset (walk_to_disc): it is trained on crops round their discs and reads
    # a disc far off the crop's centre 2-3x short, but the right way, so a crop re-centred on its own
    # estimate reads the rest of the way (a disc 0.44 off its point reads 0.19, 0.32, 0.36, 0.39 in turn)
    walk_rounds: int = 8             # re-centrings at most
    walk_settle: float = 0.04        # a walk has reached its disc when the model sees it this close to the crop's centre (spacings)
    walk_from: float = 0.08          # a piece whose model offset is at least this is walked (spacings; a disc 0.3 off reads ~0.12)
    walk_from_empty: float = 0.04    # an empty point whose model offset is at least this is walked (a disc 0.45 off between points reads 0.05-0.1 from it)
    walk_accept: float = 0.3         # a walk's end is taken from this far off its point (the tracker's 'between points'), where the model and the rim fell short ...
    walk_reach: float = 0.55         # ... and no farther than this on either axis (a neighbour's disc sits a spacing away; a disc under half a spacing off may walk to just over half)
    walk_same_disc: float = 0.2      # walks that end this close (spacings) reached one disc: the point nearest it keeps it
    walk_give_up: float = 0.75       # a walk this far off its point on either axis is heading for a neighbour's disc (a spacing away): it stops, never taken


DEFAULT_DISC = DiscConfig()

MIN_COVERAGE = DEFAULT_DISC.min_coverage
"""Rim coverage from which a fit counts as a disc, by default (DiscConfig.min_coverage)."""


_SEAM_PAD_PX = 3
"""Pixels each patch (and each vote accumulator) is framed by before the stack is filtered: more
than the blur and Sobel kernels (3x3 each) and the vote blur (5x5) reach."""


@dataclass
class DiscFit:
    """Disc fits for a list of points (arrays aligned with `points`)."""

    points: np.ndarray      # (N,) point indices
    offsets: np.ndarray     # (N, 2) disc centre minus point, spacings (x along files, y along ranks)
    radius: np.ndarray      # (N,) rim radius of the best vote, spacings
    coverage: np.ndarray    # (N,) fraction of rim sectors with radial edge support, 0..1
    min_coverage: float = MIN_COVERAGE  # coverage from which a fit counts as a disc

    @property
    def found(self) -> np.ndarray:
        """(N,) bool: a disc was seen near the point."""
        return self.coverage >= self.min_coverage


def camera_ground_point(homography: np.ndarray, image_size: tuple[int, int]) -> tuple[np.ndarray, float] | None:
    """Where the camera stands over the board plane: (its foot (x, y) in spacings, its height).

    From the plane homography and a focal length estimated from it (vision.crops). None when
    the decomposition fails. Used to tell which side of each disc shows its wall.
    """
    from .crops import plane_pose
    try:
        _, r1, r2, t = plane_pose(homography, image_size)
    except ValueError:
        return None
    R = np.stack([r1, r2, np.cross(r1, r2)], 1)
    c = -R.T @ t
    return c[:2], float(abs(c[2]))


def _edges(patches: np.ndarray, blur_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-pixel gradient (gx, gy, magnitude) of the strongest colour channel."""
    n, s = patches.shape[:2]
    # Each patch is mirrored a few pixels past its own border before the patches are stacked, so
    # the blur and the Sobel filters never reach into the next patch of the stack: a point's
    # gradients are its own whatever else is fitted in the same call (without the mirror a corner
    # point's disc, well off its point, loses to the false edge at the seam with the patch stacked
    # next to it, and is fitted off the other way).
    pad = _SEAM_PAD_PX
    sp = s + 2 * pad
    mirrored = np.pad(patches, ((0, 0), (pad, pad), (pad, pad), (0, 0)), mode="reflect")
    flat = cv2.GaussianBlur(mirrored.reshape(n * sp, sp, 3).astype(np.float32), (3, 3), blur_px)
    gx = cv2.Sobel(flat, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(flat, cv2.CV_32F, 0, 1, ksize=3)
    mag2 = gx * gx + gy * gy
    ch = np.argmax(mag2, axis=2)[..., None]
    inner = (slice(None), slice(pad, pad + s), slice(pad, pad + s))
    gx = np.take_along_axis(gx, ch, 2)[..., 0].reshape(n, sp, sp)[inner]
    gy = np.take_along_axis(gy, ch, 2)[..., 0].reshape(n, sp, sp)[inner]
    mag = np.sqrt(gx * gx + gy * gy)
    # the outermost pixels' gradients are half mirror image: no rim is judged on them
    mag[:, :1] = mag[:, -1:] = 0
    mag[:, :, :1] = mag[:, :, -1:] = 0
    return gx, gy, mag


def fit_discs(image_bgr: np.ndarray, homography: np.ndarray, points: Sequence[int] | np.ndarray | None = None, *,
              height: float = DISC_TOP_HEIGHT, search: float = 0.6, radii: tuple[float, float] = (0.3, 0.52),
              px_per_spacing: float = 20.0, sectors: int = 24, n_candidates: int = 4,
              config: DiscConfig = DEFAULT_DISC) -> DiscFit:
    """Fit the disc near each point of `points` (default all 90).

    Args:
        image_bgr: the frame (HxWx3 uint8).
        homography: board plane (x = file, y = rank, spacings) -> image pixels.
        points: point indices to fit.
        height: plane of the disc tops, spacings above the board (the crop convention).
        search: how far from the point a disc centre may be, spacings (0.6: a disc halfway
            between two points is found from both).
        radii: range of disc radii to look for, spacings (real sets: ~0.38-0.46).
        px_per_spacing: resolution of the rectified patches.
        sectors: angular sectors for the rim coverage.
        n_candidates: vote peaks judged by their rim per point.
        config: the fit's thresholds.

    Returns a DiscFit; where no disc is found (coverage < config.min_coverage) the offset is
    still the best guess but should not be trusted.
    """
    cfg = config
    idx = np.arange(NUM_POINTS) if points is None else np.asarray(points, dtype=np.int64).reshape(-1)
    n = len(idx)
    if n == 0:
        z = np.zeros(0)
        return DiscFit(idx, np.zeros((0, 2)), z, z, cfg.min_coverage)
    if not 0.1 <= search <= 1.0 or not 0.05 < radii[0] < radii[1] <= 0.8:
        raise ValueError(f"fit_discs: search {search} must be within 0.1..1 and radii {radii} an increasing "
                         f"range within 0.05..0.8 spacings")
    span = 2.0 * (search + radii[1]) + cfg.patch_margin
    size = int(np.ceil(span * px_per_spacing))
    ppx = size / span                                     # actual pixels per spacing
    patches = extract_point_crops(image_bgr, homography, size=size, span=span, points=idx.tolist(), height=height)
    gx, gy, mag = _edges(patches, cfg.edge_blur_px)
    c0 = (size - 1) / 2.0                                 # patch pixel of the point itself

    # --- candidate centres: polarity-aware gradient-direction circle votes --------------------------
    # A disc's rim has one polarity all round (face lighter, or darker, than what is around it);
    # a thin board line has both. Votes go to separate accumulators per polarity.
    thr = np.maximum(np.percentile(mag.reshape(n, -1), cfg.edge_percentile, axis=1), cfg.min_edge)  # per patch: its strong edges
    k, yy, xx = np.nonzero(mag >= thr[:, None, None])
    w = mag[k, yy, xx]
    ux, uy = gx[k, yy, xx] / w, gy[k, yy, xx] / w
    plane = size * size
    votes = np.zeros(2 * n * plane, np.float64)
    r_px = np.arange(radii[0] * ppx, radii[1] * ppx + 0.5, 1.0)
    for r in r_px:
        for s_i, sgn in enumerate((1.0, -1.0)):
            cx = np.rint(xx + sgn * r * ux).astype(np.int64)
            cy = np.rint(yy + sgn * r * uy).astype(np.int64)
            ok = (cx >= 0) & (cx < size) & (cy >= 0) & (cy < size)
            votes += np.bincount(((s_i * n + k[ok]) * size + cy[ok]) * size + cx[ok], weights=w[ok],
                                 minlength=votes.size)
    # blurred and searched for peaks one accumulator at a time (zeros past its border: no votes
    # fall outside a patch), so no accumulator's votes spill into its neighbour's in the stack
    pw = cfg.peak_window_px
    pad = max(_SEAM_PAD_PX, pw // 2 + 1)
    sp = size + 2 * pad
    framed = np.pad(votes.reshape(2 * n, size, size).astype(np.float32), ((0, 0), (pad, pad), (pad, pad)))
    blurred = cv2.GaussianBlur(framed.reshape(2 * n * sp, sp), (5, 5), cfg.vote_blur_px)
    summits = cv2.dilate(blurred, np.ones((pw, pw), np.uint8))
    inner = (slice(None), slice(pad, pad + size), slice(pad, pad + size))
    acc = blurred.reshape(2 * n, sp, sp)[inner].reshape(2, n, size, size)
    g = (np.arange(size) - c0) / ppx
    win = (g[:, None] ** 2 + g[None, :] ** 2) <= search ** 2
    peak = acc == summits.reshape(2 * n, sp, sp)[inner].reshape(acc.shape)
    score = np.where(win[None, None] & peak, acc, -1.0).transpose(1, 0, 2, 3).reshape(n, -1)
    kc = min(n_candidates, score.shape[1])
    top = np.argsort(-score, axis=1)[:, :kc]                       # (n, K) over (polarity, y, x)
    cand_s = np.where(top // plane == 0, 1.0, -1.0)
    cand_y = ((top % plane) // size).astype(np.float64)
    cand_x = (top % size).astype(np.float64)

    # --- judge each candidate by its rim, refine the best ------------------------------------------
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
    # Seen obliquely, the side of a disc facing the camera shows its wall below the rim, and
    # the wall's outline would pull the fit toward the camera: judge and fit the rim on the
    # other side (and the flanks) only. wall: (n, 2) unit vectors in patch pixels, or zero.
    wall = np.zeros((n, 2))
    cam = camera_ground_point(homography, (image_bgr.shape[1], image_bgr.shape[0]))
    if cam is not None:
        foot, cam_h = cam
        vec = foot[None] - (np.stack([idx % 9, idx // 9], 1).astype(np.float64))
        dist = np.linalg.norm(vec, axis=1)
        steep = dist / max(cam_h, 1e-9)          # tan of the viewing angle at each point
        show = height * steep >= cfg.wall_min_shift  # the wall shows more than a few pixels
        u = vec / np.maximum(dist, 1e-9)[:, None]
        wall[show] = np.stack([u[show, 0], -u[show, 1]], 1)   # patch rows run along -rank
    nx, ny = gx / np.maximum(mag, 1e-6), gy / np.maximum(mag, 1e-6)
    edge = mag >= thr[:, None, None] * cfg.rim_edge_share
    r_lo, r_hi = radii[0] * ppx - cfg.radius_slack_px, radii[1] * ppx + cfg.radius_slack_px
    n_r = int(np.ceil(r_hi - r_lo)) + 1
    # A circle's rim pixels lie within r_hi of its centre, so each circle is judged on the square of
    # the patch round its centre (a quarter of the patch's pixels), read from patches framed wide
    # enough that no square reaches past the frame; the frame holds no edges.
    half = int(np.ceil(r_hi)) + 1
    side = 2 * half + 2
    frame = side + 1
    fs = size + 2 * frame
    flat: list[np.ndarray] = []
    for a in (nx, ny, mag, edge):
        f = np.zeros((n, fs, fs), a.dtype)
        f[:, frame:frame + size, frame:frame + size] = a
        flat.append(f.reshape(-1))
    steps = np.arange(side)
    base = (np.arange(n) * (fs * fs))[:, None, None, None]
    wall_x, wall_y = wall[:, None, 0, None, None], wall[:, None, 1, None, None]
    b_ang = (np.arange(sectors) + 0.5) / sectors * 2 * np.pi - np.pi
    usable_all = (np.cos(b_ang)[None] * wall[:, 0, None] + np.sin(b_ang)[None] * wall[:, 1, None]) <= cfg.wall_side_cos

    def rim(cx: np.ndarray, cy: np.ndarray, sgn: np.ndarray,
            rad: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rim pixels of circles (n, K) centred at (cx, cy): polarity-consistent radial edges at
        the circle's radius (estimated as the best-supported radius when `rad` is None). Returns
        the first circle's rim pixels as an (n, size, size) mask, the radii and the coverages."""
        cols = np.floor(cx).astype(np.int64)[..., None] - half + steps     # (n, K, side) patch columns
        rows = np.floor(cy).astype(np.int64)[..., None] - half + steps
        at = base + (rows[..., :, None] + frame) * fs + (cols[..., None, :] + frame)   # (n, K, side, side)
        nx_w, ny_w, mag_w, edge_w = (np.take(a, at) for a in flat)
        dx = cols[..., None, :].astype(np.float64) - cx[..., None, None]
        dy = rows[..., :, None].astype(np.float64) - cy[..., None, None]
        d = np.sqrt(dx * dx + dy * dy) + 1e-9
        # gradient pointing at the centre (sgn +1: lighter inside) or away from it (sgn -1)
        cosr = -(nx_w * dx + ny_w * dy) / d * sgn[..., None, None]
        aligned = edge_w & (cosr > cfg.rim_cos) & (d >= r_lo) & (d <= r_hi)
        circle = np.arange(cx.size).reshape(cx.shape)[..., None, None]
        if rad is None:
            bins = np.clip(np.rint(d[aligned] - r_lo).astype(np.int64), 0, n_r - 1)
            key = np.broadcast_to(circle, aligned.shape)[aligned] * n_r + bins
            hist = np.bincount(key, weights=mag_w[aligned], minlength=cx.size * n_r).reshape(cx.shape + (n_r,))
            hist = hist + 0.5 * (np.roll(hist, 1, -1) + np.roll(hist, -1, -1))
            rad = r_lo + np.argmax(hist, axis=-1).astype(np.float64)
        far = (dx * wall_x + dy * wall_y) / d <= cfg.wall_side_cos
        sel = aligned & far & (np.abs(d - rad[..., None, None]) <= cfg.rim_band_px)
        ang = np.arctan2(np.broadcast_to(dy, sel.shape)[sel], np.broadcast_to(dx, sel.shape)[sel])
        sec = np.floor((ang + np.pi) / (2 * np.pi) * sectors).astype(np.int64) % sectors
        hit = np.bincount(np.broadcast_to(circle, sel.shape)[sel] * sectors + sec,
                          minlength=cx.size * sectors).reshape(cx.shape + (sectors,)) > 0
        # coverage over the sectors the rim can be seen in (all, or the far side and flanks)
        usable = usable_all.reshape((n,) + (1,) * (hit.ndim - 2) + (sectors,))
        first = np.zeros(n * fs * fs, bool)
        first[at[:, 0]] = sel[:, 0]
        return (first.reshape(n, fs, fs)[:, frame:frame + size, frame:frame + size], rad,
                (hit & usable).sum(-1) / np.maximum(usable.sum(-1), 1))

    sel, rad, cover = rim(cand_x, cand_y, cand_s, None)
    best = np.argmax(cover + 1e-3 * np.arange(kc, 0, -1)[None], axis=1)   # ties: the stronger vote
    pick = np.arange(n), best
    cxs, cys, sgn, rad, cover = cand_x[pick], cand_y[pick], cand_s[pick], rad[pick], cover[pick]
    cx0, cy0 = cxs.copy(), cys.copy()
    px, py = -ny, nx                                   # each rim pixel's gradient line, as a normal
    proj = px * xs[None] + py * ys[None]
    for _ in range(cfg.refine_rounds):
        # every rim pixel's gradient line passes through the centre: the least-squares point
        # nearest all of them is the sub-pixel centre, whatever the exact radius
        wt = np.where(sel, mag, 0.0)
        a11, a12, a22 = (wt * px * px).sum((1, 2)), (wt * px * py).sum((1, 2)), (wt * py * py).sum((1, 2))
        b1, b2 = (wt * px * proj).sum((1, 2)), (wt * py * proj).sum((1, 2))
        det = a11 * a22 - a12 * a12
        ok = det > cfg.min_conditioning * np.maximum(a11 + a22, 1e-9) ** 2
        nxc = np.where(ok, (a22 * b1 - a12 * b2) / np.where(ok, det, 1.0), cxs)
        nyc = np.where(ok, (a11 * b2 - a12 * b1) / np.where(ok, det, 1.0), cys)
        near = np.hypot(nxc - cx0, nyc - cy0) <= cfg.stay_px  # stay on the chosen circle
        cxs, cys = np.where(near, nxc, cxs), np.where(near, nyc, cys)
        sel, _, cover = rim(cxs[:, None], cys[:, None], sgn[:, None], rad[:, None])
        cover = cover[:, 0]
    # the rim radius to sub-pixel precision: mean distance of the rim pixels to the centre
    on_rim = np.nonzero(sel)                               # (patch, row, column) of each rim pixel
    weighted = np.zeros(sel.shape)
    weighted[on_rim] = mag[on_rim] * np.hypot(on_rim[2] - cxs[on_rim[0]], on_rim[1] - cys[on_rim[0]])
    wsum = np.where(sel, mag, 0.0).sum((1, 2))
    rad = np.where(wsum > 0, weighted.sum((1, 2)) / np.maximum(wsum, 1e-9), rad)
    off_x = (cxs - c0) / ppx
    off_y = -(cys - c0) / ppx                              # patch rows run along -rank
    return DiscFit(idx, np.stack([off_x, off_y], 1), rad / ppx, cover, cfg.min_coverage)


def _right_size(radius: np.ndarray, set_radius: float | None, cfg: DiscConfig,
                tolerance: float | None = None) -> np.ndarray:
    """(N,) bool: rims of the set's disc radius within `tolerance` (a fraction; the config's
    radius_tolerance by default); all, while the radius is not known yet."""
    if set_radius is None:
        return np.ones(len(radius), bool)
    tol = cfg.radius_tolerance if tolerance is None else tolerance
    return np.abs(radius - set_radius) <= tol * set_radius


Classify = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""classify(image, H, points, offsets) -> probs (N, 15): the piece model on crops centred off the points."""


@dataclass(frozen=True)
class CentredRead:
    """The piece model on crops centred off their points: what it reads there, and how far from
    each crop's centre it still sees the disc."""

    probs: np.ndarray     # (N, 15) class probabilities
    offsets: np.ndarray   # (N, 2) disc centre minus crop centre, spacings


Recentre = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], CentredRead]
"""recentre(image, H, points, offsets) -> CentredRead: the piece model on crops centred off the points."""


@dataclass(frozen=True)
class DiscWalk:
    """Where walks from some points ended (arrays aligned with the points)."""

    offsets: np.ndarray   # (N, 2) the disc's centre minus the point, spacings: the last crop's centre and the model's last step
    probs: np.ndarray     # (N, 15) the model's read of the last crop
    settled: np.ndarray   # (N,) bool: the model saw its disc within `walk_settle` of that centre


def walk_to_disc(image_bgr: np.ndarray, homography: np.ndarray, points: np.ndarray, start: np.ndarray,
                 recentre: Recentre, config: DiscConfig = DEFAULT_DISC) -> DiscWalk:
    """Follow the model's offset to the disc: centre a crop on the estimate, add what the model
    still sees off that centre, until it sees the disc centred.

    Why: the model is precise near a crop's centre and short far from it, so each step closes most
    of what is left. Its rim-free measure is what a disc with a faint rim needs (a white disc on a
    cream mat, a river's characters round it), and the steps settle on a disc
    already centred at once, so discs on their points keep their offsets."""
    cfg = config
    idx = np.asarray(points, dtype=np.int64).reshape(-1)
    off = np.asarray(start, dtype=np.float32).reshape(-1, 2).copy()
    probs: np.ndarray | None = None
    settled = np.zeros(len(idx), bool)
    live = np.arange(len(idx))
    for _ in range(cfg.walk_rounds + 1):
        if live.size == 0:
            break
        read = recentre(image_bgr, homography, idx[live], off[live])
        if probs is None:
            probs = np.zeros((len(idx), np.asarray(read.probs).shape[1]), np.float32)
        probs[live] = read.probs
        step = np.asarray(read.offsets, dtype=np.float32).reshape(-1, 2)
        off[live] += step       # the last, short step too: near a crop's centre the model is precise
        done = np.linalg.norm(step, axis=1) < cfg.walk_settle
        settled[live[done]] = True
        # past `walk_give_up` the walk has left its point for a neighbour's disc: its end lies
        # beyond `walk_reach` and would not be taken, so it costs no more reads
        gone = ~done & (np.abs(off[live]).max(axis=1) > cfg.walk_give_up)
        live = live[~done & ~gone]
    return DiscWalk(off, np.zeros((len(idx), 0), np.float32) if probs is None else probs, settled)


def point_offsets(image_bgr: np.ndarray, homography: np.ndarray, points: Sequence[int] | np.ndarray,
                  probs: np.ndarray, model_offsets: np.ndarray, classify: Classify | None = None,
                  height: float = DISC_TOP_HEIGHT, radii: tuple[float, float] = (0.3, 0.52),
                  fit_out: list[DiscFit] | None = None, set_radius: float | None = None, fit_all: bool = True,
                  config: DiscConfig = DEFAULT_DISC, fit_also: np.ndarray | None = None,
                  radius_sure: bool = True, recentre: Recentre | None = None) -> np.ndarray:
    """The Observation `offset` field for `points` (rows aligned with `points`).

    A point read as a piece gets its disc's fitted centre when the disc sits clearly off its
    point (the fit and the model's own offset agree on the direction); small offsets, where
    the model is precise and the fit's noise would matter, keep the model's value. A point
    read as empty gets the offset of a disc seen near it, not on it (put down between
    points: half a disc on each crop reads empty), when `classify(image, H, points,
    offsets) -> probs` confirms a piece on the crop centred on that disc; otherwise (0, 0).
    So a nonzero offset on an empty reading means "a disc is there, off the point", which
    the tracker uses to explain the move at once. A piece read unsurely on its point whose
    clear rim lies off it where the model's (too short) offset points gets the rim's centre when
    the crop centred there reads the piece surely; so does a piece read surely whose clear rim lies
    far off it (`faint_offset`), when that crop reads the same piece surely.
    `radii`: the disc radii to look for; `fit_out`: a list that receives the DiscFit (of
    the points fitted); `set_radius`: the piece set's disc radius when known (DiscMeter): a
    fit whose rim is not that size found something else (a shadow, a ring, a circle the
    board lines make); `fit_all=False` skips pieces whose model offset is too small for a
    fit to be taken (the per-frame path: a fit costs ~1 ms a point); `config`: the thresholds;
    `fit_also`: (N,) bool, points fitted even so (DiscMeter: discs whose last fit it compares
    with); `radius_sure`: `set_radius` was learnt from clear rims (DiscMeter), not only from the
    best of a noisy read's; `recentre`: the model on off-centre crops, which walks a disc that still
    reads short of `walk_accept` to where the model sees it centred (walk_to_disc).
    """
    cfg = config
    idx = np.asarray(points, dtype=np.int64).reshape(-1)
    out = np.asarray(model_offsets, dtype=np.float32).reshape(-1, 2).copy()
    if idx.size == 0:
        return out
    probs = np.asarray(probs).reshape(len(idx), -1)
    empty = probs[:, 0] >= cfg.empty_prob
    model = out.copy()
    mn = np.linalg.norm(model, axis=1)
    unsure = ~empty & (probs[:, 0] >= cfg.off_crop_empty)
    need = np.ones(len(idx), bool) if fit_all else (empty | unsure | (mn >= cfg.model_share * cfg.big_offset))
    if fit_also is not None:
        need |= np.asarray(fit_also, dtype=bool).reshape(-1)
    out[empty] = 0.0
    if not need.any():
        # nothing to fit; the walk still gets its say (its own thresholds choose whom to walk)
        return out if recentre is None else _walked(image_bgr, homography, idx, probs, model, out, empty, unsure,
                                                     recentre, cfg)
    k = np.flatnonzero(need)
    fit = fit_discs(image_bgr, homography, idx[k], height=height, radii=radii, config=cfg)
    if fit_out is not None:
        fit_out.append(fit)
    # The model's offset is precise for small offsets and shrinks large ones 2-3x but keeps
    # their direction; the fit measures large ones in full but can lock onto a ring or a
    # shadow. Take the fit where both see the disc clearly off its point the same way.
    fo, mk, ek = fit.offsets, mn[k], empty[k]
    fn = np.linalg.norm(fo, axis=1)
    cos = (model[k] * fo).sum(1) / np.maximum(mk * fn, 1e-9)
    right_size = _right_size(fit.radius, set_radius, cfg)
    # the model's offsets level off at ~0.2 spacings (it says "far", not how far): a model
    # offset past `model_level` backs a clear rim of any size (a disc knocked near half a spacing
    # off, its rim measured there, would otherwise be reported at the model's level-off)
    backed = (mk >= cfg.model_share * fn) | ((mk >= cfg.model_level) & (fit.coverage >= cfg.sure_coverage))
    good = fit.found & right_size & ~ek & (fn >= cfg.big_offset) & backed & (cos >= cfg.agree_cos) & (fn >= mk)
    out[k[good]] = fo[good]
    # a disc beside an empty point is confirmed by the piece model on a crop centred on it, so
    # its rim may be fitted less exactly (a disc between two points shows part of its rim
    # against the lattice lines) when that crop is surely a piece
    near_size = _right_size(fit.radius, set_radius, cfg, cfg.near_radius_tolerance)
    # a piece read unsurely on its own point (its crop holds part of the disc) whose clear rim lies
    # off it the way the model's short estimate points: the crop centred on the rim tells. Only the
    # disc's true centre reads it surely (a disc half a spacing off: the model says a tenth, its
    # point reads a quarter empty, the crop on its rim reads the piece surely). Its rim may be
    # fitted as loosely as one beside an empty point (a disc pushed off past the board's edge fits
    # a rim a tenth over the set's size)
    shy = unsure[k] & fit.found & near_size & ~good & (fn >= cfg.big_offset) & (cos >= cfg.shy_cos) & (fn >= mk)
    near = ek & fit.found & near_size & (np.abs(fo).max(axis=1) >= cfg.near_offset)
    # a piece read surely on its point whose clear rim lies well off it, the way the model's offset
    # points, where that offset is too short to back the rim by itself: the crop centred on the rim
    # must read the same piece surely (a disc put down half a spacing off by the board's edge: the
    # model says a seventh, its point reads a seventh empty, the rim lies clearly off and covered)
    # a rim less covered than a clear one is trusted only at the set's known size (before the size
    # is learnt, a disc on its point can get a wrong circle's rim half a spacing off)
    # (nor at a size learnt from a noisy read's best rims alone: such a size admits the same
    # wrong circle, and a disc on its point is reported left between points)
    faint_coverage = cfg.faint_coverage if set_radius is not None and radius_sure else cfg.sure_coverage
    faint = (~unsure[k] & ~ek & fit.found & right_size & ~good & (fn >= cfg.faint_offset) & (fn >= mk)
             & (cos >= cfg.agree_cos) & (fit.coverage >= faint_coverage)
             & (mk >= cfg.model_share * cfg.big_offset))
    # a disc beside an empty point whose rim, of the set's known size, is covered too little to
    # count as found (half of it over lattice lines and the neighbouring point's marks): only a
    # crop centred on it that reads a piece surely makes it one
    near_faint = (ek & ~fit.found & right_size & (set_radius is not None) & (fit.coverage >= cfg.faint_near_coverage)
                  & (np.abs(fo).max(axis=1) >= cfg.near_offset))
    near |= near_faint
    # the same for a piece read unsurely on its point: a rim of the set's known size off it the way
    # the model's short offset points, broken by sensor noise below `min_coverage` (sensor noise
    # can break a disc's rim to under half coverage, the model saying half the offset)
    shy |= (unsure[k] & ~fit.found & near_size & (set_radius is not None) & ~good
            & (fit.coverage >= cfg.faint_near_coverage) & (fn >= cfg.big_offset) & (cos >= cfg.shy_cos) & (fn >= mk))
    # a piece read surely on its point whose rim, of the set's known size, lies clearly off it
    # (`faint_offset`) where the model's offset points, the model saying "far" (`model_level`) and
    # backing the rim's length (not a rim three times as far as the model says: a wrong circle),
    # the rim broken below `min_coverage` by glare: only the crop centred on the rim, reading the
    # same piece surely, makes it the disc (a knocked disc on a plastic set under glare fits a rim
    # at under half coverage, and reported at the model's short offset its knock reads as a
    # touch). A crop 0.3 off a disc still reads it surely (a shadow's rim a third of a spacing off
    # a disc on its point, confirmed by that crop, reads as a knock)
    faint |= (~unsure[k] & ~ek & ~fit.found & right_size & (set_radius is not None)
              & (fit.coverage >= cfg.faint_near_coverage) & (fn >= cfg.faint_offset)
              & (mk >= cfg.model_level) & (mk >= cfg.model_share * fn) & (cos >= cfg.agree_cos))
    ask = shy | near | faint       # disjoint: pieces read unsurely, empty points, pieces read surely
    if ask.any() and classify is not None:
        sub = np.flatnonzero(ask)
        p = np.asarray(classify(image_bgr, homography, idx[k[sub]], fo[sub]))
        seen = p[:, 0] < cfg.confirm_empty_max
        # a piece read surely on its point is confirmed by its own class on the rim's crop (a rim
        # the board lines or a neighbour make reads some other piece there; an unsure
        # point's crop holds part of the disc and names no piece to compare with)
        same = np.argmax(p, axis=1) == np.argmax(probs[k[sub]], axis=1)
        seen &= ~faint[sub] | same
        out[k[sub[seen]]] = fo[sub[seen]]
    if recentre is not None:
        out = _walked(image_bgr, homography, idx, probs, model, out, empty, unsure, recentre, cfg)
    return out


def _walked(image_bgr: np.ndarray, homography: np.ndarray, idx: np.ndarray, probs: np.ndarray, model: np.ndarray,
            out: np.ndarray, empty: np.ndarray, unsure: np.ndarray, recentre: Recentre, cfg: DiscConfig) -> np.ndarray:
    """`out` with the discs that the model and the rim left short of `walk_accept` walked to
    (walk_to_disc), where the walk settles on a piece read surely within `walk_reach` of its point,
    the way the model first pointed. A piece read surely on its point must read the same piece
    there (a walk that slid onto a neighbour's disc reads that one). `empty`, `unsure`: point_offsets'
    readings of the points (read empty; read a piece, but not surely)."""
    mn = np.linalg.norm(model, axis=1)
    short = np.linalg.norm(out, axis=1) < cfg.walk_accept
    walk = np.flatnonzero(short & (mn >= np.where(empty, cfg.walk_from_empty, cfg.walk_from)))
    if walk.size == 0:
        return out
    end = walk_to_disc(image_bgr, homography, idx[walk], model[walk], recentre, cfg)
    wn = np.linalg.norm(end.offsets, axis=1)
    cos = (end.offsets * model[walk]).sum(1) / np.maximum(wn * mn[walk], 1e-9)
    sure = ~empty[walk] & ~unsure[walk]
    same = ~sure | (np.argmax(end.probs, axis=1) == np.argmax(probs[walk], axis=1))
    take = (end.settled & (end.probs[:, 0] < cfg.confirm_empty_max) & same & (wn >= cfg.walk_accept)
            & (np.abs(end.offsets).max(axis=1) <= cfg.walk_reach) & (cos >= cfg.shy_cos))
    # one disc, one point: walks from two points that reached the same disc leave it to the nearer
    at = point_grid()[idx[walk]] + end.offsets
    kept: list[int] = []
    for i in np.flatnonzero(take)[np.argsort(wn[take], kind="stable")]:
        if any(np.linalg.norm(at[j] - at[i]) <= cfg.walk_same_disc for j in kept):
            take[i] = False
        else:
            kept.append(int(i))
    out = out.copy()
    out[walk[take]] = end.offsets[take]
    return out


@dataclass(frozen=True)
class _LastFit:
    """What the meter saw of one disc the last time it was fitted."""

    piece: int             # the class read on the point (a new piece is a new disc)
    fit: np.ndarray        # the rim's centre minus the point, spacings
    reported: np.ndarray   # the offset reported for it then


class DiscMeter:
    """point_offsets for one video: learns the piece set's disc radius from clear fits, and
    keeps a disc's offset while its rim has not moved.

    Every disc of a set has the same radius. Once it is known (the median of the first
    confident fits on points read as pieces, usually the first full read), a fit with a rim
    of another size is not trusted: it found a shadow's edge, an inner ring or a circle the
    board lines suggest, and the model's offset is kept.

    The offset reported for a disc switches between two estimates (the model's, short for
    large offsets, and the rim's, biased along the camera's axis by the disc's unknown
    thickness), and near the switch a disc sitting ~0.2 spacings off its point is reported
    0.1 or 0.3 from one read to the next (an untouched disc seems knocked a fifth of a spacing
    after a hand passed over it). The rim itself is measured consistently, so a
    disc whose rim is where it was keeps the offset it had: only a disc that really moved
    gets a new one.
    """

    def __init__(self, config: DiscConfig = DEFAULT_DISC) -> None:
        self.radius: float | None = None
        self.radius_sure = False   # the radius was learnt from clear rims, not a noisy read's best ones
        self._samples: list[float] = []
        self.min_samples = config.radius_samples   # confident fits on pieces before the radius is taken as known
        self.config = config
        self._last: dict[int, _LastFit] = {}

    def forget(self) -> None:
        """The lattice was found anew: fits made against the old one say nothing of the new."""
        self._last.clear()

    def offsets(self, image_bgr: np.ndarray, homography: np.ndarray, points: Sequence[int] | np.ndarray,
                probs: np.ndarray, model_offsets: np.ndarray, classify: Classify | None = None,
                height: float = DISC_TOP_HEIGHT, recentre: Recentre | None = None) -> np.ndarray:
        """point_offsets, judged against the set's radius once it is known, a disc that has
        not moved keeping its offset."""
        cfg = self.config
        idx = np.asarray(points, dtype=np.int64).reshape(-1)
        prob = np.asarray(probs).reshape(len(idx), -1)
        fits: list[DiscFit] = []
        known = np.array([p in self._last for p in idx.tolist()], dtype=bool)
        out = point_offsets(image_bgr, homography, idx, prob, model_offsets, classify, height,
                            fit_out=fits, set_radius=self.radius, fit_all=self.radius is None, config=cfg,
                            fit_also=known, radius_sure=self.radius_sure, recentre=recentre)
        pieces = np.argmax(prob, axis=1)
        row = {int(p): i for i, p in enumerate(idx)}
        fitted: set[int] = set()
        if fits:
            fit = fits[0]
            trusted = fit.found & _right_size(fit.radius, self.radius, cfg)
            for j, p in enumerate(fit.points.tolist()):
                i = row[p]
                if not trusted[j] or pieces[i] == 0:
                    continue
                fitted.add(p)
                last = self._last.get(p)
                if last is not None and last.piece == pieces[i] and \
                        float(np.linalg.norm(fit.offsets[j] - last.fit)) < cfg.still:
                    out[i] = last.reported
                    continue
                self._last[p] = _LastFit(int(pieces[i]), fit.offsets[j].copy(), out[i].copy())
            if self.radius is None:
                piece = prob[_rows_of(fit.points, row), 0] < cfg.empty_prob
                self._samples += [float(r) for r in fit.radius[piece & (fit.coverage >= cfg.learn_coverage)]]
                if len(self._samples) >= self.min_samples:
                    self.radius = float(np.median(self._samples))
                    self.radius_sure = True
                else:
                    self._learn_from_best(fit, piece)
        for p in idx.tolist():
            if p not in fitted:
                self._last.pop(p, None)   # measured without a trusted rim: nothing to compare with next time
        return out

    def _learn_from_best(self, fit: DiscFit, piece: np.ndarray) -> None:
        """A full read that found too few clear rims (sensor noise breaks up every rim: as few as
        one disc in six at `learn_coverage`) still teaches the radius from its
        `min_samples` best-covered discs, when that many were found at all: else the radius is never
        known, since only a full read fits every disc, and a disc left between points with a rim
        broken by the noise is never confirmed by its size (and is reported at half its offset)."""
        cov = np.where(piece & fit.found, fit.coverage, -1.0)
        best = np.argsort(-cov, kind="stable")[:self.min_samples]
        if len(best) == self.min_samples and bool(np.all(cov[best] >= 0)):
            self.radius = float(np.median(fit.radius[best]))


def _rows_of(points: np.ndarray, row: dict[int, int]) -> np.ndarray:
    """Rows of `points` in the caller's point list."""
    return np.array([row[int(p)] for p in points], dtype=np.int64)
