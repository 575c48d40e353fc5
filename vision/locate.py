"""Find the 9x10 Xiangqi lattice in a photo or frame, with no markers.

Why this way: the drawn lines are the one thing every board shares (wood, mat, plastic, paper),
but pieces cover most intersections and much of each line. So we collect line-segment evidence
(LSD), group it into the two dominant line families by their vanishing points, undo the
perspective (vanishing points to infinity, families to the axes) so the lattice becomes two
1-D combs of equally spaced lines, fit 9- and 10-tooth combs (and, when those find no clear
board, each family's combs again within the stretch one of the other family's combs spans: a
tiled floor's long lines can out-comb the board's own; then all of it again with each family's
members taken from a wider angle band: a steep view fans a family out; then both bands again with
coarser combs: the discs' rims out-comb a steep board's broken lines), and verify every candidate
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

Every threshold of these steps is a field of `LocateConfig` (one nested group per step, each
field with its unit); the entry points take one, `DEFAULT_LOCATE` by default.

Cost: a board that shows itself clearly is found in one pass; one that does not (a steep or
side view scoring under `clear_board`) takes every pass and look, hundreds of refinements. So
the steps are computed in bulk, with the same numbers as their plain forms (the ridge profiles
of `lines.RidgeProfiles`, the comb grid's tooth sums and a heap walk over its candidates instead
of a sort of all of them), and a search computes each step once per exact input (`_Memo`: the
passes propose many lattices again).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator, TypeVar

import cv2
import numpy as np

from . import geometry as geo
from .geometry import CheckedSettings
from .lines import DEFAULT_RIDGE, RidgeConfig, RidgeProfiles, centre_strengths, image_normals, line_width_px, measure
from .observation import BoardPose


# ----------------------------------------------------------------------------- settings
# Every threshold that steers the finder, with its unit. Numerical guards (1e-12 against a
# division by zero) and plain arithmetic (a midpoint's 0.5) stay in the code. The defaults are
# the figures the finder was tuned to on the sim renders and the real photos.

@dataclass(frozen=True)
class LsdLook(CheckedSettings):
    """One look for line segments: the resolution LSD runs at and its own smoothing."""

    max_px: int     # longest image side LSD runs at (px); a larger image is shrunk first
    scale: float    # LSD's Gaussian down-scaling (OpenCV's default 0.8; lower: less smoothing, cheaper)


@dataclass(frozen=True)
class RefinePass(CheckedSettings):
    """One use of `refine`: how wide it searches for the ridges and for how many rounds."""

    search_frac: float  # ridge search half-width, fraction of the point spacing (narrowed once settled)
    rounds: int         # rounds after the lattice has settled
    step: float = 0.1   # step between line samples along each unit segment (spacings)
    extra: int = 2      # further rounds allowed while the lattice is still moving


@dataclass(frozen=True)
class SegmentConfig(CheckedSettings):
    """Line segments (LSD) and how much each looks like a thin drawn line rather than a step edge."""

    clahe_clip: float = 2.0          # CLAHE contrast limit before LSD (OpenCV's clip-limit units)
    clahe_tiles: int = 8             # CLAHE tiles per image side
    min_length_px: float = 8.0       # shortest segment kept (working px) ...
    min_length_frac: float = 0.008   # ... or this fraction of the longest image side, if longer
    min_segments: int = 20           # fewer segments than this: no lattice is searched for
    ridge_width_px: int = 2          # line width assumed when testing a segment for a ridge (working px)
    ridge_places: tuple[float, ...] = (0.25, 0.5, 0.75)  # where along a segment it is tested (fractions of its length)
    ridge_reach_px: int = 3          # how far across the segment the ridge may sit (px: LSD sits on the line's flank)
    ridge_full_contrast: float = 12.0  # ridge contrast (grey levels) that gives a segment full weight
    ridge_min_weight: float = 0.05   # weight left to a segment with no ridge at all (a step edge)


@dataclass(frozen=True)
class FamilyConfig(CheckedSettings):
    """The two line families: peaks of the segment-angle histogram, their vanishing points."""

    angle_blur_deg: float = 2.0      # Gaussian sigma smoothing the segment-angle histogram (degrees)
    angle_kernel_deg: int = 6        # half-width of that smoothing kernel (degrees)
    max_peaks: int = 7               # angle peaks considered
    min_peak_share: float = 0.05     # a peak must reach this share of the highest one
    peak_exclusion_deg: int = 12     # angles within this of a chosen peak are not further peaks (degrees)
    min_pair_angle_deg: float = 30.0  # two peaks closer than this are not the two families (degrees)
    pairs_tried: int = 8             # peak pairs tried, strongest first
    member_band_deg: float = 15.0    # a segment within this of the peak belongs to its family (degrees)
    wide_band_deg: float = 25.0      # ... within this, searched again when no clear board was found (degrees)
    min_members: int = 6             # segments a family needs for a vanishing point
    vp_tol_px: float = 1.2           # a segment agrees with a vanishing point within this (working px)
    vp_draws: int = 150              # RANSAC segment pairs drawn per vanishing point
    vp_polish_rounds: int = 5        # weighted least-squares rounds on the inliers
    weight_cap: float = 8.0          # a segment's comb weight is capped at this many times its family's median
    combs_per_count: int = 2         # comb candidates kept per family and tooth count (9 or 10)
    window_margin: float = 0.5       # a family is combed again within the other's comb widened this many spacings


@dataclass(frozen=True)
class CombConfig(CheckedSettings):
    """Equally spaced combs through 1-D line positions (a family seen with its perspective undone)."""

    bins: int = 500                  # histogram bins over the span of the positions
    span_percentile: float = 0.5     # the span runs from this percentile of the positions to 100 minus it (%)
    span_margin: float = 0.02        # ... widened by this fraction of itself on each side
    coarse_blur_bins: float = 2.5    # histogram blur of the coarse pass (bins): tolerates vanishing-point error
    fine_blur_bins: float = 1.2      # histogram blur of the polish (bins)
    max_spacings: int = 60           # the finest comb tried has this many spacings across the span
    coarse_max_spacings: int = 30    # ... and, searched again when no clear board was found, this many (a board spans a good part of its lines)
    spacing_step: float = 0.02       # coarse step between spacings (natural-log units: 2 %)
    offset_step_bins: float = 2.0    # coarse step between offsets (bins)
    picks_per_spacing: int = 6       # best offsets per spacing that compete for the picks
    same_spacing: float = 0.04       # two combs are one when their spacings differ by at most this fraction ...
    same_offset: float = 0.3         # ... and their offsets by at most this many spacings
    polish_spacings: tuple[float, float] = (0.97, 1.03)  # polish range of spacings, times the coarse spacing
    polish_spacing_steps: int = 25   # ... tried in this many steps
    polish_offset_bins: float = 4.0  # polish range of offsets, +- bins round the coarse offset ...
    polish_offset_step_bins: float = 0.5  # ... in steps of this many bins


@dataclass(frozen=True)
class VerifyConfig(CheckedSettings):
    """The image test of a lattice: its lines present, the river blank, nothing past its edges."""

    min_spacing_px: float = 6.0      # a lattice whose points are closer than this (px) is not judged
    sample_step: float = 0.2         # step between line samples along each unit segment (spacings)
    sample_lo: float = 0.3           # samples run from this fraction of each segment ...
    sample_hi: float = 0.7           # ... to this one (away from the intersections pieces hide)
    tol_frac: float = 0.03           # a ridge this close to its line (fraction of a spacing) counts ...
    coarse_tol_frac: float = 0.1     # ... at the first look at a comb hypothesis (which knows the lattice roughly)
    min_tol_px: float = 1.5          # ... and never closer than this (px)
    line_contrast: float = 5.0       # ridge contrast (grey levels) that counts as a drawn line
    line_present: float = 0.15       # a lattice line shows when this fraction of its samples has a ridge
    river_penalty: float = 0.5       # score lost per unit of the fraction of river samples that show a line
    extension_penalty: float = 0.5   # score lost per unit of the fraction of samples past the edges that show a line
    extension_reach: tuple[float, ...] = (0.4, 0.6)  # where the lines' continuations are tested (spacings past the edge)


@dataclass(frozen=True)
class SearchConfig(CheckedSettings):
    """Which comb hypotheses are refined and judged, and when the search stops."""

    min_rough_score: float = 0.1     # hypotheses scoring below this at the first look are dropped
    rough_board_like: float = 0.45   # a first-look score from which the best looks like a board ...
    keep_close: float = 0.75         # ... and then only runners-up within this share of it are refined
    keep_far: float = 0.5            # runners-up within this share are refined while the best does not look like one
    refined: int = 3                 # first-look hypotheses refined per peak pair
    judged: int = 2                  # refined ones given the full refinement and the window search
    clear_board: float = 0.45        # a judged score from which it is clearly a board: no runner-up is tried
    rough: RefinePass = RefinePass(0.15, 1, step=0.2, extra=1)  # the quick pull onto nearby ridges
    strict: RefinePass = RefinePass(0.12, 3)                   # the full refinement before the window search


@dataclass(frozen=True)
class LineRefineConfig(CheckedSettings):
    """`refine`: the rounds of measuring the ridges and refitting the lattice to them."""

    min_search_px: float = 2.0       # ridge search half-width never below this (px)
    min_lines: int = 3               # distinct lines per direction a fit needs
    fit_iters: int = 3               # robust line-fit iterations per round
    residual_cap: float = 0.3        # a sample's residual counts up to this in its line's mean (spacings)
    off_line: float = 0.05           # a line whose mean residual exceeds this (spacings) ...
    off_line_factor: float = 3.0     # ... and this many times the median line's is pulled onto something else
    max_off_lines: int = 3           # more lines off than this: the fit is wrong, not the lines; none dropped
    settled_frac: float = 0.04       # settled: the ridges' median shift is below this fraction of a spacing
    narrow: float = 0.6              # once settled the search half-width shrinks by this factor a round ...
    min_search_frac: float = 0.05    # ... down to this fraction of a spacing
    settled_px: float = 0.15         # a median shift below this (px) ends the refinement


@dataclass(frozen=True)
class WindowConfig(CheckedSettings):
    """The 9x10 window slid over the refined lattice extended by a few lines."""

    reach: int = 4                   # lines the lattice is extended by on every side
    places: tuple[float, ...] = (0.35, 0.5, 0.65)  # sample places along each unit segment (fractions)
    refine: RefinePass = RefinePass(0.1, 2)       # refinement of a window other than the one started from


@dataclass(frozen=True)
class EdgeConfig(CheckedSettings):
    """The check for an edge line locked onto a board frame beside it (stretching the lattice)."""

    below_score: float = 0.7         # only fits scoring below this are checked (a clear fit has nothing to undo)
    search_frac: float = 0.06        # ridge search half-width of the screen (fraction of a spacing) ...
    min_search_px: float = 2.0       # ... and at least this (px)
    min_samples: int = 3             # ridge samples an edge line needs to be judged
    min_lines: int = 3               # inner lines per direction the fit without it needs
    fit_iters: int = 2               # robust line-fit iterations of that fit
    max_offset: float = 0.02         # an edge ridge further than this (spacings) off the inner lines' lattice is suspect
    min_gain: float = 0.01           # a refit without the suspect must beat the score by this to be kept
    refit: RefinePass = RefinePass(0.06, 2, step=0.2, extra=0)   # refit without the suspect line
    polish: RefinePass = RefinePass(0.04, 1, step=0.2, extra=0)  # then with it again


@dataclass(frozen=True)
class RedConfig(CheckedSettings):
    """Red ink on a point, for orienting the board when no piece readings decide it."""

    hue_max: int = 7                 # red: OpenCV hue (0..179) at most this ...
    hue_min: int = 165               # ... or at least this (the orange of wood, ~10-25, is not red)
    min_saturation: int = 90         # ... with saturation at least this (0..255)
    min_value: int = 60              # ... and value at least this (0..255)
    disc_radius: float = 0.32        # red is counted in a circle of this radius round each point (cell widths)
    empty_percentile: float = 30.0   # the typical empty point's red: this percentile over all points (%)
    palace_weight: float = 2.0       # a palace point's red counts this many times (generals and advisors live there)


@dataclass(frozen=True)
class LocateConfig(CheckedSettings):
    """Every threshold of the board finder (`find_lattice`, `locate`), with its unit."""

    work_max_px: int = 1000          # working resolution: longest image side the search runs at (px)
    min_image_px: int = 60           # an image whose shorter side is below this (px) cannot hold a readable board
    gray_weights_bgr: tuple[float, float, float] = (0.25, 0.6, 0.15)  # B, G, R weights of the grey image (red ink stays dark)
    first_look: LsdLook = LsdLook(720, 0.7)    # segments at a modest resolution, light smoothing (LSD is the costliest step)
    fine_look_scale: float = 0.8     # LSD smoothing of the second look, at the working resolution
    coarse_look: LsdLook = LsdLook(640, 0.8)   # the last look, only when nothing passed: boards LSD breaks up
    fine_look_below_score: float = 0.55  # a fit scoring below this gets the second, finer look ...
    fine_look_below_spacing_px: float = 22.0  # ... as does one whose points are closer than this at the first look's resolution (px)
    min_search_score: float = 0.3    # a search result below this score is not finished
    min_support: float = 0.5         # fraction of a lattice's line samples that must show a line, working and full resolution
    full_res: RefinePass = RefinePass(0.04, 2)  # the last refinement, at full resolution
    segments: SegmentConfig = SegmentConfig()
    families: FamilyConfig = FamilyConfig()
    comb: CombConfig = CombConfig()
    verify: VerifyConfig = VerifyConfig()
    search: SearchConfig = SearchConfig()
    refine: LineRefineConfig = LineRefineConfig()
    window: WindowConfig = WindowConfig()
    edge: EdgeConfig = EdgeConfig()
    red: RedConfig = RedConfig()
    ridge: RidgeConfig = DEFAULT_RIDGE


DEFAULT_LOCATE = LocateConfig()


class BoardNotFoundError(RuntimeError):
    """No Xiangqi board could be found in the image."""


@dataclass
class LatticeFit:
    """A located lattice before orientation by colour."""

    homography: np.ndarray  # board -> full-resolution image
    support: float          # fraction of visible line samples with a ridge (0..1)
    river_clear: float      # fraction of river samples WITHOUT a ridge (0..1)
    polarity: int           # 1 dark lines, -1 light lines
    score: float            # the image test's score (`Verification.score`)
    # found by a later pass of the search only: the first pass's lattice, finished the same way
    # (locate_and_read keeps the one that reads more pieces surely)
    runner_up: "LatticeFit | None" = None


@dataclass(frozen=True)
class Verification:
    """The image test of one lattice hypothesis (`_verify`)."""

    score: float       # support x (share of lines present)^2 x river term - extension term; -1: not judged
    polarity: int      # 1 dark lines, -1 light lines: the one that scored best
    support: float     # fraction of the line samples with a ridge (0..1)
    river_clear: float  # fraction of river samples WITHOUT a ridge (0..1)


NOT_JUDGED = Verification(-1.0, 1, 0.0, 0.0)


@dataclass(frozen=True)
class LatticeCandidate:
    """A lattice hypothesis and how the image judged it, in the search's working image."""

    score: float
    homography: np.ndarray  # board -> working image
    polarity: int           # 1 dark lines, -1 light lines
    support: float          # fraction of the line samples with a ridge (0..1)
    # found by a later search pass (_search): the first pass's best, another lattice, which the
    # caller may still prefer by what it reads on each
    runner_up: "LatticeCandidate | None" = None


