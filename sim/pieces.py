"""Xiangqi piece sets: face sprites (disc, rim, ring, character) and their projection as cylinders.

Why sprites + per-piece perspective warps: a piece is a short cylinder; seen at a tilt its side
shows and its top face sits above the point. Each face is drawn once per clip (per piece letter)
at a canonical size, rotated per piece, shaded for the light (shading does not rotate with the
piece), then warped onto the top-face plane z = h through the real camera (distortion included,
by mapping four projected points) and painted far-to-near over its side and soft shadow.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .art import fbm, wood
from .camera import Camera
from .fonts import available_fonts, fitted_glyph

P = 112                 # sprite size (px)
PC = (P - 1) / 2.0      # sprite centre
PR = P / 2.0 - 2.0      # disc radius in the sprite (px)

CHARS_SIMPLE = {"K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵",
                "k": "将", "a": "士", "b": "象", "n": "马", "r": "车", "c": "炮", "p": "卒"}
CHARS_TRAD = {"K": "帥", "A": "仕", "B": "相", "N": "傌", "R": "俥", "C": "炮", "P": "兵",
              "k": "將", "a": "士", "b": "象", "n": "馬", "r": "車", "c": "包", "p": "卒"}


def _draw_chars(rng: np.random.Generator) -> dict:
    """Which characters this set carries: traditional or simplified, with the usual variants
    (black cannon 包 / 砲 / 炮; red horse 傌 or 馬 and red chariot 俥 or 車 on traditional sets)."""
    if rng.random() < 0.55:
        chars = dict(CHARS_TRAD)
        chars["c"] = "包" if rng.random() < 0.6 else "砲"
        if rng.random() < 0.3:
            chars["N"], chars["R"] = "馬", "車"
        if rng.random() < 0.2:
            chars["K"] = "帅"
    else:
        chars = dict(CHARS_SIMPLE)
        r = rng.random()
        chars["c"] = "炮" if r < 0.6 else ("砲" if r < 0.85 else "包")
        if rng.random() < 0.25:
            chars["k"] = "將"
    return chars


@dataclass
class PieceStyle:
    kind: str              # wood | plastic | white | bamboo
    face: tuple            # BGR of the face
    side: tuple            # BGR of the cylinder side
    red_ink: tuple
    black_ink: tuple
    font: str
    chars: dict
    radius: float          # disc radius, point spacings
    height: float          # disc thickness, point spacings
    ring: float            # ring radius / disc radius (0 = no ring)
    ring_w: float          # ring width px (sprite)
    double_ring: bool
    glyph_fill: float
    weight: int
    engraved: bool
    gloss: float
    coloured_face: bool    # face tinted by side (some sets: red/black discs)


def draw_piece_style(rng: np.random.Generator, kind: str | None = None) -> PieceStyle:
    kinds = ["wood", "plastic", "white", "bamboo"]
    kind = kind or kinds[int(rng.choice(4, p=[0.35, 0.25, 0.3, 0.1]))]
    if kind == "wood":
        hue = rng.uniform(20, 35)
        face = tuple(float(c) for c in cv2.cvtColor(np.uint8([[[hue / 2, rng.uniform(90, 150), rng.uniform(170, 230)]]]),
                                                      cv2.COLOR_HSV2BGR)[0, 0])
        side = tuple(0.8 * np.asarray(face))
    elif kind == "bamboo":
        face = tuple(rng.uniform([110, 190, 215], [150, 215, 235]))
        side = tuple(0.85 * np.asarray(face))
    elif kind == "plastic":
        face = tuple(rng.uniform([195, 220, 230], [225, 240, 250]))
        side = tuple(rng.uniform([170, 200, 210], [215, 232, 242]))
    else:
        face = tuple(rng.uniform([225, 228, 228], [250, 252, 252]))
        side = tuple(np.asarray(face) * rng.uniform(0.88, 0.96))
    red = tuple(rng.uniform([25, 20, 150], [60, 50, 215]))
    bl = rng.random()
    if bl < 0.55:
        black = tuple(rng.uniform([15, 15, 15], [45, 45, 45]))
    elif bl < 0.8:
        black = tuple(rng.uniform([90, 40, 15], [150, 70, 35]))   # blue-ish
    else:
        black = tuple(rng.uniform([40, 65, 15], [80, 105, 40]))   # dark green
    chars = _draw_chars(rng)
    fonts = available_fonts("".join(chars.values()))
    if not fonts:
        raise RuntimeError("no shipped font covers the piece characters; run tools/subset_fonts.py")
    return PieceStyle(
        kind=kind, face=tuple(float(c) for c in face), side=tuple(float(c) for c in side),
        red_ink=tuple(float(c) for c in red), black_ink=tuple(float(c) for c in black),
        font=fonts[int(rng.integers(len(fonts)))], chars=chars,
        radius=float(rng.uniform(0.38, 0.46)), height=float(rng.uniform(0.18, 0.36)),
        ring=float(rng.uniform(0.74, 0.88)) if rng.random() < 0.9 else 0.0, ring_w=float(rng.uniform(1.5, 4.5)),
        double_ring=bool(rng.random() < 0.2), glyph_fill=float(rng.uniform(0.5, 0.66)),
        weight=int(rng.choice([-1, 0, 0, 1, 2])), engraved=kind in ("wood", "bamboo") and rng.random() < 0.8,
        gloss=float(rng.uniform(0.15, 0.5) if kind in ("plastic", "white") else rng.uniform(0.02, 0.15)),
        coloured_face=False,
    )


def _disc_alpha() -> np.ndarray:
    yy, xx = np.mgrid[0:P, 0:P].astype(np.float32)
    d = np.sqrt((xx - PC) ** 2 + (yy - PC) ** 2)
    return np.clip(PR - d + 0.5, 0, 1)


_ALPHA = _disc_alpha()
_YY, _XX = np.mgrid[0:P, 0:P].astype(np.float32)
_DIST = np.sqrt((_XX - PC) ** 2 + (_YY - PC) ** 2) / PR


def face_sprite(letter: str, style: PieceStyle, rng: np.random.Generator) -> np.ndarray:
    """Unshaded, unrotated face (P, P, 3) float32 BGR of one piece, character upright."""
    if style.kind in ("wood", "bamboo"):
        base = wood(rng, P, P, style.face, tuple(0.8 * np.asarray(style.face)), ring_scale=rng.uniform(3, 7),
                    angle_deg=rng.uniform(0, 180), figure=0.5)
    else:
        base = np.ones((P, P, 3), np.float32) * np.asarray(style.face, np.float32)
        base *= (1 + 0.015 * fbm(rng, P, P, base=3, octaves=3))[..., None]
    ink = np.asarray(style.red_ink if letter.isupper() else style.black_ink, np.float32)
    if style.ring > 0:
        ring = np.clip(style.ring_w / 2 - np.abs(_DIST * PR - style.ring * PR) + 0.5, 0, 1)
        if style.double_ring:
            ring = np.maximum(ring, np.clip(style.ring_w / 3 - np.abs(_DIST * PR - (style.ring - 0.08) * PR) + 0.5, 0, 1))
        if style.engraved:
            base *= (1 - 0.25 * np.roll(ring, 1, axis=0))[..., None]
        base = base * (1 - ring[..., None]) + ink * ring[..., None]
    char = style.chars[letter]
    g = fitted_glyph(char, style.font, P, fill=style.glyph_fill, weight=style.weight)
    if style.engraved:
        groove = cv2.GaussianBlur(g, (0, 0), 1.2)
        base *= (1 - 0.35 * np.roll(np.roll(groove, 1, axis=0), 1, axis=1))[..., None]
    # ink is never perfectly even
    gi = g * (0.9 + 0.1 * fbm(rng, P, P, base=6, octaves=2))
    gi = np.clip(gi, 0, 1)
    base = base * (1 - gi[..., None]) + ink * gi[..., None]
    return base


def shading_map(style: PieceStyle, light_dir: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(multiplicative, additive) shading of a face for a light coming from light_dir (image-free).

    The rim is rounded: its normal tilts outward, so the side facing the light brightens and the
    far side darkens; plastic sets get a soft specular spot.
    """
    lx, ly = float(light_dir[0]), float(light_dir[1])
    nx = (_XX - PC) / PR
    ny = -(_YY - PC) / PR
    bevel = np.clip((_DIST - 0.86) / 0.14, 0, 1) ** 1.5
    lam = 1 + 0.45 * bevel * (nx * lx + ny * ly) - 0.18 * bevel
    dome = 1 - 0.05 * _DIST ** 2
    mul = (lam * dome).astype(np.float32)
    sx, sy = PC + 0.45 * PR * lx, PC - 0.45 * PR * ly
    spec = np.exp(-(((_XX - sx) ** 2 + (_YY - sy) ** 2) / (2 * (0.28 * PR) ** 2))) * style.gloss * 70
    spec += bevel * np.clip(nx * lx + ny * ly, 0, 1) * style.gloss * 60
    return mul, spec.astype(np.float32)


