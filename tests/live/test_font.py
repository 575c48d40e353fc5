"""Every CJK character a page can show is in a font that page (or SVG) loads itself.

A hall screen, an OBS PC or an arbiter's laptop often has no Chinese font at all, so nothing may
rely on the viewer's fonts: the pages load the shipped subsets (live/static/xq-ui.woff, the labels'
and pages' text; xq-names.woff, GB 2312's hanzi for players' names), form controls inherit them,
and an SVG served as an image (which cannot use its page's fonts) draws its characters as
outlines from live/static/xq-board-glyphs.json. Here: every page, script and style under
live/static and hall/static, every label, every incident detail, Chinese move notation, the
review page and the board's SVG in both of its forms.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from live.board_svg import GLYPHS_FILE, PIECE_CHARS, board_chars, board_svg, glyph_outlines
from live.labels import DETAIL_ZH, LABELS, NOTATION_CHARS, fill_labels, font_text, incident_detail_zh
from live.server import STATIC_DIR, render_page

ROOT = Path(__file__).resolve().parents[2]
HALL_STATIC = ROOT / "hall" / "static"
PAGE_FILES = sorted(p for d in (STATIC_DIR, HALL_STATIC) for p in d.glob("*")
                    if p.suffix in (".html", ".js", ".css"))
HTML_PAGES = [p for p in PAGE_FILES if p.suffix == ".html"]
KINDS = ("touch_move_other", "retouch", "between_points", "knocked", "illegal_move", "repetition",
         "clock_no_press", "clock_two_moves", "clock_press_no_move")


def _font_cmap(name: str) -> set[int]:
    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools reads the font's character map")
    return set(ttlib.TTFont(str(STATIC_DIR / name)).getBestCmap())


@pytest.fixture(scope="module")
def ui() -> set[int]:
    return _font_cmap("xq-ui.woff")


def _cjk(text: str) -> set[str]:
    return {c for c in text if ord(c) >= 0x2E80}


def _lacking(text: str, cmap: set[int]) -> str:
    return "".join(sorted(c for c in _cjk(text) if ord(c) not in cmap))


def test_every_label_piece_and_notation_character_is_in_the_shipped_font(ui):
    missing = {c for c in font_text() if ord(c) not in ui}
    assert not missing, f"xq-ui.woff lacks {''.join(sorted(missing))}: rebuild it with python -m live.make_font"
    for zh, en in LABELS.values():
        assert not _lacking(zh + en, ui), (zh, en)


@pytest.mark.parametrize("page", PAGE_FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_the_pages_scripts_and_styles_use_no_character_the_font_lacks(page, ui):
    text = page.read_text(encoding="utf-8")
    for key in re.findall(r"\{\{label:(\w+)\}\}", text):
        assert key in LABELS, f"{page.name} uses the unknown label {key!r}"
    for key in re.findall(r"\blabel\(\"(\w+)\"\)", text):
        assert key in LABELS, f"{page.name} asks for the unknown label {key!r}"
    missing = _lacking(text, ui)
    assert not missing, f"{page.name} shows {missing}, which xq-ui.woff lacks: rebuild it with python -m live.make_font"


@pytest.mark.parametrize("page", HTML_PAGES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_page_loads_the_shipped_font_and_its_controls_use_it(page):
    text = page.read_text(encoding="utf-8")
    css = text
    if "/static/live.css" in text:
        css += (STATIC_DIR / "live.css").read_text(encoding="utf-8")
    faces = re.findall(r"@font-face\s*\{[^}]*\}", css)
    families = {re.search(r"font-family:\s*['\"]([^'\"]+)", f).group(1): f for f in faces}
    assert "XQ UI" in families and "/static/xq-ui.woff" in families["XQ UI"], page.name
    assert "XQ Names" in families and "/static/xq-names.woff" in families["XQ Names"], page.name
    assert "unicode-range" in families["XQ Names"], "the names font is fetched only for a character XQ UI lacks"
    assert re.search(r"font-family:\s*['\"]XQ UI['\"]\s*,\s*['\"]XQ Names['\"]", css), \
        f"{page.name}: the page's text is not set in the shipped fonts"
    # select, button and input do not inherit the page's font unless told to
    assert re.search(r"button\s*,\s*select\s*,\s*input[^{]*\{\s*font:\s*inherit", css), \
        f"{page.name}: form controls would fall back to the system's (Chinese-less) fonts"
    if "{{labels_json}}" in text:
        assert "/static/xq-lang.js" in text, f"{page.name}: shows both languages at once (no xq-lang.js)"


def test_the_served_pages_with_their_labels_filled_in_stay_within_the_font(ui):
    for name in ("index.html", "overlay.html", "setup.html"):
        assert not _lacking(render_page(name), ui), name
    for page in HALL_STATIC.glob("*.html"):
        filled = fill_labels(page.read_text(encoding="utf-8"))
        assert "{{" not in filled.replace("{{n}}", ""), page.name
        assert not _lacking(filled, ui), page.name


def test_every_incident_detail_in_chinese_is_in_the_font(ui):
    from rules import START_FEN
    samples = {"touch_move_other": ["c3", "b0", "h2"], "retouch": ["h2"], "between_points": ["c6", "c5"],
               "knocked": ["a9"], "illegal_move": ["b0", "b5"], "repetition": ["b0", "c2"]}
    for kind in KINDS:
        for side in ("red", "black", None):
            for extra in ({}, {"off_board": True}, {"ruling": {"ruling": "red_loses"}}, {"ruling": {"ruling": "draw"}}):
                text = incident_detail_zh(kind, side, samples.get(kind, []), START_FEN, START_FEN, extra)
                assert text, kind
                assert not _lacking(text, ui), (kind, text)
        assert kind in LABELS, f"the incident kind {kind} has no words of its own"
    for template in DETAIL_ZH.values():
        assert not _lacking(template, ui)


def test_result_reasons_and_repetition_rulings_have_words_not_program_names():
    from hall.station import RESULT_REASONS
    from rules.repetition import RULINGS
    for code in RESULT_REASONS + tuple(RULINGS):
        assert code in LABELS or code == "none", f"{code} would be shown as a program identifier"


def test_chinese_move_notation_of_real_games_is_in_the_font(ui):
    from rules import Move, Position
    from rules.notation import format_move
    games = (ROOT / "tests" / "data" / "games" / "games.jsonl").read_text(encoding="utf-8").splitlines()[:40]
    seen: set[str] = set()
    for line in games:
        pos = Position()
        for iccs in json.loads(line)["moves_iccs"]:
            m = Move.from_iccs(iccs)
            seen.update(format_move(pos, m, "chinese"))
            seen.update(format_move(pos, m, "chinese", traditional=True))
            pos.push(m)
    assert not _lacking("".join(seen), ui)
    assert set(NOTATION_CHARS) <= set(font_text())


def test_an_svg_served_as_an_image_carries_its_own_glyphs():
    # every character a diagram can draw has an outline, cut from the same font as XQ UI
    outlines = glyph_outlines()
    assert set(board_chars()) <= set(outlines["glyphs"]), "rebuild with python -m live.make_font"
    everything = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    for flipped in (False, True):
        svg = board_svg(everything, "h2e2", flipped=flipped, marks=("e2",), glyphs="outline")
        assert "<text" not in svg and "font-family" not in svg, "an <img> cannot use its page's font"
        assert not _cjk(re.sub(r"data-text='[^']*'", "", svg)), "no character is left to a font"
        drawn = set("".join(re.findall(r"data-text='([^']*)'", svg))) - {" "}
        assert set(PIECE_CHARS.values()) <= drawn and set("楚河汉界九一") <= drawn
        defined = {chr(int(h, 16)) for h in re.findall(r"<path id='xqg([0-9a-f]+)'", svg)}
        assert drawn == defined, "each character drawn is defined once in the SVG itself"
        used = {chr(int(h, 16)) for h in re.findall(r"href='#xqg([0-9a-f]+)'", svg)}
        assert used == defined


def test_the_svg_inside_a_page_is_set_in_the_pages_font(ui):
    svg = board_svg(last_move="h2e2")
    assert "'XQ UI'" in svg
    assert not _lacking(svg, ui)


def test_the_review_with_its_inline_font_shows_nothing_the_font_lacks(ui, tmp_path):
    from live_helpers import GameWriter
    from runtime.journal import read_events
    from runtime.review import render_review
    g = GameWriter(tmp_path)
    for mv in ("h2e2", "h9g7", "h0g2"):
        g.move(mv)
    g.incident("touch_move_other", points=["c3", "h2"])
    g.incident("repetition", points=["e2"])
    g.close()
    page = render_review(read_events(tmp_path / "events.jsonl")[0], [], tmp_path)
    assert not _lacking(page, ui)


def test_the_fonts_ship_with_their_licence_and_hold_players_names():
    lic = (STATIC_DIR / "LICENSE-xq-ui.txt").read_text(encoding="utf-8")
    assert "WenQuanYi" in lic and "xq-names.woff" in lic and "xq-board-glyphs.json" in lic
    names = _font_cmap("xq-names.woff")
    for name in ("王天一", "郑惟桐", "许银川", "吕钦", "胡荣华", "杭州", "四川"):
        assert all(ord(c) in names for c in name), name
    assert json.loads(GLYPHS_FILE.read_text(encoding="utf-8"))["source"] == "wqy-microhei.ttc"
