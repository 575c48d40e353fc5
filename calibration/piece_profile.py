"""Piece-set profile: what the classifier learns about one piece set under one light.

Why: the shipped classifier is trained to be general, but a particular set
(its wood, ink colours, character style) under a particular lamp is always a
little off its training distribution, and the errors that remain are exactly
the pairs users complain about. At the start of a game the position is known,
so the 90 point crops of that frame are labelled for free. We fit a small,
strongly regularised correction of the classifier's last layer on them:

    logits' = logits + embedding @ delta_w + delta_b

* delta_w / delta_b start at zero and are pulled back to zero (L2), so with
  little evidence the profile changes nothing;
* the crops are shown at 8 rotations (the model must stay rotation invariant);
* classes absent from the known position are left untouched (never learnt to
  be "impossible");
* the strength is chosen on held-out rotations and the fit is only kept when it
  does not lower accuracy on the known position.

The profile is a small JSON file (saved under the user's calibration folder) so
the next game starts tuned. It names the model it was fitted for, because the
correction lives in that model's embedding space.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, Sequence

import cv2
import numpy as np

from vision.observation import CLASSES

__all__ = ["PieceSetProfile", "PieceProfileError", "adapt_classifier", "PROFILE_FORMAT", "PROFILE_VERSION"]

PROFILE_FORMAT = "xqtrack.piece_set_profile"
PROFILE_VERSION = 1
_NC = len(CLASSES)


class PieceProfileError(ValueError):
    """A piece-set profile file is unreadable or malformed (message names the file and field)."""


class _Classifier(Protocol):  # what adapt_classifier needs from vision.classifier.PieceClassifier
    model_id: str
    embedding_dim: int

    def raw(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def set_profile(self, profile: "PieceSetProfile | None") -> None: ...


@dataclass
class PieceSetProfile:
    """A fitted last-layer correction for one piece set + light, for one model."""

    model_id: str
    delta_w: np.ndarray                 # (D, 15) float32
    delta_b: np.ndarray                 # (15,) float32
    name: str = "piece set"
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    n_crops: int = 0
    classes_seen: str = ""
    strength: float = 0.0               # the L2 weight chosen (larger = gentler)
    fit_accuracy_before: float = float("nan")
    fit_accuracy_after: float = float("nan")

    def __post_init__(self) -> None:
        self.delta_w = np.asarray(self.delta_w, dtype=np.float32)
        self.delta_b = np.asarray(self.delta_b, dtype=np.float32).reshape(-1)
        if self.delta_w.ndim != 2 or self.delta_w.shape[1] != _NC:
            raise ValueError(f"delta_w must be (D, {_NC}), got {self.delta_w.shape}")
        if self.delta_b.shape != (_NC,):
            raise ValueError(f"delta_b must be ({_NC},), got {self.delta_b.shape}")

    def apply(self, logits: np.ndarray, embedding: np.ndarray) -> np.ndarray:
        """Corrected logits for a batch (N, 15) given its embeddings (N, D)."""
        return (logits + embedding @ self.delta_w + self.delta_b).astype(np.float32)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if not math.isfinite(x) else float(x)
        return {
            "format": PROFILE_FORMAT,
            "version": PROFILE_VERSION,
            "name": self.name,
            "created": self.created,
            "model_id": self.model_id,
            "classes": "".join(CLASSES),
            "n_crops": int(self.n_crops),
            "classes_seen": self.classes_seen,
            "strength": float(self.strength),
            "fit_accuracy_before": num(self.fit_accuracy_before),
            "fit_accuracy_after": num(self.fit_accuracy_after),
            "delta_b": [float(v) for v in self.delta_b],
            "delta_w": [[float(v) for v in row] for row in self.delta_w],
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the profile as JSON (atomically: a crash never leaves half a file)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike) -> "PieceSetProfile":
        """Read a profile; any problem raises PieceProfileError naming the file and field."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PieceProfileError(f"{p}: piece-set profile file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise PieceProfileError(f"{p}: cannot read piece-set profile ({exc})") from None
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PieceProfileError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        return cls.from_dict(d, source=str(p))

    @classmethod
    def from_dict(cls, d: Any, source: str = "<profile>") -> "PieceSetProfile":
        def bad(fld: str, why: str) -> PieceProfileError:
            return PieceProfileError(f"{source}: field '{fld}': {why}")

        if not isinstance(d, dict):
            raise PieceProfileError(f"{source}: expected a JSON object at the top level, got {type(d).__name__}")
        if d.get("format") != PROFILE_FORMAT:
            raise bad("format", f"expected {PROFILE_FORMAT!r}, got {d.get('format')!r} (not a piece-set profile)")
        if d.get("version") != PROFILE_VERSION:
            raise bad("version", f"unsupported version {d.get('version')!r} (this program reads {PROFILE_VERSION})")
        for key in ("model_id", "delta_w", "delta_b"):
            if key not in d:
                raise bad(key, "missing")
        if d.get("classes", "".join(CLASSES)) != "".join(CLASSES):
            raise bad("classes", f"class order {d.get('classes')!r} differs from {''.join(CLASSES)!r}")
        if not isinstance(d["model_id"], str) or not d["model_id"]:
            raise bad("model_id", "must be a non-empty string")

        def matrix(key: str, ndim: int) -> np.ndarray:
            try:
                a = np.array(d[key], dtype=np.float64)
            except (TypeError, ValueError):
                raise bad(key, "must be numbers") from None
            if a.ndim != ndim:
                raise bad(key, f"must be a {ndim}-D array of numbers, got shape {a.shape}")
            if not np.all(np.isfinite(a)):
                raise bad(key, "contains NaN or infinite values")
            return a

        w = matrix("delta_w", 2)
        b = matrix("delta_b", 1)
        if w.shape[1] != _NC or w.shape[0] < 1:
            raise bad("delta_w", f"must have shape (D, {_NC}), got {w.shape}")
        if b.shape != (_NC,):
            raise bad("delta_b", f"must have {_NC} values, got {b.shape[0]}")

        def opt_num(key: str, default: float) -> float:
            v = d.get(key, default)
            if v is None:
                return float("nan")
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise bad(key, f"must be a number, got {v!r}")
            return float(v)

        n = d.get("n_crops", 0)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise bad("n_crops", f"must be a non-negative integer, got {n!r}")
        for key in ("name", "created", "classes_seen"):
            if key in d and not isinstance(d[key], str):
                raise bad(key, f"must be a string, got {d[key]!r}")
        return cls(model_id=d["model_id"], delta_w=w, delta_b=b, name=d.get("name", "piece set"),
                   created=d.get("created", ""), n_crops=n, classes_seen=d.get("classes_seen", ""),
                   strength=opt_num("strength", 0.0),
                   fit_accuracy_before=opt_num("fit_accuracy_before", float("nan")),
                   fit_accuracy_after=opt_num("fit_accuracy_after", float("nan")))


