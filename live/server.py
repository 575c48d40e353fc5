"""The live web server: pages, overlay, set-up view, /state.json, /game.pgn and the /events stream.

Why this shape: the recorder must never wait on a browser, so the server runs on its own
asyncio loop in its own thread (aiohttp) and learns the game only by tailing the journal,
exactly as a second machine reading a shared folder would. Each browser is a coroutine of
its own: a slow one delays nobody but itself. Read-only pages are open; anything that
changes the record (a ruling) needs the token printed at start.

How the arbiters' token is carried (the hall's hub uses the same functions, see `harden`):
- It is handed over once in a URL (`/?token=...`, printed at start). Any GET carrying `token` in
  its query is answered 303 to the same URL without it, setting an HttpOnly, SameSite=Strict cookie
  (`xq_token_<port>`: cookies do not tell ports apart; Path `/` here and for the hub's console, `/board/N`
  for a token handed over on one board's page of the hub). So the token never stays in the address bar, the history or a Referer, and no page
  script, evidence or extension content in the page can read it. A wrong token clears the cookie.
- A change (POST) needs all of: a JSON body (`Content-Type: application/json`, which no
  cross-site form can send without a CORS preflight we never grant); the token in the
  `X-XQ-Token` header (scripts, `curl`) or that cookie (the pages; never sent cross-site); and,
  when the request has an Origin header, an Origin whose host[:port] is the Host the request came
  to (403 otherwise; a sandboxed or foreign page sends another, or `null`). A token in the query
  string or in the body is not looked at.
- Every response says `Referrer-Policy: no-referrer` and `X-Content-Type-Options: nosniff`.
  Evidence is served only under the names a station writes (`*.jpg|png|webm|mp4|json`, a plain
  file name), with its own type and `Content-Security-Policy: sandbox`: a file that is really
  HTML or script runs nowhere, least of all in the pages' origin.
- aiohttp is told the longest request line and header (a longer one is answered 400 without a
  traceback on the console) and closes a connection that has not sent a whole request within
  HEADER_TIMEOUT_S seconds, so slow-header sockets cannot pile up; a JSON body must arrive within
  BODY_TIMEOUT_S.
"""
from __future__ import annotations

import asyncio
import functools
import hmac
import html
import json
import logging
import math
import re
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler, Middleware

from .board_svg import Glyphs, board_svg
from .engine import Analyser, EngineConfig, engine_fen
from .labels import LABELS, label
from .rulings import (Ruling, RulingError, parse_decision, parse_revises, record_correction, record_result,
                      record_ruling)
from .state import DelayedFold, LiveGame, event_time, game_pgn
from .tail import JournalTail

STATIC_DIR = Path(__file__).resolve().parent / "static"
EVENTS_NAME = "events.jsonl"
PGN_NAME = "game.pgn"
TOKEN_HEADER = "X-XQ-Token"
TOKEN_COOKIE = "xq_token"           # + "_<port>": a browser sends a host's cookies to all its ports
HEADER_TIMEOUT_S = 5.0              # a connection without a whole request by then is closed
BODY_TIMEOUT_S = 10.0               # a change's JSON body must have arrived by then
MAX_REQUEST_LINE = 8190             # bytes; a longer request line or header is answered 400
MAX_HEADER_FIELD = 8190
EVIDENCE_TYPES: dict[str, str] = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png",
                                  "webm": "video/webm", "mp4": "video/mp4", "json": "application/json"}
EVIDENCE_HEADERS: dict[str, str] = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
                                    "Cache-Control": "no-cache"}
_EVIDENCE_NAME = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.([a-z0-9]+)")


# ---------------------------------------------------------------------- hostile browsers and sockets
class _ClientFaultFilter(logging.Filter):
    """Drops aiohttp's report of a request the client got wrong (a line too long, a broken header).

    aiohttp answers those 400 itself; its report is a traceback per bad request on the operator's
    console, which helps nobody there and lets anyone on the network scroll the console away."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, HttpProcessingError)


HTTP_LOG = logging.getLogger("xqtrack.http")
HTTP_LOG.addFilter(_ClientFaultFilter())


def http_runner(app: web.Application) -> web.AppRunner:
    """The AppRunner every xqtrack server uses: bounded request lines and headers, connections that
    have sent no whole request closed after HEADER_TIMEOUT_S (aiohttp's keep-alive timer, which
    also runs from the moment a connection opens), no traceback for a client's malformed request."""
    return web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5,
                         keepalive_timeout=HEADER_TIMEOUT_S, max_line_size=MAX_REQUEST_LINE,
                         max_field_size=MAX_HEADER_FIELD, logger=HTTP_LOG)


