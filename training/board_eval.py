"""Whole-board accuracy on real photos labelled by eye (tests/data/real_boards/).

Why: crop-level accuracy on tight dataset crops hides what a user sees: a photo of a set the
model never met, read end to end (board finding, orientation, crops, classifier, joint
reading). These photos are a test set: no training step reads them (training/ never imports
this module's loader except to evaluate).

Labels are FEN board parts (rank 9 first) with one extension: '?' marks a point whose truth
cannot be told from the photo (a disc half under a hand, being dragged, or off the board's
edge); such points are left out of every count.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_BOARDS = ROOT / "tests" / "data" / "real_boards"
UNKNOWN = "?"

__all__ = ["LabelledBoard", "BoardScore", "load_real_boards", "fen_board_to_points", "score_board", "REAL_BOARDS"]


@dataclass(frozen=True)
class LabelledBoard:
    """One labelled photo: its file, the set it shows, the truth (90 chars, index order)."""

    image: Path
    set_name: str
    truth: str
    fen: str


@dataclass(frozen=True)
class BoardScore:
    """Points right and counted on one photo ('?' points not counted)."""

    right: int
    counted: int

    @property
    def perfect(self) -> bool:
        return self.right == self.counted


def fen_board_to_points(fen: str, where: str = "FEN") -> str:
    """FEN board part (rank 9 first, '?' allowed: a point the labeller could not read) -> 90
    characters in point-index order."""
    from vision.observation import board_from_fen
    return board_from_fen(fen, where=where, extra=UNKNOWN)


def load_real_boards(root: Path = REAL_BOARDS) -> list[LabelledBoard]:
    """The labelled photos listed in root/labels.jsonl."""
    boards = []
    path = root / "labels.jsonl"
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        r = json.loads(line)
        boards.append(LabelledBoard(image=root / r["image"], set_name=r["set"],
                                    truth=fen_board_to_points(r["fen"], f"{path}:{n}"), fen=r["fen"]))
    return boards


def score_board(read: str, truth: str) -> BoardScore:
    """Compare a 90-char reading with a truth that may hold '?'."""
    if len(read) != 90 or len(truth) != 90:
        raise ValueError(f"boards must have 90 points, got {len(read)} and {len(truth)}")
    pairs = [(a, b) for a, b in zip(read, truth) if b != UNKNOWN]
    return BoardScore(right=sum(a == b for a, b in pairs), counted=len(pairs))
