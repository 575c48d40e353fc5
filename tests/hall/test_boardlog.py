"""The hub's bookkeeping per board, without a broker: any order, any repeats, one copy in order."""
from __future__ import annotations

import json
import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from hall.boardlog import DAMAGED_TYPE, BoardLog, GapPolicy


def _line(seq: int) -> dict:
    return {"t": seq * 0.5, "type": "move", "ply": seq, "iccs": f"x{seq}"}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000), repeats=st.integers(0, 40))
def test_lines_delivered_in_any_order_with_repeats_are_kept_once_each_in_order(tmp_path_factory, n, seed, repeats):
    folder = tmp_path_factory.mktemp("board")
    rng = random.Random(seed)
    order = list(range(1, n + 1)) + [rng.randint(1, n) for _ in range(repeats)]
    rng.shuffle(order)
    log = BoardLog(1, folder)
    handed_on = []
    for seq in order:
        handed_on += log.receive(seq, _line(seq), "g1").lines
    log.close()
    assert handed_on == [_line(s) for s in range(1, n + 1)]
    copy = [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()]
    assert copy == handed_on
    assert log.duplicates == len(order) - n


def test_a_restarted_log_resumes_after_its_last_whole_line_and_cuts_a_torn_one(tmp_path):
    log = BoardLog(3, tmp_path)
    for seq in (1, 2, 3):
        log.receive(seq, _line(seq), "g1")
    log.close()
    with open(tmp_path / "events.jsonl", "ab") as f:
        f.write(b'{"t": 2.0, "type": "mo')          # killed mid-write
    again = BoardLog(3, tmp_path)
    assert again.next_seq == 4 and again.game == "g1"
    assert again.receive(2, _line(2), "g1").duplicate
    assert again.receive(4, _line(4), "g1").lines == [_line(4)]
    again.close()
    assert len((tmp_path / "events.jsonl").read_text().splitlines()) == 4


def test_a_gap_is_asked_for_once_it_has_waited_and_not_again_too_soon(tmp_path):
    log = BoardLog(1, tmp_path)
    policy = GapPolicy(wait_s=1.0, repeat_s=3.0)
    log.receive(1, _line(1), "g")
    taken = log.receive(3, _line(3), "g")
    assert taken.buffered and not taken.lines
    now = time.monotonic()
    assert log.wants_resend(now, policy) is None
    assert log.wants_resend(now + 1.5, policy) == 2
    assert log.wants_resend(now + 2.0, policy) is None          # asked 0.5 s ago
    assert log.receive(2, _line(2), "g").lines == [_line(2), _line(3)]
    assert log.wants_resend(now + 10.0, policy) is None
    log.close()


def test_a_station_ahead_of_the_hub_with_nothing_in_flight_is_asked_to_resend(tmp_path):
    log = BoardLog(1, tmp_path)
    log.receive(1, _line(1), "g")
    log.station_seq = 5                      # its retained state says it has written 5 lines
    assert log.wants_resend(time.monotonic() + 2.0, GapPolicy()) == 2
    log.close()


def test_a_line_the_station_could_not_read_keeps_its_place(tmp_path):
    log = BoardLog(1, tmp_path)
    log.receive(2, _line(2), "g")
    taken = log.receive(1, None, "g")
    assert [ln["type"] for ln in taken.lines] == [DAMAGED_TYPE, "move"]
    log.close()


def test_a_new_game_on_the_board_starts_a_new_copy_and_keeps_the_old_one(tmp_path):
    log = BoardLog(1, tmp_path)
    log.receive(1, _line(1), "game-a")
    log.receive(2, _line(2), "game-a")
    taken = log.receive(1, _line(1), "game-b")
    assert taken.lines == [_line(1)] and log.next_seq == 2
    assert taken.set_aside == tmp_path / "games" / "1" and log.earlier_games() == [taken.set_aside]
    old = [json.loads(x) for x in (taken.set_aside / "events.jsonl").read_text().splitlines()]
    assert old == [_line(1), _line(2)]
    assert (taken.set_aside / "game.id").read_text().strip() == "game-a"
    assert (tmp_path / "game.id").read_text().strip() == "game-b"
    log.close()


def test_the_retained_state_folded_line_by_line_equals_the_whole_journal_folded_at_once(tmp_path):
    from hall.station import FoldedLines, JournalLines, station_state
    from hall_helpers import real_game, write_game_journal

    path = write_game_journal(tmp_path / "st", real_game(9, 20), dt=0.5, incidents_at=(4,))
    whole = JournalLines(path)
    whole.poll()
    folded = FoldedLines()
    part = JournalLines(path)
    part.poll()
    for n in range(1, len(part.lines) + 1):          # as a publisher sees the journal grow
        step = station_state(5, part.lines[:n], folded)
    assert step == station_state(5, whole.lines)
    assert step["ply"] == 20 and step["seq"] == len(whole.lines) and step["incidents"] == 1
