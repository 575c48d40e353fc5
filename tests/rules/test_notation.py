"""Move notations: ICCS, WXF, Chinese (simplified and traditional), 一字三码.

Real records (the Chinese-notation games of tests/data/games), hand-written positions for the
conventions that only appear in odd structures (tandem pieces, three to five soldiers on a
file, soldiers on two files, advisors/elephants with 前/后 omitted), the error messages, and
hypothesis round-trips of every legal move of random reachable positions.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Move, NotationError, Position
from rules.notation import detect_notation, format_move, parse_move
from rules.notation_common import NotationSyntaxError

GAMES_JSONL = Path(__file__).resolve().parents[1] / "data" / "games" / "games.jsonl"
NOTATIONS = ("iccs", "wxf", "chinese", "yizi")


def load_games() -> list[dict]:
    with GAMES_JSONL.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


GAMES = load_games()


def fen_of(placement: dict[str, str], turn: str = "w") -> str:
    """FEN from {'e0': 'K', 'h2': 'C', ...} (ICCS point names)."""
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for file in "abcdefghi":
            piece = placement.get(f"{file}{rank}")
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += piece
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {turn} - - 0 1"


def pos_of(placement: dict[str, str], turn: str = "w") -> Position:
    return Position.from_fen(fen_of(placement, turn))


def replay(game: dict, plies: int | None = None) -> Position:
    pos = Position.from_fen(game["start_fen"]) if game["start_fen"] else Position()
    for text in game["moves_iccs"][:plies]:
        pos.push(Move.from_iccs(text))
    return pos


def mv(text: str) -> Move:
    return Move.from_iccs(text)


def assert_round_trip(pos: Position, move: Move) -> None:
    for notation in NOTATIONS:
        for traditional in (False, True):
            text = format_move(pos, move, notation, traditional)
            assert parse_move(pos, text, notation) == move, (pos.fen(), move, notation, text)
            assert parse_move(pos, text) == move, (pos.fen(), move, notation, text, "detected")


def error_of(pos: Position, text: str, notation: str | None = None) -> str:
    with pytest.raises(NotationError) as info:
        parse_move(pos, text, notation)
    return str(info.value)


# ---- real records ---------------------------------------------------------------------------

CHINESE_GAMES = [g for g in GAMES if g["original_notation"].find("Chinese moves") >= 0]


def test_the_three_chinese_games_are_present():
    assert len(CHINESE_GAMES) == 3


@pytest.mark.parametrize("game", CHINESE_GAMES, ids=lambda g: g["id"])
def test_chinese_records_parse_to_the_recorded_iccs_moves(game):
    pos = replay(game, 0)
    for ply, (text, iccs) in enumerate(zip(game["moves_original"], game["moves_iccs"], strict=True)):
        assert parse_move(pos, text) == mv(iccs), (ply, text)
        assert parse_move(pos, text, "chinese") == mv(iccs), (ply, text)
        pos.push(mv(iccs))


@pytest.mark.parametrize("game", CHINESE_GAMES, ids=lambda g: g["id"])
def test_writing_the_chinese_records_gives_their_standard_text(game):
    """The engines wrote standard notation (full-width digits for black), except the usual
    omission of 前/后 for advisors and elephants, which we write out."""
    pos = replay(game, 0)
    for text, iccs in zip(game["moves_original"], game["moves_iccs"]):
        written = format_move(pos, mv(iccs), "chinese")
        original = text.translate(str.maketrans("１２３４５６７８９", "123456789"))
        if written != original:
            assert original[0] in "仕士相象" and written[0] in "前后", (written, original)
            assert written[2:] == original[2:]
        pos.push(mv(iccs))


def test_start_position_examples():
    pos = Position()
    assert format_move(pos, mv("h2e2"), "chinese") == "炮二平五"
    assert format_move(pos, mv("h2e2"), "wxf") == "C2.5"
    assert format_move(pos, mv("h0g2"), "wxf") == "H2+3"
    assert format_move(pos, mv("h2e2"), "yizi") == "炮253"
    assert format_move(pos, mv("h2e2"), "iccs") == "h2e2"
    assert format_move(pos, mv("a0a1"), "chinese", traditional=True) == "車九進一"
    assert format_move(pos, mv("e0e1"), "chinese", traditional=True) == "帥五進一"
    pos.push(mv("h2e2"))
    assert format_move(pos, mv("h9g7"), "chinese") == "马8进7"
    assert format_move(pos, mv("h9g7"), "yizi") == "马873"   # the spec's own example
    assert format_move(pos, mv("h9g7"), "wxf") == "H8+7"


@pytest.mark.parametrize("text, iccs", [
    ("h2e2", "h2e2"), ("H2-E2", "h2e2"), ("h2-e2", "h2e2"),
    ("C2.5", "h2e2"), ("c2.5", "h2e2"), ("C2=5", "h2e2"), ("C25", "h2e2"),
    ("H2+3", "h0g2"), ("N2+3", "h0g2"), ("h2+3", "h0g2"),
    ("E3+5", "g0e2"), ("B3+5", "g0e2"), ("R1+1", "i0i1"), ("K5+1", "e0e1"), ("A4+5", "f0e1"),
    ("炮二平五", "h2e2"), ("炮2平5", "h2e2"), ("炮２平５", "h2e2"), ("砲二平五", "h2e2"), ("包二平五", "h2e2"),
    ("马二进三", "h0g2"), ("馬二進三", "h0g2"), ("傌二進三", "h0g2"),
    ("车一进一", "i0i1"), ("車一進一", "i0i1"), ("俥一進一", "i0i1"),
    ("相三进五", "g0e2"), ("象三进五", "g0e2"), ("仕四进五", "f0e1"), ("士四進五", "f0e1"),
    ("帅五进一", "e0e1"), ("帥五進一", "e0e1"), ("兵三进一", "g3g4"), ("卒三进一", "g3g4"),
    ("炮253", "h2e2"), ("炮２５３", "h2e2"), ("馬233", "h0g2"), ("帅552", "e0e1"),
])
def test_red_reads_variants_at_start(text, iccs):
    assert parse_move(Position(), text) == mv(iccs)


@pytest.mark.parametrize("text, iccs", [
    ("马8进7", "h9g7"), ("马８进７", "h9g7"), ("馬８進７", "h9g7"), ("H8+7", "h9g7"), ("h8+7", "h9g7"),
    ("炮8平5", "h7e7"), ("砲８平５", "h7e7"), ("包8平5", "h7e7"), ("車1進1", "a9a8"), ("车１进１", "a9a8"),
    ("卒7进1", "g6g5"), ("象3进5", "c9e7"), ("士4进5", "d9e8"), ("將5進1", "e9e8"), ("将５进１", "e9e8"),
    ("马873", "h9g7"), ("将552", "e9e8"), ("卒775", "g6g5"),
])
def test_black_reads_variants(text, iccs):
    pos = Position()
    pos.push(mv("h2e2"))
    assert parse_move(pos, text) == mv(iccs)


def test_detect_notation():
    assert detect_notation("h2e2") == "iccs"
    assert detect_notation("H2-E2") == "iccs"
    assert detect_notation("C2.5") == "wxf"
    assert detect_notation("+C.5") == "wxf"
    assert detect_notation("炮二平五") == "chinese"
    assert detect_notation("前炮平五") == "chinese"
    assert detect_notation("前兵五平四") == "chinese"
    assert detect_notation("马325") == "yizi"
    assert detect_notation("车进25") == "yizi"
    with pytest.raises(NotationSyntaxError):
        detect_notation("炮二")


# ---- tandem pieces --------------------------------------------------------------------------

TWO_CHARIOTS = {"e0": "K", "d9": "k", "h0": "R", "h4": "R"}


def test_two_chariots_on_a_file():
    pos = pos_of(TWO_CHARIOTS)
    assert format_move(pos, mv("h4h5"), "chinese") == "前车进一"
    assert format_move(pos, mv("h0h1"), "chinese") == "后车进一"
    assert format_move(pos, mv("h0h1"), "chinese", traditional=True) == "後車進一"
    assert format_move(pos, mv("h4h5"), "wxf") == "+R+1"
    assert format_move(pos, mv("h0g0"), "wxf") == "-R.3"
    assert parse_move(pos, "前车进一") == mv("h4h5")
    assert parse_move(pos, "後車進一") == mv("h0h1")
    assert parse_move(pos, "+R+1") == mv("h4h5")
    assert parse_move(pos, "R++1") == mv("h4h5")      # marker after the letter (AXF document)
    assert parse_move(pos, "R+.3") == mv("h4g4")
    assert parse_move(pos, "-R=3") == mv("h0g0")
    # 前/后 omitted but only the front chariot can go five forward: unambiguous, accepted
    assert parse_move(pos, "车二进五") == mv("h4h9")
    message = error_of(pos, "车二进一")
    assert message.startswith("车二进一 is ambiguous: two red chariots on file 二")
    assert "前/后" in message and "前车进一" in message and "后车进一" in message
    assert "ambiguous" in error_of(pos, "R2.3")
    # 一字三码: both chariots reach h2, one from below (进) and one from above (退)
    assert format_move(pos, mv("h0h2"), "yizi") == "车进23"
    assert format_move(pos, mv("h4h2"), "yizi") == "车退23"
    assert format_move(pos, mv("h4h2"), "yizi", traditional=True) == "車退23"
    assert format_move(pos, mv("h4h6"), "yizi") == "车227"   # only the front one reaches h6
    assert parse_move(pos, "车进23") == mv("h0h2")
    assert parse_move(pos, "車退23") == mv("h4h2")
    message = error_of(pos, "车223")
    assert "ambiguous" in message and "进/退" in message and "车进23" in message
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


THREE_SOLDIERS = {"e0": "K", "f9": "k", "e5": "P", "e6": "P", "e7": "P"}


def test_three_soldiers_on_a_file():
    pos = pos_of(THREE_SOLDIERS)
    expected = {"e7f7": ("前兵平四", "+P.4"), "e6d6": ("中兵平六", "P5.6"), "e5f5": ("后兵平四", "-P.4"),
                "e7e8": ("前兵进一", "+P+1")}
    for iccs, (chinese, wxf) in expected.items():
        assert format_move(pos, mv(iccs), "chinese") == chinese
        assert format_move(pos, mv(iccs), "wxf") == wxf
        assert parse_move(pos, chinese) == mv(iccs)
        assert parse_move(pos, wxf) == mv(iccs)
    assert parse_move(pos, "P++1") == mv("e7e8")
    assert parse_move(pos, "P+.4") == mv("e7f7")
    assert parse_move(pos, "P-.6") == mv("e5d5")
    assert parse_move(pos, "兵五进一") == mv("e7e8")    # only the front one can advance
    message = error_of(pos, "兵五平四")
    assert "ambiguous" in message and "three red soldiers on file 五" in message and "前/中/后" in message
    assert "no red soldier" not in error_of(pos, "兵五平四")
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


@pytest.mark.parametrize("count", [4, 5])
def test_four_and_five_soldiers_on_a_file(count):
    files = ["e9", "e8", "e7", "e6", "e5"][5 - count:] if count == 4 else ["e9", "e8", "e7", "e6", "e5"]
    pos = pos_of({"d0": "K", "f9": "k", **{sq: "P" for sq in files}})
    files_front_to_back = sorted(files, key=lambda s: -int(s[1]))
    chinese = "一二三四五"
    wxf = ["++", "P+", "P-", "--"] if count == 4 else ["++", "P+", "P5", "P-", "--"]
    for i, sq in enumerate(files_front_to_back):
        move = mv(sq + "d" + sq[1])
        assert format_move(pos, move, "chinese") == f"{chinese[i]}兵平六"
        assert format_move(pos, move, "wxf") == f"{wxf[i]}.6"
        assert parse_move(pos, f"{chinese[i]}兵平六") == move
        assert parse_move(pos, f"{wxf[i]}.6") == move
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


TWO_FILES = {"d0": "K", "f9": "k", "e5": "P", "e6": "P", "e7": "P", "c5": "P", "c6": "P"}


def test_soldiers_on_two_files_red():
    pos = pos_of(TWO_FILES)
    expected = {"e7f7": ("前五平四", "5+.4"), "e6d6": ("中五平六", "55.6"), "e5f5": ("后五平四", "5-.4"),
                "c6b6": ("前七平八", "7+.8"), "c5b5": ("后七平八", "7-.8"), "c6c7": ("前七进一", "7++1")}
    for iccs, (chinese, wxf) in expected.items():
        assert format_move(pos, mv(iccs), "chinese") == chinese
        assert format_move(pos, mv(iccs), "wxf") == wxf
        assert parse_move(pos, chinese) == mv(iccs)
        assert parse_move(pos, wxf) == mv(iccs)
    assert format_move(pos, mv("e5f5"), "chinese", traditional=True) == "後五平四"
    assert parse_move(pos, "前兵五平四") == mv("e7f7")       # piece named as well: accepted
    assert parse_move(pos, "一五平四") == mv("e7f7")         # ordinal instead of 前
    assert parse_move(pos, "前兵平四") == mv("e7f7")         # file left out, only one front soldier can
    message = error_of(pos, "前兵进一")
    assert "ambiguous" in message and "files 五, 七" in message and "name the file" in message
    assert "前五进一" in message and "前七进一" in message
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


def test_soldiers_on_two_files_black():
    pos = pos_of({"f0": "K", "d9": "k", "e2": "p", "e3": "p", "e4": "p", "g3": "p", "g4": "p"}, "b")
    expected = {"e2d2": ("前5平4", "5+.4"), "e3f3": ("中5平6", "55.6"), "e4d4": ("后5平4", "5-.4"),
                "g3h3": ("前7平8", "7+.8"), "g4h4": ("后7平8", "7-.8")}
    for iccs, (chinese, wxf) in expected.items():
        assert format_move(pos, mv(iccs), "chinese") == chinese
        assert format_move(pos, mv(iccs), "wxf") == wxf
        assert parse_move(pos, chinese) == mv(iccs)
        assert parse_move(pos, wxf) == mv(iccs)
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


def test_middle_soldier_needs_three():
    pos = pos_of({"e0": "K", "f9": "k", "e5": "P", "e6": "P"})
    message = error_of(pos, "中兵平四")
    assert "there is no middle red soldier" in message and "2 on file 五" in message


# ---- advisors and elephants: 前/后 commonly left out ---------------------------------------

def test_two_advisors_on_a_file():
    pos = pos_of({"e0": "K", "f9": "k", "d0": "A", "d2": "A"})
    assert format_move(pos, mv("d0e1"), "chinese") == "后仕进五"
    assert format_move(pos, mv("d2e1"), "chinese") == "前仕退五"
    assert format_move(pos, mv("d0e1"), "wxf") == "-A+5"
    assert parse_move(pos, "仕六进五") == mv("d0e1")   # only the rear one can go forward
    assert parse_move(pos, "仕六退五") == mv("d2e1")
    assert parse_move(pos, "士6進5") == mv("d0e1")
    assert parse_move(pos, "A6+5") == mv("d0e1")
    assert parse_move(pos, "A6-5") == mv("d2e1")
    message = error_of(pos, "前仕进五")                   # a plain error in a record: said clearly
    assert message == ("前仕进五: no front red advisor can move forward to file 五 "
                       "(d2e3: must stay in the palace) (did you mean 后仕进五?)")
    assert error_of(pos, "+A+5").endswith("(did you mean -A+5?)")


def test_two_elephants_on_a_file_both_colours():
    red = pos_of({"e0": "K", "f9": "k", "c0": "B", "c4": "B"})
    assert format_move(red, mv("c0e2"), "chinese") == "后相进五"
    assert format_move(red, mv("c4e2"), "chinese") == "前相退五"
    assert parse_move(red, "相七进五") == mv("c0e2")
    assert parse_move(red, "相七退五") == mv("c4e2")
    assert parse_move(red, "相七进九") == mv("c0a2")
    assert parse_move(red, "E7-9") == mv("c4a2")
    black = pos_of({"d0": "K", "e9": "k", "c9": "b", "c5": "b"}, "b")
    assert format_move(black, mv("c9e7"), "chinese") == "后象进5"
    assert parse_move(black, "象3进5") == mv("c9e7")
    assert parse_move(black, "象３退５") == mv("c5e7")
    assert parse_move(black, "E3+5") == mv("c9e7")
    for pos in (red, black):
        for move in pos.legal_moves():
            assert_round_trip(pos, move)


# ---- errors ---------------------------------------------------------------------------------

def test_blocked_horse_names_no_legal_move():
    blocked = Position.from_fen("rnbakabnr/7c1/1c7/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")
    assert error_of(blocked, "马8进7") == ("马8进7: no black horse on file 8 can move forward to file 7 "
                                          "(h9g7: horse leg blocked on h8)")
    assert error_of(blocked, "H8+7").endswith("(h9g7: horse leg blocked on h8)")
    assert error_of(blocked, "马873").startswith("马873: no black horse on file 8 can land on file 7, rank 3")


def test_ambiguous_cannons_message():
    pos = pos_of({"d0": "K", "f9": "k", "h2": "C", "h4": "C"})
    message = error_of(pos, "炮二平五")
    assert message.startswith("炮二平五 is ambiguous: two red cannons on file 二")
    assert "use 前/后" in message and "前炮平五 or 后炮平五" in message and "h4e4" in message
    assert "ambiguous" in error_of(pos, "C2.5")


def test_pinned_and_facing_generals_are_explained():
    pinned = pos_of({"e0": "K", "e3": "R", "e8": "r", "d9": "k"})
    assert "would leave the red general in check" in error_of(pinned, "车五平四")
    assert "would leave the red general in check" in error_of(pinned, "e3d3")
    facing = pos_of({"e0": "K", "e4": "R", "e9": "k"})
    assert "generals would face each other" in error_of(facing, "车五平六")
    assert "generals would face each other" in error_of(facing, "R5.6")
    assert "generals would face each other" in error_of(facing, "车565")


@pytest.mark.parametrize("text, notation, fragment", [
    ("炮二平", None, "not a move"),
    ("炮十平五", "chinese", "'十' is not part of Chinese notation"),
    ("炮二平五", "wxf", "not a move in WXF"),
    ("C2.0", "wxf", "not a number 1-9"),
    ("C2*5", "wxf", "not an action"),
    ("X2.5", "wxf", "does not say which piece"),
    ("z2e2", "iccs", "is not a file"),
    ("h2h2", "iccs", "same"),
    ("车平24", "yizi", "平 is not used"),
    ("马3", "yizi", "4 characters"),
    ("", None, "not a move"),
])
def test_malformed_text(text, notation, fragment):
    with pytest.raises(NotationSyntaxError) as info:
        parse_move(Position(), text, notation)
    assert fragment in str(info.value)


@pytest.mark.parametrize("text, fragment", [
    ("马8平7", "a horse never moves sideways"),
    ("前炮平五", "no two red cannons share a file"),
    ("马三进五", "no red horse on file 三 (red horses stand on files 二, 八)"),
    ("马325", "no red horse on file 3 (red horses stand on files 2, 8)"),
    ("马235", "no red horse on file 2 can land on file 3, rank 5"),
    ("h9g7", "the piece on h9 is a black horse but red is to move"),
    ("h2e9", "a red cannon on h2 cannot move to e9"),
    ("a0a3", "a3 holds a red soldier of the same side"),
    ("e5e6", "there is no piece on e5"),
    ("炮二进八", "no red cannon on file 二 can move forward 8 points (h2: that is off the board)"),
    ("兵三平二", "(g3h3: a soldier moves sideways only after crossing the river)"),
    ("车九进四", "no red chariot on file 九 can move forward 4 points (a0a4: the path is blocked)"),
    ("马二进五", "a horse only moves one or two files across"),
    ("车115", "no red chariot on file 1 can land on file 1, rank 5 (i4) (i0i4: the path is blocked)"),
])
def test_no_legal_move_messages(text, fragment):
    message = error_of(Position(), text)
    assert fragment in message
    assert message.startswith(text)


def test_format_refuses_illegal_moves_and_unknown_notations():
    with pytest.raises(NotationError, match="cannot write h2e9"):
        format_move(Position(), mv("h2e9"), "chinese")
    with pytest.raises(NotationError, match="unknown notation"):
        format_move(Position(), mv("h2e2"), "algebraic")


# ---- property: every legal move round-trips ------------------------------------------------

REAL_STARTS = [(g, ply) for g in GAMES[::25] for ply in (0, len(g["moves_iccs"]) // 2, len(g["moves_iccs"]))]


def _playout(pos: Position, choices: list[int]) -> Position:
    for choice in choices:
        legal = pos.legal_moves()
        if not legal:
            break
        pos.push(legal[choice % len(legal)])
    return pos


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=160))
def test_round_trip_random_playouts_from_the_start(choices):
    pos = _playout(Position(), choices)
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL_STARTS), st.lists(st.integers(min_value=0, max_value=10_000), max_size=60))
def test_round_trip_random_playouts_from_real_games(start, choices):
    game, ply = start
    pos = _playout(replay(game, ply), choices)
    for move in pos.legal_moves():
        assert_round_trip(pos, move)


PALACE_KINGS = [("e0", "e9"), ("d0", "f9"), ("f0", "d9"), ("e1", "d8"), ("d2", "f7")]


@st.composite
def soldier_formations(draw):
    """Endgame-like positions: up to five soldiers a side crowded past the river, plus majors.

    Random play from the start rarely stacks three soldiers on one file; these positions are
    exactly what real endgames reach and what the 前中后 / 一二三 / two-file conventions are for.
    """
    red_k, black_k = draw(st.sampled_from(PALACE_KINGS))
    taken = {red_k, black_k}
    placement = {red_k: "K", black_k: "k"}
    red_zone = [f"{f}{r}" for f in "abcdefghi" for r in range(5, 10)]
    black_zone = [f"{f}{r}" for f in "abcdefghi" for r in range(0, 5)]
    for zone, letter, count in ((red_zone, "P", draw(st.integers(2, 5))), (black_zone, "p", draw(st.integers(0, 5)))):
        # pile soldiers onto few files so tandems are common
        files = draw(st.lists(st.sampled_from("abcdefghi"), min_size=1, max_size=2, unique=True))
        pool = [sq for sq in zone if sq[0] in files and sq not in taken] or [sq for sq in zone if sq not in taken]
        for sq in draw(st.lists(st.sampled_from(pool), min_size=min(count, len(pool)), max_size=count, unique=True)):
            if sq not in taken:
                placement[sq] = letter
                taken.add(sq)
    everywhere = [f"{f}{r}" for f in "abcdefghi" for r in range(10)]
    # drawn without replacement: a real set has two of each major, and WXF has no form for more
    majors = "RRCCNNrrccnn"
    for index in draw(st.lists(st.integers(0, len(majors) - 1), max_size=5, unique=True)):
        letter = majors[index]
        sq = draw(st.sampled_from([s for s in everywhere if s not in taken]))
        placement[sq] = letter
        taken.add(sq)
    return pos_of(placement, draw(st.sampled_from("wb")))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soldier_formations())
def test_round_trip_soldier_formations(pos):
    for move in pos.legal_moves():
        assert_round_trip(pos, move)
