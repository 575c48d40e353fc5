"""Shared vocabulary of the move notations: each side's own frame, piece kinds and names,
tandem-piece bookkeeping, and the error-message phrasing.

Why a shared module: WXF, Chinese and 一字三码 all describe a move *relative to the player*
(files counted from the mover's right, "forward" towards the opponent) and all need to know
which pieces of one kind share a file. Doing that arithmetic once keeps the three notations
consistent with each other, which is what makes round-tripping trustworthy.

Frame conventions (every side counts in its own frame, as Chinese notation does):
- file 1..9 from the mover's RIGHT: red file = 9 - ICCS file index, black file = index + 1;
- rank 1..10 from the mover's own back rank: red rank = ICCS rank + 1, black = 10 - ICCS rank;
- "forward" is towards the opponent (up the ranks for red, down for black);
- "front-to-back" orders pieces on one file from the one nearest the opponent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from rules.errors import MoveError, NotationError
from rules.move import Move
from rules.squares import BLACK, RED, SQUARE_NAMES

KINDS = "KABNRCP"
KIND_NAMES = {"K": "general", "A": "advisor", "B": "elephant", "N": "horse",
              "R": "chariot", "C": "cannon", "P": "soldier"}
KIND_PLURALS = {k: v + "s" for k, v in KIND_NAMES.items()}
COLOR_WORDS = {RED: "red", BLACK: "black"}
LINEAR_KINDS = frozenset("KRCP")     # 进/退 count steps; 平 names the file
DIAGONAL_KINDS = frozenset("ABN")    # 进/退 name the landing file; never 平
COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}

CHINESE_NUMERALS = "一二三四五六七八九"


class NotationSyntaxError(NotationError):
    """The text is not written in the notation at all (as opposed to naming no legal move).

    Kept apart so a game reader can fall back to detecting the notation when a file's
    [Format] tag is wrong, without hiding genuine "no such move" errors.
    """


def color_of(piece: str) -> str:
    return RED if piece.isupper() else BLACK


def frame_file(sq: int, color: str) -> int:
    """File 1..9 counted from `color`'s right."""
    f = sq % 9
    return 9 - f if color == RED else f + 1


def frame_rank(sq: int, color: str) -> int:
    """Rank 1..10 counted from `color`'s own back rank."""
    r = sq // 9
    return r + 1 if color == RED else 10 - r


def square_from_frame(file: int, rank: int, color: str) -> int:
    """Inverse of (frame_file, frame_rank)."""
    if color == RED:
        return (rank - 1) * 9 + (9 - file)
    return (10 - rank) * 9 + (file - 1)


def forward_delta(from_sq: int, to_sq: int, color: str) -> int:
    """Ranks gained towards the opponent (negative = backwards)."""
    d = to_sq // 9 - from_sq // 9
    return d if color == RED else -d


def action_and_number(kind: str, from_sq: int, to_sq: int, color: str) -> tuple[str, int]:
    """The (action, number) pair every file-relative notation writes for a move.

    action is '+' (进, forward), '-' (退, back) or '.' (平, sideways). For pieces that move in
    straight lines the number of a forward/backward move is the count of steps; for the
    diagonal movers (advisor, elephant, horse) and for every sideways move it is the file of
    the landing point.
    """
    d = forward_delta(from_sq, to_sq, color)
    if d == 0:
        return ".", frame_file(to_sq, color)
    action = "+" if d > 0 else "-"
    if kind in DIAGONAL_KINDS:
        return action, frame_file(to_sq, color)
    return action, abs(d)


