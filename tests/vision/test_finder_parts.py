"""The board finder's parts against plain reference computations, and refusing false locks.

The fast forms (running sums, sliding windows, one comb pass for 9 and 10 teeth) must compute
what the straightforward loops compute; a lattice whose reading is implausible is refused and
the next best lattice tried, or "no board" reported with the reason.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision import geometry as geo
from vision.lines import ridge_response
from vision.locate import BoardNotFoundError, _comb_candidates, _window_scores, find_lattice, same_lattice
from vision.observation import CLASSES, NUM_POINTS
from vision.reader import MAX_PIECES, PointReads, locate_and_read, reading_doubt


# ----------------------------------------------------------------------------- ridge response
def _ridge_naive(prof: np.ndarray, w: int, polarity: int) -> np.ndarray:
    p = prof.astype(np.float64) * polarity
    n, L = p.shape
    out = np.full((n, L), -np.inf)
    a, b = w, 3 * w
    for i in range(b, L - b):
        left = p[:, i - b: i - a + 1].mean(axis=1)
        right = p[:, i + a: i + b + 1].mean(axis=1)
        c = p[:, i] if w < 2 else (p[:, i - 1] + 2 * p[:, i] + p[:, i + 1]) / 4
        r = np.minimum(left, right) - c
        out[:, i] = np.where(np.isfinite(r), r, -np.inf)
    return out


@settings(max_examples=40, deadline=None, derandomize=True)
@given(arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(5, 40)),
              elements=st.floats(0, 255, width=32)),
       st.integers(1, 5), st.sampled_from([1, -1]))
def test_ridge_response_matches_the_definition(prof, w, polarity):
    got = ridge_response(prof, w, polarity)
    want = _ridge_naive(prof, w, polarity)
    assert got.shape == prof.shape
    assert np.array_equal(np.isfinite(got), np.isfinite(want))
    assert np.allclose(got[np.isfinite(got)], want[np.isfinite(want)], atol=1e-2)


def test_ridge_response_of_a_line_and_of_a_profile_off_the_image():
    prof = np.full((2, 31), 200.0, np.float32)
    prof[:, 15] = 100.0                       # a dark line in the middle
    prof[1, :3] = np.nan                      # the second profile runs off the image
    r = ridge_response(prof, 2, 1)
    assert int(np.argmax(r[0])) == 15 and r[0, 15] == pytest.approx(50.0)  # 200 - (200+2*100+200)/4
    assert ridge_response(prof, 2, -1)[0, 15] < 0                          # not a light line
    assert not np.isfinite(r[1]).any()        # off the image: no evidence either way


# ----------------------------------------------------------------------------- window scores
def _window_scores_loop(a_lines: np.ndarray, a_segs: np.ndarray) -> np.ndarray:
    na, nb = a_lines.shape[0], a_segs.shape[0]
    out = np.zeros((na - 8, nb - 9))
    for a0 in range(na - 8):
        for b0 in range(nb - 9):
            files = a_lines[a0:a0 + 9, b0:b0 + 9]
            ranks = a_segs[b0:b0 + 10, a0:a0 + 8]
            river = files[1:8, 4]
            sup = (files.sum() - river.sum() + ranks.sum()) / (81 - 7 + 80)
            per_file = (files.sum(axis=1) - files[:, 4]) / 8.0
            lines_ok = (np.count_nonzero(per_file >= 0.15) + np.count_nonzero(ranks.mean(axis=1) >= 0.15)) / 19.0
            ext = []
            if b0 >= 1:
                ext.append(a_lines[a0:a0 + 9, b0 - 1])
            if b0 + 9 < a_lines.shape[1]:
                ext.append(a_lines[a0:a0 + 9, b0 + 9])
            if a0 >= 1:
                ext.append(a_segs[b0:b0 + 10, a0 - 1])
            if a0 + 8 < a_segs.shape[1]:
                ext.append(a_segs[b0:b0 + 10, a0 + 8])
            ext_line = sum(e.sum() for e in ext) / sum(e.size for e in ext) if ext else 0.0
            out[a0, b0] = sup * lines_ok ** 2 * (1 - 0.5 * river.mean()) - 0.5 * ext_line
    return out


@pytest.mark.parametrize("na,nb", [(9, 10), (17, 18), (12, 11), (10, 14)])
def test_window_scores_match_the_loop(na, nb):
    rng = np.random.default_rng(na * 100 + nb)
    a_lines = (rng.random((na, nb - 1)) < rng.random()).astype(float)  # hit fractions, 0/1 and in between
    a_lines[rng.random(a_lines.shape) < 0.3] = rng.random()
    a_segs = rng.random((nb, na - 1))
    assert np.allclose(_window_scores(a_lines, a_segs), _window_scores_loop(a_lines, a_segs), atol=1e-12)


def test_window_scores_prefer_the_true_window():
    """A 9x10 lattice drawn inside a larger grid of measurements, with a river and blank
    surroundings: the window on it scores best."""
    na, nb = 15, 16
    a_lines = np.zeros((na, nb - 1))
    a_segs = np.zeros((nb, na - 1))
    a0, b0 = 3, 2
    a_lines[a0:a0 + 9, b0:b0 + 9] = 0.9
    a_lines[a0 + 1:a0 + 8, b0 + 4] = 0.0       # river
    a_segs[b0:b0 + 10, a0:a0 + 8] = 0.9
    sc = _window_scores(a_lines, a_segs)
    assert np.unravel_index(int(np.argmax(sc)), sc.shape) == (a0, b0)


# ----------------------------------------------------------------------------- combs
@pytest.mark.parametrize("n", [9, 10])
def test_comb_found_among_clutter(n):
    rng = np.random.default_rng(n)
    off, sp = 123.4, 37.9
    teeth = off + sp * np.arange(n)
    pos = np.concatenate([np.repeat(teeth, 12) + rng.normal(0, 0.6, 12 * n),   # the board's lines
                          rng.uniform(0, 800, 60)])                             # clutter
    wt = np.concatenate([np.ones(12 * n), rng.uniform(0.2, 1.0, 60)])
    best = _comb_candidates(pos, wt, (9, 10), top=2)[n][0]
    assert abs(best.spacing - sp) < 0.02 * sp and abs(best.offset - off) < 0.1 * sp


def test_comb_needs_evidence():
    assert _comb_candidates(np.array([1.0, 2.0]), np.ones(2), (9, 10)) == {9: [], 10: []}


# ----------------------------------------------------------------------------- refusing locks
def test_found_lattice_can_be_excluded(vsim):
    img, truth = vsim.still(105, look="cloth", tilt=5, azimuth=135)
    img = np.ascontiguousarray(img)
    fit = find_lattice(img)
    assert same_lattice(fit.homography, truth.homography)
    assert same_lattice(fit.homography @ geo.board_symmetry("rot180"), truth.homography)
    try:
        other = find_lattice(img, exclude=(fit.homography,))
    except BoardNotFoundError:
        return  # nothing else that looks like a board: fine
    assert not same_lattice(other.homography, fit.homography)


def _probs(board: str) -> np.ndarray:
    p = np.full((NUM_POINTS, len(CLASSES)), 0.01, np.float32)
    p[np.arange(NUM_POINTS), [CLASSES.index(c) for c in board]] = 0.9
    return p / p.sum(1, keepdims=True)


START = "RNBAKABNR" + "." * 9 + ".C.....C." + "P.P.P.P.P" + "." * 9 + "." * 9 + "p.p.p.p.p" + ".c.....c." + "." * 9 + "rnbakabnr"


def test_reading_doubt():
    assert reading_doubt(_probs(START)) is None
    # the start position with two points misread as pieces is still read, not refused
    assert reading_doubt(_probs(START[:9] + "PP" + START[11:])) is None
    crowded = "P" * (MAX_PIECES + 3) + "." * (NUM_POINTS - MAX_PIECES - 3)
    assert "at most 32" in reading_doubt(_probs(crowded))


class _StubReader:
    """Reads the k-th lattice it is shown as boards[k] (the last one from then on); records them."""

    def __init__(self, *boards: str) -> None:
        self.boards = boards
        self.seen: list[np.ndarray] = []

    def run(self, image, h, points=None):
        self.seen.append(h)
        board = self.boards[min(len(self.seen), len(self.boards)) - 1]
        return PointReads(_probs(board), np.zeros((NUM_POINTS, 2), np.float32),
                          np.zeros((NUM_POINTS, 8, 8, 3), np.uint8))


def test_implausible_lattice_is_refused_with_a_reason(vsim):
    img, _ = vsim.still(105, look="cloth", tilt=5, azimuth=135)
    crowded = "P" * 40 + "." * 50
    with pytest.raises(BoardNotFoundError, match="plausible position.*at most 32"):
        locate_and_read(np.ascontiguousarray(img), _StubReader(crowded))


def test_refused_lattice_gives_way_to_the_next(vsim):
    """Readings refuse the first lattice: the one returned is another lattice (or no board)."""
    img, _ = vsim.still(105, look="cloth", tilt=5, azimuth=135)
    img = np.ascontiguousarray(img)
    stub = _StubReader("P" * 40 + "." * 50, START)
    try:
        h = locate_and_read(img, stub).homography
    except BoardNotFoundError:
        return
    assert len(stub.seen) == 2 and not same_lattice(stub.seen[1], stub.seen[0])
    assert same_lattice(h, stub.seen[1])


def test_a_board_labelled_from_its_other_end_keeps_the_crops_it_was_read_from(vsim):
    """The reader takes each point's look from the crops the search read (no second extraction):
    when the search turns the board half round (red's end decided by the pieces), or a re-lock
    keeps red where it was, those crops must be the ones the turned lattice would cut, point for
    point."""
    from vision.looks import disc_looks
    from vision.reader import _Classify, _turned_half_round

    img, _ = vsim.still(105, width=960, height=540)
    img = np.ascontiguousarray(img)
    clf = _Classify(None, None)
    found = locate_and_read(img, clf)
    assert found.reads is not None
    h = found.homography @ geo.board_symmetry("rot180")
    turned = _turned_half_round(found, h / h[2, 2])
    assert turned.reads is not None
    direct = clf.model.extract(img, turned.homography)
    assert np.abs(turned.reads.crops.astype(int) - direct.astype(int)).max() <= 1
    change = 1.0 - np.einsum("nd,nd->n", disc_looks(turned.reads.crops), disc_looks(direct))
    assert float(change.max()) < 1e-3
    assert np.array_equal(turned.reads.probs, found.reads.probs[::-1])
    assert np.array_equal(turned.reads.offsets, -found.reads.offsets[::-1])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(arrays(np.float64, st.integers(0, 60), elements=st.floats(-1e6, 1e6)))
def test_fast_median_is_the_median(x):
    got = geo.median(x)
    if len(x) == 0:
        assert np.isnan(got)
    else:
        assert got == np.median(x)


def test_batched_first_look_scores_like_verify(vsim):
    """The comb hypotheses' first look, batched, gives `_verify`'s coarse scores."""
    from vision.locate import _verify, _verify_coarse_many, to_gray
    img, truth = vsim.still(101, look="wood", tilt=40, azimuth=30)
    gray = to_gray(np.ascontiguousarray(img))
    rng = np.random.default_rng(3)
    hs = [truth.homography]
    for _ in range(10):  # near misses, shifted/stretched lattices, nonsense
        hs.append(truth.homography @ np.array([[1 + rng.normal(0, 0.05), rng.normal(0, 0.02), rng.normal(0, 0.5)],
                                               [rng.normal(0, 0.02), 1 + rng.normal(0, 0.05), rng.normal(0, 0.5)],
                                               [0, 0, 1.0]]))
    hs.append(np.diag([0.5, 0.5, 1.0]))                # a tiny lattice in the corner
    hs.append(truth.homography @ np.diag([40.0, 40.0, 1.0]))  # far bigger than the image
    got = _verify_coarse_many(gray, hs)
    for h, v in zip(hs, got):
        want = _verify(gray, h, coarse=True)
        assert v.score == pytest.approx(want.score, abs=1e-9)
        if want.score > -1:
            same = _verify(gray, h, v.polarity, coarse=True)   # the batch's polarity, judged alone
            assert v.polarity == want.polarity or v.score == pytest.approx(same.score)
            assert v.support == pytest.approx(same.support) and v.river_clear == pytest.approx(same.river_clear)
    assert got[0].score > 0.4 and got[0].score == max(g.score for g in got)


def test_a_lattice_only_a_later_search_pass_found_is_kept_only_where_it_reads_more_pieces(monkeypatch):
    """Tuning 8836: the search's first pass found the true lattice (0.37) and its last pass, with
    coarse combs on the wide angle band, one nine spacings off (0.47). A lattice found only by a
    later pass is weighed against the first pass's by the pieces each reads surely: the later
    one is kept only where it reads more (tuning 9280: the first pass's lattice off the board
    read almost nothing)."""
    import vision.reader as vr
    from vision.locate import LatticeFit

    first = LatticeFit(np.diag([40.0, 40.0, 1.0]) + np.array([[0, 0, 100], [0, 0, 60], [0, 0, 0]]), 0.6, 0.9, 1, 0.37)
    later_h = first.homography @ np.array([[1.0, 0, 9], [0, 1.0, 0], [0, 0, 1.0]])
    img = np.full((540, 960, 3), 128, np.uint8)

    def run(readings: tuple[str, str]) -> np.ndarray:
        later = LatticeFit(later_h, 0.7, 0.9, 1, 0.47, runner_up=first)
        monkeypatch.setattr(vr, "find_lattice", lambda *a, **k: later)
        stub = _StubReader(*readings)
        return locate_and_read(img, stub).homography

    half = "." * 45 + "p" * 4 + "." * 41                 # few pieces read surely
    # the later lattice reads little, the first pass's the start position: the first pass's
    assert same_lattice(run((half, START)), first.homography)
    # the later lattice reads the start position, the first pass's little: the later one
    assert same_lattice(run((START, half)), later_h)
    # as many on each: the first pass's (the later passes admit more)
    assert same_lattice(run((START, START)), first.homography)
