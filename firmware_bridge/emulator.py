"""A software clock on a pseudo-terminal: `ClockDevice` (the firmware's logic) behind a pty.

The emulator is the clock: its millisecond counter starts at zero when it starts and is the
time authority, exactly as on the board. Presses come from keys on stdin, a script file of
timed presses, or a generated press schedule; faults can be injected on the line (dropped
and corrupted bytes, delays, jitter) and whole disconnects (the pty is closed and a new one
is opened later, with `--link` kept pointing at the live one, as a USB serial adapter
vanishes and comes back under the same name).

Both directions are paced like a UART: at `baud` each byte takes 10 bit times, so latency
and time-offset figures measured through the pty are those of a real 115200-baud line.
"""
from __future__ import annotations

import json
import os
import random
import select
import signal
import sys
import termios
import time
import tty
from collections import deque
from dataclasses import dataclass
from typing import IO, Callable

from .codec import NO_SIDE, EventKind, EventRecord, TimeControl
from .device import DEFAULT_CAPACITY, DEFAULT_TC, ClockDevice

KEYS_RED = set("azqr")
KEYS_BLACK = set("lmpb")
KEY_PAUSE = " "
KEY_QUIT = "x"


@dataclass
class Faults:
    drop: float = 0.0  # probability each byte (either direction) is lost
    corrupt: float = 0.0  # probability each byte (either direction) is replaced by another value
    delay_ms: float = 0.0  # extra latency on everything the clock sends
    jitter_ms: float = 0.0  # random extra latency, uniform 0..jitter, order kept
    disconnect_every_s: float = 0.0  # mean time between disconnects (exponential); 0 = never
    disconnect_for_ms: float = 300.0  # how long each disconnect lasts

    def mangle(self, data: bytes, rng: random.Random) -> tuple[bytes, int, int]:
        if not (self.drop or self.corrupt) or not data:
            return data, 0, 0
        out = bytearray()
        dropped = corrupted = 0
        for b in data:
            if self.drop and rng.random() < self.drop:
                dropped += 1
                continue
            if self.corrupt and rng.random() < self.corrupt:
                b = (b + rng.randrange(1, 256)) & 0xFF
                corrupted += 1
            out.append(b)
        return bytes(out), dropped, corrupted


def parse_script(text: str, source: str = "script") -> list[tuple[int, str]]:
    """Lines 'T_MS ACTION' (ACTION: red, black, pause, quit); '#' starts a comment."""
    actions = []
    names = {"red": "red", "r": "red", "black": "black", "b": "black", "pause": "pause", "quit": "quit"}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[0].isdigit() or parts[1].lower() not in names:
            raise ValueError(f"{source}:{lineno}: expected 'T_MS red|black|pause|quit', got {line!r}")
        actions.append((int(parts[0]), names[parts[1].lower()]))
    actions.sort(key=lambda a: a[0])
    return actions


def generated_presses(count: int, interval_ms: float, start_ms: float = 200.0) -> list[tuple[int, str]]:
    """Alternating presses: black first (which, from READY, starts red's clock)."""
    return [(int(start_ms + i * interval_ms), "black" if i % 2 == 0 else "red") for i in range(count)]


