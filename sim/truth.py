"""Clip specification and ground-truth records of the synthetic camera rig.

Why a separate module: vision, board and training code read truth files without needing the
renderer (OpenCV drawing, fonts), so the records and their JSON form live here on their own.

Conventions (docs/conventions.md): board plane x = file 0..8, y = rank 0..9, a0 = (0, 0), point
spacing 1; arrays indexed by point index = rank * 9 + file; corners are the image points of
a9, i9, i0, a0. With lens distortion, `corners` and `points` are exact distorted image positions;
`homography` is the least-squares planar fit to the 90 distorted lattice points (exact when
distortion is zero) and `camera["homography_pinhole"]` is the exact undistorted one; use
`camera["K"]`, `camera["dist"]` (OpenCV model) with cv2.projectPoints / undistortPoints for exact
mapping. `rotations` are degrees counter-clockwise seen from above, 0 = character upright for a
reader at red's side (top of the glyph toward rank 9).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rules.squares import placement_from_points

FILES = "abcdefghi"


def point_name(index: int) -> str:
    """ICCS name of a point index (rank * 9 + file)."""
    if not 0 <= index < 90:
        raise ValueError(f"point index {index} out of range 0..89")
    return f"{FILES[index % 9]}{index // 9}"


def point_index(name: str) -> int:
    """Point index of an ICCS name like 'h2'."""
    if len(name) != 2 or name[0] not in FILES or not name[1].isdigit():
        raise ValueError(f"bad point name {name!r}: expected a file a-i and a rank 0-9, e.g. 'h2'")
    return int(name[1]) * 9 + FILES.index(name[0])


def board_to_fen(board: str) -> str:
    """Placement part of a FEN (rank 9 first) for a 90-character point-order board string."""
    return placement_from_points(board)


def fen_to_board(fen: str) -> str:
    """90-character point-order board string from a FEN (placement part or a full FEN)."""
    placement = fen.strip().split()[0] if fen.strip() else ""
    rows = placement.split("/")
    if len(rows) != 10:
        raise ValueError(f"FEN {fen!r}: placement needs 10 ranks separated by '/', found {len(rows)}")
    cells = ["."] * 90
    for i, row in enumerate(rows):
        rank = 9 - i
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            elif c.upper() in "KABNRCPHE":
                if f > 8:
                    raise ValueError(f"FEN {fen!r}: rank {rank} has more than 9 files")
                cells[rank * 9 + f] = {"H": "N", "E": "B", "h": "n", "e": "b"}.get(c, c)
                f += 1
            else:
                raise ValueError(f"FEN {fen!r}: unknown piece letter {c!r} in rank {rank}")
        if f != 9:
            raise ValueError(f"FEN {fen!r}: rank {rank} has {f} files, expected 9")
    return "".join(cells)


@dataclass
class ClipSpec:
    """What to film: seed, look, game (moves or random play), planted incidents, frame format.

    incidents: list of {"kind": one of INCIDENT_KINDS, "ply": 1-based ply of the move it belongs
    to, optional extra keys}; kinds the renderer plants: touch_move_other, retouch,
    between_points, knocked, plus the non-incident "arm_pass".
    camera: overrides of the drawn camera and photo effects: tilt_deg (0 = straight down),
    azimuth_deg (0 = camera on red's side), roll_deg, fov_deg (horizontal), fill (board outline
    span / frame), target ([x, y] aim point), distortion (k1) or dist (5 OpenCV coefficients),
    bump (bool), blur (sigma px), motion_blur (bool), noise (sigma), jpeg_quality (0 = none),
    glare (bool), flicker (False or amplitude), shadows (bool, moving shadow), white_balance
    ([b, g, r] gains), vignette, exposure, clean (True = no blur/noise/jpeg/glare/flicker/
    shadows/distortion/tone curve; used by the pixel-exact tests).
    """

    seed: int = 0
    look: str | None = None
    start_fen: str | None = None
    moves: list[str] | None = None
    random_plies: int = 0
    incidents: list[dict] | None = None
    width: int = 1280
    height: int = 720
    fps: float = 25.0
    camera: dict | None = None
    hands: str = "rig"
    """sim.hands.HAND_KINDS: "rig", or "wide" for hands the tracker was never tuned on."""
    resting: bool = False
    """The players' free hands rest on the table at their own edges of the board for stretches of
    the clip (sliding in and out, trembling a little), beside the hand that plays: hands in view
    that take no part in the game (sim.hands.resting_schedule)."""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FrameTruth:
    """Everything true about one rendered frame (see module docstring for conventions)."""

    frame_index: int
    t: float
    board: str
    fen: str
    offsets: np.ndarray
    rotations: np.ndarray
    hidden: np.ndarray
    hand_mask: np.ndarray | None
    quiet: bool
    corners: np.ndarray
    homography: np.ndarray
    camera: dict
    ply: int
    red_side: str
    points: np.ndarray = field(default_factory=lambda: np.zeros((90, 2)))
    """(90, 2) exact image position of every lattice point (distortion included)."""
    loose: list = field(default_factory=list)
    """Pieces not on a point: [{"piece", "x", "y", "where": "hand"|"aside"}] in board-plane units."""
    hand_over_board: bool = False
    look: str = ""
    """The clip's look (board/piece style family), for bookkeeping in training sets."""

    def to_json(self) -> dict:
        return {
            "frame_index": self.frame_index, "t": round(self.t, 4), "board": self.board, "fen": self.fen,
            "offsets": np.round(self.offsets, 4).tolist(), "rotations": np.round(self.rotations, 2).tolist(),
            "hidden": [int(i) for i in np.flatnonzero(self.hidden)], "quiet": self.quiet,
            "corners": np.round(self.corners, 3).tolist(), "homography": np.asarray(self.homography).tolist(),
            "camera": self.camera, "ply": self.ply, "red_side": self.red_side,
            "points": np.round(self.points, 3).tolist(), "loose": self.loose,
            "hand_over_board": self.hand_over_board, "look": self.look,
        }


