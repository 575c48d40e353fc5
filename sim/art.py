"""Procedural materials and the top-down world texture (table, board, lines, river text, clutter).

Why procedural: every seed gets a different board and table, so a classifier trained on the
renders cannot memorise one texture. The world texture is drawn once per clip at a canonical
scale (S px per point spacing) and warped to the camera; the lattice is drawn with sub-pixel
anti-aliased lines at exactly (x - X0) * S, (Y1 - y) * S so the truth projects onto it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .fonts import available_fonts, fitted_glyph

# World texture extent in board-plane units and scale.
X0, X1, Y0, Y1 = -9.0, 17.0, -7.0, 16.0
S = 64
TEX_W = int((X1 - X0) * S)
TEX_H = int((Y1 - Y0) * S)
SHIFT = 4  # cv2 drawing sub-pixel bits
ONE = 1 << SHIFT


def to_tex(x: float | np.ndarray, y: float | np.ndarray) -> tuple:
    """Board-plane (x, y) -> world-texture pixel (u, v)."""
    return (np.asarray(x) - X0) * S, (Y1 - np.asarray(y)) * S


def tex_affine() -> np.ndarray:
    """3x3 matrix board plane (x, y, 1) -> texture pixel (u, v, 1)."""
    return np.array([[S, 0, -X0 * S], [0, -S, Y1 * S], [0, 0, 1]], dtype=np.float64)


def fbm(rng: np.random.Generator, h: int, w: int, base: int = 4, octaves: int = 5, persistence: float = 0.5) -> np.ndarray:
    """Fractal value noise in [-1, 1]-ish (float32), made by upsampling random grids."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    cells = base
    for _ in range(octaves):
        gh, gw = max(2, int(cells * h / max(h, w)) + 2), max(2, int(cells * w / max(h, w)) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= persistence
        cells *= 2
    return out / total


def soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a smooth mask done at reduced resolution (large sigmas cost little)."""
    f = max(1, int(sigma // 3))
    if f == 1:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape[:2]
    small = cv2.resize(mask, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _colour(c) -> np.ndarray:
    return np.asarray(c, dtype=np.float32).reshape(1, 1, 3)


def wood(rng: np.random.Generator, h: int, w: int, light: tuple, dark: tuple, ring_scale: float = 18.0,
         angle_deg: float = 0.0, figure: float = 1.0) -> np.ndarray:
    """Wood grain (BGR float32 0..255): long rings perturbed by anisotropic noise, fibres, tone drift.

    Rendered at half resolution (grain is soft) and upsampled, which keeps a clip's setup fast.
    """
    H2, W2 = max(8, h // 2), max(8, w // 2)
    diag = int(math.hypot(H2, W2)) + 4
    # noise stretched along the grain (x): few cells along x, many along y
    n1 = cv2.resize(rng.standard_normal((24, 4)).astype(np.float32), (diag, diag), interpolation=cv2.INTER_CUBIC)
    n2 = cv2.resize(rng.standard_normal((90, 8)).astype(np.float32), (diag, diag), interpolation=cv2.INTER_CUBIC)
    yy = np.arange(diag, dtype=np.float32).reshape(-1, 1) / diag
    rings = yy * ring_scale + figure * (0.9 * n1 + 0.25 * n2)
    t = 0.5 + 0.5 * np.sin(2 * np.pi * rings)
    t = t ** 3
    fibres = cv2.resize(rng.standard_normal((diag, max(8, diag // 40))).astype(np.float32), (diag, diag),
                        interpolation=cv2.INTER_LINEAR)
    t = np.clip(0.6 * t + 0.10 * fibres + 0.12 * n1 + 0.2, 0, 1)
    M = cv2.getRotationMatrix2D((diag / 2, diag / 2), angle_deg, 1.0)
    t = cv2.warpAffine(t, M, (diag, diag), borderMode=cv2.BORDER_REFLECT)
    y0, x0 = (diag - H2) // 2, (diag - W2) // 2
    t = cv2.resize(t[y0:y0 + H2, x0:x0 + W2], (w, h), interpolation=cv2.INTER_LINEAR)
    lo, hi = _colour(light), _colour(dark)
    img = lo + (hi - lo) * t[..., None]
    drift = cv2.resize(rng.standard_normal((3, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    img *= (1 + 0.05 * drift)[..., None]
    return img


def cloth(rng: np.random.Generator, h: int, w: int, colour: tuple, weave: int = 3, strength: float = 10) -> np.ndarray:
    """Woven cloth/felt: a fine weave pattern, fibre noise and large soft wrinkles."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pat = np.sin(xx * np.pi / weave) * np.sin(yy * np.pi / weave)
    fib = rng.standard_normal((h, w)).astype(np.float32)
    fib = cv2.GaussianBlur(fib, (0, 0), 0.8)
    wr = fbm(rng, h, w, base=3, octaves=3)
    img = _colour(colour) * (1 + 0.04 * pat + 0.05 * fib + 0.10 * wr)[..., None]
    return img + strength * 0


def paper(rng: np.random.Generator, h: int, w: int, colour: tuple, grain: float = 0.03) -> np.ndarray:
    n = fbm(rng, h, w, base=6, octaves=5, persistence=0.6)
    speck = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.7)
    return _colour(colour) * (1 + grain * n + 0.015 * speck)[..., None]


