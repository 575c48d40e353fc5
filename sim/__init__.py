"""xqtrack sim: a synthetic camera rig that films Xiangqi games with exact ground truth.

Public API (see sim/truth.py for the truth conventions):
    from sim import ClipSpec, FrameTruth, ClipTruth, render_clip, write_clip, render_still, LOOKS

The names are resolved lazily so that `xqtrack` sub-commands which only register
their parsers here do not pay for importing OpenCV and the renderer at start-up.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "LOOKS": "sim.render",
    "planned_moves": "sim.render",
    "render_clip": "sim.render",
    "render_still": "sim.render",
    "write_clip": "sim.render",
    "ClipSpec": "sim.truth",
    "ClipTruth": "sim.truth",
    "FrameTruth": "sim.truth",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
