"""Clock protocol codec: COBS framing, CRC-16/CCITT-FALSE, frame header, message payloads.

Pure functions, no I/O. The byte layout is specified in docs/clock-protocol.md and mirrored
byte for byte by the firmware (firmware_bridge/firmware/src/xq_proto.c); both are checked
against the same vectors (tests/clock/vectors.json).

A frame on the wire is ``COBS(raw) + b"\\x00"`` where
``raw = version:u8 | type:u8 | seq:u32le | payload | crc16:u16le`` and the CRC covers every
byte before it. The header layout (first six bytes) never changes between protocol
versions, so a clock can always answer a HELLO from a newer or older host.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

PROTOCOL_VERSION = 1
MIN_PROTOCOL_VERSION = 1
HEADER_LEN = 6
CRC_LEN = 2
MAX_PAYLOAD = 40
MAX_RAW = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
# COBS adds one byte per 254 (at most 1 here) plus the leading code byte.
MAX_ENCODED = MAX_RAW + 2
MAX_TEXT = 32
MAX_STAGES = 4
NO_SIDE = 0xFF


class MsgType(IntEnum):
    """Message types. Host to clock below 0x80, clock to host from 0x80."""

    HELLO = 0x01
    SYNC = 0x02
    ACK_EVENTS = 0x03
    REPLAY = 0x04
    CONFIGURE = 0x10
    SET_TIME = 0x11
    ADJUST_TIME = 0x12
    PAUSE = 0x13
    RESUME = 0x14
    START = 0x15
    DISPLAY = 0x16
    BEEP = 0x17
    HELLO_REPLY = 0x81
    ACK = 0x82
    SYNC_REPLY = 0x83
    EVENT = 0x84
    SNAPSHOT = 0x85


#: Commands that change clock state: answered by ACK, de-duplicated by sequence number.
STATEFUL_COMMANDS = frozenset(
    {
        MsgType.CONFIGURE,
        MsgType.SET_TIME,
        MsgType.ADJUST_TIME,
        MsgType.PAUSE,
        MsgType.RESUME,
        MsgType.START,
        MsgType.DISPLAY,
        MsgType.BEEP,
    }
)


class AckStatus(IntEnum):
    OK = 0
    DUPLICATE = 1  # already executed under this sequence number: not repeated, still success
    BAD_ARGS = 2
    BAD_STATE = 3
    UNKNOWN_TYPE = 4
    BAD_VERSION = 5


class EventKind(IntEnum):
    PRESS = 1
    FLAG = 2
    PERIOD = 3
    START = 4
    PAUSE = 5
    RESUME = 6
    ADJUST = 7
    CONFIG = 8


class ClockState(IntEnum):
    READY = 0
    RUNNING = 1
    PAUSED = 2


class DelayMode(IntEnum):
    NONE = 0
    SIMPLE = 1  # the clock waits `delay_ms` each move before it starts counting down
    BRONSTEIN = 2  # after the move, time used is given back, at most `delay_ms`


class FrameError(ValueError):
    """A received frame is malformed; `reason` is one of the error-counter names."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"bad clock frame ({reason}): {detail}")
        self.reason = reason
        self.detail = detail


# --------------------------------------------------------------------------- CRC and COBS


def _make_crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection); check("123456789") = 0x29B1."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent-overhead byte stuffing: output has no zero byte, so 0x00 can end a frame."""
    out = bytearray([0])
    code_index = 0
    code = 1
    last = len(data) - 1
    for idx, byte in enumerate(data):
        if byte == 0:
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF and idx != last:  # a full block at the very end needs no new block
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
    out[code_index] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of `cobs_encode`; raises FrameError('cobs', ...) on a zero byte or a short block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs", f"zero byte inside a frame at offset {i}")
        end = i + code
        if end > n:
            raise FrameError("cobs", f"block at offset {i} wants {code - 1} bytes, {n - i - 1} left")
        block = data[i + 1 : end]
        if 0 in block:
            raise FrameError("cobs", f"zero byte inside a frame near offset {i + 1 + block.index(0)}")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --------------------------------------------------------------------------- frames


@dataclass(frozen=True)
class Frame:
    """One protocol message: header fields plus the raw payload bytes."""

    type: int
    seq: int
    payload: bytes = b""
    version: int = PROTOCOL_VERSION


