"""The synthetic camera rig: turns a ClipSpec into frames and exact per-frame truth.

Pipeline, chosen for speed (>= 20 frames/s at 1280x720 on one core) and exact truth:
  once per clip   world texture (table + board, top-down), piece face sprites, camera(s), timeline
  once per pose   background = one cv2.remap of the world texture through homography + lens
                  distortion (one combined map), lattice points / corners by cv2.projectPoints
  per board state static layer = background + piece shadows + discs (side + warped face) + glare
  per frame       copy static layer, sliding piece, hand/arm, low-res light gain (vignette, uneven
                  light, hand and moving shadows, flicker, white balance) upsampled and multiplied,
                  focus / motion blur, sensor noise, JPEG round trip.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from . import art
from .camera import Camera, fit_camera, pose_truth
from .hands import (HAND_KINDS, HandPose, RestingHand, draw_hand_look, hand_parts, project_parts, render_hand,
                    resting_pose, resting_schedule, shadow_polygons)
from .pieces import PieceStyle, draw_piece, draw_piece_style, face_sprite, rotated_face, shading_map, shadow_polygon
from .script import INCIDENT_KINDS, Choreographer, Timeline
from .truth import ClipSpec, ClipTruth, FrameTruth, board_to_fen, fen_to_board

LOOKS: tuple[str, ...] = ("wood", "mat", "plastic", "cloth", "paper")
START_BOARD_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
PIECE_LETTERS = "KABNRCPkabnrcp"
_CAMERA_KEYS = {"tilt_deg", "azimuth_deg", "roll_deg", "fov_deg", "fill", "distortion", "dist", "bump", "blur",
                "noise", "jpeg_quality", "glare", "flicker", "shadows", "white_balance", "clean", "target",
                "vignette", "exposure", "motion_blur"}
LOW = 8  # light-gain map downscale


def _rules():
    try:
        from rules import Move, Position  # noqa: F401
        return Position, Move
    except ImportError:
        return None, None


@dataclass
class Effects:
    blur: float
    noise: float
    jpeg: int
    wb: np.ndarray
    vignette: float
    gradient: tuple
    exposure: float
    glare: tuple | None
    flicker: tuple | None       # (amplitude, frequency Hz, phase)
    moving_shadow: tuple | None  # (x0, y0, x1, y1, rx, ry, strength) in image fractions
    motion_blur: bool
    lut: np.ndarray | None = None   # per-clip tone curve (gamma, contrast, black level)


def _tone_lut(gamma: float, contrast: float, black: float) -> np.ndarray:
    x = np.arange(256, dtype=np.float64) / 255.0
    y = x ** gamma
    y = 0.5 + (y - 0.5) * contrast
    y = black + (1 - black) * np.clip(y, 0, 1)
    return np.clip(np.round(y * 255), 0, 255).astype(np.uint8)


def _draw_effects(rng: np.random.Generator, over: dict) -> Effects:
    clean = bool(over.get("clean"))
    u = rng.random(12)
    blur = [rng.uniform(0, 0.8), rng.uniform(0.8, 1.6), rng.uniform(1.6, 2.4)][int(np.searchsorted([0.6, 0.9], u[0]))]
    temp = rng.normal(0, 0.09)            # warm (tungsten) ... cool (daylight, shade)
    wb = np.array([1 - temp, 1.0, 1 + temp]) * rng.uniform(0.95, 1.05, 3)
    wb /= wb.mean()
    e = Effects(
        blur=float(blur), noise=float(rng.uniform(1.0, 7.0)), jpeg=int(rng.uniform(35, 92)) if u[1] < 0.6 else 0,
        wb=wb, vignette=float(rng.uniform(0, 0.35)),
        gradient=(float(rng.uniform(0, 0.3)), float(rng.uniform(0, 2 * np.pi))), exposure=float(rng.uniform(0.82, 1.15)),
        glare=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.08, 0.25)),
               float(rng.uniform(0.03, 0.1)), float(rng.uniform(0, 180)), float(rng.uniform(40, 140))) if u[2] < 0.35 else None,
        flicker=(float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.5, 8.0)), float(rng.uniform(0, 6.28))) if u[3] < 0.3 else None,
        moving_shadow=(float(rng.uniform(-0.3, 1.3)), float(rng.uniform(0, 1)), float(rng.uniform(-0.3, 1.3)),
                       float(rng.uniform(0, 1)), float(rng.uniform(0.2, 0.45)), float(rng.uniform(0.2, 0.45)),
                       float(rng.uniform(0.12, 0.35))) if u[4] < 0.4 else None,
        motion_blur=True,
        lut=_tone_lut(float(rng.uniform(0.8, 1.25)), float(rng.uniform(0.85, 1.2)), float(rng.uniform(0.0, 0.06))),
    )
    if clean:
        e.blur, e.noise, e.jpeg, e.vignette, e.gradient, e.exposure = 0.0, 0.0, 0, 0.0, (0.0, 0.0), 1.0
        e.wb = np.ones(3)
        e.glare = e.flicker = e.moving_shadow = None
        e.motion_blur = False
        e.lut = None
    if "blur" in over:
        e.blur = float(over["blur"])
    if "noise" in over:
        e.noise = float(over["noise"])
    if "jpeg_quality" in over:
        e.jpeg = int(over["jpeg_quality"])
    if "white_balance" in over:
        e.wb = np.asarray(over["white_balance"], np.float64)
    if "vignette" in over:
        e.vignette = float(over["vignette"])
    if "exposure" in over:
        e.exposure = float(over["exposure"])
    if over.get("glare") is False:
        e.glare = None
    elif over.get("glare") is True and e.glare is None:
        e.glare = (0.5, 0.45, 0.18, 0.06, 30.0, 100.0)
    if over.get("flicker") is not None and not over.get("flicker"):
        e.flicker = None
    elif over.get("flicker") and e.flicker is None:
        e.flicker = (float(over["flicker"]) if not isinstance(over["flicker"], bool) else 0.03, 3.0, 0.0)
    if over.get("shadows") is False:
        e.moving_shadow = None
    if "motion_blur" in over:
        e.motion_blur = bool(over["motion_blur"])
    return e


def _validate_spec(spec: ClipSpec) -> None:
    if spec.look is not None and spec.look not in LOOKS:
        raise ValueError(f"unknown look {spec.look!r}: choose one of {', '.join(LOOKS)}")
    if not (64 <= spec.width <= 8192 and 64 <= spec.height <= 8192):
        raise ValueError(f"frame size {spec.width}x{spec.height} out of range 64..8192")
    if not spec.fps > 0:
        raise ValueError(f"fps must be positive, got {spec.fps}")
    if spec.random_plies < 0:
        raise ValueError(f"random_plies must be >= 0, got {spec.random_plies}")
    if spec.hands not in HAND_KINDS:
        raise ValueError(f"unknown hands {spec.hands!r}: choose one of {', '.join(HAND_KINDS)}")
    unknown = set(spec.camera or {}) - _CAMERA_KEYS
    if unknown:
        raise ValueError(f"unknown camera override(s) {sorted(unknown)}; known: {sorted(_CAMERA_KEYS)}")
    for inc in spec.incidents or []:
        if not isinstance(inc, dict) or inc.get("kind") not in INCIDENT_KINDS:
            raise ValueError(f"incident {inc!r}: kind must be one of {', '.join(INCIDENT_KINDS)}")
        if not isinstance(inc.get("ply"), int) or inc["ply"] < 1:
            raise ValueError(f"incident {inc!r}: 'ply' must be a 1-based move number")


def _resolve_game(spec: ClipSpec, rng: np.random.Generator) -> tuple[str, str, list[str]]:
    """(start board string, side to move, ICCS moves), checking given moves with the rules engine."""
    fen = spec.start_fen or START_BOARD_FEN
    board = fen_to_board(fen)
    parts = fen.split()
    side = "b" if len(parts) > 1 and parts[1] == "b" else "w"
    Position, Move = _rules()
    moves: list[str] = []
    if spec.moves is not None:
        moves = [m.strip().lower() for m in spec.moves]
        if Position is not None:
            pos = Position.from_fen(fen) if spec.start_fen else Position()
            for k, m in enumerate(moves):
                try:
                    pos.push(Move.from_iccs(m))
                except Exception as exc:
                    raise ValueError(f"move {k + 1} ({m}): {exc}") from exc
        else:
            for k, m in enumerate(moves):
                if len(m) != 4 or m[0] not in "abcdefghi" or m[2] not in "abcdefghi" or not m[1].isdigit() or not m[3].isdigit():
                    raise ValueError(f"move {k + 1} ({m!r}) is not ICCS like 'h2e2'")
    elif spec.random_plies > 0:
        if Position is None:
            raise RuntimeError("random legal play needs the rules package (rules.Position)")
        pos = Position.from_fen(fen) if spec.start_fen else Position()
        for _ in range(spec.random_plies):
            legal = sorted(pos.legal_moves(), key=lambda mv: mv.iccs())
            if not legal:
                break
            # prefer captures a little, so games evolve like real ones
            caps = [mv for mv in legal if pos.is_capture(mv)]
            mv = caps[int(rng.integers(len(caps)))] if caps and rng.random() < 0.35 else legal[int(rng.integers(len(legal)))]
            pos.push(mv)
            moves.append(mv.iccs())
    return board, side, moves


def _streams(spec: ClipSpec) -> list[np.random.Generator]:
    """The clip's independent random streams (look, art, pieces, camera, script, effects, game,
    incidents, hands, bump): each part draws from its own, so changing one leaves the rest alike."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence([int(spec.seed) & 0xFFFFFFFF, 7]).spawn(10)]


