"""The single `xqtrack` entry point.

Each part owns its sub-commands in its own `commands` module, which exposes
`register(subparsers)`; every sub-parser it adds sets `func(args) -> int`.
Keeping registration in the parts means a part can be worked on without
touching this file, and heavy imports (OpenCV, onnxruntime) stay inside the
handlers so `xqtrack perft` starts fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable, Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "board.commands",
    "rules.commands",
    "sim.commands",
    "vision.commands",
    "calibration.commands",
    "firmware_bridge.commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xqtrack",
        description="Record a physical Xiangqi game from a camera, with rules, clock and incidents.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        register: Callable[[argparse._SubParsersAction], None] = getattr(module, "register")
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        print(f"xqtrack {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # one clear line, never a traceback
        message = str(exc) or exc.__class__.__name__
        print(f"xqtrack {args.command}: error: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
