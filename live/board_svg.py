"""The board diagram as SVG, drawn by us: one drawing for the live page, the overlay and the review.

Pure (a FEN in, SVG text out) so the server, the review writer and the tests share it and a
position always looks the same wherever it is shown. Inside a page (the live page, the review)
the characters are text set in the CJK subset font the page loads (live/static/xq-ui.woff,
family `XQ UI`). An SVG shown as an image (`<img src=board.svg>`: the hall's thumbnails, the
set-up check) cannot use the page's fonts and a bare machine has no Chinese font of its own, so
`glyphs="outline"` draws every character as a path instead, from the outlines cut from the same
font (live/static/xq-board-glyphs.json, made by live/make_font.py): the SVG then needs no font.
"""
from __future__ import annotations

import functools
import html
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rules import START_FEN

FONT_FAMILY = "XQ UI"
GLYPHS_FILE = Path(__file__).resolve().parent / "static" / "xq-board-glyphs.json"
GLYPH_UPM = 1000                 # the outlines' em, in their own units
Glyphs = Literal["text", "outline"]

PIECE_CHARS: dict[str, str] = {
    "K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵",
    "k": "将", "a": "士", "b": "象", "n": "马", "r": "车", "c": "炮", "p": "卒",
}
RED_FILE_DIGITS = "九八七六五四三二一"     # red's files a..i as red counts them (right to left)
BLACK_FILE_DIGITS = "123456789"            # black's files a..i as black counts them
RIVER_TEXT = ("楚 河", "汉 界")


def board_chars() -> str:
    """Every character a diagram can draw (the outlines file must hold them all)."""
    text = "".join(PIECE_CHARS.values()) + "".join(RIVER_TEXT) + RED_FILE_DIGITS + BLACK_FILE_DIGITS
    return "".join(sorted(set(text) - {" "}))


@functools.lru_cache(maxsize=1)
def glyph_outlines() -> dict[str, Any]:
    """The outlines file (see live/make_font.py); FileNotFoundError when it was never built."""
    data: dict[str, Any] = json.loads(GLYPHS_FILE.read_text(encoding="utf-8"))
    return data


class _Outliner:
    """Sets text as outlines: each character's path defined once per SVG (<defs>), then <use>d."""

    def __init__(self) -> None:
        data = glyph_outlines()
        self.upm = float(data["upm"])
        self.central = float(data["central"])
        self.glyphs: dict[str, list[Any]] = data["glyphs"]
        self.used: dict[str, str] = {}

    def _id(self, ch: str) -> str:
        if ch not in self.used:
            self.used[ch] = f"xqg{ord(ch):x}"
        return self.used[ch]

    def text(self, s: str, x: float, y: float, size: float, fill: str | None = None, bold: bool = False) -> str:
        """`s` centred on (x, y), as `text-anchor: middle; dominant-baseline: central` text is;
        `bold` thickens the strokes as a browser's synthetic bold does (the font has no bold face)."""
        k = size / self.upm
        advance = [float(self.glyphs[c][0]) if c in self.glyphs else self.upm * 0.5 for c in s]
        pen = x - sum(advance) * k / 2
        base = y + self.central * k
        out = []
        for ch, adv in zip(s, advance):
            if ch in self.glyphs and self.glyphs[ch][1]:
                out.append(f"<use href='#{self._id(ch)}' transform='translate({pen:.2f} {base:.2f}) "
                           f"scale({k:.5f} {-k:.5f})'/>")
            pen += adv * k
        colour = f" fill='{fill}'" if fill else ""
        if bold and fill:
            colour += f" stroke='{fill}' stroke-width='{self.upm * 0.03:g}' stroke-linejoin='round'"
        return f"<g class='t' data-text='{html.escape(s, quote=True)}'{colour}>{''.join(out)}</g>"

    def defs(self) -> str:
        paths = "".join(f"<path id='{i}' d='{self.glyphs[c][1]}'/>" for c, i in sorted(self.used.items()))
        return f"<defs>{paths}</defs>" if paths else ""


