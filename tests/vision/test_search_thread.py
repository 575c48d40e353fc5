"""Board searches off the frame path (vision.search_worker, vision.config.SearchConfig).

A live reader hands every search to the search thread and never waits for one: each frame is
served by the lock and the hand detector while it runs, and the answer is taken at the first frame
after it is ready, checked on that frame. A file's reader takes each answer a fixed number of
frames after it asked, so the same file reads the same however fast the machine searches.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from vision.config import ReaderConfig
from vision.locate import BoardNotFoundError
from vision.protocol import Reader
from vision.reader import BoardReader, FoundBoard, locate_and_read

SLOW_S = 1.0    # the slowed search's extra seconds: far beyond any frame's work


class _SlowSearch:
    """locate_and_read after `delay_s` seconds (a steep view's search, as the frame path sees it);
    counts the searches started and notes when each ended."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.started = 0
        self.began_at: list[float] = []
        self.ended_at: list[float] = []

    def __call__(self, frame: np.ndarray, clf, exclude: tuple[np.ndarray, ...] = ()) -> FoundBoard:
        self.started += 1
        self.began_at.append(time.perf_counter())
        time.sleep(self.delay_s)
        try:
            return locate_and_read(frame, clf, exclude=exclude)
        finally:
            self.ended_at.append(time.perf_counter())


class _Live:
    """A live source of one still image at about 25 fps, its time the wall clock's since it began."""

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.t0 = time.perf_counter()
        self.i = 0

    def serve(self, reader: BoardReader, until, limit_s: float = 20.0) -> list[tuple[float, float, object]]:
        """Frames to `reader` until `until(obs)`: [(wall time process() began, ... ended, obs)]."""
        out = []
        start_serving = time.perf_counter()
        while time.perf_counter() - start_serving < limit_s:
            start = time.perf_counter()
            obs = reader.process(self.img, start - self.t0, self.i)
            out.append((start, time.perf_counter(), obs))
            self.i += 1
            if until(obs):
                return out
            time.sleep(0.02)
        raise AssertionError("the live reader never got there")


def test_a_live_reader_never_waits_on_a_search_and_takes_its_answer_when_ready(vsim):
    img, truth = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    search = _SlowSearch(SLOW_S)
    reader = BoardReader(classify=False, config=ReaderConfig.for_source(live=True), search=search)
    budget = reader.config.search.frame_budget_s
    assert isinstance(reader, Reader)
    live = _Live(img)
    # no lock: the first search runs on the search thread, frames go on without a pose meanwhile
    served = live.serve(reader, lambda obs: obs.pose is not None)
    assert len(served) > 10 and all(obs.pose is None for _, _, obs in served[:-1])
    # every frame served while the search ran well within the search's own time (the frame path's
    # budget is stated for one core at 720p; a loaded test machine is given a few budgets), and the
    # frame that takes the answer waits for nothing (it locks on and starts the hand detector)
    during = [end - start for start, end, _ in served if start >= search.began_at[0] and end <= search.ended_at[0]]
    assert len(during) > 10 and max(during) < 5 * budget, f"a frame took {max(during):.3f} s while the search ran"
    assert served[-1][1] - served[-1][0] < SLOW_S / 2
    # taken at the first frame after it was ready: not before, and no frame begun well after it passed it by
    ready = search.ended_at[0]
    assert served[-1][1] >= ready and served[-1][0] < ready + 0.2
    assert reader.searches == 1 and reader.search_s >= SLOW_S
    assert vsim.lattice_error(served[-1][2].pose.homography, truth.homography) < 1.0
    # with the lock held, its audit (1 s after it was taken, on a quiet frame) is slow too: the lock
    # and the hand detector keep serving, and the audit's answer is taken when ready
    served = live.serve(reader, lambda obs: reader.searches == 2)
    assert all(obs.pose is not None for _, _, obs in served)
    during = [end - start for start, end, _ in served if start >= search.began_at[1] and end <= search.ended_at[1]]
    assert len(during) > 10 and max(during) < 5 * budget, f"a frame took {max(during):.3f} s while the audit ran"
    assert served[-1][1] - served[-1][0] < SLOW_S / 2
    assert search.started == 2 and served[-1][1] >= search.ended_at[1] and served[-1][0] < search.ended_at[1] + 0.2
    assert reader.lattice_replaced == 0     # the right lock, audited and kept


def test_a_live_answer_is_checked_on_the_frame_it_is_taken_at(vsim):
    # the camera turned away while the board was searched for: the board found is not taken
    img, _ = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    blank = np.full_like(img, 90)
    search = _SlowSearch(0.3)
    reader = BoardReader(classify=False, config=ReaderConfig.for_source(live=True), search=search)
    reader.process(img, 0.0, 0)                 # asks for a search of this frame
    while len(search.ended_at) < 1:
        time.sleep(0.01)
    obs = reader.process(blank, 0.5, 1)         # the answer, taken on a frame without the board
    assert obs.pose is None and reader.lock is None and reader.searches == 1


def test_a_file_reads_the_same_however_slow_its_searches_are(vsim):
    frames = vsim.clip(11, plies=1)
    jitter = random.Random(5)

    def slow(frame, clf, exclude=()):
        time.sleep(jitter.uniform(0.0, 0.15))
        return locate_and_read(frame, clf, exclude=exclude)

    def run(search) -> tuple[list, BoardReader]:
        reader = BoardReader(classify=False, search=search)
        return [reader.process(frame, tr.t, i) for i, (frame, tr) in enumerate(frames)], reader

    plain, r1 = run(None)
    slowed, r2 = run(slow)
    assert r1.searches >= 2 and r1.searches == r2.searches     # the first one and the audits
    for a, b in zip(plain, slowed):
        assert (a.pose is None) == (b.pose is None)
        if a.pose is not None:
            assert np.array_equal(a.pose.homography, b.pose.homography)
        assert a.quiet == b.quiet and a.lattice == b.lattice
        assert np.array_equal(a.occluded, b.occluded) and np.array_equal(a.probs, b.probs)


def test_a_failed_search_on_the_thread_is_no_board(vsim):
    img, _ = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)

    def nothing(frame, clf, exclude=()):
        raise BoardNotFoundError("none here")

    reader = BoardReader(classify=False, config=ReaderConfig.for_source(live=True), search=nothing)
    reader.process(np.ascontiguousarray(img), 0.0, 0)
    for i in range(1, 50):
        if reader.searches:
            break
        time.sleep(0.01)
        assert reader.process(np.ascontiguousarray(img), 0.01 * i, i).pose is None
    assert reader.searches == 1 and reader.lock is None