def rotated_face(base: np.ndarray, rot_deg: float, mul: np.ndarray, add: np.ndarray) -> np.ndarray:
    """Rotate the face (CCW seen from above) and shade it: (P, P, 4) uint8 BGRA."""
    M = cv2.getRotationMatrix2D((PC, PC), rot_deg, 1.0)
    r = cv2.warpAffine(base, M, (P, P), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    r = r * mul[..., None] + add[..., None]
    out = np.empty((P, P, 4), np.uint8)
    out[..., :3] = np.clip(r, 0, 255)
    out[..., 3] = (_ALPHA * 255).astype(np.uint8)
    return out


_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * np.pi, 28, endpoint=False)),
                    np.sin(np.linspace(0, 2 * np.pi, 28, endpoint=False))], axis=-1)


def draw_piece(img: np.ndarray, cam: Camera, x: float, y: float, face: np.ndarray, style: PieceStyle,
               z0: float = 0.0) -> tuple[int, int, int, int] | None:
    """Paint one disc (side then face) whose base centre is at board-plane (x, y), bottom at z0."""
    r, h = style.radius, style.height
    circ = _CIRCLE * r + np.array([x, y])
    bot = np.concatenate([circ, np.full((len(circ), 1), z0)], axis=1)
    top = np.concatenate([circ, np.full((len(circ), 1), z0 + h)], axis=1)
    pb = cam.project_fast(bot)
    pt = cam.project_fast(top)
    allp = np.vstack([pb, pt])
    H, W = img.shape[:2]
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 2
    if x1 < 0 or y1 < 0 or x0 >= W or y0 >= H:
        return None
    hull = cv2.convexHull(allp.astype(np.float32)).reshape(-1, 2)
    side_col = np.asarray(style.side, np.float64)
    cv2.fillPoly(img, [np.round(hull * 16).astype(np.int32)], tuple(float(c) for c in side_col * 0.82), cv2.LINE_AA, 4)
    # lighter band just under the rim, darker toward the table: a hint of the rounded edge
    mid = np.concatenate([circ, np.full((len(circ), 1), z0 + h * 0.55)], axis=1)
    pm = cam.project_fast(mid)
    hull2 = cv2.convexHull(np.vstack([pm, pt]).astype(np.float32)).reshape(-1, 2)
    cv2.fillPoly(img, [np.round(hull2 * 16).astype(np.int32)], tuple(float(c) for c in side_col), cv2.LINE_AA, 4)
    # face: sprite corners -> top-face plane square
    sq = np.array([[x - r * (PC + 0.5) / PR, y + r * (PC + 0.5) / PR], [x + r * (PC + 0.5) / PR, y + r * (PC + 0.5) / PR],
                   [x + r * (PC + 0.5) / PR, y - r * (PC + 0.5) / PR], [x - r * (PC + 0.5) / PR, y - r * (PC + 0.5) / PR]])
    dst = cam.project_fast(np.concatenate([sq, np.full((4, 1), z0 + h)], axis=1)).astype(np.float32)
    src = np.array([[-0.5, -0.5], [P - 0.5, -0.5], [P - 0.5, P - 0.5], [-0.5, P - 0.5]], np.float32)
    fx0, fy0 = np.floor(pt.min(axis=0)).astype(int) - 2
    fx1, fy1 = np.ceil(pt.max(axis=0)).astype(int) + 2
    fx0, fy0 = max(fx0, 0), max(fy0, 0)
    fx1, fy1 = min(fx1, W), min(fy1, H)
    if fx1 <= fx0 or fy1 <= fy0:
        return None
    Hm = cv2.getPerspectiveTransform(src, dst - np.array([fx0, fy0], np.float32))
    warped = cv2.warpPerspective(face, Hm, (fx1 - fx0, fy1 - fy0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) * (1 / 255.0)
    roi = img[fy0:fy1, fx0:fx1]
    roi[:] = (roi * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    return int(max(x0, 0)), int(max(y0, 0)), int(min(x1, W)), int(min(y1, H))


def shadow_polygon(cam: Camera, x: float, y: float, style: PieceStyle, light_dir3: np.ndarray, z0: float = 0.0) -> np.ndarray:
    """Image polygon of the piece's cast shadow on the board (top rim projected along the light)."""
    r, h = style.radius * 1.04, style.height
    circ = _CIRCLE * r + np.array([x, y])
    lz = max(light_dir3[2], 0.2)
    off = np.array([-light_dir3[0], -light_dir3[1]]) * (z0 + h) / lz
    pts = np.vstack([circ, circ + off])
    pts3 = np.concatenate([pts, np.zeros((len(pts), 1))], axis=1)
    p = cam.project_fast(pts3)
    return cv2.convexHull(p.astype(np.float32)).reshape(-1, 2)
