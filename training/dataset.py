"""Training data for the piece classifier: rendered point crops + real disc crops.

Two sources, one crop convention (`vision.crops`):

* **Rendered** (`sim.render_still`): random positions (every class on every
  kind of point: lattice crossings, river, palace lines, edges), each look of
  the rig, crops taken through the true homography with a small random
  recentring (as a board finder would be slightly off) at a larger span so
  rotation/scale augmentation has real context to rotate in. Empty points come
  only from here (the real set has none).
* **Real** (`/work/shared/data/real_piece_crops`): tight crops of real discs,
  split by `source_photo_group` (never by image: each crop appears in up to
  three 90-degree copies and photos share lighting). At training time each
  disc is placed into a point crop: resized to 80-97 % of the crop, slightly
  off-centre, on a rendered empty point (pasted through a round mask) or on
  its own border extended.

The split is deterministic (hash of the group name) so the model card, the
evaluation script and the shipped test set `tests/data/real_crops_holdout/`
always agree.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from vision.crops import extract_point_crops
from rules.squares import placement_from_points
from vision.observation import CLASSES

REAL_DIR = Path("/work/shared/data/real_piece_crops")
CROP = 48            # model input side
CONTEXT_SPAN = 1.5   # rendered crops are stored wider, cut to span 1 after rotation/scale
CONTEXT = 72         # pixels of the stored wide crop (same scale: 48 px per spacing)
REAL_TEST_GROUPS = 20
REAL_VAL_GROUPS = 10


# ------------------------------------------------------------------ real crops
def real_group_split(groups: Iterable[str]) -> dict[str, str]:
    """Deterministic group -> 'train' | 'val' | 'test' split (by a hash of the group name)."""
    g = sorted(set(groups), key=lambda s: hashlib.sha1(s.encode()).hexdigest())
    out = {}
    for i, name in enumerate(g):
        out[name] = "test" if i < REAL_TEST_GROUPS else "val" if i < REAL_TEST_GROUPS + REAL_VAL_GROUPS else "train"
    return out


@dataclass
class RealSet:
    images: list[np.ndarray]   # tight disc crops, BGR
    labels: np.ndarray         # class index
    groups: list[str]
    paths: list[str]


def load_real(split: str, root: Path = REAL_DIR) -> RealSet:
    """Real disc crops of one split ('train', 'val', 'test' or 'all')."""
    rows = [json.loads(line) for line in open(root / "labels.jsonl", encoding="utf-8") if line.strip()]
    sp = real_group_split(r["source_photo_group"] for r in rows)
    imgs, labs, groups, paths = [], [], [], []
    for r in rows:
        if split != "all" and sp[r["source_photo_group"]] != split:
            continue
        im = cv2.imread(str(root / r["image"]), cv2.IMREAD_COLOR)
        if im is None:
            raise FileNotFoundError(f"{root / r['image']}: unreadable image listed in labels.jsonl")
        imgs.append(im)
        labs.append(CLASSES.index(r["piece"]))
        groups.append(r["source_photo_group"])
        paths.append(r["image"])
    return RealSet(imgs, np.array(labs, np.int64), groups, paths)


def square_disc(img: np.ndarray) -> np.ndarray:
    """Tight crops are not always square (cut at an image edge): pad to square by edge replication."""
    h, w = img.shape[:2]
    if h == w:
        return img
    s = max(h, w)
    top, left = (s - h) // 2, (s - w) // 2
    return cv2.copyMakeBorder(img, top, s - h - top, left, s - w - left, cv2.BORDER_REPLICATE)


# ------------------------------------------------------------------ rendered crops
def random_board(rng: random.Random, extra_kings: int = 0) -> str:
    """A random 90-char board: random subset of a full set, scattered anywhere.

    Not legal positions on purpose: the classifier must read every piece on
    every kind of point. Density varies from sparse endgames to crowded.

    `extra_kings`: add this many more red and black kings (K and k each) to the
    board. A full set has one king per side against two of every other officer,
    so kings are the rarest class in the rendered crops (about 0.7 per side per
    still, half of A/B/N/R/C) and they carried the remaining rendered errors.
    With the default 0 the draws are exactly those of the original sampler, so
    the cached training stills and the validation/test sets (training/evaluate.py
    uses this function) are unchanged.
    """
    pieces = list("KAABBNNRRCCPPPPP" + "kaabbnnrrccppppp")
    rng.shuffle(pieces)
    n = rng.randint(12, 32)
    extra = rng.choice(["", "", "RNCrnc", "PPpp"])  # a few duplicates of the most confused kinds
    chosen = pieces[:n] + list(extra) + list("Kk" * max(0, int(extra_kings)))
    board = ["."] * 90
    for p, idx in zip(chosen, rng.sample(range(90), len(chosen))):
        board[idx] = p
    return "".join(board)


def board_to_fen(board: str) -> str:
    """90-char board (index = rank*9+file) -> FEN placement (rank 9 first)."""
    return placement_from_points(board)


@dataclass
class SimSet:
    crops: np.ndarray     # (N, CONTEXT, CONTEXT, 3) uint8, span CONTEXT_SPAN
    labels: np.ndarray    # (N,) class index
    offsets: np.ndarray   # (N, 2) disc centre minus crop centre, point spacings (x files, y ranks)
    seeds: np.ndarray     # (N,) render seed
    looks: list[str]


def render_sim_set(seeds: Iterable[int], looks: Iterable[str] | None = None, empty_keep: float = 0.35,
                   jitter: float = 0.06, camera_jitter: bool = True, verbose: bool = False,
                   lift_range: tuple[float, float] = (0.0, 0.0), extra_kings: int = 0) -> SimSet:
    """Render stills and cut labelled wide crops from them.

    `looks`: cycle through these looks (None: the rig draws one per seed).
    `empty_keep`: fraction of empty points kept (they outnumber pieces ~2:1).
    `jitter`: crops are recentred by up to this many spacings (board-finder error).
    `lift_range`: crops are sampled on a plane this high above the board (drawn per still; the
        focal length is estimated from the homography as at run time), so the model reads both
        board-plane crops and disc-top crops whatever the real disc thickness.
    `extra_kings`: see `random_board` (oversampling the rarest class).
    """
    from sim import render_still  # training-time dependency on the rig

    looks_list = list(looks) if looks is not None else None
    crops, labels, offs, seeds_out, looks_out = [], [], [], [], []
    for k, seed in enumerate(seeds):
        rng = random.Random(seed * 7919 + 13)
        board = random_board(rng, extra_kings=extra_kings)
        look = looks_list[k % len(looks_list)] if looks_list else None
        cam = None if camera_jitter else {"tilt_deg": 0.0, "clean": True}  # None: the rig draws a camera
        w, h = rng.choice([(1280, 720), (1280, 720), (960, 540), (1920, 1080)])
        img, truth = render_still(seed, look=look, fen=board_to_fen(board), width=w, height=h, camera=cam)
        nrng = np.random.default_rng(seed)
        shift = nrng.uniform(-jitter, jitter, size=(90, 2))
        lift = float(nrng.uniform(*lift_range))
        wide = extract_point_crops(img, truth.homography, offsets=shift, size=CONTEXT, span=CONTEXT_SPAN, height=lift)
        tb = truth.board
        keep = [i for i in range(90) if tb[i] != "." or nrng.random() < empty_keep]
        for i in keep:
            crops.append(wide[i])
            labels.append(CLASSES.index(tb[i]))
            offs.append(np.asarray(truth.offsets[i], np.float64) - shift[i] if tb[i] != "." else np.zeros(2))
            seeds_out.append(seed)
            looks_out.append(getattr(truth, "look", None) or look or "")
        if verbose and k % 20 == 0:
            print(f"  rendered seed {seed} ({len(crops)} crops)", flush=True)
    return SimSet(np.stack(crops), np.array(labels, np.int64), np.array(offs, np.float32),
                  np.array(seeds_out, np.int64), looks_out)


def save_sim_set(s: SimSet, path: Path) -> None:
    np.savez_compressed(path, crops=s.crops, labels=s.labels, offsets=s.offsets, seeds=s.seeds,
                        looks=np.array(s.looks))


def load_sim_set(path: Path) -> SimSet:
    z = np.load(path)
    return SimSet(z["crops"], z["labels"], z["offsets"], z["seeds"], [str(x) for x in z["looks"]])


def center_cut(wide: np.ndarray, size: int = CROP) -> np.ndarray:
    """The span-1 crop in the middle of a wide (CONTEXT_SPAN) crop, no augmentation."""
    c = wide.shape[0] / 2.0
    half = size / 2.0
    M = np.float32([[1, 0, half - c], [0, 1, half - c]])
    return cv2.warpAffine(wide, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)
