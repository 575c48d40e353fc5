"""Board finding on sim renders (exact truth) and refusal when there is no board."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import BoardNotFoundError
from vision import geometry as geo
from vision.locate import find_lattice, locate, orient

# (seed, look, tilt, azimuth): several looks, tilts up to 45 degrees, the camera all round the board
CASES = [
    (101, "wood", 40, 30),
    (103, "plastic", 45, 90),
    (104, "paper", 25, 270),
    (105, "cloth", 5, 135),
    (107, "mat", 38, 160),
]


@pytest.mark.parametrize("seed,look,tilt,azimuth", CASES)
def test_board_found_within_a_pixel(vsim, seed, look, tilt, azimuth):
    img, truth = vsim.still(seed, look=look, tilt=tilt, azimuth=azimuth)
    fit = find_lattice(np.ascontiguousarray(img))
    # with lens distortion no homography is exact: the truth's own fit residual is allowed on top
    assert vsim.lattice_error(fit.homography, truth.homography) < 1.0 + truth.camera["homography_fit_max_px"]
    assert fit.support > 0.5
    h = orient(fit.homography)
    assert geo.is_proper(h)  # never mirrored: only the red side is left open without the pieces


@pytest.mark.parametrize("seed,look,tilt,azimuth", CASES)
def test_the_quick_search_finds_the_same_lattice_and_says_when_it_was_not_sure(vsim, seed, look, tilt, azimuth):
    # the quick search (a live reader's first) stops after the first pass: the lattice the whole
    # search finds; where the first pass found no clear board (under the search's clear_board)
    # the reader doubts the lock (doubt_below, no lower) and checks it with the whole search
    from vision.config import DEFAULT_READER
    from vision.locate import DEFAULT_LOCATE, same_lattice
    img = np.ascontiguousarray(vsim.still(seed, look=look, tilt=tilt, azimuth=azimuth)[0])
    whole = find_lattice(img)
    quick = find_lattice(img, quick=True)
    assert same_lattice(quick.homography, whole.homography, 0.25)
    assert DEFAULT_READER.doubt.doubt_below >= DEFAULT_LOCATE.search.clear_board


def test_board_found_with_a_hand_over_it(vsim):
    frames = vsim.clip(11, plies=1)
    i = max(range(len(frames)), key=lambda k: int(frames[k][1].hidden.sum()))
    frame, truth = frames[i]
    assert truth.hidden.sum() >= 3
    pose = locate(np.ascontiguousarray(frame))
    assert vsim.lattice_error(pose.homography, truth.homography) < 1.0
    assert pose.red_side in ("bottom", "top", "left", "right")
    assert pose.corners.shape == (4, 2)


def _tiled_floor(width=1280, height=720, tile=60, tilt=25.0) -> np.ndarray:
    """A floor of square tiles seen in perspective: regular lines everywhere, but no river,
    and no end to the lines: not a board."""
    size = 1400
    floor = np.full((size, size, 3), 200, np.uint8)
    for k in range(0, size, tile):
        cv2.line(floor, (k, 0), (k, size), (70, 70, 70), 3)
        cv2.line(floor, (0, k), (size, k), (70, 70, 70), 3)
    src = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    d = 300 * np.sin(np.radians(tilt))
    dst = np.float32([[-200 + d, -150], [width + 200 - d, -150], [width + 300, height + 200], [-300, height + 200]])
    return cv2.warpPerspective(floor, cv2.getPerspectiveTransform(src, dst), (width, height))


def test_no_board_in_a_tiled_floor():
    with pytest.raises(BoardNotFoundError):
        find_lattice(_tiled_floor())


def test_no_board_in_noise_and_blank():
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8), (0, 0), 2)
    with pytest.raises(BoardNotFoundError):
        locate(noise)
    with pytest.raises(BoardNotFoundError):
        locate(np.full((480, 640, 3), 128, np.uint8))


def test_no_board_in_a_table_scene(vsim):
    """The sim's own table and clutter with the board cut away."""
    img, truth = vsim.still(105, look="cloth", tilt=5, azimuth=135)
    img = np.ascontiguousarray(img)
    mask = np.zeros(img.shape[:2], np.uint8)
    outline = geo.apply_h(truth.homography, np.array([[-1.2, -1.2], [9.2, -1.2], [9.2, 10.2], [-1.2, 10.2]]))
    cv2.fillConvexPoly(mask, outline.astype(np.int32), 255)
    scene = cv2.inpaint(cv2.resize(img, None, fx=0.5, fy=0.5), cv2.resize(mask, None, fx=0.5, fy=0.5), 5,
                        cv2.INPAINT_TELEA)
    with pytest.raises(BoardNotFoundError):
        locate(scene)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError):
        locate(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(BoardNotFoundError):
        locate(np.zeros((20, 20, 3), np.uint8))


def test_camera_intrinsics_undo_lens_distortion():
    """A strongly bent lens: no homography fits the raw frame to a pixel, but with the camera's
    intrinsics (what `xqtrack calibrate camera` makes) the undistorted frame fits the pinhole
    homography within a pixel."""
    import sim
    from calibration.camera import CameraIntrinsics
    img, truth = sim.render_still(1005, camera={"distortion": -0.12})
    cam = CameraIntrinsics(K=np.array(truth.camera["K"]), dist=np.array(truth.camera["dist"]),
                           width=img.shape[1], height=img.shape[0])
    fit = find_lattice(cam.undistort(img))
    h_pinhole = np.array(truth.camera["homography_pinhole"])
    err = min(float(np.abs(geo.apply_h(fit.homography @ geo.board_symmetry(k), geo.POINTS)
                           - geo.apply_h(h_pinhole, geo.POINTS)).max()) for k in ("id", "flip_x", "flip_y", "rot180"))
    assert err < 1.0


def _on_tiles(img: np.ndarray, h: np.ndarray, tile_spacings: float, line_px: float = 3.0) -> np.ndarray:
    """The frame with a pale tiled floor around the board: grout lines every `tile_spacings` point
    spacings, running with the board's own lines, beyond the board's edge."""
    out = img.copy()
    ys, xs = np.mgrid[:img.shape[0], :img.shape[1]].astype(np.float64)
    b = geo.apply_h(np.linalg.inv(h), np.stack([xs.ravel(), ys.ravel()], 1)).reshape(img.shape[0], img.shape[1], 2)
    fx, fy = b[..., 0], b[..., 1]
    floor = (fx < -0.9) | (fx > 8.9) | (fy < -0.9) | (fy > 9.9)
    sp = geo.point_spacing_px(h)
    grout = (np.abs(((fx - 0.3) / tile_spacings + 0.5) % 1 - 0.5) * tile_spacings * sp < line_px / 2) | \
        (np.abs(((fy - 0.5) / tile_spacings + 0.5) % 1 - 0.5) * tile_spacings * sp < line_px / 2)
    out[floor] = (200, 205, 205)
    out[floor & grout] = (130, 135, 135)
    return out


@pytest.mark.parametrize("tilt,blur", [(30, 1.1), (20, 0.0)])
def test_a_board_on_a_tiled_floor_whose_grout_runs_with_its_lines_is_found(tilt, blur, vsim):
    # held-back 9258 of stop 39 (moved to tuning): a plastic board on a floor of tiles laid parallel
    # to it; the tiles' long lines made the best combs, the board's ranks (broken by the discs) none,
    # and the lock held a lattice of tiles for 15 s: the first three plies were read late, their
    # knock and re-touch lost
    import sim
    img, truth = sim.render_still(4, look="plastic", width=960, height=540,
                                  camera={"tilt_deg": tilt, "azimuth_deg": 210.0, "fov_deg": 58.0, "blur": blur})
    floor = _on_tiles(np.ascontiguousarray(img), truth.homography, 2.4)
    fit = find_lattice(floor)
    assert vsim.lattice_error(fit.homography, truth.homography) < 1.0 + truth.camera["homography_fit_max_px"]


def test_a_steep_view_whose_files_fan_out_past_the_angle_band_is_found(vsim):
    # held-back 9270 of stop 40: a wooden board seen at 41 degrees, its files fanning from 73 to 92
    # degrees in the picture, two angle peaks each holding half of them; no family held all nine,
    # and the lock held a wrong lattice all game with no piece read on it
    import sim
    img, truth = sim.render_still(1, look="wood", width=960, height=540,
                                  camera={"tilt_deg": 41.0, "azimuth_deg": 180.0, "fov_deg": 52.5})
    fit = find_lattice(img)
    assert vsim.lattice_error(fit.homography, truth.homography) < 1.0 + truth.camera["homography_fit_max_px"]


def test_a_later_search_pass_fit_of_the_board_the_first_pass_found_does_not_replace_it():
    # tuning 9207: the wide band's fit had the files' spacing 6 % wrong (0.28 spacings off at the
    # edge) yet outscored the first pass's fit of the same board on the first frame; the lock
    # never came right. The later passes are for a board the first pass did not find at all.
    from vision.locate import LatticeCandidate, kept_over_first
    h = np.array([[40.0, 0.0, 100.0], [0.0, 40.0, 60.0], [0.0, 0.0, 1.0]])
    stretched = h @ np.array([[1.06, 0.0, -4 * 0.06], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    elsewhere = h @ np.array([[1.0, 0.0, 3.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]])
    first = LatticeCandidate(0.385, h, 1, 0.6)
    assert kept_over_first(first, first, LatticeCandidate(0.463, stretched, 1, 0.7)) is first
    other = LatticeCandidate(0.489, elsewhere, 1, 0.7)
    assert kept_over_first(first, first, other) is other
    assert kept_over_first(first, first, LatticeCandidate(0.3, elsewhere, 1, 0.5)) is first
    assert kept_over_first(first, first, None) is first
    assert kept_over_first(None, None, other) is other
    # a third pass is weighed against the best so far, and still never the first's refit
    assert kept_over_first(first, other, LatticeCandidate(0.47, elsewhere, 1, 0.7)) is other
    assert kept_over_first(first, other, LatticeCandidate(0.6, stretched, 1, 0.7)) is other


def test_a_steep_wooden_board_whose_disc_rims_out_comb_its_lines_is_found(vsim):
    # tuning 9280 (the bench clip's first frame): a wooden board seen at 38.5 degrees under a wide,
    # distorting lens; the rims and characters of the discs made dense clusters of lines that the
    # finest combs fit better than the board's ranks, and no lattice near the board was proposed.
    # Searched again with combs no finer than 30 spacings across the lines' span, it is found.
    import sim
    spec = sim.ClipSpec(seed=9280, look="wood", random_plies=8, width=960, height=540,
                        incidents=[{"kind": "touch_move_other", "ply": 3}, {"kind": "between_points", "ply": 7},
                                   {"kind": "arm_pass", "ply": 8}],
                        camera={"tilt_deg": 38.5, "azimuth_deg": 25.0, "fov_deg": 75.0, "distortion": -0.07,
                                "noise": 5.0, "bump": True})
    img, truth = next(iter(sim.render_clip(spec)))
    fit = find_lattice(img)
    err = vsim.lattice_error(fit.homography, truth.homography)
    assert err < 1.5, err
