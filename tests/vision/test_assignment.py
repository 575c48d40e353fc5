"""Joint board reading (vision.assignment): never an impossible position, exactly optimal."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.assignment import (STANDARD_SET, AssignConfig, SetCounts, assign_classes, placement_mask,
                               read_jointly)
from vision.observation import CLASSES

START = "RNBAKABNR" + "." * 9 + ".C.....C." + "P.P.P.P.P" + "." * 18 + "p.p.p.p.p" + ".c.....c." + "." * 9 + "rnbakabnr"


def one_hot(board: str, sure: float = 0.9) -> np.ndarray:
    """Per-point probabilities that favour `board` (90 chars, index order) with `sure`."""
    p = np.full((90, 15), (1.0 - sure) / 14.0)
    p[np.arange(90), [CLASSES.index(c) for c in board]] = sure
    return p


def counts_ok(labels: np.ndarray, counts: SetCounts = STANDARD_SET) -> bool:
    return bool((np.bincount(labels, minlength=15) <= counts.capacity()).all())


def test_a_third_red_horse_becomes_the_piece_it_was_next_most_likely_to_be() -> None:
    board = list(START)
    p = one_hot("".join(board))
    # the red chariot at a0 reads as a horse (0.6), chariot second (0.35)
    p[0] = 0.05 / 13
    p[0, CLASSES.index("N")] = 0.6
    p[0, CLASSES.index("R")] = 0.35
    assert CLASSES[p[0].argmax()] == "N"
    r = read_jointly(p)
    assert r.board_string() == START
    assert r.changed[0] and r.changed.sum() == 1
    assert r.unsure[0] or r.confidence[0] < 0.9


def test_a_general_read_outside_its_palace_is_not_kept_in_a_game_position() -> None:
    board = list(START)
    board[4] = "."            # the red general's own point reads empty ...
    board[2 * 9 + 0] = "K"    # ... and a general is read at a2, outside any palace
    p = one_hot("".join(board))
    r = read_jointly(p, try_flip=False)
    assert r.board_string()[18] != "K"
    r_any = read_jointly(p, game_position=False, try_flip=False)
    assert r_any.board_string()[18] == "K"    # without placement rules a lone general may stand anywhere


def test_the_board_is_turned_when_red_is_read_at_the_far_end() -> None:
    p = one_hot(START)[::-1]
    r = read_jointly(p)
    assert r.flipped and r.board_string() == START


def test_plain_readings_that_fit_a_set_are_left_alone_and_confidence_is_the_plain_probability() -> None:
    p = one_hot(START, sure=0.8)
    r = read_jointly(p)
    assert r.board_string() == START and not r.changed.any() and not r.flipped
    assert np.allclose(r.confidence, r.probs.max(axis=1))
    assert np.allclose(r.probs.sum(axis=1), 1.0, atol=1e-5)


def test_soldiers_behind_their_start_rank_and_elephants_off_their_points_are_forbidden() -> None:
    m = placement_mask(True)
    P, p, B, b = (CLASSES.index(c) for c in "PpBb")
    assert not m[0 * 9 + 0, P] and not m[3 * 9 + 1, P] and m[3 * 9 + 0, P] and m[5 * 9 + 1, P]
    assert not m[9 * 9 + 0, p] and not m[6 * 9 + 1, p] and m[6 * 9 + 0, p] and m[4 * 9 + 1, p]
    assert m[0 * 9 + 2, B] and m[4 * 9 + 6, B] and not m[5 * 9 + 2, B] and not m[1 * 9 + 2, B]
    assert m[9 * 9 + 2, b] and m[5 * 9 + 6, b] and not m[4 * 9 + 2, b]
    assert m[:, 0].all()
    assert int(m[:, CLASSES.index("K")].sum()) == 9 and int(m[:, CLASSES.index("A")].sum()) == 5
    assert int(m[:, B].sum()) == 7 and int(m[:, b].sum()) == 7
    assert np.array_equal(placement_mask(False), placement_mask(True)[::-1])


def _brute_force_cost(p: np.ndarray, counts: SetCounts, cfg: AssignConfig) -> float:
    """Cheapest labelling under the counts by enumeration (tiny boards only)."""
    from vision.assignment import _costs
    c = _costs(p, None, cfg)
    n = len(p)
    cap = counts.capacity()
    cap[0] = max(cap[0], n)
    combos = np.array(list(itertools.product(range(15), repeat=n)))
    cost = c[np.arange(n), combos].sum(axis=1)
    ok = np.all(np.stack([(combos == k).sum(axis=1) <= cap[k] for k in range(15)]), axis=0)
    return float(cost[ok].min())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.sampled_from([0.1, 0.3, 1.0]))
def test_the_joint_reading_is_the_cheapest_labelling_within_the_counts(seed: int, alpha: float) -> None:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(15, alpha), size=4)
    counts = SetCounts(general=1, advisor=1, elephant=0, horse=1, chariot=2, cannon=1, soldier=1)
    cfg = AssignConfig()
    r = assign_classes(p, counts, config=cfg)
    assert counts_ok(r.labels, counts)
    assert r.cost == pytest.approx(_brute_force_cost(p, counts, cfg), abs=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.sampled_from([0.05, 0.2, 1.0]), game=st.booleans())
def test_any_board_of_readings_gives_a_possible_position(seed: int, alpha: float, game: bool) -> None:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(15, alpha), size=90)
    r = read_jointly(p, game_position=game)
    assert counts_ok(r.labels)
    if game:
        assert placement_mask(True)[np.arange(90), r.labels].all()
    assert r.unsure.dtype == bool and ((r.confidence > 0) & (r.confidence <= 1 + 1e-6)).all()


def test_bad_probabilities_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match=r"probs must be \(90, 15\)"):
        read_jointly(np.ones((90, 14)))
    p = one_hot(START)
    p[3, 3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        read_jointly(p)
