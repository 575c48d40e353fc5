"""The events the tracker reports and the journal keeps: moves, incidents, tracking changes,
clock events and the game's end — typed both ways.

Why typed both ways: the journal (`events.jsonl`) is the single source of truth, and the review,
`--resume` and the live pages all read it back. Each line type has one dataclass here that
writes it (`to_dict()`, one journal line less the `wall` the journal adds) and reads it back
(`from_dict(d)`, or `event_from_dict(d)` for a line of any type), so no reader pokes at raw
dicts and `from_dict(e.to_dict()).to_dict() == e.to_dict()` for every event. Fields a line
carries beyond its type's own (an incident id, a hall note) are kept in `extra`, as read.

Every event carries `t` (seconds of source time: video time or capture clock) and `ply`
(plies completed when it happened, i.e. the ply a move event is for is `ply` = its index + 1).
A line read back from a journal also keeps its `wall` (UTC ISO-8601 written by the journal).
Pure data: no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, ClassVar, Mapping, TypeVar

from rules import RulesError, Side, parse_square

# Incident kinds, the same words as sim truth (docs/conventions.md).
INCIDENT_KINDS: tuple[str, ...] = (
    "touch_move_other",
    "retouch",
    "between_points",
    "knocked",
    "illegal_move",
    "repetition",
    "clock_no_press",
    "clock_two_moves",
    "clock_press_no_move",
)


class EventFormatError(ValueError):
    """A journal line that cannot be read back as an event (the message names the line type and key)."""


class TrackingStatus(str, Enum):
    """The tracking statuses the tracker and the recorder write (TrackingEvent.status).

    A `str` whose value is the journal word, so `status == "started"` and the JSON are as before;
    a journal may hold other words (from a later version): `TrackingEvent.status` stays a str.
    """

    STARTED = "started"
    RESUMED = "resumed"
    START_MISMATCH = "start_mismatch"
    START_UNREADABLE = "start_unreadable"
    BOARD_LOST = "board_lost"
    BOARD_FOUND = "board_found"
    OUT_OF_SYNC = "out_of_sync"
    RESYNCED = "resynced"
    CORRECTED = "corrected"
    LATTICE_ANCHORED = "lattice_anchored"
    BOARD_TURNED = "board_turned"
    BOARD_NOT_FOUND = "board_not_found"
    FRAME_ERROR = "frame_error"
    FRAMES_DROPPED = "frames_dropped"
    EVIDENCE_ERROR = "evidence_error"  # an incident's evidence file could not be written (the incident stands)
    PLIES_MERGED = "plies_merged"     # several plies recorded from one settle (their order by the rules alone)
    DISK_LOW = "disk_low"
    DISK_FULL = "disk_full"
    SOURCE_ENDED = "source_ended"
    SOURCE_ERROR = "source_error"
    INTERRUPTED = "interrupted"
    ARBITER_CORRECTION_REFUSED = "arbiter_correction_refused"   # the recorder could not follow an arbiter's line

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def point_name(index: int) -> str:
    """ICCS name of point index `index` (rank * 9 + file): 0 -> 'a0', 89 -> 'i9'."""
    if not 0 <= index < 90:
        raise ValueError(f"point index {index} is outside 0..89")
    return "abcdefghi"[index % 9] + str(index // 9)


# ---------------------------------------------------------------- reading helpers
_T = TypeVar("_T")


def _need(d: Mapping[str, Any], key: str, kind: str) -> Any:
    if key not in d or d[key] is None:
        raise EventFormatError(f"{kind} event lacks {key!r}: {dict(d)!r}")
    return d[key]


def _as(d: Mapping[str, Any], key: str, kind: str, conv: Callable[[Any], _T], default: _T) -> _T:
    """`d[key]` converted by `conv`, `default` when absent or null; one clear error when it does not convert."""
    v = d.get(key)
    if v is None:
        return default
    try:
        return conv(v)
    except (TypeError, ValueError, RulesError) as exc:
        raise EventFormatError(f"{kind} event: {key!r} is {v!r}, which does not read ({exc})") from None


def _req(d: Mapping[str, Any], key: str, kind: str, conv: Callable[[Any], _T]) -> _T:
    v = _need(d, key, kind)
    try:
        return conv(v)
    except (TypeError, ValueError, RulesError) as exc:
        raise EventFormatError(f"{kind} event: {key!r} is {v!r}, which does not read ({exc})") from None


def _points(v: Any) -> list[int]:
    if not isinstance(v, list):
        raise TypeError("a list of point names was expected")
    return [parse_square(p) if isinstance(p, str) else int(p) for p in v]


def _str_dict(v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise TypeError("an object was expected")
    return dict(v)


def _names(v: Any) -> dict[str, str]:
    return {str(k): str(x) for k, x in _str_dict(v).items()}


def _int_dict(v: Any) -> dict[str, int]:
    return {str(k): int(x) for k, x in _str_dict(v).items()}


def _side_or_none(v: Any) -> Side | None:
    return None if v is None else Side.parse(v)


def _wall(d: Mapping[str, Any]) -> str | None:
    w = d.get("wall")
    return str(w) if w is not None else None


def _with_wall(d: dict[str, Any], wall: str | None) -> dict[str, Any]:
    if wall is not None:
        d["wall"] = wall
    return d


# ---------------------------------------------------------------- the events
@dataclass
class MoveEvent:
    """A move accepted into the game record.

    `ply` is the number of plies completed after this move (first move = 1).
    `score` is the log-likelihood margin of the move over doing nothing; `inferred`
    is True when the move was not seen by itself but reconstructed as part of a
    sequence (the camera missed it). `post_game` marks a move made after an arbiter's result
    (the players' post-mortem): journalled, since the journal keeps everything the board showed,
    but never part of the game (game.pgn, /state.json and the broadcast stop at the result).
    """

    t: float
    ply: int
    iccs: str
    side: Side
    san: str
    fen_after: str
    frame_index: int
    score: float = 0.0
    inferred: bool = False
    capture: str | None = None
    clock_ms: dict[str, int] | None = None
    t_hand_left: float | None = None
    t_touch: float | None = None     # when hands first came over the board for this move
    corrected: bool = False          # re-stated after a "corrected" event replaced an earlier ply
    extra: dict[str, Any] = field(default_factory=dict)   # fields other parts add to the line, kept as read
    wall: str | None = field(default=None, kw_only=True)
    post_game: bool = field(default=False, kw_only=True)   # made after an arbiter's result: not in the game

    type: ClassVar[str] = "move"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "iccs", "side", "notation", "fen", "frame", "score", "inferred", "corrected",
         "capture", "clock_ms", "t_hand_left", "t_touch", "wall", "post_game"})

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": "move", "t": round(self.t, 3), "ply": self.ply, "iccs": self.iccs,
            "side": self.side, "notation": self.san, "fen": self.fen_after,
            "frame": self.frame_index, "score": round(float(self.score), 2),
        }
        if self.inferred:
            d["inferred"] = True
        if self.corrected:
            d["corrected"] = True
        if self.post_game:
            d["post_game"] = True
        if self.capture:
            d["capture"] = self.capture
        if self.clock_ms is not None:
            d["clock_ms"] = dict(self.clock_ms)
        if self.t_hand_left is not None:
            d["t_hand_left"] = round(self.t_hand_left, 3)
        if self.t_touch is not None:
            d["t_touch"] = round(self.t_touch, 3)
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "MoveEvent":
        """A move line read back (a line without notation, fen or frame, as hand-written journals have, reads with "", "", -1)."""
        k = "move"
        return cls(
            t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), iccs=_req(d, "iccs", k, str),
            side=_req(d, "side", k, Side.parse), san=_as(d, "notation", k, str, ""),
            fen_after=_as(d, "fen", k, str, ""), frame_index=_as(d, "frame", k, int, -1),
            score=_as(d, "score", k, float, 0.0), inferred=bool(d.get("inferred", False)),
            capture=_as(d, "capture", k, str, None), clock_ms=_as(d, "clock_ms", k, _int_dict, None),
            t_hand_left=_as(d, "t_hand_left", k, float, None), t_touch=_as(d, "t_touch", k, float, None),
            corrected=bool(d.get("corrected", False)),
            extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d),
            post_game=bool(d.get("post_game", False)))


@dataclass
class IncidentEvent:
    """Something an arbiter should look at.

    `points` are point indices; `frames` are the frame indices of the
    evidence (before, during, after); `evidence` the image file names
    (relative to the output folder) once saved; `detail` a human sentence;
    `extra` the kind's own fields (e.g. `offset`, `shift`, `ruling`, `move`), written at the top level of the line.
    """

    t: float
    ply: int
    kind: str
    side: Side | None
    points: list[int]
    detail: str
    frames: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "incident"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "kind", "side", "points", "detail", "frames", "evidence", "wall"})

    def __post_init__(self) -> None:
        _check_kind(self.kind)

    def to_dict(self) -> dict[str, Any]:
        return _incident_line(self, "incident", {})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "IncidentEvent":
        return cls(**_incident_fields(d, "incident", cls._KEYS))


@dataclass
class ReviewNote:
    """Evidence of an incident too weak to accuse a player of, for the arbiter to look at: a
    hand's rest, a disc's turn or shift that the evidence model (board/incidents/weigh.py) scores
    below the accusation threshold.

    Why its own line and not an incident with a flag: an arbiter's tool keeps accusations and
    hints apart everywhere (the incident ids an arbiter rules on, the counts a hall shows, what a
    benchmark scores), and a reader that knows only `incident` lines must never count a note as
    one. `score` is the model's probability that the incident happened (0-1); `signals` the
    physical measures it was computed from (also in `extra`). The fields are an incident's.
    """

    t: float
    ply: int
    kind: str
    side: Side | None
    points: list[int]
    detail: str
    score: float
    frames: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "review_note"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "kind", "side", "points", "detail", "score", "frames", "evidence", "wall"})

    def __post_init__(self) -> None:
        _check_kind(self.kind)
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"a review note's score is a probability in [0, 1], not {self.score}")

    @classmethod
    def of(cls, inc: IncidentEvent, score: float) -> "ReviewNote":
        """The note an incident's evidence makes when it is too weak to accuse on."""
        return cls(inc.t, inc.ply, inc.kind, inc.side, list(inc.points), inc.detail, float(score),
                   dict(inc.frames), dict(inc.evidence), {k: v for k, v in inc.extra.items() if k != "score"})

    def to_dict(self) -> dict[str, Any]:
        return _incident_line(self, "review_note", {"score": round(self.score, 3)})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ReviewNote":
        k = "review_note"
        fields = _incident_fields(d, k, cls._KEYS)
        score = _req(d, "score", k, float)
        if not 0.0 <= score <= 1.0:
            raise EventFormatError(f"review_note event: score {score!r} is not a probability in [0, 1]")
        return cls(score=score, **fields)


def _check_kind(kind: str) -> None:
    if kind not in INCIDENT_KINDS:
        raise ValueError(f"unknown incident kind {kind!r}; known: {', '.join(INCIDENT_KINDS)}")


def _incident_line(e: "IncidentEvent | ReviewNote", line_type: str, own: dict[str, Any]) -> dict[str, Any]:
    """The journal line of an incident or a note: the fields they share, then `own` (a note's
    score) before the frames, the evidence once saved, and `extra` at the top level."""
    d: dict[str, Any] = {
        "type": line_type, "t": round(e.t, 3), "ply": e.ply, "kind": e.kind,
        "side": e.side, "points": [point_name(p) for p in e.points], "detail": e.detail,
        **own, "frames": dict(e.frames),
    }
    if e.evidence:
        d["evidence"] = dict(e.evidence)
    d.update(e.extra)
    return _with_wall(d, e.wall)


def _incident_fields(d: Mapping[str, Any], k: str, keys: frozenset[str]) -> dict[str, Any]:
    """The fields an incident and a note share, read from line type `k` (EventFormatError names
    what does not read); keys not in `keys` are the line's `extra`."""
    kind = _req(d, "kind", k, str)
    if kind not in INCIDENT_KINDS:
        raise EventFormatError(f"{k} event: kind {kind!r} is not one of {', '.join(INCIDENT_KINDS)}")
    no_points: list[int] = []
    no_frames: dict[str, int] = {}
    no_files: dict[str, str] = {}
    return {"t": _req(d, "t", k, float), "ply": _req(d, "ply", k, int), "kind": kind,
            "side": _as(d, "side", k, _side_or_none, None), "points": _as(d, "points", k, _points, no_points),
            "detail": _as(d, "detail", k, str, ""), "frames": _as(d, "frames", k, _int_dict, no_frames),
            "evidence": _as(d, "evidence", k, _names, no_files),
            "extra": {key: v for key, v in d.items() if key not in keys}, "wall": _wall(d)}


@dataclass
class TrackingEvent:
    """A change in how well the tracker follows the game.

    `status` is one of TrackingStatus: "started" (with the start position), "board_lost",
    "board_found", "out_of_sync" (with the differing points), "resynced",
    "corrected" (a recorded ply replaced: extra has ply, was, now; the moves from that ply on
    are re-stated as move events with corrected=True),
    "source_ended", "source_error". `extra` holds the status's own fields at the top level of
    the line; the typed properties below read the ones other parts rely on.
    """

    t: float
    ply: int
    status: str
    detail: str = ""
    points: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "tracking"
    _KEYS: ClassVar[frozenset[str]] = frozenset({"type", "t", "ply", "status", "detail", "points", "wall"})

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "tracking", "t": round(self.t, 3), "ply": self.ply, "status": self.status}
        if self.detail:
            d["detail"] = self.detail
        if self.points:
            d["points"] = [point_name(p) for p in self.points]
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TrackingEvent":
        k = "tracking"
        return cls(
            t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), status=_req(d, "status", k, str),
            detail=_as(d, "detail", k, str, ""), points=_as(d, "points", k, _points, []),
            extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d))

    # typed views of the status-specific fields
    @property
    def fen(self) -> str | None:
        """started / resumed: the position (full FEN)."""
        v = self.extra.get("fen")
        return str(v) if v is not None else None

    @property
    def headers(self) -> dict[str, str]:
        """started: the PGN headers of the recording."""
        v = self.extra.get("headers")
        return {str(a): str(b) for a, b in v.items()} if isinstance(v, dict) else {}

    @property
    def notation(self) -> str | None:
        """started: the notation game.pgn is written in."""
        v = self.extra.get("notation")
        return str(v) if v is not None else None

    @property
    def board_shows(self) -> str | None:
        """out_of_sync: the board part of FEN the board was read as."""
        v = self.extra.get("board_shows")
        return str(v) if v is not None else None

    @property
    def expected(self) -> str | None:
        """out_of_sync: the board part of FEN the record expects."""
        v = self.extra.get("expected")
        return str(v) if v is not None else None

    @property
    def was(self) -> str | None:
        """corrected: the recorded plies replaced (ICCS, space separated); resynced: the sync state left."""
        v = self.extra.get("was")
        return str(v) if v is not None else None

    @property
    def now(self) -> str | None:
        """corrected: the plies that replace them (ICCS, space separated)."""
        v = self.extra.get("now")
        return str(v) if v is not None else None

    @property
    def arbiter(self) -> bool:
        """corrected: the recorder re-stating an arbiter's correction (not the tracker's own)."""
        return bool(self.extra.get("arbiter"))


