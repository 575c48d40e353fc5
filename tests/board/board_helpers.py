"""Shared test support: run the tracker/recorder on scripted or sim truth."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synth import NoiseProfile, observations  # noqa: E402
from board.tracker import Tracker  # noqa: E402


def run_tracker(frames, profile: NoiseProfile | None = None, bumps=(), tracker: Tracker | None = None):
    tr = tracker or Tracker()
    events = []
    for obs in observations(frames, profile or NoiseProfile(), bump_frames=bumps):
        events.extend(tr.feed(obs))
    events.extend(tr.finish())
    return tr, events


def moves_of(events) -> list[str]:
    """The record as it finally stands (a correction re-states plies; the last word counts)."""
    from runtime.journal import final_move_events
    return [e["iccs"] for e in final_move_events([e.to_dict() for e in events if e.type == "move"])]


def incidents_of(events) -> list:
    return [e for e in events if e.type == "incident"]


SIDE = {"w": "red", "b": "black", "red": "red", "black": "black"}


def match_incidents(found, truth, ply_slack: int = 1):
    """Pair found incidents with truth ones (same kind, a shared point or no points, ply within slack).

    Returns (matched truth count, unmatched found list)."""
    used = set()
    matched = 0
    for t in truth:
        tpts = set(t.get("points") or [])
        for i, f in enumerate(found):
            if i in used or f.kind != t["kind"]:
                continue
            fpts = set(f.to_dict()["points"])
            if tpts and fpts and not (tpts & fpts):
                continue
            if abs(int(f.ply) - int(t["ply"])) > ply_slack:
                continue
            used.add(i)
            matched += 1
            break
    return matched, [f for i, f in enumerate(found) if i not in used]


@dataclass
class FakeFrame:
    image: np.ndarray
    t: float
    index: int


class ObservationReader:
    """Stands in for vision.BoardReader (a vision.protocol.Reader): returns prepared observations
    by frame index, searches nothing, never re-seats or turns its lattice; keeps the positions and
    disagreements the recorder tells it (`told`)."""

    searches = 0
    search_s = 0.0
    search_share = None
    lattice_replaced = 0

    def __init__(self, observations_list):
        self.obs = {o.frame_index: o for o in observations_list}
        self.told: list[tuple[str | None, bool]] = []

    def process(self, frame, t, frame_index):
        return self.obs[frame_index]

    def game_position(self, board, disagrees=False):
        self.told.append((board, disagrees))

    def take_anchored(self):
        return []

    def turn_board(self):
        return False


def fake_frames(n: int, fps: float = 25.0, shape=(90, 160, 3)):
    img = np.zeros(shape, dtype=np.uint8)
    for i in range(n):
        yield FakeFrame(img, i / fps, i)


def changed_looks(before: np.ndarray, changes: dict[int, float], seed: int = 5) -> np.ndarray:
    """Looks (vision.looks: unit rows) after a settle: each point p in `changes` turned away from
    its look `before[p]` so that 1 - dot = changes[p] (toward a random direction at right angles
    to it); every other point as it was."""
    rng = np.random.default_rng(seed)
    after = np.array(before, dtype=np.float64)
    for p, c in changes.items():
        other = rng.normal(size=after.shape[1])
        other -= (other @ after[p]) * after[p]
        other /= np.linalg.norm(other)
        after[p] = (1 - c) * after[p] + np.sqrt(1 - (1 - c) ** 2) * other
    return after.astype(np.float32)
