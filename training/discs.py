"""Synthetic piece discs of many kinds of set (training only).

Why: the real crops are one kind of set (white plastic, traditional characters, red/black ink)
and the renderer's seven typefaces are a few more; on real photos of other sets the classifier
fails in ways no amount of those teaches: dark discs read as empty, brown ink for red read as
black, green or blue ink for black, both armies carved with the same characters, engraved or
embossed strokes, worn paint. This module draws tight disc crops (the same convention as the
real crops, so `augment.real_to_wide` places them on points) from a wide range of:

* typefaces: every CJK font found on this machine (Debian's fonts-arphic-*, fonts-cwtex-*,
  fonts-lxgw-wenkai, fonts-wqy-*, fonts-hanazono, ... installed for training only; nothing of
  them ships) plus the project's own subset fonts in sim/assets/fonts;
* characters: traditional and simplified forms and the variants sets use (帥/帅, 將/将, 傌/馬/马,
  俥/車/车, 炮/砲/包), and sets whose two armies carry the same characters (colour alone tells
  the side);
* discs: ivory, white and yellow plastic, light and dark wood, bamboo, jade, black and red-brown
  discs; rims, engraved rings, a visible side (disc thickness);
* ink and stroke: red, brown-red, orange, pink for red; black, green, blue, brown, white (on dark
  discs) for black; printed, engraved (recessed: shadow and highlight), embossed; worn paint.

Pure drawing (PIL + NumPy); deterministic for a given numpy Generator.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.observation import CLASSES

ROOT = Path(__file__).resolve().parent.parent
FONT_DIRS = (Path("/usr/share/fonts"), ROOT / "sim" / "assets" / "fonts")

# characters per piece: (red forms, black forms); the first of each is the most common
CHARS: dict[str, tuple[str, str]] = {
    "K": ("帥帅", "將将"),
    "A": ("仕", "士"),
    "B": ("相", "象"),
    "N": ("傌馬马", "馬马"),
    "R": ("俥車车", "車车"),
    "C": ("炮砲", "包砲炮"),
    "P": ("兵", "卒"),
}

# BGR colours (disc face, rim) and inks
DISCS = {
    "ivory": ((200, 225, 235), (150, 175, 190)),
    "white": ((240, 242, 244), (180, 185, 190)),
    "yellow": ((140, 205, 230), (90, 150, 185)),
    "light_wood": ((120, 170, 210), (70, 115, 160)),
    "dark_wood": ((45, 80, 125), (25, 50, 85)),
    "bamboo": ((110, 190, 215), (70, 140, 170)),
    "jade": ((150, 190, 140), (100, 140, 95)),
    "black": ((35, 35, 38), (15, 15, 18)),
    "brown": ((60, 95, 150), (35, 60, 105)),
}
RED_INKS = {"red": (40, 35, 200), "brown_red": (40, 60, 150), "orange": (30, 100, 230), "pink": (120, 90, 220),
            "dark_red": (30, 20, 130)}
BLACK_INKS = {"black": (25, 25, 25), "green": (60, 110, 20), "blue": (150, 60, 25), "brown": (30, 50, 80),
              "dark_green": (40, 70, 20), "white": (235, 235, 235)}


@dataclass(frozen=True)
class DiscStyle:
    """Everything that makes one set look like itself (shared by both armies)."""

    font: str
    disc: str
    red_ink: str
    black_ink: str
    stroke: str          # "printed" | "engraved" | "embossed"
    same_chars: bool     # both armies carry the same characters
    simplified: bool
    rings: int           # 0..2 rings drawn around the character
    char_scale: float    # character height / disc diameter
    wear: float          # share of ink worn away (0..0.35)
    thickness: float     # visible disc side, share of the radius (0..0.25)
    warp: float = 0.0    # a hand's wobble: smooth displacement of the strokes, pixels at 96 px (0..3.5)
    weight: int = 0      # strokes thinned (< 0) or thickened (> 0) by this many pixels at 96 px


@lru_cache(maxsize=1)
def cjk_fonts() -> tuple[str, ...]:
    """Font files that can draw every piece character (checked glyph by glyph)."""
    from PIL import ImageFont
    needed = "".join(sorted({c for r, b in CHARS.values() for c in r[:1] + b[:1]}))
    found = []
    for d in FONT_DIRS:
        if not d.is_dir():
            continue
        for p in sorted(d.rglob("*")):
            if p.suffix.lower() not in (".ttf", ".ttc", ".otf"):
                continue
            try:
                f = ImageFont.truetype(str(p), 48)
            except OSError:
                continue
            if all(_has_glyph(f, ch) for ch in needed):
                found.append(str(p))
    return tuple(found)


def _has_glyph(font, ch: str) -> bool:
    """A font 'has' a character when it draws it differently from a character it lacks."""
    from PIL import Image, ImageDraw
    def ink(c: str) -> bytes:
        im = Image.new("L", (64, 64), 0)
        ImageDraw.Draw(im).text((4, 4), c, font=font, fill=255)
        return im.tobytes()
    a = ink(ch)
    return any(a) and a != ink("\U000F0000")


def random_style(rng: np.random.Generator, fonts: tuple[str, ...] | None = None) -> DiscStyle:
    fonts = fonts or cjk_fonts()
    if not fonts:
        raise RuntimeError("no CJK font found (install e.g. fonts-arphic-ukai, fonts-wqy-zenhei)")
    disc = str(rng.choice(list(DISCS)))
    dark = disc in ("black", "dark_wood", "brown")
    black_inks = ["white", "white", "black", "green"] if dark else [k for k in BLACK_INKS if k != "white"]
    red_inks = list(RED_INKS) + (["orange", "pink"] if dark else [])
    return DiscStyle(font=str(rng.choice(list(fonts))), disc=disc, red_ink=str(rng.choice(red_inks)),
                     black_ink=str(rng.choice(black_inks)),
                     stroke=str(rng.choice(["printed", "printed", "engraved", "embossed"])),
                     same_chars=bool(rng.random() < 0.25), simplified=bool(rng.random() < 0.35),
                     rings=int(rng.choice([0, 1, 1, 2])), char_scale=float(rng.uniform(0.5, 0.72)),
                     wear=float(rng.choice([0.0, 0.0, rng.uniform(0.05, 0.35)])),
                     thickness=float(rng.uniform(0.0, 0.25)),
                     # written or carved by hand (running-hand and brush sets): every disc's strokes
                     # wobble its own way, heavier or lighter than the typeface
                     warp=float(rng.choice([0.0, rng.uniform(1.0, 3.5)])),
                     weight=int(rng.choice([-1, 0, 0, 1, 2])))


def _char_for(piece: str, red: bool, style: DiscStyle, rng: np.random.Generator) -> str:
    reds, blacks = CHARS[piece.upper()]
    forms = (reds if red else blacks) if not style.same_chars else (blacks if rng.random() < 0.5 else reds)
    if style.simplified:
        simp = [c for c in forms if c in "帅将马车炮"]
        if simp:
            return simp[0]
    return forms[0] if rng.random() < 0.7 else str(rng.choice(list(forms)))


def draw_disc(label: int, style: DiscStyle, rng: np.random.Generator, size: int = 96) -> np.ndarray:
    """One tight disc crop (size x size BGR) of class `label` (1..14) in `style`."""
    from PIL import Image, ImageDraw, ImageFont
    if not 1 <= label < len(CLASSES):
        raise ValueError(f"label must be a piece class 1..{len(CLASSES) - 1}, got {label}")
    letter = CLASSES[label]
    red = letter.isupper()
    face, rim = (np.array(c, np.float32) for c in DISCS[style.disc])
    face = np.clip(face * rng.uniform(0.85, 1.12, 3), 0, 255)
    ink = np.array((RED_INKS[style.red_ink] if red else BLACK_INKS[style.black_ink]), np.float32)
    ink = np.clip(ink * rng.uniform(0.85, 1.15, 3), 0, 255)
    s = size
    r = s * 0.46
    c = s / 2.0
    bg = np.clip(rng.uniform(60, 200, 3), 0, 255)
    img: np.ndarray = np.empty((s, s, 3), np.float32)
    img[:] = bg
    # the disc's side (thickness), seen as a darker crescent below the face
    side = int(round(style.thickness * r))
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    if side:
        m = ((xx - c) ** 2 + (yy - c - side) ** 2) <= r * r
        img[m] = rim * 0.8
    face_mask = ((xx - c) ** 2 + (yy - c) ** 2) <= r * r
    # face with a soft radial shading and some grain (wood) / speckle
    shade = 1.0 - 0.12 * (((xx - c) ** 2 + (yy - c) ** 2) / (r * r))
    grain = 1.0 + (0.06 * np.sin(yy / rng.uniform(1.5, 4.0) + rng.uniform(0, 6) + 0.3 * np.sin(xx / 7.0))
                   if "wood" in style.disc or style.disc == "bamboo" else 0.0)
    img[face_mask] = (face[None, :] * (shade * grain)[face_mask][:, None])
    rim_mask = face_mask & (((xx - c) ** 2 + (yy - c) ** 2) >= (r * 0.93) ** 2)
    img[rim_mask] = rim
    # character (and rings) drawn as a coverage mask
    cov = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(cov)
    for k in range(style.rings):
        rr = r * (0.82 - 0.07 * k)
        d.ellipse([c - rr, c - rr, c + rr, c + rr], outline=255, width=max(1, int(s * 0.018)))
    ch = _char_for(letter, red, style, rng)
    font = ImageFont.truetype(style.font, max(8, int(style.char_scale * 2 * r)))
    box = d.textbbox((0, 0), ch, font=font)
    w, h = box[2] - box[0], box[3] - box[1]
    d.text((c - w / 2 - box[0], c - h / 2 - box[1]), ch, font=font, fill=255)
    a = np.asarray(cov, np.float32) / 255.0
    if style.weight:
        k = np.ones((2 * abs(style.weight) + 1,) * 2, np.uint8)
        a = cv2.dilate(a, k) if style.weight > 0 else cv2.erode(a, k)
    if style.warp > 0:
        # a smooth random displacement field: each written character differs a little
        field = [cv2.GaussianBlur(rng.standard_normal((s, s)).astype(np.float32), (0, 0), s / 10.0)
                 for _ in range(2)]
        field = [f / max(1e-6, float(np.abs(f).max())) * style.warp for f in field]
        gx, gy = np.meshgrid(np.arange(s, dtype=np.float32), np.arange(s, dtype=np.float32))
        a = cv2.remap(a, gx + field[0], gy + field[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    if style.wear > 0:
        worn = cv2.GaussianBlur(rng.random((s, s)).astype(np.float32), (0, 0), 2.0)
        a *= (worn > np.quantile(worn, style.wear)).astype(np.float32)
    a *= face_mask
    if style.stroke == "printed":
        img = img * (1 - a[..., None]) + ink[None, None, :] * a[..., None]
    else:
        # recessed (engraved) or raised (embossed) strokes: light from the top left
        sh = np.roll(np.roll(a, 1, 0), 1, 1)
        hi = np.roll(np.roll(a, -1, 0), -1, 1)
        if style.stroke == "embossed":
            sh, hi = hi, sh
        img = img * (1 - 0.35 * np.clip(sh - a, 0, 1)[..., None])
        img = img + 60 * np.clip(hi - a, 0, 1)[..., None]
        img = img * (1 - a[..., None]) + (ink[None, None, :] * 0.85) * a[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    # the disc's tilt (slightly elliptical) and rotation
    ang = float(rng.uniform(0, 360))
    M = cv2.getRotationMatrix2D((c, c), ang, 1.0)
    img = cv2.warpAffine(img, M, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sq = float(rng.uniform(0.85, 1.0))
    img = cv2.resize(img, (s, max(2, int(s * sq))), interpolation=cv2.INTER_AREA)
    img = cv2.copyMakeBorder(img, 0, s - img.shape[0], 0, 0, cv2.BORDER_REPLICATE)
    return img


def draw_set(n: int, rng: np.random.Generator, per_style: int = 60,
             fonts: tuple[str, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """n tight discs (n, 96, 96, 3) and their classes, `per_style` discs per drawn set style
    (typefaces from `fonts`, default every one found)."""
    discs, labels = [], []
    style = random_style(rng, fonts)
    for i in range(n):
        if i % per_style == 0:
            style = random_style(rng, fonts)
        y = int(rng.integers(1, len(CLASSES)))
        discs.append(draw_disc(y, style, rng))
        labels.append(y)
    return np.stack(discs), np.array(labels, np.int64)
