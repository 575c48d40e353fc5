"""What the person at the terminal sees: a progress bar or a live board.

Files get a one-line progress bar on stderr (so stdout keeps only moves and
incidents, pipeable). Live sources get a small text board with the last
move and the clocks, redrawn in place when something changes.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from rules import Position, Side

PIECE_GLYPHS = {
    "K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵",
    "k": "将", "a": "士", "b": "象", "n": "马", "r": "车", "c": "炮", "p": "卒",
}


class ProgressBar:
    """`[#####.....]  42%  12.0/28.0 s  ply 7  5.1x` on one stderr line, at most a few times a second."""

    def __init__(self, total_frames: int | None, fps: float, stream: TextIO | None = None, width: int = 28) -> None:
        self.total = total_frames
        self.fps = fps
        self.stream = stream or sys.stderr
        self.width = width
        self.t0 = time.monotonic()
        self._last = 0.0
        self.enabled = True

    def update(self, frame_index: int, ply: int, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.25:
            return
        self._last = now
        video_s = (frame_index + 1) / self.fps
        speed = video_s / max(now - self.t0, 1e-6)
        if self.total:
            frac = min(1.0, (frame_index + 1) / self.total)
            fill = int(round(frac * self.width))
            bar = "#" * fill + "." * (self.width - fill)
            line = f"\r[{bar}] {frac * 100:3.0f}%  {video_s:6.1f}/{self.total / self.fps:.1f} s  ply {ply}  {speed:4.1f}x "
        else:
            line = f"\r{video_s:7.1f} s  ply {ply}  {speed:4.1f}x "
        self.stream.write(line)
        self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (self.width + 50) + "\r")
            self.stream.flush()


def board_text(position: Position, last_move: str | None = None, clocks_ms: dict[str, int] | None = None,
               status: str = "") -> str:
    """The position as text, red at the bottom, with the last move and clocks."""
    lines = []
    for rank in range(9, -1, -1):
        row = []
        for f in range(9):
            piece = position.piece_at(rank * 9 + f)
            row.append(PIECE_GLYPHS.get(piece, piece) if piece else "＋")
        lines.append(f"{rank} " + "".join(row))
        if rank == 5:
            lines.append("  " + "～" * 9)
    lines.append("  " + "".join(chr(0xFF41 + i) for i in range(9)))
    info = []
    if last_move:
        info.append(f"last move: {last_move}")
    info.append(f"{Side.from_fen(position.turn)} to move")
    if clocks_ms:
        info.append("clock  " + "   ".join(f"{s} {_fmt_ms(clocks_ms.get(s))}" for s in Side))
    if status:
        info.append(status)
    return "\n".join(lines + info)


def _fmt_ms(ms: int | None) -> str:
    if ms is None:
        return "--:--"
    s = max(0, int(ms)) // 1000
    return f"{s // 60:02d}:{s % 60:02d}"


class LiveView:
    """Redraws the board in place on a terminal (plain append when not a TTY)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._shown = ""

    def show(self, text: str) -> None:
        if text == self._shown:
            return
        self._shown = text
        if self.tty:
            self.stream.write("\x1b[H\x1b[2J" + text + "\n")
        else:
            self.stream.write(text + "\n\n")
        self.stream.flush()
