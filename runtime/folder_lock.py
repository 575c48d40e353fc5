"""One recorder per recording folder: an exclusive lock on DIR/.xqtrack.lock, held for the whole run.

Why: two recorders appending to one events.jsonl (two `record --resume` started at once) interleave
their plies, number incidents twice and end the game twice, while game.pgn (rewritten whole by each)
looks normal and hides it. Every command that records into a folder (`record`, `record --resume`,
`demo`, `station-replay`) holds this lock from before it writes anything until it has closed its
record; a second one is refused with one line naming the holder's pid and writes nothing there.

The lock is `flock(LOCK_EX | LOCK_NB)` on the lock file, so the kernel releases it when the holder
dies (kill -9, a crash): a crashed recorder never leaves its folder locked, and `--resume` after it
just works. The file holds the holder's pid, command and start time for the refusal's message only;
it is never what decides. A clean release removes the file (while still holding the lock); a taker
checks that the file it locked is still the one at the path, so a removal racing a newcomer cannot
give two holders.

Only recorders take it. Writers of single whole lines beside a running recorder (`xqtrack rule`, the
served page's ruling form, a hall station journalling the arbiters' commands) append with O_APPEND
and must never wait on a recorder: rulings are entered live. Readers (`serve`, `review`, the station's
publisher) never lock.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

LOCK_NAME = ".xqtrack.lock"

# A refused taker reads the holder's line again for this long while it is empty or names a process
# that is gone: the holder writes it just after taking the lock, over what a crashed one left.
HOLDER_READ_WAIT_S = 0.5
# Times a taker starts again when the file it locked was removed by a holder releasing it meanwhile.
TAKE_ATTEMPTS = 5


class FolderError(ValueError):
    """The path given for a recording cannot be a recording folder (the message says why)."""


@dataclass(frozen=True)
class LockHolder:
    """Who holds a folder, as its lock file says (any field may be unknown)."""

    pid: int | None = None
    command: str | None = None
    since: str | None = None     # wall-clock ISO-8601, UTC
    host: str | None = None

    def describe(self) -> str:
        """'pid 1234, `record --resume`, since …' for the refusal's message."""
        parts = [f"pid {self.pid}" if self.pid is not None else "pid unknown"]
        if self.host and self.host != socket.gethostname():
            parts[0] += f" on {self.host}"
        if self.command:
            parts.append(f"`xqtrack {self.command}`")
        if self.since:
            parts.append(f"since {self.since}")
        return ", ".join(parts)


class FolderBusy(RuntimeError):
    """Another recorder holds the folder: recording into it as well would interleave two journals."""

    def __init__(self, folder: Path, holder: LockHolder) -> None:
        self.folder = folder
        self.holder = holder
        super().__init__(f"{folder} is being recorded into by another xqtrack ({holder.describe()}); "
                         f"one recorder per folder: stop that one first, or choose another folder")


