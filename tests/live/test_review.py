"""The arbiter's review: a diagram per ply, the PGN's clocks, clips and full-resolution crops,
captions naming the frames shown, rulings, its own font, nothing from the network."""
from __future__ import annotations

import json
import re

import numpy as np

from live_helpers import GameWriter
from runtime.evidence import EvidenceStore
from runtime.review import write_review


def _hom(scale=1.0) -> np.ndarray:
    """a0 at (200, 650), 55 px between points, in a 1280x720 frame (times `scale`)."""
    return np.array([[55.0, 0.0, 200.0], [0.0, -55.0, 650.0], [0.0, 0.0, 1.0]]) * np.array([[scale], [scale], [1]])


def _frame(i: int) -> np.ndarray:
    img = np.full((720, 1280, 3), 90, dtype=np.uint8)
    img[:, (i * 7) % 1280:(i * 7) % 1280 + 20] = 250       # something moving, so frames differ
    return img


def test_evidence_keeps_a_clip_and_a_crop_at_the_cameras_resolution(tmp_path):
    store = EvidenceStore(tmp_path, fps=15.0)
    for i in range(150):
        store.add(i, _frame(i), _hom())
    saved = store.save("001_ply003_knocked", {"before": 60, "during": 100, "after": 130}, [22, 23])
    assert {"before", "during", "after", "clip", "crop", "info"} <= set(saved)
    import cv2
    cap = cv2.VideoCapture(str(tmp_path / saved["clip"]))
    n = 0
    while cap.read()[0]:
        n += 1
    assert n >= 10, "a few seconds of the ring around the incident"
    crop = cv2.imread(str(tmp_path / saved["crop"]))
    # points e2, f2 grown by 1.4 spacings: (1 + 2.8) x 2.8 spacings of 55 full-resolution pixels
    assert abs(crop.shape[1] - 3.8 * 55) <= 3 and abs(crop.shape[0] - 2.8 * 55) <= 3
    info = json.loads((tmp_path / saved["info"]).read_text())
    assert info["frames"]["during"] % 3 == 2 and abs(info["frames"]["during"] - 100) <= 2  # a kept ring frame
    assert abs(info["frames"]["crop"] - 100) <= 8


def _recorded(tmp_path):
    g = GameWriter(tmp_path)
    for iccs, side in (("h2e2", "red"), ("h9g7", "black"), ("b0c2", "red"), ("b9c7", "black")):
        g.move(iccs)
        g.press(side, 600000 - 1500 * len(g.moves), 600000 - 1200 * len(g.moves))
    store = EvidenceStore(tmp_path, fps=15.0)
    for i in range(120):
        store.add(i, _frame(i), _hom())
    ev = store.save("001_ply004_retouch", {"before": 40, "during": 70, "after": 100}, [19])
    g.incident("retouch", points=["b2"], evidence=ev)
    g.incident("clock_no_press", points=[])
    g.journal.write({"type": "ruling", "t": g.t, "ply": 4, "incident": 1, "decision": "upheld", "note": "clear"})
    g.close()
    return g, ev


def test_the_review_draws_every_ply_with_its_fen_and_wall_time(tmp_path):
    g, _ = _recorded(tmp_path)
    html = write_review(tmp_path).read_text(encoding="utf-8")
    assert len(re.findall(r"<div class='dg[^']*' id='d\d+'>", html)) == 5          # start + 4 plies
    assert "<div class='dg on' id='d4'>" in html
    assert g.pos.fen() in html
    for ply in range(1, 5):
        assert f"href='#d{ply}'" in html
    rows = re.findall(r"<tr data-ply='(\d+)'[^>]*>.*?<td>(\d\d:\d\d:\d\d\.\d\d\d)", html)
    assert [r[0] for r in rows] == ["1", "2", "3", "4"]


def test_the_reviews_clock_readings_are_the_pgns(tmp_path):
    _recorded(tmp_path)
    html = write_review(tmp_path).read_text(encoding="utf-8")
    pgn = (tmp_path / "game.pgn").read_text(encoding="utf-8")
    want = re.findall(r"\[%clk ([^\]]+)\]", pgn)
    got = re.findall(r"<td class='clk'>([^<]*)</td>", html)
    assert want and got == want


def test_incidents_show_clip_crop_captions_from_the_frames_shown_and_rulings(tmp_path):
    _, ev = _recorded(tmp_path)
    html = write_review(tmp_path).read_text(encoding="utf-8")
    info = json.loads((tmp_path / ev["info"]).read_text())
    block = html.split("id='inc1'")[1].split("id='inc2'")[0]
    assert f"<video class='clip' src='{ev['clip']}'" in block
    assert f"src='{ev['crop']}'" in block
    assert f"帧 frame {info['frames']['during']}</figcaption>" in block
    assert f"{info['frames']['clip'][0]}–{info['frames']['clip'][1]}" in block
    assert "已维持 upheld" in block and "clear" in block
    assert "待裁决 pending" in html.split("id='inc2'")[1]


def test_the_review_ships_its_font_and_loads_nothing_from_the_network(tmp_path):
    _recorded(tmp_path)
    html = write_review(tmp_path).read_text(encoding="utf-8")
    assert "@font-face{font-family:'XQ UI';src:url(data:font/woff;base64," in html
    assert "http://" not in html and "https://" not in html and "<script" not in html
    assert "起手后二次触摸 touched again after letting go" in html


def test_a_review_of_players_with_chinese_names_carries_the_names_font_and_one_without_does_not(tmp_path):
    for name, headers, names_font in (("zh", {"Red": "胡荣华", "Black": "柳大华"}, True),
                                      ("en", {"Red": "Hu", "Black": "Liu"}, False)):
        g = GameWriter(tmp_path / name, headers=headers)
        g.move("h2e2")
        g.close()
        page = write_review(tmp_path / name).read_text(encoding="utf-8")
        assert ("font-family:'XQ Names';src:url(data:font/woff;base64," in page) is names_font
        assert "font-family:'XQ UI';src:url(data:font/woff;base64," in page
        if names_font:
            assert "胡荣华" in page


def test_the_review_shows_review_notes_with_their_score_apart_from_the_incidents(tmp_path):
    g = GameWriter(tmp_path)
    g.move("h2e2")
    g.note(score=0.27)
    g.close()
    html = write_review(tmp_path).read_text(encoding="utf-8")
    assert "id='note1'" in html and "data-score='0.270'" in html
    assert "class='inc" not in html.split("id='notes'")[1].split("Timeline")[0], "a note is no incident"
    assert "<li class='note'>" in html
