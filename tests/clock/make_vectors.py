"""Regenerates tests/clock/vectors.json: the test vectors the Python and C clocks share.

Run from the repository root: `.venv/bin/python tests/clock/make_vectors.py`.

Codec vectors mix published facts (the CRC-16/CCITT-FALSE check value, COBS examples) with
frames the Python codec encodes. Device vectors are scenarios (host frames received, presses,
time passing) with the bytes the Python reference `ClockDevice` sent after each step; the
time-control arithmetic inside them is checked by hand in test_timecontrol.py, and the C
device must send exactly the same bytes (test_c_core.py). Review a diff of this file as you
would review code: a changed expectation is a changed protocol.
"""
from __future__ import annotations

import json
import random
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from firmware_bridge import codec  # noqa: E402
from firmware_bridge.codec import DelayMode, Frame, MsgType, TimeControl  # noqa: E402
from firmware_bridge.device import ClockDevice  # noqa: E402

OUT = Path(__file__).with_name("vectors.json")


def f(mtype: int, seq: int, payload: bytes = b"", version: int = 1) -> str:
    return codec.encode_frame(Frame(mtype, seq, payload, version)).hex()


def hello(seq: int, session: int = 77, lo: int = 1, hi: int = 1) -> str:
    return f(MsgType.HELLO, seq, codec.pack_hello(lo, hi, session))


def configure(seq: int, tc: TimeControl) -> str:
    return f(MsgType.CONFIGURE, seq, tc.pack())


def u32(mtype: int, value: int) -> str:
    return f(mtype, 0, codec.pack_u32(value))


class Scenario:
    def __init__(self, name: str, capacity: int = 32, boot_id: int = 0x1234ABCD) -> None:
        self.name = name
        self.capacity = capacity
        self.boot_id = boot_id
        self.dev = ClockDevice(0, boot_id=boot_id, capacity=capacity)
        self.steps: list[dict] = []

    def _out(self, step: dict) -> None:
        step["tx"] = self.dev.take_output().hex() or "-"
        self.steps.append(step)

    def rx(self, t: int, hexdata: str, note: str = "") -> "Scenario":
        self.dev.receive(bytes.fromhex(hexdata), t)
        self._out({"op": "rx", "t": t, "hex": hexdata, "note": note})
        return self

    def press(self, t: int, side: int) -> "Scenario":
        self.dev.press(side, t)
        self._out({"op": "press", "t": t, "side": side})
        return self

    def pause(self, t: int) -> "Scenario":
        self.dev.pause_button(t)
        self._out({"op": "pause", "t": t})
        return self

    def poll(self, t: int) -> "Scenario":
        self.dev.poll(t)
        self._out({"op": "poll", "t": t})
        return self

    def as_dict(self) -> dict:
        return {"name": self.name, "capacity": self.capacity, "boot_id": self.boot_id, "steps": self.steps}


