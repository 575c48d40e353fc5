"""Fuzzed readers: random bytes, real files with bytes changed, cut or spliced never raise anything
but the format's own error class (a PgnError), and never take long."""
from __future__ import annotations

import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from rules.errors import PgnError
from rules.formats import (
    CbfError, CcBridgeError, DhtmlXqError, GameFileError, UnknownFormatError, XqfError, read_games,
)
from rules.formats.library import detect_format

CLUB = Path(__file__).resolve().parents[1] / "data" / "games" / "club_formats"
SAMPLES = {
    "xqf": (CLUB / "save.xqf").read_bytes(),
    "xqf-variations": (CLUB / "test_5_variations.xqf").read_bytes(),
    "cbr": (CLUB / "test2.cbr").read_bytes(),
    "cbl": (CLUB / "1981年承德十一省市邀请赛188局.CBL").read_bytes()[:101952 + 6 * 4096],
    "cbf": (CLUB / "opening_handwritten.cbf").read_bytes(),
    "dhtmlxq": (CLUB / "dpxq_page_gbk.html").read_bytes(),
    "ubb": (CLUB / "forum_post_iframe.txt").read_bytes(),
    "pgn": (CLUB / "reference" / "test2.cbr.pgn").read_bytes(),
}
ERROR_CLASS = {"xqf": XqfError, "cbr": CcBridgeError, "cbl": CcBridgeError, "cbf": CbfError,
               "dhtmlxq": DhtmlXqError, "pgn": PgnError}
SECONDS_PER_FILE = 2.0


def _read_within_budget(data: bytes) -> None:
    """Read `data`; only the format's error may come out, and quickly."""
    started = time.perf_counter()
    try:
        fmt = detect_format(data)
    except GameFileError as exc:
        assert type(exc) is UnknownFormatError
        fmt = None
    try:
        games = read_games(data, "fuzzed")
    except PgnError as exc:
        if fmt is not None:
            assert isinstance(exc, ERROR_CLASS[fmt]), f"{fmt} raised {type(exc).__name__}: {exc}"
        assert "\n" not in str(exc)                          # one line
    else:
        for skipped in games.skipped:
            assert "\n" not in skipped.message
    assert time.perf_counter() - started < SECONDS_PER_FILE


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000))
def test_random_bytes_raise_only_a_game_file_error(data):
    _read_within_budget(data)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.sampled_from(["XQ", "CCBridge Record\x00", "CCBridgeLibrary\x00",
                                                           "<ChineseChessRecord>", "[DhtmlXQ]", ""]),
       st.binary(max_size=2500))
def test_random_bytes_behind_a_real_mark_raise_only_that_formats_error(_, mark, tail):
    _read_within_budget(mark.encode("latin-1") + tail)


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SAMPLES)))
    data = bytearray(SAMPLES[name])
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        data[at] = draw(st.integers(min_value=0, max_value=255))
    if draw(st.booleans()):
        data = data[:draw(st.integers(min_value=0, max_value=len(data)))]
    if draw(st.booleans()):
        start = draw(st.integers(min_value=0, max_value=len(data)))
        data[start:start] = draw(st.binary(max_size=64))
    return bytes(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_real_files_raise_only_their_formats_error(data):
    _read_within_budget(data)


def test_every_cut_of_a_real_xqf_and_cbr_is_handled():
    for name in ("xqf", "xqf-variations", "cbr"):
        data = SAMPLES[name]
        for cut in range(0, len(data), 3):
            _read_within_budget(data[:cut])


def test_a_huge_unclosed_dhtmlxq_tag_list_does_not_hang():
    page = ("[DhtmlXQ_comment1]" * 20_000 + "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]").encode()
    _read_within_budget(page)
