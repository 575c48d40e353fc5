"""The live server against hostile browsers and sockets: evidence served inert and only under the
names a station writes, the token handed over from the URL into an HttpOnly SameSite=Strict cookie,
changes refused unless JSON, token-bearing and from the page's own origin, no Referer anywhere,
an over-long URL answered 400 without a traceback, slow-header sockets closed."""
from __future__ import annotations

import http.client
import json
import os
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from live.server import HEADER_TIMEOUT_S, LiveServer, ServerConfig
from live_helpers import GameWriter

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "secret-token"
FORGED_PAGE = b"<html><script>document.title='pwned';</script></html>"


@pytest.fixture
def served(tmp_path):
    game = GameWriter(tmp_path)
    game.move("h2e2")
    game.incident("retouch")
    server = LiveServer(tmp_path, ServerConfig(port=0, token=TOKEN)).start()
    yield game, server
    server.stop()
    game.close()


def _request(server: LiveServer, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request as sent, no redirect followed."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.headers, r.read()
    finally:
        conn.close()


def _journal_types(folder: Path) -> list[str]:
    lines = (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["type"] for line in lines if line.strip()]


def test_evidence_is_served_only_under_a_stations_names_with_its_own_type_nosniff_and_a_sandbox(served, tmp_path):
    _, server = served
    ev = tmp_path / "evidence"
    ev.mkdir(exist_ok=True)
    want = {"001_ply001_retouch_before.jpg": "image/jpeg", "001_ply001_retouch_crop.png": "image/png",
            "001_ply001_retouch_clip.webm": "video/webm", "002_clip.mp4": "video/mp4",
            "001_ply001_retouch.json": "application/json"}
    for name in want:
        (ev / name).write_bytes(FORGED_PAGE)           # whatever the bytes, the type is the name's
    for name, kind in want.items():
        code, headers, body = _request(server, "GET", f"/evidence/{name}")
        assert code == 200 and body == FORGED_PAGE, name
        assert headers["Content-Type"].split(";")[0] == kind
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"] == "sandbox"
        assert headers["Referrer-Policy"] == "no-referrer"
    planted = ["clip.html", "clip.htm", "board.svg", "x.xhtml", "x.js", ".hidden.jpg", "a..jpg", "shot.JPG", "noext"]
    for name in planted:
        (ev / name).write_bytes(FORGED_PAGE)
    os.symlink(tmp_path / "events.jsonl", ev / "link.json")          # a JSON name, but not a file of the folder
    for name in [*planted, "link.json", "..%2Fevents.jsonl", "%2E%2E%2Fgame.pgn"]:
        code, headers, body = _request(server, "GET", f"/evidence/{name}")
        assert code == 404, name
        assert FORGED_PAGE not in body and b'"type"' not in body
        assert headers["Content-Type"].startswith("text/plain") and headers["X-Content-Type-Options"] == "nosniff"


def test_every_page_file_stream_and_error_says_no_referrer(served):
    _, server = served
    for path in ("/", "/overlay", "/setup", "/state.json", "/game.pgn", "/board.svg", "/static/live.js",
                 "/session.json", "/no-such-page", "/review.html"):
        code, headers, _ = _request(server, "GET", path)
        assert headers["Referrer-Policy"] == "no-referrer", (path, code)
        assert headers["X-Content-Type-Options"] == "nosniff", path
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/events")
        r = conn.getresponse()
        assert r.status == 200 and r.headers["Referrer-Policy"] == "no-referrer"
    finally:
        conn.close()


def test_a_token_in_the_url_becomes_an_httponly_strict_cookie_and_the_url_loses_it(served):
    _, server = served
    code, headers, _ = _request(server, "GET", f"/?flip=1&token={TOKEN}")
    assert code == 303 and headers["Location"] == "/?flip=1"
    cookie = headers["Set-Cookie"]
    name = f"xq_token_{server.port}"
    assert cookie.startswith(f"{name}={TOKEN};")
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert "httponly" in attrs and "samesite=strict" in attrs and "path=/" in attrs
    assert json.loads(_request(server, "GET", "/session.json", headers={"Cookie": f"{name}={TOKEN}"})[2]) == \
        {"arbiter": True, "setup": True}                                   # a station has the set-up check
    assert json.loads(_request(server, "GET", "/session.json")[2]) == {"arbiter": False, "setup": True}
    assert json.loads(_request(server, "GET", "/session.json?x=1", headers={"Cookie": f"{name}=guess"})[2]) == \
        {"arbiter": False, "setup": True}
    code, headers, _ = _request(server, "GET", "/?token=wrong")          # a wrong one clears the cookie
    assert code == 303 and headers["Location"] == "/"
    assert headers["Set-Cookie"].startswith(f'{name}="";') and "max-age=0" in headers["Set-Cookie"].lower()
    code, headers, _ = _request(server, "GET", f"//evil.example/?token={TOKEN}")
    assert not (headers.get("Location") or "").startswith("//")       # no open redirect


def test_form_shaped_posts_and_tokens_in_the_query_or_the_body_are_refused(served, tmp_path):
    game, server = served
    before = _journal_types(tmp_path)
    body = json.dumps({"result": "0-1", "reason": "forged"}).encode()
    attempts = [
        (f"/result?token={TOKEN}", body, {"Content-Type": "text/plain"}),
        (f"/result?token={TOKEN}", body, {"Content-Type": "application/json"}),
        ("/result", f"token={TOKEN}&result=0-1&reason=forged".encode(),
         {"Content-Type": "application/x-www-form-urlencoded"}),
        ("/result", json.dumps({"token": TOKEN, "result": "0-1"}).encode(), {"Content-Type": "application/json"}),
        ("/result", body, {"Content-Type": "text/plain", "X-XQ-Token": TOKEN}),
        ("/result", b"--b\r\nContent-Disposition: form-data; name=\"result\"\r\n\r\n0-1\r\n--b--\r\n",
         {"Content-Type": "multipart/form-data; boundary=b", "X-XQ-Token": TOKEN}),
        (f"/rule?token={TOKEN}", json.dumps({"incident": 1, "decision": "uphold"}).encode(),
         {"Content-Type": "text/plain"}),
    ]
    for path, data, headers in attempts:
        code, _, text = _request(server, "POST", path, data, headers)
        assert code in (403, 415), (path, headers, code, text)
    time.sleep(0.2)
    assert _journal_types(tmp_path) == before


def test_a_post_from_another_origin_is_refused_even_with_the_token_and_the_pages_own_origin_passes(served, tmp_path):
    _, server = served
    own = f"http://127.0.0.1:{server.port}"
    ruling = json.dumps({"incident": 1, "decision": "uphold", "note": "seen"}).encode()
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{server.port + 1}", f"file://{tmp_path}"):
        code, _, text = _request(server, "POST", "/rule", ruling, {"Content-Type": "application/json",
                                                                   "X-XQ-Token": TOKEN, "Origin": origin})
        assert code == 403 and b"another site" in text, origin
    assert "ruling" not in _journal_types(tmp_path)
    cookie = {"Cookie": f"xq_token_{server.port}={TOKEN}"}
    code, _, text = _request(server, "POST", "/rule", ruling, {"Content-Type": "application/json; charset=utf-8",
                                                               "Origin": own, **cookie})
    assert code == 200, text                         # the page itself: its cookie and its own origin
    line = json.loads(text)
    assert line["type"] == "ruling" and line["by"] == "web"
    code, _, text = _request(server, "POST", "/result", json.dumps({"result": "1-0", "reason": "flag"}).encode(),
                             {"Content-Type": "application/json", "X-XQ-Token": TOKEN})
    assert code == 200 and json.loads(text)["result"] == "1-0"        # a script: the header, no Origin
    assert _journal_types(tmp_path)[-2:] == ["ruling", "game_end"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def test_a_100_kb_query_or_header_is_answered_400_and_the_console_shows_no_traceback(tmp_path):
    g = GameWriter(tmp_path)
    g.move("h2e2")
    g.close()
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", str(tmp_path), "--http", str(port),
                             "--for", "60"], stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        assert f"http://127.0.0.1:{port}/" in (proc.stderr.readline() if proc.stderr else "")
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        long_query = b"GET /state.json?q=" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        long_header = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 100_000 + b"\r\n\r\n"
        many_headers = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(500))
                        + b"\r\n")
        for request in (long_query, long_header, many_headers):
            status = _status_line(port, request)
            assert status.split(b" ")[1] in (b"400", b"414", b"431"), status
        assert _status_line(port, b"GET /state.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").endswith(b"200 OK")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err and "LineTooLong" not in err and "Error handling request" not in err, err


