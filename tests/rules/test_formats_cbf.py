"""CCBridge CBF (XML): a hand-written record in the published layout, its faults, and the writer."""
from __future__ import annotations

from pathlib import Path

import pytest

from rules.formats import CbfError, read_game_file
from rules.formats.cbf import read_cbf, write_cbf
from rules.move import Move
from rules.pgn import Game, read_pgn_file

DATA = Path(__file__).resolve().parents[1] / "data" / "games"
GAME_02 = sorted((DATA / "pgn_chinese_gbk").glob("*.PGN"))[1]


def test_the_handwritten_cbf_reads_the_opening_of_its_pgn_game():
    games = read_game_file(DATA / "club_formats" / "opening_handwritten.cbf")
    pgn = read_pgn_file(GAME_02)[0]
    assert games.format == "cbf"
    game = games[0]
    assert game.moves == pgn.moves[:6]                 # the variation after end="1" is not the game
    assert game.result == "1/2-1/2"
    for tag in ("Event", "Round", "Date", "Site", "Red", "Black", "ECCO"):
        assert game.headers[tag] == pgn.headers[tag]
    assert game.initial_comment == "中炮对屏风马"
    assert game.comments == [None, None, "红方跳马", None, None, None]


def test_cbf_points_count_rows_from_blacks_side():
    text = ('<ChineseChessRecord><Head/><MoveList><Move value="00-00"/><Move value="77-47"/>'
            '<Move value="70-62"/></MoveList></ChineseChessRecord>')
    assert [m.iccs() for m in read_cbf(text.encode()).moves] == ["h2e2", "h9g7"]


@pytest.mark.parametrize("text, fragment", [
    (b"<ChineseChessRecord><Head>", "not well-formed XML at line 1"),
    (b"<Other/>", "the root element is <Other>"),
    (b'<!DOCTYPE x [<!ENTITY a "b">]><ChineseChessRecord/>', "declares a DTD or entities"),
    (b'<ChineseChessRecord><Head><FEN>xx</FEN></Head></ChineseChessRecord>', "<FEN> is not a FEN"),
    (b'<ChineseChessRecord><MoveList><Move value="00-00"/><Move value="7747"/></MoveList></ChineseChessRecord>',
     "ply 1: <Move value='7747'> is not a move"),
    (b'<ChineseChessRecord><MoveList><Move value="00-00"/><Move value="44-45"/></MoveList></ChineseChessRecord>',
     "ply 1: move e5-e4 is not legal here"),
])
def test_a_bad_cbf_is_one_clear_error(text, fragment):
    with pytest.raises(CbfError) as caught:
        read_cbf(text, "bad.cbf")
    assert str(caught.value).startswith("bad.cbf, CBF")
    assert fragment in str(caught.value)


def test_written_cbf_reads_back_the_same_game():
    pgn = read_pgn_file(GAME_02)[0]
    pgn.comments[3] = "注释 & <标记>"
    again = read_cbf(write_cbf(pgn))
    assert again.moves == pgn.moves and again.result == pgn.result
    assert again.comments == pgn.comments
    for tag in ("Event", "Round", "Date", "Site", "Red", "Black", "Opening"):
        assert again.headers[tag] == pgn.headers[tag]
    study = Game(start_fen="4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 1", moves=[Move.from_iccs("e9d9")])
    assert read_cbf(write_cbf(study)).start_position().fen() == study.start_position().fen()


@pytest.mark.parametrize("encoding, codec", [("GB2312", "gb18030"), ("GBK", "gbk"), ("UTF-16", "utf-16")])
def test_a_cbf_in_a_chinese_code_page_or_utf16_reads_the_same(encoding, codec):
    pgn = read_pgn_file(GAME_02)[0]
    text = write_cbf(pgn).decode("utf-8").replace('encoding="UTF-8"', f'encoding="{encoding}"')
    again = read_game_file_bytes(text.encode(codec))
    assert again.moves == pgn.moves and again.headers["Site"] == "北京中国科技馆"


def test_a_cbf_declaring_an_unknown_encoding_says_so():
    with pytest.raises(CbfError, match="x.cbf, CBF, byte 30: the record declares encoding 'nosuch'"):
        read_cbf(b'<?xml version="1.0" encoding="nosuch"?><ChineseChessRecord/>', "x.cbf")


def read_game_file_bytes(data: bytes) -> Game:
    from rules.formats import read_games

    games = read_games(data)
    assert games.format == "cbf"
    return games[0]