def encode_frame(frame: Frame) -> bytes:
    """Frame -> wire bytes, including the trailing 0x00 delimiter."""
    if not 0 <= frame.seq <= 0xFFFFFFFF:
        raise ValueError(f"sequence number {frame.seq} does not fit in 32 bits")
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    raw = struct.pack("<BBI", frame.version & 0xFF, frame.type & 0xFF, frame.seq) + bytes(frame.payload)
    raw += struct.pack("<H", crc16_ccitt(raw))
    return cobs_encode(raw) + b"\x00"


def decode_frame(encoded: bytes) -> Frame:
    """COBS block (without the 0x00 delimiter) -> Frame; FrameError says what was wrong.

    The version byte is returned, not judged: the caller decides (HELLO must be answered
    whatever the version, everything else from an unknown version is refused).
    """
    if len(encoded) > MAX_ENCODED:
        raise FrameError("length", f"{len(encoded)} encoded bytes, at most {MAX_ENCODED}")
    raw = cobs_decode(encoded)
    if len(raw) < HEADER_LEN + CRC_LEN:
        raise FrameError("length", f"{len(raw)} bytes, a frame has at least {HEADER_LEN + CRC_LEN}")
    if len(raw) > MAX_RAW:
        raise FrameError("length", f"{len(raw)} bytes, at most {MAX_RAW}")
    body, (crc,) = raw[:-CRC_LEN], struct.unpack("<H", raw[-CRC_LEN:])
    want = crc16_ccitt(body)
    if crc != want:
        raise FrameError("crc", f"CRC {crc:#06x} != computed {want:#06x}")
    version, mtype, seq = struct.unpack("<BBI", body[:HEADER_LEN])
    return Frame(type=mtype, seq=seq, payload=bytes(body[HEADER_LEN:]), version=version)


