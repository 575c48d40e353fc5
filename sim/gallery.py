"""Contact sheet of varied rendered frames, for a person to judge realism at a glance."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .render import LOOKS, Rig
from .truth import ClipSpec


def gallery_frames(seed: int = 0, count: int = 24, width: int = 640, height: int = 360) -> list[np.ndarray]:
    """`count` frames over all looks: stills and mid-move clip frames (hands, incidents, bumps)."""
    frames = []
    for k in range(count):
        look = LOOKS[k % len(LOOKS)]
        spec = ClipSpec(seed=seed * 1000 + k, look=look, random_plies=2 + k % 3, incidents=[])
        rig = Rig(spec)
        # alternate quiet frames and frames with a hand over the board
        over = np.flatnonzero(rig.over_board)
        if k % 3 != 0 and len(over):
            i = int(over[len(over) // 3 + (k * 7) % max(1, len(over) // 3)])
        else:
            i = int(rig.n - 1)
        img, _ = rig.render(i, with_mask=False)
        frames.append(cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA))
    return frames


def write_gallery(out_dir, seed: int = 0, cols: int = 4) -> Path:
    """Write out_dir/sim_gallery.jpg (6 x 4 tiles of 640 x 360)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    frames = gallery_frames(seed)
    rows = [np.hstack(frames[i:i + cols]) for i in range(0, len(frames), cols)]
    sheet = np.vstack(rows)
    path = out / "sim_gallery.jpg"
    if not cv2.imwrite(str(path), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85]):
        raise RuntimeError(f"could not write {path}")
    return path