def evidence_type(name: str) -> str | None:
    """The Content-Type of an evidence file a station writes under this name, or None for any other
    name (a path, a dot file, an extension no station writes, such as .html or .svg)."""
    m = _EVIDENCE_NAME.fullmatch(name)
    if m is None or len(name) > 160:
        return None
    return EVIDENCE_TYPES.get(m.group(1))


def evidence_response(folder: Path, name: str) -> web.StreamResponse:
    """An evidence file, inert: its own type, nosniff and a CSP sandbox, so even a file that is
    really a page runs no script in our origin; any other name is 404."""
    kind = evidence_type(name)
    path = folder / name
    if kind is None or path.is_symlink() or not path.is_file():
        raise web.HTTPNotFound(text=f"no evidence file {name[:80]!r} (a station writes .jpg, .png, .webm, .mp4, .json)",
                               headers={"Content-Security-Policy": "sandbox"})
    return web.FileResponse(path, headers={"Content-Type": kind, **EVIDENCE_HEADERS})


def token_cookie(request: web.BaseRequest) -> str:
    """The token cookie's name at the port the browser addressed (cookies ignore ports)."""
    return f"{TOKEN_COOKIE}_{request.url.port or 0}"


def given_token(request: web.BaseRequest) -> str:
    """The token a request carries: the X-XQ-Token header, else the page's cookie. Never the query
    string or the body (a cross-site form or a leaked URL could carry those)."""
    return request.headers.get(TOKEN_HEADER) or request.cookies.get(token_cookie(request)) or ""


def token_matches(given: str, token: str) -> bool:
    """In constant time, so the answer's timing does not spell the token out."""
    return hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


def same_origin(request: web.BaseRequest) -> bool:
    """False when the request names an Origin other than the Host it came to (`null` included):
    a browser adds Origin to every POST, so a page elsewhere, or a sandboxed file, is told apart."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and parts.netloc.lower() == (request.host or "").lower()


async def authorised_json(request: web.Request, token: str, what: str) -> dict[str, Any]:
    """The JSON object a change (POST) carries, once it is shown to come from the arbiters' own page
    or a script holding the token: same Origin (403), a JSON body (415), the token in the header or
    the cookie (403), the body within BODY_TIMEOUT_S (408) and a JSON object (400)."""
    if not same_origin(request):
        raise web.HTTPForbidden(text=f"{what}: refused, it comes from another site "
                                     f"(Origin {request.headers.get('Origin', '')[:80]!r})")
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text=f"{what}: the body must be JSON (Content-Type: application/json)")
    if not token_matches(given_token(request), token):
        raise web.HTTPForbidden(text=f"{what} needs the token printed when the server started, in the "
                                     f"{TOKEN_HEADER} header or the cookie its page sets")
    try:
        raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT_S)
    except asyncio.TimeoutError:
        raise web.HTTPRequestTimeout(text=f"{what}: the body did not arrive in {BODY_TIMEOUT_S:.0f} s") from None
    try:
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text=f"{what}: the body must be a JSON object")
    return body


def _token_handover(request: web.Request, token: str, path: str) -> web.Response:
    """303 to the same URL without `token`, keeping the token (when right) as an HttpOnly,
    SameSite=Strict cookie scoped to `path`; a wrong one clears the cookie."""
    rest = [(k, v) for k, v in request.query.items() if k != "token"]
    where = str(request.rel_url.with_query(rest))
    where = "/" + where.lstrip("/")          # never `//host`: this is no open redirect
    resp = web.Response(status=303, headers={"Location": where, "Cache-Control": "no-store"})
    if token_matches(request.query.get("token", ""), token):
        resp.set_cookie(token_cookie(request), token, path=path, httponly=True, samesite="Strict",
                        secure=request.secure)
    else:
        resp.del_cookie(token_cookie(request), path=path)
    return resp


def token_url_middleware(token: str, cookie_path: Callable[[web.Request], str]) -> Middleware:
    """Turns a GET that carries `?token=` into the cookie and a clean URL (see `_token_handover`)."""
    @web.middleware
    async def hand_over(request: web.Request, handler: Handler) -> web.StreamResponse:
        if ("token" in request.query and request.method in ("GET", "HEAD")
                and request.match_info.http_exception is None):
            return _token_handover(request, token, cookie_path(request))
        return await handler(request)
    return hand_over


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every response, errors and streams included: no Referer leaves our pages, no sniffing."""
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")


def harden(app: web.Application, token: str, cookie_path: Callable[[web.Request], str]) -> web.Application:
    """Give an application the token hand-over and the headers above (the live server's and the hub's)."""
    app.middlewares.append(token_url_middleware(token, cookie_path))
    app.on_response_prepare.append(security_headers)
    return app


