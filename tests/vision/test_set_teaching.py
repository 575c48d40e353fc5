"""Teaching a piece set from one photo: the network's last block retrained on the photo's points."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.piece_profile import PieceProfileError, PieceSetProfile, profile_from_photo
from calibration.set_teaching import TeachConfig, teaching_views, train_tail
from vision.classifier import PieceClassifier
from vision.observation import CLASSES, board_from_fen
from vision.tail import tail_forward, trunk_columns

HOLDOUT = Path(__file__).resolve().parents[1] / "data" / "real_crops_holdout"
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
START = board_from_fen(START_FEN)
QUICK = TeachConfig(views=3, epochs=3, max_seconds=20.0)


@pytest.fixture(scope="module")
def clf() -> PieceClassifier:
    return PieceClassifier(tta=False)


@pytest.fixture(scope="module")
def rendered_start(vsim):
    img, truth = vsim.still(7311, look="mat", tilt=15, azimuth=5, fen=START_FEN)
    return np.ascontiguousarray(img), truth.homography


def _repo_font_set(seed: int):
    """A physical set (training.set_photos) drawn in the repo's own typefaces."""
    from training.discs import random_style
    from training.set_photos import PhysicalSet
    fonts = tuple(str(p) for p in sorted((Path(__file__).resolve().parents[2] / "sim" / "assets" / "fonts").glob("*.[ot]tf")))
    style = random_style(np.random.default_rng(seed), fonts)
    return PhysicalSet(style, seed=seed)


def test_the_numpy_block_computes_what_the_models_graph_computes(clf: PieceClassifier) -> None:
    from training.evaluate import load_holdout
    crops, _, _ = load_holdout(HOLDOUT)
    logits, emb, _, trunk = clf.raw_with_trunk(crops[:200])
    mine, mine_emb = tail_forward(trunk_columns(trunk), len(trunk), clf.shipped_tail())
    assert np.abs(mine_emb - emb).max() < 1e-4
    assert np.abs(mine - logits).max() < 1e-4


def test_a_set_without_a_profile_reads_exactly_as_before_teaching_existed(clf: PieceClassifier) -> None:
    from training.evaluate import load_holdout
    crops, _, _ = load_holdout(HOLDOUT)
    plain = clf.raw(crops[:90], tta=False)[0]
    logits, _, _, _ = clf.raw_with_trunk(crops[:90])
    assert np.array_equal(plain, logits)


def test_every_point_is_cut_many_ways_and_labelled_with_its_stated_piece(clf: PieceClassifier,
                                                                         rendered_start) -> None:
    img, h = rendered_start
    ids = np.array([CLASSES.index(c) for c in START])
    views = teaching_views(clf, img, h, ids, QUICK)
    assert len(views) == 90 * (8 + QUICK.views)
    assert np.array_equal(views.labels, ids[views.point])
    assert views.columns.shape == (len(views) * 36, clf.shipped_tail().in_channels * 9)
    # the unaugmented turns of a rendered start position read as stated: the cuts are on the points
    plain = views.plain_logits[: 90 * 8].argmax(axis=1)
    assert (plain == views.labels[: 90 * 8]).mean() > 0.97


def test_a_taught_block_survives_its_file_and_reads_the_same(tmp_path: Path, clf: PieceClassifier,
                                                             rendered_start) -> None:
    img, h = rendered_start
    ids = np.array([CLASSES.index(c) for c in START])
    views = teaching_views(clf, img, h, ids, QUICK)
    tail = train_tail(views, np.arange(len(views)), clf.shipped_tail(), QUICK)
    prof = PieceSetProfile(model_id=clf.model_id, delta_w=np.zeros((clf.embedding_dim, 15)), delta_b=np.zeros(15),
                           name="mat", tail=tail, method="taught block", teach_report={"kept": "taught block"})
    path = prof.save(tmp_path / "mat.json")
    back = PieceSetProfile.load(path)
    assert back.method == "taught block" and back.teach_report == {"kept": "taught block"}
    crops = clf.extract(img, h)
    a, b = PieceClassifier(tta=False, profile=prof), PieceClassifier(tta=False, profile=back)
    assert np.array_equal(a.predict(crops), b.predict(crops))
    # the block changes the pieces' reading, never whether a point holds a disc (that stays the model's)
    plain = clf.predict(crops)
    assert np.allclose(a.predict(crops)[:, 0], plain[:, 0], atol=1e-5)
    own = PieceSetProfile.load(PieceSetProfile(model_id=clf.model_id, delta_w=np.zeros((clf.embedding_dim, 15)),
                                               delta_b=np.zeros(15), tail=tail, own_occupancy=True)
                               .save(tmp_path / "own.json"))
    assert own.own_occupancy and not back.own_occupancy
    d = json.loads(path.read_text())
    d["tail"]["tail.conv.weight"]["float32_le_base64"] = "AAAA"
    with pytest.raises(PieceProfileError, match=r"field 'tail.tail.conv.weight'.*bytes"):
        PieceSetProfile.from_dict(d, source="broken.json")


