"""Point crops: one small, rectified, top-down square per board point.

The board finder and the piece classifier share this one convention, so a crop
means the same thing everywhere (training, inference, calibration):

* the crop for point (file f, rank r) is centred on the board-plane point
  (f, r) plus an optional offset, in point spacings;
* it is `span` point spacings wide (1.0 = exactly one spacing, so a disc sitting
  on its point fills ~85-95 % of the crop and neighbours stay outside);
* crop pixel columns run along +file and crop rows run along -rank, i.e. the
  crop is what a camera straight above the board would see with red's back
  rank at the bottom (never mirrored, so characters read correctly);
* all 90 crops come from ONE `cv2.remap` call through the homography, which is
  what keeps a full read cheap.

Real piece crops from datasets are tight disc crops; `disc_to_point_crop`
turns such a crop into this convention (used by training and the tests).
"""
from __future__ import annotations

import functools
from typing import Sequence

import cv2
import numpy as np

from vision.observation import NUM_POINTS

__all__ = ["extract_point_crops", "point_grid", "disc_to_point_crop", "crop_scale_px", "lift_homography",
           "estimate_focal", "DISC_TOP_HEIGHT"]

DISC_TOP_HEIGHT = 0.25
"""Typical disc thickness in point spacings (real sets: ~0.2-0.35). Crops for the classifier are
sampled on the plane of the disc tops: seen obliquely, a disc's face sits visibly off its point
(thickness x tan(tilt), up to a third of a spacing at 45 degrees), and the character is on the face."""


