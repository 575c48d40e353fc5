"""No silent wrong answers: every command refuses impossible input with the reason, as a real
subprocess of `xqtrack` (one line on stderr, non-zero exit), and keeps what it could do."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.camera import FORMAT, CameraCalibrationError, CameraIntrinsics
from rules import ImpossiblePositionError, position_from_fen

ROOT = Path(__file__).resolve().parent.parent.parent

IMPOSSIBLE = {
    "three generals": "3kkk3/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
    "a general outside its palace": "4k4/9/9/9/9/9/4K4/9/9/9 w - - 0 1",
    "an elephant across the river": "4k4/9/9/9/2B6/9/9/9/9/4K4 w - - 0 1",
    "an advisor off its five points": "4k4/9/9/9/9/9/9/9/A8/4K4 w - - 0 1",
    "a soldier behind its starting rank": "4k4/9/9/9/9/9/9/9/P8/4K4 w - - 0 1",
    "more pieces than a set": "4k4/9/9/9/9/9/RRR6/9/9/4K4 w - - 0 1",
}
REASON = {
    "three generals": "3 generals", "a general outside its palace": "outside its palace",
    "an elephant across the river": "off its seven points", "an advisor off its five points": "off its five",
    "a soldier behind its starting rank": "behind its starting rank", "more pieces than a set": "a set has 2",
}


def xqtrack(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_an_impossible_position_is_refused_with_its_reason(case):
    with pytest.raises(ImpossiblePositionError) as err:
        position_from_fen(IMPOSSIBLE[case])
    assert REASON[case] in str(err.value) and "--allow-impossible" in str(err.value)
    assert position_from_fen(IMPOSSIBLE[case], allow_impossible=True) is not None


@pytest.mark.parametrize("case", ["three generals", "an elephant across the river"])
def test_perft_refuses_an_impossible_fen_unless_allowed(case):
    r = xqtrack("perft", IMPOSSIBLE[case], "1")
    assert r.returncode == 1 and REASON[case] in r.stderr and len(r.stderr.strip().splitlines()) == 1
    ok = xqtrack("perft", IMPOSSIBLE[case], "1", "--allow-impossible")
    assert ok.returncode == 0 and int(ok.stdout) >= 0


def test_record_refuses_an_impossible_start_fen_before_opening_anything(tmp_path):
    r = xqtrack("record", str(tmp_path / "no_such.mp4"), "--out", str(tmp_path / "rec"),
                "--start-fen", IMPOSSIBLE["a soldier behind its starting rank"])
    assert r.returncode == 1 and "--start-fen" in r.stderr and "behind its starting rank" in r.stderr
    assert not (tmp_path / "rec").exists()


def _pgn(fen: str | None, moves: str, n: int) -> str:
    tags = f'[Game "Chinese Chess"]\n[Event "test {n}"]\n[Result "*"]\n'
    if fen:
        tags += f'[FEN "{fen}"]\n'
    return tags + "\n" + moves + " *\n\n"


def test_convert_and_adjudicate_refuse_a_game_file_with_an_impossible_start(tmp_path):
    f = tmp_path / "study.pgn"
    f.write_text(_pgn("4k4/9/9/9/2B6/9/9/9/9/3K5 w - - 0 1", "1. K6+1", 1), encoding="utf-8")
    for cmd in ("convert", "adjudicate"):
        r = xqtrack(cmd, str(f))
        assert r.returncode == 1 and "off its seven points" in r.stderr and "game 1" in r.stderr, (cmd, r.stderr)
    assert xqtrack("convert", str(f), "--allow-impossible", "--to", "iccs").returncode == 0


def test_convert_writes_the_good_games_of_a_file_whose_third_game_is_bad(tmp_path):
    f = tmp_path / "three.pgn"
    f.write_text(_pgn(None, "1. C2.5 H8+7", 1) + _pgn(None, "1. H2+3 C8.5", 2)
                 + _pgn(None, "1. C2.5 C8.5 2. R1+9", 3), encoding="utf-8")
    out = tmp_path / "out.pgn"
    r = xqtrack("convert", str(f), "--to", "iccs", "--out", str(out))
    assert r.returncode == 1, r.stderr
    assert "game 3" in r.stderr and "R1+9" in r.stderr and "ply" in r.stderr.lower(), r.stderr
    text = out.read_text(encoding="utf-8")
    assert "test 1" in text and "test 2" in text and "test 3" not in text


@pytest.mark.parametrize("depth", ["13", "100000"])
def test_perft_refuses_a_depth_too_big_to_finish_with_a_clear_line(depth):
    r = xqtrack("perft", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", depth)
    assert r.returncode == 1 and "too big" in r.stderr and "Recursion" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("k", [
    [[0, 0, 320], [0, 0, 240], [0, 0, 1]],
    [[math.nan, 0, 320], [0, 500, 240], [0, 0, 1]],
    [[500, 0, 320], [0, -500, 240], [0, 0, 1]],
])
def test_a_calibration_with_zero_or_nan_intrinsics_is_rejected_as_such(tmp_path, k):
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"format": FORMAT, "K": k, "dist": [0, 0, 0, 0, 0], "width": 640, "height": 480}))
    with pytest.raises(CameraCalibrationError) as err:
        CameraIntrinsics.load(path)
    assert str(path) in str(err.value)
    assert "NaN" in str(err.value) or "must be positive" in str(err.value)


def test_read_refuses_a_greyscale_photo_instead_of_printing_an_impossible_position(tmp_path):
    import cv2
    photo = ROOT / "tests" / "data" / "real_boards" / "desk_z4740634087907.jpg"
    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(photo)), cv2.COLOR_BGR2GRAY))
    r = xqtrack("read", str(grey))
    assert r.returncode == 1 and r.stdout == ""
    assert "no colour" in r.stderr and str(grey) in r.stderr and len(r.stderr.strip().splitlines()) == 1
    colour = xqtrack("read", str(photo))
    assert colour.returncode == 0 and colour.stdout.count("/") == 9
