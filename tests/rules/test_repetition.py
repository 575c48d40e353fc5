"""Repetition rulings (棋例): the lesson's worked examples, the forms the issue names, the ruling
table, the counting of cycles, colour symmetry, and `xqtrack adjudicate` as a real process."""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import FenError, Move, MoveError, Position
from rules.chase import CHASE, CHECK, IDLE, MATE_THREAT, classify_move, with_turn
from rules.notation import parse_move
from rules.repetition import LOSS_CYCLES, RULINGS, Ruling, adjudicate, rule_on_kinds

from ._helpers import SWAP_SIDES, flip_fen, flip_move, random_position_and_move

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rules" / "repetition"
CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))["cases"]
BY_ID = {c["id"]: c for c in CASES}


def moves_of(case: dict) -> list[Move]:
    return [Move.from_iccs(m) for m in case["moves"]]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_ruling_and_move_kinds(case):
    ruling = adjudicate(case["fen"], moves_of(case))
    assert ruling.ruling == case["rulings"]["cn"], ruling.reason
    if "cycle_plies" in case:
        assert ruling.cycle_plies == case["cycle_plies"]
    if "kinds" in case:
        assert [m.cls.kind for m in ruling.moves] == case["kinds"], [m.to_dict() for m in ruling.moves]
        assert [m.ply for m in ruling.moves] == ruling.cycle_plies
    if ruling.ruling != "none":
        n = len(case["moves"])
        plies = ruling.cycle_plies
        assert plies == list(range(plies[0], plies[-1] + 1)) and 1 <= plies[0] and plies[-1] <= n
        assert "red" in ruling.reason and "black" in ruling.reason


@pytest.mark.parametrize("case", [c for c in CASES if "lesson_moves" in c],
                         ids=[c["id"] for c in CASES if "lesson_moves" in c])
def test_lesson_moves_in_chinese_notation_are_the_fixture_moves(case):
    """The reconstructed positions admit exactly the moves the lesson writes."""
    tokens = [t for t in re.split(r"\s+|\d+\.", case["lesson_moves"]) if t]
    pos = Position.from_fen(case["fen"])
    got = []
    for token in tokens:
        move = parse_move(pos, token)
        got.append(move.iccs())
        pos.push(move)
    assert got == case["moves"][:len(got)]


LINES = [(c["id"], line) for c in CASES for line in c.get("lesson_lines", [])]


@pytest.mark.parametrize("case_id, line", LINES, ids=[f"{i}:{l['line']}" for i, l in LINES])
def test_mating_lines_quoted_by_the_lesson_mate(case_id, line):
    """Where the lesson explains a 杀 or a hidden 捉 by a mating line, the line is legal and mates."""
    case = BY_ID[case_id]
    pos = Position.from_fen(case["fen"])
    for m in case["moves"][:line["after_ply"]]:
        pos.push(Move.from_iccs(m))
    mover = "b" if pos.turn == "w" else "w"   # the side that just moved plays on (the threat)
    pos = with_turn(pos, mover)
    for token in line["line"].split():
        pos.push(parse_move(pos, token))
    assert pos.is_checkmate()


def test_first_move_capture_is_not_counted_and_threat_before_it_is_mate_threat():
    case = BY_ID["fig16_2_black_perpetual_check_loses"]
    pos = Position.from_fen(case["fen"])
    assert classify_move(pos, Move.from_iccs("f6d6")).kind == MATE_THREAT   # 车四平六 is 杀
    ruling = adjudicate(case["fen"], moves_of(case))
    assert ruling.cycles == LOSS_CYCLES and 2 not in ruling.cycle_plies


def _prefix_rulings(case_id: str) -> list[str]:
    case = BY_ID[case_id]
    moves = moves_of(case)
    return [adjudicate(case["fen"], moves[:n]).ruling for n in range(len(moves) + 1)]


def test_counting_perpetual_check_by_cycles():
    """Lesson 16-2: black may vary until the sixth check (third cycle), then loses at once."""
    rulings = _prefix_rulings("fig16_2_black_perpetual_check_loses")
    # plies 0-5: no repeated position yet (the start, the 杀, the capture, the first two replies)
    assert rulings[:6] == ["none"] * 6
    assert set(rulings[6:14]) == {"black_must_vary"}
    assert rulings[14] == "black_loses"


def test_a_loss_stands_when_the_record_goes_on():
    ruling = adjudicate(BY_ID["fig16_2_loss_stands_after_more_moves"]["fen"],
                        moves_of(BY_ID["fig16_2_loss_stands_after_more_moves"]))
    assert ruling.ruling == "black_loses" and "ply 14" in ruling.reason


