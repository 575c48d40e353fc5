"""A recording whose start could not tell red's end from black's finds it at the first move
(board.tracker.Tracker._first_move_turned, vision.reader.BoardReader.turn_board), on a rendered
clip decoded from an MPEG-4 file as `xqtrack record` reads a game."""
from __future__ import annotations

import json

import numpy as np

from vision import geometry as geo


def test_a_wooden_set_in_dim_light_is_recorded_from_reds_end_once_red_has_moved(tmp_path):
    """Tuning clip 9044 (held back at stop 34): a wooden set on a paper board printed in red, dim
    and grainy; the start is as likely read from either end, and black's was kept. Red's first
    move h2c2 was read as b7g7 and the whole game turned round. Now the first move turns the
    board: it is recorded as h2c2 for red, black's reply as b9c7, and the reader's lattice is
    turned with it (red's back rank where the renderer put it)."""
    from app.commands.record import _learning_reader
    from rules import Position
    from runtime.recorder import Recorder
    from runtime.sources import FrameSource
    from sim import ClipSpec
    from openings import write_opening

    spec = ClipSpec(seed=9044, look="paper", random_plies=8, width=960, height=540,
                    incidents=[{"kind": "touch_move_other", "ply": 1}, {"kind": "arm_pass", "ply": 5},
                               {"kind": "retouch", "ply": 7}],
                    camera={"tilt_deg": 22.0, "azimuth_deg": 80.0, "fov_deg": 62.0, "noise": 6.1, "bump": False})
    path = tmp_path / "opening.mp4"
    truth = write_opening(spec, 215, path)[-1]     # past black's reply (settled at 7.04 s)
    out = tmp_path / "record"
    out.mkdir()
    reader = _learning_reader(out, Position().points(), False, lambda line: None)
    rec = Recorder(out, start_fen=Position().fen(), reader=reader)
    src = FrameSource(str(path))
    summary = rec.run(src)
    src.close()
    moves = [e["iccs"] for e in summary.events if e["type"] == "move"]
    turned = [e for e in summary.events if e["type"] == "tracking" and e["status"] == "board_turned"]
    assert moves == ["h2c2", "b9c7"]
    assert len(turned) == 1 and turned[0]["ply"] == 0
    # red's touch of the horse h0 before the first move is judged on the board the right way round
    touches = [e for e in summary.events if e["type"] == "incident" and e["kind"] == "touch_move_other"]
    assert [(e["ply"], e["points"][0]) for e in touches] == [(1, "h0")]
    # the reader turned its lattice, so the tracker takes what it reads as it comes again
    assert not rec.tracker.turning_input and reader.start_end.by == "first move"
    err = np.abs(geo.apply_h(reader.h, geo.POINTS) - geo.apply_h(truth.homography, geo.POINTS)).max()
    assert err < 2.0
    journal = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert any(e.get("status") == "board_turned" for e in journal)


def test_evidence_kept_before_the_board_turned_marks_the_points_where_they_are_after(tmp_path):
    from board.turning import turned_homography
    from runtime.evidence import EvidenceStore

    store = EvidenceStore(tmp_path, every=1)
    h = np.array([[40.0, 3.0, 300.0], [2.0, -40.0, 500.0], [0.0, 0.0005, 1.0]])
    img = np.zeros((120, 160, 3), np.uint8)
    for i in range(5):
        store.add(i, img, h)
    store.pin(4, img, h)
    store.turn_lattice()
    assert all(np.allclose(hom, turned_homography(h)) for _, _, hom, _ in store.ring)
    assert all(np.allclose(hom, turned_homography(h)) for _, hom, _ in store.pinned.values())
    # a0 as read now is where i9 was marked before
    a0 = turned_homography(h) @ np.array([0.0, 0.0, 1.0])
    i9 = h @ np.array([8.0, 9.0, 1.0])
    assert np.allclose(a0[:2] / a0[2], i9[:2] / i9[2])