def point_grid() -> np.ndarray:
    """Board-plane coordinates (x = file, y = rank) of the 90 points in index order."""
    idx = np.arange(NUM_POINTS)
    return np.stack([idx % 9, idx // 9], axis=1).astype(np.float64)


def _check_homography(homography: np.ndarray) -> np.ndarray:
    H = np.asarray(homography, dtype=np.float64)
    if H.shape != (3, 3):
        raise ValueError(f"homography must be a 3x3 matrix, got shape {H.shape}")
    if not np.all(np.isfinite(H)):
        raise ValueError("homography contains NaN or infinite values")
    if abs(np.linalg.det(H)) < 1e-12:
        raise ValueError("homography is singular (determinant ~ 0)")
    return H


def crop_scale_px(homography: np.ndarray, size: int = 48, span: float = 1.0) -> float:
    """Median image pixels per crop pixel at the 90 points (>1 means the crop downsamples)."""
    H = _check_homography(homography)
    pts = point_grid()
    eps = 0.01
    def proj(p: np.ndarray) -> np.ndarray:
        q = np.c_[p, np.ones(len(p))] @ H.T
        return q[:, :2] / q[:, 2:3]
    c = proj(pts)
    dx = np.linalg.norm(proj(pts + [eps, 0]) - c, axis=1) / eps
    dy = np.linalg.norm(proj(pts + [0, eps]) - c, axis=1) / eps
    return float(np.median(np.sqrt(dx * dy)) * span / size)


def estimate_focal(homography: np.ndarray, image_size: tuple[int, int]) -> float:
    """Focal length in pixels implied by a plane homography (principal point at the image centre).

    A plane seen by a pinhole camera constrains the focal length through the two
    rotation columns being orthogonal and of equal length. Near a top-down view
    both constraints vanish; then (and when they disagree badly) we fall back to
    a typical phone/webcam field of view (about 65 degrees across the longer side).
    """
    H = _check_homography(homography)
    w, h = image_size
    T = np.array([[1, 0, -(w - 1) / 2.0], [0, 1, -(h - 1) / 2.0], [0, 0, 1.0]])
    Hc = T @ H
    h1, h2 = Hc[:, 0], Hc[:, 1]
    cands = []
    den = h1[2] * h2[2]
    if abs(den) > 1e-12:
        f2 = -(h1[0] * h2[0] + h1[1] * h2[1]) / den
        if f2 > 0:
            cands.append(f2)
    den = h2[2] ** 2 - h1[2] ** 2
    if abs(den) > 1e-12:
        f2 = (h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2) / den
        if f2 > 0:
            cands.append(f2)
    default = 0.78 * max(w, h)
    good = [np.sqrt(c) for c in cands if 0.3 * max(w, h) < np.sqrt(c) < 5.0 * max(w, h)]
    if not good:
        return float(default)
    f = float(np.median(good))
    # perspective this weak says little about f: lean on the default
    persp = max(abs(h1[2]), abs(h2[2])) * default / max(np.linalg.norm(h1[:2]), np.linalg.norm(h2[:2]), 1e-9)
    wgt = float(np.clip((persp - 0.05) / 0.15, 0.0, 1.0))
    return float(np.exp(wgt * np.log(f) + (1 - wgt) * np.log(default)))


def plane_pose(homography: np.ndarray, image_size: tuple[int, int], focal: float | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The board homography decomposed as K [r1 r2 t]: (K, r1, r2, t), with K from `focal`
    (estimated from the homography when None), the principal point at the image centre, and
    the sign chosen so the board lies in front of the camera. r1, r2 are unit only on average
    (the scale is the mean of their norms). Raises ValueError when no scale can be had."""
    H = np.asarray(homography, dtype=np.float64)
    w, h = image_size
    f = float(focal) if focal else estimate_focal(H, image_size)
    K = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1.0]])
    A = np.linalg.inv(K) @ H
    lam = 0.5 * (np.linalg.norm(A[:, 0]) + np.linalg.norm(A[:, 1]))
    if not np.isfinite(lam) or lam <= 0:
        raise ValueError("homography has no usable scale (degenerate plane)")
    A = A / lam
    if A[2, 2] < 0:          # the board is in front of the camera
        A = -A
    return K, A[:, 0], A[:, 1], A[:, 2]


def lift_homography(homography: np.ndarray, height: float, image_size: tuple[int, int],
                    focal: float | None = None) -> np.ndarray:
    """Homography of the plane `height` point spacings above the board (e.g. the disc tops).

    The board homography is decomposed as K [r1 r2 t] with K from `focal`
    (estimated from the homography when None) and the principal point at the
    image centre; the lifted plane is K [r1 r2 (t + height * r3)] with r3 the
    board's upward normal (towards the camera).
    """
    H = _check_homography(homography)
    if height == 0:
        return H.copy()
    K, r1, r2, t = plane_pose(H, image_size, focal)
    r3 = np.cross(r1, r2)
    r3 /= np.linalg.norm(r3)
    R = np.stack([r1, r2, r3], 1)
    if (-R.T @ t)[2] < 0:    # make +z point from the board towards the camera
        r3 = -r3
    return K @ np.stack([r1, r2, t + height * r3], 1)


@functools.lru_cache(maxsize=16)
def _crop_geometry(h_bytes: bytes, height: float, width_px: int, height_px: int, focal: float | None, size: int,
                   span: float) -> tuple[np.ndarray, float]:
    """The crops' plane (the board's homography lifted to `height`) and its image pixels per crop
    pixel. Why cached: a frame's disc offsets cut crops from one homography a dozen times (each
    step of a walk to a disc, each fit), and the pose's decomposition costs more than the cut."""
    H = np.frombuffer(h_bytes, dtype=np.float64).reshape(3, 3).copy()
    if height:
        H = lift_homography(H, height, (width_px, height_px), focal)
    H.setflags(write=False)
    return H, crop_scale_px(H, size, span)


def extract_point_crops(
    image_bgr: np.ndarray,
    homography: np.ndarray,
    offsets: np.ndarray | None = None,
    size: int = 48,
    span: float = 1.0,
    points: Sequence[int] | None = None,
    antialias: bool = True,
    height: float = 0.0,
    focal: float | None = None,
) -> np.ndarray:
    """Sample one square top-down crop per point straight from the image.

    Args:
        image_bgr: HxWx3 uint8 frame (a single-channel image is accepted and
            expanded to 3 channels).
        homography: 3x3 board plane (x = file, y = rank, point units) -> image pixels.
        offsets: optional (90, 2) or (len(points), 2) shift of each crop centre
            from its point, in point spacings (x along files, y along ranks).
        size: crop side in pixels.
        span: crop side in point spacings.
        points: optional point indices to extract (default all 90, in index
            order); lets the video path reclassify only the points that changed.
        antialias: when the board is much larger in the image than the crops
            (more than 2 image pixels per crop pixel) the image is first
            reduced with pyrDown so the bilinear sampling does not alias fine
            strokes away. Costs one pyrDown per halving.

    Returns:
        (N, size, size, 3) uint8, N = 90 or len(points). Pixels that fall
        outside the image are black.
    """
    if not isinstance(image_bgr, np.ndarray) or image_bgr.size == 0:
        raise ValueError("image_bgr must be a non-empty numpy array")
    img = image_bgr
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"image_bgr must be HxWx3 (or HxW), got shape {image_bgr.shape}")
    if img.dtype != np.uint8:
        raise ValueError(f"image_bgr must be uint8, got {img.dtype}")
    if size < 4:
        raise ValueError(f"size must be >= 4 pixels, got {size}")
    if not span > 0:
        raise ValueError(f"span must be > 0, got {span}")
    H, s = _crop_geometry(_check_homography(homography).tobytes(), float(height), img.shape[1], img.shape[0],
                          None if focal is None else float(focal), size, float(span))

    centres = point_grid()
    if points is not None:
        pts_idx = np.asarray(points, dtype=np.int64).reshape(-1)
        if pts_idx.size and (pts_idx.min() < 0 or pts_idx.max() >= NUM_POINTS):
            raise ValueError(f"points must be indices in 0..{NUM_POINTS - 1}")
        centres = centres[pts_idx]
    n = len(centres)
    if offsets is not None:
        off = np.asarray(offsets, dtype=np.float64)
        if off.shape == (NUM_POINTS, 2) and n != NUM_POINTS:
            off = off[pts_idx]
        if off.shape != (n, 2):
            raise ValueError(f"offsets must have shape ({n}, 2), got {np.asarray(offsets).shape}")
        centres = centres + off
    if n == 0:
        return np.zeros((0, size, size, 3), np.uint8)

    scale = 1.0
    if antialias:
        while s > 2.0 and min(img.shape[:2]) > 32:
            img = cv2.pyrDown(img)
            s /= 2.0
            scale *= 0.5
    if scale != 1.0:
        # Pixel centres: after pyrDown, image coordinate u maps to (u + 0.5) * scale - 0.5.
        S = np.array([[scale, 0, 0.5 * scale - 0.5], [0, scale, 0.5 * scale - 0.5], [0, 0, 1.0]])
        H = S @ H

    # Crop pixel (u, v) centre -> board plane offset from the crop centre.
    t = (np.arange(size, dtype=np.float64) + 0.5) / size * span - span / 2.0
    gx = np.broadcast_to(t[None, None, :], (n, size, size))            # along +file
    gy = np.broadcast_to(-t[None, :, None], (n, size, size))           # rows run along -rank
    bx = gx + centres[:, 0, None, None]
    by = gy + centres[:, 1, None, None]
    den = H[2, 0] * bx + H[2, 1] * by + H[2, 2]
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)
    mx = (H[0, 0] * bx + H[0, 1] * by + H[0, 2]) / den
    my = (H[1, 0] * bx + H[1, 1] * by + H[1, 2]) / den
    mapx = mx.reshape(n * size, size).astype(np.float32)
    mapy = my.reshape(n * size, size).astype(np.float32)
    out = cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    return out.reshape(n, size, size, 3)


