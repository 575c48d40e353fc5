"""A review note in the recorder's journal: its own numbering, never an incident id, and a resumed
recording goes on counting where the journal left off."""
from __future__ import annotations

import json

from board.events import IncidentEvent, ReviewNote
from rules import Side


def _lines(path):
    return [json.loads(x) for x in (path / "events.jsonl").read_text(encoding="utf-8").splitlines() if x]


def test_notes_are_numbered_apart_from_the_incidents_an_arbiter_rules_on(tmp_path):
    from runtime.recorder import Recorder
    rec = Recorder(tmp_path, evidence=False)
    touch = IncidentEvent(4.0, 3, "touch_move_other", Side.RED, [21, 40], "red touched d2 then moved e4e5")
    rec._handle(ReviewNote.of(touch, 0.21))
    rec._handle(IncidentEvent(5.0, 3, "retouch", Side.RED, [40], "red touched e5 again"))
    rec._handle(ReviewNote.of(touch, 0.35))
    rec.journal.close()
    lines = _lines(tmp_path)
    assert [e["note"] for e in lines if e["type"] == "review_note"] == [1, 2]
    assert [e["id"] for e in lines if e["type"] == "incident"] == [1], "a note takes no incident id"
    assert all("id" not in e for e in lines if e["type"] == "review_note")


def test_the_records_summary_counts_the_notes_apart_from_the_incidents(tmp_path, capsys):
    from app.commands.record import _report
    from runtime.recorder import Recorder
    rec = Recorder(tmp_path, evidence=False)
    touch = IncidentEvent(4.0, 3, "touch_move_other", Side.RED, [21, 40], "red touched d2 then moved e4e5")
    rec._handle(ReviewNote.of(touch, 0.21))
    rec._handle(IncidentEvent(5.0, 3, "retouch", Side.RED, [40], "red touched e5 again"))
    rec.journal.close()
    from runtime.recorder import RecordSummary
    _report(RecordSummary(tmp_path, [], list(rec.incidents), 10, 1.0, 1.0, "end_of_source", events=list(rec.all_events)))
    said = capsys.readouterr().err
    assert "1 incidents, 1 review note (weak evidence, no accusation);" in said
