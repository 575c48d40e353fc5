"""Bounded reads (rules/bounded_read.py) on real files, devices and FIFOs, and the game-file
readers that use them: nothing is ever read past its limit, and the refusal names the input,
the limit and the option that raises it. Also: every format says how many variations it left out."""
from __future__ import annotations

import io
import os
import threading
import tracemalloc
from pathlib import Path

import pytest

from rules.bounded_read import (
    GAME_FILE_MAX_BYTES, MIB, InputTooLargeError, LineSplitter, format_size, iter_lines_bounded, parse_size,
    read_file_bounded, read_stream_bounded,
)
from rules.formats import GameFileError, read_game_file, read_games
from rules.pgn import PgnError, read_pgn, read_pgn_file

DATA = Path(__file__).resolve().parents[1] / "data"
CLUB = DATA / "games" / "club_formats"
FEATURES = DATA / "rules" / "features.pgn"


def test_a_small_file_is_read_whole_and_a_file_one_byte_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "game.bin"
    path.write_bytes(b"x" * 1000)
    assert read_file_bounded(path, 1000) == b"x" * 1000
    with pytest.raises(InputTooLargeError) as info:
        read_file_bounded(path, 999, what="game file")
    message = str(info.value)
    assert str(path) in message and "999 bytes" in message and "--max-bytes" in message
    assert "game file" in message


def test_a_huge_sparse_file_is_refused_from_its_size_without_reading_it(tmp_path):
    path = tmp_path / "huge.pgn"
    with open(path, "wb") as f:
        f.truncate(64 << 30)            # 64 GiB, sparse: reading it would take minutes
    tracemalloc.start()
    try:
        with pytest.raises(InputTooLargeError):
            read_file_bounded(path, GAME_FILE_MAX_BYTES)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 * MIB


def test_dev_zero_is_read_only_up_to_the_limit():
    tracemalloc.start()
    try:
        with pytest.raises(InputTooLargeError) as info:
            read_file_bounded("/dev/zero", 4 * MIB, what="photo")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "/dev/zero" in str(info.value) and "4M limit" in str(info.value)
    assert peak < 12 * MIB              # the limit, a chunk and change; never "everything"


