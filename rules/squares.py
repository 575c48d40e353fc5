"""Point names and board geometry shared by the whole rules package.

Squares are ints 0..89, index = rank * 9 + file, with ICCS names: files a..i from red's left,
ranks 0..9 from red's back rank (a0 = 0, i0 = 8, a9 = 81, i9 = 89). Red owns ranks 0-4.
"""
from __future__ import annotations

from enum import Enum

from rules.errors import RulesError

RED = "w"
BLACK = "b"
COLORS = (RED, BLACK)
COLOR_NAMES = {RED: "red", BLACK: "black"}



class Side(str, Enum):
    """A player, by the word the journal and the clock use ("red" / "black").

    Why an enum: the side was spelt three ways across the project (FEN's "w"/"b", the
    journal's "red"/"black", the clock's 0/1). One type converts between them, and because
    it is a `str` whose value is the journal word, comparing with or writing "red"/"black"
    (JSON included) gives exactly what the plain strings gave.
    """

    RED = "red"
    BLACK = "black"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def from_fen(cls, letter: str) -> "Side":
        """The side of FEN's side-to-move letter: "w" (or "r") is red, "b" is black."""
        if letter in ("w", "r"):
            return cls.RED
        if letter == "b":
            return cls.BLACK
        raise RulesError(f"side to move {letter!r} must be 'w' (red, 'r' accepted) or 'b' (black)")

    @classmethod
    def of_piece(cls, letter: str) -> "Side":
        """The owner of a FEN piece letter: upper case is red, lower case black."""
        if len(letter) != 1 or not letter.isalpha():
            raise RulesError(f"{letter!r} is not a FEN piece letter")
        return cls.RED if letter.isupper() else cls.BLACK

    @classmethod
    def parse(cls, value: object) -> "Side":
        """A side from any of its spellings: a Side, "red"/"black", FEN's "w"/"b"/"r", the clock's 0/1."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("red", "black"):
                return cls(word)
            if word in ("w", "r", "b"):
                return cls.from_fen(word)
        elif isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return (cls.RED, cls.BLACK)[value]
        raise RulesError(f"side {value!r} must be 'red' or 'black' (or FEN 'w'/'b', or clock index 0/1)")

    @property
    def fen(self) -> str:
        """FEN's side-to-move letter: "w" for red, "b" for black."""
        return RED if self is Side.RED else BLACK

    @property
    def clock_index(self) -> int:
        """The clock's index for this side (red 0, black 1), as in remaining_ms pairs."""
        return 0 if self is Side.RED else 1

    @property
    def opponent(self) -> "Side":
        return Side.BLACK if self is Side.RED else Side.RED

    def owns(self, letter: str) -> bool:
        """Whether FEN piece letter `letter` is this side's (upper case red, lower case black)."""
        return letter.isupper() == (self is Side.RED)


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
