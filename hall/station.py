"""A station: publishes its recording's journal, line by line, to the hall's broker.

Why a thread that reads the journal file: the journal is the truth and the recorder's loop must
never wait on the network. The recorder writes events.jsonl as it always does; this publisher
follows the file, sends each line with its line number (`seq`) at QoS 1, and keeps the number of
the last line the broker acknowledged. When the link drops, the recording goes on untouched;
when it is back, everything after the last acknowledged line is sent again from the file (a
repeat is harmless: the hub keeps one line per seq). Commands from the hub (resend from a seq, a
result, a ruling or a correction of the record entered by an arbiter) arrive on the board's command
topic and are checked and journalled here by live/rulings.py's own functions (a second result or
ruling must name the revision it revises; a correction's moves must be legal), so they come back to
the hub like every other line; review.html (and game.pgn, unless a recorder runs here and does it)
is rebuilt after each. A command that cannot be applied is said on the console and journalled as a
`command_refused` line naming it, so the console learns why from the board's own record.
"""
from __future__ import annotations

import collections
import json
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rules.bounded_read import JOURNAL_LINE_MAX_BYTES
from runtime.journal import GrowingJournal

from . import topics
from .brokerurl import BrokerURL
from .client import ClientConfig, make_client

EVENTS_NAME = "events.jsonl"
RESULTS = ("1-0", "0-1", "1/2-1/2")
RESULT_REASONS = ("resignation", "draw_agreed", "time_forfeit", "adjudication")


@dataclass(frozen=True)
class PublisherConfig:
    """How a station follows its journal and paces the broker (seconds, messages)."""

    poll_s: float = 0.02            # journal read period: the floor of the station's share of latency
    window: int = 100               # journal lines on the wire without their PUBACK
    state_every_s: float = 0.25     # the retained state message is refreshed at most this often
    evidence_wait_s: float = 60.0   # an evidence file named by an incident may appear this much later
    drain_s: float = 10.0           # at stop: the longest wait for the broker to take the backlog
    linger_s: float = 3.0           # then: time left for the hub to ask for lines it still lacks


@dataclass
class JournalLine:
    """One line of events.jsonl: its number and the event (None: the line does not read)."""

    seq: int
    event: dict[str, Any] | None


class JournalLines:
    """Complete lines of a growing journal with their line numbers (the station's seq)."""

    def __init__(self, path: Path, line_limit: int = JOURNAL_LINE_MAX_BYTES) -> None:
        self.path = path
        self.lines: list[JournalLine] = []
        self._journal = GrowingJournal(path, line_limit=line_limit)   # bounded, chunked reads

    def poll(self) -> list[JournalLine]:
        """Lines completed since the last call (a line is taken once its newline is written); a
        line longer than the limit is passed on as damaged (event None), in its place, so the line
        numbers (the station's seq) stay the journal's."""
        new = []
        for raw in self._journal.poll():
            line = JournalLine(len(self.lines) + 1, _journal_event(raw))
            self.lines.append(line)
            new.append(line)
        return new


def _journal_event(raw: bytes | None) -> dict[str, Any] | None:
    """A journal line's event, or None for a line that is not one (damaged, torn or too long)."""
    if raw is None:
        return None
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and "type" in obj else None


def game_id(lines: list[JournalLine]) -> str:
    """The recording's identity: the wall time of its first line (a new game on the board gets a new one)."""
    if lines and lines[0].event is not None:
        return str(lines[0].event.get("wall") or "")
    return ""


@dataclass
class PublishSummary:
    """What a station sent: journal lines, lines the broker acknowledged, messages sent in all."""

    lines: int = 0
    acked: int = 0
    sent: int = 0
    reconnects: int = 0
    commands: int = 0
    errors: list[str] = field(default_factory=list)


