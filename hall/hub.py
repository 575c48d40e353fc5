"""The hub: every board's journal from the broker, the live pages per board, the hall, the
broadcast PGN and the arbiters' console.

Why this shape: the hub is a mirror, never the truth. Each board's lines come in over MQTT with
the station's seq; hall.boardlog puts them in order once each and keeps a copy under --out, and
the live part's own LiveHub folds them, so `/board/N/state.json` and the pages are exactly the
live server's (live/server.py), fed from MQTT instead of a file. A restarted hub reads its copies
back, then the broker's queued messages, the stations' retained states and, for any gap, a
resend command fill in the rest. Arbiters' rulings and results go to the station as commands and
come back as journal lines like everything else, so the station's record holds them.
Whatever the broker passes on is checked first (hall/ingest.py: board range, sizes, seq types,
evidence names) and refused in one counted line (/ingest.json) before it touches a board; a new
game on a board sets the earlier one aside, still listed (/board/N/games.json) and broadcast.
Over HTTP the hub is hardened exactly as the live server is (live/server.py's docstring says how):
the console's `/arbiter?token=T` is answered 303 to `/arbiter` with an HttpOnly SameSite=Strict
cookie (Path /arbiter; /board/N for a board's page), so the token is never in a URL or a Referer
once a page is open; a ruling or result needs a JSON body, the token (X-XQ-Token header or that
cookie) and, when the request has an Origin, the hub's own; evidence is served only under the
names a station writes, typed by name, nosniff, CSP sandbox; every response says no-referrer.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import re
import secrets
import signal
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from email.utils import formatdate
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import web

from live.labels import fill_labels
from live.engine import Analyser, EngineConfig
from live.server import (STATIC_DIR, LiveApp, LiveHub, ServerConfig, authorised_json, given_token,
                         harden, http_runner, token_matches)
from live.state import game_pgn
from rules import Move

from . import topics
from .boardlog import BoardLog, GapPolicy, Refused
from .brokerurl import BrokerURL
from .client import ClientConfig, make_client
from .ingest import IngestLimits, Refusals, check_evidence, read_event, read_state, read_status
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
    board_range: tuple[int, int] = (1, 999)   # boards the hub takes (a folder and a card each)
    limits: IngestLimits = field(default_factory=IngestLimits)
    delay_s: float = 0.0              # broadcast delay: pages, hall, /broadcast.pgn show the games this long ago
    engine: EngineConfig | None = None   # one engine evaluates every board's shown position (live/engine.py)

    def __post_init__(self) -> None:
        lo, hi = self.board_range
        if not 1 <= lo <= hi < 10 ** topics.MAX_BOARD_DIGITS:
            raise ValueError(f"board range {lo}-{hi}: needs 1 <= first <= last < 10^{topics.MAX_BOARD_DIGITS}")

    def takes_board(self, board: int) -> bool:
        return self.board_range[0] <= board <= self.board_range[1]


@dataclass
class EarlierGame:
    """A game the station finished or left on a board before it began another (games/<k>/):
    what the board's game list and the broadcast need of it."""

    number: int
    game: str                         # the station's game id
    round: str                        # the PGN Round header when it was set aside
    plies: int
    result: str
    headers: dict[str, str]
    pgn_text: str

    def to_dict(self, board: int) -> dict[str, Any]:
        return {"number": self.number, "game": self.game, "round": self.round, "plies": self.plies,
                "result": self.result, "red": self.headers.get("Red", ""), "black": self.headers.get("Black", ""),
                "pgn": f"/board/{board}/game/{self.number}.pgn"}


def _notation(events: list[dict[str, Any]]) -> str:
    if events and isinstance(events[0].get("notation"), str):
        return str(events[0]["notation"])
    return "chinese"


