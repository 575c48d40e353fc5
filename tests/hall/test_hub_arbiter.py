"""The arbiters' console through the hub with a real Mosquitto and real station processes: a
correction of a board's record and a result go to the station as commands, are checked and
journalled there, and come back to the hub like every other line; after the result the station's
moves are post-game and broadcast.pgn keeps the game as it stood at the result."""
from __future__ import annotations

import time

import pytest

from hall.broker import station_user
from rules.pgn import read_pgn

from hall_helpers import Hall, env, get_json, journal_lines, post_json, real_game, wait_for, write_game_journal

pytestmark = pytest.mark.usefixtures("mosquitto_or_skip")


def _broadcast_game(hall: Hall, board: int):
    import urllib.request
    with urllib.request.urlopen(f"{hall.http}/broadcast.pgn", timeout=5) as r:
        games = read_pgn(r.read().decode("utf-8"))
    found = [g for g in games if g.headers.get("Board") == str(board)]
    return found[-1] if found else None


def test_a_correction_and_a_result_from_the_console_come_back_from_the_station_and_the_broadcast_stops_at_the_result(
        tmp_path):
    import subprocess
    import sys
    hall = Hall(tmp_path, boards=2)
    try:
        hall.start_broker()
        hall.start_hub()
        # board 1: a finished recording, published by `xqtrack station`, which journals the commands
        moves1 = real_game(3, 12)
        write_game_journal(tmp_path / "st1", moves1, dt=0.5, incidents_at=(4,))
        log = open(tmp_path / "station1.log", "ab")
        st1 = subprocess.Popen([sys.executable, "-m", "app.cli", "station", str(tmp_path / "st1"), "--board", "1",
                                "--publish", hall.creds.url(station_user(1)), "--for", "60"],
                               stdout=log, stderr=log, env=env())
        hall.stations.append(st1)
        # board 2: a game played on past its result (28 plies; the result comes about ply 21)
        moves2 = real_game(3, 28)
        write_game_journal(tmp_path / "src2", moves2, dt=0.45, incidents_at=())
        hall.station(tmp_path / "src2" / "events.jsonl", 2, tmp_path / "st2")
        wait_for(lambda: hall.state(1)["ply"] == 12, 30, "board 1's moves at the hub")

        # the console's correction of board 1: an illegal move is refused at once, naming ply and move
        fix = {"board": 1, "from_ply": 11, "moves": "a0b0 h9h0", "by": "Chen", "note": "camera"}
        code, text = post_json(f"{hall.http}/arbiter/correct", fix, "wrong")
        assert code == 403
        code, text = post_json(f"{hall.http}/arbiter/correct", fix, hall.token)
        assert code == 400 and "ply 12" in text and "'h9h0'" in text
        code, text = post_json(f"{hall.http}/arbiter/correct", {**fix, "moves": "车九平八 d9e8"}, hall.token)
        assert code == 202, text
        st = wait_for(lambda: (s := hall.state(1))["corrections"] and s, 20, "the correction back from the station")
        assert st["moves"] == moves1[:10] + ["a0b0", "d9e8"] and st["corrections"][0]["by"] == "Chen"
        lines1 = journal_lines(tmp_path / "st1" / "events.jsonl")
        fixes = [e for e in lines1 if e["type"] == "arbiter_correction"]
        assert len(fixes) == 1 and fixes[0]["command"] and fixes[0]["moves"] == ["a0b0", "d9e8"]
        # the station's own files follow (no recorder runs there): its PGN and its review
        game1 = read_pgn((tmp_path / "st1" / "game.pgn").read_text(encoding="utf-8"))[0]
        assert [m.iccs() for m in game1.moves] == st["moves"]
        assert "camera" in (tmp_path / "st1" / "review.html").read_text(encoding="utf-8")
        wait_for(lambda: (g := _broadcast_game(hall, 1)) is not None and
                 [m.iccs() for m in g.moves] == st["moves"], 10, "board 1's corrected game in the broadcast")

        # board 2: the result at about ply 21, while the replay goes on writing what the board shows
        wait_for(lambda: hall.state(2)["ply"] >= 21, 60, "board 2 at ply 21")
        code, text = post_json(f"{hall.http}/arbiter/result", {"board": 2, "result": "0-1", "reason": "resignation"},
                               hall.token)
        assert code == 202, text
        st2 = wait_for(lambda: (s := hall.state(2))["result"] == "0-1" and s, 20, "the result back from the station")
        at = st2["ply"]
        assert 21 <= at < 28
        # a second result must name the one it revises (checked at the hub on its copy)
        code, text = post_json(f"{hall.http}/arbiter/result", {"board": 2, "result": "1-0", "reason": "resignation"},
                               hall.token)
        assert code == 400 and "stands already" in text
        wait_for(lambda: len(hall.state(2)["post_game"]) + at == 28, 60, "the replay's last moves, post-game")
        st2 = hall.state(2)
        assert st2["ply"] == at and st2["moves"] == moves2[:at] and st2["result"] == "0-1"
        lines2 = journal_lines(tmp_path / "st2" / "events.jsonl")
        end = next(i for i, e in enumerate(lines2) if e["type"] == "game_end")
        assert lines2[end]["ply"] == at and lines2[end]["by"] == "arbiter" and lines2[end]["revision"] == 1
        after = [e for e in lines2[end:] if e["type"] == "move"]
        assert len(after) == 28 - at and all(e.get("post_game") for e in after)
        g2 = wait_for(lambda: (g := _broadcast_game(hall, 2)) is not None and g.result == "0-1" and g, 20,
                      "board 2's result in the broadcast")
        assert [m.iccs() for m in g2.moves] == moves2[:at]
        queue = get_json(f"{hall.http}/arbiter/queue.json", hall.token)
        board2 = next(g for g in queue["games"] if g["board"] == 2)
        assert board2["result_revision"] == 1 and board2["post_game"] == 28 - at
    finally:
        hall.close()


