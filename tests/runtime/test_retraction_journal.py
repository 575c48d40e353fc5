"""A retracted incident in the journal, the review page and the live /state.json (issue 10, item 6)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "board"))   # the scripted-board helpers

from test_retraction import glare_game_with_the_disc_seen_off_a2  # noqa: E402


def record(tmp_path):
    from runtime.recorder import Recorder
    rec = Recorder(tmp_path, evidence=False)
    for obs in glare_game_with_the_disc_seen_off_a2():
        for ev in rec.tracker.feed(obs):
            rec._handle(ev)
    for ev in rec.tracker.finish():
        rec._handle(ev)
    rec.journal.close()
    return [json.loads(x) for x in (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines() if x]


def test_the_journal_retracts_the_incident_by_the_id_it_gave_it(tmp_path):
    lines = record(tmp_path)
    incidents = [e for e in lines if e["type"] == "incident"]
    gone = [e for e in lines if e["type"] == "incident_retracted"]
    assert len(gone) == 1
    target = [e for e in incidents if e["id"] == gone[0]["incident"]]
    assert len(target) == 1 and target[0]["kind"] == "between_points" and target[0]["points"] == ["a2"]
    assert gone[0]["kind"] == "between_points" and gone[0]["incident_ply"] == 3 and gone[0]["reason"]
    assert lines.index(target[0]) < lines.index(gone[0])


def test_the_review_and_the_live_state_show_the_incident_as_retracted(tmp_path):
    from live.state import fold
    from runtime.review import render_review
    lines = record(tmp_path)
    ident = next(e["incident"] for e in lines if e["type"] == "incident_retracted")
    state = fold(lines).to_dict()
    inc = next(i for i in state["incidents"] if i["id"] == ident)
    assert inc["retracted"] is not None and "a0a1" in inc["retracted"]["reason"]
    assert all(i["retracted"] is None for i in state["incidents"] if i["id"] != ident)
    page = render_review(lines, out_dir=tmp_path)
    assert f"<div class='inc retracted' id='inc{ident}'" in page
    assert "retracted at t=" in page and f"#{ident}</a> between_points retracted:" in page
    # nothing left for the arbiter to rule on
    block = page.split(f"id='inc{ident}'")[1].split("<div class='inc")[0]
    assert "xqtrack rule DIR" not in block
