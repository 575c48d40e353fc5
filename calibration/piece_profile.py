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
* the strength is chosen by 2-fold cross-validation over the crops, with "no
  correction" as one of the candidates, and the fit is only kept when it does
  not lower accuracy on the known position.

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

__all__ = ["PieceSetProfile", "PieceProfileError", "adapt_classifier", "default_profile_path",
           "PROFILE_FORMAT", "PROFILE_VERSION"]

PROFILE_FORMAT = "xqtrack.piece_set_profile"
PROFILE_VERSION = 1
_NC = len(CLASSES)


def default_profile_path(name: str = "default") -> Path:
    """Where a named piece-set profile lives: $XQTRACK_HOME/piece_sets/NAME.json (default ~/.xqtrack).

    The name is reduced to a safe file name so "Club set (lamp)" and "club-set-lamp" land on the same file.
    """
    safe = "".join(ch if ch.isalnum() else "-" for ch in name.strip().lower()).strip("-")
    while "--" in safe:
        safe = safe.replace("--", "-")
    if not safe:
        raise ValueError(f"piece-set name {name!r} has no letters or digits")
    home = Path(os.environ.get("XQTRACK_HOME", Path.home() / ".xqtrack"))
    return home / "piece_sets" / f"{safe}.json"


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
    strength: float = 0.0               # the L2 weight chosen (larger = gentler; inf = no correction)
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
            "strength": num(self.strength),  # null = no correction (infinitely strong pull to zero)
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
                   strength=(lambda v: float("inf") if math.isnan(v) else v)(opt_num("strength", 0.0)),
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
         iters: int = 200) -> tuple[np.ndarray, np.ndarray]:
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
    angles = (0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0)
    L, E, _ = classifier.raw(_rotations(crops, angles))
    n = len(crops)
    y = np.tile(y0, len(angles))
    crop_of = np.tile(np.arange(n), len(angles))
    mask = np.zeros(_NC, bool)
    mask[np.unique(y0)] = True

    # Choose the strength by 2-fold cross-validation over crops (all rotations of a crop stay on
    # one side, so the check is not fooled by near-copies); "no correction" is a candidate too.
    order = np.random.default_rng(0).permutation(n)
    fold = np.zeros(n, np.int64)
    fold[order[1::2]] = 1
    f = fold[crop_of]
    def cv_score(lam: float | None) -> tuple[float, float]:
        errs, nlls = 0.0, 0.0
        for k in (0, 1):
            tr, va = f != k, f == k
            if lam is None:
                Z = L[va]
            else:
                W, b = _fit(L[tr], E[tr], y[tr], mask, lam)
                Z = L[va] + E[va] @ W + b
            nll, acc = _nll_acc(Z, y[va])
            errs += (1 - acc) * va.sum()
            nlls += nll * va.sum()
        return errs / len(y), nlls / len(y)
    base_err, base_nll = cv_score(None)
    best: tuple[float, float, float | None] = (base_err, base_nll, None)
    for lam in (1.0, 0.3, 0.1, 0.03):
        err, nll = cv_score(lam)
        if (err, nll) < best[:2]:
            best = (err, nll, lam)
    lam = best[2]
    base_nll_all, base_acc = _nll_acc(L, y)
    if lam is None:  # the data do not support a correction: keep the model as it is
        W, b, acc, lam_out = np.zeros((E.shape[1], _NC)), np.zeros(_NC), base_acc, float("inf")
    else:
        W, b = _fit(L, E, y, mask, lam)
        _, acc = _nll_acc(L + E @ W + b, y)
        lam_out = lam
        if acc < base_acc:
            W, b, acc, lam_out = np.zeros_like(W), np.zeros_like(b), base_acc, float("inf")
    seen = "".join(CLASSES[i] for i in range(_NC) if mask[i])
    profile = PieceSetProfile(model_id=classifier.model_id, delta_w=W, delta_b=b, name=name, n_crops=len(crops),
                              classes_seen=seen, strength=lam_out, fit_accuracy_before=base_acc,
                              fit_accuracy_after=acc)
    if apply:
        classifier.set_profile(profile)
    return profile