class StationPublisher:
    """Publishes DIR/events.jsonl for board `board` to the broker at `url`; start() / stop()."""

    def __init__(self, out_dir: str | os.PathLike[str], board: int, url: BrokerURL, *, ca_file: str | None = None,
                 config: PublisherConfig | None = None, client_config: ClientConfig | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.dir = Path(out_dir)
        self.board = topics.check_board(board)
        self.url = url
        self.config = config or PublisherConfig()
        self.say = say or (lambda s: print(s, file=sys.stderr, flush=True))
        self.journal = JournalLines(self.dir / EVENTS_NAME)
        self.summary = PublishSummary()
        self.client_config = client_config or ClientConfig()
        self.client = make_client(url, f"xqtrack-station-{self.board}", clean_session=False, ca_file=ca_file,
                                  config=self.client_config)
        self.client.will_set(topics.status_topic(self.board), b"offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._acks: collections.deque[int] = collections.deque()   # mids acknowledged (network thread -> ours)
        self._commands: queue.Queue[bytes] = queue.Queue()
        self._epoch = 0              # bumped by each (re)connection
        self._seen_epoch = 0
        self._connected = False
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._next = 1               # next seq to send
        self._acked = 0              # every seq up to this one has its PUBACK
        self._acked_set: set[int] = set()
        self._inflight: dict[int, int] = {}   # mid -> seq
        self._state_at = 0.0
        self._state_seq = -1
        self._evidence_due: dict[str, float] = {}   # evidence file -> give up after (monotonic s)
        self._evidence_sent: set[str] = set()
        self._done_commands: set[str] = set()
        self._drain_s = self.config.drain_s
        self._folded = FoldedLines()

    # ------------------------------------------------------------------ paho callbacks (network thread)
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if getattr(reason_code, "is_failure", False):
            self.summary.errors.append(f"broker {self.url.shown()} refused board {self.board}: {reason_code}")
            return
        client.subscribe(topics.command_topic(self.board), qos=1)
        client.publish(topics.status_topic(self.board), b"online", qos=1, retain=True)
        self._epoch += 1
        self._connected = True
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self._connected = False

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason_code: Any, properties: Any) -> None:
        self._acks.append(mid)
        self._wake.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._commands.put(bytes(message.payload))
        self._wake.set()

    # ------------------------------------------------------------------ life
    def start(self) -> "StationPublisher":
        """Connect in the background (a broker that is down is retried) and follow the journal."""
        self.client.connect_async(self.url.host, self.url.port, keepalive=self.client_config.keepalive_s)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"xqtrack-station-{self.board}", daemon=True)
        self._thread.start()
        return self

    def stop(self, drain_s: float | None = None) -> PublishSummary:
        """Send what is left of the journal (up to `drain_s`), say 'offline', disconnect."""
        self._drain_s = self.config.drain_s if drain_s is None else max(0.0, drain_s)
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(self._drain_s + self.config.linger_s + 2.0)
        try:
            if self._connected:
                info = self.client.publish(topics.status_topic(self.board), b"offline", qos=1, retain=True)
                info.wait_for_publish(1.0)
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()
        self.summary.lines = len(self.journal.lines)
        self.summary.acked = self._acked
        return self.summary

    def _run(self) -> None:
        drain_until: float | None = None
        linger_until: float | None = None
        while True:
            self.journal.poll()
            self._take_acks()
            self._take_commands()
            if self._connected:
                self._send_some()
                self._send_state()
                self._send_evidence()
            if self._stopping.is_set():
                now = time.monotonic()
                if drain_until is None:
                    drain_until = now + self._drain_s
                drained = self._acked >= len(self.journal.lines)
                if drained and linger_until is None:
                    if self._connected:
                        self._send_state(force=True)
                    linger_until = now + self.config.linger_s
                if now >= drain_until or (linger_until is not None and now >= linger_until):
                    return
            self._wake.wait(self.config.poll_s)
            self._wake.clear()

    # ------------------------------------------------------------------ sending (our thread only)
    def _take_acks(self) -> None:
        if self._epoch != self._seen_epoch:       # a new connection: resend all not acknowledged
            if self._seen_epoch:
                self.summary.reconnects += 1
            self._seen_epoch = self._epoch
            self._inflight.clear()
            self._next = self._acked + 1
            self._state_seq = -1          # the broker may have lost the retained state: say it again
        while self._acks:
            seq = self._inflight.pop(self._acks.popleft(), None)
            if seq is not None:
                self._acked_set.add(seq)
        while self._acked + 1 in self._acked_set:
            self._acked += 1
            self._acked_set.discard(self._acked)

    def _send_some(self) -> None:
        lines = self.journal.lines
        gid = game_id(lines)
        while self._next <= len(lines) and len(self._inflight) < self.config.window:
            line = lines[self._next - 1]
            if line.event is not None:
                self._note_evidence(line.event)
                body: dict[str, Any] = {"board": self.board, "seq": line.seq, "game": gid, "line": line.event}
            else:
                body = {"board": self.board, "seq": line.seq, "game": gid, "damaged": True}
            payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            info = self.client.publish(topics.event_topic(self.board), payload, qos=1)
            if info.rc != 0:          # not connected after all: try again on the next connection
                return
            self._inflight[info.mid] = line.seq
            self.summary.sent += 1
            self._next += 1

    def _note_evidence(self, event: dict[str, Any]) -> None:
        if event.get("type") not in ("incident", "review_note"):   # a note's images are for the hub's arbiters
            return
        for rel in (event.get("evidence") or {}).values():
            if isinstance(rel, str) and rel.startswith("evidence/") and rel.count("/") == 1:
                name = rel.split("/", 1)[1]
                if name not in self._evidence_sent:
                    self._evidence_due.setdefault(name, time.monotonic() + self.config.evidence_wait_s)

    def _send_evidence(self) -> None:
        now = time.monotonic()
        for name, until in list(self._evidence_due.items()):
            path = self.dir / "evidence" / name
            if path.is_file():
                try:
                    data = path.read_bytes()
                    self.client.publish(topics.evidence_topic(self.board, name), data, qos=1)
                except (OSError, ValueError) as exc:
                    self.summary.errors.append(f"evidence {name}: {exc}")
                self._evidence_sent.add(name)
                del self._evidence_due[name]
            elif now > until:
                del self._evidence_due[name]

    def _send_state(self, force: bool = False) -> None:
        now = time.monotonic()
        seq = len(self.journal.lines)
        if not force and (seq == self._state_seq or now - self._state_at < self.config.state_every_s):
            return
        body = station_state(self.board, self.journal.lines, self._folded)
        info = self.client.publish(topics.state_topic(self.board),
                                   json.dumps(body, ensure_ascii=False).encode("utf-8"), qos=1, retain=True)
        if info.rc == 0:
            self._state_seq, self._state_at = seq, now

    # ------------------------------------------------------------------ commands from the hub
    def _take_commands(self) -> None:
        while True:
            try:
                payload = self._commands.get_nowait()
            except queue.Empty:
                return
            self.summary.commands += 1
            try:
                self.handle_command(json.loads(payload.decode("utf-8")))
            except (ValueError, UnicodeDecodeError, OSError) as exc:
                msg = f"board {self.board}: command not applied: {exc}"
                self.summary.errors.append(msg)
                self.say(f"xqtrack station: warning: {msg}")

    def handle_command(self, cmd: Any) -> None:
        """Apply one command from the hub (ValueError names what is wrong with it)."""
        if not isinstance(cmd, dict):
            raise ValueError("a command is a JSON object")
        kind = cmd.get("type")
        if kind == "resend":
            start = int(cmd.get("from") or 1)
            self._next = max(1, min(self._next, start))
            return
        if kind not in ("result", "ruling", "correction"):
            raise ValueError(f"unknown command type {kind!r} (resend, result, ruling, correction)")
        cid = str(cmd.get("id") or "")
        if not cid:
            raise ValueError(f"{kind} command without an id")
        self.journal.poll()
        done = self._done_commands | {str(ln.event.get("command")) for ln in self.journal.lines
                                      if ln.event is not None and ln.event.get("command")}
        if cid in done:                  # delivered twice: journalled once
            return
        try:
            line = command_line(cmd, [ln.event for ln in self.journal.lines if ln.event is not None])
        except ValueError as exc:
            # journalled too (once, like the command would have been): the console shows why
            append_line(self.dir, {"type": "command_refused", "t": _last_t(self.journal.lines), "ply": 0,
                                   "command": cid, "kind": str(kind), "reason": str(exc)[:500]})
            self._done_commands.add(cid)
            self._wake.set()
            raise
        append_line(self.dir, line)
        self._done_commands.add(cid)
        _after_change(self.dir)
        self._wake.set()


