"""Clock referee: match clock presses to board moves.

A move belongs to its player's next press: the press that ends the turn.
Times are source seconds (the recorder maps the clock's host time onto the
video/capture time base). Rules, each reported once:
- clock_no_press: move k by S, then the opponent started move k+1 (hands
  over the board) with no press by S in between.
- clock_two_moves: a press that ends a turn in which two or more moves were
  made on the board (e.g. both players moved in one go, one press).
- clock_press_no_move: a press by S with no move by S since the previous
  press; judged `grace_s` after the press, since the move is settled (and
  so known) a moment after the hand leaves — and players press as they let go.
Pure logic, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import Event, IncidentEvent, MoveEvent


@dataclass
class _Move:
    ply: int
    side: str
    t_touch: float
    t: float
    points: list[int]
    pressed: bool = False
    accounted: bool = False


@dataclass
class _Press:
    side: str
    t: float
    remaining_ms: tuple[int, int]
    resolved: bool = False


@dataclass
class ClockReferee:
    grace_s: float = 2.0
    moves: list[_Move] = field(default_factory=list)
    pending: list[_Press] = field(default_factory=list)
    last_press_t: float = float("-inf")
    clock_assignments: list[tuple[int, int]] = field(default_factory=list)   # (ply, ms) for %clk

    # -- helpers for the recorder
    @staticmethod
    def snapshot(cev: Any) -> dict[str, int] | None:
        rem = getattr(cev, "remaining_ms", None)
        if rem is None:
            return None
        return {"red": int(rem[0]), "black": int(rem[1])}

    @staticmethod
    def describe(cev: Any) -> str:
        who = f" {cev.side}" if getattr(cev, "side", None) else ""
        rem = getattr(cev, "remaining_ms", (0, 0))
        return f"{cev.kind}{who} (red {rem[0] / 1000:.1f} s, black {rem[1] / 1000:.1f} s)"

    @staticmethod
    def to_dict(cev: Any) -> dict[str, Any]:
        return {"kind": cev.kind, "side": getattr(cev, "side", None), "seq": getattr(cev, "seq", None),
                "boot_id": getattr(cev, "boot_id", None), "clock_ms": getattr(cev, "clock_ms", None),
                "remaining_ms": {"red": int(cev.remaining_ms[0]), "black": int(cev.remaining_ms[1])}}

    # -- rules
    def on_move(self, ev: MoveEvent) -> list[Event]:
        out: list[Event] = []
        t_touch = ev.t_touch if ev.t_touch is not None else ev.t
        m = _Move(ev.ply, ev.side, t_touch, ev.t, [])
        prev = self.moves[-1] if self.moves else None
        self.moves.append(m)
        if prev is not None and not prev.pressed and not prev.accounted and prev.side != ev.side \
                and t_touch > prev.t:
            # the opponent started moving after `prev` settled, and nobody pressed for it
            prev.accounted = True
            out.append(IncidentEvent(ev.t, prev.ply, "clock_no_press", prev.side, [],
                                     f"{prev.side} moved (ply {prev.ply}) without pressing the clock before "
                                     f"{ev.side} moved", frames={"after": ev.frame_index}))
        # a pending press by this side that came while this move was being made belongs to it
        for p in self.pending:
            if not p.resolved and p.side == ev.side and t_touch <= p.t:
                p.resolved = True
                m.pressed = True
                self.clock_assignments.append((ev.ply, p.remaining_ms[0 if ev.side == "red" else 1]))
        return out

    @staticmethod
    def presser(cev: Any) -> str | None:
        """Who ended a turn with this event: a press names its side; the first press
        of a game arrives as "start" of the other side's clock (red moves first, so
        "start black" is red's press; "start red" only starts the game)."""
        kind, side = getattr(cev, "kind", None), getattr(cev, "side", None)
        if kind == "press" and side in ("red", "black"):
            return side
        if kind == "start" and side == "black":
            return "red"
        return None

    def on_clock(self, cev: Any, t: float, ply: int) -> list[Event]:
        side = self.presser(cev)
        if side is None:
            return []
        out: list[Event] = []
        rem = tuple(int(x) for x in cev.remaining_ms)
        since = [m for m in self.moves if m.t_touch >= self.last_press_t - 1e-9 and not m.accounted]
        mine = [m for m in self.moves if m.side == side and not m.pressed and m.t_touch >= self.last_press_t - 1e-9]
        press = _Press(side, t, rem)  # type: ignore[arg-type]
        if len(since) >= 2:
            for m in since:
                m.accounted = True
            out.append(IncidentEvent(t, ply, "clock_two_moves", side, [],
                                     f"{side} pressed once for {len(since)} moves (plies "
                                     f"{', '.join(str(m.ply) for m in since)})", frames={}))
        if mine:
            for m in mine:
                m.pressed = True
            self.clock_assignments.append((mine[-1].ply, rem[0 if side == "red" else 1]))
            press.resolved = True
        self.pending.append(press)
        self.last_press_t = t
        return out

    def tick(self, t: float, ply: int) -> list[Event]:
        """Judge presses older than the grace period that no move has claimed."""
        out: list[Event] = []
        for p in self.pending:
            if not p.resolved and t - p.t >= self.grace_s:
                p.resolved = True
                out.append(IncidentEvent(p.t, ply, "clock_press_no_move", p.side, [],
                                         f"{p.side} pressed the clock without making a move", frames={}))
        self.pending = [p for p in self.pending if not p.resolved]
        return out

    def take_assignments(self) -> list[tuple[int, int]]:
        out, self.clock_assignments = self.clock_assignments, []
        return out