def test_the_consoles_correction_takes_a_second_click_and_comes_back_from_the_station(tmp_path, browser):
    import subprocess
    import sys
    hall = Hall(tmp_path, boards=1)
    try:
        hall.start_broker()
        hall.start_hub()
        moves = real_game(3, 12)
        write_game_journal(tmp_path / "st1", moves, dt=0.5, incidents_at=(4,))
        log = open(tmp_path / "station1.log", "ab")
        hall.stations.append(subprocess.Popen(
            [sys.executable, "-m", "app.cli", "station", str(tmp_path / "st1"), "--board", "1",
             "--publish", hall.creds.url(station_user(1)), "--for", "60"], stdout=log, stderr=log, env=env()))
        wait_for(lambda: hall.state(1)["ply"] == 12, 30, "board 1's moves at the hub")
        browser.get(f"{hall.http}/arbiter?token={hall.token}")
        wait_for(lambda: browser.find_elements("css selector", "#games button[data-correct='1']"), 10, "the console")
        browser.find_element("css selector", "#games input[data-from='1']").send_keys("11")
        browser.find_element("css selector", "#games input[data-moves='1']").send_keys("车九平八 d9e8")
        button = browser.find_element("css selector", "#games button[data-correct='1']")
        button.click()
        assert "confirming" in button.get_attribute("class")
        time.sleep(0.5)
        assert not hall.state(1)["corrections"]                      # one click sends nothing
        button.click()
        st = wait_for(lambda: (s := hall.state(1))["corrections"] and s, 20, "the correction back from the station")
        assert st["moves"] == moves[:10] + ["a0b0", "d9e8"]
        assert [e["type"] for e in journal_lines(tmp_path / "st1" / "events.jsonl")].count("arbiter_correction") == 1
    finally:
        hall.close()
