"""The live web server: pages, overlay, set-up view, /state.json, /game.pgn and the /events stream.

Why this shape: the recorder must never wait on a browser, so the server runs on its own
asyncio loop in its own thread (aiohttp) and learns the game only by tailing the journal,
exactly as a second machine reading a shared folder would. Each browser is a coroutine of
its own: a slow one delays nobody but itself. Read-only pages are open; anything that
changes the record (a ruling) needs the token printed at start.
"""
from __future__ import annotations

import asyncio
import hmac
import html
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from aiohttp import web

from .board_svg import board_svg
from .labels import LABELS, label
from .rulings import Ruling, RulingError, parse_decision, record_result, record_ruling
from .state import LiveGame
from .tail import JournalTail

STATIC_DIR = Path(__file__).resolve().parent / "static"
EVENTS_NAME = "events.jsonl"
PGN_NAME = "game.pgn"
TOKEN_HEADER = "X-XQ-Token"


@dataclass(frozen=True)
class ServerConfig:
    """Where and how to serve."""

    host: str = "127.0.0.1"
    port: int = 8080                 # 0: any free port (tests)
    poll_s: float = 0.02             # journal tail period, seconds (latency floor of every update)
    heartbeat_s: float = 15.0        # SSE comment sent to idle streams, seconds
    token: str | None = None         # None: a fresh random token


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


def render_page(name: str) -> str:
    """A page template from live/static with its bilingual labels filled in (live/labels.py)."""
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    text = re.sub(r"\{\{label:(\w+)\}\}", lambda m: html.escape(label(m.group(1))), text)
    return text.replace("{{labels_json}}", json.dumps(LABELS, ensure_ascii=False))


def _wall_ms(iso: str) -> float | None:
    try:
        return datetime.fromisoformat(iso).timestamp() * 1000.0
    except (TypeError, ValueError):
        return None