@dataclass(frozen=True)
class SideFiles:
    """Where one side's pieces stand, by kind and by file, each file ordered front to back."""

    color: str
    columns: dict[str, dict[int, tuple[int, ...]]]

    @classmethod
    def of(cls, pieces: dict[int, str], color: str) -> "SideFiles":
        columns: dict[str, dict[int, list[int]]] = {k: {} for k in KINDS}
        for sq, piece in pieces.items():
            if color_of(piece) != color:
                continue
            columns[piece.upper()].setdefault(frame_file(sq, color), []).append(sq)
        # front = nearest the opponent: highest rank for red, lowest for black
        ordered = {
            k: {f: tuple(sorted(sqs, key=lambda s: -(s // 9) if color == RED else s // 9))
                for f, sqs in files.items()}
            for k, files in columns.items()
        }
        return cls(color, ordered)

    def column(self, kind: str, file: int) -> tuple[int, ...]:
        return self.columns[kind].get(file, ())

    def tandem_files(self, kind: str) -> list[int]:
        """Files (ascending) holding two or more pieces of `kind`."""
        return sorted(f for f, col in self.columns[kind].items() if len(col) >= 2)

    def where(self, sq: int, kind: str, color: str) -> tuple[int, int, int]:
        """(file, index front-to-back, pieces of that kind on the file) for the piece on sq."""
        f = frame_file(sq, color)
        col = self.columns[kind][f]
        return f, col.index(sq), len(col)


# ---- phrasing shared by the error messages ------------------------------------------------

def file_label(file: int, color: str, chinese_numerals_for_red: bool) -> str:
    """How a notation names a file in its messages: 二 for red in Chinese, else the digit."""
    if color == RED and chinese_numerals_for_red:
        return CHINESE_NUMERALS[file - 1]
    return str(file)


def action_phrase(kind: str, action: str, number: int, color: str, numerals: bool) -> str:
    """English for what the move text asks, e.g. 'move forward to file 7', 'move back 2'."""
    if action == ".":
        return f"move sideways to file {file_label(number, color, numerals)}"
    verb = "move forward" if action == "+" else "move back"
    if kind in DIAGONAL_KINDS:
        return f"{verb} to file {file_label(number, color, numerals)}"
    return f"{verb} {number} point{'s' if number != 1 else ''}"


def describe_files(files: Iterable[int], color: str, numerals: bool) -> str:
    labels = [file_label(f, color, numerals) for f in files]
    return ", ".join(labels)


def leaves_general_exposed_reason(pos, move, color: str) -> str:
    """Why a pseudo-legal move is illegal: the generals would face, or the general is in check."""
    probe = pos.copy()
    probe.push_unchecked(move)
    try:
        king = probe.king_square(color)
        other = probe.king_square(BLACK if color == RED else RED)
    except ValueError:  # odd set-ups without a general: fall back to the generic reason
        return f"it would leave the {COLOR_WORDS[color]} general in check"
    if king is not None and other is not None and king % 9 == other % 9:
        lo, hi = sorted((king, other))
        if all(probe.piece_at(s) is None for s in range(lo + 9, hi, 9)):
            return "the two generals would face each other on an open file"
    return f"it would leave the {COLOR_WORDS[color]} general in check"


def implied_target(kind: str, from_sq: int, action: str, number: int, color: str) -> int | None:
    """The point a piece on `from_sq` would land on for (action, number), if on the board."""
    f, r = frame_file(from_sq, color), frame_rank(from_sq, color)
    step = 1 if action == "+" else -1
    if action == ".":
        if kind in DIAGONAL_KINDS:
            return None
        tf, tr = number, r
    elif kind in LINEAR_KINDS:
        tf, tr = f, r + step * number
    else:
        dr = {"A": {1: 1}, "B": {2: 2}, "N": {1: 2, 2: 1}}[kind].get(abs(number - f))
        if dr is None:
            return None
        tf, tr = number, r + step * dr
    if not (1 <= tf <= 9 and 1 <= tr <= 10) or (tf, tr) == (f, r):
        return None
    return square_from_frame(tf, tr, color)


_GENERIC_REASON = re.compile(r"^an? .+ cannot move from \S+ to \S+(?: \((?P<hint>.*)\))?$")


def why_cannot(pos, from_sq: int, to_sq: int) -> str | None:
    """Why the piece on from_sq cannot go to to_sq, in the rules core's words ('horse leg
    blocked on h1', 'a soldier moves sideways only after crossing the river'); None if it can
    or the core gives no more than "cannot move"."""
    move = Move(from_sq, to_sq)
    try:
        pos.copy().push(move)
    except MoveError as exc:
        reason = str(exc)
    else:
        return None
    for prefix in ("illegal move ", move.iccs() + ": "):
        if reason.startswith(prefix):
            reason = reason[len(prefix):]
    generic = _GENERIC_REASON.match(reason)
    if generic:
        reason = generic.group("hint")
    return f"{SQUARE_NAMES[from_sq]}{SQUARE_NAMES[to_sq]}: {reason}" if reason else None
