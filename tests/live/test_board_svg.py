"""The board drawing shared by the live pages and the review."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from live.board_svg import PIECE_CHARS, board_svg, parse_board, point_xy
from rules import START_FEN, Position

NS = "{http://www.w3.org/2000/svg}"


def _pieces(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {g.get("data-point"): g.get("data-piece") for g in root.iter(f"{NS}g") if g.get("class") == "pc"}


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_every_piece_of_any_reachable_position_is_drawn_on_its_point_with_its_character(data):
    pos = Position()
    for _ in range(data.draw(st.integers(0, 25))):
        legal = sorted(pos.legal_moves(), key=lambda m: m.iccs())
        if not legal:
            break
        pos.push(data.draw(st.sampled_from(legal)))
    svg = board_svg(pos.fen())
    drawn = _pieces(svg)
    want = {"abcdefghi"[sq % 9] + str(sq // 9): p for sq, p in pos.pieces().items()}
    assert drawn == want
    for letter in set(want.values()):
        assert PIECE_CHARS[letter] in svg


def test_red_is_at_the_bottom_and_flipping_turns_the_board_half_round():
    x0, y0 = point_xy(0)            # a0, red's left corner
    x9, y9 = point_xy(89)           # i9
    assert y0 > y9 and x0 < x9
    fx0, fy0 = point_xy(0, flipped=True)
    assert (fx0, fy0) == (x9, y9)


def test_the_last_move_is_an_arrow_from_its_origin_to_its_destination():
    svg = board_svg("rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", "h7e7")
    m = re.search(r"class='last-move' data-from='(\w\d)' data-to='(\w\d)'", svg)
    assert m and m.groups() == ("h7", "e7")
    assert "<polygon" in svg
    assert "last-move" not in board_svg(START_FEN)


def test_a_broken_fen_is_refused_naming_the_rank():
    with pytest.raises(ValueError, match="rank 0"):
        parse_board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w")
    with pytest.raises(ValueError, match="'x'"):
        parse_board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNx w")


def test_an_inline_diagram_can_use_a_shared_grid_and_leave_out_the_namespace():
    svg = board_svg(START_FEN, grid_ref="g", standalone=False)
    assert "<use href='#g'" in svg and "xmlns" not in svg and "<line" not in svg.split("<g font-family")[0]
