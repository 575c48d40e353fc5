"""`xqtrack convert` end to end, as a real process: GBK game files in, PGN in each notation out,
and the error path (one line on stderr, non-zero exit, no traceback)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules.pgn import read_pgn, read_pgn_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
GBK_FILES = sorted((DATA / "games" / "pgn_chinese_gbk").glob("*.PGN"))


def xqtrack(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=60)


@pytest.mark.parametrize("notation, traditional, marker", [
    ("iccs", False, "H2-E2"), ("wxf", False, "C2.5"), ("chinese", False, "马8进7"),
    ("chinese", True, "馬8進7"), ("yizi", False, "炮253"),
])
def test_convert_gbk_game_to_each_notation(notation, traditional, marker):
    path = GBK_FILES[1]          # 02: red opens 炮二平五, black answers 马8进7
    args = ["convert", str(path), "--to", notation] + (["--traditional"] if traditional else [])
    done = xqtrack(*args)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert marker in out.split("\n\n", 1)[1].split()       # in the movetext
    assert f'[Format "{ {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "yizi": "Yizi"}[notation]}"]' in out
    assert '[Site "北京中国科技馆"]' in out
    original = read_pgn_file(path)[0]
    converted = read_pgn(out)
    assert len(converted) == 1
    assert converted[0].moves == original.moves and converted[0].result == original.result


def test_convert_keeps_every_game_of_a_file():
    done = xqtrack("convert", str(DATA / "rules" / "features.pgn"), "--to", "wxf")
    assert done.returncode == 0, done.stderr.decode()
    games = read_pgn(done.stdout.decode("utf-8"))
    assert [len(g.moves) for g in games] == [8, 3, 4]
    assert games[0].clocks_ms[:2] == [598_000, 595_500]


@pytest.mark.parametrize("args, fragment", [
    (["convert", str(DATA / "rules" / "bad_second_game.pgn"), "--to", "iccs", "--strict"],
     "game 2 (Red player vs Black player), ply 4 (move 2...) '马8进7'"),
    (["convert", str(DATA / "rules" / "no_such_file.pgn"), "--to", "wxf"], "cannot read the file"),
])
def test_convert_errors_are_one_line(args, fragment):
    done = xqtrack(*args)
    err = done.stderr.decode("utf-8")
    assert done.returncode != 0
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("xqtrack convert: error: ")
    assert fragment in err
    assert done.stdout == b""
