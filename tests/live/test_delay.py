"""The broadcast delay: the public's pages, /state.json, /events and /game.pgn show the game as it
stood `--delay` seconds ago (clocks as they were then), while a request with the arbiters' token
sees it live; a finished recording served later is shown whole at once."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
from datetime import datetime, timezone
import urllib.request
from pathlib import Path

import pytest

from live.server import LiveServer, ServerConfig
from live.state import DelayedFold, event_time
from live_helpers import GameWriter

ROOT = Path(__file__).resolve().parents[2]
DELAY = 2.0


def _get(url: str, token: str | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"X-XQ-Token": token} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _state(url: str, token: str | None = None) -> dict:
    code, body = _get(url + "/state.json", token)
    assert code == 200, body
    return json.loads(body)


def _wait(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = predicate()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}")


# ------------------------------------------------------------------------------------ pure
def test_a_line_counts_from_its_wall_time_but_never_early_and_never_after_it_arrived():
    line = {"wall": "2026-12-01T10:00:00.000+00:00"}
    at = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc).timestamp()
    assert event_time(line, at + 600, backlog=True) == at                 # read back at start: its wall time
    assert event_time(line, at + 600, backlog=False) == at + 600 - 5.0    # a slow station clock gains no more
    assert event_time(line, at - 60, backlog=False) == at - 60            # a fast one: when it arrived
    assert event_time({}, 123.0, backlog=False) == 123.0


def test_the_delayed_fold_shows_each_line_only_once_its_time_has_come():
    fold = DelayedFold(10.0)
    fold.add({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "fen": None}, 100.0)
    fold.add({"type": "move", "t": 1.0, "ply": 1, "iccs": "h2e2", "side": "red"}, 105.0)
    fold.add({"type": "move", "t": 2.0, "ply": 2, "iccs": "h9g7", "side": "black"}, 103.0)   # waits for ply 1
    assert not fold.release(109.9) and fold.count == 0 and fold.due() == 110.0
    assert fold.release(110.0) and fold.count == 1 and fold.game.moves == []
    assert not fold.release(114.9)
    assert fold.release(115.0) and fold.game.moves == ["h2e2", "h9g7"] and fold.due() is None


# ------------------------------------------------------------------------------------ served
@pytest.fixture
def delayed(tmp_path):
    game = GameWriter(tmp_path, headers={"Red": "Hu", "Black": "Liu"})
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok", delay_s=DELAY)).start()
    yield game, server.url
    server.stop()
    game.close()


def test_the_public_state_lags_by_the_delay_while_the_token_sees_it_live(delayed):
    game, url = delayed
    assert _state(url)["ply"] == 0            # the journal's start is fresh: it waits too
    game.move("h2e2")
    game.press("red", 590_000, 600_000)
    t_move = time.monotonic()
    live = _wait(lambda: (lambda s: s if s["ply"] == 1 else None)(_state(url, "tok")), 2, "the arbiter's view")
    assert live["delayed"] is False and live["last_move"] == "h2e2"
    public = _state(url)
    assert public["ply"] == 0 and public["delayed"] is True and public["delay_s"] == DELAY
    shown = _wait(lambda: (lambda s: s if s["ply"] == 1 else None)(_state(url)), DELAY + 3, "the public's view")
    assert time.monotonic() - t_move >= DELAY - 0.3
    assert shown["last_move"] == "h2e2" and shown["headers"]["Red"] == "Hu"
    # the clocks as they were then: black's time has run DELAY s less than it has live
    _wait(lambda: _state(url)["clocks"], 1, "the press in the public's view")
    live = _state(url, "tok")
    public = _state(url)
    assert public["clocks"]["running"] == "black"
    assert public["clocks"]["black_ms"] - live["clocks"]["black_ms"] == pytest.approx(DELAY * 1000, abs=400)
    assert public["clocks"]["red_ms"] == 590_000


def test_the_public_pgn_and_event_stream_are_delayed_too(delayed):
    game, url = delayed
    game.move("h2e2")
    code, live_pgn = _get(url + "/game.pgn", "tok")
    assert code == 200 and "炮二平五" in live_pgn.decode()
    code, public_pgn = _get(url + "/game.pgn")
    assert code == 200 and "炮二平五" not in public_pgn.decode()
    # the raw stream: the public gets no line before its time
    got: list[tuple[float, dict]] = []
    t0 = time.monotonic()

    def read() -> None:
        with urllib.request.urlopen(url + "/events", timeout=DELAY + 5) as r:
            for raw in r:
                line = raw.decode().strip()
                if line.startswith("data: "):
                    got.append((time.monotonic() - t0, json.loads(line[6:])))
                    if got[-1][1].get("type") == "move":
                        return
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(DELAY + 4)
    assert got and got[-1][1]["type"] == "move"
    assert got[-1][0] >= DELAY - 0.5, got
    code, public_pgn = _get(url + "/game.pgn")
    assert "炮二平五" in public_pgn.decode()


def test_live_only_views_need_the_token_under_a_delay(delayed):
    game, url = delayed
    (game.dir / "evidence").mkdir(exist_ok=True)
    (game.dir / "evidence" / "001_ply000_retouch_before.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really")
    (game.dir / "setup.jpg").write_bytes(b"\xff\xd8\xff\xe0 frame")
    game.incident("retouch", points=["h0"], evidence={"before": "evidence/001_ply000_retouch_before.jpg"})
    assert _get(url + "/setup.jpg")[0] == 403 and _get(url + "/setup")[0] == 403
    assert _get(url + "/setup.jpg", "tok")[0] == 200
    assert _get(url + "/evidence/001_ply000_retouch_before.jpg")[0] == 404      # its incident is not public yet
    assert _get(url + "/evidence/001_ply000_retouch_before.jpg", "tok")[0] == 200
    _wait(lambda: _state(url)["incidents"], DELAY + 3, "the incident in the public's view")
    assert _get(url + "/evidence/001_ply000_retouch_before.jpg")[0] == 200


def test_a_finished_recording_served_later_is_shown_whole_at_once(tmp_path):
    game = GameWriter(tmp_path)
    for iccs in ("h2e2", "h9g7"):
        game.move(iccs)
    game.close()
    old = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    with open(tmp_path / "events.jsonl", "w", encoding="utf-8") as f:     # recorded an hour ago
        for e in old:
            f.write(json.dumps({**e, "wall": "2026-01-01T10:00:00.000+00:00"}, ensure_ascii=False) + "\n")
    server = LiveServer(tmp_path, ServerConfig(port=0, token="tok", delay_s=300)).start()
    try:
        assert _state(server.url)["ply"] == 2
    finally:
        server.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_xqtrack_serve_delay_serves_a_growing_recording_late_to_the_public(tmp_path):
    game = GameWriter(tmp_path)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", str(tmp_path), "--http", str(port),
                             "--delay", str(DELAY), "--token", "tok"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: _get(url + "/session.json")[0] == 200 if _port_open(port) else None, 30, "serve to listen")
        game.move("h2e2")
        _wait(lambda: _state(url, "tok")["ply"] == 1, 3, "the live view")
        assert _state(url)["ply"] == 0
        _wait(lambda: _state(url)["ply"] == 1, DELAY + 3, "the delayed view")
    finally:
        proc.send_signal(signal.SIGINT)
        # it ends within a tenth of a second when run alone; once in a full test run on a loaded
        # 2-core machine it had not ended after 15 s (not understood yet): a hang still fails here
        _, err = proc.communicate(timeout=30)
        game.close()
    assert "show the game 2 s late" in err


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_delay_and_engine_on_record_go_with_http(tmp_path):
    clip = ROOT / "sim" / "samples" / "demo" / "clip.mp4"
    r = subprocess.run([sys.executable, "-m", "app.cli", "record", str(clip), "--out", str(tmp_path / "rec"),
                        "--delay", "60", "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "--delay and --engine go with --http" in r.stderr
    assert not (tmp_path / "rec" / "events.jsonl").exists()
