"""Tournament files from organisers (TOML, JSON) and pairing software (CSV) become PGN headers."""
from __future__ import annotations

import pytest

from hall.tournament import TournamentError, load_tournament, parse_tournament

TOML = """
event = "City Open 2026"
round = "3"
date = "2026-12-01"
site = "Hall A"
time_control = "5400+30"

[[boards]]
board = 1
red = "王天一"
black = "郑惟桐"
red_rating = 2700
black_rating = 2650
red_team = "杭州"
black_team = "四川"

[[boards]]
board = 2
red = "Lü Qin"
black = "Xu Yinchuan"
"""


def test_a_toml_round_gives_each_board_its_pgn_headers():
    t = parse_tournament(TOML, "toml")
    h = t.headers(1)
    assert h == {"Event": "City Open 2026", "Site": "Hall A", "Date": "2026.12.01", "Round": "3", "Board": "1",
                 "Red": "王天一", "Black": "郑惟桐", "RedElo": "2700", "BlackElo": "2650", "RedTeam": "杭州",
                 "BlackTeam": "四川", "TimeControl": "5400+30"}
    assert t.headers(2)["Black"] == "Xu Yinchuan" and "RedElo" not in t.headers(2)
    assert t.headers(9) == {k: v for k, v in h.items() if k in ("Event", "Site", "Date", "Round", "TimeControl")} \
        | {"Board": "9"}


def test_json_and_a_pairing_program_csv_read_the_same_as_toml(tmp_path):
    toml = parse_tournament(TOML, "toml")
    (tmp_path / "r.json").write_text(
        '{"event": "City Open 2026", "round": 3, "date": "2026.12.01", "site": "Hall A", "time_control": "5400+30",'
        ' "boards": {"1": {"red": "王天一", "black": "郑惟桐", "red_rating": 2700, "black_rating": 2650,'
        ' "red_team": "杭州", "black_team": "四川"}, "2": {"red": "Lü Qin", "black": "Xu Yinchuan"}}}',
        encoding="utf-8")
    (tmp_path / "r.csv").write_text(
        "Bd;Red;Red Elo;Red Team;Black;Black Elo;Black Team;Event;Round;Date;Site;Time Control\n"
        "1;王天一;2700;杭州;郑惟桐;2650;四川;City Open 2026;3;2026-12-01;Hall A;5400+30\n"
        "2;Lü Qin;;;Xu Yinchuan;;;City Open 2026;3;2026-12-01;Hall A;5400+30\n", encoding="gb18030")
    for name in ("r.json", "r.csv"):
        t = load_tournament(tmp_path / name)
        assert t.headers(1) == toml.headers(1), name
        assert t.headers(2) == toml.headers(2), name


@pytest.mark.parametrize("text, kind, words", [
    ("[[boards]]\nred = 'x'\n", "toml", "no board number"),
    ("[[boards]]\nboard = 'one'\n", "toml", "'one' is not a number"),
    ("[[boards]]\nboard = 1\n[[boards]]\nboard = 1\n", "toml", "board 1 is paired twice"),
    ("event = \n", "toml", "not valid TOML"),
    ("{", "json", "not valid JSON"),
    ("red,black\nA,B\n", "csv", "needs a header row with a board column"),
    ("board,red\n0,A\n", "csv", "board 0 is not a number from 1"),
])
def test_a_bad_tournament_file_is_one_error_naming_what_is_wrong(text, kind, words):
    with pytest.raises(TournamentError, match=words):
        parse_tournament(text, kind, "round3." + kind)


def test_a_tournament_file_of_another_kind_is_refused_by_name(tmp_path):
    (tmp_path / "r.xlsx").write_bytes(b"PK")
    with pytest.raises(TournamentError, match="ends in .toml, .json or .csv"):
        load_tournament(tmp_path / "r.xlsx")
