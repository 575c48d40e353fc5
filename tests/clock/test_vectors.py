"""The Python codec/device and the C firmware core against the same vectors (vectors.json)."""
from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameReader, MsgType
from firmware_bridge.device import ClockDevice

from firmware_bridge import build_firmware as cbuild

VECTORS = json.loads(Path(__file__).with_name("vectors.json").read_text(encoding="utf-8"))

needs_cc = pytest.mark.skipif(cbuild.compiler() is None, reason="no C compiler on this machine")


def decode_result(enc: bytes) -> str:
    try:
        fr = codec.decode_frame(enc)
    except codec.FrameError as exc:
        return f"err {exc.reason}"
    return f"ok {fr.version} {fr.type} {fr.seq} {fr.payload.hex() or '-'}"


# ------------------------------------------------------------------ Python side


def test_python_crc_and_cobs_vectors():
    for v in VECTORS["codec"]["crc"]:
        assert codec.crc16_ccitt(bytes.fromhex(v["hex"])) == v["crc"]
    for v in VECTORS["codec"]["cobs"]:
        assert codec.cobs_encode(bytes.fromhex(v["raw"])).hex() == v["enc"]
        assert codec.cobs_decode(bytes.fromhex(v["enc"])).hex() == v["raw"]


def test_python_frame_vectors():
    for v in VECTORS["codec"]["frames"]:
        wire = codec.encode_frame(Frame(v["type"], v["seq"], bytes.fromhex(v["payload"]), v["version"]))
        assert wire.hex() == v["wire"]
        assert codec.decode_frame(wire[:-1]) == Frame(v["type"], v["seq"], bytes.fromhex(v["payload"]), v["version"])
    for v in VECTORS["codec"]["decode"]:
        assert decode_result(bytes.fromhex(v["hex"])) == v["result"], v


def test_python_device_vectors():
    for sc in VECTORS["device"]:
        dev = ClockDevice(0, boot_id=sc["boot_id"], capacity=sc["capacity"])
        for i, st in enumerate(sc["steps"]):
            if st["op"] == "rx":
                dev.receive(bytes.fromhex(st["hex"]), st["t"])
            elif st["op"] == "press":
                dev.press(st["side"], st["t"])
            elif st["op"] == "pause":
                dev.pause_button(st["t"])
            else:
                dev.poll(st["t"])
            assert (dev.take_output().hex() or "-") == st["tx"], f"{sc['name']}: step {i} {st}"


def test_device_vectors_cover_every_event_kind_and_status():
    kinds, statuses = set(), set()
    for sc in VECTORS["device"]:
        for st in sc["steps"]:
            if st["tx"] == "-":
                continue
            for fr in FrameReader().feed(bytes.fromhex(st["tx"])):
                if fr.type == MsgType.EVENT:
                    kinds.add(fr.payload[0])
                elif fr.type == MsgType.ACK:
                    statuses.add(fr.payload[0])
    assert kinds == {int(k) for k in codec.EventKind}
    assert statuses == {0, 1, 2, 3, 4, 5, 6}


# ------------------------------------------------------------------ C side


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    if cbuild.compiler() is None:
        pytest.skip("no C compiler on this machine")
    return cbuild.build("vector_runner", tmp_path_factory.mktemp("fw"))


def run_lines(exe: Path, lines: list[str]) -> list[str]:
    proc = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert len(out) == len(lines), (len(out), len(lines), proc.stderr[-2000:])
    return out


@needs_cc
def test_c_unit_tests(tmp_path):
    exe = cbuild.build("test_core", tmp_path)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout, proc.stdout


@needs_cc
def test_c_codec_vectors(runner):
    c = VECTORS["codec"]
    lines, want = [], []
    for v in c["crc"]:
        lines.append(f"crc {v['hex'] or '-'}")
        want.append(f"crc {v['crc']:04x}")
    for v in c["cobs"]:
        lines += [f"cobs {v['raw']}", f"uncobs {v['enc']}"]
        want += [v["enc"], v["raw"]]
    for v in c["frames"]:
        lines.append(f"frame {v['version']} {v['type']} {v['seq']} {v['payload'] or '-'}")
        want.append(v["wire"])
    for v in c["decode"]:
        lines.append(f"decode {v['hex'] or '-'}")
        want.append(v["result"])
    assert run_lines(runner, lines) == want


@needs_cc
def test_c_device_vectors(runner):
    lines, want, where = [], [], []
    for sc in VECTORS["device"]:
        lines.append(f"init {sc['capacity']} {sc['boot_id']}")
        want.append("ok")
        where.append((sc["name"], "init"))
        for i, st in enumerate(sc["steps"]):
            if st["op"] == "rx":
                lines.append(f"rx {st['t']} {st['hex'] or '-'}")
            elif st["op"] == "press":
                lines.append(f"press {st['t']} {st['side']}")
            else:
                lines.append(f"{st['op']} {st['t']}")
            want.append(f"tx {st['tx']}")
            where.append((sc["name"], i))
    got = run_lines(runner, lines)
    for g, w, loc in zip(got, want, where):
        assert g == w, f"C device differs from the Python reference at {loc}:\n C  {g}\n Py {w}"


def _python_reader(data: bytes) -> str:
    r = FrameReader()
    parts = ["frames"]
    for fr in r.feed(data):
        parts.append(f"{fr.version}:{fr.type}:{fr.seq}:{fr.payload.hex() or '-'}")
    parts.append(f"errors {r.errors['cobs']} {r.errors['crc']} {r.errors['length']}")
    return " ".join(parts)