def device_scenarios() -> list[dict]:
    out = []
    s = Scenario("handshake, sync, retransmit, ack, snapshot, replay")
    s.rx(3, hello(1), "HELLO")
    s.rx(5, f(MsgType.SYNC, 2), "SYNC")
    s.press(100, 1).press(1100, 0).poll(1100).poll(1299).poll(1300)
    s.rx(1310, u32(MsgType.ACK_EVENTS, 1), "ack 1 of 2")
    s.poll(1509).poll(1510).rx(1520, u32(MsgType.REPLAY, 0), "replay after 0").rx(1530, u32(MsgType.ACK_EVENTS, 2))
    s.poll(2000).poll(3500).rx(3600, hello(9), "HELLO again, same session").rx(3601, hello(10, lo=2, hi=3), "unsupported version")
    out.append(s.as_dict())

    s = Scenario("sudden death 1000 ms: exact flag time, flagged side stays at zero")
    s.rx(0, configure(1, TimeControl.sudden_death(1000)))
    s.press(10, 1).poll(500).press(600, 0).poll(700).press(900, 1).poll(1900).poll(1901).press(2000, 0).poll(2500)
    s.poll(2600).press(2590, 1).poll(2700)  # a press stamped before the last poll: counted once
    out.append(s.as_dict())

    s = Scenario("Fischer 10 s + 2 s")
    s.rx(0, configure(1, TimeControl.fischer(10_000, 2_000)))
    s.press(0, 1).press(3000, 0).press(4500, 1).press(9000, 0).poll(12000)
    out.append(s.as_dict())

    for carry in (True, False):
        s = Scenario(f"periods 5 s/3 moves then 2 s/2 moves, carry_time={carry}")
        s.rx(0, configure(1, TimeControl.periods([(5000, 3), (2000, 2)], carry_time=carry)))
        s.press(0, 1)
        t = 0
        for i in range(7):
            t += 1000
            s.press(t, 0)
            t += 100
            s.press(t, 1)
        s.poll(t + 5000).poll(t + 20000)
        out.append(s.as_dict())

    s = Scenario("byo-yomi 1 s then 3 x 500 ms")
    s.rx(0, configure(1, TimeControl.byoyomi(1000, 500, 3)))
    s.press(0, 1).poll(999).poll(1000).press(1400, 0).press(1500, 1).poll(2100).poll(2500).press(2600, 0)
    s.press(2700, 1).poll(4000)
    out.append(s.as_dict())

    for mode in (DelayMode.SIMPLE, DelayMode.BRONSTEIN):
        s = Scenario(f"delay {mode.name.lower()} 1000 ms on 5 s")
        s.rx(0, configure(1, TimeControl.delay(5000, 1000, mode)))
        s.press(0, 1).poll(500).press(800, 0).press(3300, 1).poll(4000).press(5300, 0).poll(20000)
        out.append(s.as_dict())

    s = Scenario("arbiter: pause, resume, set, adjust, start, de-duplication, refusals, display, beep")
    s.rx(0, hello(1, session=5))
    s.rx(10, f(MsgType.START, 2, bytes([1])), "start black")
    s.rx(20, f(MsgType.START, 2, bytes([1])), "same seq again: duplicate, not re-run")
    s.rx(30, f(MsgType.START, 3, bytes([0])), "start red while black runs: bad state")
    s.poll(1000)
    s.rx(1500, f(MsgType.PAUSE, 4), "pause").rx(1600, f(MsgType.PAUSE, 5), "pause while paused: no event")
    s.rx(2000, f(MsgType.ADJUST_TIME, 6, struct.pack("<Bi", 1, 60_000)), "black +60 s")
    s.rx(2001, f(MsgType.ADJUST_TIME, 6, struct.pack("<Bi", 1, 60_000)), "retry: not applied twice")
    s.rx(2100, f(MsgType.ADJUST_TIME, 7, struct.pack("<Bi", 0, -2_000_000_000)), "red - a lot: floors at 0")
    s.rx(2200, f(MsgType.SET_TIME, 8, struct.pack("<BI", 0, 300_000)), "red set to 5 min")
    s.rx(2300, f(MsgType.RESUME, 9), "resume").poll(2800)
    s.pause(3000).pause(3500)
    s.rx(3600, f(MsgType.DISPLAY, 10, codec.pack_display(2, "炮二平五")), "display both")
    s.rx(3601, f(MsgType.DISPLAY, 11, b"\x00\xe7\x82"), "truncated UTF-8: bad args")
    s.rx(3602, f(MsgType.BEEP, 12, struct.pack("<HH", 150, 2000)))
    s.rx(3603, f(MsgType.BEEP, 13, b"\x01"), "short BEEP: bad args")
    s.rx(3604, f(0x3E, 14), "unknown type")
    s.rx(3605, f(MsgType.PAUSE, 15, version=2), "wrong version")
    s.rx(3606, f(MsgType.PAUSE, 0), "seq 0: bad args")
    s.rx(3607, f(MsgType.SET_TIME, 16, struct.pack("<BI", 7, 1)), "side 7: bad args")
    s.rx(3608, f(MsgType.CONFIGURE, 17, b"\x00" * codec.CONFIG_LEN), "no stages: bad args")
    for seq in range(18, 40):
        s.rx(3700 + seq, f(MsgType.BEEP, seq, struct.pack("<HH", 10, 1000)))
    s.rx(3800, f(MsgType.BEEP, 12, struct.pack("<HH", 150, 2000)), "seq 12 is too old: stale")
    s.rx(3801, hello(99, session=6), "new session forgets sequence numbers")
    s.rx(3802, f(MsgType.BEEP, 12, struct.pack("<HH", 150, 2000)), "seq 12 in the new session runs")
    s.rx(3803, f(MsgType.EVENT, 1, b""), "clock-to-host type sent to the clock: ignored")
    out.append(s.as_dict())

    s = Scenario("commands from several threads out of order: a retry after 18 others ran is still a duplicate")
    s.rx(0, hello(1, session=8))
    for seq in (4, 1, 2, 3):  # 4 arrives first (its ACK is lost), 1..3 from their retries
        s.rx(seq, f(MsgType.ADJUST_TIME, seq, struct.pack("<Bi", 1, 100)))
    for seq in range(5, 20):  # 4 unanswered: the host numbers up to 4 + 15
        s.rx(10 + seq, f(MsgType.ADJUST_TIME, seq, struct.pack("<Bi", 1, 100)))
    s.rx(40, f(MsgType.ADJUST_TIME, 4, struct.pack("<Bi", 1, 100)), "4's retry: duplicate, not applied again")
    s.rx(41, f(MsgType.ADJUST_TIME, 3, struct.pack("<Bi", 1, 100)), "3 (16 below 19): stale")
    s.rx(42, f(MsgType.ADJUST_TIME, 20, struct.pack("<Bi", 1, 100)), "20 runs; 4 is now stale")
    s.rx(43, f(MsgType.ADJUST_TIME, 4, struct.pack("<Bi", 1, 100)), "4 again: stale")
    s.rx(44, f(MsgType.ADJUST_TIME, 5, struct.pack("<Bi", 1, 100)), "5 (15 below 20): still a duplicate")
    out.append(s.as_dict())

    s = Scenario("ring overflow with capacity 4: oldest unacknowledged are overwritten", capacity=4)
    s.rx(0, configure(1, TimeControl.fischer(60_000, 1000)))
    for i in range(8):
        s.press(100 + 100 * i, (i + 1) % 2)
    s.rx(1000, hello(2)).rx(1001, u32(MsgType.REPLAY, 2), "replay after 2: only 6..9 are left").poll(1001)
    s.rx(1002, f(MsgType.REPLAY, 0, codec.pack_u32(5) + codec.pack_u32(0b1101)), "selective: 6, 8, 9 (5 is acked)")
    s.rx(1003, f(MsgType.REPLAY, 0, codec.pack_u32(1) + codec.pack_u32(0xFFFFFFFF)), "selective: a SNAPSHOT (2..5 are gone); held ones in the next round")
    s.poll(1202).rx(1203, f(MsgType.REPLAY, 0, codec.pack_u32(6) + b"\x02"), "5-byte REPLAY: ignored")
    out.append(s.as_dict())

    s = Scenario("selective request kept and served in paced rounds, taking turns; acks shrink it")
    s.rx(0, configure(1, TimeControl.fischer(60_000, 1000)))
    for i in range(10):
        s.press(100 + 10 * i, (i + 1) % 2)
    s.poll(399)
    s.rx(400, f(MsgType.REPLAY, 0, codec.pack_u32(1) + codec.pack_u32(0b1011111)), "3..7 and 9: 4 now")
    s.rx(410, f(MsgType.REPLAY, 0, codec.pack_u32(1) + codec.pack_u32(0b1011111)), "again 10 ms later: kept, not sent")
    s.poll(424).poll(425).poll(449).poll(450)
    s.rx(460, u32(MsgType.ACK_EVENTS, 5), "3..5 delivered")
    s.poll(475).poll(500)
    s.rx(510, f(MsgType.REPLAY, 0, codec.pack_u32(7) + codec.pack_u32(0b10)), "only 9 now")
    s.poll(535).poll(560)
    for t in range(585, 800, 25):
        s.poll(t)
    s.rx(900, u32(MsgType.REPLAY, 11), "full replay ends the rounds").poll(925)
    out.append(s.as_dict())

    s = Scenario("stream noise: garbage, a corrupted frame and a frame split across reads")
    good = hello(1)
    bad = bytearray(bytes.fromhex(f(MsgType.SYNC, 2)))
    bad[3] ^= 0x40
    s.rx(0, "0102030405" + "00", "garbage then delimiter")
    s.rx(1, bad.hex(), "corrupted SYNC: dropped")
    s.rx(2, good[:10], "first half of HELLO").rx(3, good[10:], "second half")
    s.rx(4, "ff" * 80 + "00" + f(MsgType.SYNC, 3), "overlong run, then a good SYNC")
    out.append(s.as_dict())

    s = Scenario("millisecond counter wraps at 2^32")
    s.rx(0, configure(1, TimeControl.sudden_death(3_000_000_000)))
    s.press(0, 1)
    for t in (2_000_000_000, 4_000_000_000, 4_294_967_000, 300, 1_000_000):
        s.poll(t)
    s.press(1_000_100, 0).poll(1_001_500)
    out.append(s.as_dict())
    return out