def test_teaching_a_set_the_model_misreads_makes_another_photo_of_it_read_right() -> None:
    from training.set_photos import random_game_board, set_photo
    from vision.reader import read_photo
    pieces = _repo_font_set(4)
    teach_img, _ = set_photo(pieces, START, 48_001, look="wood")
    board = random_game_board(48_002)
    other, _ = set_photo(pieces, board, 48_002, look="cloth")
    cal = profile_from_photo(teach_img, START, name="wooden")
    assert cal.profile.method.startswith("taught block"), cal.profile.teach_report
    report = cal.profile.teach_report
    assert report["held_apart_errors"]["taught block"] < report["held_apart_errors"]["model"]

    def wrong(profile) -> int:
        read = read_photo(other, profile=profile).observation.board_string()
        return sum(a != b for a, b in zip(read, board))
    plain, taught = wrong(None), wrong(cal.profile)
    assert plain >= 4 and taught <= plain // 3, (plain, taught)


def test_a_lattice_found_a_point_off_is_moved_back_onto_the_stated_position(clf: PieceClassifier,
                                                                            rendered_start) -> None:
    from calibration.piece_profile import _stated_position_pose
    img, h = rendered_start
    ids = np.array([CLASSES.index(c) for c in START])
    off = h @ np.array([[1.0, 0, 1.0], [0, 1.0, 0], [0, 0, 1.0]])
    probs = clf.predict(clf.extract(img, off))
    pose, turned, shift, _ = _stated_position_pose(clf, img, off, probs, ids, np.ones(90, bool))
    assert not turned and shift == (-1, 0)
    assert np.allclose(pose / pose[2, 2], h / h[2, 2], atol=1e-6)


def test_a_photo_that_does_not_show_the_stated_position_is_refused_not_learnt(rendered_start) -> None:
    img, _ = rendered_start
    elsewhere = board_from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    with pytest.raises(ValueError, match="does not show the stated position"):
        profile_from_photo(img, elsewhere, name="x")


def test_two_photos_of_a_set_are_taught_together_each_photos_points_held_apart_by_halves() -> None:
    from training.set_photos import random_game_board, set_photo
    pieces = _repo_font_set(5)
    start_img, _ = set_photo(pieces, START, 48_101, look="wood")
    board = random_game_board(48_102)
    middle, _ = set_photo(pieces, board, 48_102, look="cloth")
    cal = profile_from_photo(start_img, START, name="two", teach_config=QUICK, more=[(middle, board)])
    report = cal.profile.teach_report
    per_photo = 90 * (8 + QUICK.views)            # 8 plain turns and the augmented cuts of every point
    assert cal.photos == 2 and report["views"] == 2 * per_photo
    # every known view of both photos was held apart once, scored by readers fitted on the other half
    known_views = per_photo + (8 + QUICK.views) * sum(c != "?" for c in board)
    assert report["held_apart_views"] == known_views


def test_a_second_photo_that_does_not_show_its_position_is_refused_by_its_number(rendered_start) -> None:
    img, _ = rendered_start
    elsewhere = board_from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    with pytest.raises(ValueError, match=r"photo 2: .*does not show the stated position"):
        profile_from_photo(img, START, name="x", teach_config=QUICK, more=[(img, elsewhere)])
