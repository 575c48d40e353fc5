"""Following a growing journal: only complete lines, damaged ones skipped with their line number."""
from __future__ import annotations

import json
import os

from live.tail import JournalTail


def _line(i: int) -> bytes:
    return (json.dumps({"type": "move", "t": i, "ply": i, "iccs": "h2e2"}) + "\n").encode()


def test_a_line_is_taken_only_once_its_newline_is_written(tmp_path):
    path = tmp_path / "events.jsonl"
    tail = JournalTail(path)
    assert tail.poll().events == []                     # no file yet: nothing, no error
    data = _line(1) + _line(2)
    with open(path, "wb") as f:
        f.write(data + _line(3)[:10])
    assert [e["ply"] for e in tail.poll().events] == [1, 2]
    with open(path, "ab") as f:
        f.write(_line(3)[10:])
    assert [e["ply"] for e in tail.poll().events] == [3]
    assert tail.poll().events == []


def test_a_damaged_line_is_skipped_with_its_line_number(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(_line(1) + b'{"type": "mo\n' + b'[1, 2]\n' + _line(4))
    got = JournalTail(path).poll()
    assert [e["ply"] for e in got.events] == [1, 4]
    assert any("line 2" in w for w in got.warnings) and any("line 3" in w for w in got.warnings)


def test_a_replaced_journal_is_followed_from_its_start(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(_line(1) + _line(2))
    tail = JournalTail(path)
    assert len(tail.poll().events) == 2
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(_line(7))
    os.replace(tmp, path)
    got = tail.poll()
    assert [e["ply"] for e in got.events] == [7] and got.warnings


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 12), cuts=st.lists(st.integers(0, 2000), max_size=8))
def test_however_the_writes_are_split_the_tail_reads_each_event_once_in_order(tmp_path_factory, n, cuts):
    path = tmp_path_factory.mktemp("tail") / "events.jsonl"
    data = b"".join(_line(i) for i in range(1, n + 1))
    points = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    tail = JournalTail(path)
    got = []
    start = 0
    path.write_bytes(b"")
    for end in points:
        with open(path, "ab") as f:
            f.write(data[start:end])
        start = end
        got.extend(e["ply"] for e in tail.poll().events)
    assert got == list(range(1, n + 1))