@dataclass(frozen=True)
class BoardStyle:
    """Sizes in SVG user units (the diagram scales to whatever box holds it)."""

    spacing: float = 50.0          # distance between neighbouring points
    margin: float = 42.0           # grid to the diagram's edge (room for file numbers)
    piece_radius: float = 22.0
    board_fill: str = "#e9c98f"
    line_colour: str = "#5a3a1a"
    red_colour: str = "#c0161b"
    black_colour: str = "#1b1b1b"
    piece_fill: str = "#f8ecd2"
    arrow_colour: str = "#1f7ae0"
    mark_colour: str = "#e0242a"


DEFAULT_STYLE = BoardStyle()


def board_size(style: BoardStyle = DEFAULT_STYLE) -> tuple[float, float]:
    """Width and height of the diagram in user units."""
    return 8 * style.spacing + 2 * style.margin, 9 * style.spacing + 2 * style.margin


def point_xy(index: int, flipped: bool = False, style: BoardStyle = DEFAULT_STYLE) -> tuple[float, float]:
    """Where point `index` (rank * 9 + file) sits on the diagram; red at the bottom unless flipped."""
    f, r = index % 9, index // 9
    if flipped:
        f, r = 8 - f, 9 - r
    return style.margin + f * style.spacing, style.margin + (9 - r) * style.spacing


def parse_board(fen: str) -> dict[int, str]:
    """Point index -> FEN piece letter for the board part of `fen` (ValueError names the bad rank)."""
    rows = fen.split()[0].split("/")
    if len(rows) != 10:
        raise ValueError(f"FEN board {fen.split()[0]!r} has {len(rows)} ranks, not 10")
    out: dict[int, str] = {}
    for i, row in enumerate(rows):
        rank = 9 - i
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            elif ch in PIECE_CHARS:
                if f > 8:
                    break
                out[rank * 9 + f] = ch
                f += 1
            else:
                raise ValueError(f"FEN rank {rank} ({row!r}) holds {ch!r}, not a piece letter")
        if f != 9:
            raise ValueError(f"FEN rank {rank} ({row!r}) covers {f} files, not 9")
    return out


def _point_index(name: str) -> int:
    return (int(name[1]) * 9) + "abcdefghi".index(name[0])


def grid_svg(style: BoardStyle = DEFAULT_STYLE, flipped: bool = False, outliner: _Outliner | None = None) -> str:
    """The empty board (lines, palaces, river, file numbers) as SVG elements, no <svg> wrapper;
    with `outliner`, the characters as outlines (its defs go into the enclosing <svg>)."""
    s, m = style.spacing, style.margin
    x0, x1, y0, y1 = m, m + 8 * s, m, m + 9 * s
    parts = [f"<rect x='0' y='0' width='{x1 + m:g}' height='{y1 + m:g}' rx='10' fill='{style.board_fill}'/>",
             f"<g stroke='{style.line_colour}' stroke-width='1.6' fill='none' stroke-linecap='square'>",
             f"<rect x='{x0 - 5:g}' y='{y0 - 5:g}' width='{8 * s + 10:g}' height='{9 * s + 10:g}' stroke-width='3'/>"]
    for r in range(10):
        y = y0 + r * s
        parts.append(f"<line x1='{x0:g}' y1='{y:g}' x2='{x1:g}' y2='{y:g}'/>")
    for f in range(9):
        x = x0 + f * s
        if f in (0, 8):
            parts.append(f"<line x1='{x:g}' y1='{y0:g}' x2='{x:g}' y2='{y1:g}'/>")
        else:
            parts.append(f"<line x1='{x:g}' y1='{y0:g}' x2='{x:g}' y2='{y0 + 4 * s:g}'/>")
            parts.append(f"<line x1='{x:g}' y1='{y0 + 5 * s:g}' x2='{x:g}' y2='{y1:g}'/>")
    for top in (y0, y0 + 7 * s):   # palaces
        parts.append(f"<line x1='{x0 + 3 * s:g}' y1='{top:g}' x2='{x0 + 5 * s:g}' y2='{top + 2 * s:g}'/>")
        parts.append(f"<line x1='{x0 + 5 * s:g}' y1='{top:g}' x2='{x0 + 3 * s:g}' y2='{top + 2 * s:g}'/>")
    parts.append("</g>")
    river_y = y0 + 4.5 * s
    fs = s * 0.56
    left, right = RIVER_TEXT if not flipped else RIVER_TEXT[::-1]
    # file numbers: red's (Chinese numerals) along red's edge, black's (digits) along black's
    bottom_digits, top_digits = ((RED_FILE_DIGITS, BLACK_FILE_DIGITS) if not flipped
                                 else (BLACK_FILE_DIGITS[::-1], RED_FILE_DIGITS[::-1]))
    digits = [(bottom_digits[f], x0 + f * s, y1 + m * 0.62) for f in range(9)]
    digits += [(top_digits[f], x0 + f * s, y0 - m * 0.62) for f in range(9)]
    if outliner is not None:
        parts.append(f"<g fill='{style.line_colour}'>")
        parts.append(outliner.text(left, x0 + 2 * s, river_y, fs) + outliner.text(right, x0 + 6 * s, river_y, fs))
        parts.extend(outliner.text(ch, x, y, s * 0.34) for ch, x, y in digits)
        parts.append("</g>")
        return "".join(parts)
    parts.append(f"<g font-family=\"'{FONT_FAMILY}',sans-serif\" font-size='{fs:g}' fill='{style.line_colour}' "
                 f"text-anchor='middle' dominant-baseline='central'>"
                 f"<text x='{x0 + 2 * s:g}' y='{river_y:g}'>{left}</text>"
                 f"<text x='{x0 + 6 * s:g}' y='{river_y:g}'>{right}</text></g>")
    parts.append(f"<g font-family=\"'{FONT_FAMILY}',sans-serif\" font-size='{s * 0.34:g}' fill='{style.line_colour}' "
                 f"text-anchor='middle' dominant-baseline='central'>")
    for ch, x, y in digits:
        parts.append(f"<text x='{x:g}' y='{y:g}'>{ch}</text>")
    parts.append("</g>")
    return "".join(parts)