@dataclass
class ClockEvent:
    """One event from the chess clock, as journalled: `kind` (press, start, flag, pause, ...),
    the `side` it names, the clock's `seq`/`boot_id`/`clock_ms` (None when the source had none)
    and both sides' `remaining_ms` right after it."""

    t: float
    ply: int
    kind: str
    side: Side | None
    remaining_ms: dict[str, int]
    seq: int | None = None
    boot_id: int | None = None
    clock_ms: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)   # fields other parts add to the line, kept as read
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "clock"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "kind", "side", "seq", "boot_id", "clock_ms", "remaining_ms", "wall"})

    @classmethod
    def of(cls, cev: Any, t: float, ply: int) -> "ClockEvent":
        """The journal's view of a clock link event (firmware_bridge.ClockEvent-like) at source time `t`."""
        side = getattr(cev, "side", None)
        return cls(t, ply, str(cev.kind), _side_or_none(side),
                   {s.value: int(cev.remaining_ms[s.clock_index]) for s in Side},
                   getattr(cev, "seq", None), getattr(cev, "boot_id", None), getattr(cev, "clock_ms", None))

    def to_dict(self) -> dict[str, Any]:
        # t is written as given (the recorder rounds it once it is on the source time base)
        d: dict[str, Any] = {"type": "clock", "t": self.t, "ply": self.ply, "kind": self.kind, "side": self.side,
                             "seq": self.seq, "boot_id": self.boot_id, "clock_ms": self.clock_ms,
                             "remaining_ms": dict(self.remaining_ms)}
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ClockEvent":
        k = "clock"
        return cls(
            t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), kind=_req(d, "kind", k, str),
            side=_as(d, "side", k, _side_or_none, None), remaining_ms=_as(d, "remaining_ms", k, _int_dict, {}),
            seq=_as(d, "seq", k, int, None), boot_id=_as(d, "boot_id", k, int, None),
            clock_ms=_as(d, "clock_ms", k, int, None),
            extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d))

    def remaining_for(self, side: Side) -> int | None:
        """`side`'s remaining time in ms, None when the line did not say."""
        return self.remaining_ms.get(side.value)


