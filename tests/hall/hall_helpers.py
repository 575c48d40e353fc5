"""What the hall's tests share: real games written as station journals, a hall of real processes
(mosquitto, `xqtrack hub`, `xqtrack station-replay`), and a TCP proxy that can black-hole a link."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

from hall.broker import HUB_USER, Credentials, free_port, start_mosquitto, station_user
from rules import Move, Position
from rules.notation import format_move
from runtime.journal import DiskBudget, Journal, read_events

ROOT = Path(__file__).resolve().parent.parent.parent
GAMES = ROOT / "tests" / "data" / "games" / "games.jsonl"


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def real_game(index: int, plies: int) -> list[str]:
    """The first `plies` moves of a real game in tests/data/games/games.jsonl."""
    with open(GAMES, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == index:
                moves = json.loads(line)["moves_iccs"]
                assert len(moves) >= plies, f"game {index} has only {len(moves)} plies"
                return list(moves[:plies])
    raise AssertionError(f"no game {index} in {GAMES}")


def write_game_journal(path: Path, moves: list[str], dt: float, headers: dict[str, str] | None = None,
                       incidents_at: tuple[int, ...] = (3,), evidence: dict[str, str] | None = None) -> Path:
    """A station journal (the recorder's line shapes) of a real game: moves every `dt` seconds,
    an incident with its id after each ply in `incidents_at` (naming `evidence`, role -> path
    under the folder, when given), clock presses, the end of the source."""
    path.mkdir(parents=True, exist_ok=True)
    pos = Position()
    t = 0.0
    n_inc = 0
    red_ms, black_ms = 600_000, 600_000
    with Journal(path, DiskBudget(reserve_bytes=0)) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "detail": "recording started",
                 "fen": pos.fen(), "headers": headers or {"Date": "2026.12.01"}, "notation": "chinese"})
        for ply, iccs in enumerate(moves, 1):
            t = round(t + dt, 3)
            side = "red" if pos.turn == "w" else "black"
            m = Move.from_iccs(iccs)
            san = format_move(pos, m, "chinese")
            pos.push(m)
            j.write({"type": "move", "t": t, "ply": ply, "iccs": iccs, "side": side, "notation": san,
                     "fen": pos.fen(), "frame": int(t * 15)})
            if side == "red":
                red_ms -= int(dt * 1000)
            else:
                black_ms -= int(dt * 1000)
            j.write({"type": "clock", "t": round(t + 0.01, 3), "ply": ply, "kind": "press", "side": side,
                     "remaining_ms": {"red": red_ms, "black": black_ms}})
            if ply in incidents_at:
                n_inc += 1
                j.write({"type": "incident", "t": t, "ply": ply, "kind": "retouch", "side": side,
                         "points": ["e3"], "detail": "touched again after letting go",
                         "frames": {"before": 1, "during": 2, "after": 3}, "id": n_inc,
                         **({"evidence": evidence} if evidence else {})})
        j.write({"type": "tracking", "t": round(t + 1.0, 3), "ply": len(moves), "status": "source_ended",
                 "detail": "end of the source"})
    return path / "events.jsonl"


def journal_lines(path: Path) -> list[dict[str, Any]]:
    events, warnings = read_events(path)
    assert not warnings, warnings
    return events


def moves_of(lines: list[dict[str, Any]]) -> list[str]:
    return [e["iccs"] for e in lines if e.get("type") == "move"]


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    until = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < until:
        try:
            last = predicate()
        except OSError:
            last = None
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


def get_json(url: str, token: str | None = None) -> Any:
    req = urllib.request.Request(url, headers={"X-XQ-Token": token} if token else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read().decode("utf-8"))


def post_json(url: str, body: dict[str, Any], token: str) -> tuple[int, str]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-XQ-Token": token})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Hall:
    """A broker (its files by `xqtrack hub --init-broker`), a hub and stations, as real processes."""

    def __init__(self, base: Path, boards: int = 2, token: str = "tok") -> None:
        self.base = base
        self.token = token
        self.broker_dir = base / "broker"
        self.hub_dir = base / "hub"
        port = free_port()
        r = subprocess.run([sys.executable, "-m", "app.cli", "hub", "--init-broker", str(self.broker_dir),
                            "--boards", str(boards), "--port", str(port)], capture_output=True, text=True,
                           env=env(), timeout=60)
        assert r.returncode == 0, r.stderr
        self.creds = Credentials.load(self.broker_dir)
        self.http_port = free_port()
        self.broker: subprocess.Popen[bytes] | None = None
        self.hub: subprocess.Popen[bytes] | None = None
        self.stations: list[subprocess.Popen[bytes]] = []

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def start_broker(self) -> None:
        self.broker = start_mosquitto(self.broker_dir, self.base / "mosquitto.log")

    def kill_broker(self) -> None:
        assert self.broker is not None
        self.broker.kill()
        self.broker.wait(10)

    def start_hub(self, *more: str) -> None:
        log = open(self.base / "hub.log", "ab")
        self.hub = subprocess.Popen([sys.executable, "-m", "app.cli", "hub", "--broker", self.creds.url(HUB_USER),
                                     "--http", f"127.0.0.1:{self.http_port}", "--out", str(self.hub_dir),
                                     "--token", self.token, *more], stdout=log, stderr=log, env=env())
        wait_for(lambda: get_json(self.http + "/hall.json"), 30, "the hub to serve")

    def kill_hub(self) -> None:
        assert self.hub is not None
        self.hub.kill()
        self.hub.wait(10)

    def station(self, journal: Path, board: int, out: Path, speed: float = 1.0, port: int | None = None,
                user: str | None = None) -> subprocess.Popen[bytes]:
        """`xqtrack station-replay` for `board`, through `port` (a proxy) when given."""
        url = self.creds.url(user or station_user(board))
        if port is not None:
            url = url.rsplit(":", 1)[0] + f":{port}"
        log = open(self.base / f"station{board}.log", "ab")
        p = subprocess.Popen([sys.executable, "-m", "app.cli", "station-replay", str(journal), "--out", str(out),
                              "--board", str(board), "--publish", url, "--speed", str(speed)],
                             stdout=log, stderr=log, env=env())
        self.stations.append(p)
        return p

    def state(self, board: int) -> dict[str, Any]:
        return get_json(f"{self.http}/board/{board}/state.json")

    def close(self) -> None:
        for p in [*self.stations, self.hub, self.broker]:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()


class TcpProxy:
    """127.0.0.1 forwarder between a station and the broker that can black-hole the link (no bytes
    either way, as when a cable is pulled: nothing is closed, the peers find out by their own timers)."""

    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.cut = False
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def set_cut(self, cut: bool) -> None:
        with self._lock:
            self.cut = cut
            if not cut:        # links that were cut are dead: close them, new ones get through
                for s in self._open:
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    s.close()
                self._open = []

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                up = socket.create_connection(self.target, timeout=2)
                up.settimeout(None)
            except OSError:
                conn.close()
                continue
            with self._lock:
                self._open += [conn, up]
            threading.Thread(target=self._pump, args=(conn, up), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, conn), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                if self.cut:       # a pulled cable tells nobody: the other side hears nothing
                    return
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return
            if self.cut:
                continue           # the bytes are lost on the way
            try:
                dst.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self.set_cut(False)
        self.sock.close()
