"""When the host asks the clock again: repair requests and handshakes paced by the line.

Pure logic, no I/O: `ClockLink` (link.py) feeds it what it holds and what it knows the clock
has, and sends what it says when it says. Kept apart so the pacing can be tested without a
port and reasoned about in one place.

Why it exists: on a noisy line (5 % of bytes corrupted loses about three EVENT frames in
four, and more than half of the host's requests) the host must not wait for the next lucky
frame to ask again for a hole. Holes hold up in-order delivery, and while one is open the
clock keeps every later event in its small ring; a hole repaired slowly overflows the ring.
So the host asks again on its own timer, as soon as the previous answer could have arrived
(its wire time at the line's rate plus a turnaround allowance), which also bounds the answer
traffic below the line's capacity: a noisy line is repaired fast but never flooded (the
clock's firmware also keeps the last request and paces its own answers, device.py
REPAIR_*; this pacing is what keeps a clock that answers at once within its line too). It
backs off only when the line is *quiet* (no byte at all arrives: a clock switched off or a
dead cable), never merely because a request went unanswered on a noisy line.
"""
from __future__ import annotations

import struct
from collections.abc import Container
from dataclasses import dataclass

from .codec import CRC_LEN, HEADER_LEN, EventRecord


def frame_wire_bytes(payload: int) -> int:
    """Bytes a frame with `payload` payload bytes takes on the wire: header, payload and CRC,
    one COBS code byte (frames are shorter than 254 bytes) and the 0x00 delimiter."""
    return HEADER_LEN + payload + CRC_LEN + 2


EVENT_WIRE_BYTES = frame_wire_bytes(struct.calcsize(EventRecord.FORMAT))
REPLAY_WIRE_BYTES = frame_wire_bytes(8)
HELLO_WIRE_BYTES = frame_wire_bytes(6)
HELLO_REPLY_WIRE_BYTES = frame_wire_bytes(19 + 16)
MASK_BITS = 32  # events one masked REPLAY can name (docs/clock-protocol.md §3)


