"""Follow a growing events.jsonl: each call returns the events completed since the last.

Why by reading the file: the journal is the single source of truth, and a server that only
reads it can serve the recorder in the same process, a recorder in another process, or a
shared folder on a second machine, and can never show what was not journalled. A line is
taken only once its newline is there (the recorder may be mid-write); a damaged line is
skipped with a warning, as runtime.journal.read_events does. So is a line longer than the
line limit: its bytes are dropped as they arrive (`rules.bounded_read.LineSplitter`), so a
journal another process fills with one endless line cannot grow the server's memory.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.bounded_read import JOURNAL_LINE_MAX_BYTES, LineSplitter
from runtime.journal import parse_journal_line


@dataclass
class TailRead:
    """What one poll found: complete new events, and warnings for lines that were not events."""

    events: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class JournalTail:
    """Incremental reader of one journal file (which may not exist yet)."""

    def __init__(self, path: str | os.PathLike[str], line_limit: int = JOURNAL_LINE_MAX_BYTES) -> None:
        self.path = Path(path)
        self.line_limit = line_limit
        self._offset = 0
        self._lines = LineSplitter(line_limit)
        self._inode: int | None = None

    def poll(self, max_bytes: int = 4 << 20) -> TailRead:
        """Read what was appended since the last poll (at most `max_bytes` at a time)."""
        out = TailRead()
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return out
        if self._inode is not None and (st.st_ino != self._inode or st.st_size < self._offset):
            out.warnings.append(f"{self.path}: the journal was replaced or shortened; following the new file")
            self._offset, self._lines = 0, LineSplitter(self.line_limit)
        self._inode = st.st_ino
        if st.st_size == self._offset:
            return out
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            data = f.read(max_bytes)
        self._offset += len(data)
        # a line without its newline yet stays in the splitter: the recorder may still be writing it
        for line in self._lines.feed(data):
            parse_journal_line(line.data, self.path, line.number, out.events, out.warnings, self.line_limit)
        return out