def test_reason_names_the_forms_in_both_languages():
    case = BY_ID["fig16_1_perpetual_check_loses"]
    reason = adjudicate(case["fen"], moves_of(case)).reason
    assert "red perpetual check (长将)" in reason and "black idle (闲)" in reason
    assert "3 cycles" in reason and "red loses" in reason
    chase = adjudicate(BY_ID["fig16_4_cannon_chases_chariot"]["fen"], moves_of(BY_ID["fig16_4_cannon_chases_chariot"]))
    assert "一捉一闲" in chase.reason and "长捉" in chase.reason
    detail = [m.to_dict() for m in chase.moves if m.cls.kind == CHASE]
    assert any("炮" in c and "车" in c for d in detail for c in d["chases"])


# ------------------------------------------------------------------ the ruling table (棋例总纲)
@pytest.mark.parametrize("red, black, verdict", [
    ((CHECK, CHECK), (IDLE, IDLE), "red_forbidden"),                      # 长将
    ((IDLE, IDLE), (CHECK, CHECK), "black_forbidden"),
    ((CHECK, CHECK), (CHECK, CHECK), "draw"),                             # mutual perpetual check
    ((CHECK, CHECK), (CHASE, CHASE), "red_forbidden"),                    # check is graver than chase
    ((CHASE, CHASE), (CHECK, CHECK), "black_forbidden"),
    ((CHECK, CHECK), (CHECK, CHASE), "red_forbidden"),                    # only one side all checks
    ((CHASE, CHASE), (IDLE, IDLE), "red_forbidden"),                      # 长捉
    ((MATE_THREAT, MATE_THREAT), (IDLE, IDLE), "red_forbidden"),          # 长杀
    ((CHECK, CHASE), (IDLE, CHASE), "red_forbidden"),                     # 一将一捉 vs 一捉一闲 (16-7)
    ((CHECK, MATE_THREAT), (IDLE, IDLE), "red_forbidden"),                # 一将一杀 (16-6)
    ((MATE_THREAT, CHASE), (IDLE, IDLE), "red_forbidden"),                # 一捉一杀
    ((CHASE, CHASE), (MATE_THREAT, CHASE), "draw"),                       # both forbidden (16-8)
    ((CHASE, CHASE), (CHASE, CHASE), "draw"),                             # mutual perpetual chase
    ((CHECK, IDLE), (IDLE, IDLE), "draw"),                                # 一将一闲 is allowed
    ((CHASE, IDLE), (MATE_THREAT, IDLE), "draw"),                         # 一捉一闲, 一杀一闲 allowed
    ((IDLE, IDLE), (IDLE, IDLE), "draw"),
    ((CHECK, CHECK, CHECK), (IDLE, IDLE, IDLE), "red_forbidden"),         # longer cycles
])
def test_ruling_table(red, black, verdict):
    assert rule_on_kinds(red, black)[0] == verdict


def test_ruling_value_and_dict():
    r = Ruling("draw", "why", [1, 2])
    assert r.to_dict() == {"ruling": "draw", "reason": "why", "cycle_plies": [1, 2],
                           "rules": "cn", "rule": "", "moves": []}
    json.dumps(r.to_dict())
    with pytest.raises(ValueError):
        Ruling("red_wins", "", [])


def test_bad_input_is_named():
    with pytest.raises(MoveError, match="ply 3"):
        adjudicate(None, [Move.from_iccs("h2e2"), Move.from_iccs("h9g7"), Move.from_iccs("e2e9")])
    with pytest.raises(FenError):
        adjudicate("not a fen", [])
    with pytest.raises(MoveError, match="ply 1"):
        adjudicate(None, ["h2e2"])   # text, not a Move


# ------------------------------------------------------------------ colour symmetry


@pytest.mark.parametrize("case", [c for c in CASES if c["fen"]], ids=[c["id"] for c in CASES if c["fen"]])
def test_colour_flipped_case_gets_the_mirrored_ruling(case):
    flipped = adjudicate(flip_fen(case["fen"]), [Move.from_iccs(flip_move(m)) for m in case["moves"]])
    assert flipped.ruling == SWAP_SIDES[case["rulings"]["cn"]], flipped.reason
    if "kinds" in case:
        assert [m.cls.kind for m in flipped.moves] == case["kinds"]


