"""The clip's choreography: who moves what when, where the hand is each frame, planted incidents.

Why a separate, render-free timeline: every frame's board state, hand pose and the move /
incident truth are decided here from the seed before any pixel is drawn, so the truth cannot
drift from the pictures (the renderer only draws what the timeline says) and tests can check
the choreography without rendering.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .hands import HandPose
from .truth import point_name

INCIDENT_KINDS = ("touch_move_other", "retouch", "between_points", "knocked", "arm_pass")


@dataclass(frozen=True)
class Placed:
    piece: str
    dx: float
    dy: float
    rot: float


@dataclass
class Snapshot:
    """Everything resting on the table at one moment: lattice pieces and pieces set aside."""

    points: dict            # point index -> Placed
    aside: tuple            # ((piece, x, y, rot), ...)


@dataclass
class FramePlan:
    snap: int
    hand: HandPose | None = None
    side: str = "w"                   # whose hand
    sliding: tuple | None = None      # (piece, x, y, rot) dragged along the board under the fingers
    carried: tuple = ()               # pieces held in the hand (lifted off the board)


@dataclass
class Timeline:
    fps: float
    frames: list = field(default_factory=list)
    snaps: list = field(default_factory=list)
    moves: list = field(default_factory=list)       # {"ply", "iccs", "frame_release"}
    incidents: list = field(default_factory=list)   # {"kind", "ply", "side", "points", "frames"}
    events: list = field(default_factory=list)      # {"kind": "arm_pass", "frames"}
    start_board: str = ""


def _ease(t: float) -> float:
    return t * t * (3 - 2 * t)


class Choreographer:
    """Builds a Timeline move by move (see module docstring)."""

    def __init__(self, rng: np.random.Generator, fps: float, board: str, sloppiness: float,
                 tempo: float = 1.0) -> None:
        self.rng = rng
        self.fps = fps
        self.tempo = tempo
        self.sloppy = sloppiness
        self.points: dict[int, Placed] = {}
        for i, c in enumerate(board):
            if c != ".":
                self.points[i] = self._placed(c)
        self.aside: list[tuple] = []
        self.tl = Timeline(fps=fps, start_board=board)
        self._snap()
        # players' shoulders: red sits beyond rank 0 (y < 0), black beyond rank 9; right hands
        self.shoulder = {"w": np.array([4 + rng.uniform(0.3, 2.5), -8.5 - rng.uniform(0, 1.5)]),
                         "b": np.array([4 - rng.uniform(0.3, 2.5), 17.5 + rng.uniform(0, 1.5)])}
        self.pending_between: dict[str, list] = {"w": [], "b": []}
        self.carrying: list[str] = []

    # --- state ---------------------------------------------------------------------------------
    def _placed(self, piece: str, big: float = 0.0, direction: float | None = None) -> Placed:
        rng = self.rng
        if big > 0:
            ang = rng.uniform(0, 2 * np.pi) if direction is None else direction
            dx, dy = big * math.cos(ang), big * math.sin(ang)
        else:
            dx, dy = np.clip(rng.normal(0, self.sloppy, 2), -0.22, 0.22)
        facing = 0.0 if piece.isupper() else 180.0
        rot = rng.uniform(-180, 180) if rng.random() < 0.25 else facing + rng.normal(0, 22)
        rot = (rot + 180) % 360 - 180
        return Placed(piece, float(dx), float(dy), float(rot))

    def _room_toward(self, sq: int, direction: float) -> float:
        """The direction a disc left between points can lie in: toward a free neighbour or the board's
        edge. Two discs (radius ~0.4 spacings each) cannot overlap, so a disc 0.42-0.5 off its point
        toward an occupied one is a scene no board shows (stop-32 draw: 8989 and 8997, a chariot and a
        cannon rendered half inside a neighbour). The drawn direction is kept where there is room; else
        the next quarter turn that has it (no draw is spent, so the rest of the clip is unchanged)."""
        for quarter in range(4):
            ang = direction + quarter * np.pi / 2
            fx, fy = sq % 9 + round(math.cos(ang)), sq // 9 + round(math.sin(ang))
            if not (0 <= fx < 9 and 0 <= fy < 10) or fy * 9 + fx not in self.points:
                return ang
        return direction   # hemmed in on all four sides: no room anywhere, the disc is left as drawn

    def _snap(self) -> None:
        self.tl.snaps.append(Snapshot(points=dict(self.points), aside=tuple(self.aside)))

    @property
    def _cur(self) -> int:
        return len(self.tl.snaps) - 1

    def _emit(self, hand: HandPose | None, side: str, sliding: tuple | None = None) -> None:
        carried = tuple(self.carrying) if hand is not None else ()
        self.tl.frames.append(FramePlan(snap=self._cur, hand=hand, side=side, sliding=sliding, carried=carried))

    def frames_for(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps * self.tempo)))

    def hold(self, seconds: float, side: str = "w", hand: HandPose | None = None) -> None:
        for _ in range(self.frames_for(seconds)):
            self._emit(hand, side)

    def _close_between(self, sq: int) -> None:
        """A piece left between points is picked up or captured: its incident ends now."""
        for side in "wb":
            for rec in list(self.pending_between[side]):
                if rec["sq"] == sq:
                    rec["incident"]["frames"][1] = max(rec["incident"]["frames"][0], len(self.tl.frames) - 1)
                    self.pending_between[side].remove(rec)

    # --- hand motion ---------------------------------------------------------------------------
    def pose(self, side: str, x: float, y: float, z: float, grip: float = 0.5) -> HandPose:
        sh = self.shoulder[side]
        a = sh - np.array([x, y])
        a = a / (np.linalg.norm(a) + 1e-9)
        return HandPose(x=float(x), y=float(y), z=float(z), ax=float(a[0]), ay=float(a[1]), grip=grip)

    def rest(self, side: str) -> HandPose:
        sh = self.shoulder[side]
        toward = np.array([4.0, 4.5]) - sh
        toward /= np.linalg.norm(toward)
        p = sh + toward * 3.2
        return self.pose(side, p[0], p[1], 3.0, 0.8)

    def travel(self, side: str, a: HandPose, b: HandPose, seconds: float, arc: float = 0.0,
               sliding: str | None = None, slide_rot: float = 0.0) -> HandPose:
        n = self.frames_for(seconds)
        for k in range(1, n + 1):
            t = _ease(k / n)
            x = a.x + (b.x - a.x) * t
            y = a.y + (b.y - a.y) * t
            z = a.z + (b.z - a.z) * t + arc * math.sin(math.pi * t)
            g = a.grip + (b.grip - a.grip) * t
            p = self.pose(side, x, y, z, g)
            sl = (sliding, x, y, slide_rot) if sliding else None
            self._emit(p, side, sl)
        return b

    # --- choreography pieces -------------------------------------------------------------------
    def _xy(self, sq: int, placed: Placed | None = None) -> tuple[float, float]:
        x, y = sq % 9, sq // 9
        if placed is not None:
            return x + placed.dx, y + placed.dy
        return float(x), float(y)

    def _aside_spot(self, side: str) -> tuple[float, float]:
        k = sum(1 for p in self.aside if (p[0].isupper()) == (side == "b"))
        row, col = divmod(k, 3)
        # beside the board on the capturer's right, growing toward the player (clear of a clock
        # standing at the river)
        if side == "w":
            x, y = 9.9 + 0.95 * col, 0.4 - 0.95 * row
        else:
            x, y = -1.9 - 0.95 * col, 8.6 + 0.95 * row
        return x + self.rng.normal(0, 0.08), y + self.rng.normal(0, 0.08)

    def touch(self, side: str, hand: HandPose, sq: int, incident_nudge: bool = False) -> HandPose:
        """Go to a piece, rest fingers on it a moment, lift off."""
        pl = self.points.get(sq)
        x, y = self._xy(sq, pl)
        over = self.pose(side, x, y, 0.5, 0.35)
        hand = self.travel(side, hand, over, self.rng.uniform(0.35, 0.6))
        self.hold(self.rng.uniform(0.2, 0.4), side, over)
        if incident_nudge and pl is not None:
            self.points[sq] = Placed(pl.piece, float(np.clip(pl.dx + self.rng.normal(0, 0.04), -0.25, 0.25)),
                                     float(np.clip(pl.dy + self.rng.normal(0, 0.04), -0.25, 0.25)),
                                     pl.rot + float(self.rng.normal(0, 8)))
            self._snap()
            self.hold(0.12, side, over)
        up = self.pose(side, x, y, 1.6, 0.5)
        return self.travel(side, over, up, 0.2)

    def withdraw(self, side: str, hand: HandPose) -> None:
        self.travel(side, hand, self.rest(side), self.rng.uniform(0.4, 0.7), arc=0.3)

    def arm_pass(self, side: str) -> None:
        """An arm sweeping across the board (reaching for a cup, pointing): no piece touched."""
        start = len(self.tl.frames)
        r = self.rest(side)
        far_y = 6.0 if side == "w" else 3.0
        x0 = self.rng.uniform(-1, 3)
        x1 = self.rng.uniform(5, 10)
        a = self.pose(side, x0, far_y, 2.2, 0.9)
        b = self.pose(side, x1, far_y + self.rng.normal(0, 1), 2.4, 0.9)
        h = self.travel(side, r, a, 0.5)
        h = self.travel(side, h, b, self.rng.uniform(0.5, 0.9))
        self.withdraw(side, h)
        self.tl.events.append({"kind": "arm_pass", "side": side, "frames": [start, len(self.tl.frames) - 1]})

    def play_move(self, ply: int, iccs: str, side: str, plan: dict) -> None:
        """Film one move (with whatever incidents `plan` asks for) and log it."""
        rng = self.rng
        files = "abcdefghi"
        fr = int(iccs[1]) * 9 + files.index(iccs[0])
        to = int(iccs[3]) * 9 + files.index(iccs[2])
        if fr not in self.points:
            raise ValueError(f"move {ply} {iccs}: no piece on {iccs[:2]}")
        self.hold(rng.uniform(0.35, 1.3), side)
        if plan.get("arm_pass"):
            self.arm_pass(side)
            self.hold(rng.uniform(0.2, 0.5), side)
        hand = self.rest(side)
        # fix a piece left between points earlier by this side
        for rec in list(self.pending_between[side]):
            sq = rec["sq"]
            if sq == fr:
                continue  # that very piece moves now: its incident ends when it is lifted
            hand = self.touch(side, hand, sq)
            pl = self.points[sq]
            self.points[sq] = self._placed(pl.piece)
            self._snap()
            self.hold(0.1, side, hand)
            rec["incident"]["frames"][1] = len(self.tl.frames) - 1
            self.pending_between[side].remove(rec)
        if "touch_move_other" in plan:
            other = plan["touch_move_other"]
            start = len(self.tl.frames)
            hand = self.touch(side, hand, other, incident_nudge=True)
            self.tl.incidents.append({"kind": "touch_move_other", "ply": ply, "side": side,
                                      "points": [point_name(other)], "frames": [start, len(self.tl.frames) - 1]})
        piece = self.points[fr]
        fx, fy = self._xy(fr, piece)
        tx, ty = float(to % 9), float(to // 9)
        capture = to in self.points
        capture_first = capture and rng.random() < 0.5
        if capture_first:
            victim = self.points[to]
            vx, vy = self._xy(to, victim)
            over = self.pose(side, vx, vy, 0.45, 0.3)
            hand = self.travel(side, hand, over, rng.uniform(0.45, 0.7), arc=0.6)
            self.hold(0.16, side, over)
            del self.points[to]
            self.carrying.append(victim.piece)
            self._close_between(to)
            self._snap()
            ax, ay = self._aside_spot(side)
            drop = self.pose(side, ax, ay, 0.5, 0.3)
            hand = self.travel(side, over, drop, rng.uniform(0.4, 0.6), arc=1.0)
            self.aside.append((victim.piece, ax, ay, victim.rot))
            self.carrying.remove(victim.piece)
            self._snap()
            self.hold(0.1, side, drop)
        over = self.pose(side, fx, fy, 0.45, 0.3)
        hand = self.travel(side, hand, over, rng.uniform(0.45, 0.8), arc=0.8)
        self.hold(rng.uniform(0.12, 0.25), side, over)
        del self.points[fr]
        self.carrying.append(piece.piece)
        self._close_between(fr)
        self._snap()
        dist = math.hypot(tx - fx, ty - fy)
        straight = iccs[0] == iccs[2] or iccs[1] == iccs[3]
        slide = piece.piece.upper() in "RC" and straight and not capture and dist >= 2 and rng.random() < 0.5
        dest = self.pose(side, tx, ty, 0.45, 0.3)
        if slide:
            hand = self.travel(side, over, dest, 0.25 + 0.07 * dist, sliding=piece.piece, slide_rot=piece.rot)
        else:
            hand = self.travel(side, over, dest, 0.25 + 0.06 * dist, arc=min(1.5, 0.4 + 0.2 * dist))
        if capture and not capture_first:
            victim = self.points.pop(to)
            self.carrying.append(victim.piece)
            self._close_between(to)
            self._snap()
            self.hold(0.12, side, dest)
        # set the piece down
        inc_kinds = plan.get("kinds", ())
        if "between_points" in inc_kinds:
            big = float(rng.uniform(0.42, 0.5))
            direction = float(rng.choice([0, 0.5, 1, 1.5]) * np.pi + rng.normal(0, 0.15))
            placed = self._placed(piece.piece, big=big, direction=self._room_toward(to, direction))
        else:
            placed = self._placed(piece.piece)
        self.points[to] = placed
        self.carrying.remove(piece.piece)
        knocked_sq = None
        if "knocked" in inc_kinds:
            nbrs = [s for s in self.points if s != to and abs(s % 9 - to % 9) + abs(s // 9 - to // 9) <= 2]
            if nbrs:
                knocked_sq = int(rng.choice(nbrs))
                old = self.points[knocked_sq]
                vx, vy = (knocked_sq % 9 - to % 9), (knocked_sq // 9 - to // 9)
                ang = math.atan2(vy, vx) + rng.normal(0, 0.4)
                big = rng.uniform(0.38, 0.5)
                self.points[knocked_sq] = Placed(old.piece, big * math.cos(ang), big * math.sin(ang),
                                                 old.rot + float(rng.normal(0, 30)))
        self._snap()
        release_frame = len(self.tl.frames)
        self.hold(0.1, side, dest)
        if capture and not capture_first:
            ax, ay = self._aside_spot(side)
            drop = self.pose(side, ax, ay, 0.5, 0.3)
            hand = self.travel(side, dest, drop, rng.uniform(0.4, 0.6), arc=1.0)
            self.aside.append((victim.piece, ax, ay, victim.rot))
            self.carrying.remove(victim.piece)
            self._snap()
            self.hold(0.1, side, drop)
            dest = drop
        self.withdraw(side, dest)
        self.tl.moves.append({"ply": ply, "iccs": iccs, "frame_release": release_frame, "side": side})
        if knocked_sq is not None:
            self.tl.incidents.append({"kind": "knocked", "ply": ply, "side": side, "points": [point_name(knocked_sq)],
                                      "frames": [release_frame, release_frame]})
        if "between_points" in inc_kinds:
            inc = {"kind": "between_points", "ply": ply, "side": side, "points": [point_name(to)],
                   "frames": [release_frame, -1]}
            self.tl.incidents.append(inc)
            self.pending_between[side].append({"sq": to, "incident": inc})
        if "retouch" in inc_kinds:
            self.hold(rng.uniform(0.4, 0.8), side)
            start = len(self.tl.frames)
            h = self.touch(side, self.rest(side), to, incident_nudge=True)
            self.withdraw(side, h)
            self.tl.incidents.append({"kind": "retouch", "ply": ply, "side": side, "points": [point_name(to)],
                                      "frames": [start, len(self.tl.frames) - 1]})

    def finish(self, tail_seconds: float = 1.2) -> Timeline:
        self.hold(tail_seconds)
        for side in "wb":  # a between_points piece never nudged: open until the end
            for rec in self.pending_between[side]:
                rec["incident"]["frames"][1] = len(self.tl.frames) - 1
        for inc in self.tl.incidents:
            if inc["frames"][1] < 0:
                inc["frames"][1] = len(self.tl.frames) - 1
        return self.tl
