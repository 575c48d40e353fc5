"""The hub against a hostile station, browser or socket, with a real broker, stations and Chromium:
evidence named like a page is never served as one, the arbiters' token never rides in a URL or a
Referer, a change needs JSON, the token (header or SameSite=Strict cookie) and the hub's own
origin, an over-long URL is answered 400 without a traceback, slow-header sockets are closed."""
from __future__ import annotations

import http.client
import json
import selectors
import socket
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from hall_helpers import Hall, real_game, wait_for, write_game_journal
from live.server import HEADER_TIMEOUT_S

TOKEN = "tok"
# What a hostile station publishes as "evidence": a page that reads the token from the Referer the
# console's link gives it (when the console's URL still holds it) and posts a forged result in
# every shape the hub once took (token in the query with a text/plain body, the header, the cookie).
FORGED = """<!DOCTYPE html><html><head><title>clip</title></head><body><script>
document.title = "pwned";
var t = ""; try { t = new URL(document.referrer).searchParams.get("token") || ""; } catch (e) {}
var body = JSON.stringify({board: 1, result: "0-1", reason: "resignation", token: t});
fetch("/arbiter/result?token=" + encodeURIComponent(t), {method: "POST",
  headers: {"Content-Type": "text/plain"}, body: body});
fetch("/arbiter/result", {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/json", "X-XQ-Token": t}, body: body});
fetch("/board/1/result", {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/json"}, body: body});
</script></body></html>""".encode("utf-8")
EVIDENCE = {"clip": "evidence/clip.html", "info": "evidence/001_ply002_retouch.json",
            "crop": "evidence/001_ply002_retouch_crop.jpg"}


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hall]:
    """One hub with two boards, each replayed by its station; board 1's station also publishes
    hostile evidence (a page as clip.html, and the same page as .json and .jpg)."""
    from hall.broker import BrokerError, find_tool
    try:
        find_tool("mosquitto")
        find_tool("mosquitto_passwd")
    except BrokerError as exc:
        pytest.skip(f"a real broker is needed: {exc}")
    base = tmp_path_factory.mktemp("hostile")
    h = Hall(base, boards=2, token=TOKEN)
    try:
        h.start_broker()
        h.start_hub()
        for board, game in ((1, 9), (2, 10)):
            out = base / f"st{board}"
            (out / "evidence").mkdir(parents=True)
            for rel in EVIDENCE.values():
                (out / rel).write_bytes(FORGED)
            src = write_game_journal(base / f"src{board}", real_game(game, 6), dt=0.05, incidents_at=(2,),
                                     evidence=EVIDENCE)
            h.station(src, board, out, speed=5.0)
        for board in (1, 2):
            wait_for(lambda: h.state(board)["incidents"], 30, f"board {board}'s incident at the hub")
            wait_for(lambda: (h.hub_dir / "boards" / str(board) / "evidence" / "001_ply002_retouch.json").is_file(),
                     30, f"board {board}'s evidence at the hub")
        yield h
    finally:
        h.close()


