"""A recorder running while an arbiter writes into its journal: a correction moves the tracker to
the corrected position and the game goes on from there; after a result the board's moves are
post-game (journalled, not in game.pgn). The recorder is the real one, fed synthetic readings of a
scripted game (tests/support/synth.py), and the arbiter's lines are written by live/rulings.py
between two frames, as `xqtrack correct` / `result` would from another process."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from board.tracker import TrackerConfig
from board_helpers import FakeFrame, ObservationReader
from board_scenario import Script, idx
from live.rulings import record_correction, record_result
from live.state import fold
from rules.pgn import read_pgn
from runtime.journal import load_game, read_events
from runtime.recorder import Recorder
from synth import NoiseProfile, observations


def _lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def _pgn(out: Path):
    return read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]


def _misread_horse(out: Path, correct: bool) -> tuple[Recorder, list[dict]]:
    """h2e2 h9g7 h0g2 i9h9, where the reader sees black's horse land on i7 instead of g7 until 30
    frames after the move; with `correct`, the arbiter corrects ply 2 then (in Chinese notation)."""
    s = Script(seed=31).quiet(0.4)
    for m in ("h2e2", "h9g7"):
        s.move(m).quiet(0.5)
    s.quiet(1.0)
    for m in ("h0g2", "i9h9"):
        s.move(m).quiet(0.5)
    start, until = s.moves[0]["frame_hand_leaves"], s.moves[1]["frame_hand_leaves"] + 30
    correct_at = until if correct else None
    frames = list(s.frames)
    for i in range(start, until):
        board = list(frames[i].board)
        if board[idx("g7")] == "n":
            board[idx("g7")], board[idx("i7")] = ".", "n"
        frames[i] = replace(frames[i], board="".join(board))
    obs = list(observations(frames, NoiseProfile(seed=2)))
    # the tracker's own corrector off: what puts the game right here is the arbiter
    rec = Recorder(out, reader=ObservationReader(obs), config=TrackerConfig(correct_plies=0), evidence=False)

    def feed():
        img = np.zeros((72, 128, 3), dtype=np.uint8)
        for f in frames:
            if f.frame_index == correct_at:
                record_correction(out, 2, ["马8进7"], by="Zhang", note="the horse went to g7")
            yield FakeFrame(img, f.t, f.frame_index)
    rec.run(feed())
    return rec, _lines(out)


def test_without_the_arbiter_a_misread_move_leaves_the_game_out_of_sync(tmp_path):
    _, lines = _misread_horse(tmp_path, correct=False)
    assert [e["iccs"] for e in lines if e["type"] == "move"] == ["h2e2", "h9i7"]
    assert any(e.get("status") == "out_of_sync" for e in lines)


def test_a_running_recorder_carries_on_from_the_arbiters_correction(tmp_path):
    rec, lines = _misread_horse(tmp_path, correct=True)
    types = [(e["type"], e.get("status"), e.get("iccs")) for e in lines if e["type"] in ("move", "tracking",
                                                                                        "arbiter_correction")]
    at = types.index(("arbiter_correction", None, None))
    assert types[at - 1] == ("move", None, "h9i7")
    # the recorder took the line up: re-stated as the arbiter's, then the game went on from it
    assert types[at + 1:at + 5] == [("tracking", "corrected", None), ("move", None, "h9g7"),
                                    ("move", None, "h0g2"), ("move", None, "i9h9")]
    ack = lines[[i for i, e in enumerate(lines) if e.get("status") == "corrected"][0]]
    assert ack["arbiter"] is True and ack["by"] == "Zhang" and ack["was"] == "h9i7" and ack["now"] == "h9g7"
    assert not any(e.get("status") == "out_of_sync" for e in lines)
    assert rec.moves_found == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert [m.iccs() for m in _pgn(tmp_path).moves] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert [m.iccs() for m in load_game(tmp_path).moves] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert fold(read_events(tmp_path / "events.jsonl")[0]).moves == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert "the horse went to g7" in (tmp_path / "review.html").read_text(encoding="utf-8")


def test_a_result_entered_while_recording_makes_the_later_moves_post_game(tmp_path):
    s = Script(seed=31).quiet(0.4)
    for m in ("h2e2", "h9g7", "h0g2", "i9h9"):
        s.move(m).quiet(0.5)
    at = s.moves[1]["frame_hand_leaves"] + 10
    obs = list(observations(s.frames, NoiseProfile(seed=2)))
    rec = Recorder(tmp_path, reader=ObservationReader(obs), evidence=False)

    def feed():
        img = np.zeros((72, 128, 3), dtype=np.uint8)
        for f in s.frames:
            if f.frame_index == at:
                record_result(tmp_path, "0-1", "red resigned", by="Li")
            yield FakeFrame(img, f.t, f.frame_index)
    rec.run(feed())
    moves = [e for e in _lines(tmp_path) if e["type"] == "move"]
    assert [(e["iccs"], e.get("post_game", False)) for e in moves] == [
        ("h2e2", False), ("h9g7", False), ("h0g2", True), ("i9h9", True)]
    game = _pgn(tmp_path)
    assert [m.iccs() for m in game.moves] == ["h2e2", "h9g7"] and game.result == "0-1"
    st = fold(read_events(tmp_path / "events.jsonl")[0])
    assert st.moves == ["h2e2", "h9g7"] and [p["iccs"] for p in st.post_game] == ["h0g2", "i9h9"]
