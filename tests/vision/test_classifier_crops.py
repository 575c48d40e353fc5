"""Geometry of vision.crops: crops are centred on their point, top-down, never mirrored."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from vision.crops import disc_to_point_crop, extract_point_crops


def make_homography(angle_deg: float, scale: float, tilt: float, origin=(200.0, 620.0)) -> np.ndarray:
    """Board plane -> image: rank axis points up the image (then rotated), plus a mild projective tilt."""
    a = np.deg2rad(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    A = R @ np.array([[scale, 0.0], [0.0, -scale]])
    H = np.eye(3)
    H[:2, :2] = A
    H[:2, 2] = origin
    P = np.array([[1, 0, 0], [0, 1, 0], [0, tilt, 1.0]])
    # centre the board (4, 4.5) so the tilt does not move it much
    C = np.array([[1, 0, -4.0], [0, 1, -4.5], [0, 0, 1]])
    Ci = np.linalg.inv(C)
    return H @ Ci @ P @ C


def project(H: np.ndarray, x: float, y: float) -> tuple[float, float]:
    q = H @ np.array([x, y, 1.0])
    return q[0] / q[2], q[1] / q[2]


def blob_centroid(crop: np.ndarray) -> tuple[float, float]:
    m = crop[..., 2].astype(float) > 128  # red channel marks
    ys, xs = np.nonzero(m)
    assert len(xs) > 0, "marker not in crop"
    return xs.mean() + 0.5, ys.mean() + 0.5


def draw_marker(img: np.ndarray, H: np.ndarray, x: float, y: float, r: float = 0.12) -> None:
    pts = np.array([project(H, x + r * np.cos(t), y + r * np.sin(t)) for t in np.linspace(0, 2 * np.pi, 48)])
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], (0, 0, 255), lineType=cv2.LINE_AA, shift=4)


def test_known_point_is_centred_and_oriented() -> None:
    H = make_homography(0.0, 60.0, 0.0)
    img = np.zeros((720, 1280, 3), np.uint8)
    idx = 4 * 9 + 6  # g4
    draw_marker(img, H, 6.0, 4.0)
    crops = extract_point_crops(img, H, size=48)
    assert crops.shape == (90, 48, 48, 3) and crops.dtype == np.uint8
    cx, cy = blob_centroid(crops[idx])
    assert abs(cx - 24) < 0.5 and abs(cy - 24) < 0.5
    # the marker shows only in its own point's crop
    assert sum(int((c[..., 2] > 128).any()) for c in crops) == 1

    # +file appears to the right, +rank appears up: a top-down, unmirrored view
    img2 = np.zeros_like(img)
    draw_marker(img2, H, 6.25, 4.0, 0.08)
    cx, cy = blob_centroid(extract_point_crops(img2, H, points=[idx])[0])
    assert cx > 24 + 10 and abs(cy - 24) < 1
    img3 = np.zeros_like(img)
    draw_marker(img3, H, 6.0, 4.25, 0.08)
    cx, cy = blob_centroid(extract_point_crops(img3, H, points=[idx])[0])
    assert cy < 24 - 10 and abs(cx - 24) < 1


@settings(max_examples=25, deadline=None)
@given(angle=st.floats(-180, 180), scale=st.floats(35, 70), tilt=st.floats(-0.04, 0.04),
       fx=st.integers(0, 8), ry=st.integers(0, 9), dx=st.floats(-0.2, 0.2), dy=st.floats(-0.2, 0.2))
def test_any_pose_centres_the_point_plus_offset(angle, scale, tilt, fx, ry, dx, dy) -> None:
    """Whatever the camera's rotation and tilt, the crop (with an offset) is centred on point + offset."""
    H = make_homography(angle, scale, tilt, origin=(640.0, 600.0))
    # place the board centre in the middle of a large canvas
    cx0, cy0 = project(H, 4.0, 4.5)
    H = np.array([[1, 0, 800 - cx0], [0, 1, 800 - cy0], [0, 0, 1.0]]) @ H
    img = np.zeros((1600, 1600, 3), np.uint8)
    draw_marker(img, H, fx + dx, ry + dy, 0.1)
    offsets = np.zeros((90, 2))
    idx = ry * 9 + fx
    offsets[idx] = (dx, dy)
    crop = extract_point_crops(img, H, offsets=offsets, size=48)[idx]
    cx, cy = blob_centroid(crop)
    assert abs(cx - 24) < 1.0 and abs(cy - 24) < 1.0


