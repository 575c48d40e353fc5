"""Bounded reads of what xqtrack is handed: game files, photos and journal lines.

Why: a path from the command line may name /dev/zero, a FIFO, /dev/stdin fed from an endless
pipe, or a 20 GB file. "Read it all" then grows the process until the system kills it, and a
journal written by another process may hold one line as long as the disk. Every read of such
input goes through this module, which never asks for more than `limit + 1` bytes:

* `read_file_bounded(path, limit)` / `read_stream_bounded(stream, limit)`: the whole input, or
  `InputTooLargeError` naming the input, the limit and the option that raises it. A regular
  file whose size is over the limit is refused before reading; devices, pipes and FIFOs report
  no useful size, so they are read in chunks up to `limit + 1` bytes and refused there.
* `iter_lines_bounded(stream, limit)`: the lines of a file, each cut off at `limit` bytes. An
  over-long line is passed over in chunks and yielded as a `BoundedLine` without data, so the
  caller can name it by its number and go on.
* `LineSplitter`: the same for bytes that arrive in pieces (a journal being followed).

Why here, in `rules`: it is the lowest room (it imports nothing of ours), so rules' own file
readers (`rules.formats.read_game_file`, `rules.pgn.read_pgn_file`) and every part above them
(runtime, live, hall, app) share one implementation. The codecs themselves stay pure: they
take bytes, which this module has already bounded.
"""
from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from typing import Iterator, Protocol


class ByteSource(Protocol):
    """What the bounded readers read from: a binary file, a pipe, standard input's buffer."""

    def read(self, size: int = -1, /) -> bytes | None: ...


class LineSource(Protocol):
    """What the line reader reads from: a binary file opened with buffering."""

    def readline(self, size: int | None = -1, /) -> bytes: ...

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30

#: The largest game file read by default. Real records are a few KB, the largest club
#: libraries a few MB; 16 MiB leaves room for those and still stops a runaway input early.
GAME_FILE_MAX_BYTES = 16 * MIB
#: The largest photo read by default: a 50-megapixel camera's JPEG is ~25 MB, a PNG more.
PHOTO_MAX_BYTES = 64 * MIB
#: The longest journal line kept: real events are under a few KB.
JOURNAL_LINE_MAX_BYTES = 1 * MIB
#: Bytes asked for at a time, so a device is never asked for "everything".
CHUNK_BYTES = 1 * MIB

MAX_BYTES_OPTION = "--max-bytes"


class InputTooLargeError(ValueError):
    """Input longer than the limit set for it; the message names the input, the limit and how
    to raise it (a ValueError: bad input, which the command line reports in one line)."""

    def __init__(self, name: str, limit: int, what: str = "file", option: str | None = MAX_BYTES_OPTION) -> None:
        self.name = name
        self.limit = limit
        self.what = what
        self.option = option
        how = f"; raise the limit with {option} BYTES (e.g. {option} {format_size(limit * 4)})" if option else ""
        #: the message without the input's name, for callers that name it their own way
        self.detail = f"larger than the {format_size(limit)} limit ({limit} bytes), not read{how}"
        super().__init__(f"{name}: the {what} is {self.detail}")


def format_size(n: int) -> str:
    """`n` bytes as a short figure a person reads at once (16M, 1.5G, 700K, 12)."""
    for unit, size in (("G", GIB), ("M", MIB), ("K", KIB)):
        if n >= size:
            value = n / size
            return f"{value:.0f}{unit}" if value == int(value) or value >= 100 else f"{value:.1f}{unit}"
    return str(n)


_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """A byte count as a user writes it: `5000000`, `64M`, `1.5G`, `700k`, `16MiB` (binary units).

    ValueError (naming the text) for anything else or for zero, since a limit of nothing reads nothing."""
    m = _SIZE_RE.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a size: write a number of bytes, optionally with K, M or G "
                         f"(e.g. 64M)")
    value = float(m.group(1)) * {"": 1, "k": KIB, "m": MIB, "g": GIB}[m.group(2).lower()]
    if value < 1:
        raise ValueError(f"{text!r}: a size limit must be at least 1 byte")
    return int(value)


