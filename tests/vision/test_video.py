"""Video path on sim clips: the lock is kept, a bump is noticed and re-found, hands are seen."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import geometry as geo
from vision.reader import BoardReader, FoundBoard


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


def test_a_lock_that_followed_a_bump_part_of_the_way_is_checked_again_when_every_point_departs(vsim):
    # tuning clips 8811, 8814: a three-frame bump left the lock a quarter of a spacing off; every
    # point then departed from the hand detector's background, and the lock check, skipping hidden
    # points, kept that lock for the rest of the game (no point ever read again)
    from vision.lock import LockKeeper
    from vision.locate import _verify
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    bumped, a = _bumped(img, 7, -4, 0.5)
    gray = cv2.cvtColor(bumped, cv2.COLOR_BGR2GRAY)
    pol = _verify(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), truth.homography).polarity
    keeper = LockKeeper(truth.homography, pol, 0.9)
    for _ in range(3):
        res = keeper.check(gray, hidden=np.ones(90, bool))
    # followed onto the moved board, or given up so that the board is found afresh
    assert not res.ok or vsim.lattice_error(res.homography, a @ truth.homography) < 1.5
    # a real hand hides part of the board only: its points are skipped as before
    part = np.zeros(90, bool)
    part[:40] = True
    assert keeper.check(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), hidden=part).ok


def test_a_weak_lock_on_a_wrong_lattice_gives_way_to_a_clearly_better_one(vsim):
    # tuning clip 8811: camera grain hid the board's lattice from the first frame's search, and a
    # lattice a line off passed with a weak score; the board never read as anything until a bump
    # forced a new search 12 s later
    from vision.locate import _verify
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    reader = BoardReader(classify=False)
    assert reader.process(img, 0.0, 0).pose is not None
    good = reader.h.copy()
    pol = reader.lock.polarity
    wrong = good @ np.array([[1.0, 0, 0], [0, 1.0, 1.0], [0, 0, 1.0]])    # a rank off
    seen = _verify(gray, wrong, pol)
    assert seen.score < reader.config.doubt.doubt_below
    reader._adopt(img, 0.0, FoundBoard(wrong, seen.support, pol, seen.score, None))
    weak = seen.score
    poses = [reader.process(img, i / 10, i).pose for i in range(1, 30)]
    assert vsim.lattice_error(poses[-1].homography, truth.homography) < 1.0
    assert reader.lattice_replaced == 1
    # a lock on the right lattice with the same weak score is doubted, searched again, and kept
    reader = BoardReader(classify=False)
    reader.process(img, 0.0, 0)
    reader._adopt(img, 0.0, FoundBoard(good, 0.6, pol, weak, None))
    poses = [reader.process(img, i / 10, i).pose for i in range(1, 30)]
    assert reader.lattice_replaced == 0 and reader._recheck_t is None
    assert vsim.lattice_error(poses[-1].homography, truth.homography) < 1.0



def test_a_doubted_lock_is_not_replaced_by_a_lattice_that_reads_fewer_pieces(vsim):
    # held-back 8836 (moved to tuning): the true lattice of a far, foreshortened board, its far lines
    # faint under sensor noise, was doubted and replaced by a lattice showing its lines more clearly
    # but lying 64 px off at the far end; nothing read right for the rest of the game. The pieces
    # stand on the true points: a lattice a rank off reads fewer of them surely.
    from vision.locate import _verify
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    reader = BoardReader()
    assert reader.process(img, 0.0, 0).pose is not None
    good = reader.h.copy()
    pol = reader.lock.polarity
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    wrong = good @ np.array([[1.0, 0, 0], [0, 1.0, 1.0], [0, 0, 1.0]])    # a rank off
    off = FoundBoard(wrong, 0.9, pol, 0.9, reader._clf.run(img, wrong))
    assert reader._reads_fewer_pieces(off)
    same = FoundBoard(good, 0.9, pol, _verify(gray, good, pol).score, reader._clf.run(img, good))
    assert not reader._reads_fewer_pieces(same)


def test_a_relock_takes_reds_end_from_the_pieces_when_the_lost_lock_was_doubted(vsim):
    # held-back 8836 (moved to tuning): the first lock was a wrong lattice; two frames later the
    # true one was found and turned to keep red where the wrong lock had it, so the game read upside
    # down. A lock that was never doubted passes its orientation on, as after a bump.
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    turned = truth.homography @ geo.board_symmetry("rot180")
    for doubted, red_kept in ((True, False), (False, True)):
        reader = BoardReader()
        assert reader.process(img, 0.0, 0).pose is not None
        reader.h = turned.copy()
        reader._recheck_t = 1.0 if doubted else None
        reader.lock = None
        assert reader._acquire(img, 0.1)
        kept = vsim.max_point_error(reader.h, turned) < 3.0
        assert kept == red_kept, doubted
        assert vsim.lattice_error(reader.h, truth.homography) < 3.0

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


# --- the hand detector on a drawn top-down board (vision.hands.update_rectified) -----------------

def _drawn_board(seed: int = 0) -> np.ndarray:
    """A rectified board image: wood-coloured with a little grain and the lattice lines."""
    from vision import hands as vh
    rng = np.random.default_rng(seed)
    img = np.zeros((vh.GY * vh.P, vh.GX * vh.P, 3), np.float32)
    img[:] = (90, 150, 200)
    img += rng.normal(0, 4, img.shape[:2])[..., None]
    for k in range(vh.GX):
        img[:, k * vh.P + vh.P // 2] -= 40
    for k in range(vh.GY):
        img[k * vh.P + vh.P // 2, :] -= 40
    return img


def _frame(board: np.ndarray, rng, disc_at=None, hand=None) -> np.ndarray:
    """The board with a disc on cell `disc_at` (row, col) and a hand rectangle (x0, y0, x1, y1)."""
    from vision import hands as vh
    img = board.copy()
    if disc_at is not None:
        r, c = disc_at
        cv2.circle(img, (c * vh.P + vh.P // 2, r * vh.P + vh.P // 2), int(0.45 * vh.P), (60, 70, 170), -1)
    if hand is not None:
        h, w = img.shape[:2]
        x0, y0, x1, y1 = (int(round(min(max(v, 0), lim))) for v, lim in zip(hand, (w, h, w, h)))
        img[y0:y1, x0:x1] = (150, 70, 50)      # a dark blue sleeve, its weave moving with it
        weave = np.random.default_rng(7).normal(0, 12, (h, w))
        img[y0:y1, x0:x1] += weave[: y1 - y0, : x1 - x0, None]
    img += rng.normal(0, 1.5, img.shape[:2])[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _play(hand_over_point: bool, fps: float = 25.0):
    """A hand brings a disc to the corner point i0 and (or not) rests there, while its arm
    keeps moving on the ring of cells just beyond the corner for 1.2 s, then goes.
    Returns (states, frame the hand left the points, frame it left the ring)."""
    from vision import hands as vh
    rng = np.random.default_rng(1)
    board = _drawn_board()
    det = vh.HandDetector()
    P = vh.P
    i0 = (10, 9)                        # cell of point i0 (row 10 = rank 0, column 9 = file i)
    states, n = [], 0

    def step(img):
        nonlocal n
        states.append(det.update_rectified(img, n / fps))
        n += 1

    for _ in range(10):
        step(_frame(board, rng))
    for k in range(8):                  # the hand comes in from beyond the corner over i0
        y0 = 12 * P - k * P // 4
        step(_frame(board, rng, hand=(9 * P, y0 - P, 12 * P, 12 * P)))
    for _ in range(10):                 # puts the disc down on i0
        step(_frame(board, rng, disc_at=i0, hand=(9 * P, 10 * P, 12 * P, 12 * P)))
    left_points = n
    dx = 0.0
    for k in range(30):                 # lingers just beyond the edge (rank -1 ring), moving now and then
        if (k // 5) % 2 == 0:
            dx = 3 * np.sin(k * 0.9)
        top = 10 * P + 2 if hand_over_point else 11 * P
        step(_frame(board, rng, disc_at=i0, hand=(9 * P + 4 + dx, top, 12 * P, 12 * P)))
    left_ring = n
    for _ in range(15):
        step(_frame(board, rng, disc_at=i0))
    return states, left_points, left_ring


def test_a_piece_put_on_a_corner_point_settles_while_the_hand_lingers_beyond_the_edge():
    states, left_points, left_ring = _play(hand_over_point=False)
    quiet = [i for i, s in enumerate(states) if s.quiet and i >= left_points]
    assert quiet and quiet[0] - left_points <= 0.5 * 25 and quiet[0] < left_ring
    assert not states[quiet[0]].hidden.any()


def test_a_hand_resting_on_a_corner_piece_with_its_arm_moving_stays_hidden():
    states, left_points, left_ring = _play(hand_over_point=True)
    i0 = 8                                  # point index of i0
    assert all(not s.quiet and s.hidden[i0] for s in states[left_points:left_ring])


def test_a_lock_a_quarter_of_a_spacing_off_with_a_good_score_is_audited_and_replaced(vsim, tmp_path):
    # tuning clip 8385: the first frame's search returned a lattice 0.26-0.29 spacings off at its far
    # points (a perspective a little wrong) with a score of 0.71, so it was not doubted; it held for
    # 15 s, and discs measured off their points made four false incidents. A clip of one ply from
    # the same seed, look and camera starts the same way.
    import json

    import sim
    camera = {"tilt_deg": 21.5, "azimuth_deg": 40.0, "fov_deg": 63.5, "noise": 4.6}
    sim.write_clip(sim.ClipSpec(seed=8385, look="plastic", random_plies=1, width=960, height=540,
                                camera=camera), tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    reader = BoardReader()
    cap = cv2.VideoCapture(str(tmp_path / "clip.mp4"))
    errors = []
    for i, ft in enumerate(truth["frames"][:75]):
        ok, frame = cap.read()
        assert ok, f"frame {i} of the rendered clip could not be decoded"
        pose = reader.process(frame, ft["t"], i).pose
        h_true = np.array(truth["poses"][ft["pose"]]["homography"])
        errors.append(vsim.lattice_error(pose.homography, h_true) / geo.point_spacing_px(h_true))
    cap.release()
    assert errors[0] > 0.2                      # the first search's lattice, as in the bench clip
    assert max(errors[-25:]) < 0.05, f"still {max(errors[-25:]):.2f} spacings off 2 s in"
    assert reader.lattice_replaced == 1


def test_a_right_lock_is_audited_and_kept_the_audits_spaced_ever_wider(vsim):
    from vision.locate import _verify
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    reader = BoardReader(classify=False)
    reader.process(img, 0.0, 0)
    good = reader.h.copy()
    pol = reader.lock.polarity
    reader._adopt(img, 0.0, FoundBoard(good, 0.7, pol, _verify(gray, good, pol).score, None))
    searches = reader.searches
    poses = [reader.process(img, i / 10, i).pose for i in range(1, 80)]
    assert reader.lattice_replaced == 0 and reader.searches - searches == 3     # at 1, 3 and 7 s
    assert vsim.lattice_error(poses[-1].homography, truth.homography) < 0.1 * geo.point_spacing_px(good)


def test_a_lock_the_known_position_stands_on_is_not_searched_again(vsim):
    """The pieces confirm the lattice (vision.lock_confirm): with the game's position known and
    read on the locked points, discs centred on them, the audits are spared (a side camera's
    searches took seconds each, most of the machine's work)."""
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    reader = BoardReader()
    reader.process(img, 0.0, 0)
    reader.game_position(truth.board)
    searches = reader.searches
    for i in range(1, 80):
        reader.process(img, i / 10, i)
    assert reader.searches == searches and reader.searches_spared == 3     # at 1, 3 and 7 s
    assert reader.last_witness is not None and reader.last_witness.confirmed


def test_a_lock_a_third_of_a_spacing_off_the_pieces_is_audited_all_the_same(vsim):
    from vision.locate import _verify
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    reader = BoardReader()
    reader.process(img, 0.0, 0)
    reader.game_position(truth.board)
    good, pol = reader.h.copy(), reader.lock.polarity
    off = good @ np.array([[1.0, 0, 0.3], [0, 1.0, 0], [0, 0, 1.0]])
    reader._adopt(img, 0.0, FoundBoard(off, 0.7, pol, _verify(gray, off, pol).score, None))
    searches = reader.searches
    for i in range(1, 14):
        reader.process(img, i / 10, i)
    assert reader.searches_spared == 0 and reader.searches == searches + 1     # the audit at 1 s is made
    assert reader.last_witness is not None and not reader.last_witness.confirmed
    assert reader.last_witness.drift is None or reader.last_witness.drift > 0.2


def test_an_audit_keeps_a_lock_near_the_lattice_it_finds_and_replaces_one_well_off_it(vsim):
    # tuning 8325: an audit on the frame a hand left found a lattice 0.01 spacings from the lock,
    # scoring clearly more on that frame; taken, every disc's offset jumped, and the next settle
    # called an untouched chariot knocked 0.20 off its place. Tuning 8356 (a lens-distorted board):
    # audits and the lock's own refits took turns between two fits 0.13 apart.
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    reader = BoardReader(classify=False)
    reader.process(img, 0.0, 0)
    good, pol = reader.h.copy(), reader.lock.polarity
    for dx, taken in ((0.13, False), (0.3, True)):
        lock = good @ np.array([[1.0, 0, dx], [0, 1.0, 0], [0, 0, 1.0]])
        reader._adopt(img, 0.0, FoundBoard(lock, 0.7, pol, 0.7, None))
        before = reader.lattice_replaced
        reader._take_better(img, gray, 1.0, FoundBoard(good, 0.9, pol, 0.9, None))    # the audit's answer
        assert (reader.lattice_replaced - before == 1) == taken, dx
        assert np.allclose(reader.h, good if taken else lock)


def test_a_lock_that_moves_a_tenth_of_a_spacing_at_once_is_counted_as_another_lattice(vsim):
    """Held-back 9181 of stop 37, moved to tuning: the lock followed a knock 0.18 spacings short at
    the far side, then a refit put it right 0.6 s later; two discs read in between were measured
    a quarter of a spacing off their points, compared with their offsets before the knock, and
    'knocked'. Offsets measured across such a jump of the lock are not compared (Observation.lattice);
    a steady lock keeps its lattice."""
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    dx = 6.0    # px: about 0.13 of a spacing here
    moved, _ = _bumped(img, dx, 0, 0.0)
    reader = BoardReader(classify=False)
    seen = [reader.process(img, i / 10, i).lattice for i in range(6)]
    assert len(set(seen[1:])) == 1
    relocks = reader.relocks
    spacing = geo.point_spacing_px(reader.h)
    after = [reader.process(moved, (6 + i) / 10, 6 + i) for i in range(8)]
    assert dx / spacing >= reader.config.doubt.new_lattice_after and reader.relocks == relocks   # followed, not found anew
    assert vsim.max_point_error(after[-1].pose.homography, np.array([[1, 0, dx], [0, 1, 0], [0, 0, 1.0]]) @ truth.homography) < 1.5
    # another lattice (or one per step the lock took to follow), then the same one while it holds
    assert after[3].lattice > seen[-1] and {o.lattice for o in after[3:]} == {after[3].lattice}


def test_frames_that_show_no_change_repeat_the_last_observation_and_a_hand_is_still_seen(vsim):
    """vision.config.StaticConfig: on a quiet board, frames whose block means match the last frame
    looked at are not looked at again (in a game the board stands untouched most of the time);
    the first frame with an arm over the board is looked at and the arm seen."""
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    reader = BoardReader()
    reader.game_position(truth.board)
    seen = [reader.process(img, i / 10, i) for i in range(40)]
    assert reader.frames_idle >= 15
    quiet = [o for o in seen[10:] if o.quiet]
    assert len(quiet) == 30 and all(np.array_equal(o.probs, quiet[0].probs) for o in quiet)
    arm = img.copy()
    corners = geo.apply_h(reader.h, np.array([[3.5, -2.0], [5.5, -2.0], [5.5, 3.2], [3.5, 3.2]]))
    cv2.fillConvexPoly(arm, corners.astype(np.int32), (120, 150, 200))
    idle = reader.frames_idle
    later = [reader.process(arm, 4.0 + i / 10, 40 + i) for i in range(3)]
    assert reader.frames_idle == idle
    assert not later[-1].quiet and later[-1].occluded.sum() >= 4


def test_a_hand_detector_that_idled_through_a_still_board_sees_an_arm_as_one_that_watched_every_frame(vsim):
    from vision.hands import HandDetector
    img, _ = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    h = BoardReader(classify=False)
    h.process(img, 0.0, 0)
    arm = img.copy()
    corners = geo.apply_h(h.h, np.array([[3.5, -2.0], [5.5, -2.0], [5.5, 3.2], [3.5, 3.2]]))
    cv2.fillConvexPoly(arm, corners.astype(np.int32), (120, 150, 200))
    watched, idled = HandDetector(), HandDetector()
    for i in range(30):
        a = watched.update(img, h.h, i / 10)
        b = idled.update(img, h.h, i / 10) if i < 12 or i % 10 == 0 else idled.idle(i / 10)
        assert b is not None and a.quiet == b.quiet and np.array_equal(a.hidden, b.hidden)
    a, b = watched.update(arm, h.h, 3.0), idled.update(arm, h.h, 3.0)
    assert np.array_equal(a.hidden, b.hidden) and a.hidden.sum() >= 4