def _write_game_pgn(folder: Path, live: LiveHub, headers: dict[str, str]) -> str:
    """Rewrite FOLDER/game.pgn from a folded game; returns its text."""
    from runtime.journal import write_game_pgn

    g = live.game
    moves = [Move.from_iccs(p.iccs) for p in g.plies]
    clocks = [p.clock_ms for p in g.plies]
    path = write_game_pgn(folder, headers, g.start_fen, moves, clocks, g.result, _notation(live.events))
    return path.read_text(encoding="utf-8")


class HubBoard:
    """One board in the hub: its ordered log, the live state folded from it, its pages."""

    def __init__(self, board: int, folder: Path, token: str, tournament: Tournament | None, fsync: bool,
                 limits: IngestLimits | None = None, delay_s: float = 0.0, analyser: Analyser | None = None) -> None:
        self.board = board
        self.dir = folder
        limits = limits or IngestLimits()
        self.log = BoardLog(board, folder, fsync=fsync, held=limits.held, max_earlier=limits.max_earlier)
        self.delay_s = delay_s
        self.analyser = analyser
        self.tournament = tournament
        self.live = self._new_live()
        self.app = LiveApp(folder, ServerConfig(token=token), hub=self.live)
        self.tournament = tournament
        self.status = "unknown"          # the station's retained online/offline
        self.station_state: dict[str, Any] = {}
        self.pgn_dirty = True
        self.pgn_text = ""
        self.updated = time.time()
        self.review: tuple[str, str] | None = None   # (game:lines it was made from, /board/N/review.html)
        self._public_pgn: tuple[int, str] = (-1, "")
        if self.log.lines:
            self.live.feed(list(self.log.lines), backlog=True)
        self.earlier: list[EarlierGame] = [self._load_earlier(f) for f in self.log.earlier_games()]

    def _new_live(self) -> LiveHub:
        """The board's folded game, with the hall's broadcast delay, engine and tournament names."""
        live = LiveHub(self.dir, delay_s=self.delay_s, analyser=self.analyser, eval_key=str(self.board))
        if self.tournament is not None:
            live.extra_headers = self.tournament.headers(self.board)
        return live

    def public_pgn(self) -> str:
        """The current game's PGN as the public may see it: under a broadcast delay, folded from the
        lines whose time has come (the hub's copy on disk, boards/N/game.pgn, stays live)."""
        if self.live.delayed is None:
            return self.pgn_text
        version = self.live.public_version
        if self._public_pgn[0] != version:
            g = self.live.public_game
            text = game_pgn(g, self.headers(), _notation(self.live.events)) if g.start_fen is not None else ""
            self._public_pgn = (version, text)
        return self._public_pgn[1]

    def set_aside(self, folder: Path) -> EarlierGame:
        """The station began another game: the old one (its copy already in `folder`) gets its
        final PGN and card there, and the board's pages start over with the new game."""
        old, headers = self.live, self.headers()
        self.live = self._new_live()            # first: the new game's lines must not fold onto the old
        self._public_pgn = (-1, "")
        self.app.hub = self.live
        self.pgn_text, self.pgn_dirty = "", True
        pgn = _write_game_pgn(folder, old, headers)
        game_file = folder / "game.id"
        gid = game_file.read_text(encoding="utf-8").strip() if game_file.exists() else ""
        g = old.game
        earlier = EarlierGame(int(folder.name), gid, headers.get("Round", ""), len(g.plies), g.result, headers, pgn)
        card = {k: v for k, v in asdict(earlier).items() if k != "pgn_text"}
        tmp = folder / ".game.json.tmp"
        tmp.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
        tmp.replace(folder / "game.json")
        self.earlier.append(earlier)
        return earlier

    def _load_earlier(self, folder: Path) -> EarlierGame:
        """A game set aside by a previous run; its PGN and card rebuilt from its copy when the
        run was killed before it wrote them."""
        try:
            card = json.loads((folder / "game.json").read_text(encoding="utf-8"))
            pgn = (folder / "game.pgn").read_text(encoding="utf-8")
            return EarlierGame(int(folder.name), str(card["game"]), str(card["round"]), int(card["plies"]),
                               str(card["result"]), dict(card["headers"]), pgn)
        except (OSError, ValueError, KeyError, TypeError):
            pass
        from runtime.journal import read_events

        live = LiveHub(folder)
        copy = folder / "events.jsonl"
        live.feed(read_events(copy)[0] if copy.exists() else [])
        headers = dict(live.game.headers)
        headers.setdefault("Board", str(self.board))
        pgn = _write_game_pgn(folder, live, headers) if live.game.start_fen is not None else ""
        game_file = folder / "game.id"
        gid = game_file.read_text(encoding="utf-8").strip() if game_file.exists() else ""
        return EarlierGame(int(folder.name), gid, headers.get("Round", ""), len(live.game.plies),
                           live.game.result, headers, pgn)

    def broadcast_texts(self) -> list[str]:
        """This board's games in the broadcast: those set aside in the current round, then the current one."""
        rnd = self.headers().get("Round", "")
        texts = [e.pgn_text for e in self.earlier if e.round == rnd and e.plies > 0 and e.pgn_text]
        current = self.public_pgn()
        return texts + ([current] if current else [])

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
        self.pgn_text = _write_game_pgn(self.dir, self.live, self.headers())
        self.pgn_dirty = False
        return self.pgn_text

    def summary(self) -> dict[str, Any]:
        """What the hall page shows for this board (the public's view: delayed under --delay)."""
        g = self.live.public_game
        st = self.live.state()
        last = g.plies[-1] if g.plies else None
        return {"board": self.board, "headers": self.headers(), "fen": g.fen, "ply": len(g.plies),
                "last_move": g.last_move, "last_chinese": last.chinese if last else "",
                "last_wxf": last.wxf if last else "", "last_side": last.side if last else "", "result": g.result, "end_reason": g.end_reason, "sync": g.sync,
                "clocks": st.get("clocks"), "incidents": len(g.incidents),
                "open_incidents": sum(1 for i in g.incidents if i.ruling is None and i.retracted is None),
                "status": self.status,
                "seq": len(self.log.lines), "station_seq": self.log.station_seq, "pending": len(self.log.pending),
                "held_bytes": self.log.held_bytes, "dropped": self.log.dropped,
                "earlier": [e.to_dict(self.board) for e in self.earlier]}


