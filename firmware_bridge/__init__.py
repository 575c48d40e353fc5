"""xqtrack: firmware_bridge part — the digital clock over a serial line.

The clock is the only authority on time. It numbers every event, keeps each until the host
acknowledges it and replays after reconnects; this package turns that into a stream of
events on the host's own clock. Protocol: docs/clock-protocol.md.

Event API (what the tracker in board/ subscribes to)::

    from firmware_bridge import ClockLink, ClockEvent

    link = ClockLink("/dev/ttyUSB0")        # or a pty path, or a pyserial URL ("loop://", "rfc2217://…")
    unsubscribe = link.subscribe(on_event)  # on_event(ev: ClockEvent), called from one thread
    link.subscribe_link(on_link)            # on_link(LinkStatus(state, detail, host_time))
    link.subscribe_snapshots(on_snapshot)   # on_snapshot(ClockSnapshot), about once a second
    ...
    link.close()                            # or `with ClockLink(port) as link:`

`ClockEvent(seq, kind, side, clock_ms, host_time, remaining_ms, detail, moves, received_at,
offset_error_s)`:
- `seq`: 1, 2, 3, … Each event is delivered exactly once and in order, across port failures,
  reconnects and corrupted bytes (the clock replays what the host missed).
- `kind`: "press" (side ended a move), "start" (side's clock started), "flag" (side's time
  ran out; what follows is the ruleset's call), "period" (a new stage or a byo-yomi period:
  `detail` is the stage index, or 0x80 | periods left), "pause", "resume", "adjust"
  (arbiter set or changed a time), "config" (a time control was loaded; both sides reset).
- `side`: "red", "black" or None.
- `clock_ms`: the clock's millisecond counter at the event (the authority).
- `host_time`: the same instant in this process's `time.monotonic()` seconds (clock_ms plus
  the estimated offset; error about `offset_error_s`, typically 1–2 ms on a local link).
  Use it to line a press up with video frames taken on the same host clock. For an event
  replayed after a disconnect, `received_at` is late but `host_time` is still the true time.
- `remaining_ms`: (red, black) right after the event; `moves`: side's move count.

A new `ClockLink` delivers the events the clock still holds (unacknowledged) and then new
ones; pass `resume_after=N` (and `resume_boot_id=B`, the `boot_id` of that event) to
continue after the last event you recorded; if the clock restarted since, it starts over. Events the
clock could not hold while no host listened (its buffer is 32) are counted in
`error_counts()["events_lost"]` and reported through the link subscribers, never invented.

Commands (any thread; each answered by sequence number, retried safely, raises
`ClockCommandError` when refused or unanswered): `configure(TimeControl)`,
`set_time(side, ms)`, `adjust_time(side, delta_ms)`, `pause()`, `resume()`,
`start_clock(side)`, `display(text, side=2)`, `beep(ms, hz)`. Time controls:
`TimeControl.sudden_death / fischer / periods / byoyomi / delay` or
`parse_time_control("60m+30s")`.

On a noisy line the link asks again for what it misses on its own timer, paced by the line's
rate (`ClockLink(port, pacing=LinkPacing(...))`, defaults for 115200 baud; see
docs/clock-protocol.md §4): a burst of 200 presses at 5 % corrupted bytes loses none.

Opening a missing or busy port raises `ClockPortMissing` / `ClockPortBusy` at once; later
failures are retried in the background and reported as link states ("connecting",
"connected", "disconnected", "closed"). `error_counts()` gives CRC/COBS/length errors,
duplicates, gaps, replays, reconnects and command retries.
"""
from .codec import DelayMode, Stage, TimeControl
from .link import (
    ClockCommandError,
    ClockEvent,
    ClockLink,
    ClockLinkError,
    ClockPortBusy,
    ClockPortMissing,
    ClockSnapshot,
    LinkStatus,
)
from .pacing import LinkPacing
from .tcspec import parse_time_control

__all__ = [
    "ClockCommandError",
    "ClockEvent",
    "ClockLink",
    "ClockLinkError",
    "ClockPortBusy",
    "ClockPortMissing",
    "ClockSnapshot",
    "DelayMode",
    "LinkPacing",
    "LinkStatus",
    "Stage",
    "TimeControl",
    "parse_time_control",
]
