"""The set-up view's data: the latest camera frame and what vision made of it, written now and then.

Why files: the live server only reads the recording folder (it may run in another process,
or on another machine), so the recorder leaves DIR/setup.jpg and DIR/setup.json behind,
each replaced atomically about once a second. The hints (too dark, glare, board cut by the
frame edge) are pure functions of the frame's statistics and the pose, tested on their own.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from runtime.journal import atomic_write_bytes
from vision.observation import board_fen, board_from_fen

CLASSES = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")
SETUP_JPG = "setup.jpg"
SETUP_JSON = "setup.json"


@dataclass(frozen=True)
class SetupConfig:
    """How often the set-up frame is written and when a hint is given."""

    every_s: float = 1.0              # source seconds between writes
    max_width_px: int = 1280          # the saved frame is shrunk to at most this width
    jpeg_quality: int = 80
    dark_mean_luma: float = 60.0      # mean luma (0..255) over the board below which it is "too dark"
    glare_luma: int = 248             # a pixel this bright is blown out
    glare_fraction: float = 0.015     # share of blown-out board pixels that makes "glare"
    edge_margin_spacings: float = 0.7  # the lattice grown by this much must lie inside the frame


@dataclass(frozen=True)
class FrameStats:
    """Brightness figures of the board region (or the whole frame with no board found)."""

    mean_luma: float
    glare_fraction: float


def board_points_px(homography: np.ndarray) -> np.ndarray:
    """Image positions (90x2, index order) of the lattice points under `homography`."""
    f, r = np.meshgrid(np.arange(9, dtype=float), np.arange(10, dtype=float))
    pts = np.stack([f.ravel(), r.ravel(), np.ones(90)], axis=0)
    img = np.asarray(homography, dtype=float) @ pts
    return (img[:2] / img[2:3]).T


def board_cut_by_edge(homography: np.ndarray, width: int, height: int, margin_spacings: float) -> bool:
    """True when the board (its lattice grown by `margin_spacings` for the pieces on the edge
    lines) runs past the frame's edge."""
    m = margin_spacings
    corners = np.array([[-m, -m, 1.0], [8 + m, -m, 1.0], [8 + m, 9 + m, 1.0], [-m, 9 + m, 1.0]]).T
    img = np.asarray(homography, dtype=float) @ corners
    if np.any(np.abs(img[2]) < 1e-9):
        return True
    xy = img[:2] / img[2]
    return bool(np.any(xy[0] < 0) or np.any(xy[0] > width - 1) or np.any(xy[1] < 0) or np.any(xy[1] > height - 1))


def frame_stats(gray: np.ndarray, mask: np.ndarray | None, config: SetupConfig) -> FrameStats:
    """Mean luma and blown-out share over the board mask (the whole frame without one)."""
    values = gray[mask] if mask is not None and mask.any() else gray.ravel()
    if values.size == 0:
        return FrameStats(0.0, 0.0)
    return FrameStats(float(values.mean()), float((values >= config.glare_luma).mean()))


def setup_hints(stats: FrameStats, board_found: bool, cut: bool, config: SetupConfig) -> list[str]:
    """Plain hints for the organiser, as label keys (live/labels.py): no_board, too_dark, glare, cut."""
    hints = []
    if not board_found:
        hints.append("no_board")
    if stats.mean_luma < config.dark_mean_luma:
        hints.append("too_dark")
    if stats.glare_fraction > config.glare_fraction:
        hints.append("glare")
    if cut:
        hints.append("cut")
    return hints


def expected_board(fen: str | None) -> str:
    """90 characters in index order ('.' empty) for a FEN's board part; all '.' without one."""
    return board_from_fen(fen) if fen else "." * 90