@dataclass(frozen=True)
class Comb:
    """An equally spaced comb of lines through 1-D positions (units of the positions)."""

    offset: float   # position of the first tooth
    spacing: float  # distance between teeth
    score: float    # sum over the teeth of sqrt(support)


@dataclass(frozen=True)
class LineFamily:
    """Segments converging on one vanishing point."""

    vanishing_point: np.ndarray  # homogeneous, normalised image coordinates
    members: np.ndarray          # indices of the member segments


# ----------------------------------------------------------------------------- preparation
def to_gray(image: np.ndarray, config: LocateConfig = DEFAULT_LOCATE) -> np.ndarray:
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
    return cv2.transform(image, np.array([config.gray_weights_bgr], dtype=np.float32)).astype(np.uint8, copy=False) \
        if image.dtype == np.uint8 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _segments(gray: np.ndarray, look: LsdLook, cfg: SegmentConfig) -> np.ndarray:
    """Line segments (N, 4) x1 y1 x2 y2 (in `gray` pixels) from LSD on a contrast-normalised image."""
    clahe = cv2.createCLAHE(clipLimit=cfg.clahe_clip, tileGridSize=(cfg.clahe_tiles, cfg.clahe_tiles))
    k = min(1.0, look.max_px / max(gray.shape))
    g = cv2.resize(gray, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else gray
    g = clahe.apply(g)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD, look.scale)
    segs = lsd.detect(g)[0]
    if segs is None:
        return np.zeros((0, 4))
    # pixel centres: u_small = (u + 0.5) * k - 0.5
    segs = (segs.reshape(-1, 4).astype(np.float64) + 0.5) / k - 0.5
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    return segs[length >= max(cfg.min_length_px, cfg.min_length_frac * max(gray.shape))]


def _ridge_weight(gray: np.ndarray, segs: np.ndarray, cfg: SegmentConfig) -> np.ndarray:
    """Per segment, how much it looks like a thin drawn line (0.05..1) rather than a step edge.

    LSD reports edges; board lines are ridges (darker or lighter than BOTH sides), while table
    edges, tiles, gingham and paper borders are steps. Profiles across three places of each
    segment are tested for a ridge within a few pixels (LSD sits on the line's flank).
    """
    n = len(segs)
    if n == 0:
        return np.zeros(0)
    w = cfg.ridge_width_px
    t = np.array(cfg.ridge_places)
    nt = len(t)
    p = segs[:, None, 0:2] * (1 - t)[None, :, None] + segs[:, None, 2:4] * t[None, :, None]  # (n,3,2)
    d = segs[:, 2:4] - segs[:, 0:2]
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-12
    u = np.c_[-d[:, 1], d[:, 0]]
    reach = cfg.ridge_reach_px
    half = reach + 3 * w + 1
    o = np.arange(-half, half + 1, dtype=np.float64)[:, None]
    # one column a profile (positions x profiles): RidgeProfiles' layout
    mx = (p[:, :, 0].reshape(1, -1) + np.repeat(u[:, 0], nt)[None, :] * o).astype(np.float32)
    my = (p[:, :, 1].reshape(1, -1) + np.repeat(u[:, 1], nt)[None, :] * o).astype(np.float32)
    rp = RidgeProfiles.from_maps(gray, mx, my, p.reshape(-1, 2), np.repeat(u, nt, axis=0), w, off_image=False)
    # the window of +-reach px about the segment: valid rows 1 .. 2 reach + 1 (position = row + 3w)
    r = np.maximum(rp.valid(1)[1:2 * reach + 2].max(axis=0), rp.valid(-1)[1:2 * reach + 2].max(axis=0))
    r = np.median(np.where(np.isfinite(r), r, 0.0).reshape(n, nt), axis=1)
    return np.clip(r / cfg.ridge_full_contrast, cfg.ridge_min_weight, 1.0)