# ---------------------------------------------------------------- adaptation
def _labels_to_ids(labels: Sequence[Any] | str | np.ndarray, n: int) -> np.ndarray:
    if isinstance(labels, str):
        labels = list(labels)
    out = np.empty(len(labels), np.int64)
    for i, lab in enumerate(labels):
        if isinstance(lab, (int, np.integer)) and not isinstance(lab, bool):
            if not 0 <= int(lab) < _NC:
                raise ValueError(f"label {i}: class index {lab} outside 0..{_NC - 1}")
            out[i] = int(lab)
        elif isinstance(lab, str) and lab in CLASSES:
            out[i] = CLASSES.index(lab)
        else:
            raise ValueError(f"label {i}: {lab!r} is not one of {''.join(CLASSES)!r} or a class index")
    if len(out) != n:
        raise ValueError(f"got {n} crops but {len(out)} labels")
    return out


def _rotations(crops: np.ndarray, angles: Sequence[float]) -> np.ndarray:
    out = []
    s = crops.shape[1]
    for a in angles:
        k = int(round(a / 90.0))
        if abs(a - 90.0 * k) < 1e-6:
            out.append(np.rot90(crops, k % 4, axes=(1, 2)))
        else:
            M = cv2.getRotationMatrix2D((s / 2.0 - 0.5, s / 2.0 - 0.5), a, 1.0)
            out.append(np.stack([cv2.warpAffine(c, M, (s, s), flags=cv2.INTER_LINEAR,
                                                borderMode=cv2.BORDER_REFLECT101) for c in crops]))
    return np.ascontiguousarray(np.concatenate(out, 0))


