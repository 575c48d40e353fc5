"""The clock side of the protocol: what the firmware does with frames, as a pure object.

`ClockDevice` takes received bytes, button presses and the time (`now_ms`, the clock's own
millisecond counter) and produces the bytes to transmit. No I/O: the emulator
(firmware_bridge/emulator.py) wires it to a pseudo-terminal, the firmware's C
(firmware/src/xq_device.c) does the same job on the microcontroller, and the two are held
to identical output bytes by the device vectors in tests/clock/vectors.json.

Duties (docs/clock-protocol.md):
- number every event from 1, keep unacknowledged ones in a ring of `capacity`, resend the
  oldest RETX_BURST of them every RETX_MS until acknowledged, replay "everything after N"
  on request;
- keep the host's last selective request (the events it lacks, a bit mask) and serve it
  itself, REPAIR_BURST events every REPAIR_MS in turn for REPAIR_ROUNDS rounds: on a noisy
  line most requests are lost, so one that gets through keeps working; the clock alone sets
  the pace of these answers, so however often the host asks they take at most a third of
  the line; a request naming events already overwritten also gets a SNAPSHOT, so the host
  learns of the loss at once;
- a SNAPSHOT every SNAPSHOT_MS;
- answer HELLO (version handshake), SYNC (time exchange) and commands; state-changing
  commands are de-duplicated by sequence number, so a retry never applies twice.
"""
from __future__ import annotations

import struct
from collections import deque
from typing import Callable

from . import codec
from .codec import AckStatus, ClockState, EventRecord, Frame, FrameReader, MsgType, TimeControl
from .timecontrol import ClockMachine

SNAPSHOT_MS = 1000
RETX_MS = 200
RETX_BURST = 4  # events resent per retransmission tick: the oldest unacknowledged ones
# Serving a selective request (docs/clock-protocol.md §4): REPAIR_BURST events (27 bytes each
# on the wire, 2.3 ms at 115200 baud) every REPAIR_MS is 37 % of the line at most
REPAIR_MS = 25
REPAIR_BURST = 4
REPAIR_ROUNDS = 8  # a request is served this long (200 ms) unless a newer one replaces it
RECENT_CMDS = 16
DEFAULT_CAPACITY = 32
FIRMWARE_NAME = "xqclock 1.0"
DEFAULT_TC = TimeControl.sudden_death(15 * 60 * 1000)
STALE = 6  # AckStatus extension: sequence number too old to tell whether it ran; not executed
U32 = 0xFFFFFFFF


def _due(now_ms: int, at_ms: int) -> bool:
    """now >= at on the 32-bit millisecond counter, correct across its wrap (as the C)."""
    return ((now_ms - at_ms) & U32) < 0x80000000


