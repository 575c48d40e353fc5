"""The game journal: append-only events.jsonl plus an always-valid game.pgn.

Why this shape: a tournament recording must survive a crash or a pulled
plug. Each event is one JSON line, written, flushed and fsync'd before the
tracker goes on, so a kill loses at most the line being written; a torn
last line is skipped (and reported) on reading. game.pgn is derived data,
rewritten atomically (temp file + fsync + os.replace) after each move, so a
reader never sees half a file. `--resume` rebuilds the game from the
journal alone.
"""
from __future__ import annotations

import errno
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, TypeVar

from rules import Move, Position, RulesError, Side
from rules.bounded_read import CHUNK_BYTES, JOURNAL_LINE_MAX_BYTES, LineSplitter, format_size, iter_lines_bounded

T = TypeVar("T")

EVENTS_NAME = "events.jsonl"
PGN_NAME = "game.pgn"


class JournalError(ValueError):
    """A journal that cannot be read or continued (the message says where)."""


def wall_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process's umask, read without changing it (Linux: /proc; elsewhere set-and-restore)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) so readers see the old or the new file, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes, sync: bool = True) -> None:
    """Replace `path` with `data` so readers see the old or the new file, never a mix.

    The file gets the permissions a plain `open()` would give (0666 less the umask), not the
    0600 of a temp file: a web server or OBS running as another user must be able to read it.
    `sync=False` skips the fsyncs for files that are refreshed every second anyway."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=str(path.parent))
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if sync:
        _fsync_dir(path.parent)


RESERVE_NAME = ".xqtrack-reserve"
DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True)
class DiskBudget:
    """How a recording shares a filling disk: evidence images go first, journal lines last.

    `reserve_bytes`: kept allocated in DIR while recording and released when the disk is full, so
    the line being written, the end event, game.pgn and review.html still fit;
    `evidence_min_free_bytes`: below this much free space evidence images are no longer saved;
    `warn_free_bytes`: below this much free space a warning is printed and journalled, once."""

    reserve_bytes: int = 4 << 20
    evidence_min_free_bytes: int = 32 << 20
    warn_free_bytes: int = 256 << 20


def free_bytes(path: str | os.PathLike[str]) -> int:
    """Bytes an unprivileged writer may still use on the file system holding `path`."""
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class Journal:
    """Appends events to DIR/events.jsonl, one synced line each.

    When the disk fills up, the reserve is released and the line written after all; `disk_full`
    then tells the recorder to stop while everything it has is still whole."""

    def __init__(self, out_dir: str | os.PathLike[str], budget: DiskBudget | None = None) -> None:
        self.dir = Path(out_dir)
        self.budget = budget or DiskBudget()
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "evidence").mkdir(exist_ok=True)
        self.path = self.dir / EVENTS_NAME
        self.disk_full = False
        self._reserve = self.dir / RESERVE_NAME
        self._own_reserve = False      # a second writer (a hall station's command) keeps its hands off ours
        self._repair_tail()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        self._closed = False
        self._make_reserve()

    def _make_reserve(self) -> None:
        size = self.budget.reserve_bytes
        if size <= 0:
            return
        try:
            fd = os.open(self._reserve, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                chunk = b"\0" * min(size, 1 << 20)
                left = size
                while left > 0:
                    left -= os.write(fd, chunk[:left])
                os.fsync(fd)
            finally:
                os.close(fd)
            self._own_reserve = True
        except OSError as exc:
            self._release_reserve()
            if exc.errno in DISK_FULL_ERRNOS:
                raise JournalError(f"{self.dir}: not enough free space to start recording "
                                   f"(need at least {size >> 20} MiB kept in reserve)") from None
            raise JournalError(f"{self.dir}: cannot write there: {exc.strerror or exc}") from None

    def _release_reserve(self) -> None:
        try:
            os.unlink(self._reserve)
        except FileNotFoundError:
            pass

    def _repair_tail(self) -> None:
        """A torn last line (killed mid-write) would glue onto the next event: end it."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())

    def _append(self, data: bytes) -> None:
        """All of `data` or nothing: a short write (disk full) is cut back off before raising."""
        start = os.fstat(self._fd).st_size
        done = 0
        try:
            while done < len(data):
                done += os.write(self._fd, data[done:])
            os.fsync(self._fd)
        except OSError:
            if done:
                os.ftruncate(self._fd, start)
            raise

    def write(self, event: dict[str, Any]) -> dict[str, Any]:
        """Write one event (needs `type`, `t`, `ply`); adds `wall`. Returns the line's dict."""
        for key in ("type", "t", "ply"):
            if key not in event:
                raise ValueError(f"journal event lacks {key!r}: {event!r}")
        line = {"t": event["t"], "wall": wall_now(), "type": event["type"], "ply": event["ply"]}
        line.update({k: v for k, v in event.items() if k not in line})
        text = json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=_json_default)
        data = (text + "\n").encode("utf-8")
        try:
            self._append(data)
        except OSError as exc:
            if exc.errno not in DISK_FULL_ERRNOS or not self._reserve.exists():
                raise
            self._release_reserve()        # the reserve is for exactly this moment
            self.disk_full = True
            self._append(data)
        return line

    def write_file(self, write: "Callable[[], T]") -> "T":
        """Run `write` (a record file such as game.pgn); on a full disk release the reserve and
        run it again, so the files derived from the journal stay as whole as the journal."""
        try:
            return write()
        except OSError as exc:
            if exc.errno not in DISK_FULL_ERRNOS or not self._reserve.exists():
                raise
            self._release_reserve()
            self.disk_full = True
            return write()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                os.fsync(self._fd)
            finally:
                os.close(self._fd)
            if self._own_reserve:
                self._release_reserve()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _json_default(o: Any) -> Any:
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"cannot write {type(o).__name__} to the journal")


