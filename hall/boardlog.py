"""One board as the hub keeps it: the station's journal lines put back in order, once each.

Why its own module (and no MQTT here): what makes the hall trustworthy is this bookkeeping, so
it is kept small and testable without a broker. Lines arrive with the station's `seq` (the line
number in its events.jsonl), possibly twice, possibly out of order, possibly with gaps while a
link is down. A line is taken only when every line before it is there; then it is appended to the
hub's copy (OUT/boards/<N>/events.jsonl, whose line k is the station's line k) and handed on.
A restarted hub reads its copy back and knows exactly where to ask the station to resume.

What is held back is bounded (HeldLimits): lines that came early wait for the missing ones only
up to a count and a size; beyond it a line is dropped, since the station still has it and sends it
again when asked (wants_resend). When the station starts another game on the board, the old copy
is set aside whole under games/<k>/ (its lines, game id and evidence), so it stays reachable.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.bounded_read import JOURNAL_LINE_MAX_BYTES, iter_lines_bounded

from . import topics

COPY_NAME = "events.jsonl"
GAME_ID_NAME = "game.id"
PGN_NAME = "game.pgn"
EVIDENCE_DIR = "evidence"
EARLIER_DIR = "games"            # OUT/boards/N/games/<k>/: the board's earlier games, k = 1, 2, …
TMP_PREFIX = ".incoming-"        # evidence being written; never a name a station may send (leading dot)
# a station line that did not read is kept as this, so line numbers stay the station's
DAMAGED_TYPE = "damaged_line"


class Refused(ValueError):
    """A message the hub will not take: `reason` is the short word it is counted under."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class HeldLimits:
    """How much of a board's early lines (later ones before an earlier is there) is held back."""

    max_lines: int = 1000
    max_bytes: int = 4 * 2**20

    def __post_init__(self) -> None:
        if self.max_lines < 1 or self.max_bytes < 1:
            raise ValueError(f"held-back limits {self.max_lines} lines, {self.max_bytes} bytes must be above 0")


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
    dropped: int = 0                 # early lines let go to keep the held-back lines within bounds
    set_aside: Path | None = None    # a new game began: the old copy now lies in this folder


