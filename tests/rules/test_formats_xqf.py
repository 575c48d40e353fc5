"""XQF (XQStudio) records: the real keyed samples against an independent reading, every version
written and read back, and the faults a damaged file gets named by."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rules.formats import XqfError, read_game_file, read_games
from rules.formats.xqf import read_xqf, write_xqf
from rules.move import Move
from rules.pgn import Game, read_pgn_file

DATA = Path(__file__).resolve().parents[1] / "data" / "games"
CLUB = DATA / "club_formats"
SAMPLES = ["save.xqf", "NoMove.xqf", "test_5_variations.xqf"]
GAMES = [json.loads(line) for line in (DATA / "games.jsonl").read_text(encoding="utf-8").splitlines()]


def _game(row: dict, plies: int | None = None) -> Game:
    moves = [Move.from_iccs(t) for t in row["moves_iccs"]][:plies]
    return Game(headers=dict(row["headers"]), start_fen=row["start_fen"], moves=moves, result=row["result"])


@pytest.mark.parametrize("name", SAMPLES)
def test_each_sample_xqf_reads_the_same_game_as_the_reference_pgn(name):
    game = read_game_file(CLUB / name)[0]
    reference = read_pgn_file(CLUB / "reference" / f"{name}.pgn")[0]
    assert game.moves == reference.moves
    assert game.result == reference.result
    assert game.start_position().fen() == reference.start_position().fen()


def test_the_sample_files_are_keyed_version_0x12_so_the_decryption_is_exercised():
    for name in SAMPLES:
        data = (CLUB / name).read_bytes()
        assert data[:2] == b"XQ" and data[2] == 0x12


def test_xqf_comments_stay_with_their_moves():
    game = read_game_file(CLUB / "save.xqf")[0]
    assert [m.iccs() for m in game.moves] == ["b2d2", "b7d7"]
    assert game.initial_comment == "我要去日本撸管"
    assert game.comments == ["我爱罗66666", None]


def test_the_main_line_of_an_xqf_with_variations_leaves_the_variations_out():
    game = read_game_file(CLUB / "test_5_variations.xqf")[0]
    assert [m.iccs() for m in game.moves] == ["h2e2", "h7e7", "h0g2", "h9g7", "g3g4", "i9h9"]
    assert game.headers["Title"] == "无标题"


def test_an_xqf_with_no_moves_is_the_start_position():
    game = read_game_file(CLUB / "NoMove.xqf")[0]
    assert game.moves == [] and game.start_fen is None and game.result == "*"


@settings(max_examples=40, deadline=None)
@given(row=st.sampled_from(GAMES[::7]), version=st.sampled_from([10, 11, 12, 0x12]),
       seed=st.integers(min_value=0, max_value=2**64 - 1), plies=st.integers(min_value=0, max_value=200))
def test_every_xqf_version_writes_and_reads_back_the_same_game(row, version, seed, plies):
    game = _game(row, plies)
    game.comments = [f"第{i + 1}着" if i % 5 == 0 else None for i in range(len(game.moves))]
    game.initial_comment = "开局"
    again = read_xqf(write_xqf(game, version=version, key_seed=seed))
    assert again.moves == game.moves
    assert again.comments == game.comments and again.initial_comment == "开局"
    assert again.start_position().fen() == game.start_position().fen()
    assert again.result == game.result


def test_a_scrambled_xqf_file_reads_the_same_moves_as_its_pgn():
    pgn = read_pgn_file(sorted((DATA / "pgn_chinese_gbk").glob("*.PGN"))[0])[0]
    plain, keyed, other_key = (write_xqf(pgn, 10), write_xqf(pgn, 0x12, 1), write_xqf(pgn, 0x12, 99))
    assert plain[1024:] != keyed[1024:] != other_key[1024:]          # the bodies really differ
    for data in (plain, keyed, other_key):
        again = read_games(data)[0]
        assert again.moves == pgn.moves and again.result == pgn.result == "0-1"
        assert again.headers["Red"] == pgn.headers["Red"] and again.headers["Site"] == pgn.headers["Site"]


def test_a_black_to_move_study_keeps_its_start_in_xqf():
    study = Game(start_fen="4k4/9/9/9/9/9/9/9/4A4/3AK4 b - - 0 1",
                 moves=[Move.from_iccs("e9d9"), Move.from_iccs("e1f2")], result="1-0")
    again = read_xqf(write_xqf(study))
    assert again.start_position().fen() == study.start_position().fen()
    assert again.moves == study.moves and again.result == "1-0"


def test_xqf_text_longer_than_its_field_is_cut_at_a_character_boundary():
    game = Game(headers={"Red": "一二三四五六七八九十", "Event": "x" * 80})
    again = read_xqf(write_xqf(game))
    assert again.headers["Red"] == "一二三四五六七"          # 15 bytes of GBK hold 7 characters
    assert again.headers["Event"] == "x" * 63


def test_an_illegal_move_in_an_xqf_names_the_ply_and_the_byte_offset():
    game = _game(GAMES[0], 10)
    data = bytearray(write_xqf(game, version=10))
    record = 1024 + 8 + 3 * 8                # root record + its comment length, then three moves
    data[record] = 0x18 + 44                 # ply 4 now starts from e4, an empty point
    with pytest.raises(XqfError) as caught:
        read_xqf(bytes(data), "club.xqf")
    message = str(caught.value)
    assert message.startswith("club.xqf, XQF, ply 4, byte 1056: move e4-")
    assert "no piece on e4" in message and caught.value.ply == 3


@pytest.mark.parametrize("cut, expected", [(1000, "shorter than its 1024-byte header"),
                                             (1030, "the file ends inside")])
def test_a_truncated_xqf_says_where_it_ends(cut, expected):
    data = (CLUB / "save.xqf").read_bytes()[:cut]
    with pytest.raises(XqfError, match=expected):
        read_xqf(data, "cut.xqf")


def test_a_comment_length_past_the_end_of_the_file_is_refused():
    game = Game(moves=[Move.from_iccs("h2e2")], comments=["好"])
    data = bytearray(write_xqf(game, version=10))
    data[1024 + 4:1024 + 8] = (10_000).to_bytes(4, "little")
    with pytest.raises(XqfError, match="a comment length of 10000 bytes does not fit the file"):
        read_xqf(bytes(data))


def test_moves_after_a_root_record_without_its_next_flag_are_still_read():
    game = _game(GAMES[0], 4)
    data = bytearray(write_xqf(game, version=10))
    data[1024 + 2] = 0                        # the root's "a move follows" flag cleared
    assert read_xqf(bytes(data)).moves == game.moves