def test_subset_matches_full_and_antialias_keeps_centre() -> None:
    H = make_homography(30.0, 150.0, 0.0, origin=(900.0, 1900.0))  # big board: pyrDown path
    img = np.zeros((2600, 2600, 3), np.uint8)
    draw_marker(img, H, 2.0, 7.0, 0.15)
    full = extract_point_crops(img, H)
    sub = extract_point_crops(img, H, points=[7 * 9 + 2, 0])
    assert np.array_equal(full[7 * 9 + 2], sub[0]) and np.array_equal(full[0], sub[1])
    cx, cy = blob_centroid(sub[0])
    assert abs(cx - 24) < 0.75 and abs(cy - 24) < 0.75


def test_bad_inputs_raise_clear_errors() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(ValueError, match="3x3"):
        extract_point_crops(img, np.eye(2))
    with pytest.raises(ValueError, match="singular"):
        extract_point_crops(img, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="offsets"):
        extract_point_crops(img, np.eye(3), offsets=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="points"):
        extract_point_crops(img, np.eye(3), points=[90])
    with pytest.raises(ValueError, match="uint8"):
        extract_point_crops(img.astype(np.float32), np.eye(3))


def test_disc_to_point_crop_centres_disc() -> None:
    disc = np.zeros((36, 36, 3), np.uint8)
    cv2.circle(disc, (18, 18), 17, (0, 0, 255), -1)
    out = disc_to_point_crop(disc, size=48, fill=0.9, background=np.zeros((48, 48, 3), np.uint8))
    cx, cy = blob_centroid(out)
    assert abs(cx - 24) < 0.5 and abs(cy - 24) < 0.5
    out = disc_to_point_crop(disc, size=48, fill=0.5, offset=(0.2, 0.0), background=np.zeros((48, 48, 3), np.uint8))
    cx, cy = blob_centroid(out)
    assert abs(cx - (24 + 0.2 * 48)) < 0.75 and abs(cy - 24) < 0.5


def _camera_homographies(tilt_deg: float, az_deg: float, f: float, h: float, size=(1280, 720)):
    """A pinhole camera looking at the board centre from `tilt_deg` off vertical; H for z=0 and z=h."""
    w, hh = size
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (hh - 1) / 2], [0, 0, 1.0]])
    tilt, az = np.deg2rad(tilt_deg), np.deg2rad(az_deg)
    target = np.array([4.0, 4.5, 0.0])
    d = 14.0
    C = target + d * np.array([np.sin(tilt) * np.sin(az), -np.sin(tilt) * np.cos(az), np.cos(tilt)])
    fwd = (target - C) / np.linalg.norm(target - C)
    up_hint = np.array([np.sin(az), -np.cos(az), 0.0]) if tilt_deg > 1 else np.array([0, -1.0, 0])
    right = np.cross(fwd, -up_hint)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])  # world -> camera rows
    t = -R @ C
    H0 = K @ np.stack([R[:, 0], R[:, 1], t], 1)
    Hh = K @ np.stack([R[:, 0], R[:, 1], t + h * R[:, 2]], 1)
    return H0 / H0[2, 2], Hh / Hh[2, 2]


@pytest.mark.parametrize("tilt, az", [(0.5, 0.0), (20.0, 30.0), (45.0, 200.0), (35.0, 90.0)])
def test_lift_homography_matches_camera_geometry(tilt: float, az: float) -> None:
    from vision.crops import lift_homography
    f = 1000.0
    H0, Hh = _camera_homographies(tilt, az, f, 0.3)
    pts = np.array([[x, y, 1.0] for x in range(9) for y in range(10)]).T

    def proj(M):
        q = M @ pts
        return (q[:2] / q[2]).T

    shift = np.abs(proj(Hh) - proj(H0)).max()
    exact = lift_homography(H0, 0.3, (1280, 720), focal=f)
    assert np.abs(proj(exact) - proj(Hh)).max() < 1e-6 * max(shift, 1.0) + 1e-6
    est = lift_homography(H0, 0.3, (1280, 720))  # focal estimated from the homography
    assert np.abs(proj(est) - proj(Hh)).max() < 0.25 * shift + 0.5
