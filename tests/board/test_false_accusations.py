"""No false accusations (issue 10, item 6): the causes found on rendered games, each as a scripted
scenario. An arbiter tool must be right when it accuses."""
from __future__ import annotations

import numpy as np

from board.episode import CameraConfig, CameraWatch, lattice_shift
from board.tracker import Tracker, TrackerConfig
from board_scenario import Script, idx
from synth import NoiseProfile, observations


def shifted(h: np.ndarray, dx_px: float, dy_px: float) -> np.ndarray:
    return np.array([[1.0, 0, dx_px], [0, 1.0, dy_px], [0, 0, 1]]) @ h


def bumped_observations(s: Script, start: int, flagged: str, steps: int = 3, px_per_step: float = 5.0,
                        flag_frames: int = 8, seed: int = 4):
    """Observations of the script with a camera bump from frame `start`, as the real hand
    detector saw one on a rendered game (tuning clip 8304): the view slides `px_per_step` pixels
    a frame (0.09 spacings here; 8304's lock moved 0.085-0.13 a frame) for `steps` frames and
    stays there; meanwhile one point whose look changed
    (`flagged`, an own piece of the side to move) is flagged as hidden for `flag_frames`
    frames, longer than a fingertip rest, with nothing joined to it."""
    out = []
    for obs in observations(s.frames, NoiseProfile(seed=seed, flicker=0.0)):
        i = obs.frame_index
        if i >= start:
            k = min(i - start + 1, steps)
            obs.pose.homography = shifted(obs.pose.homography, k * px_per_step, 0.4 * k * px_per_step)
        if start <= i < start + flag_frames:
            obs.occluded = obs.occluded.copy()
            obs.occluded[idx(flagged)] = True
            obs.quiet = False
        out.append(obs)
    return out


def bump_then_move() -> tuple[Script, int]:
    """Red to move; the camera is bumped, and red's move follows before the board settled."""
    s = Script(seed=21).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7").quiet(0.6)
    start = len(s.frames)
    s.quiet(0.5)
    s.move("b0c2").quiet(0.8)
    return s, start


def journal(obs_list, config: TrackerConfig | None = None) -> list:
    """Every event the tracker gives for `obs_list`, to the end."""
    tr, events = Tracker(config=config), []
    for o in obs_list:
        events.extend(tr.feed(o))
    events.extend(tr.finish())
    return events


def run(obs_list, config: TrackerConfig | None = None):
    events = journal(obs_list, config)
    return [e for e in events if e.type == "move"], [e for e in events if e.type == "incident"]


def unseen_between(s: Script, point: str, start: int, end: int, noise_seed: int) -> list:
    """The script's observations with `point` read empty from frame `start` to before `end`
    (a disc put down where the reader does not see it)."""
    p = idx(point)
    out = []
    for obs in observations(s.frames, NoiseProfile(seed=noise_seed, flicker=0.0)):
        if start <= obs.frame_index < end:
            obs.probs = obs.probs.copy()
            obs.probs[p] = 0.0
            obs.probs[p, 0] = 1.0
        out.append(obs)
    return out


def test_a_camera_bump_that_flags_an_own_piece_is_no_touch():
    s, start = bump_then_move()
    moves, incidents = run(bumped_observations(s, start, flagged="b2"))
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
    assert incidents == []


def test_without_watching_the_camera_the_same_bump_would_read_as_a_touch():
    # the scenario is the cause: with the camera watch switched off, the flag is a rest on b2
    s, start = bump_then_move()
    blind = TrackerConfig(camera=CameraConfig(moved=float("inf")))
    moves, incidents = run(bumped_observations(s, start, flagged="b2"), blind)
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
    assert [(e.kind, e.ply) for e in incidents] == [("touch_move_other", 3)]
    assert idx("b2") in incidents[0].points


