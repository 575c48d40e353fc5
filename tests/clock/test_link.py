"""The host driver against the emulator on real pseudo-terminals: errors, commands,
idempotent retries, restarts, silence, and the two command-line tools."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from firmware_bridge import (
    ClockCommandError,
    ClockEvent,
    ClockLink,
    ClockPortBusy,
    ClockPortMissing,
    parse_time_control,
)


def collect(link: ClockLink) -> list[ClockEvent]:
    got: list[ClockEvent] = []
    link.subscribe(got.append)
    return got


def wait_for(pred, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def test_missing_port_is_a_clear_error(tmp_path):
    with pytest.raises(ClockPortMissing, match="does not exist"):
        ClockLink(str(tmp_path / "no-such-tty"))


def test_busy_port_is_a_clear_error(start_emulator):
    emu = start_emulator()
    with ClockLink(emu.path) as first:
        assert first.wait_connected(5)
        with pytest.raises(ClockPortBusy, match="busy"):
            ClockLink(emu.path)


def test_pyserial_url_is_accepted():
    # loop:// echoes our own frames back: no clock answers, so the link stays connecting
    with ClockLink("loop://", silence_timeout=60) as link:
        time.sleep(0.4)
        assert link.state == "connecting"
        assert link.error_counts()["bytes_rx"] > 0


def test_commands_display_beep_and_arbiter_events(start_emulator):
    emu = start_emulator()
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert link.wait_connected(5)
        link.configure(parse_time_control("10m+5s"))
        link.display("炮二平五")
        link.display("C2.5", side="red")
        link.beep(120, 1800)
        link.start_clock("red")
        link.pause()
        link.adjust_time("black", 60_000)
        link.set_time("red", 123_456)
        link.resume()
        with pytest.raises(ClockCommandError, match="bad_state"):
            link.start_clock("black")  # red is running
        with pytest.raises(ValueError):
            link.display("x" * 33)
        assert wait_for(lambda: len(got) >= 6)
        offset = link.offset()
    assert [(e.kind, e.side) for e in got] == [
        ("config", None), ("start", "red"), ("pause", "red"), ("adjust", "black"), ("adjust", "red"), ("resume", "red")
    ]
    assert got[3].remaining_ms[1] == 10 * 60_000 + 60_000
    assert got[4].remaining_ms[0] == 123_456
    assert offset is not None and offset[1] < 0.02
    emu.stop()
    recs = emu.records()
    assert {"display": {"red": "C2.5", "black": "炮二平五"}} in [{k: v for k, v in r.items() if k == "display"} for r in recs]
    assert any(r.get("beep") == {"ms": 120, "hz": 1800} for r in recs)


def test_retried_adjustments_apply_once_on_a_noisy_line(start_emulator):
    emu = start_emulator("--corrupt", "0.02", "--seed", "3")
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert link.wait_connected(10)
        link.configure(parse_time_control("10m"))
        link.start_clock("red")
        link.pause()
        for _ in range(30):
            link.adjust_time("black", 1_000)
        assert wait_for(lambda: sum(e.kind == "adjust" for e in got) >= 30)
        counters = link.error_counts()
    adjusts = [e for e in got if e.kind == "adjust"]
    assert len(adjusts) == 30
    assert adjusts[-1].remaining_ms[1] == 10 * 60_000 + 30_000
    assert counters["command_retries"] > 0  # retries happened, none applied twice
    assert counters["crc_errors"] + counters["cobs_errors"] + counters["length_errors"] > 0


def test_clock_restart_is_noticed_and_numbering_restarts(start_emulator, tmp_path):
    link_path = str(tmp_path / "clk")
    emu = start_emulator("--presses", "3", "--interval", "50", "--start-ms", "300", link_path=link_path)
    link = ClockLink(link_path, reconnect_delay=0.05)
    got = collect(link)
    details: list[str] = []
    link.subscribe_link(lambda st: details.append(st.detail))
    try:
        assert wait_for(lambda: len(got) >= 3)
        emu.stop()
        emu2 = start_emulator("--presses", "2", "--interval", "50", "--start-ms", "300", link_path=link_path)
        assert wait_for(lambda: len(got) >= 5, 15)
    finally:
        link.close()
    assert [e.seq for e in got] == [1, 2, 3, 1, 2]
    assert got[0].boot_id != got[3].boot_id
    assert link.error_counts()["clock_restarts"] == 1
    assert any("restarted" in d for d in details)
    emu2.stop()


def test_silent_line_is_detected_and_the_port_reopened(start_emulator):
    emu = start_emulator("--disconnect-every", "1.5", "--disconnect-for", "1200", link=False)
    with ClockLink(emu.path, silence_timeout=0.6, reconnect_delay=0.05) as link:
        states: list[str] = []
        link.subscribe_link(lambda st: states.append(st.state))
        assert wait_for(lambda: link.error_counts()["reconnects"] >= 1 and link.state == "connected", 15)
    assert "disconnected" in states


def test_resume_after_skips_what_was_recorded(start_emulator):
    emu = start_emulator("--presses", "4", "--interval", "20", "--start-ms", "100", "--capacity", "32")
    time.sleep(0.6)  # all four events made while no host listened; the clock holds them
    with ClockLink(emu.path, resume_after=2) as link:
        got = collect(link)
        assert wait_for(lambda: len(got) >= 2)
        time.sleep(0.2)
    assert [e.seq for e in got] == [3, 4]


def test_events_made_while_no_host_listened_are_delivered_with_true_times(start_emulator):
    emu = start_emulator("--presses", "5", "--interval", "30", "--start-ms", "100")
    time.sleep(0.8)
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert wait_for(lambda: len(got) >= 5)
    truth = emu.events()
    for ev, t in zip(got, truth):
        assert ev.received_at - ev.host_time > 0.3  # arrived late...
        assert abs(ev.host_time - t["mono"]) < 0.01  # ...but placed at the time it happened


def test_emulator_script_and_keys(start_emulator, tmp_path):
    script = tmp_path / "presses.txt"
    script.write_text("# t_ms action\n200 black\n450 red\n700 pause\n", encoding="utf-8")
    emu = start_emulator("--script", str(script), stdin=subprocess.PIPE)
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert wait_for(lambda: len(got) >= 3)
        emu.proc.stdin.write(" l")  # space resumes, l presses black (black is on move)
        emu.proc.stdin.flush()
        assert wait_for(lambda: len(got) >= 5)
    assert [(e.kind, e.side) for e in got] == [
        ("start", "red"), ("press", "red"), ("pause", "black"), ("resume", "black"), ("press", "black")
    ]
    assert 440 <= got[1].clock_ms - 0 <= 520


def test_bad_script_line_is_reported(tmp_path):
    script = tmp_path / "bad.txt"
    script.write_text("100 red\nsoon black\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "clock-emulator", "--script", str(script)],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1
    assert "bad.txt:2" in proc.stderr and "T_MS" in proc.stderr


def test_clock_monitor_prints_json_lines(start_emulator):
    emu = start_emulator("--presses", "3", "--interval", "100", "--start-ms", "300")
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "clock-monitor", emu.path, "--count", "3", "--counters"],
        capture_output=True, text=True, timeout=30, env=dict(os.environ), stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    events = [x for x in lines if x["type"] == "event"]
    assert [(e["seq"], e["kind"]) for e in events] == [(1, "start"), (2, "press"), (3, "press")]
    assert any(x["type"] == "link" and x["state"] == "connected" for x in lines)
    assert lines[-1]["type"] == "counters"


def test_clock_monitor_missing_port_is_one_line_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "clock-monitor", str(tmp_path / "ttyNONE")],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "does not exist" in proc.stderr


def test_many_threads_send_commands_at_once(start_emulator):
    # each adjustment applies once even when more than 16 others run between one and its retry
    # (the clock's memory of commands is by number: test_device_commands.py)
    emu = start_emulator("--corrupt", "0.01", "--seed", "8")
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert link.wait_connected(5)
        link.configure(parse_time_control("5m"))
        errors: list[BaseException] = []

        def worker(side: str) -> None:
            try:
                for _ in range(10):
                    link.adjust_time(side, 100)
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(s,)) for s in ("red", "black", "red", "black")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not errors
        assert wait_for(lambda: sum(e.kind == "adjust" for e in got) >= 40)
    last = [e for e in got if e.kind == "adjust"][-1]
    assert last.remaining_ms == (5 * 60_000 + 2_000, 5 * 60_000 + 2_000)


def test_delayed_jittery_lossy_line_keeps_order_and_honest_time_bounds(start_emulator):
    emu = start_emulator("--presses", "30", "--interval", "40", "--start-ms", "500",
                         "--delay", "15", "--jitter", "10", "--drop", "0.005", "--seed", "21")
    with ClockLink(emu.path) as link:
        got = collect(link)
        assert wait_for(lambda: len(got) >= 30, 20)
    truth = emu.events()
    assert [e.seq for e in got] == list(range(1, 31))
    for ev, t in zip(got, truth):
        assert (ev.clock_ms, ev.kind, ev.side) == (t["clock_ms"], t["kind"], t["side"])
        # the delay is one-way (clock to host), the worst case for an NTP-style estimate:
        # the error stays inside the bound the driver reports with each event
        assert abs(ev.host_time - t["mono"]) <= ev.offset_error_s + 0.0015


def test_resume_after_is_ignored_for_another_power_up(start_emulator):
    emu = start_emulator("--presses", "3", "--interval", "20", "--start-ms", "100")
    time.sleep(0.5)
    with ClockLink(emu.path, resume_after=2, resume_boot_id=12345) as link:
        got = collect(link)
        assert wait_for(lambda: len(got) >= 3)
    assert [e.seq for e in got] == [1, 2, 3]


def test_events_overwritten_while_no_host_listened_are_reported_lost(start_emulator):
    emu = start_emulator("--presses", "10", "--interval", "10", "--start-ms", "100", "--capacity", "4")
    time.sleep(0.6)  # ten events, the clock holds only the last four
    with ClockLink(emu.path, resume_after=0) as link:
        got = collect(link)
        details: list[str] = []
        link.subscribe_link(lambda st: details.append(st.detail))
        assert wait_for(lambda: len(got) >= 4)
        time.sleep(0.2)
        counters = link.error_counts()
    assert [e.seq for e in got] == [7, 8, 9, 10]
    assert counters["events_lost"] == 6
    assert any("6 clock events lost" in d for d in details)
