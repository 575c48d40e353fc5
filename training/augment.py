"""Augmentation for piece crops (numpy/OpenCV, training only).

Geometric changes are applied to a *wide* crop (1.5 spacings, real context
around the point) so a rotated or zoomed-out crop still shows the board, not
made-up borders; the disc offset label is moved with the pixels. Photometric
changes model what cameras at tournament tables do: colour casts from lamps,
under/over exposure, soft focus, low resolution far from the camera, sensor
noise, JPEG blocks, a finger or sleeve poking in, a shadow across the board.
Hue is never shifted far: red vs black ink is part of the class.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.crops import disc_to_point_crop

CROP = 48
PX_PER_SPACING = 48.0


def geometric(wide: np.ndarray, offset: np.ndarray, rng: np.random.Generator, out: int = CROP,
              max_shift: float = 0.06, scale_range: tuple[float, float] = (0.87, 1.15),
              rotate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Rotate (any angle), scale and shift a wide crop; return the centre crop and its moved offset.

    `offset` (x files, y ranks, spacings) is the disc centre relative to the wide crop centre.
    """
    c = wide.shape[0] / 2.0
    ang = float(rng.uniform(0, 360)) if rotate else 0.0
    s = float(rng.uniform(*scale_range))
    t = rng.uniform(-max_shift, max_shift, size=2) * PX_PER_SPACING
    M = cv2.getRotationMatrix2D((c, c), ang, s)
    M[:, 2] += (out / 2.0 - c) + t
    img = cv2.warpAffine(wide, M, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)
    o_img = np.array([offset[0], -offset[1]]) * PX_PER_SPACING
    o2 = M[:, :2] @ o_img + t
    return img, np.array([o2[0], -o2[1]], np.float32) / PX_PER_SPACING


def real_to_wide(disc: np.ndarray, rng: np.random.Generator, background: np.ndarray | None,
                 fill_range: tuple[float, float] = (0.80, 0.97), max_off: float = 0.06,
                 wide: int = 72) -> tuple[np.ndarray, np.ndarray]:
    """Place a tight real disc crop into a wide crop; returns (wide crop, disc offset in spacings)."""
    fill = float(rng.uniform(*fill_range)) * PX_PER_SPACING / wide
    off = rng.uniform(-max_off, max_off, size=2)
    img = disc_to_point_crop(disc, size=wide, fill=fill, offset=(off[0] * PX_PER_SPACING / wide,
                                                                 off[1] * PX_PER_SPACING / wide),
                             background=background)
    return img, off.astype(np.float32)


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Random lamp colour, exposure, focus, resolution, noise, JPEG, occluder and shadow."""
    x = img.astype(np.float32)
    s = strength
    if rng.random() < 0.8:   # colour cast / white balance
        x *= rng.uniform(1 - 0.25 * s, 1 + 0.25 * s, size=3)[None, None, :]
    if rng.random() < 0.8:   # contrast + brightness
        m = x.mean()
        x = (x - m) * rng.uniform(1 - 0.4 * s, 1 + 0.35 * s) + m + rng.uniform(-40, 40) * s
    if rng.random() < 0.4:   # saturation
        g = x.mean(axis=2, keepdims=True)
        x = g + (x - g) * rng.uniform(1 - 0.45 * s, 1 + 0.3 * s)
    if rng.random() < 0.3:   # shadow / light gradient across the crop
        h, w = x.shape[:2]
        a = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / w
        x *= (1.0 + rng.uniform(0.2, 0.6) * s * np.clip(ramp + rng.uniform(-0.3, 0.3), -1, 1))[..., None]
    x = np.clip(x, 0, 255)
    if rng.random() < 0.3:   # gamma
        x = 255.0 * (x / 255.0) ** rng.uniform(0.65, 1.5)
    if rng.random() < 0.12:  # occluder (finger, sleeve, cable) poking in from an edge
        h, w = x.shape[:2]
        col = rng.choice([np.array([90, 120, 170]), np.array([60, 80, 120]), np.array([40, 40, 40]),
                          np.array([200, 200, 200]), rng.uniform(0, 255, 3)])
        mask = np.zeros((h, w), np.uint8)
        side = rng.integers(4)
        depth = int(rng.uniform(0.08, 0.25) * w)
        centre = int(rng.uniform(0.2, 0.8) * w)
        half = int(rng.uniform(0.1, 0.3) * w)
        if side == 0:
            cv2.ellipse(mask, (centre, 0), (half, depth), 0, 0, 360, 1, -1)
        elif side == 1:
            cv2.ellipse(mask, (centre, h - 1), (half, depth), 0, 0, 360, 1, -1)
        elif side == 2:
            cv2.ellipse(mask, (0, centre), (depth, half), 0, 0, 360, 1, -1)
        else:
            cv2.ellipse(mask, (w - 1, centre), (depth, half), 0, 0, 360, 1, -1)
        m = mask.astype(bool)
        x[m] = col * rng.uniform(0.7, 1.2)
    x = np.clip(x, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.25:   # soft focus / motion
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.3))
    elif r < 0.45:  # far from the camera: fewer pixels per disc
        k = int(rng.integers(18, 36))
        x = cv2.resize(cv2.resize(x, (k, k), interpolation=cv2.INTER_AREA), (img.shape[1], img.shape[0]),
                       interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:  # sensor noise
        x = np.clip(x.astype(np.float32) + rng.normal(0, rng.uniform(1, 8), x.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.35:  # JPEG
        ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        if ok:
            x = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return x
