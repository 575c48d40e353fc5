"""The README's first command: `xqtrack demo` records the bundled sample game (a real game filmed
by the synthetic rig, with incidents planted in it) and compares the record with the clip's truth.

Run as a user runs it, in a subprocess: every move right, every planted incident reported and
nothing else reported. (A touch rule that fixed a tuning clip once lost the planted touch at ply 26
here; the demo is what a new user sees first.)
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_records_every_move_and_every_planted_incident_and_nothing_else(tmp_path):
    env = dict(os.environ, XQTRACK_HOME=str(tmp_path / "home"))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "app.cli", "demo", "--out", str(tmp_path / "demo")], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    right = re.search(r"(\d+)/(\d+) moves right", r.stdout)
    planted = re.search(r"Planted incidents reported: (\d+)/(\d+)", r.stdout)
    found = re.search(r"(\d+) moves and (\d+) incidents found", r.stdout)
    assert right and planted and found, r.stdout[-2000:]
    assert right.group(1) == right.group(2), right.group(0)
    assert planted.group(1) == planted.group(2), planted.group(0)
    assert found.group(2) == planted.group(2), found.group(0)     # no incident beyond the planted ones
    assert (tmp_path / "demo" / "game.pgn").is_file() and (tmp_path / "demo" / "review.html").is_file()
