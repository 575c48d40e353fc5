"""The OBS overlay on air: the position in its very first response (no empty board or clocks while
the stream connects), the players' names, the status pill hidden with ?status=0, and a one-step
move's arrow that can be seen."""
from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest

from live.board_svg import board_svg
from live.server import LiveServer, ServerConfig, clock_text
from live_helpers import GameWriter


@pytest.fixture
def served(tmp_path):
    game = GameWriter(tmp_path, headers={"Red": "Hu Ronghua", "Black": "Liu <Dahua>"})
    game.move("h2e2")
    game.press("red", 590_000, 600_000)
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok")).start()
    yield game, server.url
    server.stop()
    game.close()


def _html(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode("utf-8")


def test_the_first_response_holds_the_position_clocks_and_names(served):
    game, url = served
    page = _html(url + "/overlay")
    m = re.search(r"window\.XQ_STATE=(\{.*?\});</script>", page)
    assert m, "the state is inline"
    state = json.loads(m.group(1))
    assert (state["ply"], state["last_move"], state["headers"]["Red"]) == (1, "h2e2", "Hu Ronghua")
    board = page.split('<div id="board">', 1)[1]
    assert board.startswith("<svg") and "data-from='h2' data-to='e2'" in board.split("</svg>", 1)[0]
    assert 'data-ply="1"' in page
    assert '<div class="name">Hu Ronghua</div>' in page and "Liu &lt;Dahua&gt;" in page   # escaped
    assert re.search(r'id="clock-red">.*?<div class="time">9:50</div>', page)
    assert "</script" not in m.group(1) and "<" not in m.group(1)      # the inline JSON cannot end the script
    assert "no-status" not in page.split("<body", 1)[1].split(">", 1)[0]
    assert "no-status" in _html(url + "/overlay?status=0").split("<body", 1)[1].split(">", 1)[0]
    live_page = _html(url + "/")
    assert "window.XQ_STATE={" in live_page and '<div class="name">Hu Ronghua</div>' in live_page


def test_clock_text_writes_times_as_the_pages_do():
    assert [clock_text(ms) for ms in (None, 0, 999, 59_001, 600_000, 3_723_000)] == \
        ["–:––", "0:00", "0:01", "1:00", "10:00", "1:02:03"]


def test_the_overlay_draws_its_first_frame_from_the_inline_state(browser, served):
    game, url = served
    # no stream at all: the page must still show the game from what the first response carried
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events*"]})
    try:
        browser.get(url + "/overlay")
        assert browser.execute_script("return document.body.dataset.ply") == "1"
        assert browser.execute_script("return window.__xq.count") >= 1
        assert browser.execute_script("return document.querySelector('#board .last-move').dataset.to") == "e2"
        assert browser.find_element("css selector", "#clock-red .time").text == "9:50"
        assert browser.find_element("css selector", "#clock-red .name").text == "Hu Ronghua"
        assert browser.find_element("css selector", "#clock-black .name").text == "Liu <Dahua>"
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


def test_status_0_hides_the_pill_and_names_follow_the_game(browser, served):
    game, url = served
    browser.get(url + "/overlay")
    assert browser.find_element("id", "sync").is_displayed()
    browser.get(url + "/overlay?status=0&layout=board-clocks")
    assert not browser.find_element("id", "sync").is_displayed()
    assert browser.find_element("css selector", "#clock-red .name").is_displayed()
    game.move("h9g7")
    end = time.monotonic() + 5
    while time.monotonic() < end and browser.execute_script("return document.body.dataset.ply") != "2":
        time.sleep(0.05)
    assert browser.execute_script("return document.body.dataset.ply") == "2"
    assert not browser.find_element("id", "sync").is_displayed()      # still hidden after an update


def test_a_one_step_moves_arrow_is_seen_round_both_points():
    svg = board_svg("rnbakabnr/9/1c5c1/p1p1p1p1p/9/2P6/P3P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "c3c4")
    arrow = svg.split("<g class='last-move'", 1)[1]
    assert "data-from='c3' data-to='c4'" in arrow
    ring = re.search(r"<circle class='moved' cx='([\d.]+)' cy='([\d.]+)' r='([\d.]+)'", arrow)
    assert ring and float(ring.group(3)) > 22            # round the moved piece, outside its disc
    assert re.search(r"<circle cx='[\d.]+' cy='[\d.]+' r='[\d.]+' fill='#", arrow)   # a solid dot on the origin
    assert svg.index("<g class='last-move'") > svg.rindex("class='pc'")   # drawn over the pieces
