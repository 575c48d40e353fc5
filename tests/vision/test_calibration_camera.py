"""Camera intrinsics from synthetic checkerboard photos with a known camera; the command line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraCalibrationError, CameraIntrinsics, calibrate

ROOT = Path(__file__).resolve().parents[2]
K_TRUE = np.array([[900.0, 0, 330.0], [0, 900.0, 235.0], [0, 0, 1]])


def _views(n: int = 6, size=(640, 480), sq: int = 40, pattern=(9, 6)) -> list[np.ndarray]:
    """Checkerboard photos rendered through a pinhole camera K_TRUE from several angles."""
    cols, rows = pattern[0] + 1, pattern[1] + 1
    board = np.full(((rows + 2) * sq, (cols + 2) * sq), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                board[(r + 1) * sq:(r + 2) * sq, (c + 1) * sq:(c + 2) * sq] = 0
    # board pixel -> plane units (one square = 1), origin at the first inner corner
    S = np.array([[1.0 / sq, 0, -2.0], [0, 1.0 / sq, -2.0], [0, 0, 1]])
    out = []
    rng = np.random.default_rng(1)
    for i in range(n):
        rx, ry = np.radians(rng.uniform(-30, 30, 2))
        rz = np.radians(rng.uniform(-20, 20))
        R = cv2.Rodrigues(np.array([rx, ry, rz]))[0]
        t = np.array([-4.0 + rng.uniform(-1, 1), -2.5 + rng.uniform(-1, 1), 22.0 + rng.uniform(-3, 3)])
        H = K_TRUE @ np.c_[R[:, 0], R[:, 1], t] @ S
        img = cv2.warpPerspective(board, H, size, flags=cv2.INTER_AREA, borderValue=180)
        out.append(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    return out


def test_calibration_recovers_the_camera(tmp_path):
    cam = calibrate(_views(8), pattern=(9, 6))
    assert cam.views >= 6 and cam.rms_px < 0.5  # a view may have the pattern partly out of frame
    assert abs(cam.K[0, 0] - 900) < 20 and abs(cam.K[1, 1] - 900) < 20
    assert abs(cam.K[0, 2] - 330) < 15 and abs(cam.K[1, 2] - 235) < 15
    p = cam.save(tmp_path / "cam.json")
    back = CameraIntrinsics.load(p)
    assert np.allclose(back.K, cam.K) and back.width == 640
    img = _views(1)[0]
    assert back.undistort(img).shape == img.shape


def test_too_few_views_names_the_failures():
    views = _views(2) + [np.full((480, 640, 3), 255, np.uint8)]
    with pytest.raises(CameraCalibrationError, match="blank.png"):
        calibrate(views, pattern=(9, 6), names=["a.png", "b.png", "blank.png"])


def test_bad_calibration_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "something else"}')
    with pytest.raises(CameraCalibrationError, match="not an xqtrack camera calibration"):
        CameraIntrinsics.load(p)


def test_calibrate_camera_command(tmp_path):
    paths = []
    for i, img in enumerate(_views(5)):
        paths.append(str(tmp_path / f"v{i}.png"))
        cv2.imwrite(paths[-1], img)
    out = tmp_path / "camera.json"
    r = subprocess.run([sys.executable, "-m", "app.cli", "calibrate", "camera", *paths, "--pattern", "9x6",
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert out.is_file() and "reprojection error" in r.stdout
    r = subprocess.run([sys.executable, "-m", "app.cli", "calibrate", "camera", paths[0], "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "need 4" in r.stderr