@dataclass
class GameEndEvent:
    """The game is over on the board: `result` ("1-0", "0-1", "1/2-1/2") and `reason` (e.g. checkmate)."""

    t: float
    ply: int
    result: str
    reason: str
    extra: dict[str, Any] = field(default_factory=dict)   # e.g. the hall's note, by, command; kept as read
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "game_end"
    _KEYS: ClassVar[frozenset[str]] = frozenset({"type", "t", "ply", "result", "reason", "wall"})

    def to_dict(self) -> dict[str, Any]:
        # t is written as given (the recorder rounds it once it is on the source time base)
        d: dict[str, Any] = {"type": "game_end", "t": self.t, "ply": self.ply, "reason": self.reason,
                             "result": self.result}
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GameEndEvent":
        k = "game_end"
        return cls(t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), result=_as(d, "result", k, str, "*"),
                   reason=_as(d, "reason", k, str, ""),
                   extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d))

    # typed views of the fields a result entered by a person carries (live/rulings.py, hall/station.py)
    @property
    def by(self) -> str:
        """Who entered the result ("" for the recorder's own: checkmate, stalemate)."""
        return str(self.extra.get("by") or "")

    @property
    def arbiter(self) -> bool:
        """Entered by a person (the command line, a page, the hall's console), not seen on the board.

        Why it matters: after an arbiter's result the game is closed; what the board shows later
        is the post-mortem (post_game moves). A line from before `by` was written says so in its
        reason ("arbiter: ...") or its hall `command` id."""
        return bool(self.by or self.extra.get("command") or self.reason.startswith("arbiter"))

    @property
    def revision(self) -> int | None:
        """1, 2, 3... for the results entered on this game, in journal order (None: not written)."""
        v = self.extra.get("revision")
        return int(v) if isinstance(v, int) and not isinstance(v, bool) else None

    @property
    def revises(self) -> int | None:
        """The revision this result replaces (None: the first result entered)."""
        v = self.extra.get("revises")
        return int(v) if isinstance(v, int) and not isinstance(v, bool) else None


