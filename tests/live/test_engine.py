"""The evaluation bar's engine: UCI notation and scores read right (Fairy-Stockfish's ranks 1-10,
scores turned to red's side), a real fairy-stockfish finding mates for the right side and a
chariot's worth for red, started again when killed, niced; `xqtrack serve --engine` putting an
`eval` in /state.json, and the bar drawn in headless Chromium with ?eval=1."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from live.engine import (Analyser, Evaluation, _Info, engine_config, engine_fen, find_engine, game_over_evaluation,
                         parse_info, uci_to_iccs)
from live_helpers import GameWriter
from rules import START_FEN

ROOT = Path(__file__).resolve().parents[2]
RED_MATES_IN_ONE = "4k4/R8/8R/9/9/9/9/9/9/3K5 w - - 0 1"        # i7i9: the rook on a8 holds rank 8
BLACK_MATES_IN_ONE = "3k5/9/9/9/9/9/9/8r/r8/4K4 b - - 0 1"       # i2i0: the rook on a1 holds rank 1
RED_CHARIOT_UP = "1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"
BLACK_MATED = "4k3R/R8/9/9/9/9/9/9/9/3K5 b - - 1 1"            # after i7i9: black has no move


def needs_engine() -> str:
    path = find_engine("fairy-stockfish")
    if path is None:
        pytest.skip("Debian's fairy-stockfish is not installed (apt-get install fairy-stockfish; .ci/run does)")
    return path


def _wait(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = predicate()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# ------------------------------------------------------------------------------------ notation, no engine
def test_fairy_stockfish_moves_with_ranks_one_to_ten_read_as_iccs():
    assert uci_to_iccs("h3e3", one_based=True) == "h2e2"
    assert uci_to_iccs("h10g8", one_based=True) == "h9g7"
    assert uci_to_iccs("a1a2", one_based=True) == "a0a1"
    assert uci_to_iccs("a0a1", one_based=True) is None          # no rank 0 in that reading
    assert uci_to_iccs("h2e2", one_based=False) == "h2e2"       # Pikafish: our ranks
    assert uci_to_iccs("h10g8", one_based=False) is None
    assert uci_to_iccs("(none)", one_based=True) is None


def test_an_info_line_keeps_the_main_lines_score_and_pv():
    info = _Info()
    assert parse_info("info depth 9 seldepth 12 multipv 1 score cp 28 nodes 19462 nps 99805 tbhits 0 time 195 "
                      "pv h8c8 e3e7 h10g8", info)
    assert (info.depth, info.cp, info.mate, info.pv, info.nodes, info.time_ms) == (9, 28, None,
                                                                                   ["h8c8", "e3e7", "h10g8"], 19462, 195)
    assert not parse_info("info depth 12 seldepth 19 multipv 1 score cp 5 upperbound nodes 1 time 3 pv h10g8", info)
    assert info.cp == 28                                   # a bound does not replace the last exact score
    assert not parse_info("info depth 9 multipv 2 score cp 99 pv a1a2", info)
    assert parse_info("info depth 3 score mate -2 nodes 10 time 1 pv e1e2", info) and info.mate == -2


def test_scores_read_from_reds_side_and_as_broadcasts_write_them():
    even = Evaluation(START_FEN, 10, 35, None, None, ("h2e2",), ("炮二平五",), "x")
    assert even.text == "+0.3" and 0.5 < even.red_share < 0.6
    assert Evaluation(START_FEN, 5, -1040, None, None, (), (), "x").text == "-10.4"
    red_mates = Evaluation(START_FEN, 3, None, 2, "red", (), (), "x")
    black_mates = Evaluation(START_FEN, 3, None, -1, "black", (), (), "x")
    assert (red_mates.text, red_mates.red_share) == ("M2", 1.0)
    assert (black_mates.text, black_mates.red_share) == ("-M1", 0.0)
    assert engine_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r") == START_FEN


def test_a_side_with_no_move_is_mated_without_asking_the_engine():
    ev = game_over_evaluation(BLACK_MATED, "x")
    assert ev is not None and (ev.mate, ev.winner, ev.text) == (0, "red", "M0")
    assert game_over_evaluation(START_FEN, "x") is None


def test_engine_auto_and_a_missing_engine_are_said_plainly(tmp_path):
    with pytest.raises(Exception, match="no such program"):
        engine_config("no-such-engine-here")
    with pytest.raises(Exception, match="not an executable"):
        engine_config(str(tmp_path / "missing"))


# ------------------------------------------------------------------------------------ the real engine
@pytest.fixture
def analyser():
    path = needs_engine()
    ready: list[str] = []
    a = Analyser(engine_config(path, movetime_ms=300), on_result=ready.append).start()
    yield a
    a.stop()


def _evaluate(a: Analyser, fen: str, key: str = "test") -> dict:
    a.want(key, fen)
    return _wait(lambda: a.result(fen), 30, f"an evaluation of {fen}").to_dict()


def test_a_mate_in_one_gets_a_mate_score_for_the_side_that_mates(analyser):
    red = _evaluate(analyser, RED_MATES_IN_ONE)
    assert (red["mate"], red["winner"], red["text"]) == (1, "red", "M1")
    assert red["best"] == "i7i9" and red["best_chinese"] == "车一进二"
    black = _evaluate(analyser, BLACK_MATES_IN_ONE)
    assert (black["mate"], black["winner"], black["text"]) == (-1, "black", "-M1")
    assert black["best"] == "i2i0"


def test_red_a_chariot_up_scores_for_red_even_with_black_to_move(analyser):
    ev = _evaluate(analyser, RED_CHARIOT_UP)
    assert ev["score_cp"] > 400, ev
    assert ev["pv"] and ev["pv_chinese"] and len(ev["pv"]) == len(ev["pv_chinese"])
    assert ev["depth"] >= 4


def test_the_engine_runs_niced_and_is_started_again_when_killed(analyser):
    _evaluate(analyser, START_FEN)
    pid = analyser.pid
    assert pid is not None
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        assert int(f.read().rsplit(")", 1)[1].split()[16]) >= 10        # field 19: nice
    os.kill(pid, signal.SIGKILL)
    ev = _evaluate(analyser, RED_CHARIOT_UP)                            # a new position after the kill
    assert ev["score_cp"] > 400
    assert analyser.restarts >= 1 and analyser.pid not in (None, pid)


def test_a_page_that_moved_on_stops_the_search_it_no_longer_shows():
    path = needs_engine()
    a = Analyser(engine_config(path, movetime_ms=20000)).start()     # a long search, cut short by the next want
    try:
        a.want("live", START_FEN)
        _wait(lambda: a.searches >= 1, 20, "the first search")
        t0 = time.monotonic()
        a.want("live", RED_MATES_IN_ONE)
        _wait(lambda: a.searches >= 2, 10, "the search of the position now shown")
        assert time.monotonic() - t0 < 5
        assert a.result(START_FEN) is None          # a search cut short is not kept as the evaluation
    finally:
        a.stop()


# ------------------------------------------------------------------------------------ served
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served_with_engine(tmp_path):
    needs_engine()
    game = GameWriter(tmp_path, start_fen=RED_MATES_IN_ONE, headers={"Red": "Hu Ronghua", "Black": "Liu Dahua"})
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", str(tmp_path), "--http", str(port),
                             "--engine", "fairy-stockfish", "--engine-ms", "300", "--token", "tok"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"

    def up():
        try:
            with urllib.request.urlopen(url + "/state.json", timeout=2) as r:
                return json.loads(r.read())
        except OSError:
            return None
    try:
        _wait(up, 30, "xqtrack serve to listen")
        yield game, url, proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        game.close()


def _state(url: str) -> dict:
    with urllib.request.urlopen(url + "/state.json", timeout=5) as r:
        return json.loads(r.read())


def test_serve_with_an_engine_gives_an_eval_in_state_json(served_with_engine):
    game, url, _ = served_with_engine
    ev = _wait(lambda: (lambda e: e if e and e.get("status") == "ok" else None)(_state(url)["eval"]), 30,
               "the eval of the mate-in-one position")
    assert (ev["mate"], ev["winner"], ev["best"]) == (1, "red", "i7i9")
    game.move("i7i9")                                             # mate on the board: red has won
    ev = _wait(lambda: (lambda e: e if e and e.get("status") == "ok" and e["fen"].startswith("4k3R")
                        else None)(_state(url)["eval"]), 30, "the eval after the mate")
    assert (ev["mate"], ev["winner"], ev["text"]) == (0, "red", "M0")


def test_the_bar_shows_in_the_page_and_the_overlay_with_eval_1(browser, served_with_engine):
    game, url, _ = served_with_engine
    _wait(lambda: (_state(url)["eval"] or {}).get("status") == "ok", 30, "an eval")
    browser.set_window_size(1280, 720)
    browser.get(url + "/overlay?eval=1")
    share = _wait(lambda: browser.execute_script("return document.getElementById('evalbar').dataset.share"), 10,
                  "the overlay's bar")
    assert float(share) == 1.0
    assert browser.execute_script("return document.querySelector('#evalbar .evalbar-text').textContent") == "M1"
    assert browser.find_element("id", "evalbar").is_displayed()
    heights = "var b=document.getElementById('evalbar'), r=b.querySelector('.evalbar-red');" \
              "return [r.getBoundingClientRect().height, b.getBoundingClientRect().height]"
    # red mates: the bar is all red (once its .4 s transition has run)
    full = _wait(lambda: (lambda h: h if abs(h[0] - h[1]) < 2 else None)(browser.execute_script(heights)), 5,
                 "the bar to fill with red")
    assert full[1] > 300
    browser.get(url + "/overlay")
    assert not browser.find_element("id", "evalbar").is_displayed()    # off unless asked for
    browser.get(url + "/?eval=1")
    _wait(lambda: browser.execute_script("return document.getElementById('evalbar').dataset.share"), 10, "the bar")
    line = browser.find_element("id", "evalline").text
    assert line.startswith("M1") and "车一进二" in line
