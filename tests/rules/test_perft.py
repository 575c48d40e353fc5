"""Perft against the published node counts in tests/data/games/perft.jsonl (depth <= 4 here;
depth 5 of the start position is in bench/rules_bench.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import START_FEN, Position
from rules.perft import perft, perft_divide

ROOT = Path(__file__).resolve().parents[2]
ROWS = [json.loads(line) for line in (ROOT / "tests/data/games/perft.jsonl").read_text().splitlines() if line.strip()]
TESTED = [r for r in ROWS if r["depth"] <= 4]


def test_every_row_up_to_depth_four_is_tested():
    assert len(TESTED) == len(ROWS) - 1 and all(r["depth"] == 5 for r in ROWS if r not in TESTED)


@pytest.mark.parametrize("row", TESTED, ids=[f"d{r['depth']}-{r['fen'][:20]}" for r in TESTED])
def test_perft_matches_reference(row):
    pos = Position.from_fen(row["fen"])
    fen = pos.fen()
    assert perft(pos, row["depth"]) == row["nodes"]
    assert pos.fen() == fen  # left unchanged


def test_perft_small_depths_and_divide():
    pos = Position()
    assert perft(pos, 0) == 1
    divide = perft_divide(pos, 2)
    assert len(divide) == 44 and sum(n for _, n in divide) == 1920
    assert [m for m, _ in divide] == sorted(pos.legal_moves())
    with pytest.raises(ValueError):
        perft(pos, -1)


def test_perft_command_prints_bare_count_last():
    out = subprocess.run([sys.executable, "-m", "app.cli", "perft", START_FEN, "2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "1920"
    bad = subprocess.run([sys.executable, "-m", "app.cli", "perft", "rnbakabnr/9 w", "2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "2 ranks" in bad.stderr and "Traceback" not in bad.stderr
