"""Build live/static/xq-ui.woff, the CJK font subset the live pages and the review ship (dev tool).

Why: a page that relies on the viewer's fonts shows every move as empty boxes on a machine
without Chinese fonts, and a full CJK font is several megabytes. The subset holds only
`live.labels.font_text()` (labels, piece names, notation, ASCII), is renamed (so it carries
no reserved font name) and ships with the licence of its source beside it.

Usage (needs fontTools and Debian's fonts-wqy-microhei):
    .venv/bin/python -m live.make_font [--source /usr/share/fonts/truetype/wqy/wqy-microhei.ttc]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

from live.labels import font_text

SOURCE = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LICENCE = "/usr/share/doc/fonts-wqy-microhei/copyright"
LICENCE_NAME = "Apache-2.0 or GPL-3 with font exception (WenQuanYi Micro Hei)"
FAMILY = "XQ UI"
STATIC = Path(__file__).resolve().parent / "static"


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


def build(source: str = SOURCE, out_dir: Path = STATIC) -> Path:
    """Write out_dir/xq-ui.woff and its licence; returns the font's path."""
    text = font_text()
    font = load_font(source)
    missing = [c for c in text if ord(c) not in font.getBestCmap()]
    opts = subset.Options()
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    sub = subset.Subsetter(opts)
    sub.populate(text=text)
    sub.subset(font)
    rename_font(font, FAMILY)
    font.flavor = "woff"
    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / "xq-ui.woff"
    font.save(str(dst))
    lic = Path(LICENCE).read_text(encoding="utf-8", errors="replace")
    (out_dir / "LICENSE-xq-ui.txt").write_text(
        f"xq-ui.woff: subset of {Path(source).name} ({LICENCE_NAME}), renamed to '{FAMILY}'.\n"
        f"Glyphs: {text}\n\n{lic}", encoding="utf-8")
    if missing:
        print(f"warning: the source lacks {''.join(missing)!r}")
    print(f"{dst} {dst.stat().st_size} bytes, {len(text)} characters")
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=SOURCE)
    ap.add_argument("--out", default=str(STATIC))
    args = ap.parse_args()
    build(args.source, Path(args.out))


if __name__ == "__main__":
    main()
