"""The hub's pages in headless Chromium: the live page of one board (the live part's page, served
under /board/N/) follows the game as lines arrive over MQTT, the hall shows every board, and the
arbiters' console lists the incident with its evidence."""
from __future__ import annotations

import time

import pytest

from hall_helpers import Hall, real_game, wait_for, write_game_journal

pytestmark = pytest.mark.usefixtures("mosquitto_or_skip")


def _until(driver, script, check, timeout=20.0):
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = driver.execute_script(script)
        if check(got):
            return got
        time.sleep(0.05)
    raise AssertionError(f"{script!r} never passed; last {got!r}")


def test_the_board_page_the_hall_and_the_console_follow_the_games_from_the_broker(browser, tmp_path):
    hall = Hall(tmp_path, boards=2)
    try:
        hall.start_broker()
        hall.start_hub()
        j1 = write_game_journal(tmp_path / "src1", real_game(6, 24), dt=0.25, incidents_at=(2,))
        j2 = write_game_journal(tmp_path / "src2", real_game(7, 6), dt=0.2, incidents_at=())
        hall.station(j2, 2, tmp_path / "st2")
        hall.station(j1, 1, tmp_path / "st1")
        wait_for(lambda: hall.state(1)["seq"] >= 1, 20, "board 1 at the hub")
        browser.get(hall.http + "/board/1/")
        first = int(_until(browser, "return document.body.dataset.ply", lambda v: v not in (None, "0")))
        later = int(_until(browser, "return document.body.dataset.ply", lambda v: int(v or 0) > first))
        assert later > first                                   # the page moves on as lines arrive
        _until(browser, "return document.querySelectorAll('#incidents li').length", lambda n: n == 1)
        wait_for(lambda: hall.state(1)["ply"] == 24, 30, "board 1's whole game")
        _until(browser, "return document.body.dataset.ply", lambda v: v == "24")
        assert browser.execute_script("return document.body.dataset.lastMove") == real_game(6, 24)[-1]
        browser.get(hall.http + "/")
        _until(browser, "return document.querySelectorAll('.card').length", lambda n: n == 2)
        _until(browser, "return document.getElementById('board-2').dataset.ply", lambda v: v == "6")
        assert browser.execute_script("return document.getElementById('board-1').dataset.ply") == "24"
        assert "! 1" in browser.find_element("id", "board-1").text              # an open incident
        browser.get(hall.http + "/arbiter?token=" + hall.token)
        _until(browser, "return document.querySelectorAll('#incidents tr').length", lambda n: n == 1)
        row = browser.find_element("css selector", "#incidents tr")
        assert row.get_attribute("data-kind") == "retouch" and row.find_elements("css selector", "button[data-d='uphold']")
        assert "touched again after letting go" in row.text          # its words, not the program's name (en-US)
        browser.get(hall.http + "/arbiter?token=wrong")
        _until(browser, "return document.getElementById('msg').textContent", lambda t: "token" in (t or ""))
    finally:
        hall.close()