# ----------------------------------------------------------------------------- vanishing points
def _hom_lines(segs: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Homogeneous image lines (N, 3) through the segments, in the coordinates `norm` maps to."""
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
            rng: np.random.Generator, cfg: FamilyConfig) -> tuple[np.ndarray, np.ndarray]:
    """RANSAC + least squares vanishing point of a family of segments. Returns (v, inlier mask)."""
    iters = cfg.vp_draws
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
    for _ in range(cfg.vp_polish_rounds):
        inl = _vp_error(segs_n, v) < tol
        if inl.sum() < 2:
            break
        dist = np.linalg.norm(v[None, :2] - v[2] * mids[inl], axis=1) + 1e-9
        a = lines[inl] * (w[inl] / dist)[:, None]
        v = np.linalg.eigh(a.T @ a)[1][:, 0]
    return v, _vp_error(segs_n, v) < tol


# ----------------------------------------------------------------------------- combs
def _comb_candidates(pos: np.ndarray, wt: np.ndarray, teeth: tuple[int, ...] = (9, 10),
                     top: int = 4, cfg: CombConfig = DEFAULT_LOCATE.comb) -> dict[int, list[Comb]]:
    """Best equally spaced combs of n lines through 1-D weighted line positions, for each n in `teeth`.

    Returns {n: [Comb]} in the units of `pos`, best first. The score sums sqrt(support)
    per tooth, so many moderately supported teeth beat one strong table edge. One pass over the
    (spacing, offset) grid serves every n: the n-tooth score is a partial sum of the longest comb.
    """
    out: dict[int, list[Comb]] = {n: [] for n in teeth}
    if len(pos) < 3:
        return out
    lo, hi = np.percentile(pos, [cfg.span_percentile, 100 - cfg.span_percentile])
    span = hi - lo
    if span <= 0:
        return out
    bins = cfg.bins
    lo -= cfg.span_margin * span
    hi += cfg.span_margin * span
    scale = bins / (hi - lo)
    raw = np.bincount(np.clip(((pos - lo) * scale).astype(int), 0, bins - 1), weights=wt, minlength=bins)
    n_max = max(teeth)

    def prep(sigma: float) -> np.ndarray:
        h = cv2.GaussianBlur(raw.reshape(1, -1).astype(np.float64), (0, 0), sigma).ravel()
        h = np.sqrt(h / (h.max() + 1e-12))
        return np.concatenate([h, np.zeros(2 * bins + 2)]).astype(np.float32)

    # coarse: every spacing (2 % steps) and every other offset bin on a blurred histogram
    # (tolerates vanishing-point error; teeth rounded to whole bins, well inside the blur);
    # the fine pass below polishes to half a bin
    coarse = prep(cfg.coarse_blur_bins)
    grid = _comb_grid(bins, cfg.max_spacings, cfg.spacing_step, cfg.offset_step_bins, min(teeth), n_max)
    spacings, offs = grid.spacings, grid.offsets
    # the n-tooth score of every (spacing, offset): its teeth's values added one tooth at a time,
    # in float32 (the order of a running sum along the teeth)
    tooth_sums: dict[int, np.ndarray] = {}
    acc: np.ndarray | None = None
    for t in range(n_max):
        tooth = np.take(coarse, grid.tooth_bins[t])
        acc = tooth if acc is None else acc + tooth
        if t + 1 in teeth:
            tooth_sums[t + 1] = acc
    fine = prep(cfg.fine_blur_bins)
    for n in teeth:
        sc = tooth_sums[n].copy()
        sc[grid.past_end(n)] = -1
        picked: list[Comb] = []
        for o, s_, score in _best_first(sc, offs, spacings, cfg.picks_per_spacing):
            if all(abs(s_ - q.spacing) > cfg.same_spacing * q.spacing
                   or abs(o - q.offset) > cfg.same_offset * q.spacing for q in picked):
                picked.append(Comb(o, s_, score))
            if len(picked) >= top:
                break
        if not picked:
            continue
        # fine: polish each pick locally on a sharp histogram (all picks in one array pass)
        spacing_steps, offset_steps = _polish_steps(cfg.polish_spacings, cfg.polish_spacing_steps,
                                                    cfg.polish_offset_bins, cfg.polish_offset_step_bins)
        ss = np.stack([c.spacing * spacing_steps for c in picked])
        oo = np.stack([c.offset + offset_steps for c in picked])
        t_ = oo[:, None, :, None] + ss[:, :, None, None] * np.arange(n)[None, None, None, :]
        ti = np.minimum(t_.astype(np.int32), 3 * bins)
        fr = (t_ - ti).astype(np.float32)
        f = (fine[ti] * (1 - fr) + fine[ti + 1] * fr).sum(axis=3)    # (picks, spacings, offsets)
        f[(oo[:, None, :] < 0) | (oo[:, None, :] + ss[:, :, None] * (n - 1) >= bins)] = -1
        for q in range(len(picked)):
            i, j = np.unravel_index(int(np.argmax(f[q])), f[q].shape)
            out[n].append(Comb(float(oo[q, j]) / scale + lo, float(ss[q, i]) / scale, float(f[q, i, j])))
    return out


@dataclass(frozen=True, eq=False)   # (hashed by identity: one per settings, cached)
class _CombGrid:
    """The coarse comb grid of `_comb_candidates` for one set of settings: spacings (bins, 2 %
    steps), offsets (bins) and, per tooth, the histogram bin each (spacing, offset) puts it in."""

    bins: int
    spacings: np.ndarray    # (S,)
    offsets: np.ndarray     # (O,)
    tooth_bins: tuple[np.ndarray, ...]   # per tooth t: (S, O) bin indices (int64, past the end: the zero padding)

    def past_end(self, n: int) -> np.ndarray:
        """(S, O): the n-tooth combs whose last tooth falls past the histogram, or whose spacing
        leaves no room for n teeth."""
        return _comb_past_end(self, n)


@lru_cache(maxsize=16)
def _comb_grid(bins: int, max_spacings: float, spacing_step: float, offset_step: float, min_teeth: int,
               n_max: int) -> _CombGrid:
    """The coarse comb grid (cached: a search combs hundreds of times with the same settings)."""
    spacings = np.exp(np.arange(np.log(bins / max_spacings), np.log(bins / (min_teeth - 1)), spacing_step))
    offs = np.arange(0, bins, offset_step)
    steps = np.rint(spacings[:, None] * np.arange(n_max)[None, :]).astype(np.int32)   # (spacings, teeth)
    ti = offs.astype(np.int32)[None, :, None] + steps[:, None, :]
    idx = np.minimum(ti, 3 * bins).astype(np.int64)
    teeth = tuple(np.ascontiguousarray(idx[:, :, t]) for t in range(n_max))
    for a in (spacings, offs) + teeth:
        a.setflags(write=False)
    return _CombGrid(bins, spacings, offs, teeth)


@lru_cache(maxsize=32)
def _comb_past_end(grid: _CombGrid, n: int) -> np.ndarray:
    out = (grid.offsets[None, :] + grid.spacings[:, None] * (n - 1) >= grid.bins) | \
        (grid.spacings[:, None] > grid.bins / (n - 1))
    out.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def _polish_steps(spacings: tuple[float, float], spacing_steps: int, offset_bins: float,
                  offset_step: float) -> tuple[np.ndarray, np.ndarray]:
    """The polish's grid about a coarse comb: spacing factors and offset shifts (bins)."""
    out = (np.linspace(*spacings, spacing_steps), np.arange(-offset_bins, offset_bins + 0.01, offset_step))
    for a in out:
        a.setflags(write=False)
    return out


def _best_first(sc: np.ndarray, offs: np.ndarray, spacings: np.ndarray,
                npick: int) -> Iterator[tuple[float, float, float]]:
    """The coarse comb candidates (offset, spacing, score) best first: of each spacing (row of
    `sc`) the `npick` best offsets (np.argpartition's), those scoring above 0; equal scores in
    row order, then in argpartition's order. The caller takes only the first few, so rows are
    partitioned only as the walk reaches their best score (a heap merge), not all of them."""
    rowmax = sc.max(axis=1)
    rows = [int(i) for i in np.argsort(-rowmax, kind="stable") if rowmax[i] > 0]
    heap: list[tuple[float, int, int, int]] = []   # (-score, row, place among its picks, offset index)
    nxt = 0
    while True:
        # open every row whose best could come before (or tie with) the best waiting candidate
        while nxt < len(rows) and (not heap or float(rowmax[rows[nxt]]) >= -heap[0][0]):
            si = rows[nxt]
            nxt += 1
            row = sc[si]
            for j, k in enumerate(np.argpartition(-row, npick)[:npick].tolist()):
                v = float(row[k])
                if v > 0:
                    heapq.heappush(heap, (-v, si, j, k))
        if not heap:
            return
        neg, si, _, k = heapq.heappop(heap)
        yield float(offs[k]), float(spacings[si]), -neg


# ----------------------------------------------------------------------------- verification
_Num = TypeVar("_Num", float, np.ndarray)


def _lattice_score(sup: _Num, lines_ok: _Num, river_line: _Num, ext_line: _Num, cfg: VerifyConfig) -> _Num:
    """The lattice test's score from its parts (floats, or arrays of them for many windows at once).

    support x (share of the 19 lines present)^2, lowered by lines in the river and by lines
    continuing past the edges (a lattice shifted onto a frame or a tiled floor shows both).
    """
    return sup * lines_ok ** 2 * (1.0 - cfg.river_penalty * river_line) - cfg.extension_penalty * ext_line


@lru_cache(maxsize=8)
def _verify_samples(coarse: bool, cfg: VerifyConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Samples of a lattice test: (points, normals, line ids of the first n1, n1, n2).

    [0, n1): the lattice segments; [n1, n2): the river between the inner files; [n2, ...):
    the lines' continuations past the edges. Coarse: one sample mid-segment.
    """
    step = 0.0 if coarse else cfg.sample_step
    pts, nrm, ids = geo.lattice_segments(step=step, lo=cfg.sample_lo, hi=cfg.sample_hi)
    rpts, rnrm, _ = geo.lattice_segments(step=step, lo=cfg.sample_lo, hi=cfg.sample_hi, include_river=True)
    ext, enrm = _extension_samples(cfg.extension_reach)
    n1, n2 = len(pts), len(pts) + len(rpts)
    allp, alln = np.concatenate([pts, rpts, ext]), np.concatenate([nrm, rnrm, enrm])
    for a in (allp, alln):
        a.setflags(write=False)   # (cached: shared by every test of a lattice)
    return allp, alln, ids, n1, n2


def _verify(gray: np.ndarray, h: np.ndarray, polarity: int | None = None, coarse: bool = False,
            config: LocateConfig = DEFAULT_LOCATE) -> Verification:
    """Judge a lattice hypothesis in the image; `polarity` None tries dark and light lines.

    `coarse`: the first look at a comb hypothesis (one sample mid-segment, a wider tolerance).
    """
    cfg = config.verify
    sp = geo.point_spacing_px(h)
    if not np.isfinite(sp) or sp < cfg.min_spacing_px:
        return NOT_JUDGED
    c = geo.apply_h(h, geo.CORNERS)
    if not np.all(np.isfinite(c)):
        return NOT_JUDGED
    w = line_width_px(sp, config.ridge)
    allp, alln, ids, n1, n2 = _verify_samples(coarse, cfg)
    tol = max(cfg.min_tol_px, (cfg.coarse_tol_frac if coarse else cfg.tol_frac) * sp)
    best = NOT_JUDGED
    thr = cfg.line_contrast
    pols = (1, -1) if polarity is None else (polarity,)
    for pol, cs in zip(pols, centre_strengths(gray, h, allp, alln, tol, w, pols, tol, config.ridge)):
        hit_all = cs >= thr
        hit = hit_all[:n1]
        sup = float(np.mean(hit))
        # every one of the 19 lines must show somewhere: an extrapolated, empty line is the
        # typical wrong hypothesis (lattice shifted by one onto a frame or a table edge)
        per_line = np.bincount(ids, weights=hit, minlength=19) / np.maximum(np.bincount(ids, minlength=19), 1)
        lines_ok = float(np.mean(per_line >= cfg.line_present))
        river_line = float(np.mean(hit_all[n1:n2]))
        ext_line = float(np.mean(hit_all[n2:]))
        score = _lattice_score(sup, lines_ok, river_line, ext_line, cfg)
        if score > best.score:
            best = Verification(score, pol, sup, 1.0 - river_line)
    return best


def _verify_coarse_many(gray: np.ndarray, hs: list[np.ndarray],
                        config: LocateConfig = DEFAULT_LOCATE) -> list[Verification]:
    """`_verify(gray, h, coarse=True)` for many hypotheses in one sampling pass (one remap, one
    ridge response per polarity): the first look at every comb hypothesis, where per-call
    overhead dominated. Profiles share the longest length; only the window at each sample's
    centre counts, so the verdicts are those of `_verify` (bar samples whose longer profile
    runs off the image: no evidence either way).
    """
    cfg = config.verify
    out = [NOT_JUDGED] * len(hs)
    allp, alln, ids, n1, n2 = _verify_samples(True, cfg)
    cnt_line = np.maximum(np.bincount(ids, minlength=19), 1)
    groups: dict[int, list[tuple[int, np.ndarray, int]]] = {}  # line width -> (index, h, centre window)
    for k, h in enumerate(hs):
        sp = geo.point_spacing_px(h)
        if not np.isfinite(sp) or sp < cfg.min_spacing_px or not np.all(np.isfinite(geo.apply_h(h, geo.CORNERS))):
            continue
        groups.setdefault(line_width_px(sp, config.ridge), []).append(
            (k, h, int(np.ceil(max(cfg.min_tol_px, cfg.coarse_tol_frac * sp)))))
    for w, members in groups.items():
        t_max = max(t for _, _, t in members)
        half = t_max + 3 * w + 1
        normals = [image_normals(h, allp, alln, config.ridge) for _, h, _ in members]
        c = np.concatenate([cn for cn, _ in normals])
        u = np.concatenate([un for _, un in normals])
        s_ = np.arange(-half, half + 1, dtype=np.float64)[:, None]
        mx = (c[None, :, 0] + u[None, :, 0] * s_).astype(np.float32)   # positions x samples of all members
        my = (c[None, :, 1] + u[None, :, 1] * s_).astype(np.float32)
        rp = RidgeProfiles.from_maps(gray, mx, my, c, u, w)
        m = len(allp)
        windows = np.array([t for _, _, t in members])
        for pol in (1, -1):
            resp = rp.valid(pol)   # row i: profile position i + 3w, so the centre half is row t_max + 1
            hit_all = np.empty((len(members), m), dtype=bool)   # (-inf where the profile left the image: no hit)
            for t in np.unique(windows).tolist():
                js = np.flatnonzero(windows == t)
                cs = resp[t_max + 1 - t: t_max + 2 + t].max(axis=0).reshape(len(members), m)
                hit_all[js] = cs[js] >= cfg.line_contrast
            # every member's score at once (counts of hits: the same sums in any order)
            hit = hit_all[:, :n1]
            sup = hit.mean(axis=1)
            per_line = (hit.astype(np.float64) @ _line_one_hot(ids)) / cnt_line
            lines_ok = (per_line >= cfg.line_present).mean(axis=1)
            river_line = hit_all[:, n1:n2].mean(axis=1)
            score = _lattice_score(sup, lines_ok, river_line, hit_all[:, n2:].mean(axis=1), cfg)
            for j, (k, _, _) in enumerate(members):
                if score[j] > out[k].score:
                    out[k] = Verification(float(score[j]), pol, float(sup[j]), 1.0 - float(river_line[j]))
    return out


def _line_one_hot(ids: np.ndarray) -> np.ndarray:
    """(N, 19) float64: sample i belongs to line ids[i] (hit counts per line as one product)."""
    out = np.zeros((len(ids), 19))
    out[np.arange(len(ids)), ids] = 1.0
    return out


@lru_cache(maxsize=4)
def _extension_samples(reach: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Continuations of every lattice line past the board edge (`reach` spacings out)."""
    ext: list[tuple[float, float]] = []
    enrm: list[tuple[float, float]] = []
    for d in reach:
        for f in range(9):
            ext += [(f, -d), (f, 9 + d)]
            enrm += [(1.0, 0.0)] * 2
        for r in range(10):
            ext += [(-d, r), (8 + d, r)]
            enrm += [(0.0, 1.0)] * 2
    out = (np.array(ext, float), np.array(enrm, float))
    for a in out:
        a.setflags(write=False)
    return out


def refine(gray: np.ndarray, h: np.ndarray, polarity: int, stage: RefinePass,
           exclude: tuple[int, ...] = (), config: LocateConfig = DEFAULT_LOCATE) -> tuple[np.ndarray, float]:
    """Refine H on sub-pixel ridge points along all lattice segments. Returns (H, support).

    `stage`: how wide to search and for how many rounds; `exclude`: line ids (0..8 files,
    9..18 ranks) to leave out of the fit."""
    cfg = config.refine
    min_strength = config.verify.line_contrast
    rounds = stage.rounds
    pts, nrm, ids = geo.lattice_segments(step=stage.step, lo=config.verify.sample_lo, hi=config.verify.sample_hi)
    if exclude:
        keep_lines = ~np.isin(ids, exclude)
        pts, nrm, ids = pts[keep_lines], nrm[keep_lines], ids[keep_lines]
    axis = np.where(ids < geo.FILES, 0, 1)
    value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
    support = 0.0
    frac = stage.search_frac
    for _ in range(rounds + stage.extra):
        sp = geo.point_spacing_px(h)
        w = line_width_px(sp, config.ridge)
        search = max(cfg.min_search_px, frac * sp)
        m = measure(gray, h, pts, nrm, search, w, polarity, min_strength, ridge=config.ridge)
        support = float(m.found.mean())
        ok = m.found
        # each direction needs several distinct lines
        if not _both_directions(ids, axis, ok, cfg.min_lines):
            break
        h_new = geo.fit_h_from_line_points(m.image_pts[ok], axis[ok], value[ok],
                                           weights=np.sqrt(m.strength[ok]), h0=h, iters=cfg.fit_iters)
        # a whole line pulled onto something parallel (a board frame hugging the edge line,
        # blurred together with it) shows as one line off the fit of all the others: drop it
        bp = geo.apply_h(np.linalg.inv(h_new), m.image_pts[ok])
        res = np.abs(np.where(axis[ok] == 0, bp[:, 0], bp[:, 1]) - value[ok])
        ids_ok = ids[ok]
        cnt = np.bincount(ids_ok, minlength=19)
        med = np.bincount(ids_ok, weights=np.minimum(res, cfg.residual_cap), minlength=19) / np.maximum(cnt, 1)
        bad_lines = np.flatnonzero(med > max(cfg.off_line, cfg.off_line_factor * geo.median(med)))
        if len(bad_lines) and len(bad_lines) <= cfg.max_off_lines:
            keep = ok & ~np.isin(ids, bad_lines)
            if _both_directions(ids, axis, keep, cfg.min_lines):
                h_new = geo.fit_h_from_line_points(m.image_pts[keep], axis[keep], value[keep],
                                                   weights=np.sqrt(m.strength[keep]), h0=h, iters=cfg.fit_iters)
        h = h_new
        moved = geo.median(np.abs(m.offset[ok]))
        # keep the window wide while the lattice is still moving; narrow it once it has settled
        # (a narrow window cannot pull a lattice in from far, a wide one picks up piece rims)
        if moved < cfg.settled_frac * sp:
            frac = max(cfg.min_search_frac, frac * cfg.narrow)
            rounds -= 1
            if rounds <= 0 or moved < cfg.settled_px:
                break
    return h, support


def _both_directions(ids: np.ndarray, axis: np.ndarray, sel: np.ndarray, min_lines: int) -> bool:
    """True when the selected samples lie on at least `min_lines` distinct lines of each direction
    (what a homography fit to lattice lines needs)."""
    return (int(np.count_nonzero(np.bincount(ids[sel & (axis == 0)], minlength=1))) >= min_lines
            and int(np.count_nonzero(np.bincount(ids[sel & (axis == 1)], minlength=1))) >= min_lines)


# ----------------------------------------------------------------------------- orientation
def red_score(image_bgr: np.ndarray, h: np.ndarray, config: LocateConfig = DEFAULT_LOCATE) -> np.ndarray:
    """Per point, how much red ink sits on the point beyond what an empty point shows.

    Red pieces carry red characters (or are red discs); black ones dark/green/blue. Hue near 0
    with strong saturation, excluding the orange of wood (hue ~10-25 in OpenCV units). Boards
    drawn in red ink show red at every point, so the typical empty point's red is subtracted.
    Used only to orient the board when no piece readings decide it.
    """
    from .hands import MARGIN, P, rectify
    cfg = config.red
    top = rectify(image_bgr, h)  # small top-down board, one P x P cell per point
    hsv = cv2.cvtColor(top, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0].astype(np.int16), hsv[..., 1], hsv[..., 2]
    red = (((hue <= cfg.hue_max) | (hue >= cfg.hue_min)) & (sat >= cfg.min_saturation)
           & (val >= cfg.min_value)).astype(np.float32)
    yy, xx = np.mgrid[0:P, 0:P]
    disc = ((xx - (P - 1) / 2) ** 2 + (yy - (P - 1) / 2) ** 2 <= (cfg.disc_radius * P) ** 2).astype(np.float32)
    cells = red.reshape(red.shape[0] // P, P, red.shape[1] // P, P).transpose(0, 2, 1, 3)
    frac = (cells * disc).sum(axis=(2, 3)) / disc.sum()
    inner = frac[MARGIN:MARGIN + 10, MARGIN:MARGIN + 9][::-1].reshape(-1)  # point-index order
    return np.maximum(inner - np.percentile(inner, cfg.empty_percentile), 0.0)


def orient(h: np.ndarray, red: np.ndarray | None = None, config: LocateConfig = DEFAULT_LOCATE) -> np.ndarray:
    """Pick the symmetry of the lattice fit that is not mirrored and puts red at rank 0.

    `red` is a per-point red-ness score (red pieces) in the point order of `h`; the half with
    more red (the palace counted double: generals and advisors live there) is red's.
    """
    if not geo.is_proper(h):
        h = h @ geo.board_symmetry("flip_x")
    if red is not None:
        halves = red_halves(red, config)
        if halves.high > halves.low:
            h = h @ geo.board_symmetry("rot180")
    return h / h[2, 2]


@dataclass(frozen=True)
class RedHalves:
    """The red ink (`red_score`) on each half of the board, ranks 0-4 (`low`) and 5-9 (`high`),
    a palace point counting `RedConfig.palace_weight` times."""

    low: float
    high: float


def red_halves(red: np.ndarray, config: LocateConfig = DEFAULT_LOCATE) -> RedHalves:
    """Sum per-point red ink (`red_score`, point-index order) over each half of the board."""
    r = np.asarray(red, dtype=np.float64).reshape(10, 9)
    wgt = np.ones((10, 9))
    wgt[0:3, 3:6] = config.red.palace_weight
    wgt[7:10, 3:6] = config.red.palace_weight
    return RedHalves(float((r[:5] * wgt[:5]).sum()), float((r[5:] * wgt[5:]).sum()))


# ----------------------------------------------------------------------------- main entry
@dataclass(frozen=True)
class AnglePair:
    """Two peaks of the segment-angle histogram that may be the lattice's two line families."""

    a_deg: int         # angle of the first peak (whole degrees, 0..179)
    b_deg: int         # angle of the second peak
    strength: float    # product of the two peaks' heights (pairs are tried strongest first)


def _angle_pairs(ang: np.ndarray, length: np.ndarray, cfg: FamilyConfig) -> list[AnglePair]:
    """Peaks of the length-weighted segment-angle histogram, paired, strongest pair first."""
    kw = cfg.angle_kernel_deg
    hist = np.bincount(ang.astype(int) % 180, weights=length, minlength=180).astype(np.float64)
    kernel = np.exp(-0.5 * (np.arange(-kw, kw + 1) / cfg.angle_blur_deg) ** 2)
    hist = np.convolve(np.r_[hist[-kw:], hist, hist[:kw]], kernel, "same")[kw:-kw]
    peaks = []
    hh = hist.copy()
    for _ in range(cfg.max_peaks):
        p = int(np.argmax(hh))
        if hh[p] <= cfg.min_peak_share * hist.max():
            break
        peaks.append(p)
        for d in range(-cfg.peak_exclusion_deg, cfg.peak_exclusion_deg + 1):
            hh[(p + d) % 180] = 0
    pairs = []
    for i in range(len(peaks)):
        for j in range(i + 1, len(peaks)):
            da = abs(peaks[i] - peaks[j]) % 180
            if min(da, 180 - da) >= cfg.min_pair_angle_deg:
                pairs.append(AnglePair(peaks[i], peaks[j], float(hist[peaks[i]] * hist[peaks[j]])))
    pairs.sort(key=lambda q: -q.strength)
    return pairs


def _search(gray: np.ndarray, look: LsdLook, rng_seed: int, exclude: tuple[np.ndarray, ...] = (),
            config: LocateConfig = DEFAULT_LOCATE, memo: "_Memo | None" = None,
            quick: bool = False) -> LatticeCandidate | None:
    """Best lattice (H board -> gray) from the line segments of one look, or None. `memo`: the
    image's step results so far (one find_lattice call's looks share them). `quick`: the first
    pass alone (find_lattice's)."""
    memo = _Memo() if memo is None else memo
    cfg = config.search
    gh, gw = gray.shape
    segs = _segments(gray, look, config.segments)
    if len(segs) < config.segments.min_segments:
        return None
    c = np.array([gw / 2, gh / 2])
    s = 2.0 / max(gw, gh)
    norm = np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])
    segs_n = np.c_[(segs[:, 0:2] - c) * s, (segs[:, 2:4] - c) * s]
    lines = _hom_lines(segs, norm)
    # evidence weight: length, discounted for segments that are step edges rather than lines
    rwt = _ridge_weight(gray, segs, config.segments)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1]) * rwt
    ang = np.degrees(np.arctan2(segs[:, 3] - segs[:, 1], segs[:, 2] - segs[:, 0])) % 180
    rng = np.random.default_rng(rng_seed)
    segments = _Segments(segs_n, lines, length, ang, rwt, config.families.vp_tol_px * s)  # tol: working px, normalised
    pairs = _angle_pairs(ang, length, config.families)[:config.families.pairs_tried]
    # each family's members within `member_band_deg` of its angle peak first; within the wider
    # `wide_band_deg` only when no clear board turned up: a steep view fans a family's lines out
    # over more than the band (the files of a board seen at 40 degrees or so can run over 20
    # degrees of direction, two peaks each holding half of them, and the lock then holds a wrong
    # lattice all game). Then, still with no clear board, both bands again
    # with combs no finer than `coarse_max_spacings` across the lines' span: on a steep view the
    # rims of the discs and the strokes of their characters make dense clusters of lines that the
    # finest combs fit better than the board's own lines, broken by the discs (a steep board's
    # ranks combed at a sixth of their spacing give a wrong lattice that holds for seconds and
    # reads a back rank empty).
    #
    # The later passes admit more (lines of other directions, a palace diagonal, a bevelled edge),
    # so where one finds the lattice the first pass found, only fitted differently, the first
    # pass's fit is kept: they are there for a board the first pass did not find at all (a wide
    # band's fit with the files' spacing a few per cent wrong, a quarter spacing off at the
    # board's edge, can outscore the first pass's fit on one frame; the lock then never comes
    # right, its refits wander under a hand, and what the hand does goes unseen).
    bands = (config.families, replace(config.families, member_band_deg=config.families.wide_band_deg))
    combs = (config.comb, replace(config.comb, max_spacings=config.comb.coarse_max_spacings))
    passes = [replace(config, families=band, comb=comb) for comb in combs for band in bands]
    if quick:
        passes = passes[:1]
    first: LatticeCandidate | None = None
    best: LatticeCandidate | None = None
    families: dict[float, dict[int, LineFamily | None]] = {}   # per band: the families found in it
    for k, pass_cfg in enumerate(passes):
        vp_cache = families.setdefault(pass_cfg.families.member_band_deg, {})
        got = _search_pass(gray, segments, pairs, norm, rng, vp_cache, exclude, pass_cfg, memo)
        if k == 0:
            first = best = got
        else:
            best = kept_over_first(first, best, got)
        if best is not None and best.score > cfg.clear_board:
            break
    if best is None or best is first or first is None:
        return best
    return replace(best, runner_up=first)


