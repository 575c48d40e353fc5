"""The hub against what a broker may pass on: topics posing as boards, boards by the hundred digits,
seq numbers of every wrong type, lines of megabytes, floods of early lines, evidence named to climb
out of its folder or to run in a browser, a station starting another game. Through the real parts
(Mosquitto, `xqtrack hub`, stations) where it matters, and the bookkeeping units directly."""
from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hall import topics
from hall.boardlog import BoardLog, GapPolicy, HeldLimits, Refused
from hall.broker import ACL_NAME, PASSWD_NAME, find_tool, station_user
from hall.brokerurl import parse_broker_url
from hall.client import make_client
from hall.ingest import IngestLimits, Refusals, parse_board_range, read_event
from rules.pgn import read_pgn

from hall_helpers import Hall, get_json, journal_lines, moves_of, real_game, wait_for, write_game_journal

INTRUDER = ("intruder", "intruder-pw")
BAD_EVIDENCE_NAMES = ["clip.html", "..", "../x.jpg", ".hidden.jpg", "x.jpg.html", "a b.jpg", "x" * 200 + ".jpg", ""]


# ------------------------------------------------------------------ the units: topics, limits, the board log

def _line(seq: int, pad: int = 0) -> dict[str, Any]:
    return {"t": seq * 0.5, "type": "move", "ply": seq, "iccs": f"x{seq}", "pad": "p" * pad}


@given(text=st.text(alphabet=st.characters(categories=["Nd", "No", "Nl"]) | st.sampled_from("0123456789/+#x"),
                    max_size=12))
def test_a_topic_names_a_board_only_by_one_to_nine_ascii_digits_without_a_leading_zero(text):
    where = topics.parse_board_topic(f"xqtrack/board/{text}/event")
    plain = 1 <= len(text) <= 9 and all(c in "0123456789" for c in text) and text[0] != "0"
    assert (where is not None) == plain
    if where is not None:
        assert where == topics.BoardTopic(int(text), "event") and str(where.board) == text


@pytest.mark.parametrize("board", ["²", "٣", "𝟗", "0", "07", "1" * 10, "9" * 200, "", " 1", "1 "])
def test_digits_python_takes_for_digits_and_overlong_numbers_are_no_board(board):
    with pytest.raises(ValueError, match="ASCII digits"):
        topics.read_board_topic(f"xqtrack/board/{board}/event")


@pytest.mark.parametrize("name", BAD_EVIDENCE_NAMES)
def test_evidence_names_that_are_no_plain_file_of_a_kind_a_station_writes_are_refused(name):
    with pytest.raises(ValueError, match="evidence file name"):
        topics.check_evidence_name(name)


@pytest.mark.parametrize("name", ["001_ply003_retouch_before.jpg", "001_ply003_retouch_clip.webm",
                                  "001_ply003_retouch_crop.jpg", "001_ply003_retouch.json"])
def test_the_evidence_names_a_recorder_writes_pass(name):
    assert topics.check_evidence_name(name) == name
    assert topics.parse_board_topic(topics.evidence_topic(3, name)) == topics.BoardTopic(3, "evidence", name)


@pytest.mark.parametrize("seq", [None, -1, 0, "3", True, 1.5, 2.0, [1], 10**30])
def test_an_event_whose_seq_is_not_a_whole_number_from_one_is_refused_for_its_seq(seq):
    payload = json.dumps({"board": 4, "seq": seq, "game": "g", "line": {"type": "move"}}).encode()
    with pytest.raises(Refused) as caught:
        read_event(4, payload, IngestLimits())
    assert caught.value.reason == "seq"


def test_an_event_above_the_line_limit_is_refused_before_it_is_read():
    payload = json.dumps({"board": 1, "seq": 1, "game": "g", "line": {"type": "x", "pad": "p" * 70_000}}).encode()
    with pytest.raises(Refused) as caught:
        read_event(1, payload, IngestLimits())
    assert caught.value.reason == "too_large"
    assert read_event(1, payload, IngestLimits(max_line_bytes=len(payload))).seq == 1


def test_json_nested_past_the_parsers_depth_is_refused_as_not_json():
    with pytest.raises(Refused) as caught:
        read_event(1, b"[" * 60_000, IngestLimits())
    assert caught.value.reason == "not_json"


def test_the_board_log_takes_no_seq_that_is_not_a_whole_number_from_one(tmp_path):
    log = BoardLog(1, tmp_path)
    for seq in (None, -1, 0, "3", True, 1.0):
        with pytest.raises(Refused):
            log.receive(seq, _line(1), "g")  # type: ignore[arg-type]
    assert log.lines == [] and log.pending == {}
    log.close()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 120), seed=st.integers(0, 10_000), max_lines=st.integers(1, 12),
       max_kb=st.integers(1, 6))
