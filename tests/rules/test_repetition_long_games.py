"""`adjudicate` on long games: linear in the game's length (a 100,000-ply horse shuffle is judged
through the real command, under a hard time-out that a quadratic search could never meet), and
the same rulings as a plain search over every earlier position and every cycle."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from long_games import horse_shuffle, mixed_game, pgn_text
from rules import Move, Position
from rules.repetition import LOSS_CYCLES, _Judge, adjudicate
from rules.rulesets import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rules" / "repetition"
CASES = (json.loads((DATA / "cases.json").read_text(encoding="utf-8"))["cases"]
         + json.loads((DATA / "axf_cases.json").read_text(encoding="utf-8"))["cases"])


def test_a_100000_ply_horse_shuffle_is_adjudicated_by_the_command():
    text = pgn_text(horse_shuffle(100_000))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "app.cli", "adjudicate", "-"], input=text.encode(), cwd=ROOT,
                          env=env, capture_output=True, timeout=180)
    assert done.returncode == 0, done.stderr.decode()
    ruling = json.loads(done.stdout)
    assert ruling["ruling"] == "draw" and ruling["cycle_plies"] == [99_997, 99_998, 99_999, 100_000]
    assert "repeated 25000 cycles" in ruling["reason"]
    assert [m["kind"] for m in ruling["moves"]] == ["idle"] * 4


def test_a_long_mixed_game_counts_only_the_trailing_cycles_of_its_final_repetition():
    moves = mixed_game(20_000)
    ruling = adjudicate(None, moves)
    assert ruling.ruling == "draw" and ruling.cycle_plies[-1] == 20_000
    assert 1 <= ruling.cycles < 1000


def _reference(start_fen: str | None, moves: list[Move], rules: str) -> tuple[str, int, list[int]]:
    """(ruling, cycles, cycle plies) by the plain definition: every earlier position compared,
    every earlier cycle judged in full (the repetition module's cycle judge, nothing else)."""
    judge = _Judge(start_fen, moves, get_ruleset(rules))
    pos = Position() if start_fen is None else Position.from_fen(start_fen)
    keys = [(pos.board_fen(), pos.turn)]
    for move in moves:
        pos.push(move)
        keys.append((pos.board_fen(), pos.turn))

    def ruling_at(index: int) -> tuple[str, int, list[int]] | None:
        occ = [i for i in range(index + 1) if keys[i] == keys[index]]
        if len(occ) < 2:
            return None
        verdict = judge.judge_cycle(occ[-2], occ[-1])[0].verdict
        cycles = 1
        for j in range(len(occ) - 2, 0, -1):
            if judge.judge_cycle(occ[j - 1], occ[j])[0].verdict != verdict:
                break
            cycles += 1
        plies = list(range(occ[-2] + 1, index + 1))
        if verdict == "draw":
            return "draw", cycles, plies
        side = verdict.split("_")[0]
        return (f"{side}_loses" if cycles >= LOSS_CYCLES else f"{side}_must_vary"), cycles, plies

    for index in range(1, len(moves)):
        found = ruling_at(index)
        if found is not None and found[0].endswith("_loses"):
            return found
    return ruling_at(len(moves)) or ("none", 0, [])


def _game_around(case: dict, rng: random.Random) -> tuple[str | None, list[Move]]:
    """A case's cycle played a few times, broken here and there by other legal moves."""
    fen = case.get("fen")
    pos = Position(fen) if fen else Position()
    cycle = [Move.from_iccs(m) for m in case["moves"]]
    moves: list[Move] = []
    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.7:
            run = cycle * rng.randint(1, 4)
            run = run[:rng.randint(1, len(run))] if rng.random() < 0.3 else run
        else:
            legal = pos.legal_moves()
            run = [rng.choice(legal)] if legal else []
        for move in run:
            if not pos.is_legal(move):
                break
            pos.push(move)
            moves.append(move)
    return fen, moves


@pytest.mark.parametrize("seed", range(4))
def test_the_rulings_are_those_of_a_search_over_every_earlier_position(seed):
    rng = random.Random(seed)
    rulings = set()
    for _ in range(12):
        fen, moves = _game_around(rng.choice(CASES), rng)
        for rules in ("cn", "axf"):
            ruling = adjudicate(fen, moves, rules)
            got = (ruling.ruling, ruling.cycles if ruling.ruling != "none" else 0, ruling.cycle_plies)
            assert got == _reference(fen, moves, rules), ([m.iccs() for m in moves], rules)
            rulings.add(ruling.ruling)
    assert len(rulings) >= 3            # the games reach more than one kind of ruling
