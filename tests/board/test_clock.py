"""Clock presses matched to board moves: the referee alone and inside the recorder."""
from __future__ import annotations

import numpy as np

from board.clockref import ClockReferee
from board.events import MoveEvent
from runtime.recorder import Recorder
from synth import NoiseProfile, observations
from firmware_bridge.link import ClockEvent
from rules.pgn import read_pgn

from board_helpers import FakeFrame, ObservationReader
from board_scenario import Script

_seq = iter(range(1, 10_000))


def press(side: str, host_time: float, red_ms: int = 600_000, black_ms: int = 600_000) -> ClockEvent:
    return ClockEvent(seq=next(_seq), kind="press", side=side, clock_ms=int(host_time * 1000),
                      host_time=host_time, remaining_ms=(red_ms, black_ms))


def move(ply: int, side: str, t_touch: float, t: float) -> MoveEvent:
    return MoveEvent(t=t, ply=ply, iccs="h2e2", side=side, san="", fen_after="", frame_index=int(t * 25),
                     t_touch=t_touch)


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def test_normal_play_raises_nothing_and_gives_clock_times():
    ref = ClockReferee()
    out = []
    out += ref.on_move(move(1, "red", 1.0, 2.0))
    out += ref.on_clock(press("red", 2.3, 590_000), 2.3, 1)
    out += ref.on_move(move(2, "black", 4.0, 5.0))
    out += ref.on_clock(press("black", 4.9, 590_000, 580_000), 4.9, 2)   # pressed as the hand left
    out += ref.tick(10.0, 2)
    assert out == []
    assert ref.take_assignments() == [(1, 590_000), (2, 580_000)]


def test_move_without_press():
    ref = ClockReferee()
    out = ref.on_move(move(1, "red", 1.0, 2.0))
    out += ref.on_move(move(2, "black", 4.0, 5.0))
    assert kinds(out) == ["clock_no_press"] and out[0].side == "red" and out[0].ply == 1


def test_press_without_move():
    ref = ClockReferee()
    out = ref.on_move(move(1, "red", 1.0, 2.0))
    out += ref.on_clock(press("red", 2.3), 2.3, 1)
    out += ref.on_clock(press("black", 3.0), 3.0, 1)     # black presses, never moved
    out += ref.tick(4.0, 1)
    assert out == []                                    # still within the grace period
    out += ref.tick(5.5, 1)
    assert kinds(out) == ["clock_press_no_move"] and out[0].side == "black"


def test_two_moves_on_one_press():
    ref = ClockReferee()
    out = ref.on_move(move(1, "red", 1.0, 3.0))
    out += ref.on_move(move(2, "black", 1.0, 3.0))      # both settled in one go
    out += ref.on_clock(press("black", 3.5), 3.5, 2)
    assert "clock_two_moves" in kinds(out)
    assert "clock_no_press" not in kinds(out)


class FakeClock:
    """Stands in for firmware_bridge.ClockLink: subscribe(callback), events pushed by the test."""

    def __init__(self):
        self.callbacks = []

    def subscribe(self, cb):
        self.callbacks.append(cb)
        return lambda: None

    def emit(self, ev):
        for cb in self.callbacks:
            cb(ev)


def test_recorder_with_clock_writes_clk_and_flags_a_missing_press(tmp_path):
    s = Script(seed=41).quiet(0.4)
    for m in ("h2e2", "h9g7", "h0g2"):
        s.move(m).quiet(0.8)
    obs = list(observations(s.frames, NoiseProfile(seed=3)))
    clock = FakeClock()
    rec = Recorder(tmp_path / "o", reader=ObservationReader(obs), clock=clock)
    leaves = {m["frame_hand_leaves"] + 5: m for m in s.moves}

    def frames():
        img = np.zeros((72, 128, 3), dtype=np.uint8)
        for i in range(len(s.frames)):
            m = leaves.get(i)
            if m is not None and m["ply"] != 2:          # black forgets to press after move 2
                side = "red" if m["ply"] % 2 else "black"
                clock.emit(press(side, rec.host_t0 + i / 25, 600_000 - 1000 * m["ply"], 600_000 - 500 * m["ply"]))
            yield FakeFrame(img, i / 25, i)

    summary = rec.run(frames())
    assert summary.moves == ["h2e2", "h9g7", "h0g2"]
    inc = [(e["kind"], e["side"], e["ply"]) for e in summary.incidents]
    assert inc == [("clock_no_press", "black", 2)]
    game = read_pgn((tmp_path / "o" / "game.pgn").read_text(encoding="utf-8"))[0]
    assert game.clocks_ms[0] == 599_000 and game.clocks_ms[2] == 597_000
    clocks = [e for e in summary.events if e["type"] == "clock"]
    assert len(clocks) == 2 and all(e["kind"] == "press" for e in clocks)


def test_recording_with_the_clock_emulator_on_a_real_pty(tmp_path):
    """`xqtrack clock-emulator` on a pseudo-terminal, ClockLink, the recorder: presses
    typed on the emulator's keys as the hands leave; black forgets to press after its move."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from firmware_bridge import ClockLink

    root = Path(__file__).resolve().parent.parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    emu = subprocess.Popen([sys.executable, "-m", "app.cli", "clock-emulator", "--quiet"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, cwd=str(root))
    try:
        pty = emu.stdout.readline().strip()
        link = ClockLink(pty)
        assert link.wait_connected(10.0)
        s = Script(seed=43).quiet(0.3)
        for m in ("h2e2", "h9g7", "h0g2"):
            s.move(m).quiet(0.5)
        obs = list(observations(s.frames, NoiseProfile(seed=5)))
        rec = Recorder(tmp_path / "o", reader=ObservationReader(obs), clock=link)
        keys = {s.moves[0]["frame_hand_leaves"] + 3: "a", s.moves[2]["frame_hand_leaves"] + 3: "a"}

        def frames():          # real time: the clock's host times line up with frame times
            img = np.zeros((72, 128, 3), dtype=np.uint8)
            start = time.monotonic()
            for i in range(len(s.frames)):
                delay = start + i / 25 - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                if i in keys:
                    emu.stdin.write(keys[i])
                    emu.stdin.flush()
                yield FakeFrame(img, i / 25, i)
            time.sleep(0.3)    # let the last press arrive
            yield FakeFrame(img, len(s.frames) / 25, len(s.frames))

        obs.append(obs[-1].__class__(**{**obs[-1].__dict__, "frame_index": len(s.frames), "t": len(s.frames) / 25}))
        rec.reader = ObservationReader(obs)
        summary = rec.run(frames())
        link.close()
    finally:
        if emu.poll() is None:
            emu.stdin.write("x")
            emu.stdin.flush()
            try:
                emu.wait(5)
            except subprocess.TimeoutExpired:
                emu.kill()
    assert summary.moves == ["h2e2", "h9g7", "h0g2"]
    assert [(e["kind"], e["side"], e["ply"]) for e in summary.incidents] == [("clock_no_press", "black", 2)]
    # red's second press is ignored by the clock (black's clock is the one running),
    # as a real clock does: one clock event, the first move's %clk
    clocks = [e for e in summary.events if e["type"] == "clock"]
    assert [(e["kind"], e["side"]) for e in clocks] == [("start", "black")]
    game = read_pgn((tmp_path / "o" / "game.pgn").read_text(encoding="utf-8"))[0]
    assert game.clocks_ms[0] is not None and game.clocks_ms[1:] == [None, None]
