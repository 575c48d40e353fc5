"""The clock runs each command's sequence number at most once (firmware_bridge/device.py,
mirrored by the C core; the same sequence is a device vector in vectors.json)."""
from __future__ import annotations

import random
import struct

from firmware_bridge import codec
from firmware_bridge.codec import AckStatus, Frame, FrameReader, MsgType
from firmware_bridge.device import RECENT_CMDS, ClockDevice
from firmware_bridge.link import RECENT_WINDOW

START_MS = 900_000  # the device's default time control: 15 minutes each
STALE = 6


def _adjust(seq: int, delta_ms: int = 100, side: int = 1) -> bytes:
    return codec.encode_frame(Frame(MsgType.ADJUST_TIME, seq, struct.pack("<Bi", side, delta_ms)))


def _acks(dev: ClockDevice) -> dict[int, int]:
    return {f.seq: codec.unpack_ack(f.payload)[0] for f in FrameReader().feed(dev.take_output()) if f.type == MsgType.ACK}


def _device() -> ClockDevice:
    dev = ClockDevice(0)
    dev.receive(codec.encode_frame(Frame(MsgType.HELLO, 2**31, codec.pack_hello(1, 1, 77))), 0)
    dev.take_output()
    return dev


def test_a_retry_is_not_run_again_after_more_than_16_other_commands_ran_since_it_did() -> None:
    # Four threads send adjustments 1..4 at once. 4 gets through first and runs, but its ACK is
    # lost; 1, 2 and 3 were corrupted and run from their retries. While 4 is unanswered the host
    # may number commands up to 4 + 15 = 19 (RECENT_WINDOW), and the other threads send 5..19.
    # That is 18 commands run after 4, all within 16 numbers of it: its retry must still be
    # recognised (DUPLICATE), not run a second time.
    assert RECENT_WINDOW == RECENT_CMDS == 16
    dev = _device()
    t = 1
    for seq in (4, 1, 2, 3, *range(5, 20)):
        dev.receive(_adjust(seq), t)
        t += 1
    assert set(_acks(dev).values()) == {AckStatus.OK}
    dev.receive(_adjust(4), t)  # 4's retry
    assert _acks(dev) == {4: AckStatus.DUPLICATE}
    assert dev.machine.sides[1].remaining_ms == START_MS + 19 * 100


def test_a_number_16_below_the_highest_run_is_stale_and_one_15_below_still_runs() -> None:
    dev = _device()
    dev.receive(_adjust(20), 1)
    dev.receive(_adjust(4), 2)  # 20 - 16: too old to tell whether it ran
    dev.receive(_adjust(5), 3)  # 20 - 15: within the window, never seen, so it is new
    dev.receive(_adjust(5), 4)
    assert [(f.seq, codec.unpack_ack(f.payload)[0]) for f in FrameReader().feed(dev.take_output()) if f.type == MsgType.ACK] == [
        (20, AckStatus.OK), (4, STALE), (5, AckStatus.OK), (5, AckStatus.DUPLICATE)
    ]
    assert dev.machine.sides[1].remaining_ms == START_MS + 200


def test_commands_from_threads_on_a_lossy_line_each_apply_exactly_once_in_any_arrival_order() -> None:
    """A model of ClockLink's senders: `threads` commands in flight, each resent until its ACK
    gets back, new numbers only while every command in flight is within RECENT_WINDOW of them;
    frames and ACKs lost at random, so commands run in any order the host allows."""
    for seed in range(200):
        rng = random.Random(seed)
        threads, per_thread = rng.choice([2, 4, 8, 16]), 12
        dev = _device()
        next_seq, left = 1, [per_thread] * threads
        inflight: dict[int, int] = {}  # thread -> seq
        acked: set[int] = set()
        t = 1
        while any(left) or inflight:
            for th in range(threads):  # idle threads take the next number when the window allows
                if th not in inflight and left[th] and (not inflight or next_seq - min(inflight.values()) < RECENT_WINDOW):
                    inflight[th] = next_seq
                    next_seq += 1
                    left[th] -= 1
            th = rng.choice(list(inflight))
            seq = inflight[th]
            t += 1
            if rng.random() < 0.5:
                continue  # this send was lost on the way to the clock
            dev.receive(_adjust(seq), t)
            answers = _acks(dev)
            assert answers[seq] in (AckStatus.OK, AckStatus.DUPLICATE), (seed, seq, answers)
            if rng.random() < 0.5:
                continue  # the ACK was lost: the thread sends the same number again
            acked.add(seq)
            del inflight[th]
        assert len(acked) == threads * per_thread
        assert dev.machine.sides[1].remaining_ms == START_MS + 100 * threads * per_thread, seed
