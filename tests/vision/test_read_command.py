"""`xqtrack read IMAGE [--json]` end to end (subprocess, real files), and read_image."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"


def _xq(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def _agree(a: str, b: str) -> float:
    return float(np.mean([x == y for x, y in zip(a, b)]))


# Piece identity is the classifier's job (tests/vision/test_classifier_model.py holds its
# accuracy bars); these tests check the read path around it: geometry, orientation, output.
def test_read_start_position_json(vsim, tmp_path):
    from vision.observation import board_fen
    img, truth = vsim.still(105, look="cloth", tilt=5, azimuth=135, fen=START)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), img)
    r = _xq("read", str(path), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["fen"] == board_fen(out["board"])
    assert _agree(out["board"], truth.board) >= 0.9
    assert out["red_side"] == truth.red_side
    assert np.abs(np.array(out["corners"]) - truth.corners).max() < 1.5
    assert len(out["confidence"]) == 90 and all(0.0 <= c <= 1.0 for c in out["confidence"])
    r = _xq("read", str(path))
    assert r.returncode == 0 and r.stdout.strip() == out["fen"]


def test_read_image_api_on_a_middlegame(vsim):
    from vision import read_image
    img, truth = vsim.still(104, look="paper", tilt=25, azimuth=270)
    obs = read_image(np.ascontiguousarray(img))
    assert _agree(obs.board_string(), truth.board) >= 0.9
    assert obs.pose.red_side == truth.red_side
    assert obs.quiet and not obs.occluded.any()


def test_read_without_a_board_is_one_clear_line(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "no_board.jpg"
    cv2.imwrite(str(path), cv2.GaussianBlur(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8), (0, 0), 3))
    r = _xq("read", str(path))
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no board found" in lines[0] and "no_board.jpg" in lines[0]
    r = _xq("read", str(tmp_path / "missing.png"))
    assert r.returncode == 1 and "no such image file" in r.stderr
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    r = _xq("read", str(bad))
    assert r.returncode == 1 and "not an image" in r.stderr
