"""Rendering speed of the synthetic camera rig at 1280x720 on one core.

Prints frames/s over a clip with hands (moves, captures), the one-off set-up cost per clip, and
per-stage times of the per-frame path. Run: .venv/bin/python bench/sim_bench.py [--frames N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim import ClipSpec, render_still  # noqa: E402
from sim.render import Rig  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    total_frames, total_time, setup = 0, 0.0, []
    stage = {"static layer": 0.0, "hand": 0.0, "light gain": 0.0, "photo (blur/noise/jpeg)": 0.0, "truth": 0.0}
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        rig = Rig(ClipSpec(seed=seed, random_plies=24))
        setup.append(time.perf_counter() - t0)
        n = min(args.frames, rig.n)
        # instrument stages by timing the same calls the renderer makes
        orig = {name: getattr(rig, name) for name in ("_static", "_gain", "_photo", "_hidden")}

        def timed(name, key):
            f = orig[name]

            def g(*a, **k):
                s = time.perf_counter()
                r = f(*a, **k)
                stage[key] += time.perf_counter() - s
                return r
            return g
        rig._static = timed("_static", "static layer")
        rig._gain = timed("_gain", "light gain")
        rig._photo = timed("_photo", "photo (blur/noise/jpeg)")
        rig._hidden = timed("_hidden", "truth")
        import sim.render as R
        orig_hand = R.render_hand

        def hand(*a, **k):
            s = time.perf_counter()
            orig_hand(*a, **k)
            stage["hand"] += time.perf_counter() - s
        R.render_hand = hand
        t1 = time.perf_counter()
        for i in range(n):
            rig.render(i)
        total_time += time.perf_counter() - t1
        total_frames += n
        R.render_hand = orig_hand
        print(f"seed {seed}: look {rig.look}, {rig.n} frames in clip, {n} rendered, "
              f"hand over board in {int(rig.over_board[:n].sum())}")
    print(f"\n1280x720, 1 thread: {total_frames / total_time:.1f} frames/s over {total_frames} frames "
          f"({1000 * total_time / total_frames:.1f} ms/frame)")
    print(f"per-clip set-up (world texture, sprites, camera, timeline): {np.mean(setup):.2f} s")
    print("per-frame stages (ms/frame):")
    for k, v in stage.items():
        print(f"  {k:28s} {1000 * v / total_frames:6.2f}")
    t = time.perf_counter()
    for s in range(3):
        render_still(100 + s)
    print(f"render_still (set-up included): {(time.perf_counter() - t) / 3:.2f} s per still")
    import tempfile

    from sim import write_clip
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        truth = write_clip(ClipSpec(seed=77, random_plies=4), d)
        dt = time.perf_counter() - t
    print(f"write_clip (set-up + render + mp4v encode + truth.json): {truth.frame_count / dt:.1f} frames/s "
          f"over {truth.frame_count} frames")


if __name__ == "__main__":
    main()
