"""The live view of a game, folded from journal events (pure: no files, no sockets).

Why its own module: the live page, the overlay, `/state.json` and the review all show
the same game, and the journal is its single source of truth. Folding the events here,
one at a time and in order, means a server tailing a growing journal and a page built
from a finished one can never disagree about the position, the move list, the clocks or
which incident is which.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Mapping

from board.events import (EVENT_TYPES, ArbiterCorrection, ClockEvent, EventFormatError, GameEndEvent, IncidentEvent,
                          IncidentRetracted, MoveEvent, ReviewNote, TrackingEvent, event_from_dict, point_name)
from rules import START_FEN, Move, Position, RulesError
from rules.notation import format_move

from .labels import incident_detail_zh
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
    rulings: list[dict[str, Any]] = field(default_factory=list)   # every ruling made on it; the last stands
    detail_zh: str = ""                        # the detail in Chinese (live.labels.incident_detail_zh)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "side": self.side, "ply": self.ply, "t": self.t,
                "wall": self.wall, "points": list(self.points), "detail": self.detail,
                "frames": dict(self.frames), "evidence": dict(self.evidence), "ruling": self.ruling,
                "retracted": dict(self.retracted) if self.retracted is not None else None,
                "detail_zh": self.detail_zh,
                "rulings": [dict(r) for r in self.rulings]}


@dataclass
class NoteView:
    """One journalled review note: evidence too weak to accuse on (board.events.ReviewNote), shown
    to the arbiter with its score and images, never counted or ruled on as an incident."""

    id: int
    kind: str
    side: str | None
    ply: int
    t: float
    wall: str
    points: list[str]
    detail: str
    score: float
    evidence: dict[str, str] = field(default_factory=dict)
    frames: dict[str, int] = field(default_factory=dict)
    set_aside: str = ""            # the rule that put the evidence down to something else, if one did
    detail_zh: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
        self.notes: list[NoteView] = []
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
        # the arbiter's part (live/rulings.py): results entered (the last stands), corrections of the
        # record, and the moves made after an arbiter's result (journalled, not in the game)
        self.results: list[dict[str, Any]] = []
        self.corrections: list[dict[str, Any]] = []
        self.post_game: list[dict[str, Any]] = []
        self.closed = False           # an arbiter's result stands: only the arbiter changes the game now
        self._restating = False       # an arbiter's correction the recorder has not re-stated yet

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
        elif isinstance(ev, ReviewNote):
            self._note(ev)
        elif isinstance(ev, ClockEvent):
            self._clock(ev)
        elif isinstance(ev, GameEndEvent):
            self._game_end(ev)
        elif isinstance(ev, ArbiterCorrection):
            self._arbiter_correction(ev)
        return self.seq

    def _tracking(self, e: TrackingEvent) -> None:
        status = str(e.status)
        if status == "started" and e.fen and self.start_fen is None:
            self.start_fen = e.fen
            self.headers = e.headers
            self._pos = Position.from_fen(self.start_fen)
        if status == "corrected":
            if self.closed and not e.arbiter:
                return                       # the tracker re-reading the post-mortem: not the game's
            self._restating = False          # the recorder has taken up any arbiter's line
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
        if e.post_game or (self.closed and not e.corrected):
            # made after the arbiter's result (marked so by its writer, or written before the writer
            # saw the result): the players' post-mortem, kept apart from the game
            self.post_game.append({"ply": ply, "iccs": iccs, "side": str(e.side), "t": float(e.t),
                                   "wall": e.wall or ""})
            return
        if self._restating and not e.corrected and not self._follows(ply, iccs):
            return   # written by the recorder before it took the arbiter's correction up: superseded
        if ply <= len(self.plies):
            self._truncate(ply - 1)   # a re-stated ply replaces the recorded one
        if ply != len(self.plies) + 1:
            raise JournalFoldError(f"event {self.seq}: move for ply {ply} follows ply {len(self.plies)}")
        self._push(ply, iccs, float(e.t), e.wall or "", e.frame_index if e.frame_index >= 0 else None,
                   e.corrected, e.inferred)

    def _follows(self, ply: int, iccs: str) -> bool:
        """Whether `iccs` is a legal next ply `ply` of the game as folded so far."""
        if ply != len(self.plies) + 1:
            return False
        try:
            return self._ensure_pos().is_legal(Move.from_iccs(iccs))
        except ValueError:
            return False

    def _push(self, ply: int, iccs: str, t: float, wall: str, frame: int | None, corrected: bool,
              inferred: bool) -> None:
        """Play ply `ply` onto the folded game (JournalFoldError when it does not follow)."""
        pos = self._ensure_pos()
        side = "red" if pos.turn in ("w", "r") else "black"
        try:
            move = Move.from_iccs(iccs)
            chinese = format_move(pos, move, "chinese")
            wxf = format_move(pos, move, "wxf")
        except ValueError as exc:  # rules' errors are ValueErrors naming what does not follow
            raise JournalFoldError(f"event {self.seq}: move {iccs!r} at ply {ply} does not follow: {exc}") from None
        self._positions.append(pos.copy())
        pos.push(move)
        self.plies.append(PlyView(ply, iccs, side, chinese, wxf, pos.fen(), t, wall, frame, corrected, inferred))
        if self.sync in (SYNC_READING, SYNC_BOARD_LOST):
            self.sync = SYNC_IN_SYNC
            self.sync_detail = ""

    def _named(self, e: IncidentEvent | ReviewNote) -> tuple[str | None, list[str], str]:
        """An incident's or a note's side and points as the pages name them, and its detail in Chinese."""
        side = str(e.side) if e.side is not None else None
        points = [point_name(p) for p in e.points]
        return side, points, incident_detail_zh(e.kind, side, points, self.fen_at(e.ply - 1), self.fen_at(e.ply),
                                                e.extra)

    def _incident(self, e: IncidentEvent) -> None:
        # ids are the incident's place in the journal (1, 2, 3…); a journalled id is kept
        ident = _int_or_none(e.extra.get("id")) or len(self.incidents) + 1
        side, points, detail_zh = self._named(e)
        self.incidents.append(IncidentView(
            ident, e.kind, side, e.ply, float(e.t), e.wall or "",
            points, e.detail, dict(e.frames), dict(e.evidence), detail_zh=detail_zh))

    def _note(self, e: ReviewNote) -> None:
        ident = _int_or_none(e.extra.get("note")) or len(self.notes) + 1
        side, points, detail_zh = self._named(e)
        self.notes.append(NoteView(ident, e.kind, side, e.ply, float(e.t), e.wall or "", points, e.detail,
                                   float(e.score), dict(e.evidence), dict(e.frames),
                                   str(e.extra.get("set_aside") or ""), detail_zh))

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

    def _game_end(self, e: GameEndEvent) -> None:
        """A result: the last entered stands; every one is kept (`results`) for the review."""
        self.result = e.result or self.result
        self.end_reason = e.reason
        self.results.append({"result": e.result, "reason": e.reason, "by": e.by, "note": str(e.extra.get("note") or ""),
                             "ply": e.ply, "t": float(e.t), "wall": e.wall or "", "arbiter": e.arbiter,
                             "revision": e.revision or len(self.results) + 1, "revises": e.revises})
        if e.arbiter:
            self.closed = True

    def _arbiter_correction(self, e: ArbiterCorrection) -> None:
        """The arbiter's moves replace the record from `from_ply` (checked legal when written)."""
        self.last_t = max(self.last_t, float(e.t))
        if e.from_ply - 1 > len(self.plies):
            raise JournalFoldError(f"event {self.seq}: an arbiter's correction from ply {e.from_ply}, but the record "
                                   f"holds {len(self.plies)} plies")
        self._truncate(e.from_ply - 1)
        self.corrections.append({"from_ply": e.from_ply, "moves": list(e.moves), "was": list(e.was), "by": e.by,
                                 "note": e.note, "t": float(e.t), "wall": e.wall or "",
                                 "command": e.extra.get("command")})
        for i, iccs in enumerate(e.moves):
            self._push(e.from_ply + i, iccs, float(e.t), e.wall or "", None, True, False)
        self._restating = True

    def _ruling(self, e: RulingEvent) -> None:
        self.last_t = max(self.last_t, e.t)
        for inc in self.incidents:
            if inc.id == e.incident:
                inc.ruling = {"decision": e.decision, "note": e.note, "wall": e.wall or "", "by": e.by,
                              "revision": e.revision or len(inc.rulings) + 1, "revises": e.revises}
                inc.rulings.append(inc.ruling)
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
        """The position after `ply` plies (0 = the start; past the last ply recorded, the last)."""
        shown = min(ply, len(self.plies))
        return self.plies[shown - 1].fen if shown > 0 else (self.start_fen or START_FEN)

    def to_dict(self) -> dict[str, Any]:
        """What `/state.json` serves (and the pages draw)."""
        return {
            "fen": self.fen, "start_fen": self.start_fen or START_FEN, "moves": self.moves,
            "last_move": self.last_move, "ply": len(self.plies),
            "turn": "red" if self.fen.split()[1] in ("w", "r") else "black",
            "clocks": self.clocks.to_dict() if self.clocks is not None else None,
            "incidents": [i.to_dict() for i in self.incidents],
            "notes": [n.to_dict() for n in self.notes],
            "sync": self.sync, "sync_text": SYNC_TEXT.get(self.sync, self.sync), "sync_detail": self.sync_detail,
            "plies": [p.to_dict() for p in self.plies], "result": self.result, "end_reason": self.end_reason,
            "results": [dict(r) for r in self.results], "corrections": [dict(c) for c in self.corrections],
            "post_game": [dict(p) for p in self.post_game],
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


# ------------------------------------------------------------------------------------ broadcast delay
LIVE_TRANSIT_S = 5.0   # a line arriving live was made at most this long before it arrived


def _wall_s(iso: Any) -> float | None:
    try:
        return datetime.fromisoformat(str(iso)).timestamp()
    except (TypeError, ValueError):
        return None


def event_time(event: Mapping[str, Any], arrival: float, backlog: bool) -> float:
    """When a journal line counts as having happened, for the broadcast delay (epoch seconds).

    Its wall time, but never after it reached us (a station clock running fast), and, for a line
    that arrives live, never more than LIVE_TRANSIT_S before it arrived (a station clock running
    slow must not let the public see a move early). A line read back at start (`backlog`: the
    journal as it stood, a hub's copy) has only its wall time to go by."""
    wall = _wall_s(event.get("wall"))
    if wall is None:
        return arrival
    if backlog:
        return min(wall, arrival)
    return min(max(wall, arrival - LIVE_TRANSIT_S), arrival)


class DelayedFold:
    """The public's view of a game under a broadcast delay: the same journal lines folded into a
    LiveGame of its own, each only once `delay_s` has passed since it happened (`event_time`).

    Why a second fold rather than a cut of the live one: the live game cannot be wound back (a
    correction truncates plies, a clock's reading is replaced), and folding the same lines in the
    same order is exactly what a reader of the journal that long ago would have seen, clocks,
    incidents and sync state included. Pure: `now` is always passed in.
    """

    def __init__(self, delay_s: float) -> None:
        if delay_s < 0:
            raise ValueError(f"delay {delay_s} s: must be 0 or more")
        self.delay_s = float(delay_s)
        self.game = LiveGame()
        self.count = 0                                   # journal lines folded into `game`
        self._pending: list[tuple[float, Mapping[str, Any]]] = []
        self._next = 0

    def add(self, event: Mapping[str, Any], when: float) -> None:
        """A journal line (in journal order) that happened at `when` (epoch seconds)."""
        self._pending.append((when, event))

    def due(self) -> float | None:
        """When the next held line is released (epoch seconds), None when none is held."""
        return self._pending[self._next][0] + self.delay_s if self._next < len(self._pending) else None

    def release(self, now: float) -> bool:
        """Fold every line whose time has come, in order (a line waits for those before it, so a
        line with an earlier time never jumps ahead); True when something was folded."""
        cutoff = now - self.delay_s
        start = self._next
        while self._next < len(self._pending) and self._pending[self._next][0] <= cutoff:
            _, event = self._pending[self._next]
            self._next += 1
            try:
                self.game.apply(event)
            except JournalFoldError as exc:
                self.game.warnings.append(str(exc))
        if self._next > start:
            self.count = self._next
            if self._next > 1024 and self._next * 2 > len(self._pending):   # drop what is folded
                del self._pending[:self._next]
                self._next = 0
            return True
        return False


def game_pgn(game: LiveGame, headers: Mapping[str, str], notation: str = "chinese") -> str:
    """A folded game as PGN text, headed as runtime.journal.write_game_pgn heads the recorder's
    (Format, Result, FEN for another start): what a delayed broadcast serves instead of the file."""
    from rules.pgn import Game, write_pgn

    hdr = {k: v for k, v in headers.items() if k not in ("Format", "Result", "FEN")}
    hdr["Format"] = {"chinese": "Chinese", "iccs": "ICCS", "wxf": "WXF", "yizi": "Yizi"}.get(notation, notation)
    hdr["Result"] = game.result
    start = game.start_fen or START_FEN
    fen = None if start.split()[:2] in (START_FEN.split()[:2], [START_FEN.split()[0], "r"]) else start
    if fen is not None:
        hdr["FEN"] = fen
    clocks: list[int | None] = [p.clock_ms for p in game.plies]
    pgn = Game(headers=hdr, start_fen=fen, moves=[Move.from_iccs(p.iccs) for p in game.plies],
               clocks_ms=clocks, result=game.result if game.result in ("1-0", "0-1", "1/2-1/2", "*") else "*")
    return write_pgn(pgn, notation=notation)
