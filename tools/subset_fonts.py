"""Subset the CJK fonts the simulator draws piece characters with (dev tool, not run in CI).

Why: full CJK fonts are 5-20 MB each; the simulator needs ~60 glyphs (piece names, river text,
file numerals), so each shipped font is a few tens of KB. The subset fonts are renamed (the OFL
and the Arphic licence both ask that modified fonts not carry the original reserved names) and
each ships beside the licence of its source.

Usage (needs fontTools and the Debian font packages fonts-arphic-ukai fonts-arphic-uming
fonts-wqy-microhei fonts-lxgw-wenkai fonts-noto-cjk):
    .venv/bin/python tools/subset_fonts.py [--out sim/assets/fonts]
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

from fontTools import subset

from live.make_font import load_font, rename_font  # one loader and renamer for every subset we ship

# Piece names (simplified and traditional forms used on real sets), river text, edge numerals.
GLYPHS = (
    "帅帥仕士相象马傌馬车俥車炮砲包兵卒将將"
    "楚河汉漢界"
    "一二三四五六七八九"
    "0123456789"
)

# (output stem, source file, face index in a collection, style, licence file, licence name)
SOURCES: tuple[tuple[str, str, int, str, str, str], ...] = (
    ("xq-kai-a", "/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Bold.ttf", 0, "kai",
     "/usr/share/doc/fonts-lxgw-wenkai/copyright", "OFL-1.1 (LXGW WenKai, lxgw)"),
    ("xq-kai-b", "/usr/share/fonts/truetype/arphic/ukai.ttc", 0, "kai",
     "/usr/share/doc/fonts-arphic-ukai/license/english/ARPHICPL.TXT.gz", "Arphic Public License (AR PL UKai)"),
    ("xq-song-a", "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 0, "song",
     "/usr/share/doc/fonts-noto-cjk/copyright", "OFL-1.1 (Noto Serif CJK, Adobe/Google)"),
    ("xq-song-b", "/usr/share/fonts/truetype/arphic/uming.ttc", 0, "song",
     "/usr/share/doc/fonts-arphic-uming/license/english/ARPHICPL.TXT.gz", "Arphic Public License (AR PL UMing)"),
    ("xq-hei-a", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 0, "hei",
     "/usr/share/doc/fonts-noto-cjk/copyright", "OFL-1.1 (Noto Sans CJK, Adobe/Google)"),
    ("xq-hei-b", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0, "hei",
     "/usr/share/doc/fonts-wqy-microhei/copyright", "Apache-2.0 or GPL-3 with font exception (WenQuanYi Micro Hei)"),
    ("xq-kai-c", "/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf", 0, "kai",
     "/usr/share/doc/fonts-cns11643-kai/copyright", "OGDL-TW-1.0, CC-BY-4.0 compatible (TW-Kai, CNS 11643)"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sim/assets/fonts")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    coverage: dict[str, str] = {}
    lines = ["# Subset fonts for sim/ (made by tools/subset_fonts.py)", "",
             "| file | style | source | licence file |", "|---|---|---|---|"]
    for stem, src, index, style, lic, lic_name in SOURCES:
        if not Path(src).exists():
            print(f"skip {stem}: {src} missing")
            continue
        font = load_font(src, index)
        cmap = font.getBestCmap()
        have = "".join(c for c in GLYPHS if ord(c) in cmap)
        opts = subset.Options()
        opts.layout_features = []
        opts.name_IDs = ["*"]
        opts.notdef_outline = True
        opts.hinting = False
        sub = subset.Subsetter(opts)
        sub.populate(text=GLYPHS)
        sub.subset(font)
        rename_font(font, f"XQ {stem.split('-', 1)[1].title()}")
        font.flavor = None
        dst = out / f"{stem}.ttf" if "glyf" in font else out / f"{stem}.otf"
        font.save(str(dst))
        lic_dst = out / f"LICENSE-{stem}.txt"
        data = Path(lic).read_bytes()
        if lic.endswith(".gz"):
            data = gzip.decompress(data)
        lic_dst.write_bytes(f"Subset of {Path(src).name} ({lic_name}), renamed; glyphs: {GLYPHS}\n\n".encode() + data)
        coverage[dst.name] = have
        lines.append(f"| {dst.name} | {style} | {Path(src).name} | {lic_dst.name} ({lic_name}) |")
        print(f"{dst} {dst.stat().st_size} bytes")
    lines += ["", "coverage.json lists the characters each subset really has (the renderer only picks a",
              "font for a piece set when it covers every character the set needs)."]
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "coverage.json").write_text(json.dumps(coverage, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
