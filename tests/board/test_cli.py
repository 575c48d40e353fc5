"""`xqtrack record` / `demo` command line: bad sources, kept data, the recorder loop."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from runtime.recorder import Recorder, RecordError
from runtime.sources import FrameSource, SourceError, SourceLost
from synth import NoiseProfile, observations
from vision.observation import board_from_fen
from rules.pgn import read_pgn

from board_helpers import FakeFrame, ObservationReader, fake_frames
from board_scenario import Script

ROOT = Path(__file__).resolve().parent.parent.parent


def xqtrack(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(ROOT))


def test_missing_file_is_a_clear_one_line_error(tmp_path):
    r = xqtrack("record", str(tmp_path / "nope.mp4"), "--out", str(tmp_path / "o"))
    assert r.returncode == 1
    assert "nope.mp4: no such video file" in r.stderr
    assert "Traceback" not in r.stderr


def test_unreadable_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"this is not a video\n" * 100)
    r = xqtrack("record", str(bad), "--out", str(tmp_path / "o"))
    assert r.returncode == 1
    assert "not a video OpenCV can decode" in r.stderr and "Traceback" not in r.stderr


def test_bad_start_fen_is_named(tmp_path):
    r = xqtrack("record", "whatever.mp4", "--out", str(tmp_path / "o"), "--start-fen", "rnbakabnr/9/zz w")
    assert r.returncode == 1 and "FEN" in r.stderr and "Traceback" not in r.stderr


def test_existing_recording_is_never_overwritten(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "events.jsonl").write_text('{"t":0,"type":"tracking","ply":0}\n', encoding="utf-8")
    with pytest.raises(RecordError, match="already holds a recording"):
        Recorder(out, reader=None)
    assert (out / "events.jsonl").read_text(encoding="utf-8").count("\n") == 1


def _game():
    s = Script(seed=31).quiet(0.4)
    for m in ("h2e2", "h9g7", "h0g2", "i9h9"):
        s.move(m).quiet(0.5)
    return s


def test_camera_gone_mid_game_keeps_what_was_recorded(tmp_path):
    s = _game()
    obs = list(observations(s.frames, NoiseProfile(seed=2)))
    cut = s.moves[2]["frame_hand_leaves"] + 10       # after three moves the camera dies

    def frames():
        img = np.zeros((72, 128, 3), dtype=np.uint8)
        for i in range(cut):
            yield FakeFrame(img, i / 25, i)
        raise SourceLost("camera 0: no frame for 3 s (disconnected?); recording stopped, data so far kept")

    out = tmp_path / "o"
    rec = Recorder(out, reader=ObservationReader(obs))
    summary = rec.run(frames())
    assert summary.ended == "source_lost" and "disconnected" in summary.message
    assert summary.moves == ["h2e2", "h9g7", "h0g2"]
    lines = [json.loads(x) for x in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["type"] == "tracking" and lines[-1]["status"] == "source_error"
    game = read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]
    assert [m.iccs() for m in game.moves] == ["h2e2", "h9g7", "h0g2"]
    assert (out / "review.html").exists()


def _write_video(path: Path, n: int, size=(160, 120)) -> None:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, size)
    assert w.isOpened()
    for i in range(n):
        img = np.full((size[1], size[0], 3), (i * 7) % 255, dtype=np.uint8)
        w.write(img)
    w.release()


def test_video_file_source_gives_frames_with_video_time(tmp_path):
    p = tmp_path / "v.mp4"
    _write_video(p, 30)
    src = FrameSource(str(p))
    frames = list(src)
    src.close()
    assert len(frames) == 30 and not src.live
    assert frames[0].t == 0.0 and abs(frames[25].t - 1.0) < 1e-6
    assert frames[3].image.shape == (120, 160, 3)


def test_truncated_video_ends_cleanly(tmp_path):
    p = tmp_path / "v.mp4"
    _write_video(p, 60)
    data = p.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    try:
        src = FrameSource(str(cut))
    except SourceError as exc:             # the container's index is gone: refused with a reason
        assert "decode" in str(exc)
        return
    n = sum(1 for _ in src)
    src.close()
    assert n < 60


def test_folder_and_empty_file_refused(tmp_path):
    with pytest.raises(SourceError, match="folder"):
        FrameSource(str(tmp_path))
    empty = tmp_path / "e.mp4"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        FrameSource(str(empty))


def test_record_and_demo_are_registered():
    r = xqtrack("--help")
    assert r.returncode == 0 and "record" in r.stdout and "demo" in r.stdout
    r = xqtrack("record", "--help")
    assert all(k in r.stdout for k in ("--out", "--clock", "--start-fen", "--resume"))


def test_checkmate_ends_the_game_with_a_result(tmp_path):
    fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"
    s = Script(fen=fen, seed=33).quiet(0.5)
    s.move("e1d1").quiet(0.6)          # the rook and the facing general leave black no move
    obs = list(observations(s.frames, NoiseProfile(seed=4)))
    img = np.zeros((72, 128, 3), dtype=np.uint8)
    rec = Recorder(tmp_path / "o", start_fen=fen, reader=ObservationReader(obs))
    summary = rec.run(FakeFrame(img, f.t, f.frame_index) for f in s.frames)
    assert summary.moves == ["e1d1"]
    ends = [e for e in summary.events if e["type"] == "game_end"]
    assert len(ends) == 1 and ends[0]["result"] == "1-0"
    game = read_pgn((tmp_path / "o" / "game.pgn").read_text(encoding="utf-8"))[0]
    assert game.result == "1-0" and game.headers.get("FEN", "").startswith("3k5")


def test_a_weak_lattice_the_reader_replaced_is_journalled_once_with_its_frame(tmp_path):
    # vision.reader.LockDoubtConfig: the reader gave up a weakly shown lattice for a clearly better
    # one; an arbiter reading the journal must see that every point was read afresh from there
    s = _game()
    obs = list(observations(s.frames, NoiseProfile(seed=2)))

    class Replacing(ObservationReader):
        lattice_replaced = 0

        def process(self, frame, t, frame_index):
            if frame_index == 30:
                self.lattice_replaced += 1
            return super().process(frame, t, frame_index)

    out = tmp_path / "o"
    summary = Recorder(out, reader=Replacing(obs)).run(fake_frames(len(obs)))
    assert summary.moves == ["h2e2", "h9g7", "h0g2", "i9h9"]
    lines = [json.loads(x) for x in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    found = [e for e in lines if e.get("status") == "lattice_anchored"]
    assert len(found) == 1 and found[0]["frame"] == 30 and found[0]["doubted"]
    assert "weakly" in found[0]["detail"]


class _Anchoring(ObservationReader):
    """An ObservationReader that re-seats its lattice (vision.anchor.AnchorResult) at frame 30."""

    def __init__(self, obs):
        super().__init__(obs)
        self._frame = -1

    def process(self, frame, t, frame_index):
        self._frame = frame_index
        return super().process(frame, t, frame_index)

    def take_anchored(self):
        from vision.anchor import AnchorResult
        return [AnchorResult(0, 1, False, 120.0, explained=0.97)] if self._frame == 30 else []


def test_the_reader_is_told_the_games_position_every_frame_and_its_anchoring_is_journalled(tmp_path):
    # the lattice policy (when to check the lattice against the known position) is the reader's
    # (vision.anchor.AnchorWatch); the recorder tells it the position and journals what it did
    s = _game()
    obs = list(observations(s.frames, NoiseProfile(seed=2)))
    reader = _Anchoring(obs)
    out = tmp_path / "o"
    summary = Recorder(out, reader=reader).run(fake_frames(len(obs)))
    assert summary.moves == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert len(reader.told) == len(obs)
    assert reader.told[0] == (board_from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"), False)
    assert reader.told[-1][0] != reader.told[0][0]           # the position after the moves
    lines = [json.loads(x) for x in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    found = [e for e in lines if e.get("status") == "lattice_anchored"]
    assert len(found) == 1 and found[0]["frame"] == 30 and found[0]["shift"] == [0, 1] and not found[0]["fresh"]
