"""Vision benchmark: per-frame pipeline time, full photo read, classifier time, board-finding and piece accuracy.

Run from the repository root:  .venv/bin/python bench/vision_bench.py [--stills 24] [--frames 60]

Everything runs on ONE thread (OpenCV and onnxruntime), as the targets are per core. Times are
reported as wall time and as process CPU time: on a busy shared machine the CPU time is the
fairer figure. Material comes from the repo's own sim, and for piece reading on real sets from the
photos labelled by eye in tests/data/real_boards (plain, joint assignment, with a set profile).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402


def _timed(fn, *a, **k):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*a, **k)
    return out, time.perf_counter() - w0, time.process_time() - c0


def _pct(xs, q):
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


def _model_available() -> bool:
    from vision.classifier import DEFAULT_MODEL_PATH
    return Path(DEFAULT_MODEL_PATH).is_file()


def bench_video(width: int, height: int, frames: int, seed: int, classify: bool, model: str | None = None) -> None:
    import sim
    from vision.reader import BoardReader
    spec = sim.ClipSpec(seed=seed, random_plies=2, width=width, height=height, fps=15.0)
    clip = []
    for fr, tr in sim.render_clip(spec):
        clip.append((fr, tr))
        if len(clip) >= frames:
            break
    reader = BoardReader(model_path=model, classify=classify)
    walls: list[float] = []
    cpus: list[float] = []
    quiet_w: list[float] = []
    busy_w: list[float] = []
    reclass = 0
    for i, (fr, tr) in enumerate(clip):
        before = reader.probs.copy()
        obs, w, c = _timed(reader.process, fr, tr.t, i)
        if i == 0:
            first = w
            continue
        walls.append(w)
        cpus.append(c)
        (quiet_w if tr.quiet else busy_w).append(w)
        reclass += int(np.any(before != reader.probs))
    print(f"  {width}x{height}: {len(walls)} frames after the lock (first frame, finding the board: {first * 1000:.0f} ms)")
    print(f"    per frame wall  median {statistics.median(walls) * 1000:6.1f} ms  p90 {_pct(walls, 90) * 1000:6.1f} ms"
          f"  -> {1.0 / statistics.median(walls):5.1f} fps")
    print(f"    per frame CPU   median {statistics.median(cpus) * 1000:6.1f} ms  p90 {_pct(cpus, 90) * 1000:6.1f} ms"
          f"  -> {1.0 / statistics.median(cpus):5.1f} fps (one core)")
    if quiet_w and busy_w:
        print(f"    quiet frames {statistics.median(quiet_w) * 1000:.1f} ms, hand-over-board frames "
              f"{statistics.median(busy_w) * 1000:.1f} ms (median wall); frames that reclassified points: {reclass}")


def _stats(label: str, walls: list[float], cpus: list[float], best: list[float]) -> str:
    return (f"    {label:<15s} wall median {statistics.median(walls) * 1000:5.0f} ms  p90 {_pct(walls, 90) * 1000:5.0f}"
            f" | CPU median {statistics.median(cpus) * 1000:5.0f} ms  p90 {_pct(cpus, 90) * 1000:5.0f}"
            f" | best-of-repeats CPU median {statistics.median(best) * 1000:5.0f} ms")


def bench_photo(n: int, classify: bool, model: str | None = None, repeat: int = 3,
                load_s: tuple[float, float] | None = None) -> None:
    """Full photo read (read_image) at 1280x720 and 1920x1080, with its breakdown.

    finding = vision.locate.find_lattice; classification = reading the 90 points on the found
    lattice the way read_image does (plain reading, quarter-turn averaging on unsure points);
    total = read_image itself. Each photo
    is read `repeat` times: the best CPU time per photo shows the cost without the noise of a
    shared machine. Loading the model is a one-off per process (`load_s`, measured first thing),
    reported separately.
    """
    import sim
    from vision.locate import find_lattice, orient
    from vision.reader import _shared_classify, read_image
    if load_s is not None:
        print(f"  loading the piece model (once per process, onnxruntime start-up included): "
              f"wall {load_s[0] * 1000:.0f} ms, CPU {load_s[1] * 1000:.0f} ms")
    for width, height in ((1280, 720), (1920, 1080)):
        imgs = [sim.render_still(seed, width=width, height=height)[0] for seed in range(500, 500 + n)]
        res: dict[str, tuple[list, list, list]] = {k: ([], [], []) for k in ("finding", "classification", "total")}
        for img in imgs:
            per: dict[str, list[float]] = {k: [] for k in res}

            def timed(part: str, fn, *a):
                out, w, c = _timed(fn, *a)
                res[part][0].append(w)
                res[part][1].append(c)
                per[part].append(c)
                return out

            for _ in range(repeat):
                fit = timed("finding", find_lattice, img)
                if classify:
                    timed("classification", _shared_classify(model, None).run, img, orient(fit.homography))
                    timed("total", read_image, img, model)
            for k in res:
                if per[k]:
                    res[k][2].append(min(per[k]))
        print(f"  {width}x{height}, {n} rendered photos x {repeat} reads (target: total <= 100 ms):")
        for k, (walls, cpus, best) in res.items():
            if walls:
                print(_stats(k, walls, cpus, best))


def bench_classifier(model: str | None = None) -> None:
    import sim
    from vision.classifier import TTA_BELOW, PieceClassifier
    from vision.crops import extract_point_crops
    img, tr = sim.render_still(3)
    for name, clf in (("quarter-turn averaging on every point", PieceClassifier(model)),
                      (f"plain, averaging only points below {TTA_BELOW} (readers' default)",
                       PieceClassifier(model, tta_below=TTA_BELOW)),
                      ("plain only", PieceClassifier(model, tta=False))):
        crops = clf.extract(img, tr.homography)
        clf.predict(crops)
        ws, cs = [], []
        for _ in range(10):
            _, w, c = _timed(clf.predict, crops)
            ws.append(w)
            cs.append(c)
        print(f"  classifier, 90 points, {name}: wall median {statistics.median(ws) * 1000:.1f} ms, "
              f"CPU median {statistics.median(cs) * 1000:.1f} ms")
    t0 = time.process_time()
    extract_point_crops(img, tr.homography)
    print(f"  (cutting the 90 crops: {(time.process_time() - t0) * 1000:.1f} ms CPU)")


def bench_accuracy(n: int, first_seed: int) -> None:
    import sim
    from vision import geometry as geo
    from vision.locate import BoardNotFoundError, find_lattice
    errs, found, within = [], 0, 0
    for seed in range(first_seed, first_seed + n):
        img, tr = sim.render_still(seed)
        try:
            fit = find_lattice(img)
        except BoardNotFoundError:
            print(f"    seed {seed}: not found")
            continue
        found += 1
        e = min(float(np.abs(geo.apply_h(fit.homography @ geo.board_symmetry(k), geo.POINTS)
                             - geo.apply_h(tr.homography, geo.POINTS)).max())
                for k in ("id", "flip_x", "flip_y", "rot180"))
        allow = 1.0 + float(tr.camera.get("homography_fit_max_px", 0.0))
        within += int(e < allow)
        errs.append(e)
        if e >= allow:
            print(f"    seed {seed}: max point error {e:.2f} px (allowed {allow:.2f})")
    print(f"  board finding on {n} random renders (seeds {first_seed}..{first_seed + n - 1}): found {found}/{n}, "
          f"within 1 px (+ the truth's own lens-distortion residual) {within}/{n}; "
          f"max point error median {statistics.median(errs) if errs else float('nan'):.2f} px")


def bench_real_boards(model: str | None = None) -> None:
    """Piece reading on real photos of sets never trained on (tests/data/real_boards, labelled by eye).

    plain = each point on its own; joint = the board read as a whole (set counts, game placement;
    what `xqtrack read` prints); profile = joint, with the set taught (`calibrate pieces`) from
    ANOTHER photo of the same set (sets with one photo are left out of that row). Points marked '?'
    in the labels are not counted. Also the joint assignment's own time per photo.
    """
    from calibration.piece_profile import profile_from_photo
    from training.board_eval import load_real_boards, score_board
    from vision.assignment import read_jointly
    from vision.reader import read_photo
    boards = load_real_boards()
    rows: dict[str, list[int]] = {k: [0, 0, 0, 0] for k in ("plain", "joint", "profile")}
    per_set: dict[str, dict[str, list[int]]] = {}
    confusion: dict[str, dict[tuple[str, str], int]] = {}
    t_joint: list[float] = []

    def add(key: str, board: str, truth: str, set_name: str = "") -> None:
        sc = score_board(board, truth)
        for r in (rows[key], per_set.setdefault(set_name, {}).setdefault(key, [0, 0, 0, 0])):
            r[0] += sc.right
            r[1] += sc.counted
            r[2] += int(sc.perfect)
            r[3] += 1
        if key == "joint":
            conf = confusion.setdefault(set_name, {})
            for got, want in zip(board, truth):
                if want != "?" and got != want:
                    conf[(want, got)] = conf.get((want, got), 0) + 1

    images: dict[Path, np.ndarray] = {}
    for b in boards:
        img = cv2.imread(str(b.image), cv2.IMREAD_COLOR)
        if img is None:
            raise FileNotFoundError(f"{b.image}: missing or not an image")
        images[b.image] = np.asarray(img)
    for b in boards:
        plain = read_photo(images[b.image], model, joint=False).observation
        add("plain", plain.board_string(), b.truth, b.set_name)
        jr, _, c = _timed(read_jointly, plain.probs)
        t_joint.append(c)
        add("joint", read_photo(images[b.image], model).observation.board_string(), b.truth, b.set_name)
    for teach in boards:
        others = [b for b in boards if b.set_name == teach.set_name and b is not teach]
        if not others:
            continue
        cal = profile_from_photo(images[teach.image], teach.truth.replace("?", "."), name=teach.set_name,
                                 model_path=model)
        for b in others:
            add("profile", read_photo(images[b.image], model, profile=cal.profile).observation.board_string(), b.truth,
                b.set_name)
    sets = sorted({b.set_name for b in boards})
    print(f"  real photos of {len(sets)} sets never trained on ({len(boards)} photos, labelled by eye):")
    for k, (right, counted, perfect, n) in rows.items():
        if counted:
            print(f"    {k:<8s} {right / counted * 100:6.2f} % of points ({counted - right} wrong of {counted}), "
                  f"boards perfect {perfect}/{n}")
    print(f"    joint assignment alone: CPU median {statistics.median(t_joint) * 1000:.2f} ms per photo")
    # every set here is one the model never trained on: each row is that set left out
    print("  per set (none of them in training: each row is a leave-one-set-out figure), joint reading;"
          " errors as truth->read:")
    for name in sorted(per_set):
        r = per_set[name]["joint"]
        taught = per_set[name].get("profile")
        conf = ", ".join(f"{t}->{g}: {n}" for (t, g), n in sorted(confusion.get(name, {}).items(),
                                                                  key=lambda kv: -kv[1]))
        extra = f", taught {taught[0] / taught[1] * 100:.2f} %" if taught and taught[1] else ""
        print(f"    {name:<22s} {r[0] / r[1] * 100:6.2f} % ({r[1] - r[0]} wrong of {r[1]}), perfect {r[2]}/{r[3]}"
              f"{extra}; {conf or 'no errors'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=120, help="frames per video benchmark (enough for a move to settle)")
    ap.add_argument("--photos", type=int, default=8, help="photos per size for the full-read timing")
    ap.add_argument("--repeat", type=int, default=3, help="reads of each photo (best-of figure)")
    ap.add_argument("--stills", type=int, default=24, help="renders for the accuracy figure")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--model", default=None, help="piece model .onnx (default: the shipped one)")
    ap.add_argument("--part", action="append", choices=("video", "photo", "accuracy", "real"),
                    help="only these parts (default all)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    classify = args.model is not None or _model_available()
    print(f"vision bench (one thread; classifier model {'present' if classify else 'MISSING: geometry/hands only'})")
    load_s = None
    if classify:
        from vision.reader import _shared_classify
        _, w, c = _timed(_shared_classify, args.model, None)
        load_s = (w, c)
    parts = set(args.part or ("video", "photo", "accuracy", "real"))
    if "video" in parts:
        print("per-frame pipeline (steady state: lock kept, hands, only changed points reclassified):")
        for w, h in ((1280, 720), (1920, 1080)):
            bench_video(w, h, args.frames, args.seed, classify, args.model)
    if "photo" in parts:
        print("photo read:")
        bench_photo(args.photos, classify, args.model, args.repeat, load_s)
        if classify:
            bench_classifier(args.model)
    if "accuracy" in parts:
        print("accuracy:")
        bench_accuracy(args.stills, 1000)
    if classify and "real" in parts:
        bench_real_boards(args.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