def kept_over_first(first: LatticeCandidate | None, best: LatticeCandidate | None,
                    got: LatticeCandidate | None) -> LatticeCandidate | None:
    """The better of `best` so far and a later pass's lattice `got`, which counts only where it
    scores higher and is another lattice than the first pass's best (`first`), not that one
    fitted differently (see _search)."""
    if got is None or (best is not None and got.score <= best.score):
        return best
    if first is not None and same_lattice(got.homography, first.homography):
        return best
    return got


def _search_pass(gray: np.ndarray, segments: "_Segments", pairs: list[AnglePair], norm: np.ndarray,
                 rng: np.random.Generator, vp_cache: dict[int, LineFamily | None],
                 exclude: tuple[np.ndarray, ...], config: LocateConfig, memo: "_Memo") -> LatticeCandidate | None:
    """The best lattice of one pass over the angle-peak pairs, its families' members taken from
    `config.families.member_band_deg` about each peak (`vp_cache`: the families already found
    with that band, by peak); the first clear board ends the pass."""
    best: LatticeCandidate | None = None
    for pair in pairs:
        pc = _pair_combs(segments, pair, rng, vp_cache, config)
        # the combs over all of each family's lines first; combed within each other's stretch
        # only when those find no clear board (a patterned floor or table around the board)
        for windowed in (False, True):
            hbs = [np.linalg.inv(norm) @ hyp for hyp in _hypotheses(pc, config, windowed)]
            best = _judged(gray, hbs, best, exclude, config, memo)
            if best is not None and best.score > config.search.clear_board:
                return best
    return best