def _piece(index: int, letter: str, flipped: bool, style: BoardStyle, outliner: _Outliner | None = None) -> str:
    x, y = point_xy(index, flipped, style)
    colour = style.red_colour if letter.isupper() else style.black_colour
    r = style.piece_radius
    face = (outliner.text(PIECE_CHARS[letter], x, y + 1, r * 1.25, colour, bold=True) if outliner is not None
            else f"<text x='{x:g}' y='{y + 1:g}' fill='{colour}'>{PIECE_CHARS[letter]}</text>")
    return (f"<g class='pc' data-point='{'abcdefghi'[index % 9]}{index // 9}' data-piece='{letter}'>"
            f"<circle cx='{x:g}' cy='{y:g}' r='{r:g}' fill='{style.piece_fill}' stroke='{colour}' stroke-width='2.2'/>"
            f"<circle cx='{x:g}' cy='{y:g}' r='{r - 4:g}' fill='none' stroke='{colour}' stroke-width='0.9'/>"
            f"{face}</g>")


def _arrow(frm: int, to: int, flipped: bool, style: BoardStyle) -> str:
    """An arrow from the move's origin to just short of the moved piece, a ring on the origin and a
    ring round the moved piece: a one-step move's arrow is barely longer than its head, so the
    rings (and, for such a move, a solid dot on the origin) are what make it visible at a glance."""
    x0, y0 = point_xy(frm, flipped, style)
    x1, y1 = point_xy(to, flipped, style)
    dx, dy = x1 - x0, y1 - y0
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    tip_x, tip_y = x1 - ux * (style.piece_radius + 2), y1 - uy * (style.piece_radius + 2)
    head = 13.0
    bx, by = tip_x - ux * head, tip_y - uy * head
    px, py = -uy * head * 0.55, ux * head * 0.55
    c = style.arrow_colour
    short = d <= style.spacing * 1.5      # one step (a soldier, general, chariot by one point)
    origin = (f"<circle cx='{x0:g}' cy='{y0:g}' r='{style.piece_radius * 0.3:g}' fill='{c}'/>" if short else
              f"<circle cx='{x0:g}' cy='{y0:g}' r='{style.piece_radius * 0.55:g}' fill='none' stroke='{c}' "
              f"stroke-width='3' stroke-dasharray='5 4'/>")
    return (f"<g class='last-move' data-from='{_name(frm)}' data-to='{_name(to)}' opacity='0.85'>"
            f"<circle class='moved' cx='{x1:g}' cy='{y1:g}' r='{style.piece_radius + 3.5:g}' fill='none' "
            f"stroke='{c}' stroke-width='3.5'/>" + origin +
            f"<line x1='{x0:g}' y1='{y0:g}' x2='{bx:.1f}' y2='{by:.1f}' stroke='{c}' stroke-width='5' "
            f"stroke-linecap='round'/>"
            f"<polygon points='{tip_x:.1f},{tip_y:.1f} {bx + px:.1f},{by + py:.1f} {bx - px:.1f},{by - py:.1f}' "
            f"fill='{c}'/></g>")


