"""A piece's look (vision.looks) tells a disc a hand turned or pushed from one it only covered.

The faces are the renderer's own piece faces (sim.pieces: real CJK glyphs on wood or plastic),
put on a board-coloured square and taken at the classifier's crop size, as the reader takes
them; the camera's noise is added to each view.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from board.incidents import look_change
from sim.pieces import P, PR, _ALPHA, draw_piece_style, face_sprite
from vision.looks import disc_looks

CROP = 48               # the classifier's crop side (px), one point spacing across
NOISE = 4.0             # the camera's sensor noise (grey levels, sd)


def _view(face: np.ndarray, rot_deg: float = 0.0, shift: tuple[float, float] = (0.0, 0.0),
          light: float = 1.0, seed: int = 0) -> np.ndarray:
    """One crop of a disc (radius ~0.42 spacings) turned `rot_deg`, `shift` spacings off the
    crop's centre, under `light`, with fresh sensor noise."""
    big = 4 * CROP
    canvas = np.full((big, big, 3), (70, 120, 170), np.float32)       # board wood
    scale = 0.84 * big / 2 / PR / 2
    m = cv2.getRotationMatrix2D(((P - 1) / 2, (P - 1) / 2), rot_deg, scale)
    m[:, 2] += np.array([big / 2 + shift[0] * big, big / 2 - shift[1] * big]) - (P - 1) / 2
    disc = cv2.warpAffine(face, m, (big, big), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(_ALPHA, m, (big, big), flags=cv2.INTER_LINEAR)[..., None]
    img = canvas * (1 - alpha) + disc * alpha
    img = cv2.resize(img * light, (CROP, CROP), interpolation=cv2.INTER_AREA)
    img += np.random.default_rng(seed).normal(0, NOISE, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.fixture(params=[(11, "R"), (12, "k"), (13, "P"), (14, "b")], ids=["red-chariot", "black-general",
                                                                            "red-soldier", "black-elephant"])
def face(request) -> np.ndarray:
    seed, letter = request.param
    rng = np.random.default_rng(seed)
    return face_sprite(letter, draw_piece_style(rng), rng)


def _change(a: np.ndarray, b: np.ndarray) -> float:
    return float(look_change(disc_looks(a[None]), disc_looks(b[None]))[0])


def test_a_disc_seen_twice_with_sensor_noise_looks_like_itself(face):
    assert _change(_view(face, seed=1), _view(face, seed=2)) < 0.05


def test_a_disc_turned_in_place_looks_less_like_itself_than_noise_makes_it(face):
    # turning alone changes a look far less than a push (the rim and its ring turn into
    # themselves; only the strokes move): a few times the noise, not past the tracker's threshold
    same = _change(_view(face, seed=1), _view(face, seed=2))
    turned = _change(_view(face, seed=1), _view(face, rot_deg=12.0, seed=2))
    assert turned > max(0.04, 3 * same)


def test_a_disc_pushed_a_twentieth_of_a_spacing_no_longer_looks_like_itself(face):
    # above the tracker's threshold (IncidentConfig.handled_look = 0.2) either way
    assert _change(_view(face, seed=1), _view(face, shift=(0.05, 0.0), seed=2)) > 0.2
    assert _change(_view(face, seed=1), _view(face, shift=(0.0, -0.05), rot_deg=-6.0, seed=2)) > 0.2
    # a push of a few hundredths with a turn: about what a touch gives a piece on the tuning clips
    assert _change(_view(face, seed=1), _view(face, shift=(0.02, 0.02), rot_deg=8.0, seed=2)) > 0.2


def test_dimmer_or_brighter_light_over_the_whole_disc_is_no_change_of_look(face):
    assert _change(_view(face, seed=1), _view(face, light=0.7, seed=2)) < 0.08
    assert _change(_view(face, seed=1), _view(face, light=1.2, seed=2)) < 0.08


def test_a_flat_patch_has_no_look_and_its_change_is_unknown():
    flat = np.full((1, CROP, CROP, 3), 128, np.uint8)
    assert not disc_looks(flat).any()
    assert np.isnan(look_change(disc_looks(flat), disc_looks(flat))[0])


def test_looks_refuse_what_is_not_a_batch_of_colour_crops():
    with pytest.raises(ValueError, match=r"\(N, S, S, 3\)"):
        disc_looks(np.zeros((CROP, CROP, 3), np.uint8))
    with pytest.raises(ValueError, match="one shape"):
        look_change(np.zeros((90, 8)), np.zeros((90, 9)))


def test_the_reader_sees_the_touched_piece_alone_change_its_look_in_a_rendered_clip(tmp_path):
    # a rendered game whose first move is preceded by a touch of another piece (the renderer
    # turns and pushes a touched disc a little, as fingers do), written as a video file and read
    # back by the reader: between the quiet board before the hand and the quiet board after the
    # move, the touched piece's look changed the most of all unmoved points, clearly
    import cv2

    import sim
    from vision.reader import BoardReader
    spec = sim.ClipSpec(seed=4242, random_plies=1, width=960, height=540, fps=12.0,
                        incidents=[{"kind": "touch_move_other", "ply": 1}])
    truth = sim.write_clip(spec, tmp_path)
    touch = truth.incidents[0]
    touched = int(touch["points"][0][1]) * 9 + "abcdefghi".index(touch["points"][0][0])
    move = truth.moves[0]
    moved = {int(move["iccs"][1]) * 9 + "abcdefghi".index(move["iccs"][0]),
             int(move["iccs"][3]) * 9 + "abcdefghi".index(move["iccs"][2])}
    reader = BoardReader()
    cap = cv2.VideoCapture(str(tmp_path / "clip.mp4"))
    observations = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        observations.append(reader.process(frame, truth.frames[len(observations)].t, len(observations)))
    cap.release()
    before = observations[touch["frames"][0] - 1].looks
    after = observations[-1].looks
    assert before is not None and after is not None
    change = look_change(before, after)
    read = [p for p in range(90) if p not in moved and np.isfinite(change[p])]   # pieces and empty points
    ranked = sorted(read, key=lambda p: -change[p])
    assert ranked[0] == touched
    assert change[ranked[0]] >= 0.2 and change[ranked[0]] >= 1.4 * change[ranked[1]]
