"""The hall at tournament size: 50 simulated stations through one local Mosquitto into one hub.

Each simulated station writes a real game's journal at game speed (runtime's Journal: one synced
line per event, a move and a clock press every --move-s seconds, with jitter) and publishes it
with the real StationPublisher, one MQTT connection each. The hub runs as its own process
(`xqtrack hub`), so its CPU time and memory are its own. Latency is measured from the moment a
station's journal line is on disk to the moment the hub's /board/N/state.json payload holding it
arrives at a client (pushed by /board/N/events?view=1, the same dict /state.json serves; polling
50 boards fast enough to time them would load the hub more than the stations do).

    python bench/hall_bench.py                     # 50 stations, 60 s
    python bench/hall_bench.py --video             # and one real video station at 720p/15 fps

Needs Debian's mosquitto. Prints one table; nothing is written outside a temporary folder.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hall.broker import HUB_USER, BrokerSetup, free_port, init_broker, start_mosquitto, station_user  # noqa: E402
from hall.brokerurl import parse_broker_url  # noqa: E402
from hall.station import PublisherConfig, StationPublisher  # noqa: E402
from rules import Move, Position  # noqa: E402
from rules.notation import format_move  # noqa: E402
from runtime.journal import DiskBudget, Journal  # noqa: E402

GAMES = ROOT / "tests" / "data" / "games" / "games.jsonl"
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class BenchConfig:
    """The simulated round (seconds, boards)."""

    boards: int = 50
    duration_s: float = 60.0
    move_s: float = 3.0          # mean seconds between moves on one board (real games: 10-60)
    jitter: float = 0.5          # +- this share of move_s
    warmup_s: float = 3.0


@dataclass
class ProcUsage:
    """CPU seconds and memory of one process, from /proc."""

    cpu_s: float
    rss_mib: float
    peak_mib: float


def proc_usage(pid: int) -> ProcUsage:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    cpu = (int(parts[11]) + int(parts[12])) / TICKS
    rss = peak = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return ProcUsage(cpu, rss, peak)


def self_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def real_games(n: int) -> list[list[str]]:
    games = []
    with open(GAMES, encoding="utf-8") as f:
        for line in f:
            moves = json.loads(line).get("moves_iccs") or []
            if len(moves) >= 40 and not json.loads(line).get("start_fen"):
                games.append(moves)
    return [games[i % len(games)] for i in range(n)]


@dataclass
class SimStation:
    """One simulated station: a journal written at game speed and its publisher."""

    board: int
    folder: Path
    moves: list[str]
    written: dict[int, float] = field(default_factory=dict)   # seq -> wall time the line was on disk


def run_station(st: SimStation, cfg: BenchConfig, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    pos = Position()
    seq = 0
    with Journal(st.folder, DiskBudget(reserve_bytes=0)) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "detail": "recording started",
                 "fen": pos.fen(), "headers": {"Board": str(st.board)}, "notation": "chinese"})
        seq += 1
        st.written[seq] = time.time()
        t0 = time.monotonic()
        t = 0.0
        clocks = {"red": 900_000, "black": 900_000}
        for ply, iccs in enumerate(st.moves, 1):
            gap = cfg.move_s * (1 + rng.uniform(-cfg.jitter, cfg.jitter))
            t += gap
            if stop.wait(max(0.0, t0 + t - time.monotonic())):
                return
            side = "red" if pos.turn == "w" else "black"
            m = Move.from_iccs(iccs)
            san = format_move(pos, m, "chinese")
            pos.push(m)
            j.write({"type": "move", "t": round(t, 3), "ply": ply, "iccs": iccs, "side": side, "notation": san,
                     "fen": pos.fen(), "frame": int(t * 15)})
            seq += 1
            st.written[seq] = time.time()
            clocks[side] -= int(gap * 1000)
            j.write({"type": "clock", "t": round(t + 0.2, 3), "ply": ply, "kind": "press", "side": side,
                     "remaining_ms": dict(clocks)})
            seq += 1
            st.written[seq] = time.time()


async def watch_boards(http: str, boards: list[int], seen: dict[int, dict[int, float]], stop: asyncio.Event) -> None:
    """Follow each board's /events?view=1 (the /state.json payload per change); note when each seq arrives."""
    import aiohttp

    async def one(session: aiohttp.ClientSession, board: int) -> None:
        got = seen.setdefault(board, {})
        while not stop.is_set():
            try:
                async with session.get(f"{http}/board/{board}/events?view=1") as resp:
                    async for raw in resp.content:
                        line = raw.decode("utf-8", "replace")
                        if line.startswith("data: "):
                            now = time.time()
                            state = json.loads(line[6:])
                            got.setdefault(int(state["seq"]), now)
                        if stop.is_set():
                            return
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                await asyncio.sleep(0.2)

    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    connector = aiohttp.TCPConnector(limit=0)          # one open stream per board (the default pool holds 100)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        tasks = [asyncio.create_task(one(session, b)) for b in boards]
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def latencies(stations: list[SimStation], seen: dict[int, dict[int, float]]) -> tuple[list[float], int]:
    """Per journal line: first hub state at or past its seq minus the time it was written; and lines never seen."""
    out: list[float] = []
    missing = 0
    for st in stations:
        arrivals = sorted(seen.get(st.board, {}).items())
        for seq, wrote in st.written.items():
            first = next((at for s, at in arrivals if s >= seq), None)
            if first is None:
                missing += 1
            else:
                out.append(max(0.0, first - wrote))
    return out, missing


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def hall_bench(cfg: BenchConfig, base: Path) -> dict[str, float]:
    boards = list(range(1, cfg.boards + 1))
    creds = init_broker(BrokerSetup(base / "broker", tuple(boards), free_port()))
    broker = start_mosquitto(base / "broker", base / "mosquitto.log")
    http_port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hub = subprocess.Popen([sys.executable, "-m", "app.cli", "hub", "--broker", creds.url(HUB_USER), "--http",
                            f"127.0.0.1:{http_port}", "--out", str(base / "hub"), "--token", "bench"],
                           stdout=subprocess.DEVNULL, stderr=open(base / "hub.log", "wb"), env=env)
    http = f"http://127.0.0.1:{http_port}"
    stop = threading.Event()
    stations = [SimStation(b, base / f"st{b}", g) for b, g in zip(boards, real_games(cfg.boards))]
    publishers: list[StationPublisher] = []
    try:
        import urllib.request
        until = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(http + "/hall.json", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > until:
                    raise RuntimeError("the hub did not start; see " + str(base / "hub.log"))
                time.sleep(0.1)
        for st in stations:
            st.folder.mkdir(parents=True)
            publishers.append(StationPublisher(st.folder, st.board, parse_broker_url(creds.url(station_user(st.board))),
                                               config=PublisherConfig(linger_s=0.0), say=lambda s: None).start())
        seen: dict[int, dict[int, float]] = {}
        loop = asyncio.new_event_loop()
        watch_stop = asyncio.Event()
        watcher = threading.Thread(target=loop.run_until_complete,
                                   args=(watch_boards(http, boards, seen, watch_stop),), daemon=True)
        watcher.start()
        time.sleep(1.0)
        threads = [threading.Thread(target=run_station, args=(st, cfg, stop, i), daemon=True)
                   for i, st in enumerate(stations)]
        for th in threads:
            th.start()
        time.sleep(cfg.warmup_s)
        hub0, mq0, me0, w0 = proc_usage(hub.pid), proc_usage(broker.pid), self_cpu_s(), time.monotonic()
        time.sleep(cfg.duration_s)
        hub1, mq1, me1, w1 = proc_usage(hub.pid), proc_usage(broker.pid), self_cpu_s(), time.monotonic()
        stop.set()
        for th in threads:
            th.join(5)
        time.sleep(2.0)               # the last lines' way through
        loop.call_soon_threadsafe(watch_stop.set)
        watcher.join(5)
        lat, missing = latencies(stations, seen)
        wall = w1 - w0
        lines = sum(len(st.written) for st in stations)
        return {"boards": cfg.boards, "lines": lines, "lines_per_s": lines / (wall + cfg.warmup_s + 2.0),
                "lat_p50_ms": pct(lat, 50) * 1000, "lat_p99_ms": pct(lat, 99) * 1000,
                "lat_max_ms": max(lat) * 1000 if lat else float("nan"), "missing": missing,
                "hub_cpu_pct": 100 * (hub1.cpu_s - hub0.cpu_s) / wall,
                "hub_cpu_per_board_pct": 100 * (hub1.cpu_s - hub0.cpu_s) / wall / cfg.boards,
                "hub_rss_mib": hub1.rss_mib, "hub_peak_mib": hub1.peak_mib,
                "broker_cpu_pct": 100 * (mq1.cpu_s - mq0.cpu_s) / wall, "broker_rss_mib": mq1.rss_mib,
                "stations_cpu_per_board_pct": 100 * (me1 - me0) / wall / cfg.boards}
    finally:
        stop.set()
        for p in publishers:
            p.stop(drain_s=1.0)
        hub.terminate()
        try:
            hub.wait(10)
        except subprocess.TimeoutExpired:
            hub.kill()
        broker.terminate()
        broker.wait(10)


def video_station_share(base: Path, seconds: float) -> dict[str, float]:
    """CPU share of one core that `xqtrack record --realtime --publish` takes on a 720p/15 fps clip."""
    from sim import ClipSpec, write_clip

    plies = max(4, int(seconds / 4))
    truth = write_clip(ClipSpec(seed=4242, look="wood", random_plies=plies, width=1280, height=720, fps=15.0),
                       base / "clip720")
    side = truth.moves[0]["side"] if truth.moves else "w"
    fen = f"{truth.start_fen.split()[0]} {side} - - 0 1"
    creds = init_broker(BrokerSetup(base / "vbroker", (1,), free_port()))
    broker = start_mosquitto(base / "vbroker")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        t0 = time.monotonic()
        rec = subprocess.Popen([sys.executable, "-m", "app.cli", "record", str(base / "clip720" / "clip.mp4"),
                                "--out", str(base / "vstation"), "--quiet", "--start-fen", fen, "--realtime",
                                "--board", "1", "--publish", creds.url(station_user(1))],
                               stdout=subprocess.DEVNULL, stderr=open(base / "vstation.log", "wb"), env=env)
        peak = 0.0
        cpu = 0.0
        while rec.poll() is None:
            try:
                u = proc_usage(rec.pid)
                cpu, peak = u.cpu_s, max(peak, u.rss_mib)
            except OSError:
                break
            time.sleep(0.2)
        wall = time.monotonic() - t0
        log = (base / "vstation.log").read_text()
        dropped = 0
        for line in log.splitlines():
            if "frames dropped" in line:
                dropped = int(line.split("note: ")[1].split()[0])
        return {"video_s": len(truth.frames) / 15.0, "wall_s": wall,
                "cpu_share_pct": 100 * cpu / wall, "boards_per_core": wall / cpu if cpu else float("nan"),
                "rss_mib": peak, "frames_dropped": dropped, "moves": len(truth.moves)}
    finally:
        broker.terminate()
        broker.wait(10)


def hall_figures(cfg: BenchConfig, base: Path) -> None:
    """Run the 50-station hall and print its figures."""
    r = hall_bench(cfg, base)
    print(f"hall: {r['boards']} stations -> 1 mosquitto -> 1 hub, {r['lines']} journal lines "
          f"({r['lines_per_s']:.1f}/s), a move every {cfg.move_s:g} s per board, {cfg.duration_s:g} s measured")
    print(f"  latency journal line on disk -> hub state.json payload at a client: "
          f"p50 {r['lat_p50_ms']:.0f} ms, p99 {r['lat_p99_ms']:.0f} ms, max {r['lat_max_ms']:.0f} ms; "
          f"lines never seen: {r['missing']}")
    print(f"  hub: {r['hub_cpu_pct']:.1f} % of one core ({r['hub_cpu_per_board_pct']:.2f} % per board), "
          f"RSS {r['hub_rss_mib']:.0f} MiB (peak {r['hub_peak_mib']:.0f} MiB)")
    print(f"  mosquitto: {r['broker_cpu_pct']:.1f} % of one core, RSS {r['broker_rss_mib']:.1f} MiB; "
          f"simulated stations (journal writing + publisher): {r['stations_cpu_per_board_pct']:.2f} % per board")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=50)
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds (default 60)")
    ap.add_argument("--move-s", type=float, default=3.0, help="mean seconds between moves per board (default 3)")
    ap.add_argument("--video", action="store_true", help="also one real video station at 720p/15 fps")
    ap.add_argument("--video-s", type=float, default=40.0, help="about this many seconds of video (default 40)")
    ap.add_argument("--video-only", action="store_true", help="only the video station")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xqtrack-hall-bench-") as tmp:
        base = Path(tmp)
        if not args.video_only:
            hall_figures(BenchConfig(args.boards, args.duration, args.move_s), base)
        if args.video or args.video_only:
            v = video_station_share(base, args.video_s)
            print(f"video station (xqtrack record --realtime --publish, 1280x720 at 15 fps, {v['video_s']:.0f} s, "
                  f"{v['moves']} moves): {v['cpu_share_pct']:.0f} % of one core over {v['wall_s']:.0f} s -> "
                  f"{v['boards_per_core']:.1f} boards per core; RSS {v['rss_mib']:.0f} MiB; "
                  f"frames dropped {v['frames_dropped']}")
    print(f"(machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
