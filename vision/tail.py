"""The piece network's last block and heads in numpy: what a taught piece set changes.

Why numpy: teaching a set (`calibration.set_teaching`) trains these weights on a CPU without
PyTorch, and a taught set is then read by running the shipped ONNX graph up to its ``trunk``
output and this block with the set's own weights. Keeping the block here (pure, no I/O) means
the teaching and the reading run the very same arithmetic, checked against the ONNX graph by
the tests (`tests/vision/test_set_teaching.py`).

The block: a 3x3 convolution (padding 1) over the 6x6 trunk maps, ReLU, global average
pooling to the embedding, then the linear class head. The offset head is not taught: disc
offsets keep the shipped model's reading (the incident rules are built on it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TailWeights", "trunk_columns", "tail_forward", "TAIL_OUTPUTS"]

#: ONNX outputs of a teachable model (see training/teachable_model.py), in TailWeights order.
TAIL_OUTPUTS = ("tail.conv.weight", "tail.conv.bias", "tail.head.weight", "tail.head.bias")


@dataclass(frozen=True)
class TailWeights:
    """conv_w (D, C, 3, 3), conv_b (D,), head_w (K, D), head_b (K,): float32 arrays."""

    conv_w: np.ndarray
    conv_b: np.ndarray
    head_w: np.ndarray
    head_b: np.ndarray

    def __post_init__(self) -> None:
        d, c, kh, kw = self.conv_w.shape
        if (kh, kw) != (3, 3) or self.conv_b.shape != (d,) or self.head_w.ndim != 2 or \
                self.head_w.shape[1] != d or self.head_b.shape != (self.head_w.shape[0],):
            raise ValueError(f"inconsistent tail shapes: conv {self.conv_w.shape} + {self.conv_b.shape}, "
                             f"head {self.head_w.shape} + {self.head_b.shape}")

    @property
    def in_channels(self) -> int:
        return int(self.conv_w.shape[1])

    @property
    def embedding_dim(self) -> int:
        return int(self.conv_w.shape[0])

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.conv_w, self.conv_b, self.head_w, self.head_b


def trunk_columns(trunk: np.ndarray) -> np.ndarray:
    """(N, C, H, W) trunk maps -> (N*H*W, C*9) columns: every 3x3 neighbourhood (zero padded)
    as one row, in the (c, ky, kx) order of the convolution's weights. Computed once per crop,
    so training the block is two matrix products per step."""
    t = np.asarray(trunk, np.float32)
    n, c, h, w = t.shape
    p = np.pad(t, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.empty((n, h, w, c, 9), np.float32)
    for k, (dy, dx) in enumerate((dy, dx) for dy in range(3) for dx in range(3)):
        cols[..., k] = p[:, :, dy:dy + h, dx:dx + w].transpose(0, 2, 3, 1)
    return cols.reshape(n * h * w, c * 9)


def tail_forward(columns: np.ndarray, n: int, weights: TailWeights) -> tuple[np.ndarray, np.ndarray]:
    """(logits (N, K), embedding (N, D)) from `trunk_columns` of N crops."""
    w = weights.conv_w.reshape(weights.embedding_dim, -1)
    act = np.maximum(columns @ w.T + weights.conv_b, 0.0)
    emb = act.reshape(n, -1, weights.embedding_dim).mean(axis=1)
    return (emb @ weights.head_w.T + weights.head_b).astype(np.float32), emb.astype(np.float32)
