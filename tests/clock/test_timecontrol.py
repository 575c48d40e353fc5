"""Time-control arithmetic for every mode, with expectations worked out by hand."""
from __future__ import annotations

import pytest

from firmware_bridge.codec import ClockState, DelayMode, EventKind, TimeControl
from firmware_bridge.tcspec import parse_duration_ms, parse_time_control
from firmware_bridge.timecontrol import BLACK, RED, ClockMachine

MIN = 60_000


def started(tc: TimeControl) -> ClockMachine:
    m = ClockMachine(tc)
    evs = m.press(BLACK, 0)  # black's press starts red
    assert [(e.kind, e.side) for e in evs] == [(EventKind.START, RED)]
    return m


def kinds(evs):
    return [EventKind(e.kind).name for e in evs]


def test_sudden_death_runs_only_the_side_on_move_and_flags_at_the_exact_ms():
    m = started(TimeControl.sudden_death(5 * MIN))
    m.press(RED, 61_234)
    assert m.sides[RED].remaining_ms == 5 * MIN - 61_234
    assert m.sides[BLACK].remaining_ms == 5 * MIN
    m.press(RED, 70_000)  # not red's move: nothing happens
    assert m.running == BLACK and m.sides[RED].total_moves == 1
    evs = m.tick(10 * MIN)
    assert kinds(evs) == ["FLAG"]
    assert evs[0].side == BLACK and evs[0].clock_ms == 61_234 + 5 * MIN
    assert m.sides[BLACK].flagged and m.sides[BLACK].remaining_ms == 0
    # the game is not ended by the clock: black may still press, gains nothing
    evs = m.press(BLACK, 10 * MIN + 5)
    assert kinds(evs) == ["PRESS"] and m.sides[BLACK].remaining_ms == 0 and m.running == RED


def test_fischer_60_minutes_plus_30_seconds():
    m = started(TimeControl.fischer(60 * MIN, 30_000))
    m.press(RED, 45_000)
    assert m.sides[RED].remaining_ms == 60 * MIN - 45_000 + 30_000
    m.press(BLACK, 45_000 + 10_000)
    assert m.sides[BLACK].remaining_ms == 60 * MIN + 20_000  # fast moves bank time
    assert m.sides[RED].total_moves == 1 and m.sides[BLACK].total_moves == 1


def play(m: ClockMachine, moves: int, red_ms: int, black_ms: int, t: int = 0) -> int:
    for _ in range(moves):
        t += red_ms
        m.press(RED, t)
        t += black_ms
        m.press(BLACK, t)
    return t


def test_periods_90_over_40_then_15_over_10_carry_left_over_time():
    m = started(TimeControl.periods([(90 * MIN, 40), (15 * MIN, 10)]))
    t = play(m, 39, 2 * MIN, 1000)
    assert m.sides[RED].remaining_ms == 90 * MIN - 78 * MIN and m.sides[RED].stage == 0
    t += MIN
    evs = m.press(RED, t)  # 40th move: stage 1 begins, 12 - 1 + 15 minutes
    assert kinds(evs) == ["PRESS", "PERIOD"] and evs[1].detail == 1
    assert m.sides[RED].remaining_ms == 26 * MIN and m.sides[RED].moves_in_stage == 0
    m.press(BLACK, t + 1000)
    for i in range(10):  # ten more moves: stage 1 repeats, another 15 minutes
        t += 1000 + 30_000
        m.press(RED, t)
        m.press(BLACK, t + 1000)
    assert m.sides[RED].stage == 1
    assert m.sides[RED].remaining_ms == 26 * MIN - 10 * 30_000 + 15 * MIN


def test_periods_without_carry_replace_left_over_time():
    m = started(TimeControl.periods([(10_000, 2), (3_000, 1)], carry_time=False))
    play(m, 2, 1_000, 100)
    assert m.sides[RED].remaining_ms == 3_000 and m.sides[RED].stage == 1


def test_unused_moves_are_not_carried_over():
    # 10 s for 3 moves; the count restarts at each stage however fast the moves were
    m = started(TimeControl.periods([(10_000, 3)]))
    t = play(m, 3, 100, 100)
    assert m.sides[RED].moves_in_stage == 0 and m.sides[RED].stage == 0
    assert m.sides[RED].remaining_ms == 10_000 - 300 + 10_000
    play(m, 2, 100, 100, t)
    assert m.sides[RED].moves_in_stage == 2


def test_byoyomi_after_base_time():
    m = started(TimeControl.byoyomi(60_000, 30_000, periods=2))
    evs = m.tick(60_000)
    assert kinds(evs) == ["PERIOD"] and evs[0].detail == 0x80 | 2 and evs[0].clock_ms == 60_000
    m.press(RED, 85_000)  # within the period: it resets, none used
    assert m.sides[RED].remaining_ms == 30_000 and m.sides[RED].byo_left == 2 and m.sides[RED].in_byo
    m.press(BLACK, 86_000)
    evs = m.tick(86_000 + 30_000 + 5_000)
    assert kinds(evs) == ["PERIOD"] and evs[0].detail == 0x80 | 1 and m.sides[RED].remaining_ms == 25_000
    evs = m.tick(86_000 + 60_000)
    assert kinds(evs) == ["FLAG"] and evs[0].clock_ms == 146_000 and m.sides[RED].byo_left == 0