class PtyEmulator:
    def __init__(
        self,
        *,
        link: str | None = None,
        faults: Faults | None = None,
        script: list[tuple[int, str]] | None = None,
        capacity: int = DEFAULT_CAPACITY,
        tc: TimeControl = DEFAULT_TC,
        baud: int = 115200,
        seed: int | None = None,
        log: IO[str] | None = None,
        announce: Callable[[str], None] | None = None,
        verbose: bool = False,
        exit_when_done: bool = False,
        max_seconds: float = 0.0,
    ) -> None:
        self.link = link
        self.faults = faults or Faults()
        self.script = deque(script or [])
        self.baud = baud
        self.rng = random.Random(seed)
        self.log = log
        self.announce = announce or (lambda path: print(path, flush=True))
        self.verbose = verbose
        self.exit_when_done = exit_when_done
        self.max_seconds = max_seconds
        self.boot = time.monotonic()
        self.device = ClockDevice(0, boot_id=self.rng.randrange(1, 2**32), capacity=capacity, tc=tc)
        self.device.history_hook = self._on_event
        self.master: int | None = None
        self.slave: int | None = None
        self.path = ""
        self.tx: deque[tuple[float, bytes]] = deque()
        self.tx_free_at = 0.0
        self.rx: deque[tuple[float, bytes]] = deque()
        self.rx_free_at = 0.0
        self.stop = False
        self.stats = {"events": 0, "bytes_dropped": 0, "bytes_corrupted": 0, "bytes_lost_offline": 0, "disconnects": 0, "tx_overruns": 0}
        self.offline_until = 0.0
        self.next_disconnect = self._draw_disconnect(self.boot)
        self.script_done_at: float | None = None if self.script else self.boot
        self._shown = ["", ""]

    # ------------------------------------------------------------------ helpers
    def now_ms(self, t: float | None = None) -> int:
        return int(((time.monotonic() if t is None else t) - self.boot) * 1000.0)

    def _draw_disconnect(self, now: float) -> float:
        if self.faults.disconnect_every_s <= 0:
            return float("inf")
        # uniform in [0.5, 1.5] x the mean: random, but never a run of many seconds without one
        return now + self.faults.disconnect_every_s * self.rng.uniform(0.5, 1.5)

    def _on_event(self, seq: int, ev: EventRecord) -> None:
        self.stats["events"] += 1
        kind = EventKind(ev.kind).name.lower()
        side = {0: "red", 1: "black", NO_SIDE: None}.get(ev.side)
        if self.log is not None:
            rec = {
                "seq": seq,
                "kind": kind,
                "side": side,
                "clock_ms": ev.clock_ms,
                "red_ms": ev.red_ms,
                "black_ms": ev.black_ms,
                "detail": ev.detail,
                "moves": ev.moves,
                "mono": self.boot + ev.clock_ms / 1000.0,
            }
            self._record(rec)
        if self.verbose:
            print(
                f"#{seq} {kind:<6} {side or '-':<5} red {_fmt(ev.red_ms)}  black {_fmt(ev.black_ms)}",
                file=sys.stderr,
                flush=True,
            )

    def open_pty(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave, termios.TCSANOW)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        if self.link:
            tmp = f"{self.link}.tmp{os.getpid()}"
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link)

    def close_pty(self) -> None:
        if self.link:
            try:
                os.unlink(self.link)
            except FileNotFoundError:
                pass
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None

    # ------------------------------------------------------------------ main loop
    def run(self) -> int:
        self.open_pty()
        self.announce(self.link or self.path)
        stdin_fd = None
        old_tty = None
        if sys.stdin is not None and not sys.stdin.closed:
            try:
                stdin_fd = sys.stdin.fileno()
                if os.isatty(stdin_fd):
                    old_tty = termios.tcgetattr(stdin_fd)
                    tty.setcbreak(stdin_fd)
                    print("keys: a/z = red presses, l/m = black presses, space = pause/resume, x = quit", file=sys.stderr, flush=True)
            except (OSError, ValueError):
                stdin_fd = None
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: setattr(self, "stop", True))
        try:
            self._loop(stdin_fd)
        finally:
            if old_tty is not None and stdin_fd is not None:
                termios.tcsetattr(stdin_fd, termios.TCSADRAIN, old_tty)
            self.close_pty()
            summary = dict(self.stats, last_event=self.device.last_seq, acked=self.device.acked,
                           overwritten=self.device.events_overwritten, ring_peak=self.device.ring_peak,
                           events_resent=self.device.events_resent, bad_frames=self.device.bad_frames)
            print(json.dumps({"emulator_summary": summary}), file=sys.stderr, flush=True)
        return 0

    def _loop(self, stdin_fd: int | None) -> None:
        while not self.stop:
            now = time.monotonic()
            if self.max_seconds and now - self.boot > self.max_seconds:
                return
            timeout = 0.005
            if self.script:
                timeout = min(timeout, max(0.0, self.boot + self.script[0][0] / 1000.0 - now))
            if self.tx:
                timeout = min(timeout, max(0.0, self.tx[0][0] - now))
            if self.rx:
                timeout = min(timeout, max(0.0, self.rx[0][0] - now))
            fds = [fd for fd in (self.master, stdin_fd) if fd is not None]
            try:
                readable, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            now = time.monotonic()
            ms = self.now_ms(now)
            online = self.master is not None and now >= self.offline_until
            if self.master is not None and self.master in readable:
                try:
                    data = os.read(self.master, 4096)
                except OSError:  # EIO: no one has the other end open
                    data = b""
                if data:
                    if not online:
                        self.stats["bytes_lost_offline"] += len(data)
                    else:
                        data, d, c = self.faults.mangle(data, self.rng)
                        self.stats["bytes_dropped"] += d
                        self.stats["bytes_corrupted"] += c
                        # a UART delivers the last byte 10 bit times per byte after the first
                        start = max(now, self.rx_free_at)
                        self.rx_free_at = start + (len(data) * 10.0 / self.baud if self.baud else 0.0)
                        self.rx.append((self.rx_free_at, data))
            while self.rx and self.rx[0][0] <= now:
                self.device.receive(self.rx.popleft()[1], ms)
            if stdin_fd is not None and stdin_fd in readable:
                chunk = os.read(stdin_fd, 64)
                if not chunk:
                    stdin_fd = None
                for ch in chunk.decode("utf-8", "replace").lower():
                    if ch in KEYS_RED:
                        self.device.press(0, ms)
                    elif ch in KEYS_BLACK:
                        self.device.press(1, ms)
                    elif ch == KEY_PAUSE:
                        self.device.pause_button(ms)
                    elif ch == KEY_QUIT:
                        self.stop = True
            while self.script and self.boot + self.script[0][0] / 1000.0 <= now:
                _, action = self.script.popleft()
                if action == "red":
                    self.device.press(0, ms)
                elif action == "black":
                    self.device.press(1, ms)
                elif action == "pause":
                    self.device.pause_button(ms)
                elif action == "quit":
                    self.stop = True
                if not self.script:
                    self.script_done_at = now
            self.device.poll(ms)
            self._log_outputs(ms)
            self._queue_output(now, online)
            self._flush_tx(now)
            self._faults_schedule(now)
            if self.exit_when_done and self.script_done_at is not None and not self.script and not self.device.ring and not self.tx:
                return

    def _log_outputs(self, ms: int) -> None:
        """Display text and beeps are what a person would see and hear: log them too."""
        if self.device.display != self._shown:
            self._shown = list(self.device.display)
            self._record({"display": {"red": self._shown[0], "black": self._shown[1]}, "clock_ms": ms})
            if self.verbose:
                print(f"display red {self._shown[0]!r} black {self._shown[1]!r}", file=sys.stderr, flush=True)
        while self.device.beeps:
            dur, hz = self.device.beeps.pop(0)
            self._record({"beep": {"ms": dur, "hz": hz}, "clock_ms": ms})
            if self.verbose:
                print(f"beep {dur} ms {hz} Hz\a", file=sys.stderr, flush=True)

    def _record(self, rec: dict) -> None:
        if self.log is not None:
            self.log.write(json.dumps(rec, ensure_ascii=False) + "\n")
            self.log.flush()

    def _queue_output(self, now: float, online: bool) -> None:
        data = self.device.take_output()
        if not data:
            return
        if not online:
            self.stats["bytes_lost_offline"] += len(data)
            return
        data, d, c = self.faults.mangle(data, self.rng)
        self.stats["bytes_dropped"] += d
        self.stats["bytes_corrupted"] += c
        start = now + self.faults.delay_ms / 1000.0
        if self.faults.jitter_ms:
            start += self.rng.uniform(0, self.faults.jitter_ms) / 1000.0
        start = max(start, self.tx_free_at)
        release = start + (len(data) * 10.0 / self.baud if self.baud else 0.0)
        self.tx_free_at = release
        self.tx.append((release, data))

    def _flush_tx(self, now: float) -> None:
        while self.tx and self.tx[0][0] <= now:
            _, data = self.tx.popleft()
            if self.master is None:
                continue
            try:
                os.write(self.master, data)
            except BlockingIOError:
                self.stats["tx_overruns"] += 1  # the host is not reading: like a UART, bytes are lost
            except OSError:
                pass

    def _faults_schedule(self, now: float) -> None:
        if now >= self.next_disconnect and self.master is not None and now >= self.offline_until:
            self.stats["disconnects"] += 1
            self.offline_until = now + self.faults.disconnect_for_ms / 1000.0
            self.tx.clear()
            self.tx_free_at = 0.0
            self.rx.clear()
            self.rx_free_at = 0.0
            if self.link:
                self.close_pty()  # the port vanishes, as an unplugged USB adapter does
            self.next_disconnect = self._draw_disconnect(self.offline_until)
        if self.master is None and now >= self.offline_until:
            self.open_pty()
            print(f"reconnected on {self.path}", file=sys.stderr, flush=True)


def _fmt(ms: int) -> str:
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}.{ms // 100}" if h else f"{m:02d}:{s:02d}.{ms // 100}"
