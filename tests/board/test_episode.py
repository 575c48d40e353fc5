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
