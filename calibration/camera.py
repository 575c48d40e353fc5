"""Camera intrinsics from photos of a printed checkerboard (optional: nothing requires it).

Why: the board finder fits a homography, which is exact only for a lens without distortion.
Phone and webcam lenses bend straight lines by a pixel or more at the image edges; with the
intrinsics known, frames can be undistorted first and the lattice fits exactly. The file is
small JSON the user makes once per camera (`xqtrack calibrate camera IMG... --out FILE`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

FORMAT = "xqtrack-camera-1"


class CameraCalibrationError(ValueError):
    """The calibration could not be made or the file is not a camera calibration."""


def intrinsics_problem(K: np.ndarray, dist: np.ndarray, width: int, height: int) -> str | None:
    """Why K and dist cannot describe a real camera (None when they can).

    A zero or NaN focal length would turn every undistorted frame black or into NaNs without any
    error from OpenCV; a principal point far outside the image means a file for another camera."""
    if not np.all(np.isfinite(K)) or not np.all(np.isfinite(dist)):
        return "K or dist holds NaN or infinite numbers"
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    if fx <= 0 or fy <= 0:
        return f"focal lengths fx={fx:g}, fy={fy:g} must be positive (pixels)"
    if K[1, 0] != 0 or K[2, 0] != 0 or K[2, 1] != 0 or K[2, 2] != 1:
        return "K is not a pinhole camera matrix (expected [[fx, s, cx], [0, fy, cy], [0, 0, 1]])"
    if not (-0.5 * width <= cx <= 1.5 * width and -0.5 * height <= cy <= 1.5 * height):
        return f"principal point ({cx:g}, {cy:g}) lies far outside the {width}x{height} image"
    return None


@dataclass
class CameraIntrinsics:
    """Pinhole matrix K (3x3), OpenCV distortion (k1 k2 p1 p2 k3), image size and fit quality."""

    K: np.ndarray
    dist: np.ndarray
    width: int
    height: int
    rms_px: float = float("nan")
    views: int = 0
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _maps: tuple | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        self.dist = np.asarray(self.dist, dtype=np.float64).ravel()
        if self.width <= 0 or self.height <= 0:
            raise CameraCalibrationError(f"camera calibration: bad image size {self.width}x{self.height}")
        problem = intrinsics_problem(self.K, self.dist, self.width, self.height)
        if problem:
            raise CameraCalibrationError(f"camera calibration: {problem}")

    def undistort(self, image: np.ndarray) -> np.ndarray:
        """The image as a distortion-free pinhole camera with the same K would see it."""
        h, w = image.shape[:2]
        if (w, h) != (self.width, self.height):
            raise CameraCalibrationError(f"camera calibration is for {self.width}x{self.height} images, "
                                         f"got a {w}x{h} frame")
        if self._maps is None:
            self._maps = cv2.initUndistortRectifyMap(self.K, self.dist, None, self.K, (w, h), cv2.CV_16SC2)
        return cv2.remap(image, self._maps[0], self._maps[1], cv2.INTER_LINEAR)

    def to_dict(self) -> dict:
        return {"format": FORMAT, "K": self.K.tolist(), "dist": self.dist.tolist(), "width": self.width,
                "height": self.height, "rms_px": self.rms_px, "views": self.views, "created": self.created}

    def save(self, path: str | os.PathLike) -> Path:
        """Write JSON atomically (a crash never leaves a half file)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(p.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1))
        os.replace(tmp, p)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike) -> "CameraIntrinsics":
        p = Path(path)
        try:
            d = json.loads(p.read_text())
        except FileNotFoundError:
            raise CameraCalibrationError(f"{p}: no such camera calibration file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CameraCalibrationError(f"{p}: not JSON ({exc})") from None
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise CameraCalibrationError(f"{p}: not an xqtrack camera calibration (format {FORMAT!r} expected)")
        try:
            K = np.asarray(d["K"], dtype=np.float64)
            dist = np.asarray(d["dist"], dtype=np.float64)
            if K.shape != (3, 3) or dist.ndim != 1 or len(dist) not in (4, 5, 8, 12, 14):
                raise ValueError("K must be 3x3 and dist 4..14 coefficients")
            problem = intrinsics_problem(K, dist, int(d["width"]), int(d["height"]))
            if problem:
                raise CameraCalibrationError(f"{p}: not a usable camera calibration: {problem}")
            return cls(K=K, dist=dist, width=int(d["width"]), height=int(d["height"]),
                       rms_px=float(d.get("rms_px", "nan")), views=int(d.get("views", 0)),
                       created=str(d.get("created", "")))
        except CameraCalibrationError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise CameraCalibrationError(f"{p}: bad camera calibration: {exc}") from None


def find_checkerboard(image: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Sub-pixel inner corners (N, 2) of a checkerboard with `pattern` inner corners, or None."""
    gray = np.ascontiguousarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                                dtype=np.uint8)
    ok, corners = cv2.findChessboardCorners(gray, pattern,
                                             flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not ok:
        return None
    corners = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1),
                               (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01))
    return corners.reshape(-1, 2)


def calibrate(images: Sequence[np.ndarray | None], pattern: tuple[int, int] = (9, 6), square: float = 1.0,
              names: Sequence[str] | None = None, min_views: int = 4) -> CameraIntrinsics:
    """Intrinsics from several views of a flat checkerboard (all the same image size); an image
    that could not be read (None, as cv2.imread gives) is named among the failures.

    `pattern` counts inner corners (columns, rows). Raises CameraCalibrationError naming the
    images where the pattern was not found when fewer than `min_views` remain.
    """
    if pattern[0] < 2 or pattern[1] < 2:
        raise CameraCalibrationError(f"pattern {pattern}: needs at least 2x2 inner corners")
    names = list(names) if names is not None else [f"image {i + 1}" for i in range(len(images))]
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * square
    objpts, imgpts, missed = [], [], []
    size: tuple[int, int] | None = None
    for img, name in zip(images, names):
        if img is None:
            missed.append(f"{name} (unreadable)")
            continue
        hw = img.shape[1], img.shape[0]
        if size is None:
            size = hw
        elif hw != size:
            raise CameraCalibrationError(f"{name}: size {hw[0]}x{hw[1]} differs from the first image "
                                         f"{size[0]}x{size[1]}; use photos from one camera mode")
        c = find_checkerboard(img, pattern)
        if c is None:
            missed.append(name)
            continue
        objpts.append(obj)
        imgpts.append(c.astype(np.float32).reshape(-1, 1, 2))
    if size is None or len(objpts) < min_views:
        raise CameraCalibrationError(
            f"checkerboard ({pattern[0]}x{pattern[1]} inner corners) found in only {len(objpts)} of "
            f"{len(names)} images, need {min_views}; not found in: {', '.join(missed) or '-'}")
    rms, K, dist, _, _ = cv2.calibrateCamera(objpts, imgpts, size, None, None)
    return CameraIntrinsics(K=K, dist=dist.ravel(), width=size[0], height=size[1], rms_px=float(rms),
                            views=len(objpts))


__all__ = ["CameraIntrinsics", "CameraCalibrationError", "calibrate", "find_checkerboard"]
