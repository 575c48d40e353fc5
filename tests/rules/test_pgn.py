"""PGN game files (xqbase convention): the real GBK files, every reader feature, the errors
that name game/ply/token while keeping the games before, encodings, and write → read round trips."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import Move, PgnError, Position
from rules.pgn import Game, decode_game_file, format_clock, parse_clock, read_pgn, read_pgn_file, write_pgn

DATA = Path(__file__).resolve().parents[1] / "data"
GBK_FILES = sorted((DATA / "games" / "pgn_chinese_gbk").glob("*.PGN"))
FEATURES = DATA / "rules" / "features.pgn"
BAD_SECOND = DATA / "rules" / "bad_second_game.pgn"


def load_games() -> list[dict]:
    with (DATA / "games" / "games.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


GAMES = load_games()
RECORDED = {g["source"].rsplit("/", 1)[-1]: g for g in GAMES if g["id"].startswith("eleeye-ccgc")}


def iccs(moves: list[Move]) -> list[str]:
    return [m.iccs() for m in moves]


# ---- the real GBK files ---------------------------------------------------------------------

def test_the_gbk_files_are_really_gbk():
    assert len(GBK_FILES) == 3
    for path in GBK_FILES:
        with pytest.raises(UnicodeDecodeError):
            path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("path", GBK_FILES, ids=lambda p: p.name[:2])
def test_gbk_files_read_to_the_recorded_games(path):
    games = read_pgn_file(path)
    assert len(games) == 1                      # the xqbase banner after the result is not a game
    game, recorded = games[0], RECORDED[path.name]
    assert iccs(game.moves) == recorded["moves_iccs"]
    assert game.result == recorded["result"]
    assert game.start_fen is None
    for key, value in recorded["headers"].items():
        assert game.headers[key] == value, key   # Chinese tag values decoded right
    assert game.headers["Site"] == "北京中国科技馆"


@pytest.mark.parametrize("path", GBK_FILES, ids=lambda p: p.name[:2])
def test_gbk_and_utf8_copies_read_the_same(path):
    text = path.read_bytes().decode("gbk")
    assert read_pgn(text)[0].moves == read_pgn_file(path)[0].moves
    assert decode_game_file(b"\xef\xbb\xbf" + text.encode("utf-8")) == text


# ---- reader features ------------------------------------------------------------------------

def test_feature_file_game_one():
    games = read_pgn_file(FEATURES)
    assert len(games) == 3
    g = games[0]
    assert g.headers["Red"] == '红方 "甲"'                      # escaped quote in a tag
    assert iccs(g.moves) == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "g6g5"]
    assert g.clocks_ms == [598_000, 595_500, None, None, None, None, 480_000, None]
    assert g.comments[1] == "屏风马 {nested {deep}} ok"          # nested braces kept
    assert g.comments[4] == "a line comment (with a paren"       # ';' comment, paren inside
    assert g.comments[6] == "[%emt 0:00:03]"                     # other commands kept, clock taken
    assert g.initial_comment == "[%clk 0:10:00] 开局 comment"
    assert g.result == "1/2-1/2"


def test_feature_file_fen_game_black_first_and_icccs_game():
    _, study, plain = read_pgn_file(FEATURES)
    assert study.start_fen == "4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 30"
    assert iccs(study.moves) == ["e9d9", "e1f2", "d9d8"]         # lower-case 'k4+1' read too
    assert study.result == "0-1"
    assert iccs(plain.moves) == ["h2e2", "h9g7", "h0g2", "i9h9"]  # 'H0-G2' accepted
    assert plain.result == "1-0"                                  # from the tag: no result token


def test_variations_are_skipped_cleanly():
    text = ("1. h2e2 (1. b2e2 {x (y} (1. h0g2 h9g7) h9g7 (1... b9c7 {)}) 2. h0g2) h9g7 "
            "2. h0g2 {(} *")
    game = read_pgn(text)[0]
    assert iccs(game.moves) == ["h2e2", "h9g7", "h0g2"]
    assert game.comments[2] == "("


def test_move_numbers_glyphs_nags_and_marks():
    text = "1.炮二平五! 马８进７?! 2...车９平８ $14 1. 马二进三+ *"
    with pytest.raises(PgnError):
        read_pgn(text)                             # 2...车９平８ is red's move here: not legal for red
    game = read_pgn("1.炮二平五! 马８进７?! $14 2.马二进三 车９平８# *")[0]
    assert iccs(game.moves) == ["h2e2", "h9g7", "h0g2", "i9h9"]


def test_movetext_without_tags_and_games_without_results():
    games = read_pgn("1. h2e2 h9g7\n\n[Event \"second\"]\n1. C2.5 *\n")
    assert [len(g.moves) for g in games] == [2, 1]
    assert games[0].result == "*" and games[1].headers["Event"] == "second"


def test_junk_after_a_result_is_skipped_but_a_tagless_next_game_is_read():
    games = read_pgn("1. h2e2 1-0\n2006.08.03 visit 12. www\n1. h2e2 h9g7 *\n１．炮二平五 *")
    assert [iccs(g.moves) for g in games] == [["h2e2"], ["h2e2", "h9g7"], ["h2e2"]]


def test_comment_among_or_before_the_tags_is_not_a_game():
    games = read_pgn('{file comment}\n[Event "x"]\n{between tags}\n[FEN "4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 1"]\n'
                     "1... K5.4 *")
    assert len(games) == 1
    assert games[0].initial_comment == "file comment between tags"
    assert games[0].start_fen is not None and len(games[0].moves) == 1


def test_wrong_format_tag_falls_back_to_the_moves_own_notation():
    game = read_pgn('[Format "WXF"]\n1. 炮二平五 马8进7 *')[0]
    assert iccs(game.moves) == ["h2e2", "h9g7"]


def test_empty_text_has_no_games():
    assert read_pgn("") == []
    assert read_pgn("\n% only an escape line\n") == []


# ---- errors ---------------------------------------------------------------------------------

def test_illegal_move_names_game_ply_token_and_keeps_earlier_games():
    with pytest.raises(PgnError) as info:
        read_pgn_file(BAD_SECOND)
    err = info.value
    assert err.game_index == 1 and err.ply == 3 and err.token == "马8进7"
    assert len(err.games) == 1 and iccs(err.games[0].moves) == ["h2e2", "h9g7", "h0g2", "i9h9"]
    message = str(err)
    assert "bad_second_game.pgn: game 2 (Red player vs Black player), ply 4 (move 2...) '马8进7'" in message
    assert "line 14" in message and "no black horse on file 8" in message
    assert "\n" not in message


def test_unparseable_token_is_named():
    with pytest.raises(PgnError) as info:
        read_pgn('[Event "a"]\n1. h2e2 h9g7 *\n[Event "b"]\n1. h2e2 hello *')
    err = info.value
    assert (err.game_index, err.ply, err.token) == (1, 1, "hello")
    assert "game 2, ply 2 (move 1...) 'hello'" in str(err) and len(err.games) == 1


@pytest.mark.parametrize("text, fragment", [
    ('[Event "x"]\n1. h2e2 {never closed', "comment '{' is never closed"),
    ('[Event "x"]\n1. h2e2 (1. b2e2 h9g7', "variation '(' opened here is never closed"),
    ('[Event "x"]\n1. h2e2 ) h9g7', "')' closes no variation"),
    ('[Event "x"]\n[FEN "rnbakabnr/9/1c5c1 w"]\n1. h2e2', "bad [FEN] tag"),
    ('[Event "x]\n1. h2e2', "malformed tag"),
])
def test_structural_faults(text, fragment):
    good = '[Event "first"]\n1. h2e2 h9g7 1-0\n\n'
    with pytest.raises(PgnError) as info:
        read_pgn(good + text)
    assert fragment in str(info.value)
    assert "game 2" in str(info.value)
    assert len(info.value.games) == 1


def test_undecodable_and_missing_files(tmp_path):
    bad = tmp_path / "bad.pgn"
    bad.write_bytes(b"\xff\xff\xff\x81")
    with pytest.raises(PgnError, match="neither UTF-8"):
        read_pgn_file(bad)
    with pytest.raises(PgnError, match="cannot read the file"):
        read_pgn_file(tmp_path / "missing.pgn")


# ---- encodings ------------------------------------------------------------------------------

TRADITIONAL = '[Game "Chinese Chess"]\n[Red "紅方"]\n1. 炮二平五 馬８進７ 2. 傌二進三 車９平８ 1-0\n'


@pytest.mark.parametrize("codec, bom", [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("gbk", b""),
                                        ("big5", b""), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
def test_encodings(tmp_path, codec, bom):
    text = TRADITIONAL if codec != "gbk" else TRADITIONAL.replace("紅", "红").replace("馬", "马")
    path = tmp_path / f"{codec}.pgn"
    path.write_bytes(bom + text.encode(codec))
    game = read_pgn_file(path)[0]
    assert iccs(game.moves) == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert game.headers["Red"] in ("紅方", "红方")


# ---- writer ---------------------------------------------------------------------------------

@pytest.mark.parametrize("notation", ["iccs", "wxf", "chinese", "yizi"])
@pytest.mark.parametrize("traditional", [False, True])
def test_write_then_read_gives_the_same_games(notation, traditional):
    originals = read_pgn_file(FEATURES) + [read_pgn_file(p)[0] for p in GBK_FILES]
    for g in GAMES[::60]:
        originals.append(Game(headers={"Event": g["headers"].get("Event", "")}, start_fen=g["start_fen"],
                              moves=[Move.from_iccs(t) for t in g["moves_iccs"]], result=g["result"]))
    text = "\n".join(write_pgn(g, notation, traditional) for g in originals)
    again = read_pgn(text)
    assert len(again) == len(originals)
    for before, after in zip(originals, again):
        assert after.moves == before.moves
        assert after.clocks_ms == before.clocks_ms
        assert after.comments == before.comments
        assert after.result == before.result
        assert after.initial_comment == before.initial_comment
        assert (after.start_fen is None) == (before.start_fen is None)
        assert after.headers["Format"] == {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "yizi": "Yizi"}[notation]
        for key, value in before.headers.items():
            if key not in ("Format", "Result"):
                assert after.headers[key] == value


def test_write_layout():
    game = Game(headers={"Event": "Club", "Red": "A", "Black": "B"}, start_fen=None,
                moves=[Move.from_iccs("h2e2"), Move.from_iccs("h9g7"), Move.from_iccs("h0g2")],
                clocks_ms=[599_000, 3_723_400, None], comments=[None, "ok {braces} }", None], result="1-0")
    text = write_pgn(game, "chinese")
    assert text.splitlines() == [
        '[Game "Chinese Chess"]', '[Event "Club"]', '[Red "A"]', '[Black "B"]', '[Result "1-0"]',
        '[Format "Chinese"]', "",
        "1. 炮二平五 {[%clk 0:09:59]} 马8进7 {[%clk 1:02:03.4] ok ｛braces｝ ｝}",
        "2. 马二进三", "1-0"]
    assert read_pgn(text)[0].comments[1] == "ok ｛braces｝ ｝"


def test_fen_written_only_for_a_non_standard_start():
    start = Position().fen()
    assert "[FEN" not in write_pgn(Game(start_fen=start, moves=[Move.from_iccs("h2e2")]))
    study = "4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 30"
    text = write_pgn(Game(start_fen=study, moves=[Move.from_iccs("e9d9")]), "wxf")
    assert f'[FEN "{study}"]' in text and "30... K5.4" in text


def test_write_refuses_an_illegal_game():
    with pytest.raises(PgnError, match="ply 2 h2e2"):
        write_pgn(Game(moves=[Move.from_iccs("h2e2"), Move.from_iccs("h2e2")]))


def test_game_validation():
    with pytest.raises(ValueError, match="clocks_ms has 2 entries for 1 moves"):
        Game(moves=[Move.from_iccs("h2e2")], clocks_ms=[1, 2])
    with pytest.raises(ValueError, match="result"):
        Game(result="2-0")
    g = Game(moves=[Move.from_iccs("h2e2")])
    assert g.clocks_ms == [None] and g.comments == [None]
    assert g.end_position().turn == "b"


@pytest.mark.parametrize("text, ms", [("0:10:00", 600_000), ("1:02:03.4", 3_723_400), ("9:58", 598_000),
                                      ("0:00:00.05", 50), ("-0:00:05", -5_000)])
def test_clock_text(text, ms):
    assert parse_clock(text) == ms
    assert parse_clock(format_clock(ms)) == ms


@pytest.mark.parametrize("bad", ["", "1:2:3:4", "a:00:00", "0:61:00", "0:00:75"])
def test_bad_clock_text_is_kept_as_comment(bad):
    with pytest.raises(ValueError):
        parse_clock(bad)
    game = read_pgn(f"1. h2e2 {{[%clk {bad}]}} *")[0]
    assert game.clocks_ms == [None] and game.comments == [f"[%clk {bad}]"]
