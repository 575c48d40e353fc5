"""Train the piece classifier on CPU and export `vision/models/pieces.onnx`.

Developer step (never run by tests or CI). Needs PyTorch and onnx:
    .venv/bin/pip install torch==2.13.0 onnx
    .venv/bin/python -m training.train --epochs 10            # ~10-15 min on 2 cores
    .venv/bin/python -m training.evaluate                      # figures for MODEL_CARD.md

Data (see training/dataset.py): rendered crops from `sim.render_still` for
seeds `--sim-seeds` in every look except the held-out ones, plus real disc
crops from the 'train' photo groups. Model selection uses the rendered
validation seeds and the real 'val' photo groups; the real 'test' groups and
the held-out look are only ever touched by training/evaluate.py.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from training import dataset as D
from training.augment import geometric, photometric, real_to_wide
from vision.crops import DISC_TOP_HEIGHT, disc_to_point_crop
from vision.observation import CLASSES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORK = Path("/tmp/xqtrack_training")
HELD_OUT_LOOKS_DEFAULT = 1       # the last N looks of sim.LOOKS are never trained on
SIM_TRAIN_SEEDS = (10_000, 10_000 + 200)
SIM_VAL_SEEDS = (20_000, 20_000 + 24)
SIM_TEST_SEEDS = (30_000, 30_000 + 60)   # used by training/evaluate.py only
KING_SEEDS_START = 15_000   # king-oversampled training stills (--king-stills): inside the training range


def sim_looks() -> tuple[list[str], list[str]]:
    """(training looks, held-out looks)."""
    from sim import LOOKS
    looks = list(LOOKS)
    k = HELD_OUT_LOOKS_DEFAULT if len(looks) > 2 else 0
    return (looks[:-k] if k else looks), (looks[-k:] if k else [])


LIFT_RANGE = (0.0, 0.35)   # training crops: board plane .. thick disc tops


def _render_chunk(job: tuple[Path, int, int, tuple[str, ...], int]) -> str:
    path, a, b, looks, extra_kings = job
    if not path.exists():
        t = time.time()
        s = D.render_sim_set(range(a, b), list(looks), lift_range=LIFT_RANGE, extra_kings=extra_kings)
        D.save_sim_set(s, path)
        print(f"rendered {path.name}: {len(s.labels)} crops in {time.time() - t:.0f}s", flush=True)
    return str(path)


def cached_sim(work: Path, name: str, seeds: range, looks: list[str] | None, jobs: int = 1,
               chunk: int = 25, extra_kings: int = 0) -> D.SimSet:
    """Rendered crops for `seeds`, cached in chunks under `work` (rendering is the slow part).

    `extra_kings` (see `dataset.random_board`) is part of the cache name: the same seeds with
    another board sampler are other stills."""
    lk = tuple(looks or [])
    kn = f"_kings{extra_kings}" if extra_kings else ""
    todo = [(work / f"sim_{name}_{a}_{min(a + chunk, seeds.stop)}_{'-'.join(lk) or 'any'}{kn}_lift.npz",
             a, min(a + chunk, seeds.stop), lk, extra_kings) for a in range(seeds.start, seeds.stop, chunk)]
    if jobs > 1 and any(not j[0].exists() for j in todo):
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(jobs) as pool:
            paths = pool.map(_render_chunk, todo, chunksize=1)
    else:
        paths = [_render_chunk(j) for j in todo]
    parts = [D.load_sim_set(Path(p)) for p in paths]
    return D.SimSet(np.concatenate([p.crops for p in parts]), np.concatenate([p.labels for p in parts]),
                    np.concatenate([p.offsets for p in parts]), np.concatenate([p.seeds for p in parts]),
                    sum((p.looks for p in parts), []))


class MixedDataset:
    """Rendered wide crops + real discs, augmented on the fly."""

    def __init__(self, sim: D.SimSet, real: D.RealSet, real_repeat: int, seed: int) -> None:
        self.sim = sim
        self.real_imgs = [D.square_disc(im) for im in real.images]
        self.real_labels = real.labels
        self.empty_idx = np.flatnonzero(sim.labels == 0)
        self.items = [(0, i) for i in range(len(sim.labels))] + \
                     [(1, j) for _ in range(real_repeat) for j in range(len(real.labels))]
        self.seed = seed

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k: int):
        import torch
        rng = np.random.default_rng((self.seed, k, int(torch.randint(0, 2**31 - 1, ()).item())))
        src, i = self.items[k]
        if src == 0:
            wide, off, y = self.sim.crops[i], self.sim.offsets[i], int(self.sim.labels[i])
        else:
            bg = None
            if rng.random() < 0.7 and len(self.empty_idx):
                bg = self.sim.crops[int(rng.choice(self.empty_idx))]
            wide, off = real_to_wide(self.real_imgs[i], rng, bg)
            y = int(self.real_labels[i])
        img, off2 = geometric(wide, off, rng)
        img = photometric(img, rng)
        x = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float() / 255.0
        has_off = 1.0 if y != 0 else 0.0
        return x, y, torch.from_numpy(off2), has_off


def eval_arrays(net, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    import torch
    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = torch.from_numpy(crops[i:i + batch]).permute(0, 3, 1, 2).float() / 255.0
            out.append(net(x)[0].argmax(1).numpy())
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def real_eval_crops(real: D.RealSet) -> np.ndarray:
    """The fixed convention used for every real-crop figure (and by the tests)."""
    return np.stack([disc_to_point_crop(D.square_disc(im), size=D.CROP, fill=0.9) for im in real.images])


def export_onnx(net, path: Path, tta: bool, meta: dict[str, str]) -> None:
    import onnx
    import torch
    from training.model import ExportWrapper

    net.eval()
    w = ExportWrapper(net, tta=tta).eval()
    x = torch.zeros(2, D.CROP, D.CROP, 3, dtype=torch.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(w, (x,), str(tmp), input_names=["crops"], output_names=["logits", "embedding", "offset"],
                      dynamic_axes={k: {0: "n"} for k in ("crops", "logits", "embedding", "offset")},
                      opset_version=17, dynamo=False)
    m = onnx.load(str(tmp))
    for k, v in meta.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, str(path))
    tmp.unlink()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=100, help="at most this many epochs (the time budget usually ends it)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--widths", default="16,32,48,64")
    ap.add_argument("--real-repeat", type=int, default=3)
    ap.add_argument("--sim-seeds", type=int, default=SIM_TRAIN_SEEDS[1] - SIM_TRAIN_SEEDS[0])
    ap.add_argument("--king-stills", type=int, default=0,
                    help=f"extra training stills (seeds {KING_SEEDS_START}..) whose boards carry --king-extra "
                         "more kings per side: kings are the rarest class")
    ap.add_argument("--king-extra", type=int, default=2, help="extra K and k per king-oversampled still")
    ap.add_argument("--tta", action="store_true", help="average over quarter turns inside the ONNX graph (4x cost)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads; 1 is fastest on a shared, oversubscribed CPU")
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK)
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models" / "pieces.onnx")
    ap.add_argument("--max-minutes", type=float, default=15.0,
                    help="training time budget; the learning rate schedule follows it")
    ap.add_argument("--init", type=Path, default=None,
                    help="continue from a checkpoint (.pt, e.g. the previous run's best.pt): no warm-up")
    ap.add_argument("--jobs", type=int, default=1, help="processes rendering the stills")
    ap.add_argument("--render-only", action="store_true", help="render and cache the stills, then stop")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    from training.model import PieceNet

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    args.work.mkdir(parents=True, exist_ok=True)
    train_looks, held_looks = sim_looks()
    print(f"looks: train {train_looks}, held out {held_looks}", flush=True)
    sim_tr = cached_sim(args.work, "train", range(SIM_TRAIN_SEEDS[0], SIM_TRAIN_SEEDS[0] + args.sim_seeds),
                        train_looks, jobs=args.jobs)
    if args.king_stills:
        if KING_SEEDS_START + args.king_stills > SIM_VAL_SEEDS[0] or \
                KING_SEEDS_START < SIM_TRAIN_SEEDS[0] + args.sim_seeds:
            raise SystemExit(f"--king-stills {args.king_stills} / --sim-seeds {args.sim_seeds}: the king-oversampled "
                             f"seeds {KING_SEEDS_START}.. would overlap the plain training or the validation seeds")
        sim_k = cached_sim(args.work, "train", range(KING_SEEDS_START, KING_SEEDS_START + args.king_stills),
                           train_looks, jobs=args.jobs, extra_kings=args.king_extra)
        sim_tr = D.SimSet(np.concatenate([sim_tr.crops, sim_k.crops]), np.concatenate([sim_tr.labels, sim_k.labels]),
                          np.concatenate([sim_tr.offsets, sim_k.offsets]), np.concatenate([sim_tr.seeds, sim_k.seeds]),
                          sim_tr.looks + sim_k.looks)
    sim_va = cached_sim(args.work, "val", range(*SIM_VAL_SEEDS), train_looks, jobs=args.jobs)
    if args.render_only:
        print(f"rendered/cached {len(sim_tr.labels)} train and {len(sim_va.labels)} val crops", flush=True)
        return
    real_tr = D.load_real("train")
    real_va = D.load_real("val")
    print(f"sim train {len(sim_tr.labels)} crops, sim val {len(sim_va.labels)}, real train {len(real_tr.labels)} "
          f"({len(set(real_tr.groups))} groups), real val {len(real_va.labels)} ({len(set(real_va.groups))} groups)",
          flush=True)
    sim_va_x = np.stack([D.center_cut(c) for c in sim_va.crops])
    real_va_x = real_eval_crops(real_va)

    ds = MixedDataset(sim_tr, real_tr, args.real_repeat, seed=1)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=1,
                                         drop_last=True, persistent_workers=True)
    widths = tuple(int(v) for v in args.widths.split(","))
    net = PieceNet(widths)
    if args.init:
        ck = torch.load(args.init)
        if tuple(ck["widths"]) != widths:
            raise SystemExit(f"--init {args.init}: checkpoint widths {ck['widths']} differ from --widths {widths}")
        net.load_state_dict(ck["state"])
    net = net.to(memory_format=torch.channels_last)  # ~2x faster convolutions on CPU
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    budget_s = args.max_minutes * 60.0
    warm = 0.0 if args.init else 0.05

    def lr_at(elapsed: float) -> float:
        """Warm-up then cosine decay over the *time* budget: a run always ends annealed, however
        busy the shared CPU was (a step-based schedule would be cut off at its peak)."""
        f = min(elapsed / budget_s, 1.0)
        if f < warm:
            return args.lr * max(f / warm, 0.02)
        return args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * (f - warm) / (1 - warm))))
    best = (math.inf, None)
    t0 = time.time()
    history = []
    stop = False
    for ep in range(args.epochs):
        net.train()
        tl, tn, tc = 0.0, 0, 0
        for x, y, off, has in loader:
            logits, _, po = net(x.contiguous(memory_format=torch.channels_last))
            loss_c = F.cross_entropy(logits, y, label_smoothing=0.05)
            loss_o = (F.smooth_l1_loss(po * 10, torch.stack([off[:, 0], -off[:, 1]], 1) * 10, reduction="none")
                      .sum(1) * has).sum() / has.sum().clamp(min=1)
            loss = loss_c + 0.2 * loss_o
            for g in opt.param_groups:
                g["lr"] = lr_at(time.time() - t0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss_c.item() * len(y)
            tn += len(y)
            tc += (logits.argmax(1) == y).sum().item()
            if time.time() - t0 > budget_s:
                stop = True
                break
        sim_err = float((eval_arrays(net, sim_va_x) != sim_va.labels).mean())
        real_err = float((eval_arrays(net, real_va_x) != real_va.labels).mean())
        score = sim_err + real_err
        history.append({"epoch": ep + 1, "train_loss": tl / max(tn, 1), "train_acc": tc / max(tn, 1),
                        "sim_val_err": sim_err, "real_val_err": real_err, "minutes": (time.time() - t0) / 60})
        print(json.dumps(history[-1]), flush=True)
        if score <= best[0]:
            best = (score, {k: v.clone() for k, v in net.state_dict().items()})
            torch.save({"state": best[1], "widths": widths, "history": history}, args.work / "best.pt")
        if stop:
            print("time limit reached", flush=True)
            break
    net.load_state_dict(best[1])
    meta = {
        "classes": "".join(CLASSES), "input_size": str(D.CROP), "span": "1.0", "tta": str(bool(args.tta)),
        "crop_height": str(DISC_TOP_HEIGHT),
        "widths": args.widths, "trained": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "train_looks": ",".join(train_looks), "held_out_looks": ",".join(held_looks),
        "sim_train_seeds": f"{SIM_TRAIN_SEEDS[0]}..{SIM_TRAIN_SEEDS[0] + args.sim_seeds - 1}"
                           + (f" + {KING_SEEDS_START}..{KING_SEEDS_START + args.king_stills - 1} "
                              f"(+{args.king_extra} kings per side)" if args.king_stills else ""),
        "real_split": f"by source_photo_group sha1 order: test {D.REAL_TEST_GROUPS}, val {D.REAL_VAL_GROUPS}, rest train",
        "data_attribution": "real crops: Roboflow 'chinese-chess-detect-for-yolo' v8 via cotuongbaodien/xqrecognition, CC BY 4.0",
    }
    export_onnx(net, args.out, args.tta, meta)
    (args.work / "history.json").write_text(json.dumps(history, indent=1))
    print(f"exported {args.out} ({args.out.stat().st_size / 1024:.0f} KiB) after {(time.time() - t0) / 60:.1f} min",
          flush=True)


if __name__ == "__main__":
    main()