class GrowingJournal:
    """The complete lines a growing journal gained since the last poll, for readers that follow a
    recording as it is written (a hall station, the recorder watching for the arbiter's lines).

    Read in chunks up to the size seen at the poll, so a journal that grew a lot between polls (or
    a runaway line) never sits in memory at once; a line longer than `line_limit` comes as None
    in its place, so counting lines still gives the journal's line numbers. A line is taken once
    its newline is written."""

    def __init__(self, path: str | os.PathLike[str], from_end: bool = False,
                 line_limit: int = JOURNAL_LINE_MAX_BYTES) -> None:
        """`from_end`: start at the journal's present end instead of its first line."""
        self.path = Path(path)
        self._offset = 0
        self._splitter = LineSplitter(line_limit)
        if from_end:
            try:
                self._offset = os.stat(self.path).st_size
            except FileNotFoundError:
                pass

    @property
    def pending(self) -> int:
        """Bytes of an unfinished last line (kept, or being skipped as too long)."""
        return self._splitter.pending

    def poll(self) -> list[bytes | None]:
        """Each line completed since the last call (None: longer than the limit); cheap when none."""
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            return []
        if size <= self._offset:
            return []
        lines: list[bytes | None] = []
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            while self._offset < size:
                data = f.read(min(CHUNK_BYTES, size - self._offset))
                if not data:
                    break
                self._offset += len(data)
                lines.extend(bl.data for bl in self._splitter.feed(data))
        return lines


def parse_journal_line(raw: bytes | None, path: str | os.PathLike[str], n: int,
                       events: list[dict[str, Any]], warnings: list[str],
                       line_limit: int = JOURNAL_LINE_MAX_BYTES) -> None:
    """One journal line (its number `n`) into `events`, or a warning naming the line into `warnings`;
    blank lines are neither. `raw` None is a line longer than `line_limit`, which the reader
    passed over without holding it (a damaged or hostile journal must not exhaust memory).
    Shared by the whole-file reader and the live tail."""
    if raw is None:
        warnings.append(f"{path}: line {n} is longer than {format_size(line_limit)} ({line_limit} bytes), "
                        f"which no event is; skipped")
        return
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        warnings.append(f"{path}: line {n} is incomplete or damaged ({exc.msg}); skipped")
        return
    if not isinstance(obj, dict) or "type" not in obj:
        warnings.append(f"{path}: line {n} is not an event object; skipped")
        return
    events.append(obj)


