"""The events the tracker reports: moves, incidents, tracking changes.

They are plain data so the journal can write them as JSON lines and the
review page, the console view and the tests can all read the same thing.
Every event carries `t` (seconds of source time: video time or capture
clock) and `ply` (plies completed when it happened, i.e. the ply a move
event is for is `ply` = its index + 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


def point_name(index: int) -> str:
    """ICCS name of point index `index` (rank * 9 + file): 0 -> 'a0', 89 -> 'i9'."""
    if not 0 <= index < 90:
        raise ValueError(f"point index {index} is outside 0..89")
    return "abcdefghi"[index % 9] + str(index // 9)


@dataclass
class MoveEvent:
    """A move accepted into the game record.

    `ply` is the number of plies completed after this move (first move = 1).
    `score` is the log-likelihood margin of the move over doing nothing; `inferred`
    is True when the move was not seen by itself but reconstructed as part of a
    sequence (the camera missed it).
    """

    t: float
    ply: int
    iccs: str
    side: str
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

    type: str = field(default="move", init=False)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "type": "move", "t": round(self.t, 3), "ply": self.ply, "iccs": self.iccs,
            "side": self.side, "notation": self.san, "fen": self.fen_after,
            "frame": self.frame_index, "score": round(float(self.score), 2),
        }
        if self.inferred:
            d["inferred"] = True
        if self.corrected:
            d["corrected"] = True
        if self.capture:
            d["capture"] = self.capture
        if self.clock_ms is not None:
            d["clock_ms"] = dict(self.clock_ms)
        if self.t_hand_left is not None:
            d["t_hand_left"] = round(self.t_hand_left, 3)
        if self.t_touch is not None:
            d["t_touch"] = round(self.t_touch, 3)
        return d


@dataclass
class IncidentEvent:
    """Something an arbiter should look at.

    `points` are point indices; `frames` are the frame indices of the
    evidence (before, during, after); `evidence` the image file names
    (relative to the output folder) once saved; `detail` a human sentence.
    """

    t: float
    ply: int
    kind: str
    side: str | None
    points: list[int]
    detail: str
    frames: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    type: str = field(default="incident", init=False)

    def __post_init__(self) -> None:
        if self.kind not in INCIDENT_KINDS:
            raise ValueError(f"unknown incident kind {self.kind!r}; known: {', '.join(INCIDENT_KINDS)}")

    def to_dict(self) -> dict[str, Any]:
        d = {
            "type": "incident", "t": round(self.t, 3), "ply": self.ply, "kind": self.kind,
            "side": self.side, "points": [point_name(p) for p in self.points],
            "detail": self.detail, "frames": dict(self.frames),
        }
        if self.evidence:
            d["evidence"] = dict(self.evidence)
        d.update(self.extra)
        return d


@dataclass
class TrackingEvent:
    """A change in how well the tracker follows the game.

    `status` is one of: "started" (with the start position), "board_lost",
    "board_found", "out_of_sync" (with the differing points), "resynced",
    "corrected" (a recorded ply replaced: extra has ply, was, now; the moves from that ply on
    are re-stated as move events with corrected=True),
    "source_ended", "source_error".
    """

    t: float
    ply: int
    status: str
    detail: str = ""
    points: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    type: str = field(default="tracking", init=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "tracking", "t": round(self.t, 3), "ply": self.ply, "status": self.status}
        if self.detail:
            d["detail"] = self.detail
        if self.points:
            d["points"] = [point_name(p) for p in self.points]
        d.update(self.extra)
        return d


Event = MoveEvent | IncidentEvent | TrackingEvent
