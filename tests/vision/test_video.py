"""Video path on sim clips: the lock is kept, a bump is noticed and re-found, hands are seen."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import geometry as geo
from vision.reader import BoardReader


def _bumped(img: np.ndarray, dx: float, dy: float, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The frame after the camera was knocked: shifted and turned. Returns (frame, 3x3 image map)."""
    h, w = img.shape[:2]
    a = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    a[:, 2] += (dx, dy)
    out = cv2.warpAffine(img, a, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out, np.vstack([a, [0, 0, 1]])


def test_lock_kept_then_bump_relocks_with_same_orientation(vsim):
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    bumped, a = _bumped(np.ascontiguousarray(img), 28, -17, 4.0)
    h_true_after = a @ truth.homography
    reader = BoardReader(classify=False)
    poses = []
    for i in range(12):
        frame = np.ascontiguousarray(img) if i < 6 else bumped
        obs = reader.process(frame, i / 10, i)
        poses.append(obs.pose)
    assert all(p is not None for p in poses)
    h_before = poses[5].homography
    assert vsim.lattice_error(h_before, truth.homography) < 1.0
    for p in poses[6:]:
        assert vsim.lattice_error(p.homography, h_true_after) < 1.0
    assert reader.relocks == 1
    # red stays where it was: the new pose is the old one carried by the bump, not a symmetry of it
    assert vsim.max_point_error(poses[-1].homography, a @ h_before) < 1.5


def test_board_gone_gives_no_pose_then_comes_back(vsim):
    img, truth = vsim.still(8, look="mat", tilt=10, azimuth=300, width=960, height=540)
    img = np.ascontiguousarray(img)
    reader = BoardReader(classify=False)
    assert reader.process(img, 0.0, 0).pose is not None
    blank = np.full_like(img, 90)
    obs = reader.process(blank, 0.1, 1)
    assert obs.pose is None and not obs.quiet
    got = None
    for i in range(2, 8):  # re-finding is retried every few frames while lost
        got = reader.process(img, i / 10, i).pose
        if got is not None:
            break
    assert got is not None and vsim.lattice_error(got.homography, truth.homography) < 1.0


@pytest.mark.parametrize("seed,flicker", [(11, None), (22, 0.05)])
def test_hands_hidden_and_quiet(vsim, seed, flicker):
    """Both clips have a moving shadow crossing the board; the second a flickering lamp too."""
    frames = vsim.clip(seed, plies=1, flicker=flicker)
    reader = BoardReader(classify=False)
    hit = total = 0
    false_quiet = 0
    busy_before_hand = 0
    first_hand = next(i for i, (_, t) in enumerate(frames) if t.hidden.any())
    for i, (frame, truth) in enumerate(frames):
        obs = reader.process(frame, truth.t, i)
        assert obs.pose is not None
        assert vsim.lattice_error(obs.pose.homography, truth.homography) < 1.0
        occluded = obs.occluded
        if vsim.max_point_error(obs.pose.homography, truth.homography) > 1.0:
            # without the piece classifier red's side comes from ink colour and may be the other
            # end; the geometry is right, so compare points in the truth's numbering
            assert vsim.max_point_error(obs.pose.homography @ geo.board_symmetry("rot180"), truth.homography) < 1.0
            occluded = occluded[::-1]
        if truth.hidden.any():
            hit += int((occluded & truth.hidden).sum())
            total += int(truth.hidden.sum())
            false_quiet += int(obs.quiet)
        elif 5 <= i < first_hand:
            busy_before_hand += int(obs.occluded.sum())
    assert total > 0
    assert hit / total >= 0.9           # hidden points found (a superset, mostly)
    assert false_quiet == 0             # never quiet while a hand is over the board
    assert busy_before_hand <= 2        # nothing flagged on a still board
    assert obs.quiet and not obs.occluded.any()  # quiet again once the hand has gone
    assert reader.relocks == 0                   # a hand over the board is not a bump
