"""Frame sources: a video file, a camera index or a stream URL.

One small job: turn SOURCE from the command line into (frame, t, index)
triples with honest times and clear errors. Files give video time
(frame index / fps, or the container's timestamps); live sources give
seconds since capture started. A camera that stops delivering frames
mid-game raises SourceLost after a short grace, so the recorder can keep
what it has and say what happened.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np


class SourceError(RuntimeError):
    """The source cannot be opened or read (message says which and why)."""


class SourceLost(SourceError):
    """A live source stopped delivering frames mid-recording."""


@dataclass
class Frame:
    image: np.ndarray
    t: float
    index: int


class FrameSource:
    """Iterate frames from OpenCV's VideoCapture with times and clear failures."""

    def __init__(self, spec: str, lost_after_s: float = 3.0) -> None:
        import cv2

        self.spec = spec
        self.lost_after_s = lost_after_s
        self.live = False
        if spec.strip().isdigit():
            self.live = True
            self.kind = "camera"
            self._cap = cv2.VideoCapture(int(spec))
            if not self._cap.isOpened():
                raise SourceError(f"camera {spec}: cannot open it (not connected, busy, or no permission)")
        elif "://" in spec and not spec.startswith("file://"):
            self.live = True
            self.kind = "stream"
            self._cap = cv2.VideoCapture(spec)
            if not self._cap.isOpened():
                raise SourceError(f"{spec}: cannot open the stream (unreachable or unsupported)")
        else:
            path = spec[len("file://"):] if spec.startswith("file://") else spec
            self.kind = "file"
            if not os.path.exists(path):
                raise SourceError(f"{path}: no such video file")
            if os.path.isdir(path):
                raise SourceError(f"{path}: is a folder, not a video file")
            if os.path.getsize(path) == 0:
                raise SourceError(f"{path}: the file is empty")
            self._cap = cv2.VideoCapture(path)
            if not self._cap.isOpened():
                raise SourceError(f"{path}: not a video OpenCV can decode")
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 1.0 <= fps <= 240.0 else 25.0
        n = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count: int | None = n if (not self.live and n > 0) else None
        self._first: np.ndarray | None = None
        if not self.live:
            ok, img = self._cap.read()
            if not ok or img is None:
                self._cap.release()
                raise SourceError(f"{spec}: not a video OpenCV can decode (no frame could be read)")
            self._first = img
        self.width = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        self.height = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        self.ended_early = False
        self.t0_monotonic: float | None = None

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        t0 = time.monotonic()
        self.t0_monotonic = t0
        last_ok = t0
        if self._first is not None:
            yield Frame(self._first, 0.0, 0)
            self._first = None
            index = 1
        while True:
            ok, img = self._cap.read()
            if not ok or img is None:
                if not self.live:
                    if self.frame_count is not None and index < self.frame_count - 1:
                        self.ended_early = True
                    return
                if time.monotonic() - last_ok > self.lost_after_s:
                    raise SourceLost(f"{self.kind} {self.spec}: no frame for {self.lost_after_s:.0f} s "
                                     f"(disconnected?); recording stopped, data so far kept")
                time.sleep(0.02)
                continue
            if self.live:
                last_ok = time.monotonic()
                t = last_ok - t0
            else:
                t = index / self.fps
            yield Frame(img, t, index)
            index += 1

    def close(self) -> None:
        self._cap.release()
