"""`xqtrack hub --delay`: with a real Mosquitto and a station, the hall, the board pages and
/broadcast.pgn show the games as they stood the delay ago, while the arbiters' console and a
board page with the token are live; the overlay names the players from the tournament file."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from hall_helpers import Hall, get_json, real_game, wait_for, write_game_journal

pytestmark = pytest.mark.usefixtures("mosquitto_or_skip")
DELAY = 6.0
TOURNAMENT = """
event = "Delay Open"
round = "1"
[[boards]]
board = 1
red = "Red One"
black = "Black One"
"""


def _text(url: str, token: str | None = None) -> str:
    req = urllib.request.Request(url, headers={"X-XQ-Token": token} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Keep the 303 of the token's handover, to read the cookie it sets."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 - urllib's signature
        return None

    def http_error_303(self, req, fp, code, msg, headers):  # noqa: ANN001
        return fp


def test_the_hub_shows_the_public_the_games_late_and_the_arbiters_live(tmp_path):
    hall = Hall(tmp_path, boards=1)
    try:
        hall.start_broker()
        (tmp_path / "round.toml").write_text(TOURNAMENT, encoding="utf-8")
        hall.start_hub("--tournament", str(tmp_path / "round.toml"), "--delay", str(DELAY))
        moves = real_game(3, 6)
        src = write_game_journal(tmp_path / "src", moves, dt=0.2, incidents_at=(3,))
        hall.station(src, 1, tmp_path / "st1")
        board = f"{hall.http}/board/1"
        wait_for(lambda: get_json(board + "/state.json", hall.token)["ply"] == 6, 30, "the arbiters' live view")
        t_live = time.monotonic()
        # the public sees none of it yet: state, hall card, PGN, broadcast
        public = get_json(board + "/state.json")
        assert public["ply"] == 0 and public["delayed"] is True and public["incidents"] == []
        assert [b["ply"] for b in get_json(hall.http + "/hall.json")["boards"]] == [0]
        first = get_json(board + "/state.json", hall.token)["plies"][0]["chinese"]
        assert first not in _text(hall.http + "/broadcast.pgn")
        assert first not in _text(board + "/game.pgn")
        assert first in _text(board + "/game.pgn", hall.token)
        queue = get_json(hall.http + "/arbiter/queue.json", hall.token)
        assert [i["board"] for i in queue["incidents"]] == [1]            # the console is live
        # the console's own cookie (handed over at /arbiter) covers the board's pages: its diagrams live
        handover = urllib.request.build_opener(_NoRedirect).open(f"{hall.http}/arbiter?token={hall.token}")
        cookie = handover.headers["Set-Cookie"].split(";")[0]
        assert "Path=/;" in handover.headers["Set-Cookie"] or handover.headers["Set-Cookie"].endswith("Path=/")
        req = urllib.request.Request(board + "/state.json", headers={"Cookie": cookie})
        assert json.loads(urllib.request.urlopen(req, timeout=5).read())["ply"] == 6
        # the overlay names the players from the tournament file, from its first response
        overlay = _text(board + "/overlay")
        assert '<div class="name">Red One</div>' in overlay and "window.XQ_STATE={" in overlay
        # then the delay passes
        wait_for(lambda: get_json(board + "/state.json")["ply"] == 6, DELAY + 10, "the public's delayed view")
        assert time.monotonic() - t_live >= DELAY - 2.5
        wait_for(lambda: first in _text(hall.http + "/broadcast.pgn"), 5, "the broadcast to catch up")
        broadcast = _text(hall.http + "/broadcast.pgn")
        assert '[Red "Red One"]' in broadcast and broadcast.count("[Event ") == 1
        assert get_json(board + "/state.json")["incidents"][0]["id"] == 1
        assert json.loads(json.dumps(get_json(hall.http + "/hall.json")))["boards"][0]["ply"] == 6
    finally:
        hall.close()
