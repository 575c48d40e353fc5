"""What the console says: `xqtrack --version`, an example at the end of every sub-command's
--help, no source paths in `demo --help`, no FFmpeg notice when an incident's clip is written,
and a summary when the hall demo ends (Ctrl-C included)."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from app.cli import EXAMPLES, build_parser, package_version, sub_parsers

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hall"))


def _xqtrack(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_xqtrack_version_names_the_package_version():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    want = re.search(r'(?m)^version\s*=\s*"([^"]+)"', pyproject).group(1)
    r = _xqtrack("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"xqtrack {want}"
    assert package_version() == want


def test_every_sub_commands_help_ends_with_an_example():
    parser = build_parser()
    names = [name for name, _ in sub_parsers(parser)]
    assert {"record", "demo", "serve", "hub", "calibrate pieces"} <= set(names)
    for name, sub in sub_parsers(parser):
        text = sub.format_help()
        assert "examples:" in text, f"xqtrack {name} --help has no example"
        example_lines = text.split("examples:", 1)[1].strip().splitlines()
        assert example_lines and all(line.strip().startswith(f"xqtrack {name}") for line in example_lines), name
        assert name in EXAMPLES
    r = _xqtrack("serve", "--help")
    assert r.returncode == 0 and "examples:\n  xqtrack serve round1 --http 8081\n" in r.stdout


def test_every_example_parses_as_its_sub_command_says():
    parser = build_parser()
    import shlex
    for name, lines in EXAMPLES.items():
        for line in lines:
            words = shlex.split(line)[1:]
            try:
                parser.parse_args(words)
            except SystemExit as exc:      # argparse refuses: the example is wrong
                raise AssertionError(f"example {line!r} does not parse") from exc


def test_demo_help_shows_no_source_paths():
    r = _xqtrack("demo", "--help")
    assert r.returncode == 0
    assert not re.search(r"\w+/\w+\.py|app/commands", r.stdout), r.stdout


def test_writing_an_incident_clip_prints_no_ffmpeg_notice(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        from runtime.evidence import EvidenceStore
        store = EvidenceStore({str(tmp_path)!r}, fps=15.0)
        hom = np.array([[40.0, 0.0, 100.0], [0.0, -40.0, 420.0], [0.0, 0.0, 1.0]])
        for i in range(60):
            img = np.full((240, 320, 3), 80, dtype=np.uint8)
            img[50:90, (i * 5) % 280:(i * 5) % 280 + 30] = 230
            store.add(i, img, hom)
        print("a line of our own", file=sys.stderr)
        out = store.save("001_ply001_retouch", {{"during": 40}}, [25])
        print(out["clip"])
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / r.stdout.strip()).stat().st_size > 0          # the clip was written
    assert "FFMPEG" not in r.stderr and "OpenCV" not in r.stderr, r.stderr
    assert "a line of our own" in r.stderr                           # stderr itself is not swallowed


def test_the_hall_demo_summary_names_boards_moves_incidents_and_files(tmp_path):
    from hall_helpers import real_game, write_game_journal

    from app.commands.hall import hall_demo_summary
    write_game_journal(tmp_path / "board1", real_game(3, 8), dt=1.0, headers={"Red": "Hu", "Black": "Liu"},
                       incidents_at=(2, 5))
    text = hall_demo_summary(tmp_path, (1, 2))
    assert f"everything is in {tmp_path.resolve()}/" in text
    assert "board 1: Hu – Liu: 8 moves, 2 incidents, result *;" in text
    assert "board 2: no record" in text
    assert str((tmp_path / "hub" / "broadcast.pgn").resolve()) in text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ctrl_c_ends_the_hall_demo_with_its_summary(tmp_path):
    from hall.broker import BrokerError, find_tool
    try:
        find_tool("mosquitto")
        find_tool("mosquitto_passwd")
    except BrokerError as exc:
        pytest.skip(f"the hall demo needs a real broker: {exc}")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "demo", "--hall", "--out", str(tmp_path / "hall"),
                             "--http", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/hall.json", timeout=2):
                    break
            except OSError:
                time.sleep(0.3)
        time.sleep(3.0)                                    # the stations under way
        os.killpg(proc.pid, signal.SIGINT)                 # Ctrl-C at a terminal: the whole group
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert "hall demo: ended" in out, out[-2000:]
    assert "board 1:" in out and "board 2:" in out and "broadcast.pgn" in out
    assert "Traceback" not in out, out[-3000:]
