"""Sub-commands of `xqtrack` for the clock link (firmware_bridge): clock-emulator, clock-monitor.

`python -m app.commands.clock clock-emulator ...` runs the same without loading the other parts
(vision, sim) — quicker for scripts and tests."""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `clock-emulator` and `clock-monitor`."""
    emu = subparsers.add_parser(
        "clock-emulator",
        help="a software clock on a pseudo-terminal that speaks the clock protocol",
        description="Opens a pseudo-terminal, prints its path (or --link) on the first line of stdout, and "
        "behaves as the clock's firmware. Keys: a/z press red, l/m press black, space pause/resume, x quit.",
    )
    emu.add_argument("--link", help="keep a symlink at this path pointing to the live pty (stable across disconnects)")
    emu.add_argument("--script", help="file of timed actions, one 'T_MS red|black|pause|quit' per line")
    emu.add_argument("--presses", type=int, default=0, help="generate this many alternating presses (black first)")
    emu.add_argument("--interval", type=float, default=1000.0, help="ms between generated presses (default 1000)")
    emu.add_argument("--start-ms", type=float, default=500.0, help="clock ms of the first generated press")
    emu.add_argument("--time-control", default="15m", help="e.g. 15m, 60m+30s, '90m/40,15m/10', '20m byo=30s*3'")
    emu.add_argument("--drop", type=float, default=0.0, help="probability each byte is dropped (both directions)")
    emu.add_argument("--corrupt", type=float, default=0.0, help="probability each byte is corrupted (both directions)")
    emu.add_argument("--delay", type=float, default=0.0, help="extra ms of latency on what the clock sends")
    emu.add_argument("--jitter", type=float, default=0.0, help="random extra latency, 0..N ms")
    emu.add_argument("--disconnect-every", type=float, default=0.0, help="mean seconds between disconnects, each drawn in 0.5..1.5 x this (0: never)")
    emu.add_argument("--disconnect-for", type=float, default=300.0, help="ms each disconnect lasts")
    emu.add_argument("--baud", type=int, default=115200, help="pace output like a UART at this rate (0: unpaced)")
    emu.add_argument("--capacity", type=int, default=32, help="unacknowledged events the clock keeps (firmware: 32)")
    emu.add_argument("--seed", type=int, help="random seed for fault injection")
    emu.add_argument("--log", help="append every event the clock makes to this JSONL file")
    emu.add_argument("--exit-when-done", action="store_true", help="exit once the script is done and all events acked")
    emu.add_argument("--max-seconds", type=float, default=0.0, help="exit after this long (0: run until quit)")
    emu.add_argument("--quiet", action="store_true", help="do not print events on stderr")
    emu.set_defaults(func=_run_emulator)

    mon = subparsers.add_parser(
        "clock-monitor",
        help="print every clock event and snapshot as a JSON line",
        description="Connects to a clock (device name, pty path or pyserial URL) and prints one JSON object per "
        "line: type event, snapshot or link.",
    )
    mon.add_argument("port")
    mon.add_argument("--baud", type=int, default=115200)
    mon.add_argument("--no-snapshots", action="store_true", help="print events and link changes only")
    mon.add_argument("--count", type=int, default=0, help="exit after this many events (0: run until interrupted)")
    mon.add_argument("--duration", type=float, default=0.0, help="exit after this many seconds (0: no limit)")
    mon.add_argument("--configure", metavar="TIME_CONTROL", help="load a time control first, e.g. 60m+30s")
    mon.add_argument("--counters", action="store_true", help="print the link's error counters on exit")
    mon.set_defaults(func=_run_monitor)


def _run_emulator(args: argparse.Namespace) -> int:
    from firmware_bridge.emulator import Faults, PtyEmulator, generated_presses, parse_script
    from firmware_bridge.tcspec import parse_time_control

    for name in ("drop", "corrupt"):
        if not 0.0 <= getattr(args, name) < 1.0:
            raise ValueError(f"--{name} must be a probability in [0, 1)")
    script: list[tuple[int, str]] = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            script = parse_script(fh.read(), args.script)
    if args.presses:
        script = sorted(script + generated_presses(args.presses, args.interval, args.start_ms), key=lambda a: a[0])
    faults = Faults(args.drop, args.corrupt, args.delay, args.jitter, args.disconnect_every, args.disconnect_for)
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    try:
        emu = PtyEmulator(
            link=args.link,
            faults=faults,
            script=script,
            capacity=args.capacity,
            tc=parse_time_control(args.time_control),
            baud=args.baud,
            seed=args.seed,
            log=log,
            verbose=not args.quiet,
            exit_when_done=args.exit_when_done,
            max_seconds=args.max_seconds,
        )
        return emu.run()
    finally:
        if log is not None:
            log.close()


def _run_monitor(args: argparse.Namespace) -> int:
    from firmware_bridge.link import ClockLink
    from firmware_bridge.tcspec import parse_time_control

    out_lock = threading.Lock()
    done = threading.Event()
    seen = [0]

    def emit(obj: dict) -> None:
        with out_lock:
            sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    def on_event(ev) -> None:
        emit(ev.as_dict())
        seen[0] += 1
        if args.count and seen[0] >= args.count:
            done.set()

    tc = parse_time_control(args.configure) if args.configure else None
    link = ClockLink(args.port, args.baud, autostart=False)
    link.subscribe(on_event)
    link.subscribe_link(lambda st: emit(st.as_dict()))
    if not args.no_snapshots:
        link.subscribe_snapshots(lambda s: emit(s.as_dict()))
    link.start()
    try:
        if tc is not None:
            if not link.wait_connected(10.0):
                raise RuntimeError(f"no handshake with the clock on {args.port} within 10 s")
            link.configure(tc)
        deadline = time.monotonic() + args.duration if args.duration else None
        while not done.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                break
            done.wait(0.1)
    finally:
        link.close()
        if args.counters:
            emit({"type": "counters", **link.error_counts()})
    return 0


if __name__ == "__main__":
    import sys as _sys

    from app.cli import main as _main
    _sys.exit(_main(modules=("app.commands.clock",), prog="python -m app.commands.clock"))
