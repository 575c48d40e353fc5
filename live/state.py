"""The live view of a game, folded from journal events (pure: no files, no sockets).

Why its own module: the live page, the overlay, `/state.json` and the review all show
the same game, and the journal is its single source of truth. Folding the events here,
one at a time and in order, means a server tailing a growing journal and a page built
from a finished one can never disagree about the position, the move list, the clocks or
which incident is which.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from board.events import (EVENT_TYPES, ClockEvent, EventFormatError, GameEndEvent, IncidentEvent, IncidentRetracted,
                          MoveEvent, TrackingEvent, event_from_dict, point_name)
from rules import START_FEN, Move, Position, RulesError
from rules.notation import format_move

from .rulings import RulingEvent

# Sync states as `/state.json` reports them, with the words the pages show (zh / en).
SYNC_READING = "reading"
SYNC_IN_SYNC = "in_sync"
SYNC_OUT_OF_SYNC = "out_of_sync"
SYNC_BOARD_LOST = "board_lost"
SYNC_ENDED = "ended"
SYNC_TEXT: dict[str, str] = {
    SYNC_READING: "reading…",
    SYNC_IN_SYNC: "in sync",
    SYNC_OUT_OF_SYNC: "out of sync: check the board",
    SYNC_BOARD_LOST: "board not seen: reading…",
    SYNC_ENDED: "recording ended",
}

# Tracking statuses (board/events.py TrackingEvent) and the sync state they lead to.
_STATUS_SYNC: dict[str, str] = {
    "started": SYNC_READING, "resumed": SYNC_READING, "board_found": SYNC_IN_SYNC,
    "resynced": SYNC_IN_SYNC, "corrected": SYNC_IN_SYNC, "out_of_sync": SYNC_OUT_OF_SYNC,
    "start_mismatch": SYNC_OUT_OF_SYNC, "board_lost": SYNC_BOARD_LOST,
    "source_ended": SYNC_ENDED, "interrupted": SYNC_ENDED, "source_error": SYNC_ENDED,
}


@dataclass
class PlyView:
    """One recorded ply as the pages show it."""

    ply: int
    iccs: str
    side: str
    chinese: str
    wxf: str
    fen: str                 # position after the move
    t: float                 # source seconds
    wall: str                # wall-clock ISO-8601 of the journal line
    frame: int | None = None
    corrected: bool = False
    inferred: bool = False
    clock_ms: int | None = None  # the mover's time left after the press that ended this turn

    def to_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "iccs": self.iccs, "side": self.side, "chinese": self.chinese,
                "wxf": self.wxf, "fen": self.fen, "t": self.t, "wall": self.wall, "frame": self.frame,
                "corrected": self.corrected, "inferred": self.inferred, "clock_ms": self.clock_ms}


@dataclass
class IncidentView:
    """One journalled incident, with the arbiter's ruling once there is one."""

    id: int
    kind: str
    side: str | None
    ply: int
    t: float
    wall: str
    points: list[str]
    detail: str
    frames: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    ruling: dict[str, Any] | None = None
    retracted: dict[str, Any] | None = None   # {"reason", "t", "wall", "ply"} once a correction withdrew it

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "side": self.side, "ply": self.ply, "t": self.t,
                "wall": self.wall, "points": list(self.points), "detail": self.detail,
                "frames": dict(self.frames), "evidence": dict(self.evidence), "ruling": self.ruling,
                "retracted": dict(self.retracted) if self.retracted is not None else None}


@dataclass
class ClockView:
    """The clock as last reported: time left per side (ms) and whose time is running.

    `wall` is when that reading was journalled, so a page can count the running side down
    between presses without the server pushing every second.
    """

    red_ms: int
    black_ms: int
    running: str | None
    t: float
    wall: str

    def to_dict(self) -> dict[str, Any]:
        return {"red_ms": self.red_ms, "black_ms": self.black_ms, "running": self.running,
                "t": self.t, "wall": self.wall}


class JournalFoldError(ValueError):
    """A journal event that cannot be applied (the message names its sequence number)."""


