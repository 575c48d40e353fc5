"""Pure lattice geometry: the 9x10 Xiangqi lattice, homographies, and fitting them to line evidence.

Board plane: x = file 0..8, y = rank 0..9, point spacing 1 (docs/conventions.md). Everything
here is I/O free so the board finder, the tracker and the tests share one definition of the lattice.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache

import numpy as np

FILES = 9
RANKS = 10
RIVER = (4, 5)  # ranks bounding the river: inner files have no line between them

#: board-plane coordinates of the 90 points, in point-index order (index = rank * 9 + file)
POINTS = np.array([(f, r) for r in range(RANKS) for f in range(FILES)], dtype=np.float64)
#: board-plane corners a9, i9, i0, a0 (the order BoardPose.corners uses)
CORNERS = np.array([(0, 9), (8, 9), (8, 0), (0, 0)], dtype=np.float64)


def apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map (N, 2) points through a 3x3 homography."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = pts @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


def corners_of(h: np.ndarray) -> np.ndarray:
    """Image points of a9, i9, i0, a0 under `h` (board plane -> image)."""
    return apply_h(h, CORNERS)


def is_proper(h: np.ndarray) -> bool:
    """True when `h` is not mirrored: files run to red's right while ranks run away from red.

    In an image (y down) seen from above with red at the bottom, +x goes right and +y goes up,
    so the cross product of the two image directions is negative. A photo is never mirrored.
    """
    o, ex, ey = apply_h(h, np.array([[4.0, 4.5], [5.0, 4.5], [4.0, 5.5]]))
    a, b = ex - o, ey - o
    return float(a[0] * b[1] - a[1] * b[0]) < 0


def board_symmetry(kind: str) -> np.ndarray:
    """Board-plane maps of the lattice onto itself: 'id', 'flip_x', 'flip_y', 'rot180'."""
    sx = -1.0 if kind in ("flip_x", "rot180") else 1.0
    sy = -1.0 if kind in ("flip_y", "rot180") else 1.0
    return np.array([[sx, 0, 4 - 4 * sx], [0, sy, 4.5 - 4.5 * sy], [0, 0, 1]], dtype=np.float64)


def red_side_of(h: np.ndarray) -> str:
    """Which image edge red's back rank (rank 0) faces, as the image is shown."""
    c, r0 = apply_h(h, np.array([[4.0, 4.5], [4.0, 0.0]]))
    d = r0 - c
    if abs(d[1]) >= abs(d[0]):
        return "bottom" if d[1] > 0 else "top"
    return "right" if d[0] > 0 else "left"


def median(x: np.ndarray) -> float:
    """np.median of a 1-D array, ~3x cheaper for the few hundred values the finder's inner
    loops take it of (same value: the mean of the middle two for an even count; NaN if empty)."""
    a = np.asarray(x, dtype=np.float64).ravel()
    n = a.size
    if n == 0:
        return float("nan")
    k = n // 2
    if n % 2:
        return float(np.partition(a, k)[k])
    p = np.partition(a, (k - 1, k))
    return float(0.5 * (p[k - 1] + p[k]))


def point_spacing_px(h: np.ndarray) -> float:
    """Median image distance between neighbouring points (how big the board looks).

    (The finder asks this of every hypothesis and every refinement round: the distances are
    taken straight from the coordinates, with np.linalg.norm's arithmetic.)"""
    p = apply_h(h, POINTS).reshape(RANKS, FILES, 2)
    x, y = p[..., 0], p[..., 1]
    dx = np.concatenate([(x[:, 1:] - x[:, :-1]).ravel(), (x[1:] - x[:-1]).ravel()])
    dy = np.concatenate([(y[:, 1:] - y[:, :-1]).ravel(), (y[1:] - y[:-1]).ravel()])
    return median(np.sqrt(dx * dx + dy * dy))


def points_moved(h0: np.ndarray, h1: np.ndarray) -> float:
    """How far the 90 points moved between two poses of the lattice: the largest move of a point
    along either image axis, in point spacings of `h1` (the lock's refits move them hundredths of
    a spacing)."""
    return float(np.abs(apply_h(h1, POINTS) - apply_h(h0, POINTS)).max() / point_spacing_px(h1))