def _judged(gray: np.ndarray, hbs: list[np.ndarray], best: LatticeCandidate | None,
            exclude: tuple[np.ndarray, ...], config: LocateConfig, memo: "_Memo") -> LatticeCandidate | None:
    """The better of `best` and the best of the lattice hypotheses `hbs` (board -> gray), judged."""
    cfg = config.search
    # cheap, tolerant first look at every hypothesis (the comb only knows the lattice
    # roughly: vanishing points come from short, broken segments) ...
    rough = [LatticeCandidate(v.score, hb, v.polarity, v.support)
             for hb, v in zip(hbs, _verify_coarse_many(gray, hbs, config)) if v.score >= cfg.min_rough_score]
    rough.sort(key=lambda r: -r.score)
    # ... then pull the best few onto the nearby ridges and judge them strictly
    refined = []
    # (candidates far behind the best rough score are not worth a refinement; once the best
    # already looks like a board, only close runners-up are)
    keep = cfg.keep_close if rough and rough[0].score >= cfg.rough_board_like else cfg.keep_far
    for r in [r for r in rough[:cfg.refined] if r.score >= keep * rough[0].score]:
        hb, _ = memo.refine(gray, r.homography, r.polarity, cfg.rough, config=config)
        v = memo.verify(gray, hb, r.polarity, config)
        refined.append(LatticeCandidate(v.score, hb, r.polarity, v.support))
    refined.sort(key=lambda r: -r.score)
    # the geometry of the best ones is now right; find which 9x10 window of lines it is
    for r in refined[:cfg.judged]:
        hb, _ = memo.refine(gray, r.homography, r.polarity, cfg.strict, config=config)
        hb = memo.window_search(gray, hb, r.polarity, exclude, config)
        if any(same_lattice(hb, e) for e in exclude):
            continue
        v = memo.verify(gray, hb, r.polarity, config)
        if best is None or v.score > best.score:
            best = LatticeCandidate(v.score, hb, r.polarity, v.support)
        if v.score > cfg.clear_board:  # clearly a board: no need to look at the runner-up
            break
    return best


