"""Frame sources: a video file, a camera index or a stream URL.

One small job: turn SOURCE from the command line into frames with honest times and clear errors.

- A file gives video time (frame index / fps) and, unpaced, every frame in order as fast as the
  recorder takes them; `start_s` seeks into it (a resumed recording continues where it stopped).
- A live source (camera, stream) and a file paced with `realtime=True` are read by a capture thread
  that never waits on processing: each frame gets its time when it is grabbed (live: seconds since
  capture started; paced file: its video time, released at that time / `speed`). When processing
  falls behind, the waiting frames are thinned evenly (`runtime.backlog`) and the drops counted
  (`dropped`), so time never stretches, a stall costs frames spread over it rather than a whole
  second, and the recorder can say how many frames it did not see.
- A live source that stops delivering frames mid-game raises SourceLost after `lost_after_s`, so the
  recorder can keep what it has and say what happened.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from runtime.backlog import EvenBacklog


class SourceError(RuntimeError):
    """The source cannot be opened or read (message says which and why)."""


class SourceLost(SourceError):
    """A live source stopped delivering frames mid-recording."""


@dataclass
class Frame:
    image: np.ndarray
    t: float
    index: int


@dataclass(frozen=True)
class SourcePacing:
    """How frames reach the recorder.

    `realtime`: release a file's frames at their timestamps (a file behaves like a camera);
    `speed`: × real time for a paced file; `queue_s`: seconds of frames (at the source's rate)
    that may wait for processing; beyond that the waiting frames are thinned evenly. One second
    absorbs the recorder's short stalls (an incident's evidence clip being encoded, a full re-read
    after a settle) without a drop. `max_lag_s`: the most a waiting frame may lag the newest one;
    a longer stall keeps frames spread over its last `max_lag_s` seconds, and a recorder slower
    than the source for good follows it this far behind (moves come later, not lost). Four
    seconds cover a move from hand in to hand out."""

    realtime: bool = False
    speed: float = 1.0
    queue_s: float = 1.0
    max_lag_s: float = 4.0

    def __post_init__(self) -> None:
        if not 0.05 <= self.speed <= 100.0:
            raise SourceError(f"--speed {self.speed}: must be between 0.05 and 100 (× real time)")
        if not 0.0 < self.queue_s <= 10.0:
            raise SourceError(f"queue_s {self.queue_s}: must be between 0 and 10 seconds")
        if not 0.0 < self.max_lag_s <= 60.0:
            raise SourceError(f"max_lag_s {self.max_lag_s}: must be between 0 and 60 seconds")


_END = object()   # the capture thread's last item: the source ended


class FrameSource:
    """Iterate frames from OpenCV's VideoCapture with times and clear failures."""

    def __init__(self, spec: str, lost_after_s: float = 3.0, *, pacing: SourcePacing | None = None,
                 start_s: float = 0.0) -> None:
        import cv2

        self.spec = spec
        self.lost_after_s = lost_after_s
        self.pacing = pacing or SourcePacing()
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
        self.first_index = 0
        if start_s > 0 and not self.live:
            self.first_index = self._seek(start_s)
        self._first: np.ndarray | None = None
        if not self.live:
            ok, img = self._cap.read()
            if not ok or img is None:
                self._cap.release()
                where = f" at {start_s:.2f} s" if start_s > 0 else ""
                raise SourceError(f"{spec}: not a video OpenCV can decode (no frame could be read{where})")
            self._first = img
        self.width = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
        self.height = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
        self.ended_early = False
        self.t0_monotonic: float | None = None
        self.grabbed = 0          # frames read from the source
        self.dropped = 0          # frames a paced/live source dropped because processing fell behind
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def paced(self) -> bool:
        """Frames come from a capture thread on the source's own clock (live, or --realtime)."""
        return self.live or self.pacing.realtime

    def _seek(self, start_s: float) -> int:
        """Position a file at `start_s` (by frame number: exact for the fps-based times we give)."""
        import cv2
        index = int(round(start_s * self.fps))
        if self.frame_count is not None and index >= self.frame_count:
            raise SourceError(f"{self.spec}: cannot continue at {start_s:.2f} s: the video is only "
                              f"{self.frame_count / self.fps:.2f} s long")
        if not self._cap.set(cv2.CAP_PROP_POS_FRAMES, index):
            raise SourceError(f"{self.spec}: cannot seek to {start_s:.2f} s in this video")
        return index

    # ------------------------------------------------------------------ unpaced file
    def _file_frames(self) -> Iterator[Frame]:
        index = self.first_index
        self.t0_monotonic = time.monotonic()
        if self._first is not None:
            self.grabbed += 1
            yield Frame(self._first, index / self.fps, index)
            self._first = None
            index += 1
        while True:
            ok, img = self._cap.read()
            if not ok or img is None:
                if self.frame_count is not None and index < self.frame_count - 1:
                    self.ended_early = True
                return
            self.grabbed += 1
            yield Frame(img, index / self.fps, index)
            index += 1

    # ------------------------------------------------------------------ paced: capture thread
    def _capture(self, q: EvenBacklog, t0: float) -> None:
        index = self.first_index
        try:
            if self._first is not None:
                first_t = index / self.fps
                self.grabbed += 1
                self._put(q, Frame(self._first, first_t, index))
                self._first = None
                index += 1
            start_t = self.first_index / self.fps
            while not self._stop.is_set():
                ok, img = self._cap.read()
                if not ok or img is None:
                    if not self.live:
                        if self.frame_count is not None and index < self.frame_count - 1:
                            self.ended_early = True
                        q.put_control(_END)
                        return
                    time.sleep(0.01)     # a live source between frames; the reader judges "lost"
                    continue
                if self.live:
                    t = time.monotonic() - t0
                else:
                    t = index / self.fps
                    due = t0 + (t - start_t) / self.pacing.speed
                    wait = due - time.monotonic()
                    if wait > 0 and self._stop.wait(wait):
                        return
                self.grabbed += 1
                self._put(q, Frame(img, t, index))
                index += 1
        except Exception as exc:  # noqa: BLE001 — handed to the reading side, which raises it there
            q.put_control(exc)

    def _put(self, q: EvenBacklog, frame: Frame) -> None:
        self.dropped += q.put(frame)

    def _paced_frames(self) -> Iterator[Frame]:
        q = EvenBacklog(max(2, int(round(self.fps * self.pacing.queue_s))), self.pacing.max_lag_s)
        t0 = time.monotonic()
        self.t0_monotonic = t0
        self._thread = threading.Thread(target=self._capture, args=(q, t0), name="xqtrack-capture", daemon=True)
        self._thread.start()
        last_ok = time.monotonic()
        try:
            while True:
                try:
                    item = q.get(timeout=0.1)
                except queue.Empty:
                    if self.live and time.monotonic() - last_ok > self.lost_after_s:
                        raise SourceLost(f"{self.kind} {self.spec}: no frame for {self.lost_after_s:.0f} s "
                                         f"(disconnected?); recording stopped, data so far kept") from None
                    continue
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise SourceError(f"{self.kind} {self.spec}: reading failed: {item}") from item
                last_ok = time.monotonic()
                yield item
        finally:
            self._stop.set()

    def __iter__(self) -> Iterator[Frame]:
        return self._paced_frames() if self.paced else self._file_frames()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._cap.release()