def _fit(L0: np.ndarray, E: np.ndarray, y: np.ndarray, mask: np.ndarray, lam: float,
         iters: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Minimise mean CE(L0 + E dW + db, y) + lam * (|dW|^2 * scale + |db|^2) by Adam (full batch)."""
    n, dim = E.shape
    scale = float(np.mean(E ** 2)) + 1e-8  # puts dW and db penalties on the scale of their effect
    W = np.zeros((dim, _NC))
    b = np.zeros(_NC)
    mW, vW, mb, vb = (np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b))
    onehot = np.eye(_NC)[y]
    lr, b1, b2 = 0.05 / math.sqrt(scale * dim), 0.9, 0.999
    lr_b = 0.05
    for t in range(1, iters + 1):
        Z = L0 + E @ W + b
        Z -= Z.max(1, keepdims=True)
        P = np.exp(Z)
        P /= P.sum(1, keepdims=True)
        G = (P - onehot) / n
        gW = E.T @ G + 2 * lam * scale * dim * W
        gb = G.sum(0) + 2 * lam * b
        gW[:, ~mask] = 0.0
        gb[~mask] = 0.0
        mW = b1 * mW + (1 - b1) * gW; vW = b2 * vW + (1 - b2) * gW ** 2
        mb = b1 * mb + (1 - b1) * gb; vb = b2 * vb + (1 - b2) * gb ** 2
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        W -= lr * (mW / c1) / (np.sqrt(vW / c2) + 1e-8)
        b -= lr_b * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
    return W, b


def _nll_acc(Z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    Z = Z - Z.max(1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean()), float((Z.argmax(1) == y).mean())


def adapt_classifier(classifier: _Classifier, crops: np.ndarray, labels: Sequence[Any] | str | np.ndarray,
                     name: str = "piece set", apply: bool = True) -> PieceSetProfile:
    """Fit a piece-set profile on crops whose classes are known (e.g. the start position).

    Args:
        classifier: a `vision.classifier.PieceClassifier`.
        crops: (N, S, S, 3) BGR uint8 point crops (e.g. all 90 of one frame).
        labels: N class letters (a 90-char board string works) or class indices.
        name: a label stored in the profile (e.g. "club wooden set, lamp").
        apply: also set the profile on the classifier.

    Returns the fitted profile. With too little evidence the correction simply
    stays near zero; it never makes the known position read worse.
    """
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[-1] != 3 or crops.shape[1] != crops.shape[2]:
        raise ValueError(f"crops must be (N, S, S, 3) square BGR images, got shape {crops.shape}")
    if len(crops) < 2:
        raise ValueError("need at least 2 labelled crops to adapt")
    y0 = _labels_to_ids(labels, len(crops))
    fit_angles = (0.0, 90.0, 180.0, 270.0)
    val_angles = (45.0, 135.0, 225.0, 315.0)
    rot_fit = _rotations(crops, fit_angles)
    rot_val = _rotations(crops, val_angles)
    Lf, Ef, _ = classifier.raw(rot_fit)
    Lv, Ev, _ = classifier.raw(rot_val)
    yf = np.tile(y0, len(fit_angles))
    yv = np.tile(y0, len(val_angles))
    mask = np.zeros(_NC, bool)
    mask[np.unique(y0)] = True

    base_nll, base_acc = _nll_acc(np.concatenate([Lf, Lv]), np.concatenate([yf, yv]))
    best = None
    for lam in (3.0, 1.0, 0.3, 0.1, 0.03):
        W, b = _fit(Lf, Ef, yf, mask, lam)
        nll, acc = _nll_acc(Lv + Ev @ W + b, yv)
        if best is None or (acc, -nll) > (best[0], -best[1]):
            best = (acc, nll, lam, W, b)
    _, _, lam, W, b = best
    # Refit with every rotation at the chosen strength.
    L_all, E_all, y_all = np.concatenate([Lf, Lv]), np.concatenate([Ef, Ev]), np.concatenate([yf, yv])
    W, b = _fit(L_all, E_all, y_all, mask, lam)
    nll, acc = _nll_acc(L_all + E_all @ W + b, y_all)
    if acc < base_acc or (acc == base_acc and nll > base_nll):
        W, b, nll, acc = np.zeros_like(W), np.zeros_like(b), base_nll, base_acc  # keep the model as it is
    seen = "".join(CLASSES[i] for i in range(_NC) if mask[i])
    profile = PieceSetProfile(model_id=classifier.model_id, delta_w=W, delta_b=b, name=name, n_crops=len(crops),
                              classes_seen=seen, strength=lam, fit_accuracy_before=base_acc,
                              fit_accuracy_after=acc)
    if apply:
        classifier.set_profile(profile)
    return profile