def describe(image: np.ndarray, obs: Any, expected_fen: str | None, config: SetupConfig,
             scale: float) -> dict[str, Any]:
    """setup.json's content for one frame and its Observation (pose, readings, hints)."""
    import cv2

    h, w = image.shape[:2]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    pose = getattr(obs, "pose", None)
    mask = None
    points: list[dict[str, Any]] = []
    cut = False
    spacing = 0.0
    expected = expected_board(expected_fen)
    reads = "." * 90
    if pose is not None:
        hom = np.asarray(pose.homography, dtype=float)
        px = board_points_px(hom)
        corners = board_points_px(hom)[[0, 8, 89, 81]].astype(np.int32)
        mask = np.zeros(gray.shape, dtype=np.uint8)
        cv2.fillConvexPoly(mask, corners, 1)
        mask = mask.astype(bool)
        cut = board_cut_by_edge(hom, w, h, config.edge_margin_spacings)
        spacing = float(np.median(np.linalg.norm(np.diff(px.reshape(10, 9, 2), axis=1), axis=2))) * scale
        probs = np.asarray(getattr(obs, "probs"))
        best = np.argmax(probs, axis=1)
        reads = "".join(CLASSES[int(i)] for i in best)
        occluded = np.asarray(getattr(obs, "occluded", np.zeros(90, dtype=bool)), dtype=bool)
        for i in range(90):
            points.append({"name": "abcdefghi"[i % 9] + str(i // 9), "x": round(float(px[i, 0]) * scale, 1),
                           "y": round(float(px[i, 1]) * scale, 1), "read": reads[i],
                           "p": round(float(probs[i, best[i]]), 3), "occluded": bool(occluded[i]),
                           "expected": expected[i]})
    stats = frame_stats(gray, mask, config)
    differs = [p["name"] for p in points if p["read"] != p["expected"] and not p["occluded"]]
    return {
        "t": round(float(getattr(obs, "t", 0.0)), 3), "frame": int(getattr(obs, "frame_index", 0)),
        "wall": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "image": SETUP_JPG, "width": int(round(w * scale)), "height": int(round(h * scale)),
        "camera_width": w, "camera_height": h, "spacing_px": round(spacing, 1),
        "pose": None if pose is None else {
            "confidence": round(float(pose.confidence), 3), "red_side": str(pose.red_side),
            "corners": [[round(float(x) * scale, 1), round(float(y) * scale, 1)]
                        for x, y in np.asarray(pose.corners, dtype=float).reshape(-1, 2)]},
        "quiet": bool(getattr(obs, "quiet", False)),
        "points": points, "expected_fen": board_fen(expected) if expected_fen else None,
        "reads_fen": board_fen(reads) if pose is not None else None, "differs": differs,
        "mean_luma": round(stats.mean_luma, 1), "glare_fraction": round(stats.glare_fraction, 4),
        "hints": setup_hints(stats, pose is not None, cut, config),
    }


class SetupWriter:
    """The recorder's frame hook: every `every_s` of source time, DIR/setup.jpg + DIR/setup.json.

    `expected` gives the position the board should show now (the tracker's), for the
    "board reads vs expected" line. A failure here never stops a recording: it is counted
    and the next frame is tried.
    """

    def __init__(self, out_dir: str | os.PathLike[str], expected: Callable[[], str | None],
                 config: SetupConfig | None = None) -> None:
        self.dir = Path(out_dir)
        self.expected = expected
        self.config = config or SetupConfig()
        self._next_t: float | None = None
        self.written = 0
        self.errors = 0

    def __call__(self, frame: Any, obs: Any) -> None:
        t = float(getattr(frame, "t", 0.0))
        if self._next_t is not None and t < self._next_t:
            return
        self._next_t = t + self.config.every_s
        import cv2
        try:
            self.write(frame.image, obs)
        except (OSError, ValueError, cv2.error):  # the set-up view is a courtesy: never stop a recording
            self.errors += 1

    def write(self, image: np.ndarray, obs: Any) -> None:
        import cv2

        w = image.shape[1]
        scale = min(1.0, self.config.max_width_px / float(w))
        small = image if scale >= 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, jpg = cv2.imencode(".jpg", small, [int(cv2.IMWRITE_JPEG_QUALITY), self.config.jpeg_quality])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        info = describe(image, obs, self.expected(), self.config, scale)
        atomic_write_bytes(self.dir / SETUP_JPG, jpg.tobytes(), sync=False)
        atomic_write_bytes(self.dir / SETUP_JSON, json.dumps(info, ensure_ascii=False).encode("utf-8"),
                           sync=False)
        self.written += 1
