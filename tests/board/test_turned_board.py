"""Red's end found from the first move when the pieces' colours cannot tell the two ends apart
(board.turning, Tracker._first_move_turned)."""
from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from synth import NoiseProfile, observations
from board.episode import Episode, Settled
from board.explain import CLASS_LETTERS, Evidence
from board.tracker import Tracker, alike_turned
from board.turning import TURN, turned_homography, turned_offsets, turned_points
from board.window import Frame
from rules import Move, Position

from board_helpers import incidents_of, moves_of
from board_scenario import Script, idx

PAIRS = [(CLASS_LETTERS.index(c), CLASS_LETTERS.index(c.lower())) for c in "KABNRCP"]


def colour_blind(obs):
    """The reading of a set whose red and black pieces look alike: each piece's probability shared
    evenly between its red and its black class."""
    p = np.array(obs.probs, dtype=np.float64)
    for r, b in PAIRS:
        p[:, r] = p[:, b] = (p[:, r] + p[:, b]) / 2
    return dataclasses.replace(obs, probs=p.astype(np.float32))


def from_the_other_end(obs):
    """The same frame with the lattice locked the other way round."""
    pose = obs.pose if obs.pose is None else dataclasses.replace(
        obs.pose, homography=turned_homography(obs.pose.homography))
    return dataclasses.replace(obs, pose=pose, probs=turned_points(obs.probs), occluded=turned_points(obs.occluded),
                               offset=turned_offsets(obs.offset))


def _game() -> Script:
    s = Script(seed=21).quiet(0.6)
    s.move("h2c2", touch_first="h0").quiet(0.6)
    s.move("b9c7").quiet(0.6)
    s.move("i3i4").quiet(0.6)
    s.move("h7f7").quiet(0.6)
    s.move("c0e2").quiet(0.6)
    return s


def _track(script: Script, turn, source_turns: bool = False):
    tr = Tracker()
    events = []
    for obs in observations(script.frames, NoiseProfile(seed=4)):
        if turn and not (source_turns and tr.ply > 0 and not tr.turning_input):
            obs = from_the_other_end(obs)
        got = tr.feed(colour_blind(obs))
        events.extend(got)
        if source_turns and any(e.type == "tracking" and e.status == "board_turned" for e in got):
            tr.source_turned()   # as the recorder does once the reader turned its lattice
    events.extend(tr.finish())
    return tr, events


def _turns(events) -> list:
    return [e for e in events if e.type == "tracking" and e.status == "board_turned"]


def test_a_first_move_that_is_reds_only_read_the_other_way_round_turns_the_board():
    s = _game()
    tr, events = _track(s, turn=True)
    assert moves_of(events) == [m["iccs"] for m in s.moves]
    assert len(_turns(events)) == 1 and _turns(events)[0].ply == 0
    assert tr.turning_input     # no source turned: the tracker goes on turning what it is fed
    # and the touch before the first move is judged on the board the right way round
    assert [(i.kind, i.ply, i.points[0]) for i in incidents_of(events)] == [("touch_move_other", 1, idx("h0"))]


def test_once_the_source_reads_the_board_turned_its_observations_are_taken_as_they_come():
    s = _game()
    tr, events = _track(s, turn=True, source_turns=True)
    assert moves_of(events) == [m["iccs"] for m in s.moves]
    assert len(_turns(events)) == 1 and not tr.turning_input


def test_a_board_read_the_right_way_round_is_never_turned():
    s = _game()
    _, events = _track(s, turn=False)
    assert moves_of(events) == [m["iccs"] for m in s.moves]
    assert _turns(events) == []


def test_with_colours_read_a_board_locked_the_wrong_way_round_is_turned_at_the_first_move_too():
    # red's pieces read at black's end: the start does not match as read, and the first move is a
    # legal one only the other way round
    s = _game()
    tr = Tracker()
    events = []
    for obs in observations(s.frames, NoiseProfile(seed=4)):
        events.extend(tr.feed(from_the_other_end(obs)))
    events.extend(tr.finish())
    assert len(_turns(events)) == 1
    assert moves_of(events) == [m["iccs"] for m in s.moves]


def test_a_first_move_that_is_no_legal_move_either_way_round_turns_nothing():
    # a red piece taken off the board before anything moved: no legal move explains it, read either way
    s = Script(seed=22).quiet(0.6)
    s.move("h2c2").quiet(0.6)
    s.frames = [dataclasses.replace(f, board=f.board[:idx("a0")] + "." + f.board[idx("a0") + 1:])
                if f.t > 1.2 else f for f in s.frames]
    tr = Tracker()
    events = []
    for obs in observations(s.frames, NoiseProfile(seed=4)):
        events.extend(tr.feed(colour_blind(from_the_other_end(obs))))
    assert _turns(events) == []


def test_only_a_start_that_looks_alike_from_both_ends_can_be_turned():
    assert alike_turned(Position())
    moved = Position()
    moved.push(Move.from_iccs("h2e2"))
    assert not alike_turned(moved)
    black_to_move = Position.from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")
    assert not alike_turned(black_to_move)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_turning_twice_gives_back_what_was_read(seed):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(15), 90).astype(np.float32)
    occ = rng.random(90) < 0.2
    off = rng.normal(0, 0.2, (90, 2))
    fr = Frame(1.0, 7, True, occ, probs, off)
    back = fr.turned().turned()
    assert np.array_equal(back.probs, probs) and np.array_equal(back.occluded, occ) and np.allclose(back.offsets, off)
    ev = Evidence(np.log(probs), ~occ, occ)
    assert np.array_equal(ev.turned().turned().logp, ev.logp)
    settled = Settled(0.0, 0, rng.integers(0, 15, 90), off, ~occ, rng.random(90), covered=occ,
                      observed=rng.integers(0, 15, 90), empty_prob=rng.random(90), looks=rng.normal(size=(90, 8)))
    ep = Episode(0.0, 0, settled, homography=np.array([[30.0, 2, 400], [1, -30, 600], [0, 0.001, 1]]))
    ep.update(0.04, 1, occ, probs, off)
    twice = ep.turned().turned()
    assert [c.tolist() for _, _, c in twice.covered] == [c.tolist() for _, _, c in ep.covered]
    assert np.allclose(twice.homography, ep.homography) and np.array_equal(twice.home_last_seen, ep.home_last_seen)
    assert np.allclose(twice.before.offsets, off) and np.array_equal(twice.before.looks, settled.looks)


def test_a_point_turned_is_the_same_place_in_the_image():
    h = np.array([[30.0, 2, 400], [1, -30, 600], [0, 0.001, 1]])
    a0 = h @ np.array([0.0, 0.0, 1.0])
    i9_turned = turned_homography(h) @ np.array([8.0, 9.0, 1.0])
    assert np.allclose(a0[:2] / a0[2], i9_turned[:2] / i9_turned[2])
    assert np.allclose(TURN @ TURN, np.eye(3))
    # a disc lying toward the next file reads toward the file before it the other way round
    off = np.zeros((90, 2))
    off[0] = (0.3, 0.1)
    assert np.allclose(turned_offsets(off)[89], (-0.3, -0.1))