@lru_cache(maxsize=64)
def lattice_segments(step: float = 0.5, lo: float = 0.25, hi: float = 0.75,
                     include_river: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample positions on the drawn lattice lines, between intersections.

    Returns (points (N,2) board plane, normals (N,2) unit in board plane, line_id (N,) where
    line ids 0..8 are file lines x=i and 9..18 are rank lines y=j). Samples sit at fractions
    lo..hi of each unit segment, away from the intersections where pieces hide the lines.
    With include_river, inner-file samples inside the river are included (they should NOT
    show a line: negative evidence).
    """
    fr = np.arange(lo, hi + 1e-9, step) if step > 0 else np.array([0.5])
    pts, nrm, ids = [], [], []
    for f in range(FILES):
        for r in range(RANKS - 1):
            river = r == RIVER[0] and 0 < f < FILES - 1
            if river != include_river:
                continue
            for t in fr:
                pts.append((f, r + t)); nrm.append((1.0, 0.0)); ids.append(f)
    if not include_river:
        for r in range(RANKS):
            for f in range(FILES - 1):
                for t in fr:
                    pts.append((f + t, r)); nrm.append((0.0, 1.0)); ids.append(FILES + r)
    out = (np.array(pts, dtype=np.float64), np.array(nrm, dtype=np.float64), np.array(ids, dtype=np.int64))
    for a in out:
        a.setflags(write=False)
    return out


# ----------------------------------------------------------------------------- settings, line fit
def check_config(cfg: object) -> None:
    """Refuse a settings dataclass holding a negative or non-finite number, naming the field.

    Every threshold in the vision settings is a size, a fraction, a count or a contrast: none
    is negative, and NaN would silently switch a test off. (Nested settings check themselves.)
    """
    if not is_dataclass(cfg) or isinstance(cfg, type):
        raise TypeError(f"check_config takes a settings dataclass instance, not {cfg!r}")
    for f in fields(cfg):
        v = getattr(cfg, f.name)
        items = v if isinstance(v, tuple) else (v,)
        for x in items:
            if isinstance(x, bool):
                continue
            if isinstance(x, (int, float)) and (x < 0 or (isinstance(x, float) and not math.isfinite(x))):
                raise ValueError(f"{type(cfg).__name__}.{f.name} = {v!r}: must be a finite number >= 0")


class CheckedSettings:
    """Base of the vision settings dataclasses: refuses a negative or non-finite number on creation."""

    def __post_init__(self) -> None:
        check_config(self)


@dataclass(frozen=True)
class LineFitConfig(CheckedSettings):
    """Robust weighting of `fit_h_from_line_points`: how far off a point may lie before it counts less."""

    huber_k: float = 2.0        # residual (robust sigmas) beyond which a point's weight falls as 1/residual
    min_sigma: float = 1e-4     # floor of the robust residual scale (spacings): an exact fit must not divide by 0


DEFAULT_LINE_FIT = LineFitConfig()

MAD_TO_SIGMA = 1.4826  # median absolute deviation -> standard deviation of a normal distribution


def _normaliser(pts: np.ndarray) -> np.ndarray:
    """Similarity moving the points' centroid to the origin and their mean distance from it to sqrt(2)."""
    c = pts.mean(axis=0)
    d = pts - c
    s = np.sqrt(2) / max(np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]).mean(), 1e-9)
    return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]], dtype=np.float64)


def fit_h_from_line_points(img_pts: np.ndarray, axis: np.ndarray, value: np.ndarray,
                           weights: np.ndarray | None = None, h0: np.ndarray | None = None,
                           iters: int = 4, config: LineFitConfig = DEFAULT_LINE_FIT) -> np.ndarray:
    """Fit board->image homography H to image points known to lie on lattice lines.

    Point k lies on the board line x = value[k] (axis 0) or y = value[k] (axis 1). With
    G = H^-1 this is linear in G: G[axis]·p - value·G[2]·p = 0, so a DLT solves it; we then
    iterate with weights 1/(G[2]·p) so the residual is in board units (geometric, not
    algebraic) and Huber-downweight outliers (characters, piece rims). Needs points on at
    least two lines of each direction.
    """
    p = np.asarray(img_pts, dtype=np.float64)
    n = len(p)
    t = _normaliser(p)
    hom = np.empty((n, 3))
    hom[:, :2] = p
    hom[:, 2] = 1.0
    ph = hom @ t.T
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    scale = np.ones(n)
    if h0 is not None:
        g0 = t @ h0
        g0 = np.linalg.inv(g0)
        scale = np.abs(ph @ g0[2]) + 1e-12
    rob = np.ones(n)
    # residual = G[axis]·p - v * G[2]·p: the rows of the linear system (the same every round)
    ax0 = axis == 0
    rows = np.zeros((n, 9))
    k0 = int(np.count_nonzero(ax0))
    if ax0[:k0].all():   # the usual order, every file sample before every rank sample: plain slices
        rows[:k0, 0:3] = ph[:k0]
        rows[k0:, 3:6] = ph[k0:]
    else:
        rows[ax0, 0:3] = ph[ax0]
        rows[~ax0, 3:6] = ph[~ax0]
    rows[:, 6:9] = -value[:, None] * ph
    rounds = max(1, iters)
    g = np.eye(3)
    for it in range(rounds):
        ww = np.sqrt(w * rob) / scale
        a = rows * ww[:, None]
        # smallest eigenvector of the 9x9 normal matrix (coordinates are normalised, so this
        # is as good as an SVD of the tall matrix and far cheaper)
        g = np.linalg.eigh(a.T @ a)[1][:, 0].reshape(3, 3)
        if it == rounds - 1:
            break   # (the sign of G and the weights for a next round do not change H)
        den = ph @ g[2]
        if median(den) < 0:
            g = -g
            den = -den
        scale = np.abs(den) + 1e-12
        num = np.where(ax0, ph @ g[0], ph @ g[1])
        res = np.abs(num / den - value)
        sigma = max(MAD_TO_SIGMA * median(res), config.min_sigma)
        k = config.huber_k * sigma
        rob = np.where(res <= k, 1.0, k / np.maximum(res, 1e-12))
    h = np.linalg.inv(g @ t)  # board -> image in original pixel coordinates
    return h / h[2, 2]
