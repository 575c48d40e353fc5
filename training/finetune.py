"""Fine-tune the shipped piece model on a far wider range of sets (developer step, CPU).

    .venv/bin/pip install torch==2.13.0 onnx                      # training only
    .venv/bin/python -m training.train --render-only --sim-seeds 200   # rendered crops, cached
    nice .venv/bin/python -m training.finetune --max-minutes 20 --out /tmp/finetuned.onnx

Why a fine-tune and not a new run: the shipped network already reads the renderer's sets and
the real white plastic discs at 99.9 / 99.3 %; what it lacks is the look of other sets
(training/discs.py: dark and wooden discs, other typefaces, green/blue/brown inks, engraved
strokes, both armies with the same characters). The ONNX file is the only copy of its
weights (BatchNorm folded into the convolutions), so the network is rebuilt from it without
BatchNorm and trained on a mix of rendered crops (to keep what it reads), real crops of the
training photo groups and synthetic discs, all through the same augmentation as training/train.

Model selection: rendered validation seeds, real validation photo groups, and synthetic discs
of styles never used in training (another seed). The real photos in tests/data/real_boards are
never read here.
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
from training.train import DEFAULT_WORK, SIM_TRAIN_SEEDS, SIM_VAL_SEEDS, cached_sim, export_onnx, real_eval_crops, sim_looks
from vision.classifier import DEFAULT_MODEL_PATH
from vision.crops import DISC_TOP_HEIGHT, disc_to_point_crop

ROOT = Path(__file__).resolve().parent.parent


def net_from_onnx(path: Path):
    """training.model.PieceNet rebuilt from an exported ONNX file (BatchNorm folded: Identity)."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    from training.model import PieceNet

    m = onnx.load(str(path))
    meta = {p.key: p.value for p in m.metadata_props}
    widths = tuple(int(v) for v in meta.get("widths", "16,32,48,64").split(","))
    net = PieceNet(widths)  # type: ignore[arg-type]
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    weights: list[np.ndarray] = []
    seen: set[str] = set()
    for node in m.graph.node:  # the convolutions in graph order: (weight, bias) each
        if node.op_type == "Conv" and node.input[1] not in seen and len(node.input) > 2:
            seen.add(node.input[1])
            weights += [init[node.input[1]], init[node.input[2]]]
    blocks = [b for b in net.features if isinstance(b, nn.Sequential)]
    if len(weights) != 2 * len(blocks):
        raise ValueError(f"{path}: {len(weights)} convolution tensors for {len(blocks)} blocks")
    for k, blk in enumerate(blocks):
        conv: nn.Conv2d = blk[0]  # type: ignore[assignment]
        new = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size,  # type: ignore[arg-type]
                        conv.stride, conv.padding, bias=True)  # type: ignore[arg-type]
        new.weight.data = torch.from_numpy(weights[2 * k].copy())
        new.bias.data = torch.from_numpy(weights[2 * k + 1].copy())  # type: ignore[union-attr]
        blk[0] = new
        blk[1] = nn.Identity()
    for name in ("head", "offset_head"):
        getattr(net, name).weight.data = torch.from_numpy(init[f"net.{name}.weight"].copy())
        getattr(net, name).bias.data = torch.from_numpy(init[f"net.{name}.bias"].copy())
    return net, widths, meta


class FineTuneSet:
    """Rendered wide crops + real discs + synthetic discs of many sets, augmented on the fly."""

    def __init__(self, sim: D.SimSet, real: D.RealSet, synth: tuple[np.ndarray, np.ndarray],
                 real_repeat: int, seed: int, sim_repeat: int = 1) -> None:
        self.sim = sim
        self.real_imgs = [D.square_disc(im) for im in real.images]
        self.real_labels = real.labels
        self.synth_imgs, self.synth_labels = synth
        self.empty_idx = np.flatnonzero(sim.labels == 0)
        self.items = ([(0, i) for _ in range(sim_repeat) for i in range(len(sim.labels))]
                      + [(1, j) for _ in range(real_repeat) for j in range(len(real.labels))]
                      + [(2, j) for j in range(len(self.synth_labels))])
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
            disc = self.real_imgs[i] if src == 1 else self.synth_imgs[i]
            bg = self.sim.crops[int(rng.choice(self.empty_idx))] if rng.random() < (0.7 if src == 1 else 0.9) else None
            wide, off = real_to_wide(disc, rng, bg)
            y = int(self.real_labels[i] if src == 1 else self.synth_labels[i])
        img, off2 = geometric(wide, off, rng)
        img = photometric(img, rng)
        x = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float() / 255.0
        return x, y, torch.from_numpy(off2), 1.0 if y != 0 else 0.0


