"""The real pages in headless Chromium: the live page follows the game, the overlay is transparent,
/setup shows the lattice, the review's clips play."""
from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from live.server import LiveServer, ServerConfig
from live.setupframe import SetupWriter, board_points_px, expected_board
from live_helpers import GameWriter
from rules import START_FEN
from runtime.journal import final_move_events, read_events

ROOT = Path(__file__).resolve().parents[2]


def _until(driver, script, want, timeout=5.0):
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = driver.execute_script(script)
        if got == want:
            return got
        time.sleep(0.02)
    return got


@pytest.fixture
def served(tmp_path):
    game = GameWriter(tmp_path)
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok")).start()
    yield game, server.url
    server.stop()
    game.close()


def test_the_live_page_shows_each_new_move_as_the_journal_grows(browser, served):
    game, url = served
    browser.get(url + "/")
    assert _until(browser, "return document.body.dataset.seq", "1") == "1"
    for iccs, chinese in (("h2e2", "炮二平五"), ("h9g7", "马8进7"), ("h0g2", "马二进三")):
        game.move(iccs)
        n = str(len(game.moves))
        assert _until(browser, "return document.body.dataset.ply", n) == n
        last = browser.execute_script("var c=document.querySelector('#moves td.last');"
                                      "return [c.dataset.iccs, c.firstChild.textContent]")
        assert last == [iccs, chinese]
        arrow = browser.execute_script("var a=document.querySelector('#board .last-move');"
                                       "return a.dataset.from + a.dataset.to")
        assert arrow == iccs
    game.incident("retouch", points=["h0"], evidence={"clip": "evidence/001_ply003_retouch_clip.webm"})
    assert _until(browser, "return document.querySelectorAll('#incidents li').length", 1) == 1
    assert "touched again after letting go" in browser.find_element("css selector", "#incidents li").text  # en-US: English
    link = browser.find_element("css selector", "#incidents li .evidence a")
    assert link.get_attribute("href") == url + "/evidence/001_ply003_retouch_clip.webm"
    game.tracking("out_of_sync", detail="g2 differs")
    assert _until(browser, "return document.getElementById('sync').textContent",
                  "out of sync: check the board") == "out of sync: check the board"


def test_the_arbiters_page_enters_a_result_with_its_token(browser, served):
    game, url = served
    game.move("h2e2")
    browser.get(url + "/")
    _until(browser, "return document.body.dataset.ply", "1")
    assert browser.find_element("id", "arbiter").is_displayed() is False   # no token: read-only
    browser.get(url + "/?token=tok")
    _until(browser, "return document.body.dataset.ply", "1")
    assert browser.current_url == url + "/"          # the token became an HttpOnly cookie, out of the URL
    _until(browser, "return document.getElementById('arbiter').hidden", False)
    browser.find_element("id", "result-value").send_keys("1/2")
    browser.find_element("id", "result-reason").send_keys("agreed")
    browser.find_element("id", "result-enter").click()
    assert "confirming" in browser.find_element("id", "result-enter").get_attribute("class")   # a second click enters it
    browser.find_element("id", "result-enter").click()
    shown = _until(browser, "return document.getElementById('result').textContent",
                   "result: 1/2-1/2 (arbiter: agreed)")
    assert shown == "result: 1/2-1/2 (arbiter: agreed)"


def test_the_running_clock_counts_down_between_presses(browser, served):
    game, url = served
    game.move("h2e2")
    game.press("red", 590000, 600000)
    browser.get(url + "/")
    _until(browser, "return document.body.dataset.ply", "1")
    first = int(_until(browser, "return document.getElementById('clock-black').dataset.ms || null", None, 0.3) or
                browser.execute_script("return document.getElementById('clock-black').dataset.ms"))
    time.sleep(1.2)
    later = int(browser.execute_script("return document.getElementById('clock-black').dataset.ms"))
    assert first - later >= 900
    assert browser.execute_script("return document.getElementById('clock-red').dataset.ms") == "590000"
    assert "running" in browser.find_element("id", "clock-black").get_attribute("class")