def command_line(cmd: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The journal line for an arbiter's result, ruling or correction sent by the hub, made and
    checked by live/rulings.py as the command line and the pages' forms are (ValueError if it
    cannot be: a second result or ruling not naming the revision it revises, a move not legal)."""
    from board.arbiter import split_moves
    from live.rulings import (Ruling, RulingError, correction_line, parse_decision, parse_revises, result_line,
                              ruling_line)
    from live.state import fold

    game = fold(events)
    cid = str(cmd["id"])
    note = str(cmd.get("note") or "")
    by = str(cmd.get("by") or "arbiter")
    try:
        revises = parse_revises(cmd.get("revises"))
        if cmd["type"] == "result":
            result = str(cmd.get("result") or "")
            reason = str(cmd.get("reason") or "")
            if result not in RESULTS:
                raise ValueError(f"result {result!r} is not one of {', '.join(RESULTS)}")
            if not reason.strip() or len(reason) > 200:
                raise ValueError(f"result reason {reason!r}: say why in at most 200 characters "
                                 f"(the console offers {', '.join(RESULT_REASONS)})")
            line = result_line(game, result, reason, by=by, note=note, revises=revises)
        elif cmd["type"] == "correction":
            try:
                from_ply = int(cmd.get("from_ply"))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"correction command {cid}: from_ply {cmd.get('from_ply')!r} is not a ply") from None
            moves = cmd.get("moves")
            texts = split_moves(moves) if isinstance(moves, str) else [str(m) for m in (moves or [])]
            line = correction_line(game, from_ply, texts, by=by, note=note)
        else:
            try:
                incident = int(cmd.get("incident"))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"ruling command {cid}: incident {cmd.get('incident')!r} is not a number") from None
            if incident not in [i.id for i in game.incidents]:
                raise ValueError(f"ruling command {cid}: no incident {incident} in this board's journal")
            decision = parse_decision(str(cmd.get("decision") or ""))
            line = ruling_line(game, Ruling(incident, decision, note, by, revises=revises))
    except RulingError as exc:
        raise ValueError(f"{cmd['type']} command {cid}: {exc}") from None
    line["command"] = cid
    return line


def _last_t(lines: list[JournalLine]) -> float:
    for ln in reversed(lines):
        if ln.event is not None and isinstance(ln.event.get("t"), (int, float)):
            return float(ln.event["t"])
    return 0.0


def append_line(out_dir: Path, line: dict[str, Any]) -> None:
    """Journal one line beside a running recorder (appends are whole lines; no disk reserve of our own)."""
    from runtime.journal import DiskBudget, Journal

    with Journal(out_dir, DiskBudget(reserve_bytes=0)) as journal:
        journal.write(line)


def _after_change(out_dir: Path) -> None:
    """review.html, and game.pgn unless a recorder runs here, follow the arbiter's line (a failure
    leaves them to be rebuilt later: the journal holds the line)."""
    from live.rulings import after_change

    after_change(out_dir)


class FoldedLines:
    """The journal's game folded as lines arrive (once each), for the retained state message."""

    def __init__(self) -> None:
        from live.state import LiveGame
        self.game = LiveGame()
        self.taken = 0

    def update(self, lines: list[JournalLine]) -> Any:
        from live.state import JournalFoldError
        for ln in lines[self.taken:]:
            if ln.event is not None:
                try:
                    self.game.apply(ln.event)
                except JournalFoldError as exc:
                    self.game.warnings.append(str(exc))
        self.taken = len(lines)
        return self.game


def station_state(board: int, lines: list[JournalLine], folded: FoldedLines | None = None) -> dict[str, Any]:
    """The retained state message: the board's position, result and clocks, and its last seq."""
    game = (folded or FoldedLines()).update(lines)
    d = game.to_dict()
    return {"board": board, "seq": len(lines), "game": game_id(lines), "fen": d["fen"], "ply": d["ply"],
            "last_move": d["last_move"], "result": d["result"], "sync": d["sync"], "clocks": d["clocks"],
            "incidents": len(d["incidents"]), "headers": d["headers"]}