def _frame_from_parts(rec: dict, state: dict, pose: dict, look: str = "") -> FrameTruth:
    hidden = np.zeros(90, dtype=bool)
    hidden[rec["hidden"]] = True
    return FrameTruth(
        frame_index=rec["frame_index"], t=rec["t"], board=state["board"], fen=board_to_fen(state["board"]),
        offsets=np.asarray(state["offsets"], dtype=np.float64).reshape(90, 2),
        rotations=np.asarray(state["rotations"], dtype=np.float64),
        hidden=hidden, hand_mask=None, quiet=rec["quiet"],
        corners=np.asarray(pose["corners"], dtype=np.float64), homography=np.asarray(pose["homography"]),
        camera=pose["camera"], ply=rec["ply"], red_side=pose["red_side"],
        points=np.asarray(pose["points"], dtype=np.float64), loose=rec.get("loose", []),
        hand_over_board=rec.get("hand_over_board", not rec["quiet"]), look=look,
    )


@dataclass
class ClipTruth:
    """Truth of a whole clip: spec, move timing, incidents, events, and every frame's truth.

    moves: [{"ply" (1-based), "iccs", "frame_settled", "t_settled", "frame_hand_leaves"}].
    incidents: [{"kind", "ply", "side" ("w"/"b"), "points" (ICCS names), "frames": [start, end]}].
    events: non-incident happenings the tracker must ride through: {"kind": "bump"|"arm_pass", "frames"}.
    """

    spec: dict
    fps: float
    frame_count: int
    moves: list
    incidents: list
    frames: list
    look: str
    seed: int
    events: list = field(default_factory=list)
    start_fen: str = ""

    def to_json(self) -> dict:
        """Compact JSON: distinct board states and camera poses are stored once, frames index them."""
        states: list[dict] = []
        state_ids: dict[tuple, int] = {}
        poses: list[dict] = []
        pose_ids: dict[str, int] = {}
        frames = []
        for fr in self.frames:
            skey = (fr.board, np.round(fr.offsets, 4).tobytes(), np.round(fr.rotations, 2).tobytes())
            if skey not in state_ids:
                state_ids[skey] = len(states)
                states.append({"board": fr.board, "offsets": np.round(fr.offsets, 4).tolist(),
                               "rotations": np.round(fr.rotations, 2).tolist()})
            pose = {"corners": np.round(fr.corners, 3).tolist(), "homography": np.asarray(fr.homography).tolist(),
                    "camera": fr.camera, "red_side": fr.red_side, "points": np.round(fr.points, 3).tolist()}
            pkey = json.dumps(pose, sort_keys=True)
            if pkey not in pose_ids:
                pose_ids[pkey] = len(poses)
                poses.append(pose)
            frames.append({"frame_index": fr.frame_index, "t": round(fr.t, 4), "state": state_ids[skey],
                           "pose": pose_ids[pkey], "hidden": [int(i) for i in np.flatnonzero(fr.hidden)],
                           "quiet": fr.quiet, "ply": fr.ply, "loose": fr.loose,
                           "hand_over_board": fr.hand_over_board})
        return {"format": "xqtrack-sim-truth/1", "spec": self.spec, "fps": self.fps,
                "frame_count": self.frame_count, "look": self.look, "seed": self.seed,
                "start_fen": self.start_fen, "moves": self.moves, "incidents": self.incidents,
                "events": self.events, "states": states, "poses": poses, "frames": frames}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), separators=(",", ":")), encoding="utf-8")

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "truth") -> "ClipTruth":
        if data.get("format") != "xqtrack-sim-truth/1":
            raise ValueError(f"{where}: not an xqtrack sim truth file (format={data.get('format')!r})")
        try:
            frames = [_frame_from_parts(rec, data["states"][rec["state"]], data["poses"][rec["pose"]], data.get("look", ""))
                      for rec in data["frames"]]
            return cls(spec=data["spec"], fps=data["fps"], frame_count=data["frame_count"], moves=data["moves"],
                       incidents=data["incidents"], frames=frames, look=data["look"], seed=data["seed"],
                       events=data.get("events", []), start_fen=data.get("start_fen", ""))
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"{where}: malformed truth file ({exc.__class__.__name__}: {exc})") from exc

    @classmethod
    def load(cls, path: str | Path) -> "ClipTruth":
        """Read a truth.json written by write_clip (ValueError naming the file when malformed)."""
        p = Path(path)
        if p.is_dir():
            p = p / "truth.json"
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}: not valid JSON ({exc})") from exc
        return cls.from_json(data, str(p))