@dataclass
class ArbiterCorrection:
    """An arbiter's correction of the record: from ply `from_ply` on, the game is `moves` (ICCS).

    Why its own line and not the tracker's `corrected`: the camera misreads, and the arbiter is the
    one who may say what was played; the record must name who changed it (`by`) and why (`note`),
    and keep what it said before (`was`, the plies replaced), so a later reader sees both. The
    moves were checked legal by the rules engine before the line was written (board.arbiter);
    `fen` is the position after the last of them. `ply` is the plies the game has after the
    correction (from_ply - 1 + len(moves)). A recorder running on the folder takes the line up and
    re-states it as a `corrected` tracking line marked `arbiter` with the moves after it, so the
    tracker goes on from the corrected position (runtime/recorder.py).
    """

    t: float
    ply: int
    from_ply: int
    moves: list[str]
    was: list[str]
    by: str
    note: str = ""
    fen: str = ""
    extra: dict[str, Any] = field(default_factory=dict)   # e.g. the hall's command id, kept as read
    wall: str | None = field(default=None, kw_only=True)

    type: ClassVar[str] = "arbiter_correction"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "from_ply", "moves", "was", "by", "note", "fen", "wall"})

    def __post_init__(self) -> None:
        if self.from_ply < 1:
            raise ValueError(f"an arbiter's correction starts at ply 1 or later, not {self.from_ply}")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "arbiter_correction", "t": round(self.t, 3), "ply": self.ply,
                             "from_ply": self.from_ply, "moves": list(self.moves), "was": list(self.was),
                             "by": self.by, "note": self.note, "fen": self.fen}
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ArbiterCorrection":
        k = "arbiter_correction"
        from_ply = _req(d, "from_ply", k, int)
        if from_ply < 1:
            raise EventFormatError(f"{k} event: from_ply {from_ply} is not a ply (1, 2, 3...)")
        return cls(t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), from_ply=from_ply,
                   moves=_as(d, "moves", k, _iccs_list, []), was=_as(d, "was", k, _iccs_list, []),
                   by=_as(d, "by", k, str, ""), note=_as(d, "note", k, str, ""), fen=_as(d, "fen", k, str, ""),
                   extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d))


