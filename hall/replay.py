"""A simulated station: a recorded journal written again, line by line, at the game's own pace.

Why: the hall's tests and benchmark need many stations without many cameras. Replaying a real
journal through runtime's Journal (one synced line per event, fresh wall times) makes a folder
indistinguishable from a live recording to the publisher that follows it.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from runtime.folder_lock import hold_folder
from runtime.journal import DiskBudget, Journal, read_events


@dataclass(frozen=True)
class ReplayPace:
    """How fast to replay: source seconds per wall second, and the longest pause between lines (s)."""

    speed: float = 1.0
    max_gap_s: float = 30.0

    def __post_init__(self) -> None:
        if not self.speed > 0:
            raise ValueError(f"replay speed {self.speed!r} must be above 0")


def load_lines(path: str | Path) -> list[dict[str, Any]]:
    """The journal's events without their old wall times (ValueError when there are none)."""
    events, _warnings = read_events(path)
    if not events:
        raise ValueError(f"{path}: no journal events to replay")
    return [{k: v for k, v in e.items() if k != "wall"} for e in events]


def replay(lines: list[dict[str, Any]], out_dir: str | Path, pace: ReplayPace | None = None,
           stop: threading.Event | None = None, on_line: Callable[[dict[str, Any]], None] | None = None) -> int:
    """Write `lines` to out_dir/events.jsonl at their `t` pace; returns how many were written.

    The folder is held like a recorder's (runtime.folder_lock): a simulated station is a recorder
    too, and a second one into the same folder would interleave two journals (FolderBusy). Like a
    recorder it watches for an arbiter's result journalled beside it (the station's commands):
    the moves it writes after one are marked post-game (runtime/arbiter_watch.py)."""
    from runtime.arbiter_watch import ArbiterResult, ArbiterWatch

    pace = pace or ReplayPace()
    stop = stop or threading.Event()
    t0 = time.monotonic()
    base = float(lines[0].get("t") or 0.0)
    shift = 0.0        # time cut out of long pauses
    prev = base
    written = 0
    closed = False
    with hold_folder(out_dir, "station-replay", option=""), \
            Journal(out_dir, DiskBudget(reserve_bytes=0)) as journal:   # a simulation: no disk reserve
        watch = ArbiterWatch(out_dir)
        for e in lines:
            t = float(e.get("t") or 0.0)
            shift += max(0.0, (t - prev) - pace.max_gap_s)
            prev = max(prev, t)
            due = t0 + (t - base - shift) / pace.speed
            while not stop.is_set() and time.monotonic() < due:
                stop.wait(min(0.05, due - time.monotonic()))
            if stop.is_set():
                break
            closed = closed or any(isinstance(x, ArbiterResult) for x in watch.poll())
            if closed and (e.get("type") == "move" or (e.get("type") == "tracking" and e.get("status") == "corrected")):
                e = {**e, "post_game": True}
            line = journal.write(dict(e))
            written += 1
            if on_line is not None:
                on_line(line)
    return written
