"""`xqtrack rule` and `xqtrack serve`: one clear line on bad input, rulings journalled and shown."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

from app.cli import main
from live_helpers import GameWriter
from runtime.journal import read_events


def _game_with_incidents(tmp_path, n=2):
    g = GameWriter(tmp_path)
    g.move("h2e2")
    for _ in range(n):
        g.incident("retouch")
    g.close()
    return g


def test_rule_journals_the_decision_and_the_review_shows_it(tmp_path, capsys):
    _game_with_incidents(tmp_path)
    assert main(["rule", str(tmp_path), "2", "--dismiss", "--note", "hand slipped"]) == 0
    events, _ = read_events(tmp_path / "events.jsonl")
    ruling = events[-1]
    assert ruling["type"] == "ruling" and ruling["incident"] == 2 and ruling["decision"] == "dismissed"
    assert ruling["note"] == "hand slipped" and "wall" in ruling
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    block = html.split("id='inc2'")[1].split("id='inc3'")[0]
    assert "驳回" in block and "dismissed" in block and "hand slipped" in block
    assert "pending" in html.split("id='inc1'")[1].split("id='inc2'")[0]


def test_rule_on_an_unknown_incident_is_one_line_naming_the_ids_there(tmp_path, capsys):
    _game_with_incidents(tmp_path)
    assert main(["rule", str(tmp_path), "7", "--uphold"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no incident 7" in err[0] and "1, 2" in err[0]


def test_rule_needs_exactly_one_decision(tmp_path, capsys):
    _game_with_incidents(tmp_path)
    try:
        main(["rule", str(tmp_path), "1", "--uphold", "--dismiss"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_rule_on_a_folder_without_a_journal_says_so(tmp_path, capsys):
    assert main(["rule", str(tmp_path), "1", "--uphold"]) == 1
    assert "no journal here" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_serves_a_finished_recording_and_prints_the_token(tmp_path):
    _game_with_incidents(tmp_path, 1)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", str(tmp_path), "--http", str(port),
                             "--for", "20"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert f"http://127.0.0.1:{port}/" in line
        assert "token:" in proc.stderr.readline()
        st = None
        for _ in range(100):
            try:
                st = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/state.json", timeout=2).read())
                break
            except OSError:
                time.sleep(0.05)
        assert st is not None and st["moves"] == ["h2e2"] and st["incidents"][0]["id"] == 1
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_refuses_a_missing_folder_in_one_line(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nope"), "--http", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such recording folder" in err[0]


def test_record_on_a_port_in_use_stops_in_one_line_before_writing_anything(tmp_path, capsys):
    from pathlib import Path
    clip = Path(__file__).resolve().parents[2] / "sim" / "samples" / "demo" / "clip.mp4"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["record", str(clip), "--out", str(tmp_path / "r"), "--http", str(port), "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot serve on 127.0.0.1:{port}" in err[0]
    assert not (tmp_path / "r" / "events.jsonl").exists()


def test_record_with_a_bad_http_address_names_it(tmp_path, capsys):
    from pathlib import Path
    clip = Path(__file__).resolve().parents[2] / "sim" / "samples" / "demo" / "clip.mp4"
    assert main(["record", str(clip), "--out", str(tmp_path / "r"), "--http", "localhost:http", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--http 'localhost:http'" in err[0] and "not a number" in err[0]


def test_a_journal_with_rulings_still_resumes(tmp_path):
    from runtime.journal import load_game
    _game_with_incidents(tmp_path, 1)
    assert main(["rule", str(tmp_path), "1", "--uphold"]) == 0
    game = load_game(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2"] and not game.warnings