class ClockDevice:
    def __init__(
        self,
        now_ms: int = 0,
        *,
        boot_id: int = 1,
        capacity: int = DEFAULT_CAPACITY,
        firmware: str = FIRMWARE_NAME,
        tc: TimeControl = DEFAULT_TC,
    ) -> None:
        if not 1 <= capacity <= 65535:
            raise ValueError(f"event capacity {capacity} not in 1..65535")
        self.machine = ClockMachine(tc, now_ms)
        self.boot_id = boot_id & 0xFFFFFFFF
        self.capacity = capacity
        self.firmware = firmware
        self.ring: deque[tuple[int, EventRecord]] = deque()
        self.last_seq = 0
        self.acked = 0
        self.events_overwritten = 0
        self.ring_peak = 0  # most events held at once: how close the ring came to overflowing
        self.events_resent = 0  # EVENT frames sent again (periodic, replays): the cost of a noisy line
        # the host's last selective request: events after+1+i for each bit i of mask
        self.want_after = 0
        self.want_mask = 0
        self.want_rounds = 0  # rounds left to serve it (0: none)
        self.want_next = 0  # the event number a round starts from (the rounds take turns)
        self.want_last_ms = (now_ms - REPAIR_MS) & U32  # when the last round was sent
        self.session = 0
        self.max_cmd = 0
        # (seq, status) of the command numbered seq, in slot seq % RECENT_CMDS: every number
        # within RECENT_CMDS of the highest run is remembered however the commands interleave
        self.recent: list[tuple[int, int]] = [(0, 0)] * RECENT_CMDS
        self.next_snapshot = (now_ms + SNAPSHOT_MS) & U32
        self.retx_at: int | None = None
        self.reader = FrameReader()
        self.out = bytearray()
        self.display = ["", ""]
        self.beeps: list[tuple[int, int]] = []
        self.bad_frames = 0
        #: every event as it was made, for emulator logs and tests (not held on the MCU)
        self.history_hook: Callable[[int, EventRecord], None] | None = None

    # ------------------------------------------------------------------ output helpers
    def _send(self, mtype: int, seq: int, payload: bytes = b"") -> None:
        self.out += codec.encode_frame(Frame(mtype, seq, payload))

    def take_output(self) -> bytes:
        data = bytes(self.out)
        self.out.clear()
        return data

    def _push_events(self, events: list[EventRecord], now_ms: int) -> None:
        for ev in events:
            self.last_seq = (self.last_seq + 1) & 0xFFFFFFFF
            self.ring.append((self.last_seq, ev))
            if len(self.ring) > self.capacity:
                self.ring.popleft()
                self.events_overwritten += 1
            self.ring_peak = max(self.ring_peak, len(self.ring))
            if self.history_hook is not None:
                self.history_hook(self.last_seq, ev)
            self._send(MsgType.EVENT, self.last_seq, ev.pack())
            if self.retx_at is None:
                self.retx_at = (now_ms + RETX_MS) & U32

    def _ack_upto(self, upto: int, now_ms: int) -> None:
        if upto > self.last_seq:
            upto = self.last_seq
        progressed = False
        while self.ring and self.ring[0][0] <= upto:
            self.ring.popleft()
            progressed = True
        if upto > self.acked:
            self.acked = upto
        if not self.ring:
            self.retx_at = None
        elif progressed:
            self.retx_at = (now_ms + RETX_MS) & U32

    def _resend(self, after: int, now_ms: int, limit: int = 0) -> None:
        """Send held events after `after`, at most `limit` of them (0: all)."""
        sent = 0
        for seq, ev in self.ring:
            if seq > after:
                if limit and sent >= limit:
                    break
                self._send(MsgType.EVENT, seq, ev.pack())
                self.events_resent += 1
                sent += 1
        self.retx_at = (now_ms + RETX_MS) & U32 if self.ring else None

    def _want(self, after: int, mask: int, now_ms: int) -> None:
        """A selective request: serve it from now on in paced rounds (see _repair_round).

        A request naming an event the ring no longer holds (overwritten while the host waited)
        is answered with a SNAPSHOT as well: its `oldest` tells the host at once how many were
        lost, instead of after the next periodic snapshot got through a noisy line.
        """
        if mask:
            lowest = (mask & -mask).bit_length() - 1
            if _due((self.oldest_held() - 1) & U32, (after + 1 + lowest) & U32):  # the oldest named < first
                self._send_snapshot(now_ms)
        self.want_after, self.want_mask = after, mask
        self.want_rounds = REPAIR_ROUNDS if mask else 0
        if mask and ((now_ms - self.want_last_ms) & U32) >= REPAIR_MS:
            self._repair_round(now_ms)

    def _repair_round(self, now_ms: int) -> None:
        """Send up to REPAIR_BURST of the wanted events still held, taking turns across rounds."""
        self.want_last_ms = now_ms & U32
        self.want_rounds -= 1
        first = self.oldest_held()
        named = [
            (self.want_after + 1 + i) & U32 for i in range(32)
            if self.want_mask >> i & 1 and first <= (self.want_after + 1 + i) & U32 <= self.last_seq
        ]
        if not named:
            self.want_rounds = 0  # all delivered (acknowledged) or gone: nothing left to serve
            return
        start = next((k for k, seq in enumerate(named) if seq >= self.want_next), 0)
        for seq in (named[start:] + named[:start])[:REPAIR_BURST]:
            self._send(MsgType.EVENT, seq, self.ring[seq - first][1].pack())
            self.events_resent += 1
            self.want_next = (seq + 1) & U32

    def _send_snapshot(self, now_ms: int) -> None:
        self._send(MsgType.SNAPSHOT, self.last_seq, self.snapshot(now_ms).pack())

    def oldest_held(self) -> int:
        return self.ring[0][0] if self.ring else self.last_seq + 1

    def snapshot(self, now_ms: int) -> codec.Snapshot:
        m = self.machine
        sides = [
            codec.SideSnapshot(s.remaining_ms, s.stage, s.moves_in_stage, s.total_moves, s.byo_left, s.in_byo, s.flagged)
            for s in m.sides
        ]
        return codec.Snapshot(now_ms & 0xFFFFFFFF, int(m.state), m.running, self.acked, self.oldest_held(), sides[0], sides[1])

    # ------------------------------------------------------------------ inputs
    def poll(self, now_ms: int) -> None:
        """Time passes: run the clock, send the snapshot and retransmissions that are due."""
        self._push_events(self.machine.tick(now_ms), now_ms)
        if self.retx_at is not None and _due(now_ms, self.retx_at):
            if self.want_rounds:  # the host is asking, and being answered: no blind resend
                self.retx_at = (now_ms + RETX_MS) & U32
            else:
                self._resend(self.acked, now_ms, RETX_BURST)
        if self.want_rounds and ((now_ms - self.want_last_ms) & U32) >= REPAIR_MS:
            self._repair_round(now_ms)
        if _due(now_ms, self.next_snapshot):
            self._send_snapshot(now_ms)
            self.next_snapshot = (self.next_snapshot + SNAPSHOT_MS) & U32
            if _due(now_ms, self.next_snapshot):
                self.next_snapshot = (now_ms + SNAPSHOT_MS) & U32

    def press(self, side: int, now_ms: int) -> None:
        self._push_events(self.machine.press(side, now_ms), now_ms)

    def pause_button(self, now_ms: int) -> None:
        """The clock's own pause key: pause if running, resume if paused."""
        if self.machine.state == ClockState.PAUSED:
            self._push_events(self.machine.resume(now_ms), now_ms)
        else:
            self._push_events(self.machine.pause(now_ms), now_ms)

    def receive(self, data: bytes, now_ms: int) -> None:
        bad_before = sum(self.reader.errors.values())
        for frame in self.reader.feed(data):
            self.handle(frame, now_ms)
        self.bad_frames += sum(self.reader.errors.values()) - bad_before

    def handle(self, frame: Frame, now_ms: int) -> None:
        t = frame.type
        if t == MsgType.HELLO:
            self._hello(frame, now_ms)
            return
        if frame.version != codec.PROTOCOL_VERSION:
            if t in codec.STATEFUL_COMMANDS:
                self._send(MsgType.ACK, frame.seq, codec.pack_ack(AckStatus.BAD_VERSION, now_ms))
            self.bad_frames += 1
            return
        if t == MsgType.SYNC:
            self._send(MsgType.SYNC_REPLY, frame.seq, codec.pack_u32(now_ms))
        elif t == MsgType.ACK_EVENTS:
            if len(frame.payload) == 4:
                self._ack_upto(struct.unpack("<I", frame.payload)[0], now_ms)
            else:
                self.bad_frames += 1
        elif t == MsgType.REPLAY:
            if len(frame.payload) in (4, 8):
                after = struct.unpack_from("<I", frame.payload)[0]
                self._ack_upto(after, now_ms)
                if len(frame.payload) == 8:
                    self._want(after, struct.unpack_from("<I", frame.payload, 4)[0], now_ms)
                else:
                    self.want_rounds = 0  # everything after `after` goes now
                    self._resend(after, now_ms)
            else:
                self.bad_frames += 1
        elif t in codec.STATEFUL_COMMANDS:
            self._send(MsgType.ACK, frame.seq, codec.pack_ack(self._command(frame, now_ms), now_ms))
        elif t < 0x80:
            self._send(MsgType.ACK, frame.seq, codec.pack_ack(AckStatus.UNKNOWN_TYPE, now_ms))
        else:
            self.bad_frames += 1  # a clock-to-host type sent to the clock: ignore

    def _hello(self, frame: Frame, now_ms: int) -> None:
        if len(frame.payload) != 6:
            self._send(MsgType.ACK, frame.seq, codec.pack_ack(AckStatus.BAD_ARGS, now_ms))
            return
        lo, hi, session = struct.unpack("<BBI", frame.payload)
        if not lo <= codec.PROTOCOL_VERSION <= hi:
            self._send(MsgType.ACK, frame.seq, codec.pack_ack(AckStatus.BAD_VERSION, now_ms))
            return
        if session != self.session:
            self.session = session
            self.max_cmd = 0
            self.recent = [(0, 0)] * RECENT_CMDS
        reply = codec.HelloReply(
            codec.PROTOCOL_VERSION,
            codec.MIN_PROTOCOL_VERSION,
            self.boot_id,
            now_ms,
            self.last_seq,
            self.oldest_held(),
            min(self.capacity, 255),
            self.firmware,
        )
        self._send(MsgType.HELLO_REPLY, frame.seq, reply.pack())

    def _command(self, frame: Frame, now_ms: int) -> int:
        """Run a command once per sequence number; a number seen again gets its first answer.

        The memory is indexed by number, not by arrival: the host keeps every command in
        flight within RECENT_CMDS consecutive numbers, but its threads' commands (and their
        retries) arrive in any order, so more than RECENT_CMDS others may run between a
        command and its retry. A list of the last RECENT_CMDS *run* would have forgotten it
        by then, and the retry, not yet STALE, would run again (an adjustment applied twice).
        Slot seq % RECENT_CMDS is overwritten only by a number RECENT_CMDS or more higher,
        which makes seq STALE, so a number is never run twice in a session.
        """
        seq = frame.seq
        if seq == 0:
            return AckStatus.BAD_ARGS
        slot = seq % RECENT_CMDS
        s, status = self.recent[slot]
        if s == seq:
            return AckStatus.DUPLICATE if status == AckStatus.OK else status
        if self.max_cmd >= RECENT_CMDS and seq <= self.max_cmd - RECENT_CMDS:
            return STALE
        status = self._execute(frame, now_ms)
        self.recent[slot] = (seq, status)
        if seq > self.max_cmd:
            self.max_cmd = seq
        return status

    def _execute(self, frame: Frame, now_ms: int) -> int:
        t, p, m = frame.type, frame.payload, self.machine
        if t == MsgType.CONFIGURE:
            try:
                tc = TimeControl.unpack(p)
            except ValueError:
                return AckStatus.BAD_ARGS
            self._push_events(m.configure(tc, now_ms), now_ms)
            return AckStatus.OK
        if t in (MsgType.PAUSE, MsgType.RESUME):
            if p:
                return AckStatus.BAD_ARGS
            evs = m.pause(now_ms) if t == MsgType.PAUSE else m.resume(now_ms)
            self._push_events(evs, now_ms)
            return AckStatus.OK
        if t == MsgType.START:
            if len(p) != 1:
                return AckStatus.BAD_ARGS
            status, evs = m.start(p[0], now_ms)
            self._push_events(evs, now_ms)
            return status
        if t in (MsgType.SET_TIME, MsgType.ADJUST_TIME):
            if len(p) != 5:
                return AckStatus.BAD_ARGS
            side = p[0]
            if t == MsgType.SET_TIME:
                status, evs = m.set_time(side, struct.unpack_from("<I", p, 1)[0], now_ms)
            else:
                status, evs = m.adjust(side, struct.unpack_from("<i", p, 1)[0], now_ms)
            self._push_events(evs, now_ms)
            return status
        if t == MsgType.DISPLAY:
            if not 1 <= len(p) <= 1 + codec.MAX_TEXT or p[0] > 2 or not codec.valid_utf8(p[1:]):
                return AckStatus.BAD_ARGS
            text = p[1:].decode("utf-8")
            for side in (0, 1):
                if p[0] in (side, 2):
                    self.display[side] = text
            return AckStatus.OK
        if t == MsgType.BEEP:
            if len(p) != 4:
                return AckStatus.BAD_ARGS
            dur, freq = struct.unpack("<HH", p)
            self.beeps.append((dur, freq))
            del self.beeps[:-8]
            return AckStatus.OK
        return AckStatus.UNKNOWN_TYPE
