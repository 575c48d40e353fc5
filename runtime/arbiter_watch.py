"""What an arbiter wrote into the journal while the recorder runs: corrections and results.

Why a watcher on the file: the arbiter's lines are written beside the running recorder by other
processes (`xqtrack correct` / `result`, the served pages' forms, a hall station journalling the
console's commands), each appending one whole line with O_APPEND. They never wait on the recorder
and the recorder never waits on them: once per frame it looks whether the journal grew by more
than its own lines (one `stat`), and reads only what is new. Rulings need nothing from the
recorder (the pages and the review fold them from the journal); a correction must move the
tracker to the corrected position, and a result must close the game (later moves are post-game).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board.events import ArbiterCorrection, EventFormatError, GameEndEvent

from .journal import EVENTS_NAME, GrowingJournal


@dataclass(frozen=True)
class ArbiterResult:
    """An arbiter's result read from the journal (the latest one stands)."""

    result: str
    reason: str
    by: str
    ply: int        # plies of the game when it was entered: the game closes there


class ArbiterWatch:
    """Follows DIR/events.jsonl from a point on, handing over the arbiter's corrections and results."""

    def __init__(self, out_dir: str | os.PathLike[str], from_end: bool = True) -> None:
        """`from_end`: start at the journal's present end (what is there already is the game the
        recorder was given); otherwise from its first line."""
        self.path = Path(out_dir) / EVENTS_NAME
        self._journal = GrowingJournal(self.path, from_end=from_end)   # bounded, chunked reads

    def poll(self) -> list[ArbiterCorrection | ArbiterResult]:
        """The arbiter's lines completed since the last call, in journal order (cheap when none)."""
        found: list[ArbiterCorrection | ArbiterResult] = []
        for raw in self._journal.poll():
            line = None if raw is None else _arbiter_line(raw)
            if line is not None:
                found.append(line)
        return found


def _arbiter_line(raw: bytes) -> ArbiterCorrection | ArbiterResult | None:
    """The line as an arbiter's correction or result; None for every other line (the recorder's own)."""
    if b"arbiter" not in raw and b'"by"' not in raw and b'"command"' not in raw:
        return None              # most lines: no JSON parse at all
    try:
        d: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(d, dict):
        return None
    try:
        if d.get("type") == "arbiter_correction":
            return ArbiterCorrection.from_dict(d)
        if d.get("type") == "game_end":
            end = GameEndEvent.from_dict(d)
            if end.arbiter:
                return ArbiterResult(end.result, end.reason, end.by, end.ply)
    except (EventFormatError, ValueError):
        return None
    return None


def standing_result(events: list[dict[str, Any]]) -> ArbiterResult | None:
    """The arbiter's result standing in a journal's events (a resumed recording stays closed)."""
    standing: ArbiterResult | None = None
    for d in events:
        if d.get("type") == "game_end":
            try:
                end = GameEndEvent.from_dict(d)
            except EventFormatError:
                continue
            if end.arbiter:
                standing = ArbiterResult(end.result, end.reason, end.by, end.ply)
    return standing
