"""The pieces as witnesses of the locked lattice (vision.lock_confirm): they confirm a lattice
that lies under them and refuse one a fraction of a spacing off, so that searches are spared only
where a search could find nothing better."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.anchor import board_ids
from vision.lock_confirm import lattice_drift, witness
from vision.observation import CLASSES, NUM_POINTS

START = "RNBAKABNR" + "." * 9 + ".C.....C." + "P.P.P.P.P" + "." * 18 + "p.p.p.p.p" + ".c.....c." + "." * 9 + "rnbakabnr"
IDS = board_ids(START, "test")
OCC = IDS != 0
XY = np.stack([np.arange(NUM_POINTS) % 9, np.arange(NUM_POINTS) // 9], axis=1).astype(float) - [4.0, 4.5]
SETTINGS = dict(explained_share=0.9, max_drift=0.1, far=0.35, min_discs=12)


def _probs(ids: np.ndarray) -> np.ndarray:
    p = np.full((NUM_POINTS, len(CLASSES)), 0.01, np.float32)
    p[np.arange(NUM_POINTS), ids] = 0.9
    return p


def _affine_offsets(shift=(0.0, 0.0), scale: float = 0.0, turn: float = 0.0) -> np.ndarray:
    """Offsets the discs show when the lattice is off their points by a shift, a scale and a turn
    (each point's disc lies where the true lattice puts it)."""
    c, s = np.cos(turn), np.sin(turn)
    moved = (XY @ np.array([[c, s], [-s, c]])) * (1.0 + scale) + np.asarray(shift)
    return (moved - XY).astype(np.float32)


def test_the_start_position_standing_on_its_points_confirms_the_lattice():
    rng = np.random.default_rng(1)
    off = rng.normal(0.0, 0.02, (NUM_POINTS, 2)).astype(np.float32)
    w = witness(_probs(IDS), off, IDS, **SETTINGS)
    assert w.confirmed and w.known_share == 1.0 and w.discs == 32 and w.drift is not None and w.drift < 0.05


def test_a_lattice_a_fifth_of_a_spacing_off_is_not_confirmed():
    w = witness(_probs(IDS), _affine_offsets(shift=(0.2, 0.0)), IDS, **SETTINGS)
    assert not w.confirmed and w.drift is not None and abs(w.drift - 0.2) < 1e-6


def test_a_lattice_three_percent_too_small_is_not_confirmed_for_its_far_points_lie_off():
    w = witness(_probs(IDS), _affine_offsets(scale=0.03), IDS, **SETTINGS)
    assert not w.confirmed and w.drift is not None and w.drift > 0.15


def test_a_lattice_half_a_spacing_off_leaves_too_few_discs_near_their_points_to_judge():
    drift, used = lattice_drift(_affine_offsets(shift=(0.5, 0.0)), OCC, 0.35, 12)
    assert drift is None and used == 0
    assert not witness(_probs(IDS), _affine_offsets(shift=(0.5, 0.0)), IDS, **SETTINGS).confirmed


def test_one_disc_knocked_aside_or_left_between_points_does_not_unseat_a_right_lattice():
    off = np.zeros((NUM_POINTS, 2), np.float32)
    off[0] = (0.6, 0.0)      # the corner chariot knocked well off: left out of the fit
    off[85] = (0.3, 0.0)     # a disc left between points, measured within the fit's reach
    w = witness(_probs(IDS), off, IDS, **SETTINGS)
    assert w.confirmed and w.discs == 31


def test_a_lattice_a_file_off_reads_too_little_of_the_known_position_to_be_confirmed():
    shifted = np.roll(IDS.reshape(10, 9), 1, axis=1).reshape(-1)     # every point read from its neighbour
    w = witness(_probs(shifted), np.zeros((NUM_POINTS, 2), np.float32), IDS, **SETTINGS)
    assert not w.confirmed and w.known_share < 0.9


def test_a_late_endgame_with_few_discs_confirms_nothing():
    ids = np.zeros(NUM_POINTS, int)
    ids[[4, 13, 22, 85, 76]] = [1, 2, 5, 8, 12]
    w = witness(_probs(ids), np.zeros((NUM_POINTS, 2), np.float32), ids, **SETTINGS)
    assert not w.confirmed and w.drift is None


@settings(max_examples=200, deadline=None, derandomize=True)
@given(dx=st.floats(-0.3, 0.3), dy=st.floats(-0.3, 0.3), scale=st.floats(-0.04, 0.04), turn=st.floats(-0.03, 0.03))
def test_any_common_drift_a_search_could_correct_is_refused_and_any_small_one_is_confirmed(dx, dy, scale, turn):
    off = _affine_offsets((dx, dy), scale, turn)
    worst = float(np.hypot(off[:, 0], off[:, 1]).max())
    w = witness(_probs(IDS), off, IDS, **SETTINGS)
    if worst >= 0.11:
        assert not w.confirmed, (dx, dy, scale, turn, w)
    elif worst <= 0.09:
        assert w.confirmed, (dx, dy, scale, turn, w)