def codec_vectors() -> dict:
    rng = random.Random(5)
    crc = [
        {"hex": b"123456789".hex(), "crc": 0x29B1, "note": "CRC-16/CCITT-FALSE check value"},
        {"hex": "", "crc": 0xFFFF},
        {"hex": "00", "crc": crc16(b"\x00")},
        {"hex": bytes(range(256)).hex(), "crc": crc16(bytes(range(256)))},
    ]
    cobs = [
        {"raw": "00", "enc": "0101"},
        {"raw": "0000", "enc": "010101"},
        {"raw": "11220033", "enc": "03112202" + "33"},
        {"raw": "11223344", "enc": "0511223344"},
        {"raw": "11000000", "enc": "02110101" + "01"},
        {"raw": bytes(range(1, 255)).hex(), "enc": "ff" + bytes(range(1, 255)).hex()},
        {"raw": bytes(range(0, 255)).hex(), "enc": "01ff" + bytes(range(1, 255)).hex()},
        {"raw": bytes(range(1, 256)).hex(), "enc": "ff" + bytes(range(1, 255)).hex() + "02ff"},
    ]
    for item in cobs:  # the published examples must also be what our encoder does
        assert codec.cobs_encode(bytes.fromhex(item["raw"])).hex() == item["enc"], item
    frames = []
    samples = [
        (1, MsgType.HELLO, 1, codec.pack_hello(1, 1, 0xDEADBEEF)),
        (1, MsgType.SYNC, 0xFFFFFFFF, b""),
        (1, MsgType.EVENT, 42, codec.EventRecord(1, 0, 123456, 5400000, 5399000, 0, 17).pack()),
        (1, MsgType.DISPLAY, 7, codec.pack_display(2, "炮二平五")),
        (1, MsgType.CONFIGURE, 3, TimeControl.periods([(5_400_000, 40), (900_000, 10)], increment_ms=30_000).pack()),
        (2, 0x7F, 0, bytes(40)),
    ]
    for ver, t, seq, payload in samples:
        frames.append({"version": ver, "type": int(t), "seq": seq, "payload": payload.hex(), "wire": f(t, seq, payload, ver)})
    decode = []
    for fr in frames:
        wire = bytes.fromhex(str(fr["wire"]))[:-1]
        decode.append({"hex": wire.hex(), "result": decode_result(wire)})
        for _ in range(6):
            m = bytearray(wire)
            i = rng.randrange(len(m))
            m[i] = (m[i] + rng.randrange(1, 256)) & 0xFF
            m = m.replace(b"\x00", b"\x01") if rng.random() < 0.5 else m
            decode.append({"hex": bytes(m).hex(), "result": decode_result(bytes(m))})
    for raw in (b"", b"\x01", b"\x05\x01\x02", bytes([3, 1, 2, 0]), bytes([2, 1]) * 3, b"\xff" * 52):
        decode.append({"hex": raw.hex(), "result": decode_result(raw)})
    return {"crc": crc, "cobs": cobs, "frames": frames, "decode": decode}


def crc16(data: bytes) -> int:
    return codec.crc16_ccitt(data)


def decode_result(enc: bytes) -> str:
    try:
        fr = codec.decode_frame(enc)
    except codec.FrameError as exc:
        return f"err {exc.reason}"
    return f"ok {fr.version} {fr.type} {fr.seq} {fr.payload.hex() or '-'}"


def main() -> None:
    scenarios = device_scenarios()
    data = {
        "about": "Shared test vectors for the clock protocol (Python firmware_bridge and C firmware). "
        "Regenerate with tests/clock/make_vectors.py; see docs/clock-protocol.md.",
        "protocol_version": codec.PROTOCOL_VERSION,
        "codec": codec_vectors(),
        "device": scenarios,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(scenarios)} device scenarios)")


if __name__ == "__main__":
    main()