class FrameReader:
    """Splits a byte stream at 0x00 delimiters and decodes each frame.

    Bounded memory: a run of more than MAX_ENCODED bytes without a delimiter is dropped
    (counted as 'length') and the reader resynchronises at the next 0x00. Never raises on
    bad input; errors go to `errors` (counter name -> count) and `last_error`.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.errors: dict[str, int] = {"cobs": 0, "crc": 0, "length": 0}
        self.last_error: str = ""
        self.frames_ok = 0

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        start = 0
        while True:
            end = data.find(0, start)
            chunk = data[start:] if end < 0 else data[start:end]
            if not self._overflow:
                if len(self._buf) + len(chunk) > MAX_ENCODED:
                    self._overflow = True
                    self._buf.clear()
                else:
                    self._buf += chunk
            if end < 0:
                return frames
            if self._overflow:
                self._count("length", f"more than {MAX_ENCODED} bytes without a delimiter")
            elif self._buf:
                try:
                    frames.append(decode_frame(bytes(self._buf)))
                    self.frames_ok += 1
                except FrameError as exc:
                    self._count(exc.reason, str(exc))
            self._buf.clear()
            self._overflow = False
            start = end + 1

    def _count(self, reason: str, message: str) -> None:
        self.errors[reason] = self.errors.get(reason, 0) + 1
        self.last_error = message


# --------------------------------------------------------------------------- payloads


@dataclass(frozen=True)
class Stage:
    """`time_ms` for `moves` moves; moves == 0 means for the rest of the game."""

    time_ms: int
    moves: int = 0


@dataclass(frozen=True)
class TimeControl:
    """Absolute description of a time control; see docs/clock-protocol.md, 'Time controls'.

    The stages run in order; after the last stage with a move quota, that stage repeats.
    `carry_time`: time left at the end of a stage is kept (FIDE/Chinese classical) or, if
    False, replaced by the next stage's time. Byo-yomi (读秒) starts when the main time runs
    out: `byo_periods` periods of `byo_ms` per move.
    """

    stages: tuple[Stage, ...]
    increment_ms: int = 0
    delay_ms: int = 0
    delay_mode: DelayMode = DelayMode.NONE
    byo_ms: int = 0
    byo_periods: int = 0
    carry_time: bool = True

    @classmethod
    def sudden_death(cls, time_ms: int) -> "TimeControl":
        return cls(stages=(Stage(time_ms),))

    @classmethod
    def fischer(cls, time_ms: int, increment_ms: int) -> "TimeControl":
        return cls(stages=(Stage(time_ms),), increment_ms=increment_ms)

    @classmethod
    def periods(cls, stages: list[tuple[int, int]], carry_time: bool = True, increment_ms: int = 0) -> "TimeControl":
        return cls(stages=tuple(Stage(t, m) for t, m in stages), carry_time=carry_time, increment_ms=increment_ms)

    @classmethod
    def byoyomi(cls, time_ms: int, per_move_ms: int, periods: int = 1) -> "TimeControl":
        return cls(stages=(Stage(time_ms),), byo_ms=per_move_ms, byo_periods=periods)

    @classmethod
    def delay(cls, time_ms: int, delay_ms: int, mode: DelayMode = DelayMode.BRONSTEIN) -> "TimeControl":
        return cls(stages=(Stage(time_ms),), delay_ms=delay_ms, delay_mode=DelayMode(mode))

    def validate(self) -> None:
        """Raise ValueError naming the first field that the clock would refuse."""
        if not 1 <= len(self.stages) <= MAX_STAGES:
            raise ValueError(f"time control needs 1..{MAX_STAGES} stages, got {len(self.stages)}")
        for i, st in enumerate(self.stages):
            if not 0 <= st.time_ms <= 0xFFFFFFFF or not 0 <= st.moves <= 0xFFFF:
                raise ValueError(f"stage {i}: time_ms or moves out of range")
        if self.stages[0].time_ms <= 0:
            raise ValueError("stage 0 must have a positive time")
        if int(self.delay_mode) not in (0, 1, 2):
            raise ValueError(f"delay_mode {self.delay_mode} is not 0, 1 or 2")
        for name in ("increment_ms", "delay_ms", "byo_ms"):
            if not 0 <= getattr(self, name) <= 0xFFFFFFFF:
                raise ValueError(f"{name} out of range")
        if not 0 <= self.byo_periods <= 255:
            raise ValueError("byo_periods out of range 0..255")
        if self.byo_periods > 0 and self.byo_ms <= 0:
            raise ValueError("byo-yomi periods need a positive byo_ms")

    def pack(self) -> bytes:
        self.validate()
        out = bytearray([len(self.stages)])
        for i in range(MAX_STAGES):
            st = self.stages[i] if i < len(self.stages) else Stage(0, 0)
            out += struct.pack("<IH", st.time_ms, st.moves)
        out += struct.pack(
            "<IIBIBB",
            self.increment_ms,
            self.delay_ms,
            int(self.delay_mode),
            self.byo_ms,
            self.byo_periods,
            1 if self.carry_time else 0,
        )
        return bytes(out)

    @classmethod
    def unpack(cls, payload: bytes) -> "TimeControl":
        if len(payload) != CONFIG_LEN:
            raise ValueError(f"CONFIGURE payload is {len(payload)} bytes, expected {CONFIG_LEN}")
        count = payload[0]
        if not 1 <= count <= MAX_STAGES:
            raise ValueError(f"stage count {count} not in 1..{MAX_STAGES}")
        stages = []
        for i in range(count):
            t, m = struct.unpack_from("<IH", payload, 1 + 6 * i)
            stages.append(Stage(t, m))
        inc, delay, mode, byo, byo_n, flags = struct.unpack_from("<IIBIBB", payload, 1 + 6 * MAX_STAGES)
        if mode > 2:
            raise ValueError(f"delay_mode {mode} is not 0, 1 or 2")
        tc = cls(tuple(stages), inc, delay, DelayMode(mode), byo, byo_n, bool(flags & 1))
        tc.validate()
        return tc


CONFIG_LEN = 1 + 6 * MAX_STAGES + 15


@dataclass(frozen=True)
class EventRecord:
    """Payload of an EVENT frame (the sequence number is in the frame header)."""

    kind: int
    side: int
    clock_ms: int
    red_ms: int
    black_ms: int
    detail: int = 0
    moves: int = 0

    FORMAT = "<BBIIIBH"

    def pack(self) -> bytes:
        return struct.pack(self.FORMAT, self.kind, self.side, self.clock_ms & 0xFFFFFFFF, self.red_ms, self.black_ms, self.detail, self.moves)

    @classmethod
    def unpack(cls, payload: bytes) -> "EventRecord":
        if len(payload) != struct.calcsize(cls.FORMAT):
            raise ValueError(f"EVENT payload is {len(payload)} bytes, expected {struct.calcsize(cls.FORMAT)}")
        return cls(*struct.unpack(cls.FORMAT, payload))


@dataclass(frozen=True)
class SideSnapshot:
    remaining_ms: int
    stage: int
    moves_in_stage: int
    total_moves: int
    byo_left: int
    in_byo: bool
    flagged: bool


@dataclass(frozen=True)
class Snapshot:
    """Payload of a SNAPSHOT frame; the header's seq is the last event number issued."""

    clock_ms: int
    state: int
    running: int
    acked: int
    oldest: int  # oldest event still held (last event + 1 when none): below it, events are gone
    red: SideSnapshot
    black: SideSnapshot

    def pack(self) -> bytes:
        out = struct.pack("<IBBII", self.clock_ms & 0xFFFFFFFF, self.state, self.running, self.acked, self.oldest)
        for s in (self.red, self.black):
            flags = (1 if s.in_byo else 0) | (2 if s.flagged else 0)
            out += struct.pack("<IBHHBB", s.remaining_ms, s.stage, s.moves_in_stage, s.total_moves, s.byo_left, flags)
        return out

    @classmethod
    def unpack(cls, payload: bytes) -> "Snapshot":
        if len(payload) != SNAPSHOT_LEN:
            raise ValueError(f"SNAPSHOT payload is {len(payload)} bytes, expected {SNAPSHOT_LEN}")
        clock_ms, state, running, acked, oldest = struct.unpack_from("<IBBII", payload, 0)
        sides = []
        for i in range(2):
            rem, stage, mis, tot, byo_left, flags = struct.unpack_from("<IBHHBB", payload, 14 + 11 * i)
            sides.append(SideSnapshot(rem, stage, mis, tot, byo_left, bool(flags & 1), bool(flags & 2)))
        return cls(clock_ms, state, running, acked, oldest, sides[0], sides[1])