def _iccs_list(v: Any) -> list[str]:
    """A list of ICCS moves ('h2e2'), each checked for shape."""
    from rules import Move
    if not isinstance(v, list):
        raise TypeError("a list of ICCS moves was expected")
    return [Move.from_iccs(str(m)).iccs() for m in v]


@dataclass
class IncidentRetracted:
    """An incident withdrawn: a later correction re-stated the plies it was judged on.

    Why its own line rather than deleting the incident: the journal is append-only and the
    arbiter may already have seen (or ruled on) the accusation; the record must say that it was
    made and why it no longer stands. `incident` is the journalled id of the incident withdrawn
    (the arbiter's handle, 1, 2, 3...); `kind`, `incident_ply` and `points` repeat what it said
    so a reader without the incident line still knows what was withdrawn; `reason` says why
    in words. The tracker does not know journal ids: it hands the incident it withdraws as
    `target` (never written) and the recorder fills `incident` from the id it gave that
    incident. `ply` and `t` are when the retraction was made.
    """

    t: float
    ply: int
    incident: int | None
    kind: str
    incident_ply: int
    points: list[int]
    reason: str
    extra: dict[str, Any] = field(default_factory=dict)
    wall: str | None = field(default=None, kw_only=True)
    target: IncidentEvent | None = field(default=None, kw_only=True, compare=False, repr=False)

    type: ClassVar[str] = "incident_retracted"
    _KEYS: ClassVar[frozenset[str]] = frozenset(
        {"type", "t", "ply", "incident", "kind", "incident_ply", "points", "reason", "wall"})

    @classmethod
    def of(cls, inc: IncidentEvent, t: float, ply: int, reason: str) -> "IncidentRetracted":
        """The retraction of `inc` (its id, once the recorder gave it one)."""
        ident = inc.extra.get("id")
        return cls(t, ply, int(ident) if isinstance(ident, int) else None, inc.kind, inc.ply, list(inc.points),
                   reason, target=inc)

    def to_dict(self) -> dict[str, Any]:
        ident = self.incident
        if ident is None and self.target is not None and isinstance(self.target.extra.get("id"), int):
            ident = int(self.target.extra["id"])
        d: dict[str, Any] = {"type": "incident_retracted", "t": round(self.t, 3), "ply": self.ply,
                             "incident": ident, "kind": self.kind, "incident_ply": self.incident_ply,
                             "points": [point_name(p) for p in self.points], "reason": self.reason}
        d.update(self.extra)
        return _with_wall(d, self.wall)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "IncidentRetracted":
        k = "incident_retracted"
        kind = _req(d, "kind", k, str)
        if kind not in INCIDENT_KINDS:
            raise EventFormatError(f"incident_retracted event: kind {kind!r} is not one of {', '.join(INCIDENT_KINDS)}")
        return cls(
            t=_req(d, "t", k, float), ply=_req(d, "ply", k, int), incident=_as(d, "incident", k, int, None),
            kind=kind, incident_ply=_req(d, "incident_ply", k, int), points=_as(d, "points", k, _points, []),
            reason=_as(d, "reason", k, str, ""),
            extra={key: v for key, v in d.items() if key not in cls._KEYS}, wall=_wall(d))


