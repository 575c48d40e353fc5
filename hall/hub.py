"""The hub: every board's journal from the broker, the live pages per board, the hall, the
broadcast PGN and the arbiters' console.

Why this shape: the hub is a mirror, never the truth. Each board's lines come in over MQTT with
the station's seq; hall.boardlog puts them in order once each and keeps a copy under --out, and
the live part's own LiveHub folds them, so `/board/N/state.json` and the pages are exactly the
live server's (live/server.py), fed from MQTT instead of a file. A restarted hub reads its copies
back, then the broker's queued messages, the stations' retained states and, for any gap, a
resend command fill in the rest. Arbiters' rulings and results go to the station as commands and
come back as journal lines like everything else, so the station's record holds them.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import web

from live.server import STATIC_DIR, LiveApp, LiveHub, ServerConfig, render_page
from rules import Move

from . import topics
from .boardlog import BoardLog, GapPolicy
from .brokerurl import BrokerURL
from .client import ClientConfig, make_client
from .station import RESULT_REASONS, RESULTS
from .tournament import Tournament

HALL_STATIC = Path(__file__).resolve().parent / "static"
BOARDS_DIR = "boards"
TOKEN_HEADER = "X-XQ-Token"


@dataclass(frozen=True)
class HubConfig:
    """Where the hub serves and how it keeps its copies (seconds)."""

    host: str = "127.0.0.1"
    port: int = 8080
    token: str | None = None          # None: a fresh random token, printed at start
    tick_s: float = 0.1               # PGN files and the broadcast are rewritten at most this often
    fsync: bool = False               # the station's journal is the truth; the hub's copy need not sync
    gap: GapPolicy = field(default_factory=GapPolicy)


class HubBoard:
    """One board in the hub: its ordered log, the live state folded from it, its pages."""

    def __init__(self, board: int, folder: Path, token: str, tournament: Tournament | None, fsync: bool) -> None:
        self.board = board
        self.dir = folder
        self.log = BoardLog(board, folder, fsync=fsync)
        self.live = LiveHub(folder)
        self.app = LiveApp(folder, ServerConfig(token=token), hub=self.live)
        self.tournament = tournament
        self.status = "unknown"          # the station's retained online/offline
        self.station_state: dict[str, Any] = {}
        self.pgn_dirty = True
        self.pgn_text = ""
        self.updated = time.time()
        if self.log.lines:
            self.live.feed(list(self.log.lines))

    def headers(self) -> dict[str, str]:
        """The game's PGN headers: the station's, then the tournament file's over them."""
        h = dict(self.live.game.headers)
        if self.tournament is not None:
            h.update(self.tournament.headers(self.board))
        else:
            h.setdefault("Board", str(self.board))
        return h

    def write_pgn(self) -> str:
        """Rewrite OUT/boards/N/game.pgn from the folded game; returns its text."""
        from runtime.journal import write_game_pgn

        g = self.live.game
        moves = [Move.from_iccs(p.iccs) for p in g.plies]
        clocks = [p.clock_ms for p in g.plies]
        notation = "chinese"
        if self.log.lines and isinstance(self.log.lines[0].get("notation"), str):
            notation = str(self.log.lines[0]["notation"])
        path = write_game_pgn(self.dir, self.headers(), g.start_fen, moves, clocks, g.result, notation)
        self.pgn_text = path.read_text(encoding="utf-8")
        self.pgn_dirty = False
        return self.pgn_text

    def summary(self) -> dict[str, Any]:
        """What the hall page shows for this board."""
        g = self.live.game
        st = self.live.state()
        return {"board": self.board, "headers": self.headers(), "fen": g.fen, "ply": len(g.plies),
                "last_move": g.last_move, "result": g.result, "end_reason": g.end_reason, "sync": g.sync,
                "clocks": st.get("clocks"), "incidents": len(g.incidents),
                "open_incidents": sum(1 for i in g.incidents if i.ruling is None and i.retracted is None),
                "status": self.status,
                "seq": len(self.log.lines), "station_seq": self.log.station_seq, "pending": len(self.log.pending)}


