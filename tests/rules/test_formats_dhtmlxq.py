"""DhtmlXQ blocks: the public coordinate convention, a game in a GBK web page against its PGN,
the UBB iFrame form with a custom start, several blocks on one page, and the writer."""
from __future__ import annotations

from pathlib import Path

import pytest

from rules.formats import DhtmlXqError, read_game_file, read_games
from rules.formats.dhtmlxq import read_dhtmlxq, write_dhtmlxq
from rules.move import Move
from rules.pgn import Game, read_pgn_file

DATA = Path(__file__).resolve().parents[1] / "data" / "games"
CLUB = DATA / "club_formats"
GAME_02 = sorted((DATA / "pgn_chinese_gbk").glob("*.PGN"))[1]


def test_the_published_coordinates_read_as_the_central_cannon_opening():
    # dpxq's own description: 炮二平五 is 7747 (file 7 row 7 to file 4 row 7, rows from black's side)
    game = read_dhtmlxq("[DhtmlXQ_movelist]77477242[/DhtmlXQ_movelist]")[0]
    assert [m.iccs() for m in game.moves] == ["h2e2", "h7e7"]
    assert game.start_fen is None


def test_a_dhtmlxq_page_in_gbk_reads_the_same_game_as_its_pgn():
    games = read_game_file(CLUB / "dpxq_page_gbk.html")
    pgn = read_pgn_file(GAME_02)[0]
    assert games.format == "dhtmlxq" and len(games) == 1
    game = games[0]
    assert game.moves == pgn.moves and len(game.moves) == 61       # the variation tag is not the game
    assert game.result == pgn.result == "1/2-1/2"
    for tag in ("Event", "Date", "Site", "Round", "Red", "Black"):
        assert game.headers[tag] == pgn.headers[tag]
    assert game.headers["Title"] == "相眼竞技 先和 宝岛一号 & 第2轮"           # &amp; decoded
    assert game.initial_comment == "中炮过河车互进七兵对屏风马平炮兑车\n红左边马对黑退边炮"   # || is a line break
    assert game.comments[2] == "红方出车，正着"                         # <b> removed
    assert sum(c is not None for c in game.comments) == 1               # the variation's comment is not kept


def test_a_ubb_iframe_block_with_missing_pieces_and_black_to_move():
    game = read_game_file(CLUB / "forum_post_iframe.txt")[0]
    assert game.start_fen == "4k4/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1"
    assert [m.iccs() for m in game.moves] == ["e9d9", "e1f2", "d9d8"]
    assert game.comments == [None, "红方撑士", None]
    assert game.result == "1-0" and game.headers["Title"] == "士角杀（黑先）"


@pytest.mark.parametrize("words, result", [("红胜", "1-0"), ("红先胜", "1-0"), ("黑负", "1-0"), ("紅勝", "1-0"),
                                           ("黑胜", "0-1"), ("红先负", "0-1"), ("和棋", "1/2-1/2"),
                                           ("红先和", "1/2-1/2"), ("未知", "*"), ("", "*")])
def test_result_words_are_read(words, result):
    text = f"[DhtmlXQ][DhtmlXQ_result]{words}[/DhtmlXQ_result][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQ]"
    assert read_dhtmlxq(text)[0].result == result


def test_a_page_with_a_broken_block_keeps_the_other_games():
    good = "[DhtmlXQ][DhtmlXQ_red]甲[/DhtmlXQ_red][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQ]"
    bad = "[DhtmlXQ][DhtmlXQ_movelist]77477747[/DhtmlXQ_movelist][/DhtmlXQ]"      # red moves twice
    page = f"<html><body><p>{good}</p><p>{bad}</p><p>{good}</p></body></html>"
    games = read_games(page.encode("utf-8"), "page.html")
    assert len(games) == 2 and [s.game_number for s in games.skipped] == [2]
    message = games.skipped[0].message
    assert message.startswith("page.html, DhtmlXQ, game 2, ply 2, character ")
    assert "no piece on h2" in message


def test_a_single_broken_block_is_one_clear_error():
    with pytest.raises(DhtmlXqError, match=r"game 1, character 31: \[DhtmlXQ_movelist\] is not four digits per move: 'x'"):
        read_dhtmlxq("[DhtmlXQ][DhtmlXQ_movelist]7747x[/DhtmlXQ_movelist][/DhtmlXQ]")
    with pytest.raises(DhtmlXqError, match=r"\[DhtmlXQ_binit\] has 6 characters"):
        read_dhtmlxq("[DhtmlXQ][DhtmlXQ_binit]123456[/DhtmlXQ_binit][/DhtmlXQ]")


def test_written_dhtmlxq_reads_back_with_its_comments_and_headers():
    pgn = read_pgn_file(GAME_02)[0]
    pgn.comments[0] = "第一行\n第二行 [方括号]"
    pgn.initial_comment = "开局"
    again = read_dhtmlxq(write_dhtmlxq(pgn))[0]
    assert again.moves == pgn.moves and again.result == pgn.result
    assert again.comments[0] == "第一行\n第二行 ［方括号］"      # brackets cannot close a tag early
    assert again.initial_comment == "开局"
    for tag in ("Event", "Date", "Site", "Round", "Red", "Black", "Opening", "ECCO"):
        assert again.headers[tag] == pgn.headers[tag]


def test_a_black_to_move_start_survives_dhtmlxq_even_without_moves():
    study = Game(start_fen="4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 30")
    again = read_dhtmlxq(write_dhtmlxq(study))[0]
    assert again.start_position().board_fen() == study.start_position().board_fen()
    assert again.start_position().turn == "b"
    moved = Game(start_fen=study.start_fen, moves=[Move.from_iccs("e9d9")])
    assert read_dhtmlxq(write_dhtmlxq(moved))[0].moves == moved.moves