def _by(body: dict[str, Any]) -> str:
    """Who the console says is acting (its name field), else "arbiter"."""
    return str(body.get("by") or "").strip()[:80] or "arbiter"


def _checked(make: Callable[[int | None], dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    """Check a ruling or result on the hub's copy (live/rulings.py: a second one must name the
    revision it revises) and return what the command carries of it: {"revises": n} or nothing.
    400 with the reason when it cannot be."""
    from live.rulings import RulingError, parse_revises

    try:
        revises = parse_revises(body.get("revises"))
        make(revises)
    except RulingError as exc:
        raise web.HTTPBadRequest(text=str(exc)) from None
    return {"revises": revises} if revises is not None else {}


def _arbiter_view(b: "HubBoard") -> dict[str, Any]:
    """What the console shows of a board's arbiter's part: the results entered (the last stands),
    the corrections, the post-game moves, the plies (for the correction form) and the commands the
    station refused, with why."""
    g = b.live.game
    refused = [{"command": e.get("command"), "kind": e.get("kind"), "reason": e.get("reason"), "wall": e.get("wall")}
               for e in b.log.lines if e.get("type") == "command_refused"]
    return {"results_entered": [dict(r) for r in g.results],
            "result_revision": g.results[-1]["revision"] if g.results else None,
            "corrections": [dict(c) for c in g.corrections], "post_game": len(g.post_game),
            "moves": [{"ply": p.ply, "iccs": p.iccs, "chinese": p.chinese} for p in g.plies],
            "refused": refused[-5:]}


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
        self.refusals = Refusals(self.say)     # messages not taken, per reason (/ingest.json)
        self.broadcast_stale = False           # a game was set aside: the broadcast is rebuilt
        self._loop: asyncio.AbstractEventLoop | None = None
        # one engine for the hall, started with the loop (run); boards hand it their shown positions
        self.analyser: Analyser | None = (Analyser(self.config.engine, on_result=self._eval_ready_thread)
                                          if self.config.engine is not None else None)
        if tournament is not None:
            outside = [b for b in sorted(tournament.boards) if not self.config.takes_board(b)]
            if outside:
                lo, hi = self.config.board_range
                raise ValueError(f"the tournament's boards {', '.join(map(str, outside))} are outside the "
                                 f"hub's board range {lo}-{hi} (--board-range)")
        (self.dir / BOARDS_DIR).mkdir(parents=True, exist_ok=True)
        for sub in sorted((self.dir / BOARDS_DIR).iterdir()):   # a restart: the copies we kept
            if sub.is_dir() and topics.is_board_number(sub.name):
                if self.config.takes_board(int(sub.name)):
                    self.board(int(sub.name))
                else:
                    self.say(f"xqtrack hub: {sub} is outside the board range; not shown")
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
            b = HubBoard(n, self.dir / BOARDS_DIR / str(n), self.token, self.tournament, self.config.fsync,
                         self.config.limits, self.config.delay_s, self.analyser)
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
            try:
                topic = msg.topic
            except UnicodeDecodeError:            # brokers check topics are UTF-8; this one did not
                topic = ascii(bytes(getattr(msg, "_topic", b"")))
            loop.call_soon_threadsafe(self.on_message, topic, bytes(msg.payload))

    def on_message(self, topic: str, payload: bytes) -> None:
        """Handle one message from the broker (on the loop): taken, or refused (counted per reason,
        told in one line) without touching any board. Nothing a client publishes raises here."""
        try:
            self._take(topic, payload)
        except Refused as exc:
            self.refusals.refuse(exc.reason, topic, exc.detail)
        except OSError as exc:
            self.refusals.refuse("disk", topic, str(exc))
        except Exception as exc:   # noqa: BLE001 - the network's edge: one line, the hub goes on serving
            self.refusals.refuse("unexpected", topic, f"{type(exc).__name__}: {exc}")

    def _take(self, topic: str, payload: bytes) -> None:
        try:
            where = topics.read_board_topic(topic)
        except ValueError as exc:
            raise Refused("topic", str(exc)) from None
        if not self.config.takes_board(where.board):
            lo, hi = self.config.board_range
            raise Refused("board_range", f"board {where.board} is outside {lo}-{hi}")
        if where.kind == topics.EVENT:
            self._event(where.board, payload)
        elif where.kind == topics.STATE:
            self._state(where.board, payload)
        elif where.kind == topics.STATUS:
            status = read_status(payload)
            self.board(where.board).status = status
        elif where.kind == topics.EVIDENCE:
            self._evidence(where.board, where.name, payload)

    def _event(self, n: int, payload: bytes) -> None:
        msg = read_event(n, payload, self.config.limits)
        b = self.board(n)
        taken = b.log.receive(msg.seq, msg.line, msg.game, size=len(payload))
        if taken.set_aside is not None:
            self._set_aside(b, taken.set_aside)
        if taken.dropped:
            held = b.log.held
            self.refusals.refuse("held_full", topics.event_topic(n),
                                 f"board {n}: {taken.dropped} early line(s) let go at seq {msg.seq} (held back at "
                                 f"most {held.max_lines} lines, {held.max_bytes} bytes); asked for again later")
        if taken.lines:
            b.live.feed(taken.lines)
            b.pgn_dirty = True
            b.updated = time.time()

    def _set_aside(self, b: HubBoard, folder: Path) -> None:
        """A new game on board b: the earlier one listed (a disk error is told; a restart lists it)."""
        self._take_station_seq(b)
        self.broadcast_stale = True
        try:
            earlier = b.set_aside(folder)
        except OSError as exc:
            self.refusals.refuse("disk", topics.event_topic(b.board), f"the earlier game in {folder}: {exc}")
            return
        self.say(f"xqtrack hub: board {b.board}: a new game; the earlier one ({earlier.plies} plies) is kept "
                 f"as /board/{b.board}/game/{earlier.number}.pgn")

    def _state(self, n: int, payload: bytes) -> None:
        body = read_state(payload, self.config.limits)
        b = self.board(n)
        b.station_state = body
        self._take_station_seq(b)

    @staticmethod
    def _take_station_seq(b: HubBoard) -> None:
        """The station's last seq, from its retained state when that state is of the game the hub holds."""
        body = b.station_state
        if not body.get("game") or not b.log.game or body.get("game") == b.log.game:
            b.log.station_seq = int(body.get("seq") or 0)

    def _evidence(self, n: int, name: str, payload: bytes) -> None:
        check_evidence(name, payload, self.config.limits)
        self.board(n).log.store_evidence(name, payload)

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
            if b.live.release():          # under a broadcast delay, the public's view moved on
                changed = True
            if b.pgn_dirty and b.live.game.start_fen is not None:
                b.write_pgn()
                changed = True
        if changed or self.broadcast_stale or not self.broadcast.body:
            self.broadcast_stale = False
            texts = [t for n in sorted(self.boards) for t in self.boards[n].broadcast_texts()]
            if self.broadcast.update(texts):
                tmp = self.dir / ".broadcast.pgn.tmp"
                tmp.write_bytes(self.broadcast.body)
                tmp.replace(self.dir / "broadcast.pgn")

    # ------------------------------------------------------------------ HTTP
    def make_app(self) -> web.Application:
        """The hub's routes, hardened as the live server's are (live.server.harden: the token from a
        URL becomes a cookie for the whole hub (from the console) or /board/N, JSON + token + same Origin for changes,
        no Referer, evidence served inert)."""
        app = harden(web.Application(), self.token, self._cookie_path)
        r = app.router
        r.add_get("/", self._file_page("hall.html"))
        r.add_get("/hall.json", self.hall_json)
        r.add_get("/broadcast.pgn", self.broadcast_pgn)
        r.add_get("/arbiter", self._file_page("arbiter.html"))
        r.add_get("/arbiter/queue.json", self.arbiter_queue)
        r.add_post("/arbiter/rule", self.arbiter_rule)
        r.add_post("/arbiter/result", self.arbiter_result)
        r.add_post("/arbiter/correct", self.arbiter_correct)
        r.add_get("/static/{name}", self.static)
        r.add_get("/hall-static/{name}", self.hall_static)
        r.add_get("/board/{board}", self.board_redirect)
        r.add_get("/board/{board}/", self._live_page("index.html"))
        r.add_get("/board/{board}/overlay", self._live_page("overlay.html"))
        r.add_get("/board/{board}/review.html", self.board_review)
        r.add_get("/board/{board}/state.json", self._live("state_json"))
        r.add_get("/board/{board}/game.pgn", self.board_pgn)
        r.add_get("/board/{board}/events", self._live("events"))
        r.add_get("/board/{board}/board.svg", self._live("board"))
        r.add_get("/board/{board}/evidence/{name}", self._live("evidence"))
        r.add_get("/board/{board}/session.json", self._live("session"))
        r.add_post("/board/{board}/rule", self.board_rule)
        r.add_post("/board/{board}/result", self.board_result)
        r.add_post("/board/{board}/correct", self.board_correct)
        r.add_get("/board/{board}/games.json", self.board_games)
        r.add_get(r"/board/{board}/game/{number:\d+}.pgn", self.board_earlier_pgn)
        r.add_get("/ingest.json", self.ingest_json)
        return app

    @staticmethod
    def _cookie_path(request: web.Request) -> str:
        """Where the token's cookie goes: one board's pages for a token handed over there; the
        whole hub for the arbiters' console, whose diagrams, clips and board pages live under
        /board/N/ and must show the live game to the arbiters under a broadcast delay."""
        m = re.match(r"/board/(\d+)(?:/|$)", request.path)
        return f"/board/{m.group(1)}" if m else "/"

    def _board_of(self, request: web.Request) -> HubBoard:
        text = request.match_info["board"]
        if not text.isdigit() or int(text) not in self.boards:
            raise web.HTTPNotFound(text=f"no board {text!r} in this hall (boards: "
                                        f"{', '.join(str(n) for n in sorted(self.boards)) or 'none yet'})")
        return self.boards[int(text)]

    def _file_page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            text = fill_labels((HALL_STATIC / name).read_text(encoding="utf-8"))   # the labels, both languages
            return web.Response(text=text, content_type="text/html", charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        return handler

    def _live_page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            b = self._board_of(request)
            return await b.app.page(name, request)   # the board's state drawn in, as `xqtrack serve` does
        return handler

    def _live(self, method: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """A live server handler, run by the board's own LiveApp (the same code as `xqtrack serve`)."""
        async def handler(request: web.Request) -> web.StreamResponse:
            b = self._board_of(request)
            b.app.closing = self.closing
            result: web.StreamResponse = await getattr(b.app, method)(request)
            return result
        return handler

    async def board_review(self, request: web.Request) -> web.StreamResponse:
        """The arbiter's review of a board's game, rendered from the hub's copy of its journal (the
        station writes its own review.html, which never comes over MQTT); rebuilt when lines came."""
        b = self._board_of(request)
        lines = list(b.log.lines)
        if not b.app.is_arbiter(request):    # under a broadcast delay the public sees the game as it was then
            lines = lines[:b.live.public_count()]
        key = f"{b.log.game}:{len(lines)}"        # a new game on the board starts a new page
        if b.review is None or b.review[0] != key:
            from runtime.review import render_review

            loop = asyncio.get_running_loop()
            page = await loop.run_in_executor(None, render_review, lines, list(b.live.warnings[-5:]), b.dir,
                                              "DIR")   # commands on it name the station's folder, not our copy
            b.review = (key, page)
        if b.app.is_arbiter(request):        # the ruling, result and correction forms (live/static/review.js)
            from live.server import with_review_forms
            return web.Response(body=with_review_forms(b.review[1].encode("utf-8")), content_type="text/html",
                                charset="utf-8", headers={"Cache-Control": "no-store"})
        return web.Response(text=b.review[1], content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

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
        text = b.pgn_text if b.app.is_arbiter(request) else b.public_pgn()
        if not text:
            raise web.HTTPNotFound(text=f"board {b.board}: no game yet")
        return web.Response(text=text, content_type="application/x-chess-pgn", charset="utf-8",
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
    def _check_token(self, request: web.Request) -> None:
        """A read of the arbiters' queue: the token in the X-XQ-Token header or the console's cookie."""
        if not token_matches(given_token(request), self.token):
            raise web.HTTPForbidden(text="the arbiters' console needs the token printed when the hub started "
                                         "(open the console's URL printed then)")

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
                                 if isinstance(v, str) and v.startswith("evidence/") and v.count("/") == 1}
                items.append(d)
        items.sort(key=lambda d: (d["ruling"] is not None, d["wall"] or ""))
        games = [{"board": n, "headers": self.boards[n].headers(), "result": self.boards[n].live.game.result,
                  "end_reason": self.boards[n].live.game.end_reason, "ply": len(self.boards[n].live.game.plies),
                  "status": self.boards[n].status, **_arbiter_view(self.boards[n])} for n in sorted(self.boards)]
        return web.json_response({"incidents": items, "games": games, "results": list(RESULTS),
                                  "reasons": list(RESULT_REASONS)},
                                 dumps=lambda o: json.dumps(o, ensure_ascii=False))

    async def arbiter_rule(self, request: web.Request) -> web.StreamResponse:
        body = await authorised_json(request, self.token, "a ruling")
        return await self._send_ruling(body.get("board"), body)

    async def board_rule(self, request: web.Request) -> web.StreamResponse:
        """The live page's ruling buttons, per board (same body as live's /rule)."""
        b = self._board_of(request)
        body = await authorised_json(request, self.token, "a ruling")
        return await self._send_ruling(b.board, body)

    async def _send_ruling(self, board: Any, body: dict[str, Any]) -> web.StreamResponse:
        from live.rulings import Ruling, RulingError, parse_decision, ruling_line

        n = self._known_board(board)
        try:
            incident = int(str(body.get("incident")))
            decision = parse_decision(str(body.get("decision") or ""))
        except (ValueError, RulingError) as exc:
            raise web.HTTPBadRequest(text=f"ruling: {exc}") from None
        if incident not in [i.id for i in self.boards[n].live.game.incidents]:
            raise web.HTTPBadRequest(text=f"board {n} has no incident {incident}")
        checked = _checked(lambda revises: ruling_line(self.boards[n].live.game, Ruling(
            incident, decision, str(body.get("note") or ""), _by(body), revises=revises)), body)
        cmd = self.send_command(n, {"type": "ruling", "incident": incident, "decision": decision,
                                    "note": str(body.get("note") or ""), "by": _by(body), **checked})
        return web.json_response({"board": n, "command": cmd["id"], "sent": True}, status=202)

    async def arbiter_result(self, request: web.Request) -> web.StreamResponse:
        body = await authorised_json(request, self.token, "a result")
        n = self._known_board(body.get("board"))
        result, reason = str(body.get("result") or ""), str(body.get("reason") or "")
        if result not in RESULTS:
            raise web.HTTPBadRequest(text=f"result {result!r} is not one of {', '.join(RESULTS)}")
        if reason not in RESULT_REASONS:
            raise web.HTTPBadRequest(text=f"reason {reason!r} is not one of {', '.join(RESULT_REASONS)}")
        return self._send_result(n, result, reason, body)

    def _send_result(self, n: int, result: str, reason: str, body: dict[str, Any]) -> web.StreamResponse:
        """A result to board n's station, checked first on the hub's copy (a second one must name the
        revision it revises); the station checks it again on its own journal before writing it."""
        from live.rulings import result_line

        checked = _checked(lambda revises: result_line(self.boards[n].live.game, result, reason, by=_by(body),
                                                       note=str(body.get("note") or ""), revises=revises), body)
        cmd = self.send_command(n, {"type": "result", "result": result, "reason": reason,
                                    "note": str(body.get("note") or ""), "by": _by(body), **checked})
        return web.json_response({"board": n, "command": cmd["id"], "sent": True}, status=202)

    async def arbiter_correct(self, request: web.Request) -> web.StreamResponse:
        """The console's correction of a board's record: {board, from_ply, moves, by, note}."""
        body = await authorised_json(request, self.token, "a correction")
        return self._send_correction(self._known_board(body.get("board")), body)

    async def board_correct(self, request: web.Request) -> web.StreamResponse:
        """The live page's correction form, per board (same body as live's /correct)."""
        b = self._board_of(request)
        body = await authorised_json(request, self.token, "a correction")
        return self._send_correction(b.board, body)

    def _send_correction(self, n: int, body: dict[str, Any]) -> web.StreamResponse:
        """Check the arbiter's moves on the hub's copy (the error names the ply and the move), then
        send them to the station as ICCS, which journals them after checking them on its own record."""
        from board.arbiter import split_moves
        from live.rulings import RulingError, correction_line

        try:
            from_ply = int(str(body.get("from_ply")))
        except ValueError:
            raise web.HTTPBadRequest(text=f"correction: from_ply {body.get('from_ply')!r} is not a ply") from None
        moves = body.get("moves")
        texts = split_moves(moves) if isinstance(moves, str) else [str(m) for m in (moves or [])]
        try:
            line = correction_line(self.boards[n].live.game, from_ply, texts, by=_by(body),
                                   note=str(body.get("note") or ""))
        except RulingError as exc:
            raise web.HTTPBadRequest(text=f"board {n}: correction: {exc}") from None
        cmd = self.send_command(n, {"type": "correction", "from_ply": from_ply, "moves": line["moves"],
                                    "by": line["by"], "note": line["note"]})
        return web.json_response({"board": n, "command": cmd["id"], "sent": True, "moves": line["moves"]},
                                 status=202)

    async def board_result(self, request: web.Request) -> web.StreamResponse:
        """The live page's result form, per board (same body as live's /result: result and a reason in words)."""
        b = self._board_of(request)
        body = await authorised_json(request, self.token, "a result")
        result, reason = str(body.get("result") or ""), str(body.get("reason") or "").strip() or "adjudication"
        if result not in RESULTS:
            raise web.HTTPBadRequest(text=f"result {result!r} is not one of {', '.join(RESULTS)}")
        if len(reason) > 200:
            raise web.HTTPBadRequest(text="the reason is longer than 200 characters")
        return self._send_result(b.board, result, reason, body)

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
        runner = http_runner(self.make_app())
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
        if self.analyser is not None:
            self.analyser.start()
            for b in self.boards.values():
                b.live.ask_engine()
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
            if self.analyser is not None:
                await self._loop.run_in_executor(None, self.analyser.stop)
            self.tick(time.monotonic())
            self.client.disconnect()
            self.client.loop_stop()
            await runner.cleanup()
            for b in self.boards.values():
                b.log.close()

    def _eval_ready_thread(self, fen: str) -> None:
        """The engine finished a position (its worker thread): the boards showing it are told on the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._eval_ready, fen)

    def _eval_ready(self, fen: str) -> None:
        for b in self.boards.values():
            b.live.eval_ready(fen)

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    @property
    def url(self) -> str:
        host = self.config.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.port}"

    # ------------------------------------------------------------------ earlier games, what was refused
    async def board_games(self, request: web.Request) -> web.StreamResponse:
        """The board's games: the current one and those set aside when the station began another."""
        b = self._board_of(request)
        g = b.live.game
        body = {"board": b.board,
                "current": {"game": b.log.game, "plies": len(g.plies), "result": g.result,
                            "pgn": f"/board/{b.board}/game.pgn"},
                "earlier": [e.to_dict(b.board) for e in b.earlier]}
        return web.json_response(body, dumps=lambda o: json.dumps(o, ensure_ascii=False),
                                 headers={"Cache-Control": "no-cache"})

    async def board_earlier_pgn(self, request: web.Request) -> web.StreamResponse:
        """One game set aside on the board, as its PGN (its number from /board/N/games.json)."""
        b = self._board_of(request)
        number = int(request.match_info["number"])
        found = [e for e in b.earlier if e.number == number and e.pgn_text]
        if not found:
            raise web.HTTPNotFound(text=f"board {b.board}: no earlier game {number}")
        return web.Response(text=found[0].pgn_text, content_type="application/x-chess-pgn", charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def ingest_json(self, request: web.Request) -> web.StreamResponse:
        """Messages refused per reason, the limits they were held to, and each board's held-back lines."""
        lim = self.config.limits
        body = {"refused": self.refusals.to_dict(), "board_range": list(self.config.board_range),
                "limits": {"max_line_bytes": lim.max_line_bytes, "max_state_bytes": lim.max_state_bytes,
                           "max_evidence_bytes": lim.max_evidence_bytes, "max_seq": lim.max_seq,
                           "held_lines": lim.held.max_lines, "held_bytes": lim.held.max_bytes,
                           "max_earlier": lim.max_earlier},
                "boards": [{"board": n, "pending": len(b.log.pending), "held_bytes": b.log.held_bytes,
                            "dropped": b.log.dropped, "duplicates": b.log.duplicates, "earlier": len(b.earlier)}
                           for n, b in sorted(self.boards.items())]}
        return web.json_response(body, headers={"Cache-Control": "no-cache"})
