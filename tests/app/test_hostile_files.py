"""The real `xqtrack` command on inputs that never end or are not files: /dev/zero, /dev/stdin fed
from /dev/zero, FIFOs, directories, files past the limit. Each run is capped in address space
(RLIMIT_AS) and time, so a read without a limit fails here quickly instead of eating the machine;
every refusal is exit status 1 and one line naming the input, the limit and --max-bytes."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rules.bounded_read import GAME_FILE_MAX_BYTES, PHOTO_MAX_BYTES, format_size

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FEATURES = DATA / "rules" / "features.pgn"
VARIATIONS_XQF = DATA / "games" / "club_formats" / "test_5_variations.xqf"
PHOTO = DATA / "real_boards" / "desk_z4740634087907.jpg"

RULES_CAP = 512 << 20       # convert / adjudicate: python and the rules, plus a 16 MiB read
PHOTO_CAP = 1536 << 20      # read: OpenCV and onnxruntime map a lot before a byte is read


def xqtrack(*args: str, cap: int = RULES_CAP, stdin=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m app.cli ARGS` with at most `cap` bytes of address space."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env, stdin=stdin,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limit)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize("command", ["convert", "adjudicate"])
def test_a_game_command_on_dev_zero_stops_at_the_limit_and_says_so(command):
    line = one_error_line(xqtrack(command, "/dev/zero"))
    assert line.startswith(f"xqtrack {command}: error: /dev/zero, game file: larger than the "
                           f"{format_size(GAME_FILE_MAX_BYTES)} limit ({GAME_FILE_MAX_BYTES} bytes)")
    assert "--max-bytes" in line


@pytest.mark.parametrize("command, path", [("adjudicate", "/dev/stdin"), ("convert", "-"), ("adjudicate", "-")])
def test_standard_input_fed_from_dev_zero_is_read_up_to_the_limit(command, path):
    with open("/dev/zero", "rb") as zero:
        line = one_error_line(xqtrack(command, path, "--max-bytes", "2M", stdin=zero))
    name = "/dev/stdin" if path == "/dev/stdin" else "standard input"
    assert f"{name}, game file: larger than the 2M limit ({2 << 20} bytes)" in line


def test_convert_reads_a_game_from_standard_input():
    with open(FEATURES, "rb") as f:
        done = xqtrack("convert", "-", "--to", "iccs", stdin=f)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count('[Event "') == 3
    assert "standard input: 2 variations in game 1 dropped" in done.stderr


def test_a_fifo_that_never_ends_is_refused_at_the_limit_and_one_that_ends_is_read(tmp_path):
    fifo = tmp_path / "game.pgn"
    os.mkfifo(fifo)

    def flood() -> None:
        try:
            with open(fifo, "wb") as f:
                while True:
                    f.write(b"1. h2e2 h9g7 " * 4096)
        except OSError:             # the reader stopped: the pipe is broken
            pass

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    line = one_error_line(xqtrack("convert", str(fifo), "--max-bytes", "1M"))
    assert f"{fifo}, game file: larger than the 1M limit" in line
    writer.join(timeout=30)
    assert not writer.is_alive()

    writer = threading.Thread(target=lambda: fifo.write_bytes(FEATURES.read_bytes()), daemon=True)
    writer.start()
    done = xqtrack("adjudicate", str(fifo))
    writer.join(timeout=30)
    assert done.returncode == 0, done.stderr
    assert '"ruling": "none"' in done.stdout


@pytest.mark.parametrize("command", ["convert", "adjudicate"])
def test_a_directory_is_not_a_game_file(command):
    line = one_error_line(xqtrack(command, str(DATA)))
    assert line == f"xqtrack {command}: error: {DATA}, game file: cannot read the file: Is a directory"


def test_a_file_past_the_limit_is_refused_and_the_option_raises_the_limit(tmp_path):
    big = tmp_path / "big.pgn"
    with open(big, "wb") as f:
        f.truncate(GAME_FILE_MAX_BYTES + 1)       # sparse: one byte over the default limit
    line = one_error_line(xqtrack("convert", str(big)))
    assert "larger than the 16M limit" in line and "--max-bytes" in line
    raised = one_error_line(xqtrack("convert", str(big), "--max-bytes", "32M"))
    assert "larger than" not in raised and "binary data" in raised      # read now; it is just not a game
    small = one_error_line(xqtrack("adjudicate", str(FEATURES), "--max-bytes", "100"))
    assert "larger than the 100 limit (100 bytes)" in small
    assert xqtrack("adjudicate", str(FEATURES), "--max-bytes", "1M").returncode == 0


def test_a_limit_that_is_no_size_is_a_usage_error():
    done = xqtrack("convert", str(FEATURES), "--max-bytes", "lots")
    assert done.returncode == 2 and "--max-bytes" in done.stderr


def test_convert_says_how_many_variations_it_drops_and_from_which_file():
    done = xqtrack("convert", str(VARIATIONS_XQF), "--to", "iccs")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (f"xqtrack convert: warning: {VARIATIONS_XQF}: 4 variations in game 1 dropped: "
                                   "only the main line of each game is written")
    quiet = xqtrack("convert", str(DATA / "games" / "club_formats" / "save.xqf"), "--to", "iccs")
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.parametrize("path, fragment", [
    ("/dev/zero", f"/dev/zero: the photo is larger than the {format_size(PHOTO_MAX_BYTES)} limit "
                  f"({PHOTO_MAX_BYTES} bytes), not read; raise the limit with --max-bytes"),
    (str(DATA), f"{DATA}: is a directory, not an image file"),
    (str(DATA / "no_such_photo.jpg"), f"no such image file: {DATA / 'no_such_photo.jpg'}"),
    ("/dev/null", "/dev/null: the file is empty, not an image"),
    (str(FEATURES), f"{FEATURES}: not an image OpenCV can decode"),
])
def test_read_names_what_is_wrong_with_the_photo(path, fragment):
    line = one_error_line(xqtrack("read", path, cap=PHOTO_CAP))
    assert fragment in line


def test_read_honours_its_limit_both_ways():
    size = PHOTO.stat().st_size
    line = one_error_line(xqtrack("read", str(PHOTO), "--max-bytes", str(size - 1), cap=PHOTO_CAP))
    assert f"the photo is larger than the {format_size(size - 1)} limit ({size - 1} bytes)" in line
    done = xqtrack("read", str(PHOTO), "--max-bytes", str(size), cap=PHOTO_CAP)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().count("/") == 9       # a FEN board part: the photo was read and decoded


def test_the_help_shows_the_limits_the_readers_apply():
    from app.commands.rules import GAME_FILE_LIMIT_TEXT
    from app.commands.vision import PHOTO_LIMIT_TEXT

    assert GAME_FILE_LIMIT_TEXT == format_size(GAME_FILE_MAX_BYTES)
    assert PHOTO_LIMIT_TEXT == format_size(PHOTO_MAX_BYTES)


@pytest.mark.parametrize("command", [("read",), ("calibrate", "pieces")])
def test_a_small_png_that_declares_a_gigapixel_is_refused_before_it_is_decoded(tmp_path, command):
    from PIL import Image

    bomb = tmp_path / "bomb.png"
    Image.new("L", (20000, 20000)).save(bomb, optimize=True)   # a few hundred KB on disk, 400 MB decoded
    assert bomb.stat().st_size < 2 << 20
    extra = ("--name", "bomb") if command[0] == "calibrate" else ()
    line = one_error_line(xqtrack(*command, str(bomb), *extra, cap=PHOTO_CAP))
    assert f"{bomb}: the image declares far more pixels than the 120 megapixels a photo may have" in line
