"""Evidence images for incidents: before / during / after JPEGs.

Incidents are decided when the board settles, seconds after the frames
that show them, so recent frames are kept (downscaled, every few frames, a
bounded ring) plus the settled frames (pinned: a "before" can be minutes
old when a player thought long). Each saved image marks the incident's
points through the board homography so an arbiter sees at once where to
look.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from pathlib import Path

import numpy as np


class EvidenceStore:
    def __init__(self, out_dir: str | Path, width: int = 640, every: int = 3, keep_s: float = 15.0,
                 fps: float = 25.0, pins: int = 8) -> None:
        self.dir = Path(out_dir) / "evidence"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.width = width
        self.every = max(1, every)
        self.ring: deque[tuple[int, np.ndarray, np.ndarray | None, float]] = deque(
            maxlen=max(8, int(keep_s * fps / self.every)))
        self.pinned: OrderedDict[int, tuple[np.ndarray, np.ndarray | None, float]] = OrderedDict()
        self.max_pins = pins
        self._count = 0

    def _small(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        import cv2
        h, w = image.shape[:2]
        if w <= self.width:
            return image.copy(), 1.0
        s = self.width / float(w)
        return cv2.resize(image, (self.width, max(1, int(round(h * s)))), interpolation=cv2.INTER_AREA), s

    def add(self, frame_index: int, image: np.ndarray, homography: np.ndarray | None, force: bool = False) -> None:
        """Offer a frame; one in `every` is kept (and any frame with force=True)."""
        self._count += 1
        if not force and (self._count % self.every) != 0:
            return
        small, s = self._small(image)
        self.ring.append((frame_index, small, None if homography is None else np.asarray(homography), s))

    def pin(self, frame_index: int, image: np.ndarray, homography: np.ndarray | None) -> None:
        """Keep a settled frame beyond the ring (used as a later incident's "before")."""
        small, s = self._small(image)
        self.pinned[frame_index] = (small, None if homography is None else np.asarray(homography), s)
        while len(self.pinned) > self.max_pins:
            self.pinned.popitem(last=False)

    def _nearest(self, frame_index: int):
        best = None
        for idx, (img, hom, s) in self.pinned.items():
            if best is None or abs(idx - frame_index) < abs(best[0] - frame_index):
                best = (idx, img, hom, s)
        for idx, img, hom, s in self.ring:
            if best is None or abs(idx - frame_index) < abs(best[0] - frame_index):
                best = (idx, img, hom, s)
        return best

    def save(self, stem: str, frames: dict[str, int], points: list[int]) -> dict[str, str]:
        """Write DIR/evidence/<stem>_<role>.jpg for each role; returns role -> relative path."""
        import cv2
        out: dict[str, str] = {}
        for role in ("before", "during", "after"):
            if role not in frames or frames[role] is None or frames[role] < 0:
                continue
            hit = self._nearest(int(frames[role]))
            if hit is None:
                continue
            idx, img, hom, s = hit
            img = img.copy()
            if hom is not None:
                for p in points:
                    x, y = p % 9, p // 9
                    v = hom @ np.array([x, y, 1.0])
                    if abs(v[2]) < 1e-9:
                        continue
                    u = (v[:2] / v[2]) * s
                    v2 = hom @ np.array([x + 0.5, y, 1.0])
                    r = 12
                    if abs(v2[2]) > 1e-9:
                        r = max(6, int(np.linalg.norm(v2[:2] / v2[2] * s - u) * 1.0))
                    cv2.circle(img, (int(round(u[0])), int(round(u[1]))), r, (0, 0, 255), 2, cv2.LINE_AA)
            label = f"{role}  frame {idx}"
            cv2.putText(img, label, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, label, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
            name = f"{stem}_{role}.jpg"
            ok = cv2.imwrite(str(self.dir / name), img, [int(cv2.IMWRITE_JPEG_QUALITY), 85])
            if ok:
                out[role] = f"evidence/{name}"
        return out