Event = MoveEvent | IncidentEvent | IncidentRetracted | ReviewNote | TrackingEvent
"""What the tracker and the clock referee report."""

JournalEvent = (MoveEvent | IncidentEvent | IncidentRetracted | ReviewNote | TrackingEvent | ClockEvent | GameEndEvent
                | ArbiterCorrection)
"""Any journal line of the board's types (a ruling is live/rulings.py's)."""

_BY_TYPE: dict[str, Callable[[Mapping[str, Any]], JournalEvent]] = {
    "move": MoveEvent.from_dict,
    "incident": IncidentEvent.from_dict,
    "incident_retracted": IncidentRetracted.from_dict,
    "review_note": ReviewNote.from_dict,
    "tracking": TrackingEvent.from_dict,
    "clock": ClockEvent.from_dict,
    "game_end": GameEndEvent.from_dict,
    "arbiter_correction": ArbiterCorrection.from_dict,
}
EVENT_TYPES: tuple[str, ...] = tuple(_BY_TYPE)


def event_from_dict(d: Mapping[str, Any]) -> JournalEvent:
    """The typed event of one journal line (as `json.loads` gives it); EventFormatError names what is wrong."""
    if not isinstance(d, Mapping):
        raise EventFormatError(f"a journal event is a JSON object, not {type(d).__name__}")
    typ = d.get("type")
    reader = _BY_TYPE.get(typ) if isinstance(typ, str) else None
    if reader is None:
        raise EventFormatError(f"journal event type {typ!r} is not one of {', '.join(EVENT_TYPES)}")
    return reader(d)