def test_held_back_lines_stay_within_their_limits_and_a_resend_completes_the_copy(tmp_path_factory, n, seed,
                                                                                    max_lines, max_kb):
    folder = tmp_path_factory.mktemp("board")
    rng = random.Random(seed)
    limits = HeldLimits(max_lines=max_lines, max_bytes=max_kb * 1024)
    log = BoardLog(1, folder, held=limits)
    lines = [_line(s, pad=rng.randint(0, 700)) for s in range(1, n + 1)]
    order = [rng.randint(1, n) for _ in range(3 * n)]       # early, late, repeated; some never sent
    for seq in order:
        log.receive(seq, lines[seq - 1], "g")
        assert len(log.pending) <= limits.max_lines and log.held_bytes <= limits.max_bytes
        assert log.held_bytes == sum(len(json.dumps(ln, separators=(",", ":"))) + 1 for ln in log.pending.values())
    for seq in range(log.next_seq, n + 1):                  # the station sends again from what the hub asks
        log.receive(seq, lines[seq - 1], "g")
    log.close()
    assert log.lines == lines and log.pending == {} and log.held_bytes == 0
    assert [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()] == lines


def test_a_full_buffer_lets_go_of_its_farthest_line_for_a_nearer_one_and_asks_for_what_it_let_go(tmp_path):
    log = BoardLog(1, tmp_path, held=HeldLimits(max_lines=3, max_bytes=10**6))
    log.receive(1, _line(1), "g")
    for seq in (5, 6, 7):
        log.receive(seq, _line(seq), "g")
    assert log.receive(8, _line(8), "g").dropped == 1            # the farthest: let go
    assert log.receive(3, _line(3), "g").dropped == 1            # nearer than 7: 7 goes
    assert sorted(log.pending) == [3, 5, 6] and log.dropped == 2
    now = time.monotonic()
    assert log.wants_resend(now + 2.0, GapPolicy(wait_s=1.0, repeat_s=3.0)) == 2
    for seq in range(2, 9):
        log.receive(seq, _line(seq), "g")
    assert [ln["ply"] for ln in log.lines] == list(range(1, 9))
    assert log.wants_resend(now + 20.0, GapPolicy(wait_s=1.0, repeat_s=3.0)) is None
    log.close()


def test_a_line_dropped_with_nothing_else_held_still_leaves_a_gap_that_is_asked_for(tmp_path):
    log = BoardLog(1, tmp_path, held=HeldLimits(max_lines=5, max_bytes=100))
    log.receive(1, _line(1), "g")
    taken = log.receive(3, _line(3, pad=500), "g")               # bigger than the whole buffer
    assert taken.dropped == 1 and log.pending == {}
    assert log.wants_resend(time.monotonic() + 1.5, GapPolicy(wait_s=1.0, repeat_s=3.0)) == 2
    log.close()


def test_evidence_that_fails_to_be_written_leaves_neither_a_file_nor_a_tmp(tmp_path, monkeypatch):
    log = BoardLog(1, tmp_path)

    def no_rename(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError):
        log.store_evidence("001_ply003_retouch_before.jpg", b"\xff\xd8" * 1000)
    monkeypatch.undo()
    assert list((tmp_path / "evidence").iterdir()) == []
    assert log.store_evidence("001_ply003_retouch_before.jpg", b"jpeg").read_bytes() == b"jpeg"
    assert [p.name for p in (tmp_path / "evidence").iterdir()] == ["001_ply003_retouch_before.jpg"]
    log.close()


