"""The clock's event ring (firmware_bridge/device.py, mirrored by the C core): how full it
got, and a request for events it no longer holds answered with the news of their loss."""
from __future__ import annotations

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameReader, MsgType
from firmware_bridge.device import ClockDevice


def _frames(dev: ClockDevice) -> list[Frame]:
    return FrameReader().feed(dev.take_output())


def _replay(after: int, mask: int) -> bytes:
    return codec.encode_frame(Frame(MsgType.REPLAY, 0, codec.pack_u32(after) + codec.pack_u32(mask)))


def test_a_request_for_overwritten_events_is_answered_with_a_snapshot_showing_the_loss():
    dev = ClockDevice(0, capacity=4)
    for i in range(7):  # events 1..7 in a ring of 4: 1, 2 and 3 overwritten
        dev.press(i % 2, 100 + 100 * i)
    dev.take_output()
    dev.receive(_replay(0, 0b1111), 900)  # the host still waits for 1..4
    out = _frames(dev)
    snaps = [f for f in out if f.type == MsgType.SNAPSHOT]
    assert len(snaps) == 1 and codec.Snapshot.unpack(snaps[0].payload).oldest == 4
    assert [f.seq for f in out if f.type == MsgType.EVENT] == [4]  # the one of them still held


def test_a_request_for_held_events_gets_no_snapshot():
    dev = ClockDevice(0, capacity=4)
    for i in range(3):
        dev.press(i % 2, 100 + 100 * i)
    dev.take_output()
    dev.receive(_replay(1, 0b10), 500)  # event 3 (2 is held by the host)
    out = _frames(dev)
    assert [(f.type, f.seq) for f in out] == [(MsgType.EVENT, 3)]


def test_ring_peak_is_the_most_events_held_at_once():
    dev = ClockDevice(0, capacity=8)
    for i in range(5):
        dev.press(i % 2, 100 + 100 * i)
    dev.receive(codec.encode_frame(Frame(MsgType.ACK_EVENTS, 0, codec.pack_u32(5))), 700)
    dev.press(1, 800)
    assert dev.ring_peak == 5 and len(dev.ring) == 1
    for i in range(12):
        dev.press(i % 2, 900 + 100 * i)
    assert dev.ring_peak == 8 and dev.events_overwritten == 5