def planned_moves(spec: ClipSpec) -> list[str]:
    """The ICCS moves the clip will play, without rendering it: random play can end in mate
    before `random_plies`, and a bench draw passes over such a seed (bench/draw_clips.py)."""
    _validate_spec(spec)
    return _resolve_game(spec, _streams(spec)[6])[2]


def _random_board(rng: np.random.Generator) -> str:
    """A plausible position for stills: random legal play from the start (or start itself)."""
    Position, _ = _rules()
    if Position is None:
        return fen_to_board(START_BOARD_FEN)
    pos = Position()
    n = int(rng.choice([0, int(rng.integers(1, 20)), int(rng.integers(20, 70)), int(rng.integers(70, 160))],
                       p=[0.1, 0.3, 0.35, 0.25]))
    for _ in range(n):
        legal = sorted(pos.legal_moves(), key=lambda mv: mv.iccs())
        if not legal:
            break
        caps = [mv for mv in legal if pos.is_capture(mv)]
        mv = caps[int(rng.integers(len(caps)))] if caps and rng.random() < 0.5 else legal[int(rng.integers(len(legal)))]
        pos.push(mv)
    return fen_to_board(pos.fen())


class Rig:
    """One clip's fixed world (board, pieces, camera, light) and its timeline; renders frame i."""

    def __init__(self, spec: ClipSpec, still_board: str | None = None) -> None:
        _validate_spec(spec)
        self.spec = spec
        self.W, self.H = spec.width, spec.height
        over = dict(spec.camera or {})
        self.over = over
        streams = _streams(spec)
        r_look, r_art, r_piece, r_cam, r_script, r_fx, r_game, r_inc, r_hand, r_bump = streams
        self.look = spec.look or LOOKS[int(r_look.integers(len(LOOKS)))]
        self.style = art.draw_style(self.look, r_art)
        table: list = []
        self.world = art.render_world(self.style, r_art, table)
        self.table = table[0]
        kind = {"wood": ["wood", "wood", "bamboo", "plastic"], "plastic": ["plastic", "white", "white"]}.get(
            self.look, ["wood", "plastic", "white", "bamboo"])
        self.pstyle: PieceStyle = draw_piece_style(r_piece, kind[int(r_piece.integers(len(kind)))])
        el = math.radians(r_piece.uniform(40, 80))
        az = r_piece.uniform(0, 2 * np.pi)
        self.light = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        self.faces = {c: face_sprite(c, self.pstyle, r_piece) for c in PIECE_LETTERS}
        self.shade_mul, self.shade_add = shading_map(self.pstyle, self.light[:2] / (np.linalg.norm(self.light[:2]) + 1e-9))
        self.fx = _draw_effects(r_fx, over)
        self.hand_looks = {"w": draw_hand_look(r_hand, spec.hands), "b": draw_hand_look(r_hand, spec.hands)}
        self.cam_params = self._draw_camera(r_cam, over)
        cam0 = self._camera(self.cam_params)
        self.cams: list[Camera] = [cam0]
        self._face_cache: dict = {}
        self._bg_cache: dict = {}
        self._static_key = None
        self._static_img = None
        self._pose_cache: dict = {}
        # game and timeline
        if still_board is not None:
            chor = Choreographer(r_script, spec.fps, still_board, sloppiness=float(r_script.uniform(0.03, 0.11)))
            chor.hold(1.0 / spec.fps)
            self.tl = chor.tl
            self.moves_iccs: list[str] = []
            self.start_board = still_board
        else:
            board, side, moves = _resolve_game(spec, r_game)
            self.start_board = board
            self.moves_iccs = moves
            self.tl = self._choreograph(board, side, moves, r_script, r_inc)
        self.n = len(self.tl.frames)
        # the players' free hands at rest, drawn from a stream of their own (every other draw as before)
        self.resting: list[RestingHand] = resting_schedule(
            np.random.default_rng(np.random.SeedSequence([int(spec.seed) & 0xFFFFFFFF, 7, 11])),
            self.n / spec.fps) if spec.resting else []
        self.frame_pose = [0] * self.n
        self.bumps: list[dict] = []
        if still_board is None and over.get("bump", r_bump.random() < 0.5 and not over.get("clean")):
            self._plan_bump(r_bump)
        self._finalise_truth()

    # --- set-up ----------------------------------------------------------------------------------
    def _draw_camera(self, rng: np.random.Generator, over: dict) -> dict:
        tilt = rng.uniform(0, 10) if rng.random() < 0.3 else rng.uniform(10, 45)
        p = {"tilt_deg": tilt, "azimuth_deg": rng.uniform(0, 360), "roll_deg": rng.normal(0, 6),
             "fov_deg": rng.uniform(45, 75), "fill": rng.uniform(0.85, 1.1),
             "target": [4 + rng.uniform(-1.0, 1.0), 4.5 + rng.uniform(-1.0, 1.0)]}
        k1 = 0.0 if rng.random() < 0.45 else rng.uniform(-0.12, 0.05)
        p["dist"] = [k1, rng.uniform(-0.02, 0.02) if k1 else 0.0, 0.0, 0.0, 0.0]
        for k in ("tilt_deg", "azimuth_deg", "roll_deg", "fov_deg", "fill", "target"):
            if k in over:
                p[k] = over[k]
        if "distortion" in over:
            p["dist"] = [float(over["distortion"]), 0.0, 0.0, 0.0, 0.0]
        if "dist" in over:
            p["dist"] = [float(c) for c in over["dist"]]
        if over.get("clean") and "distortion" not in over and "dist" not in over:
            p["dist"] = [0.0] * 5
        return p

    def _camera(self, p: dict) -> Camera:
        fill = float(p["fill"])
        for _ in range(30):
            cam = fit_camera(np.array([p["target"][0], p["target"][1], 0.0]), p["tilt_deg"], p["azimuth_deg"],
                             p["roll_deg"], p["fov_deg"], fill, self.W, self.H, np.asarray(p["dist"]))
            pts = cam.project(np.array([[-0.6, -0.6], [8.6, -0.6], [8.6, 9.6], [-0.6, 9.6], [4, -0.6], [4, 9.6],
                                        [-0.6, 4.5], [8.6, 4.5]]))
            if (pts[:, 0].min() > 2 and pts[:, 1].min() > 2 and pts[:, 0].max() < self.W - 3
                    and pts[:, 1].max() < self.H - 3):
                return cam
            fill *= 0.95
            # pull the aim point toward the board centre as well
            p = dict(p, target=[0.8 * p["target"][0] + 0.2 * 4, 0.8 * p["target"][1] + 0.2 * 4.5])
        return cam

    def _choreograph(self, board: str, side: str, moves: list[str], rng: np.random.Generator,
                     r_inc: np.random.Generator) -> Timeline:
        plans: dict[int, dict] = {}
        if self.spec.incidents is None:
            for ply in range(1, len(moves) + 1):
                if r_inc.random() < 0.08:
                    kind = INCIDENT_KINDS[int(r_inc.integers(len(INCIDENT_KINDS)))]
                    plans.setdefault(ply, {"kinds": []})["kinds"].append(kind)
        else:
            for inc in self.spec.incidents:
                if inc["ply"] > len(moves):
                    raise ValueError(f"incident {inc!r}: ply {inc['ply']} is beyond the game's {len(moves)} moves")
                plans.setdefault(inc["ply"], {"kinds": []})["kinds"].append(inc["kind"])
        chor = Choreographer(rng, self.spec.fps, board, sloppiness=float(rng.uniform(0.03, 0.1)),
                             tempo=float(rng.uniform(0.85, 1.2)))
        chor.hold(rng.uniform(0.6, 1.2))
        files = "abcdefghi"
        for k, m in enumerate(moves):
            ply = k + 1
            mover = side if k % 2 == 0 else ("b" if side == "w" else "w")
            plan = dict(plans.get(ply, {"kinds": []}))
            kinds = plan.get("kinds", [])
            if "arm_pass" in kinds:
                plan["arm_pass"] = True
            if "touch_move_other" in kinds:
                fr = int(m[1]) * 9 + files.index(m[0])
                own = [s for s, pl in chor.points.items() if s != fr and (pl.piece.isupper() == (mover == "w"))]
                if own:
                    own.sort(key=lambda s: abs(s % 9 - fr % 9) + abs(s // 9 - fr // 9))
                    plan["touch_move_other"] = own[int(rng.integers(min(3, len(own))))]
            chor.play_move(ply, m, mover, plan)
        return chor.finish(rng.uniform(0.8, 1.5))

    def _plan_bump(self, rng: np.random.Generator) -> None:
        hand_free = np.array([f.hand is None for f in self.tl.frames])
        n = self.n
        cands = [i for i in range(n // 3, max(n // 3 + 1, 2 * n // 3)) if hand_free[max(0, i - 3): i + 8].all()]
        if not cands or n < 20:
            return
        start = int(rng.choice(cands))
        p = dict(self.cam_params)
        p["tilt_deg"] = float(np.clip(p["tilt_deg"] + rng.normal(0, 2.5), 0, 50))
        p["azimuth_deg"] = p["azimuth_deg"] + rng.normal(0, 3)
        p["roll_deg"] = p["roll_deg"] + rng.normal(0, 2)
        p["target"] = [p["target"][0] + rng.normal(0, 0.3), p["target"][1] + rng.normal(0, 0.3)]
        p["fill"] = p["fill"] * rng.uniform(0.95, 1.03)
        cam1 = self._camera(p)
        cam0 = self.cams[0]
        steps = int(rng.integers(2, 5))
        # in-between poses: camera centre moves on a line, orientation turns about one axis
        c0, c1 = cam0.centre, cam1.centre
        dR = cv2.Rodrigues(cam1.R @ cam0.R.T)[0].ravel()
        for k in range(1, steps + 1):
            t = k / (steps + 1)
            R = cv2.Rodrigues(dR * t)[0] @ cam0.R
            C = c0 + (c1 - c0) * t
            self.cams.append(Camera(K=cam0.K, dist=cam0.dist, R=R, t=-R @ C,
                                    width=self.W, height=self.H, tilt_deg=cam0.tilt_deg, azimuth_deg=cam0.azimuth_deg,
                                    roll_deg=cam0.roll_deg))
        self.cams.append(cam1)
        for i in range(start, n):
            self.frame_pose[i] = min(i - start + 1, steps + 1)
        self.bumps.append({"kind": "bump", "frames": [start, start + steps]})

    def _finalise_truth(self) -> None:
        """Hand-over-board per frame (at 1/4 resolution), ply per frame, move settle frames."""
        q = 4
        self.over_board = np.zeros(self.n, bool)
        region_cache: dict[int, np.ndarray] = {}
        for i, f in enumerate(self.tl.frames):
            if f.hand is None:
                continue
            pid = self.frame_pose[i]
            cam = self.cams[pid]
            if pid not in region_cache:
                reg = np.zeros((self.H // q + 1, self.W // q + 1), np.uint8)
                outline = cam.project(np.array([[-0.5, -0.5], [8.5, -0.5], [8.5, 9.5], [-0.5, 9.5]]))
                cv2.fillPoly(reg, [np.round(outline / q * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
                region_cache[pid] = reg
            reg = region_cache[pid]
            m = np.zeros_like(reg)
            polys = [np.round(p / q * 16).astype(np.int32) for _, p in project_parts(cam, hand_parts(f.hand, self.hand_looks[f.side]))]
            for poly in polys:  # one at a time: a multi-contour fillPoly would punch holes where parts overlap
                cv2.fillPoly(m, [poly], 255, cv2.LINE_8, 4)
            self.over_board[i] = bool(np.any(m & reg))
        self.ply_at = np.zeros(self.n, int)
        self.move_truth = []
        for mv in self.tl.moves:
            f = mv["frame_release"]
            while f < self.n and self.over_board[f]:
                f += 1
            self.move_truth.append({"ply": mv["ply"], "iccs": mv["iccs"], "frame_settled": int(f),
                                    "t_settled": round(f / self.spec.fps, 4), "frame_hand_leaves": int(f),
                                    "frame_release": int(mv["frame_release"]), "side": mv["side"]})
            self.ply_at[f:] += 1

    # --- rendering -------------------------------------------------------------------------------
    def _background(self, pid: int) -> np.ndarray:
        if pid in self._bg_cache:
            return self._bg_cache[pid]
        cam = self.cams[pid]
        grid = cam.undistorted_normalised_grid()
        M = art.tex_affine() @ np.linalg.inv(np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.t]))
        M = M.astype(np.float32)
        gx, gy = grid[..., 0], grid[..., 1]
        w = M[2, 0] * gx + M[2, 1] * gy + M[2, 2]
        w = np.where(w > 1e-6, w, np.float32(1e-6))
        mu = np.clip((M[0, 0] * gx + M[0, 1] * gy + M[0, 2]) / w, -1e5, 1e5).astype(np.float32)
        mv = np.clip((M[1, 0] * gx + M[1, 1] * gy + M[1, 2]) / w, -1e5, 1e5).astype(np.float32)
        # texture pixels per image pixel: blur the texture a little when strongly minified
        h0 = cam.plane_homography(0.0)
        scale = math.sqrt(abs(np.linalg.det(h0[:2, :2]))) / art.S
        src = self.world
        if scale < 0.75:
            src = cv2.GaussianBlur(src, (0, 0), 0.45 / max(scale, 0.2))
        m1, m2 = cv2.convertMaps(mu, mv, cv2.CV_16SC2)
        bg = cv2.remap(src, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        outside = (mu < 1) | (mv < 1) | (mu > art.TEX_W - 2) | (mv > art.TEX_H - 2)
        if outside.any():  # beyond the drawn world: more of the bare table, mirrored (seamless)
            tsrc = self.table if scale >= 0.75 else cv2.GaussianBlur(self.table, (0, 0), 0.45 / max(scale, 0.2))
            far = cv2.remap(tsrc, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
            bg[outside] = far[outside]
        self._board_sides(bg, cam)
        if len(self._bg_cache) > 3:
            self._bg_cache.clear()
        self._bg_cache[pid] = bg
        return bg

    def _board_sides(self, img: np.ndarray, cam: Camera) -> None:
        """Visible side faces of a thick board (wood, plastic): the board top is the plane z = 0."""
        t = self.style.thickness
        if t <= 0:
            return
        m = self.style.margin
        corners = np.array([[-m, -m], [8 + m, -m], [8 + m, 9 + m], [-m, 9 + m]])
        C = cam.centre
        base = np.asarray(self.style.base, np.float64) * (0.5 if self.style.kind == "wood" else 0.7)
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            mid = (a + b) / 2
            outward = mid - np.array([4.0, 4.5])
            outward = outward * (np.abs(outward) == np.abs(outward).max())
            outward /= np.linalg.norm(outward)
            to_cam = C - np.array([mid[0], mid[1], -t / 2])
            if outward @ to_cam[:2] <= 0:
                continue
            quad = np.array([[a[0], a[1], 0.0], [b[0], b[1], 0.0], [b[0], b[1], -t], [a[0], a[1], -t]])
            p = cam.project_fast(quad)
            lit = 0.75 + 0.35 * float(np.clip(outward @ self.light[:2], -1, 1))
            col = tuple(float(c) for c in np.clip(base * lit, 0, 255))
            cv2.fillConvexPoly(img, np.round(p * 16).astype(np.int32), col, cv2.LINE_AA, 4)
            cv2.line(img, tuple(np.round(p[0] * 16).astype(int)), tuple(np.round(p[1] * 16).astype(int)),
                     tuple(float(c) for c in np.clip(base * 1.4, 0, 255)), 1, cv2.LINE_AA, 4)

    def _pose(self, pid: int) -> dict:
        if pid not in self._pose_cache:
            cam = self.cams[pid]
            d = pose_truth(cam)
            region = np.zeros((self.H, self.W), np.uint8)
            outline = cam.project(np.array([[-0.5, -0.5], [8.5, -0.5], [8.5, 9.5], [-0.5, 9.5]]))
            cv2.fillPoly(region, [np.round(outline * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
            d["region"] = region
            d["gain"] = self._base_gain(cam)
            d["glare"] = self._glare(cam, region)
            self._pose_cache[pid] = d
        return self._pose_cache[pid]

    def _base_gain(self, cam: Camera) -> np.ndarray:
        h, w = self.H // LOW + 1, self.W // LOW + 1
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        xn, yn = xx / w - 0.5, yy / h - 0.5
        g = 1 - self.fx.vignette * (xn ** 2 + yn ** 2) * 2
        amp, ang = self.fx.gradient
        g *= 1 + amp * (xn * math.cos(ang) + yn * math.sin(ang))
        g *= self.fx.exposure
        return g.astype(np.float32)

    def _glare(self, cam: Camera, region: np.ndarray) -> np.ndarray | None:
        if self.fx.glare is None:
            return None
        cx, cy, rx, ry, ang, strength = self.fx.glare
        g = np.zeros((self.H // 2, self.W // 2), np.float32)
        cv2.ellipse(g, (int(cx * self.W / 2), int(cy * self.H / 2)), (int(rx * self.W / 2), int(ry * self.H / 2)),
                    ang, 0, 360, 1.0, -1, cv2.LINE_AA)
        g = cv2.GaussianBlur(g, (0, 0), 12)
        g = cv2.resize(g, (self.W, self.H))
        on_board = cv2.GaussianBlur(region, (0, 0), 2).astype(np.float32) / 255.0
        return (g * on_board * strength).astype(np.uint8)

    def _face(self, letter: str, rot: float) -> np.ndarray:
        key = (letter, round(rot, 2))
        f = self._face_cache.get(key)
        if f is None:
            if len(self._face_cache) > 400:
                self._face_cache.clear()
            f = rotated_face(self.faces[letter], rot, self.shade_mul, self.shade_add)
            self._face_cache[key] = f
        return f

    def _static(self, pid: int, sid: int) -> np.ndarray:
        key = (pid, sid)
        if self._static_key == key:
            return self._static_img
        cam = self.cams[pid]
        img = self._background(pid).copy()
        snap = self.tl.snaps[sid]
        items = [(sq % 9 + pl.dx, sq // 9 + pl.dy, pl.piece, pl.rot) for sq, pl in snap.points.items()]
        items += [(x, y, pc, rot) for pc, x, y, rot in snap.aside]
        # soft cast shadows at half resolution
        sh = np.zeros((self.H // 2 + 1, self.W // 2 + 1), np.uint8)
        for x, y, _, _ in items:
            poly = shadow_polygon(cam, x, y, self.pstyle, self.light)
            cv2.fillPoly(sh, [np.round(poly / 2 * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        px_per_unit = math.sqrt(abs(np.linalg.det(cam.plane_homography(0.0)[:2, :2])))
        sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, 0.05 * px_per_unit))
        shf = cv2.resize(sh, (self.W, self.H), interpolation=cv2.INTER_LINEAR)
        inv = cv2.subtract(np.full_like(shf, 255), cv2.multiply(shf, np.full_like(shf, 1), scale=0.45))
        img = cv2.multiply(img, cv2.merge([inv, inv, inv]), scale=1 / 255.0)
        depth = cam.depth(np.array([[x, y, 0.0] for x, y, _, _ in items])) if items else []
        for k in np.argsort(-np.asarray(depth)) if items else []:
            x, y, pc, rot = items[k]
            draw_piece(img, cam, x, y, self._face(pc, rot), self.pstyle)
        g = self._pose(pid)["glare"]
        if g is not None:
            img = cv2.add(img, cv2.merge([g, g, g]))
        self._static_key, self._static_img = key, img
        return img

    def _gain(self, i: int, cam: Camera, hand: HandPose | None, side: str) -> np.ndarray:
        pose = self._pose(self.frame_pose[i])
        g = pose["gain"].copy()
        h, w = g.shape
        t = i / self.spec.fps
        if self.fx.flicker is not None:
            a, f, ph = self.fx.flicker
            g *= 1 + a * math.sin(2 * math.pi * f * t + ph)
        if self.fx.moving_shadow is not None:
            x0, y0, x1, y1, rx, ry, s = self.fx.moving_shadow
            u = t / max(1e-6, self.n / self.spec.fps)
            cx, cy = (x0 + (x1 - x0) * u) * w, (y0 + (y1 - y0) * u) * h
            m = np.zeros((h, w), np.float32)
            cv2.ellipse(m, (int(cx), int(cy)), (int(rx * w), int(ry * h)), 0, 0, 360, 1.0, -1)
            m = cv2.GaussianBlur(m, (0, 0), 4)
            g *= 1 - s * m
        if hand is not None:
            m = np.zeros((h, w), np.float32)
            for poly in shadow_polygons(cam, hand, self.hand_looks[side], self.light):
                cv2.fillPoly(m, [np.round(poly / LOW * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
            m = cv2.GaussianBlur(m, (0, 0), 1.0 + 0.4 * hand.z)
            g *= 1 - 0.45 * m
        g3 = np.clip(g[..., None] * self.fx.wb[None, None, :].astype(np.float32) * 128.0, 0, 255).astype(np.uint8)
        return cv2.resize(g3, (self.W + LOW, self.H + LOW), interpolation=cv2.INTER_LINEAR)[: self.H, : self.W]

    def _hidden(self, cam: Camera, mask: np.ndarray, snap) -> np.ndarray:
        r = self.pstyle.radius
        ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)
        ring = np.vstack([[0, 0], np.stack([np.cos(ang), np.sin(ang)], -1) * 0.6])
        base = np.stack([np.arange(90) % 9, np.arange(90) // 9], -1).astype(np.float64)
        z = np.zeros(90)
        rad = np.full(90, 0.3)
        for sq, pl in snap.points.items():
            base[sq] += (pl.dx, pl.dy)
            z[sq] = self.pstyle.height
            rad[sq] = r
        pts = base[:, None, :] + ring[None, :, :] * rad[:, None, None]
        p3 = np.concatenate([pts, np.repeat(z[:, None, None], 9, axis=1)], axis=-1)
        img = cam.project_fast(p3)
        xi = np.clip(np.round(img[..., 0]).astype(int), 0, self.W - 1)
        yi = np.clip(np.round(img[..., 1]).astype(int), 0, self.H - 1)
        covered = mask[yi, xi] > 127
        # hidden: the disc's (or bare point's) centre is under the hand, or over a third of it is
        return covered[:, 0] | (covered.mean(axis=1) >= 0.34)

    def render(self, i: int, with_mask: bool = True) -> tuple[np.ndarray, FrameTruth]:
        if not 0 <= i < self.n:
            raise IndexError(f"frame {i} out of range 0..{self.n - 1}")
        plan = self.tl.frames[i]
        pid = self.frame_pose[i]
        cam = self.cams[pid]
        pose = self._pose(pid)
        img = self._static(pid, plan.snap).copy()
        snap = self.tl.snaps[plan.snap]
        loose = [{"piece": pc, "x": round(x, 4), "y": round(y, 4), "where": "aside"} for pc, x, y, _ in snap.aside]
        if plan.sliding is not None:
            pc, x, y, rot = plan.sliding
            draw_piece(img, cam, x, y, self._face(pc, rot), self.pstyle)
        for pc in plan.carried:  # held (or slid) under the fingers: at the fingertips
            loose.append({"piece": pc, "x": round(plan.hand.x, 4), "y": round(plan.hand.y, 4), "where": "hand"})
        if plan.hand is not None and plan.sliding is None:
            # a piece pinched between the fingertips shows below them, partly hidden by the fingers
            h = plan.hand
            for k, pc in enumerate(plan.carried):
                z0 = max(0.0, h.z - 0.8 * self.pstyle.height)
                draw_piece(img, cam, h.x - 0.15 * k * h.ax, h.y - 0.15 * k * h.ay, self._face(pc, 0.0 if pc.isupper() else 180.0),
                           self.pstyle, z0=z0)
        mask = np.zeros((self.H, self.W), np.uint8)
        rested = False
        for rest in self.resting:
            at_rest = resting_pose(rest, i / self.spec.fps)
            if at_rest is not None:
                rested |= render_hand(img, cam, at_rest, self.hand_looks[rest.side], self.light, mask) is not None
        if plan.hand is not None:
            under = img.copy() if self.fx.motion_blur else None
            box = render_hand(img, cam, plan.hand, self.hand_looks[plan.side], self.light, mask)
            if under is not None and box is not None and i > 0 and self.tl.frames[i - 1].hand is not None:
                self._hand_motion_blur(img, under, mask, box, cam, self.tl.frames[i - 1].hand, plan.hand)
        img = cv2.multiply(img, self._gain(i, cam, plan.hand, plan.side), scale=1 / 128.0)
        img = self._photo(img, i)
        board = ["."] * 90
        offsets = np.zeros((90, 2))
        rots = np.zeros(90)
        for sq, pl in snap.points.items():
            board[sq] = pl.piece
            offsets[sq] = (pl.dx, pl.dy)
            rots[sq] = pl.rot
        bs = "".join(board)
        hidden = self._hidden(cam, mask, snap) if plan.hand is not None or rested else np.zeros(90, bool)
        truth = FrameTruth(
            frame_index=i, t=i / self.spec.fps, board=bs, fen=board_to_fen(bs), offsets=offsets, rotations=rots,
            hidden=hidden, hand_mask=(mask > 127) if with_mask else None, quiet=not bool(self.over_board[i]),
            corners=pose["corners"].copy(), homography=pose["homography"].copy(), camera=pose["camera"],
            ply=int(self.ply_at[i]), red_side=pose["red_side"], points=pose["points"].copy(), loose=loose,
            hand_over_board=bool(self.over_board[i]), look=self.look,
        )
        return img, truth

    def _hand_motion_blur(self, img: np.ndarray, under: np.ndarray, mask: np.ndarray, box: tuple,
                          cam: Camera, prev: HandPose, cur: HandPose) -> None:
        """Smear a fast-moving hand along its image motion (half the frame interval exposed)."""
        a = cam.project_fast(np.array([[prev.x, prev.y, prev.z + 0.6]]))[0]
        b = cam.project_fast(np.array([[cur.x, cur.y, cur.z + 0.6]]))[0]
        d = (b - a) * 0.5
        L = float(np.hypot(*d))
        if L < 3:
            return
        L = min(L, 25.0)
        n = int(math.ceil(L)) | 1
        k = np.zeros((n, n), np.float32)
        c = (n - 1) / 2
        ux, uy = d / (np.hypot(*d) + 1e-9)
        cv2.line(k, (int(round(c - ux * c)), int(round(c - uy * c))), (int(round(c + ux * c)), int(round(c + uy * c))), 1.0, 1)
        k /= k.sum()
        pad = n
        x0, x1 = max(0, box[0] - pad), min(self.W, box[2] + pad)
        y0, y1 = max(0, box[1] - pad), min(self.H, box[3] + pad)
        alpha = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
        fg = img[y0:y1, x0:x1].astype(np.float32) * alpha[..., None]
        fg_b = cv2.filter2D(fg, -1, k, borderType=cv2.BORDER_CONSTANT)
        a_b = cv2.filter2D(alpha, -1, k, borderType=cv2.BORDER_CONSTANT)
        bg = under[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(fg_b + bg * (1 - a_b[..., None]), 0, 255).astype(np.uint8)

    def _photo(self, img: np.ndarray, i: int) -> np.ndarray:
        fx = self.fx
        rng = np.random.default_rng([int(self.spec.seed) & 0xFFFFFFFF, i, 99])
        pid = self.frame_pose[i]
        if fx.motion_blur and 0 < pid < len(self.cams) - 1:  # the view is moving during a bump
            a, b = self.cams[pid - 1].project_fast(np.array([[4.0, 4.5]])), self.cams[pid].project_fast(np.array([[4.0, 4.5]]))
            d = (b - a).ravel()
            L = int(min(41, max(3, np.linalg.norm(d))))
            k = np.zeros((L, L), np.float32)
            ang = math.atan2(d[1], d[0])
            c = (L - 1) / 2
            cv2.line(k, (int(c - c * math.cos(ang)), int(c - c * math.sin(ang))),
                     (int(c + c * math.cos(ang)), int(c + c * math.sin(ang))), 1.0, 1)
            img = cv2.filter2D(img, -1, k / max(k.sum(), 1))
        if fx.lut is not None:
            img = cv2.LUT(img, fx.lut)
        if fx.blur > 0.3:
            k = 2 * int(math.ceil(2.5 * fx.blur)) + 1
            img = cv2.GaussianBlur(img, (k, k), fx.blur)
        if fx.noise > 0.2 and self.n == 1:  # a still: draw its noise directly
            n = rng.normal(0, fx.noise, (self.H, self.W, 1)).astype(np.float32)
            img = np.clip(img.astype(np.float32) + n, 0, 255).astype(np.uint8)
        elif fx.noise > 0.2:
            n = self._noise_pair()
            oy, ox = int(rng.integers(0, 32)), int(rng.integers(0, 32))
            pos = n[0][oy:oy + self.H, ox:ox + self.W]
            neg = n[1][oy:oy + self.H, ox:ox + self.W]
            img = cv2.subtract(cv2.add(img, pos), neg)
        if fx.jpeg:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, fx.jpeg])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img

    def _noise_pair(self) -> tuple[np.ndarray, np.ndarray]:
        if getattr(self, "_noise", None) is None:
            rng = np.random.default_rng([int(self.spec.seed) & 0xFFFFFFFF, 5150])
            n = rng.normal(0, self.fx.noise, (self.H + 32, self.W + 32, 1)).astype(np.float32)
            n = n + rng.normal(0, self.fx.noise * 0.35, (self.H + 32, self.W + 32, 3)).astype(np.float32)
            self._noise = (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
        return self._noise

    def clip_truth(self, frames: list[FrameTruth]) -> ClipTruth:
        return ClipTruth(spec=self.spec.to_dict(), fps=self.spec.fps, frame_count=self.n, moves=self.move_truth,
                         incidents=[dict(inc) for inc in self.tl.incidents], frames=frames, look=self.look,
                         seed=int(self.spec.seed), events=[dict(e) for e in self.tl.events] + self.bumps,
                         start_fen=board_to_fen(self.start_board))


def render_clip(spec: ClipSpec) -> Iterator[tuple[np.ndarray, FrameTruth]]:
    """Yield (BGR uint8 frame, FrameTruth) for every frame of the clip, deterministically from spec."""
    rig = Rig(spec)
    for i in range(rig.n):
        yield rig.render(i)


def write_clip(spec: ClipSpec, out_dir) -> ClipTruth:
    """Render the clip to out_dir/clip.mp4 (MPEG-4 part 2, read by OpenCV) plus out_dir/truth.json."""
    from pathlib import Path

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rig = Rig(spec)
    path = out / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), float(spec.fps), (spec.width, spec.height))
    if not writer.isOpened():
        raise RuntimeError(f"cannot open a video writer for {path} (OpenCV without an MPEG-4 encoder?)")
    frames: list[FrameTruth] = []
    try:
        for i in range(rig.n):
            img, tr = rig.render(i, with_mask=False)
            writer.write(img)
            frames.append(tr)
    finally:
        writer.release()
    truth = rig.clip_truth(frames)
    truth.save(out / "truth.json")
    return truth


def render_still(seed: int, look: str | None = None, fen: str | None = None, width: int = 1280, height: int = 720,
                 camera: dict | None = None) -> tuple[np.ndarray, FrameTruth]:
    """One photo-like frame of a position (no hands): fen None = a random plausible position."""
    spec = ClipSpec(seed=seed, look=look, start_fen=fen, width=width, height=height, camera=camera, incidents=[])
    if fen is not None:
        board = fen_to_board(fen)
    else:
        board = _random_board(np.random.default_rng([int(seed) & 0xFFFFFFFF, 31337]))
    rig = Rig(spec, still_board=board)
    return rig.render(0)
