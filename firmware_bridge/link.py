"""Host driver for the clock: `ClockLink(port)` on pyserial.

One I/O thread owns the port: it opens it (a device name, a pty path, or any pyserial URL
such as ``loop://``), does the version handshake, reads frames, acknowledges events,
asks for replays when it sees a gap, runs the time-offset exchange and reopens the port
when it fails or goes silent. A second thread delivers events to subscribers, in sequence
order and each exactly once, so a slow subscriber never stalls the link.

Commands (`configure`, `set_time`, `adjust_time`, `pause`, `resume`, `start`, `display`,
`beep`) may be called from any thread. Each gets its own sequence number and is resent
with that same number until the clock answers; the clock executes a sequence number at
most once, so a retry after a lost answer never applies an adjustment twice.
"""
from __future__ import annotations

import errno
import itertools
import logging
import queue
import random
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, TypeVar

import serial

from rules import Side

from . import codec
from .codec import AckStatus, EventKind, Frame, FrameReader, MsgType, TimeControl
from .pacing import MASK_BITS, HelloPacer, LinkPacing, RepairPlanner

log = logging.getLogger(__name__)

KIND_NAMES = {int(k): k.name.lower() for k in EventKind}
SIDE_NAMES: dict[int, Side] = {Side.RED.clock_index: Side.RED, Side.BLACK.clock_index: Side.BLACK}
STATE_NAMES = {0: "ready", 1: "running", 2: "paused"}
STATUS_NAMES = {int(s): s.name.lower() for s in AckStatus} | {6: "stale"}
_Item = TypeVar("_Item")
RECENT_WINDOW = 16  # commands the clock remembers (RECENT_CMDS in device.py, XQ_RECENT_CMDS in C)


class ClockLinkError(Exception):
    """Base class for clock-link failures the caller should see."""


class ClockPortMissing(ClockLinkError):
    pass


class ClockPortBusy(ClockLinkError):
    pass


class ClockCommandError(ClockLinkError):
    pass


@dataclass(frozen=True)
class ClockEvent:
    """One numbered clock event, delivered exactly once and in `seq` order.

    `clock_ms` is the clock's own millisecond counter (unwrapped past 2**32), the authority
    on time; `host_time` is the same instant in this process's `time.monotonic()` seconds,
    from the estimated clock-to-host offset (error about `offset_error_s`, typically < 2 ms
    on a local serial link). `remaining_ms` is (red, black) right after the event.
    """

    seq: int
    kind: str  # press, flag, period, start, pause, resume, adjust, config
    side: Side | None  # Side.RED / Side.BLACK (a str: "red" / "black") or None
    clock_ms: int
    host_time: float
    remaining_ms: tuple[int, int]
    detail: int = 0  # PERIOD: new stage index, or 0x80 | byo-yomi periods left
    moves: int = 0  # moves made by `side` after this event
    received_at: float = 0.0  # host monotonic time the frame arrived
    offset_error_s: float = 0.0
    boot_id: int = 0  # changes when the clock restarts (and its event numbers begin again at 1)

    def as_dict(self) -> dict:
        return {
            "type": "event",
            "seq": self.seq,
            "kind": self.kind,
            "side": self.side,
            "clock_ms": self.clock_ms,
            "host_time": round(self.host_time, 4),
            "remaining_ms": {"red": self.remaining_ms[0], "black": self.remaining_ms[1]},
            "detail": self.detail,
            "moves": self.moves,
            "received_at": round(self.received_at, 4),
            "boot_id": self.boot_id,
        }


@dataclass(frozen=True)
class ClockSnapshot:
    clock_ms: int
    host_time: float
    state: str
    running: Side | None
    last_event: int
    acked: int
    red: codec.SideSnapshot
    black: codec.SideSnapshot

    def as_dict(self) -> dict:
        def side(s: codec.SideSnapshot) -> dict:
            return {
                "remaining_ms": s.remaining_ms,
                "stage": s.stage,
                "moves_in_stage": s.moves_in_stage,
                "total_moves": s.total_moves,
                "byo_left": s.byo_left,
                "in_byo": s.in_byo,
                "flagged": s.flagged,
            }

        return {
            "type": "snapshot",
            "clock_ms": self.clock_ms,
            "host_time": round(self.host_time, 4),
            "state": self.state,
            "running": self.running,
            "last_event": self.last_event,
            "acked": self.acked,
            "red": side(self.red),
            "black": side(self.black),
        }


