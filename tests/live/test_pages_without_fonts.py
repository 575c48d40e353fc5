"""The station's pages in headless Chromium on a machine WITHOUT Chinese fonts (a Linux OBS PC):
the set-up check's "board reads" diagram (an SVG used as an image, which cannot use the page's
font), the live page's result form and incidents, in Chinese and in English on request
(tests/support/nocjk_browser.py has the browser and the check for empty boxes)."""
from __future__ import annotations

import re
import urllib.request
from datetime import datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import numpy as np

from live.server import LiveServer, ServerConfig
from live.setupframe import SetupWriter, board_points_px, expected_board
from live_helpers import GameWriter
from nocjk_browser import TZ, bare_browser, no_tofu, shot, until  # noqa: F401
from rules import START_FEN


def _setup_folder(folder) -> None:
    hom = np.array([[40.0, 0.0, 100.0], [0.0, -40.0, 420.0], [0.0, 0.0, 1.0]])
    probs = np.full((90, 15), 0.01, dtype=np.float32)
    classes = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")
    board = expected_board(START_FEN)
    board = board[:4] + "." + board[5:]                 # one misreading to point out
    for i, ch in enumerate(board):
        probs[i, classes.index(ch)] = 0.9
    pose = SimpleNamespace(homography=hom, corners=board_points_px(hom)[[81, 89, 8, 0]], confidence=0.9,
                           red_side="bottom")
    obs = SimpleNamespace(t=2.0, frame_index=30, pose=pose, quiet=True, probs=probs, occluded=np.zeros(90, bool))
    SetupWriter(folder, lambda: START_FEN).write(np.full((480, 640, 3), 30, dtype=np.uint8), obs)


def test_the_setup_checks_board_reads_diagram_draws_its_own_characters(bare_browser, tmp_path):
    _setup_folder(tmp_path)
    GameWriter(tmp_path).close()
    d = bare_browser
    with LiveServer(tmp_path, ServerConfig(port=0)) as server:
        d.get(server.url + "/setup?lang=zh")
        assert until(d, "var i=document.getElementById('reads-board'); return i.complete && i.naturalWidth", bool)
        src = d.execute_script("return document.getElementById('reads-board').src")
        with urllib.request.urlopen(src, timeout=5) as r:
            svg = r.read().decode("utf-8")
        assert "<text" not in svg and "<path id='xqg" in svg and "class='mark'" in svg   # e0 ringed
        assert "太暗" in d.find_element("id", "hints").text
        assert d.find_element("id", "red-side").text == "下边"
        no_tofu(d, min_chars=20)
        shot(d, "live-setup-nocjk.png")


def test_the_live_pages_form_and_incidents_in_chinese_and_in_english(bare_browser, tmp_path):
    g = GameWriter(tmp_path)
    for mv in ("h2e2", "h9g7", "h0g2", "i9h9"):
        g.move(mv)
    line = g.incident("touch_move_other", points=["c3", "h0"])
    g.close()
    d = bare_browser
    with LiveServer(tmp_path, ServerConfig(port=0, token="tok")) as server:
        d.get(server.url + "/?token=tok&lang=zh")
        until(d, "return document.body.dataset.ply", lambda v: v == "4")
        until(d, "return document.getElementById('arbiter').hidden", lambda v: v is False)
        inc = d.find_element("css selector", "#incidents li").text
        local = datetime.fromisoformat(line["wall"]).astimezone(ZoneInfo(TZ)).strftime("%H:%M:%S")
        assert "违反摸子走子" in inc and local in inc and "红方摸了 c3 的红兵" in inc
        assert [o.text for o in d.find_elements("css selector", "#result-value option")] == \
            ["1-0 红胜", "0-1 黑胜", "1/2-1/2 和棋"]
        assert d.find_element("id", "result-reason").get_attribute("placeholder") == "原因"
        assert d.find_element("id", "result-enter").text == "记录结果"
        assert d.find_element("css selector", "nav a[href^='setup']").is_displayed()   # a station has the set-up check
        assert d.find_element("id", "sync").text == "同步"
        no_tofu(d, min_chars=40)
        shot(d, "live-page-nocjk.png")
        d.get(server.url + "/?lang=en")
        until(d, "return document.body.dataset.ply", lambda v: v == "4")
        until(d, "return document.getElementById('arbiter').hidden", lambda v: v is False)
        assert d.find_element("id", "result-enter").text == "enter the result"
        assert "touched one piece, moved another" in d.find_element("css selector", "#incidents li").text
        head = d.find_element("css selector", "header").text
        assert not re.search(r"[\u4e00-\u9fff]", head.replace("中文", "")), head
        no_tofu(d, min_chars=4)                          # the moves stay in Chinese notation
