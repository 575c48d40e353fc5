"""Evidence for incidents: before / during / after JPEGs, a short clip and a full-resolution crop.

Incidents are decided when the board settles, seconds after the frames
that show them, so recent frames are kept (downscaled, every few frames, a
bounded ring) plus the settled frames (pinned: a "before" can be minutes
old when a player thought long). Each saved image marks the incident's
points through the board homography so an arbiter sees at once where to
look. A few seconds of the ring around the incident become a WebM clip
(VP8, which Chromium plays offline), and a sparser ring of full-resolution
frames (JPEG-compressed in memory, so it stays small) gives a crop of the
points concerned at the camera's own resolution. Every file's real frame
number goes into a small JSON beside them, so the review's captions name
the frame the image really shows, not the one that was asked for.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from board.turning import turned_homography


# What OpenCV's FFmpeg writer prints straight to the process's stderr (C fprintf, which neither
# OPENCV_LOG_LEVEL nor cv2.utils.logging.setLogLevel reaches) each time a WebM/VP8 writer opens:
# no fourcc gives VP8 in WebM without it (FFmpeg's WebM muxer lists no tag for VP8, so every
# spelling is "not supported" and falls back to the right codec). Harmless, and said for every clip.
_FFMPEG_TAG_NOTICE = re.compile(rb"^OpenCV: FFMPEG: (tag 0x[0-9a-fA-F]+/'.{4}' is not supported with codec id \d+ "
                                rb"and format 'webm / WebM'|fallback to use tag 0x[0-9a-fA-F]+/'.{4}')\s*$")
_STDERR_LOCK = threading.Lock()


@contextlib.contextmanager
def quiet_ffmpeg_tag_notice() -> Iterator[None]:
    """Hold the process's stderr (fd 2) in a file while a video writer opens, then pass on every
    line but the FFmpeg tag notice (_FFMPEG_TAG_NOTICE): nothing else is lost, a line another
    thread wrote meanwhile only comes a few milliseconds late."""
    with _STDERR_LOCK:
        try:
            saved = os.dup(2)
        except OSError:          # no stderr to hold (a daemon): nothing to quieten
            yield
            return
        with tempfile.TemporaryFile() as held:
            try:
                sys.stderr.flush()
                os.dup2(held.fileno(), 2)
                yield
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                held.seek(0)
                rest = b"".join(line for line in held.read().splitlines(keepends=True)
                                if not _FFMPEG_TAG_NOTICE.match(line))
                if rest:
                    os.write(2, rest)


@dataclass(frozen=True)
class ClipConfig:
    """The incident clip and crop."""

    before_s: float = 3.0          # clip starts this long before the incident's key frame
    after_s: float = 2.0           # and ends this long after it (as far as the ring reaches)
    min_frames: int = 3            # fewer ring frames than this: no clip
    full_every_s: float = 0.5      # a full-resolution frame kept this often (seconds of source)
    full_keep_s: float = 15.0      # for this long
    full_quality: int = 92         # JPEG quality of the kept full frames
    crop_margin: float = 1.4       # point spacings around the incident's points in the crop


class EvidenceStore:
    def __init__(self, out_dir: str | Path, width: int = 640, every: int = 3, keep_s: float = 15.0,
                 fps: float = 25.0, pins: int = 8, clip: ClipConfig | None = None) -> None:
        self.dir = Path(out_dir) / "evidence"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.width = width
        self.every = max(1, every)
        self.ring: deque[tuple[int, np.ndarray, np.ndarray | None, float]] = deque(
            maxlen=max(8, int(keep_s * fps / self.every)))
        self.pinned: OrderedDict[int, tuple[np.ndarray, np.ndarray | None, float]] = OrderedDict()
        self.max_pins = pins
        self._count = 0
        self.fps = fps if fps > 0 else 25.0
        self.clip = clip or ClipConfig()
        self.full_every = max(1, int(round(self.clip.full_every_s * self.fps)))
        self.full: deque[tuple[int, bytes, np.ndarray | None]] = deque(
            maxlen=max(4, int(self.clip.full_keep_s / self.clip.full_every_s)))

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
        if self._count % self.full_every == 0:
            self._keep_full(frame_index, image, homography)
        if not force and (self._count % self.every) != 0:
            return
        small, s = self._small(image)
        self.ring.append((frame_index, small, None if homography is None else np.asarray(homography), s))

    def _keep_full(self, frame_index: int, image: np.ndarray, homography: np.ndarray | None) -> None:
        import cv2
        ok, jpg = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), self.clip.full_quality])
        if ok:
            self.full.append((frame_index, jpg.tobytes(), None if homography is None else np.asarray(homography)))

    def pin(self, frame_index: int, image: np.ndarray, homography: np.ndarray | None) -> None:
        """Keep a settled frame beyond the ring (used as a later incident's "before")."""
        self._keep_full(frame_index, image, homography)
        small, s = self._small(image)
        self.pinned[frame_index] = (small, None if homography is None else np.asarray(homography), s)
        while len(self.pinned) > self.max_pins:
            self.pinned.popitem(last=False)

    def turn_lattice(self) -> None:
        """The board is read the other way round from now on (the tracker found red's end at the
        first move, board.turning): the poses kept with the frames so far are turned too, so that
        an incident's points are marked where they are on frames from before the turn."""
        def turned(h: np.ndarray | None) -> np.ndarray | None:
            return None if h is None else turned_homography(h)
        self.ring = deque(((f, img, turned(h), s) for f, img, h, s in self.ring), maxlen=self.ring.maxlen)
        self.full = deque(((f, jpg, turned(h)) for f, jpg, h in self.full), maxlen=self.full.maxlen)
        self.pinned = OrderedDict((f, (img, turned(h), s)) for f, (img, h, s) in self.pinned.items())

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
        """Write DIR/evidence/<stem>_<role>.jpg for each role, <stem>_clip.webm, <stem>_crop.jpg and
        <stem>.json (the frame each file really shows); returns role -> relative path ("info" the JSON)."""
        import cv2
        out: dict[str, str] = {}
        shown: dict[str, object] = {}
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
                shown[role] = idx
        key = next((int(frames[r]) for r in ("during", "after", "before")
                    if r in frames and frames[r] is not None and frames[r] >= 0), None)
        if key is not None:
            clip = self._write_clip(stem, key, points)
            if clip is not None:
                out["clip"], shown["clip"] = clip
            crop = self._write_crop(stem, key, points)
            if crop is not None:
                out["crop"], shown["crop"] = crop
        if shown:
            info = {"frames": shown, "fps": self.fps, "points": [int(p) for p in points]}
            (self.dir / f"{stem}.json").write_text(json.dumps(info), encoding="utf-8")
            out["info"] = f"evidence/{stem}.json"
        return out

    @staticmethod
    def _ring_marks(img: np.ndarray, hom: np.ndarray | None, s: float, points: list[int], thickness: int) -> None:
        import cv2
        if hom is None:
            return
        for p in points:
            v = hom @ np.array([p % 9, p // 9, 1.0])
            w = hom @ np.array([p % 9 + 0.5, p // 9, 1.0])
            if abs(v[2]) < 1e-9 or abs(w[2]) < 1e-9:
                continue
            u = v[:2] / v[2] * s
            r = max(6, int(np.linalg.norm(w[:2] / w[2] * s - u)))
            cv2.circle(img, (int(round(u[0])), int(round(u[1]))), r, (0, 0, 255), thickness, cv2.LINE_AA)

    def _write_clip(self, stem: str, key: int, points: list[int]) -> tuple[str, list[int]] | None:
        """A VP8 WebM of the ring frames from before_s before `key` to after_s after it, each
        frame captioned with its own frame number. Returns (path, [first, last frame])."""
        import cv2
        lo = key - self.clip.before_s * self.fps
        hi = key + self.clip.after_s * self.fps
        chosen = [(i, img, hom, s) for i, img, hom, s in self.ring if lo <= i <= hi]
        if len(chosen) < self.clip.min_frames:
            return None
        h, w = chosen[0][1].shape[:2]
        name = f"{stem}_clip.webm"
        path = self.dir / name
        rate = max(1.0, self.fps / self.every)
        with quiet_ffmpeg_tag_notice():
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"VP80"), rate, (w, h))
        if not writer.isOpened():
            return None
        try:
            for i, img, hom, s in chosen:
                frame = img.copy() if img.shape[:2] == (h, w) else cv2.resize(img, (w, h))
                self._ring_marks(frame, hom, s, points, 2)
                label = f"frame {i}"
                cv2.putText(frame, label, (8, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
                cv2.putText(frame, label, (8, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
                writer.write(frame)
        finally:
            writer.release()
        if not path.exists() or path.stat().st_size == 0:
            return None
        return f"evidence/{name}", [chosen[0][0], chosen[-1][0]]

    def _write_crop(self, stem: str, key: int, points: list[int]) -> tuple[str, int] | None:
        """The incident's points cut from the full-resolution frame nearest `key` (no resampling)."""
        import cv2
        if not points or not self.full:
            return None
        idx, jpg, hom = min(self.full, key=lambda f: abs(f[0] - key))
        if hom is None:
            return None
        img = cv2.imdecode(np.frombuffer(jpg, dtype=np.uint8), cv2.IMREAD_COLOR)
        if img is None:
            return None
        m = self.clip.crop_margin
        xs = [p % 9 for p in points]
        ys = [p // 9 for p in points]
        box = np.array([[min(xs) - m, min(ys) - m, 1.0], [max(xs) + m, min(ys) - m, 1.0],
                        [max(xs) + m, max(ys) + m, 1.0], [min(xs) - m, max(ys) + m, 1.0]]).T
        v = hom @ box
        if np.any(np.abs(v[2]) < 1e-9):
            return None
        px = v[:2] / v[2]
        h, w = img.shape[:2]
        x0, x1 = int(max(0, np.floor(px[0].min()))), int(min(w, np.ceil(px[0].max())))
        y0, y1 = int(max(0, np.floor(px[1].min()))), int(min(h, np.ceil(px[1].max())))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        crop = img[y0:y1, x0:x1].copy()
        shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
        self._ring_marks(crop, shift @ hom, 1.0, points, 1)
        name = f"{stem}_crop.jpg"
        if not cv2.imwrite(str(self.dir / name), crop, [int(cv2.IMWRITE_JPEG_QUALITY), 92]):
            return None
        return f"evidence/{name}", idx