def test_byoyomi_no_increment_and_chinese_60s_per_move():
    tc = parse_time_control("10m byo=60s")
    assert tc.byo_ms == 60_000 and tc.byo_periods == 1
    m = started(tc)
    m.tick(10 * MIN)
    evs = m.tick(10 * MIN + 60_000)
    assert kinds(evs) == ["FLAG"]


def test_simple_delay_and_bronstein():
    simple = started(TimeControl.delay(5 * MIN, 5_000, DelayMode.SIMPLE))
    simple.press(RED, 3_000)
    assert simple.sides[RED].remaining_ms == 5 * MIN  # within the delay
    simple.press(BLACK, 3_000 + 12_000)
    assert simple.sides[BLACK].remaining_ms == 5 * MIN - 7_000
    bron = started(TimeControl.delay(5 * MIN, 5_000, DelayMode.BRONSTEIN))
    bron.press(RED, 3_000)
    assert bron.sides[RED].remaining_ms == 5 * MIN  # 3 s used, 3 s given back
    bron.press(BLACK, 3_000 + 12_000)
    assert bron.sides[BLACK].remaining_ms == 5 * MIN - 12_000 + 5_000


def test_simple_delay_flag_time_includes_the_delay():
    m = started(TimeControl.delay(1_000, 500, DelayMode.SIMPLE))
    evs = m.tick(10_000)
    assert kinds(evs) == ["FLAG"] and evs[0].clock_ms == 1_500


def test_arbiter_pause_resume_add_remove_set():
    m = started(TimeControl.sudden_death(10 * MIN))
    m.press(RED, 60_000)
    assert kinds(m.pause(90_000)) == ["PAUSE"]
    assert m.pause(91_000) == []  # idempotent
    m.tick(500_000)
    assert m.sides[BLACK].remaining_ms == 10 * MIN - 30_000
    assert m.press(BLACK, 500_001) == []  # presses while paused are ignored
    status, evs = m.adjust(BLACK, 2 * MIN, 500_002)
    assert kinds(evs) == ["ADJUST"] and m.sides[BLACK].remaining_ms == 12 * MIN - 30_000
    m.adjust(RED, -20 * MIN, 500_003)
    assert m.sides[RED].remaining_ms == 0
    m.set_time(RED, 3 * MIN, 500_004)
    assert m.sides[RED].remaining_ms == 3 * MIN
    assert kinds(m.resume(600_000)) == ["RESUME"] and m.state == ClockState.RUNNING
    m.tick(610_000)
    assert m.sides[BLACK].remaining_ms == 12 * MIN - 40_000


def test_adjust_after_flag_clears_it():
    m = started(TimeControl.sudden_death(1_000))
    m.tick(2_000)
    assert m.sides[RED].flagged
    m.adjust(RED, 5_000, 2_100)
    assert not m.sides[RED].flagged
    m.tick(3_100)
    assert m.sides[RED].remaining_ms == 4_000


def test_start_command_and_configure_reset():
    m = ClockMachine(TimeControl.sudden_death(MIN))
    status, evs = m.start(BLACK, 100)
    assert status == 0 and kinds(evs) == ["START"] and m.running == BLACK
    assert m.start(BLACK, 200)[0] == 0
    assert m.start(RED, 300)[0] != 0
    evs = m.configure(TimeControl.fischer(2 * MIN, 1_000), 400)
    assert kinds(evs) == ["CONFIG"] and m.state == ClockState.READY
    assert m.sides[RED].remaining_ms == m.sides[BLACK].remaining_ms == 2 * MIN


def test_time_control_spec_parser():
    assert parse_duration_ms("1h30m") == 90 * MIN
    assert parse_duration_ms("500ms") == 500
    tc = parse_time_control("90m/40,15m/10 +30s")
    assert [(s.time_ms, s.moves) for s in tc.stages] == [(90 * MIN, 40), (15 * MIN, 10)]
    assert tc.increment_ms == 30_000
    assert parse_time_control("60m+30s").increment_ms == 30_000
    assert parse_time_control("5m bronstein=3s").delay_mode == DelayMode.BRONSTEIN
    assert parse_time_control("5m delay=3s").delay_mode == DelayMode.SIMPLE
    assert parse_time_control("20m byo=30s*3").byo_periods == 3
    assert not parse_time_control("10m/5 nocarry").carry_time
    tc = parse_time_control("90m/40,15m/10")
    assert TimeControl.unpack(tc.pack()) == tc
    for bad in ("90", "", "10m/x", "10m byo=0s", "10m frob", "1m,2m,3m,4m,5m"):
        with pytest.raises(ValueError):
            parse_time_control(bad)