class LiveGame:
    """Folds journal events, in order, into what the live pages show.

    Each event gets a sequence number (1, 2, 3…: its place among the journal's events),
    the number `/events` uses to resume a stream.
    """

    def __init__(self) -> None:
        self.seq = 0
        self.start_fen: str | None = None
        self.headers: dict[str, str] = {}
        self.plies: list[PlyView] = []
        self.incidents: list[IncidentView] = []
        self.sync = SYNC_READING
        self.sync_detail = ""
        self.clocks: ClockView | None = None
        self.result = "*"
        self.end_reason = ""
        self.ended = False
        self.last_t = 0.0
        self.last_wall = ""
        self.warnings: list[str] = []
        self._pos: Position | None = None
        self._positions: list[Position] = []   # position before each ply (index = ply - 1)

    # ------------------------------------------------------------------ folding
    def apply(self, event: Mapping[str, Any]) -> int:
        """Apply the next journal line (as json.loads gives it); returns its sequence number.

        Lines are read back through board.events' typed events (a ruling through live.rulings);
        a line that does not read, or a move that does not follow, raises JournalFoldError
        naming the sequence number, after which the game goes on from the next line.
        """
        self.seq += 1
        typ = event.get("type")
        self.last_wall = str(event.get("wall") or self.last_wall)
        try:
            if typ == "ruling":
                self._ruling(RulingEvent.from_dict(event))
                return self.seq
            if typ not in EVENT_TYPES:
                return self.seq              # a line type from a later version: kept in /events only
            ev = event_from_dict(event)
        except (EventFormatError, RulesError, ValueError) as exc:
            raise JournalFoldError(f"event {self.seq}: {exc}") from None
        self.last_t = max(self.last_t, float(ev.t))
        if isinstance(ev, TrackingEvent):
            self._tracking(ev)
        elif isinstance(ev, MoveEvent):
            self._move(ev)
        elif isinstance(ev, IncidentEvent):
            self._incident(ev)
        elif isinstance(ev, IncidentRetracted):
            self._retracted(ev)
        elif isinstance(ev, ClockEvent):
            self._clock(ev)
        elif isinstance(ev, GameEndEvent):
            self.result = ev.result or self.result
            self.end_reason = ev.reason
        return self.seq

    def _tracking(self, e: TrackingEvent) -> None:
        status = str(e.status)
        if status == "started" and e.fen and self.start_fen is None:
            self.start_fen = e.fen
            self.headers = e.headers
            self._pos = Position.from_fen(self.start_fen)
        if status == "corrected":
            self._truncate(e.ply - 1)
        if status in _STATUS_SYNC:
            self.sync = _STATUS_SYNC[status]
            self.sync_detail = e.detail
        if status in ("started", "resumed"):
            self.ended = False
        if self.sync == SYNC_ENDED:
            self.ended = True

    def _truncate(self, keep: int) -> None:
        """Drop plies after `keep` (a correction re-states them)."""
        keep = max(0, keep)
        if len(self.plies) > keep:
            self._pos = self._positions[keep].copy()
            del self.plies[keep:]
            del self._positions[keep:]

    def _ensure_pos(self) -> Position:
        if self._pos is None:  # a journal without its 'started' line: assume the standard start
            self.start_fen = START_FEN
            self._pos = Position()
        return self._pos

    def _move(self, e: MoveEvent) -> None:
        ply, iccs = e.ply, e.iccs
        if ply < 1:
            raise JournalFoldError(f"event {self.seq}: a move event without a ply number ({iccs!r})")
        if ply <= len(self.plies):
            self._truncate(ply - 1)   # a re-stated ply replaces the recorded one
        if ply != len(self.plies) + 1:
            raise JournalFoldError(f"event {self.seq}: move for ply {ply} follows ply {len(self.plies)}")
        pos = self._ensure_pos()
        try:
            move = Move.from_iccs(iccs)
            chinese = format_move(pos, move, "chinese")
            wxf = format_move(pos, move, "wxf")
        except ValueError as exc:  # rules' errors are ValueErrors naming what does not follow
            raise JournalFoldError(f"event {self.seq}: move {iccs!r} at ply {ply} does not follow: {exc}") from None
        self._positions.append(pos.copy())
        pos.push(move)
        self.plies.append(PlyView(ply, iccs, str(e.side), chinese, wxf, pos.fen(), float(e.t), e.wall or "",
                                  e.frame_index if e.frame_index >= 0 else None, e.corrected, e.inferred))
        if self.sync in (SYNC_READING, SYNC_BOARD_LOST):
            self.sync = SYNC_IN_SYNC
            self.sync_detail = ""

    def _incident(self, e: IncidentEvent) -> None:
        # ids are the incident's place in the journal (1, 2, 3…); a journalled id is kept
        ident = _int_or_none(e.extra.get("id")) or len(self.incidents) + 1
        self.incidents.append(IncidentView(
            ident, e.kind, str(e.side) if e.side is not None else None, e.ply, float(e.t), e.wall or "",
            [point_name(p) for p in e.points], e.detail, dict(e.frames), dict(e.evidence)))

    def _retracted(self, e: IncidentRetracted) -> None:
        for inc in self.incidents:
            if inc.id == e.incident:
                inc.retracted = {"reason": e.reason, "t": float(e.t), "wall": e.wall or "", "ply": e.ply}
                return
        self.warnings.append(f"event {self.seq}: retraction of incident {e.incident}, which the journal does not hold")

    def _clock(self, e: ClockEvent) -> None:
        rem = e.remaining_ms
        if "red" not in rem or "black" not in rem:
            return
        side = str(e.side) if e.side is not None else None
        running = self.clocks.running if self.clocks is not None else None
        if e.kind == "press" and side in ("red", "black"):
            running = "black" if side == "red" else "red"
            # the press that ends a turn gives that side's last move its %clk (as the PGN does)
            for p in reversed(self.plies):
                if p.side == side:
                    if p.clock_ms is None:
                        p.clock_ms = int(rem[side])
                    break
        elif e.kind == "start" and side in ("red", "black"):
            running = side
        elif e.kind in ("pause", "flag", "config"):
            running = None
        self.clocks = ClockView(int(rem["red"]), int(rem["black"]), running, float(e.t), e.wall or "")

    def _ruling(self, e: RulingEvent) -> None:
        self.last_t = max(self.last_t, e.t)
        for inc in self.incidents:
            if inc.id == e.incident:
                inc.ruling = {"decision": e.decision, "note": e.note, "wall": e.wall or "", "by": e.by}
                return
        self.warnings.append(f"event {self.seq}: ruling for incident {e.incident}, which the journal does not hold")

    # ------------------------------------------------------------------ reading
    @property
    def fen(self) -> str:
        return self._pos.fen() if self._pos is not None else (self.start_fen or START_FEN)

    @property
    def moves(self) -> list[str]:
        return [p.iccs for p in self.plies]

    @property
    def last_move(self) -> str | None:
        return self.plies[-1].iccs if self.plies else None

    def fen_at(self, ply: int) -> str:
        """The position after `ply` plies (0 = the start)."""
        if ply <= 0:
            return self.start_fen or START_FEN
        return self.plies[min(ply, len(self.plies)) - 1].fen

    def to_dict(self) -> dict[str, Any]:
        """What `/state.json` serves (and the pages draw)."""
        return {
            "fen": self.fen, "start_fen": self.start_fen or START_FEN, "moves": self.moves,
            "last_move": self.last_move, "ply": len(self.plies),
            "turn": "red" if self.fen.split()[1] in ("w", "r") else "black",
            "clocks": self.clocks.to_dict() if self.clocks is not None else None,
            "incidents": [i.to_dict() for i in self.incidents],
            "sync": self.sync, "sync_text": SYNC_TEXT.get(self.sync, self.sync), "sync_detail": self.sync_detail,
            "plies": [p.to_dict() for p in self.plies], "result": self.result, "end_reason": self.end_reason,
            "ended": self.ended, "seq": self.seq, "headers": dict(self.headers),
        }


def fold(events: list[dict[str, Any]]) -> LiveGame:
    """A LiveGame with every event applied (an event that does not apply is kept as a warning)."""
    game = LiveGame()
    for e in events:
        try:
            game.apply(e)
        except JournalFoldError as exc:
            game.warnings.append(str(exc))
    return game


def _int_or_none(x: Any) -> int | None:
    try:
        return int(x) if x is not None else None
    except (TypeError, ValueError):
        return None