def test_sockets_that_never_finish_their_headers_are_closed_within_seconds_while_others_are_served(served):
    _, server = served
    sel = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    try:
        for i in range(1000):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            s.sendall(b"GET /state.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")   # and never the rest
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            socks.append(s)
        started = time.monotonic()
        assert json.loads(_request(server, "GET", "/state.json")[2])["ply"] == 1     # the server still answers
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
        took = time.monotonic() - started
        assert not open_, f"{len(open_)} of 1000 slow sockets still open after {took:.0f} s"
        assert took < HEADER_TIMEOUT_S + 15
    finally:
        for s in socks:
            s.close()
        sel.close()


def test_the_page_moves_the_token_out_of_its_url_and_opens_evidence_without_a_referrer(browser, served, tmp_path):
    game, server = served
    (tmp_path / "evidence").mkdir(exist_ok=True)
    (tmp_path / "evidence" / "001_ply001_retouch.json").write_bytes(FORGED_PAGE)
    game.incident("retouch", evidence={"info": "evidence/001_ply001_retouch.json",
                                       "clip": "evidence/001_ply001_retouch.json"})
    browser.get(f"{server.url}/?token={TOKEN}")
    end = time.monotonic() + 10
    while time.monotonic() < end and not browser.find_elements("css selector", "#incidents li button"):
        time.sleep(0.05)
    assert browser.current_url == server.url + "/"                        # the token left the URL
    assert TOKEN not in browser.execute_script("return document.cookie + location.href + document.body.innerHTML")
    assert browser.find_element("id", "arbiter").is_displayed()           # ...and still makes this the arbiter's page
    link = browser.find_elements("css selector", "#incidents li .evidence a")[-1]
    assert link.get_attribute("rel") == "noopener noreferrer" and link.get_attribute("target") == "_blank"
    first = browser.current_window_handle
    link.click()
    end = time.monotonic() + 10
    while time.monotonic() < end and len(browser.window_handles) < 2:
        time.sleep(0.05)
    other = [h for h in browser.window_handles if h != first][0]
    browser.switch_to.window(other)
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and "evidence" not in browser.current_url:
            time.sleep(0.05)
        time.sleep(0.5)
        assert browser.current_url.endswith("/evidence/001_ply001_retouch.json")
        assert browser.execute_script("return document.referrer") == ""
        assert browser.title != "pwned"                                    # shown as JSON text, never run
        assert browser.execute_script("return window.opener") is None
    finally:
        browser.close()
        browser.switch_to.window(first)