class Broadcast:
    """All games in one PGN, with the validators relays poll by (ETag, Last-Modified)."""

    def __init__(self) -> None:
        self.body = b""
        self.etag = '"0"'
        self.modified = time.time()

    def update(self, texts: list[str]) -> bool:
        body = "\n".join(t.rstrip("\n") + "\n" for t in texts).encode("utf-8")
        if body == self.body:
            return False
        self.body = body
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        self.modified = time.time()
        return True


class HallHub:
    """The hub process: an MQTT subscriber and an aiohttp server on one asyncio loop."""

    def __init__(self, out_dir: str | Path, broker: BrokerURL, *, tournament: Tournament | None = None,
                 config: HubConfig | None = None, ca_file: str | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.dir = Path(out_dir)
        self.config = config or HubConfig()
        self.token = self.config.token or secrets.token_urlsafe(12)
        self.tournament = tournament
        self.broker = broker
        self.say = say or (lambda s: print(s, file=sys.stderr, flush=True))
        self.boards: dict[int, HubBoard] = {}
        self.broadcast = Broadcast()
        self.connected = False
        self.closing = False
        self.port: int | None = None
        self.warnings: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        (self.dir / BOARDS_DIR).mkdir(parents=True, exist_ok=True)
        for sub in sorted((self.dir / BOARDS_DIR).iterdir()):   # a restart: the copies we kept
            if sub.is_dir() and sub.name.isdigit() and int(sub.name) >= 1:
                self.board(int(sub.name))
        if tournament is not None:
            for b in sorted(tournament.boards):
                self.board(b)
        self.client = make_client(broker, "xqtrack-hub", clean_session=False, ca_file=ca_file)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message_thread

    def board(self, n: int) -> HubBoard:
        b = self.boards.get(n)
        if b is None:
            b = HubBoard(n, self.dir / BOARDS_DIR / str(n), self.token, self.tournament, self.config.fsync)
            self.boards[n] = b
        return b

    # ------------------------------------------------------------------ MQTT (network thread -> loop)
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if getattr(reason_code, "is_failure", False):
            self.warnings.append(f"broker {self.broker.shown()} refused the hub: {reason_code}")
            self.say(f"xqtrack hub: broker {self.broker.shown()} refused the hub: {reason_code}")
            return
        client.subscribe(topics.ALL_BOARDS, qos=1)
        self.connected = True

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self.connected = False

    def _on_message_thread(self, client: Any, userdata: Any, msg: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.on_message, msg.topic, bytes(msg.payload))

    def on_message(self, topic: str, payload: bytes) -> None:
        """Handle one message from the broker (on the loop)."""
        where = topics.parse_board_topic(topic)
        if where is None:
            return
        try:
            if where.kind == topics.EVENT:
                self._event(where.board, payload)
            elif where.kind == topics.STATE:
                self._state(where.board, payload)
            elif where.kind == topics.STATUS:
                self.board(where.board).status = payload.decode("utf-8", "replace")[:20]
            elif where.kind == topics.EVIDENCE:
                self._evidence(where.board, where.name, payload)
        except (ValueError, OSError) as exc:
            msg = f"board {where.board}: {topic}: {exc}"
            self.warnings.append(msg)
            if len(self.warnings) > 200:
                del self.warnings[:100]

    def _event(self, n: int, payload: bytes) -> None:
        body = json.loads(payload.decode("utf-8"))
        if not isinstance(body, dict) or int(body.get("board", -1)) != n:
            raise ValueError("an event message names another board, or none")
        seq = int(body["seq"])
        line = body.get("line")
        if line is not None and not (isinstance(line, dict) and "type" in line):
            raise ValueError(f"line {seq} is not a journal event")
        b = self.board(n)
        taken = b.log.receive(seq, None if body.get("damaged") else line, str(body.get("game") or ""))
        if taken.lines:
            if len(b.log.lines) == len(taken.lines) and b.live.game.seq > 0:   # the station began a new game
                b.live = LiveHub(b.dir)
                b.app.hub = b.live
            b.live.feed(taken.lines)
            b.pgn_dirty = True
            b.updated = time.time()

    def _state(self, n: int, payload: bytes) -> None:
        body = json.loads(payload.decode("utf-8")) if payload else {}
        if not isinstance(body, dict):
            raise ValueError("a state message is a JSON object")
        b = self.board(n)
        b.station_state = body
        if not body.get("game") or not b.log.game or body.get("game") == b.log.game:
            b.log.station_seq = int(body.get("seq") or 0)

    def _evidence(self, n: int, name: str, payload: bytes) -> None:
        b = self.board(n)
        path = b.dir / "evidence" / name
        tmp = path.with_name("." + name + ".tmp")
        tmp.write_bytes(payload)
        tmp.replace(path)

    def send_command(self, n: int, cmd: dict[str, Any]) -> dict[str, Any]:
        """Publish a command to board `n`'s station (QoS 1: the broker keeps it for a station that is away)."""
        cmd = {**cmd, "id": cmd.get("id") or uuid.uuid4().hex[:12], "sent": time.time()}
        self.client.publish(topics.command_topic(n), json.dumps(cmd, ensure_ascii=False).encode("utf-8"), qos=1)
        if cmd["type"] != "resend":
            with open(self.dir / "commands.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps({"board": n, **cmd}, ensure_ascii=False) + "\n")
        return cmd

    # ------------------------------------------------------------------ periodic work
    async def _tick_forever(self) -> None:
        while not self.closing:
            try:
                self.tick(time.monotonic())
            except OSError as exc:    # a full or blinking disk: keep serving what we have
                self.warnings.append(f"writing the copies failed: {exc}")
            await asyncio.sleep(self.config.tick_s)

    def tick(self, now: float) -> None:
        """Ask for gaps, rewrite changed PGN files and the broadcast."""
        changed = False
        for n, b in self.boards.items():
            if self.connected:
                start = b.log.wants_resend(now, self.config.gap)
                if start is not None:
                    self.send_command(n, {"type": "resend", "from": start})
            if b.pgn_dirty and b.live.game.start_fen is not None:
                b.write_pgn()
                changed = True
        if changed or not self.broadcast.body:
            texts = [self.boards[n].pgn_text for n in sorted(self.boards) if self.boards[n].pgn_text]
            if self.broadcast.update(texts):
                tmp = self.dir / ".broadcast.pgn.tmp"
                tmp.write_bytes(self.broadcast.body)
                tmp.replace(self.dir / "broadcast.pgn")

    # ------------------------------------------------------------------ HTTP
    def make_app(self) -> web.Application:
        app = web.Application()
        r = app.router
        r.add_get("/", self._file_page("hall.html"))
        r.add_get("/hall.json", self.hall_json)
        r.add_get("/broadcast.pgn", self.broadcast_pgn)
        r.add_get("/arbiter", self._file_page("arbiter.html"))
        r.add_get("/arbiter/queue.json", self.arbiter_queue)
        r.add_post("/arbiter/rule", self.arbiter_rule)
        r.add_post("/arbiter/result", self.arbiter_result)
        r.add_get("/static/{name}", self.static)
        r.add_get("/hall-static/{name}", self.hall_static)
        r.add_get("/board/{board}", self.board_redirect)
        r.add_get("/board/{board}/", self._live_page("index.html"))
        r.add_get("/board/{board}/overlay", self._live_page("overlay.html"))
        r.add_get("/board/{board}/state.json", self._live("state_json"))
        r.add_get("/board/{board}/game.pgn", self.board_pgn)
        r.add_get("/board/{board}/events", self._live("events"))
        r.add_get("/board/{board}/board.svg", self._live("board"))
        r.add_get("/board/{board}/evidence/{name}", self._live("evidence"))
        r.add_post("/board/{board}/rule", self.board_rule)
        r.add_post("/board/{board}/result", self.board_result)
        return app

    def _board_of(self, request: web.Request) -> HubBoard:
        text = request.match_info["board"]
        if not text.isdigit() or int(text) not in self.boards:
            raise web.HTTPNotFound(text=f"no board {text!r} in this hall (boards: "
                                        f"{', '.join(str(n) for n in sorted(self.boards)) or 'none yet'})")
        return self.boards[int(text)]

    def _file_page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            text = (HALL_STATIC / name).read_text(encoding="utf-8")
            return web.Response(text=text, content_type="text/html", charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        return handler

    def _live_page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            self._board_of(request)
            return web.Response(text=render_page(name), content_type="text/html", charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        return handler

    def _live(self, method: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """A live server handler, run by the board's own LiveApp (the same code as `xqtrack serve`)."""
        async def handler(request: web.Request) -> web.StreamResponse:
            b = self._board_of(request)
            b.app.closing = self.closing
            result: web.StreamResponse = await getattr(b.app, method)(request)
            return result
        return handler

    async def board_redirect(self, request: web.Request) -> web.StreamResponse:
        b = self._board_of(request)
        raise web.HTTPFound(f"/board/{b.board}/")

    async def static(self, request: web.Request) -> web.StreamResponse:
        return await self._serve_static(STATIC_DIR, request.match_info["name"])

    async def hall_static(self, request: web.Request) -> web.StreamResponse:
        return await self._serve_static(HALL_STATIC, request.match_info["name"])

    async def _serve_static(self, folder: Path, name: str) -> web.StreamResponse:
        path = folder / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound(text=f"no static file {name!r}")
        return web.FileResponse(path)

    async def hall_json(self, request: web.Request) -> web.StreamResponse:
        t = self.tournament
        body = {"event": t.event if t else "", "round": t.round if t else "", "site": t.site if t else "",
                "date": t.date if t else "", "broker": self.broker.shown(), "connected": self.connected,
                "boards": [self.boards[n].summary() for n in sorted(self.boards)]}
        return web.json_response(body, dumps=lambda o: json.dumps(o, ensure_ascii=False),
                                 headers={"Cache-Control": "no-cache"})

    async def board_pgn(self, request: web.Request) -> web.StreamResponse:
        b = self._board_of(request)
        if b.pgn_dirty and b.live.game.start_fen is not None:
            b.write_pgn()
        if not b.pgn_text:
            raise web.HTTPNotFound(text=f"board {b.board}: no game yet")
        return web.Response(text=b.pgn_text, content_type="application/x-chess-pgn", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def broadcast_pgn(self, request: web.Request) -> web.StreamResponse:
        """All games; 304 when the client's ETag (or date) is current, so relays can poll every second."""
        bc = self.broadcast
        last_modified = formatdate(bc.modified, usegmt=True)
        headers = {"ETag": bc.etag, "Last-Modified": last_modified, "Cache-Control": "no-cache"}
        inm = request.headers.get("If-None-Match")
        if inm is not None:
            if bc.etag in [tag.strip() for tag in inm.split(",")] or inm.strip() == "*":
                return web.Response(status=304, headers=headers)
        else:
            ims = request.if_modified_since
            if ims is not None and int(bc.modified) <= int(ims.timestamp()):
                return web.Response(status=304, headers=headers)
        return web.Response(body=bc.body, content_type="application/x-chess-pgn", charset="utf-8", headers=headers)

    # ------------------------------------------------------------------ the arbiters (token)
    def _check_token(self, request: web.Request, body: dict[str, Any] | None = None) -> None:
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token") or str((body or {}).get("token") or "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise web.HTTPForbidden(text="the arbiters' console needs the token printed when the hub started")

    async def _json_body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise web.HTTPBadRequest(text="the request body must be a JSON object") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="the request body must be a JSON object")
        return body

    async def arbiter_queue(self, request: web.Request) -> web.StreamResponse:
        self._check_token(request)
        items = []
        for n in sorted(self.boards):
            b = self.boards[n]
            h = b.headers()
            for inc in b.live.game.incidents:
                d = inc.to_dict()
                d["board"] = n
                d["players"] = f"{h.get('Red', '?')} – {h.get('Black', '?')}"
                d["evidence"] = {k: f"/board/{n}/{v}" for k, v in inc.evidence.items()
                                 if isinstance(v, str) and v.startswith("evidence/")}
                items.append(d)
        items.sort(key=lambda d: (d["ruling"] is not None, d["wall"] or ""))
        games = [{"board": n, "headers": self.boards[n].headers(), "result": self.boards[n].live.game.result,
                  "end_reason": self.boards[n].live.game.end_reason, "ply": len(self.boards[n].live.game.plies),
                  "status": self.boards[n].status} for n in sorted(self.boards)]
        return web.json_response({"incidents": items, "games": games, "results": list(RESULTS),
                                  "reasons": list(RESULT_REASONS)},
                                 dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def arbiter_rule(self, request: web.Request) -> web.StreamResponse:
        body = await self._json_body(request)
        self._check_token(request, body)
        return await self._send_ruling(body.get("board"), body)

    async def board_rule(self, request: web.Request) -> web.StreamResponse:
        """The live page's ruling buttons, per board (same body as live's /rule)."""
        b = self._board_of(request)
        body = await self._json_body(request)
        self._check_token(request, body)
        return await self._send_ruling(b.board, body)

    async def _send_ruling(self, board: Any, body: dict[str, Any]) -> web.StreamResponse:
        from live.rulings import RulingError, parse_decision

        n = self._known_board(board)
        try:
            incident = int(str(body.get("incident")))
            decision = parse_decision(str(body.get("decision") or ""))
        except (ValueError, RulingError) as exc:
            raise web.HTTPBadRequest(text=f"ruling: {exc}") from None
        if incident not in [i.id for i in self.boards[n].live.game.incidents]:
            raise web.HTTPBadRequest(text=f"board {n} has no incident {incident}")
        cmd = self.send_command(n, {"type": "ruling", "incident": incident, "decision": decision,
                                    "note": str(body.get("note") or "")})
        return web.json_response({"board": n, "command": cmd["id"], "sent": True}, status=202)

    async def arbiter_result(self, request: web.Request) -> web.StreamResponse:
        body = await self._json_body(request)
        self._check_token(request, body)
        n = self._known_board(body.get("board"))
        result, reason = str(body.get("result") or ""), str(body.get("reason") or "")
        if result not in RESULTS:
            raise web.HTTPBadRequest(text=f"result {result!r} is not one of {', '.join(RESULTS)}")
        if reason not in RESULT_REASONS:
            raise web.HTTPBadRequest(text=f"reason {reason!r} is not one of {', '.join(RESULT_REASONS)}")
        cmd = self.send_command(n, {"type": "result", "result": result, "reason": reason,
                                    "note": str(body.get("note") or "")})
        return web.json_response({"board": n, "command": cmd["id"], "sent": True}, status=202)

    async def board_result(self, request: web.Request) -> web.StreamResponse:
        """The live page's result form, per board (same body as live's /result: result and a reason in words)."""
        b = self._board_of(request)
        body = await self._json_body(request)
        self._check_token(request, body)
        result, reason = str(body.get("result") or ""), str(body.get("reason") or "").strip() or "adjudication"
        if result not in RESULTS:
            raise web.HTTPBadRequest(text=f"result {result!r} is not one of {', '.join(RESULTS)}")
        if len(reason) > 200:
            raise web.HTTPBadRequest(text="the reason is longer than 200 characters")
        cmd = self.send_command(b.board, {"type": "result", "result": result, "reason": reason,
                                          "note": str(body.get("note") or "")})
        return web.json_response({"board": b.board, "command": cmd["id"], "sent": True}, status=202)

    def _known_board(self, board: Any) -> int:
        try:
            n = int(str(board))
        except ValueError:
            raise web.HTTPBadRequest(text=f"board {board!r} is not a number") from None
        if n not in self.boards:
            raise web.HTTPBadRequest(text=f"no board {n} in this hall")
        return n

    # ------------------------------------------------------------------ running
    async def run(self, duration_s: float | None = None, ready: Callable[["HallHub"], None] | None = None) -> None:
        """Connect to the broker, serve until `duration_s` passes, SIGTERM/SIGINT, or stop()."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        runner = web.AppRunner(self.make_app(), access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.config.port)
        await site.start()
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.config.port
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            try:
                self._loop.add_signal_handler(sig, self._stop.set)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=ClientConfig().keepalive_s)
        self.client.loop_start()
        ticker = self._loop.create_task(self._tick_forever())
        if ready is not None:
            ready(self)
        try:
            if duration_s is None:
                await self._stop.wait()
            else:
                try:
                    await asyncio.wait_for(self._stop.wait(), duration_s)
                except asyncio.TimeoutError:
                    pass
        finally:
            self.closing = True
            for b in self.boards.values():
                b.app.closing = True
                b.live.wake()
            ticker.cancel()
            self.tick(time.monotonic())
            self.client.disconnect()
            self.client.loop_stop()
            await runner.cleanup()
            for b in self.boards.values():
                b.log.close()

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    @property
    def url(self) -> str:
        host = self.config.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.port}"