@pytest.mark.parametrize("name", BAD_EVIDENCE_NAMES)
def test_the_board_log_writes_no_evidence_under_a_name_a_station_never_sends(tmp_path, name):
    log = BoardLog(1, tmp_path)
    with pytest.raises(Refused):
        log.store_evidence(name, b"<script>alert(1)</script>")
    log.close()
    assert list((tmp_path / "evidence").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl", "evidence"]


def test_a_tmp_left_by_a_killed_hub_is_swept_when_the_board_is_opened_again(tmp_path):
    BoardLog(1, tmp_path).close()
    (tmp_path / "evidence" / ".incoming-abc.tmp").write_bytes(b"half")
    (tmp_path / "evidence" / "keep.jpg").write_bytes(b"whole")
    BoardLog(1, tmp_path).close()
    assert [p.name for p in (tmp_path / "evidence").iterdir()] == ["keep.jpg"]


def test_a_flood_of_game_ids_stops_at_the_number_of_earlier_games_kept(tmp_path):
    log = BoardLog(1, tmp_path, max_earlier=3)
    for k in range(3):
        log.receive(1, _line(1), f"game-{k}")
    log.receive(1, _line(1), "game-3")
    assert len(log.earlier_games()) == 3
    with pytest.raises(Refused) as caught:
        log.receive(1, _line(1), "game-4")
    assert caught.value.reason == "games" and log.game == "game-3"
    log.close()


def test_refusals_are_counted_each_and_told_a_few_lines_per_reason_at_a_time():
    said: list[str] = []
    r = Refusals(said.append, window_s=10.0, burst=3)
    for i in range(50):
        r.refuse("seq", "xqtrack/board/1/event", f"seq {i}", now=100.0)
    r.refuse("topic", "xqtrack/board/\u00b2/event", "board", now=100.0)
    r.refuse("seq", "xqtrack/board/1/event", "seq late", now=111.0)
    assert r.to_dict() == {"seq": 51, "topic": 1}
    assert len(said) == 5 and "+47 more" in said[-1]
    assert all("\n" not in s for s in said) and "\\xb2" in said[3]


@pytest.mark.parametrize("text, want", [("1-999", (1, 999)), ("20", (1, 20)), ("5-5", (5, 5))])
def test_a_board_range_reads_as_first_and_last(text, want):
    assert parse_board_range(text) == want


@pytest.mark.parametrize("text", ["0-5", "5-1", "a-b", "1-²", "1-" + "9" * 12, "-3", ""])
def test_a_bad_board_range_is_one_error_naming_the_option(text):
    with pytest.raises(ValueError, match="--board-range"):
        parse_board_range(text)


# ------------------------------------------------------------------ the real parts: Mosquitto, `xqtrack hub`

needs_broker = pytest.mark.usefixtures("mosquitto_or_skip")


def _add_intruder(hall: Hall) -> None:
    """A client the ACL lets publish anything under xqtrack/board/ (a leaked password, a tool pointed
    at the wrong place): what the hub must survive does not depend on the broker's ACL."""
    user, password = INTRUDER
    subprocess.run([find_tool("mosquitto_passwd"), "-b", str(hall.broker_dir / PASSWD_NAME), user, password],
                   check=True, capture_output=True, timeout=60)
    with open(hall.broker_dir / ACL_NAME, "a", encoding="utf-8") as f:
        f.write(f"\nuser {user}\ntopic write {topics.ROOT}/board/#\n")


def _client(hall: Hall, user: str, password: str, client_id: str) -> Any:
    url = parse_broker_url(f"mqtt://{user}:{password}@127.0.0.1:{hall.creds.port}")
    client = make_client(url, client_id, clean_session=True)
    client.connect(url.host, url.port)
    client.loop_start()
    return client


def _publish(client: Any, topic: str, payload: bytes) -> None:
    info = client.publish(topic, payload, qos=1)
    info.wait_for_publish(30)
    assert info.is_published(), topic


def _ingest(hall: Hall) -> dict[str, Any]:
    return get_json(f"{hall.http}/ingest.json")


def _hub_ready(hall: Hall) -> None:
    wait_for(lambda: get_json(f"{hall.http}/hall.json")["connected"], 20, "the hub to reach the broker")
    time.sleep(0.5)                 # its subscription is in place (SUBACK follows CONNACK)


def _event(board: int, seq: Any, line: dict[str, Any] | None = None, game: str = "g1") -> bytes:
    return json.dumps({"board": board, "seq": seq, "game": game,
                       "line": line or {"type": "tracking", "t": 0.0, "ply": 0, "status": "started"}}).encode()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@needs_broker
def test_hostile_topics_and_payloads_are_refused_counted_and_told_in_one_line_with_no_folder_and_no_traceback(
        tmp_path):
    hall = Hall(tmp_path, boards=1)
    _add_intruder(hall)
    client = None
    try:
        hall.start_broker()
        hall.start_hub()
        _hub_ready(hall)
        client = _client(hall, *INTRUDER, "intruder")
        long_board = "7" * 200
        for board in ("99999", long_board, "²", "٣", "07"):
            _publish(client, f"xqtrack/board/{board}/event", _event(5, 1))
            _publish(client, f"xqtrack/board/{board}/state", b'{"seq": 1}')
        for seq in (None, -1, "3", True, 2.5):
            _publish(client, topics.event_topic(1), _event(1, seq))
        _publish(client, topics.event_topic(1), _event(1, 1, {"type": "note", "pad": "p" * (10 * 2**20)}))
        _publish(client, topics.event_topic(1), b"[" * 60_000)
        _publish(client, topics.event_topic(1), b"\xff\xfe not json")
        _publish(client, topics.state_topic(1), b'{"seq": "many"}')
        _publish(client, topics.status_topic(1), b"<script>alert(1)</script>")
        for name in ("clip.html", "..", ".hidden.jpg"):
            _publish(client, f"xqtrack/board/1/evidence/{name}", b"<script>alert(1)</script>")
        _publish(client, "xqtrack/board/1/evidence/../x.jpg", b"\xff\xd8\xff")
        _publish(client, topics.evidence_topic(1, "001_ply001_retouch_before.jpg"), b"\xff\xd8\xff jpeg")
        _publish(client, topics.event_topic(1), _event(1, 1))         # and one good line after it all

        want = {"board_range": 2, "topic": 9, "seq": 5, "too_large": 1, "not_json": 2, "bad_state": 1,
                "bad_status": 1, "evidence_name": 3}
        wait_for(lambda: _ingest(hall)["refused"] == want, 20, "every hostile message refused")
        wait_for(lambda: get_json(f"{hall.http}/hall.json")["boards"][0]["seq"] == 1, 10, "the good line taken")
        assert _ingest(hall)["refused"] == want

        hall_json = get_json(f"{hall.http}/hall.json")
        assert [b["board"] for b in hall_json["boards"]] == [1]
        assert sorted(p.name for p in (hall.hub_dir / "boards").iterdir()) == ["1"]
        evidence = hall.hub_dir / "boards" / "1" / "evidence"
        assert sorted(p.name for p in evidence.iterdir()) == ["001_ply001_retouch_before.jpg"]
        assert list(hall.hub_dir.rglob("*.tmp")) == [] and not (hall.hub_dir / "boards" / "x.jpg").exists()
        assert _status(f"{hall.http}/board/99999/state.json") == 404
        copy = journal_lines(hall.hub_dir / "boards" / "1" / "events.jsonl")
        assert [e["type"] for e in copy] == ["tracking"]          # the 10 MB line is not in the copy

        log = (tmp_path / "hub.log").read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log
        refused = [ln for ln in log.splitlines() if "refused" in ln]
        assert len(refused) >= 10 and all(len(ln) < 400 for ln in refused)
        assert any("(board_range)" in ln and "99999" in ln for ln in refused)
        assert any("(topic)" in ln and "\\xb2" in ln for ln in refused)
    finally:
        if client is not None:
            client.loop_stop()
            client.disconnect()
        hall.close()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@needs_broker
def test_four_thousand_early_lines_keep_the_held_buffer_bounded_and_the_game_completes_once_the_station_resends(
        tmp_path):
    hall = Hall(tmp_path, boards=1)
    station = None
    try:
        hall.start_broker()
        hall.start_hub()
        _hub_ready(hall)
        game = journal_lines(write_game_journal(tmp_path / "src", real_game(4, 40), dt=0.5, incidents_at=(6,)))
        lines = game[:1] + [{"type": "note", "t": 0.0, "ply": 0, "pad": f"{i:05d}" + "p" * 16_000}
                            for i in range(4000)] + game[1:]
        gid = lines[0]["wall"]
        held = IngestLimits().held
        flooded = threading.Event()
        resends: list[int] = []

        def send(seq: int) -> None:
            body = {"board": 1, "seq": seq, "game": gid, "line": lines[seq - 1]}
            station.publish(topics.event_topic(1), json.dumps(body).encode(), qos=1)

        def on_message(c: Any, u: Any, msg: Any) -> None:
            cmd = json.loads(msg.payload)
            if cmd.get("type") == "resend" and flooded.is_set() and not resends:
                resends.append(int(cmd["from"]))
                for seq in range(int(cmd["from"]), len(lines) + 1):
                    send(seq)

        url = parse_broker_url(hall.creds.url(station_user(1)))
        station = make_client(url, "fake-station-1", clean_session=True)
        station.on_message = on_message
        station.on_connect = lambda c, u, f, rc, p: c.subscribe(topics.command_topic(1), qos=1)
        station.connect(url.host, url.port)
        station.loop_start()
        time.sleep(0.5)
        pid = hall.hub.pid
        rss0 = _rss_kib(pid)
        peak = {"pending": 0, "held_bytes": 0, "rss": rss0}
        for seq in range(2, 4002):                # line 1 lost on the way: everything after it comes early
            send(seq)
            boards = get_json(f"{hall.http}/hall.json")["boards"] if seq % 250 == 0 else []
            if boards:                            # (none yet while the first messages are still on their way)
                b = boards[0]
                peak = {"pending": max(peak["pending"], b["pending"]),
                        "held_bytes": max(peak["held_bytes"], b["held_bytes"]), "rss": max(peak["rss"], _rss_kib(pid))}
        wait_for(lambda: any(b["pending"] + b["dropped"] == 4000 for b in _ingest(hall)["boards"]), 60,
                 "the flood to reach the hub")
        b = _ingest(hall)["boards"][0]
        peak["rss"] = max(peak["rss"], _rss_kib(pid))
        assert 0 < b["pending"] <= held.max_lines and 0 < b["held_bytes"] <= held.max_bytes
        assert peak["pending"] <= held.max_lines and peak["held_bytes"] <= held.max_bytes
        assert peak["rss"] - rss0 < 48 * 1024, f"the hub grew {(peak['rss'] - rss0) // 1024} MiB while flooded"
        assert _ingest(hall)["refused"]["held_full"] == b["dropped"] > 0
        flooded.set()
        wait_for(lambda: resends, 20, "the hub to ask the station to send again")
        assert resends == [1]
        wait_for(lambda: get_json(f"{hall.http}/hall.json")["boards"][0]["seq"] == len(lines), 90,
                 "every line at the hub")
        assert journal_lines(hall.hub_dir / "boards" / "1" / "events.jsonl") == lines
        state = hall.state(1)
        assert state["moves"] == moves_of(game) and state["ply"] == 40
        assert get_json(f"{hall.http}/ingest.json")["boards"][0]["held_bytes"] == 0
        assert "Traceback" not in (tmp_path / "hub.log").read_text(errors="replace")
    finally:
        if station is not None:
            station.loop_stop()
            station.disconnect()
        hall.close()


@needs_broker
def test_a_new_game_on_a_board_keeps_the_earlier_one_listed_downloadable_and_in_the_broadcast(tmp_path):
    hall = Hall(tmp_path, boards=1)
    try:
        hall.start_broker()
        hall.start_hub()
        first = write_game_journal(tmp_path / "src-a", real_game(5, 16), dt=0.05, incidents_at=(2,))
        second = write_game_journal(tmp_path / "src-b", real_game(6, 10), dt=0.05, incidents_at=())
        moves_a, moves_b = moves_of(journal_lines(first)), moves_of(journal_lines(second))
        s = hall.station(first, 1, tmp_path / "st-a")
        wait_for(lambda: hall.state(1)["moves"] == moves_a, 30, "game A at the hub")
        assert s.wait(60) == 0
        s = hall.station(second, 1, tmp_path / "st-b")            # the board's next game: a new journal
        wait_for(lambda: hall.state(1)["moves"] == moves_b, 30, "game B at the hub")
        assert s.wait(60) == 0

        def check() -> None:
            games = get_json(f"{hall.http}/board/1/games.json")
            assert games["current"]["plies"] == 10
            assert [(e["number"], e["plies"]) for e in games["earlier"]] == [(1, 16)]
            with urllib.request.urlopen(hall.http + games["earlier"][0]["pgn"], timeout=5) as r:
                old = read_pgn(r.read().decode("utf-8"))
            assert [m.iccs() for m in old[0].moves] == moves_a
            card = get_json(f"{hall.http}/hall.json")["boards"][0]
            assert card["earlier"][0]["pgn"] == "/board/1/game/1.pgn"
            with urllib.request.urlopen(f"{hall.http}/broadcast.pgn", timeout=5) as r:
                broadcast = read_pgn(r.read().decode("utf-8"))
            assert [[m.iccs() for m in g.moves] for g in broadcast] == [moves_a, moves_b]
            assert _status(f"{hall.http}/board/1/game/2.pgn") == 404

        wait_for(lambda: _passes(check), 10, "the earlier game listed and in the broadcast")
        check()
        kept = hall.hub_dir / "boards" / "1" / "games" / "1"
        assert journal_lines(kept / "events.jsonl") == journal_lines(tmp_path / "st-a" / "events.jsonl")
        assert journal_lines(hall.hub_dir / "boards" / "1" / "events.jsonl") == \
            journal_lines(tmp_path / "st-b" / "events.jsonl")
        hall.kill_hub()                           # a restarted hub lists it from its folder
        hall.start_hub()
        wait_for(lambda: _passes(check), 20, "the earlier game after a restart")
    finally:
        hall.close()


def _passes(check: Any) -> bool:
    try:
        check()
        return True
    except (AssertionError, KeyError, IndexError, urllib.error.URLError):
        return False
