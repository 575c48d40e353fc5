"""Fixtures for the clock tests: `xqtrack clock-emulator` as a separate process on a real pty."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Emulator:
    def __init__(self, tmp: Path, *args: str, link: bool = True, link_path: str | None = None, stdin=None) -> None:
        self.link = link_path or (str(tmp / "clock") if link else None)
        self.log = tmp / "emulator.jsonl"
        cmd = [sys.executable, "-m", "app.commands.clock", "clock-emulator", "--quiet", "--log", str(self.log)]
        if self.link:
            cmd += ["--link", self.link]
        cmd += list(args)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.path = self.proc.stdout.readline().strip()
        if not self.path:
            self.proc.wait(5)
            raise AssertionError(f"emulator did not start: {self.proc.stderr.read() if self.proc.stderr else ''}")

    def records(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def events(self) -> list[dict]:
        """The events the clock made, in order (display and beep records left out)."""
        return [r for r in self.records() if "seq" in r]

    def stop(self, timeout: float = 10.0) -> dict:
        """Ends the emulator (if still running) and returns its summary line."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        for line in reversed(err.splitlines()):
            if line.startswith("{") and "emulator_summary" in line:
                return json.loads(line)["emulator_summary"]
        raise AssertionError(f"no emulator summary in its stderr:\n{err[-3000:]}")

    def wait(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.stop()


import pytest  # noqa: E402


@pytest.fixture
def start_emulator(tmp_path):
    """start_emulator(*cli_args, link=True) -> Emulator; every one started is stopped afterwards."""
    started: list[Emulator] = []

    def start(*args: str, link: bool = True, link_path: str | None = None, stdin=None) -> Emulator:
        sub = tmp_path / f"emu{len(started)}"
        sub.mkdir()
        emu = Emulator(sub, *args, link=link, link_path=link_path, stdin=stdin)
        started.append(emu)
        return emu

    yield start
    for emu in started:
        if emu.proc.poll() is None:
            emu.stop()