def creases(rng: np.random.Generator, h: int, w: int, fold_x: list[float], fold_y: list[float],
            strength: float = 0.06, wrinkles: int = 0) -> np.ndarray:
    """Shading factor (float32 around 1) of fold lines and random wrinkles on a paper/plastic mat."""
    f = np.ones((h, w), np.float32)
    xs = np.arange(w, dtype=np.float32)
    ys = np.arange(h, dtype=np.float32)
    for x in fold_x:
        d = xs - x
        prof = strength * (np.exp(-(d / 6) ** 2) * 1.4 - 0.9 * np.tanh(d / 25) * np.exp(-np.abs(d) / 60))
        f *= (1 + prof)[None, :]
    for y in fold_y:
        d = ys - y
        prof = strength * (np.exp(-(d / 6) ** 2) * 1.4 - 0.9 * np.tanh(d / 25) * np.exp(-np.abs(d) / 60))
        f *= (1 + prof)[:, None]
    for _ in range(wrinkles):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, np.pi)
        L = rng.uniform(60, 300)
        x1, y1 = x0 + L * math.cos(ang), y0 + L * math.sin(ang)
        m = np.zeros((h, w), np.float32)
        cv2.line(m, (int(x0), int(y0)), (int(x1), int(y1)), 1.0, 2, cv2.LINE_AA)
        m = cv2.GaussianBlur(m, (0, 0), 2.5)
        sh = np.roll(m, 3, axis=0)
        f *= 1 + 0.8 * strength * (m - sh) * 3
    return f


@dataclass
class BoardStyle:
    """Everything that makes one board look the way it does (drawn from the seed)."""

    kind: str                 # wood | mat | plastic | cloth | paper
    base: tuple               # BGR
    line: tuple               # BGR line colour
    line_w: float             # line width, point spacings
    border_gap: float         # gap between lattice edge and outer frame line
    frame_w: float            # outer frame line width
    margin: float             # board edge beyond lattice
    river_script: str         # "simp" | "trad"
    river_flip: bool          # 汉界 rotated to face black
    text_font: str
    text_colour: tuple
    numerals: bool
    marks: bool               # cannon/soldier position marks
    fold: str                 # "none" | "river" | "grid"
    table: str                # wood | desk | cloth | stone | tile
    table_colour: tuple
    shadow_strength: float
    thickness: float = 0.0    # board slab thickness (point spacings); 0 for mats, paper, cloth


