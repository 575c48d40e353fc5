"""Frame-path benchmark: how long each frame's work holds the recorder's thread.

A live source drops frames whenever one frame's work outlasts the frame interval by more than its
queue absorbs; a board search on that thread (seconds on a steep side view) lost whole moves. This
records a clip as `xqtrack record` does (the start-learning reader, the recorder, evidence) and
times, per frame, `process()` and the whole loop body on the recorder's thread (process, tracker,
journal, evidence), pinned to one core. Figures: median, p99 and max in ms, frames over the
reader's budget (vision.config.SearchConfig.frame_budget_s: the reader's own count for process(), and
the loop body's), searches and their seconds, frames a live reader dropped. Wall time on one core
includes what the reader's search thread takes meanwhile; the `*_cpu_ms` figures are the recorder
thread's own CPU time, the work that holds it.

Clips: the bundled demo clip, and a steep side view rendered by the sim (cached in the bench cache).

Usage:
  python bench/frame_bench.py                  # demo + side view, file and live reader, one core
  python bench/frame_bench.py --clip PATH --mode live --frames 300
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = Path(os.environ.get("XQTRACK_BENCH_CACHE", str(Path.home() / ".cache" / "xqtrack-bench")))

# A steep view from the board's side (tilt from vertical, azimuth 90 = from the side), sensor noise.
SIDE_VIEW = dict(seed=9901, look="wood", random_plies=6, width=1280, height=720,
                 incidents=[{"kind": "touch_move_other", "ply": 2}, {"kind": "arm_pass", "ply": 4}],
                 camera={"tilt_deg": 44.0, "azimuth_deg": 90.0, "fov_deg": 60.0, "noise": 4.0, "bump": False})


def side_clip() -> Path:
    """The steep side-view clip, rendered once."""
    from sim import ClipSpec
    from sim.render import write_clip
    d = CACHE / "side_9901_1280x720"
    if not (d / "clip.mp4").exists() or not (d / "truth.json").exists():
        write_clip(ClipSpec(**SIDE_VIEW), d)  # type: ignore[arg-type]
    return d / "clip.mp4"


def _start_fen(clip: Path) -> str | None:
    truth = clip.with_name("truth.json")
    if not truth.exists():
        return None
    tr = json.loads(truth.read_text(encoding="utf-8"))
    placement = (tr.get("start_fen") or (tr.get("spec") or {}).get("start_fen") or "").split()
    return f"{placement[0]} {placement[1] if len(placement) > 1 else 'w'} - - 0 1" if placement else None


def _figures(ms: list[float]) -> dict[str, float]:
    import numpy as np
    a = np.array(ms)
    return {"median": round(float(np.median(a)), 1), "p99": round(float(np.percentile(a, 99)), 1),
            "max": round(float(a.max()), 1)}


def measure(clip: Path, live: bool, n_frames: int | None = None) -> dict[str, Any]:
    """Record `clip` with the reader made for a live source (the clip played at its own pace, as
    `record --realtime` does) or a file; per-frame times on this thread."""
    import cv2
    cv2.setNumThreads(1)
    from app.commands.record import _learning_reader
    from rules import Position
    from runtime.recorder import Recorder
    from runtime.sources import FrameSource, SourcePacing

    start_fen = _start_fen(clip)
    board = (Position.from_fen(start_fen) if start_fen else Position()).points()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rec"
        out.mkdir()
        reader = _learning_reader(out, board, live, lambda line: None)
        inner = reader.reader
        process_ms: list[float] = []
        process_cpu_ms: list[float] = []
        plain = reader.process

        def timed(frame: Any, t: float, index: int) -> Any:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return plain(frame, t, index)
            finally:
                process_ms.append((time.perf_counter() - start) * 1000)
                process_cpu_ms.append((time.thread_time() - cpu) * 1000)
        reader.process = timed  # type: ignore[method-assign]
        rec = Recorder(out, start_fen=start_fen, reader=reader, evidence=True)
        # a live reader is fed as a camera feeds it: at the clip's own pace, frames dropped when behind
        src = FrameSource(str(clip), pacing=SourcePacing(realtime=live))
        body_ms: list[float] = []
        body_cpu_ms: list[float] = []
        began = [0.0, 0.0]

        class Frames:
            fps = src.fps

            @property
            def dropped(self) -> int:
                return src.dropped

            def __iter__(self) -> Any:
                for k, fr in enumerate(src):
                    if n_frames is not None and k >= n_frames:
                        return
                    began[0], began[1] = time.perf_counter(), time.thread_time()
                    yield fr

        def progress(index: int, ply: int) -> None:
            body_ms.append((time.perf_counter() - began[0]) * 1000)
            body_cpu_ms.append((time.thread_time() - began[1]) * 1000)
        t0 = time.perf_counter()
        summary = rec.run(Frames(), progress=progress)
        wall = time.perf_counter() - t0
        src.close()
    budget_ms = inner.config.search.frame_budget_s * 1000
    return {"clip": clip.parent.name, "mode": "live" if live else "file", "frames": summary.frames,
            "moves": len(summary.moves), "incidents": len(summary.incidents),
            "process_ms": _figures(process_ms), "body_ms": _figures(body_ms),
            "budget_ms": budget_ms, "process_over_budget": inner.frames_over_budget,
            "body_over_budget": sum(1 for b in body_ms if b > budget_ms),
            "process_cpu_ms": _figures(process_cpu_ms), "body_cpu_ms": _figures(body_cpu_ms),
            "body_cpu_over_budget": sum(1 for b in body_cpu_ms if b > budget_ms),
            "searches": inner.searches, "search_s": round(inner.search_s, 2), "idle": getattr(inner, "frames_idle", 0),
            "wall_s": round(wall, 1),
            "video_s": round(summary.video_s, 1), "dropped": summary.frames_dropped}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", type=Path, action="append", help="a clip (default: the demo clip and the side view)")
    ap.add_argument("--mode", choices=("file", "live", "both"), default="both")
    ap.add_argument("--frames", type=int, default=None, help="only the first N frames")
    ap.add_argument("--cores", type=int, default=1, help="pin to this many cores (default 1)")
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:max(1, args.cores)]))
    if args.clip:
        clips = args.clip
    else:
        from app.commands.record import sample_clip
        clips = [sample_clip(), side_clip()]
    modes = {"file": [False], "live": [True], "both": [False, True]}[args.mode]
    for clip in clips:
        for live in modes:
            print(json.dumps(measure(clip, live, args.frames)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
