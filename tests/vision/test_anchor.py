"""BoardReader.anchor: a lattice locked a line off is put back on the known position, a right
lattice is left alone (real decoded frames of the bundled clip)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import BoardReader
from vision.observation import board_from_fen

CLIP = Path(__file__).resolve().parents[2] / "sim" / "samples" / "demo" / "clip.mp4"
START = board_from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR")


@pytest.fixture(scope="module")
def locked():
    cap = cv2.VideoCapture(str(CLIP))
    frames = []
    for _ in range(8):
        ok, img = cap.read()
        assert ok
        frames.append(img)
    cap.release()
    reader = BoardReader()
    for i, img in enumerate(frames):
        reader.process(img, i / 25.0, i)
    assert reader.h is not None
    return reader, frames[-1]


def test_a_right_lattice_is_left_where_it_is(locked):
    reader, frame = locked
    h = reader.h.copy()
    lattices = reader.lattices
    assert reader.anchor(frame, START) is None
    assert np.allclose(reader.h, h) and reader.lattices == lattices >= 1


@pytest.mark.parametrize("dx,dy", [(0, 1), (0, -1), (1, 0)])
def test_a_lattice_locked_a_line_off_is_put_back_on_the_known_position(locked, dx, dy):
    reader, frame = locked
    right = reader.h.copy()
    off = right @ np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])
    reader.h = off / off[2, 2]
    reader.lock.h = reader.h.copy()
    lattices = reader.lattices
    moved = reader.anchor(frame, START)
    assert moved is not None and (moved.shift_x, moved.shift_y) == (-dx, -dy) and not moved.turned
    # offsets measured from here on are against another lattice (Observation.lattice)
    assert reader.lattices == lattices + 1 and reader.process(frame, 9.0, 225).lattice == reader.lattices
    assert moved.gain_nats > 40
    corners = lambda h: cv2.perspectiveTransform(np.array([[[0, 0], [8, 0], [8, 9], [0, 9]]], np.float64), h)
    assert np.abs(corners(reader.h) - corners(right)).max() < 0.5
    assert reader.dirty.all()   # every point is read again


def test_anchor_refuses_a_board_that_is_not_90_points(locked):
    reader, frame = locked
    with pytest.raises(ValueError, match="90 characters"):
        reader.anchor(frame, START[:80])


def test_a_lattice_wrong_in_its_spacing_is_replaced_by_one_found_anew(locked):
    """Not a shift a point off (that is mended by shifting) but a lattice of the wrong size, as a
    steep camera's disc rims can give: no shift explains the known position, so the finder's
    other lattices are tried and the one that explains it replaces the lock."""
    reader, frame = locked
    right = reader.h.copy()
    shrink = np.array([[0.8, 0, 4 * 0.2], [0, 0.8, 4.5 * 0.2], [0, 0, 1.0]])   # about the centre
    wrong = right @ shrink
    reader.h = wrong / wrong[2, 2]
    reader.lock.h = reader.h.copy()
    moved = reader.anchor(frame, START)
    assert moved is not None and moved.fresh and moved.explained >= 0.9
    corners = lambda h: cv2.perspectiveTransform(np.array([[[0, 0], [8, 0], [8, 9], [0, 9]]], np.float64), h)
    assert np.abs(corners(reader.h) - corners(right)).max() < 2.0
    assert np.allclose(reader.lock.h, reader.h)
    assert reader.dirty.all()
