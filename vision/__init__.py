"""xqtrack vision: frames -> Observations (board pose, hands, per-point readings).

Public API (see docs/conventions.md):
    BoardReader, ReaderConfig (its settings), Reader (what the recorder asks of a reader),
    read_image, BoardNotFoundError, Observation, BoardPose, CLASSES
Names resolve lazily, so registering the `xqtrack read` sub-command does not import
OpenCV or NumPy; onnxruntime loads only when a reader is made.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CLASSES": "vision.observation",
    "NUM_POINTS": "vision.observation",
    "BoardPose": "vision.observation",
    "Observation": "vision.observation",
    "BoardNotFoundError": "vision.locate",
    "BoardReader": "vision.reader",
    "read_image": "vision.reader",
    "ReaderConfig": "vision.config",
    "Reader": "vision.protocol",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
