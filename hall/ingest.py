"""What the hub takes from the broker, and how it says what it would not take.

Why its own module: the broker passes on whatever any client with a password publishes, and a
station's bug, a tool pointed at the wrong topic or a stolen password can send anything. The hub
is the one place that stores it (a folder per board, a copy per journal, files served back to
browsers), so every message is checked against IngestLimits before it touches a board, and a
message that fails is refused: counted under a short reason and told in one line, never raised.

Reasons counted (Refusals.counts, served as /ingest.json):
    topic        not xqtrack/board/<N>/(event|state|status|evidence/<file>), N 1-9 ASCII digits
    board_range  a board outside HubConfig.board_range
    too_large    a payload above its limit (event line, state, status, evidence file)
    not_json     an event or state that is not UTF-8 JSON
    bad_event    an event that is not {"board": N, "seq": S, "game": G, "line": {...}} for its topic
    seq          `seq` not a whole number from 1 (null, a bool, a float, a string) or above max_seq
    bad_state    a state that is not an object with a whole `seq` from 0
    bad_status   a status other than "online" / "offline" (empty: unknown)
    evidence_name  not a plain file name of a kind a station sends (topics.check_evidence_name)
    games        a new game on a board that has max_earlier games set aside already
    held_full    an early line let go to keep the held-back lines bounded (asked for again later)
    disk         the hub could not write what it took (the message is lost; a resend fills it)
    unexpected   anything else a message made go wrong (a bug of the hub's: told with its type)
"""
from __future__ import annotations

import collections
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TypeGuard

from . import topics
from .boardlog import HeldLimits, Refused

STATUS_WORDS = ("online", "offline")


@dataclass(frozen=True)
class IngestLimits:
    """The most the hub takes in one message, and the most it holds per board."""

    max_line_bytes: int = 64 * 1024          # one event message (a journal line with its envelope)
    max_state_bytes: int = 64 * 1024         # the retained state message
    max_evidence_bytes: int = 16 * 2**20     # one evidence file (a few seconds of WebM, a full-size crop)
    max_seq: int = 10_000_000                # no journal has this many lines
    max_game_id: int = 100                   # characters of a game id (the first line's wall time)
    held: HeldLimits = field(default_factory=HeldLimits)
    max_earlier: int = 64                    # games set aside per board

    def __post_init__(self) -> None:
        sizes = (self.max_line_bytes, self.max_state_bytes, self.max_evidence_bytes, self.max_seq, self.max_game_id)
        if min(*sizes, self.max_earlier) < 1:
            raise ValueError(f"ingest limits must be above 0: {self}")


def parse_board_range(text: str, option: str = "--board-range") -> tuple[int, int]:
    """'1-999' -> (1, 999); a single number N is 1-N (ValueError naming the option)."""
    first, sep, last = text.strip().partition("-")
    parts = (first, last) if sep else ("1", first)
    if not all(topics.is_board_number(p.strip()) for p in parts):
        raise ValueError(f"{option} {text!r}: give FIRST-LAST, board numbers from 1 (e.g. 1-999)")
    lo, hi = (int(p) for p in parts)
    if lo > hi:
        raise ValueError(f"{option} {text!r}: the first board is above the last")
    return lo, hi


@dataclass(frozen=True)
class EventMessage:
    """One event message that passed its checks."""

    seq: int
    game: str
    line: dict[str, Any] | None          # None: a line the station could not read


def _json_object(payload: bytes, what: str) -> dict[str, Any]:
    try:
        body = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise Refused("not_json", f"the {what} is not UTF-8 JSON ({type(exc).__name__})") from None
    if not isinstance(body, dict):
        raise Refused("bad_event" if what == "event" else "bad_state", f"the {what} is not a JSON object")
    return body


def _whole(value: Any) -> TypeGuard[int]:
    """A JSON whole number: an int that is not a bool (True is 1 to Python) and not a float."""
    return isinstance(value, int) and not isinstance(value, bool)


