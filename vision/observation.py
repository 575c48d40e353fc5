"""What the vision stage tells the tracker about one frame.

This is the contract between `vision` (producer) and `board` (consumer); see
docs/conventions.md. Arrays are indexed by point index = rank * 9 + file
(a0 = 0, i9 = 89) and classes follow CLASSES.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CLASSES: tuple[str, ...] = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")
NUM_POINTS = 90


@dataclass
class BoardPose:
    """Where the board is in the image.

    `homography` maps board-plane coordinates (x = file 0..8, y = rank 0..9,
    in units of the point spacing, a0 = (0, 0), i9 = (8, 9)) to image pixels.
    `corners` are the image points of a9, i9, i0, a0 (4x2 float).
    `red_side` says on which image edge red's back rank lies: "bottom",
    "top", "left" or "right" (as the image is shown).
    """

    homography: np.ndarray
    corners: np.ndarray
    confidence: float
    red_side: str = "bottom"


@dataclass
class Observation:
    """One frame's reading: pose, motion, occlusion and per-point class probabilities."""

    t: float
    frame_index: int
    pose: BoardPose | None
    quiet: bool
    occluded: np.ndarray = field(default_factory=lambda: np.zeros(NUM_POINTS, dtype=bool))
    probs: np.ndarray = field(default_factory=lambda: np.full((NUM_POINTS, len(CLASSES)), 1.0 / len(CLASSES), dtype=np.float32))
    offset: np.ndarray = field(default_factory=lambda: np.zeros((NUM_POINTS, 2), dtype=np.float32))
    """Disc centre minus point position, in point spacings (x along files, y along ranks)."""
    lattice: int = 0
    """Which lattice the offsets are measured against: the reader counts every lattice it takes
    (a new lock, a better lattice found, the lock re-seated on a known position). Offsets measured
    against two different lattices differ by the lattices' difference, not by the discs moving."""
    looks: np.ndarray | None = None
    """(90, D) each point's face when the reader last read it (vision.looks; zeros where never
    read), or None from a reader that does not look: how the tracker tells a piece a hand
    turned or pushed from one it only covered. Shared between frames, never changed in place."""

    def board_string(self) -> str:
        """The most likely class per point as 90 characters (index order)."""
        return "".join(CLASSES[i] for i in np.argmax(self.probs, axis=1))


def board_fen(board: str) -> str:
    """90 characters in point-index order (rank 0 first, '.' empty) -> FEN board part (rank 9 first)."""
    if len(board) != 90:
        raise ValueError(f"board must have 90 characters, got {len(board)}")
    rows = []
    for r in range(9, -1, -1):
        row, empty = "", 0
        for ch in board[r * 9:(r + 1) * 9]:
            if ch == ".":
                empty += 1
            else:
                if empty:
                    row += str(empty)
                    empty = 0
                row += ch
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


_FEN_ALIASES = {"H": "N", "E": "B", "h": "n", "e": "b"}


def board_from_fen(fen: str, where: str = "FEN", extra: str = "") -> str:
    """FEN board part (or a whole FEN) -> 90 characters in point-index order ('.' empty).

    H/E are read as N/B (horse, elephant); `extra` lists further characters allowed on points
    (a labeller's '?'). Errors name `where` the FEN came from, the rank and the character."""
    rows = fen.strip().split()[0].split("/") if fen.strip() else []
    if len(rows) != 10:
        raise ValueError(f"{where} {fen!r}: a board needs 10 ranks separated by '/', got {len(rows)}")
    out = [""] * NUM_POINTS
    for k, row in enumerate(rows):
        cells: list[str] = []
        for ch in row:
            if ch.isdigit():
                cells += ["."] * int(ch)
            elif ch in "KABNRCPkabnrcpHEhe" + extra:
                cells.append(_FEN_ALIASES.get(ch, ch))
            else:
                raise ValueError(f"{where} {fen!r}: rank {9 - k}: {ch!r} is not a piece letter or digit")
        if len(cells) != 9:
            raise ValueError(f"{where} {fen!r}: rank {9 - k} has {len(cells)} points, not 9")
        for f, ch in enumerate(cells):
            out[(9 - k) * 9 + f] = ch
    return "".join(out)