@dataclass(frozen=True)
class ServerConfig:
    """Where and how to serve."""

    host: str = "127.0.0.1"
    port: int = 8080                 # 0: any free port (tests)
    poll_s: float = 0.02             # journal tail period, seconds (latency floor of every update)
    heartbeat_s: float = 15.0        # SSE comment sent to idle streams, seconds
    token: str | None = None         # None: a fresh random token
    delay_s: float = 0.0             # broadcast delay: the public sees the game as it stood this long ago
    engine: EngineConfig | None = None   # a UCI engine evaluates the positions shown (live/engine.py)


def parse_http(spec: str) -> tuple[str, int]:
    """'[HOST:]PORT' -> (host, port); host defaults to 127.0.0.1 (ValueError names the bad part)."""
    text = str(spec).strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--http {spec!r}: the port {port_text!r} is not a number (use [HOST:]PORT, e.g. 8080)") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"--http {spec!r}: port {port} is outside 0..65535")
    return host, port


def render_page(name: str, state: dict[str, Any] | None = None, query: Any = None) -> str:
    """A page template from live/static with its bilingual labels filled in (live/labels.py) and,
    given the state it opens on (with its `svg`), that state drawn in: the board, clocks, names and
    sync pill in the HTML, and the state itself inline (`window.XQ_STATE`) for the script to take
    up, so an overlay shows the position in its first frame, never an empty board or clocks."""
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    text = re.sub(r"\{\{label:(\w+)\}\}", lambda m: html.escape(label(m.group(1))), text)
    text = text.replace("{{labels_json}}", json.dumps(LABELS, ensure_ascii=False))
    values = page_values(state, query)
    return re.sub(r"\{\{(state_json|board_svg|body_class|seq|ply|sync|sync_text|red_name|black_name|red_time|"
                  r"black_time)\}\}", lambda m: values[m.group(1)], text)


def clock_text(ms: float | None) -> str:
    """A clock reading as the pages write it (live.js `fmt`): 9:58, 1:02:03, –:–– for none."""
    if ms is None:
        return "–:––"
    s = max(0, math.ceil(ms / 1000.0))
    h, m, r = s // 3600, (s // 60) % 60, s % 60
    return (f"{h}:{m:02d}" if h else f"{m}") + f":{r:02d}"


def page_values(state: dict[str, Any] | None, query: Any = None) -> dict[str, str]:
    """The values render_page puts in a page (HTML-escaped; the inline JSON made safe for <script>)."""
    q = query if query is not None else {}
    st = state or {}
    headers = st.get("headers") or {}
    clocks = st.get("clocks") or {}
    classes = []
    classes.append("layout-" + (re.sub(r"[^a-z-]", "", str(q.get("layout") or "")) or "board-clocks"))
    if str(q.get("status", "")).lower() in ("0", "false", "no", "off"):
        classes.append("no-status")
    if str(q.get("eval", "")).lower() in ("1", "true", "yes", "on"):
        classes.append("show-eval")
    if not st.get("clocks"):
        classes.append("no-clock")
    if not (headers.get("Red") or headers.get("Black")):
        classes.append("no-names")
    sync = str(st.get("sync") or "reading")
    inline = json.dumps(st, ensure_ascii=False) if state is not None else "null"
    inline = inline.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return {"state_json": inline, "board_svg": str(st.get("svg") or ""), "body_class": " ".join(classes),
            "seq": str(int(st.get("seq") or 0)), "ply": str(int(st.get("ply") or 0)),
            "sync": html.escape(re.sub(r"[^a-z_]", "", sync)), "sync_text": html.escape(label(sync) if sync in LABELS else sync),
            "red_name": html.escape(str(headers.get("Red") or "")),
            "black_name": html.escape(str(headers.get("Black") or "")),
            "red_time": clock_text(clocks.get("red_ms")) if clocks else "–:––",
            "black_time": clock_text(clocks.get("black_ms")) if clocks else "–:––"}


REVIEW_SCRIPT = b"<script src='/static/review.js' defer></script>"


def with_review_forms(page: bytes) -> bytes:
    """review.html as served to an arbiter (the token's cookie or header): with the script that adds
    the ruling, result and correction forms (live/static/review.js). The file on disk stays free of
    script; relative URLs, so the hub's /board/N/review.html posts to its own /board/N/ routes."""
    at = page.rfind(b"</body>")
    return page[:at] + REVIEW_SCRIPT + page[at:] if at >= 0 else page + REVIEW_SCRIPT


def _wall_ms(iso: str) -> float | None:
    try:
        return datetime.fromisoformat(iso).timestamp() * 1000.0
    except (TypeError, ValueError):
        return None


