"""The clock's time-control state machine, in integer milliseconds.

This is the reference the firmware's C (firmware/src/xq_clock.c) mirrors line for line;
both run the scenarios in tests/clock/vectors.json and must produce the same events and
times. No I/O and no wall clock: every call takes `now_ms` from the caller, so the same
inputs always give the same outputs (which is what makes the vectors meaningful).

Rules implemented (docs/clock-protocol.md, 'Time controls', says the same in prose):
- Only the running side's time runs. A press by the side on move ends its move: its move
  count goes up, stage quotas are checked, Bronstein delay and increment are added, and the
  other side starts. A press by the side not on move does nothing (the lever is already down).
- In READY, a press by either side starts the *other* side (as the player who does not move
  first starts the opponent's clock). Presses while PAUSED are ignored.
- Stage with a move quota completed: the next stage begins (the last one repeats); left-over
  time is added if carry_time, otherwise replaced. Move counts never carry over.
- Main time reaching zero: byo-yomi if configured (one period per move; a period that runs
  out is used up; the last one running out is a flag), otherwise a flag. The flagged side's
  time stays at zero and gets no increment; the clock reports the flag and goes on: what
  follows is the ruleset's (the arbiter's) call.
- Simple delay: each move, the first `delay_ms` do not count. Bronstein: after the move the
  time used is given back, at most `delay_ms`. Neither applies during byo-yomi, nor does the
  increment (byo-yomi resets the per-move time instead).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules import Side

from .codec import NO_SIDE, AckStatus, ClockState, DelayMode, EventKind, EventRecord, TimeControl

RED, BLACK = Side.RED.clock_index, Side.BLACK.clock_index   # the clock's side indices (not FEN's "w"/"b")
U32 = 0xFFFFFFFF


@dataclass
class SideState:
    remaining_ms: int = 0
    stage: int = 0
    moves_in_stage: int = 0
    total_moves: int = 0
    byo_left: int = 0
    in_byo: bool = False
    flagged: bool = False
    delay_left_ms: int = 0
    move_used_ms: int = 0


@dataclass
class ClockMachine:
    """Two sides, one running at a time. Every method returns the events it produced."""

    tc: TimeControl
    now_ms: int = 0
    state: ClockState = ClockState.READY
    running: int = NO_SIDE
    last_ms: int = 0
    sides: list[SideState] = field(default_factory=lambda: [SideState(), SideState()])
    _out: list[EventRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._reset(self.now_ms)

    # ------------------------------------------------------------------ helpers
    def _emit(self, kind: EventKind, side: int, t_ms: int, detail: int = 0, moves: int = 0) -> None:
        self._out.append(
            EventRecord(int(kind), side, t_ms & U32, self.sides[0].remaining_ms, self.sides[1].remaining_ms, detail, moves)
        )

    def _take(self) -> list[EventRecord]:
        out, self._out = self._out, []
        return out

    def _reset(self, now_ms: int) -> None:
        self.state = ClockState.READY
        self.running = NO_SIDE
        self.last_ms = now_ms
        for i in range(2):
            self.sides[i] = SideState(remaining_ms=self.tc.stages[0].time_ms)

    def _begin_turn(self, side: int) -> None:
        s = self.sides[side]
        s.delay_left_ms = self.tc.delay_ms if self.tc.delay_mode == DelayMode.SIMPLE else 0
        s.move_used_ms = 0

    def _advance(self, now_ms: int) -> None:
        """Run the running side's time from last_ms to now_ms, emitting PERIOD/FLAG on the way."""
        elapsed = (now_ms - self.last_ms) & U32
        if elapsed > 0x7FFFFFFF:
            # an input stamped before the last update (a press captured by an interrupt while
            # the loop ran): never un-run the clock, never count a millisecond twice
            return
        cursor = self.last_ms
        self.last_ms = now_ms
        if self.state != ClockState.RUNNING or self.running == NO_SIDE:
            return
        side = self.running
        s = self.sides[side]
        if s.flagged:
            return
        while elapsed > 0:
            if s.delay_left_ms > 0 and not s.in_byo:
                d = min(elapsed, s.delay_left_ms)
                s.delay_left_ms -= d
                s.move_used_ms += d
                elapsed -= d
                cursor += d
                continue
            if s.remaining_ms > elapsed:
                s.remaining_ms -= elapsed
                s.move_used_ms += elapsed
                return
            # main time or byo period runs out inside this interval, at cursor + remaining
            cursor += s.remaining_ms
            elapsed -= s.remaining_ms
            s.move_used_ms += s.remaining_ms
            s.remaining_ms = 0
            if not s.in_byo and self.tc.byo_periods > 0:
                s.in_byo = True
                s.byo_left = self.tc.byo_periods
                s.remaining_ms = self.tc.byo_ms
                self._emit(EventKind.PERIOD, side, cursor, detail=0x80 | s.byo_left)
            elif s.in_byo and s.byo_left > 1:
                s.byo_left -= 1
                s.remaining_ms = self.tc.byo_ms
                self._emit(EventKind.PERIOD, side, cursor, detail=0x80 | s.byo_left)
            else:
                if s.in_byo:
                    s.byo_left = 0
                s.flagged = True
                self._emit(EventKind.FLAG, side, cursor, moves=s.total_moves)
                return

    # ------------------------------------------------------------------ inputs
    def tick(self, now_ms: int) -> list[EventRecord]:
        self._advance(now_ms)
        return self._take()

    def configure(self, tc: TimeControl, now_ms: int) -> list[EventRecord]:
        tc.validate()
        self.tc = tc
        self._reset(now_ms)
        self._emit(EventKind.CONFIG, NO_SIDE, now_ms)
        return self._take()

    def press(self, side: int, now_ms: int) -> list[EventRecord]:
        self._advance(now_ms)
        if side not in (RED, BLACK):
            return self._take()
        if self.state == ClockState.READY:
            self.state = ClockState.RUNNING
            self.running = 1 - side
            self.last_ms = now_ms
            self._begin_turn(self.running)
            self._emit(EventKind.START, self.running, now_ms)
            return self._take()
        if self.state != ClockState.RUNNING or side != self.running:
            return self._take()
        s = self.sides[side]
        s.total_moves = (s.total_moves + 1) & 0xFFFF
        new_stage = -1
        if not s.flagged:
            if s.in_byo:
                s.remaining_ms = self.tc.byo_ms
            else:
                s.moves_in_stage = (s.moves_in_stage + 1) & 0xFFFF
                quota = self.tc.stages[s.stage].moves
                if quota > 0 and s.moves_in_stage >= quota:
                    nxt = min(s.stage + 1, len(self.tc.stages) - 1)
                    add = self.tc.stages[nxt].time_ms
                    s.remaining_ms = min(s.remaining_ms + add, U32) if self.tc.carry_time else add
                    s.stage = nxt
                    s.moves_in_stage = 0
                    new_stage = nxt
                if self.tc.delay_mode == DelayMode.BRONSTEIN:
                    s.remaining_ms += min(s.move_used_ms, self.tc.delay_ms)
                s.remaining_ms = min(s.remaining_ms + self.tc.increment_ms, U32)
        self.running = 1 - side
        self._begin_turn(self.running)
        self._emit(EventKind.PRESS, side, now_ms, moves=s.total_moves)
        if new_stage >= 0:
            self._emit(EventKind.PERIOD, side, now_ms, detail=new_stage, moves=s.total_moves)
        return self._take()

    def start(self, side: int, now_ms: int) -> tuple[AckStatus, list[EventRecord]]:
        """Host/arbiter start: `side` runs first. Idempotent if that side already runs."""
        self._advance(now_ms)
        if side not in (RED, BLACK):
            return AckStatus.BAD_ARGS, self._take()
        if self.state == ClockState.READY:
            self.state = ClockState.RUNNING
            self.running = side
            self.last_ms = now_ms
            self._begin_turn(side)
            self._emit(EventKind.START, side, now_ms)
            return AckStatus.OK, self._take()
        if self.running == side:
            return AckStatus.OK, self._take()
        return AckStatus.BAD_STATE, self._take()

    def pause(self, now_ms: int) -> list[EventRecord]:
        self._advance(now_ms)
        if self.state == ClockState.RUNNING:
            self.state = ClockState.PAUSED
            self._emit(EventKind.PAUSE, self.running, now_ms)
        return self._take()

    def resume(self, now_ms: int) -> list[EventRecord]:
        self._advance(now_ms)
        if self.state == ClockState.PAUSED:
            self.state = ClockState.RUNNING
            self.last_ms = now_ms
            self._emit(EventKind.RESUME, self.running, now_ms)
        return self._take()

    def set_time(self, side: int, remaining_ms: int, now_ms: int) -> tuple[AckStatus, list[EventRecord]]:
        """Absolute: that side's current time (main or byo-yomi period) becomes remaining_ms."""
        self._advance(now_ms)
        if side not in (RED, BLACK) or not 0 <= remaining_ms <= U32:
            return AckStatus.BAD_ARGS, self._take()
        s = self.sides[side]
        s.remaining_ms = remaining_ms
        if remaining_ms > 0:
            s.flagged = False
        self._emit(EventKind.ADJUST, side, now_ms, moves=s.total_moves)
        return AckStatus.OK, self._take()

    def adjust(self, side: int, delta_ms: int, now_ms: int) -> tuple[AckStatus, list[EventRecord]]:
        """Add (or with a negative delta remove) time; floors at zero. Made idempotent by the
        device's sequence-number de-duplication, not by itself."""
        self._advance(now_ms)
        if side not in (RED, BLACK):
            return AckStatus.BAD_ARGS, self._take()
        s = self.sides[side]
        s.remaining_ms = max(0, min(U32, s.remaining_ms + delta_ms))
        if s.remaining_ms > 0:
            s.flagged = False
        self._emit(EventKind.ADJUST, side, now_ms, moves=s.total_moves)
        return AckStatus.OK, self._take()
