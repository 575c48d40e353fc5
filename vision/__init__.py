"""xqtrack vision: frames -> Observations (board pose, hands, per-point readings).

Public API (docs: /work/briefs/vision_api.md, docs/conventions.md):
    BoardReader, read_image, BoardNotFoundError, Observation, BoardPose, CLASSES
Heavy pieces (onnxruntime) load only when a reader is made.
"""
from .observation import CLASSES, NUM_POINTS, BoardPose, Observation
from .locate import BoardNotFoundError
from .reader import BoardReader, read_image

__all__ = ["BoardReader", "read_image", "BoardNotFoundError", "Observation", "BoardPose", "CLASSES",
           "NUM_POINTS"]
