"""The hand detector on a noisy camera over a dark table (issue 10 item 6: games were lost because
the board was never quiet), and a background that learnt part of a sleeve (a 'ghost').

Built on the rectified board directly (HandDetector.update_rectified): a lit board with a dark
table ring around it, discs on some points, fresh sensor noise every frame.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision.hands import GX, GY, MARGIN, P, HandDetector, NoiseModel

FPS = 25.0
TABLE = (22.0, 26.0, 30.0)       # a dark table (BGR)
BOARD = (90.0, 160.0, 200.0)     # a lit wooden board
DISC = (150.0, 200.0, 225.0)
SLEEVE = (150.0, 95.0, 70.0)    # a blue jumper


def cell_box(col: int, row: int) -> tuple[slice, slice]:
    """Pixel rows and columns of rectified cell (column, row) (ring included)."""
    return slice(row * P, (row + 1) * P), slice(col * P, (col + 1) * P)


def point_cell(f: int, r: int) -> tuple[int, int]:
    """The rectified cell of board point (file, rank)."""
    return f + MARGIN, (9 - r) + MARGIN


def scene(discs: set[tuple[int, int]], blobs: list[tuple[int, int, int, int]] = ()) -> np.ndarray:
    """Rectified image: table ring, board, discs on (file, rank) points, and sleeve rectangles
    given as cell ranges (col0, row0, col1, row1) inclusive."""
    img = np.empty((GY * P, GX * P, 3), np.float32)
    img[:] = TABLE
    img[MARGIN * P:-MARGIN * P, MARGIN * P:-MARGIN * P] = BOARD
    yy, xx = np.mgrid[0:P, 0:P]
    disc = (yy - P / 2 + 0.5) ** 2 + (xx - P / 2 + 0.5) ** 2 <= (0.4 * P) ** 2
    for f, r in discs:
        rows, cols = cell_box(*point_cell(f, r))
        img[rows, cols][disc] = DISC
    for c0, r0, c1, r1 in blobs:
        img[r0 * P:(r1 + 1) * P, c0 * P:(c1 + 1) * P] = SLEEVE
    return img


def noisy(img: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    return np.clip(img + rng.normal(0.0, sigma, img.shape), 0, 255).astype(np.uint8)


START = {(f, 0) for f in range(9)} | {(1, 2), (7, 2)} | {(f, 3) for f in range(0, 9, 2)} \
    | {(f, 9) for f in range(9)} | {(1, 7), (7, 7)} | {(f, 6) for f in range(0, 9, 2)}


@pytest.mark.parametrize("sigma", [3.0, 6.0, 8.0])
def test_a_noisy_camera_over_a_dark_table_lets_the_board_be_quiet(sigma):
    rng = np.random.default_rng(int(sigma))
    hd = HandDetector()
    img = scene(START)
    states = [hd.update_rectified(noisy(img, rng, sigma), i / FPS) for i in range(75)]
    last = states[25:]
    assert sum(s.quiet for s in last) >= 0.95 * len(last), f"quiet in {sum(s.quiet for s in last)} of {len(last)}"
    assert not any(s.hidden.any() for s in last)


def test_grain_alone_rarely_stirs_a_cell_on_a_very_noisy_camera():
    # a cell 'moves' when it departs from the previous frame; two frames' grain differ by sqrt(2)
    # times one frame's from the averaged background, and that alone held the board's quiet off
    # in flickers (tuning clip 8347, noise 4.5: three moves were recorded as one). Three seeds
    # at a grain of 13: quiet in 78 % of the frames with the sqrt(2), 68 % without it.
    quiet = total = 0
    for seed in (1, 2, 3):
        rng = np.random.default_rng(seed)
        hd = HandDetector()
        img = scene(START)
        states = [hd.update_rectified(noisy(img, rng, 13.0), i / FPS) for i in range(150)][25:]
        assert not any(s.hidden.any() for s in states)
        quiet += sum(s.quiet for s in states)
        total += len(states)
    assert quiet >= 0.73 * total, f"quiet in {quiet} of {total} frames"


def test_a_hand_held_still_over_a_noisy_board_stays_a_hand_for_ten_seconds():
    rng = np.random.default_rng(5)
    hd = HandDetector()
    img = scene(START)
    for i in range(25):
        hd.update_rectified(noisy(img, rng, 6.0), i / FPS)
    # an arm from the right edge over files 6..8, ranks 4..5 (cells), reaching across the ring
    arm = scene(START, [(7, 5, GX - 1, 6)])
    under = [p for p in range(90) if 6 <= p % 9 <= 8 and 4 <= p // 9 <= 5]
    for i in range(25, 25 + int(10 * FPS)):
        s = hd.update_rectified(noisy(arm, rng, 6.0), i / FPS)
        assert not s.quiet, f"quiet {(i - 25) / FPS:.1f} s into the rest"
        assert s.hidden[under].all(), f"hand points read {(i - 25) / FPS:.1f} s into the rest"
    for i in range(275, 300):
        s = hd.update_rectified(noisy(img, rng, 6.0), i / FPS)
    assert s.quiet and not s.hidden.any()


def test_a_sleeve_learnt_into_the_background_does_not_hold_up_the_board_once_gone():
    """The running background can learn part of a sleeve that lay still on the table ring while
    the hand moved (as on the noisy tuning clip 8318). Once the hand has taken the piece off the
    edge point beside it and gone, the bare table departs from that learnt sleeve and, joined to
    the emptied point, looked like an arm at rest: the board never settled. The table shows what
    the board showed when it was last quiet, so it is nothing there."""
    from vision.hands import _features
    rng = np.random.default_rng(9)
    hd = HandDetector()
    before = scene(START)
    t = 0
    for _ in range(25):
        s = hd.update_rectified(noisy(before, rng, 2.0), t / FPS)
        t += 1
    assert s.quiet
    sleeve = _features(scene(START, [(GX - 1, 0, GX - 1, 2)]).astype(np.uint8))
    rows = slice(0, 3 * P)
    cols = slice((GX - 1) * P, GX * P)
    hd.bg[rows, cols] = sleeve[rows, cols]                  # learnt while the hand worked beside it
    after = scene(START - {(8, 9)})                         # hand gone, i9 taken off
    quiet_at = None
    for k in range(int(2 * FPS)):
        s = hd.update_rectified(noisy(after, rng, 2.0), t / FPS)
        t += 1
        if s.quiet and quiet_at is None:
            quiet_at = k / FPS
    assert quiet_at is not None and quiet_at <= 0.5, f"quiet {quiet_at} s after the hand left"
    assert not s.hidden.any()


def test_the_noise_model_scales_with_the_darkness_of_each_pixel():
    rng = np.random.default_rng(1)
    nm = NoiseModel()
    assert nm.sigma(np.full((4, 4), 100.0, np.float32)) is None
    from vision.hands import _features, _level
    img = scene(START)
    a, b = noisy(img, rng, 5.0), noisy(img, rng, 5.0)
    nm.observe(_features(a) - _features(b), _level(a), np.ones(a.shape[:2], bool))
    dark, lit = nm.sigma(np.array([[25.0]])), nm.sigma(np.array([[200.0]]))
    assert dark is not None and lit is not None
    assert np.allclose(dark / lit, 8.0, rtol=1e-5)
