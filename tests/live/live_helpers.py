"""Journals written the way the recorder writes them, for the live part's tests."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rules import START_FEN, Move, Position
from rules.notation import format_move
from runtime.journal import Journal, write_game_pgn


class GameWriter:
    """Appends a game's events to DIR/events.jsonl (and game.pgn) one call at a time."""

    def __init__(self, out_dir: Path, start_fen: str = START_FEN, headers: dict[str, str] | None = None) -> None:
        self.dir = Path(out_dir)
        self.journal = Journal(self.dir)
        self.pos = Position.from_fen(start_fen)
        self.start_fen = start_fen
        self.moves: list[Move] = []
        self.clocks: list[int | None] = []
        self.t = 0.0
        self.incidents = 0
        self.headers = headers or {"Red": "Hu", "Black": "Liu"}
        self.journal.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "detail": "recording started",
                            "fen": start_fen, "headers": self.headers, "notation": "chinese"})
        self._pgn()

    def _pgn(self) -> None:
        clocks = self.clocks if any(c is not None for c in self.clocks) else None
        write_game_pgn(self.dir, self.headers, self.start_fen, self.moves, clocks)

    def move(self, iccs: str, dt: float = 2.0, **extra: Any) -> dict[str, Any]:
        self.t += dt
        m = Move.from_iccs(iccs)
        side = "red" if self.pos.turn == "w" else "black"
        san = format_move(self.pos, m, "chinese")
        self.pos.push(m)
        self.moves.append(m)
        self.clocks.append(None)
        line = self.journal.write({"type": "move", "t": self.t, "ply": len(self.moves), "iccs": iccs, "side": side,
                                   "notation": san, "fen": self.pos.fen(), "frame": int(self.t * 15), **extra})
        self._pgn()
        return line

    def press(self, side: str, red_ms: int, black_ms: int) -> dict[str, Any]:
        """A clock press by `side`; gives `side`'s last move its %clk, as the recorder does."""
        line = self.journal.write({"type": "clock", "t": self.t + 0.3, "ply": len(self.moves), "kind": "press",
                                   "side": side, "remaining_ms": {"red": red_ms, "black": black_ms}})
        for i in range(len(self.moves) - 1, -1, -1):
            if (i % 2 == 0) == (side == "red") and self.clocks[i] is None:
                self.clocks[i] = red_ms if side == "red" else black_ms
                break
        self._pgn()
        return line

    def incident(self, kind: str = "retouch", points: list[str] | None = None, **extra: Any) -> dict[str, Any]:
        self.incidents += 1
        return self.journal.write({"type": "incident", "t": self.t, "ply": len(self.moves), "kind": kind,
                                   "side": "red", "points": points or ["e2"], "detail": f"{kind} for the test",
                                   "frames": {"before": 1, "during": 5, "after": 9}, "id": self.incidents, **extra})

    def note(self, kind: str = "touch_move_other", score: float = 0.3, points: list[str] | None = None,
             **extra: Any) -> dict[str, Any]:
        """A review note (evidence too weak to accuse on), numbered as the recorder numbers them."""
        self.notes = getattr(self, "notes", 0) + 1
        return self.journal.write({"type": "review_note", "t": self.t, "ply": len(self.moves), "kind": kind,
                                   "side": "red", "points": points or ["c3", "h2"], "score": score,
                                   "detail": f"{kind}: weak evidence for the test", "note": self.notes,
                                   "frames": {"before": 1, "during": 5, "after": 9},
                                   "signals": {"rest_s": 0.3, "fingers_s": 0.4, "face_rise": 0.1,
                                               "face_unread": False, "shift": 0.02, "other_hand": False,
                                               "beside_move": True, "rules": True}, **extra})

    def tracking(self, status: str, **extra: Any) -> dict[str, Any]:
        return self.journal.write({"type": "tracking", "t": self.t, "ply": len(self.moves), "status": status, **extra})

    def close(self) -> None:
        self.journal.close()
