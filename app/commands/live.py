"""Sub-commands of `xqtrack` owned by the live part: `serve` and `rule`, plus `--http` for record/demo.

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
    r.set_defaults(func=_rule)


def add_http_option(parser: argparse.ArgumentParser, linger_default: float | None) -> None:
    """`--http [HOST:]PORT` (and `--linger`) for a recording sub-command."""
    parser.add_argument("--http", metavar="[HOST:]PORT", help=HTTP_HELP)
    parser.add_argument("--linger", type=float, default=linger_default, metavar="SECONDS",
                        help="with --http: keep serving this long after the recording ends "
                             + ("(default %(default)s s)" if linger_default is not None
                                else "(default: until Ctrl-C at a terminal, 3 s from a script)"))


def start_live(args: argparse.Namespace, out_dir: str | Path) -> Any:
    """With --http: the live server for `out_dir`, listening (None without --http).

    Started before the recorder writes anything, so a port in use or a bad address stops the
    command with one line and no half-started recording folder.
    """
    spec = getattr(args, "http", None)
    if not spec:
        return None
    from live.server import LiveServer, ServerConfig, parse_http

    host, port = parse_http(spec)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    server = LiveServer(out_dir, ServerConfig(host=host, port=port)).start()
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


def _serve(args: argparse.Namespace) -> int:
    from live.server import LiveServer, ServerConfig, parse_http

    out = Path(args.dir)
    if not out.is_dir():
        raise FileNotFoundError(f"{out}: no such recording folder")
    if not (out / "events.jsonl").exists():
        print(f"xqtrack serve: note: {out}/events.jsonl does not exist yet; serving it once it appears",
              file=sys.stderr)
    host, port = parse_http(args.http)
    server = LiveServer(out, ServerConfig(host=host, port=port, token=args.token)).start()
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


def _rule(args: argparse.Namespace) -> int:
    from live.rulings import Ruling, record_ruling
    from runtime.journal import JournalError
    from runtime.review import write_review

    decision = "upheld" if args.uphold else "dismissed"
    line = record_ruling(args.dir, Ruling(args.incident, decision, args.note or "", by="cli"))
    try:
        write_review(args.dir)
    except (OSError, JournalError) as exc:  # the ruling is journalled; the page can be rebuilt later
        print(f"xqtrack rule: warning: review.html not rewritten: {exc}", file=sys.stderr)
    print(f"incident {line['incident']}: {decision}" + (f" ({line['note']})" if line.get("note") else ""))
    return 0
