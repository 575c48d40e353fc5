"""Illegal move (`illegal_move`): a piece moved in a way the rules forbid. Physically: the settled
board differs from the record by one piece lifted from one point and put down on another
(board.explain.physical_move), and no legal move sequence explains it.

It is judged by the tracker (board/tracker.py, `_unexplained`), with the reason the rules give
from board.settle.illegal_reason; it is stated here for the arbiter. The board keeps showing the
illegal position until it is corrected, and a legal sequence accepted later that explains the
same change retracts it (board/tracker.py, `_refuted_illegal`). Repetition is judged by
rules.repetition and stated by the tracker too.
"""
from __future__ import annotations

from rules import Move, Side

from ..events import IncidentEvent
from ..explain import PhysicalMove
from .facts import piece_label


def illegal_move_event(t: float, ply: int, side: Side, phys: PhysicalMove, reason: str,
                       board_shows: str, frames: dict[str, int]) -> IncidentEvent:
    """The incident for the physical move `phys` by `side` that the rules forbid (`reason`);
    `board_shows`: the placement the board shows meanwhile."""
    m = Move(phys.from_sq, phys.to_sq)
    return IncidentEvent(t, ply, "illegal_move", side, [phys.from_sq, phys.to_sq],
                         f"illegal move of the {piece_label(phys.piece)} {m.iccs()}: {reason}; "
                         f"the board shows it until corrected",
                         frames=frames, extra={"move": m.iccs(), "reason": reason, "board_shows": board_shows})