def _name(index: int) -> str:
    return "abcdefghi"[index % 9] + str(index // 9)


def board_svg(fen: str = START_FEN, last_move: str | None = None, *, flipped: bool = False,
              marks: tuple[str, ...] = (), style: BoardStyle = DEFAULT_STYLE, grid_ref: str | None = None,
              title: str | None = None, css_class: str = "xq-board", standalone: bool = True,
              glyphs: Glyphs = "text") -> str:
    """A complete <svg> of the position `fen`, with `last_move` (ICCS) as an arrow.

    `marks` are point names (ICCS, e.g. "c4") ringed in the incident colour. `grid_ref`, when
    given, is the id of a <symbol> holding `grid_svg` elsewhere on the page (the review draws
    the empty board once and every ply's diagram uses it, keeping the page small).
    `standalone=False` leaves out the XML namespace (not needed inside an HTML page).
    `glyphs="outline"` draws the characters as paths (an SVG served as an image: it needs no font);
    "text" sets them in the page's `XQ UI` font (an SVG inside a page that loads it).
    """
    pieces = parse_board(fen)
    outliner = _Outliner() if glyphs == "outline" else None
    w, h = board_size(style)
    xmlns = " xmlns='http://www.w3.org/2000/svg'" if standalone else ""
    out = [f"<svg{xmlns} class='{html.escape(css_class, quote=True)}' "
           f"viewBox='0 0 {w:g} {h:g}' data-fen='{html.escape(fen, quote=True)}'"
           f" data-flipped='{1 if flipped else 0}' role='img'>"]
    if title:
        out.append(f"<title>{html.escape(title)}</title>")
    out.append(f"<use href='#{grid_ref}' width='{w:g}' height='{h:g}'/>" if grid_ref
               else grid_svg(style, flipped, outliner))
    for name in marks:
        try:
            x, y = point_xy(_point_index(name), flipped, style)
        except (ValueError, IndexError):
            continue
        out.append(f"<circle class='mark' cx='{x:g}' cy='{y:g}' r='{style.piece_radius + 5:g}' fill='none' "
                   f"stroke='{style.mark_colour}' stroke-width='4'/>")
    if outliner is not None:
        out.append("<g class='pieces'>")
    else:
        out.append(f"<g font-family=\"'{FONT_FAMILY}',sans-serif\" font-size='{style.piece_radius * 1.25:g}' "
                   f"font-weight='bold' text-anchor='middle' dominant-baseline='central'>")
    for index in sorted(pieces):
        out.append(_piece(index, pieces[index], flipped, style, outliner))
    out.append("</g>")
    if last_move and len(last_move) == 4:
        try:
            out.append(_arrow(_point_index(last_move[:2]), _point_index(last_move[2:]), flipped, style))
        except (ValueError, IndexError):
            pass
    if outliner is not None:
        out.insert(1, outliner.defs())
    out.append("</svg>")
    return "".join(out)


def grid_symbol(symbol_id: str, style: BoardStyle = DEFAULT_STYLE, flipped: bool = False) -> str:
    """A hidden inline <svg> (for an HTML page) defining the empty board as <symbol id=symbol_id>
    for `board_svg(grid_ref=...)`."""
    w, h = board_size(style)
    return (f"<svg width='0' height='0' style='position:absolute' aria-hidden='true'>"
            f"<symbol id='{symbol_id}' viewBox='0 0 {w:g} {h:g}'>{grid_svg(style, flipped)}</symbol></svg>")