@needs_cc
def test_c_and_python_stream_readers_agree_on_random_noise(runner):
    """Differential fuzz: 400 streams of mangled frames and noise through both readers."""
    rng = random.Random(20261129)
    streams = []
    for _ in range(400):
        data = bytearray()
        for _ in range(rng.randrange(1, 8)):
            choice = rng.random()
            if choice < 0.5:
                payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 41)))
                wire = bytearray(codec.encode_frame(Frame(rng.randrange(256), rng.randrange(2**32), payload)))
                for _ in range(rng.randrange(0, 3)):
                    i = rng.randrange(len(wire))
                    wire[i] = rng.randrange(256)
                data += wire
            elif choice < 0.8:
                data += bytes(rng.randrange(256) for _ in range(rng.randrange(0, 70)))
            else:
                data += bytes(rng.choice([0, 1, 2, 0xFF]) for _ in range(rng.randrange(0, 60)))
        streams.append(bytes(data))
    got = run_lines(runner, [f"reader {s.hex() or '-'}" for s in streams])
    for s, g in zip(streams, got):
        assert g == _python_reader(s), s.hex()


def _random_host_traffic(rng: random.Random) -> list[str]:
    """A session of host frames (valid, mangled, unknown) with presses and time passing."""
    lines = [f"init {rng.choice([1, 4, 32])} {rng.randrange(2**32)}"]
    t = rng.randrange(0, 2**32)
    session = rng.randrange(2**32)
    for _ in range(rng.randrange(5, 40)):
        t = (t + rng.choice([0, 1, 7, 199, 200, 999, 1000, 5000, rng.randrange(100_000)])) & 0xFFFFFFFF
        r = rng.random()
        if r < 0.2:
            lines.append(f"press {t} {rng.choice([0, 1, 1, 0, 2])}")
        elif r < 0.3:
            lines.append(f"poll {t}")
        elif r < 0.35:
            lines.append(f"pause {t}")
        else:
            mtype = rng.choice([1, 2, 3, 4, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x20, 0x84])
            seq = rng.choice([0, 1, 2, 3, rng.randrange(40), rng.randrange(2**32)])
            if mtype == 1:
                payload = codec.pack_hello(rng.choice([0, 1]), rng.choice([1, 2]), rng.choice([session, 9]))
            elif mtype in (3, 4):
                payload = codec.pack_u32(rng.randrange(12))
                if mtype == 4 and rng.random() < 0.5:
                    payload += rng.randbytes(4)
            elif mtype == 0x10:
                tc = codec.TimeControl(
                    tuple(codec.Stage(rng.randrange(1, 5000), rng.randrange(0, 4)) for _ in range(rng.randrange(1, 5))),
                    rng.choice([0, 500]), rng.choice([0, 300]), codec.DelayMode(rng.randrange(3)),
                    rng.choice([0, 700]), 0, rng.random() < 0.5,
                )
                if tc.byo_ms:
                    tc = codec.TimeControl(tc.stages, tc.increment_ms, tc.delay_ms, tc.delay_mode, tc.byo_ms, rng.randrange(1, 4), tc.carry_time)
                payload = tc.pack()
            elif mtype in (0x11, 0x12):
                payload = bytes([rng.choice([0, 1, 5])]) + rng.randbytes(4)
            elif mtype == 0x16:
                payload = bytes([rng.randrange(4)]) + rng.choice(["炮二平五", "C2.5", ""]).encode()[: rng.randrange(13)]
            else:
                payload = rng.randbytes(rng.choice([0, 0, 1, 4, 5]))
            wire = bytearray(codec.encode_frame(Frame(mtype, seq, payload, rng.choice([1, 1, 1, 2]))))
            if rng.random() < 0.15:
                wire[rng.randrange(len(wire))] = rng.randrange(256)
            lines.append(f"rx {t} {bytes(wire).hex()}")
    return lines


def _python_device_answers(lines: list[str]) -> list[str]:
    out, dev = [], None
    for line in lines:
        op, *args = line.split()
        if op == "init":
            dev = ClockDevice(0, capacity=int(args[0]), boot_id=int(args[1]))
            out.append("ok")
            continue
        assert dev is not None, "traffic starts with init"
        t = int(args[0])
        if op == "rx":
            dev.receive(bytes.fromhex(args[1]), t)
        elif op == "press":
            dev.press(int(args[1]), t)
        elif op == "pause":
            dev.pause_button(t)
        else:
            dev.poll(t)
        out.append(f"tx {dev.take_output().hex() or '-'}")
    return out


@needs_cc
def test_c_and_python_devices_agree_on_random_sessions(runner):
    """Differential fuzz of the whole clock: 250 random sessions, byte-identical output."""
    rng = random.Random(7)
    sessions = [_random_host_traffic(rng) for _ in range(250)]
    lines = [line for s in sessions for line in s]
    got = run_lines(runner, lines)
    want = _python_device_answers(lines)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"line {i}: {lines[i]}\n C  {g}\n Py {w}"


def test_avr_cross_build(tmp_path):
    """The firmware for the Nano compiles and fits (skipped where gcc-avr is not installed)."""
    import shutil

    if not (shutil.which("avr-gcc") and shutil.which("avr-objcopy") and shutil.which("make")):
        pytest.skip("avr-gcc not installed (Debian: apt-get install gcc-avr avr-libc)")
    proc = subprocess.run(["make", "-s", "-C", str(cbuild.FIRMWARE), f"BUILD={tmp_path}", "avr"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "xqclock.hex").stat().st_size > 1000
    m = re.search(r"Program:\s+(\d+) bytes", proc.stdout)
    d = re.search(r"Data:\s+(\d+) bytes", proc.stdout)
    if m and d:
        assert int(m.group(1)) < 30 * 1024 and int(d.group(1)) < 1600  # 32 KB flash, 2 KB RAM
