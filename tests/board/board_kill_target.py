"""Subprocess target for the kill test: records a scripted game slowly until killed.

Usage: python board_kill_target.py OUT_DIR SECONDS_PER_FRAME [START_FRAME]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))

from board_helpers import FakeFrame, ObservationReader  # noqa: E402
from board_scenario import Script  # noqa: E402

import numpy as np  # noqa: E402

from runtime.recorder import Recorder  # noqa: E402
from synth import NoiseProfile, observations  # noqa: E402


def game() -> Script:
    s = Script(seed=21).quiet(0.4)
    for m in ("h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h6", "h7h8", "b0c2", "a9b9"):
        s.move(m).quiet(0.4)
    return s


class SlowReader(ObservationReader):
    def __init__(self, obs, delay):
        super().__init__(obs)
        self.delay = delay

    def process(self, frame, t, frame_index):
        time.sleep(self.delay)
        return self.obs[frame_index]


def frames_from(script: Script, start: int):
    """The game's frames from `start` on, renumbered from 0 (a new video after a restart)."""
    out = []
    for i, fr in enumerate(script.frames[start:]):
        fr2 = type(fr)(**{**fr.__dict__, "frame_index": i, "t": i / script.fps})
        out.append(fr2)
    return out


def main() -> int:
    out = Path(sys.argv[1])
    delay = float(sys.argv[2])
    start = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    resume = start > 0
    s = game()
    frames = frames_from(s, start)
    obs = list(observations(frames, NoiseProfile(seed=4)))
    rec = Recorder(out, resume=resume, reader=SlowReader(obs, delay))
    img = np.zeros((72, 128, 3), dtype=np.uint8)
    print("recording", flush=True)
    rec.run(FakeFrame(img, f.t, f.frame_index) for f in frames)
    print(" ".join(m.iccs() for m in rec.tracker.moves), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
