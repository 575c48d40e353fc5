"""The vision settings (LocateConfig, LockConfig, RidgeConfig, LineFitConfig, DiscConfig, and the reader's:
HandConfig, AnchorConfig, LockDoubtConfig, SearchConfig in vision.config.ReaderConfig).

Each threshold of the finder, the lock, the line measurement, the line fit and the disc fit is
a named field with its unit; a bad value is refused naming the field, and a setting handed to
an entry point really steers the step it names (not a copy of the number somewhere else).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import geometry as geo
from vision.disc import DiscConfig, point_offsets
from vision.lines import RidgeConfig, line_width_px
from vision.locate import (BoardNotFoundError, CombConfig, EdgeConfig, FamilyConfig, LineRefineConfig, LocateConfig,
                           LsdLook, RedConfig, RefinePass, SearchConfig, SegmentConfig, VerifyConfig, WindowConfig,
                           find_lattice, locate, to_gray)
from vision.lock import LockConfig, LockKeeper
from vision import config as reader_config
from vision.hands import HandConfig

SETTINGS = [LocateConfig(), SegmentConfig(), FamilyConfig(), CombConfig(), VerifyConfig(), SearchConfig(),
            LineRefineConfig(), WindowConfig(), EdgeConfig(), RedConfig(), LsdLook(720, 0.7), RefinePass(0.1, 2),
            LockConfig(), RidgeConfig(), geo.LineFitConfig(), DiscConfig(), HandConfig(), reader_config.AnchorConfig(),
            reader_config.LockDoubtConfig(), reader_config.SearchConfig()]


def _numeric_fields() -> list[tuple[geo.CheckedSettings, str]]:
    out: list[tuple[geo.CheckedSettings, str]] = []
    for cfg in SETTINGS:
        for f in dataclasses.fields(cfg):  # type: ignore[arg-type]
            v = getattr(cfg, f.name)
            items = v if isinstance(v, tuple) else (v,)
            if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in items):
                out.append((cfg, f.name))
    return out


NUMERIC = _numeric_fields()


def test_every_settings_class_is_frozen_and_has_numeric_thresholds():
    assert len(NUMERIC) > 100
    for cfg in SETTINGS:
        name = dataclasses.fields(cfg)[0].name  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(cfg, name, getattr(cfg, name))


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.sampled_from(NUMERIC),
       st.one_of(st.floats(max_value=-1e-9, allow_infinity=False), st.just(math.nan), st.just(math.inf),
                 st.integers(max_value=-1)))
def test_a_negative_or_non_finite_setting_is_refused_naming_its_class_and_field(field, bad):
    cfg, name = field
    old = getattr(cfg, name)
    value = tuple(bad for _ in old) if isinstance(old, tuple) else bad
    with pytest.raises(ValueError, match=rf"{type(cfg).__name__}\.{name} = "):
        dataclasses.replace(cfg, **{name: value})  # type: ignore[type-var]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.floats(0.0, 2000.0), st.floats(0.0, 50.0), st.floats(0.0, 0.2), st.integers(0, 6))
def test_the_line_width_grows_with_the_board_and_never_drops_below_its_minimum(spacing, more, frac, min_px):
    ridge = RidgeConfig(line_width_frac=frac, min_line_width_px=min_px)
    w = line_width_px(spacing, ridge)
    assert w >= min_px
    assert w <= line_width_px(spacing + more, ridge)
    assert abs(w - max(min_px, frac * spacing)) <= 0.5 + 1e-9


def _lattice_line_points(h: np.ndarray, rng: np.random.Generator, outliers: int):
    """Image points on the lattice's lines under `h` (pixel noise), plus points of one parallel
    line a third of a spacing off file 4 claimed to lie on it (a frame or a shadow)."""
    pts, _, ids = geo.lattice_segments(step=0.1, lo=0.3, hi=0.7)
    axis = np.where(ids < geo.FILES, 0, 1)
    value = np.where(ids < geo.FILES, ids, ids - geo.FILES).astype(np.float64)
    img = geo.apply_h(h, pts) + rng.normal(0, 0.2, (len(pts), 2))
    ys = np.linspace(0.3, 8.7, outliers)
    bad = geo.apply_h(h, np.c_[np.full(outliers, 4.33), ys])
    return (np.concatenate([img, bad]), np.concatenate([axis, np.zeros(outliers, int)]),
            np.concatenate([value, np.full(outliers, 4.0)]))


def test_the_line_fit_shrugs_off_a_wrong_line_only_through_its_robust_weighting():
    h = np.array([[40.0, 6.0, 300.0], [-3.0, -38.0, 600.0], [0.0002, 0.0004, 1.0]])
    img, axis, value = _lattice_line_points(h, np.random.default_rng(5), 60)
    err = {}
    for name, cfg in (("robust", geo.LineFitConfig()), ("plain", geo.LineFitConfig(huber_k=1e9))):
        hf = geo.fit_h_from_line_points(img, axis, value, h0=h, iters=6, config=cfg)
        err[name] = float(np.abs(geo.apply_h(hf, geo.POINTS) - geo.apply_h(h, geo.POINTS)).max())
    assert err["robust"] < 0.5 < err["plain"]


@pytest.fixture(scope="module")
def wood_still(vsim):
    img, truth = vsim.still(101, look="wood", tilt=40, azimuth=30)
    return np.ascontiguousarray(img), truth


def test_the_finder_refuses_a_board_by_the_support_it_is_given(wood_still, vsim):
    img, truth = wood_still
    fit = find_lattice(img)
    assert vsim.lattice_error(fit.homography, truth.homography) < 1.0 + truth.camera["homography_fit_max_px"]
    demanding = LocateConfig(min_support=0.99)
    assert fit.support < demanding.min_support
    with pytest.raises(BoardNotFoundError, match="shows only"):
        find_lattice(img, config=demanding)
    with pytest.raises(BoardNotFoundError, match="shows only"):
        locate(img, config=demanding)


def test_the_finder_refuses_an_image_below_its_configured_size(wood_still):
    img, _ = wood_still
    with pytest.raises(BoardNotFoundError, match=r"image too small \(1280x720\)"):
        find_lattice(img, config=LocateConfig(min_image_px=721))


def test_the_lock_holds_or_lets_go_by_its_configured_share_of_the_baseline(wood_still):
    img, _ = wood_still
    fit = find_lattice(img)
    gray = to_gray(img)
    kept = LockKeeper(fit.homography, fit.polarity, fit.support, fit.score).check(gray)
    assert kept.ok and kept.support >= LockConfig().min_ratio * fit.support
    # the same frame, judged against more support than any frame can show (twice the baseline)
    strict = LockKeeper(fit.homography, fit.polarity, fit.support, fit.score, LockConfig(min_ratio=2.0))
    lost = strict.check(gray)
    assert not lost.ok and lost.support == pytest.approx(kept.support)
    assert np.array_equal(strict.h, fit.homography)  # a failed check leaves the lock as it was


def test_disc_offsets_come_from_the_fit_only_from_the_configured_size():
    import sim
    img, truth = sim.render_still(8)
    occ = np.array([c != "." for c in truth.board])
    probs = np.zeros((90, 15))
    probs[~occ, 0] = 1.0
    probs[occ, 1] = 1.0
    model = np.asarray(truth.offsets, dtype=np.float64) * 0.5  # the model's offsets: right way, half size
    pts = list(range(90))
    measured = point_offsets(img, truth.homography, pts, probs, model)
    from_fit = occ & np.any(np.abs(measured - model) > 1e-6, axis=1)
    assert from_fit.sum() >= 1
    # the fitted offsets are the true ones, not the model's half-size ones
    assert np.abs(measured[from_fit] - truth.offsets[from_fit]).max() < 0.08
    # no offset reaches 5 spacings: with that as the size from which the fit counts, every piece keeps the model's
    never = point_offsets(img, truth.homography, pts, probs, model, config=DiscConfig(big_offset=5.0))
    assert np.allclose(never[occ], model[occ], atol=1e-6)


def test_the_reader_hands_its_settings_down_to_its_stages(vsim):
    # one ReaderConfig for the whole reader: the hand detector, every lock and the disc meter get
    # their part of it (a board that never waits long enough to be quiet shows it steers)
    from vision.config import ReaderConfig
    from vision.reader import BoardReader
    img, _ = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    quiet = {}
    for name, cfg in (("default", ReaderConfig()),
                      ("patient", ReaderConfig(hands=HandConfig(quiet_s=1e6), lock=LockConfig(min_ratio=0.5)))):
        reader = BoardReader(classify=False, config=cfg)
        quiet[name] = any(reader.process(img, i / 10, i).quiet for i in range(12))
        assert reader.hands.config is cfg.hands and reader.lock is not None and reader.lock.config is cfg.lock
    assert quiet == {"default": True, "patient": False}