def test_the_overlay_is_transparent_without_scrollbars(browser, served):
    game, url = served
    for iccs in ("h2e2", "h9g7", "h0g2", "b9c7", "i0h0", "a9b9", "h0h6", "c6c5", "b0c2", "b7b3"):
        game.move(iccs, dt=0.1)
    browser.set_window_size(1920, 1080)
    browser.get(url + "/overlay?layout=board-clocks&flip=1")
    assert _until(browser, "return document.body.dataset.ply", "10") == "10"
    styles = browser.execute_script("return [getComputedStyle(document.documentElement).backgroundColor,"
                                    "getComputedStyle(document.body).backgroundColor]")
    assert styles == ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"]
    sizes = browser.execute_script("var e=document.documentElement; return [e.scrollWidth <= e.clientWidth,"
                                   "e.scrollHeight <= e.clientHeight]")
    assert sizes == [True, True]
    assert browser.execute_script("return document.querySelector('#board svg').dataset.flipped") == "1"
    browser.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    from PIL import Image
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGBA")
    browser.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {})
    w, h = shot.size
    assert shot.getpixel((w - 5, h - 5))[3] == 0, "the page's free corner lets the stream show through"
    board = browser.execute_script("var r=document.querySelector('#board svg').getBoundingClientRect();"
                                   "return [r.left + r.width / 2, r.top + r.height / 2, r.height]")
    ratio = w / browser.execute_script("return window.innerWidth")
    assert shot.getpixel((int(board[0] * ratio), int(board[1] * ratio)))[3] == 255
    assert board[2] > 0.9 * browser.execute_script("return window.innerHeight"), "board fills the 1080p height"
    browser.get(url + "/overlay?layout=moves")
    _until(browser, "return document.body.dataset.ply", "10")
    assert browser.execute_script("return getComputedStyle(document.getElementById('board')).display") == "none"
    assert len(browser.find_elements("css selector", "#strip .mv")) == 8
    browser.set_window_size(1280, 900)


def test_setup_shows_the_frame_with_the_lattice_and_readings(browser, tmp_path):
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
    img = np.full((480, 640, 3), 30, dtype=np.uint8)
    SetupWriter(tmp_path, lambda: START_FEN).write(img, obs)
    GameWriter(tmp_path).close()
    with LiveServer(tmp_path, ServerConfig(port=0)) as server:
        browser.get(server.url + "/setup")
        assert _until(browser, "return document.querySelectorAll('#lattice polyline').length", 19) == 19
        assert browser.execute_script("return document.querySelectorAll('#lattice g.pt').length") == 32
        assert browser.execute_script("return [...document.querySelectorAll('#lattice g.differs')]"
                                      ".map(g => g.dataset.point)") == ["e0"]
        assert _until(browser, "return document.getElementById('shot').naturalWidth", 640) == 640
        assert _until(browser, "return document.getElementById('reads-board').naturalWidth > 0", True) is True
        hints = browser.find_element("id", "hints").text
        assert "too dark" in hints and "太暗" not in hints    # one language: the browser's (en-US)
        assert "90%" in browser.find_element("id", "confidence").text


def test_the_reviews_clips_play_offline(browser, tmp_path):
    from runtime.evidence import EvidenceStore
    from runtime.review import write_review
    g = GameWriter(tmp_path)
    g.move("h2e2")
    store = EvidenceStore(tmp_path, fps=15.0)
    hom = np.array([[40.0, 0.0, 100.0], [0.0, -40.0, 420.0], [0.0, 0.0, 1.0]])
    for i in range(90):
        img = np.full((480, 640, 3), 80, dtype=np.uint8)
        img[100:200, (i * 6) % 600:(i * 6) % 600 + 40] = 230
        store.add(i, img, hom)
    g.incident("retouch", points=["h2"], evidence=store.save("001_ply001_retouch", {"during": 60}, [25]))
    g.close()
    write_review(tmp_path)
    browser.get((tmp_path / "review.html").as_uri())
    browser.execute_script("document.querySelector('video.clip').play()")
    played = _until(browser, "var v=document.querySelector('video.clip');"
                             "return v.error === null && v.readyState >= 2 && v.currentTime > 0.2", True, 8.0)
    assert played is True, browser.execute_script("var v=document.querySelector('video.clip');"
                                                  "return [v.error && v.error.code, v.readyState, v.currentTime]")
    assert browser.execute_script("return document.querySelector('video.clip').videoWidth") == 640


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_live_page_follows_a_clip_recorded_at_its_own_pace(browser, tmp_path):
    """`xqtrack record CLIP --http --realtime`: every move the journal ends with was on the page."""
    clip = ROOT / "sim" / "samples" / "demo" / "clip.mp4"
    out = tmp_path / "rec"
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "record", str(clip), "--out", str(out), "--http",
                             str(port), "--realtime", "--speed", "2", "--quiet", "--linger", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: set[tuple[str, str]] = set()
    try:
        assert "http://127.0.0.1" in (proc.stderr.readline() if proc.stderr else "")
        browser.get(f"http://127.0.0.1:{port}/")
        while proc.poll() is None:
            try:
                shown = browser.execute_script("return [...document.querySelectorAll('#moves td.mv')]"
                                               ".map(c => [c.dataset.ply, c.dataset.iccs])")
            except Exception:   # the server went away at the end of the recording
                break
            seen.update((str(p), m) for p, m in shown)
            time.sleep(0.05)
        proc.wait(120)
    finally:
        if proc.poll() is None:
            proc.kill()
    events, _ = read_events(out / "events.jsonl")
    final = [(str(e["ply"]), e["iccs"]) for e in final_move_events(events)]
    assert len(final) >= 5, "the demo clip's moves are recorded"
    missed = [m for m in final if m not in seen]
    assert not missed, f"moves journalled but never shown: {missed}"
    assert json.loads((out / "setup.json").read_text(encoding="utf-8"))["pose"] is not None
