"""The real pipeline end to end: a rendered clip → `xqtrack record` → moves, incidents, files.

The clip is rendered here from a seed and look never used while developing
the tracker (9201, "plastic"), decoded by OpenCV from the written video and
read by vision.BoardReader — nothing is synthesised.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules.pgn import read_pgn
from sim import ClipSpec, write_clip

from board_helpers import SIDE

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("clip9201")
    truth = write_clip(ClipSpec(seed=9201, look="plastic", random_plies=4, width=640, height=360,
                                incidents=[{"kind": "between_points", "ply": 3}]), d)
    return d, truth


def test_record_a_rendered_clip(clip, tmp_path):
    d, truth = clip
    out = tmp_path / "rec"
    side = truth.moves[0]["side"] if truth.moves else "w"
    fen = f"{truth.start_fen.split()[0]} {side} - - 0 1"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "app.cli", "record", str(d / "clip.mp4"), "--out", str(out),
                        "--start-fen", fen, "--quiet"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    expected = [m["iccs"] for m in truth.moves]
    events = [json.loads(x) for x in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    moves = [e["iccs"] for e in events if e["type"] == "move"]
    assert moves == expected, r.stdout
    game = read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]
    assert [m.iccs() for m in game.moves] == expected
    planted = [i for i in truth.incidents if i["kind"] != "arm_pass"]
    found = [e for e in events if e["type"] == "incident"]
    for inc in planted:
        assert any(e["kind"] == inc["kind"] and set(e["points"]) & set(inc["points"]) for e in found), found
    assert len(found) - len(planted) <= 1, found
    for e in found:
        assert e.get("evidence"), e
        for rel in e["evidence"].values():
            assert (out / rel).exists()
    assert (out / "review.html").exists()
    assert all(SIDE[i["side"]] in ("red", "black") for i in planted)
