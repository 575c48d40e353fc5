"""xqtrack sim: a synthetic camera rig that films Xiangqi games with exact ground truth.

Public API (see sim/truth.py for the truth conventions):
    from sim import ClipSpec, FrameTruth, ClipTruth, render_clip, write_clip, render_still, LOOKS
"""
from .render import LOOKS, render_clip, render_still, write_clip
from .truth import ClipSpec, ClipTruth, FrameTruth

__all__ = ["ClipSpec", "ClipTruth", "FrameTruth", "LOOKS", "render_clip", "render_still", "write_clip"]
