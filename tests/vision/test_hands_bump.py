"""After the camera is knocked, a still board is quiet again (vision.hands, issue 10 item 8).

A board has thickness: once the camera has moved, its sides just beyond the lattice look
different from the new viewpoint, all along an edge. That strip of changed ring cells is no
arm, and must not keep a piece moved beside it from settling for ever (a resting arm never
settles). On the bundled sample clip (sim/samples/demo, one planted bump), whenever the truth
has been quiet for half a second, the reader calls the board quiet, after the bump as before it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


SETTLED_S = 0.5      # the truth has been quiet this long: the hand is well gone


@dataclass
class QuietShare:
    """Frames the truth has been quiet for SETTLED_S, and how many of them the reader called quiet."""

    settled: int = 0
    called: int = 0

    @property
    def share(self) -> float:
        return self.called / max(1, self.settled)


def test_the_board_goes_quiet_again_after_the_camera_is_knocked(demo_clip_read) -> None:
    truth = demo_clip_read.truth
    bump_end = max(b for e in truth.events if e.get("kind") == "bump" for b in [e["frames"][1]])
    before, after = QuietShare(), QuietShare()
    quiet_since: float | None = None
    i = 0
    for obs in demo_clip_read.observations:
        ft = truth.frames[i]
        quiet_since = (quiet_since if quiet_since is not None else ft.t) if ft.quiet else None
        if quiet_since is not None and ft.t - quiet_since >= SETTLED_S:
            part = after if i > bump_end else before
            part.settled += 1
            part.called += int(obs.quiet and not np.asarray(obs.occluded).any())
        i += 1
    assert before.settled > 100 and after.settled > 100
    assert before.share >= 0.95
    # the first second after the bump the ring is still being relearnt (0.90 before this work too)
    assert after.share >= 0.85, f"quiet on {after.called} of {after.settled} settled frames after the bump"


def test_a_rank_of_pieces_along_the_edge_is_no_arm_once_the_knocked_camera_is_still(tmp_path) -> None:
    """Pieces stand up off the board: seen from where a knock left the camera, every disc looks a
    little different, and a full back rank along the edge joins the ring like an arm that never
    leaves (held-back 8857, moved to tuning: steep camera, the back rank 'a hand' for the rest of
    the game, never quiet again, five moves lost). Once the camera has come to rest the board is
    learnt afresh, so a still board is quiet again."""
    import cv2

    import sim
    from vision.reader import BoardReader
    camera = {"tilt_deg": 42.0, "azimuth_deg": 170.0, "fov_deg": 63.5, "distortion": -0.07, "noise": 2.8,
              "shadows": True, "bump": True}
    spec = sim.ClipSpec(seed=8857, look="cloth", random_plies=4, width=960, height=540, fps=12.5, camera=camera)
    truth = sim.write_clip(spec, tmp_path)
    bump_end = max(e["frames"][1] for e in truth.events if e.get("kind") == "bump")
    reader = BoardReader(classify=False)
    after = QuietShare()
    quiet_since: float | None = None
    cap = cv2.VideoCapture(str(tmp_path / "clip.mp4"))
    for i, ft in enumerate(truth.frames):
        ok, frame = cap.read()
        assert ok, f"frame {i} of the rendered clip could not be decoded"
        obs = reader.process(frame, ft.t, i)
        quiet_since = (quiet_since if quiet_since is not None else ft.t) if ft.quiet else None
        if i > bump_end and quiet_since is not None and ft.t - quiet_since >= SETTLED_S:
            after.settled += 1
            after.called += int(obs.quiet and not np.asarray(obs.occluded).any())
    cap.release()
    assert after.settled > 20
    assert after.share >= 0.85, f"quiet on {after.called} of {after.settled} settled frames after the bump"


def _scene(shift_px: float = 0.0):
    """A drawn board seen straight down (40 px per spacing), its lock moved `shift_px` to the
    right, and a way to draw the frame with or without a sleeve reaching over the points."""
    import cv2

    from vision import hands as vh
    spacing = 40.0
    h = np.array([[spacing, 0, 80.0 + shift_px], [0, -spacing, 440.0], [0, 0, 1.0]])
    rng = np.random.default_rng(3)
    rect = np.zeros((vh.GY * vh.P, vh.GX * vh.P, 3), np.float32)
    rect[:] = (90, 150, 200)
    rect += rng.normal(0, 4, rect.shape[:2])[..., None]
    for k in range(vh.GX):
        rect[:, k * vh.P + vh.P // 2] -= 40
    for k in range(vh.GY):
        rect[k * vh.P + vh.P // 2, :] -= 40
    board = cv2.warpPerspective(np.clip(rect, 0, 255).astype(np.uint8), np.linalg.inv(vh.rectify_matrix(h)),
                                (560, 540), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def frame(sleeve: bool, noise: np.random.Generator) -> np.ndarray:
        img = board.astype(np.float32)
        if sleeve:   # a dark sleeve from the bottom edge up over files c-e, ranks 0-3
            img[300:540, 150:290] = (150, 70, 50)
        img += noise.normal(0, 1.5, img.shape[:2])[..., None]
        return np.clip(img, 0, 255).astype(np.uint8)
    return h, frame


def _slid(px: float) -> np.ndarray:
    """The image map of a lock slid `px` pixels to the right."""
    return np.array([[1, 0, px], [0, 1, 0], [0, 0, 1.0]])


def _resets_over(poses: list[np.ndarray], sleeves: list[bool]) -> int:
    """Feed the drawn board (_scene) seen under each pose in turn, a sleeve over the points where
    `sleeves` says; count the detector's relearns."""
    from vision import hands as vh
    _, frame = _scene()
    noise = np.random.default_rng(5)
    det = vh.HandDetector()
    resets = 0
    reset = det.reset

    def counted() -> None:
        nonlocal resets
        resets += 1
        reset()
    det.reset = counted     # type: ignore[method-assign]
    for k, (pose, sleeve) in enumerate(zip(poses, sleeves)):
        det.update(frame(sleeve, noise), pose, 0.04 * k)
    return resets


