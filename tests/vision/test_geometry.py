"""Pure lattice geometry: line-based homography fitting, symmetries, orientation helpers."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import geometry as geo
from vision.observation import board_fen
from vision.reader import red_evidence_from_probs
from vision.observation import CLASSES


def _camera_h(tilt: float, yaw: float, roll: float, scale: float, tx: float, ty: float) -> np.ndarray:
    """A board->image homography from a pinhole camera looking at the board plane."""
    f = 1000.0
    K = np.array([[f, 0, 640], [0, f, 360], [0, 0, 1.0]])
    t, y, r = np.radians([tilt, yaw, roll])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    Rr = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    R = Rr @ Rx @ Rz
    C = np.array([[scale, 0, -4 * scale], [0, -scale, 4.5 * scale], [0, 0, 1.0]])  # board -> plane, centred
    T = np.array([tx, ty, 1000.0])
    H = K @ np.c_[R[:, 0], R[:, 1], T] @ C
    return H / H[2, 2]


@settings(max_examples=40, deadline=None)
@given(tilt=st.floats(0, 45), yaw=st.floats(0, 360), roll=st.floats(-10, 10), scale=st.floats(25, 45),
       tx=st.floats(-50, 50), ty=st.floats(-50, 50), seed=st.integers(0, 2**31 - 1))
def test_line_fit_recovers_homography(tilt, yaw, roll, scale, tx, ty, seed):
    h = _camera_h(tilt, yaw, roll, scale, tx, ty)
    rng = np.random.default_rng(seed)
    pts, nrm, ids = geo.lattice_segments(step=0.1, lo=0.3, hi=0.7)
    axis = np.where(ids < 9, 0, 1)
    value = np.where(ids < 9, ids, ids - 9).astype(float)
    img = geo.apply_h(h, pts) + rng.normal(0, 0.2, (len(pts), 2))
    # a fifth of the evidence is garbage (piece rims, characters)
    bad = rng.random(len(pts)) < 0.2
    img[bad] += rng.normal(0, 15, (bad.sum(), 2))
    h0 = h @ np.array([[1, 0.01, 0.1], [0.01, 1, -0.1], [0, 0, 1]])
    hf = geo.fit_h_from_line_points(img, axis, value, h0=h0, iters=6)
    err = np.abs(geo.apply_h(hf, geo.POINTS) - geo.apply_h(h, geo.POINTS)).max()
    assert err < 0.5


def test_symmetries_and_handedness():
    h = _camera_h(20, 0, 0, 40, 0, 0)
    assert geo.is_proper(h)  # red at the bottom, seen from above: not mirrored
    assert not geo.is_proper(h @ geo.board_symmetry("flip_x"))
    assert geo.is_proper(h @ geo.board_symmetry("rot180"))
    assert geo.red_side_of(h) == "bottom"
    assert geo.red_side_of(h @ geo.board_symmetry("rot180")) == "top"
    # rot180 re-indexes points i -> 89 - i
    p = geo.apply_h(h @ geo.board_symmetry("rot180"), geo.POINTS)
    q = geo.apply_h(h, geo.POINTS)[::-1]
    assert np.allclose(p, q)
    side = geo.red_side_of(_camera_h(10, 90, 0, 40, 0, 0))
    assert side in ("left", "right")


def test_corners_order():
    h = _camera_h(0, 0, 0, 40, 0, 0)
    a9, i9, i0, a0 = geo.corners_of(h)
    assert a9[1] < a0[1] and i9[1] < i0[1]      # rank 9 above rank 0 (red at the bottom)
    assert a0[0] < i0[0] and a9[0] < i9[0]      # file a left of file i


def test_board_fen():
    start = "RNBAKABNR" + "." * 9 + ".C.....C." + "P.P.P.P.P" + "." * 18 + "p.p.p.p.p" + ".c.....c." + "." * 9 + "rnbakabnr"
    assert board_fen(start) == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"


def test_red_evidence_from_general_positions():
    probs = np.zeros((90, len(CLASSES)), np.float32)
    probs[:, 0] = 1.0
    probs[4, 0], probs[4, CLASSES.index("K")] = 0.0, 1.0      # red general on e0
    probs[85, 0], probs[85, CLASSES.index("k")] = 0.0, 1.0    # black general on e9
    assert red_evidence_from_probs(probs) > 0
    assert red_evidence_from_probs(probs[::-1]) < 0


def test_points_moved_is_the_largest_move_of_a_point_along_either_image_axis_in_spacings():
    from vision.geometry import points_moved
    h = np.array([[50.0, 0.0, 100.0], [0.0, -50.0, 600.0], [0.0, 0.0, 1.0]])
    slid = np.array([[1.0, 0.0, 3.0], [0.0, 1.0, -4.0], [0.0, 0.0, 1.0]]) @ h
    assert points_moved(h, h) == 0.0
    assert abs(points_moved(h, slid) - 4 / 50) < 1e-9
    sheared = h.copy()
    sheared[0, 1] += 1.0    # the far end of the board moves most: 9 ranks up, 9 px
    assert abs(points_moved(h, sheared) - 9 / geo.point_spacing_px(sheared)) < 1e-9
