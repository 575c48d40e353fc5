"""Tracking benchmark: move accuracy, incident recall / false alarms, delay, speed.

Two modes over sim clips (exact truth):
  synth  the tracker alone, on readings synthesised from the truth with a
         realistic reader's faults (tests/support/synth.py): isolates the tracker's logic.
  video  the real pipeline: the clip's video decoded by OpenCV, vision.BoardReader,
         the tracker. Speed is measured here, on one core (threads pinned to 1).

Figures printed per clip and in total:
  moves     correct moves / truth moves (a move is correct when it is the truth's
            move at that ply)
  recall    planted incidents reported (same kind, a shared point, ply within 1)
  false     reported incidents matching no planted one
  delay     move event time minus the truth's frame_hand_leaves time (video s):
            median and max (target <= 0.3 s)
  speed     video seconds per wall second (target >= 4x at 720p, one core)
  FALSE INCIDENTS per 10 games, and RECALL, as the arbiter sees them: an incident a later
            correction retracted (incident_retracted) does not stand; how many were raised and
            retracted is said beside it

Clip sets (bench/track_sets.py): TUNING, the games the incident rules were fixed against, and
HELD_BACK, thirty games with seeds, cameras and hands never used while tuning, scored only (drawn by
bench/draw_clips.py from a recorded seed; earlier held-back games, once scored at many stops, were
moved to TUNING and a fresh draw took their place); WIDE_HANDS and RESTING_HANDS, hands the rig
never rendered before and free hands resting at the board's edge, scored only like HELD_BACK.
Live versus file (--live): the shortest clip in use served over MJPEG in real time
(tests/runtime/stream_server.py) and recorded by `xqtrack record URL`, against
`xqtrack record clip.mp4`: final moves equal, standing incidents equal, frames dropped live.

Usage:
  python bench/track_bench.py                       # synth on tests/data/board truth files
  python bench/track_bench.py --render 4 --video    # render 4 held-out clips (cached), run vision too
  python bench/track_bench.py --set heldback --video --live --no-synth   # the issue-10 figures
  python bench/track_bench.py --set tuning --video --no-synth            # the set to tune against
  python bench/track_bench.py --make-truth DIR      # (re)make the test truth files
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "bench"))  # track_sets: the tuning and held-back clip sets  # synth: reader output from sim truth

CACHE = Path(os.environ.get("XQTRACK_BENCH_CACHE", str(Path.home() / ".cache" / "xqtrack-bench")))

# Held-out clips: seeds never used while developing the tracker.
BENCH_JOBS = [
    (7101, "wood", 10, [{"kind": "touch_move_other", "ply": 3}, {"kind": "retouch", "ply": 6},
                        {"kind": "between_points", "ply": 8}], {"bump": True}),
    (7102, "mat", 10, [{"kind": "knocked", "ply": 4}, {"kind": "arm_pass", "ply": 2},
                       {"kind": "retouch", "ply": 9}], None),
    (7103, "plastic", 10, [{"kind": "touch_move_other", "ply": 5}, {"kind": "between_points", "ply": 2}], None),
    (7104, "paper", 10, [{"kind": "retouch", "ply": 3}, {"kind": "knocked", "ply": 7}], {"bump": True}),
    (7105, "cloth", 10, [{"kind": "touch_move_other", "ply": 8}, {"kind": "arm_pass", "ply": 4}], None),
    (7106, "wood", 10, [], None),
    # added after the incident work of 2026-11-29, to check it on clips nobody had looked at
    (7107, "plastic", 10, [{"kind": "retouch", "ply": 4}, {"kind": "between_points", "ply": 6},
                           {"kind": "touch_move_other", "ply": 9}], {"bump": True}),
    (7108, "mat", 10, [{"kind": "knocked", "ply": 3}, {"kind": "touch_move_other", "ply": 6},
                       {"kind": "arm_pass", "ply": 7}], None),
    # added after the follow-up of the same day, again unseen by the work they check
    (7109, "wood", 10, [{"kind": "touch_move_other", "ply": 2}, {"kind": "knocked", "ply": 5},
                        {"kind": "retouch", "ply": 8}], None),
    (7110, "cloth", 10, [{"kind": "between_points", "ply": 3}, {"kind": "retouch", "ply": 6},
                         {"kind": "arm_pass", "ply": 5}], {"bump": True}),
]
TEST_JOBS = [
    (9101, "cloth", 8, [{"kind": "touch_move_other", "ply": 2}, {"kind": "retouch", "ply": 4},
                        {"kind": "knocked", "ply": 5}, {"kind": "between_points", "ply": 7},
                        {"kind": "arm_pass", "ply": 3}], {"bump": True}),
    (9102, "paper", 8, [{"kind": "retouch", "ply": 1}, {"kind": "touch_move_other", "ply": 4},
                        {"kind": "between_points", "ply": 3}, {"kind": "knocked", "ply": 6}], None),
    (9103, "wood", 8, [{"kind": "touch_move_other", "ply": 3}, {"kind": "retouch", "ply": 6},
                       {"kind": "arm_pass", "ply": 2}, {"kind": "knocked", "ply": 8}], {"bump": True}),
    (9104, "mat", 8, [{"kind": "between_points", "ply": 2}, {"kind": "retouch", "ply": 5},
                      {"kind": "touch_move_other", "ply": 7}], None),
]


def make_truth(out: Path, jobs=TEST_JOBS, width: int = 640, height: int = 360) -> None:
    """Render clips and keep only their truth (gzipped JSON), for the tracker tests."""
    from sim import ClipSpec
    from sim.render import Rig

    out.mkdir(parents=True, exist_ok=True)
    for seed, look, plies, inc, cam in jobs:
        t = time.time()
        spec = ClipSpec(seed=seed, look=look, random_plies=plies, incidents=inc, width=width, height=height,
                        camera=cam)
        rig = Rig(spec)
        frames = [rig.render(i, with_mask=False)[1] for i in range(rig.n)]
        truth = rig.clip_truth(frames)
        with gzip.open(out / f"truth_{seed}.json.gz", "wt", encoding="utf-8") as f:
            json.dump(truth.to_json(), f, separators=(",", ":"))
        print(f"truth {seed}: {rig.n} frames in {time.time() - t:.0f} s", flush=True)


def render_clips(n: int, width: int, height: int) -> list[Path]:
    """Render (once; cached) the first n held-out clips to video + truth."""
    from sim import ClipSpec, write_clip

    dirs = []
    for seed, look, plies, inc, cam in BENCH_JOBS[:n]:
        d = CACHE / f"clip_{seed}_{width}x{height}"
        if not (d / "truth.json").exists() or not (d / "clip.mp4").exists():
            t = time.time()
            write_clip(ClipSpec(seed=seed, look=look, random_plies=plies, incidents=inc, width=width,
                                height=height, camera=cam), d)
            print(f"rendered {d.name} in {time.time() - t:.0f} s", flush=True)
        dirs.append(d)
    return dirs


def render_set(name: str, width: int, height: int) -> list[Path]:
    """Render (once; cached under the bench cache dir) every clip of a named set (bench/track_sets.py)."""
    from sim import ClipSpec, write_clip
    from track_sets import SETS

    dirs = []
    for c in SETS[name]:
        d = CACHE / f"{name}_{c.seed}_{width}x{height}"
        if not (d / "truth.json").exists() or not (d / "clip.mp4").exists():
            t = time.time()
            write_clip(ClipSpec(seed=c.seed, look=c.look, random_plies=c.plies, incidents=c.incident_dicts(),
                                width=width, height=height, camera=dict(c.camera), hands=c.hands, resting=c.resting), d)
            print(f"rendered {d.name} in {time.time() - t:.0f} s", flush=True)
        dirs.append(d)
    return dirs


def load_truth(path: Path):
    from sim import ClipTruth
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return ClipTruth.from_json(json.load(f), str(path))
    return ClipTruth.load(path)


def match(found: list[dict], planted: list[dict], ply_slack: int = 1) -> tuple[int, int]:
    used = set()
    hit = 0
    for t in planted:
        tp = set(t.get("points") or [])
        for i, f in enumerate(found):
            if i in used or f["kind"] != t["kind"]:
                continue
            fp = set(f.get("points") or [])
            if tp and fp and not (tp & fp):
                continue
            if abs(int(f["ply"]) - int(t["ply"])) > ply_slack:
                continue
            used.add(i)
            hit += 1
            break
    return hit, len(found) - len(used)


def score(truth, events: list[dict]) -> dict:
    truth_moves = [m["iccs"] for m in truth.moves]
    from runtime.journal import final_move_events
    got = final_move_events(events)   # the record as it finally stands (corrections applied)
    correct = sum(1 for i, m in enumerate(truth_moves) if i < len(got) and got[i]["iccs"] == m)
    planted = [i for i in truth.incidents if i["kind"] != "arm_pass"]
    retracted = {e.get("incident") for e in events if e["type"] == "incident_retracted"}
    raised = [e for e in events if e["type"] == "incident" and e["kind"] != "repetition"]
    # an incident a later correction retracted is not an accusation that stands
    found = [e for e in raised if e.get("id") is None or e.get("id") not in retracted]
    hit, false = match(found, planted)
    false_raised = match(raised, planted)[1]
    delays = []
    for ev, m in zip(got, truth.moves):
        if ev["iccs"] == m["iccs"]:
            delays.append(ev["t"] - m["frame_hand_leaves"] / truth.fps)
    return {"moves": correct, "truth_moves": len(truth_moves), "extra_moves": max(0, len(got) - len(truth_moves)),
            "planted": len(planted), "hit": hit, "false": false, "false_raised": false_raised,
            "retracted": len(raised) - len(found), "delays": delays,
            "missed": [f"{i['kind']}@{i['ply']}" for i in planted if not match(found, [i])[0]],
            "false_list": [f"{e['kind']}@{e['ply']}" for e in found if not match([e], planted)[0]]}


def journal_lines(typed_events) -> list[dict]:
    """Tracker events as the recorder journals them: incidents numbered 1, 2, 3... (`id`), and a
    retraction naming the id of the incident it withdraws (runtime/recorder.py does the same)."""
    from board.events import IncidentEvent, IncidentRetracted

    out, n = [], 0
    for e in typed_events:
        if isinstance(e, IncidentEvent):
            n += 1
            e.extra.setdefault("id", n)
        elif isinstance(e, IncidentRetracted) and e.incident is None and e.target is not None:
            e.incident = e.target.extra.get("id")
        out.append(e.to_dict())
    return out


def run_synth(truth, noise_seed: int) -> tuple[list[dict], float]:
    from synth import NoiseProfile, bump_frames, observations, start_fen_of
    from board.tracker import Tracker

    tr = Tracker(start_fen=start_fen_of(truth))
    obs = list(observations(truth.frames, NoiseProfile(seed=noise_seed), bump_frames=bump_frames(truth)))
    t0 = time.process_time()
    typed = []
    for o in obs:
        typed.extend(tr.feed(o))
    typed.extend(tr.finish())
    return journal_lines(typed), time.process_time() - t0


def run_video(clip_dir: Path, truth, out_dir: Path) -> tuple[list[dict], float, float]:
    import cv2
    cv2.setNumThreads(1)
    from runtime.recorder import Recorder
    from runtime.sources import FrameSource
    from synth import start_fen_of

    import shutil
    from app.commands.record import _learning_reader
    from rules import Position

    shutil.rmtree(out_dir, ignore_errors=True)
    src = FrameSource(str(clip_dir / "clip.mp4"))
    # read as `xqtrack record` reads a game from a known start: its set checked (and learnt
    # where the model misreads it) at the first quiet frame
    start = start_fen_of(truth)
    reader = _learning_reader(out_dir, Position.from_fen(start).points(), False, lambda line: None)
    rec = Recorder(out_dir, start_fen=start, reader=reader)
    summary = rec.run(src)
    src.close()
    events = [e for e in summary.events if e["type"] in ("move", "incident", "incident_retracted", "tracking")]
    return events, summary.video_s, summary.wall_s


def run_hybrid(clip_dir: Path, truth, noise_seed: int = 1) -> list[dict]:
    """Real vision for pose, hands and quiet (decoded video); readings synthesised from truth.

    Measures the incident rules against a real hand detector while the piece
    classifier is judged separately (video mode)."""
    import cv2
    cv2.setNumThreads(1)
    import numpy as np
    from synth import NoiseProfile, observations, start_fen_of
    from board.tracker import Tracker
    from vision import BoardReader

    import hashlib
    import vision.hands
    # the cached hand/quiet flags are only valid for the hand detector that made them
    key = hashlib.sha1(Path(vision.hands.__file__).read_bytes()).hexdigest()[:10]
    cache = clip_dir / f"vision_hands_{key}.npz"
    if not cache.exists():
        reader = BoardReader(classify=False)
        cap = cv2.VideoCapture(str(clip_dir / "clip.mp4"))
        occ, quiet, pose = [], [], []
        i = 0
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            o = reader.process(frame, i / truth.fps, i)
            occ.append(o.occluded)
            quiet.append(o.quiet)
            pose.append(o.pose.homography if o.pose is not None else np.full((3, 3), np.nan))
            i += 1
        np.savez_compressed(cache, occ=np.array(occ), quiet=np.array(quiet), pose=np.array(pose))
    z = np.load(cache)
    tr = Tracker(start_fen=start_fen_of(truth))
    events = []
    held = None   # like BoardReader: readings refresh only on quiet frames
    for o in observations(truth.frames, NoiseProfile(seed=noise_seed)):
        i = o.frame_index
        if i >= len(z["occ"]):
            break
        o.occluded = z["occ"][i].copy()
        o.quiet = bool(z["quiet"][i])
        if o.quiet or held is None:
            held = (o.probs.copy(), o.offset.copy())
        else:
            o.probs, o.offset = held[0].copy(), held[1].copy()
        if np.isnan(z["pose"][i]).any():
            o.pose = None
        else:
            h = z["pose"][i]
            if _turned(h, truth.frames[i].homography):
                # without a classifier the hand-only reader may take the board the other way
                # round (red's side from ink colour): put its flags in the truth's indexing
                o.occluded = o.occluded[::-1].copy()
                h = h @ np.array([[-1.0, 0, 8], [0, -1.0, 9], [0, 0, 1]])
            o.pose.homography = h
        events.extend(tr.feed(o))
    events.extend(tr.finish())
    return journal_lines(events)


def _turned(h, h_truth) -> bool:
    """The reader's homography maps a0 where the truth has i9 (board taken turned 180 degrees)."""
    import numpy as np

    def img(hm, x, y):
        q = np.asarray(hm, dtype=np.float64) @ np.array([x, y, 1.0])
        return q[:2] / q[2]
    a0 = img(h, 0, 0)
    return bool(np.linalg.norm(a0 - img(h_truth, 8, 9)) < np.linalg.norm(a0 - img(h_truth, 0, 0)))


