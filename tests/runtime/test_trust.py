"""Records an arbiter can trust: real `xqtrack record` subprocesses on a rendered clip, killed,
signalled, starved of disk, fed from a live stream, and kept out of the user's home.

The clip is rendered here (seed 9201, "plastic", six random plies and a planted touch) and decoded by OpenCV from
the written video; nothing is synthesised.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules.pgn import read_pgn
from runtime.journal import final_move_events, load_game, read_events
from sim import ClipSpec, write_clip

from stream_server import MjpegServer, clip_frames, noise_frames

ROOT = Path(__file__).resolve().parent.parent.parent


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _record_cmd(source: str, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", "record", source, "--out", str(out), "--quiet", *more]


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("clip9201")
    truth = write_clip(ClipSpec(seed=9201, look="plastic", random_plies=6, width=640, height=360, fps=15.0,
                                incidents=[{"kind": "touch_move_other", "ply": 4}]), d)
    side = truth.moves[0]["side"] if truth.moves else "w"
    fen = f"{truth.start_fen.split()[0]} {side} - - 0 1"
    return d / "clip.mp4", fen, truth


@pytest.fixture(scope="module")
def reference(clip, tmp_path_factory):
    """The clip recorded in one uninterrupted run: what every other way of recording must equal."""
    path, fen, _ = clip
    out = tmp_path_factory.mktemp("reference") / "rec"
    r = subprocess.run(_record_cmd(str(path), out, "--start-fen", fen), capture_output=True, text=True,
                       timeout=300, env=_env())
    assert r.returncode == 0, r.stderr
    events, _ = read_events(out / "events.jsonl")
    return out, events


def _moves(events: list[dict]) -> list[str]:
    return [e["iccs"] for e in final_move_events(events)]


def _incidents(events: list[dict]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(e["kind"], str(e.get("side")), tuple(e.get("points") or ())) for e in events
            if e["type"] == "incident"]


def test_the_reference_run_records_the_clip_right(clip, reference):
    _, _, truth = clip
    _, events = reference
    assert _moves(events) == [m["iccs"] for m in truth.moves]


def test_a_recording_killed_twenty_times_and_resumed_equals_an_uninterrupted_run(clip, reference, tmp_path):
    path, fen, _ = clip
    ref_out, ref_events = reference
    out = tmp_path / "rec"
    rng = random.Random(9301)
    kills = 0
    resumed_plies: list[int] = []
    while kills < 20:
        journal = out / "events.jsonl"
        started = journal.exists() and any(e.get("status") == "started" for e in read_events(journal)[0])
        args = ["--resume"] if started else ["--start-fen", fen]
        if started:
            resumed_plies.append(len(load_game(out).moves))
        size = journal.stat().st_size if journal.exists() else 0
        proc = subprocess.Popen(_record_cmd(str(path), out, *args), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env=_env())
        # once it has journalled that it runs (started / resumed), kill it at a random moment of its
        # work: the clip is read at ~10x real time, so this spreads the kills over the whole game
        _wait_for(lambda: proc.poll() is not None or (journal.exists() and journal.stat().st_size > size),
                  60, "the recorder to start")
        time.sleep(rng.uniform(0.0, 0.3))
        if proc.poll() is not None:     # it reached the end before the kill: the game is complete
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
            break
        proc.kill()
        proc.wait(timeout=30)
        kills += 1
    r = subprocess.run(_record_cmd(str(path), out, "--resume"), capture_output=True, text=True,
                       timeout=300, env=_env())
    assert r.returncode == 0, r.stderr
    events, _ = read_events(out / "events.jsonl")
    assert _moves(events) == _moves(ref_events)
    # plies journalled before a restart are never changed automatically
    assert not [e for e in events if e.get("status") == "corrected"
                and int(e.get("ply", 0)) <= max(resumed_plies or [0])], "a resumed ply was rewritten"
    pgn = read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]
    assert [m.iccs() for m in pgn.moves] == _moves(ref_events)
    assert kills >= 10, f"only {kills} kills happened before the clip ended; the test did not test much"


def _wait_for(predicate, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _has_move(out: Path) -> bool:
    path = out / "events.jsonl"
    return path.exists() and any(e["type"] == "move" for e in read_events(path)[0])


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_ends_a_recording_like_the_end_of_the_source(clip, tmp_path, signame):
    path, fen, _ = clip
    out = tmp_path / "rec"
    proc = subprocess.Popen(_record_cmd(str(path), out, "--start-fen", fen, "--realtime"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env(),
                            preexec_fn=lambda: os.umask(0o022))
    try:
        _wait_for(lambda: _has_move(out), 60, "the first move in the journal")
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    events, warnings = read_events(out / "events.jsonl")
    assert not warnings
    last = events[-1]
    assert last["type"] == "tracking" and last["status"] == "interrupted", last
    assert signame in last["detail"]
    pgn = read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]
    assert [m.iccs() for m in pgn.moves] == _moves(events)
    for name in ("game.pgn", "review.html", "events.jsonl"):
        mode = (out / name).stat().st_mode & 0o777
        assert mode == 0o644, f"{name} is {oct(mode)}; with umask 022 it must be readable by all (0644)"


def _mount_tmpfs(where: Path, size_mib: int) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m", "tmpfs", str(where)],
                       capture_output=True, text=True)
    return r.returncode == 0


def test_a_full_disk_stops_with_one_clear_line_and_a_whole_record(clip, tmp_path):
    path, fen, _ = clip
    disk = tmp_path / "small_disk"
    if not _mount_tmpfs(disk, 24):
        pytest.skip("a tmpfs cannot be mounted here (needs root and mount permission)")
    try:
        out = disk / "rec"
        proc = subprocess.Popen(_record_cmd(str(path), out, "--start-fen", fen, "--realtime", "--speed", "2"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
        _wait_for(lambda: _has_move(out), 60, "the first move in the journal")
        # fill the disk to the last byte while the recording goes on
        fd = os.open(disk / "filler.bin", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for size in (1 << 16, 4096, 512):       # big blocks, then the last partial ones
                try:
                    while True:
                        os.write(fd, b"\xff" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err
        lines = [x for x in err.splitlines() if " is full: " in x]
        assert len(lines) == 1 and str(out) in lines[0], err
        assert "warning" in err and "MiB free" in err, "no early warning of low space"
        events, warnings = read_events(out / "events.jsonl")
        assert not warnings
        assert events[-1]["status"] == "disk_full", events[-1]
        pgn = read_pgn((out / "game.pgn").read_text(encoding="utf-8"))[0]
        assert [m.iccs() for m in pgn.moves] == _moves(events)
        assert not (out / ".xqtrack-reserve").exists()
        # evidence images were given up before journal lines
        for e in events:
            if e["type"] == "incident":
                assert "evidence_error" in e or e.get("evidence"), e
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_clip_served_live_over_mjpeg_records_the_same_moves_and_incidents_as_the_file(clip, reference, tmp_path):
    path, fen, _ = clip
    _, ref_events = reference
    with MjpegServer(clip_frames(path)) as server:
        out = tmp_path / "live"
        r = subprocess.run(_record_cmd(server.url, out, "--start-fen", fen), capture_output=True, text=True,
                           timeout=300, env=_env())
    events, _ = read_events(out / "events.jsonl")
    drops = [e for e in events if e.get("status") == "frames_dropped"]
    assert _moves(events) == _moves(ref_events), (r.stderr, drops)
    # the same incidents: none the file run did not make, and the clip's planted touch too
    assert set(_incidents(events)) == set(_incidents(ref_events)), (r.stderr, drops, _incidents(events),
                                                                    _incidents(ref_events))
    assert any(k == "touch_move_other" for k, _, _ in _incidents(events))
    # the stream ending is the camera going away: said, and the record kept
    assert events[-1]["type"] == "tracking" and events[-1]["status"] == "source_error", events[-1]


def test_live_frames_are_timed_when_grabbed_and_a_short_stall_drops_none(clip):
    from runtime.sources import FrameSource
    path, _, _ = clip
    frames = clip_frames(path)
    with MjpegServer(frames, fps=15.0) as server:
        source = FrameSource(server.url, lost_after_s=1.5)
        times: list[float] = []
        try:
            for frame in source:
                times.append(frame.t)
                if len(times) % 40 == 0:
                    time.sleep(0.4)          # the recorder busy for a moment (an evidence clip written)
        except Exception as exc:             # the stream ends: the camera "goes away"
            assert "no frame" in str(exc)
        finally:
            source.close()
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) == len(frames) and source.dropped == 0
    gaps.sort()
    assert abs(gaps[len(gaps) // 2] - 1 / 15) < 0.01          # stamped at grab: the stream's own pace
    assert gaps[-1] < 3 / 15, gaps[-5:]                        # a stall of the reader does not bunch them


def test_a_noise_camera_keeps_up_with_real_time_and_says_no_board_was_found(tmp_path):
    seconds, fps = 8.0, 15.0
    with MjpegServer(noise_frames(int(seconds * fps)), fps=fps) as server:
        out = tmp_path / "noise"
        t0 = time.monotonic()
        r = subprocess.run(_record_cmd(server.url, out), capture_output=True, text=True, timeout=120, env=_env())
        wall = time.monotonic() - t0
    events, _ = read_events(out / "events.jsonl")
    said = [e for e in events if e.get("status") == "board_not_found"]
    assert said, r.stderr
    assert "searching at most" in said[0]["detail"]
    end = events[-1]
    # the stream lasted `seconds`; the recorder followed it in real time (plus start-up and the
    # 3 s a live source gets before it counts as gone), never at a fraction of it
    assert wall < seconds + 25, f"{wall:.1f} s to follow {seconds:.0f} s of noise"
    assert end["t"] >= seconds * 0.8, end


def test_a_recording_writes_nothing_outside_out_and_the_xqtrack_home(clip, tmp_path):
    path, fen, _ = clip
    home = tmp_path / "home"
    cwd = tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    out = tmp_path / "rec"
    r = subprocess.run(_record_cmd(str(path), out, "--start-fen", fen), capture_output=True, text=True,
                       timeout=300, cwd=cwd, env=_env(HOME=str(home), XDG_CACHE_HOME="", XDG_CONFIG_HOME=""))
    assert r.returncode == 0, r.stderr
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*")
                     if not str(p.relative_to(home)).startswith(".xqtrack"))
    assert written == [], f"written in HOME: {written}"
    assert sorted(cwd.iterdir()) == [], "written in the working folder"
    assert json.loads((out / "events.jsonl").read_text(encoding="utf-8").splitlines()[0])["type"] == "tracking"
