"""The single `xqtrack` entry point.

Each part's sub-commands live in their own module under `app/commands/`, which exposes
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
    "app.commands.record",
    "app.commands.rules",
    "app.commands.sim",
    "app.commands.vision",
    "app.commands.calibration",
    "app.commands.clock",
    "app.commands.live",
    "app.commands.hall",
)


def build_parser(modules: Sequence[str] = COMMAND_MODULES, prog: str = "xqtrack") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Record a physical Xiangqi game from a camera, with rules, clock and incidents.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(name)
        register: Callable[[argparse._SubParsersAction], None] = getattr(module, "register")
        register(subparsers)
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
