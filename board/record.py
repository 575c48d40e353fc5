"""The recorded game: start position, moves, their times, and repetition bookkeeping.

Why its own object: the tracker used to keep the position, the move list, the move times and the
position counts as four loose attributes that had to change together (accept, correction,
resume). Here they change only through `play` and `take_back`, so they cannot drift apart.
Pure: no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules import Move, Position, Side
from rules.notation import format_move


@dataclass
class PlayedMove:
    """What recording one move gave: who moved, its notation, the piece it took, and how many
    times the position after it has now occurred."""

    move: Move
    side: Side
    notation: str
    captured: str | None
    occurrences: int


@dataclass
class RepetitionMemory:
    """The repetition ruling last reported, so one ruling is reported once while it lasts."""

    last_ruling: str | None = None


@dataclass
class GameRecord:
    """The game as recorded so far, from `start_fen`."""

    start_fen: str
    position: Position
    notation: str = "chinese"
    moves: list[Move] = field(default_factory=list)
    move_times: list[float | None] = field(default_factory=list)   # source time of each ply (None: resumed)
    counts: dict[int, int] = field(default_factory=dict)            # zobrist hash -> occurrences
    repetition: RepetitionMemory = field(default_factory=RepetitionMemory)

    @classmethod
    def starting(cls, start: Position, moves: list[Move] | None = None, notation: str = "chinese") -> "GameRecord":
        """A record from `start` (copied), with `moves` already played (a resumed game: no times)."""
        pos = start.copy()
        rec = cls(start.fen(), pos, notation, counts={pos.zobrist_hash(): 1})
        for m in moves or []:
            rec.play(m, None)
        return rec

    @property
    def ply(self) -> int:
        return len(self.moves)

    def play(self, m: Move, t: float | None) -> PlayedMove:
        """Record m at source time t (None: time unknown, a resumed ply)."""
        side = Side.from_fen(self.position.turn)
        text = format_move(self.position, m, self.notation)
        captured = self.position.piece_at(m.to_sq)
        self.position.push(m)
        self.moves.append(m)
        self.move_times.append(t)
        h = self.position.zobrist_hash()
        self.counts[h] = self.counts.get(h, 0) + 1
        return PlayedMove(m, side, text, captured, self.counts[h])

    def take_back(self) -> Move:
        """Take the last recorded ply back (a correction replaces it)."""
        h = self.position.zobrist_hash()
        self.counts[h] = self.counts.get(h, 1) - 1
        if self.counts[h] <= 0:
            del self.counts[h]
        self.position.pop()
        self.move_times.pop()
        return self.moves.pop()
