"""A tiny scripted 'truth' generator for tracker tests (no rendering).

It produces per-frame truth of the same shape as sim.FrameTruth (board,
offsets, hidden, quiet, t, frame_index, homography, corners, red_side):
a hand comes in from its player's edge, covers the points under it and
along the arm, lifts a piece, puts it down, leaves. Scripts can add the
physical signatures of incidents (a nudged disc, a knocked disc, a disc
left between points), an arm resting at the edge, a camera bump, a move the
camera misses. Exact and fast, so each tracker rule is tested in isolation;
the rendered-clip tests cover the real pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FILES = "abcdefghi"


def idx(name: str) -> int:
    return int(name[1]) * 9 + FILES.index(name[0])


def fen_board(fen: str) -> list[str]:
    cells = ["."] * 90
    for i, row in enumerate(fen.split()[0].split("/")):
        rank, f = 9 - i, 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                cells[rank * 9 + f] = c
                f += 1
    return cells


@dataclass
class TFrame:
    frame_index: int
    t: float
    board: str
    offsets: np.ndarray
    hidden: np.ndarray
    quiet: bool
    homography: np.ndarray = field(default_factory=lambda: np.array([[60.0, 0, 400], [0, -60.0, 650], [0, 0, 1]]))
    corners: np.ndarray = field(default_factory=lambda: np.array([[400, 110], [880, 110], [880, 650], [400, 650.0]]))
    red_side: str = "bottom"


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


class Script:
    def __init__(self, fen: str = START, fps: float = 25.0, seed: int = 0) -> None:
        self.board = fen_board(fen)
        self.fps = fps
        self.rng = np.random.default_rng(seed)
        self.offsets = self.rng.normal(0, 0.03, (90, 2))
        self.frames: list[TFrame] = []
        self.moves: list[dict] = []
        self.incidents: list[dict] = []
        self.bumps: list[tuple[int, int]] = []
        self.rest: set[int] = set()
        self.turn = fen.split()[1] if len(fen.split()) > 1 else "w"

    # -- frame emission
    def _emit(self, hidden: np.ndarray) -> None:
        h = hidden.copy()
        for p in self.rest:
            h[p] = True
        n = len(self.frames)
        self.frames.append(TFrame(n, n / self.fps, "".join(self.board), self.offsets.copy(), h, not h.any()))

    def quiet(self, seconds: float) -> "Script":
        for _ in range(max(1, int(round(seconds * self.fps)))):
            self._emit(np.zeros(90, dtype=bool))
        return self

    def _hand_cover(self, x: float, y: float, side: str) -> np.ndarray:
        px = np.tile(np.arange(9), 10).astype(float)
        py = np.repeat(np.arange(10), 9).astype(float)
        # fingertips over the point, the hand and arm back toward the player
        near = (px - x) ** 2 + (py - y) ** 2 <= 0.5 ** 2
        if side == "w":
            arm = (np.abs(px - x) <= 0.8) & (py <= y - 0.5)
        else:
            arm = (np.abs(px - x) <= 0.8) & (py >= y + 0.5)
        return near | arm

    def _travel(self, a: tuple[float, float], b: tuple[float, float], seconds: float, side: str) -> None:
        n = max(2, int(round(seconds * self.fps)))
        for i in range(1, n + 1):
            s = i / n
            x, y = a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s
            cover = self._hand_cover(x, y, side) if -0.9 <= y <= 9.9 else np.zeros(90, dtype=bool)
            self._emit(cover)

    def _stay(self, at: tuple[float, float], seconds: float, side: str) -> None:
        for _ in range(max(1, int(round(seconds * self.fps)))):
            self._emit(self._hand_cover(at[0], at[1], side))

    @staticmethod
    def _xy(p: int) -> tuple[float, float]:
        return float(p % 9), float(p // 9)

    def _edge(self, p: int, side: str) -> tuple[float, float]:
        return (float(p % 9), -2.0 if side == "w" else 11.0)

    # -- scripted actions
    def move(self, iccs: str, *, touch_first: str | None = None, knock: tuple[str, tuple[float, float]] | None = None,
             place_offset: tuple[float, float] = (0.0, 0.0), seen: bool = True, side: str | None = None,
             legal: bool = True, knock_off: str | None = None) -> "Script":
        side = side or self.turn
        a, b = idx(iccs[:2]), idx(iccs[2:])
        edge = self._edge(a, side)
        start = len(self.frames)
        pos = edge
        if touch_first:
            tp = idx(touch_first)
            self._travel(pos, self._xy(tp), 0.3, side)
            self._stay(self._xy(tp), 0.35, side)
            self.offsets[tp] += (0.11, 0.06)
            pos = self._xy(tp)
            self.incidents.append({"kind": "touch_move_other", "ply": len(self.moves) + 1, "side": side,
                                   "points": [touch_first, iccs[:2]]})
        self._travel(pos, self._xy(a), 0.3, side)
        piece = self.board[a]
        self.board[a] = "."
        self.offsets[a] = 0
        self._stay(self._xy(a), 0.25, side)
        if knock or knock_off:
            # the hand pushes a piece aside (knock) or sweeps it off the board (knock_off) on its
            # way to the destination
            name = knock[0] if knock else knock_off
            assert name is not None
            kp = idx(name)
            self._travel(self._xy(a), self._xy(kp), 0.15, side)
            if knock:
                self.offsets[kp] += knock[1]
            else:
                self.board[kp] = "."
                self.offsets[kp] = 0
            self._travel(self._xy(kp), self._xy(b), 0.15, side)
            self.incidents.append({"kind": "knocked", "ply": len(self.moves) + 1, "side": side,
                                   "points": [name]})
        else:
            self._travel(self._xy(a), self._xy(b), 0.3, side)
        self.board[b] = piece
        self.offsets[b] = np.array(place_offset) + self.rng.normal(0, 0.02, 2)
        if max(abs(place_offset[0]), abs(place_offset[1])) >= 0.3:
            self.incidents.append({"kind": "between_points", "ply": len(self.moves) + 1, "side": side,
                                   "points": [iccs[2:]]})
        self._stay(self._xy(b), 0.15, side)
        self._travel(self._xy(b), self._edge(b, side), 0.3, side)
        leave = len(self.frames)
        if not seen:
            # the camera saw none of it: drop the frames, keep the final state
            del self.frames[start:]
            for i, fr in enumerate(self.frames):
                fr.frame_index = i
            leave = len(self.frames)
        if legal:
            self.moves.append({"ply": len(self.moves) + 1, "iccs": iccs, "frame_hand_leaves": leave,
                               "t_hand_leaves": leave / self.fps})
            self.turn = "b" if side == "w" else "w"
        else:
            self.incidents.append({"kind": "illegal_move", "ply": len(self.moves), "side": side,
                                   "points": [iccs[:2], iccs[2:]]})
        return self

    def take_back(self, iccs: str, side: str) -> "Script":
        """Undo a physical (illegal) move: the piece goes back."""
        a, b = idx(iccs[:2]), idx(iccs[2:])
        self._travel(self._edge(b, side), self._xy(b), 0.3, side)
        piece = self.board[b]
        self.board[b] = "."
        self._travel(self._xy(b), self._xy(a), 0.3, side)
        self.board[a] = piece
        self.offsets[a] = self.rng.normal(0, 0.02, 2)
        self._travel(self._xy(a), self._edge(a, side), 0.3, side)
        return self

    def retouch(self, point: str, side: str) -> "Script":
        p = idx(point)
        self._travel(self._edge(p, side), self._xy(p), 0.3, side)
        self._stay(self._xy(p), 0.35, side)
        self.offsets[p] += (0.1, -0.05)
        self._travel(self._xy(p), self._edge(p, side), 0.3, side)
        self.incidents.append({"kind": "retouch", "ply": len(self.moves), "side": side, "points": [point]})
        return self

    def arm_pass(self, side: str, x: float = 4.0, seconds: float = 0.8) -> "Script":
        """An arm sweeps over the board without touching anything (not an incident)."""
        self._travel((x, -2.0 if side == "w" else 11.0), (x, 5.0), seconds / 2, side)
        self._travel((x, 5.0), (x, -2.0 if side == "w" else 11.0), seconds / 2, side)
        return self

    def rest_arm(self, points: list[str] | None) -> "Script":
        """Start (list of points) or end (None) an arm resting on the board's edge."""
        self.rest = {idx(p) for p in points} if points else set()
        return self

    def bump(self, seconds: float) -> "Script":
        a = len(self.frames)
        self.quiet(seconds)
        self.bumps.append((a, len(self.frames) - 1))
        return self