def _warm(rng: np.random.Generator, v_lo: float, v_hi: float, sat: tuple) -> tuple:
    """A warm (cream / yellow / tan) BGR colour: value and saturation drawn, hue 25-50 degrees."""
    hue = rng.uniform(25, 50)
    s_ = rng.uniform(*sat)
    v = rng.uniform(v_lo, v_hi) * 255
    hsv = np.uint8([[[hue / 2, s_ * 255, v]]])
    return tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def _hsv(h: float, s_: float, v: float) -> tuple:
    """BGR of hue (degrees), saturation and value (0..1)."""
    c = cv2.cvtColor(np.uint8([[[h / 2 % 180, s_ * 255, v * 255]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return tuple(float(x) for x in c)


def _table_colour(rng: np.random.Generator, table: str) -> tuple:
    """Colours of real tables: brown woods, white/grey/beige desks, muted cloths, grey stone."""
    if table == "wood":
        return _hsv(rng.uniform(15, 35), rng.uniform(0.3, 0.65), rng.uniform(0.25, 0.75))
    if table == "desk":
        return _hsv(rng.uniform(20, 220), rng.uniform(0.0, 0.12), rng.uniform(0.55, 0.92))
    if table == "cloth":
        k = rng.random()
        if k < 0.3:
            return _hsv(rng.uniform(100, 160), rng.uniform(0.3, 0.6), rng.uniform(0.2, 0.45))   # green felt
        if k < 0.5:
            return _hsv(rng.uniform(200, 235), rng.uniform(0.3, 0.6), rng.uniform(0.2, 0.45))   # navy
        if k < 0.7:
            return _hsv(rng.uniform(0, 15), rng.uniform(0.45, 0.75), rng.uniform(0.35, 0.6))    # red cloth
        return _hsv(rng.uniform(20, 50), rng.uniform(0.05, 0.3), rng.uniform(0.45, 0.85))      # beige / linen
    if table == "stone":
        return _hsv(rng.uniform(20, 220), rng.uniform(0.0, 0.08), rng.uniform(0.35, 0.65))
    return _hsv(rng.uniform(20, 60), rng.uniform(0.02, 0.12), rng.uniform(0.6, 0.9))


def draw_style(kind: str, rng: np.random.Generator) -> BoardStyle:
    fonts = available_fonts("楚河汉漢界一二三四五六七八九123456789")
    if kind == "wood":
        base = _warm(rng, 0.55, 0.85, sat=(0.35, 0.6))
        line = (20, 20, 25) if rng.random() < 0.6 else (25, 35, 90)
    elif kind == "plastic":
        base = _warm(rng, 0.78, 0.93, sat=(0.25, 0.5))
        line = tuple(rng.choice([(40, 40, 170), (25, 25, 30), (30, 60, 120)]).tolist())
    elif kind == "cloth":
        choices = [(210, 225, 235), (120, 190, 225), (95, 130, 70), (150, 115, 60), (200, 205, 210)]
        base = tuple(float(c) for c in choices[int(rng.choice(len(choices), p=[0.35, 0.25, 0.1, 0.1, 0.2]))])
        base = tuple(float(c) for c in np.clip(np.asarray(base) * rng.uniform(0.9, 1.08, 3), 0, 255))
        line = (30, 30, 160) if sum(base) > 450 else (220, 225, 230)
        if rng.random() < 0.3:
            line = (25, 25, 30)
    elif kind == "paper":
        base = _warm(rng, 0.86, 0.97, sat=(0.03, 0.18))
        line = tuple(rng.choice([(40, 40, 180), (30, 30, 35), (40, 70, 120)]).tolist())
    else:  # mat
        base = _warm(rng, 0.78, 0.96, sat=(0.05, 0.35))
        line = tuple(rng.choice([(50, 50, 190), (30, 30, 35), (35, 70, 130), (60, 40, 140)]).tolist())
    text_colour = line if rng.random() < 0.7 else tuple(rng.choice([(40, 40, 170), (25, 25, 25)]).tolist())
    tables = ["wood", "desk", "cloth", "stone", "tile"]
    table = tables[int(rng.choice(5, p=[0.35, 0.2, 0.2, 0.12, 0.13]))]
    tcol = _table_colour(rng, table)
    return BoardStyle(
        kind=kind, base=base, line=tuple(float(c) for c in line),
        line_w=float(rng.uniform(0.025, 0.055)), border_gap=float(rng.uniform(0.12, 0.3)),
        frame_w=float(rng.uniform(0.04, 0.09)),
        margin=float(rng.uniform(0.55, 1.1)), river_script="simp" if rng.random() < 0.5 else "trad",
        river_flip=bool(rng.random() < 0.4), text_font=fonts[rng.integers(len(fonts))],
        text_colour=tuple(float(c) for c in text_colour), numerals=bool(rng.random() < 0.55),
        marks=bool(rng.random() < 0.85), fold={"wood": "river", "plastic": "river"}.get(kind, "grid")
        if rng.random() < 0.7 else "none",
        table=table, table_colour=tuple(float(c) for c in tcol), shadow_strength=float(rng.uniform(0.25, 0.55)),
        thickness={"wood": float(rng.uniform(0.15, 0.5)), "plastic": float(rng.uniform(0.03, 0.1))}.get(kind, 0.0),
    )


def _table_texture(style: BoardStyle, rng: np.random.Generator) -> np.ndarray:
    """The table around the board, drawn at half resolution (it is never looked at closely)."""
    img = _table_half(style, rng)
    return cv2.resize(img, (TEX_W, TEX_H), interpolation=cv2.INTER_LINEAR)


def _table_half(style: BoardStyle, rng: np.random.Generator) -> np.ndarray:
    h, w = TEX_H // 2, TEX_W // 2
    S = globals()["S"] / 2  # noqa: N806 - pixels per point spacing at this resolution
    c = style.table_colour
    if style.table == "wood":
        dark = tuple(np.asarray(c) * 0.6)
        img = wood(rng, h, w, c, dark, ring_scale=rng.uniform(10, 30), angle_deg=rng.uniform(0, 180),
                   figure=rng.uniform(0.25, 0.6))
        # plank seams
        step = rng.uniform(5, 9) * S
        off = rng.uniform(0, step)
        ang = rng.uniform(0, 180)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        d = (xx * math.cos(math.radians(ang)) + yy * math.sin(math.radians(ang)) + off) % step
        img *= (1 - 0.35 * np.exp(-(d / 1.2) ** 2))[..., None]
        return img
    if style.table == "cloth":
        img = cloth(rng, h, w, c, weave=int(rng.integers(2, 5)))
        if rng.random() < 0.5:  # checked tablecloth
            sq = rng.uniform(1.5, 3.5) * S
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            bx = ((xx // sq) % 2).astype(np.float32)
            by = ((yy // sq) % 2).astype(np.float32)
            white = _colour((235, 238, 240))
            k = (0.5 * (bx + by))[..., None]  # gingham: white, half-tone, full colour
            img = img * k + white * (1 - k) * (img / _colour(c))
        return img
    if style.table == "tile":
        img = paper(rng, h, w, c, grain=0.05)
        sq = rng.uniform(4, 8) * S
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = np.minimum(xx % sq, yy % sq)
        img *= (1 - 0.4 * np.exp(-(g / 1.5) ** 2))[..., None]
        return img
    if style.table == "stone":
        n = fbm(rng, h, w, base=8, octaves=6, persistence=0.65)
        sp = rng.standard_normal((h, w)).astype(np.float32)
        return _colour(c) * (1 + 0.12 * n + 0.06 * sp)[..., None]
    return paper(rng, h, w, c, grain=0.04)


def _line(img, p0, p1, colour, width_px):
    u0, v0 = to_tex(*p0)
    u1, v1 = to_tex(*p1)
    cv2.line(img, (int(round(u0 * ONE)), int(round(v0 * ONE))), (int(round(u1 * ONE)), int(round(v1 * ONE))),
             colour, max(1, int(round(width_px))), cv2.LINE_AA, SHIFT)


def _paste_glyph(img: np.ndarray, mask: np.ndarray, cx: float, cy: float, colour, alpha: float = 1.0) -> None:
    h, w = mask.shape
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    x1, y1 = x0 + w, y0 + h
    if x0 < 0 or y0 < 0 or x1 > img.shape[1] or y1 > img.shape[0]:
        return
    roi = img[y0:y1, x0:x1]
    if img.ndim == 2:  # an ink mask (uint8)
        roi[:] = np.maximum(roi, (mask * alpha * 255).astype(np.uint8))
        return
    a = (mask * alpha)[..., None]
    roi[:] = roi * (1 - a) + _colour(colour) * a


def _marks(img, x, y, colour, w_px, style_gap, arm):
    """The little corner brackets printed around cannon and soldier points."""
    for sx in (-1, 1):
        if not 0 <= x + sx * 0.5 <= 8:
            continue
        for sy in (-1, 1):
            px, py = x + sx * style_gap, y + sy * style_gap
            _line(img, (px, py), (px + sx * arm, py), colour, w_px)
            _line(img, (px, py), (px, py + sy * arm), colour, w_px)


def render_world(style: BoardStyle, rng: np.random.Generator, table_out: list | None = None) -> np.ndarray:
    """The world texture (TEX_H, TEX_W, 3) uint8: table, board with lattice, text, clutter.

    table_out, when given, receives the bare table texture (no board, no clutter): the renderer
    tiles it for views that reach beyond the world texture.
    """
    img = _table_texture(style, rng)
    if table_out is not None:
        table_out.append(np.clip(img, 0, 255).astype(np.uint8))
    _clutter(img, rng, style)  # before the board: objects may be partly under it, never over it
    m = style.margin
    bx0, by0 = to_tex(-m, 10 - 1 + m)
    bx1, by1 = to_tex(8 + m, -m)
    bx0, by0, bx1, by1 = int(bx0), int(by0), int(bx1), int(by1)
    bh, bw = by1 - by0, bx1 - bx0
    # soft contact shadow of the board on the table
    sh = np.zeros((TEX_H, TEX_W), np.float32)
    off = int(0.12 * S)
    cv2.rectangle(sh, (bx0 + off, by0 + off), (bx1 + off, by1 + off), 1.0, -1)
    sh = soft(sh, 0.25 * S)
    img *= (1 - style.shadow_strength * sh)[..., None]

    if style.kind == "wood":
        light = style.base
        dark = tuple(np.asarray(style.base) * rng.uniform(0.6, 0.8))
        surf = wood(rng, bh, bw, light, dark, ring_scale=rng.uniform(6, 20),
                    angle_deg=float(rng.choice([0, 90]) + rng.normal(0, 2)), figure=rng.uniform(0.3, 0.9))
    elif style.kind == "cloth":
        surf = cloth(rng, bh, bw, style.base, weave=int(rng.integers(2, 4)))
    elif style.kind == "paper":
        surf = paper(rng, bh, bw, style.base, grain=0.05)
    elif style.kind == "plastic":
        surf = paper(rng, bh, bw, style.base, grain=0.02)
        surf *= (1 + 0.05 * fbm(rng, bh, bw, base=2, octaves=2))[..., None]
    else:
        surf = paper(rng, bh, bw, style.base, grain=0.03)
    img[by0:by1, bx0:bx1] = surf

    lw = style.line_w * S
    col = 255
    ink = np.zeros((TEX_H, TEX_W), np.uint8)      # lattice, frame, marks
    tink = np.zeros((TEX_H, TEX_W), np.uint8)     # river text and numerals
    # lattice: ranks full width; files split at the river except the edge files
    for r in range(10):
        _line(ink, (0, r), (8, r), col, lw)
    for f in range(9):
        if f in (0, 8):
            _line(ink, (f, 0), (f, 9), col, lw)
        else:
            _line(ink, (f, 0), (f, 4), col, lw)
            _line(ink, (f, 5), (f, 9), col, lw)
    for (a, b) in (((3, 0), (5, 2)), ((5, 0), (3, 2)), ((3, 7), (5, 9)), ((5, 7), (3, 9))):
        _line(ink, a, b, col, lw)
    g = style.border_gap
    fw = style.frame_w * S
    for (a, b) in (((-g, -g), (8 + g, -g)), ((8 + g, -g), (8 + g, 9 + g)), ((8 + g, 9 + g), (-g, 9 + g)), ((-g, 9 + g), (-g, -g))):
        _line(ink, a, b, col, fw)
    if style.marks:
        gap, arm = 0.08, 0.18
        pts = [(1, 2), (7, 2), (1, 7), (7, 7)] + [(f, 3) for f in range(0, 9, 2)] + [(f, 6) for f in range(0, 9, 2)]
        for (x, y) in pts:
            _marks(ink, x, y, col, max(1.0, lw * 0.8), gap, arm)

    # river text
    tc = style.text_colour
    box = int(0.8 * S)
    left = "楚河"
    right = "汉界" if style.river_script == "simp" else "漢界"
    spacing = 1.0 if rng.random() < 0.5 else 1.4
    for i, ch in enumerate(left):
        gm = fitted_glyph(ch, style.text_font, box, fill=0.95)
        u, v = to_tex(1.5 + i * spacing, 4.5)
        gm = np.rot90(gm, 2) if (style.river_flip and rng.random() < 0.0) else gm
        _paste_glyph(tink, gm, float(u), float(v), tc, 0.9)
    for i, ch in enumerate(right):
        gm = fitted_glyph(ch, style.text_font, box, fill=0.95)
        x = 6.5 - (len(right) - 1 - i) * spacing
        if style.river_flip:
            gm = np.rot90(gm, 2)
            x = 6.5 - i * spacing
        u, v = to_tex(x, 4.5)
        _paste_glyph(tink, gm, float(u), float(v), tc, 0.9)
    if style.numerals:
        nb = int(0.42 * S)
        red_nums = "九八七六五四三二一"
        for f in range(9):
            gm = fitted_glyph(red_nums[f], style.text_font, nb, fill=0.9)
            u, v = to_tex(f, -g - 0.35)
            _paste_glyph(tink, gm, float(u), float(v), tc, 0.85)
            gm = np.rot90(fitted_glyph(str(f + 1), style.text_font, nb, fill=0.9), 2)
            u, v = to_tex(f, 9 + g + 0.35)
            _paste_glyph(tink, gm, float(u), float(v), tc, 0.85)

    # ink is translucent: on wood the grain shows through, on print the density varies a little
    through = 0.55 if style.kind == "wood" else 0.2
    dens = (0.88 + 0.12 * fbm(rng, TEX_H // 4, TEX_W // 4, base=6, octaves=3))
    dens = cv2.resize(dens, (TEX_W, TEX_H), interpolation=cv2.INTER_LINEAR)
    for mask, colour in ((ink, style.line), (tink, style.text_colour)):
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            continue
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        a = (mask[y0:y1, x0:x1].astype(np.float32) / 255.0 * dens[y0:y1, x0:x1])[..., None]
        roi = img[y0:y1, x0:x1]
        c = _colour(colour)
        target = through * roi * (c / 255.0) * 1.6 + (1 - through) * c
        img[y0:y1, x0:x1] = roi * (1 - a) + np.minimum(target, 255) * a

    # board surface finish: folds / creases, edge darkening
    shade = np.ones((bh, bw), np.float32)
    if style.fold == "river":
        _, vr = to_tex(0, 4.5)
        shade *= creases(rng, bh, bw, [], [float(vr - by0)], strength=0.12)
    elif style.fold == "grid":
        nx, ny = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        fx = [bw * (i + 1) / (nx + 1) + rng.normal(0, 3) for i in range(nx)]
        fy = [bh * (i + 1) / (ny + 1) + rng.normal(0, 3) for i in range(ny)]
        shade *= creases(rng, bh, bw, fx, fy, strength=0.07 if style.kind != "cloth" else 0.04,
                         wrinkles=int(rng.integers(0, 6)) if style.kind in ("paper", "mat") else 0)
    e = np.minimum.reduce([np.arange(bw)[None, :] + 0 * np.arange(bh)[:, None],
                           (bw - 1 - np.arange(bw))[None, :] + 0 * np.arange(bh)[:, None],
                           np.arange(bh)[:, None] + 0 * np.arange(bw)[None, :],
                           (bh - 1 - np.arange(bh))[:, None] + 0 * np.arange(bw)[None, :]]).astype(np.float32)
    edge = 0.25 if style.kind == "wood" else 0.12
    shade *= 1 - edge * np.exp(-e / (0.06 * S))
    img[by0:by1, bx0:bx1] *= shade[..., None]
    if style.kind == "wood":  # bevelled edge band
        cv2.rectangle(img, (bx0, by0), (bx1 - 1, by1 - 1), tuple(np.asarray(style.base) * 0.45), 2, cv2.LINE_AA)

    return np.clip(img, 0, 255).astype(np.uint8)


def _clutter(img: np.ndarray, rng: np.random.Generator, style: BoardStyle) -> None:
    """A few everyday objects on the table around the board: cup, phone, paper, pen, box lid."""
    m = style.margin
    if rng.random() < 0.25:
        _chess_clock(img, rng, style)
    n = int(rng.integers(0, 5))
    for _ in range(n):
        kind = rng.choice(["cup", "phone", "sheet", "pen", "box"])
        for _try in range(10):
            x = rng.uniform(X0 + 2, X1 - 2)
            y = rng.uniform(Y0 + 2, Y1 - 2)
            if not (-m - 1.8 < x < 8 + m + 1.8 and -m - 1.8 < y < 9 + m + 1.8):
                break
        else:
            continue
        u, v = to_tex(x, y)
        u, v = int(u), int(v)
        col = _hsv(rng.uniform(0, 360), rng.uniform(0.05, 0.55), rng.uniform(0.3, 0.9))
        shadow = np.zeros(img.shape[:2], np.float32)
        if kind == "cup":
            r = int(rng.uniform(1.0, 1.6) * S)
            cv2.circle(shadow, (u + 12, v + 12), r, 1.0, -1, cv2.LINE_AA)
            img *= (1 - 0.4 * soft(shadow, 12))[..., None]
            cv2.circle(img, (u, v), r, col, -1, cv2.LINE_AA)
            cv2.circle(img, (u, v), int(r * 0.82), tuple(0.55 * np.asarray(col)), -1, cv2.LINE_AA)
            cv2.circle(img, (u, v), int(r * 0.78), (30, 50, 70) if rng.random() < 0.6 else (200, 210, 215), -1, cv2.LINE_AA)
        elif kind in ("phone", "box", "sheet"):
            wdt, hgt = {"phone": (1.9, 4.0), "box": (3.0, 4.5), "sheet": (6.0, 8.5)}[kind]
            ang = rng.uniform(0, 180)
            rect = ((u, v), (wdt * S, hgt * S), ang)
            pts = cv2.boxPoints(rect).astype(np.int32)
            if kind != "sheet":
                cv2.fillConvexPoly(shadow, pts + 10, 1.0, cv2.LINE_AA)
                img *= (1 - 0.45 * soft(shadow, 10))[..., None]
            c = (20, 20, 22) if kind == "phone" else ((235, 238, 240) if kind == "sheet" else col)
            cv2.fillConvexPoly(img, pts, c, cv2.LINE_AA)
            if kind == "phone":
                inner = cv2.boxPoints(((u, v), (wdt * S * 0.88, hgt * S * 0.9), ang)).astype(np.int32)
                cv2.fillConvexPoly(img, inner, (60, 45, 35), cv2.LINE_AA)
            if kind == "sheet":  # some handwritten-looking scribble lines (a score sheet)
                for k in range(12):
                    a = math.radians(ang)
                    off = (k - 6) * 0.6 * S
                    cx, cy = u - off * math.sin(a), v + off * math.cos(a)
                    dx, dy = 2.2 * S * math.cos(a), 2.2 * S * math.sin(a)
                    cv2.line(img, (int(cx - dx), int(cy - dy)), (int(cx + dx), int(cy + dy)), (120, 90, 60), 1, cv2.LINE_AA)
        else:  # pen
            ang = rng.uniform(0, np.pi)
            L = 4.5 * S
            p0 = (int(u - L / 2 * math.cos(ang)), int(v - L / 2 * math.sin(ang)))
            p1 = (int(u + L / 2 * math.cos(ang)), int(v + L / 2 * math.sin(ang)))
            cv2.line(img, (p0[0] + 6, p0[1] + 6), (p1[0] + 6, p1[1] + 6), tuple(0.6 * np.asarray(style.table_colour)), 9, cv2.LINE_AA)
            cv2.line(img, p0, p1, col, 8, cv2.LINE_AA)


def _chess_clock(img: np.ndarray, rng: np.random.Generator, style: BoardStyle) -> None:
    """A game clock beside the board at the river, as at a tournament table (seen from above)."""
    side = -1 if rng.random() < 0.5 else 1
    x = (8 + style.margin + rng.uniform(2.0, 3.0)) if side > 0 else (-style.margin - rng.uniform(2.0, 3.0))
    y = 4.5 + rng.normal(0, 0.5)
    u, v = to_tex(x, y)
    ang = 90 + rng.normal(0, 6)
    L, Wd = rng.uniform(4.2, 5.5) * S, rng.uniform(1.8, 2.4) * S
    body = (rng.uniform(15, 40),) * 3 if rng.random() < 0.6 else _hsv(rng.uniform(0, 360), 0.4, 0.5)
    shadow = np.zeros(img.shape[:2], np.float32)
    pts = cv2.boxPoints(((u, v), (L, Wd), ang)).astype(np.int32)
    cv2.fillConvexPoly(shadow, pts + 12, 1.0, cv2.LINE_AA)
    img *= (1 - 0.45 * soft(shadow, 10))[..., None]
    cv2.fillConvexPoly(img, pts, tuple(float(c) for c in body), cv2.LINE_AA)
    a = math.radians(ang)
    ax, ay = math.cos(a), math.sin(a)        # along the clock
    for k in (-1, 1):
        cx, cy = u + k * 0.25 * L * ax, v + k * 0.25 * L * ay
        disp = cv2.boxPoints(((cx, cy), (0.36 * L, 0.42 * Wd), ang)).astype(np.int32)
        cv2.fillConvexPoly(img, disp, (150, 175, 160), cv2.LINE_AA)      # LCD
        seg = cv2.boxPoints(((cx, cy), (0.28 * L, 0.18 * Wd), ang)).astype(np.int32)
        cv2.fillConvexPoly(img, seg, (40, 50, 45), cv2.LINE_AA)          # digits, roughly
        bx, by = cx - 0.38 * Wd * (-ay), cy - 0.38 * Wd * ax
        btn = (60, 60, 65) if rng.random() < 0.6 else ((40, 90, 200) if k < 0 else (50, 50, 50))
        cv2.circle(img, (int(bx), int(by)), int(0.11 * L), tuple(float(c) * 0.6 for c in btn), -1, cv2.LINE_AA)
        cv2.circle(img, (int(bx) - 2, int(by) - 2), int(0.095 * L), btn, -1, cv2.LINE_AA)
