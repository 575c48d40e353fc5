"""See hands and arms over the board: per point hidden, and whether the board is quiet.

Why this way: hands come in every skin tone and in sleeves, so nothing here models skin.
Instead we keep a background model of the *rectified* board (a small top-down image in which
every point owns one square cell, plus a ring of cells just outside the lattice) and flag
cells whose appearance departs from it. Appearance is compared in a light-invariant way:
log-brightness minus its median over the board (lamp flicker and clouds scale the whole image),
chroma (a shadow darkens but keeps the colour), and log-brightness gradients (a shadow keeps the
board's texture; a hand replaces it). A brightness drop alone counts only when it is far deeper
than a shadow. Hysteresis on each cell and a quiet counter over frames stop the flags from
flickering. After a move, the moved point differs from the background while nothing is over it.
An arm always crosses the ring around the board to reach a point, so a changed region that no
arm reaches (no clearly covered or moving ring cell joins it) is a piece put down or its shadow:
it is absorbed into the background as soon as it has stayed still for `clear_absorb_s` (a couple
of frames). Regions an arm reaches settle only after `absorb_s` and while nothing moves near them;
a region over the points joined to an arm across the ring (`_resting_arms`: at least `arm_cells`
of ring covered, more than a disc or cup put aside, and reaching the ring's outer border, where an
arm comes in from beyond the view) never settles by time at all, however long
it rests: fingers resting on a piece while the player thinks are what touch-move is about.
Where the arm departs only faintly on the ring (a sleeve the colour of the table), a large region
reaching the ring that hides the printed lattice on several points is held as a hand too
(`_faint_arms`).
A piece put down on an edge point stays joined to a hand that lingers, moving, just beyond
the edge; it settles once it has stayed still for `absorb_s` while that hand moved beside it
(`_left_behind`; a hand at rest over a point, or fingertips just over the edge, do not).
The board is quiet once no point is hidden and nothing has moved over the points for `quiet_s`;
something lying still on the ring alone (a hand resting beyond the edge, a piece put aside) does
not hold quiet up, since every point is in view. This keeps the hand-left-to-quiet delay near
`clear_absorb_s + quiet_s` (about 0.2 s) instead of half a second.

The background learns whatever it sees first, so a hand already over the board at the start
(or at a re-lock) is checked against a model that needs no history: the printed lattice
(`lattice_seen`). The middle of each line segment between neighbouring points is bare even with
discs on both points; a hand hides it. Points in an edge-touching region whose lattice is hidden,
and their neighbours (fingertips on a disc), stay hidden while that region lasts; cells learnt
under such a hand, or under something lying across the ring (`_odd_ring`), are `unverified` and
are released as soon as they show the board again (`_reveal`), so an arm that leaves gives the
board back promptly. Once the board has been quiet for `board_still_s` (in all) everything counts as verified.
When the lock follows a knocked camera, the ring is unverified again: the board's sides just
beyond its edge look different from the new viewpoint, and that strip is no arm. Once the camera
has come to rest the whole background is learnt afresh, as after a re-lock: the discs stand up
off the board, so every one of them looks a little different from there too.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import CheckedSettings, points_moved

P = 12          # rectified pixels per point spacing
MARGIN = 1      # ring of cells outside the lattice (point spacings)
GX, GY = 9 + 2 * MARGIN, 10 + 2 * MARGIN


@dataclass
class HandState:
    """What the hand detector concluded for one frame."""

    hidden: np.ndarray     # (90,) bool, point index order: something is over the point
    quiet: bool            # no point hidden and nothing moving over the points for `quiet_s`
    moving: np.ndarray     # (90,) bool: the point's cell changed since the previous frame
    ring_active: bool      # something crosses the ring of cells around the lattice
    cell_score: np.ndarray  # (90,) fraction of the point's cell that departs from the background


def rectify_matrix(h: np.ndarray) -> np.ndarray:
    """Map from rectified-board pixels to image pixels (for cv2.WARP_INVERSE_MAP).

    Rectified pixel (u, v) centre is board point x = (u + 0.5)/P - MARGIN - 0.5, and rows run
    down from rank 9 + MARGIN: y = 9 + MARGIN + 0.5 - (v + 0.5)/P. So point (f, r) owns the
    P x P cell at column f + MARGIN, row (9 - r) + MARGIN.
    """
    a = 1.0 / P
    m = np.array([[a, 0, 0.5 * a - MARGIN - 0.5],
                  [0, -a, 9 + MARGIN + 0.5 - 0.5 * a],
                  [0, 0, 1.0]])
    return h @ m


def rectify(frame_bgr: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Small top-down colour image of the board and its surroundings (GY*P x GX*P)."""
    from .geometry import apply_h, point_spacing_px
    # work on the board's bounding box only, shrunk so the warp does not alias
    # (one point spacing -> about P..2P px)
    ring = np.array([[-MARGIN - 0.5, -MARGIN - 0.5], [8 + MARGIN + 0.5, -MARGIN - 0.5],
                     [8 + MARGIN + 0.5, 9 + MARGIN + 0.5], [-MARGIN - 0.5, 9 + MARGIN + 0.5]])
    c = apply_h(h, ring)
    H, W = frame_bgr.shape[:2]
    x0, y0 = int(max(0, np.floor(c[:, 0].min()) - 2)), int(max(0, np.floor(c[:, 1].min()) - 2))
    x1, y1 = int(min(W, np.ceil(c[:, 0].max()) + 3)), int(min(H, np.ceil(c[:, 1].max()) + 3))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return np.zeros((GY * P, GX * P, 3), np.uint8)
    img = frame_bgr[y0:y1, x0:x1]
    hh = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ h
    sp = point_spacing_px(h)
    while sp > 3 * P and min(img.shape[:2]) > 32:
        if sp > 6 * P and min(img.shape[:2]) > 64:
            # another halving follows: a 2x2 box average is a third of pyrDown's cost, and the
            # Gaussian of the last pyrDown still keeps the warp from aliasing
            h2, w2 = img.shape[0] // 2, img.shape[1] // 2
            img = cv2.resize(img[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA)  # exact 2x: fast path
        else:
            img = cv2.pyrDown(img)
        sp /= 2
        # both put pixel centres at u' = (u + 0.5) / 2 - 0.5
        hh = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]]) @ hh
    m = rectify_matrix(hh)
    return cv2.warpPerspective(img, m, (GX * P, GY * P), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _features(rect: np.ndarray) -> np.ndarray:
    """(H, W, 5) float32: normalised log-brightness, 2 chroma, 2 log-gradients."""
    f = rect.astype(np.float32) + 4.0
    s = f[..., 0] + f[..., 1] + f[..., 2]      # = f.sum(axis=2), the same sums in the same order, faster
    logl = np.log(s)
    inner = logl[MARGIN * P:-MARGIN * P, MARGIN * P:-MARGIN * P]
    logl = logl - float(np.median(inner[::3, ::3]))
    c1 = f[..., 2] / s - 1.0 / 3  # r chromaticity
    c2 = f[..., 0] / s - 1.0 / 3  # b chromaticity
    sm = cv2.GaussianBlur(logl, (3, 3), 0)
    gx = cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3) * 0.25
    gy = cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3) * 0.25
    return np.dstack([logl, c1 * 8.0, c2 * 8.0, gx * 2.0, gy * 2.0]).astype(np.float32)


def _level(rect: np.ndarray) -> np.ndarray:
    """(H, W) float32 mean channel value as the features see it (offset included): feature noise
    scales as 1 / level."""
    r = rect.astype(np.float32)
    return (r[..., 0] + r[..., 1] + r[..., 2]) / 3.0 + 4.0


