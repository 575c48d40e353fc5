"""Codec properties and a hypothesis fuzz of the decoder: any bytes, no crash, no hang."""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameError, FrameReader, MsgType
from firmware_bridge.device import ClockDevice

frames = st.builds(
    Frame,
    type=st.integers(0, 255),
    seq=st.integers(0, 2**32 - 1),
    payload=st.binary(max_size=codec.MAX_PAYLOAD),
    version=st.integers(0, 255),
)


@given(st.binary(max_size=600))
def test_cobs_roundtrip_and_no_zero(data):
    enc = codec.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert codec.cobs_decode(enc) == data


@given(st.lists(frames, max_size=8))
def test_frames_roundtrip_through_a_stream(fs):
    stream = b"".join(codec.encode_frame(f) for f in fs)
    assert FrameReader().feed(stream) == fs


@given(st.lists(frames, min_size=1, max_size=6), st.integers(1, 7))
def test_split_anywhere_still_decodes(fs, parts):
    stream = b"".join(codec.encode_frame(f) for f in fs)
    r = FrameReader()
    out = []
    step = max(1, len(stream) // parts)
    for i in range(0, len(stream), step):
        out += r.feed(stream[i : i + step])
    assert out == fs


@settings(max_examples=400, deadline=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096))
def test_decoder_fuzz_never_crashes_or_hangs(data):
    t0 = time.perf_counter()
    r = FrameReader()
    got = r.feed(data)
    for f in got:  # anything it accepts has a valid CRC and bounded size
        assert len(f.payload) <= codec.MAX_PAYLOAD
        assert codec.decode_frame(codec.encode_frame(f)[:-1]) == f
    try:
        codec.decode_frame(data.replace(b"\x00", b"\x01")[: codec.MAX_ENCODED])
    except FrameError as exc:
        assert exc.reason in ("cobs", "crc", "length") and str(exc)
    assert len(r._buf) <= codec.MAX_ENCODED
    assert time.perf_counter() - t0 < 0.5


@settings(max_examples=300, deadline=1000)
@given(st.binary(max_size=2048), st.integers(0, 2**32 - 1))
def test_clock_device_survives_any_input(data, t):
    dev = ClockDevice(0)
    dev.receive(data, t)
    dev.poll(t)
    out = dev.take_output()
    for f in FrameReader().feed(out):
        assert f.type >= 0x80


@settings(max_examples=300, deadline=1000)
@given(frames)
def test_clock_device_answers_any_wellformed_frame_sanely(f):
    dev = ClockDevice(0)
    dev.receive(codec.encode_frame(f), 5)
    replies = FrameReader().feed(dev.take_output())
    for r in replies:
        assert r.type in (MsgType.ACK, MsgType.HELLO_REPLY, MsgType.SYNC_REPLY, MsgType.EVENT)
        if r.type in (MsgType.ACK, MsgType.HELLO_REPLY, MsgType.SYNC_REPLY):
            assert r.seq == f.seq


def test_frame_errors_say_what_was_wrong():
    wire = bytearray(codec.encode_frame(Frame(MsgType.SYNC, 9))[:-1])
    wire[-1] ^= 0x01
    with pytest.raises(FrameError, match="crc"):
        codec.decode_frame(bytes(wire))
    with pytest.raises(FrameError, match="length"):
        codec.decode_frame(codec.cobs_encode(b"\x01\x02"))
    with pytest.raises(FrameError, match="cobs"):
        codec.decode_frame(b"\x05\x01")
    with pytest.raises(ValueError, match="exceeds"):
        codec.encode_frame(Frame(MsgType.DISPLAY, 1, bytes(41)))
    with pytest.raises(ValueError, match="UTF-8 bytes"):
        codec.pack_display(2, "炮二平五" * 3)


def test_reader_resynchronises_after_an_overlong_run():
    r = FrameReader()
    good = codec.encode_frame(Frame(MsgType.SYNC, 1))
    assert r.feed(b"\x07" * 500 + b"\x00" + good) == [Frame(MsgType.SYNC, 1)]
    assert r.errors["length"] == 1
