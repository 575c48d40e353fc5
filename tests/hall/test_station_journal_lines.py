"""The station's follower of a growing journal: complete lines only, numbered as the journal's,
and never a runaway line held whole."""
from __future__ import annotations

import json

from hall.station import JournalLines


def _line(obj: dict) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def test_lines_are_taken_once_their_newline_is_written(tmp_path):
    path = tmp_path / "events.jsonl"
    follower = JournalLines(path)
    assert follower.poll() == []
    data = _line({"type": "tracking", "t": 0})
    path.write_bytes(data[:-5])
    assert follower.poll() == []
    path.write_bytes(data + _line({"type": "move", "t": 1})[:4])
    got = follower.poll()
    assert [(l.seq, l.event and l.event["type"]) for l in got] == [(1, "tracking")]


def test_a_line_past_the_limit_is_passed_on_as_damaged_in_its_place_and_the_next_is_read(tmp_path):
    path = tmp_path / "events.jsonl"
    follower = JournalLines(path, line_limit=1000)
    with open(path, "wb") as f:
        f.write(_line({"type": "tracking", "t": 0}))
        f.write(_line({"type": "note", "text": "x" * 50_000}))
        f.write(b"{not json}\n")
        f.write(_line({"type": "move", "t": 2}))
    got = follower.poll()
    assert [l.seq for l in got] == [1, 2, 3, 4]
    assert got[1].event is None and got[2].event is None
    assert got[3].event == {"type": "move", "t": 2}
    assert follower._journal.pending == 0