@dataclass(frozen=True)
class LinkStatus:
    state: str  # "connecting", "connected", "disconnected", "closed"
    detail: str
    host_time: float

    def as_dict(self) -> dict:
        return {"type": "link", "state": self.state, "detail": self.detail, "host_time": round(self.host_time, 4)}


@dataclass
class _Waiter:
    done: threading.Event = field(default_factory=threading.Event)
    status: int = -1
    clock_ms: int = 0


def open_port(port: str, baudrate: int, timeout: float = 0.02) -> serial.SerialBase:
    """Open a port name or pyserial URL exclusively; missing/busy ports get their own errors."""
    try:
        return serial.serial_for_url(port, baudrate=baudrate, timeout=timeout, write_timeout=1.0, exclusive=True)
    except serial.SerialException as exc:
        text = str(exc)
        code = getattr(exc, "errno", None)
        if code == errno.ENOENT or "No such file" in text:
            raise ClockPortMissing(f"clock port {port!r} does not exist (is the clock plugged in?)") from exc
        if code in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in text or "busy" in text.lower():
            raise ClockPortBusy(f"clock port {port!r} is busy: another program has it open") from exc
        if code == errno.EACCES:
            raise ClockLinkError(f"no permission to open clock port {port!r} (add yourself to the dialout group)") from exc
        raise ClockLinkError(f"cannot open clock port {port!r}: {text}") from exc
    except ValueError as exc:  # bad URL or parameters
        raise ClockLinkError(f"cannot open clock port {port!r}: {exc}") from exc


class _OffsetEstimator:
    """Clock-to-host offset from request/answer pairs (NTP-like), min-RTT filtered.

    Each SYNC gives t1 (host send), c (clock time at answer), t4 (host receive). Transit
    delays are positive, so the exchange with the smallest round trip bounds the offset
    tightest: offset = (t1 + t4)/2 - c, error <= rtt/2. Keeping only recent samples follows
    the drift of the clock's crystal (50 ppm is 3 ms a minute).
    """

    def __init__(self, keep: int = 16) -> None:
        self.samples: deque[tuple[float, float]] = deque(maxlen=keep)  # (rtt, offset)

    def add(self, t1: float, t4: float, clock_ms: int) -> None:
        # the clock stamps whole milliseconds: the true instant is c + 0.5 ms on average
        self.samples.append((t4 - t1, (t1 + t4) / 2.0 - (clock_ms + 0.5) / 1000.0))

    def reset(self) -> None:
        self.samples.clear()

    def best(self) -> tuple[float, float] | None:
        """(offset seconds, error bound seconds) or None before the first sample."""
        if not self.samples:
            return None
        rtt, off = min(self.samples)
        return off, rtt / 2.0 + 0.0005


