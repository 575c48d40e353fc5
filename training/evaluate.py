"""Measure the shipped piece model: the figures that go into vision/models/MODEL_CARD.md.

    .venv/bin/python -m training.evaluate [--model vision/models/pieces.onnx] [--json out.json]

Runs the ONNX model through `vision.classifier.PieceClassifier` (what the
product runs), on:

* rendered test stills: seeds never used in training (SIM_TEST_SEEDS), in the
  training looks and in the held-out look(s), with the true homography, at
  each point centre (per-point accuracy over all 90 points);
* real crops of the held-out photo groups (`tests/data/real_crops_holdout`,
  the 'test' split) in the fixed point-crop convention (disc 90 % of the crop);
* the same real crops at 8 rotations (agreement of the predicted class);
* timing: one batch of 90 crops, one onnxruntime thread.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classifier import DEFAULT_MODEL_PATH, PieceClassifier
from vision.crops import disc_to_point_crop, extract_point_crops
from vision.observation import CLASSES

ROOT = Path(__file__).resolve().parent.parent
HOLDOUT = ROOT / "tests" / "data" / "real_crops_holdout"


def load_holdout(root: Path = HOLDOUT) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Held-out real crops in the point-crop convention: (crops, labels, groups)."""
    from training.dataset import square_disc
    crops, labels, groups = [], [], []
    for line in open(root / "labels.jsonl", encoding="utf-8"):
        r = json.loads(line)
        im = cv2.imread(str(root / r["image"]), cv2.IMREAD_COLOR)
        crops.append(disc_to_point_crop(square_disc(im), size=48, fill=0.9))
        labels.append(CLASSES.index(r["piece"]))
        groups.append(r["source_photo_group"])
    return np.stack(crops), np.array(labels), groups


def confusion(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    m = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    np.add.at(m, (y, p), 1)
    return m


def top_confusions(m: np.ndarray, k: int = 8) -> list[str]:
    off = [(m[i, j], CLASSES[i], CLASSES[j]) for i in range(len(CLASSES)) for j in range(len(CLASSES)) if i != j and m[i, j]]
    off.sort(reverse=True)
    return [f"{t}->{p}: {n}" for n, t, p in off[:k]]


def rotate(c: np.ndarray, ang: float) -> np.ndarray:
    s = c.shape[0]
    M = cv2.getRotationMatrix2D((s / 2 - 0.5, s / 2 - 0.5), ang, 1.0)
    return cv2.warpAffine(c, M, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)


def sim_eval(configs: dict[str, tuple[PieceClassifier, float]], seeds: range, looks: list[str]) -> dict:
    """Per-point accuracy on rendered stills, for several (classifier, crop plane height) configs.

    Each still is rendered once and read by every config (rendering is the slow part).
    """
    from sim import render_still
    from training.dataset import board_to_fen, random_board
    import random
    acc: dict = {name: {} for name in configs}
    for look in looks:
        ys = []
        ps: dict = {name: [] for name in configs}
        offs_t: list = []
        offs_p: dict = {name: [] for name in configs}
        for seed in seeds:
            rng = random.Random(seed * 31 + 7)
            board = random_board(rng)
            img, truth = render_still(seed, look=look, fen=board_to_fen(board))  # the rig draws the camera
            ys.append(np.array([CLASSES.index(c) for c in truth.board]))
            occ = np.array([c != "." for c in truth.board])
            offs_t.append(np.asarray(truth.offsets)[occ])
            for name, (clf, height) in configs.items():
                crops = extract_point_crops(img, truth.homography, size=clf.input_size, height=height)
                o = clf.predict_full(crops)
                ps[name].append(o.probs.argmax(1))
                offs_p[name].append(o.offsets[occ])
        y = np.concatenate(ys)
        ot = np.concatenate(offs_t)
        for name in configs:
            p = np.concatenate(ps[name])
            op = np.concatenate(offs_p[name])
            m = confusion(y, p)
            acc[name][look] = {"points": int(len(y)), "accuracy": float((y == p).mean()), "errors": int((y != p).sum()),
                               "top_confusions": top_confusions(m),
                               "offset_mae_spacings": float(np.abs(ot - op).mean()) if len(ot) else None}
    return acc


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL_PATH)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--sim-stills", type=int, default=20, help="test stills per look")
    ap.add_argument("--no-sim", action="store_true")
    ap.add_argument("--no-tta", action="store_true", help="evaluate without the quarter-turn averaging")
    args = ap.parse_args(argv)

    clf = PieceClassifier(args.model, tta=not args.no_tta)
    res: dict = {"model": str(args.model), "model_kib": round(args.model.stat().st_size / 1024, 1), "tta": clf.tta}

    x, y, groups = load_holdout()
    p = clf.predict(x).argmax(1)
    m = confusion(y, p)
    res["real_holdout"] = {"crops": int(len(y)), "groups": len(set(groups)), "accuracy": float((y == p).mean()),
                           "errors": int((y != p).sum()), "top_confusions": top_confusions(m),
                           "per_class_recall": {CLASSES[i]: round(float(m[i, i] / max(m[i].sum(), 1)), 4)
                                                for i in range(1, len(CLASSES))},
                           "pairs": {"r->p (black 车 as 卒)": int(m[CLASSES.index('r'), CLASSES.index('p')]),
                                     "p->r": int(m[CLASSES.index('p'), CLASSES.index('r')]),
                                     "N->P (red 马 as 兵)": int(m[CLASSES.index('N'), CLASSES.index('P')]),
                                     "P->N": int(m[CLASSES.index('P'), CLASSES.index('N')])}}
    agree = []
    for ang in (45, 90, 135, 180, 225, 270, 315):
        pr = clf.predict(np.stack([rotate(c, ang) for c in x])).argmax(1)
        agree.append(float((pr == p).mean()))
    res["real_holdout"]["rotation_agreement_min"] = min(agree)
    fast = PieceClassifier(args.model, tta=False)
    res["real_holdout"]["accuracy_without_tta"] = float((fast.predict(x).argmax(1) == y).mean())

    batch = x[:90]
    for name, c in (("ms_per_90_points_1_thread_tta", PieceClassifier(args.model, threads=1, tta=True)),
                    ("ms_per_90_points_1_thread_no_tta", PieceClassifier(args.model, threads=1, tta=False))):
        c.predict(batch)
        best = float("inf")
        for _ in range(5):  # best of 5 rounds: the machine is shared
            t = time.perf_counter()
            for _ in range(5):
                c.predict(batch)
            best = min(best, (time.perf_counter() - t) / 5)
        res[name] = round(best * 1000, 2)

    if not args.no_sim:
        from training.train import SIM_TEST_SEEDS, sim_looks
        train_looks, held = sim_looks()
        seeds = range(SIM_TEST_SEEDS[0], SIM_TEST_SEEDS[0] + args.sim_stills)
        configs = {"main": (clf, clf.crop_height), "no_tta": (fast, clf.crop_height), "board_plane": (clf, 0.0)}
        out = sim_eval(configs, seeds, train_looks + held)
        res["sim_test"] = out["main"]
        res["sim_test_held_out_looks"] = held
        res["sim_test_crop_height"] = clf.crop_height
        tot = sum(v["points"] for v in res["sim_test"].values())
        res["sim_test_points"] = tot
        for name, key in (("main", "sim_test_overall_accuracy"), ("no_tta", "sim_test_accuracy_without_tta"),
                          ("board_plane", "sim_test_accuracy_board_plane_crops")):
            res[key] = 1 - sum(v["errors"] for v in out[name].values()) / tot
    print(json.dumps(res, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