def _resets_after_the_lock_moves(sleeve_while_moving: bool) -> int:
    """Feed a still board for a second, then (with or without a sleeve over the points) a lock
    that moves by 0.15 spacings over two frames and stays there; count the detector's relearns."""
    h, _ = _scene()
    moved = _slid(6.0) @ h    # 0.15 of a 40 px spacing
    poses = [h] * 35 + [h + 0.5 * (moved - h), moved] + [moved] * 10
    return _resets_over(poses, [False] * 25 + [sleeve_while_moving] * 22)


def test_a_lock_that_wanders_under_a_hand_leaves_the_learnt_board_alone_but_a_knock_does_not() -> None:
    """The lock wanders by a tenth of a spacing or more while a hand hides part of the lines,
    with no knock at all: learning the board again then took the hand in (tuning 8385: the touch
    at ply 2 lost). Only a movement that began with nothing over the points is a knock."""
    assert _resets_after_the_lock_moves(sleeve_while_moving=True) == 0
    assert _resets_after_the_lock_moves(sleeve_while_moving=False) == 1


def _resets_after_a_knock_followed_in_two_steps(rest_between: int) -> int:
    """A still board, then a lock that moves 0.15 spacings over two frames, rests `rest_between`
    frames, and moves 0.07 spacings more; the detector's relearns counted."""
    h, _ = _scene()
    first = _slid(6.0) @ h        # 0.15 of a 40 px spacing
    second = _slid(2.8) @ first   # 0.07 more
    poses = [h] * 25 + [h + 0.5 * (first - h)] + [first] * (1 + rest_between) + [second] * 10
    return _resets_over(poses, [False] * len(poses))


def test_a_knock_the_lock_follows_in_steps_is_learnt_again_after_its_last_step() -> None:
    """Held-back 9179 of stop 37, moved to tuning: the lock followed a knock in steps; the board
    was learnt afresh when it first came to rest, 0.11 spacings off, and its last step of 0.07
    (short of a knock by itself) left the strip beyond the board's edge 'an arm' for eleven
    seconds. A step before the board is next seen quiet is the knock going on; once the board
    has been quiet, a step that small is the lock's own."""
    assert _resets_after_a_knock_followed_in_two_steps(rest_between=1) == 2
    assert _resets_after_a_knock_followed_in_two_steps(rest_between=40) == 1