class ClockLink:
    """A self-healing link to one clock. See the module docstring and firmware_bridge/__init__."""

    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        resume_after: int | None = None,
        resume_boot_id: int | None = None,
        sync_interval: float = 1.0,
        silence_timeout: float = 3.5,
        reconnect_delay: float = 0.1,
        command_timeout: float = 3.0,
        wait_for_port: bool = False,
        autostart: bool = True,
        pacing: LinkPacing | None = None,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.sync_interval = sync_interval
        self.silence_timeout = silence_timeout
        self.reconnect_delay = reconnect_delay
        self.command_timeout = command_timeout
        self._session = random.SystemRandom().randrange(1, 2**32)
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._ser: serial.SerialBase | None = None
        self._closed = threading.Event()
        self._connected = threading.Event()
        # Commands are numbered 1, 2, … and SYNC/HELLO from 2**31, so exchanges never use up
        # the clock's de-duplication window (it remembers the 16 numbers up to the highest it ran).
        self._next_cmd = 1
        self._aux_seq = itertools.count(2**31)
        self._inflight_seqs: set[int] = set()
        self._seq_cond = threading.Condition(threading.Lock())
        self._waiters: dict[int, _Waiter] = {}
        self._event_subs: list[Callable[[ClockEvent], None]] = []
        self._snapshot_subs: list[Callable[[ClockSnapshot], None]] = []
        self._link_subs: list[Callable[[LinkStatus], None]] = []
        self._dispatch_q: queue.Queue = queue.Queue()
        self._offset = _OffsetEstimator()
        self._boot_id: int | None = None
        self._delivered: int | None = resume_after
        self._resume_boot_id = resume_boot_id
        self._pending: dict[int, tuple[codec.EventRecord, float]] = {}
        # repair requests and handshakes are paced by the line's rate (pacing.py)
        self.pacing = pacing or LinkPacing(baudrate=baudrate)
        self._repair = RepairPlanner(self.pacing)
        self._newest_known = 0  # highest event number the clock is known to have made
        self._last_byte_at = time.monotonic()
        self._clock_last = 0
        self._clock_base = 0
        self._sync_sent: dict[int, float] = {}
        self.hello: codec.HelloReply | None = None
        self.last_snapshot: ClockSnapshot | None = None
        self.state = "connecting"
        self.counters: dict[str, int] = {
            "frames_ok": 0,
            "cobs_errors": 0,
            "crc_errors": 0,
            "length_errors": 0,
            "version_errors": 0,
            "payload_errors": 0,
            "duplicates": 0,
            "gaps": 0,
            "replays_requested": 0,
            "events_delivered": 0,
            "events_lost": 0,
            "reconnects": 0,
            "clock_restarts": 0,
            "command_retries": 0,
            "command_timeouts": 0,
            "callback_errors": 0,
            "bytes_rx": 0,
            "bytes_tx": 0,
        }
        if not wait_for_port:
            self._ser = open_port(port, baudrate)  # raises ClockPortMissing / ClockPortBusy now
        self._io_thread = threading.Thread(target=self._io_loop, name=f"clock-io {port}", daemon=True)
        self._dispatch_thread = threading.Thread(target=self._dispatch_loop, name="clock-dispatch", daemon=True)
        if autostart:
            self.start()

    # ------------------------------------------------------------------ public API
    def start(self) -> None:
        if not self._io_thread.is_alive():
            self._dispatch_thread.start()
            self._io_thread.start()

    def close(self) -> None:
        """Stop the threads and close the port; events already received are still delivered."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._io_thread.is_alive():
            self._io_thread.join(timeout=2.0)
        self._close_port()
        self._set_state("closed", "closed by the host")
        self._dispatch_q.put(None)
        if self._dispatch_thread.is_alive() and threading.current_thread() is not self._dispatch_thread:
            self._dispatch_thread.join(timeout=2.0)

    def __enter__(self) -> "ClockLink":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def subscribe(self, callback: Callable[[ClockEvent], None]) -> Callable[[], None]:
        """Call `callback(event)` for every event from now on; returns an unsubscribe function."""
        with self._lock:
            self._event_subs.append(callback)
        return lambda: self._unsubscribe(self._event_subs, callback)

    def subscribe_snapshots(self, callback: Callable[[ClockSnapshot], None]) -> Callable[[], None]:
        with self._lock:
            self._snapshot_subs.append(callback)
        return lambda: self._unsubscribe(self._snapshot_subs, callback)

    def subscribe_link(self, callback: Callable[[LinkStatus], None]) -> Callable[[], None]:
        with self._lock:
            self._link_subs.append(callback)
        return lambda: self._unsubscribe(self._link_subs, callback)

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self._connected.wait(timeout)

    @property
    def delivered(self) -> int:
        """Sequence number of the last event handed to subscribers (0 before any)."""
        return self._delivered or 0

    def offset(self) -> tuple[float, float] | None:
        """(host_monotonic - clock_seconds, error bound in seconds), or None if not yet known."""
        with self._lock:
            return self._offset.best()

    def clock_to_host(self, clock_ms: int) -> float:
        """A clock time (unwrapped ms) in this process's time.monotonic() seconds."""
        best = self.offset()
        if best is None:
            raise ClockLinkError("clock offset not known yet: no exchange with the clock has completed")
        return clock_ms / 1000.0 + best[0]

    def error_counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counters)

    # commands ----------------------------------------------------------
    def configure(self, tc: TimeControl) -> int:
        """Load a time control and reset both sides to its start (READY)."""
        return self._command(MsgType.CONFIGURE, tc.pack())

    def set_time(self, side: int | str, remaining_ms: int) -> int:
        return self._command(MsgType.SET_TIME, struct.pack("<BI", _side(side), remaining_ms))

    def adjust_time(self, side: int | str, delta_ms: int) -> int:
        return self._command(MsgType.ADJUST_TIME, struct.pack("<Bi", _side(side), delta_ms))

    def pause(self) -> int:
        return self._command(MsgType.PAUSE, b"")

    def resume(self) -> int:
        return self._command(MsgType.RESUME, b"")

    def start_clock(self, side: int | str) -> int:
        return self._command(MsgType.START, bytes([_side(side)]))

    def display(self, text: str, side: int | str = 2) -> int:
        """Show `text` (UTF-8, at most 32 bytes, e.g. "炮二平五") on one display or both (2)."""
        s = 2 if side in (2, "both") else _side(side)
        return self._command(MsgType.DISPLAY, codec.pack_display(s, text))

    def beep(self, duration_ms: int = 100, freq_hz: int = 2000) -> int:
        return self._command(MsgType.BEEP, struct.pack("<HH", duration_ms, freq_hz))

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _unsubscribe(lst: list, cb: Callable) -> None:
        try:
            lst.remove(cb)
        except ValueError:
            pass

    def _command(self, mtype: MsgType, payload: bytes) -> int:
        """Send until answered (same seq each time); returns the clock's ms at execution."""
        deadline = time.monotonic() + self.command_timeout
        with self._seq_cond:
            # Every command in flight stays within 16 consecutive numbers, so the clock can
            # always tell a retry (DUPLICATE) from a new command and never answers STALE.
            while self._inflight_seqs and self._next_cmd - min(self._inflight_seqs) >= RECENT_WINDOW:
                if time.monotonic() > deadline:
                    self._count("command_timeouts")
                    raise ClockCommandError(f"{mtype.name} not sent: earlier commands still unanswered")
                self._seq_cond.wait(0.05)
            seq = self._next_cmd
            self._next_cmd += 1
            self._inflight_seqs.add(seq)
        with self._lock:
            waiter = self._waiters[seq] = _Waiter()
        frame = codec.encode_frame(Frame(mtype, seq, payload))
        try:
            tries = 0
            while True:
                if self._connected.is_set():
                    if tries:
                        self._count("command_retries")
                    tries += 1
                    self._write(frame)
                # a lost frame costs one retry interval; well above a serial round trip
                # (a 115200-baud answer queued behind a full replay is ~80 ms)
                if waiter.done.wait(0.1 if tries < 3 else 0.06):
                    break
                if time.monotonic() > deadline:
                    self._count("command_timeouts")
                    raise ClockCommandError(
                        f"clock did not answer {mtype.name} (seq {seq}) within {self.command_timeout:.1f} s"
                        f" (link {self.state})"
                    )
        finally:
            with self._lock:
                self._waiters.pop(seq, None)
            with self._seq_cond:
                self._inflight_seqs.discard(seq)
                self._seq_cond.notify_all()
        if waiter.status not in (AckStatus.OK, AckStatus.DUPLICATE):
            raise ClockCommandError(f"clock refused {mtype.name} (seq {seq}): {STATUS_NAMES.get(waiter.status, waiter.status)}")
        return waiter.clock_ms

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counters[name] = self.counters.get(name, 0) + n

    def _write(self, data: bytes) -> bool:
        # Lock order: self._lock may be held while taking _write_lock, never the reverse.
        with self._write_lock:
            ser = self._ser
            if ser is None:
                return False
            try:
                ser.write(data)
            except (serial.SerialException, OSError) as exc:
                log.debug("clock write failed: %s", exc)
                return False
        self._count("bytes_tx", len(data))
        return True

    def _send(self, mtype: int, seq: int, payload: bytes = b"") -> bool:
        return self._write(codec.encode_frame(Frame(mtype, seq, payload)))

    def _set_state(self, state: str, detail: str) -> None:
        with self._lock:
            if state == self.state and state != "connected":
                return
            self.state = state
        if state == "connected":
            self._connected.set()
        else:
            self._connected.clear()
        self._dispatch_q.put(LinkStatus(state, detail, time.monotonic()))

    def _close_port(self) -> None:
        with self._write_lock:
            ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except OSError:  # closing a dead port may fail (SerialException is an OSError); it is gone either way
                pass

    def _unwrap(self, raw: int) -> int:
        """Clock ms are 32-bit on the wire (49.7 days); unwrap near the last value seen."""
        value = self._clock_base + raw
        if value < self._clock_last - 2**31:
            value += 2**32
        elif value > self._clock_last + 2**31 and value >= 2**32:
            value -= 2**32
        if value > self._clock_last:
            self._clock_last = value
            self._clock_base = value - raw
        return value

    def _host_time(self, clock_ms: int) -> tuple[float, float]:
        best = self._offset.best()
        if best is None:
            return float("nan"), float("inf")
        return clock_ms / 1000.0 + best[0], best[1]

    # I/O thread ---------------------------------------------------------
    def _io_loop(self) -> None:
        first = True
        while not self._closed.is_set():
            if self._ser is None:
                try:
                    ser = open_port(self.port, self.baudrate)
                except ClockLinkError as exc:
                    self._set_state("disconnected", str(exc))
                    self._closed.wait(self.reconnect_delay)
                    continue
                with self._write_lock:
                    self._ser = ser
                if not first:
                    self._count("reconnects")
            first = False
            self._set_state("connecting", f"handshake on {self.port}")
            try:
                self._serve()
            except (serial.SerialException, OSError) as exc:
                self._set_state("disconnected", f"port failed: {exc}")
            except _Silence as exc:
                self._set_state("disconnected", str(exc))
            except ClockLinkError as exc:  # handshake refused: retry slowly, the user sees why
                self._set_state("disconnected", str(exc))
                self._closed.wait(1.0)
            self._close_port()
            if not self._closed.is_set():
                self._closed.wait(self.reconnect_delay)

    def _serve(self) -> None:
        reader = FrameReader()
        seen = dict(reader.errors)
        hellos: dict[int, float] = {}  # HELLOs in flight: seq -> host time sent
        hello_pacer = HelloPacer(self.pacing)
        handshaken = False
        last_rx = self._last_byte_at = time.monotonic()
        next_sync = 0.0
        fast_syncs = 4
        while not self._closed.is_set():
            ser = self._ser
            if ser is None:
                return
            now = time.monotonic()
            if not handshaken and hello_pacer.due(now, now - self._last_byte_at):
                # a late answer to an earlier HELLO is as good as one to this one
                hello_seq = next(self._aux_seq)
                hellos[hello_seq] = now
                for old in sorted(hellos)[:-16]:
                    del hellos[old]
                self._send(MsgType.HELLO, hello_seq, codec.pack_hello(codec.MIN_PROTOCOL_VERSION, codec.PROTOCOL_VERSION, self._session))
            if handshaken and now >= next_sync:
                seq = next(self._aux_seq)
                with self._lock:
                    self._sync_sent[seq] = time.monotonic()
                    if len(self._sync_sent) > 64:
                        for k in sorted(self._sync_sent)[:-32]:
                            del self._sync_sent[k]
                self._send(MsgType.SYNC, seq)
                next_sync = now + (0.05 if fast_syncs > 0 else self.sync_interval)
                fast_syncs -= 1
            data = ser.read(max(1, ser.in_waiting))
            t_rx = time.monotonic()
            if data:
                self._last_byte_at = t_rx
                self._count("bytes_rx", len(data))
                frames = reader.feed(data)
                for name, n in reader.errors.items():
                    if n != seen[name]:
                        self._count(f"{name}_errors", n - seen[name])
                        seen[name] = n
                ack_needed = False
                for fr in frames:
                    last_rx = t_rx
                    self._count("frames_ok")
                    if fr.version != codec.PROTOCOL_VERSION:
                        self._count("version_errors")
                        continue
                    try:
                        if fr.type == MsgType.HELLO_REPLY and fr.seq in hellos and not handshaken:
                            self._on_hello(codec.HelloReply.unpack(fr.payload), hellos[fr.seq], t_rx)
                            handshaken = True
                            next_sync = t_rx
                        elif fr.type == MsgType.ACK and fr.seq in hellos and not handshaken:
                            status, _ = codec.unpack_ack(fr.payload)
                            raise ClockLinkError(f"clock refused the handshake: {STATUS_NAMES.get(status, status)}")
                        elif not handshaken:
                            continue  # events are replayed after the handshake
                        elif fr.type == MsgType.EVENT:
                            ack_needed |= self._on_event(fr.seq, codec.EventRecord.unpack(fr.payload), t_rx)
                        elif fr.type == MsgType.SNAPSHOT:
                            self._on_snapshot(fr.seq, codec.Snapshot.unpack(fr.payload), t_rx)
                        elif fr.type == MsgType.SYNC_REPLY:
                            self._on_sync(fr.seq, codec.unpack_u32(fr.payload, "SYNC_REPLY"), t_rx)
                        elif fr.type == MsgType.ACK:
                            status, clock_ms = codec.unpack_ack(fr.payload)
                            with self._lock:
                                w = self._waiters.get(fr.seq)
                            if w is not None:
                                w.status, w.clock_ms = status, self._unwrap(clock_ms)
                                w.done.set()
                    except ValueError as exc:
                        self._count("payload_errors")
                        log.debug("bad payload: %s", exc)
                if ack_needed and self._delivered is not None:
                    self._send(MsgType.ACK_EVENTS, 0, codec.pack_u32(self._delivered))
            if handshaken:
                self._repair_tick(time.monotonic())
            if time.monotonic() - last_rx > self.silence_timeout:
                raise _Silence(f"no frame from the clock for {self.silence_timeout:.1f} s")

    def _on_hello(self, r: codec.HelloReply, t1: float, t4: float) -> None:
        with self._lock:
            self.hello = r
            if self._boot_id is not None and r.boot_id != self._boot_id:
                self._count("clock_restarts")
                self._offset.reset()
                self._clock_last = self._clock_base = 0
                self._pending.clear()
                self._delivered = r.oldest_event - 1
                self._dispatch_q.put(LinkStatus("connecting", "the clock restarted: event numbers begin again", t4))
            if self._boot_id is None and self._resume_boot_id not in (None, r.boot_id):
                # the recorded events came from an earlier power-up: their numbers mean nothing now
                self._delivered = None
                self._dispatch_q.put(LinkStatus("connecting", "the clock restarted since the recorded events", t4))
            self._boot_id = r.boot_id
            if self._delivered is None:
                self._delivered = r.oldest_event - 1
            self._offset.add(t1, t4, self._unwrap(r.clock_ms))
            self._newest_known = r.last_event
            self._check_lost(r.oldest_event)
            # everything after the last delivered event, at once, oldest first; holes among
            # the next 32 (what a repair can name) are asked for once those had time to arrive
            self._count("replays_requested")
            self._send(MsgType.REPLAY, 0, codec.pack_u32(self._delivered))
            self._repair.restart(t4, self.pacing.full_replay_s(min(MASK_BITS, max(0, r.last_event - self._delivered))))
        self._set_state("connected", f"clock {r.firmware!r} protocol {r.version}, last event {r.last_event}")

    def _on_sync(self, seq: int, clock_ms: int, t4: float) -> None:
        with self._lock:
            t1 = self._sync_sent.pop(seq, None)
            if t1 is not None:
                self._offset.add(t1, t4, self._unwrap(clock_ms))

    def _check_lost(self, oldest: int) -> None:
        """Events below `oldest` are gone from the clock (its ring overflowed while we were away)."""
        assert self._delivered is not None
        if oldest > self._delivered + 1:
            lost = oldest - 1 - self._delivered
            self._count("events_lost", lost)
            self._dispatch_q.put(LinkStatus(self.state, f"{lost} clock events lost: the clock's buffer overflowed", time.monotonic()))
            self._delivered = oldest - 1
            self._drain_pending()

    def _repair_tick(self, now: float) -> None:
        """Ask again, selectively, for the events missing after the last delivered one.

        RepairPlanner (pacing.py) decides when: a new hole at once, an open one again as soon
        as the previous answer could have arrived, backing off only while the line is quiet.
        The masked REPLAY also acknowledges everything delivered.
        """
        with self._lock:
            if self._delivered is None:
                return
            newest = max(self._newest_known, max(self._pending) if self._pending else 0)
            req = self._repair.plan(now, self._delivered, self._pending, newest, now - self._last_byte_at)
        if req is not None:
            self._count("replays_requested")
            self._send(MsgType.REPLAY, 0, codec.pack_u32(req.after) + codec.pack_u32(req.mask))

    def _on_event(self, seq: int, ev: codec.EventRecord, t_rx: float) -> bool:
        with self._lock:
            assert self._delivered is not None
            if seq <= self._delivered or seq in self._pending:
                self._count("duplicates")
                return True
            self._pending[seq] = (ev, t_rx)
            self._newest_known = max(self._newest_known, seq)
            if seq != self._delivered + 1:
                self._count("gaps")  # asked for by the next _repair_tick
                if len(self._pending) > 4096:  # never hold more than this; oldest gap is lost
                    self._check_lost(min(self._pending))
                return False
            self._drain_pending()
            return True

    def _drain_pending(self) -> None:
        assert self._delivered is not None
        while self._delivered + 1 in self._pending:
            seq = self._delivered + 1
            ev, t_rx = self._pending.pop(seq)
            clock_ms = self._unwrap(ev.clock_ms)
            host_time, err = self._host_time(clock_ms)
            self._delivered = seq
            self._count("events_delivered")
            self._dispatch_q.put(
                ClockEvent(
                    seq=seq,
                    kind=KIND_NAMES.get(ev.kind, f"kind{ev.kind}"),
                    side=SIDE_NAMES.get(ev.side),
                    clock_ms=clock_ms,
                    host_time=host_time,
                    remaining_ms=(ev.red_ms, ev.black_ms),
                    detail=ev.detail,
                    moves=ev.moves,
                    received_at=t_rx,
                    offset_error_s=err,
                    boot_id=self._boot_id or 0,
                )
            )
        for s in [s for s in self._pending if s <= self._delivered]:
            del self._pending[s]

    def _on_snapshot(self, last_event: int, snap: codec.Snapshot, t_rx: float) -> None:
        with self._lock:
            assert self._delivered is not None
            self._check_lost(snap.oldest)
            self._newest_known = max(self._newest_known, last_event)
            clock_ms = self._unwrap(snap.clock_ms)
            host_time, _ = self._host_time(clock_ms)
            s = ClockSnapshot(
                clock_ms,
                host_time,
                STATE_NAMES.get(snap.state, str(snap.state)),
                SIDE_NAMES.get(snap.running),
                last_event,
                snap.acked,
                snap.red,
                snap.black,
            )
            self.last_snapshot = s
        self._dispatch_q.put(s)

    # dispatcher thread ----------------------------------------------------
    def _dispatch_loop(self) -> None:
        while True:
            item = self._dispatch_q.get()
            if item is None:
                return
            if isinstance(item, ClockEvent):
                self._call_each(self._event_subs, item)
            elif isinstance(item, ClockSnapshot):
                self._call_each(self._snapshot_subs, item)
            else:
                self._call_each(self._link_subs, item)

    def _call_each(self, subscribers: list[Callable[[_Item], None]], item: _Item) -> None:
        with self._lock:
            subs = list(subscribers)
        for cb in subs:
            try:
                cb(item)
            except Exception:  # a subscriber's bug must not stop the link
                self._count("callback_errors")
                log.exception("clock subscriber failed on %r", item)


class _Silence(Exception):
    pass


def _side(side: int | str) -> int:
    if side in (0, "red", "r", "w"):
        return 0
    if side in (1, "black", "b"):
        return 1
    raise ValueError(f"side {side!r} is not red/0 or black/1")