def report(rows: list[tuple[str, dict]], speed: list[tuple[float, float]] | None = None) -> None:
    tot: dict[str, Any] = {"moves": 0, "truth_moves": 0, "planted": 0, "hit": 0, "false": 0, "false_raised": 0, "retracted": 0,
           "delays": []}
    print(f"{'clip':28s} {'moves':>9s} {'recall':>8s} {'false':>5s} {'delay med/max s':>16s}  missed / false")
    for name, r in rows:
        for k in ("moves", "truth_moves", "planted", "hit", "false", "false_raised", "retracted"):
            tot[k] += r.get(k, 0)
        tot["delays"] += r["delays"]
        d = r["delays"]
        dd = f"{statistics.median(d):.2f}/{max(d):.2f}" if d else "-"
        print(f"{name:28s} {r['moves']:>4d}/{r['truth_moves']:<4d} {r['hit']:>3d}/{r['planted']:<4d} {r['false']:>5d} "
              f"{dd:>16s}  {' '.join(r['missed'])} / {' '.join(r['false_list'])}")
    d = tot["delays"]
    print(f"TOTAL move accuracy {tot['moves']}/{tot['truth_moves']} = {tot['moves'] / max(1, tot['truth_moves']):.1%}; "
          f"incident recall {tot['hit']}/{tot['planted']} = {tot['hit'] / max(1, tot['planted']):.1%}; "
          f"false alarms {tot['false']} in {len(rows)} runs ({tot['false'] / max(1, len(rows)):.2f}/game); "
          + (f"delay median {statistics.median(d):.2f} s, p90 {sorted(d)[int(0.9 * (len(d) - 1))]:.2f} s, "
             f"max {max(d):.2f} s" if d else "no delays"))
    n = max(1, len(rows))
    print(f"FALSE INCIDENTS {10 * tot['false'] / n:.1f} per 10 games ({tot['false']} in {len(rows)}; "
          f"{tot['false_raised']} raised, {tot['retracted']} retracted by a later correction); "
          f"RECALL {tot['hit']}/{tot['planted']} = {tot['hit'] / max(1, tot['planted']):.1%}")
    if speed:
        v = sum(a for a, _ in speed)
        w = sum(b for _, b in speed)
        print(f"SPEED {v:.1f} s of video in {w:.1f} s wall = {v / max(w, 1e-9):.2f}x real time (one core)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", nargs="*", help="truth files (default: tests/data/board/truth_*.json.gz)")
    ap.add_argument("--noise-seeds", type=int, default=3, help="synth runs per clip (default 3)")
    ap.add_argument("--render", type=int, default=0, help="render this many held-out clips (cached) and use them")
    ap.add_argument("--size", default="1280x720", help="render size for --render (default 1280x720)")
    ap.add_argument("--video", action="store_true", help="also run the real pipeline on rendered clips")
    ap.add_argument("--hybrid", action="store_true",
                    help="real vision hands/pose on rendered clips + readings from truth (incident rules vs a real hand detector)")
    ap.add_argument("--no-synth", action="store_true")
    from track_sets import SETS
    ap.add_argument("--set", action="append", choices=tuple(SETS), default=[],
                    help="render (cached) and use a clip set of bench/track_sets.py; repeatable")
    ap.add_argument("--set-size", default="960x540", help="render size for --set (default 960x540)")
    ap.add_argument("--live", action="store_true",
                    help="live versus file: the first clip used served over MJPEG and recorded by `xqtrack record URL`")
    ap.add_argument("--make-truth", metavar="DIR", help="render the test truth files into DIR and exit")
    args = ap.parse_args(argv)

    if args.make_truth:
        make_truth(Path(args.make_truth))
        return 0
    truths: list[tuple[str, Any, Path | None]] = []
    paths = [Path(p) for p in args.truth] if args.truth else sorted((ROOT / "tests" / "data" / "board").glob("truth_*.json.gz"))
    for p in paths:
        truths.append((p.name.split(".")[0], load_truth(p), None))
    if args.render:
        w, h = (int(x) for x in args.size.lower().split("x"))
        for clip in render_clips(args.render, w, h):
            truths.append((clip.name, load_truth(clip / "truth.json"), clip))

    sets: dict[str, list[str]] = {}
    for name in args.set:
        w, h = (int(x) for x in args.set_size.lower().split("x"))
        for clip in render_set(name, w, h):
            truths.append((clip.name, load_truth(clip / "truth.json"), clip))
            sets.setdefault(name, []).append(clip.name)

    if not args.no_synth:
        rows = []
        cpu = 0.0
        video = 0.0
        for name, truth, _ in truths:
            for s in range(1, args.noise_seeds + 1):
                events, c = run_synth(truth, s)
                cpu += c
                video += truth.frame_count / truth.fps
                rows.append((f"{name} n{s}", score(truth, events)))
        print("== synth: tracker on degraded readings from sim truth ==")
        report(rows)
        print(f"tracker alone: {video / max(cpu, 1e-9):.0f}x real time (CPU time)")
    if args.hybrid:
        rows = []
        for name, truth, d in truths:
            if d is not None:
                rows.append((name, score(truth, run_hybrid(d, truth))))
        print("== hybrid: vision hands/pose + readings from truth ==")
        if rows:
            report(rows)
        else:
            print("no rendered clips (use --render N)")
    if args.video:
        try:   # one core, as the target says
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        except (AttributeError, OSError):
            pass
        rows, speed = [], []
        for name, truth, d in truths:
            if d is None:
                continue
            events, vs, ws = run_video(d, truth, CACHE / "out" / name)
            rows.append((name, score(truth, events)))
            speed.append((vs, ws))
        print("== video: decode + vision.BoardReader + tracker ==")
        if rows:
            report(rows, speed)
            for name, names in sets.items():
                print(f"-- video, {name} set ({'tuned on' if name == 'tuning' else 'scored only, never tuned on'}) --")
                report([r for r in rows if r[0] in names])
        else:
            print("no rendered clips (use --render N or --set NAME)")
    if args.live:
        clips = [(name, truth, d) for name, truth, d in truths if d is not None]
        if not clips:
            print("live: no rendered clip (use --render N or --set NAME)")
        else:
            name, truth, d = min(clips, key=lambda c: c[1].frame_count)
            print("== live versus file: the clip served over MJPEG in real time, `xqtrack record URL` ==")
            print(live_agreement(name, truth, d))
    return 0