class LiveHub:
    """The journal as the server sees it: events with sequence numbers, the folded game, waiters."""

    def __init__(self, out_dir: Path, tail: JournalTail | None = None) -> None:
        self.dir = out_dir
        self.tail = tail if tail is not None else JournalTail(out_dir / EVENTS_NAME)
        self.game = LiveGame()
        self.events: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self._changed = asyncio.Event()
        self._svg_cache: dict[tuple[int, bool], str] = {}
        self._state_cache: tuple[int, dict[str, Any]] | None = None

    def poll(self) -> bool:
        """Take what the journal gained; wakes the streams when there is something new."""
        got = self.tail.poll()
        self.warnings.extend(got.warnings)
        return self.feed(got.events)

    def feed(self, events: list[dict[str, Any]]) -> bool:
        """Fold journal lines handed over by whoever reads them (the tail above, or the hall's hub,
        which receives each board's lines over MQTT); wakes the streams when there is something new.
        Call it on the server's loop."""
        if not events:
            return False
        for e in events:
            try:
                seq = self.game.apply(e)
            except ValueError as exc:
                seq = self.game.seq
                self.warnings.append(str(exc))
            self.events.append({**e, "seq": seq})
        self._svg_cache.clear()
        self.wake()
        return True

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

    def svg(self, flipped: bool = False, ply: int | None = None) -> str:
        n = len(self.game.plies)
        ply = n if ply is None else max(0, min(ply, n))
        key = (ply, flipped)
        if key not in self._svg_cache:
            last = self.game.plies[ply - 1].iccs if ply > 0 else None
            self._svg_cache[key] = board_svg(self.game.fen_at(ply), last, flipped=flipped)
        return self._svg_cache[key]

    def state(self) -> dict[str, Any]:
        """/state.json: the folded game, its clocks as of now (the running side counted down)."""
        if self._state_cache is None or self._state_cache[0] != self.game.seq:
            self._state_cache = (self.game.seq, self.game.to_dict())   # folded once per change, not per client
        d = dict(self._state_cache[1])
        clocks = d.get("clocks")
        if clocks is not None:
            clocks = dict(clocks)
            if self.game.ended:
                clocks["running"] = None
            age = 0.0
            at = _wall_ms(clocks.get("wall", ""))
            if clocks.get("running") in ("red", "black") and at is not None:
                age = max(0.0, time.time() * 1000.0 - at)
                key = f"{clocks['running']}_ms"
                clocks[key] = max(0, int(clocks[key] - age))
            clocks["age_ms"] = int(age)
            d["clocks"] = clocks
        d["warnings"] = list(self.game.warnings[-5:]) + list(self.warnings[-5:])
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
        self.closing = False
        self._poller: asyncio.Task[None] | None = None

    def make_app(self) -> web.Application:
        app = web.Application()
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
        app.router.add_get("/static/{name}", self.static)
        app.router.add_post("/rule", self.rule)
        app.router.add_post("/result", self.result)
        app.on_startup.append(self._startup)
        app.on_cleanup.append(self._cleanup)
        return app

    async def _startup(self, app: web.Application) -> None:
        if self.hub is not None:      # fed by its owner: nothing to tail
            return
        self.hub = LiveHub(self.dir)
        self.hub.poll()
        self._poller = asyncio.get_running_loop().create_task(self._poll_forever())

    async def _cleanup(self, app: web.Application) -> None:
        if self._poller is not None:
            self._poller.cancel()
            try:
                await self._poller
            except asyncio.CancelledError:
                pass
            self._poller = None

    async def _poll_forever(self) -> None:
        assert self.hub is not None
        while True:
            try:
                self.hub.poll()
            except OSError as exc:   # a shared folder that blinked: try again next time
                self.hub.warnings.append(f"journal read failed: {exc}")
            await asyncio.sleep(self.config.poll_s)

    # ------------------------------------------------------------------ pages and files
    def _page(self, name: str):
        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(text=render_page(name), content_type="text/html", charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        return handler

    def _folder_file(self, name: str, content_type: str):
        async def handler(request: web.Request) -> web.StreamResponse:
            path = self.dir / name
            if not path.is_file():
                raise web.HTTPNotFound(text=f"{name} is not in {self.dir} yet")
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
        path = self.dir / "evidence" / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound(text=f"no evidence file {name!r}")
        return web.FileResponse(path)

    async def state_json(self, request: web.Request) -> web.StreamResponse:
        assert self.hub is not None
        return web.json_response(self.hub.state(), dumps=lambda o: json.dumps(o, ensure_ascii=False),
                                 headers={"Cache-Control": "no-cache"})

    async def game_pgn(self, request: web.Request) -> web.StreamResponse:
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
        if "fen" in request.query:   # any position, e.g. what the set-up view reads, with points ringed
            marks = tuple(m for m in request.query.get("marks", "").split(",") if re.fullmatch(r"[a-i]\d", m))
            try:
                svg = board_svg(request.query["fen"], None, flipped=flipped, marks=marks)
            except ValueError as exc:
                raise web.HTTPBadRequest(text=f"fen: {exc}") from None
        else:
            svg = self.hub.svg(flipped, ply)
        return web.Response(text=svg, content_type="image/svg+xml")

    # ------------------------------------------------------------------ push stream
    async def events(self, request: web.Request) -> web.StreamResponse:
        """SSE: every journal event as JSON (id = sequence number), from `?from=N`, Last-Event-ID
        + 1, or the start; with `?view=1` instead one `state` message per change (what the pages draw)."""
        assert self.hub is not None
        hub = self.hub
        view = request.query.get("view") in ("1", "true", "yes")
        flipped = request.query.get("flip") in ("1", "true", "yes")
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
                if view:
                    if hub.game.seq != last_view:
                        last_view = hub.game.seq
                        payload = hub.state()
                        payload["svg"] = hub.svg(flipped)
                        await resp.write(_sse(json.dumps(payload, ensure_ascii=False), "state", last_view))
                else:
                    while sent < len(hub.events):
                        e = hub.events[sent]
                        sent += 1
                        await resp.write(_sse(json.dumps(e, ensure_ascii=False), None, int(e["seq"])))
                if not await hub.wait_change(self.config.heartbeat_s) and not self.closing:
                    await resp.write(b": keep-alive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return resp

    # ------------------------------------------------------------------ changes (token)
    async def _authorised_json(self, request: web.Request, what: str, shape: str) -> dict[str, Any]:
        """The request's JSON object, once its token is right (403 otherwise)."""
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise web.HTTPBadRequest(text=f"the {what} must be a JSON object {shape}") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text=f"the {what} must be a JSON object {shape}")
        given = request.headers.get(TOKEN_HEADER) or str(body.get("token") or "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise web.HTTPForbidden(text=f"a {what} needs the token printed when the server started")
        return body

    async def rule(self, request: web.Request) -> web.StreamResponse:
        body = await self._authorised_json(request, "ruling", "{incident, decision, note}")
        incident = str(body.get("incident", "")).strip()
        if not incident.isdigit():
            raise web.HTTPBadRequest(text=f"incident {body.get('incident')!r} is not an incident id (1, 2, 3…)")
        try:
            ruling = Ruling(int(incident), parse_decision(str(body.get("decision") or "")),
                            str(body.get("note") or ""), by="web")
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
        body = await self._authorised_json(request, "result", "{result, reason}")
        loop = asyncio.get_running_loop()
        try:
            line = await loop.run_in_executor(None, record_result, self.dir, str(body.get("result") or ""),
                                              str(body.get("reason") or ""))
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
            self._runner = web.AppRunner(self.app.make_app(), access_log=None, handle_signals=False,
                                         shutdown_timeout=0.5)
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
