"""One recorder per recording folder (runtime/folder_lock.py), with real `xqtrack` processes.

Two `record --resume` started on one folder at once both ran and appended: plies twice, two
incidents numbered alike, two `source_ended`, while game.pgn looked normal. A recorder now holds
DIR/.xqtrack.lock (flock) for its whole run; a second is refused naming the first's pid and writes
nothing; the kernel drops the lock when a recorder is killed, so --resume after a crash still works;
a ruling is appended beside a running recorder without waiting for it.

The recorder here plays the bundled sample clip (102 s) at its own pace (--realtime), so it is
still running while the second command is tried, and is stopped as soon as that is done.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from runtime.folder_lock import LOCK_NAME, FolderBusy, hold_folder, read_holder
from runtime.journal import Journal, read_events

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "sim" / "samples" / "demo" / "clip.mp4"
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _xqtrack(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=_env(), cwd=str(ROOT))


def _start_recorder(out: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app.cli", "record", str(CLIP), "--out", str(out), "--quiet",
                             "--realtime", *more], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=_env(), cwd=str(ROOT))


def _wait_for(what: Callable[[], bool], timeout: float, name: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if proc.poll() is not None:
            raise AssertionError(f"the recorder ended before {name}: {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {name} within {timeout} s")
        time.sleep(0.05)


def _statuses(out: Path) -> list[str]:
    if not (out / "events.jsonl").exists():
        return []
    events, _ = read_events(out / "events.jsonl")
    return [str(e.get("status")) for e in events if e.get("type") == "tracking"]


def _stop(proc: subprocess.Popen[str], sig: int = signal.SIGKILL) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
    proc.communicate(timeout=60)


@pytest.fixture
def recording(tmp_path):
    """A real `xqtrack record` into tmp_path/rec, running (its `started` line journalled)."""
    out = tmp_path / "rec"
    proc = _start_recorder(out)
    try:
        _wait_for(lambda: "started" in _statuses(out), 60, "`started` line in the journal", proc)
        yield out, proc
    finally:
        _stop(proc)


def test_a_second_record_resume_on_a_folder_being_recorded_exits_1_naming_the_first_and_writes_nothing(recording):
    out, first = recording
    r = _xqtrack("record", str(CLIP), "--out", str(out), "--quiet", "--resume")
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"pid {first.pid}" in lines[0] and str(out) in lines[0] and "Traceback" not in r.stderr
    assert first.poll() is None, "the first recorder must go on"
    statuses = _statuses(out)
    assert statuses.count("started") == 1 and "resumed" not in statuses, statuses
    events, warnings = read_events(out / "events.jsonl")
    assert not warnings
    plies = [e["ply"] for e in events if e["type"] == "move"]
    assert len(set(plies)) == len(plies), f"a ply journalled twice: {plies}"
    assert (read_holder(out) or pytest.fail("no lock file")).pid == first.pid


def test_a_recorder_killed_with_sigkill_leaves_the_folder_free_for_a_resume(recording):
    out, first = recording
    _stop(first, signal.SIGKILL)                 # no clean-up of its own: the kernel drops its flock
    assert (out / LOCK_NAME).exists()            # the stale file stays; it decides nothing
    second = _start_recorder(out, "--resume")
    try:
        _wait_for(lambda: "resumed" in _statuses(out), 60, "`resumed` line in the journal", second)
        assert (read_holder(out) or pytest.fail("no lock file")).pid == second.pid
        second.send_signal(signal.SIGTERM)       # a clean stop: the record is finished and the folder let go
        _, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
    finally:
        _stop(second)
    assert _statuses(out)[-1] == "interrupted"
    assert not (out / LOCK_NAME).exists(), "a clean exit removes its lock file"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_station_replay_into_a_folder_a_recorder_holds_is_refused_naming_it_and_writes_nothing(tmp_path):
    src = tmp_path / "src"
    with Journal(src) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "fen": START_FEN})
        j.write({"type": "tracking", "t": 1.0, "ply": 0, "status": "source_ended"})
    out = tmp_path / "station"
    # a recorder that has taken the folder and not yet written its first line (both started at once)
    with hold_folder(out, "record"):
        r = _xqtrack("station-replay", str(src / "events.jsonl"), "--out", str(out), "--board", "1",
                     "--publish", f"mqtt://127.0.0.1:{_free_port()}", "--drain", "0")
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME], "the refused replay wrote into the folder"
    assert r.returncode == 1, r.stderr
    errors = [x for x in r.stderr.splitlines() if "error" in x]
    assert len(errors) == 1 and f"pid {os.getpid()}" in errors[0] and str(out) in errors[0], r.stderr


def test_a_ruling_is_journalled_while_a_recorder_holds_the_folder(tmp_path):
    out = tmp_path / "rec"
    with Journal(out) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "fen": START_FEN})
        j.write({"type": "incident", "t": 2.0, "ply": 0, "kind": "knocked", "id": 1, "points": ["c3"]})
    with hold_folder(out, "record"):
        r = _xqtrack("rule", str(out), "1", "--uphold", timeout=30)
        assert r.returncode == 0, r.stderr
    events, _ = read_events(out / "events.jsonl")
    assert [(e["type"], e.get("incident"), e.get("decision")) for e in events[2:]] == [("ruling", 1, "upheld")]


def test_a_second_hold_of_a_held_folder_is_refused_in_process_too(tmp_path):
    """flock conflicts between two opens in one process as well: a recorder started twice from one
    program (a test, the hall demo) is refused the same way."""
    with hold_folder(tmp_path / "rec", "record"):
        with pytest.raises(FolderBusy, match=f"pid {os.getpid()}"):
            with hold_folder(tmp_path / "rec", "record --resume"):
                pass
    with hold_folder(tmp_path / "rec", "record --resume") as again:
        assert again.held


def test_record_out_an_existing_file_says_it_is_a_file_not_a_folder(tmp_path):
    f = tmp_path / "game.txt"
    f.write_text("keep me\n", encoding="utf-8")
    for more in ((), ("--resume",)):
        r = _xqtrack("record", str(CLIP), "--out", str(f), "--quiet", *more)
        assert r.returncode == 1
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"--out {f} is a file, not a folder" in lines[0], r.stderr
        assert "Errno" not in r.stderr
    assert f.read_text(encoding="utf-8") == "keep me\n"


def test_record_out_under_a_file_says_which_file_stands_in_the_way_and_makes_nothing(tmp_path):
    blocker = tmp_path / "games.txt"
    blocker.write_text("not a folder\n", encoding="utf-8")
    out = blocker / "round1" / "board3"
    r = _xqtrack("record", str(CLIP), "--out", str(out), "--quiet")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{blocker} is a file, not a folder" in lines[0], r.stderr
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"


def test_a_missing_folder_and_the_folders_above_it_are_made_for_the_recording(tmp_path):
    from runtime.folder_lock import hold_folder
    out = tmp_path / "hall" / "round1" / "board3"
    with hold_folder(out, "record") as lock:
        assert out.is_dir() and lock.held
    assert not out.exists()   # made here and left empty: removed again


def test_record_out_in_a_read_only_folder_says_it_cannot_make_it(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders; the permission check cannot be seen")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = _xqtrack("record", str(CLIP), "--out", str(ro / "rec"), "--quiet")
    finally:
        ro.chmod(0o755)
    assert r.returncode == 1 and f"{ro} is not writable" in r.stderr, r.stderr
    assert not (ro / "rec").exists()


def test_a_source_that_will_not_open_leaves_no_folder_behind(tmp_path):
    out = tmp_path / "rec"
    r = _xqtrack("record", str(tmp_path / "nope.mp4"), "--out", str(out), "--quiet")
    assert r.returncode == 1 and "no such video file" in r.stderr, r.stderr
    assert not out.exists(), "the folder made for the lock is removed again when nothing was recorded"
