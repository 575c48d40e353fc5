"""What each piece's face looks like, to tell a piece a hand handled from one it only covered.

Why: a player who touches a piece usually turns or pushes it a little (a few degrees, a few
hundredths of a spacing). The class a reader gives the piece does not change, and its measured
offset moves less than the offset noise, but its face, read from the same camera before and
after, no longer matches itself: the characters have turned. A piece the hand merely passed
over looks exactly as before once the hand is gone. The reader keeps one look per point (taken
whenever it re-reads the point, from the crops it classifies anyway); the tracker compares the
looks of two settled boards (board.incidents.look_change).

A look is the grey face inside the disc, band-passed (fine sensor noise blurred away, and the
slow shading of a shadow or a lamp taken off: what is left is the strokes of the characters and
the rim's edge), less its mean, scaled to unit length. Comparing two looks is one dot product;
the shadow of an arm resting beyond the board's edge over part of a disc does not count as a
change of look (without the band-pass, plain grey faces change 0.2-0.3 under it).
"""
from __future__ import annotations

import cv2
import numpy as np

FACE_RADIUS = 0.36      # the face compared: this share of a crop's side around its centre (the
                        # disc's rim and the board around it left out: they do not turn with it)
NOISE_BLUR = 1 / 60     # sensor noise blurred away at this scale (sd, a share of the crop's side)
SHADING_BLUR = 1 / 12   # shading is what varies at this scale and slower (sd, share of the side)


def _face_mask(size: int) -> np.ndarray:
    c = (size - 1) / 2.0
    yy, xx = np.mgrid[:size, :size]
    return np.hypot(yy - c, xx - c) < size * FACE_RADIUS


def disc_looks(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) BGR point crops (the classifier's) -> (N, D) float32 looks: the grey face of
    each disc, zero mean, unit length (a flat face, such as an empty point's, gives zeros)."""
    a = np.asarray(crops)
    if a.ndim != 4 or a.shape[1] != a.shape[2] or a.shape[3] != 3:
        raise ValueError(f"crops must be (N, S, S, 3) BGR images, got shape {a.shape}")
    size = a.shape[1]
    grey = a.astype(np.float32).mean(axis=3)
    strokes = np.stack([cv2.GaussianBlur(g, (0, 0), NOISE_BLUR * size)
                        - cv2.GaussianBlur(g, (0, 0), SHADING_BLUR * size) for g in grey]) if len(grey) else grey
    face = strokes[:, _face_mask(size)]
    face -= face.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(face, axis=1, keepdims=True)
    return np.where(norm > 1e-3, face / np.maximum(norm, 1e-3), 0.0).astype(np.float32)
