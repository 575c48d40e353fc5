"""The hub over HTTP with a real broker and stations: the pages per board, the broadcast PGN as
relays poll it, tournament headers, the arbiters' console journalling back to the station, and
the broker's ACL keeping a station off another board."""
from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from hall.broker import station_user

from rules.pgn import read_pgn

from hall_helpers import (Hall, env, get_json, journal_lines, moves_of, post_json, real_game, wait_for,
                          write_game_journal)

pytestmark = pytest.mark.usefixtures("mosquitto_or_skip")

TOURNAMENT = """
event = "Hall Test Open"
round = "2"
date = "2026-12-01"
[[boards]]
board = 1
red = "Red One"
black = "Black One"
red_rating = 2400
[[boards]]
board = 2
red = "Red Two"
black = "Black Two"
"""


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_arbiters_results_and_rulings_reach_the_station_journal_once_and_come_back_to_the_hub(tmp_path):
    hall = Hall(tmp_path, boards=2)
    try:
        hall.start_broker()
        (tmp_path / "round.toml").write_text(TOURNAMENT, encoding="utf-8")
        hall.start_hub("--tournament", str(tmp_path / "round.toml"))
        src = write_game_journal(tmp_path / "src", real_game(3, 24), dt=0.25, incidents_at=(2,))
        station = hall.station(src, 1, tmp_path / "st1")
        wait_for(lambda: hall.state(1)["incidents"], 20, "incident 1 at the hub")
        # no token, no change
        code, _ = post_json(f"{hall.http}/arbiter/result", {"board": 1, "result": "0-1", "reason": "resignation"}, "bad")
        assert code == 403
        code, text = post_json(f"{hall.http}/arbiter/result", {"board": 1, "result": "2-0", "reason": "resignation"},
                               hall.token)
        assert code == 400 and "2-0" in text
        code, _ = post_json(f"{hall.http}/board/1/result", {"result": "1-0", "reason": "flag"}, "bad")
        assert code == 403                      # the live page's own result form, per board: token too
        code, text = post_json(f"{hall.http}/board/1/result", {"result": "1:0"}, hall.token)
        assert code == 400 and "1:0" in text
        code, _ = post_json(f"{hall.http}/arbiter/rule", {"board": 1, "incident": 1, "decision": "uphold",
                                                          "note": "seen on the clip"}, hall.token)
        assert code == 202                       # the station is online: journalled at once
        wait_for(lambda: hall.state(1)["incidents"][0]["ruling"], 20, "the ruling to come back")
        queue = get_json(f"{hall.http}/arbiter/queue.json", hall.token)
        assert queue["incidents"][0]["ruling"]["decision"] == "upheld"
        assert queue["incidents"][0]["ruling"]["by"] == "arbiter"
        assert _get(f"{hall.http}/arbiter/queue.json")[0] == 403
        assert station.wait(60) == 0
        # the station is gone: the result waits at the broker for its next session
        code, _ = post_json(f"{hall.http}/arbiter/result", {"board": 1, "result": "0-1", "reason": "resignation"},
                            hall.token)
        assert code == 202
        time.sleep(1.0)
        assert hall.state(1)["result"] == "*"
        back = subprocess.run([sys.executable, "-m", "app.cli", "station", str(tmp_path / "st1"), "--board", "1",
                               "--publish", hall.creds.url(station_user(1)), "--for", "2"],
                              capture_output=True, text=True, env=env(), timeout=60)
        assert back.returncode == 0, back.stderr
        wait_for(lambda: hall.state(1)["result"] == "0-1", 20, "the result to come back from the station")
        lines = journal_lines(tmp_path / "st1" / "events.jsonl")
        ends = [e for e in lines if e["type"] == "game_end"]
        assert [(e["result"], e["reason"], e["by"]) for e in ends] == [("0-1", "resignation", "arbiter")]
        assert sum(1 for e in lines if e["type"] == "ruling") == 1
        # the station's own game.pgn and the hub's carry the result; the hub's has the round's headers
        assert '[Result "0-1"]' in (tmp_path / "st1" / "game.pgn").read_text(encoding="utf-8")
        wait_for(lambda: len(journal_lines(tmp_path / "hub" / "boards" / "1" / "events.jsonl")) == len(lines), 20,
                 "the hub's copy to hold every line")
        # the folder published again from its first line: repeats, nothing doubled at the hub
        assert journal_lines(tmp_path / "hub" / "boards" / "1" / "events.jsonl") == lines
        code, _, body = _get(f"{hall.http}/board/1/game.pgn")
        game = read_pgn(body.decode("utf-8"))[0]
        assert game.headers["Red"] == "Red One" and game.headers["RedElo"] == "2400"
        assert game.headers["Round"] == "2" and game.headers["Result"] == "0-1"
        assert [m.iccs() for m in game.moves] == moves_of(lines)
    finally:
        hall.close()


