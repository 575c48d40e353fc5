"""Which end of the board is red's at a game's known start: the pieces where they tell, red ink
where they hardly do (vision.start_orientation), and a recording that starts on a set the model
hardly reads keeping the right end."""
from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vision import geometry as geo
from vision.locate import RedHalves
from vision.start_orientation import StartOrientConfig, start_orientation

CFG = StartOrientConfig()


def test_pieces_that_clearly_prefer_an_end_decide_it_whatever_the_red_ink_says():
    # a board printed in red ink, red on the other half: the pieces still decide
    got = start_orientation(-20.0, -150.0, RedHalves(low=0.0, high=5.0))
    assert not got.turned and got.by == "pieces" and got.margin_nats == 130.0
    assert start_orientation(-150.0, -20.0, RedHalves(low=5.0, high=0.0)).turned


def test_where_the_pieces_hardly_tell_clear_red_ink_decides():
    # tuning 8410: the start position 11 nats likelier with black's discs taken for red's; the red
    # discs all on the other half as locked
    got = start_orientation(-94.1, -104.9, RedHalves(low=0.0, high=1.65))
    assert got.turned and got.by == "red ink"
    assert not start_orientation(-104.9, -94.1, RedHalves(low=1.65, high=0.0)).turned


def test_red_on_both_halves_or_hardly_any_red_leaves_it_to_the_pieces():
    # a board drawn in red ink (tuning 8394: 13.8 and 14.6), some red on both halves (tuning 8940:
    # 0.25 and 1.31, and the pieces were right), and a set without red (0.02)
    for red in (RedHalves(low=13.8, high=14.6), RedHalves(low=1.31, high=0.25), RedHalves(low=0.0, high=0.02)):
        got = start_orientation(-10.0, -12.0, red)
        assert not got.turned and got.by == "pieces"


@given(st.floats(-500, 0), st.floats(-500, 0), st.floats(0, 50), st.floats(0, 50))
def test_the_end_kept_goes_against_the_pieces_only_when_they_hardly_tell_and_red_ink_is_clear(a, b, low, high):
    got = start_orientation(a, b, RedHalves(low, high))
    if got.turned != (b > a):
        assert abs(a - b) < CFG.pieces_decide_nats and got.by == "red ink"
        assert max(low, high) >= CFG.red_min and min(low, high) <= CFG.red_none


def test_a_recording_on_a_set_the_model_hardly_reads_keeps_reds_end_where_the_red_discs_are(tmp_path):
    """The first 45 frames of tuning clip 8410 (a paper set blurred to plain-coloured discs, glare),
    written as an MPEG-4 file and decoded and read as `xqtrack record` reads a game from the start:
    the start position is learnt from with red's end where the red discs are, and the recording
    says that red ink told it. Before, black's end was kept and every move was read turned round."""
    from app.commands.record import _learning_reader
    from rules import Position
    from sim import ClipSpec
    from openings import write_opening

    spec = ClipSpec(seed=8410, look="paper", random_plies=8, width=960, height=540,
                    camera={"tilt_deg": 13.0, "azimuth_deg": 135.0, "fov_deg": 73.0, "glare": True, "bump": True})
    path = tmp_path / "start.mp4"
    truth = write_opening(spec, 45, path)[-1]
    said: list[str] = []
    (tmp_path / "record").mkdir()
    learner = _learning_reader(tmp_path / "record", Position().points(), False, said.append)
    cap = cv2.VideoCapture(str(path))
    i = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        learner.process(frame, i / spec.fps, i)
        i += 1
    cap.release()
    assert i == 45 and learner.done and truth is not None
    reader = learner.reader
    assert reader.start_end is not None and reader.start_end.by == "red ink"
    err = np.abs(geo.apply_h(reader.h, geo.POINTS) - geo.apply_h(truth.homography, geo.POINTS)).max()
    assert err < 2.0
    assert any("told by the red ink" in line for line in said), said
