"""The piece network (PyTorch, training side only).

A compact CNN for 48 px point crops. Why this shape:

* 48 px covers one point spacing; a disc's character is ~25-30 px across, which
  the first stride-2 layer and three 3x3 stages resolve well enough to tell
  the tight pairs apart (black 车/卒, red 马/兵 in traditional forms).
* Global average pooling + training on random rotations makes the features
  nearly rotation invariant; the exported graph also averages the embedding
  over the four quarter turns, making the logits exactly invariant to them.
* ~60 k parameters (~0.3 MB ONNX): fast on one CPU core (see MODEL_CARD.md).

The ONNX wrapper takes BGR uint8 NHWC crops so callers never normalise.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 15


def _cbr(cin: int, cout: int, k: int = 3, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class PieceNet(nn.Module):
    """Crop (N, 3, 48, 48) float in [0, 1] -> (logits, embedding, offset)."""

    def __init__(self, widths: tuple[int, int, int, int] = (24, 32, 64, 96)) -> None:
        super().__init__()
        w1, w2, w3, w4 = widths
        self.features = nn.Sequential(
            _cbr(3, w1, 5, 2),            # 24x24
            _cbr(w1, w2),                 # 24x24
            nn.MaxPool2d(2),              # 12x12
            _cbr(w2, w3),
            _cbr(w3, w3),
            nn.MaxPool2d(2),              # 6x6
            _cbr(w3, w4),
        )
        self.embedding_dim = w4
        self.head = nn.Linear(w4, NUM_CLASSES)
        self.offset_head = nn.Linear(w4, 2)
        self.dropout = nn.Dropout(0.2)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)
        return F.adaptive_avg_pool2d(f, 1).flatten(1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        e = self.embed(x)
        return self.head(self.dropout(e)), e, self.offset_head(e)


def _rot90(x: torch.Tensor, k: int) -> torch.Tensor:
    """torch.rot90(x, k, (2, 3)) built from flip/transpose (rot90 has no ONNX export)."""
    if k % 4 == 1:
        return x.flip(3).transpose(2, 3)
    if k % 4 == 2:
        return x.flip(2).flip(3)
    if k % 4 == 3:
        return x.transpose(2, 3).flip(3)
    return x


class ExportWrapper(nn.Module):
    """What goes into the ONNX file: uint8 BGR NHWC in, rotation-averaged outputs.

    Offsets are predicted per quarter turn, turned back into the crop's own
    frame, averaged, then converted from crop axes (x right, y down, in crop
    widths) to board axes (x along files, y along ranks, in point spacings for
    span-1 crops).
    """

    def __init__(self, net: PieceNet, tta: bool = True) -> None:
        super().__init__()
        self.net = net
        self.tta = tta

    def forward(self, crops: torch.Tensor):
        x = crops.permute(0, 3, 1, 2).float() * (1.0 / 255.0)
        if not self.tta:
            logits, e, off = self.net(x)
            return logits, e, torch.stack([off[:, 0], -off[:, 1]], 1)
        n = x.shape[0]
        xs = torch.cat([x, _rot90(x, 1), _rot90(x, 2), _rot90(x, 3)], 0)
        e_all = self.net.embed(xs)
        o = self.net.offset_head(e_all)
        e4 = e_all.reshape(4, n, -1)
        o4 = o.reshape(4, n, 2)
        # rot90 by k (counter-clockwise in image view) maps a crop offset (u, v) (x right, y down)
        # to: k=1 (v, -u), k=2 (-u, -v), k=3 (-v, u). Undo each.
        u0, v0 = o4[0, :, 0], o4[0, :, 1]
        u1, v1 = -o4[1, :, 1], o4[1, :, 0]
        u2, v2 = -o4[2, :, 0], -o4[2, :, 1]
        u3, v3 = o4[3, :, 1], -o4[3, :, 0]
        u = (u0 + u1 + u2 + u3) * 0.25
        v = (v0 + v1 + v2 + v3) * 0.25
        e = e4.mean(0)
        logits = self.net.head(e)
        return logits, e, torch.stack([u, -v], 1)
