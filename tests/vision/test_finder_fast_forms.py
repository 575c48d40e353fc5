"""The finder's fast forms give the plain forms' numbers exactly (issue 42: a search costs a
fraction of what it did, and finds what it found).

`RidgeProfiles` + `_pick_ridges` against `sample_profiles` + `ridge_response` + the ridge choice
written out profile by profile's way (the form the finder had); the comb search's heap walk
against a full sort of every candidate; `remap_rows` against plain remaps; the search's memo
against the steps it stands for.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import geometry as geo
from vision.lines import (DEFAULT_RIDGE, LineSamples, RidgeConfig, RidgeProfiles, centre_strengths, measure_both,
                          remap_rows, ridge_response, sample_profiles)
from vision.locate import DEFAULT_LOCATE, CombConfig, _comb_candidates, _Memo, _verify, refine


def _image(seed: int, shape: tuple[int, int] = (240, 320)) -> np.ndarray:
    """A grey image with a few dark lines on texture, so profiles find ridges and clutter."""
    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.integers(90, 200, shape).astype(np.uint8), (0, 0), 1.5)
    for k in range(12):
        x = int(20 + 25 * k)
        cv2.line(img, (x, 0), (x + int(rng.integers(-20, 20)), shape[0] - 1), int(rng.integers(20, 70)), 2)
    for k in range(9):
        y = int(15 + 25 * k)
        cv2.line(img, (0, y), (shape[1] - 1, y + int(rng.integers(-15, 15))), int(rng.integers(20, 70)), 2)
    return img


def _lattice_h(seed: int) -> np.ndarray:
    """A board -> image homography roughly over `_image`, some of its lattice off the image."""
    rng = np.random.default_rng(seed)
    return np.array([[25 + rng.normal(0, 3), rng.normal(0, 3), 20 + rng.normal(0, 30)],
                     [rng.normal(0, 3), 25 + rng.normal(0, 3), 10 + rng.normal(0, 30)],
                     [rng.normal(0, 2e-4), rng.normal(0, 2e-4), 1.0]])


def _pick_plain(prof: np.ndarray, c: np.ndarray, u: np.ndarray, search: int, half: int, w: int, polarity: int,
                min_strength: float, tol_px: float, ridge: RidgeConfig) -> LineSamples:
    """The ridge choice as the finder made it before issue 42, one profile a row."""
    resp = ridge_response(prof, w, polarity)
    L = prof.shape[1]
    mid = half
    win = resp[:, mid - search: mid + search + 1]
    ds = np.arange(-search, search + 1, dtype=np.float32)
    pref = np.exp(-0.5 * (ds / (ridge.prefer_sigma_frac * search + ridge.prefer_sigma_px)) ** 2)
    k = np.argmax(np.where(np.isfinite(win), np.maximum(win, 0) * pref[None, :], -1.0), axis=1)
    wf = np.where(np.isfinite(win), win, -np.inf)
    peak = np.zeros_like(wf, dtype=bool)
    peak[:, 1:-1] = (wf[:, 1:-1] >= wf[:, :-2]) & (wf[:, 1:-1] >= wf[:, 2:])
    top = np.max(wf, axis=1)
    ok_top = np.isfinite(top) & (top >= min_strength)
    if ok_top.any():
        typical = float(np.mean(np.minimum(top[ok_top], ridge.typical_cap * min_strength + np.mean(top[ok_top]))))
        strong = peak & (wf >= max(min_strength, ridge.clear_ridge_share * typical))
        has = strong.any(axis=1)
        dist = np.where(strong, np.abs(ds)[None, :], np.inf)
        k = np.where(has, np.argmin(dist, axis=1), k)
    best = win[np.arange(len(win)), k]
    kk = k + mid - search
    r0 = resp[np.arange(len(resp)), np.clip(kk - 1, 0, L - 1)]
    r2 = resp[np.arange(len(resp)), np.clip(kk + 1, 0, L - 1)]
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = r0 - 2 * best + r2
        frac = np.where(np.isfinite(denom) & (denom < -1e-6), 0.5 * (r0 - r2) / denom, 0.0)
    frac = np.clip(np.nan_to_num(frac), -0.5, 0.5)
    off = (kk - mid) + frac
    found = np.isfinite(best) & (best >= min_strength)
    t = int(np.ceil(tol_px))
    cs = np.max(resp[:, mid - t: mid + t + 1], axis=1)
    cs = np.where(np.isfinite(cs), cs, 0.0)
    img = c + u * np.where(found, off, 0.0)[:, None]
    return LineSamples(found=found, offset=np.where(found, off, 0.0), strength=np.where(np.isfinite(best), best, 0.0),
                       image_pts=img, centre_strength=cs)


@pytest.mark.parametrize("seed", range(6))
def test_ridge_profiles_give_the_ridge_response_exactly(seed):
    gray = _image(seed)
    h = _lattice_h(seed)
    pts, nrm, _ = geo.lattice_segments(step=0.2, lo=0.3, hi=0.7)
    pts = pts * 1.3 - 1.0                      # some profiles run off the image, at either end
    for w, half in ((2, 9), (3, 14), (2, 25)):
        prof, c, u = sample_profiles(gray, h, pts, nrm, half)
        rp = RidgeProfiles.sample(gray, h, pts, nrm, half, w)
        assert rp.first_off is not None        # (the case of the masking is exercised)
        for pol in (1, -1):
            want = ridge_response(prof, w, pol)[:, 3 * w: prof.shape[1] - 3 * w]
            assert np.array_equal(rp.valid(pol), want.T)


@pytest.mark.parametrize("seed", range(6))
def test_measure_gives_the_plain_ridge_choice_exactly(seed):
    gray = _image(100 + seed)
    h = _lattice_h(100 + seed)
    pts, nrm, _ = geo.lattice_segments(step=0.1, lo=0.3, hi=0.7)
    if seed % 2:
        pts = pts * 1.3 - 1.0
    for search_px, w, tol_px, min_strength in ((6.3, 2, 1.5, 5.0), (2.0, 2, 2.0, 5.0), (9.7, 3, 1.5, 8.0),
                                               (4.0, 2, 4.0, 5.0), (1.0, 2, 1.5, 3.0)):
        search = max(int(np.ceil(search_px)), 1)
        half = search + 3 * w + 1
        prof, c, u = sample_profiles(gray, h, pts, nrm, half)
        got = measure_both(gray, h, pts, nrm, search_px, w, (1, -1), min_strength, tol_px)
        cs = centre_strengths(gray, h, pts, nrm, search_px, w, (1, -1), tol_px)
        for pol, m, cs_pol in zip((1, -1), got, cs):
            want = _pick_plain(prof, c, u, search, half, w, pol, min_strength, tol_px, DEFAULT_RIDGE)
            for name in ("found", "offset", "strength", "image_pts", "centre_strength"):
                a, b = getattr(m, name), getattr(want, name)
                assert a.dtype == b.dtype and np.array_equal(a, b), (name, search_px, w, pol)
            assert np.array_equal(cs_pol, want.centre_strength)


@pytest.mark.parametrize("shape", [(7, 5), (41, 800), (31, 1500), (1, 40000), (33, 1001)])
def test_remap_rows_is_a_plain_remap(shape):
    rng = np.random.default_rng(shape[1])
    gray = _image(7, (300, 400))
    mx = rng.uniform(-5, 405, shape).astype(np.float32)
    my = rng.uniform(-5, 305, shape).astype(np.float32)
    want = np.concatenate([cv2.remap(gray, mx[i:i + 1, j:j + 8000], my[i:i + 1, j:j + 8000], cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
                           for i in range(shape[0]) for j in range(0, shape[1], 8000)], axis=1).reshape(shape)
    assert np.array_equal(remap_rows(gray, mx, my), want)


def _combs_plain(pos: np.ndarray, wt: np.ndarray, teeth: tuple[int, ...], top: int,
                 cfg: CombConfig) -> dict[int, list[tuple[float, float, float]]]:
    """The comb search as it was: one running sum over every tooth, every spacing's best offsets
    by argpartition, all of them sorted."""
    out: dict[int, list[tuple[float, float, float]]] = {n: [] for n in teeth}
    lo, hi = np.percentile(pos, cfg.span_percentile), np.percentile(pos, 100 - cfg.span_percentile)
    span = hi - lo
    bins = cfg.bins
    lo -= cfg.span_margin * span
    hi += cfg.span_margin * span
    scale = bins / (hi - lo)
    raw = np.bincount(np.clip(((pos - lo) * scale).astype(int), 0, bins - 1), weights=wt, minlength=bins)

    def prep(sigma: float) -> np.ndarray:
        h = cv2.GaussianBlur(raw.reshape(1, -1).astype(np.float64), (0, 0), sigma).ravel()
        h = np.sqrt(h / (h.max() + 1e-12))
        return np.concatenate([h, np.zeros(2 * bins + 2)]).astype(np.float32)

    coarse, fine = prep(cfg.coarse_blur_bins), prep(cfg.fine_blur_bins)
    spacings = np.exp(np.arange(np.log(bins / cfg.max_spacings), np.log(bins / (min(teeth) - 1)), cfg.spacing_step))
    offs = np.arange(0, bins, cfg.offset_step_bins)
    steps = np.rint(spacings[:, None] * np.arange(max(teeth))[None, :]).astype(np.int32)
    ti = offs.astype(np.int32)[None, :, None] + steps[:, None, :]
    vals = np.cumsum(coarse[np.minimum(ti, 3 * bins)], axis=2)
    for n in teeth:
        sc = vals[:, :, n - 1].copy()
        sc[(offs[None, :] + spacings[:, None] * (n - 1) >= bins) | (spacings[:, None] > bins / (n - 1))] = -1
        kbest = np.argpartition(-sc, cfg.picks_per_spacing, axis=1)[:, :cfg.picks_per_spacing]
        cands = [(float(offs[k]), float(spacings[si]), float(sc[si, k]))
                 for si in range(len(spacings)) for k in kbest[si] if sc[si, k] > 0]
        cands.sort(key=lambda c: -c[2])
        picked: list[tuple[float, float, float]] = []
        for o, s_, score in cands:
            if all(abs(s_ - q[1]) > cfg.same_spacing * q[1] or abs(o - q[0]) > cfg.same_offset * q[1] for q in picked):
                picked.append((o, s_, score))
            if len(picked) >= top:
                break
        r = cfg.polish_offset_bins
        for o, s_, _ in picked:
            ss = s_ * np.linspace(*cfg.polish_spacings, cfg.polish_spacing_steps)
            oo = o + np.arange(-r, r + 0.01, cfg.polish_offset_step_bins)
            t = oo[None, :, None] + ss[:, None, None] * np.arange(n)[None, None, :]
            tt = np.minimum(t.astype(np.int32), 3 * bins)
            fr = (t - tt).astype(np.float32)
            f = (fine[tt] * (1 - fr) + fine[tt + 1] * fr).sum(axis=2)
            f[(oo[None, :] < 0) | (oo[None, :] + ss[:, None] * (n - 1) >= bins)] = -1
            i, j = np.unravel_index(int(np.argmax(f)), f.shape)
            out[n].append((float(oo[j]) / scale + lo, float(ss[i]) / scale, float(f[i, j])))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_comb_search_finds_what_the_full_sort_found(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 500))
    sp, off = rng.uniform(5, 80), rng.uniform(0, 300)
    pos = np.concatenate([off + sp * rng.integers(0, 10, n) + rng.normal(0, rng.uniform(0.1, 3), n),
                          rng.uniform(-100, 1000, int(rng.integers(0, 100)))])
    if seed % 3 == 0:
        pos = np.round(pos)                  # equal scores: the walk keeps the sort's order
    wt = np.ones(len(pos)) if seed % 4 == 0 else rng.uniform(0.01, 2, len(pos))
    for cfg in (DEFAULT_LOCATE.comb, CombConfig(max_spacings=30)):
        for teeth in ((9, 10), (9,), (10,)):
            got = _comb_candidates(pos, wt, teeth, top=2, cfg=cfg)
            want = _combs_plain(pos, wt, teeth, 2, cfg)
            assert {k: [(c.offset, c.spacing, c.score) for c in v] for k, v in got.items()} == want


def test_the_memo_answers_as_the_steps_do_and_does_each_once(monkeypatch):
    gray = _image(3)
    h = _lattice_h(3)
    memo = _Memo()
    stage = DEFAULT_LOCATE.search.rough
    assert np.array_equal(memo.refine(gray, h, 1, stage)[0], refine(gray, h, 1, stage)[0])
    assert memo.verify(gray, h, 1, DEFAULT_LOCATE) == _verify(gray, h, 1)
    import vision.locate as loc
    calls = []
    monkeypatch.setattr(loc, "refine", lambda *a, **k: calls.append(1) or (h, 0.5))
    memo.refine(gray, h.copy(), 1, stage)            # the same numbers: answered from the memo
    memo.refine(gray, h + 1e-9, 1, stage)            # other numbers: refined
    assert calls == [1]