class BoardLog:
    """In-order, once-only journal lines of one board, mirrored to a file."""

    def __init__(self, board: int, folder: Path, fsync: bool = False, held: HeldLimits | None = None,
                 max_earlier: int = 64) -> None:
        self.board = board
        self.dir = folder
        self.dir.mkdir(parents=True, exist_ok=True)
        self.evidence_dir.mkdir(exist_ok=True)
        self._sweep_partial_evidence()
        self.path = self.dir / COPY_NAME
        self.fsync = fsync
        self.held = held or HeldLimits()
        self.max_earlier = max_earlier      # earlier games kept per board (a flood of game ids stops here)
        self.game = ""                      # the station's game id (its first line's wall time)
        self.lines: list[dict[str, Any]] = self._load()
        self.pending: dict[int, dict[str, Any]] = {}
        self.held_bytes = 0                 # encoded size of the lines in `pending`
        self._held_size: dict[int, int] = {}
        self.dropped = 0                    # early lines let go (held-back limits), asked for again later
        self._dropped_upto = 0              # the highest seq let go: a gap until the copy gets past it
        self.gap_since: float | None = None
        self.asked_at = -1e9
        self.station_seq = 0                # the station's last seq as its retained state says
        self.duplicates = 0
        self.last_taken_at: float | None = None   # monotonic time a line was last taken
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @property
    def next_seq(self) -> int:
        return len(self.lines) + 1

    @property
    def evidence_dir(self) -> Path:
        return self.dir / EVIDENCE_DIR

    def _sweep_partial_evidence(self) -> None:
        """Evidence half-written when a previous run was killed: never a file a station sent."""
        for tmp in self.evidence_dir.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)

    def _load(self) -> list[dict[str, Any]]:
        """The copy as a previous run left it; a torn last line (killed mid-write) is cut off."""
        if not self.path.exists():
            return []
        out: list[dict[str, Any]] = []
        end = 0
        with open(self.path, "rb+") as f:
            # line by line, each bounded: a line over the limit is kept as damaged, never read whole
            for line in iter_lines_bounded(f, JOURNAL_LINE_MAX_BYTES):
                if not line.ended:
                    f.truncate(end)
                    break
                end = f.tell()
                try:
                    obj = None if line.data is None else json.loads(line.data.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    obj = None
                out.append(obj if isinstance(obj, dict) else
                           {"type": DAMAGED_TYPE, "t": 0.0, "ply": 0, "seq": line.number})
        meta = self.dir / GAME_ID_NAME
        if meta.exists():
            self.game = meta.read_text(encoding="utf-8").strip()
        return out

    def receive(self, seq: int, line: dict[str, Any] | None, game: str = "", size: int | None = None) -> Taken:
        """Take the station's line `seq` (None: a line the station could not read) of game `game`.

        `size` is the line's size on the wire (its encoded length when not given), counted against
        the held-back limits while the line waits for earlier ones. Refused for a seq that is not a
        whole number from 1, or a new game when max_earlier games are set aside already."""
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise Refused("seq", f"board {self.board}: sequence number {seq!r} is not a whole number from 1")
        taken = Taken()
        if game and game != self.game:
            taken.set_aside = self._switch_game(game)
        if seq < self.next_seq or seq in self.pending:
            self.duplicates += 1
            taken.duplicate = True
            return taken
        kept = line if line is not None else {"type": DAMAGED_TYPE, "t": 0.0, "ply": 0, "seq": seq}
        if seq == self.next_seq:
            self._append(kept)
            taken.lines.append(kept)
        else:
            taken.dropped = self._hold(seq, kept, size if size is not None else _encoded_size(kept))
        while self.next_seq in self.pending:
            ln = self._release(self.next_seq)
            self._append(ln)
            taken.lines.append(ln)
        now = time.monotonic()
        if taken.lines:
            self.last_taken_at = now
        taken.buffered = bool(self.pending)
        if self.pending or self._dropped_upto >= self.next_seq:
            if self.gap_since is None or taken.lines:
                self.gap_since = now
        else:
            self.gap_since = None
        return taken

    def _hold(self, seq: int, line: dict[str, Any], size: int) -> int:
        """Keep an early line within the held-back limits; returns how many lines were let go.

        The nearest lines are the ones worth keeping (they are taken first), so a full buffer lets
        go of its farthest line for a nearer one, and of the new line when it is the farthest."""
        dropped = 0
        while self.pending and (len(self.pending) >= self.held.max_lines
                                or self.held_bytes + size > self.held.max_bytes):
            far = max(self.pending)
            if far < seq:
                break
            self._release(far)
            self._note_dropped(far)
            dropped += 1
        if len(self.pending) >= self.held.max_lines or self.held_bytes + size > self.held.max_bytes:
            self._note_dropped(seq)
            return dropped + 1
        self.pending[seq] = line
        self._held_size[seq] = size
        self.held_bytes += size
        return dropped

    def _release(self, seq: int) -> dict[str, Any]:
        self.held_bytes -= self._held_size.pop(seq)
        return self.pending.pop(seq)

    def _note_dropped(self, seq: int) -> None:
        self.dropped += 1
        self._dropped_upto = max(self._dropped_upto, seq)

    def _append(self, line: dict[str, Any]) -> None:
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        os.write(self._fd, data)
        if self.fsync:
            os.fsync(self._fd)
        self.lines.append(line)

    def _switch_game(self, game: str) -> Path | None:
        """The station began another recording on this board: the old copy is set aside whole
        (returned: its folder) when it holds any line, and the board starts over from seq 1."""
        folder = None
        if self.lines and self.game:
            if len(self.earlier_games()) >= self.max_earlier:
                raise Refused("games", f"board {self.board}: {self.max_earlier} earlier games kept already; "
                                       f"game {game!r} is not started")
            folder = self._set_aside()
        self.game = game
        (self.dir / GAME_ID_NAME).write_text(game + "\n", encoding="utf-8")
        self.pending, self._held_size, self.held_bytes = {}, {}, 0
        self._dropped_upto, self.gap_since, self.station_seq = 0, None, 0
        return folder

    def _set_aside(self) -> Path:
        """Move the copy, its game id, PGN and evidence to games/<k>/ and open an empty copy."""
        os.close(self._fd)
        try:
            folder = self.dir / EARLIER_DIR / str(self._next_earlier_number())
            folder.mkdir(parents=True)
            for name in (COPY_NAME, GAME_ID_NAME, PGN_NAME, EVIDENCE_DIR):
                if (self.dir / name).exists():
                    (self.dir / name).rename(folder / name)
            self.lines = []
        finally:            # moved or not, the board goes on with a copy to append to
            self.evidence_dir.mkdir(exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return folder

    def earlier_games(self) -> list[Path]:
        """The folders of the games set aside on this board, oldest first."""
        base = self.dir / EARLIER_DIR
        if not base.is_dir():
            return []
        found = [p for p in base.iterdir() if p.is_dir() and p.name.isascii() and p.name.isdigit()]
        return sorted(found, key=lambda p: int(p.name))

    def _next_earlier_number(self) -> int:
        done = self.earlier_games()
        return int(done[-1].name) + 1 if done else 1

    def store_evidence(self, name: str, data: bytes) -> Path:
        """Write an evidence file into the board's evidence folder whole or not at all.

        `name` must be checked already (topics.check_evidence_name). The bytes go to a temporary
        file beside it, renamed over the name once written; the temporary file is removed when
        anything fails, so no partial file or stray .tmp is ever left behind."""
        try:
            topics.check_evidence_name(name)       # checked again here: this is where it becomes a path
        except ValueError as exc:
            raise Refused("evidence_name", str(exc)) from None
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".tmp", dir=self.evidence_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), 0o644)
                f.write(data)
            path = self.evidence_dir / name
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

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


def _encoded_size(line: dict[str, Any]) -> int:
    return len(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + 1
