"""An arbiter's correction of the record, checked by the rules engine before anything is written.

Why here (pure, in board/): the command line, the live server, the hall station and the recorder
all need the same answer to "do these moves follow from ply N of this game?", and the same
error naming the move and the ply that do not. The moves may be written in ICCS (h2e2), WXF
(C2.5), Chinese (炮二平五) or 一字三码; each is read in the position it is played from
(rules.notation.parse_move), so a file notation means what it means there.
Pure: a start position, the recorded moves and the arbiter's texts in, an `ArbiterLine` out.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules import Move, Position, RulesError
from rules.notation import parse_move


class ArbiterLineError(ValueError):
    """A correction that cannot be made (the message names the ply and the move when one is at fault)."""


@dataclass(frozen=True)
class ArbiterLine:
    """The record from `from_ply` on replaced by `moves`: what it replaced (`was`) and where it ends."""

    from_ply: int
    moves: list[Move]
    was: list[Move]
    fen: str                 # the position after the last of `moves`

    @property
    def plies(self) -> int:
        """Plies in the game after the correction."""
        return self.from_ply - 1 + len(self.moves)


def split_moves(text: str) -> list[str]:
    """'h2e2 h9g7', 'h2e2,h9g7' or '1. h2e2 h9g7' -> the move texts (move numbers dropped)."""
    parts = text.replace(",", " ").replace(";", " ").split()
    return [p for p in parts if not p.rstrip(".").isdigit()]


def _side(pos: Position) -> str:
    return "red" if pos.turn in ("w", "r") else "black"


def arbiter_line(start_fen: str, recorded: list[str], from_ply: int, texts: list[str]) -> ArbiterLine:
    """Check that `texts` (one move each, any notation) follow from ply `from_ply` - 1 of the game
    `recorded` (ICCS) from `start_fen`, and say what they replace.

    `from_ply` may be 1 .. len(recorded) + 1 (the next ply: moves the camera missed at the end).
    No moves at all cuts the record back to ply `from_ply` - 1 (plies nobody played). A line
    that changes nothing is refused too, so a repeated click journals nothing.
    """
    n = len(recorded)
    if from_ply < 1 or from_ply > n + 1:
        raise ArbiterLineError(f"a correction from ply {from_ply}: the record has {n} plies, so it starts at "
                               f"ply 1 to {n + 1}")
    if not texts and from_ply > n:
        raise ArbiterLineError(f"no moves given, and the record has no ply {from_ply} to take back")
    pos = Position.from_fen(start_fen)
    for i, iccs in enumerate(recorded[:from_ply - 1], 1):
        try:
            pos.push(Move.from_iccs(iccs))
        except RulesError as exc:   # the journal's own record does not follow: say where
            raise ArbiterLineError(f"the record itself does not follow at ply {i} ({iccs}): {exc}") from None
    moves: list[Move] = []
    for i, text in enumerate(texts):
        ply = from_ply + i
        try:
            m = parse_move(pos, text)
        except RulesError as exc:    # NotationError: malformed, no such piece, not legal, ambiguous
            raise ArbiterLineError(f"ply {ply}: {text!r} is not a legal move for {_side(pos)} here: {exc}") from None
        pos.push(m)
        moves.append(m)
    was = [Move.from_iccs(x) for x in recorded[from_ply - 1:]]
    if moves == was:
        raise ArbiterLineError(f"the record already has {' '.join(m.iccs() for m in moves)} from ply {from_ply}; "
                               f"nothing to correct")
    return ArbiterLine(from_ply, moves, was, pos.fen())
