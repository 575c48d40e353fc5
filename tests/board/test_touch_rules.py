"""Touch-move judged from a real hand's covered points (board.incidents on hand-made episodes).

A hand detector flags the points a hand covers; where exactly the fingers rest within that
region is uncertain by a point (a broad hand, a hand cut by the board's edge, fingers that
reach past the disc they pinch). These cases come from rendered clips with real hand
detection (bench clips 7101, 7103, 7104), reduced to their covered points.
"""
from __future__ import annotations

import numpy as np

from board.episode import Episode, Settled
from board.explain import Explanation, board_classes
from board.incidents import IncidentTracker
from rules import Move, Position

FPS = 25.0
TOP_DOWN = np.array([[50.0, 0.0, 100.0], [0.0, -50.0, 600.0], [0.0, 0.0, 1.0]])   # camera straight above


def _p(name: str) -> int:
    return int(name[1]) * 9 + "abcdefghi".index(name[0])


def _run(position: Position, move: str, stretches: list[tuple[list[str], float]]) -> list:
    """Play the hand's stretches (covered points, seconds) over one episode ending in `move`."""
    classes = board_classes(position)
    before = Settled(0.0, 0, classes, np.zeros((90, 2)), np.ones(90, bool), np.ones(90), empty_prob=np.zeros(90))
    ep = Episode(0.04, 1, before)
    ep.homography = TOP_DOWN
    f = 1
    probs = np.zeros((90, 15))
    probs[np.arange(90), classes] = 1.0
    for names, secs in stretches:
        occ = np.zeros(90, bool)
        occ[[_p(n) for n in names]] = True
        for _ in range(int(round(secs * FPS))):
            ep.update(f / FPS, f, occ, probs, np.zeros((90, 2)))
            f += 1
    m = Move.from_iccs(move)
    after_pos = position.copy()
    after_pos.push(m)
    after_classes = board_classes(after_pos)
    after = Settled(f / FPS, f, after_classes, np.zeros((90, 2)), np.ones(90, bool), np.ones(90),
                    empty_prob=np.zeros(90))
    ex = Explanation([m], 10.0, 10.0, after_classes, [])
    return IncidentTracker().after_settle(ep, after, ex, position, 1)


def _touches(events) -> list:
    return [sorted(e.points) for e in events if e.kind == "touch_move_other"]


def test_a_hand_cut_by_the_board_edge_picking_up_the_edge_piece_is_not_a_touch_of_its_neighbour():
    # red reaches up the i-file for the soldier on i3; the region's centre says h3 (the
    # hand's right part is beyond the board), and the cannon on h2 is under the hand
    region = ["g0", "h0", "i0", "g1", "h1", "i1", "h2", "i2", "g3", "h3", "i3"]
    ev = _run(Position(), "i3i4", [(region, 0.5), (["h2", "i2", "i3", "i4", "h3"], 0.4)])
    assert _touches(ev) == []


def test_a_rest_on_another_own_piece_then_a_quick_pick_up_is_a_touch():
    # red rests on the horse h0, then picks up the elephant g0 too quickly for a rest of its own
    ev = _run(Position(), "g0e2", [(["h0"], 0.4), (["g0", "h0", "f0"], 0.12),
                                   (["d0", "e0", "f0", "e1", "e2", "d1", "f1"], 0.4)])
    assert _touches(ev) == [sorted([_p("h0"), _p("g0")])]


def test_fingers_reaching_past_the_touched_disc_still_touch_it():
    # red's fingers rest on the elephant c0 and reach over c1 (the leading covered point),
    # then the general moves e0-e1
    ev = _run(Position(), "e0e1", [(["b0", "c0", "d0", "e0", "c1"], 0.5), (["d0", "e0", "f0"], 0.12),
                                   (["d0", "e0", "f0", "e1"], 0.4)])
    assert _touches(ev) == [sorted([_p("c0"), _p("e0")])]


def test_a_hand_centred_between_two_files_over_the_moved_piece_is_the_pick_up():
    # black's hand over f8/g8 (centre between the files), the elephant g9 under it is moved
    pos = Position()
    pos.push(Move.from_iccs("h2e2"))
    ev = _run(pos, "g9e7", [(["e9", "f8", "f9", "g8", "g9", "h9"], 0.45), (["e8", "e7", "f8", "f9"], 0.4)])
    assert _touches(ev) == []


def test_a_rest_on_an_edge_piece_before_moving_a_piece_one_point_over_is_a_touch():
    # red's hand rests over h3/i3 (its region cut by the board's right edge; the soldier on
    # i3), then takes the chariot i0 to h0: pick-up and put-down share one rest
    pos = Position.from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB1R w - - 0 1")
    region = ["g0", "h0", "i0", "g1", "h1", "i1", "g2", "h2", "i2", "h3", "i3"]
    ev = _run(pos, "i0h0", [(region, 0.6), (["g0", "h0", "i0", "h1"], 0.5)])
    touches = _touches(ev)
    assert len(touches) == 1 and _p("i3") in touches[0] and _p("i0") in touches[0]