def test_a_real_touch_right_after_a_bump_is_still_reported():
    # the camera settles, then red rests a hand on b2 before moving b0: that is an incident
    s = Script(seed=22).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7").quiet(0.6)
    start = len(s.frames)
    s.quiet(0.6)
    s.move("b0c2", touch_first="b2").quiet(0.8)
    moves, incidents = run(bumped_observations(s, start, flagged="i3", flag_frames=4))
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
    assert [(e.kind, e.ply) for e in incidents] == [("touch_move_other", 3)]
    assert idx("b2") in incidents[0].points


def test_a_hand_resting_when_the_lock_refits_the_pose_is_still_a_touch():
    # tuning clip 8342: while black rested on c6, the lock refitted the pose by a third of a pixel
    # (ridges pulled by the hand's edges); the hand's flags were then dropped as a bump's, and the
    # rest with them. A hand already over the board before the pose moved stays a hand.
    s = Script(seed=23).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7").quiet(0.6)
    first = len(s.frames)
    s.move("b0c2", touch_first="b2").quiet(0.8)
    on_b2 = [i for i in range(first, len(s.frames)) if s.frames[i].hidden[idx("b2")]]
    refit = on_b2[len(on_b2) // 2]
    obs_list = []
    for obs in observations(s.frames, NoiseProfile(seed=5, flicker=0.0)):
        if obs.frame_index >= refit:
            obs.pose.homography = shifted(obs.pose.homography, 1.5, 0.6)
        obs_list.append(obs)
    moves, incidents = run(obs_list)
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
    assert [(e.kind, e.ply) for e in incidents] == [("touch_move_other", 3)]
    assert idx("b2") in incidents[0].points


def test_while_the_pose_moves_only_a_hand_at_rest_where_it_was_is_kept():
    def flags(*names: str) -> np.ndarray:
        f = np.zeros(90, bool)
        f[[idx(n) for n in names]] = True
        return f

    hand = ("c7", "d7", "e7", "c8", "d8", "e8", "c9", "d9", "e9", "b9")
    watch = CameraWatch()
    assert watch.hands(flags(*hand), unsteady=False).sum() == 10
    # the pose refitted under the resting hand: it stays a hand
    assert watch.hands(flags(*hand, "f9"), unsteady=True).sum() == 10
    # the hand moving meanwhile: its overlap with where it was (one point) is no hand
    # (tuning clip 8317: a9 alone read as a rest for 0.36 s, 'a touch')
    assert not watch.hands(flags("a9", "b9"), unsteady=True).any()
    # the hand reaching on over new points while an arm across the board walks the lock: held to
    # where it was, its fingertips would rest there (tuning 8317: black's hand going on to g3
    # held at d6 for 0.44 s, 'a touch of e6')
    watch = CameraWatch()
    assert watch.hands(flags(*hand), unsteady=False).sum() == 10
    assert not watch.hands(flags(*hand, "c6", "d6", "e6", "d5", "e5"), unsteady=True).any()


def test_a_steady_camera_is_never_unsteady_and_a_slide_is_for_after_shift_s():
    h = np.array([[60.0, 0, 400], [0, -60.0, 650], [0, 0, 1]])
    watch = CameraWatch(CameraConfig(moved=0.015, after_shift_s=0.4))
    assert not any(watch.unsteady(i / 25, h) for i in range(50))
    h2 = shifted(h, 1.5, 0.0)                     # 1.5 px at 60 px a spacing: 0.025 spacings
    assert abs(lattice_shift(h, h2) - 0.025) < 1e-6
    flags = [watch.unsteady(2.0 + i / 25, h2) for i in range(20)]
    assert flags[0] and all(flags[:11]) and not any(flags[11:])
    assert watch.unsteady(3.0, None) is False     # a frame without a board says nothing new


def test_the_locks_own_refit_is_no_camera_move_but_a_knock_the_hand_detector_sees_is():
    """A blurred, noisy view keeps the lock refitting by up to 0.02 spacings while nothing moves
    (held-back 9120 of stop 35: a refit as black's hand came in hid the cannon's pick-up, and the
    rest left over was 'a touch of b9'); a shift the hand detector takes for a knock is a move."""
    from vision.hands import HandConfig
    h = np.array([[60.0, 0, 400], [0, -60.0, 650], [0, 0, 1]])
    watch = CameraWatch()
    assert not watch.unsteady(0.0, h)
    h_refit = shifted(h, 1.2, 0.0)                # 0.02 spacings
    assert not watch.unsteady(0.04, h_refit)
    knock = HandConfig().bump_spacings
    assert CameraConfig().moved == knock      # one threshold for a knock, in the detector and here
    assert watch.unsteady(0.08, shifted(h_refit, 60.0 * knock * 1.01, 0.0))


def pick_up_displaced(s: Script, frm: str, to: str, hand_at: tuple[float, float], side: str = "w") -> None:
    """`side` moves the disc on `frm`, which sits off its point: the hand rests at `hand_at` (over
    the disc where it really is), lifts it and puts it down on `to`."""
    a, b = idx(frm), idx(to)
    edge = s._edge(a, side)
    s._travel(edge, hand_at, 0.3, side)
    piece = s.board[a]
    s.board[a] = "."
    s.offsets[a] = 0
    s._stay(hand_at, 0.35, side)
    s._travel(hand_at, s._xy(b), 0.3, side)
    s.board[b] = piece
    s.offsets[b] = s.rng.normal(0, 0.02, 2)
    s._stay(s._xy(b), 0.15, side)
    s._travel(s._xy(b), s._edge(b, side), 0.3, side)
    s.moves.append({"ply": len(s.moves) + 1, "iccs": frm + to})
    s.turn = "b" if side == "w" else "w"


def knocked_cannon_game(hand_at: tuple[float, float]) -> Script:
    """Black's hand knocks red's cannon on b2 toward c3 (0.44, 0.21 spacings: it sits beside red's
    own soldier on c3); red then moves that cannon, the hand resting over the disc at `hand_at`."""
    s = Script(seed=23).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7", knock=("b2", (0.44, 0.21))).quiet(0.8)
    pick_up_displaced(s, "b2", "b6", hand_at)
    s.quiet(0.8)
    return s


def test_picking_up_a_knocked_disc_beside_an_own_piece_is_no_touch_of_that_piece():
    # seen on tuning clip 8308: the rest over the knocked cannon was read on the soldier beside it
    s = knocked_cannon_game(hand_at=(1.7, 2.7))
    moves, incidents = run(list(observations(s.frames, NoiseProfile(seed=23))))
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b2b6"]
    assert [(e.kind, e.ply, e.points) for e in incidents] == [("knocked", 2, [idx("b2")])]


def test_a_rest_on_the_own_piece_beyond_the_knocked_disc_is_still_a_touch():
    # the same game, but red first rests a hand on its soldier on e3, away from the knocked cannon
    s = Script(seed=23).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7", knock=("b2", (0.44, 0.21))).quiet(0.8)
    s._travel(s._edge(idx("e3"), "w"), s._xy(idx("e3")), 0.3, "w")
    s._stay(s._xy(idx("e3")), 0.4, "w")
    s.offsets[idx("e3")] += (0.11, 0.06)
    s._travel(s._xy(idx("e3")), (1.7, 2.7), 0.3, "w")
    s.board[idx("b2")] = "."
    s._stay((1.7, 2.7), 0.35, "w")
    s._travel((1.7, 2.7), s._xy(idx("b6")), 0.3, "w")
    s.board[idx("b6")] = "C"
    s._travel(s._xy(idx("b6")), s._edge(idx("b6"), "w"), 0.3, "w")
    s.quiet(0.8)
    moves, incidents = run(list(observations(s.frames, NoiseProfile(seed=23))))
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b2b6"]
    touches = [e for e in incidents if e.kind == "touch_move_other"]
    assert len(touches) == 1 and idx("e3") in touches[0].points


def test_without_looking_where_the_knocked_disc_sits_its_pick_up_reads_as_a_touch(monkeypatch):
    # the scenario is the cause: judged from the cannon's point alone, the rest is on c3
    import board.incidents.touch
    monkeypatch.setattr(board.incidents.touch, "beside_displaced_disc", lambda cfg, before, p: set())
    s = knocked_cannon_game(hand_at=(1.7, 2.7))
    _, incidents = run(list(observations(s.frames, NoiseProfile(seed=23))))
    assert [(e.kind, e.ply) for e in incidents] == [("knocked", 2), ("touch_move_other", 3)]
    assert idx("c3") in incidents[1].points


def test_a_strip_of_flags_a_bump_leaves_along_the_board_edge_is_no_resting_hand():
    # after a bump the detector may flag the board's edge from the new viewpoint for seconds: a
    # strip i0..i3 along red's right edge, led by red's own soldier on i3, that never moves;
    # red moves meanwhile. The strip is no hand resting on i3.
    s, start = bump_then_move()
    strip = [idx(p) for p in ("i0", "i1", "i2", "i3")]
    obs_list = bumped_observations(s, start, flagged="i3", flag_frames=1)
    for o in obs_list:
        if start <= o.frame_index < start + 75:
            o.occluded = o.occluded.copy()
            o.occluded[strip] = True
            o.quiet = False
    moves, incidents = run(obs_list)
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
    assert incidents == []
    # the cause: taken as a hand, the strip's leading point is a rest on i3 before the pick-up
    watch_off = TrackerConfig(camera=CameraConfig(moved=float("inf")))
    _, blind = run(obs_list, watch_off)
    assert [(e.kind, e.ply) for e in blind] == [("touch_move_other", 3)] and idx("i3") in blind[0].points


def test_the_residue_of_a_bump_is_dropped_point_by_point_once_it_clears():
    watch = CameraWatch()
    occ = np.zeros(90, dtype=bool)
    occ[[0, 1, 2]] = True
    assert not watch.hands(occ, unsteady=True).any()
    assert not watch.hands(occ, unsteady=False).any()          # still flagged: still residue
    occ2 = occ.copy()
    occ2[1] = False
    occ2[40] = True                                              # a hand arrives elsewhere
    assert list(np.flatnonzero(watch.hands(occ2, unsteady=False))) == [40]
    occ3 = occ2.copy()
    occ3[1] = True                                               # b0 cleared once: a new flag there counts
    assert list(np.flatnonzero(watch.hands(occ3, unsteady=False))) == [1, 40]


def test_a_knocked_disc_read_again_where_it_lies_is_not_knocked_a_second_time():
    # seen on tuning clip 8310: a disc knocked so far that it first read as no piece (reported
    # then) was read again later, off its point, and reported knocked once more
    from board.explain import CLASS_LETTERS
    s = Script(seed=24).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    knock_from = len(s.frames)
    s.move("h9g7", knock=("b2", (0.44, 0.21))).quiet(0.8)
    s.move("b0c2").quiet(0.8)
    read_again = len(s.frames)
    s.move("b9c7").quiet(0.8)
    s.move("a0a1").quiet(0.8)
    cannon = CLASS_LETTERS.index("C")
    obs_list = []
    for o in observations(s.frames, NoiseProfile(seed=24, flicker=0.0)):
        if knock_from <= o.frame_index < read_again:
            o.offset[idx("b2")] = (0.0, 0.0)       # a point read as empty has no disc offset
        if o.frame_index >= read_again and not o.occluded[idx("b2")]:
            o.probs[idx("b2")] = 0.005
            o.probs[idx("b2"), cannon] = 0.93
            o.offset[idx("b2")] = (0.44, 0.21)
        obs_list.append(o)
    moves, incidents = run(obs_list)
    assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2", "b9c7", "a0a1"]
    assert [(e.kind, e.ply, e.points) for e in incidents] == [("knocked", 2, [idx("b2")])]


def test_a_disc_the_reader_hardly_recognises_is_not_knocked_by_its_offset_jumping():
    # seen on tuning clips 8309 and 8312: untouched discs read at 0.13-0.42 as their piece had
    # their offset jump ~0.21 spacings between settles (true knocks there were read at 0.82-0.93)
    from board.explain import CLASS_LETTERS
    s = Script(seed=25).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    jump = len(s.frames)
    s.move("h9g7").quiet(0.6)
    s.move("b0c2").quiet(0.8)
    king = CLASS_LETTERS.index("K")
    for weak, expected in ((True, []), (False, [("knocked", 1, [idx("e0")])])):
        obs_list = []
        for o in observations(s.frames, NoiseProfile(seed=25, flicker=0.0)):
            o.probs[idx("e0")] = 0.01
            if weak:     # the general on e0 read at 0.35 all game, a look-alike beside it
                o.probs[idx("e0"), king] = 0.35
                o.probs[idx("e0"), CLASS_LETTERS.index("A")] = 0.45
            else:        # read clearly
                o.probs[idx("e0"), king] = 0.9
            o.probs[idx("e0")] /= o.probs[idx("e0")].sum()
            if o.frame_index >= jump:
                o.offset[idx("e0")] = o.offset[idx("e0")] + np.array([-0.2, 0.09], dtype=np.float32)
            obs_list.append(o)
        moves, incidents = run(obs_list)
        assert [m.iccs for m in moves] == ["h2e2", "h9g7", "b0c2"]
        assert [(e.kind, e.ply, e.points) for e in incidents] == expected, weak


def test_a_piece_reported_knocked_off_then_seen_moved_is_retracted():
    # tuning clips 8352, 8359: a disc put down between points where the reader saw no piece read
    # as 'knocked off the board'; once it shows on its point, the move explains the vanished
    # piece and the knock is withdrawn (journalled as retracted, not left standing)
    s = Script(seed=24).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h9g7").quiet(0.6)
    put_down = len(s.frames)
    s.move("b0c2").quiet(1.2)
    seen_again = len(s.frames)
    s.move("i9h9").quiet(0.8)
    events = journal(unseen_between(s, "c2", put_down, seen_again, noise_seed=6))   # the horse on c2 unseen
    assert [e.iccs for e in events if e.type == "move"] == ["h2e2", "h9g7", "b0c2", "i9h9"]
    knocks = [e for e in events if e.type == "incident" and e.kind == "knocked"]
    assert [k.points for k in knocks] == [[idx("b0")]]
    retracted = [e for e in events if e.type == "incident_retracted"]
    assert [r.target for r in retracted] == knocks


def test_a_reply_called_out_of_turn_after_an_unseen_move_is_retracted_once_that_move_shows():
    # tuning clip 8375: red's horse b0-c2 was put down where the reader saw no piece ('knocked
    # off the board'), and black's reply h9-g7 was then 'moved out of turn'. Once c2 shows the
    # horse, b0c2 h9g7 explains the board: the knock and the out-of-turn accusation are withdrawn
    s = Script(seed=26).quiet(0.5)
    s.move("h2e2").quiet(0.6)
    s.move("h7e7").quiet(0.6)
    put_down = len(s.frames)
    s.move("b0c2").quiet(1.2)
    s.move("h9g7").quiet(1.2)
    seen_again = len(s.frames)
    s.move("e2e6").quiet(0.8)
    events = journal(unseen_between(s, "c2", put_down, seen_again, noise_seed=7))
    assert [e.iccs for e in events if e.type == "move"] == ["h2e2", "h7e7", "b0c2", "h9g7", "e2e6"]
    raised = [e for e in events if e.type == "incident" and e.kind in ("knocked", "illegal_move")]
    assert sorted(e.kind for e in raised) == ["illegal_move", "knocked"]
    retracted = [e.target for e in events if e.type == "incident_retracted"]
    assert sorted(r.kind for r in retracted) == ["illegal_move", "knocked"]