def test_broadcast_pgn_is_polled_cheaply_and_a_station_cannot_publish_for_another_board(tmp_path):
    hall = Hall(tmp_path, boards=2)
    try:
        hall.start_broker()
        (tmp_path / "round.toml").write_text(TOURNAMENT, encoding="utf-8")
        hall.start_hub("--tournament", str(tmp_path / "round.toml"))
        j2 = write_game_journal(tmp_path / "src2", real_game(4, 12), dt=0.1)
        j1 = write_game_journal(tmp_path / "src1", real_game(5, 12), dt=0.1)
        # station 2's password used to publish as board 1: the broker's ACL drops it
        intruder = hall.station(j1, 1, tmp_path / "intruder", speed=5.0, user="station-2")
        honest = hall.station(j2, 2, tmp_path / "st2", speed=5.0)
        honest.wait(60)
        intruder.wait(60)
        want = journal_lines(tmp_path / "st2" / "events.jsonl")
        wait_for(lambda: hall.state(2)["ply"] == 12, 20, "board 2 at the hub")
        assert hall.state(1)["ply"] == 0 and hall.state(1)["seq"] == 0
        assert not (tmp_path / "hub" / "boards" / "1" / "events.jsonl").read_text()
        time.sleep(0.3)
        code, headers, body = _get(f"{hall.http}/broadcast.pgn")
        assert code == 200 and headers["ETag"] and headers["Last-Modified"]
        games = read_pgn(body.decode("utf-8"))
        by_board = {g.headers["Board"]: g for g in games}
        assert [m.iccs() for m in by_board["2"].moves] == moves_of(want)
        assert by_board["2"].headers["Red"] == "Red Two" and by_board["2"].headers["Event"] == "Hall Test Open"
        assert _get(f"{hall.http}/broadcast.pgn", {"If-None-Match": headers["ETag"]})[0] == 304
        assert _get(f"{hall.http}/broadcast.pgn", {"If-Modified-Since": headers["Last-Modified"]})[0] == 304
        assert _get(f"{hall.http}/broadcast.pgn", {"If-None-Match": '"stale"'})[0] == 200
        # the live pages, per board, are the live part's own
        code, _, page = _get(f"{hall.http}/board/2/")
        assert code == 200 and b"live.js" in page
        assert _get(f"{hall.http}/board/2/overlay")[0] == 200
        assert _get(f"{hall.http}/board/2/board.svg")[0] == 200
        assert _get(f"{hall.http}/board/9/state.json")[0] == 404
        hall_json = get_json(f"{hall.http}/hall.json")
        assert [b["board"] for b in hall_json["boards"]] == [1, 2] and hall_json["event"] == "Hall Test Open"
        code, _, page = _get(f"{hall.http}/")
        assert code == 200 and b"hall.json" in page
    finally:
        hall.close()


