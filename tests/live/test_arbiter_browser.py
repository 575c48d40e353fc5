"""The arbiter's forms in real headless Chromium: the live page's correction form and its confirm
step, and the served review's ruling buttons (added for a browser holding the token)."""
from __future__ import annotations

import time

import pytest

from live.server import LiveServer, ServerConfig
from runtime.journal import read_events
from test_arbiter import recorded


def _until(driver, script, want, timeout=6.0):
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = driver.execute_script(script)
        if got == want:
            return got
        time.sleep(0.05)
    return got


def _types(folder):
    return [e["type"] for e in read_events(folder / "events.jsonl")[0]]


@pytest.fixture
def served(tmp_path):
    moves = recorded(tmp_path)
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok")).start()
    yield tmp_path, server.url, moves
    server.stop()


def test_the_correction_form_takes_a_second_click_and_the_page_shows_the_corrected_game(browser, served):
    folder, url, moves = served
    browser.get(url + "/")
    _until(browser, "return document.body.dataset.ply", "12")
    assert browser.find_element("id", "correct-panel").is_displayed() is False     # no token: no form
    browser.get(url + "/?token=tok")
    assert _until(browser, "return document.getElementById('correct-panel').hidden", False) is False
    browser.find_element("id", "correct-from").send_keys("11")
    browser.find_element("id", "correct-moves").send_keys("a0b0 h9h0")           # ply 12 is not legal
    button = browser.find_element("id", "correct-enter")
    button.click()
    assert "confirming" in button.get_attribute("class")
    assert "arbiter_correction" not in _types(folder)                             # one click changes nothing
    button.click()
    said = _until(browser, "return document.getElementById('arbiter-msg').textContent.indexOf('ply 12') >= 0", True)
    assert said is True and "arbiter_correction" not in _types(folder)
    moves_box = browser.find_element("id", "correct-moves")
    moves_box.clear()
    moves_box.send_keys("车九平八 d9e8")
    button.click()
    button.click()
    # the recorded ply 11 was a0a1 and ply 12 d9e8 already: wait for the corrected ply itself
    ply11 = "var td = document.querySelector(\"#moves td[data-ply='11']\"); return td && td.dataset.iccs"
    assert _until(browser, ply11, "a0b0", timeout=20.0) == "a0b0"
    assert browser.execute_script("return document.body.dataset.lastMove") == "d9e8"
    assert browser.execute_script("return document.body.dataset.ply") == "12"
    assert _types(folder).count("arbiter_correction") == 1


def test_the_served_review_rules_on_an_incident_after_a_second_click(browser, served):
    folder, url, _ = served
    browser.get(url + "/review.html")
    assert browser.find_elements("css selector", ".inc .arb button") == []       # no token: the page alone
    browser.get(url + "/?token=tok")                                              # the token becomes a cookie
    browser.get(url + "/review.html")
    up = _until(browser, "return document.querySelectorAll('#inc1 .arb button').length", 2)
    assert up == 2
    browser.execute_script("document.querySelector('#inc1 .arb-note').value = 'seen on the clip'")
    uphold = browser.find_element("css selector", "#inc1 .arb button[data-decision='uphold']")
    uphold.click()
    assert "confirm" in uphold.text and "ruling" not in _types(folder)
    uphold.click()
    # the page reloads with the ruling (the review was rebuilt before the server answered)
    assert _until(browser, "return !!document.querySelector('#inc1.upheld')", True) is True
    assert "seen on the clip" in browser.find_element("id", "inc1").text
    assert _until(browser, "return document.querySelector('#inc1 .arb button').textContent.indexOf('revise') >= 0",
                  True) is True


def test_review_notes_show_on_the_arbiters_live_page_and_not_the_audiences(browser, tmp_path):
    from live_helpers import GameWriter
    g = GameWriter(tmp_path)
    g.move("h2e2")
    g.note(score=0.34)
    g.close()
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok")).start()
    try:
        browser.get(server.url + "/")
        _until(browser, "return document.body.dataset.ply", "1")
        time.sleep(0.3)
        assert browser.find_element("id", "notes-panel").is_displayed() is False
        browser.get(server.url + "/?token=tok")
        shown = "var n = document.querySelector('#notes li'); return n ? n.textContent : ''"
        end = time.monotonic() + 6.0
        while "0.34" not in (text := browser.execute_script(shown)) and time.monotonic() < end:
            time.sleep(0.05)
        assert "0.34" in text and "c3" in text
        assert browser.find_element("id", "notes-panel").is_displayed() is True
        assert "#" not in text.split("·")[0], "a note carries no incident number to rule on"
    finally:
        server.stop()