# ------------------------------------------------------------------ random games
@st.composite
def games_with_shuffles(draw):
    """A random legal game from the start, with back-and-forth shuffles spliced in so that
    repetitions (and sometimes perpetual attacks) actually happen."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    pos = Position()
    moves: list[Move] = []
    for _ in range(draw(st.integers(4, 30))):
        legal = pos.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        pos.push(move)
        moves.append(move)
        if rng.random() < 0.3 and len(moves) >= 2:
            a, b = moves[-2], moves[-1]
            shuffle = [Move(a.to_sq, a.from_sq), Move(b.to_sq, b.from_sq), a, b] * rng.randint(1, 3)
            for s in shuffle:
                if not pos.is_legal(s):
                    break
                pos.push(s)
                moves.append(s)
    return moves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_with_shuffles())
def test_random_games_give_consistent_rulings(moves):
    ruling = adjudicate(None, moves)
    assert ruling.ruling in RULINGS
    json.dumps(ruling.to_dict(), ensure_ascii=False)
    pos = Position()
    keys = [(pos.zobrist_hash(), pos.board_fen(), pos.turn)]
    for m in moves:
        pos.push(m)
        keys.append((pos.zobrist_hash(), pos.board_fen(), pos.turn))
    final_repeated = keys.count(keys[-1]) > 1
    if ruling.ruling == "none":
        assert not final_repeated and ruling.cycle_plies == []
    else:
        plies = ruling.cycle_plies
        assert plies == list(range(plies[0], plies[-1] + 1))
        # the judged cycle really returns to its starting position
        assert keys[plies[0] - 1] == keys[plies[-1]]
        if not ruling.ruling.endswith("_loses"):
            assert final_repeated and plies[-1] == len(moves)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(6, 60))
def test_move_classification_is_colour_symmetric_and_pure(seed, plies):
    """Classifying a move and its colour mirror gives the same kind (and the same chased
    pieces, mirrored); classifying never changes the position it is given."""
    found = random_position_and_move(seed, plies)
    if found is None:
        return
    pos, move = found
    legal = pos.legal_moves()
    fen = pos.fen()
    here = classify_move(pos, move)
    assert pos.fen() == fen and pos.legal_moves() == legal
    mirror = Position.from_fen(flip_fen(fen))
    there = classify_move(mirror, Move.from_iccs(flip_move(move.iccs())))
    assert here.kind == there.kind
    flip_sq = lambda sq: (9 - sq // 9) * 9 + sq % 9  # noqa: E731
    assert sorted((flip_sq(p.attacker_sq), flip_sq(p.victim_sq)) for p in here.chases) == \
        sorted((p.attacker_sq, p.victim_sq) for p in there.chases)


# ------------------------------------------------------------------ the command
def xqtrack(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)


@pytest.mark.parametrize("name", ["fig16_2.pgn", "fig16_2_chinese.pgn"])
def test_adjudicate_command_prints_one_json_line(name):
    done = xqtrack("adjudicate", str(DATA / name))
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert set(result) == {"ruling", "reason", "cycle_plies", "rules", "rule", "moves"}
    assert result["rules"] == "cn" and "棋例总纲" in result["rule"]
    assert [m["ply"] for m in result["moves"]] == result["cycle_plies"]
    assert result["ruling"] == "black_loses"
    assert result["cycle_plies"] == [11, 12, 13, 14]
    assert "长将" in result["reason"]


@pytest.mark.parametrize("content", [
    None,                                                        # missing file
    "[Game \"Chinese Chess\"]\n[Format \"ICCS\"]\n\n1. h2e2 h9g7 2. e2e9 *\n",    # illegal move
    "[Game \"Chinese Chess\"]\n[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1\"]\n\n1. h2e2 *\n",
    b"\xff\xfe\x00garbage\x00\x01",                              # not a game file at all
    "",                                                          # empty file: no game
])
def test_adjudicate_command_errors_cleanly(tmp_path, content):
    path = tmp_path / "game.pgn"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    done = xqtrack("adjudicate", str(path))
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode != 0
    assert done.stdout == b""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "adjudicate" in err


# ------------------------------------------------------------------ real games
GAMES = [json.loads(line) for line in (ROOT / "tests" / "data" / "games" / "games.jsonl")
         .read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_real_game_gets_a_consistent_ruling():
    """All recorded games adjudicate without error; each judged cycle really is a cycle."""
    seen = {}
    for game in GAMES:
        moves = [Move.from_iccs(m) for m in game["moves_iccs"]]
        ruling = adjudicate(game["start_fen"], moves)
        seen[game["id"]] = ruling
        assert ruling.ruling in RULINGS
        if ruling.ruling != "none":
            pos = Position() if game["start_fen"] is None else Position.from_fen(game["start_fen"])
            for m in moves[:ruling.cycle_plies[0] - 1]:
                pos.push(m)
            start = pos.board_fen(), pos.turn
            for m in moves[ruling.cycle_plies[0] - 1:ruling.cycle_plies[-1]]:
                pos.push(m)
            assert (pos.board_fen(), pos.turn) == start, game["id"]
    # Checked by hand (Hu Ronghua vs Lv Qin, 1996): 车6平4 checks, 车4平6 attacks the red advisor
    # on f0 while it stands unprotected (the other advisor has gone to d2), red only shuffles
    # the advisor back: black 一将一捉 after one cycle -> black must vary.
    r = seen["wukong-hu-0365"]
    assert r.ruling == "black_must_vary" and [m.cls.kind for m in r.moves] == [CHECK, IDLE, CHASE, IDLE]
    # Hu Ronghua vs Wan Chunlin, 2002: 炮6平5 attacks the unprotected elephant on e2 through the
    # red horse, 炮5平6 checks; repeated beyond three cycles before black varied.
    r = seen["wukong-hu-0687"]
    assert r.ruling == "black_loses" and "ply 153" in r.reason
