"""Sub-commands of `xqtrack` owned by the live part: `serve`, and the arbiter's `rule`, `result` and
`correct` (each one journal line, checked first: live/rulings.py), plus `--http` for record/demo.

Handlers import aiohttp and the server lazily so other sub-commands start fast.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

HTTP_HELP = "serve the live pages on [HOST:]PORT while recording (host defaults to 127.0.0.1)"


def register(subparsers: argparse._SubParsersAction) -> None:
    s = subparsers.add_parser("serve", help="serve the live pages of a finished or growing recording")
    s.add_argument("dir", help="the recording folder (holds events.jsonl)")
    s.add_argument("--http", required=True, metavar="[HOST:]PORT", help="where to serve (host defaults to 127.0.0.1)")
    s.add_argument("--token", help="the token rulings need (default: a fresh random one, printed)")
    add_broadcast_options(s)
    s.add_argument("--for", dest="duration", type=float, metavar="SECONDS",
                   help="stop after this many seconds (default: until Ctrl-C)")
    s.set_defaults(func=_serve)

    r = subparsers.add_parser("rule", help="journal an arbiter's decision on an incident")
    r.add_argument("dir", help="the recording folder (holds events.jsonl)")
    r.add_argument("incident", type=int, metavar="ID", help="the incident's id (1, 2, 3… as the review numbers them)")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--uphold", action="store_true", help="the incident stands")
    g.add_argument("--dismiss", action="store_true", help="the incident is dismissed")
    r.add_argument("--note", default="", help="the arbiter's note")
    r.add_argument("--revise", action="store_true",
                   help="change the ruling that stands on this incident (each revision is journalled)")
    r.add_argument("--by", default="cli", metavar="NAME", help="who rules (default: cli)")
    r.set_defaults(func=_rule)

    res = subparsers.add_parser("result", help="journal the game's result as an arbiter enters it")
    res.add_argument("dir", help="the recording folder (holds events.jsonl)")
    res.add_argument("result", choices=("1-0", "0-1", "1/2-1/2"), help="the result")
    res.add_argument("--reason", default="", help="why (resignation, draw agreed, a flag the clock did not see…)")
    res.add_argument("--note", default="", help="the arbiter's note")
    res.add_argument("--by", default="cli", metavar="NAME", help="who enters it (default: cli)")
    res.add_argument("--revise", action="store_true",
                     help="change the result that stands (each revision is journalled; the latest stands)")
    res.set_defaults(func=_result)

    c = subparsers.add_parser("correct", help="replace the recorded moves from a ply by the arbiter's")
    c.add_argument("dir", help="the recording folder (holds events.jsonl)")
    c.add_argument("--from-ply", dest="from_ply", type=int, required=True, metavar="N",
                   help="the first ply to replace (1 = red's first move; the ply after the last adds moves)")
    c.add_argument("--moves", required=True, metavar='"M1 M2 ..."',
                   help="the moves from that ply on, in ICCS (h2e2), WXF (C2.5) or Chinese (炮二平五); "
                        "\"\" takes the plies from N on back")
    c.add_argument("--by", default="cli", metavar="NAME", help="who corrects (default: cli)")
    c.add_argument("--note", default="", metavar="WHY", help="why (what the camera got wrong)")
    c.set_defaults(func=_correct)


def add_http_option(parser: argparse.ArgumentParser, linger_default: float | None) -> None:
    """`--http [HOST:]PORT` (and `--linger`) for a recording sub-command."""
    parser.add_argument("--http", metavar="[HOST:]PORT", help=HTTP_HELP)
    parser.add_argument("--linger", type=float, default=linger_default, metavar="SECONDS",
                        help="with --http: keep serving this long after the recording ends "
                             + ("(default %(default)s s)" if linger_default is not None
                                else "(default: until Ctrl-C at a terminal, 3 s from a script)"))
    add_broadcast_options(parser, "with --http: ")


def add_broadcast_options(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """`--delay SECONDS` and `--engine [CMD]` (`--engine-ms`) for whatever serves the pages
    (serve, record/demo with --http, hub)."""
    parser.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                        help=prefix + "broadcast delay: the public pages, overlay, state.json, events and PGN "
                                      "show the game as it stood SECONDS ago; the arbiters (token) see it live")
    parser.add_argument("--engine", nargs="?", const="auto", default=None, metavar="CMD",
                        help=prefix + "evaluate the positions shown with a UCI engine (default CMD: fairy-stockfish, "
                                      "else pikafish, when installed); the pages show the bar with ?eval=1")
    parser.add_argument("--engine-ms", type=int, default=1000, metavar="MS",
                        help="with --engine: search time per position (default 1000 ms; the engine runs niced)")


def broadcast_settings(args: argparse.Namespace) -> dict[str, Any]:
    """ServerConfig / HubConfig keywords from --delay and --engine (ValueError names the option)."""
    delay = float(getattr(args, "delay", 0.0) or 0.0)
    if delay < 0:
        raise ValueError(f"--delay {delay:g}: must be 0 or more seconds")
    spec = getattr(args, "engine", None)
    engine = None
    if spec is not None:
        from live.engine import engine_config
        engine = engine_config(spec, movetime_ms=int(getattr(args, "engine_ms", 1000)))
    return {"delay_s": delay, "engine": engine}


def start_live(args: argparse.Namespace, out_dir: str | Path) -> Any:
    """With --http: the live server for `out_dir`, listening (None without --http).

    Started before the recorder writes anything, so a port in use or a bad address stops the
    command with one line and no half-started recording folder.
    """
    spec = getattr(args, "http", None)
    if not spec:
        if getattr(args, "delay", 0.0) or getattr(args, "engine", None) is not None:
            raise ValueError("--delay and --engine go with --http (they change what the live pages show)")
        return None
    from live.server import LiveServer, ServerConfig, parse_http

    host, port = parse_http(spec)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    server = LiveServer(out_dir, ServerConfig(host=host, port=port, **broadcast_settings(args))).start()
    _announce(server)
    return server


def watch_recorder(server: Any, recorder: Any) -> None:
    """Give the recorder the set-up frame hook (DIR/setup.jpg + setup.json) when serving."""
    if server is None:
        return
    from live.setupframe import SetupWriter

    def expected() -> str | None:
        pos = recorder.tracker.position
        return pos.fen() if pos is not None else None

    recorder.frame_hook = SetupWriter(server.app.dir, expected)


SCRIPTED_LINGER_S = 3.0   # `demo --http` run by a script (stdin not a terminal) serves this long after the end


def stop_live(server: Any, args: argparse.Namespace) -> None:
    """Keep serving `--linger` seconds, then stop. Without --linger (demo): until Ctrl-C when a
    person runs it (stdin is a terminal), so the page stays up to be looked at; a script gets
    SCRIPTED_LINGER_S and the command ends."""
    if server is None:
        return
    linger = getattr(args, "linger", None)
    if linger is None and not sys.stdin.isatty():
        linger = SCRIPTED_LINGER_S
    try:
        if linger is None:
            print(f"recording finished; still serving {server.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
            while True:
                time.sleep(3600)
        elif linger > 0:
            time.sleep(linger)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def _announce(server: Any) -> None:
    print(f"live: {server.url}/  overlay: {server.url}/overlay  set-up: {server.url}/setup  "
          f"state: {server.url}/state.json", file=sys.stderr, flush=True)
    print(f"live: arbiter's page (rulings): {server.url}/?token={server.token}   token: {server.token}",
          file=sys.stderr, flush=True)
    config = server.config
    if config.delay_s > 0:
        print(f"live: the public pages show the game {config.delay_s:g} s late; with the token it is live",
              file=sys.stderr, flush=True)
    if config.engine is not None:
        print(f"live: engine {' '.join(config.engine.command)} ({config.engine.movetime_ms} ms a position, niced); "
              f"bar: {server.url}/overlay?eval=1", file=sys.stderr, flush=True)


def _serve(args: argparse.Namespace) -> int:
    from live.server import LiveServer, ServerConfig, parse_http

    out = Path(args.dir)
    if not out.is_dir():
        raise FileNotFoundError(f"{out}: no such recording folder")
    if not (out / "events.jsonl").exists():
        print(f"xqtrack serve: note: {out}/events.jsonl does not exist yet; serving it once it appears",
              file=sys.stderr)
    host, port = parse_http(args.http)
    server = LiveServer(out, ServerConfig(host=host, port=port, token=args.token, **broadcast_settings(args))).start()
    _announce(server)
    try:
        if args.duration is not None:
            time.sleep(max(0.0, args.duration))
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _say_files(command: str, line: dict[str, Any]) -> None:
    """Warn when review.html or game.pgn could not be rebuilt (the line is journalled all the same)."""
    for name, key in (("review.html", "review"), ("game.pgn", "pgn")):
        if str(line.get(key, "")).startswith("not rewritten"):
            print(f"xqtrack {command}: warning: {name} {line[key]}", file=sys.stderr)


def _rule(args: argparse.Namespace) -> int:
    from live.rulings import Ruling, record_ruling

    decision = "upheld" if args.uphold else "dismissed"
    line = record_ruling(args.dir, Ruling(args.incident, decision, args.note or "", by=args.by, revise=args.revise))
    _say_files("rule", line)
    rev = f" (revision {line['revision']}, revises {line['revises']})" if line.get("revises") else ""
    print(f"incident {line['incident']}: {decision}" + (f" ({line['note']})" if line.get("note") else "") + rev)
    return 0


def _result(args: argparse.Namespace) -> int:
    from live.rulings import record_result

    line = record_result(args.dir, args.result, args.reason or "", by=args.by, note=args.note or "",
                         revise=args.revise)
    _say_files("result", line)
    rev = f" (revision {line['revision']}, revises {line['revises']})" if line.get("revises") else ""
    print(f"result {line['result']} at ply {line['ply']}: {line['reason']}{rev}")
    return 0


def _correct(args: argparse.Namespace) -> int:
    from board.arbiter import split_moves
    from live.rulings import record_correction

    line = record_correction(args.dir, args.from_ply, split_moves(args.moves), by=args.by, note=args.note or "")
    _say_files("correct", line)
    print(f"from ply {line['from_ply']}: {' '.join(line['was']) or '-'} -> {' '.join(line['moves']) or '-'} "
          f"({line['ply']} plies now)")
    return 0
