"""Clock link figures over a real pseudo-terminal, the emulator pacing its output at 115200 baud.

    .venv/bin/python bench/clock_bench.py [--presses 60] [--disconnects 5] [--burst 200] [--burst-interval 150]

1. Press-to-host-event latency: from the instant the clock stamps a press to the moment the
   host driver hands the event to its subscriber (target <= 20 ms). Also the error of
   `host_time` (the clock's time mapped onto the host clock) against the true instant.
2. Recovery after a disconnect: the pty vanishes for 500 ms and comes back (as a USB adapter
   pulled and re-plugged); from its return to the link "connected" again, and to the last
   press made during the outage delivered.
3. A burst of presses (200, 150 ms apart) on a clean line and with 5 % of the bytes corrupted
   both ways, the clock keeping its firmware's 32 events: presses sent, delivered, lost
   (overwritten in the clock's ring, reported by the host), press-to-host latency (median and
   max: on a noisy line an event waits for the holes before it), the clock's resent EVENT
   frames, the host's repair requests and the most events the ring held at once.

The emulator and the host share this machine's monotonic clock, so the emulator's own log
gives the true instant of every press.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import ClockEvent, ClockLink  # noqa: E402
from firmware_bridge.device import DEFAULT_CAPACITY  # noqa: E402


def start_emulator(tmp: Path, *args: str) -> tuple["subprocess.Popen[str]", str, Path]:
    log = tmp / "emu.jsonl"
    cmd = [sys.executable, "-m", "app.commands.clock", "clock-emulator", "--quiet", "--log", str(log), *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    path = proc.stdout.readline().strip()
    if not path:
        raise SystemExit(f"emulator did not start: {proc.stderr.read()}")
    return proc, path, log


def truth(log: Path) -> dict[int, dict]:
    out = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if "seq" in rec:
            out[rec["seq"]] = rec
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def bench_latency(tmp: Path, presses: int) -> None:
    proc, path, log = start_emulator(tmp, "--baud", "115200", "--presses", str(presses), "--interval", "173",
                                     "--start-ms", "1500")
    got: list[ClockEvent] = []
    done = threading.Event()

    def on_event(ev: ClockEvent) -> None:
        got.append(ev)
        if len(got) >= presses:
            done.set()

    with ClockLink(path) as link:
        link.subscribe(on_event)
        done.wait(presses * 0.173 + 15)
        off = link.offset()
    proc.terminate()
    proc.communicate(timeout=10)
    t = truth(log)
    # the clock stamps whole milliseconds: the true instant is up to 1 ms after mono
    lat = [(ev.received_at - t[ev.seq]["mono"]) * 1000 for ev in got if ev.seq in t]
    err = [abs(ev.host_time - t[ev.seq]["mono"]) * 1000 for ev in got if ev.seq in t]
    print(f"press -> host event latency over a pty at 115200 baud ({len(lat)} presses)")
    print(f"  median {statistics.median(lat):6.2f} ms   p95 {pct(lat, 0.95):6.2f} ms   max {max(lat):6.2f} ms"
          f"   target <= 20 ms: {'met' if pct(lat, 0.95) <= 20 else 'NOT met'}")
    print(f"  host_time error: median {statistics.median(err):5.2f} ms   max {max(err):5.2f} ms"
          f"   (offset bound from the best exchange: {off[1] * 1000 if off else float('nan'):.2f} ms)")


def bench_recovery(tmp: Path, disconnects: int) -> None:
    link_path = str(tmp / "clock")
    period = 2.0
    presses = int((disconnects + 1) * period * 1000 / 50)
    proc, path, log = start_emulator(
        tmp, "--baud", "115200", "--link", link_path, "--presses", str(presses), "--interval", "50",
        "--start-ms", "600", "--disconnect-every", str(period), "--disconnect-for", "500", "--seed", "4",
    )
    back: list[float] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("reconnected on"):
                back.append(time.monotonic())

    threading.Thread(target=read_stderr, daemon=True).start()
    connected: list[float] = []
    got: list[ClockEvent] = []
    with ClockLink(link_path, reconnect_delay=0.05) as link:
        link.subscribe(got.append)
        link.subscribe_link(lambda st: connected.append(st.host_time) if st.state == "connected" else None)
        deadline = time.monotonic() + (disconnects + 1) * period * 1.6 + 10
        while len(back) < disconnects and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        counters = link.error_counts()
    proc.terminate()
    proc.wait(10)
    t = truth(log)
    to_connected, to_replayed = [], []
    for b in back:
        after = [c for c in connected if c >= b]
        if after:
            to_connected.append((after[0] - b) * 1000)
        # events stamped during the outage (the 500 ms before b) delivered at:
        outage = [ev for ev in got if b - 0.5 <= t.get(ev.seq, {}).get("mono", 0) < b]
        if outage:
            to_replayed.append((max(ev.received_at for ev in outage) - b) * 1000)
    seqs = [ev.seq for ev in got]
    print(f"recovery after a disconnect (pty gone 500 ms, {len(back)} times; host retries the port every 50 ms)")
    if to_connected:
        print(f"  port back -> link connected:           median {statistics.median(to_connected):6.1f} ms"
              f"   max {max(to_connected):6.1f} ms")
    if to_replayed:
        print(f"  port back -> outage presses delivered:  median {statistics.median(to_replayed):6.1f} ms"
              f"   max {max(to_replayed):6.1f} ms")
    print(f"  events delivered {len(got)}, in order without gaps or repeats: {seqs == list(range(1, len(seqs) + 1))}; "
          f"reconnects {counters['reconnects']}, lost {counters['events_lost']}")


def bench_burst(tmp: Path, presses: int, interval_ms: float, corrupt: float, seed: int) -> None:
    proc, path, log = start_emulator(
        tmp, "--baud", "115200", "--presses", str(presses), "--interval", str(interval_ms), "--start-ms", "500",
        "--corrupt", str(corrupt), "--capacity", str(DEFAULT_CAPACITY), "--seed", str(seed), "--time-control", "600m",
        "--exit-when-done", "--max-seconds", str(presses * interval_ms / 1000 + 60),
    )
    got: list[ClockEvent] = []
    done = threading.Event()

    def on_event(ev: ClockEvent) -> None:
        got.append(ev)
        if len(got) >= presses:
            done.set()

    t0 = time.monotonic()
    with ClockLink(path) as link:
        link.subscribe(on_event)
        finished = done.wait(presses * interval_ms / 1000 + 45)
        counters = link.error_counts()
    proc.terminate()
    _, err = proc.communicate(timeout=10)
    summary = {}
    for line in reversed(err.splitlines()):
        if "emulator_summary" in line:
            summary = json.loads(line)["emulator_summary"]
            break
    t = truth(log)
    lat = [(ev.received_at - t[ev.seq]["mono"]) * 1000 for ev in got if ev.seq in t]
    in_order = [ev.seq for ev in got] == list(range(1, len(got) + 1))
    print(f"burst: {presses} presses {interval_ms:g} ms apart, {corrupt * 100:g} % of bytes corrupted both ways, "
          f"ring of {DEFAULT_CAPACITY} ({time.monotonic() - t0:.0f} s{'' if finished else ', NOT all delivered in time'})")
    print(f"  presses sent {len(t)}   delivered {len(got)}   lost {counters['events_lost']} "
          f"(overwritten in the clock {summary.get('overwritten', '?')})   in order, no repeats: {in_order}")
    if lat:
        print(f"  latency median {statistics.median(lat):6.0f} ms   p95 {pct(lat, 0.95):6.0f} ms   max {max(lat):6.0f} ms")
    print(f"  resends: clock {summary.get('events_resent', '?')} EVENT frames, host {counters['replays_requested']} "
          f"repair requests; frames lost to corruption {counters['crc_errors'] + counters['cobs_errors'] + counters['length_errors']}; "
          f"ring peak {summary.get('ring_peak', '?')} of {DEFAULT_CAPACITY}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presses", type=int, default=60)
    ap.add_argument("--disconnects", type=int, default=5)
    ap.add_argument("--burst", type=int, default=200, help="presses in the burst test (0: skip it)")
    ap.add_argument("--burst-interval", type=float, default=150.0, help="ms between the burst's presses")
    ap.add_argument("--seed", type=int, default=1, help="fault-injection seed of the burst test")
    ap.add_argument("--only-burst", action="store_true", help="run the burst test only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        for sub in ("a", "b", "c0", "c5"):
            (Path(d) / sub).mkdir()
        if not args.only_burst:
            bench_latency(Path(d) / "a", args.presses)
            bench_recovery(Path(d) / "b", args.disconnects)
        if args.burst:
            bench_burst(Path(d) / "c0", args.burst, args.burst_interval, 0.0, args.seed)
            bench_burst(Path(d) / "c5", args.burst, args.burst_interval, 0.05, args.seed)


if __name__ == "__main__":
    main()