class _Memo:
    """The search's costly steps on one image, by their exact inputs, computed once.

    The passes of a search (and the looks of one find_lattice call) propose many of the same
    lattices again: the same comb pair from another band, a rough candidate whose refinement
    lands where another's did. A step's result depends only on its inputs (the image, the
    homography's exact numbers, the polarity, the settings), so a second proposal is answered
    from here and the search's choices are unchanged. Kept for one find_lattice call only."""

    def __init__(self) -> None:
        self._done: dict[tuple[object, ...], object] = {}

    def refine(self, gray: np.ndarray, h: np.ndarray, polarity: int, stage: RefinePass,
               exclude: tuple[int, ...] = (), config: LocateConfig = DEFAULT_LOCATE) -> tuple[np.ndarray, float]:
        """`refine`, once per input."""
        key = ("refine", id(gray), h.tobytes(), polarity, stage, exclude, config.refine, config.verify, config.ridge)
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = refine(gray, h, polarity, stage, exclude, config)
        return got  # type: ignore[return-value]

    def verify(self, gray: np.ndarray, h: np.ndarray, polarity: int, config: LocateConfig) -> "Verification":
        """`_verify` of one polarity, once per input."""
        key = ("verify", id(gray), h.tobytes(), polarity, config.verify, config.ridge)
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = _verify(gray, h, polarity, config=config)
        return got  # type: ignore[return-value]

    def window_search(self, gray: np.ndarray, h: np.ndarray, polarity: int, exclude: tuple[np.ndarray, ...],
                      config: LocateConfig) -> np.ndarray:
        """`_window_search`, once per input."""
        key = ("window", id(gray), h.tobytes(), polarity, tuple(e.tobytes() for e in exclude), config.window,
               config.verify, config.refine, config.ridge)
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = _window_search(gray, h, polarity, exclude, config, self)
        return got  # type: ignore[return-value]


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


_FINE, _COARSE = 1, 2  # the second and third of find_lattice's looks


def find_lattice(image: np.ndarray, rng_seed: int = 0, exclude: tuple[np.ndarray, ...] = (),
                 config: LocateConfig = DEFAULT_LOCATE, quick: bool = False) -> LatticeFit:
    """Locate the lattice (up to its symmetries) in an image. Raises BoardNotFoundError.

    `exclude`: lattices (board -> image homographies) already refused by the caller, e.g.
    because the pieces read on them are implausible; candidates on the same lattice are passed
    over so the next best is returned.

    `quick`: the first look's first pass alone. Where that pass finds a clear board (a judged
    score over the search's `clear_board`) the whole search stops at the same pass too, though it
    may still take its finer look (a fit under `fine_look_below_score`, a small board). Where it
    does not, the quick search is a fraction of the cost (a steep side view: 0.7 s of CPU against
    3.5 s; the same lattice on the rig's eight views and ten of twelve real photos, the other two
    not found): for a caller that checks such a lattice again with the whole search (a live
    reader's lock, doubted below `doubt_below` and audited a second after it is taken).
    """
    gray_full = to_gray(image, config)
    H, W = gray_full.shape
    if min(H, W) < config.min_image_px:
        raise BoardNotFoundError(f"image too small ({W}x{H}) to hold a readable board")
    f = min(1.0, config.work_max_px / max(H, W))
    gray = _reduce(gray_full, f)
    down = np.diag([f, f, 1.0])
    excl = tuple(down @ e for e in exclude)
    best: LatticeCandidate | None = None  # best search result that passed
    fit: LatticeFit | None = None         # ... and its final fit
    memo = _Memo()                        # the looks' step results on this image, shared
    why = "no 9x10 lattice of lines in the image"
    # segments at a modest resolution and light smoothing first (LSD is the costliest step);
    # finer, with LSD's default smoothing, only if needed; coarser as a last resort when
    # nothing passed (each look finds boards the others miss: street photos 1, 2, 14)
    first = config.first_look
    looks = (first, LsdLook(config.work_max_px, config.fine_look_scale), config.coarse_look)
    for k, look in enumerate(looks[:1] if quick else looks):
        if k == _FINE and look.max_px > max(gray.shape):
            continue
        if k == _FINE and fit is not None and best is not None and best.score >= config.fine_look_below_score:
            # a small board (fine lines at the LSD resolution) or a doubtful fit deserves a
            # second, finer look; a clear fit of a well-sized board does not
            if geo.point_spacing_px(best.homography) * first.max_px / max(gray.shape) \
                    >= config.fine_look_below_spacing_px:
                break
        if k == _COARSE and (fit is not None or look.max_px >= max(gray.shape)):
            break  # the coarse look only rescues what would otherwise be "no board"
        got = _search(gray, look, rng_seed, excl, config, memo, quick)
        # (compared with the best that passed: one refused in this look's place may hide a
        # real board another look finds with a lower score)
        if got is None or got.score < config.min_search_score or (best is not None and got.score <= best.score):
            continue
        done, why_not = _finish(gray, gray_full, f, got, config, memo)
        if done is not None:
            if got.runner_up is not None:
                done.runner_up, _ = _finish(gray, gray_full, f, got.runner_up, config, memo)
            fit, best = done, got
        else:
            why = why_not
    if fit is None:
        raise BoardNotFoundError(f"no board found: {why}")
    return fit


