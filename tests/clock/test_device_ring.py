"""The clock's event ring (firmware_bridge/device.py, mirrored by the C core): how full it
got, and a request for events it no longer holds answered with the news of their loss."""
from __future__ import annotations

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameReader, MsgType
from firmware_bridge.device import REPAIR_BURST, REPAIR_MS, REPAIR_ROUNDS, ClockDevice


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


def _events_sent(dev: ClockDevice) -> list[int]:
    return [f.seq for f in _frames(dev) if f.type == MsgType.EVENT]


def test_a_selective_request_is_served_in_paced_rounds_taking_turns_until_it_expires():
    dev = ClockDevice(0)
    for i in range(12):
        dev.press(i % 2, 100 + 10 * i)
    dev.poll(999)  # the blind resend of the oldest 4 goes now; the next would be at 1199
    dev.take_output()
    dev.receive(_replay(0, 0b111111), 1000)  # the host lacks 1..6
    rounds = {1000: _events_sent(dev)}
    for t in range(1001, 1199):
        dev.poll(t)
        sent = _events_sent(dev)
        if sent:
            rounds[t] = sent
    assert sorted(rounds) == [1000 + REPAIR_MS * k for k in range(REPAIR_ROUNDS)]
    assert all(len(sent) == REPAIR_BURST for sent in rounds.values())
    flat = [seq for t in sorted(rounds) for seq in rounds[t]]
    assert flat[:8] == [1, 2, 3, 4, 5, 6, 1, 2]  # turns over everything named
    assert {seq: flat.count(seq) for seq in range(1, 7)} == {1: 6, 2: 6, 3: 5, 4: 5, 5: 5, 6: 5}
    dev.poll(1199)  # expired at 1175: the blind resend of the oldest 4 is back on its timer
    assert _events_sent(dev) == [1, 2, 3, 4]


def test_the_blind_resend_waits_while_a_request_is_being_served():
    dev = ClockDevice(0)
    for i in range(6):
        dev.press(i % 2, 100 + 10 * i)
    dev.poll(999)  # blind resend now, the next due at 1199
    dev.take_output()
    dev.receive(_replay(0, 0b100000), 1190)  # the host lacks only 6: served 1190, 1215, ...
    assert _events_sent(dev) == [6]
    dev.poll(1199)
    assert _events_sent(dev) == []  # not 1..4: the host has them


def test_however_often_the_host_asks_the_clock_answers_at_its_own_pace():
    dev = ClockDevice(0)
    for i in range(10):
        dev.press(i % 2, 100 + 10 * i)
    dev.take_output()
    sent = 0
    for t in range(1000, 1200):  # a request every millisecond, each naming all ten
        dev.receive(_replay(0, 0x3FF), t)
        dev.poll(t)
        sent += len(_events_sent(dev))
    assert sent == REPAIR_BURST * (200 // REPAIR_MS)


def test_acknowledged_events_drop_out_of_the_request_and_a_full_replay_ends_it():
    dev = ClockDevice(0)
    for i in range(8):
        dev.press(i % 2, 100 + 10 * i)
    dev.take_output()
    dev.receive(_replay(0, 0b11110000), 1000)  # 5..8
    assert _events_sent(dev) == [5, 6, 7, 8]
    dev.receive(codec.encode_frame(Frame(MsgType.ACK_EVENTS, 0, codec.pack_u32(6))), 1010)
    dev.poll(1025)
    assert _events_sent(dev) == [7, 8]
    dev.receive(codec.encode_frame(Frame(MsgType.REPLAY, 0, codec.pack_u32(6))), 1030)
    assert _events_sent(dev) == [7, 8] and dev.want_rounds == 0
    dev.poll(1050)
    assert _events_sent(dev) == []