@dataclass
class FolderLock:
    """A held lock on a recording folder (see `hold_folder`)."""

    folder: Path
    path: Path
    holder: LockHolder
    _fd: int

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def release(self) -> None:
        """Remove the lock file while still holding it, then let go (idempotent)."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            if _same_file(fd, self.path):
                os.unlink(self.path)
        except OSError:
            pass          # a folder gone or turned read-only: the kernel still drops the lock on close
        finally:
            os.close(fd)  # closing the last descriptor of the open file releases the flock


def check_out_folder(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """`path` as a folder a recording can go into, or FolderError saying why not; writes nothing.

    The folder may be missing: it is made, with any missing folders above it, as `mkdir -p` would
    (a user names a fresh place for each game). What stands in the way is said before anything is
    made: a file where a folder must be, or a place that is not writable."""
    p = Path(path)
    name = f"{option} {path}" if option else str(path)
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            raise FolderError(f"{name}: the folder is not writable")
        return p
    if p.exists():
        raise FolderError(f"{name} is a file, not a folder (the recording needs a folder of its own: "
                          f"events.jsonl, game.pgn, review.html, evidence/)")
    if p.is_symlink():
        raise FolderError(f"{name} is a link to {os.readlink(p)}, which does not exist")
    above = Path(os.path.abspath(p)).parent
    while not above.exists() and not above.is_symlink() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        raise FolderError(f"{name}: {above} is a file, not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise FolderError(f"{name}: cannot make the folder there: {above} is not writable")
    return p


@contextmanager
def hold_folder(path: str | os.PathLike[str], command: str, option: str = "--out") -> Iterator[FolderLock]:
    """Check `path` (check_out_folder), make it if missing, and hold its lock for the `with` block.

    `command` ('record --resume', 'station-replay', …) is written into the lock file for the
    message a refused recorder shows. FolderBusy when another recorder holds it; nothing is written
    into the folder then. A folder made here and left empty (the source would not open) is removed
    again on the way out."""
    folder = check_out_folder(path, option)
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderError(f"{option} {path}: cannot make the folder: {exc.strerror or exc}") from None
    try:
        lock = _take(folder, command)
    except BaseException:
        if made:
            _remove_if_empty(folder)
        raise
    try:
        yield lock
    finally:
        lock.release()
        if made:
            _remove_if_empty(folder)


def read_holder(folder: str | os.PathLike[str]) -> LockHolder | None:
    """What DIR's lock file says (None without one). It may name a process that has died: only a
    failed flock says the folder is held."""
    try:
        with open(Path(folder) / LOCK_NAME, "rb") as f:
            return _parse_holder(f.read(4096))
    except OSError:
        return None


RECORDING_COMMANDS = ("record", "demo")   # holders that write game.pgn themselves as the game goes


def recorder_running(folder: str | os.PathLike[str]) -> bool:
    """Whether a live recorder (`record`, `record --resume`, `demo`) holds DIR, by its lock file.

    Why: a writer of a single line beside it (an arbiter's result or correction) leaves game.pgn to
    a running recorder, which takes the line up from the journal and rewrites the PGN from its own
    game (clock readings included); with none running (a finished recording, a simulated station),
    the writer rebuilds game.pgn from the journal itself. Never takes the lock (see the module's
    docstring): the lock file's pid is asked whether it is alive."""
    holder = read_holder(folder)
    if holder is None or not _alive(holder):
        return False
    return (holder.command or "").split(" ")[0] in RECORDING_COMMANDS


def _take(folder: Path, command: str) -> FolderLock:
    path = folder / LOCK_NAME
    for _ in range(TAKE_ATTEMPTS):
        fd = _open_lock_file(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise FolderError(f"{folder}: cannot lock {path.name}: {exc.strerror or exc}") from None
            holder = _wait_for_holder(fd)
            os.close(fd)
            raise FolderBusy(folder, holder) from None
        if not _same_file(fd, path):      # removed by a holder letting go between our open and our lock
            os.close(fd)
            continue
        holder = LockHolder(os.getpid(), command, datetime.now(timezone.utc).isoformat(timespec="seconds"),
                            socket.gethostname())
        _write_holder(fd, holder)
        return FolderLock(folder, path, holder, fd)
    raise FolderError(f"{folder}: its lock file {path.name} keeps being replaced; is another program "
                      f"removing it?")


def _open_lock_file(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except PermissionError:
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)   # flock works on a read-only descriptor too
        except OSError as exc:
            raise FolderError(f"{path.parent}: cannot open its lock file: {exc.strerror or exc}") from None
    except OSError as exc:
        raise FolderError(f"{path.parent}: cannot open its lock file: {exc.strerror or exc}") from None


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _write_holder(fd: int, holder: LockHolder) -> None:
    """The holder's line; only informative, so a full disk or a read-only descriptor is no failure."""
    data = json.dumps({"pid": holder.pid, "command": holder.command, "since": holder.since,
                       "host": holder.host}).encode("utf-8") + b"\n"
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass


def _parse_holder(raw: bytes) -> LockHolder | None:
    try:
        obj = json.loads(raw.decode("utf-8", errors="replace") or "null")
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    pid = obj.get("pid")
    return LockHolder(pid if isinstance(pid, int) else None,
                      str(obj["command"]) if obj.get("command") else None,
                      str(obj["since"]) if obj.get("since") else None,
                      str(obj["host"]) if obj.get("host") else None)


def _alive(holder: LockHolder) -> bool:
    if holder.pid is None:
        return False
    if holder.host and holder.host != socket.gethostname():
        return True          # another machine's process (a shared folder): cannot be checked from here
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_for_holder(fd: int) -> LockHolder:
    """The holder's line, read again briefly while it is empty or stale (see HOLDER_READ_WAIT_S)."""
    deadline = time.monotonic() + HOLDER_READ_WAIT_S
    while True:
        try:
            holder = _parse_holder(os.pread(fd, 4096, 0))
        except OSError:
            holder = None
        if holder is not None and _alive(holder):
            return holder
        if time.monotonic() >= deadline:
            return LockHolder()
        time.sleep(0.05)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