def _finish(gray: np.ndarray, gray_full: np.ndarray, f: float, found: LatticeCandidate,
            config: LocateConfig = DEFAULT_LOCATE, memo: "_Memo | None" = None) -> tuple[LatticeFit | None, str]:
    """Last checks and full-resolution refinement of a search result: (fit or None, why not)."""
    memo = _Memo() if memo is None else memo
    hb, pol, sup = found.homography, found.polarity, found.support
    if found.score < config.edge.below_score:  # a clear fit has no stretched edge line to undo
        hb2 = _edge_line_check(gray, hb, pol, config, memo)
        if hb2 is not hb:
            hb, sup = hb2, memo.verify(gray, hb2, pol, config).support
    # textures (wallpaper, cloth, tiles) can line up with a lattice here and there; a real
    # board shows most of its line segments even with pieces and a hand on it, and at full
    # resolution as well as at the working one (a wrong lattice can pass in the blur)
    if sup < config.min_support:
        return None, f"the best lattice candidate shows only {sup:.0%} of its lines"
    up = np.diag([1.0 / f, 1.0 / f, 1.0])
    hf = up @ hb
    if f < 1:
        hf, _ = memo.refine(gray_full, hf, pol, config.full_res, config=config)
    v = memo.verify(gray_full, hf, pol, config)
    if v.support < config.min_support:
        return None, f"the best lattice candidate shows only {v.support:.0%} of its lines at full resolution"
    return LatticeFit(homography=hf / hf[2, 2], support=v.support, river_clear=v.river_clear,
                      polarity=v.polarity, score=v.score), ""


def _window_scores(a_lines: np.ndarray, a_segs: np.ndarray, cfg: VerifyConfig = DEFAULT_LOCATE.verify) -> np.ndarray:
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
    lines_ok = ((per_file >= cfg.line_present).sum(axis=2) + (per_rank >= cfg.line_present).sum(axis=2)) / 19.0
    # continuations one segment past each edge (absent past the measured grid: NaN padding)
    lp = np.pad(a_lines, ((0, 0), (1, 1)), constant_values=np.nan)
    sp_ = np.pad(a_segs, ((0, 0), (1, 1)), constant_values=np.nan)
    fl = windows(lp, (9, 11))                                         # [a0, b0, file, segment+1]
    rk = windows(sp_, (10, 10)).transpose(1, 0, 2, 3)                 # [a0, b0, rank, segment+1]
    ext = np.concatenate([fl[..., 0], fl[..., 10], rk[..., 0], rk[..., 9]], axis=2)
    cnt = np.sum(~np.isnan(ext), axis=2)
    ext_line = np.where(cnt > 0, np.nansum(ext, axis=2) / np.maximum(cnt, 1), 0.0)
    return _lattice_score(sup, lines_ok, river.mean(axis=2), ext_line, cfg)


@lru_cache(maxsize=4)
def _window_samples(reach: int, places: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Sample points and normals of `_window_search`'s extended grid (lattice lines from -reach to
    8 + reach and 9 + reach): first every file-direction line's unit segments, then every rank line's."""
    pts_l: list[tuple[float, float]] = []
    nrm_l: list[tuple[float, float]] = []
    for i in range(-reach, 8 + reach + 1):          # lines x = i, segments y in [j, j+1]
        for j in range(-reach, 9 + reach):
            for t in places:
                pts_l.append((i, j + t)); nrm_l.append((1.0, 0.0))
    for j in range(-reach, 9 + reach + 1):          # lines y = j, segments x in [i, i+1]
        for i in range(-reach, 8 + reach):
            for t in places:
                pts_l.append((i + t, j)); nrm_l.append((0.0, 1.0))
    out = (np.array(pts_l, float), np.array(nrm_l, float))
    for a in out:
        a.setflags(write=False)
    return out


def _window_search(gray: np.ndarray, h: np.ndarray, pol: int, exclude: tuple[np.ndarray, ...] = (),
                   config: LocateConfig = DEFAULT_LOCATE, memo: "_Memo | None" = None) -> np.ndarray:
    """Slide a 9x10 window over the refined lattice extended by a few lines, both ways round.

    Once refined on the visible lines, spacing and perspective are right even when the lattice
    is off by whole lines (a frame taken for the edge line, a faint edge line missed, a tiled
    floor continuing the grid) or has its 9- and 10-line directions swapped. One ridge
    measurement on the extended grid scores every window: lines present inside, blank river
    between the inner files, blank continuations past the edges.
    """
    reach, fr, ver = config.window.reach, config.window.places, config.verify
    lo_x, lo_y = -reach, -reach
    nx, ny = 9 + 2 * reach, 10 + 2 * reach
    pts, nrm = _window_samples(reach, fr)
    sp = geo.point_spacing_px(h)
    tol = max(ver.min_tol_px, ver.tol_frac * sp)
    cs = centre_strengths(gray, h, pts, nrm, tol, line_width_px(sp, config.ridge), (pol,), tol, config.ridge)[0]
    hit = (cs >= ver.line_contrast).astype(np.float64)
    n_v = nx * (ny - 1) * len(fr)
    vx = hit[:n_v].reshape(nx, ny - 1, len(fr)).mean(axis=2)   # [x line, y segment]
    hy = hit[n_v:].reshape(ny, nx - 1, len(fr)).mean(axis=2)   # [y line, x segment]
    cands = []  # rows (score, swap, a0, b0)
    for swap in (False, True):
        # in the swapped case the board's files run along this grid's y lines
        a_lines, a_segs = (hy, vx) if swap else (vx, hy)  # a = the 9 file lines, b = the 10 rank lines
        sc = _window_scores(a_lines, a_segs, ver)
        a0s, b0s = np.unravel_index(np.arange(sc.size), sc.shape)
        cands.append(np.c_[sc.ravel(), np.full(sc.size, float(swap)), a0s, b0s])
    allc = np.concatenate(cands)
    hb = h
    for k in np.argsort(-allc[:, 0], kind="stable"):
        _, swap_f, a0_f, b0_f = allc[k]
        a0, b0 = int(a0_f), int(b0_f)
        x0, y0 = (b0 + lo_x, a0 + lo_y) if swap_f else (a0 + lo_x, b0 + lo_y)
        shift = np.array([[0, 1, x0], [1, 0, y0], [0, 0, 1.0]]) if swap_f else \
            np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1.0]])
        if exclude and any(same_lattice(h @ shift, e) for e in exclude):
            continue  # a window the caller has refused
        hb = h @ shift
        break
    if hb is not h:
        hb, _ = (refine(gray, hb, pol, config.window.refine, config=config) if memo is None
                 else memo.refine(gray, hb, pol, config.window.refine, config=config))
    return hb


def _edge_line_check(gray: np.ndarray, h: np.ndarray, pol: int, config: LocateConfig = DEFAULT_LOCATE,
                     memo: "_Memo | None" = None) -> np.ndarray:
    """Refit without each edge line in turn; keep a variant the image likes better.

    A board's frame often runs a fraction of a spacing outside its edge line; when the edge
    line locks onto it, the lattice is stretched a few per cent and every other line still
    fits well enough. Fitting without that line, from the inner lines alone, undoes it.
    """
    cfg, ver = config.edge, config.verify
    # cheap screen first: fit the lattice without each edge line on one measurement and see
    # whether that edge line's ridge sits where the inner lines put it. Only an edge line that
    # sits off (stretching the fit) is worth the full refit below.
    pts, nrm, ids = geo.lattice_segments(step=ver.sample_step, lo=ver.sample_lo, hi=ver.sample_hi)
    axis = np.where(ids < geo.FILES, 0, 1)
    value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
    sp = geo.point_spacing_px(h)
    m = measure(gray, h, pts, nrm, max(cfg.min_search_px, cfg.search_frac * sp), line_width_px(sp, config.ridge),
                pol, ver.line_contrast, ridge=config.ridge)
    suspects: list[int] = []
    for edge in (0, 8, 9, 18):  # line ids of the files a and i, the ranks 0 and 9
        keep = m.found & (ids != edge)
        on_edge = m.found & (ids == edge)
        if on_edge.sum() < cfg.min_samples or not _both_directions(ids, axis, keep, cfg.min_lines):
            continue
        hh = geo.fit_h_from_line_points(m.image_pts[keep], axis[keep], value[keep],
                                        weights=np.sqrt(m.strength[keep]), h0=h, iters=cfg.fit_iters)
        bp = geo.apply_h(np.linalg.inv(hh), m.image_pts[on_edge])
        off = geo.median(np.abs(np.where(axis[on_edge] == 0, bp[:, 0], bp[:, 1]) - value[on_edge]))
        if off > cfg.max_offset:  # the edge ridge sits off the inner lines' lattice
            suspects.append(edge)
    if not suspects:
        return h
    memo = _Memo() if memo is None else memo
    best_s, best_h = memo.verify(gray, h, pol, config).score, h
    for edge in suspects:
        hh, _ = memo.refine(gray, h, pol, cfg.refit, exclude=(edge,), config=config)
        hh, _ = memo.refine(gray, hh, pol, cfg.polish, config=config)
        sc = memo.verify(gray, hh, pol, config).score
        if sc > best_s + cfg.min_gain:
            best_s, best_h = sc, hh
    return best_h


@dataclass(frozen=True)
class _Segments:
    """One look's line segments, as the family and comb steps use them."""

    segs_n: np.ndarray   # (N, 4) endpoints in normalised image coordinates
    lines: np.ndarray    # (N, 3) homogeneous lines through them
    length: np.ndarray   # (N,) evidence weight: length x line-likeness
    ang: np.ndarray      # (N,) direction, degrees 0..180
    rwt: np.ndarray      # (N,) line-likeness (ridge weight) alone
    tol: float           # vanishing-point agreement, normalised units