def _request(hall: Hall, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", hall.http_port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.headers, r.read()
    finally:
        conn.close()


def _commands(hall: Hall, board: int) -> list[dict[str, Any]]:
    path = hall.hub_dir / "commands.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("board") == board]


def _click(driver: Any, css: str, timeout: float = 10.0) -> None:
    """Click the element `css` names; the console redraws its tables every 2 s, so an element
    found just before a redraw is found again."""
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException

    end = time.monotonic() + timeout
    while True:
        try:
            driver.find_element("css selector", css).click()
            return
        except (ElementNotInteractableException, StaleElementReferenceException):
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def _until(driver: Any, script: str, check: Any, timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = driver.execute_script(script)
        if check(got):
            return got
        time.sleep(0.05)
    raise AssertionError(f"{script!r} never passed; last {got!r}")


def test_a_page_published_as_evidence_cannot_post_a_result_from_the_arbiters_browser(browser, hall):
    stored = hall.hub_dir / "boards" / "1" / "evidence" / "clip.html"
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(FORGED)                # as an older hub kept it: serving alone must make it harmless
    browser.get(f"{hall.http}/arbiter?token={TOKEN}")
    _until(browser, "return document.querySelectorAll('#incidents tr a.ev-link[target=_blank]').length", lambda n: n >= 3)
    assert browser.current_url == hall.http + "/arbiter"                 # the token left the address bar
    assert TOKEN not in browser.execute_script("return document.cookie")  # HttpOnly: no script reads it
    console = browser.current_window_handle
    links = browser.find_elements("css selector", "#incidents tr a.ev-link[target=_blank]")   # each evidence file's own link
    board1 = [a for a in links if "/board/1/" in (a.get_attribute("href") or "")]
    assert {a.text for a in board1} == {"clip", "info", "zoomed crop"}                       # in words (en-US)
    assert all(a.get_attribute("rel") == "noopener noreferrer" for a in board1)
    for href in [a.get_attribute("href") for a in board1]:
        _click(browser, f"#incidents a[href='{href.replace(hall.http, '')}']")
    wait_for(lambda: len(browser.window_handles) == 4, 10, "the three evidence tabs")
    time.sleep(2.0)                                                       # time for any forged POST to land
    seen = {}
    for handle in [h for h in browser.window_handles if h != console]:
        browser.switch_to.window(handle)
        referrer = browser.execute_script("return document.referrer")
        seen[browser.current_url.rsplit("/", 1)[1]] = (browser.title, referrer)
        browser.close()
    browser.switch_to.window(console)
    assert set(seen) == {"clip.html", "001_ply002_retouch.json", "001_ply002_retouch_crop.jpg"}
    assert all(title != "pwned" and referrer == "" for title, referrer in seen.values()), seen
    assert [c for c in _commands(hall, 1) if c["type"] == "result"] == []
    assert hall.state(1)["result"] == "*"
    code, headers, body = _request(hall, "GET", "/board/1/evidence/clip.html")
    assert code == 404 and b"<script>" not in body and headers["Content-Type"].startswith("text/plain")
    # the console itself still enters a result, through its cookie and a JSON body
    _click(browser, "button[data-result='1']")                          # 1-0, resignation: the first options
    _click(browser, "button[data-result='1']")                          # the second click confirms it
    sent = wait_for(lambda: [c for c in _commands(hall, 1) if c["type"] == "result"], 10, "the console's result")
    assert [(c["result"], c["reason"]) for c in sent] == [("1-0", "resignation")]
    _until(browser, "return document.getElementById('msg').textContent", lambda t: "sent to the station" in (t or ""))


def test_evidence_is_served_with_its_own_type_nosniff_and_a_sandbox_and_other_names_are_404(hall):
    for name, kind in (("001_ply002_retouch.json", "application/json"),
                       ("001_ply002_retouch_crop.jpg", "image/jpeg")):
        code, headers, body = _request(hall, "GET", f"/board/2/evidence/{name}")
        assert code == 200 and body == FORGED and headers["Content-Type"].split(";")[0] == kind
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"] == "sandbox"
        assert headers["Referrer-Policy"] == "no-referrer"
    folder = hall.hub_dir / "boards" / "2" / "evidence"
    for name in ("clip.html", "x.svg", "x.htm", ".hidden.jpg", "x.JPG"):
        (folder / name).write_bytes(FORGED)
    for name in ("clip.html", "x.svg", "x.htm", ".hidden.jpg", "x.JPG", "..%2Fevents.jsonl",
                 "..%2F..%2Fcommands.jsonl"):
        code, _, body = _request(hall, "GET", f"/board/2/evidence/{name}")
        assert code == 404 and FORGED not in body, name


def test_every_hub_page_and_error_says_no_referrer(hall):
    for path in ("/", "/arbiter", "/hall.json", "/broadcast.pgn", "/board/1/", "/board/1/overlay",
                 "/board/1/state.json", "/board/1/board.svg", "/static/live.js", "/board/9/", "/nothing",
                 "/arbiter/queue.json"):
        code, headers, _ = _request(hall, "GET", path)
        assert headers["Referrer-Policy"] == "no-referrer", (path, code)
    page = _request(hall, "GET", "/arbiter")[2].decode("utf-8")
    assert "target='_blank' rel='noopener noreferrer'" in page


def test_a_token_in_the_url_becomes_a_strict_cookie_for_the_whole_hub_from_the_console_or_for_one_board(hall):
    for path, location, scope in ((f"/arbiter?token={TOKEN}", "/arbiter", "/"),
                                  (f"/board/2/?flip=1&token={TOKEN}", "/board/2/?flip=1", "/board/2")):
        code, headers, _ = _request(hall, "GET", path)
        assert code == 303 and headers["Location"] == location
        attrs = [a.strip().lower() for a in headers["Set-Cookie"].split(";")]
        assert attrs[0] == f"xq_token_{hall.http_port}={TOKEN}"
        assert "httponly" in attrs and "samesite=strict" in attrs and f"path={scope}" in attrs
    cookie = {"Cookie": f"xq_token_{hall.http_port}={TOKEN}"}
    assert _request(hall, "GET", "/arbiter/queue.json", headers=cookie)[0] == 200
    assert _request(hall, "GET", f"/arbiter/queue.json?token={TOKEN}")[0] == 303   # handed over, never read
    assert _request(hall, "GET", "/arbiter/queue.json", headers={"X-XQ-Token": "wrong"})[0] == 403
    # the hub has no camera frame of a board: its pages hide the set-up check
    assert json.loads(_request(hall, "GET", "/board/2/session.json", headers=cookie)[2]) == \
        {"arbiter": True, "setup": False}
    assert json.loads(_request(hall, "GET", "/board/2/session.json")[2]) == {"arbiter": False, "setup": False}


def test_form_shaped_posts_and_posts_from_another_origin_are_refused_and_a_json_post_with_the_token_works(hall):
    result = json.dumps({"board": 2, "result": "0-1", "reason": "resignation"}).encode()
    json_type = {"Content-Type": "application/json"}
    refused = [
        (f"/arbiter/result?token={TOKEN}", result, {"Content-Type": "text/plain"}),
        (f"/arbiter/result?token={TOKEN}", result, json_type),
        ("/arbiter/result", f"token={TOKEN}&board=2&result=0-1&reason=resignation".encode(),
         {"Content-Type": "application/x-www-form-urlencoded"}),
        ("/arbiter/result", json.dumps({"board": 2, "result": "0-1", "reason": "resignation",
                                        "token": TOKEN}).encode(), json_type),
        ("/arbiter/result", result, {"Content-Type": "text/plain", "X-XQ-Token": TOKEN}),
        (f"/board/2/result?token={TOKEN}", result, {"Content-Type": "text/plain"}),
        (f"/arbiter/rule?token={TOKEN}", json.dumps({"board": 2, "incident": 1, "decision": "uphold"}).encode(),
         {"Content-Type": "text/plain"}),
    ]
    for origin in ("http://evil.example", "null", f"http://localhost:{hall.http_port}"):
        for path in ("/arbiter/result", "/board/2/result"):
            refused.append((path, result, {**json_type, "X-XQ-Token": TOKEN, "Origin": origin}))
            refused.append((path, result, {**json_type, "Origin": origin,
                                           "Cookie": f"xq_token_{hall.http_port}={TOKEN}"}))
    for path, body, headers in refused:
        code, _, text = _request(hall, "POST", path, body, headers)
        assert code in (403, 415), (path, headers, code, text)
    time.sleep(0.3)
    assert _commands(hall, 2) == []
    code, _, text = _request(hall, "POST", "/arbiter/result", result, {**json_type, "X-XQ-Token": TOKEN})
    assert code == 202, text
    code, _, text = _request(hall, "POST", "/board/2/rule", json.dumps({"incident": 1, "decision": "dismiss"}).encode(),
                             {**json_type, "Origin": hall.http, "Cookie": f"xq_token_{hall.http_port}={TOKEN}"})
    assert code == 202, text
    assert [c["type"] for c in _commands(hall, 2)] == ["result", "ruling"]     # sent to board 2's station


def _status_line(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(request)
        got = b""
        while b"\r\n" not in got:
            chunk = c.recv(4096)
            if not chunk:
                break
            got += chunk
        return got.split(b"\r\n", 1)[0]


def test_a_100_kb_query_is_answered_400_and_the_hubs_console_shows_no_traceback(hall):
    log: Path = hall.base / "hub.log"
    for request in (b"GET /hall.json?q=" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                    b"GET /arbiter HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + b"c" * 100_000 + b"\r\n\r\n"):
        status = _status_line(hall.http_port, request)
        assert status.split(b" ")[1] in (b"400", b"414", b"431"), status
    assert _status_line(hall.http_port, b"GET /hall.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").endswith(b"200 OK")
    time.sleep(0.3)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text and "LineTooLong" not in text and "Error handling request" not in text, text


def test_a_thousand_sockets_that_never_finish_their_headers_are_closed_within_seconds(hall):
    sel = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    try:
        for _ in range(1000):
            s = socket.create_connection(("127.0.0.1", hall.http_port), timeout=10)
            s.sendall(b"GET /hall.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")    # and never the rest
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            socks.append(s)
        started = time.monotonic()
        assert json.loads(_request(hall, "GET", "/hall.json")[2])["boards"]            # the hub still answers
        open_ = set(socks)
        while open_ and time.monotonic() - started < HEADER_TIMEOUT_S + 15:
            for key, _ in sel.select(timeout=0.5):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    data = s.recv(4096)
                except (ConnectionResetError, BlockingIOError):
                    data = b""
                if not data:
                    sel.unregister(s)
                    open_.discard(s)
        assert not open_, f"{len(open_)} of 1000 slow sockets still open after {time.monotonic() - started:.0f} s"
    finally:
        for s in socks:
            s.close()
        sel.close()
