"""The tracker on readings synthesised from sim truth (held-out seeds and looks).

tests/data/board/truth_*.json.gz are sim ClipTruth records (made by
`python bench/track_bench.py --make-truth`; seeds 9101.. were never used while
developing the tracker). The readings are degraded as a real reader's would
be (board.synth), with two noise seeds per clip.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from board.synth import NoiseProfile, bump_frames, start_fen_of
from board.tracker import Tracker
from sim import ClipTruth

from board_helpers import incidents_of, match_incidents, moves_of, run_tracker

DATA = Path(__file__).resolve().parent.parent / "data" / "board"
CLIPS = sorted(DATA.glob("truth_*.json.gz"))


def load(path: Path) -> ClipTruth:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return ClipTruth.from_json(json.load(f), str(path))


def test_truth_files_are_shipped():
    assert len(CLIPS) >= 3, f"expected sim truth files in {DATA}"


@pytest.mark.parametrize("path", CLIPS, ids=[p.stem for p in CLIPS])
@pytest.mark.parametrize("noise_seed", [1, 2])
def test_moves_and_incidents_from_truth(path, noise_seed):
    truth = load(path)
    tr = Tracker(start_fen=start_fen_of(truth))
    _, events = run_tracker(truth.frames, NoiseProfile(seed=noise_seed), bumps=bump_frames(truth), tracker=tr)
    assert moves_of(events) == [m["iccs"] for m in truth.moves]
    found = incidents_of(events)
    planted = [i for i in truth.incidents if i["kind"] != "arm_pass"]
    matched, false = match_incidents(found, planted)
    assert matched == len(planted), (planted, [f.to_dict() for f in found])
    assert len(false) <= 1, [f.to_dict() for f in false]
    # every move is reported soon after the hand leaves (video time)
    move_events = [e for e in events if e.type == "move"]
    for ev, m in zip(move_events, truth.moves):
        delay = ev.t - m["frame_hand_leaves"] / truth.fps
        assert -0.05 <= delay <= 0.5, (m, ev.t)
