"""Reading the board the other way round: every point-indexed array as seen with red's end and
black's end swapped (the lattice turned 180 degrees on the board).

Why a module of its own: a reader that cannot tell red's pieces from black's (a plain wooden set
under dim light) may keep the wrong end at the start, and only the first move tells (red moves
first). The tracker then turns what it holds, and these are the few rules of the turn that its
parts share. Pure: arrays in, arrays out.
"""
from __future__ import annotations

import numpy as np

# the board-plane map of the turn: point (x, y) to (8 - x, 9 - y); a homography h of the board
# read the other way round is h @ TURN
TURN = np.array([[-1.0, 0.0, 8.0], [0.0, -1.0, 9.0], [0.0, 0.0, 1.0]])


def turned_points(a: np.ndarray) -> np.ndarray:
    """A per-point array (point index first) with point p moved to 89 - p."""
    return np.ascontiguousarray(np.asarray(a)[::-1])


def turned_offsets(offsets: np.ndarray) -> np.ndarray:
    """Per-point disc offsets (spacings along the board's x and y): the points' order turned and
    every direction reversed."""
    return -turned_points(offsets)


def turned_indices(points: np.ndarray) -> np.ndarray:
    """A sorted array of point indices, each p taken to 89 - p."""
    return np.sort(89 - np.asarray(points, dtype=np.int64))


def turned_homography(h: np.ndarray) -> np.ndarray:
    """The board pose with the lattice turned: the same image, red's end and black's swapped."""
    out = np.asarray(h, dtype=np.float64) @ TURN
    return out / out[2, 2]
