"""Every real game through each writable format and back: the same moves, start, result and main
headers; plus the PGN writer's shape (tag order, xqbase ICCS, GBK) and detection by content."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.formats import detect_format, read_game_file, read_games, write_games
from rules.formats import cbf, dhtmlxq, xqf
from rules.move import Move
from rules.pgn import Game, read_pgn

DATA = Path(__file__).resolve().parents[1] / "data" / "games"
CLUB = DATA / "club_formats"
MAIN_HEADERS = ("Event", "Site", "Date", "Round", "Red", "Black")
CARRIED = {"pgn": MAIN_HEADERS, "dhtmlxq": dhtmlxq.CARRIED_HEADERS, "cbf": cbf.CARRIED_HEADERS,
           "xqf": xqf.CARRIED_HEADERS}


def _jsonl_games() -> list[Game]:
    games = []
    for line in (DATA / "games.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        games.append(Game(headers=dict(row["headers"]), start_fen=row["start_fen"],
                          moves=[Move.from_iccs(t) for t in row["moves_iccs"]], result=row["result"]))
    return games


def _club_games() -> list[Game]:
    games: list[Game] = []
    for path in sorted((DATA / "pgn_chinese_gbk").glob("*.PGN")) + sorted(CLUB.glob("*.*")):
        if path.suffix.lower() in (".pgn", ".xqf", ".cbr", ".cbl", ".cbf", ".html", ".txt") \
                and not path.name.startswith("LICENSE"):
            games.extend(read_game_file(path))
    return games


CHINESE_GAMES = _club_games()
ALL_GAMES = _jsonl_games() + CHINESE_GAMES


def _same_game(before: Game, after: Game, fmt: str) -> None:
    assert after.moves == before.moves
    assert after.result == before.result
    assert after.start_position().fen() == before.start_position().fen()
    for tag in CARRIED[fmt]:
        if tag not in MAIN_HEADERS and fmt != "pgn":
            continue
        value = before.headers.get(tag, "")
        if fmt == "xqf":       # fixed-size GBK fields: a longer value is cut, never changed
            got = after.headers.get(tag, "")
            assert value.startswith(got) and (got == value or len(value.encode("gbk")) > 15)
        else:
            assert after.headers.get(tag, "") == value, tag


def test_the_round_trip_corpus_is_the_whole_sample_set():
    assert len(ALL_GAMES) == 613 + 3 + 106 + 188 + 1 + 3 + 3      # jsonl, GBK PGN, CBLs, CBR, XQF, own samples


@pytest.mark.parametrize("fmt", ["pgn", "xqf", "dhtmlxq", "cbf"])
def test_every_game_survives_each_writable_format(fmt):
    for number, game in enumerate(ALL_GAMES, start=1):
        data = write_games([game], fmt, notation="iccs")
        again = read_games(data, f"game {number}")
        assert len(again) == 1 and not again.skipped
        _same_game(game, again[0], fmt)


@pytest.mark.parametrize("fmt, notation", [("pgn", "chinese"), ("pgn", "wxf"), ("dhtmlxq", "chinese")])
def test_chinese_named_games_survive_gbk_output(fmt, notation):
    for game in CHINESE_GAMES:
        data = write_games([game], fmt, notation=notation, encoding="gbk")
        data.decode("gbk")                                      # older readers get GBK, not UTF-8
        _same_game(game, read_games(data)[0], fmt)


def test_a_library_converts_to_one_multi_game_pgn_and_back():
    games = read_game_file(CLUB / "1981年承德十一省市邀请赛188局.CBL")
    again = read_pgn(write_games(games, "pgn", notation="chinese").decode("utf-8"))
    assert len(again) == 188
    assert [g.moves for g in again] == [g.moves for g in games]
    multi = read_games(write_games(games[:5], "dhtmlxq"))
    assert [g.moves for g in multi] == [g.moves for g in games[:5]]


def test_pgn_is_written_in_the_shape_other_readers_expect():
    game = Game(headers={"Opening": "中炮", "Black": "乙", "Round": "3", "Red": "甲", "Event": "杯赛",
                         "Date": "2024.05.01", "Site": "上海"},
                moves=[Move.from_iccs("h2e2"), Move.from_iccs("h9g7")], clocks_ms=[300_000, None],
                result="1-0")
    text = write_games([game], "pgn", notation="iccs", encoding="gbk").decode("gbk")
    lines = text.splitlines()
    assert lines[:10] == ['[Game "Chinese Chess"]', '[Event "杯赛"]', '[Site "上海"]', '[Date "2024.05.01"]',
                          '[Round "3"]', '[Red "甲"]', '[Black "乙"]', '[Result "1-0"]', '[Opening "中炮"]',
                          '[Format "ICCS"]']
    assert "1. H2-E2 {[%clk 0:05:00]} H9-G7" in lines        # a clock any PGN reader skips as a comment
    assert read_pgn(text)[0].clocks_ms == [300_000, None]


@pytest.mark.parametrize("name, fmt", [("save.xqf", "xqf"), ("test2.cbr", "cbr"),
                                       ("1966年全国个人赛对局选.CBL", "cbl"), ("opening_handwritten.cbf", "cbf"),
                                       ("dpxq_page_gbk.html", "dhtmlxq"), ("forum_post_iframe.txt", "dhtmlxq"),
                                       ("reference/save.xqf.pgn", "pgn")])
def test_the_format_is_found_from_the_content_not_the_name(name, fmt, tmp_path):
    data = (CLUB / name).read_bytes()
    assert detect_format(data) == fmt
    renamed = tmp_path / "game.txt"
    renamed.write_bytes(data)
    assert read_game_file(renamed).format == fmt
