"""Observations synthesised from exact truth, with a realistic reader's faults.

Why: the tracker's logic has to be right whatever the vision stage's
accuracy on a given day, so tests and the bench drive it with readings
made from sim truth and deliberately degraded the way a real reader
degrades — soft probabilities, look-alike confusions (車/車 of the other
colour, 馬/炮 shapes), single-frame flickers, doubtful points next to a
hand that the hand detector did not flag, garbage under the hand, a hand
flag that lags a frame, and the board lost for a while after a camera bump.

`observations(frames, ...)` accepts sim FrameTruth objects (or anything
with board, offsets, hidden, quiet, t, frame_index, homography, corners,
red_side).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

CLASSES = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")
_IDX = {c: i for i, c in enumerate(CLASSES)}

# Plausible confusions of a piece reader: the other colour of the same piece,
# and shapes of similar stroke density.
_CONFUSE = {
    "K": "kA", "A": "aK", "B": "bA", "N": "nC", "R": "rN", "C": "cN", "P": "pB",
    "k": "Ka", "a": "Ak", "b": "Ba", "n": "Nc", "r": "Rn", "c": "Cn", "p": "Pb",
    ".": "PpBb",
}


@dataclass
class NoiseProfile:
    conf_low: float = 0.55          # the true class gets this .. conf_high of the mass
    conf_high: float = 0.97
    flicker: float = 0.004          # per point and frame: the look-alike wins for one frame
    weak_points: float = 0.03       # share of points read poorly all game (true class ~0.45)
    halo: float = 0.5               # chance a neighbour of a hidden point reads badly (not flagged)
    hand_lag: int = 1               # frames the quiet flag lags the truth
    offset_sigma: float = 0.015
    lose_on_bump: bool = True
    unreadable_off: float = 0.38    # a disc this far off its point reads as empty there (crop misses it)
    seed: int = 0


def _neighbours(hidden: np.ndarray) -> np.ndarray:
    h = hidden.reshape(10, 9)
    n = np.zeros_like(h)
    n[1:, :] |= h[:-1, :]
    n[:-1, :] |= h[1:, :]
    n[:, 1:] |= h[:, :-1]
    n[:, :-1] |= h[:, 1:]
    return (n & ~h).reshape(90)


def observations(frames: Iterable, profile: NoiseProfile | None = None,
                 bump_frames: Iterable[tuple[int, int]] = ()) -> Iterator:
    """Yield vision.Observation objects for truth frames."""
    from vision.observation import BoardPose, Observation

    prof = profile or NoiseProfile()
    rng = np.random.default_rng(prof.seed)
    weak = rng.random(90) < prof.weak_points
    bumps = [(int(a), int(b)) for a, b in bump_frames]
    quiet_hist: list[bool] = []
    for fr in frames:
        board = fr.board
        true = np.array([_IDX[c] for c in board], dtype=np.int64)
        probs = np.zeros((90, 15), dtype=np.float64)
        conf = rng.uniform(prof.conf_low, prof.conf_high, 90)
        conf = np.where(weak, rng.uniform(0.4, 0.5, 90), conf)
        alt = np.array([_IDX[rng.choice(list(_CONFUSE[c]))] for c in board], dtype=np.int64)
        rest = rng.dirichlet(np.ones(15) * 0.5, 90) * 0.25
        probs += rest * (1.0 - conf)[:, None]
        probs[np.arange(90), alt] += (1.0 - conf) * 0.75
        probs[np.arange(90), true] += conf
        off = np.max(np.abs(np.asarray(fr.offsets, dtype=np.float64)), axis=1)
        gone = (off >= prof.unreadable_off) & (true != 0)
        if gone.any():
            probs[gone] *= 0.15
            probs[gone, 0] += 0.85
        flick = rng.random(90) < prof.flicker
        if flick.any():
            a = probs[flick, alt[flick]].copy()
            probs[flick, alt[flick]] = probs[flick, true[flick]]
            probs[flick, true[flick]] = a
        hidden = np.asarray(fr.hidden, dtype=bool)
        if hidden.any():
            probs[hidden] = rng.dirichlet(np.ones(15) * 0.3, int(hidden.sum()))
            halo = _neighbours(hidden) & (rng.random(90) < prof.halo)
            if halo.any():
                mix = rng.uniform(0.3, 0.8, int(halo.sum()))[:, None]
                probs[halo] = probs[halo] * (1 - mix) + rng.dirichlet(np.ones(15) * 0.3, int(halo.sum())) * mix
        probs /= probs.sum(axis=1, keepdims=True)
        quiet_hist.append(bool(fr.quiet))
        lag = prof.hand_lag
        quiet = all(quiet_hist[-(lag + 1):])
        offsets = np.asarray(fr.offsets, dtype=np.float64) + rng.normal(0, prof.offset_sigma, (90, 2))
        offsets = np.where((true != 0)[:, None], offsets, 0.0)
        lost = prof.lose_on_bump and any(a <= fr.frame_index <= b for a, b in bumps)
        pose = None if lost else BoardPose(np.asarray(fr.homography, dtype=np.float64),
                                           np.asarray(fr.corners, dtype=np.float64), 1.0,
                                           getattr(fr, "red_side", "bottom"))
        yield Observation(float(fr.t), int(fr.frame_index), pose, quiet, hidden.copy(),
                          probs.astype(np.float32), offsets.astype(np.float32))


def start_fen_of(truth) -> str:
    """Full start FEN of a sim ClipTruth (its start_fen is the placement only)."""
    placement = (getattr(truth, "start_fen", "") or "").split()
    if len(placement) >= 2:
        return " ".join(placement)
    board = placement[0] if placement else "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
    side = "w"
    if truth.moves:
        side = truth.moves[0].get("side", "w")
    return f"{board} {side} - - 0 1"


def bump_frames(truth) -> list[tuple[int, int]]:
    """Frame ranges of camera bumps in a sim ClipTruth."""
    return [tuple(e["frames"]) for e in getattr(truth, "events", []) if e.get("kind") == "bump"]
