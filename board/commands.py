"""Sub-commands of `xqtrack` owned by the board part."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this part's sub-commands (none yet)."""
