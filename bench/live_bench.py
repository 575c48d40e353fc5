"""Live server figures: journal line -> browser DOM latency, and the recorder's speed with clients.

    .venv/bin/python bench/live_bench.py [--moves 40] [--clients 10] [--frames 300] [--rounds 2]

1. Latency (target median <= 100 ms, max <= 300 ms): a journal grows one move at a time (100 to
   300 ms apart) in a folder served by the live server, as `xqtrack record --http` serves it; a
   headless Chromium shows `/`. The page notes `Date.now()` when it has drawn each journal
   sequence number (window.__xq.applied); the bench notes `time.time()` just before the line is
   written. Both clocks are this machine's, so the difference is the whole path: the journal's
   write + fsync, tail poll, SSE push, JSON parse, DOM update. Measured with 0 and with `--clients` other SSE clients
   (raw streams of `/events?view=1`, each as costly to the server as a browser) connected.
2. Recorder speed: the bundled demo clip's first `--frames` frames recorded as fast as the
   machine allows (the real vision reader), served with `--http`, with no client and with
   `--clients` SSE clients connected; rounds alternate to spread background noise. The server
   runs on its own thread and only tails the journal, so the figures should match.

Needs Debian's chromium + chromium-driver and selenium for part 1 (skipped with a note without).
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "live"))

from live.server import LiveServer, ServerConfig  # noqa: E402


def _sse_client(url: str, stop: Any, counts: Any, i: int) -> None:
    """One SSE consumer of /events?view=1 (a browser's load on the server without its rendering)."""
    try:
        with urllib.request.urlopen(url + "/events?view=1", timeout=600) as r:
            while not stop.is_set():
                line = r.readline()
                if not line:
                    break
                if line.startswith(b"event: state"):
                    counts[i] += 1
    except OSError:
        pass


class Clients:
    """`n` SSE clients in their own processes (so their reading does not share this one's GIL)."""

    def __init__(self, url: str, n: int) -> None:
        self.stop = mp.Event()
        self.counts = mp.Array("i", max(1, n))
        self.procs = [mp.Process(target=_sse_client, args=(url, self.stop, self.counts, i), daemon=True)
                      for i in range(n)]

    def __enter__(self) -> "Clients":
        for p in self.procs:
            p.start()
        time.sleep(0.5 if self.procs else 0.0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for p in self.procs:
            p.terminate()
            p.join(2)


def _browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    for binary in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(binary).exists():
            opts.binary_location = binary
            break
    try:
        return webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))
    except Exception as exc:
        print(f"latency: headless chromium would not start ({str(exc).splitlines()[0]}); skipped")
        return None


def latency(n_moves: int, n_clients: int) -> dict[str, float] | None:
    from live_helpers import GameWriter
    driver = _browser()
    if driver is None:
        return None
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        game = GameWriter(Path(tmp))
        server = LiveServer(tmp, ServerConfig(port=0)).start()
        try:
            with Clients(server.url, n_clients):
                driver.get(server.url + "/")
                time.sleep(1.0)
                written: dict[int, float] = {}
                seq = [1]
                plain_write = game.journal.write

                def timed_write(event: dict[str, Any]) -> dict[str, Any]:
                    # stamped before the write: the tail may see the line while its fsync still runs,
                    # so the figure includes the journal's own write + fsync (an upper bound)
                    seq[0] += 1
                    written[seq[0]] = time.time() * 1000.0
                    return plain_write(event)
                game.journal.write = timed_write  # type: ignore[method-assign]
                for _ in range(n_moves):
                    legal = sorted(game.pos.legal_moves(), key=lambda m: m.iccs())
                    if not legal:
                        break
                    game.move(rng.choice(legal).iccs())
                    time.sleep(rng.uniform(0.1, 0.3))
                time.sleep(0.5)
                applied = driver.execute_script("return window.__xq.applied")
        finally:
            server.stop()
            game.close()
            driver.quit()
    lat = [float(applied[str(s)]) - t for s, t in written.items() if str(s) in applied]
    missing = len(written) - len(lat)
    return {"n": len(lat), "missing": missing, "median_ms": statistics.median(lat),
            "p90_ms": sorted(lat)[int(0.9 * (len(lat) - 1))], "max_ms": max(lat), "min_ms": min(lat)}


class _Limited:
    """The first `n` frames of a source (and its fps, which the recorder reads)."""

    def __init__(self, source: Any, n: int) -> None:
        self.source, self.n = source, n
        self.fps = getattr(source, "fps", 25.0)

    def __iter__(self):
        for i, fr in enumerate(self.source):
            if i >= self.n:
                return
            yield fr


def record_speed(n_frames: int, n_clients: int) -> dict[str, float]:
    from app.commands.record import _make_reader, sample_clip
    from live.setupframe import SetupWriter
    from runtime.recorder import Recorder
    from runtime.sources import FrameSource

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rec"
        reader = _make_reader()
        rec = Recorder(out, reader=reader, evidence=True)
        server = LiveServer(out, ServerConfig(port=0)).start()
        rec.frame_hook = SetupWriter(out, lambda: rec.tracker.position.fen() if rec.tracker.position else None)
        source = FrameSource(str(sample_clip()))
        try:
            with Clients(server.url, n_clients) as clients:
                t0 = time.perf_counter()
                summary = rec.run(_Limited(source, n_frames))
                wall = time.perf_counter() - t0
                delivered = sum(clients.counts[:]) if n_clients else 0
        finally:
            source.close()
            server.stop()
    return {"frames": summary.frames, "video_s": summary.video_s, "wall_s": wall,
            "ms_per_frame": 1000.0 * wall / max(1, summary.frames), "speed": summary.video_s / wall,
            "moves": len(summary.moves), "state_messages": delivered}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    args = ap.parse_args()
    if not args.skip_latency:
        for n in (0, args.clients):
            r = latency(args.moves, n)
            if r is None:
                print("latency: no headless browser here; skipped")
                break
            print(f"latency, {n:2d} other SSE clients: {r['n']} moves, median {r['median_ms']:.1f} ms, "
                  f"p90 {r['p90_ms']:.1f} ms, max {r['max_ms']:.1f} ms, min {r['min_ms']:.1f} ms, "
                  f"missing {r['missing']}  (target median <= 100, max <= 300)")
    if not args.skip_speed:
        runs: dict[int, list[dict[str, float]]] = {0: [], args.clients: []}
        for _ in range(args.rounds):
            for n in (0, args.clients):
                r = record_speed(args.frames, n)
                runs[n].append(r)
                print(f"recorder, {n:2d} SSE clients: {r['frames']} frames ({r['video_s']:.1f} s of video) in "
                      f"{r['wall_s']:.1f} s = {r['ms_per_frame']:.1f} ms/frame, {r['speed']:.2f}x real time, "
                      f"{r['moves']} moves, {r['state_messages']} state messages delivered", flush=True)
        for n, rs in runs.items():
            print(f"recorder, {n:2d} SSE clients: median {statistics.median(r['ms_per_frame'] for r in rs):.1f} "
                  f"ms/frame over {len(rs)} rounds")


if __name__ == "__main__":
    main()
