"""Build the CJK fonts the pages ship, and the board's glyph outlines (a dev tool).

Why: a page that relies on the viewer's fonts shows every move as empty boxes on a machine
without Chinese fonts (a Linux OBS PC or a hall screen often has none), and a full CJK font is
several megabytes. Three things are cut from one Debian font (fonts-wqy-microhei):

- `live/static/xq-ui.woff` (family `XQ UI`): every character a page, a script or a label can show:
  `live.labels.font_text()` (labels, incident details, pieces, notation, ASCII) plus every CJK
  character written in live/static/* and hall/static/* (a page's own text).
- `live/static/xq-names.woff` (family `XQ Names`): the 6,763 hanzi of GB 2312, so players' and
  teams' names from a tournament file render too. Pages list it after `XQ UI` with a CJK
  `unicode-range`, so a browser fetches it only when a name needs a character `XQ UI` lacks.
- `live/static/xq-board-glyphs.json`: the outlines of the characters the board diagram draws
  (`live.board_svg.board_chars()`), so `/board.svg`, used as an `<img>` (which cannot load the
  page's web font), draws its pieces as paths and needs no font at all.

Each is renamed (no reserved font name carried) and ships with the source's licence beside it
(`LICENSE-xq-ui.txt`).

Usage (needs fontTools and Debian's fonts-wqy-microhei):
    .venv/bin/python -m live.make_font [--source /usr/share/fonts/truetype/wqy/wqy-microhei.ttc]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fontTools import subset
from fontTools.pens.svgPathPen import SVGPathPen
from fontTools.pens.transformPen import TransformPen
from fontTools.ttLib import TTCollection, TTFont

from live.board_svg import GLYPH_UPM, board_chars
from live.labels import font_text

SOURCE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LICENCE = "/usr/share/doc/fonts-wqy-microhei/copyright"
LICENCE_NAME = "Apache-2.0 or GPL-3 with font exception (WenQuanYi Micro Hei)"
FAMILY = "XQ UI"
NAMES_FAMILY = "XQ Names"
ROOT = Path(__file__).resolve().parent.parent
STATIC = Path(__file__).resolve().parent / "static"
# Where the pages' own text lives: every CJK character written there goes into XQ UI.
PAGE_DIRS = (ROOT / "live" / "static", ROOT / "hall" / "static")
PAGE_SUFFIXES = (".html", ".js", ".css")


def load_font(path: str, index: int = 0) -> TTFont:
    """A font file, or font `index` of a .ttc collection (also used by tools/subset_fonts.py)."""
    return TTCollection(path).fonts[index] if path.endswith(".ttc") else TTFont(path)


def rename_font(font: TTFont, family: str) -> None:
    """Replace family/full/PostScript names so no reserved font name is carried by the subset."""
    name = font["name"]
    for rec in list(name.names):
        if rec.nameID in (1, 3, 4, 6, 16, 17, 18, 21, 22):
            name.removeNames(nameID=rec.nameID)
    name.setName(family, 1, 3, 1, 0x409)
    name.setName("Regular", 2, 3, 1, 0x409)
    name.setName(f"{family} subset", 3, 3, 1, 0x409)
    name.setName(family, 4, 3, 1, 0x409)
    name.setName(family.replace(" ", ""), 6, 3, 1, 0x409)


def is_cjk(ch: str) -> bool:
    """A character no Latin system font has: CJK ideographs, kana, full-width forms, CJK marks."""
    return ord(ch) >= 0x2E80


def page_text(dirs: tuple[Path, ...] = PAGE_DIRS) -> str:
    """Every CJK character written in the pages, scripts and style sheets under `dirs`."""
    chars: set[str] = set()
    for d in dirs:
        for path in sorted(d.glob("*")):
            if path.suffix in PAGE_SUFFIXES and path.is_file():
                chars.update(c for c in path.read_text(encoding="utf-8") if is_cjk(c))
    return "".join(sorted(chars))


def ui_text() -> str:
    """What XQ UI holds: the labels' text and the pages' own."""
    return "".join(sorted(set(font_text()) | set(page_text())))


def gb2312_hanzi() -> str:
    """The 6,763 hanzi of GB 2312 (levels 1 and 2): the characters of almost every name."""
    out = []
    for hi in range(0xB0, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                out.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return "".join(out)


def names_text() -> str:
    return gb2312_hanzi() + "·・－（）"


def subset_font(source: str, text: str, family: str) -> tuple[TTFont, str]:
    """The source cut down to `text`, renamed `family`; also returns what the source lacks."""
    font = load_font(source)
    cmap = font.getBestCmap()
    missing = "".join(c for c in text if ord(c) not in cmap)
    opts = subset.Options()
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    opts.drop_tables += ["FFTM"]
    sub = subset.Subsetter(opts)
    sub.populate(text=text)
    sub.subset(font)
    rename_font(font, family)
    font.flavor = "woff"
    return font, missing


def glyph_outlines(source: str, chars: str) -> dict[str, object]:
    """The outlines of `chars` as SVG path data on a GLYPH_UPM em, y up (the font's way), with each
    advance and the em's 'central' line (the mean of the ideographs' vertical middles, so a
    character drawn on it looks centred as `dominant-baseline: central` text does)."""
    font = load_font(source)
    upm = font["head"].unitsPerEm
    k = GLYPH_UPM / upm
    cmap = font.getBestCmap()
    gs = font.getGlyphSet()
    glyphs: dict[str, list[object]] = {}
    middles = []
    for ch in chars:
        name = cmap.get(ord(ch))
        if name is None:
            raise SystemExit(f"{source} lacks {ch!r}, which the board draws")
        pen = SVGPathPen(gs, ntos=lambda v: str(round(v)))
        gs[name].draw(TransformPen(pen, (k, 0, 0, k, 0, 0)))
        glyphs[ch] = [round(gs[name].width * k), pen.getCommands()]
        if is_cjk(ch):
            g = font["glyf"][name] if "glyf" in font else None
            if g is not None and hasattr(g, "yMin"):
                middles.append((g.yMin + g.yMax) / 2 * k)
    central = round(sum(middles) / len(middles)) if middles else round(GLYPH_UPM * 0.38)
    return {"source": Path(source).name, "upm": GLYPH_UPM, "central": central, "glyphs": glyphs}


def build(source: str = SOURCE, out_dir: Path = STATIC) -> Path:
    """Write out_dir/xq-ui.woff, xq-names.woff, xq-board-glyphs.json and the licence; returns the UI font's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = ui_text()
    font, missing = subset_font(source, text, FAMILY)
    dst = out_dir / "xq-ui.woff"
    font.save(str(dst))
    names, _ = subset_font(source, names_text(), NAMES_FAMILY)
    names_dst = out_dir / "xq-names.woff"
    names.save(str(names_dst))
    outlines = glyph_outlines(source, board_chars())
    glyphs_dst = out_dir / "xq-board-glyphs.json"
    glyphs_dst.write_text(json.dumps(outlines, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    lic = Path(LICENCE).read_text(encoding="utf-8", errors="replace")
    (out_dir / "LICENSE-xq-ui.txt").write_text(
        f"xq-ui.woff, xq-names.woff and xq-board-glyphs.json: subsets of {Path(source).name} ({LICENCE_NAME}),\n"
        f"renamed to '{FAMILY}' and '{NAMES_FAMILY}'; xq-board-glyphs.json holds the outlines of the\n"
        f"characters the board diagram draws. Made by live/make_font.py.\n"
        f"xq-ui.woff glyphs: {text}\n"
        f"xq-names.woff glyphs: the hanzi of GB 2312 and {names_text()[-5:]}\n"
        f"xq-board-glyphs.json glyphs: {board_chars()}\n\n{lic}", encoding="utf-8")
    if missing:
        print(f"warning: the source lacks {missing!r}")
    for path in (dst, names_dst, glyphs_dst):
        print(f"{path} {path.stat().st_size} bytes")
    print(f"{dst.name}: {len(text)} characters")
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--source", default=SOURCE)
    ap.add_argument("--out", default=str(STATIC))
    args = ap.parse_args()
    build(args.source, Path(args.out))


if __name__ == "__main__":
    main()