def _bench_clip_after_bump(tmp_path, seed: int, look: str, camera: dict, incidents: list[dict], classify: bool):
    """Render a tuning clip as the bench does (960x540, 25 fps) and read it; per frame after the
    bump: the lock's error against the truth (spacings) and whether the reader called a board the
    truth has left alone for SETTLED_S quiet."""
    import json

    import cv2

    import sim
    from vision import geometry as geo
    from vision.reader import BoardReader
    spec = sim.ClipSpec(seed=seed, look=look, random_plies=8, incidents=incidents, width=960, height=540,
                        camera=camera)
    sim.write_clip(spec, tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    bump_end = max(e["frames"][1] for e in truth["events"] if e.get("kind") == "bump")
    reader = BoardReader(classify=classify)
    after, errors = QuietShare(), []
    quiet_since: float | None = None
    cap = cv2.VideoCapture(str(tmp_path / "clip.mp4"))
    for i, ft in enumerate(truth["frames"]):
        ok, frame = cap.read()
        assert ok, f"frame {i} of the rendered clip could not be decoded"
        obs = reader.process(frame, ft["t"], i)
        quiet_since = (quiet_since if quiet_since is not None else ft["t"]) if ft["quiet"] else None
        if i <= bump_end or obs.pose is None:
            continue
        h_true = np.array(truth["poses"][ft["pose"]]["homography"])
        seen, true = geo.apply_h(obs.pose.homography, geo.POINTS), geo.apply_h(h_true, geo.POINTS)
        worst = min(np.linalg.norm(seen - true, axis=1).max(), np.linalg.norm(seen - true[::-1], axis=1).max())
        errors.append(float(worst / geo.point_spacing_px(h_true)))
        if quiet_since is not None and ft["t"] - quiet_since >= SETTLED_S:
            after.settled += 1
            after.called += int(obs.quiet and not np.asarray(obs.occluded).any())
    cap.release()
    return after, errors


def test_a_knock_seen_on_every_point_before_the_lock_follows_is_no_hand_over_the_board(tmp_path) -> None:
    """Tuning 8871: in the frame the camera moved, a frame or two before the lock followed it, 85
    of 90 points departed from the background; taken for a hand over the board as the lock began
    to move, the board was not learnt afresh once the camera was still, and it was never quiet
    again after ply 4 (0 of 103 settled frames)."""
    camera = {"tilt_deg": 30.0, "azimuth_deg": 130.0, "fov_deg": 60.5, "distortion": -0.08, "bump": True}
    incidents = [{"kind": "knocked", "ply": 1}, {"kind": "touch_move_other", "ply": 6}, {"kind": "arm_pass", "ply": 7}]
    after, _ = _bench_clip_after_bump(tmp_path, 8871, "wood", camera, incidents, classify=False)
    assert after.settled > 50
    assert after.share >= 0.6, f"quiet on {after.called} of {after.settled} settled frames after the bump"


def test_a_lock_that_followed_a_knock_part_of_the_way_is_replaced_by_the_board_found_afresh(tmp_path) -> None:
    """Tuning 8417: the lock followed the knock a third of a spacing short and still found enough of
    its lines to hold; the board was read and the hands learnt on it, then an arm dragged it a
    spacing off, and the game was lost from ply 4. Once the camera is still the board is searched
    for afresh and the clearly better lattice taken."""
    camera = {"tilt_deg": 27.5, "azimuth_deg": 130.0, "fov_deg": 55.0, "noise": 4.8, "bump": True}
    incidents = [{"kind": "arm_pass", "ply": 3}, {"kind": "touch_move_other", "ply": 4},
                 {"kind": "touch_move_other", "ply": 6}, {"kind": "between_points", "ply": 8}]
    after, errors = _bench_clip_after_bump(tmp_path, 8417, "mat", camera, incidents, classify=True)
    late = errors[len(errors) // 4:]     # from a few seconds after the knock on
    assert max(late) < 0.1, f"the lock is {max(late):.2f} spacings off the board after the knock"
    assert after.share >= 0.85, f"quiet on {after.called} of {after.settled} settled frames after the bump"


def test_the_look_of_the_board_between_moves_is_forgotten_when_the_camera_is_knocked() -> None:
    """The look the board had when last quiet for a while tells a hand learnt into the background
    from the bare board once it leaves (`HandDetector._ghosts`); seen from where a knock left the
    camera the board looks different, and cells that happened to look like it were taken for
    empty while an arm lay there (tuning 8316: a move read with the hand still over the board)."""
    from vision import hands as vh
    h, frame = _scene()
    moved = _slid(6.0) @ h    # 0.15 of a 40 px spacing
    noise = np.random.default_rng(5)
    det = vh.HandDetector()
    t = 0.0
    for _ in range(25):
        det.update(frame(False, noise), h, t)
        t += 0.04
    assert det.calm_look is not None      # quiet for a second: the board between moves
    det.update(frame(False, noise), h + 0.5 * (moved - h), t)
    assert det.calm_look is None
