"""The set-up view's data: lattice positions, hints (dark, glare, cut by the edge), atomic files."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from live.setupframe import (FrameStats, SetupConfig, SetupWriter, board_cut_by_edge, board_points_px,
                             expected_board, setup_hints)
from rules import START_FEN

CLASSES = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")


def board_homography(x0=100.0, y0=420.0, step=40.0) -> np.ndarray:
    """a0 at (x0, y0), files to the right, ranks upwards, `step` pixels apart."""
    return np.array([[step, 0.0, x0], [0.0, -step, y0], [0.0, 0.0, 1.0]])


def observation(hom, board: str, t=1.0, frame=15):
    probs = np.full((90, 15), 0.01, dtype=np.float32)
    for i, ch in enumerate(board):
        probs[i, CLASSES.index(ch)] = 0.9
    pose = SimpleNamespace(homography=hom, corners=board_points_px(hom)[[81, 89, 8, 0]], confidence=0.83,
                           red_side="bottom")
    return SimpleNamespace(t=t, frame_index=frame, pose=pose, quiet=True, probs=probs,
                           occluded=np.zeros(90, dtype=bool))


def test_lattice_points_follow_the_homography():
    px = board_points_px(board_homography())
    assert px.shape == (90, 2)
    assert np.allclose(px[0], [100, 420]) and np.allclose(px[8], [420, 420]) and np.allclose(px[81], [100, 60])


def test_a_board_reaching_past_the_frame_edge_is_cut():
    hom = board_homography()
    assert not board_cut_by_edge(hom, 640, 480, 0.7)
    assert board_cut_by_edge(hom, 440, 480, 0.7)       # the right-hand file's pieces run off the frame
    assert board_cut_by_edge(board_homography(y0=470), 640, 480, 0.7)


def test_hints_name_darkness_glare_the_edge_and_a_missing_board():
    cfg = SetupConfig()
    assert setup_hints(FrameStats(120.0, 0.0), True, False, cfg) == []
    assert setup_hints(FrameStats(30.0, 0.0), True, False, cfg) == ["too_dark"]
    assert setup_hints(FrameStats(200.0, 0.2), True, True, cfg) == ["glare", "cut"]
    assert setup_hints(FrameStats(120.0, 0.0), False, False, cfg) == ["no_board"]


def test_the_writer_leaves_a_frame_and_its_readings_against_the_expected_start(tmp_path):
    img = np.full((480, 640, 3), 140, dtype=np.uint8)
    board = expected_board(START_FEN)
    misread = board[:4] + "." + board[5:]           # e0 (red's general) read as empty
    writer = SetupWriter(tmp_path, lambda: START_FEN, SetupConfig(every_s=1.0))
    writer(SimpleNamespace(image=img, t=0.0), observation(board_homography(), misread, t=0.0))
    writer(SimpleNamespace(image=img, t=0.5), observation(board_homography(), board, t=0.5))  # too soon
    info = json.loads((tmp_path / "setup.json").read_text(encoding="utf-8"))
    assert (tmp_path / "setup.jpg").stat().st_size > 0 and writer.written == 1
    assert info["pose"]["confidence"] == 0.83 and info["pose"]["red_side"] == "bottom"
    assert len(info["points"]) == 90 and info["points"][4]["read"] == "." and info["points"][4]["expected"] == "K"
    assert info["differs"] == ["e0"] and info["hints"] == []
    assert info["expected_fen"] == START_FEN.split()[0]


def test_a_dark_glary_frame_without_a_board_gets_its_hints(tmp_path):
    img = np.full((480, 640, 3), 20, dtype=np.uint8)
    writer = SetupWriter(tmp_path, lambda: None)
    writer(SimpleNamespace(image=img, t=0.0), SimpleNamespace(t=0.0, frame_index=0, pose=None, quiet=False))
    info = json.loads((tmp_path / "setup.json").read_text(encoding="utf-8"))
    assert info["hints"] == ["no_board", "too_dark"] and info["points"] == [] and info["pose"] is None
    bright = np.full((480, 640, 3), 120, dtype=np.uint8)
    bright[60:420, 100:420] = 255                      # blown out over the board
    SetupWriter(tmp_path, lambda: START_FEN).write(bright, observation(board_homography(), expected_board(START_FEN)))
    assert "glare" in json.loads((tmp_path / "setup.json").read_text(encoding="utf-8"))["hints"]
