"""Piece classifier: point crops -> per-class probabilities (ONNX, onnxruntime).

The model (`vision/models/pieces.onnx`, built by `training/`) takes BGR uint8
crops in the `vision.crops` convention and returns, per crop:

* ``logits``    (N, 15) over CLASSES (`. K A B N R C P k a b n r c p`),
* ``embedding`` (N, D) the penultimate features, averaged over the four 90-degree
  turns of the crop inside the graph (so logits are exactly invariant to
  quarter turns and very stable in between),
* ``offset``    (N, 2) disc centre minus crop centre, in point spacings
  (x along files, y along ranks) for a span-1 crop; meaningless on empty points.

A `calibration.PieceSetProfile` adapts the reading to one piece set, learnt from a
position known to be on the board (`calibration/piece_profile.py`): either a small
correction on top of the logits (``logits + embedding @ delta_w + delta_b``) or the
network's own last block and class head retrained for the set (`vision.tail`; the graph
runs up to its ``trunk`` output and the set's block runs in numpy). Keeping the set's
weights outside the ONNX file means one shipped model serves every piece set.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.observation import CLASSES
from vision.tail import TAIL_OUTPUTS, TailWeights, tail_forward, trunk_columns

if TYPE_CHECKING:  # vision never needs calibration at import time
    from calibration.piece_profile import PieceSetProfile

__all__ = ["PieceClassifier", "ClassifierOutput", "DEFAULT_MODEL_PATH", "TTA_BELOW", "softmax", "ModelLoadError"]

DEFAULT_MODEL_PATH = Path(__file__).resolve().parent / "models" / "pieces.onnx"


#: Readers' default for `PieceClassifier(tta_below=...)`: below this top probability a plain
#: reading is re-read averaged over quarter turns. Chosen on the held-out sets (model card):
#: the shipped model's plain readings are soft (label smoothing; median top probability
#: ~0.96), every plain error on the real held-out crops had top probability < 0.7, and at 0.9
#: rendered and real held-out accuracy equal always-averaging while ~90 % of points are read once.
TTA_BELOW = 0.9


class ModelLoadError(RuntimeError):
    """The classifier model file is missing or is not a pieces model."""


@dataclass
class ClassifierOutput:
    """Everything the model says about a batch of crops."""

    probs: np.ndarray      # (N, 15) float32, rows sum to 1, with the profile applied
    logits: np.ndarray     # (N, 15) float32, with the profile applied
    embedding: np.ndarray  # (N, D) float32
    offsets: np.ndarray    # (N, 2) float32, point spacings (x files, y ranks)


def _occupancy_kept(plain: np.ndarray, profiled: np.ndarray) -> np.ndarray:
    """Logits whose 'empty' probability is the model's own and whose piece classes share the
    rest as the profile says.

    Why: a piece-set profile is fitted on the start position's discs, centred on their points;
    what it learns is which piece a disc is. Whether a point holds a disc at all, and how a
    disc half off its point or half under a finger reads, is what the model was trained on and
    what the incident rules (knocked, between points) are tuned to; a profile left to change it
    makes discs on their points read as pushed off, and reports knocks nobody made."""
    def log_softmax(z: np.ndarray) -> np.ndarray:
        z = z - z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    lp = log_softmax(plain.astype(np.float64))
    p_empty = np.exp(lp[:, :1])
    out = np.empty_like(lp)
    out[:, :1] = lp[:, :1]
    out[:, 1:] = np.log(np.maximum(1.0 - p_empty, 1e-12)) + log_softmax(profiled[:, 1:].astype(np.float64))
    return out.astype(np.float32)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, numerically safe."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def _file_id(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]



def onnxruntime_errors() -> tuple[type[BaseException], ...]:
    """What onnxruntime raises for a model or an input it refuses: its own exception classes
    (Fail, InvalidArgument, InvalidProtobuf, ...: plain Exception subclasses) and OS errors."""
    ort = import_onnxruntime()
    state = ort.capi.onnxruntime_pybind11_state
    own = tuple(c for c in vars(state).values()
                if isinstance(c, type) and issubclass(c, Exception) and c.__module__ == state.__name__)
    return own + (OSError, RuntimeError, ValueError)


def import_onnxruntime() -> Any:
    """onnxruntime with its telemetry off. Since 1.2x its Linux build writes a device id and an
    event database under ~/.cache/Microsoft and uploads usage events unless ORT_DISABLE_TELEMETRY
    is set before the library loads; nothing of ours may phone home or write outside the folders
    a user gives, so the product sets it itself (a user's explicit value is kept)."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort
    try:
        ort.disable_telemetry_events()
    except AttributeError:  # builds without the knob have no telemetry to disable
        pass
    return ort

class PieceClassifier:
    """Runs the pieces ONNX model on point crops.

    Args:
        model_path: the .onnx file (default: the shipped `vision/models/pieces.onnx`).
        profile: an optional `calibration.PieceSetProfile` tuned to a piece set and light.
        threads: onnxruntime intra-op threads (1 keeps the tracker on one core).
        tta: also read each crop turned by 90, 180 and 270 degrees and average the
            embeddings (4x the cost): exactly invariant to quarter turns and more
            accurate (rendered pieces 98.3 -> 99.3 % in one measurement).
        tta_below: with tta, read every crop once plainly first and average over the
            quarter turns only the crops whose top probability is below this (the unsure
            ones; most points of a board are plainly empty or plainly one piece). Cuts a
            90-point read from ~5x to ~1.3x the plain cost with the same accuracy (see the
            model card). None = always average every crop (exactly quarter-turn invariant).
    """

    def __init__(self, model_path: str | os.PathLike | None = None,
                 profile: "PieceSetProfile | None" = None, threads: int = 1, tta: bool = True,
                 tta_below: float | None = None) -> None:
        ort = import_onnxruntime()  # imported here so importing vision stays cheap

        path = Path(model_path) if model_path is not None else DEFAULT_MODEL_PATH
        if not path.is_file():
            raise ModelLoadError(f"piece model not found: {path} (build it with `python -m training.train`)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, int(threads))
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3  # errors only: onnxruntime's optimizer notes are not the user's business
        try:
            self._sess = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        except onnxruntime_errors() as exc:
            raise ModelLoadError(f"{path}: not a loadable ONNX model ({exc})") from exc
        inputs = self._sess.get_inputs()
        outputs = {o.name for o in self._sess.get_outputs()}
        if len(inputs) != 1 or not {"logits", "embedding", "offset"} <= outputs:
            raise ModelLoadError(f"{path}: expected one input and outputs logits/embedding/offset, got "
                                 f"inputs {[i.name for i in inputs]} outputs {sorted(outputs)}")
        self._input_name = inputs[0].name
        meta = self._sess.get_modelmeta().custom_metadata_map
        classes = tuple(meta.get("classes", "".join(CLASSES)))
        if classes != CLASSES:
            raise ModelLoadError(f"{path}: model classes {''.join(classes)!r} differ from {''.join(CLASSES)!r}")
        shape = inputs[0].shape
        self.input_size = int(meta.get("input_size", shape[1] if isinstance(shape[1], int) else 48))
        self.span = float(meta.get("span", 1.0))
        # plane the model was trained to read (disc tops); see vision.crops.DISC_TOP_HEIGHT
        self.crop_height = float(meta.get("crop_height", 0.0))
        self.model_path = path
        self.model_id = _file_id(path)
        self.embedding_dim = int(self._sess.get_outputs()[[o.name for o in self._sess.get_outputs()].index("embedding")].shape[1])
        # a model made teachable (training/teachable_model.py) gives its trunk and last block
        self.teachable = {"trunk", *TAIL_OUTPUTS} <= outputs
        self._shipped_tail: TailWeights | None = None
        self.tta = bool(tta)
        if tta_below is not None and not 0.0 < float(tta_below) <= 1.0:
            raise ValueError(f"tta_below must be in (0, 1], got {tta_below}")
        self.tta_below = None if tta_below is None else float(tta_below)
        self._profile: "PieceSetProfile | None" = None
        if profile is not None:
            self.set_profile(profile)

    # ------------------------------------------------------------------ profile
    @property
    def profile(self) -> "PieceSetProfile | None":
        return self._profile

    def set_profile(self, profile: "PieceSetProfile | None") -> None:
        """Apply (or with None, remove) a piece-set profile.

        Raises ValueError when the profile was fitted for a different model
        (its correction lives in that model's embedding space).
        """
        if profile is not None:
            if profile.model_id != self.model_id:
                raise ValueError(f"piece-set profile {profile.name!r} was fitted for model {profile.model_id}, "
                                 f"this classifier runs model {self.model_id} ({self.model_path}); "
                                 "re-run the adaptation for this model")
            if profile.delta_w.shape != (self.embedding_dim, len(CLASSES)):
                raise ValueError(f"piece-set profile {profile.name!r}: delta_w shape {profile.delta_w.shape} "
                                 f"does not match embedding size {self.embedding_dim}")
            if profile.tail is not None:
                shipped = self.shipped_tail()
                if any(a.shape != b.shape for a, b in zip(profile.tail.arrays, shipped.arrays)):
                    raise ValueError(f"piece-set profile {profile.name!r}: its taught block's shapes "
                                     f"{[a.shape for a in profile.tail.arrays]} do not fit this model's "
                                     f"{[a.shape for a in shipped.arrays]}")
        self._profile = profile

    # ---------------------------------------------------------------- inference
    def extract(self, image_bgr: np.ndarray, homography: np.ndarray, offsets: np.ndarray | None = None,
                points=None) -> np.ndarray:
        """Point crops exactly as this model wants them (size, span, disc-top plane)."""
        from vision.crops import extract_point_crops
        return extract_point_crops(image_bgr, homography, offsets=offsets, size=self.input_size, span=self.span,
                                   points=points, height=self.crop_height)

    def shipped_tail(self) -> TailWeights:
        """The model's own last block and class head (what a set is taught from)."""
        if not self.teachable:
            raise ModelLoadError(f"{self.model_path}: this model has no trunk/tail outputs, so a piece set cannot "
                                 "be taught into it (make it teachable: python -m training.teachable_model FILE)")
        if self._shipped_tail is None:
            one = np.zeros((1, self.input_size, self.input_size, 3), np.uint8)
            self._shipped_tail = TailWeights(*(np.asarray(a, np.float32) for a in
                                               self._sess.run(list(TAIL_OUTPUTS), {self._input_name: one})))
        return self._shipped_tail

    def raw_with_trunk(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Plain (no quarter-turn averaging, no profile) logits, embedding, offsets and the trunk
        maps (N, C, 6, 6) that enter the last block: what teaching a set trains on."""
        self.shipped_tail()  # a clear error on a model without a trunk
        a = self._prepare(crops)
        if len(a) == 0:
            c = self.shipped_tail().in_channels
            return (np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, self.embedding_dim), np.float32),
                    np.zeros((0, 2), np.float32), np.zeros((0, c, 6, 6), np.float32))
        logits, emb, off, trunk = self._sess.run(["logits", "embedding", "offset", "trunk"], {self._input_name: a})
        return logits.astype(np.float32), emb.astype(np.float32), off.astype(np.float32), trunk.astype(np.float32)

    def _raw_taught(self, crops: np.ndarray, tta: bool, tail: TailWeights
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(plain logits, taught logits, taught embedding, plain offsets) of a taught set; with
        `tta` averaged over the four quarter turns (embeddings averaged, head applied after)."""
        a = self._prepare(crops)
        n = len(a)
        if n == 0:
            z = np.zeros((0, len(CLASSES)), np.float32)
            return z, z.copy(), np.zeros((0, tail.embedding_dim), np.float32), np.zeros((0, 2), np.float32)
        batch = np.ascontiguousarray(np.concatenate([a] + [np.rot90(a, k, axes=(1, 2)) for k in (1, 2, 3)])) \
            if tta else a
        logits, _, off, trunk = self._sess.run(["logits", "embedding", "offset", "trunk"], {self._input_name: batch})
        _, emb = tail_forward(trunk_columns(trunk), len(batch), tail)
        if tta:
            logits = logits.reshape(4, n, -1).mean(0)
            emb = emb.reshape(4, n, -1).mean(0)
            o = off.reshape(4, n, 2)
            off = np.stack([o[0], np.stack([o[1, :, 1], -o[1, :, 0]], 1), -o[2],
                            np.stack([-o[3, :, 1], o[3, :, 0]], 1)]).mean(0)
        taught = emb @ tail.head_w.T + tail.head_b
        return (logits.astype(np.float32), taught.astype(np.float32), emb.astype(np.float32),
                off.astype(np.float32))

    def _prepare(self, crops: np.ndarray) -> np.ndarray:
        a = np.asarray(crops)
        if a.ndim == 3 and a.shape[-1] == 3:
            a = a[None]
        if a.ndim != 4 or a.shape[-1] != 3:
            raise ValueError(f"crops must be (N, S, S, 3) BGR images, got shape {a.shape}")
        if a.dtype != np.uint8:
            if np.issubdtype(a.dtype, np.floating) and a.size and a.max() <= 1.0:
                a = a * 255.0
            a = np.clip(a, 0, 255).astype(np.uint8)
        s = self.input_size
        if a.shape[1] != s or a.shape[2] != s:
            a = np.stack([cv2.resize(c, (s, s), interpolation=cv2.INTER_AREA if c.shape[0] > s else cv2.INTER_LINEAR)
                          for c in a]) if len(a) else np.zeros((0, s, s, 3), np.uint8)
        return np.ascontiguousarray(a)

    def raw(self, crops: np.ndarray, tta: bool | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Model outputs without any profile: (logits, embedding, offsets).

        `tta` overrides the classifier's setting (None = self.tta); every crop is treated alike."""
        a = self._prepare(crops)
        if len(a) == 0:
            return (np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, self.embedding_dim), np.float32),
                    np.zeros((0, 2), np.float32))
        if not (self.tta if tta is None else tta):
            logits, emb, off = self._sess.run(["logits", "embedding", "offset"], {self._input_name: a})
            return logits.astype(np.float32), emb.astype(np.float32), off.astype(np.float32)
        n = len(a)
        turned = np.concatenate([a] + [np.rot90(a, k, axes=(1, 2)) for k in (1, 2, 3)])
        logits, emb, off = self._sess.run(["logits", "embedding", "offset"], {self._input_name: np.ascontiguousarray(turned)})
        # The head is linear, so the mean of the logits is the head applied to the mean embedding.
        logits = logits.reshape(4, n, -1).mean(0)
        emb = emb.reshape(4, n, -1).mean(0)
        o = off.reshape(4, n, 2)
        # Offsets (x files, y ranks) seen in a crop turned k quarter turns, turned back.
        back = np.stack([o[0], np.stack([o[1, :, 1], -o[1, :, 0]], 1), -o[2],
                         np.stack([-o[3, :, 1], o[3, :, 0]], 1)]).mean(0)
        return logits.astype(np.float32), emb.astype(np.float32), back.astype(np.float32)

    def _profiled(self, crops: np.ndarray, tta: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._profile is not None and self._profile.tail is not None:
            plain, taught, emb, off = self._raw_taught(crops, tta, self._profile.tail)
            if len(plain):
                taught = self._profile.apply(taught, emb)
                if not self._profile.own_occupancy:
                    taught = _occupancy_kept(plain, taught)
            return taught, emb, off
        logits, emb, off = self.raw(crops, tta=tta)
        if self._profile is not None and len(logits):
            logits = _occupancy_kept(logits, self._profile.apply(logits, emb))
        return logits, emb, off

    def predict_full(self, crops: np.ndarray) -> ClassifierOutput:
        """Probabilities, logits, embeddings and disc offsets, with the profile applied.

        With `tta_below` set, crops whose plain reading is sure keep it and only the unsure
        ones are read again averaged over quarter turns (their rows are replaced)."""
        if not (self.tta and self.tta_below is not None):
            logits, emb, off = self._profiled(crops, self.tta)
            return ClassifierOutput(softmax(logits), logits, emb, off)
        a = self._prepare(crops)
        logits, emb, off = self._profiled(a, False)
        probs = softmax(logits)
        unsure = np.flatnonzero(probs.max(axis=1) < self.tta_below) if len(probs) else np.zeros(0, int)
        if len(unsure):
            lu, eu, ou = self._profiled(a[unsure], True)
            logits[unsure], emb[unsure], off[unsure] = lu, eu, ou
            probs[unsure] = softmax(lu)
        return ClassifierOutput(probs, logits, emb, off)

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """(N, 15) float32 class probabilities for (N, S, S, 3) BGR uint8 crops."""
        return self.predict_full(crops).probs