def test_a_fifo_fed_forever_is_read_up_to_the_limit_and_a_fifo_that_closes_is_read_whole(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with open(fifo, "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    with pytest.raises(InputTooLargeError):
        read_file_bounded(fifo, 1 * MIB)
    writer.join(timeout=10)
    assert not writer.is_alive()

    payload = FEATURES.read_bytes()
    writer = threading.Thread(target=lambda: fifo.write_bytes(payload), daemon=True)
    writer.start()
    assert read_file_bounded(fifo, 1 * MIB) == payload
    writer.join(timeout=10)


def test_a_directory_and_a_missing_file_raise_the_os_errors_the_callers_word():
    with pytest.raises(IsADirectoryError):
        read_file_bounded(DATA, 1 * MIB)
    with pytest.raises(FileNotFoundError):
        read_file_bounded(DATA / "no_such_file.pgn", 1 * MIB)


def test_a_stream_is_read_to_its_end_or_to_the_limit():
    assert read_stream_bounded(io.BytesIO(b"abc"), 3, name="standard input") == b"abc"
    with pytest.raises(InputTooLargeError, match="standard input: the file is larger than the 2 limit"):
        read_stream_bounded(io.BytesIO(b"abc"), 2, name="standard input")


@pytest.mark.parametrize("text, size", [("5000000", 5_000_000), ("64M", 64 << 20), ("1.5G", 3 << 29),
                                        ("700k", 700 << 10), ("16MiB", 16 << 20), (" 2 mb ", 2 << 20)])
def test_sizes_are_written_as_people_write_them(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-5", "0", "12T", "5 M B"])
def test_a_size_that_is_no_size_is_refused_naming_it(text):
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


def test_sizes_are_shown_short():
    assert [format_size(n) for n in (12, 1536, 16 << 20, 3 << 29, 700 << 10)] == ["12", "1.5K", "16M", "1.5G",
                                                                                   "700K"]


def test_lines_over_the_limit_come_without_their_bytes_and_the_rest_keep_their_numbers():
    long = b"y" * 5000
    text = b"first\n" + long + b"\nthird\n" + long + b"x"          # the last line: long and torn
    lines = list(iter_lines_bounded(io.BufferedReader(io.BytesIO(text), buffer_size=256), limit=100))
    assert [(ln.number, ln.data, ln.length, ln.ended) for ln in lines] == [
        (1, b"first", 5, True), (2, None, 5000, True), (3, b"third", 5, True), (4, None, 5001, False)]
    exact = list(iter_lines_bounded(io.BytesIO(b"a" * 100 + b"\n" + b"b" * 100), limit=100))
    assert [(ln.data, ln.ended) for ln in exact] == [(b"a" * 100, True), (b"b" * 100, False)]


def test_a_line_splitter_fed_in_pieces_drops_an_over_long_line_as_it_comes():
    splitter = LineSplitter(limit=10)
    assert splitter.feed(b'{"a":1}\n{"b"') [0].data == b'{"a":1}'
    assert splitter.feed(b":2}\n") [0].data == b'{"b":2}'
    got = []
    for _ in range(100):                # a line of 100 KB arriving 1 KB at a time
        got += splitter.feed(b"z" * 1000)
        assert splitter.pending <= 100_000 and len(splitter._partial) <= 10
    got += splitter.feed(b"\nend\n")
    assert [(ln.number, ln.data, ln.length) for ln in got] == [(3, None, 100_000), (4, b"end", 3)]


def test_read_game_file_refuses_past_its_limit_and_names_the_option():
    with pytest.raises(GameFileError) as info:
        read_game_file(FEATURES, max_bytes=100)
    message = str(info.value)
    assert message.startswith(f"{FEATURES}, game file: larger than the 100 limit (100 bytes)")
    assert "--max-bytes" in message
    assert len(read_game_file(FEATURES, max_bytes=FEATURES.stat().st_size)) == 3


def test_read_game_file_of_dev_zero_and_of_a_directory_is_one_clear_error():
    with pytest.raises(GameFileError, match="larger than the 1M limit"):
        read_game_file("/dev/zero", max_bytes=1 * MIB)
    with pytest.raises(GameFileError, match="cannot read the file: Is a directory"):
        read_game_file(DATA)


def test_read_pgn_file_is_bounded_too(tmp_path):
    with pytest.raises(PgnError, match="larger than the 100 limit"):
        read_pgn_file(FEATURES, max_bytes=100)
    assert len(read_pgn_file(FEATURES)) == 3


@pytest.mark.parametrize("path, variations", [
    (CLUB / "test_5_variations.xqf", [4]),           # five lines: the main line and four variations
    (CLUB / "opening_handwritten.cbf", [1]),
    (CLUB / "dpxq_page_gbk.html", [1]),
    (CLUB / "save.xqf", [0]),
    (CLUB / "test2.cbr", [0]),
    (FEATURES, [2, 0, 0]),
])
def test_every_format_counts_the_variations_it_leaves_out(path, variations):
    assert [g.skipped_variations for g in read_game_file(path)] == variations


def test_a_ccbridge_library_counts_variations_per_game_and_stops_at_the_end_of_each_tree():
    games = read_game_file(CLUB / "1966年全国个人赛对局选.CBL")
    counts = [g.skipped_variations for g in games]
    assert len(counts) == 106 and sum(counts) == 101 and counts[1] == 1 and counts[0] == 0


def test_pgn_variations_are_counted_nested_ones_included_and_do_not_change_equality():
    text = ("1. h2e2 (1. b2e2 {x (y} (1. h0g2 h9g7) h9g7 (1... b9c7 {)}) 2. h0g2) h9g7 "
            "2. h0g2 {(} *")
    game = read_pgn(text)[0]
    assert game.skipped_variations == 3
    assert game == read_pgn("1. h2e2 h9g7 2. h0g2 {(} *")[0]


def test_a_dhtmlxq_variation_tag_with_no_moves_is_not_counted():
    block = "[DhtmlXQ][DhtmlXQ_movelist]77477242[/DhtmlXQ_movelist][DhtmlXQ_move_0_1_1][/DhtmlXQ_move_0_1_1][/DhtmlXQ]"
    assert read_games(block.encode())[0].skipped_variations == 0