def _family(sg: _Segments, p: int, rng: np.random.Generator, cache: dict[int, LineFamily | None],
            cfg: FamilyConfig) -> LineFamily | None:
    """Vanishing point and member segments of the line family around angle peak p (cached)."""
    if p not in cache:
        d = np.abs((sg.ang - p + 90) % 180 - 90)
        sel = d < cfg.member_band_deg
        if sel.sum() < cfg.min_members:
            cache[p] = None
        else:
            v, inl = _fit_vp(sg.segs_n[sel], sg.lines[sel], sg.length[sel], sg.tol, rng, cfg)
            cache[p] = LineFamily(v, np.flatnonzero(sel)[inl])
    return cache[p]


@dataclass(frozen=True)
class _PairCombs:
    """Two angle peaks' families seen with perspective undone (family 1 horizontal, family 2
    vertical), and each family's best combs over all its lines: what `_hypotheses` builds on."""

    rinv: np.ndarray       # rectified (normalised) -> normalised image
    pos1: np.ndarray       # family 1's line positions (rectified y)
    pos2: np.ndarray       # family 2's (rectified x)
    ext1: np.ndarray       # (N1, 2) each family-1 segment's two ends along its line (rectified x)
    ext2: np.ndarray       # (N2, 2) ... family 2's (rectified y)
    rwt1: np.ndarray       # the segments' line-likeness
    rwt2: np.ndarray
    combs1: dict[int, list[Comb]]
    combs2: dict[int, list[Comb]]


def _pair_combs(sg: _Segments, pair: AnglePair, rng: np.random.Generator, cache: dict[int, LineFamily | None],
                config: LocateConfig = DEFAULT_LOCATE) -> _PairCombs | None:
    """Rectify two angle peaks' families and comb each over all its lines; None when the two do
    not make a lattice's pair of families (a peak without a family, a horizon through the image)."""
    cfg = config.families
    fams = []
    for p in (pair.a_deg, pair.b_deg):
        fam = _family(sg, p, rng, cache, cfg)
        if fam is None:
            return None
        fams.append(fam)
    segs_n = sg.segs_n
    v1, i1 = fams[0].vanishing_point, fams[0].members
    v2, i2 = fams[1].vanishing_point, fams[1].members
    hz = np.cross(v1, v2)
    if abs(hz[2]) < 1e-9:
        return None
    hp = np.array([[1, 0, 0], [0, 1, 0], [hz[0] / hz[2], hz[1] / hz[2], 1.0]])
    # all of the image must be on one side of the horizon
    corners = np.array([[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], float)
    sgn = np.sign(corners @ hz)
    if not (np.all(sgn > 0) or np.all(sgn < 0)):
        return None
    d1 = (hp @ v1)[:2]
    d2 = (hp @ v2)[:2]
    m = np.c_[d1, d2]
    if abs(np.linalg.det(m)) < 1e-12:
        return None
    a = np.eye(3)
    a[:2, :2] = np.linalg.inv(m)
    r = a @ hp  # family 1 -> horizontal lines (constant y), family 2 -> vertical (constant x)

    def rect(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p1 = np.c_[segs_n[idx, 0:2], np.ones(len(idx))] @ r.T
        p2 = np.c_[segs_n[idx, 2:4], np.ones(len(idx))] @ r.T
        return p1[:, :2] / p1[:, 2:3], p2[:, :2] / p2[:, 2:3]

    a1, b1 = rect(i1)
    a2, b2 = rect(i2)
    # weights: rectified length (undoing foreshortening) times the segment's line-likeness
    pos1, len1 = 0.5 * (a1[:, 1] + b1[:, 1]), np.abs(a1[:, 0] - b1[:, 0]) * sg.rwt[i1]
    pos2, len2 = 0.5 * (a2[:, 0] + b2[:, 0]), np.abs(a2[:, 1] - b2[:, 1]) * sg.rwt[i2]
    # weights: rectified length, but capped relative to the median so one table edge can't dominate
    len1 = np.minimum(len1, cfg.weight_cap * np.median(len1) + 1e-12)
    len2 = np.minimum(len2, cfg.weight_cap * np.median(len2) + 1e-12)
    top = cfg.combs_per_count
    combs1 = _comb_candidates(pos1, len1, (9, 10), top=top, cfg=config.comb)  # y positions (family 1 horizontal)
    combs2 = _comb_candidates(pos2, len2, (9, 10), top=top, cfg=config.comb)  # x positions
    return _PairCombs(np.linalg.inv(r), pos1, pos2, np.c_[a1[:, 0], b1[:, 0]], np.c_[a2[:, 1], b2[:, 1]],
                      sg.rwt[i1], sg.rwt[i2], combs1, combs2)


def _hypotheses(pc: _PairCombs | None, config: LocateConfig = DEFAULT_LOCATE, windowed: bool = False) -> list[np.ndarray]:
    """Lattice homographies (board -> normalised image) from two angle peaks' combs (`_pair_combs`):
    each family's best combs over all its lines, or (`windowed`) each family combed again within
    the stretch one of the other family's combs spans."""
    if pc is None:
        return []
    cfg = config.families
    top = cfg.combs_per_count
    combs1, combs2 = pc.combs1, pc.combs2
    pairs = [] if windowed else [(c1, c2, n2) for n1, n2 in ((10, 9), (9, 10)) for c1 in combs1[n1] for c2 in combs2[n2]]
    # each family's combs again on the stretch of its lines that one of the other family's combs
    # spans: a patterned floor or table (tiles, a check) runs its own lines across the whole image,
    # the board's stop at its edges (floor tiles parallel to the board make long lines that comb at
    # a couple of board spacings, while the board's ranks, broken by the discs, make no comb of
    # their own over the whole image: the lock would hold a lattice of tiles)
    for n1, n2 in (((10, 9), (9, 10)) if windowed else ()):
        for c2 in combs2[n2]:
            w1 = _within(pc.ext1, _comb_span(c2, n2, cfg.window_margin)) * pc.rwt1
            for c1 in _comb_candidates(pc.pos1, w1, (n1,), top=top, cfg=config.comb)[n1]:
                pairs.append((c1, c2, n2))
        for c1 in combs1[n1]:
            w2 = _within(pc.ext2, _comb_span(c1, n1, cfg.window_margin)) * pc.rwt2
            for c2 in _comb_candidates(pc.pos2, w2, (n2,), top=top, cfg=config.comb)[n2]:
                pairs.append((c1, c2, n2))
    out = []
    for c1, c2, n2 in pairs:
        o1, s1, o2, s2 = c1.offset, c1.spacing, c2.offset, c2.spacing
        if n2 == 9:  # family 2 (x positions) are files, family 1 (y) ranks
            lat = np.array([[s2, 0, o2], [0, s1, o1], [0, 0, 1]])
        else:  # family 1 (y positions) are files: board x -> rect y
            lat = np.array([[0, s2, o2], [s1, 0, o1], [0, 0, 1]])
        out.append(pc.rinv @ lat)
    return out


def _comb_span(comb: Comb, n: int, margin: float) -> tuple[float, float]:
    """The stretch an n-tooth comb covers, widened by `margin` spacings on each side."""
    return comb.offset - margin * comb.spacing, comb.offset + (n - 1 + margin) * comb.spacing


def _within(ext: np.ndarray, span: tuple[float, float]) -> np.ndarray:
    """(N,) how much of each segment's extent (N, 2: its two ends along its line) lies in `span`."""
    lo, hi = np.minimum(ext[:, 0], ext[:, 1]), np.maximum(ext[:, 0], ext[:, 1])
    return np.clip(np.minimum(hi, span[1]) - np.maximum(lo, span[0]), 0.0, None)


def locate(image_bgr: np.ndarray, config: LocateConfig = DEFAULT_LOCATE) -> BoardPose:
    """Find the board in a colour image and orient it (red's back rank = rank 0)."""
    fit = find_lattice(image_bgr, config=config)
    h = orient(fit.homography, config=config)
    if image_bgr.ndim == 3:
        h = orient(h, red_score(image_bgr, h, config), config)
    return BoardPose(homography=h, corners=geo.corners_of(h), confidence=float(np.clip(fit.support, 0, 1)),
                     red_side=geo.red_side_of(h))
