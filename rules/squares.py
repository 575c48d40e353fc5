"""Point names and board geometry shared by the whole rules package.

Squares are ints 0..89, index = rank * 9 + file, with ICCS names: files a..i from red's left,
ranks 0..9 from red's back rank (a0 = 0, i0 = 8, a9 = 81, i9 = 89). Red owns ranks 0-4.
"""
from __future__ import annotations

from rules.errors import RulesError

RED = "w"
BLACK = "b"
COLORS = (RED, BLACK)
COLOR_NAMES = {RED: "red", BLACK: "black"}

FILES = "abcdefghi"
NUM_SQUARES = 90

SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[sq % 9]}{sq // 9}" for sq in range(NUM_SQUARES))
_NAME_TO_SQUARE = {name: sq for sq, name in enumerate(SQUARE_NAMES)}


def square(file: int, rank: int) -> int:
    """Square index of (file 0..8, rank 0..9)."""
    if not (0 <= file <= 8 and 0 <= rank <= 9):
        raise RulesError(f"point (file {file}, rank {rank}) is off the board (files 0-8, ranks 0-9)")
    return rank * 9 + file


def square_file(sq: int) -> int:
    return sq % 9


def square_rank(sq: int) -> int:
    return sq // 9


def square_name(sq: int) -> str:
    """ICCS name of a square: 0 -> 'a0', 89 -> 'i9'."""
    if not isinstance(sq, int) or not 0 <= sq < NUM_SQUARES:
        raise RulesError(f"square {sq!r} is not a point index (0..89)")
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> int:
    """Square index of an ICCS point name ('e0', case-insensitive)."""
    sq = _NAME_TO_SQUARE.get(name.strip().lower()) if isinstance(name, str) else None
    if sq is None:
        raise RulesError(f"{name!r} is not a point name (file a-i then rank 0-9, e.g. 'e0')")
    return sq


def opposite(color: str) -> str:
    if color == RED:
        return BLACK
    if color == BLACK:
        return RED
    raise RulesError(f"colour {color!r} must be 'w' (red) or 'b' (black)")


def placement_from_points(points: str) -> str:
    """FEN placement (rank 9 first) of a 90-character point-order string ('.' = empty).

    Vision readings, sim truth and the tracker all hold boards as such strings; this is the one
    place that turns them into FEN, so every part writes the same placement.
    """
    if len(points) != NUM_SQUARES:
        raise RulesError(f"board string must have {NUM_SQUARES} characters (one per point), got {len(points)}")
    rows = []
    for rank in range(9, -1, -1):
        row, empty = [], 0
        for c in points[rank * 9:rank * 9 + 9]:
            if c == ".":
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(c)
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return "/".join(rows)
