"""The single `xqtrack` entry point.

Each part's sub-commands live in their own module under `app/commands/`, which exposes
`register(subparsers)`; every sub-parser it adds sets `func(args) -> int`.
Keeping registration in the parts means a part can be worked on without
touching this file, and heavy imports (OpenCV, onnxruntime) stay inside the
handlers so `xqtrack perft` starts fast. The examples every sub-command's --help ends
with are kept here, in one table (EXAMPLES), so they read alike and a test can see that
none is missing; `xqtrack --version` reads the installed package's version.
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Callable, Iterator, Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "app.commands.record",
    "app.commands.rules",
    "app.commands.sim",
    "app.commands.vision",
    "app.commands.calibration",
    "app.commands.clock",
    "app.commands.live",
    "app.commands.hall",
)


# One or more examples per sub-command (nested ones by their full name), shown at the end of its --help.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "record": ("xqtrack record game.mp4 --out round1",
               "xqtrack record 0 --out round1 --clock /dev/ttyUSB0 --red \"Hu Ronghua\" --black \"Liu Dahua\"",
               "xqtrack record 0 --out round1 --http 0.0.0.0:8080 --delay 300 --engine"),
    "demo": ("xqtrack demo", "xqtrack demo --http 8080 --realtime", "xqtrack demo --hall"),
    "perft": ("xqtrack perft \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\" 3",),
    "convert": ("xqtrack convert game.xqf --to chinese", "xqtrack convert game.pgn --to wxf --out game_wxf.pgn"),
    "adjudicate": ("xqtrack adjudicate round1/game.pgn --rules axf",),
    "sim": ("xqtrack sim --random 20 --out simclip", "xqtrack sim --gallery looks"),
    "read": ("xqtrack read board.jpg", "xqtrack read board.jpg --json --set club"),
    "calibrate": ("xqtrack calibrate pieces start.jpg --name club",
                  "xqtrack calibrate camera shots/*.jpg --out camera.json"),
    "calibrate camera": ("xqtrack calibrate camera shots/*.jpg --out camera.json",),
    "calibrate pieces": ("xqtrack calibrate pieces start.jpg --name club",),
    "clock-emulator": ("xqtrack clock-emulator --link /tmp/clock --time-control 15m+10s",),
    "clock-monitor": ("xqtrack clock-monitor /dev/ttyUSB0 --count 10",),
    "serve": ("xqtrack serve round1 --http 8081", "xqtrack serve round1 --http 0.0.0.0:8081 --delay 900 --engine"),
    "rule": ("xqtrack rule round1 3 --uphold --note \"seen on the clip\"", "xqtrack rule round1 4 --dismiss"),
    "result": ("xqtrack result round1 1-0 --reason resignation",),
    "correct": ("xqtrack correct round1 --from-ply 17 --moves \"h2e2 h9g7\" --note \"misread the cannon\"",),
    "hub": ("xqtrack hub --init-broker hallbroker --boards 40",
            "xqtrack hub --broker mqtt://hub:PASS@127.0.0.1:1883 --http 8080 --out hub --tournament round3.toml",
            "xqtrack hub --broker mqtt://hub:PASS@127.0.0.1:1883 --http 8080 --out hub --delay 900 --engine"),
    "broker": ("xqtrack broker hallbroker --boards 40",),
    "station": ("xqtrack station round1 --board 7 --publish mqtt://station-7:PASS@HALLHOST:1883",),
    "station-replay": ("xqtrack station-replay round1/events.jsonl --out rehearsal7 --board 7 "
                       "--publish mqtt://station-7:PASS@127.0.0.1:1883 --speed 4",),
}
EXAMPLES_HEADING = "examples:"


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own layout, except that the examples are printed line for line, not re-wrapped."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def sub_parsers(parser: argparse.ArgumentParser, prefix: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every sub-command's parser with its full name ("calibrate pieces"), nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + name, sub
                yield from sub_parsers(sub, prefix + name + " ")


def package_version() -> str:
    """The installed xqtrack's version (package metadata), else pyproject.toml's beside this file."""
    from importlib import metadata
    try:
        return metadata.version("xqtrack")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        m = re.search(r'(?m)^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"))
    except OSError:
        m = None
    return m.group(1) if m else "unknown"


def build_parser(modules: Sequence[str] = COMMAND_MODULES, prog: str = "xqtrack") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Record a physical Xiangqi game from a camera, with rules, clock and incidents.",
        epilog=f"{EXAMPLES_HEADING}\n  {prog} demo\n  {prog} record 0 --out round1 --http 8080\n"
               f"  {prog} COMMAND --help      (each command's options and examples)",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(name)
        register: Callable[[argparse._SubParsersAction], None] = getattr(module, "register")
        register(subparsers)
    for name, sub in sub_parsers(parser):
        examples = EXAMPLES.get(name)
        if examples and not sub.epilog:
            shown = (line.replace("xqtrack ", f"{prog} ", 1) for line in examples)
            sub.epilog = EXAMPLES_HEADING + "\n" + "\n".join("  " + line for line in shown)
            if sub.formatter_class is argparse.HelpFormatter:
                sub.formatter_class = _HelpFormatter
    return parser


def main(argv: Sequence[str] | None = None, modules: Sequence[str] = COMMAND_MODULES,
         prog: str = "xqtrack") -> int:
    """Run one sub-command; `modules` narrows the parts loaded (`python -m app.commands.clock`)."""
    parser = build_parser(modules, prog)
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        print(f"{prog} {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # one clear line, never a traceback
        message = str(exc) or exc.__class__.__name__
        print(f"{prog} {args.command}: error: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