def _judge(d: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
    """Per-pixel 'something else is here' from absolute feature differences; > 1 means changed.

    Chroma and texture departures count fully; a pure brightness change only beyond what a
    shadow or a lamp can do (~x2.5 locally). `noise` (H, W, 5): the standard deviation that
    noise alone gives each difference at each pixel (`NoiseModel.sigma`): where `NOISE_SIGMAS`
    of it exceed a fixed scale, that scale gives way to it, so a dark table or a noisy camera
    does not make a hand of its own grain.
    """
    chroma_s: float | np.ndarray
    tex_s: float | np.ndarray
    bright_s: float | np.ndarray
    if noise is None:
        chroma_s, tex_s, bright_s = 0.35, 0.35, 0.9
    else:
        # where the grain is well below the fixed scales (a lit board) nothing changes
        z = NOISE_SIGMAS
        chroma_s = np.maximum(0.35, z * (noise[..., 1] + noise[..., 2]))
        tex_s = np.maximum(0.35, z * np.hypot(noise[..., 3], noise[..., 4]))
        bright_s = np.maximum(0.9, z * noise[..., 0])
    chroma = (d[..., 1] + d[..., 2]) / chroma_s
    tex = np.sqrt(d[..., 3] ** 2 + d[..., 4] ** 2) / tex_s
    bright = d[..., 0] / bright_s
    return np.maximum(np.maximum(chroma, tex), bright)


def _departure(a: np.ndarray, b: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
    """`_judge` of the difference between two feature images."""
    return _judge(np.abs(a - b), noise)


NOISE_SIGMAS = 3.5   # a departure stands this many noise deviations clear (pure noise: ~1e-3 of pixels)
SQRT2 = float(np.sqrt(2.0))


class NoiseModel:
    """How far each feature of the rectified board strays from the background with nothing there.

    Why: the features are logs and ratios of brightness, so a camera's grain moves them most
    where the image is dark (a dark table around the board, black discs): with fixed thresholds
    a noisy camera showed a 'hand' on the dark ring in every frame and the board was never
    quiet. Noise of a fixed size in pixel values moves a feature by about c / level, so one
    constant per feature (c, in pixel-value units) describes the whole image. It is measured
    against the background itself, where nothing is hidden: a video codec repeats its grain
    from frame to frame (a frame-to-frame difference underrates it) and slow light changes
    count too. The median over those pixels (what a hand covers is left out) and the median of
    the last `frames` such estimates (a camera bump is one outlier among them) make it robust.
    """

    def __init__(self, frames: int = 25) -> None:
        from collections import deque
        self._estimates: "deque[np.ndarray]" = deque(maxlen=frames)
        self.constant: np.ndarray | None = None   # (5,) per feature, pixel-value units

    def observe(self, diff: np.ndarray, level: np.ndarray, calm: np.ndarray) -> None:
        """Add one frame's estimate from its signed difference from the background (features
        minus background), the pixel level and the pixels (H, W bool) where nothing is hidden.
        The difference's median is taken off first: a lamp or the camera's exposure moving the
        whole board's brightness is no grain (the brightness threshold already allows for it)."""
        sel = calm[::2, ::2]
        if int(sel.sum()) < 64:
            return
        # features as rows (each contiguous): the same medians, a third of the time
        x = np.ascontiguousarray(diff[::2, ::2][sel].T)
        x = np.abs(x - np.median(x, axis=1)[:, None]) * level[::2, ::2][sel][None, :]
        self._estimates.append((1.4826 * np.median(x, axis=1)).astype(np.float32))
        self.constant = np.median(np.stack(self._estimates), axis=0)

    def sigma(self, level: np.ndarray) -> np.ndarray | None:
        """(H, W, 5) standard deviation of a feature's departure from the background (or from the
        previous frame) at each pixel due to noise alone; None before any estimate."""
        if self.constant is None:
            return None
        return self.constant[None, None, :] / level[..., None]


def _cell_fraction(mask: np.ndarray) -> np.ndarray:
    """Fraction of each P x P cell set in mask -> (GY, GX)."""
    return mask.reshape(GY, P, GX, P).mean(axis=(1, 3))


def _outer_edge_fraction(dep: np.ndarray, depth: int = 2) -> np.ndarray:
    """(GY, GX) share of each ring cell's outer border (the outermost `depth` pixel rows or
    columns of the rectified image) that departs from the background; 0 inside the lattice.

    Why: an arm reaching the points comes from beyond the view of the ring, so it crosses the
    ring's outer border; a disc knocked just beyond the edge, or put aside there, lies inside it."""
    h, w = dep.shape
    out = np.zeros((GY, GX), np.float64)
    sides = [dep[:depth].any(axis=0), dep[h - depth:].any(axis=0)]       # top, bottom rows (per column)
    ends = [dep[:, :depth].any(axis=1), dep[:, w - depth:].any(axis=1)]  # left, right columns (per row)
    for row, line in ((0, sides[0]), (GY - 1, sides[1])):
        out[row] = np.maximum(out[row], line.reshape(GX, P).mean(axis=1))
    for col, line in ((0, ends[0]), (GX - 1, ends[1])):
        out[:, col] = np.maximum(out[:, col], line.reshape(GY, P).mean(axis=1))
    return out


def _cells_to_pixels(cells: np.ndarray) -> np.ndarray:
    """(GY, GX) cell grid -> (GY*P, GX*P) pixel grid."""
    return np.repeat(np.repeat(cells, P, axis=0), P, axis=1)


def _points_from_cells(c: np.ndarray) -> np.ndarray:
    """(GY, GX) cell grid -> (90,) in point-index order (rank 0 first)."""
    inner = c[MARGIN:MARGIN + 10, MARGIN:MARGIN + 9]
    return inner[::-1].reshape(-1)


def _ring_sides() -> list[tuple[np.ndarray, np.ndarray]]:
    """The ring's four sides, each as (rows, cols) of its cells, corners left out: the cells of a
    side hold the same strip of board margin and table, so each is compared with its side."""
    across, down = np.arange(1, GX - 1), np.arange(1, GY - 1)
    return [(np.zeros_like(across), across), (np.full_like(across, GY - 1), across),
            (down, np.zeros_like(down)), (down, np.full_like(down, GX - 1))]


def _odd_ring(feat: np.ndarray, frac: float = 0.35) -> np.ndarray:
    """(GY, GX) ring cells that look unlike the rest of their side of the ring.

    Just beyond each edge the ring holds the same strip of board margin and table all along
    that edge; something lying across it (an arm, a robot's gripper) makes its cells differ
    from the side's median cell. Corner cells are left out (nothing to compare them with).
    """
    out = np.zeros((GY, GX), bool)
    cells = feat.reshape(GY, P, GX, P, -1).transpose(0, 2, 1, 3, 4)   # (GY, GX, P, P, 5)
    for rows, cols in _ring_sides():
        c = cells[rows, cols]                                           # (n, P, P, 5)
        ref = np.median(c, axis=0)
        dep = (_departure(c, ref[None]) > 1.0).mean(axis=(1, 2))
        out[rows, cols] = dep > frac
    return out


@dataclass(frozen=True)
class ArmCrossing:
    """When a ring cell unlike the rest of its side (`_odd_ring`) is an arm crossing the edge.

    Why: a patterned table (wood grain, a checked cloth) just beyond the board makes ring cells
    odd pixel by pixel with no arm there (a grained table beyond one edge with a lamp's glare
    washing out that corner, taken for a hand from the first frame, keeps the board from ever
    being quiet, and a whole game goes unrecorded). Grain
    keeps a cell's mean look near its side's; an arm or a sleeve lying across the ring changes
    it, or carries on the look of the hand over the points beside it. Units: the features' log
    brightness and scaled chroma (`_features`)."""

    departs: float = 0.4    # a cell's mean differs from its side's median cell by this in some channel
    resembles: float = 0.3  # ... or is within this of the covered points' median look in every channel


def _side_median_means(means: np.ndarray) -> np.ndarray:
    """(GY, GX, 3) for each non-corner ring cell, the median cell mean of its side of the ring
    (zero elsewhere)."""
    out = np.zeros_like(means)
    for rows, cols in _ring_sides():
        out[rows, cols] = np.median(means[rows, cols], axis=0)
    return out


def _arm_crosses(comp: np.ndarray, feat: np.ndarray, odd: np.ndarray, rule: ArmCrossing) -> bool:
    """Whether an arm from the covered inner region `comp` (GY, GX) crosses the ring beside it:
    an odd ring cell next to it whose mean look departs from its side's, or resembles the
    region's (`ArmCrossing`)."""
    near = cv2.dilate(comp.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool) & odd
    if not near.any():
        return False
    means = feat[..., :3].reshape(GY, P, GX, P, 3).mean(axis=(1, 3))
    side = _side_median_means(means)
    region = np.median(means[comp], axis=0)
    cells = means[near]
    departs = np.abs(cells - side[near]).max(axis=1) >= rule.departs
    resembles = np.abs(cells - region).max(axis=1) <= rule.resembles
    return bool((departs | resembles).any())


BUMP_HIDES_ALL = 0.9   # share of the points hidden at once that no hand covers: the camera itself moved


SIDE_STRIP_POINTS = 8   # of an edge file's 10 points: a start-up region holding this many lies along the side


def _along_side_file(cells: np.ndarray) -> bool:
    """A region of inner cells (GY, GX) holding most of the a- or i-file: it lies along a side
    of the board where no player sits. An arm reaching in crosses an edge over a few points; a
    strip of light or shadow along the whole side hides that file's lattice at the start (a sheen
    along the far side of a plastic board would be held as a hand for the whole game)."""
    inner = cells[MARGIN:MARGIN + 10, MARGIN:MARGIN + 9]
    return bool(max(int(inner[:, 0].sum()), int(inner[:, -1].sum())) >= SIDE_STRIP_POINTS)


def _cells_from_points(p: np.ndarray, ring: float | bool = 0) -> np.ndarray:
    """(90,) in point-index order -> (GY, GX) cell grid, the ring cells set to `ring`."""
    p = np.asarray(p)
    out = np.full((GY, GX), ring, dtype=p.dtype)
    out[MARGIN:MARGIN + 10, MARGIN:MARGIN + 9] = p.reshape(10, 9)[::-1]
    return out


# --- the board's own look: are the lattice lines around a point in view? ----------------------

@dataclass(frozen=True)
class LatticeConfig:
    """The empty-board model the running background is checked against.

    Why: the running background learns whatever it is shown first, so a hand already over the
    board when the detector starts (or re-locks after a bump) would be taken for the board. The
    printed lattice is known without any history: the middle of every line segment between two
    neighbouring points is bare even when both points carry a disc, and a hand, a sleeve or a
    robot's gripper hides it. Contrasts are measured relative to the board's own median, so
    lamp, ink and board colour do not matter.
    """

    px: int = 32                # rectified pixels per point spacing for the line check
    span: tuple[float, float] = (0.35, 0.65)  # part of each segment checked, in spacings from its first point
    half_width_px: int = 8      # the strip across a line: the line within +-2 px, the sides at 5..8 px
    covered_below: float = 0.35  # a point is covered when its clearest segment shows less than this share
    joins_below: float = 0.7    # a point between covered ones (a gap between fingers) joins their region
    seen_above: float = 0.6     # a covered point is in view again from this share
    rise: float = 0.25          # ... or from this much more than it showed at the start (a corner
                                # point's two segments may stay half hidden by its discs)
    min_region: int = 3         # covered points in an edge-touching region for it to be a hand at start
    gamma: float = 2.2          # the camera's tone curve, undone to judge the lines in light as it fell (`lattice_seen`)


def _segments() -> list[tuple[int, int]]:
    """Lattice line segments between neighbouring points, as (point index, point index).

    The river has no vertical lines except on the outer files."""
    segs = []
    for r in range(10):
        for f in range(8):
            segs.append((r * 9 + f, r * 9 + f + 1))
    for r in range(9):
        for f in range(9):
            if r == 4 and 0 < f < 8:
                continue
            segs.append((r * 9 + f, (r + 1) * 9 + f))
    return segs


SEGMENTS = np.array(_segments(), np.int64)


@functools.lru_cache(maxsize=4)
def _tone_tables(gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Per grey level (256,) float32: its log (offset by 8, so the darkest levels' noise does not
    blow up) and its light as it fell on the sensor (the tone curve `gamma` undone), 0-1."""
    levels = np.arange(256, dtype=np.float32)
    return np.log(levels + 8.0), np.power(levels / 255.0, gamma).astype(np.float32)


def _lattice_views(frame_bgr: np.ndarray, h: np.ndarray, q: int, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """(10q, 9q, 3) colour channels of the lattice area only, in log units and in light as it
    fell (`_tone_tables`), q px per spacing, point (f, r) at the centre of cell column f, row
    9 - r; softened by about a pixel so that sensor noise does not make lines of its own.
    Channels are kept apart: red lines on a yellow board barely change the brightness but
    clearly darken blue and green."""
    from .geometry import point_spacing_px
    a = 1.0 / q
    m = np.array([[a, 0, 0.5 * a - 0.5], [0, -a, 9 + 0.5 - 0.5 * a], [0, 0, 1.0]])
    img, hh, sp = frame_bgr, np.asarray(h, np.float64), point_spacing_px(h)
    while sp > 2 * q and min(img.shape[:2]) > 64:
        img = cv2.pyrDown(img)
        sp /= 2
        hh = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]]) @ hh
    rect = cv2.warpPerspective(img, hh @ m, (9 * q, 10 * q), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    if rect.ndim == 2:
        rect = np.dstack([rect] * 3)
    log_table, light_table = _tone_tables(float(gamma))
    return (cv2.GaussianBlur(cv2.LUT(rect, log_table), (0, 0), 1.0),
            cv2.GaussianBlur(cv2.LUT(rect, light_table), (0, 0), 1.0))


def segment_contrast(view: np.ndarray, cfg: LatticeConfig) -> np.ndarray:
    """(len(SEGMENTS),) how clearly each segment's line shows in its middle part (in the view's units).

    Across the line at each position along it: the line's extreme within +-2 px against the
    nearer-looking of the two sides at 5..8 px, either polarity (dark ink or light inlay), in
    the colour channel where it shows most; the segment's figure is the 75th percentile along
    it, so a rim of a disc reaching in at one end does not hide a line that shows over most of
    the span.
    """
    q, w = cfg.px, cfg.half_width_px
    rows, cols = _segment_profile_index(q, w, cfg.span, view.shape[0], view.shape[1])
    prof = view[rows, cols]                           # (segments, along, across, channels)
    mid = prof[:, :, w - 2:w + 3]
    side_a, side_b = prof[:, :, :4].mean(axis=2), prof[:, :, -4:].mean(axis=2)
    dark = np.minimum(side_a, side_b) - mid.min(axis=2)
    light = mid.max(axis=2) - np.maximum(side_a, side_b)
    return np.quantile(np.maximum(dark, light).max(axis=-1), 0.75, axis=1).astype(np.float32)


@functools.lru_cache(maxsize=8)
def _segment_profile_index(q: int, w: int, span: tuple[float, float], height: int, width: int
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices (segments, along, across) of every segment's strip across its line
    in the lattice view (`segment_contrast`), the same for every frame: all segments are read in
    one gather instead of one at a time."""
    n_along = max(3, int(round((span[1] - span[0]) * q)))
    along = q / 2 + np.linspace(span[0], span[1], n_along) * q   # px from the first point's cell start
    across = np.arange(-w, w + 1)
    rows = np.empty((len(SEGMENTS), n_along, len(across)), np.int64)
    cols = np.empty_like(rows)
    pts_f, pts_r = SEGMENTS % 9, SEGMENTS // 9
    for k in range(len(SEGMENTS)):
        f0, r0 = int(pts_f[k, 0]), int(pts_r[k, 0])
        if pts_r[k, 1] == r0:   # horizontal: runs along u at the point's row
            v = (9 - r0) * q + q // 2
            u = np.clip((f0 * q + along).astype(np.int64), 0, width - 1)
            rows[k], cols[k] = v + across[None, :], u[:, None]
        else:                   # vertical: runs up (decreasing v) from the point
            u0 = f0 * q + q // 2
            vs = np.clip(((9 - r0) * q + q - along).astype(np.int64), 0, height - 1)
            rows[k], cols[k] = vs[:, None], u0 + across[None, :]
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


def lattice_seen(frame_bgr: np.ndarray, h: np.ndarray, cfg: LatticeConfig | None = None) -> np.ndarray:
    """(90,) per point, in point-index order: the clearest of its line segments as a share of
    the board's typical segment contrast (about 1 where the lattice shows, near 0 under a hand)."""
    cfg = cfg or LatticeConfig()
    # the lattice crop must hold +-half_width px around the edge lines: cells are q px, the edge
    # line sits q/2 inside, so any half width below q/2 fits
    view, light = _lattice_views(frame_bgr, h, cfg.px, cfg.gamma)
    # A line is judged twice: in log units, where a shadow (which multiplies the light) leaves
    # its contrast as it was, and in light as it fell on the sensor (the tone curve undone),
    # where glare (which adds light) leaves it as it was. A hand or a sleeve hides the line in
    # both; it shows where either still sees it.
    rel = np.maximum(_relative(segment_contrast(view, cfg), LOG_CONTRAST_FLOOR),
                     _relative(segment_contrast(light, cfg), LIGHT_CONTRAST_FLOOR))
    best = np.zeros(90, np.float32)
    np.maximum.at(best, SEGMENTS[:, 0], rel)
    np.maximum.at(best, SEGMENTS[:, 1], rel)
    return best


LOG_CONTRAST_FLOOR = 1e-3     # a board's typical line at or below this (log units) shows no lattice at all ...
LIGHT_CONTRAST_FLOOR = 1e-4   # ... nor at or below this (light as it fell, 0-1; a clear line there is 0.01-0.2)


def _relative(c: np.ndarray, floor: float) -> np.ndarray:
    """Segment contrasts as shares of the board's typical line: the upper quartile, so that a
    sleeve across a third of the board (its segments near zero) does not drag the reference down
    with it. A board whose typical line is no more than `floor` shows none: all zeros."""
    ref = float(np.quantile(c, 0.75))
    return c / ref if ref > floor else np.zeros_like(c)


def covered_at_start(seen: np.ndarray, cfg: LatticeConfig) -> np.ndarray:
    """(90,) points a hand or arm already covers, from the lattice alone.

    Regions of points whose lattice shows less than `joins_below` (fingers leave gaps) that hold
    `min_region` or more clearly covered points, touch the board's edge (an arm crosses it) and
    reach past its outer lines (a hand over the points covers more than the edge row). Two or
    three crowded discs can hide a corner point's few segments; they do not make such a region.
    Nor does a back rank of big discs seen obliquely, which hides the segments between them and
    towards the next rank, a line of edge points and nothing inside it (three corner points of a
    back rank hidden at the start, the rank in front of them in clear view: held as a hand, the
    board would never be quiet until one of those pieces moved).
    """
    s = np.asarray(seen).reshape(10, 9)
    n, lab = cv2.connectedComponents((s < cfg.joins_below).astype(np.uint8), connectivity=8)
    edge = np.zeros((10, 9), bool)
    edge[[0, -1], :] = True
    edge[:, [0, -1]] = True
    out = np.zeros((10, 9), bool)
    for k in range(1, n):
        comp = lab == k
        if (comp & edge).any() and (comp & ~edge).any() \
                and int((comp & (s < cfg.covered_below)).sum()) >= cfg.min_region:
            out |= comp
    return out.reshape(-1)

@dataclass(frozen=True)
class HandConfig(CheckedSettings):
    """Every setting of the hand detector, with its unit.

    Durations are in seconds of video time (frames count at least 2, 3 and 5 of them), so the
    detector behaves the same at 10 fps and 60 fps. Shares (`on`, `off`, `*_frac`) are of a
    cell's pixels that depart from the background (`_judge`) unless said otherwise."""

    on: float = 0.12                 # a cell with this share departed turns hidden ...
    off: float = 0.06                # ... and a hidden one clears below this share (hysteresis)
    quiet_s: float = 0.08            # no point hidden and nothing moving over the points this long: quiet
    absorb_s: float = 0.3            # a departed region an arm reaches is learnt once still this long
    board_still_s: float = 1.0       # every cell still this long: all but a resting arm is learnt; quiet
                                     # this long (at a stretch or in all): cells learnt under a hand count as verified
    adapt_rate: float = 0.02         # share of the way the background moves towards a calm frame (per frame)
    clear_absorb_s: float = 0.14     # a departed region no arm reaches (a piece put down) is learnt once still this long
    arm_frac: float = 0.5            # a ring cell this departed seeds an arm
    quiet_ring: bool = True          # something arriving over the ring holds quiet up
    ring_hold_frac: float = 0.25     # ... when it departs this share of a ring cell
    piece_frac: float = 0.8          # a point's cell filled this much is filled as a hand fills it (a disc fills less)
    arm_cells: float = 1.0           # ring area (cells) a region must cover beyond the edge to be an arm at rest,
                                     # which never settles (a disc or a die put beside the board covers less)
    hand_points: int = 4             # points a region joined to the ring covers before the lattice is asked whether
                                     # it is a hand whose ring cells depart only faintly (a sleeve the table's colour)
    bump_spacings: float = 0.03      # the lock moving more than this between two frames (point spacings; a held
                                     # lock does not move at all) is the camera knocked: the ring is unverified again
    held_recheck_s: float = 1.0      # how often a faint arm's lattice, and resting ring cells' likeness to the bare
                                     # margin, are asked again
    bare_bright: float = 0.15        # a resting ring cell whose mean log-brightness ...
    bare_chroma: float = 0.12        # ... and chroma features differ from its bare neighbours' by at most these is bare margin
    arm_edge_frac: float = 0.25      # share of a ring cell's outer border an arm at rest departs on (an arm comes
                                     # from beyond the view; a disc knocked just over the edge lies inside it)
    relearn_spacings: float = 0.1    # a knock that moved the board this far (point spacings), begun with no hand over
                                     # the points, has the whole background learnt afresh once the camera rests
    calm_look_s: float = 0.5         # quiet this long at a stretch: the board's look then tells a ghost as well as
                                     # its last quiet look (`_ghosts`)
    lifeless_s: float = 2.5          # a region joined to the ring lying entirely still this long, no point's cell
                                     # filled as a hand fills it (`piece_frac`), is no arm at rest (`_lifeless`)
    lattice: LatticeConfig = LatticeConfig()
    crossing: ArmCrossing = ArmCrossing()


DEFAULT_HANDS = HandConfig()


class HandDetector:
    """Stateful per-video hand/occlusion detector on the rectified board."""

    def __init__(self, config: HandConfig = DEFAULT_HANDS) -> None:
        """`config`: every threshold and duration (HandConfig); the detector keeps it as `config`."""
        self.config = config
        self.noise = NoiseModel()   # the camera's grain: kept across resets (the same camera)
        self.reset()

    def reset(self) -> None:
        """Forget the background (the board moved, or a new video)."""
        self.bg: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        self.hidden_cells = np.zeros((GY, GX), bool)
        self.still = np.zeros((GY, GX), np.int32)      # frames since each cell last changed
        self.still_t = np.zeros((GY, GX), np.float64)  # ... and seconds
        self.calm = 0
        self.calm_t = 0.0
        self.shown_s = 0.0      # seconds the board was quiet in all since cells were last unverified
        self.armed = np.zeros((GY, GX), bool)   # hidden since a frame with an arm in view
        self.peak = np.zeros((GY, GX), np.float64)  # most of the cell departed while hidden
        # cells whose background was learnt while a hand lay over them (a hand already there at
        # the start): not the board, so they are checked against the lattice instead
        self.unverified = np.zeros((GY, GX), bool)
        self.start_seen = np.full((GY, GX), np.inf)   # each point's lattice share at the start
        self.held = np.zeros((GY, GX), bool)  # a hand found by the lattice whose arm departs faintly
        self._held_checked_t = -np.inf          # when a held region's lattice was last asked again
        self._bare_checked_t = -np.inf          # when resting ring cells were last compared with the margin
        self.quiet_look: np.ndarray | None = None   # the background when the board was last quiet
        self.calm_look: np.ndarray | None = None    # ... when it was last quiet for `calm_look_s` at a stretch
        self.calm_view_t = 0.0   # seconds the board has been quiet at a stretch, seen from where the camera is now
        self._last_h: np.ndarray | None = None
        self._bumped_from: np.ndarray | None = None   # the lock before it began to move, until it rests
        self._bump_under_hand = False   # something was over the points as the lock began to move
        # the background was learnt afresh after a knock and the board has not been quiet since: the
        # lock may still be finding its place, and any further move of it makes that look stale
        self._relearnt_after_knock = False
        self._t: float | None = None
        self._n = 0
        self.last_state: HandState | None = None

    def update(self, frame_bgr: np.ndarray, h: np.ndarray, t: float | None = None) -> HandState:
        """Process one frame (video time `t` seconds) with the board's homography `h`."""
        if self._last_h is not None and self.bg is not None:
            moved = points_moved(self._last_h, h)
            if moved > self.config.bump_spacings:
                # the board between moves was seen from where the camera was: that look tells
                # nothing from the new viewpoint (cells released as looking like it would be the
                # arm itself, and a move read with the hand still there)
                self.calm_look, self.calm_view_t = None, 0.0
                self.unverified[:MARGIN] = self.unverified[-MARGIN:] = True
                self.unverified[:, :MARGIN] = self.unverified[:, -MARGIN:] = True
                self.shown_s = 0.0
                if self._bumped_from is None:
                    self._bumped_from = self._last_h
                    # (only once the board has been seen quiet: before that, what is 'hidden' is
                    # as likely the background learnt under a lock still finding its place)
                    # Nearly every point hidden at once is the knock itself, seen a frame or
                    # two before the lock followed it, not a hand (nearly every point 'hidden' in
                    # the frame the camera moved, the board quiet just before: taken for a hand, the
                    # background is never learnt again and the board never quiet after)
                    inner = self.hidden_cells[MARGIN:-MARGIN, MARGIN:-MARGIN]
                    self._bump_under_hand = self.quiet_look is not None and bool(inner.any()) \
                        and float(inner.mean()) < BUMP_HIDES_ALL
            elif self._bumped_from is not None:
                shift = points_moved(self._bumped_from, h)
                self._bumped_from = None
                # the camera has come to rest after a knock: the discs stand up off the board, so
                # from the new viewpoint every piece (and the strip beyond the edge) looks a little
                # different, and a rank of them along the edge joins the ring like an arm that
                # never leaves (the back rank 'a hand' for the rest of the game, the board never
                # quiet again, the moves after it lost). Learn the board afresh,
                # as after a re-lock, the lattice telling a hand there from the board. Not after the
                # lock's own wandering while a hand hides part of the lines: it can reach a tenth of
                # a spacing or more with no knock at all (a background learnt again under the hand
                # loses the touch it was making), so only a movement that began with
                # nothing over the points is taken for a knock.
                # Nor is a knock over when the lock, having come to rest once, moves again before the
                # board is next seen quiet: the look just learnt was taken on a lock still finding
                # its place (a lock that follows a knock in steps, the background learnt on one
                # step a tenth of a spacing off, leaves the strip beyond the board's edge 'an arm'
                # after the last step for many seconds, and moves are read late)
                if (shift >= self.config.relearn_spacings or self._relearnt_after_knock) and not self._bump_under_hand:
                    self.reset()
                    self._relearnt_after_knock = True
        self._last_h = np.array(h, np.float64)
        return self.update_rectified(rectify(frame_bgr, h), t, lattice=lambda: lattice_seen(frame_bgr, h, self.config.lattice))

    def _left_behind(self, hid: np.ndarray, inner: np.ndarray, arm: np.ndarray, settled: np.ndarray,
                     frac: np.ndarray) -> np.ndarray:
        """Changed cells on the points that a hand moving on just beyond the board's edge has left.

        A piece put down on an edge point (its disc's wall or shadow reaching the ring cell
        beside it) stays joined to the hand while the hand lingers just off the board, so it
        would settle only once the hand is gone from the ring too (up to a second later).
        A region of the points that has stayed still for `absorb_s` while the arm's ring cells
        beside it went on moving is not part of that hand: a hand resting on a piece keeps its
        fingers and palm still together, and a hand still reaching over the points has cells
        there that move. Only regions whose arm lies entirely beyond the points qualify, where
        a hand was over a point (a cell filled beyond `piece_frac` since it was hidden) and
        has gone from it (no cell so filled now: a disc covers at most about two thirds of its
        point's cell). Fingertips resting just over the edge points never filled their cells.
        """
        out = np.zeros_like(hid)
        if not (hid & inner & arm & settled).any():
            return out
        n, lab = cv2.connectedComponents((hid & inner).astype(np.uint8), connectivity=8)
        _, whole = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        ring_arm = arm & ~inner
        for k in range(1, n):
            comp = lab == k
            if not (comp & arm).any() or not settled[comp].all() or float(frac[comp].max()) > self.config.piece_frac:
                continue      # joined to no hand, not still long enough, or a cell filled as by a hand
            if float(self.peak[comp].max()) <= self.config.piece_frac:
                continue      # no hand was ever over it: fingertips just over the edge points
            hand = np.isin(whole, np.unique(whole[comp]))
            if (hand & inner & ~comp).any():
                continue      # the hand is still over other points
            frozen = float(self.still_t[comp].min())
            beside = cv2.dilate(comp.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool) & ring_arm
            if not beside.any():
                continue
            # the hand beside it moved clearly after the region froze
            if float(self.still_t[beside].min()) < frozen - self.config.clear_absorb_s:
                out |= comp
        return out

    def _arm_like(self, comp: np.ndarray, ring: np.ndarray, frac: np.ndarray, mov: np.ndarray,
                  settled: np.ndarray, edge: np.ndarray) -> bool:
        """A hidden region reaching the ring is an arm while its ring cells move, or cover
        `arm_cells` of ring area. One lying still on less is a disc pushed over the edge or a cup
        beside the board, and may settle (a disc left between points by the edge, over the ring
        cell beyond, would otherwise keep the board busy for seconds). So may one that stays inside
        the ring's outer border, however much of the ring it covers: an arm comes from beyond the
        view (a disc knocked just over the edge can cover a whole cell of ring, and the board would
        never go quiet again)."""
        on_ring = comp & ring
        if (mov & on_ring).any() or not settled[on_ring].all():
            return True
        return float(frac[on_ring].sum()) >= self.config.arm_cells and self._crosses_edge(comp, edge)

    def _crosses_edge(self, comp: np.ndarray, edge: np.ndarray) -> bool:
        """The region `comp` (GY, GX) departs on the ring's outer border, as an arm does (`edge`:
        this frame's share of each ring cell's outer border that departs, `_outer_edge_fraction`)."""
        return bool((edge[comp] >= self.config.arm_edge_frac).any())

    def _resting_arms(self, hid: np.ndarray, frac: np.ndarray, ring: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """Hidden regions that reach over the points from an arm across the board's edge.

        Whatever lies over the points and is joined to something covering the ring (a cell at
        least `arm_frac` covered, `arm_cells` of ring area in all) is a hand, moving or not:
        such a region never settles into the background by time, only by leaving. A piece or
        a cup put down beside the board covers less of the ring, or stays inside its outer
        border (`_crosses_edge`).
        """
        out = np.zeros_like(hid)
        seeds = hid & ring & (frac >= self.config.arm_frac) & ~self.unverified
        if not seeds.any():
            return out
        n, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        for k in np.unique(lab[seeds]):
            comp = lab == k
            if (comp & ~ring).any() and float(frac[comp & ring & ~self.unverified].sum()) >= self.config.arm_cells \
                    and self._crosses_edge(comp, edge):
                out |= comp
        return out

    def _lifeless(self, hid: np.ndarray, frac: np.ndarray, ring: np.ndarray) -> np.ndarray:
        """Hidden regions joined to the ring that have not stirred at all for `lifeless_s`, with no
        point's cell filled beyond `piece_frac`: no arm at rest, whatever ring they cover.

        Why: a hand at rest still trembles, and one over a point fills its cell; a captured disc
        set down on the ring beside the points the capture changed lies dead still, and joined
        to them it looks like an arm across the edge that never leaves (a captured disc set down
        beyond a corner beside an emptied corner point would keep the board busy for good, and the
        moves after it would be lost)."""
        out = np.zeros_like(hid)
        n, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        for k in range(1, n):
            comp = lab == k
            if not (comp & ring).any() or not (comp & ~ring).any():
                continue
            if float(self.still_t[comp].min()) >= self.config.lifeless_s - 1e-9 \
                    and float(frac[comp & ~ring].max()) <= self.config.piece_frac:
                out |= comp
        return out

    def _faint_arms(self, hid: np.ndarray, absorb: np.ndarray, ring: np.ndarray,
                    seen: "Callable[[], np.ndarray | None]", frac: np.ndarray) -> np.ndarray:
        """Regions about to settle that are hands whose arm crosses the ring only faintly.

        A sleeve or skin the colour of the table departs weakly on the ring, so such an arm may
        not look like one once it stops. A region over `hand_points` points or more that reaches
        the ring at all, and hides the lattice on `min_region` of its points (a palm does; a
        cluster of pieces put down or knocked leaves the segments between points bare), is a
        hand. Once found, it stays one (`held`) for as long as it stays that big; while it would
        otherwise settle, the lattice is asked again every `held_recheck_s`, and a region that no
        longer hides it is let go. Points count towards that size only where they clearly depart (`on`):
        the faint halo kept hidden around a piece just put down on an edge point would otherwise
        keep the piece 'a hand' once the hand has gone. Returns the cells that must not settle.
        """
        out = np.zeros_like(hid)
        n, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        if n <= 1:
            return out
        inner_n = np.bincount(lab[~ring & (frac > self.config.on)], minlength=n)
        touches = np.bincount(lab[ring & ~self.unverified], minlength=n) > 0
        big = (inner_n >= self.config.hand_points) & touches
        big[0] = False
        held = np.zeros(n, bool)
        held[np.unique(lab[self.held & hid])] = True
        if self._t is not None and self._t - self._held_checked_t >= self.config.held_recheck_s:
            # a region held as a hand that is about to settle is asked again now and then: a
            # cluster of moved and knocked discs at the edge, once taken for a palm (a moving
            # shadow dimmed its lattice), would otherwise never settle (and the board never be
            # quiet again). A palm still hides its lattice.
            for k in np.flatnonzero(big & held):
                if not (absorb & (lab == k)).any():
                    continue
                s = seen()
                if s is None:
                    break
                self._held_checked_t = self._t
                if not self._hides_lattice(lab == k, s):
                    held[k] = False
        for k in np.flatnonzero(big & ~held):
            if not (absorb & (lab == k)).any():
                continue
            s = seen()
            if s is None:
                break
            if self._hides_lattice(lab == k, s):
                held[k] = True
        keep = np.isin(lab, np.flatnonzero(big & held))
        self.held = keep.copy()
        return out | keep

    def _reveal(self, hid: np.ndarray, feat: np.ndarray, frac: np.ndarray, forced: np.ndarray,
                seen_cells: np.ndarray, ring: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """Take as background the cells learnt under a start-up hand that now show the board.

        When that hand moves or leaves, the board it covered departs from the background it
        left there. A point that has stayed still for `clear_absorb_s`, joined to no hand still
        covering the lattice, is the board once its lattice shows again (or clearly more than
        at the start), or where the lattice cannot tell, once it has been still for `absorb_s`
        with no arm at rest reaching it. A ring cell the hand crossed is released as soon as it
        is joined to no hidden point. They all count as verified once the board has been quiet
        for `board_still_s`. Returns the hidden cells left.
        """
        still = (self.still >= 2) & (self.still_t >= self.config.clear_absorb_s - 1e-9)
        cand = self.unverified & hid & ~forced & still
        if forced.any():
            # joined to the hand still there: its fingertips on a disc leave the lattice in view
            _, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
            cand &= ~np.isin(lab, np.unique(lab[forced]))
        shows = seen_cells >= np.minimum(self.config.lattice.seen_above, self.start_seen + self.config.lattice.rise)
        # where the lattice cannot tell (a corner point's discs hide its two segments), a point
        # still for `absorb_s` that no arm at rest reaches is the board too
        settled = self._settled()
        if (cand & ~shows & settled).any():
            shows = shows | (settled & ~self._resting_arms(hid, frac, ring, edge))
        release = cand & ~ring & shows
        rest = hid & ~release
        ring_cand = self.unverified & hid & ring     # moving or not: the ring does not hold quiet
        if ring_cand.any():
            _, lab = cv2.connectedComponents(rest.astype(np.uint8), connectivity=8)
            held = np.unique(lab[rest & ~ring])
            release |= ring_cand & ~np.isin(lab, held)
        if release.any():
            # they stay unverified: a sleeve drawn slowly off a point may still have lain on part
            # of it, and the point is then released again once it departs from that and is still
            self._learn(release, feat)
        return hid & ~release

    def _settled(self) -> np.ndarray:
        """(GY, GX) cells that have not changed for `absorb_s` (and three frames)."""
        return (self.still >= 3) & (self.still_t >= self.config.absorb_s - 1e-9)

    def _hides_lattice(self, cells: np.ndarray, seen: np.ndarray) -> bool:
        """The region `cells` (GY, GX) hides the printed lattice on `min_region` of its points,
        as a palm does (`seen`: this frame's per-point lattice shares)."""
        pts = _points_from_cells(cells)
        return int((pts & (seen < self.config.lattice.covered_below)).sum()) >= self.config.lattice.min_region

    def _learn(self, cells: np.ndarray, feat: np.ndarray) -> None:
        """Take this frame's look of `cells` (GY, GX) as the background there."""
        assert self.bg is not None
        self.bg = np.where(_cells_to_pixels(cells)[..., None], feat, self.bg)

    def _ghosts(self, hid: np.ndarray, feat: np.ndarray, frac: np.ndarray, sigma: np.ndarray | None,
                keep: np.ndarray) -> np.ndarray:
        """Release hidden cells that look again as they did when the board was last quiet.

        Why: the running background can learn part of a hand or sleeve that lay still on the
        ring while the rest of it moved; once the hand has gone, the bare table there departs
        from that learnt hand and, reaching the ring, looks like an arm at rest that never
        settles, so the board stays 'busy' long after the move. A cell that shows what the
        board showed when it was last quiet holds nothing new: nothing is over it. (A hand
        resting on a point departs from that look; a piece moved away or put down does too and
        settles the usual way.) Only cells that depart clearly from the background (`on`) are
        such ghosts: a cell hidden for its weak departure beside a hand is the hand's edge.
        Moving cells and cells a start-up hand covers are kept. Returns the hidden cells left.

        The look when the board was last quiet may itself hold a hand: one resting still for
        `board_still_s` where its arm leaves the view is learnt with the rest of the board, and the
        board is 'quiet' for a moment after (a hand resting on a piece by the corner, its arm
        beyond the edge of the picture: when it leaves, the bare corner would hold the board busy
        to the end of the game, and what the hand did goes unseen). So cells that look
        as they did when the board was last quiet for `calm_look_s` at a stretch, as it is between
        moves, are ghosts too."""
        if self.quiet_look is None or self.bg is None or not hid.any():
            return hid
        back = _cell_fraction(_departure(feat, self.quiet_look, sigma) > 1.0) < self.config.off
        if self.calm_look is not None and self.calm_look is not self.quiet_look:
            back |= _cell_fraction(_departure(feat, self.calm_look, sigma) > 1.0) < self.config.off
        ghost = hid & back & (frac > self.config.on) & ~keep
        if not ghost.any():
            return hid
        self._learn(ghost, feat)
        self.hidden_cells &= ~ghost
        return hid & ~ghost

    def _bare_ring(self, hid: np.ndarray, feat: np.ndarray, frac: np.ndarray, ring: np.ndarray,
                   seen: "Callable[[], np.ndarray | None]") -> np.ndarray:
        """Release hidden ring cells that now look like the bare margin beside them, when the
        points they join show their lattice.

        Why: a piece taken off an edge point changes the ring cell beyond it for good (the disc
        and its shadow reached over the edge); joined to the emptied point it looks like an arm
        resting across the edge, which never settles (the board would never be quiet again). An
        arm or a sleeve does not look like the margin beside
        it, and a palm hides the lattice: the cells that look bare are released when what is left
        of the region on the ring is less than an arm at rest (`arm_cells`: the corner cell beyond
        an emptied corner point holds the board's corner and looks like no margin). Asked at most every `held_recheck_s`; cells still moving, regions held as faint
        arms and a start-up hand still over the points are left alone."""
        if self._t is None or self._t - self._bare_checked_t < self.config.held_recheck_s:
            return hid
        cand = hid & ring & self._settled() & ~self.held
        if not cand.any():
            return hid
        self._bare_checked_t = self._t
        _, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        means = feat[..., :3].reshape(GY, P, GX, P, 3).mean(axis=(1, 3))      # (GY, GX, 3)
        margin = ring & ~hid
        release = np.zeros_like(hid)
        for k in np.unique(lab[cand]):
            comp = lab == k
            if not (comp & ~ring).any() or (comp & ring & ~cand).any():
                continue      # a ring region alone holds no quiet up; one still moving is no ghost
            bare = np.zeros_like(hid)
            for y, x in np.argwhere(comp & ring):
                around = np.s_[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
                near = margin[around]
                if not near.any():
                    continue
                ref = np.median(means[around][near], axis=0)
                d = np.abs(means[y, x] - ref)
                if d[0] <= self.config.bare_bright and max(d[1], d[2]) <= self.config.bare_chroma:
                    bare[y, x] = True
            # the cells that do not look bare must be too little of the ring to be an arm at rest
            # (a corner cell holds the board's corner and looks like no margin beside it)
            if not bare.any() or float(frac[comp & ring & ~bare].sum()) >= self.config.arm_cells:
                continue
            got = seen()
            if got is None:
                return hid
            if not self._hides_lattice(comp, got):
                release |= bare
        if release.any():
            self._learn(release, feat)
            self.hidden_cells &= ~release
        return hid & ~release

    def _covered(self, seen_now: "Callable[[], np.ndarray | None]", feat: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
        """Inner cells a hand covers by the lattice check and each point's lattice share, both
        (GY, GX); None without a lattice.

        A region whose lattice is hidden is a hand only where its arm crosses the board's edge:
        some ring cell beside it looks unlike the rest of its side of the ring (`_odd_ring`), in
        its mean look and not just its grain, or like the hand itself (`_arm_crosses`).
        Glare washing out points by the edge hides the lattice there too, but the margin
        beyond it is the margin (a glare patch held as a hand from the first frame would keep the
        board from ever being quiet)."""
        seen = seen_now()
        if seen is None:
            return None
        cov = _cells_from_points(covered_at_start(seen, self.config.lattice), False)
        if cov.any():
            odd = _odd_ring(feat)
            n, lab = cv2.connectedComponents(cov.astype(np.uint8), connectivity=8)
            for k in range(1, n):
                comp = lab == k
                if not _arm_crosses(comp, feat, odd, self.config.crossing) or _along_side_file(comp):
                    cov &= ~comp
        # the points around a covered region are under the same hand's fingertips or edge, which
        # may rest on a disc and leave its lattice in view
        near = cv2.dilate(cov.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        near[:MARGIN], near[-MARGIN:], near[:, :MARGIN], near[:, -MARGIN:] = False, False, False, False
        return near, _cells_from_points(seen, np.inf)

    def update_rectified(self, rect: np.ndarray, t: float | None = None,
                         lattice: "Callable[[], np.ndarray] | np.ndarray | None" = None) -> HandState:
        """Process one rectified board image (`rectify`'s output) at video time `t` seconds.

        `lattice`: the per-point lattice check of the same frame (`lattice_seen`), or a callable
        giving it; it is asked for only at the start, while a hand seen at the start may still
        be in the background, and when a large region reaching the ring is about to settle.
        Without it a hand present from the first frame goes unseen."""
        self._n += 1
        t = self._n / 25.0 if t is None else float(t)
        dt = 0.0 if self._t is None else max(0.0, t - self._t)
        self._t = t
        feat = _features(rect)
        level = _level(rect)
        ring = np.ones((GY, GX), bool)
        ring[MARGIN:-MARGIN, MARGIN:-MARGIN] = False
        inner = ~ring
        forced = np.zeros((GY, GX), bool)    # a hand from the start, still over the points
        cache: list[np.ndarray] = []

        def seen_now() -> np.ndarray | None:
            """This frame's lattice check, made at most once and only when asked for."""
            if lattice is None:
                return None
            if not cache:
                cache.append(lattice() if callable(lattice) else np.asarray(lattice))
            return cache[0]

        seen_cells = np.full((GY, GX), np.inf)
        if self.bg is None:
            self.bg = feat.copy()
            self.prev = feat
            got = self._covered(seen_now, feat)
            if got is not None:
                # the background just learnt may hold a hand or an arm: the points it covers,
                # the ring cells it crosses and the points beside them are not the board until
                # they are seen to be
                forced, seen_cells = got
                self.start_seen = seen_cells.copy()
                grow = np.ones((3, 3), np.uint8)
                start = forced | (_odd_ring(feat) & ring)
                self.unverified = cv2.dilate(start.astype(np.uint8), grow).astype(bool)
                self.unverified |= cv2.dilate(self.unverified.astype(np.uint8), grow).astype(bool) & ring
                self.shown_s = 0.0
        elif (self.unverified & inner).any():     # the lattice has nothing to say about the ring
            got = self._covered(seen_now, feat)
            if got is not None:
                forced, seen_cells = got
                forced &= self.unverified
        assert self.prev is not None
        signed = feat - self.bg
        self.noise.observe(signed, level, ~_cells_to_pixels(self.hidden_cells))
        sigma = self.noise.sigma(level)
        dep = _judge(np.abs(signed), sigma)
        frac = _cell_fraction(dep > 1.0)
        edge = _outer_edge_fraction(dep > 1.0)
        step = np.abs(feat - self.prev)
        mov = _cell_fraction(_judge(step, sigma) > 1.0) > 0.08
        # what holds the board's quiet off: two frames' grain differ by sqrt(2) times one frame's
        # from the (averaged) background, so a noisy camera's grain alone stirs no cell
        stir = mov
        if sigma is not None and mov.any():
            stir = mov & (_cell_fraction(_judge(step, sigma * SQRT2) > 1.0) > 0.08)
        hid = np.where(self.hidden_cells, frac > self.config.off, frac > self.config.on) | forced
        # a weakly departing cell next to a clearly hidden one is hidden too (arm edges)
        strong = cv2.dilate(hid.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        hid = hid | (strong & (frac > 0.5 * self.config.off))
        self.still = np.where(mov, 0, self.still + 1)
        self.still_t = np.where(mov, 0.0, self.still_t + dt)
        hid = self._ghosts(hid, feat, frac, sigma, mov | forced)
        if (hid & ring).any() and not forced.any():
            hid = self._bare_ring(hid, feat, frac, ring, seen_now)
        if self.unverified.any():
            hid = self._reveal(hid, feat, frac, forced, seen_cells, ring, edge)
        self.hidden_cells = hid
        self.peak = np.where(hid, np.maximum(self.peak, frac), 0.0)
        ring_active = bool((hid & ring).any() or (mov & ring).any())
        settled = (self.still >= 3) & (self.still_t >= self.config.absorb_s)
        # An arm is a hidden region holding a ring cell that is clearly covered or moving: an
        # arm always crosses the ring to reach a point. A hand held still over the board stays
        # hidden however long it rests (`_resting_arms`, `_faint_arms`).
        _, lab = cv2.connectedComponents(hid.astype(np.uint8), connectivity=8)
        seeds = hid & ring & ((frac >= self.config.arm_frac) | mov)
        arms = [k for k in np.unique(lab[seeds]) if self._arm_like(lab == k, ring, frac, mov, settled, edge)]
        arm = np.isin(lab, arms) & hid if arms else np.zeros_like(hid)
        near_arm = cv2.dilate(arm.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        # absorb still, departed cells (a piece moved / a new piece) while the ring is clear;
        # when nothing at all has moved for a long while, absorb everything but a resting arm
        # (a captured piece left beside the board, a cup put down on the ring)
        resting = self._resting_arms(hid, frac, ring, edge)
        if (self.still >= 5).all() and (self.still_t >= self.config.board_still_s).all():
            absorb = hid & ~resting
        elif not ring_active:
            absorb = hid & settled
        else:
            # something is crossing the ring: only cells far from any hidden region settle
            busy = cv2.dilate((hid & ~settled).astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
            absorb = hid & settled & ~busy & ~near_arm & ~resting
        if self.config.clear_absorb_s < self.config.absorb_s:
            # A changed region that no arm reaches is not a hand: a piece put down, its
            # shadow. It settles as soon as it has stayed still for a moment, if it was
            # already changed while an arm was in view and outlived it (a piece cannot move
            # by itself: a still region that appeared with no arm seen is a hand whose arm
            # the ring missed).
            self.armed = hid & (self.armed | bool(seeds.any()))
            quick = (self.still >= 2) & (self.still_t >= self.config.clear_absorb_s - 1e-9) & ~near_arm & self.armed
            absorb = absorb | (hid & quick)
        absorb = (absorb | self._lifeless(hid, frac, ring)) & ~forced
        absorb |= self._left_behind(hid & ~forced, inner, arm, settled, frac)
        if absorb.any() or self.held.any():
            absorb &= ~self._faint_arms(hid, absorb, ring, seen_now, frac)
        if absorb.any():
            self._learn(absorb, feat)
            self.hidden_cells &= ~absorb
            hid = self.hidden_cells
        # slow drift of light where nothing is going on
        calm_px = _cells_to_pixels(~hid & ~mov).astype(np.float32)[..., None]
        self.bg += (self.config.adapt_rate * calm_px) * (feat - self.bg)
        self.prev = feat
        # quiet: no point hidden and nothing moving over the points. Mere movement out on the
        # ring (a shadow crossing the table edge) does not hold it up, nor something lying still
        # there (every point is in view); something covering the ring and moving (a hand
        # arriving) does
        if self.config.quiet_ring:
            # a hand arriving covers a good part of a ring cell within a frame; a soft shadow
            # drifting along the table edge departs only faintly and must not hold quiet off
            arriving = hid & ring & mov & (frac >= self.config.ring_hold_frac)
            active = bool((hid & inner).any() or (stir & inner).any() or arriving.any())
        else:
            active = bool(hid.any() or (stir & inner).any())
        if active:
            self.calm, self.calm_t = 0, 0.0
        else:
            self.calm, self.calm_t = self.calm + 1, self.calm_t + dt
        quiet = self.calm >= 2 and self.calm_t >= self.config.quiet_s - 1e-9
        if quiet:
            self.quiet_look = self.bg.copy()
            self._relearnt_after_knock = False
            self.shown_s += dt
            self.calm_view_t += dt
            if self.calm_view_t >= self.config.calm_look_s - 1e-9:
                self.calm_look = self.quiet_look
        else:
            self.calm_view_t = 0.0
        # the board has shown itself everywhere since the start: quiet for board_still_s at a stretch,
        # or in all (glare drifting over the board stirs a cell now and then and breaks every
        # stretch, while a hand there from the start keeps it from being quiet at all: glare
        # washing out the lattice would be taken for a start-up hand again and again, for the
        # whole game, the board quiet for under a second at a time)
        if self.unverified.any() and not forced.any() and max(self.calm_t, self.shown_s) >= self.config.board_still_s:
            self.unverified[:] = False
        self.last_state = HandState(hidden=_points_from_cells(hid), quiet=quiet,
                                    moving=_points_from_cells(mov), ring_active=ring_active,
                                    cell_score=_points_from_cells(frac))
        return self.last_state

    def board_verified(self) -> bool:
        """Every cell of the background has been seen as the board: no hand or glare from the
        start, and no knock being learnt again, in doubt (what is hidden now is something that
        came over a board seen bare)."""
        return self.bg is not None and not self.unverified.any()

    def can_idle(self) -> bool:
        """The state allows `idle`: the last frame looked at was quiet, with nothing hidden, held,
        unverified or moving, and the camera at rest."""
        last = self.last_state
        return not (last is None or not last.quiet or self.bg is None or self._t is None
                    or self._bumped_from is not None or self.hidden_cells.any() or self.unverified.any()
                    or self.held.any() or last.moving.any())

    def idle(self, t: float) -> HandState | None:
        """A frame the caller has found unchanged from the last one this detector saw (vision's
        static-frame check), at video time `t`: on a quiet board with nothing held, hidden or
        unverified, every cell stays still and the board quiet, so only the clocks run on, as
        `update_rectified` would run them on such a frame (the background's slow drift and the
        noise estimate wait for the next frame looked at). None where the state needs a frame
        looked at (the caller then calls `update`)."""
        if not self.can_idle():
            return None
        last = self.last_state
        assert last is not None and self._t is not None
        dt = max(0.0, float(t) - self._t)
        self._n += 1
        self._t = float(t)
        self.still += 1
        self.still_t += dt
        self.calm, self.calm_t = self.calm + 1, self.calm_t + dt
        self.shown_s += dt
        self.calm_view_t += dt
        if self.calm_view_t >= self.config.calm_look_s - 1e-9:
            self.calm_look = self.quiet_look
        return last
