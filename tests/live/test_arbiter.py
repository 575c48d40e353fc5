"""The arbiter's corrections, revisions and the post-mortem, on real recorded games: `xqtrack correct`,
`result` and `rule --revise` on the command line, the same through the live server with a real HTTP
client (JSON body, the token in the header), and the files that follow (game.pgn, review.html,
/state.json)."""
from __future__ import annotations

import json
import shlex
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app.cli import main
from live.server import LiveServer, ServerConfig
from live.state import fold
from live_helpers import GameWriter
from rules.pgn import read_pgn
from runtime.journal import load_game, read_events

GAMES = Path(__file__).resolve().parents[1] / "data" / "games" / "games.jsonl"
TOKEN = "arbiter-token"


def real_moves(index: int, plies: int) -> list[str]:
    """The first `plies` moves of game `index` of tests/data/games (real games)."""
    with open(GAMES, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == index:
                return list(json.loads(line)["moves_iccs"][:plies])
    raise AssertionError(f"no game {index}")


def recorded(folder: Path, plies: int = 12, incidents_at: tuple[int, ...] = (4,)) -> list[str]:
    """A recording of a real game (the recorder's line shapes, clock presses, incidents), finished."""
    moves = real_moves(3, plies)
    g = GameWriter(folder)
    for i, m in enumerate(moves, 1):
        g.move(m)
        g.press("red" if i % 2 else "black", 600_000 - 2000 * i, 600_000 - 2000 * i)
        if i in incidents_at:
            g.incident("retouch", points=[m[2:]])
    g.tracking("source_ended", detail="end of the source")
    g.close()
    from runtime.review import write_review
    write_review(folder)                # as the recorder leaves it
    return moves


def journal(folder: Path) -> list[dict]:
    events, warnings = read_events(folder / "events.jsonl")
    assert not warnings
    return events


def pgn_moves(folder: Path) -> tuple[list[str], str]:
    game = read_pgn((folder / "game.pgn").read_text(encoding="utf-8"))[0]
    return [m.iccs() for m in game.moves], game.result


# ---------------------------------------------------------------------- the command line
def test_correct_from_ply_n_rewrites_game_pgn_and_the_review(tmp_path, capsys):
    moves = recorded(tmp_path)
    # the camera read ply 9 (b0c2, red's horse) as another; the arbiter writes what was played from
    # there, in three notations: Chinese, WXF and ICCS
    assert main(["correct", str(tmp_path), "--from-ply", "9", "--moves", "马八进九 P3+1 a0b0",
                 "--by", "Zhang Wei", "--note", "the horse went to the edge"]) == 0
    assert "9" in capsys.readouterr().out
    line = journal(tmp_path)[-1]
    assert line["type"] == "arbiter_correction" and line["from_ply"] == 9
    assert line["moves"] == ["b0a2", "c6c5", "a0b0"] and line["was"] == moves[8:]
    assert line["by"] == "Zhang Wei" and line["note"] == "the horse went to the edge" and line["ply"] == 11
    got, result = pgn_moves(tmp_path)
    assert got == moves[:8] + ["b0a2", "c6c5", "a0b0"] and result == "*"
    assert [m.iccs() for m in load_game(tmp_path).moves] == got           # --resume takes the same game
    st = fold(journal(tmp_path))
    assert st.moves == got and st.corrections[0]["by"] == "Zhang Wei"
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert "id='corrections'" in html and "the horse went to the edge" in html and "by Zhang Wei" in html
    assert f"{' '.join(moves[8:])} → <b>b0a2 c6c5 a0b0</b>" in html
    assert "<tr data-ply='11'" in html and "<tr data-ply='12'" not in html


def test_an_illegal_correction_is_refused_naming_the_move_and_ply_and_nothing_is_journalled(tmp_path, capsys):
    recorded(tmp_path)
    before = (tmp_path / "events.jsonl").read_bytes()
    assert main(["correct", str(tmp_path), "--from-ply", "5", "--moves", "i0h0 h9h0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ply 6" in err[0] and "'h9h0'" in err[0] and "black" in err[0]
    assert main(["correct", str(tmp_path), "--from-ply", "14", "--moves", "h2e2"]) == 1
    assert "the record has 12 plies" in capsys.readouterr().err
    assert main(["correct", str(tmp_path), "--from-ply", "3", "--moves", "炮九平五"]) == 1
    assert "ply 3" in capsys.readouterr().err
    assert (tmp_path / "events.jsonl").read_bytes() == before


def test_a_result_twice_needs_the_revision_and_both_are_in_the_history(tmp_path, capsys):
    recorded(tmp_path)
    assert main(["result", str(tmp_path), "1-0", "--reason", "black resigned", "--by", "Li"]) == 0
    assert main(["result", str(tmp_path), "0-1", "--reason", "red's flag fell"]) == 1
    err = capsys.readouterr().err
    assert "stands already" in err and "--revise" in err
    assert pgn_moves(tmp_path)[1] == "1-0"
    assert main(["result", str(tmp_path), "0-1", "--reason", "red's flag fell", "--revise", "--note", "clock"]) == 0
    ends = [e for e in journal(tmp_path) if e["type"] == "game_end"]
    assert [(e["result"], e["revision"], e.get("revises"), e["by"]) for e in ends] == \
        [("1-0", 1, None, "Li"), ("0-1", 2, 1, "cli")]
    assert pgn_moves(tmp_path)[1] == "0-1"                                # the latest stands
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    history = html.split("id='results'")[1].split("</ul>")[0]
    assert "r1: 1-0 (arbiter: black resigned)" in history and "r2, revises r1: 0-1" in history
    assert "class='stands' data-revision='2'" in history


def test_a_ruling_twice_needs_the_revision_and_the_review_shows_both(tmp_path, capsys):
    recorded(tmp_path)
    assert main(["rule", str(tmp_path), "1", "--uphold", "--note", "seen on the clip"]) == 0
    assert main(["rule", str(tmp_path), "1", "--dismiss"]) == 1
    assert "revise" in capsys.readouterr().err
    assert main(["rule", str(tmp_path), "1", "--dismiss", "--revise", "--note", "the other angle"]) == 0
    rulings = [e for e in journal(tmp_path) if e["type"] == "ruling"]
    assert [(r["decision"], r["revision"], r.get("revises")) for r in rulings] == [("upheld", 1, None),
                                                                                  ("dismissed", 2, 1)]
    block = (tmp_path / "review.html").read_text(encoding="utf-8").split("id='inc1'")[1]
    assert "已驳回 dismissed" in block and "seen on the clip" in block and "the other angle" in block


def test_moves_after_a_result_are_post_game_and_not_in_game_pgn_or_the_state(tmp_path):
    moves = real_moves(3, 28)
    g = GameWriter(tmp_path)
    for m in moves[:21]:
        g.move(m)
    g.close()
    assert main(["result", str(tmp_path), "0-1", "--reason", "resignation"]) == 0
    from runtime.journal import Journal     # the recorder goes on writing what the board shows
    from rules import Move, Position
    pos = Position()
    for m in moves[:21]:
        pos.push(Move.from_iccs(m))
    with Journal(tmp_path) as j:
        for ply, m in enumerate(moves[21:], 22):
            side = "red" if pos.turn == "w" else "black"
            pos.push(Move.from_iccs(m))
            # the first two written before the recorder saw the result (unmarked), then marked
            j.write({"type": "move", "t": 100.0 + ply, "ply": ply, "iccs": m, "side": side, "fen": pos.fen(),
                     **({"post_game": True} if ply > 23 else {})})
    st = fold(journal(tmp_path))
    assert st.moves == moves[:21] and st.result == "0-1"
    assert [p["iccs"] for p in st.post_game] == moves[21:]
    assert st.to_dict()["ply"] == 21 and len(st.to_dict()["post_game"]) == 7
    assert [m.iccs() for m in load_game(tmp_path).moves] == moves[:21]
    from runtime.review import write_review
    write_review(tmp_path)
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert "id='post-game'" in html and "<tr data-ply='22'" not in html


def test_the_offline_review_names_the_real_folder_in_its_commands(tmp_path):
    folder = tmp_path / "round 3" / "board 2"
    recorded(folder)
    from runtime.review import write_review
    html = write_review(folder).read_text(encoding="utf-8")
    where = shlex.quote(str(folder.resolve()))
    assert f"xqtrack rule {where} 1 --uphold | --dismiss" in html.replace("&#x27;", "'")
    assert "xqtrack rule DIR" not in html and "<script" not in html


# ---------------------------------------------------------------------- through the live server
def _post(url: str, body: dict, token: str | None = TOKEN) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-XQ-Token"] = token
    req = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
        return r.read()


def _until(pred, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()


@pytest.fixture
def served(tmp_path):
    moves = recorded(tmp_path)
    server = LiveServer(tmp_path, ServerConfig(port=0, token=TOKEN)).start()
    yield tmp_path, server.url, moves
    server.stop()


def test_a_correction_through_the_live_server_needs_the_token_and_reaches_the_state_pgn_and_review(served):
    folder, url, moves = served
    fix = {"from_ply": 11, "moves": "a0b0 d9e8", "by": "Chen", "note": "read again from the clip"}
    assert _post(url + "/correct", fix, None)[0] == 403
    assert _post(url + "/correct", fix, "wrong")[0] == 403
    code, text = _post(url + "/correct", {**fix, "moves": "a0b0 h9h0"})
    assert code == 400 and "ply 12" in text and "'h9h0'" in text and "cannot move to h0" in text
    code, text = _post(url + "/correct", {**fix, "moves": ["a0b0", "e9e7"]})
    assert code == 400 and "ply 12" in text and "'e9e7'" in text
    code, text = _post(url + "/correct", fix)
    assert code == 200, text
    line = json.loads(text)
    assert line["type"] == "arbiter_correction" and line["by"] == "Chen" and line["pgn"] == "rewritten"
    # the recording already stands at ply 12: wait for the state that carries the correction
    st = _until(lambda: (s := json.loads(_get(url + "/state.json")))["ply"] == 12 and s["corrections"] and s)
    assert st["moves"] == moves[:10] + ["a0b0", "d9e8"]
    assert st["corrections"][0]["note"] == "read again from the clip"
    assert pgn_moves(folder)[0] == st["moves"]
    assert "read again from the clip" in (folder / "review.html").read_text(encoding="utf-8")


def test_a_second_result_through_the_server_must_name_the_revision_it_revises(served):
    folder, url, _ = served
    assert _post(url + "/result", {"result": "1-0", "reason": "black resigned"})[0] == 200
    code, text = _post(url + "/result", {"result": "1/2-1/2", "reason": "agreed"})
    assert code == 400 and "stands already" in text
    code, text = _post(url + "/result", {"result": "1/2-1/2", "reason": "agreed", "revises": 7})
    assert code == 400 and "revision 7 is not the one standing" in text
    code, text = _post(url + "/result", {"result": "1/2-1/2", "reason": "agreed", "revises": 1, "by": "Chen"})
    assert code == 200 and json.loads(text)["revises"] == 1
    st = _until(lambda: (s := json.loads(_get(url + "/state.json")))["result"] == "1/2-1/2" and s)
    assert [(r["result"], r["revision"]) for r in st["results"]] == [("1-0", 1), ("1/2-1/2", 2)]
    assert pgn_moves(folder)[1] == "1/2-1/2"
    assert _post(url + "/rule", {"incident": 1, "decision": "uphold"})[0] == 200
    code, text = _post(url + "/rule", {"incident": 1, "decision": "dismiss"})
    assert code == 400 and "revise" in text
    assert _post(url + "/rule", {"incident": 1, "decision": "dismiss", "revises": 1})[0] == 200


def test_the_served_review_has_the_arbiters_forms_only_with_the_token(served):
    folder, url, _ = served
    assert b"<script" not in _get(url + "/review.html")
    page = _get(url + "/review.html", {"X-XQ-Token": TOKEN})
    assert b"<script src='/static/review.js' defer></script></body>" in page
    assert b"<script" not in (folder / "review.html").read_bytes()           # the file stays script-free
    assert b"data-plies='12'" in page
    assert b"confirm" in _get(url + "/static/review.js")


def test_a_correction_without_moves_takes_back_plies_nobody_played(tmp_path):
    moves = recorded(tmp_path)
    assert main(["correct", str(tmp_path), "--from-ply", "12", "--moves", "", "--note", "inferred, never played"]) == 0
    assert pgn_moves(tmp_path)[0] == moves[:11]
    assert fold(journal(tmp_path)).moves == moves[:11]
    assert main(["correct", str(tmp_path), "--from-ply", "12", "--moves", ""]) == 1   # nothing left to take back
