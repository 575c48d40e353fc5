"""The shipped CJK font subset holds every character the live pages and the review show."""
from __future__ import annotations

import re

import pytest

from live.labels import LABELS, NOTATION_CHARS, font_text
from live.server import STATIC_DIR


def _cmap() -> set[int]:
    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools reads the font's character map")
    return set(ttlib.TTFont(str(STATIC_DIR / "xq-ui.woff")).getBestCmap())


def _cjk(text: str) -> set[str]:
    return {c for c in text if ord(c) > 0x2000}


def test_every_label_piece_and_notation_character_is_in_the_shipped_font():
    cmap = _cmap()
    missing = {c for c in font_text() if ord(c) not in cmap}
    assert not missing, f"xq-ui.woff lacks {''.join(sorted(missing))}: rebuild it with python -m live.make_font"


def test_the_page_templates_use_no_character_the_font_lacks():
    cmap = _cmap()
    for page in sorted(STATIC_DIR.glob("*.html")) + sorted(STATIC_DIR.glob("*.js")):
        text = page.read_text(encoding="utf-8")
        for key in re.findall(r"\{\{label:(\w+)\}\}", text):
            assert key in LABELS, f"{page.name} uses the unknown label {key!r}"
        missing = {c for c in _cjk(text) if ord(c) not in cmap}
        assert not missing, f"{page.name} shows {''.join(sorted(missing))}, which xq-ui.woff lacks"


def test_the_font_ships_with_its_licence():
    lic = (STATIC_DIR / "LICENSE-xq-ui.txt").read_text(encoding="utf-8")
    assert "WenQuanYi" in lic or "wqy" in lic.lower()
    assert set(NOTATION_CHARS) <= set(font_text())