def test_the_hub_command_refuses_missing_options_and_bad_urls_in_one_line(tmp_path):

    for args, words in ((["hub", "--http", "8080"], "needs --broker, --out"),
                        (["hub", "--broker", "http://x", "--http", "1", "--out", str(tmp_path)], "mqtt:// or mqtts://"),
                        (["hub", "--broker", "mqtt://h:1", "--http", "1", "--out", str(tmp_path), "--tournament",
                          str(tmp_path / "none.toml")], "cannot read it")):
        r = subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, env=env(),
                           timeout=60)
        assert r.returncode == 1
        assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr


def _openssl(*args: str, cwd) -> None:
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_stations_and_hub_speak_tls_to_a_broker_set_up_with_a_tls_listener(tmp_path):
    import shutil

    from hall.broker import Credentials, free_port, start_mosquitto

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test's certificates")
    certs = tmp_path / "certs"
    certs.mkdir()
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
             "-subj", "/CN=xqtrack test CA", cwd=certs)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=127.0.0.1", cwd=certs)
    (certs / "san.txt").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.crt", "-days", "2", "-extfile", "san.txt", cwd=certs)
    tls_port = free_port()
    r = subprocess.run([sys.executable, "-m", "app.cli", "hub", "--init-broker", str(tmp_path / "broker"),
                        "--boards", "1", "--port", str(free_port()), "--tls-port", str(tls_port),
                        "--tls-cert", str(certs / "server.crt"), "--tls-key", str(certs / "server.key")],
                       capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode == 0, r.stderr
    broker = start_mosquitto(tmp_path / "broker", tmp_path / "mosquitto.log")
    creds = Credentials.load(tmp_path / "broker")
    hub = None
    try:
        http_port = free_port()
        tls = lambda user: f"mqtts://{user}:{creds.users[user]}@127.0.0.1:{tls_port}"  # noqa: E731
        hub = subprocess.Popen([sys.executable, "-m", "app.cli", "hub", "--broker", tls("hub"), "--ca",
                                str(certs / "ca.crt"), "--http", str(http_port), "--out", str(tmp_path / "hub")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env())
        src = write_game_journal(tmp_path / "src", real_game(8, 10), dt=0.1)
        st = subprocess.run([sys.executable, "-m", "app.cli", "station-replay", str(src), "--out", str(tmp_path / "st"),
                             "--board", "1", "--publish", tls(station_user(1)), "--ca", str(certs / "ca.crt"),
                             "--speed", "5"], capture_output=True, text=True, env=env(), timeout=120)
        assert st.returncode == 0, st.stderr
        want = journal_lines(tmp_path / "st" / "events.jsonl")
        assert f"{len(want)}/{len(want)} journal lines taken by the broker" in st.stderr
        wait_for(lambda: get_json(f"http://127.0.0.1:{http_port}/board/1/state.json")["moves"] == moves_of(want), 30,
                 "board 1 over TLS at the hub")
        # without the CA the station's TLS handshake fails: nothing is taken
        bad = subprocess.run([sys.executable, "-m", "app.cli", "station-replay", str(src), "--out",
                              str(tmp_path / "st-noca"), "--board", "1", "--publish", tls(station_user(1)),
                              "--speed", "20", "--drain", "1"], capture_output=True, text=True, env=env(), timeout=120)
        assert f"0/{len(want)} journal lines taken by the broker" in bad.stderr
    finally:
        if hub is not None:
            hub.terminate()
            hub.wait(10)
        broker.terminate()
        broker.wait(10)


def test_xqtrack_broker_writes_its_files_once_and_runs_mosquitto_on_them(tmp_path):
    import signal

    from hall.broker import Credentials, free_port, wait_listening

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "broker", str(tmp_path / "b"), "--boards", "3",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
    try:
        wait_listening("127.0.0.1", port, 30)
        creds = Credentials.load(tmp_path / "b")
        assert sorted(creds.users) == ["hub", "station-1", "station-2", "station-3"]
        assert (tmp_path / "b" / "credentials.json").stat().st_mode & 0o077 == 0
        assert "station-3:$7$" in (tmp_path / "b" / "passwd").read_text()       # hashed, never clear
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
