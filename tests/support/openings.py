"""A sim clip's first frames as a real MPEG-4 file, for tests that need only a game's opening
(rendering the whole clip costs seconds per test)."""
from __future__ import annotations

from pathlib import Path

import cv2


def write_opening(spec, frames: int, path: Path) -> list:
    """Render the first `frames` frames of the clip `spec` (sim.ClipSpec) into `path` (MPEG-4
    part 2, read back by OpenCV as a recorded game is); returns their FrameTruth, in order."""
    from sim.render import Rig

    rig = Rig(spec)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), float(spec.fps), (spec.width, spec.height))
    if not writer.isOpened():
        raise RuntimeError(f"cannot open a video writer for {path} (OpenCV without an MPEG-4 encoder?)")
    truths = []
    try:
        for i in range(frames):
            img, truth = rig.render(i, with_mask=False)
            writer.write(img)
            truths.append(truth)
    finally:
        writer.release()
    return truths