@dataclass(frozen=True)
class LinkPacing:
    """How often the host speaks again; times in seconds, the line's rate in baud (8N1)."""

    baudrate: int = 115200
    #: beyond the wire time of a request and its answer: the OS, the clock's main loop. A
    #: USB bridge's latency timer (up to 16 ms) may make an answer later than this; the
    #: request is then repeated before it lands, which costs a duplicate, never more than
    #: one answer per interval. Measured at 5 % corrupted bytes, 200 presses 150 ms apart:
    #: 10 ms keeps at most 9-15 events waiting in the clock's ring, 25 ms 17-20.
    turnaround_s: float = 0.01
    #: events one repair request names at most, the oldest missing first: they hold up
    #: delivery, and a short answer lets the next round come sooner; later holes are named
    #: in the next rounds
    repair_max_events: int = 8
    #: no byte from the clock for this long: the line is quiet, not noisy; back off
    quiet_after_s: float = 0.5
    #: each request sent into a quiet line multiplies the interval by this, up to `max_interval_s`
    quiet_backoff: float = 2.0
    max_interval_s: float = 0.5

    def __post_init__(self) -> None:
        if self.baudrate <= 0:
            raise ValueError(f"LinkPacing.baudrate must be positive, got {self.baudrate}")
        if not 1 <= self.repair_max_events <= MASK_BITS:
            raise ValueError(f"LinkPacing.repair_max_events must be 1..{MASK_BITS}, got {self.repair_max_events}")
        if self.quiet_backoff < 1.0:
            raise ValueError(f"LinkPacing.quiet_backoff must be at least 1, got {self.quiet_backoff}")
        for name in ("turnaround_s", "quiet_after_s", "max_interval_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"LinkPacing.{name} must be positive, got {getattr(self, name)}")

    def wire_s(self, nbytes: int) -> float:
        """Seconds `nbytes` take on the line (10 bit times each)."""
        return nbytes * 10.0 / self.baudrate

    def repair_interval_s(self, events: int) -> float:
        """Time for a request naming `events` events to be answered in full, plus turnaround."""
        return self.turnaround_s + self.wire_s(REPLAY_WIRE_BYTES + events * EVENT_WIRE_BYTES)

    def hello_interval_s(self) -> float:
        """Time for a HELLO and its answer; a noisy line loses about 19 handshakes in 20 at 5 %
        corrupted bytes, so retrying as soon as the answer is overdue keeps the handshake short."""
        return self.turnaround_s + self.wire_s(HELLO_WIRE_BYTES + HELLO_REPLY_WIRE_BYTES)

    def full_replay_s(self, events: int) -> float:
        """Time for an unmasked replay of `events` held events (after a handshake) to arrive."""
        return self.turnaround_s + self.wire_s(events * EVENT_WIRE_BYTES)


@dataclass(frozen=True)
class RepairRequest:
    """A masked REPLAY: acknowledges up to `after` and names event after+1+i for each bit i."""

    after: int
    mask: int

    @property
    def count(self) -> int:
        return bin(self.mask).count("1")


def missing_events(delivered: int, held: Container[int], newest_known: int, limit: int) -> list[int]:
    """Numbers after `delivered`, up to `newest_known` and within one mask, not held: oldest first."""
    last = min(newest_known, delivered + MASK_BITS)
    out: list[int] = []
    for seq in range(delivered + 1, last + 1):
        if seq not in held:
            out.append(seq)
            if len(out) >= limit:
                break
    return out


class RepairPlanner:
    """Decides when to ask again for missing events and which ones (see the module docstring).

    A new hole is asked for at once; while holes stay open the request is repeated every
    `repair_interval_s(count)`; with the line quiet the interval doubles up to
    `max_interval_s`, and it falls back as soon as bytes arrive again.
    """

    def __init__(self, pacing: LinkPacing | None = None) -> None:
        self.pacing = pacing or LinkPacing()
        self.next_at = 0.0
        self._quiet_interval = 0.0  # the last interval used while the line was quiet (0: it was not)

    def restart(self, now: float, hold_s: float) -> None:
        """A new connection: forget any backoff, and ask nothing before now + hold_s (the
        full replay that follows a handshake is on its way)."""
        self.next_at = now + hold_s
        self._quiet_interval = 0.0

    def plan(self, now: float, delivered: int, held: Container[int], newest_known: int, since_rx_s: float) -> RepairRequest | None:
        """The request to send now, or None. `since_rx_s`: seconds since the clock's last byte."""
        missing = missing_events(delivered, held, newest_known, self.pacing.repair_max_events)
        if not missing:
            self.next_at = 0.0  # nothing open: the next hole is asked for at once
            self._quiet_interval = 0.0
            return None
        if now < self.next_at:
            return None
        interval = self.pacing.repair_interval_s(len(missing))
        if since_rx_s > self.pacing.quiet_after_s:
            interval = min(self.pacing.max_interval_s, max(interval, self._quiet_interval) * self.pacing.quiet_backoff)
            self._quiet_interval = interval
        else:
            self._quiet_interval = 0.0
        self.next_at = now + interval
        mask = 0
        for seq in missing:
            mask |= 1 << (seq - delivered - 1)
        return RepairRequest(delivered, mask)


class HelloPacer:
    """When to send the next HELLO: quickly while the clock's bytes arrive, backing off when quiet."""

    def __init__(self, pacing: LinkPacing | None = None) -> None:
        self.pacing = pacing or LinkPacing()
        self.next_at = 0.0
        self._interval = self.pacing.hello_interval_s()

    def due(self, now: float, since_rx_s: float) -> bool:
        """True when a HELLO should go now (and schedules the one after it)."""
        if now < self.next_at:
            return False
        if since_rx_s > self.pacing.quiet_after_s:
            self._interval = min(self.pacing.max_interval_s, self._interval * self.pacing.quiet_backoff)
        else:
            self._interval = self.pacing.hello_interval_s()
        self.next_at = now + self._interval
        return True
