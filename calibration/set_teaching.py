"""Teaching the network a piece set from one photo: its last block retrained on the photo.

Why the network and not only a correction on its embedding: on a set far from anything the
model was trained on (engraved wood with its own calligraphy, a running hand), the embedding
itself may not separate the set's pieces (black 卒 and 士, 馬 and 象 land together), and no
linear correction on it can part what it merged. The last convolution block sees the 6x6
maps of strokes before they are pooled away; retrained on the set it can learn which strokes
this set's characters are made of.

One photo of a known position gives 90 labelled points. Each point is cut many times as the
reader may later meet it in another photo of the set (`TeachConfig`): recentred off its point
(a finder is never exactly on it, and a neighbour's disc reaches in), turned to any angle,
scaled, lit differently, blurred, noisier, JPEG-compressed. Only the block after the network's
trunk is trained, in numpy on a CPU (`vision.tail`), with two pulls that keep it the model it
was: toward the model's own reading of every view (what the photo does not show, say a class
absent from a middle-game position, stays read as before) and toward the shipped weights.

Whether it helps is not assumed: the photo's points are split in two halves, the block is
taught on one half and judged on the other (and the other way round), against the model alone
and the embedding correction (`piece_profile.adapt_classifier`); what reads held-apart points
best is kept.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from vision.observation import NUM_POINTS
from vision.tail import TailWeights, tail_forward, trunk_columns

__all__ = ["TeachConfig", "TeachingViews", "teaching_views", "train_tail", "held_apart_folds"]

_NC = 15


class _Teachable(Protocol):  # what teaching needs of vision.classifier.PieceClassifier
    input_size: int
    span: float
    crop_height: float

    def shipped_tail(self) -> TailWeights: ...

    def raw_with_trunk(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class TeachConfig:
    """How one photo is turned into training views and how the block is trained.

    views: augmented cuts of every point (besides 8 plain turns of it on its point).
    max_shift: largest recentring of a cut, in point spacings (a finder's error, a disc put
        down off-centre, a neighbour reaching in).
    max_scale: largest relative change of size (another camera distance or lens).
    blur_sigma, noise_sigma (grey levels), jpeg_quality (lowest): how much worse another
        photo of the set may be.
    light: largest relative change of exposure, contrast and each colour channel (another
        lamp); hue is never turned, red against black ink is part of the class.
    epochs, batch, lr: Adam over the views.
    keep_model: weight of the model's own reading of each view in the target (0 = the
        stated position alone): what the photo does not show stays read as before.
    anchor: L2 pull of the weights toward the shipped ones (per unit of mean squared change).
    label_smoothing: share of the stated class spread over all classes.
    max_seconds: the whole teaching (views, held-apart check, final fit) stops adding epochs
        past this budget on a slow machine.
    """

    views: int = 20
    max_shift: float = 0.12
    max_scale: float = 0.12
    blur_sigma: float = 1.2
    noise_sigma: float = 6.0
    jpeg_quality: int = 40
    light: float = 0.25
    epochs: int = 20
    batch: int = 128
    lr: float = 2e-2
    keep_model: float = 0.1
    anchor: float = 0.1
    label_smoothing: float = 0.02
    max_seconds: float = 50.0
    seed: int = 0


@dataclass
class TeachingViews:
    """Views of the photo's points, with what the network's trunk makes of them."""

    crops: np.ndarray          # (N, S, S, 3) uint8
    point: np.ndarray          # (N,) point index of each view
    labels: np.ndarray         # (N,) class id (the stated position)
    plain_logits: np.ndarray   # (N, 15) the model alone
    plain_embedding: np.ndarray
    columns: np.ndarray        # trunk_columns of the views
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.point)

    def columns_of(self, idx: np.ndarray) -> np.ndarray:
        """Column rows of the views `idx` (each view owns a block of rows)."""
        per = len(self.columns) // max(1, len(self.point))
        rows = (np.asarray(idx)[:, None] * per + np.arange(per)[None, :]).reshape(-1)
        return self.columns[rows]


def _photometric(crop: np.ndarray, rng: np.random.Generator, cfg: TeachConfig) -> np.ndarray:
    img = crop.astype(np.float32)
    gain = 1.0 + rng.uniform(-cfg.light, cfg.light)
    channel = 1.0 + rng.uniform(-cfg.light / 4, cfg.light / 4, 3)
    contrast = 1.0 + rng.uniform(-cfg.light, cfg.light)
    mean = img.mean()
    img = ((img - mean) * contrast + mean) * gain * channel
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, cfg.blur_sigma))
    if rng.random() < 0.5:
        img = img + rng.normal(0.0, rng.uniform(0.0, cfg.noise_sigma), img.shape)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(cfg.jpeg_quality, 96))])
        if ok:
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def teaching_views(classifier: _Teachable, image_bgr: np.ndarray, homography: np.ndarray, labels: np.ndarray,
                   cfg: TeachConfig = TeachConfig()) -> TeachingViews:
    """Cut every point of the photo as the reader may meet it in other photos of the set.

    Cuts are taken wider than the model's crop (1.5 spacings) so a turned or shrunk view still
    has real picture in its corners (the neighbours, the board), then turned, scaled and cut
    to the model's size around the (shifted) point."""
    from vision.crops import extract_point_crops

    t0 = time.perf_counter()
    rng = np.random.default_rng(cfg.seed)
    s = classifier.input_size
    wide_span = 1.5
    wide = int(round(s * wide_span))
    n_points = len(labels)
    crops: list[np.ndarray] = []
    points: list[np.ndarray] = []
    centre = (wide - 1) / 2.0
    for v in range(cfg.views + 1):
        if v == 0:
            offsets = np.zeros((n_points, 2))
        else:
            r = cfg.max_shift * np.sqrt(rng.random(n_points))
            a = rng.uniform(0, 2 * np.pi, n_points)
            offsets = np.stack([r * np.cos(a), r * np.sin(a)], 1)
        cuts = extract_point_crops(image_bgr, homography, offsets=offsets, size=wide,
                                   span=classifier.span * wide_span, height=classifier.crop_height)
        angles = np.arange(8) * 45.0 if v == 0 else None
        for p in range(n_points):
            turns = angles if angles is not None else [rng.uniform(0.0, 360.0)]
            for ang in turns:
                scale = 1.0 if v == 0 else 1.0 + rng.uniform(-cfg.max_scale, cfg.max_scale)
                m = np.asarray(cv2.getRotationMatrix2D((centre, centre), float(ang), float(scale)), np.float64)
                m[:, 2] += (s - wide) / 2.0  # the wide cut's centre onto the model crop's centre
                view = cv2.warpAffine(cuts[p], m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                crops.append(view if v == 0 else _photometric(view, rng, cfg))
                points.append(np.array([p]))
    crop_arr = np.stack(crops)
    point = np.concatenate(points)
    logits, emb, _, trunk = classifier.raw_with_trunk(crop_arr)
    return TeachingViews(crops=crop_arr, point=point, labels=np.asarray(labels)[point], plain_logits=logits,
                         plain_embedding=emb, columns=trunk_columns(trunk), seconds=time.perf_counter() - t0)


def joined_views(parts: list[TeachingViews]) -> TeachingViews:
    """Several photos' views as one set, each photo's points numbered on from the last photo's
    (photo k's point p is k * 90 + p), so that a point's views stay one group."""
    if len(parts) == 1:
        return parts[0]
    return TeachingViews(crops=np.concatenate([v.crops for v in parts]),
                         point=np.concatenate([v.point + k * NUM_POINTS for k, v in enumerate(parts)]),
                         labels=np.concatenate([v.labels for v in parts]),
                         plain_logits=np.concatenate([v.plain_logits for v in parts]),
                         plain_embedding=np.concatenate([v.plain_embedding for v in parts]),
                         columns=np.concatenate([v.columns for v in parts]),
                         seconds=sum(v.seconds for v in parts))


def held_apart_folds(labels: np.ndarray, seed: int = 0) -> np.ndarray:
    """Fold (0 or 1) of each point: the points of every class dealt in turn to the two halves,
    so both halves show as many classes as the position allows."""
    rng = np.random.default_rng(seed)
    fold = np.zeros(len(labels), np.int64)
    start = 0
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        fold[idx] = (np.arange(len(idx)) + start) % 2
        start += len(idx)  # a class seen once goes to alternating halves
    return fold


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class TrainLog:
    epochs: int = 0
    seconds: float = 0.0
    losses: list[float] = field(default_factory=list)


def train_tail(views: TeachingViews, idx: np.ndarray, init: TailWeights, cfg: TeachConfig,
               deadline: float | None = None, log: TrainLog | None = None) -> TailWeights:
    """Retrain the last block and class head on the views `idx` (Adam, numpy).

    The target of each view mixes the stated class (smoothed) with the model's own reading of
    that view (`keep_model`); the weights are pulled toward the shipped ones (`anchor`)."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(cfg.seed + 1)
    idx = np.asarray(idx)
    one_hot = np.full((len(idx), _NC), cfg.label_smoothing / _NC, np.float32)
    one_hot[np.arange(len(idx)), views.labels[idx]] += 1.0 - cfg.label_smoothing
    # float32 throughout: the products over the views' columns are the cost, and half as wide
    # they take half the time, with the same result to the third digit of the held-apart error
    target = ((one_hot + cfg.keep_model * _softmax(views.plain_logits[idx].astype(np.float32)))
              / (1.0 + cfg.keep_model)).astype(np.float32)
    params = [a.astype(np.float32).copy() for a in init.arrays]
    params[0] = params[0].reshape(init.embedding_dim, -1)
    start = [p.copy() for p in params]
    scale = [1.0 / max(1e-12, float(np.mean(p ** 2))) / p.size for p in start]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, step = 0.9, 0.999, 0
    d = init.embedding_dim
    for epoch in range(cfg.epochs):
        if deadline is not None and time.perf_counter() > deadline and epoch > 0:
            break
        order = rng.permutation(len(idx))
        total = 0.0
        lr = cfg.lr * 0.5 * (1.0 + np.cos(np.pi * epoch / cfg.epochs))
        for lo in range(0, len(order), cfg.batch):
            sel = order[lo:lo + cfg.batch]
            cols = views.columns_of(idx[sel])
            b = len(sel)
            w, cb, hw, hb = params
            pre = cols @ w.T + cb
            act = np.maximum(pre, 0.0)
            emb = act.reshape(b, -1, d).mean(axis=1)
            logits = emb @ hw.T + hb
            p = _softmax(logits)
            tgt = target[sel]
            total += float(-(tgt * np.log(np.maximum(p, 1e-12))).sum())
            dlog = (p - tgt) / b
            g_hw = dlog.T @ emb
            g_hb = dlog.sum(axis=0)
            demb = dlog @ hw
            per = act.shape[0] // b
            dact = np.repeat(demb / per, per, axis=0) * (pre > 0)
            g_w = dact.T @ cols
            g_cb = dact.sum(axis=0)
            grads = [g_w, g_cb, g_hw, g_hb]
            step += 1
            for k in range(4):
                g = grads[k] + cfg.anchor * scale[k] * 2.0 * (params[k] - start[k])
                m[k] = b1 * m[k] + (1 - b1) * g
                v[k] = b2 * v[k] + (1 - b2) * g * g
                mh = m[k] / (1 - b1 ** step)
                vh = v[k] / (1 - b2 ** step)
                params[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
        if log is not None:
            log.epochs = epoch + 1
            log.losses.append(total / max(1, len(idx)))
    if log is not None:
        log.seconds += time.perf_counter() - t0
    conv = params[0].reshape(init.conv_w.shape)
    return TailWeights(conv.astype(np.float32), params[1].astype(np.float32), params[2].astype(np.float32),
                       params[3].astype(np.float32))


def taught_logits(views: TeachingViews, idx: np.ndarray, tail: TailWeights) -> np.ndarray:
    """The taught block's logits of the views `idx`."""
    logits, _ = tail_forward(views.columns_of(np.asarray(idx)), len(idx), tail)
    return logits


def report_dict(**kw: Any) -> dict[str, Any]:
    """Numbers rounded for a readable profile file."""
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in kw.items()}
