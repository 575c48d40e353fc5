"""`python -m firmware_bridge clock-emulator|clock-monitor ...`: the same sub-commands as
`xqtrack`, without loading the other parts (vision, sim) — quicker for scripts and tests."""
from __future__ import annotations

import argparse
import sys

from . import commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.register(sub)
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # one clear line, as xqtrack does
        print(f"{args.command}: error: {exc or exc.__class__.__name__}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
