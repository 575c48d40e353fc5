"""The two 棋例 rulesets, case by case: the lesson's figures and the constructed forms under
`cn` and `axf` (cases.json), the AXF worked examples as positions (axf_cases.json), the
per-move reasons and the rule named in the JSON ruling, and `xqtrack adjudicate --rules`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import BLACK, RED, Move, Position
from rules.chase import CHASE, CHECK, IDLE, KIND_CHINESE, MATE_THREAT, classify_move, exchange_gain, is_pinned
from rules.repetition import SidePlay, adjudicate, rule_on_kinds
from rules.rulesets import AXF, CN, RULESETS, get_ruleset

from ._helpers import SWAP_SIDES, flip_fen, flip_move, random_position_and_move

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rules" / "repetition"
LESSON = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))["cases"]
AXF_CASES = json.loads((DATA / "axf_cases.json").read_text(encoding="utf-8"))["cases"]
ALL = LESSON + AXF_CASES


def _moves(case: dict) -> list[Move]:
    return [Move.from_iccs(m) for m in case["moves"]]


def _params(cases: list[dict]) -> list:
    return [pytest.param(c, name, id=f"{c['id']}-{name}") for c in cases for name in RULESETS]


# ------------------------------------------------------------------ case by case
@pytest.mark.parametrize("case, rules", _params(ALL))
def test_every_case_gets_its_expected_ruling_under_each_ruleset(case, rules):
    ruling = adjudicate(case["fen"], _moves(case), rules)
    assert ruling.ruling == case["rulings"][rules], ruling.reason
    assert ruling.rules == rules


@pytest.mark.parametrize("case", [c for c in ALL if "axf_kinds" in c], ids=[c["id"] for c in ALL if "axf_kinds" in c])
def test_wins_by_two_attackers_or_by_checks_chase_under_cn_only(case):
    cn = adjudicate(case["fen"], _moves(case), "cn")
    axf = adjudicate(case["fen"], _moves(case), "axf")
    assert [m.cls.kind for m in cn.moves] == case["kinds"]
    assert [m.cls.kind for m in axf.moves] == case["axf_kinds"]
    why = {p.why for m in cn.moves for p in m.cls.chases}
    assert why & {"exchange", "checks"}, [m.to_dict() for m in cn.moves]


def test_every_case_names_a_source_and_both_rulesets():
    for case in ALL:
        assert case.get("source"), case["id"]
        assert set(case["rulings"]) == set(RULESETS), case["id"]


@pytest.mark.parametrize("case", [c for c in ALL if c["rulings"]["cn"] != c["rulings"]["axf"]],
                         ids=[c["id"] for c in ALL if c["rulings"]["cn"] != c["rulings"]["axf"]])
def test_where_the_rulesets_differ_the_ruling_names_the_rule_applied(case):
    cn = adjudicate(case["fen"], _moves(case), "cn").to_dict()
    axf = adjudicate(case["fen"], _moves(case), "axf").to_dict()
    assert cn["rules"] == "cn" and axf["rules"] == "axf"
    assert "棋例总纲" in cn["rule"]
    assert "AXF" in axf["rule"]
    assert cn["rule"] != axf["rule"]
    assert case.get("axf_note") or case.get("cn_note"), "say why the rulesets part here"




@pytest.mark.parametrize("case", AXF_CASES, ids=[c["id"] for c in AXF_CASES])
def test_an_axf_example_with_the_colours_swapped_gets_the_mirrored_ruling(case):
    flipped = adjudicate(flip_fen(case["fen"]), [Move.from_iccs(flip_move(m)) for m in case["moves"]], "axf")
    assert flipped.ruling == SWAP_SIDES[case["rulings"]["axf"]], flipped.reason


# ------------------------------------------------------------------ per-move explanations
@pytest.mark.parametrize("case, rules", _params([c for c in ALL if c["rulings"]["cn"] != "none"]))
def test_each_move_of_the_judged_cycle_says_its_class_and_why(case, rules):
    d = adjudicate(case["fen"], _moves(case), rules).to_dict()
    assert [m["ply"] for m in d["moves"]] == d["cycle_plies"]
    for m in d["moves"]:
        assert m["kind"] in (CHECK, MATE_THREAT, CHASE, IDLE)
        assert m["chinese"] == KIND_CHINESE[m["kind"]]
        assert m["reason"].startswith(m["chinese"]), m
        if m["kind"] == CHASE:
            assert m["chases"] and all(c in m["reason"] for c in m["chases"])
    json.dumps(d, ensure_ascii=False)


def test_a_check_names_the_checking_piece_and_a_mate_threat_its_first_check():
    fig = {c["id"]: c for c in LESSON}
    check = adjudicate(fig["fig16_1_perpetual_check_must_vary"]["fen"],
                       _moves(fig["fig16_1_perpetual_check_must_vary"])).to_dict()["moves"][0]
    assert check["kind"] == CHECK and "车" in check["reason"] and "general at f9" in check["reason"]
    case = fig["fig16_3_perpetual_mate_threat"]
    threat = [m for m in adjudicate(case["fen"], _moves(case), "axf").to_dict()["moves"] if m["kind"] == MATE_THREAT]
    assert threat and all("starting" in m["reason"] for m in threat)


# ------------------------------------------------------------------ the switches, one by one
def test_perpetual_mate_threat_is_forbidden_in_cn_and_a_draw_in_axf():
    assert rule_on_kinds((IDLE, IDLE), (MATE_THREAT, MATE_THREAT), "cn")[0] == "black_forbidden"
    assert rule_on_kinds((IDLE, IDLE), (MATE_THREAT, MATE_THREAT), "axf")[0] == "draw"


def test_one_check_one_chase_is_forbidden_in_cn_and_allowed_in_axf_unless_the_check_chases_the_same_piece():
    assert rule_on_kinds((CHECK, CHASE), (IDLE, IDLE), "cn")[0] == "red_forbidden"
    apart = SidePlay(RED, (CHECK, CHASE), (frozenset(), frozenset({40})))
    same = SidePlay(RED, (CHECK, CHASE), (frozenset({40}), frozenset({40})))
    idle = SidePlay(BLACK, (IDLE, IDLE), (frozenset(), frozenset()))
    assert apart.judge(AXF)[0] is False and "rule 12" in apart.judge(AXF)[1]
    assert same.judge(AXF) == (True, "")


def test_chasing_two_pieces_in_turn_is_allowed_in_axf_only():
    turns = SidePlay(RED, (CHASE, CHASE), (frozenset({10}), frozenset({20})))
    one = SidePlay(RED, (CHASE, CHASE), (frozenset({10, 20}), frozenset({10})))
    assert turns.judge(CN)[0] is True
    assert turns.judge(AXF)[0] is False and "rule 32" in turns.judge(AXF)[1]
    assert one.judge(AXF)[0] is True


KINDS = st.sampled_from([CHECK, MATE_THREAT, CHASE, IDLE])


@given(st.lists(st.tuples(KINDS, st.frozensets(st.integers(0, 4), max_size=3)), min_size=1, max_size=6))
def test_whatever_axf_forbids_cn_forbids_too_and_one_idle_move_frees_both(moves):
    play = SidePlay(RED, tuple(k for k, _ in moves), tuple(v for _, v in moves))
    if play.judge(AXF)[0]:
        assert play.judge(CN)[0]
    idled = SidePlay(RED, play.kinds + (IDLE,), play.victims + (frozenset(),))
    assert not idled.judge(AXF)[0] and not idled.judge(CN)[0]


def test_a_piece_held_by_a_horse_leg_a_cannon_line_or_the_facing_generals_is_pinned():
    # black chariot f8 blocks the leg of the red horse g8 towards the black general e9 (AXF D39)
    d39 = Position.from_fen("2baka1r1/C4rN2/9/1Rp1p4/9/9/4P4/9/4A4/4KA3 w - - 0 1")
    assert is_pinned(d39, 8 * 9 + 5)
    # red chariot e2 with a second piece between it and the black cannon e7: lifted, it leaves
    # the cannon exactly one screen towards the red general; alone on the line it is the screen
    assert is_pinned(Position.from_fen("4k4/9/4c4/9/9/9/4P4/4R4/9/4K4 w - - 0 1"), 2 * 9 + 4)
    assert is_pinned(Position.from_fen("4k4/9/4c4/9/9/9/9/4R4/4A4/4K4 w - - 0 1"), 2 * 9 + 4)
    assert not is_pinned(Position.from_fen("4k4/9/4c4/9/9/9/9/4R4/9/4K4 w - - 0 1"), 2 * 9 + 4)
    # the only piece between the two generals
    facing = Position.from_fen("4k4/9/9/9/9/4r4/9/9/9/4K4 b - - 0 1")
    assert is_pinned(facing, 4 * 9 + 4)
    assert not is_pinned(Position.from_fen("3k5/9/9/9/9/4r4/9/9/9/4K4 b - - 0 1"), 4 * 9 + 4)


def test_a_pinned_chariot_chases_under_cn_but_not_under_axf():
    # AXF D39 (second setting): the red chariot d1 is held by the black horse c1 (leg d1 towards
    # the red general e0); the advisor's step off e1 leaves the horse unprotected.
    pos = Position.from_fen("5k3/9/9/9/9/9/7r1/9/2nRA3c/4K4 w - - 0 1")
    move = Move.from_iccs("e1f0")
    assert classify_move(pos, move, ruleset=CN).kind == CHASE
    axf = classify_move(pos, move, ruleset=AXF)
    assert axf.kind == IDLE and "pinned" in axf.reason


@pytest.mark.parametrize("fen, capture, gain", [
    # cannon c0 takes the horse c5 guarded by the elephant a7; the chariot h5 takes the elephant back
    ("4k4/9/b8/9/2n4R1/9/2P6/9/9/2CK5 w - - 0 1", "c0c5", 2),
    # without the chariot: horse for cannon, nothing gained
    ("4k4/9/b8/9/2n6/9/2P6/9/9/2CK5 w - - 0 1", "c0c5", 0),
    # chariot takes a guarded horse: loses the chariot for it
    ("4k4/9/b8/9/2n4R1/9/9/9/9/3K5 w - - 0 1", "h5c5", 4 - 9),
    # an unguarded horse is won outright
    ("4k4/9/9/9/2n4R1/9/9/9/9/3K5 w - - 0 1", "h5c5", 4),
])
def test_exchange_gain_weighs_the_whole_series_of_captures_on_a_point(fen, capture, gain):
    pos = Position.from_fen(fen)
    assert exchange_gain(pos, Move.from_iccs(capture)) == gain
    assert pos.fen() == fen


def test_an_unknown_ruleset_is_named_in_the_error():
    with pytest.raises(ValueError, match="'fide'.*cn, axf"):
        get_ruleset("fide")
    with pytest.raises(ValueError, match="'xx'"):
        adjudicate(None, [], "xx")
    assert get_ruleset(None) is CN and get_ruleset("AXF") is AXF


# ------------------------------------------------------------------ the command
def _xqtrack(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)


def _pgn(case: dict) -> str:
    moves = case["moves"]
    body = " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + f"{m[:2].upper()}-{m[2:].upper()}"
                    for i, m in enumerate(moves))
    if Position.from_fen(case["fen"]).turn == BLACK:
        body = "1. ... " + " ".join(f"{m[:2].upper()}-{m[2:].upper()}" for m in moves)
    return (f'[Game "Chinese Chess"]\n[FEN "{case["fen"]}"]\n[Format "ICCS"]\n\n{body} *\n')


@pytest.mark.parametrize("case_id", ["fs03_discovered_chase_by_cannon",
                                     "fs22_d39_chased_chariot_pinned_by_horse_mutual_chase"])
def test_adjudicate_rules_axf_prints_the_axf_ruling_with_rule_and_moves(tmp_path, case_id):
    case = next(c for c in AXF_CASES if c["id"] == case_id)
    path = tmp_path / "game.pgn"
    path.write_text(_pgn(case), encoding="utf-8")
    for rules in ("axf", "cn"):
        done = _xqtrack("adjudicate", str(path), "--rules", rules)
        assert done.returncode == 0, done.stderr.decode()
        lines = done.stdout.decode("utf-8").splitlines()
        assert len(lines) == 1
        result = json.loads(lines[0])
        assert result["ruling"] == case["rulings"][rules]
        assert result["rules"] == rules and result["rule"]
        assert all(m["reason"] for m in result["moves"])


def test_adjudicate_refuses_an_unknown_ruleset(tmp_path):
    path = tmp_path / "game.pgn"
    path.write_text(_pgn(AXF_CASES[0]), encoding="utf-8")
    done = _xqtrack("adjudicate", str(path), "--rules", "fide")
    assert done.returncode != 0 and done.stdout == b""
    err = done.stderr.decode("utf-8", "replace")
    assert "--rules" in err and "axf" in err and "Traceback" not in err


def test_record_takes_the_ruleset_and_hands_it_to_the_tracker():
    from app.cli import build_parser
    from board.tracker import TrackerConfig

    parser = build_parser(("app.commands.record", "app.commands.rules"))
    assert parser.parse_args(["record", "clip.mp4", "--out", "d", "--rules", "axf"]).rules == "axf"
    assert parser.parse_args(["record", "clip.mp4", "--out", "d"]).rules == "cn"
    assert parser.parse_args(["adjudicate", "g.pgn", "--rules", "axf"]).rules == "axf"
    assert TrackerConfig().repetition_rules == "cn"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(6, 60))
def test_axf_classification_is_colour_symmetric_and_leaves_the_position_alone(seed, plies):
    found = random_position_and_move(seed, plies)
    if found is None:
        return
    pos, move = found
    legal = pos.legal_moves()
    fen = pos.fen()
    here = classify_move(pos, move, ruleset=AXF)
    assert pos.fen() == fen
    there = classify_move(Position.from_fen(flip_fen(fen)), Move.from_iccs(flip_move(move.iccs())), ruleset=AXF)
    assert here.kind == there.kind and len(here.chases) == len(there.chases)
    assert here.reason.startswith(KIND_CHINESE[here.kind])