def read_event(board: int, payload: bytes, limits: IngestLimits) -> EventMessage:
    """An event message for `board` checked field by field (Refused saying what is wrong)."""
    if len(payload) > limits.max_line_bytes:
        raise Refused("too_large", f"an event of {len(payload)} bytes (at most {limits.max_line_bytes})")
    body = _json_object(payload, "event")
    if not _whole(body.get("board")) or body["board"] != board:
        raise Refused("bad_event", f"names board {topics.shown(body.get('board'))}, its topic board {board}")
    seq = body.get("seq")
    if not _whole(seq) or not 1 <= seq <= limits.max_seq:
        raise Refused("seq", f"seq {topics.shown(seq)} is not a whole number from 1 to {limits.max_seq}")
    game = body.get("game", "")
    if not isinstance(game, str) or len(game) > limits.max_game_id:
        raise Refused("bad_event", f"game id {topics.shown(game)} is not text of at most {limits.max_game_id}")
    if body.get("damaged") is True:
        return EventMessage(seq, game, None)
    line = body.get("line")
    if not isinstance(line, dict) or not isinstance(line.get("type"), str):
        raise Refused("bad_event", f"line {seq} is not a journal event (an object with a 'type')")
    return EventMessage(seq, game, line)


def read_state(payload: bytes, limits: IngestLimits) -> dict[str, Any]:
    """A retained state message checked (an empty one, a cleared retained message, reads as {})."""
    if len(payload) > limits.max_state_bytes:
        raise Refused("too_large", f"a state of {len(payload)} bytes (at most {limits.max_state_bytes})")
    if not payload:
        return {}
    body = _json_object(payload, "state")
    seq = body.get("seq", 0)
    if not _whole(seq) or not 0 <= seq <= limits.max_seq:
        raise Refused("bad_state", f"seq {topics.shown(seq)} is not a whole number from 0 to {limits.max_seq}")
    if not isinstance(body.get("game", ""), str):
        raise Refused("bad_state", f"game id {topics.shown(body.get('game'))} is not text")
    return body


def read_status(payload: bytes) -> str:
    """The station's retained online/offline ("unknown" once the retained message is cleared)."""
    if not payload:
        return "unknown"
    word = payload.decode("utf-8", "replace") if len(payload) <= 16 else ""
    if word not in STATUS_WORDS:
        raise Refused("bad_status", f"status {topics.shown(payload)} is not one of {', '.join(STATUS_WORDS)}")
    return word


def check_evidence(name: str, payload: bytes, limits: IngestLimits) -> None:
    """An evidence file's name and size as a station sends them (Refused otherwise)."""
    try:
        topics.check_evidence_name(name)
    except ValueError as exc:
        raise Refused("evidence_name", str(exc)) from None
    if not 0 < len(payload) <= limits.max_evidence_bytes:
        raise Refused("too_large", f"evidence {name} of {len(payload)} bytes "
                                   f"(1 to {limits.max_evidence_bytes})")


class Refusals:
    """Refused messages counted per reason and told in one line each, at most `burst` lines per
    reason in `window_s` (a flood is told as a count when the next line for that reason goes out)."""

    def __init__(self, say: Callable[[str], None], window_s: float = 10.0, burst: int = 5) -> None:
        self.say = say
        self.window_s = window_s
        self.burst = burst
        self.counts: collections.Counter[str] = collections.Counter()
        self._told: dict[str, tuple[float, int, int]] = {}    # reason -> window start, told, held back

    def refuse(self, reason: str, topic: str, detail: str, now: float | None = None) -> None:
        """Count one refused message; say so unless this reason has said enough lately."""
        self.counts[reason] += 1
        now = time.monotonic() if now is None else now
        start, told, quiet = self._told.get(reason, (now, 0, 0))
        if now - start >= self.window_s:
            start, told = now, 0
        if told >= self.burst:
            self._told[reason] = (start, told, quiet + 1)
            return
        more = f" (+{quiet} more like it not shown)" if quiet else ""
        self.say(f"xqtrack hub: refused ({reason}) {topics.shown(topic, 80)}: {detail}{more}")
        self._told[reason] = (start, told + 1, 0)

    def to_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))
