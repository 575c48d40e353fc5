"""A local MJPEG-over-HTTP camera for tests: plays JPEG frames at a fixed rate, in real time.

It is what an IP camera or a phone camera app serves (multipart/x-mixed-replace), bound to
127.0.0.1 on a free port; OpenCV's FFmpeg backend reads it as a live stream.
"""
from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

BOUNDARY = b"xqtrackframe"


def clip_frames(path: str | Path, quality: int = 100) -> list[bytes]:
    """Every frame of a video file as JPEG bytes (encoded once, so serving keeps real time)."""
    cap = cv2.VideoCapture(str(path))
    frames: list[bytes] = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        frames.append(buf.tobytes())
    cap.release()
    if not frames:
        raise ValueError(f"{path}: no frames")
    return frames


def noise_frames(n: int, width: int = 640, height: int = 360, seed: int = 1) -> list[bytes]:
    """A camera showing only sensor noise (no board anywhere)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        img = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    return out


class MjpegServer:
    """Serve `frames` at `fps` to each client from the first frame, then end the stream."""

    def __init__(self, frames: Sequence[bytes], fps: float = 15.0) -> None:
        self.frames = frames
        self.fps = fps
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 — http.server's name
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=" + BOUNDARY.decode())
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                t0 = time.monotonic()
                try:
                    for i, jpg in enumerate(server.frames):
                        due = t0 + i / server.fps
                        wait = due - time.monotonic()
                        if wait > 0:
                            time.sleep(wait)
                        self.wfile.write(b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                         + str(len(jpg)).encode() + b"\r\n\r\n" + jpg + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/stream.mjpg"

    def __enter__(self) -> "MjpegServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