def _record(source: str, out: Path, fen: str) -> list[dict]:
    """`xqtrack record SOURCE` as a person runs it (a subprocess); the journal's lines."""
    import shutil
    import subprocess

    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([sys.executable, "-m", "app.cli", "record", source, "--out", str(out), "--quiet",
                        "--start-fen", fen], capture_output=True, text=True, cwd=str(ROOT), timeout=900)
    if not (out / "events.jsonl").exists():
        raise RuntimeError(f"xqtrack record {source}: no journal (exit {r.returncode}): {r.stderr.strip()[-400:]}")
    return [json.loads(line) for line in (out / "events.jsonl").read_text(encoding="utf-8").splitlines() if line]


def live_agreement(name: str, truth, clip_dir: Path) -> str:
    """One clip recorded from the file and from an MJPEG stream of it: moves equal, incidents equal."""
    sys.path.insert(0, str(ROOT / "tests" / "runtime"))   # stream_server: the test MJPEG camera
    from runtime.journal import final_move_events
    from stream_server import MjpegServer, clip_frames
    from synth import start_fen_of

    fen = start_fen_of(truth)
    from_file = _record(str(clip_dir / "clip.mp4"), CACHE / "out" / f"live_file_{name}", fen)
    with MjpegServer(clip_frames(clip_dir / "clip.mp4"), fps=truth.fps) as server:
        live = _record(server.url, CACHE / "out" / f"live_stream_{name}", fen)

    def moves(ev: list[dict]) -> list[str]:
        return [e["iccs"] for e in final_move_events(ev)]

    def incidents(ev: list[dict]) -> list[tuple]:
        gone = {e.get("incident") for e in ev if e.get("type") == "incident_retracted"}
        return [(e["kind"], e["ply"], tuple(e.get("points") or [])) for e in ev
                if e.get("type") == "incident" and e.get("id") not in gone]

    dropped = sum(int(e.get("dropped", 0) or 0) for e in live
                  if e.get("type") == "tracking" and e.get("status") == "frames_dropped")
    mf, ml, inf, inl = moves(from_file), moves(live), incidents(from_file), incidents(live)
    return (f"LIVE {name}: moves {'equal' if mf == ml else 'DIFFER'} ({len(ml)} live, {len(mf)} file; "
            f"{sum(a == b for a, b in zip(mf, ml))} agree), incidents {'equal' if inf == inl else 'DIFFER'} "
            f"({len(inl)} live, {len(inf)} file), frames dropped live: {dropped}"
            + ("" if inf == inl else f"; file {inf} / live {inl}"))


if __name__ == "__main__":
    sys.exit(main())
