"""Turning what a binary or coordinate format stores (pieces on points, from/to points) into a
checked `Game`.

The club formats store moves as bare point pairs, with no notion of legality or of whose turn
it is; the side to move is the colour of the first piece moved. Every move is replayed through
`rules.position`, so a game read from any format holds only legal moves, and a bad one is
reported with its ply and its byte offset in the file.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.errors import MoveError, RulesError
from rules.move import Move
from rules.pgn import Game
from rules.position import START_FEN, Position
from rules.squares import BLACK, RED, SQUARE_NAMES, placement_from_points

from rules.formats.errors import GameFileError

_STANDARD_PLACEMENT = START_FEN.split()[0]


@dataclass(frozen=True)
class PointMove:
    """One move as a format stores it: point indices (rank * 9 + file) and where it was read."""

    from_sq: int
    to_sq: int
    offset: int | None = None        # byte / character offset of the record in the file
    comment: str | None = None


@dataclass
class RawGame:
    """A game as decoded from a file, before the moves are checked."""

    points: dict[int, str]                       # square -> FEN letter
    moves: list[PointMove] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    result: str = "*"
    initial_comment: str | None = None
    turn: str | None = None                      # None: the colour of the first piece moved
    board_offset: int | None = None              # where the position was read (for errors)
    variations: int = 0                          # variations in the file, not read (main line only)


def build_game(raw: RawGame, error: type[GameFileError], source: str | None = None) -> Game:
    """Replay `raw` into a Game; `error` (with ply and byte offset) for a bad position or move."""
    placement = placement_from_points("".join(raw.points.get(sq, ".") for sq in range(90)))
    turn = raw.turn
    if turn is None:
        turn = RED
        if raw.moves:
            first = raw.points.get(raw.moves[0].from_sq)
            if first is not None and first.islower():
                turn = BLACK
    try:
        pos = Position.from_board(placement, turn)
    except RulesError as exc:
        raise error(f"the stored position is not a Xiangqi position ({exc})", source=source,
                    offset=raw.board_offset) from None
    start_fen = None if (placement == _STANDARD_PLACEMENT and turn == RED) else pos.fen()
    moves: list[Move] = []
    comments: list[str | None] = []
    for ply, pm in enumerate(raw.moves):
        move, reason = _checked(pm)
        if move is not None:
            try:
                pos.push(move)
            except MoveError as exc:
                reason = str(exc).split(": ", 1)[-1]
        if move is None or reason is not None:
            raise error(f"move {_name(pm.from_sq)}-{_name(pm.to_sq)} is not legal here: {reason}",
                        source=source, ply=ply, offset=pm.offset,
                        token=f"{_name(pm.from_sq)}{_name(pm.to_sq)}")
        moves.append(move)
        comments.append(pm.comment or None)
    return Game(headers={k: v for k, v in raw.headers.items() if v}, start_fen=start_fen,
                moves=moves, comments=comments, result=raw.result,
                initial_comment=raw.initial_comment or None, skipped_variations=raw.variations)


def _name(sq: int) -> str:
    return SQUARE_NAMES[sq] if 0 <= sq < 90 else f"point#{sq}"


def _checked(pm: PointMove) -> tuple[Move | None, str | None]:
    """The Move of a stored point pair, or why the pair is no move at all."""
    if not (0 <= pm.from_sq < 90 and 0 <= pm.to_sq < 90):
        return None, "a point is off the board"
    if pm.from_sq == pm.to_sq:
        return None, "it does not move the piece"
    return Move(pm.from_sq, pm.to_sq), None


def points_of(pos: Position) -> dict[int, str]:
    """square -> FEN letter for every piece of `pos`."""
    return dict(pos.pieces())


# The 32 piece slots shared by XQF and DhtmlXQ: red R N B A K A B N R C C P P P P P, then black.
SLOT_KINDS = "RNBAKABNRCCPPPPP"


def slots_to_points(slots: list[int | None]) -> tuple[dict[int, str], list[int]]:
    """32 slot squares (None = not on the board) -> (square -> letter, the slots that clash)."""
    points: dict[int, str] = {}
    clashes = []
    for i, sq in enumerate(slots):
        if sq is None:
            continue
        letter = SLOT_KINDS[i % 16] if i < 16 else SLOT_KINDS[i % 16].lower()
        if sq in points:
            clashes.append(i)
        points[sq] = letter
    return points, clashes


def points_to_slots(points: dict[int, str]) -> list[int | None]:
    """square -> letter -> the 32 slots (None where the set has no such piece on the board).

    A position with more pieces of a kind than a set holds (three red chariots) cannot be
    written to a slot format: ValueError names the piece.
    """
    slots: list[int | None] = [None] * 32
    for sq in sorted(points):
        letter = points[sq]
        base = 0 if letter.isupper() else 16
        kind = letter.upper()
        for i in range(16):
            if SLOT_KINDS[i] == kind and slots[base + i] is None:
                slots[base + i] = sq
                break
        else:
            raise ValueError(f"the position has more {letter!r} pieces than a set holds "
                             f"(one on {SQUARE_NAMES[sq]} has no slot)")
    return slots
