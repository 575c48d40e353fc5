"""Sub-commands of `xqtrack` owned by the hall part: `hub`, `broker`, `station-replay`, plus
`record --board N --publish URL` and `demo --hall`.

Handlers import paho-mqtt, aiohttp and the hall lazily so other sub-commands start fast.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence


def register(subparsers: argparse._SubParsersAction) -> None:
    h = subparsers.add_parser("hub", help="the tournament hall's hub: every board from the broker, pages, "
                                          "broadcast PGN, arbiters' console (or --init-broker DIR)")
    h.add_argument("--init-broker", metavar="DIR",
                   help="write DIR/mosquitto.conf, a password file and an ACL (station N publishes only under "
                        "board N; the hub only reads, plus its command topic), then exit")
    h.add_argument("--boards", type=int, metavar="N", help="with --init-broker: stations 1..N (default: the "
                                                          "--tournament file's boards, else 20)")
    h.add_argument("--port", type=int, default=1883, help="with --init-broker: the broker's port (default 1883)")
    h.add_argument("--listen", default="127.0.0.1", metavar="HOST",
                   help="with --init-broker: the interface the broker listens on (default 127.0.0.1; 0.0.0.0: all)")
    h.add_argument("--tls-port", type=int, metavar="P",
                   help="with --init-broker: also a TLS listener on port P (mqtts://), with --tls-cert and --tls-key")
    h.add_argument("--tls-cert", metavar="FILE", help="with --tls-port: the broker's certificate (PEM)")
    h.add_argument("--tls-key", metavar="FILE", help="with --tls-port: its private key (PEM)")
    h.add_argument("--broker", metavar="URL", help="mqtt://hub:PASS@HOST:PORT (mqtts:// for TLS)")
    h.add_argument("--ca", metavar="FILE", help="CA certificate for an mqtts:// broker")
    h.add_argument("--http", metavar="[HOST:]PORT", help="where to serve the hall (host defaults to 127.0.0.1)")
    h.add_argument("--out", metavar="DIR", help="the hub's copy of every game (boards/N/, broadcast.pgn)")
    h.add_argument("--tournament", metavar="FILE", help="event, round, pairings: .toml, .json or a pairing .csv")
    h.add_argument("--token", help="the arbiters' token (default: a fresh random one, printed)")
    h.add_argument("--board-range", default="1-999", metavar="FIRST-LAST",
                   help="board numbers the hub takes from the broker (default 1-999); others are refused, "
                        "counted in /ingest.json")
    from app.commands.live import add_broadcast_options
    add_broadcast_options(h)   # --delay (the public's view, /broadcast.pgn too) and --engine
    h.add_argument("--for", dest="duration", type=float, metavar="SECONDS", help="stop after this long")
    h.set_defaults(func=_hub)

    b = subparsers.add_parser("broker", help="run the hall's Mosquitto broker on DIR (written by --init-broker "
                                             "first when DIR holds none)")
    b.add_argument("dir", help="the broker folder (mosquitto.conf, passwd, acl, credentials.json)")
    b.add_argument("--boards", type=int, default=20, metavar="N", help="stations 1..N when DIR is new (default 20)")
    b.add_argument("--port", type=int, default=1883, help="port when DIR is new (default 1883)")
    b.add_argument("--listen", default="127.0.0.1", metavar="HOST", help="interface when DIR is new")
    b.set_defaults(func=_broker)

    s = subparsers.add_parser("station", help="publish a recording folder (finished or growing) to the hall's broker, "
                                              "and journal the arbiters' commands into it")
    s.add_argument("dir", help="the recording folder (holds events.jsonl)")
    add_publish_options(s, required=True)
    s.add_argument("--for", dest="duration", type=float, metavar="SECONDS",
                   help="stop after this long (default: until Ctrl-C or SIGTERM)")
    s.set_defaults(func=_station)

    r = subparsers.add_parser("station-replay", help="a simulated station: replay a recorded journal at game "
                                                     "speed into DIR and publish it like `record --publish`")
    r.add_argument("journal", help="a recorded events.jsonl")
    r.add_argument("--out", required=True, help="the station's folder (a new events.jsonl is written there)")
    add_publish_options(r, required=True)
    r.add_argument("--speed", type=float, default=1.0, metavar="X", help="X times the game's pace (default 1)")
    r.add_argument("--drain", type=float, default=10.0, metavar="SECONDS",
                   help="at the end, wait at most this long for the broker to take the backlog (default 10)")
    r.set_defaults(func=_station_replay)


def add_publish_options(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """`--board N --publish URL [--ca FILE]` for a recording sub-command."""
    parser.add_argument("--board", type=int, required=required, metavar="N",
                        help="this station's board number in the hall (with --publish)")
    parser.add_argument("--publish", metavar="URL", required=required,
                        help="publish every journal line to the hall's broker: mqtt://[USER:PASS@]HOST:PORT "
                             "(mqtts:// with --ca FILE for TLS)")
    if not any(a.dest == "ca" for a in parser._actions):
        parser.add_argument("--ca", metavar="FILE", help="CA certificate for an mqtts:// broker")


def check_publish(args: argparse.Namespace) -> None:
    """--board/--publish/--ca checked before a recording starts (ValueError names the option)."""
    url = getattr(args, "publish", None)
    board = getattr(args, "board", None)
    if not url:
        if board is not None:
            raise ValueError("--board goes with --publish URL (the hall's broker)")
        if getattr(args, "ca", None):
            raise ValueError("--ca goes with --publish mqtts://…")
        return
    if board is None:
        raise ValueError("--publish needs --board N (this station's board number)")
    if board < 1:
        raise ValueError(f"--board {board}: board numbers start at 1")
    from hall.brokerurl import parse_broker_url
    broker = parse_broker_url(url, "--publish")
    ca = getattr(args, "ca", None)
    if ca and not broker.tls:
        raise ValueError("--ca goes with an mqtts:// broker URL")
    if ca and not Path(ca).is_file():
        raise ValueError(f"--ca {ca!r}: no such CA certificate file")


def start_station(args: argparse.Namespace, out_dir: str | Path) -> Any:
    """With --publish: the station publisher for `out_dir`, started (the broker may still be down)."""
    check_publish(args)
    url = getattr(args, "publish", None)
    board = getattr(args, "board", None)
    if not url or board is None:
        return None
    from hall.brokerurl import parse_broker_url
    from hall.station import StationPublisher

    publisher = StationPublisher(out_dir, board, parse_broker_url(url, "--publish"), ca_file=getattr(args, "ca", None))
    print(f"station: board {board} publishing to {publisher.url.shown()}", file=sys.stderr, flush=True)
    return publisher.start()


def stop_station(publisher: Any, drain_s: float | None = None) -> None:
    """Send what is left of the journal, then say how far the broker took it."""
    if publisher is None:
        return
    s = publisher.stop(drain_s)
    left = s.lines - s.acked
    print(f"station: board {publisher.board}: {s.acked}/{s.lines} journal lines taken by the broker"
          + (f"; {left} not yet (the hub asks for them when this station is next online)" if left else "")
          + f"; {s.sent} messages sent, {s.reconnects} reconnections",
          file=sys.stderr, flush=True)


def _boards_for_init(args: argparse.Namespace) -> tuple[int, ...]:
    if args.boards is not None:
        if args.boards < 1:
            raise ValueError(f"--boards {args.boards}: needs at least 1")
        return tuple(range(1, args.boards + 1))
    if args.tournament:
        from hall.tournament import load_tournament
        t = load_tournament(args.tournament)
        if t.boards:
            return tuple(range(1, max(t.boards) + 1))
    return tuple(range(1, 21))


def _hub(args: argparse.Namespace) -> int:
    if args.init_broker:
        from hall.broker import HUB_USER, BrokerSetup, init_broker, station_user

        boards = _boards_for_init(args)
        if (args.tls_cert or args.tls_key) and args.tls_port is None:
            raise ValueError("--tls-cert and --tls-key go with --tls-port P")
        creds = init_broker(BrokerSetup(Path(args.init_broker), boards, args.port, args.listen, None, args.tls_port,
                                        Path(args.tls_cert) if args.tls_cert else None,
                                        Path(args.tls_key) if args.tls_key else None))
        folder = Path(args.init_broker).resolve()
        print(f"broker files in {folder}/ (mosquitto.conf, passwd, acl; clear passwords in credentials.json, 0600)")
        print(f"run the broker:   mosquitto -c {folder / 'mosquitto.conf'}   (or: xqtrack broker {folder})")
        print(f"hub:              xqtrack hub --broker {creds.url(HUB_USER)} --http 8080 --out HUBDIR")
        print(f"station {boards[0]}:        xqtrack record SOURCE --out DIR --board {boards[0]} "
              f"--publish {creds.url(station_user(boards[0]))}")
        return 0
    missing = [opt for opt, val in (("--broker", args.broker), ("--http", args.http), ("--out", args.out)) if not val]
    if missing:
        raise ValueError(f"needs {', '.join(missing)} (or --init-broker DIR to write the broker's files)")
    import asyncio

    from hall.brokerurl import parse_broker_url
    from hall.hub import HallHub, HubConfig
    from hall.ingest import parse_board_range
    from hall.tournament import load_tournament
    from live.server import parse_http

    broker = parse_broker_url(args.broker, "--broker")
    host, port = parse_http(args.http)
    tournament = load_tournament(args.tournament) if args.tournament else None
    from app.commands.live import broadcast_settings
    config = HubConfig(host=host, port=port, token=args.token, board_range=parse_board_range(args.board_range),
                       **broadcast_settings(args))
    hub = HallHub(args.out, broker, tournament=tournament, config=config, ca_file=args.ca)

    def ready(h: HallHub) -> None:
        print(f"hub: hall {h.url}/  broadcast {h.url}/broadcast.pgn  boards {h.url}/board/N/", file=sys.stderr,
              flush=True)
        print(f"hub: arbiters {h.url}/arbiter?token={h.token}   token: {h.token}", file=sys.stderr, flush=True)
        print(f"hub: listening on port {h.port}; broker {broker.shown()}; copies in {Path(args.out).resolve()}/",
              file=sys.stderr, flush=True)
        if config.delay_s > 0:
            print(f"hub: the hall, board pages and broadcast.pgn show the games {config.delay_s:g} s late; "
                  f"the arbiters' console (token) is live", file=sys.stderr, flush=True)
        if config.engine is not None:
            print(f"hub: engine {' '.join(config.engine.command)} ({config.engine.movetime_ms} ms a position); "
                  f"bar: {h.url}/board/N/overlay?eval=1", file=sys.stderr, flush=True)

    asyncio.run(hub.run(args.duration, ready))
    return 0


def _broker(args: argparse.Namespace) -> int:
    from hall.broker import CONF_NAME, BrokerSetup, find_tool, init_broker

    folder = Path(args.dir).resolve()
    if not (folder / CONF_NAME).exists():
        if args.boards < 1:
            raise ValueError(f"--boards {args.boards}: needs at least 1")
        init_broker(BrokerSetup(folder, tuple(range(1, args.boards + 1)), args.port, args.listen))
        print(f"broker files written to {folder}/ (passwords in credentials.json)", file=sys.stderr, flush=True)
    binary = find_tool("mosquitto")
    os.execv(binary, [binary, "-c", str(folder / CONF_NAME)])
    return 0   # not reached


def _station(args: argparse.Namespace) -> int:
    import threading

    out = Path(args.dir)
    if not (out / "events.jsonl").is_file():
        raise FileNotFoundError(f"{out}: no events.jsonl here (a folder written by `xqtrack record`)")
    publisher = start_station(args, out)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    try:
        stop.wait(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        stop_station(publisher)
    return 0


def _station_replay(args: argparse.Namespace) -> int:
    from hall.replay import ReplayPace, load_lines, replay

    from runtime.folder_lock import check_out_folder

    lines = load_lines(args.journal)
    out = check_out_folder(args.out)   # a file or an unwritable place said plainly, before anything starts
    if (out / "events.jsonl").exists() and (out / "events.jsonl").stat().st_size > 0:
        raise ValueError(f"{out} already holds a journal; choose another --out folder")
    out.mkdir(parents=True, exist_ok=True)
    pace = ReplayPace(args.speed)
    publisher = start_station(args, out)
    import threading
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        n = replay(lines, out, pace, stop)
    except KeyboardInterrupt:
        n = -1
    finally:
        stop_station(publisher, max(0.0, args.drain))
    print(f"station-replay: {n} lines written to {out / 'events.jsonl'}", file=sys.stderr)
    return 0


def run_hall_demo(args: argparse.Namespace) -> int:
    """`xqtrack demo --hall`: a broker, a hub and two stations recording the bundled clip as boards 1 and 2."""
    from app.commands.record import sample_clip
    from hall.broker import HUB_USER, BrokerSetup, free_port, init_broker, start_mosquitto, station_user

    base = Path(args.out) if args.out else Path.cwd() / time.strftime("xqtrack-hall-%Y%m%d-%H%M%S")
    base.mkdir(parents=True, exist_ok=True)
    clip = sample_clip()
    creds = init_broker(BrokerSetup(base / "broker", (1, 2), free_port()))
    broker = start_mosquitto(base / "broker", base / "broker" / "mosquitto.log")
    http = getattr(args, "http", None) or "8080"
    exe = [sys.executable, "-m", "app.cli"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs: list[subprocess.Popen[bytes]] = []
    try:
        broadcast = ((["--delay", f"{args.delay:g}"] if getattr(args, "delay", 0.0) else [])
                     + (["--engine", args.engine] if getattr(args, "engine", None) else []))
        procs.append(subprocess.Popen(exe + ["hub", "--broker", creds.url(HUB_USER), "--http", http,
                                             "--out", str(base / "hub"), "--token", "demo", *broadcast], env=env))
        time.sleep(1.0)
        names = {1: ("Hu Ronghua", "Liu Dahua"), 2: ("Lü Qin", "Xu Yinchuan")}
        for n in (1, 2):
            cmd = exe + ["record", str(clip), "--out", str(base / f"board{n}"), "--board", str(n),
                         "--publish", creds.url(station_user(n)), "--realtime", "--quiet",
                         "--red", names[n][0], "--black", names[n][1], "--event", "xqtrack hall demo"]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL))
        host = http.rpartition(":")[0] or "127.0.0.1"
        port = http.rpartition(":")[2]
        print(f"hall demo: open http://{host}:{port}/ (boards 1 and 2 record {clip.name} in real time); "
              f"arbiters: http://{host}:{port}/arbiter?token=demo; files in {base}/", flush=True)
        for p in procs[1:]:
            p.wait()
        print("hall demo: both stations finished; the hub keeps serving (Ctrl-C to stop)", flush=True)
        procs[0].wait()
    except KeyboardInterrupt:
        pass
    finally:
        # stations first (they finish their record and hand the broker their last lines), then hub, then broker
        for group, wait_s in ((procs[1:], 60.0), (procs[:1], 10.0)):
            for p in group:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            for p in group:
                try:
                    p.wait(wait_s)
                except subprocess.TimeoutExpired:
                    p.kill()
        broker.terminate()
        broker.wait(5)
    print(hall_demo_summary(base, (1, 2)), flush=True)
    return 0


def hall_demo_summary(base: Path, boards: Sequence[int]) -> str:
    """What `demo --hall` leaves, said when it ends (Ctrl-C included): each board's players, moves,
    incidents and result as its station recorded them, and where every file is."""
    from runtime.journal import JournalError, load_game

    lines = [f"hall demo: ended; everything is in {base.resolve()}/"]
    for n in boards:
        folder = base / f"board{n}"
        try:
            game = load_game(folder)
        except (JournalError, OSError, ValueError) as exc:
            lines.append(f"  board {n}: no record ({str(exc).splitlines()[0] if str(exc) else 'nothing written'})")
            continue
        incidents = sum(1 for e in game.events if e.get("type") == "incident")
        players = f"{game.headers.get('Red', '?')} – {game.headers.get('Black', '?')}"
        lines.append(f"  board {n}: {players}: {len(game.moves)} moves, {incidents} incident"
                     f"{'' if incidents == 1 else 's'}, result {game.result}; {folder.resolve()}/ "
                     f"(game.pgn, review.html, events.jsonl, evidence/)")
    hub = base / "hub"
    lines.append(f"  hub's copy of every board: {hub.resolve()}/boards/N/; all games in one PGN: "
                 f"{(hub / 'broadcast.pgn').resolve()}")
    lines.append(f"  broker: {(base / 'broker').resolve()}/ (mosquitto.conf, credentials.json, mosquitto.log)")
    return "\n".join(lines)
