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

from rules import Side

from .events import ClockEvent, Event, IncidentEvent, MoveEvent


@dataclass
class _Move:
    ply: int
    side: Side
    t_touch: float
    t: float
    points: list[int]
    pressed: bool = False
    accounted: bool = False


@dataclass
class _Press:
    side: Side
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
        """Both sides' remaining time after a clock event, by journal word; None without one."""
        rem = getattr(cev, "remaining_ms", None)
        if rem is None:
            return None
        return {Side.RED.value: int(rem[Side.RED.clock_index]), Side.BLACK.value: int(rem[Side.BLACK.clock_index])}

    @staticmethod
    def describe(cev: Any) -> str:
        who = f" {cev.side}" if getattr(cev, "side", None) else ""
        rem = getattr(cev, "remaining_ms", (0, 0))
        return f"{cev.kind}{who} (red {rem[0] / 1000:.1f} s, black {rem[1] / 1000:.1f} s)"

    @staticmethod
    def event(cev: Any, t: float, ply: int) -> ClockEvent:
        """The journal's clock event for a clock link event at source time t."""
        return ClockEvent.of(cev, t, ply)

    @staticmethod
    def to_dict(cev: Any) -> dict[str, Any]:
        """A clock link event's journal fields (without type, t, ply: the recorder adds those)."""
        d = ClockEvent.of(cev, 0.0, 0).to_dict()
        for key in ("type", "t", "ply"):
            del d[key]
        return d

    # -- rules
    def on_move(self, ev: MoveEvent) -> list[Event]:
        out: list[Event] = []
        t_touch = ev.t_touch if ev.t_touch is not None else ev.t
        side = Side.parse(ev.side)
        m = _Move(ev.ply, side, t_touch, ev.t, [])
        prev = self.moves[-1] if self.moves else None
        self.moves.append(m)
        if prev is not None and not prev.pressed and not prev.accounted and prev.side != side \
                and t_touch > prev.t:
            # the opponent started moving after `prev` settled, and nobody pressed for it
            prev.accounted = True
            out.append(IncidentEvent(ev.t, prev.ply, "clock_no_press", prev.side, [],
                                     f"{prev.side} moved (ply {prev.ply}) without pressing the clock before "
                                     f"{side} moved", frames={"after": ev.frame_index}))
        # a pending press by this side that came while this move was being made belongs to it
        for p in self.pending:
            if not p.resolved and p.side == side and t_touch <= p.t:
                p.resolved = True
                m.pressed = True
                self.clock_assignments.append((ev.ply, p.remaining_ms[side.clock_index]))
        return out

    @staticmethod
    def presser(cev: Any) -> Side | None:
        """Who ended a turn with this event: a press names its side; the first press
        of a game arrives as "start" of the other side's clock (red moves first, so
        "start black" is red's press; "start red" only starts the game)."""
        kind, side = getattr(cev, "kind", None), getattr(cev, "side", None)
        if kind == "press" and side in (Side.RED, Side.BLACK):
            return Side(side)
        if kind == "start" and side == Side.BLACK:
            return Side.RED
        return None

    def on_clock(self, cev: Any, t: float, ply: int) -> list[Event]:
        side = self.presser(cev)
        if side is None:
            return []
        out: list[Event] = []
        rem = (int(cev.remaining_ms[0]), int(cev.remaining_ms[1]))
        since = [m for m in self.moves if m.t_touch >= self.last_press_t - 1e-9 and not m.accounted]
        mine = [m for m in self.moves if m.side == side and not m.pressed and m.t_touch >= self.last_press_t - 1e-9]
        press = _Press(side, t, rem)
        if len(since) >= 2:
            for m in since:
                m.accounted = True
            out.append(IncidentEvent(t, ply, "clock_two_moves", side, [],
                                     f"{side} pressed once for {len(since)} moves (plies "
                                     f"{', '.join(str(m.ply) for m in since)})", frames={}))
        if mine:
            for m in mine:
                m.pressed = True
            self.clock_assignments.append((mine[-1].ply, rem[side.clock_index]))
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