class LiveHub:
    """The journal as the server sees it: events with sequence numbers, the folded game, waiters.

    Two views of one journal: `game`, live, for the arbiters; and, under a broadcast delay
    (`delay_s` > 0), `public_game`: the same lines folded only once that long has passed since
    they happened (live.state.DelayedFold), for everyone else. Without a delay the two are one.
    With an engine (`analyser`, live/engine.py) each view's position is handed to it, and an
    evaluation, once ready, wakes the streams showing that position as a new line does.
    """

    def __init__(self, out_dir: Path, tail: JournalTail | None = None, *, delay_s: float = 0.0,
                 analyser: Analyser | None = None, eval_key: str = "") -> None:
        self.dir = out_dir
        self.tail = tail if tail is not None else JournalTail(out_dir / EVENTS_NAME)
        self.game = LiveGame()
        self.events: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.delayed: DelayedFold | None = DelayedFold(delay_s) if delay_s > 0 else None
        self.analyser = analyser
        self.eval_key = eval_key or str(out_dir)
        self.extra_headers: dict[str, str] = {}    # over the journal's (the hall's tournament file)
        self.version = 0                            # changes with whatever an arbiter's view shows
        self.public_version = 0                     # changes with whatever the public's view shows
        self._changed = asyncio.Event()
        self._svg_cache: dict[tuple[bool, int, bool, str], str] = {}
        self._state_cache: dict[bool, tuple[int, dict[str, Any]]] = {}

    # ------------------------------------------------------------------ the two views
    @property
    def delay_s(self) -> float:
        return self.delayed.delay_s if self.delayed is not None else 0.0

    @property
    def public_game(self) -> LiveGame:
        """What everyone without the token sees: the game as it stood `delay_s` ago."""
        return self.delayed.game if self.delayed is not None else self.game

    def view_game(self, arbiter: bool) -> LiveGame:
        return self.game if arbiter or self.delayed is None else self.delayed.game

    def view_version(self, arbiter: bool) -> int:
        """A number that changes whenever that view (state, board, evaluation) changes."""
        return self.version if arbiter or self.delayed is None else self.public_version

    def public_count(self) -> int:
        """How many of `events` the public may see (all of them without a delay)."""
        return self.delayed.count if self.delayed is not None else len(self.events)

    # ------------------------------------------------------------------ taking lines
    def poll(self, backlog: bool = False) -> bool:
        """Take what the journal gained; wakes the streams when there is something new. `backlog`:
        the journal as it stood at start (its lines go by their wall time under a delay)."""
        got = self.tail.poll()
        self.warnings.extend(got.warnings)
        return self.feed(got.events, backlog=backlog)

    def feed(self, events: list[dict[str, Any]], backlog: bool = False) -> bool:
        """Fold journal lines handed over by whoever reads them (the tail above, or the hall's hub,
        which receives each board's lines over MQTT); wakes the streams when there is something new.
        Call it on the server's loop. `backlog`: lines read back at start, not arriving now."""
        if not events:
            return False
        now = time.time()
        for e in events:
            try:
                seq = self.game.apply(e)
            except ValueError as exc:
                seq = self.game.seq
                self.warnings.append(str(exc))
            self.events.append({**e, "seq": seq})
            if self.delayed is not None:
                self.delayed.add(e, event_time(e, now, backlog))
        self.version += 1
        self._svg_cache.clear()
        if self.delayed is not None and self.delayed.release(now):
            self.public_version += 1
        self.ask_engine()
        self.wake()
        return True

    def release(self, now: float | None = None) -> bool:
        """Under a delay: show the public the lines whose time has come (call it often: the live
        server's poller, the hub's tick and each public stream do). True when the view changed."""
        if self.delayed is None or not self.delayed.release(time.time() if now is None else now):
            return False
        self.public_version += 1
        self._svg_cache.clear()
        self.ask_engine()
        self.wake()
        return True

    def next_release_s(self) -> float | None:
        """Seconds until the public's view next changes by itself (None: not before a new line)."""
        due = self.delayed.due() if self.delayed is not None else None
        return None if due is None else max(0.0, due - time.time())

    def ask_engine(self) -> None:
        if self.analyser is None:
            return
        self.analyser.want(self.eval_key, self.game.fen)
        if self.delayed is not None:
            self.analyser.want(self.eval_key + "/public", self.delayed.game.fen)

    def eval_ready(self, fen: str) -> None:
        """An evaluation came in (call on the loop): wake the streams showing that position."""
        target = engine_fen(fen)
        hit = False
        if engine_fen(self.game.fen) == target:
            self.version += 1
            hit = True
        if self.delayed is not None and engine_fen(self.delayed.game.fen) == target:
            self.public_version += 1
            hit = True
        if hit:
            self.wake()

    def wake(self) -> None:
        """Wake every stream waiting for a change (new events, or the server closing)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_change(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    # ------------------------------------------------------------------ what the pages draw
    def svg(self, flipped: bool = False, ply: int | None = None, arbiter: bool = False,
            glyphs: Glyphs = "text") -> str:
        """The diagram after `ply` (default: now); `glyphs="outline"` for an SVG served as an image,
        which cannot use the page's font (live/board_svg.py)."""
        game = self.view_game(arbiter)
        public = game is not self.game
        n = len(game.plies)
        ply = n if ply is None else max(0, min(ply, n))
        key = (public, ply, flipped, glyphs)
        if key not in self._svg_cache:
            last = game.plies[ply - 1].iccs if ply > 0 else None
            self._svg_cache[key] = board_svg(game.fen_at(ply), last, flipped=flipped, glyphs=glyphs)
        return self._svg_cache[key]

    def state(self, arbiter: bool = False) -> dict[str, Any]:
        """/state.json: the folded game, its clocks as of then (the running side counted down to
        now, or to `delay_s` ago in the public's delayed view), and the engine's evaluation."""
        game = self.view_game(arbiter)
        public = game is not self.game
        cached = self._state_cache.get(public)
        if cached is None or cached[0] != game.seq:
            cached = (game.seq, game.to_dict())   # folded once per change, not per client
            self._state_cache[public] = cached
        d = dict(cached[1])
        now_ms = (time.time() - (self.delay_s if public else 0.0)) * 1000.0
        clocks = d.get("clocks")
        if clocks is not None:
            clocks = dict(clocks)
            if game.ended:
                clocks["running"] = None
            age = 0.0
            at = _wall_ms(clocks.get("wall", ""))
            if clocks.get("running") in ("red", "black") and at is not None:
                age = max(0.0, now_ms - at)
                key = f"{clocks['running']}_ms"
                clocks[key] = max(0, int(clocks[key] - age))
            clocks["age_ms"] = int(age)
            d["clocks"] = clocks
        if self.extra_headers:
            d["headers"] = {**d.get("headers", {}), **self.extra_headers}
        d["warnings"] = list(game.warnings[-5:]) + list(self.warnings[-5:])
        if not arbiter:
            # review notes accuse nobody and are for the arbiter's eyes: weak evidence about a
            # player is not shown to the audience of a stream
            d["notes"] = []
        d["delay_s"] = self.delay_s
        d["delayed"] = public
        d["eval"] = self.analyser.view(game.fen) if self.analyser is not None else None
        return d


