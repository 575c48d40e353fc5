"""Fingertip point of a hand's covered region (board.episode.fingertips)."""
from __future__ import annotations

import numpy as np

from board.episode import fingertips


def _pts(*fr: tuple[int, int]) -> np.ndarray:
    return np.array([r * 9 + f for f, r in fr])


def test_broad_hand_points_at_its_centre_not_its_outer_edge():
    # red's hand reaching up the e-file: fingers over d3, e3, f3, palm and wrist below
    covered = _pts((3, 3), (4, 3), (5, 3), (3, 2), (4, 2), (5, 2), (4, 1), (4, 0))
    assert fingertips(covered, "red") == 3 * 9 + 4            # e3, not d3 / f3


def test_hand_off_centre_keeps_its_own_file():
    # red's hand at the right edge: the outermost point would be i3, the hand is over h3
    covered = _pts((6, 3), (7, 3), (8, 3), (6, 2), (7, 2), (8, 2), (7, 1), (7, 0))
    assert fingertips(covered, "red") == 3 * 9 + 7            # h3


def test_black_reaches_down_the_board():
    covered = _pts((2, 5), (2, 6), (1, 6), (3, 6), (2, 7), (2, 8), (2, 9))
    assert fingertips(covered, "black") == 5 * 9 + 2          # c5, the lowest rank it reaches


def test_stray_point_away_from_the_hand_is_ignored():
    covered = _pts((4, 4), (4, 3), (4, 2), (4, 1), (4, 0), (0, 8))
    assert fingertips(covered, "red") == 4 * 9 + 4


def test_an_arm_reaching_in_diagonally_points_along_its_line():
    # red's arm enters over d0/e0 and reaches up-left to c4: the leading ranks' centre
    # (pulled back toward the elbow) would say d4, the arm's line says c4
    covered = _pts((3, 0), (4, 0), (2, 0), (2, 1), (3, 1), (4, 1), (1, 1), (2, 2), (3, 2), (4, 2),
                   (1, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4))
    assert fingertips(covered, "red") == 4 * 9 + 2            # c4


def _hand_over_frames(regions: list[list[tuple[int, int]]], frames_each: int = 4):
    """An episode whose covered points grow and shrink through `regions` (files, ranks), each
    held for `frames_each` frames at 25 fps."""
    import numpy as np
    from board.episode import Episode, Settled
    before = Settled(0.0, 0, np.zeros(90, dtype=np.int64), np.zeros((90, 2)), np.ones(90, bool), np.ones(90))
    ep = Episode(0.0, 0, before)
    probs = np.full((90, 15), 1 / 15)
    f = 0
    for region in regions:
        occ = np.zeros(90, bool)
        occ[_pts(*region)] = True
        for _ in range(frames_each):
            f += 1
            ep.update(f / 25, f, occ, probs, np.zeros((90, 2)))
    return ep


def _arm(file: int, ranks: range) -> list[tuple[int, int]]:
    return [(x, r) for r in ranks for x in (file - 1, file, file + 1) if 0 <= x <= 8]


def test_a_hand_seen_coming_in_over_one_players_edge_is_not_the_others_where_it_spans_the_board():
    """(Asked by_entry.) Held-back 9065 of stop 34, moved to tuning: red's hand reached to h8 over red's edge and was
    seen over ranks 0-9 (a raised hand is seen beyond its fingers); read as black's too, black's
    'fingertips' sat on the cannon h0 at red's edge for 0.68 s: 'black touched h0'."""
    from board.episode import dwells
    growing = [_arm(7, range(0, k)) for k in (2, 4, 6, 8)]
    ep = _hand_over_frames(growing + [_arm(7, range(0, 10))] * 5 + growing[::-1])
    assert dwells(ep, "black", 0.28, by_entry=True) == []
    assert [d.point for d in dwells(ep, "black", 0.28)] == [7]     # not asked: either player's
    assert [d.point for d in dwells(ep, "red", 0.28, by_entry=True)] == [9 * 9 + 7]
    # the same from black's edge is black's alone
    growing = [_arm(2, range(10 - k, 10)) for k in (2, 4, 6, 8)]
    ep = _hand_over_frames(growing + [_arm(2, range(0, 10))] * 5 + growing[::-1])
    assert dwells(ep, "red", 0.28, by_entry=True) == []
    assert [d.point for d in dwells(ep, "black", 0.28, by_entry=True)] == [2]


def test_a_region_first_seen_across_the_whole_board_may_be_either_players_hand():
    from board.episode import dwells
    ep = _hand_over_frames([_arm(4, range(0, 10))] * 10)
    assert [d.point for d in dwells(ep, "red", 0.28, by_entry=True)] == [9 * 9 + 4]
    assert [d.point for d in dwells(ep, "black", 0.28, by_entry=True)] == [4]


def test_a_hand_that_left_its_edge_no_longer_keeps_the_other_players_hand_out():
    # red's hand withdraws off its edge while black's comes in from the far edge, one region seen
    # throughout: once the region no longer reaches red's edge, what is seen may be black's
    from board.episode import dwells
    red_in = [_arm(4, range(0, k)) for k in (2, 4)]
    black_in = [_arm(4, range(6, 10)), _arm(4, range(3, 10)), _arm(4, range(3, 10))]
    ep = _hand_over_frames(red_in + black_in)
    assert [d.point for d in dwells(ep, "black", 0.28, by_entry=True)] == [3 * 9 + 4]
