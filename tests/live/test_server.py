"""The live server over HTTP: /state.json, /game.pgn, /events replay and resume, the ruling token."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from live.server import LiveServer, ServerConfig, parse_http
from live_helpers import GameWriter


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
        return r.read()


def _state(url: str) -> dict:
    return json.loads(_get(url + "/state.json"))


def _wait(pred, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    return pred()


def _sse(url: str, n: int, headers: dict[str, str] | None = None) -> list[dict]:
    """The first n SSE messages of a stream, as {'event', 'id', 'data'}."""
    out: list[dict] = []
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
        msg: dict = {}
        while len(out) < n:
            line = r.readline().decode("utf-8").rstrip("\n")
            if not line:
                if "data" in msg:
                    out.append(msg)
                msg = {}
                continue
            key, _, value = line.partition(": ")
            if key in ("event", "id", "data"):
                msg[key] = value
    return out


@pytest.fixture
def served(tmp_path):
    game = GameWriter(tmp_path)
    server = LiveServer(tmp_path, ServerConfig(port=0, token="secret-token")).start()
    yield game, server.url, server
    server.stop()
    game.close()


def test_state_json_follows_the_journal_as_it_grows(served):
    game, url, _ = served
    assert _state(url)["ply"] == 0
    game.move("h2e2")
    game.move("h9g7")
    st = _wait(lambda: (s := _state(url))["ply"] == 2 and s)
    assert st["moves"] == ["h2e2", "h9g7"] and st["last_move"] == "h9g7"
    assert st["fen"] == game.pos.fen()
    for key in ("fen", "moves", "last_move", "ply", "clocks", "incidents", "sync"):
        assert key in st
    assert st["sync"] == "in_sync"


def test_the_running_clock_is_counted_down_to_now(served):
    game, url, _ = served
    game.move("h2e2")
    game.press("red", 590000, 600000)   # black's time runs from here
    st = _wait(lambda: (s := _state(url))["clocks"] and s)
    time.sleep(0.3)
    later = _state(url)["clocks"]
    assert st["clocks"]["running"] == "black" and later["red_ms"] == 590000
    assert later["black_ms"] < 600000 - 250


def test_game_pgn_is_the_recorders_file(served):
    game, url, _ = served
    game.move("h2e2")
    assert "炮二平五" in _get(url + "/game.pgn").decode("utf-8")


def test_events_replays_every_line_from_the_start_or_a_sequence_number(served):
    game, url, _ = served
    game.move("h2e2")
    game.incident("retouch")
    game.move("h9g7")
    _wait(lambda: _state(url)["seq"] == 4)
    all_events = _sse(url + "/events", 4)
    assert [json.loads(m["data"])["type"] for m in all_events] == ["tracking", "move", "incident", "move"]
    assert [int(m["id"]) for m in all_events] == [1, 2, 3, 4]
    later = _sse(url + "/events?from=3", 2)
    assert [json.loads(m["data"])["seq"] for m in later] == [3, 4]
    resumed = _sse(url + "/events", 1, {"Last-Event-ID": "3"})
    assert json.loads(resumed[0]["data"])["iccs"] == "h9g7"


def test_a_new_line_reaches_an_open_stream(served):
    game, url, _ = served
    import threading
    got: list[dict] = []
    t = threading.Thread(target=lambda: got.extend(_sse(url + "/events?from=2", 1)))
    t.start()
    time.sleep(0.2)
    game.move("c3c4")
    t.join(5)
    assert got and json.loads(got[0]["data"])["iccs"] == "c3c4"


def test_the_view_stream_carries_the_drawn_board(served):
    game, url, _ = served
    game.move("h2e2")
    _wait(lambda: _state(url)["ply"] == 1)
    msg = _sse(url + "/events?view=1&flip=1", 1)[0]
    st = json.loads(msg["data"])
    assert msg["event"] == "state" and st["ply"] == 1
    assert "<svg" in st["svg"] and "data-flipped='1'" in st["svg"]


def test_a_ruling_needs_the_token_and_is_journalled(served):
    game, url, _ = served
    game.move("h2e2")
    game.incident("retouch")
    _wait(lambda: _state(url)["incidents"])
    body = json.dumps({"incident": 1, "decision": "uphold", "note": "seen"}).encode()

    def post(token):
        req = urllib.request.Request(url + "/rule", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "X-XQ-Token": token})
        return urllib.request.urlopen(req, timeout=5)
    with pytest.raises(urllib.error.HTTPError) as err:
        post("wrong")
    assert err.value.code == 403
    assert post("secret-token").status == 200
    inc = _wait(lambda: (s := _state(url))["incidents"][0]["ruling"] and s["incidents"][0])
    assert inc["ruling"]["decision"] == "upheld" and inc["ruling"]["note"] == "seen"
    bad = json.dumps({"incident": 9, "decision": "uphold"}).encode()
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(url + "/rule", data=bad, method="POST",
                                                      headers={"Content-Type": "application/json",
                                                               "X-XQ-Token": "secret-token"}), timeout=5)
    assert err.value.code == 400 and b"no incident 9" in err.value.read()


def test_files_outside_the_recording_are_not_served(served):
    _, url, _ = served
    for path in ("/evidence/..%2Fevents.jsonl", "/static/..%2Fserver.py", "/evidence/nothing.jpg"):
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(url + path)
        assert err.value.code == 404


def test_pages_load_nothing_from_the_internet(served):
    _, url, _ = served
    for page in ("/", "/overlay", "/setup", "/static/live.js", "/static/setup.js", "/static/live.css"):
        text = _get(url + page).decode("utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, page


@pytest.mark.parametrize("spec, want", [("8080", ("127.0.0.1", 8080)), ("0.0.0.0:9000", ("0.0.0.0", 9000)),
                                        ("[::1]:81", ("::1", 81)), (":8081", ("127.0.0.1", 8081))])
def test_http_option_defaults_to_the_local_interface(spec, want):
    assert parse_http(spec) == want


@pytest.mark.parametrize("spec, words", [("localhost:web", "'web' is not a number"), ("99999", "outside")])
def test_a_bad_http_option_names_what_is_wrong(spec, words):
    with pytest.raises(ValueError, match=words):
        parse_http(spec)


def test_board_svg_draws_a_given_position_with_points_ringed_and_refuses_a_bad_one(served):
    _, url, _ = served
    from urllib.parse import quote
    svg = _get(url + "/board.svg?fen=" + quote("4k4/9/9/9/9/9/9/9/9/4K4") + "&marks=e0,zz").decode("utf-8")
    assert svg.count("class='pc'") == 2 and svg.count("class='mark'") == 1
    with pytest.raises(urllib.error.HTTPError) as err:
        _get(url + "/board.svg?fen=" + quote("4k4/9/9"))
    assert err.value.code == 400 and b"ranks" in err.value.read()


def _post(url: str, body: dict, token: str | None):
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-XQ-Token"] = token
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    return urllib.request.urlopen(req, timeout=5)


def test_a_result_entry_needs_the_token_and_reaches_the_state_and_a_finished_pgn(served):
    game, url, _ = served
    game.move("h2e2")
    game.tracking("source_ended", detail="end of the source")
    _wait(lambda: _state(url)["ended"])
    for token in (None, "wrong"):
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(url + "/result", {"result": "1-0", "reason": "black resigned"}, token)
        assert err.value.code == 403
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(url + "/result", {"result": "2-0"}, "secret-token")
    assert err.value.code == 400 and b"'2-0'" in err.value.read()
    line = json.loads(_post(url + "/result", {"result": "0-1", "reason": "red resigned"}, "secret-token").read())
    assert line["type"] == "game_end" and line["result"] == "0-1" and line["pgn"] == "rewritten"
    st = _wait(lambda: (s := _state(url))["result"] == "0-1" and s)
    assert st["end_reason"] == "arbiter: red resigned"
    assert '[Result "0-1"]' in _get(url + "/game.pgn").decode("utf-8")


def test_a_ruling_without_an_incident_id_says_so(served):
    _, url, _ = served
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(url + "/rule", {"decision": "uphold"}, "secret-token")
    assert err.value.code == 400 and b"not an incident id" in err.value.read()


def test_review_notes_are_the_arbiters_alone_and_never_counted_as_incidents(served):
    game, url, _ = served
    game.move("h2e2")
    game.note(score=0.31, evidence={"during": "evidence/note001_ply001_touch_move_other_during.jpg"})
    (game.dir / "evidence").mkdir(exist_ok=True)
    (game.dir / "evidence" / "note001_ply001_touch_move_other_during.jpg").write_bytes(b"\xff\xd8jpeg")
    arbiter = {"X-XQ-Token": "secret-token"}
    st = _wait(lambda: (s := json.loads(_get(url + "/state.json", arbiter)))["notes"] and s)
    assert st["incidents"] == [] and st["notes"][0]["score"] == 0.31 and st["notes"][0]["points"] == ["c3", "h2"]
    assert _state(url)["notes"] == [], "the audience never sees weak evidence about a player"
    with pytest.raises(urllib.error.HTTPError) as err:
        _get(url + "/evidence/note001_ply001_touch_move_other_during.jpg")
    assert err.value.code == 404
    assert _get(url + "/evidence/note001_ply001_touch_move_other_during.jpg", arbiter) == b"\xff\xd8jpeg"