@pytest.mark.parametrize("share", [0.0, 1.5])
def test_a_live_search_share_outside_0_1_is_refused(share):
    with pytest.raises(ValueError, match="live_share"):
        ReaderConfig.for_source(live=True, share=share)


def test_a_live_lock_takes_the_discs_its_search_measured_on_the_searched_frame(vsim):
    # the search thread measures the discs of the board it found (a full read with disc offsets:
    # a few tenths of a second) on the frame it searched: the frame that takes the lock reads
    # nothing more, and the offsets equal those a file's reader measures on the same picture
    img, _ = vsim.still(7, look="wood", tilt=20, azimuth=40, width=960, height=540)
    img = np.ascontiguousarray(img)
    reader = BoardReader(config=ReaderConfig.for_source(live=True))
    served = _Live(img).serve(reader, lambda obs: obs.pose is not None)
    taken = served[-1][2]
    taking_s = served[-1][1] - served[-1][0]
    file_reader = BoardReader()
    start = time.perf_counter()
    from_file = file_reader.process(img, 0.0, 0)      # the search and the full read, on the frame path
    assert taking_s < 0.3 * (time.perf_counter() - start)
    assert np.array_equal(taken.pose.homography, from_file.pose.homography)
    assert np.array_equal(taken.probs, from_file.probs)
    assert np.abs(taken.offset).max() > 0 and np.array_equal(taken.offset, from_file.offset)
    assert not reader.dirty.any()
