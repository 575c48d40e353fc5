"""Journal readers never hold a line longer than the line limit: a whole-file read (read_events,
load_game), the live tail and the hub's copy each report the over-long line by its number and go
on with the rest, in memory bounded by the limit, not by the line."""
from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from hall.boardlog import DAMAGED_TYPE, BoardLog
from live.tail import JournalTail
from rules.bounded_read import JOURNAL_LINE_MAX_BYTES, MIB
from runtime.journal import EVENTS_NAME, load_game, read_events

STARTED = {"t": 0.0, "wall": "2026-01-01T00:00:00.000+00:00", "type": "tracking", "ply": 0, "status": "started",
           "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"}
MOVE = {"t": 1.0, "wall": "2026-01-01T00:00:01.000+00:00", "type": "move", "ply": 1, "iccs": "h2e2", "side": "w"}


def _line(event: dict) -> bytes:
    return (json.dumps(event) + "\n").encode()


def _peak(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_journal_with_a_50_mb_line_reads_the_rest_and_names_the_line(tmp_path):
    path = tmp_path / EVENTS_NAME
    with open(path, "wb") as f:
        f.write(_line(STARTED))
        f.write(b'{"type": "note", "text": "' + b"x" * (50 * MIB) + b'"}\n')
        f.write(_line(MOVE))
    (events, warnings), peak = _peak(lambda: read_events(path))
    assert [e["type"] for e in events] == ["tracking", "move"]
    assert warnings == [f"{path}: line 2 is longer than 1M ({JOURNAL_LINE_MAX_BYTES} bytes), which no event is; "
                        "skipped"]
    assert peak < 8 * MIB               # a few times the 1 MiB limit, not the 50 MB line
    game = load_game(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2"] and game.warnings == warnings


def test_the_live_tail_drops_a_growing_line_past_the_limit_and_keeps_counting_lines(tmp_path):
    path = tmp_path / EVENTS_NAME
    tail = JournalTail(path)
    path.write_bytes(_line(STARTED))
    assert [e["type"] for e in tail.poll().events] == ["tracking"]

    def grow_a_20_mb_line() -> list[str]:
        warnings: list[str] = []
        with open(path, "ab") as f:
            f.write(b'{"type": "note", "text": "')
            for _ in range(20):
                f.write(b"y" * MIB)
                f.flush()
                read = tail.poll()
                assert read.events == []
                warnings += read.warnings
            f.write(b'"}\n' + _line(MOVE))
        read = tail.poll()
        return warnings + read.warnings + [e["type"] for e in read.events]

    got, peak = _peak(grow_a_20_mb_line)
    assert got == [f"{path}: line 2 is longer than 1M ({JOURNAL_LINE_MAX_BYTES} bytes), which no event is; skipped",
                   "move"]
    assert peak < 8 * MIB


def test_the_hubs_copy_keeps_an_over_long_line_as_damaged_and_cuts_a_torn_tail(tmp_path):
    copy = tmp_path / "events.jsonl"
    with open(copy, "wb") as f:
        f.write(_line(STARTED))
        f.write(b"z" * (12 * MIB) + b"\n")
        f.write(_line(MOVE))
        f.write(b"w" * (2 * MIB))                     # torn: a run killed mid-line
    log, peak = _peak(lambda: BoardLog(1, tmp_path))
    try:
        assert [line["type"] for line in log.lines] == ["tracking", DAMAGED_TYPE, "move"]
        assert log.lines[1]["seq"] == 2 and log.next_seq == 4
    finally:
        log.close()
    assert copy.stat().st_size == len(_line(STARTED)) + 12 * MIB + 1 + len(_line(MOVE))
    assert peak < 8 * MIB
