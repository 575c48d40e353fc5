"""The colour check judges the pieces, not the whole photo: a colour photo whose only colour is a
few red pieces on a white board is read; a greyscale photo is refused (vision.reader.locate_in_colour)."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader import MIN_COLOUR_SHARE, ColourlessImageError, PointReads, colour_share, read_photo

REAL = Path(__file__).resolve().parents[1] / "data" / "real_boards"
FEW = "3k5/9/4c4/9/9/9/9/2r6/4N4/4K4"   # five pieces, two of them red (general and horse)


def _jpeg(img: np.ndarray, quality: int = 90) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert ok and decoded is not None
    return decoded


def _grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _red_discs(truth, shape) -> np.ndarray:
    """Where the red pieces are in the image: each disc's cylinder (radius 0.5 spacing, height 0.4:
    more than any rendered disc) from its foot on the board to its face."""
    from vision.crops import lift_homography
    mask = np.zeros(shape[:2], np.uint8)
    foot = np.asarray(truth.homography, np.float64)
    top = lift_homography(foot, 0.4, (shape[1], shape[0]))
    a = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
    for i, c in enumerate(truth.board):
        if c.isupper():
            ring = np.c_[i % 9 + 0.5 * np.cos(a), i // 9 + 0.5 * np.sin(a), np.ones_like(a)]
            outline = [(ring @ h.T)[:, :2] / (ring @ h.T)[:, 2:] for h in (foot, top)]
            hull = cv2.convexHull(np.concatenate(outline).astype(np.float32))
            cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), 255)
    return mask > 0


@functools.lru_cache(maxsize=None)
def _white_board_photo():
    """A paper board with a white-disc set, five pieces, and no colour but the two red pieces':
    everything outside their discs is turned grey, then the photo goes through JPEG."""
    import sim
    img, truth = sim.render_still(3, look="paper", fen=FEW, camera={"tilt_deg": 20})
    kept = _red_discs(truth, img.shape)
    photo = _jpeg(np.where(kept[..., None], img, _grey(img)))
    photo.setflags(write=False)
    return photo, truth


def _real_photo(name: str) -> np.ndarray:
    img = cv2.imread(str(REAL / name), cv2.IMREAD_COLOR)
    assert img is not None, name
    return img


def test_a_colour_photo_of_a_white_board_with_few_pieces_is_read_and_its_red_pieces_read_red():
    photo, truth = _white_board_photo()
    assert colour_share(photo) < MIN_COLOUR_SHARE   # the whole photo alone would call it greyscale
    board = read_photo(np.ascontiguousarray(photo)).observation.board_string()
    red = [i for i, c in enumerate(truth.board) if c.isupper()]
    assert len(red) == 2 and all(board[i].isupper() for i in red), (board, truth.board)
    assert sum(c.isupper() for c in board) == 2


@pytest.mark.parametrize("through_jpeg", [False, True])
def test_the_same_photo_turned_grey_is_refused_as_colourless(through_jpeg: bool):
    photo, _ = _white_board_photo()
    grey = _grey(photo)
    if through_jpeg:
        grey = _jpeg(grey, 75)
    with pytest.raises(ColourlessImageError, match="no colour"):
        read_photo(grey)


def test_a_single_channel_photo_is_refused_at_once(monkeypatch):
    import vision.reader as reader

    def no_search(*args, **kwargs):
        raise AssertionError("a single-channel photo needs no board search to be refused")
    monkeypatch.setattr(reader, "locate_and_read", no_search)
    photo, _ = _white_board_photo()
    with pytest.raises(ColourlessImageError, match="take the photo in colour"):
        read_photo(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY))


def test_a_real_photo_turned_grey_is_refused_and_its_colour_original_read():
    photo = _real_photo("desk_z4740634101661.jpg")
    with pytest.raises(ColourlessImageError, match="no colour"):
        read_photo(_grey(photo))
    assert read_photo(photo).observation.board_string().count(".") < 90


@pytest.mark.parametrize("name", [json.loads(line)["image"] for line in
                                  (REAL / "labels.jsonl").read_text().splitlines()])
def test_the_pieces_of_every_real_photo_show_colour_and_those_of_its_grey_copy_none(name: str):
    from vision.reader import _shared_classify, locate_and_read, pieces_show_colour
    reads = locate_and_read(_real_photo(name), lambda: _shared_classify(None, None)).reads
    assert reads is not None and pieces_show_colour(reads)
    # the same points' crops in grey (a grey photo's crops are its colour crops turned grey)
    grey = np.stack([_grey(c) for c in reads.crops])
    assert not pieces_show_colour(PointReads(reads.probs, reads.offsets, grey))


def test_a_photo_without_a_board_is_colourless_only_when_nothing_in_it_has_colour():
    from vision.locate import BoardNotFoundError
    rng = np.random.default_rng(3)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (480, 640), dtype=np.uint8), (0, 0), 3)
    grey = cv2.cvtColor(noise, cv2.COLOR_GRAY2BGR)
    with pytest.raises(ColourlessImageError):
        read_photo(grey)
    tinted = grey.copy()
    tinted[200:230, 300:330] = (40, 40, 200)    # one small red thing: a colour photo, little colour
    assert colour_share(tinted) < MIN_COLOUR_SHARE
    with pytest.raises(BoardNotFoundError):
        read_photo(tinted)


def test_a_piece_set_is_not_taught_from_a_greyscale_photo():
    from calibration.piece_profile import profile_from_photo
    from sim.truth import fen_to_board
    rec = json.loads((REAL / "labels.jsonl").read_text().splitlines()[0])
    with pytest.raises(ColourlessImageError):
        profile_from_photo(_grey(_real_photo(rec["image"])), fen_to_board(rec["fen"]).replace("?", "."))