SNAPSHOT_LEN = 14 + 2 * 11


@dataclass(frozen=True)
class HelloReply:
    version: int
    min_version: int
    boot_id: int
    clock_ms: int
    last_event: int
    oldest_event: int  # oldest event still held; last_event + 1 when none is held
    capacity: int
    firmware: str

    def pack(self) -> bytes:
        fw = self.firmware.encode("ascii", "replace")[:16]
        return struct.pack("<BBIIIIB", self.version, self.min_version, self.boot_id, self.clock_ms & 0xFFFFFFFF, self.last_event, self.oldest_event, self.capacity) + fw

    @classmethod
    def unpack(cls, payload: bytes) -> "HelloReply":
        n = struct.calcsize("<BBIIIIB")
        if len(payload) < n:
            raise ValueError(f"HELLO_REPLY payload is {len(payload)} bytes, at least {n} expected")
        version, min_version, boot_id, clock_ms, last_event, oldest_event, capacity = struct.unpack_from("<BBIIIIB", payload, 0)
        return cls(version, min_version, boot_id, clock_ms, last_event, oldest_event, capacity, payload[n:].decode("ascii", "replace"))


def pack_hello(min_version: int, max_version: int, session: int) -> bytes:
    return struct.pack("<BBI", min_version, max_version, session)


def pack_u32(value: int) -> bytes:
    return struct.pack("<I", value & 0xFFFFFFFF)


def unpack_u32(payload: bytes, what: str) -> int:
    if len(payload) != 4:
        raise ValueError(f"{what} payload is {len(payload)} bytes, expected 4")
    return struct.unpack("<I", payload)[0]


def pack_ack(status: int, clock_ms: int) -> bytes:
    return struct.pack("<BI", status, clock_ms & 0xFFFFFFFF)


def unpack_ack(payload: bytes) -> tuple[int, int]:
    if len(payload) != 5:
        raise ValueError(f"ACK payload is {len(payload)} bytes, expected 5")
    return struct.unpack("<BI", payload)  # type: ignore[return-value]


def pack_display(side: int, text: str) -> bytes:
    """side 0 red display, 1 black display, 2 both; text UTF-8, at most MAX_TEXT bytes."""
    data = text.encode("utf-8")
    if len(data) > MAX_TEXT:
        raise ValueError(f"display text is {len(data)} UTF-8 bytes, at most {MAX_TEXT}")
    if side not in (0, 1, 2):
        raise ValueError(f"display side {side} is not 0 (red), 1 (black) or 2 (both)")
    return bytes([side]) + data


def valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