def read_stream_bounded(stream: ByteSource, limit: int, *, name: str, what: str = "file",
                        option: str | None = MAX_BYTES_OPTION) -> bytes:
    """All of `stream` if it holds at most `limit` bytes, else InputTooLargeError.

    Reads in chunks and never more than `limit + 1` bytes in all, so an endless source (a
    device, a pipe that never closes its end after writing) costs at most `limit` of memory."""
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = stream.read(min(CHUNK_BYTES, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise InputTooLargeError(name, limit, what, option)
    return b"".join(chunks)


def read_file_bounded(path: str | os.PathLike[str], limit: int, *, what: str = "file",
                      option: str | None = MAX_BYTES_OPTION) -> bytes:
    """The bytes of the file at `path` (any kind a path can name), at most `limit` of them.

    OSError as `open` raises it (FileNotFoundError, IsADirectoryError, PermissionError), so the
    caller words it for its reader; InputTooLargeError past the limit. A regular file is refused
    from its size before a byte is read; a device or FIFO has no trustworthy size and is read
    up to the limit (a FIFO with no writer blocks in `open`, as every reader of one does)."""
    name = os.fspath(path)
    with open(path, "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        if stat.S_ISDIR(st.st_mode):        # open() refuses these on Linux; say so everywhere
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise InputTooLargeError(name, limit, what, option)
        return read_stream_bounded(f, limit, name=name, what=what, option=option)


@dataclass(frozen=True)
class BoundedLine:
    """One line of a file read with a length limit.

    `data` is the line without its newline, or None when it was longer than the limit (then
    it was skipped in chunks, never held whole); `length` counts its bytes either way; `ended`
    is False for a last line with no newline (possibly torn by a writer killed mid-line)."""

    number: int
    data: bytes | None
    length: int
    ended: bool


def iter_lines_bounded(stream: LineSource, limit: int = JOURNAL_LINE_MAX_BYTES,
                       start_number: int = 1) -> Iterator[BoundedLine]:
    """The lines of `stream`, numbered from `start_number`; a line over `limit` bytes (newline
    not counted) comes without its data. Memory stays within about `limit` bytes."""
    number = start_number
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if raw.endswith(b"\n"):
            yield BoundedLine(number, raw[:-1], len(raw) - 1, True)
        elif len(raw) <= limit:
            yield BoundedLine(number, raw, len(raw), False)       # the last line, no newline
        else:
            length, ended = len(raw), False
            while True:                                          # skip the rest of the line
                rest = stream.readline(CHUNK_BYTES)
                if not rest:
                    break
                if rest.endswith(b"\n"):
                    length += len(rest) - 1
                    ended = True
                    break
                length += len(rest)
            yield BoundedLine(number, None, length, ended)
        number += 1


class LineSplitter:
    """Cuts bytes that arrive in pieces (a growing journal) into complete lines, none held
    longer than `limit` bytes: a line that outgrows the limit is dropped as it comes and handed
    on, once its newline arrives, as a `BoundedLine` without data. Pure: no I/O."""

    def __init__(self, limit: int = JOURNAL_LINE_MAX_BYTES, start_number: int = 1) -> None:
        self.limit = limit
        self.next_number = start_number
        self._partial = bytearray()
        self._skipped = 0            # bytes of an over-long line dropped so far (0: not skipping)

    @property
    def pending(self) -> int:
        """Bytes of the unfinished last line (kept or skipped)."""
        return self._skipped or len(self._partial)

    def feed(self, data: bytes) -> list[BoundedLine]:
        """The lines that `data` completes, in order."""
        out: list[BoundedLine] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            piece = data[start:nl]
            if self._skipped:
                out.append(BoundedLine(self.next_number, None, self._skipped + len(piece), True))
            elif len(self._partial) + len(piece) > self.limit:
                out.append(BoundedLine(self.next_number, None, len(self._partial) + len(piece), True))
            else:
                out.append(BoundedLine(self.next_number, bytes(self._partial) + piece,
                                       len(self._partial) + len(piece), True))
            self._partial.clear()
            self._skipped = 0
            self.next_number += 1
            start = nl + 1
        rest = data[start:]
        if self._skipped:
            self._skipped += len(rest)
        elif len(self._partial) + len(rest) > self.limit:
            self._skipped = len(self._partial) + len(rest)
            self._partial.clear()
        else:
            self._partial += rest
        return out


__all__ = ["InputTooLargeError", "BoundedLine", "ByteSource", "LineSource", "LineSplitter", "read_file_bounded", "read_stream_bounded",
           "iter_lines_bounded", "parse_size", "format_size", "GAME_FILE_MAX_BYTES", "PHOTO_MAX_BYTES",
           "JOURNAL_LINE_MAX_BYTES", "CHUNK_BYTES", "MAX_BYTES_OPTION", "KIB", "MIB", "GIB"]