def disc_to_point_crop(
    disc_bgr: np.ndarray,
    size: int = 48,
    fill: float = 0.9,
    offset: tuple[float, float] = (0.0, 0.0),
    background: np.ndarray | None = None,
) -> np.ndarray:
    """Place a tight disc crop (a dataset's piece photo) into the point-crop convention.

    The disc is resized so its diameter is `fill` of the crop side and centred
    at `offset` (point spacings, x right, y up as in the board plane). Around
    the disc we show either `background` (a size x size BGR empty-point crop:
    the disc is pasted through a soft circular mask) or, when None, the tight
    crop's own border extended outward, which is what a real point crop looks
    like closest to the disc.
    """
    if disc_bgr is None or disc_bgr.ndim != 3 or disc_bgr.shape[2] != 3 or disc_bgr.size == 0:
        raise ValueError("disc_bgr must be an HxWx3 image")
    if not 0.2 <= fill <= 1.5:
        raise ValueError(f"fill must be within 0.2..1.5, got {fill}")
    d = max(2, int(round(fill * size)))
    disc = cv2.resize(disc_bgr, (d, d), interpolation=cv2.INTER_AREA if disc_bgr.shape[0] > d else cv2.INTER_LINEAR)
    cx = size / 2.0 + offset[0] * size
    cy = size / 2.0 - offset[1] * size
    x0 = int(round(cx - d / 2.0))
    y0 = int(round(cy - d / 2.0))
    pad = size + d
    if background is None:
        big = cv2.copyMakeBorder(disc, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        return np.ascontiguousarray(big[pad - y0: pad - y0 + size, pad - x0: pad - x0 + size])
    bg = np.asarray(background)
    if bg.shape != (size, size, 3):
        raise ValueError(f"background must be ({size}, {size}, 3), got {bg.shape}")
    canvas = np.zeros((size + 2 * pad, size + 2 * pad, 3), np.uint8)
    alpha = np.zeros(canvas.shape[:2], np.float32)
    yy, xx = np.mgrid[0:d, 0:d]
    r = np.sqrt((xx + 0.5 - d / 2.0) ** 2 + (yy + 0.5 - d / 2.0) ** 2)
    a = np.clip((d / 2.0 - r) / 1.2 + 0.5, 0.0, 1.0).astype(np.float32)
    canvas[pad + y0: pad + y0 + d, pad + x0: pad + x0 + d] = disc
    alpha[pad + y0: pad + y0 + d, pad + x0: pad + x0 + d] = a
    c = canvas[pad: pad + size, pad: pad + size].astype(np.float32)
    al = alpha[pad: pad + size, pad: pad + size, None]
    return (c * al + bg.astype(np.float32) * (1.0 - al) + 0.5).astype(np.uint8)
