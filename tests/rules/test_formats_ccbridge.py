"""CCBridge binary files: the two real libraries and the single record against an independent
reading, comments, and a library with a damaged game that loses only that game."""
from __future__ import annotations

from pathlib import Path

import pytest

from rules.formats import CcBridgeError, read_game_file, read_games
from rules.formats.ccbridge import LIBRARY_BLOCK, RECORD_HEADER_SIZE, RECORD_MAGIC, read_cbl, read_cbr
from rules.pgn import read_pgn_file

CLUB = Path(__file__).resolve().parents[1] / "data" / "games" / "club_formats"
LIBRARIES = {"1966年全国个人赛对局选.CBL": 106, "1981年承德十一省市邀请赛188局.CBL": 188}


@pytest.mark.parametrize("name, count", LIBRARIES.items())
def test_each_cbl_library_reads_the_same_games_as_the_reference_pgn(name, count):
    games = read_game_file(CLUB / name)
    reference = read_pgn_file(CLUB / "reference" / f"{name}.pgn")
    assert games.format == "cbl" and games.skipped == []
    assert len(games) == len(reference) == count
    for number, (game, ref) in enumerate(zip(games, reference), start=1):
        assert game.moves == ref.moves, f"game {number}"
        assert game.result == ref.result, f"game {number}"
        assert game.start_position().fen() == ref.start_position().fen()
        for tag in ("Red", "Black", "Event", "Title"):
            assert game.headers.get(tag, "") == ref.headers.get(tag, ""), f"game {number} {tag}"


def test_the_cbr_record_reads_its_moves_and_all_three_comments():
    game = read_game_file(CLUB / "test2.cbr")[0]
    reference = read_pgn_file(CLUB / "reference" / "test2.cbr.pgn")[0]
    assert game.moves == reference.moves and [m.iccs() for m in game.moves] == ["h2e2", "h7e7"]
    assert game.headers == {"Title": "Test"}
    assert game.initial_comment == "李1" and game.comments == ["李2", "李3"]


def test_the_1966_library_keeps_its_annotations():
    games = read_game_file(CLUB / "1966年全国个人赛对局选.CBL")
    annotated = [g for g in games if g.initial_comment or any(g.comments)]
    assert len(annotated) > 90
    assert games[1].initial_comment.startswith("1966全国赛第一轮,第四组第一种子")
    assert "\r" not in games[1].initial_comment          # CR LF read as one line break


def _library() -> bytes:
    return (CLUB / "1981年承德十一省市邀请赛188局.CBL").read_bytes()


def _game_starts(data: bytes) -> list[int]:
    first = data.find(RECORD_MAGIC)
    return [at for at in range(first, len(data), LIBRARY_BLOCK) if data.startswith(RECORD_MAGIC, at)]


def test_a_library_with_a_damaged_game_loses_only_that_game():
    data = bytearray(_library())
    start = _game_starts(bytes(data))[4]
    first_move = start + RECORD_HEADER_SIZE + 4          # after the root record
    data[first_move + 2] = 40                            # from-point: the middle of the board, empty
    games = read_cbl(bytes(data), "lib.cbl")
    assert len(games) == 187
    assert [s.game_number for s in games.skipped] == [5]
    message = games.skipped[0].message
    assert message.startswith(f"lib.cbl, CCBridge, game 5, ply 1, byte {first_move}: move e5-")
    assert "no piece on e5" in message
    assert games[4].headers["Title"] == read_cbl(_library())[5].headers["Title"]   # the rest kept


def test_a_library_cut_in_the_middle_of_a_game_keeps_the_games_before_it():
    data = _library()
    starts = _game_starts(data)
    cut = data[:starts[10] + RECORD_HEADER_SIZE + 9]      # inside game 11's second move record
    games = read_games(cut, "cut.cbl")
    assert len(games) == 10
    assert [s.game_number for s in games.skipped] == [11]
    assert "the file ends inside a move record" in games.skipped[0].message


def test_a_cbr_with_an_unknown_piece_code_names_the_byte():
    data = bytearray((CLUB / "test2.cbr").read_bytes())
    data[2120 + 5] = 0x31
    with pytest.raises(CcBridgeError, match=r"byte 2125: point 5 of the stored position holds code 0x31"):
        read_cbr(bytes(data), "bad.cbr")


def test_a_cbr_cut_inside_its_header_says_so():
    with pytest.raises(CcBridgeError, match="the record's header is cut short"):
        read_cbr((CLUB / "test2.cbr").read_bytes()[:2000])