def read_events(path: str | os.PathLike[str],
                line_limit: int = JOURNAL_LINE_MAX_BYTES) -> tuple[list[dict[str, Any]], list[str]]:
    """All complete events, plus warnings for lines that could not be read.

    A torn line anywhere (only the last one can be torn by a kill, but a
    repaired tail leaves it in the middle) is skipped with a warning naming
    its line number, never fatal: the rest of the game is still there. So is a
    line longer than `line_limit`, which is read past in chunks, never held whole.
    """
    events: list[dict[str, Any]] = []
    warnings: list[str] = []
    with open(path, "rb") as f:
        for line in iter_lines_bounded(f, line_limit):
            parse_journal_line(line.data, path, line.number, events, warnings, line_limit)
    return events, warnings


@dataclass
class RecordedGame:
    """A game rebuilt from a journal."""

    start_fen: str
    moves: list[Move]
    clocks_ms: list[int | None]
    events: list[dict[str, Any]]
    last_t: float
    headers: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    result: str = "*"
    notation: str = "chinese"


def final_move_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The move events of the record as it finally stands, in ply order: a correction
    re-states plies with later move events, and the last word on a ply counts."""
    final = {int(e.get("ply") or 0): e for e in events if e.get("type") == "move"}
    return [final[p] for p in sorted(final)]


def load_game(out_dir: str | os.PathLike[str]) -> RecordedGame:
    """Rebuild the game recorded in DIR/events.jsonl (for --resume, review, PGN).

    The start position comes from the `started` tracking event; moves from
    the `move` events in order, each re-checked by the rules engine (a move
    that does not follow is an error naming its line's ply). Lines are read back
    as board.events' typed events; a line of another part's type (a ruling) is
    skipped, a clock or game-end line that does not read is skipped with a warning.
    The arbiter's lines count as live/state.py folds them: an `arbiter_correction` replaces the
    plies from its ply (moves the recorder wrote before it took the correction up, which do not
    follow it, are passed over until its `corrected` re-statement); after an arbiter's result,
    moves are post-game and not part of the game.
    """
    from board.clockref import ClockReferee
    from board.events import (EVENT_TYPES, ArbiterCorrection, ClockEvent, EventFormatError, GameEndEvent,
                              JournalEvent, MoveEvent, TrackingEvent, event_from_dict)

    path = Path(out_dir) / EVENTS_NAME
    if not path.exists():
        raise JournalError(f"{path}: no journal to resume (expected events.jsonl from an earlier record)")
    events, warnings = read_events(path)
    typed: list[tuple[float, JournalEvent | None]] = []
    for e in events:
        t = float(e.get("t", 0.0) or 0.0)
        ev: JournalEvent | None = None
        if e.get("type") in EVENT_TYPES:
            try:
                ev = event_from_dict(e)
            except EventFormatError as exc:
                if e.get("type") == "move":
                    raise JournalError(f"{path}: move at ply {e.get('ply')} ({e.get('iccs')!r}) does not follow: "
                                       f"{exc}") from None
                warnings.append(f"{path}: {exc}; skipped")
        typed.append((t, ev))
    start_fen = None
    headers: dict[str, str] = {}
    notation = "chinese"
    for _, ev in typed:
        if isinstance(ev, TrackingEvent) and ev.status == "started" and ev.fen:
            start_fen = ev.fen
            headers = ev.headers
            notation = ev.notation or notation
            break
    if start_fen is None:
        raise JournalError(f"{path}: the journal has no 'started' event with a start position")
    pos = Position.from_fen(start_fen)
    moves: list[Move] = []
    clocks: list[int | None] = []
    sides: list[Side] = []
    restated_clocks: list[int | None] = []
    result = "*"
    last_t = 0.0
    closed = False        # an arbiter's result stands: later moves are the post-mortem
    restating = False     # an arbiter's correction the recorder has not re-stated yet

    def take_back_to(ply: int) -> None:
        while ply >= 1 and len(moves) >= ply:
            pos.pop()
            moves.pop()
            restated_clocks.insert(0, clocks.pop())
            sides.pop()

    for t, ev in typed:
        last_t = max(last_t, t)
        if isinstance(ev, TrackingEvent) and ev.status == "corrected":
            if closed and not ev.arbiter:
                continue      # the tracker re-reading the post-mortem
            restating = False
            # a recorded ply was replaced: drop it and what followed; the move events after
            # this one re-state them (each keeps the clock time it had)
            take_back_to(ev.ply)
        elif isinstance(ev, ArbiterCorrection):
            if ev.from_ply - 1 > len(moves):
                raise JournalError(f"{path}: an arbiter's correction from ply {ev.from_ply} follows ply {len(moves)}")
            restated_clocks = []
            take_back_to(ev.from_ply)
            for i, iccs in enumerate(ev.moves):
                try:
                    m = Move.from_iccs(iccs)
                    side = Side.from_fen(pos.turn)
                    pos.push(m)
                except RulesError as exc:
                    raise JournalError(f"{path}: the arbiter's move at ply {ev.from_ply + i} ({iccs!r}) does not "
                                       f"follow: {exc}") from None
                moves.append(m)
                clocks.append(restated_clocks.pop(0) if restated_clocks else None)
                sides.append(side)
            restating = True
        elif isinstance(ev, MoveEvent):
            ply = ev.ply
            if ev.post_game or (closed and not ev.corrected):
                continue  # made after the arbiter's result: not the game's
            if restating and not ev.corrected and not (ply == len(moves) + 1 and _follows(pos, ev.iccs)):
                continue  # written before the recorder took the arbiter's correction up
            if ply <= len(moves):
                continue  # already have it (a resumed session repeats nothing, but be tolerant)
            if ply != len(moves) + 1:
                raise JournalError(f"{path}: move event for ply {ply} follows ply {len(moves)}; plies are missing")
            try:
                m = Move.from_iccs(ev.iccs)
                pos.push(m)
            except RulesError as exc:   # a move that is not legal here
                raise JournalError(f"{path}: move at ply {ply} ({ev.iccs!r}) does not follow: {exc}") from None
            moves.append(m)
            clocks.append(restated_clocks.pop(0) if ev.corrected and restated_clocks else None)
            sides.append(ev.side)
        elif isinstance(ev, ClockEvent):
            # the press that ends a turn gives that move's %clk
            presser = ClockReferee.presser(ev)
            for i in range(len(moves) - 1, -1, -1):
                if presser is not None and sides[i] == presser:
                    left = ev.remaining_for(presser)
                    if clocks[i] is None and left is not None:
                        clocks[i] = left
                    break
        elif isinstance(ev, GameEndEvent):
            result = ev.result
            closed = closed or ev.arbiter
    return RecordedGame(start_fen, moves, clocks, events, last_t, headers, warnings, result, notation)


def _follows(pos: Position, iccs: str) -> bool:
    try:
        return pos.is_legal(Move.from_iccs(iccs))
    except RulesError:
        return False


def write_game_pgn(out_dir: str | os.PathLike[str], headers: dict[str, str], start_fen: str | None,
                   moves: list[Move], clocks_ms: list[int | None] | None = None, result: str = "*",
                   notation: str = "chinese", comments: list[str | None] | None = None) -> Path:
    """Rewrite DIR/game.pgn atomically from the moves so far."""
    from rules import START_FEN
    from rules.pgn import Game, write_pgn

    hdr = dict(headers)
    fmt = {"chinese": "Chinese", "iccs": "ICCS", "wxf": "WXF", "yizi": "Yizi"}.get(notation, notation)
    hdr["Format"] = fmt
    hdr.setdefault("Result", result)
    hdr["Result"] = result
    fen = None if (start_fen is None or start_fen.split()[0] == START_FEN.split()[0]
                   and start_fen.split()[1] in ("w", "r")) else start_fen
    if fen is not None:
        hdr["FEN"] = fen
    n = len(moves)
    clocks: list[int | None] = list(clocks_ms) if clocks_ms is not None else [None] * n
    clocks += [None] * (n - len(clocks))
    notes: list[str | None] = list(comments) if comments is not None else [None] * n
    notes += [None] * (n - len(notes))
    game = Game(headers=hdr, start_fen=fen, moves=list(moves), clocks_ms=clocks[:n], comments=notes[:n],
                result=result)
    text = write_pgn(game, notation=notation)
    path = Path(out_dir) / PGN_NAME
    atomic_write_text(path, text)
    return path