def _sse(data: str, event: str | None = None, ident: int | None = None) -> bytes:
    lines = []
    if event:
        lines.append(f"event: {event}")
    if ident is not None:
        lines.append(f"id: {ident}")
    lines.extend(f"data: {part}" for part in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


class LiveApp:
    """The aiohttp application for one recording folder."""

    def __init__(self, out_dir: str | Path, config: ServerConfig, hub: LiveHub | None = None) -> None:
        """`hub`: a LiveHub fed by its owner (the hall's hub feeds one per board from MQTT); without
        it the app makes its own at start-up and tails DIR/events.jsonl."""
        self.dir = Path(out_dir)
        self.config = config
        self.token = config.token or secrets.token_urlsafe(12)
        self.hub: LiveHub | None = hub
        self.fed = hub is not None     # fed by its owner (the hub): no recording folder of its own
        self.closing = False
        self.analyser: Analyser | None = None      # the engine this app started (config.engine)
        self._poller: asyncio.Task[None] | None = None

    def make_app(self) -> web.Application:
        app = harden(web.Application(), self.token, lambda request: "/")
        app.router.add_get("/", self._page("index.html"))
        app.router.add_get("/overlay", self._page("overlay.html"))
        app.router.add_get("/setup", self._page("setup.html"))
        app.router.add_get("/state.json", self.state_json)
        app.router.add_get("/game.pgn", self.game_pgn)
        app.router.add_get("/events", self.events)
        app.router.add_get("/board.svg", self.board)
        app.router.add_get("/setup.json", self._folder_file("setup.json", "application/json"))
        app.router.add_get("/setup.jpg", self._folder_file("setup.jpg", "image/jpeg"))
        app.router.add_get("/review.html", self._folder_file("review.html", "text/html"))
        app.router.add_get("/evidence/{name}", self.evidence)
        app.router.add_get("/session.json", self.session)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_post("/rule", self.rule)
        app.router.add_post("/result", self.result)
        app.router.add_post("/correct", self.correct)
        app.on_startup.append(self._startup)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _startup(self, app: web.Application) -> None:
        if self.hub is not None:      # fed by its owner: nothing to tail
            return
        loop = asyncio.get_running_loop()
        if self.config.engine is not None:
            # the engine's worker thread hands each finished evaluation to this loop, never the reverse
            def hand_over(fen: str) -> None:
                loop.call_soon_threadsafe(self._eval_ready, fen)
            self.analyser = Analyser(self.config.engine, on_result=hand_over).start()
        self.hub = LiveHub(self.dir, delay_s=self.config.delay_s, analyser=self.analyser, eval_key="live")
        self.hub.poll(backlog=True)
        self._poller = loop.create_task(self._poll_forever())

    def _eval_ready(self, fen: str) -> None:
        if self.hub is not None:
            self.hub.eval_ready(fen)

    async def _cleanup(self, app: web.Application) -> None:
        if self._poller is not None:
            self._poller.cancel()
            try:
                await self._poller
            except asyncio.CancelledError:
                pass
            self._poller = None
        if self.analyser is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.analyser.stop)
            self.analyser = None

    async def _poll_forever(self) -> None:
        assert self.hub is not None
        while True:
            try:
                self.hub.poll()
            except OSError as exc:   # a shared folder that blinked: try again next time
                self.hub.warnings.append(f"journal read failed: {exc}")
            self.hub.release()
            await asyncio.sleep(self.config.poll_s)

    def is_arbiter(self, request: web.BaseRequest) -> bool:
        """The request carries the arbiters' token (header or cookie): it sees the live game even
        under a broadcast delay."""
        return token_matches(given_token(request), self.token)

    def _delayed_for(self, request: web.BaseRequest) -> bool:
        """Under a broadcast delay and without the token: this request gets the public's view."""
        return self.hub is not None and self.hub.delayed is not None and not self.is_arbiter(request)

    def page_state(self, request: web.BaseRequest) -> dict[str, Any]:
        """The state a page opens on (the request's view, with the board drawn as it asks)."""
        assert self.hub is not None
        arbiter = self.is_arbiter(request)
        flipped = request.query.get("flip") in ("1", "true", "yes")
        st = self.hub.state(arbiter)
        # inside an HTML page an <svg> needs no namespace (and the page then names no http:// address)
        st["svg"] = self.hub.svg(flipped, arbiter=arbiter).replace(" xmlns='http://www.w3.org/2000/svg'", "", 1)
        return st

    async def page(self, name: str, request: web.Request) -> web.StreamResponse:
        """A live page with the current state drawn in (render_page); the hub's boards use it too."""
        state = self.page_state(request) if name != "setup.html" and self.hub is not None else None
        return web.Response(text=render_page(name, state, request.query), content_type="text/html",
                            charset="utf-8", headers={"Cache-Control": "no-cache"})

    def _live_only(self, request: web.BaseRequest, what: str) -> None:
        """Under a broadcast delay the camera's live frame (the set-up view) is for the arbiters."""
        if self._delayed_for(request):
            raise web.HTTPForbidden(text=f"{what} shows the board live: while the broadcast is delayed "
                                         f"({self.hub.delay_s if self.hub else 0:g} s) it needs the arbiters' token")

    # ------------------------------------------------------------------ pages and files
    def _page(self, name: str):
        async def handler(request: web.Request) -> web.StreamResponse:
            if name == "setup.html":
                self._live_only(request, "the set-up view")
            return await self.page(name, request)
        return handler

    def _folder_file(self, name: str, content_type: str):
        async def handler(request: web.Request) -> web.StreamResponse:
            if name.startswith("setup."):
                self._live_only(request, name)
            elif name == "review.html" and self._delayed_for(request):
                assert self.hub is not None
                if not self.hub.public_game.ended:
                    raise web.HTTPForbidden(text="the review shows every move: while the broadcast is delayed it "
                                                 "opens to all once the delayed view has reached the end")
            path = self.dir / name
            if not path.is_file():
                raise web.HTTPNotFound(text=f"{name} is not in {self.dir} yet")
            if name == "review.html" and self.is_arbiter(request):
                return web.Response(body=with_review_forms(path.read_bytes()), content_type=content_type,
                                    charset="utf-8", headers={"Cache-Control": "no-store"})
            return web.Response(body=path.read_bytes(), content_type=content_type,
                                charset="utf-8" if content_type.startswith(("text/", "application/json")) else None,
                                headers={"Cache-Control": "no-cache"})
        return handler

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC_DIR / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound(text=f"no static file {name!r}")
        return web.FileResponse(path)

    async def evidence(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name.startswith("note") and not self.is_arbiter(request):
            # a review note's images: the arbiter's alone (see `state`)
            raise web.HTTPNotFound(text=f"no evidence file {name[:80]!r}", headers={"Content-Security-Policy": "sandbox"})
        if self._delayed_for(request):
            # under a delay, only the evidence of incidents the public already sees (a still is the board live)
            assert self.hub is not None
            shown = {v for inc in self.hub.public_game.incidents for v in inc.evidence.values()}
            if f"evidence/{name}" not in shown:
                raise web.HTTPNotFound(text=f"no evidence file {name[:80]!r} in the delayed broadcast yet",
                                       headers={"Content-Security-Policy": "sandbox"})
        return evidence_response(self.dir / "evidence", name)

    async def session(self, request: web.Request) -> web.StreamResponse:
        """Whether this browser holds the arbiters' token (its HttpOnly cookie, which the page's
        script cannot read): the page shows the ruling buttons and the result form when it does."""
        # `setup`: whether this server has the set-up check (a station does; the hall's hub, fed
        # the journal over MQTT, has no camera frame, so its board pages hide that link)
        return web.json_response({"arbiter": token_matches(given_token(request), self.token),
                                  "setup": not self.fed},
                                 headers={"Cache-Control": "no-store"})

    async def state_json(self, request: web.Request) -> web.StreamResponse:
        assert self.hub is not None
        return web.json_response(self.hub.state(self.is_arbiter(request)),
                                 dumps=lambda o: json.dumps(o, ensure_ascii=False),
                                 headers={"Cache-Control": "no-cache"})

    async def game_pgn(self, request: web.Request) -> web.StreamResponse:
        if self._delayed_for(request):     # the recorder's file is live: the public gets the delayed fold's
            assert self.hub is not None
            notation = next((str(e["notation"]) for e in self.hub.events[:1] if isinstance(e.get("notation"), str)),
                            "chinese")
            game = self.hub.public_game
            text = game_pgn(game, {**game.headers, **self.hub.extra_headers}, notation)
            return web.Response(text=text, content_type="application/x-chess-pgn", charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        path = self.dir / PGN_NAME
        if not path.is_file():
            raise web.HTTPNotFound(text=f"no game.pgn in {self.dir} yet (the recorder writes it at the start)")
        return web.Response(body=path.read_bytes(), content_type="application/x-chess-pgn", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def board(self, request: web.Request) -> web.StreamResponse:
        assert self.hub is not None
        try:
            ply = int(request.query["ply"]) if "ply" in request.query else None
        except ValueError:
            raise web.HTTPBadRequest(text=f"ply {request.query['ply']!r} is not a number") from None
        flipped = request.query.get("flip") in ("1", "true", "yes")
        # points ringed (an incident's, or where the set-up view's reading differs)
        marks = tuple(m for m in request.query.get("marks", "").split(",") if re.fullmatch(r"[a-i]\d", m))
        # served as an image (<img>), which cannot load the page's font: characters as outlines
        if "fen" in request.query:   # any position, e.g. what the set-up view reads
            try:
                svg = board_svg(request.query["fen"], None, flipped=flipped, marks=marks, glyphs="outline")
            except ValueError as exc:
                raise web.HTTPBadRequest(text=f"fen: {exc}") from None
        elif marks:                  # an incident's position, its points ringed (the arbiters' console)
            g = self.hub.view_game(self.is_arbiter(request))
            at = len(g.plies) if ply is None else max(0, min(ply, len(g.plies)))
            svg = board_svg(g.fen_at(at), g.plies[at - 1].iccs if at > 0 else None, flipped=flipped,
                            marks=marks, glyphs="outline")
        else:
            svg = self.hub.svg(flipped, ply, self.is_arbiter(request), glyphs="outline")
        return web.Response(text=svg, content_type="image/svg+xml")

    # ------------------------------------------------------------------ push stream
    async def events(self, request: web.Request) -> web.StreamResponse:
        """SSE: every journal event as JSON (id = sequence number), from `?from=N`, Last-Event-ID
        + 1, or the start; with `?view=1` instead one `state` message per change (what the pages draw)."""
        assert self.hub is not None
        hub = self.hub
        view = request.query.get("view") in ("1", "true", "yes")
        flipped = request.query.get("flip") in ("1", "true", "yes")
        arbiter = self.is_arbiter(request)      # under a broadcast delay only the arbiters stream live
        public = hub.delayed is not None and not arbiter
        start = 1
        try:
            if "from" in request.query:
                start = max(1, int(request.query["from"]))
            elif request.headers.get("Last-Event-ID"):
                start = int(request.headers["Last-Event-ID"]) + 1
        except ValueError:
            raise web.HTTPBadRequest(text="from / Last-Event-ID must be a sequence number (1, 2, 3…)") from None
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
        await resp.prepare(request)
        sent = start - 1
        last_view = -1
        try:
            await resp.write(b"retry: 1000\n\n")
            while not self.closing:
                if public:
                    hub.release()
                if view:
                    if hub.view_version(arbiter) != last_view:
                        last_view = hub.view_version(arbiter)
                        payload = hub.state(arbiter)
                        payload["svg"] = hub.svg(flipped, arbiter=arbiter)
                        await resp.write(_sse(json.dumps(payload, ensure_ascii=False), "state",
                                              int(payload.get("seq") or 0)))
                else:
                    while sent < (hub.public_count() if public else len(hub.events)):
                        e = hub.events[sent]
                        sent += 1
                        await resp.write(_sse(json.dumps(e, ensure_ascii=False), None, int(e["seq"])))
                wait_s = self.config.heartbeat_s
                due = hub.next_release_s() if public else None
                if due is not None and due < wait_s:   # the delayed view moves on by itself then
                    wait_s = due + 0.01
                    if not await hub.wait_change(wait_s):
                        continue
                elif not await hub.wait_change(wait_s) and not self.closing:
                    await resp.write(b": keep-alive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return resp

    # ------------------------------------------------------------------ changes (token)
    async def rule(self, request: web.Request) -> web.StreamResponse:
        """The arbiter's ruling (token, JSON {incident, decision, note}): a `ruling` line in the journal."""
        body = await authorised_json(request, self.token, "a ruling")
        incident = str(body.get("incident", "")).strip()
        if not incident.isdigit():
            raise web.HTTPBadRequest(text=f"incident {body.get('incident')!r} is not an incident id (1, 2, 3…)")
        try:
            ruling = Ruling(int(incident), parse_decision(str(body.get("decision") or "")),
                            str(body.get("note") or ""), by=str(body.get("by") or "").strip() or "web",
                            revises=parse_revises(body.get("revises")))
        except (TypeError, ValueError) as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        loop = asyncio.get_running_loop()
        try:
            line = await loop.run_in_executor(None, record_ruling, self.dir, ruling)
        except RulingError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.json_response(line, dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def result(self, request: web.Request) -> web.StreamResponse:
        """The arbiter's result entry (token): a `game_end` line in the journal."""
        body = await authorised_json(request, self.token, "a result")
        loop = asyncio.get_running_loop()
        try:
            revises = parse_revises(body.get("revises"))
            line = await loop.run_in_executor(None, functools.partial(
                record_result, self.dir, str(body.get("result") or ""), str(body.get("reason") or ""),
                by=str(body.get("by") or "").strip() or "web", note=str(body.get("note") or ""), revises=revises))
        except RulingError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.json_response(line, dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def correct(self, request: web.Request) -> web.StreamResponse:
        """The arbiter's correction of the record (token, JSON {from_ply, moves, by, note}; moves a
        list or one string, in ICCS, WXF or Chinese): an `arbiter_correction` line in the journal,
        or 400 naming the ply and the move that is not legal."""
        from board.arbiter import split_moves

        body = await authorised_json(request, self.token, "a correction")
        ply = str(body.get("from_ply", "")).strip()
        if not ply.isdigit():
            raise web.HTTPBadRequest(text=f"from_ply {body.get('from_ply')!r} is not a ply (1, 2, 3…)")
        moves = body.get("moves")
        texts = split_moves(moves) if isinstance(moves, str) else [str(m) for m in (moves or [])]
        loop = asyncio.get_running_loop()
        try:
            line = await loop.run_in_executor(None, functools.partial(
                record_correction, self.dir, int(ply), texts, by=str(body.get("by") or "").strip() or "web",
                note=str(body.get("note") or "")))
        except RulingError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        return web.json_response(line, dumps=lambda o: json.dumps(o, ensure_ascii=False))


class LiveServer:
    """Runs a LiveApp on its own loop in a daemon thread: `start()` returns once it listens."""

    def __init__(self, out_dir: str | Path, config: ServerConfig | None = None) -> None:
        self.app = LiveApp(out_dir, config or ServerConfig())
        self.config = self.app.config
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def token(self) -> str:
        return self.app.token

    @property
    def url(self) -> str:
        host = self.config.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else (f"[{host}]" if ":" in host else host)
        return f"http://{shown}:{self.port}"

    def start(self, timeout: float = 10.0) -> "LiveServer":
        self._thread = threading.Thread(target=self._run, name="xqtrack-live", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the live server did not start in time")
        if self._error is not None:
            raise RuntimeError(f"cannot serve on {self.config.host}:{self.config.port}: {self._error}")
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            self._runner = http_runner(self.app.make_app())
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, self.config.host, self.config.port)
            loop.run_until_complete(site.start())
            server = getattr(site, "_server", None)
            sockets = getattr(server, "sockets", None) or []
            self.port = sockets[0].getsockname()[1] if sockets else self.config.port
        except BaseException as exc:   # reported by start() in the caller's thread
            self._error = exc
            if self._runner is not None:   # set up (the journal tail started) but could not listen
                loop.run_until_complete(self._runner.cleanup())
                self._runner = None
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Close every stream and the listening socket, then end the thread."""
        loop = self._loop
        if loop is not None and loop.is_running():
            fut = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
            try:
                fut.result(timeout)
            except (TimeoutError, RuntimeError, OSError, asyncio.CancelledError):  # best effort: the thread is a daemon
                pass
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout)

    async def _shutdown(self) -> None:
        self.app.closing = True
        if self.app.hub is not None:
            self.app.hub.wake()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def __enter__(self) -> "LiveServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
