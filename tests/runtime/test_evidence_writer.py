"""Evidence written beside the frames: named at once, each file put in place whole."""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from runtime.evidence import EvidenceStore


def _frames(store: EvidenceStore, n: int = 40) -> None:
    rng = np.random.default_rng(0)
    h = np.array([[60.0, 0.0, 100.0], [0.0, 60.0, 80.0], [0.0, 0.0, 1.0]])
    for i in range(n):
        img = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
        store.add(i, img, h, force=True)


def test_an_incidents_files_are_named_at_once_and_are_all_there_after_a_flush(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, fps=15.0, every=1, background=True)
    _frames(store)
    t0 = time.perf_counter()
    named = store.save("001_ply002_touch_move_other", {"before": 5, "during": 20, "after": 35}, [4, 13])
    planned_s = time.perf_counter() - t0
    assert {"before", "during", "after", "info", "crop"} <= set(named)
    store.close()
    for rel in named.values():
        assert (tmp_path / rel).is_file() and (tmp_path / rel).stat().st_size > 0
    assert not list((tmp_path / "evidence").glob("*.part.*"))
    info = json.loads((tmp_path / named["info"]).read_text())
    assert info["frames"]["during"] == 20 and info["points"] == [4, 13]
    assert store.take_failures() == []
    assert planned_s < 0.5   # choosing the frames, not encoding them


def test_a_file_that_cannot_be_written_is_said_not_lost_silently(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, fps=15.0, every=1, background=True)
    _frames(store, 10)
    (tmp_path / "evidence" / "002_ply003_knocked_during.jpg").mkdir()   # its name taken by a folder
    named = store.save("002_ply003_knocked", {"during": 5}, [40])
    store.close()
    failures = store.take_failures()
    assert any("002_ply003_knocked_during.jpg" in f for f in failures), failures
    assert "during" in named and store.take_failures() == []