def synth_eval_crops(discs: np.ndarray, labels: np.ndarray, sim: D.SimSet, seed: int) -> np.ndarray:
    """Synthetic discs placed on rendered empty points, no augmentation (a fixed validation set)."""
    rng = np.random.default_rng(seed)
    empties = np.flatnonzero(sim.labels == 0)
    out = []
    for d in discs:
        bg = D.center_cut(sim.crops[int(rng.choice(empties))])
        out.append(disc_to_point_crop(d, size=D.CROP, fill=float(rng.uniform(0.82, 0.95)), background=bg))
    return np.stack(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", type=Path, default=DEFAULT_MODEL_PATH, help="ONNX model to start from")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sim-seeds", type=int, default=200)
    ap.add_argument("--synth", type=int, default=12000, help="synthetic training discs")
    ap.add_argument("--synth-val", type=int, default=1500)
    ap.add_argument("--real-repeat", type=int, default=2)
    ap.add_argument("--sim-repeat", type=int, default=1, help="rendered crops shown this many times per epoch")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--max-minutes", type=float, default=20.0)
    ap.add_argument("--eval-every", type=float, default=3.0, help="minutes between validations")
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK)
    ap.add_argument("--hold-out-fonts", default="NotoSerif",
                    help="typefaces (file name fragments) never drawn for training or selection: the "
                         "benchmarks' sets never seen (training/set_photos.py) are drawn in them")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    from training.discs import cjk_fonts, draw_set

    torch.set_num_threads(1)
    torch.manual_seed(0)
    args.work.mkdir(parents=True, exist_ok=True)
    train_looks, _ = sim_looks()
    sim_tr = cached_sim(args.work, "train", range(SIM_TRAIN_SEEDS[0], SIM_TRAIN_SEEDS[0] + args.sim_seeds), train_looks)
    sim_va = cached_sim(args.work, "val", range(*SIM_VAL_SEEDS), train_looks)
    real_tr, real_va = D.load_real("train"), D.load_real("val")
    t = time.time()
    held = tuple(k for k in args.hold_out_fonts.split(",") if k)
    fonts = tuple(f for f in cjk_fonts() if not any(k in Path(f).resolve().name or k in Path(f).name for k in held))
    synth_tr = draw_set(args.synth, np.random.default_rng(1), fonts=fonts)
    synth_va = draw_set(args.synth_val, np.random.default_rng(2), fonts=fonts)
    print(f"fonts {len(fonts)} of {len(cjk_fonts())}; synthetic discs {args.synth} + {args.synth_val} in {time.time() - t:.0f}s; "
          f"sim train {len(sim_tr.labels)}, real train {len(real_tr.labels)}", flush=True)
    sim_va_x = np.stack([D.center_cut(c) for c in sim_va.crops])
    real_va_x = real_eval_crops(real_va)
    synth_va_x = synth_eval_crops(synth_va[0], synth_va[1], sim_va, seed=3)

    net, widths, meta0 = net_from_onnx(args.init)
    net = net.to(memory_format=torch.channels_last)

    def errors() -> dict[str, float]:
        net.eval()
        out = {}
        with torch.no_grad():
            for name, x, y in (("sim", sim_va_x, sim_va.labels), ("real", real_va_x, real_va.labels),
                               ("synth", synth_va_x, synth_va[1])):
                pred = np.concatenate([net(torch.from_numpy(x[i:i + 512]).permute(0, 3, 1, 2).float() / 255.0)[0]
                                       .argmax(1).numpy() for i in range(0, len(x), 512)])
                out[name] = float((pred != y).mean())
        net.train()
        return out

    e0 = errors()
    print(json.dumps({"start": e0}), flush=True)
    ds = FineTuneSet(sim_tr, real_tr, synth_tr, args.real_repeat, seed=1, sim_repeat=args.sim_repeat)
    loader: torch.utils.data.DataLoader = torch.utils.data.DataLoader(
        ds, batch_size=args.batch, shuffle=True, num_workers=1, drop_last=True,  # type: ignore[arg-type]
        persistent_workers=True)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    budget = args.max_minutes * 60.0
    t0 = time.time()
    next_eval = args.eval_every * 60.0
    best = (e0["sim"] + e0["real"] + e0["synth"], {k: v.clone() for k, v in net.state_dict().items()}, e0)
    history = [{"minutes": 0.0, **e0}]
    steps = 0
    done = False
    net.train()
    while not done:
        for x, y, off, has in loader:
            el = time.time() - t0
            for g in opt.param_groups:
                g["lr"] = args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(el / budget, 1.0))))
            logits, _, po = net(x.contiguous(memory_format=torch.channels_last))
            loss = F.cross_entropy(logits, y, label_smoothing=0.05)
            loss = loss + 0.2 * ((F.smooth_l1_loss(po * 10, torch.stack([off[:, 0], -off[:, 1]], 1) * 10,
                                                   reduction="none").sum(1) * has).sum() / has.sum().clamp(min=1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
            if el >= next_eval or el >= budget:
                e = errors()
                history.append({"minutes": el / 60, "steps": steps, **e})
                print(json.dumps(history[-1]), flush=True)
                score = e["sim"] + e["real"] + e["synth"]
                if score <= best[0]:
                    best = (score, {k: v.clone() for k, v in net.state_dict().items()}, e)
                next_eval += args.eval_every * 60.0
                if el >= budget:
                    done = True
                    break
    net.load_state_dict(best[1])
    meta = dict(meta0)
    meta.update({"trained": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "finetuned_from": str(meta0.get("trained", "")),
                 "finetune_data": f"sim seeds {SIM_TRAIN_SEEDS[0]}..{SIM_TRAIN_SEEDS[0] + args.sim_seeds - 1} "
                                  f"x{args.sim_repeat}, "
                                  f"real train groups x{args.real_repeat}, {args.synth} synthetic discs "
                                  f"(training/discs.py, {len(fonts)} typefaces, held out {','.join(held) or 'none'}, seed 1)",
                 "crop_height": str(DISC_TOP_HEIGHT)})
    export_onnx(net, args.out, False, meta)
    (args.work / "finetune_history.json").write_text(json.dumps(history, indent=1))
    print(f"exported {args.out}: best validation {json.dumps(best[2])} after {steps} steps", flush=True)


if __name__ == "__main__":
    main()
