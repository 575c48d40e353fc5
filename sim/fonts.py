"""Glyph masks for piece characters and board text, from the subset fonts in sim/assets/fonts.

Why Pillow at run time rather than a pre-rendered atlas: glyphs are drawn once per clip at the
size the sprite needs and cached, so the cost is negligible, while several fonts (Kai, Song,
Hei) stay small vector files with their licences beside them (tools/subset_fonts.py makes them).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"

# style -> font files (in sim/assets/fonts); see the README there for sources and licences.
FONTS: dict[str, tuple[str, ...]] = {
    "kai": ("xq-kai-a.ttf", "xq-kai-b.ttf", "xq-kai-c.ttf"),
    "song": ("xq-song-a.otf", "xq-song-b.ttf"),
    "hei": ("xq-hei-a.otf", "xq-hei-b.ttf"),
}
ALL_FONTS: tuple[str, ...] = tuple(f for fs in FONTS.values() for f in fs)


@lru_cache(maxsize=1)
def _coverage() -> dict[str, str]:
    import json

    path = FONT_DIR / "coverage.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def available_fonts(chars: str = "") -> list[str]:
    """Shipped fonts that have every character in `chars` (a missing glyph would draw a box)."""
    cov = _coverage()
    return [f for f in ALL_FONTS if (FONT_DIR / f).exists() and all(c in cov.get(f, "") for c in chars)]


@lru_cache(maxsize=64)
def _pil_font(name: str, size: int):
    try:
        from PIL import ImageFont
    except ImportError as exc:  # pragma: no cover - dependency declared in pyproject
        raise RuntimeError("sim needs Pillow to draw piece characters: pip install Pillow") from exc
    path = FONT_DIR / name
    if not path.exists():
        raise FileNotFoundError(f"font {path} is missing; run tools/subset_fonts.py")
    return ImageFont.truetype(str(path), size)


@lru_cache(maxsize=2048)
def glyph_mask(char: str, font: str, size: int) -> np.ndarray:
    """Anti-aliased coverage (float32 0..1) of `char`, tightly cropped, glyph about `size` px tall."""
    from PIL import Image, ImageDraw

    pf = _pil_font(font, size)
    pad = size // 2
    img = Image.new("L", (size * 2 + pad, size * 2 + pad), 0)
    ImageDraw.Draw(img).text((pad // 2, pad // 2), char, font=pf, fill=255)
    a = np.asarray(img, dtype=np.float32) / 255.0
    ys, xs = np.nonzero(a > 0.02)
    if len(xs) == 0:
        raise ValueError(f"font {font} has no glyph for {char!r}")
    return a[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].copy()


def fitted_glyph(char: str, font: str, box: int, fill: float = 0.8, weight: int = 0) -> np.ndarray:
    """Glyph coverage centred in a box x box array, scaled so its larger side is fill * box.

    weight > 0 thickens strokes (dilate), < 0 thins them (erode): real sets vary in stroke weight.
    """
    g = glyph_mask(char, font, max(16, int(box * 1.2)))
    h, w = g.shape
    s = fill * box / max(h, w)
    nh, nw = max(1, int(round(h * s))), max(1, int(round(w * s)))
    g = cv2.resize(g, (nw, nh), interpolation=cv2.INTER_AREA)
    if weight:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(weight) + 1, 2 * abs(weight) + 1))
        g = cv2.dilate(g, k) if weight > 0 else cv2.erode(g, k)
    out = np.zeros((box, box), np.float32)
    y0, x0 = (box - nh) // 2, (box - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = g[: box - y0, : box - x0]
    return out
