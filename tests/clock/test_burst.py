"""Issue 10 item 7: a burst of presses on a noisy line, through the emulator on a real pty.

With 5 % of the bytes corrupted both ways, three EVENT frames in four and more than half of
the host's requests are lost. Presses every 150 ms used to overflow the clock's 32-event
ring (about half of 200 lost, reported): the host asked again for a hole only when another
frame happened to arrive. Now the host repeats its repair request on its own timer, paced
by the line (firmware_bridge/pacing.py), so the ring stays well short of full.
"""
from __future__ import annotations

import threading

from firmware_bridge import ClockEvent, ClockLink
from firmware_bridge.device import DEFAULT_CAPACITY

PRESSES = 200
INTERVAL_MS = 150


def test_a_burst_of_200_presses_at_5_percent_corruption_loses_none(start_emulator):
    emu = start_emulator(
        "--presses", str(PRESSES), "--interval", str(INTERVAL_MS), "--start-ms", "500",
        "--corrupt", "0.05", "--baud", "115200", "--capacity", str(DEFAULT_CAPACITY), "--seed", "7",
        "--time-control", "600m", "--exit-when-done", "--max-seconds", "90",
    )
    got: list[ClockEvent] = []
    lost_reports: list[str] = []
    done = threading.Event()

    def on_event(ev: ClockEvent) -> None:
        got.append(ev)
        if len(got) >= PRESSES:
            done.set()

    link = ClockLink(emu.path, autostart=False)
    link.subscribe(on_event)
    link.subscribe_link(lambda st: lost_reports.append(st.detail) if "lost" in st.detail else None)
    link.start()
    try:
        assert done.wait(PRESSES * INTERVAL_MS / 1000 + 30), f"{len(got)} of {PRESSES} arrived; {link.error_counts()}"
        summary = emu.wait(15)
    finally:
        link.close()
    counters = link.error_counts()

    # the line really was that noisy
    assert summary["bytes_corrupted"] > 1000, summary
    assert counters["crc_errors"] + counters["cobs_errors"] + counters["length_errors"] > 300, counters
    # none lost, none repeated, in order, and the same presses the clock made
    assert summary["overwritten"] == 0 and counters["events_lost"] == 0 and not lost_reports, (summary, lost_reports)
    assert [e.seq for e in got] == list(range(1, PRESSES + 1))
    truth = emu.events()
    assert [(e.seq, e.side, e.clock_ms) for e in got] == [(t["seq"], t["side"], t["clock_ms"]) for t in truth]
    # the ring never even filled (its peak is 9-15 of 32 on an idle machine; a loaded one
    # delays the host's repairs, so the bound here is only "never full")
    assert summary["ring_peak"] < DEFAULT_CAPACITY, summary
