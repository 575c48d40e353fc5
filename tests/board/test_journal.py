"""Journal, PGN and resume: nothing recorded is lost, even to SIGKILL."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime.journal import Journal, load_game, read_events, write_game_pgn
from runtime.review import write_review
from rules import Move
from rules.pgn import read_pgn

HERE = Path(__file__).resolve().parent
TARGET = HERE / "board_kill_target.py"


def _env():
    env = dict(os.environ)
    root = str(HERE.parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_events_are_lines_with_time_and_wall_clock(tmp_path):
    with Journal(tmp_path) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started",
                 "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"})
        j.write({"type": "move", "t": 1.5, "ply": 1, "iccs": "h2e2", "side": "red"})
    lines = (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    for line in lines:
        d = json.loads(line)
        assert {"t", "wall", "type", "ply"} <= set(d)
        assert "T" in d["wall"] and d["wall"].endswith("+00:00")
    with pytest.raises(ValueError, match="lacks 'ply'"):
        with Journal(tmp_path) as j:
            j.write({"type": "move", "t": 1.0})


def test_torn_last_line_is_skipped_and_repaired(tmp_path):
    with Journal(tmp_path) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started",
                 "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"})
        j.write({"type": "move", "t": 1.5, "ply": 1, "iccs": "h2e2", "side": "red"})
    with open(tmp_path / "events.jsonl", "a", encoding="utf-8") as f:
        f.write('{"t": 3.0, "wall": "2026-01-01T00:00:00', )   # killed mid-write
    game = load_game(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2"]
    assert len(game.warnings) == 1 and "line 3" in game.warnings[0]
    with Journal(tmp_path) as j:   # a resumed journal starts on a fresh line
        j.write({"type": "move", "t": 4.0, "ply": 2, "iccs": "h9g7", "side": "black"})
    game = load_game(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2", "h9g7"]


def test_pgn_is_chinese_with_format_tag_and_clock(tmp_path):
    moves = [Move.from_iccs("h2e2"), Move.from_iccs("h9g7")]
    path = write_game_pgn(tmp_path, {"Red": "甲", "Black": "乙"}, None, moves, [895_000, 893_500])
    text = path.read_text(encoding="utf-8")
    assert '[Format "Chinese"]' in text and "炮二平五" in text and "马8进7" in text and "%clk" in text
    games = read_pgn(text)
    assert games[0].moves == moves and games[0].clocks_ms == [895_000, 893_500]
    assert not list(tmp_path.glob(".game.pgn.*"))   # no temp files left behind


def _run_target(out: Path, delay: float, start: int = 0, kill_after: float | None = None):
    cmd = [sys.executable, str(TARGET), str(out), str(delay), str(start)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), text=True)
    if kill_after is None:
        out_s, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        return out_s.split("\n", 1)[1]
    assert proc.stdout.readline().strip() == "recording"
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    return None


@pytest.mark.parametrize("seed", [1, 2])
def test_kill_at_a_random_point_then_resume(tmp_path, seed):
    sys.path.insert(0, str(HERE))
    from board_kill_target import game

    truth = game()
    expected = [m["iccs"] for m in truth.moves]
    out = tmp_path / "rec"
    kill_after = random.Random(seed).uniform(0.3, 2.5)
    _run_target(out, 0.004, kill_after=kill_after)

    events, warnings = read_events(out / "events.jsonl")
    assert len(warnings) <= 1                      # at most the line being written
    rec = load_game(out)
    got = [m.iccs() for m in rec.moves]
    assert got == expected[:len(got)]              # a prefix of the game, nothing wrong
    if (out / "game.pgn").exists():                # always a whole, readable file
        pgn_moves = [m.iccs() for m in read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0].moves]
        assert pgn_moves == got[:len(pgn_moves)] and len(got) - len(pgn_moves) <= 1

    # Continue from where the journal ends (a new video, from after the last recorded move).
    start = truth.moves[len(got) - 1]["frame_hand_leaves"] + 8 if got else 0
    printed = _run_target(out, 0.0, start=start)
    assert printed.split() == expected
    final = load_game(out)
    assert [m.iccs() for m in final.moves] == expected
    assert [m.iccs() for m in read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0].moves] == expected
    assert any(e.get("status") == "resumed" for e in final.events) or not got


def test_review_page_is_self_contained(tmp_path):
    with Journal(tmp_path) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started",
                 "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
                 "headers": {"Red": "<Ann>", "Black": "Bo"}})
        j.write({"type": "move", "t": 1.5, "ply": 1, "iccs": "h2e2", "side": "red", "notation": "炮二平五"})
        j.write({"type": "incident", "t": 1.5, "ply": 1, "kind": "retouch", "side": "red", "points": ["e2"],
                 "detail": "touched again", "frames": {"before": 1, "during": 5, "after": 9},
                 "evidence": {"before": "evidence/001_before.jpg", "after": "evidence/001_after.jpg"}})
    html = write_review(tmp_path).read_text(encoding="utf-8")
    assert "&lt;Ann&gt;" in html and "<Ann>" not in html          # escaped
    assert "炮二平五" in html and "retouch" in html
    assert "src='evidence/001_before.jpg'" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html


def test_a_correction_in_the_journal_replaces_the_ply_on_resume_and_in_the_review(tmp_path):
    start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    with Journal(tmp_path) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "fen": start})
        for ply, iccs, side in ((1, "h2e2", "red"), (2, "h9g7", "black"), (3, "a0a2", "red")):
            j.write({"type": "move", "t": float(ply), "ply": ply, "iccs": iccs, "side": side})
        j.write({"type": "clock", "t": 3.2, "ply": 3, "kind": "press", "side": "red",
                 "remaining_ms": {"red": 590000, "black": 600000}})
        j.write({"type": "tracking", "t": 5.0, "ply": 3, "status": "corrected", "was": "a0a2", "now": "a0a1"})
        j.write({"type": "move", "t": 3.0, "ply": 3, "iccs": "a0a1", "side": "red", "corrected": True,
                 "notation": "车九进一"})
        j.write({"type": "move", "t": 5.0, "ply": 4, "iccs": "b9c7", "side": "black", "notation": "马2进3"})
    game = load_game(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2", "h9g7", "a0a1", "b9c7"]
    assert game.clocks_ms[2] == 590000, "the re-stated ply keeps the clock time its press gave"
    html = write_review(tmp_path).read_text(encoding="utf-8")
    table = html.split("class='plies-t'")[1].split("</table>")[0]
    assert "a0a1" in table and "a0a2" not in table
