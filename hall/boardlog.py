"""One board as the hub keeps it: the station's journal lines put back in order, once each.

Why its own module (and no MQTT here): what makes the hall trustworthy is this bookkeeping, so
it is kept small and testable without a broker. Lines arrive with the station's `seq` (the line
number in its events.jsonl), possibly twice, possibly out of order, possibly with gaps while a
link is down. A line is taken only when every line before it is there; then it is appended to the
hub's copy (OUT/boards/<N>/events.jsonl, whose line k is the station's line k) and handed on.
A restarted hub reads its copy back and knows exactly where to ask the station to resume.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COPY_NAME = "events.jsonl"
# a station line that did not read is kept as this, so line numbers stay the station's
DAMAGED_TYPE = "damaged_line"


@dataclass(frozen=True)
class GapPolicy:
    """When the hub asks a station to send again (seconds)."""

    wait_s: float = 1.0          # a gap (later lines here, an earlier one missing) this old is asked for
    repeat_s: float = 3.0        # the same board is not asked again sooner than this


@dataclass
class Taken:
    """What one delivery changed: lines now in order (to fold), or why nothing was taken."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    duplicate: bool = False
    buffered: bool = False


class BoardLog:
    """In-order, once-only journal lines of one board, mirrored to a file."""

    def __init__(self, board: int, folder: Path, fsync: bool = False) -> None:
        self.board = board
        self.dir = folder
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "evidence").mkdir(exist_ok=True)
        self.path = self.dir / COPY_NAME
        self.fsync = fsync
        self.game = ""                      # the station's game id (its first line's wall time)
        self.lines: list[dict[str, Any]] = self._load()
        self.pending: dict[int, dict[str, Any]] = {}
        self.gap_since: float | None = None
        self.asked_at = -1e9
        self.station_seq = 0                # the station's last seq as its retained state says
        self.duplicates = 0
        self.last_taken_at: float | None = None   # monotonic time a line was last taken
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @property
    def next_seq(self) -> int:
        return len(self.lines) + 1

    def _load(self) -> list[dict[str, Any]]:
        """The copy as a previous run left it; a torn last line (killed mid-write) is cut off."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(self.path, "rb+") as f:
                f.truncate(end)
        out: list[dict[str, Any]] = []
        for n, raw in enumerate(data[:end].split(b"\n")[:-1], 1):
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                obj = None
            out.append(obj if isinstance(obj, dict) else {"type": DAMAGED_TYPE, "t": 0.0, "ply": 0, "seq": n})
        meta = self.dir / "game.id"
        if meta.exists():
            self.game = meta.read_text(encoding="utf-8").strip()
        return out

    def receive(self, seq: int, line: dict[str, Any] | None, game: str = "") -> Taken:
        """Take the station's line `seq` (None: a line the station could not read)."""
        if seq < 1:
            raise ValueError(f"board {self.board}: sequence number {seq} is not from 1")
        if game and game != self.game:
            if self.lines and self.game:
                self._start_new_game(game)
            self.game = game
            (self.dir / "game.id").write_text(game + "\n", encoding="utf-8")
        if seq < self.next_seq or seq in self.pending:
            self.duplicates += 1
            return Taken(duplicate=True)
        self.pending[seq] = line if line is not None else {"type": DAMAGED_TYPE, "t": 0.0, "ply": 0, "seq": seq}
        taken = Taken()
        while self.next_seq in self.pending:
            ln = self.pending.pop(self.next_seq)
            self._append(ln)
            taken.lines.append(ln)
        if taken.lines:
            self.last_taken_at = time.monotonic()
        if self.pending:
            taken.buffered = True
            if self.gap_since is None or taken.lines:
                self.gap_since = time.monotonic()
        else:
            self.gap_since = None
        return taken

    def _append(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        os.write(self._fd, data)
        if self.fsync:
            os.fsync(self._fd)
        self.lines.append(line)

    def _start_new_game(self, game: str) -> None:
        """The station began another recording on this board: the old copy is kept aside."""
        os.close(self._fd)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.path.rename(self.dir / f"events-{stamp}.jsonl")
        self.lines, self.pending, self.gap_since = [], {}, None
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def wants_resend(self, now: float, policy: GapPolicy) -> int | None:
        """The seq to ask the station for, when a gap has waited long enough (None: nothing to ask)."""
        if now - self.asked_at < policy.repeat_s:
            return None
        behind = self.station_seq >= self.next_seq
        gap_old = self.gap_since is not None and now - self.gap_since >= policy.wait_s
        quiet = self.last_taken_at is None or now - self.last_taken_at >= policy.wait_s
        if gap_old or (behind and not self.pending and quiet):
            self.asked_at = now
            return self.next_seq
        return None

    def close(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass
