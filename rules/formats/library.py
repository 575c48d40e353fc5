"""Any game file to games and back: the format found from the bytes, one reader per format.

    detect_format(data) -> "xqf" | "cbr" | "cbl" | "cbf" | "dhtmlxq" | "pgn"
    read_games(data, source=None) -> GameList          (broken library games skipped, listed)
    write_games(games, fmt, notation=..., encoding=...) -> bytes

Detection looks at content, not the file name, because club files travel renamed (a .txt
that holds a DhtmlXQ block, a .pgn that is really an XQF). Binary formats have fixed marks
("XQ" + a 1024-byte header, "CCBridge Record", "CCBridgeLibrary"); CBF is XML with a
<ChineseChessRecord> root; text holding a DhtmlXQ block is DhtmlXQ; other text is PGN.

A library (CBL, a PGN or a page with several games) loses only its broken games: each one is
reported as a `SkippedGame` naming the game number and the fault; a single-game file that
cannot be read raises its format's error (a `GameFileError`, itself a `PgnError`).
"""
from __future__ import annotations

import re
from typing import Iterable

from rules.errors import PgnError
from rules.pgn import FORMAT_NAMES, Game, decode_game_file, read_pgn, write_pgn
from rules.notation import canonical_notation

from rules.formats import ccbridge, cbf, dhtmlxq, xqf
from rules.formats.errors import GameFileError, GameList, SkippedGame, UnknownFormatError

READ_FORMATS = ("pgn", "xqf", "cbr", "cbl", "cbf", "dhtmlxq")
WRITE_FORMATS = ("pgn", "xqf", "dhtmlxq", "cbf")
SINGLE_GAME_FORMATS = ("xqf", "cbf")
ENCODINGS = ("utf-8", "gbk")


def detect_format(data: bytes) -> str:
    """The format of a game file from its bytes (see the module docstring)."""
    return _detect(data)[0]


def _detect(data: bytes, source: str | None = None) -> tuple[str, str]:
    """(format, decoded text or "" for the binary formats)."""
    fmt = _binary_format(data, source)
    if fmt != "text":
        return fmt, ""
    try:
        text = decode_game_file(data, "text")
    except PgnError as exc:
        raise UnknownFormatError(f"none of the game-file formats (XQF, CBR, CBL, CBF, DhtmlXQ, PGN): "
                                 f"{str(exc).removeprefix('text: ')}", source=source, offset=0) from None
    return ("dhtmlxq" if dhtmlxq.looks_like_dhtmlxq(text) else "pgn"), text


def _binary_format(data: bytes, source: str | None) -> str:
    if data.startswith(ccbridge.LIBRARY_MAGIC):
        return "cbl"
    if data.startswith(ccbridge.RECORD_MAGIC):
        return "cbr"
    if data.startswith(xqf.MAGIC) and b"\x00" in data[:xqf.HEADER_SIZE]:     # binary, even if cut short
        return "xqf"
    if cbf.looks_like_cbf(data[:4096]):
        return "cbf"
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnknownFormatError("binary data that is none of XQF ('XQ'), CBR ('CCBridge Record'), "
                                 "CBL ('CCBridgeLibrary') (expected one of those marks or text)", source=source,
                                 offset=0)
    return "text"


def read_games(data: bytes, source: str | None = None) -> GameList:
    """Every game in `data`, whatever its format; see the module docstring for errors."""
    fmt, text = _detect(data, source)
    if fmt == "xqf":
        return GameList([xqf.read_xqf(data, source)], fmt=fmt)
    if fmt == "cbr":
        return GameList([ccbridge.read_cbr(data, source)], fmt=fmt)
    if fmt == "cbl":
        return ccbridge.read_cbl(data, source)
    if fmt == "cbf":
        return GameList([cbf.read_cbf(data, source)], fmt=fmt)
    if fmt == "dhtmlxq":
        return dhtmlxq.read_dhtmlxq(text, source)
    return read_pgn_library(text, source)


# ---- PGN libraries: a broken game is skipped, not the rest ----------------------------------

_TAG_LINE_RE = re.compile(r'^\s*\[\s*[A-Za-z0-9_]+\s+"')


def _split_pgn(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each game: a new game starts at a tag after movetext."""
    chunks: list[tuple[int, list[str]]] = []
    in_tags = False
    for number, line in enumerate(text.splitlines(), start=1):
        is_tag = bool(_TAG_LINE_RE.match(line))
        if is_tag and not in_tags or not chunks:
            chunks.append((number, []))
        if line.strip():
            in_tags = is_tag
        chunks[-1][1].append(line)
    return [(start, "\n".join(lines)) for start, lines in chunks]


def read_pgn_library(text: str, source: str | None = None) -> GameList:
    """Every game of a PGN text; a game that cannot be read is skipped and listed."""
    try:
        return GameList(read_pgn(text), fmt="pgn")
    except PgnError as exc:
        whole_file_error = exc
    games = GameList(fmt="pgn")
    for start, chunk in _split_pgn(text):
        number = len(games) + len(games.skipped) + 1
        try:
            found = read_pgn("\n" * (start - 1) + chunk)   # padded so line numbers are the file's
        except PgnError as exc:
            detail = re.sub(r"^game 1\b", f"game {number}", str(exc))
            games.extend(exc.games)
            games.skipped.append(SkippedGame(number + len(exc.games),
                                             f"{source + ': ' if source else ''}{detail}"))
            continue
        games.extend(found)
    if not games:
        raise whole_file_error      # not one readable game: the file is not a PGN library
    return games


# ---- writing ----------------------------------------------------------------------------------

def write_games(games: Iterable[Game], fmt: str = "pgn", notation: str = "chinese",
                traditional: bool = False, encoding: str = "utf-8", iccs_style: str = "xqbase") -> bytes:
    """`games` as the bytes of a file in `fmt` (pgn, xqf, dhtmlxq, cbf).

    PGN and DhtmlXQ hold many games; XQF and CBF hold one (ValueError for more). `notation`,
    `traditional` and `iccs_style` shape PGN moves; `encoding` (utf-8 or gbk) is the text
    encoding of PGN and DhtmlXQ (XQF text is always GBK, CBF always UTF-8). A character
    GBK cannot hold is written as '?'.
    """
    games = list(games)
    fmt = fmt.lower()
    if fmt not in WRITE_FORMATS:
        raise ValueError(f"cannot write format {fmt!r}: choose one of {', '.join(WRITE_FORMATS)}")
    if encoding.lower().replace("_", "-") not in ENCODINGS:
        raise ValueError(f"encoding {encoding!r}: choose one of {', '.join(ENCODINGS)}")
    if fmt in SINGLE_GAME_FORMATS and len(games) != 1:
        raise ValueError(f"{fmt.upper()} holds one game and there are {len(games)}: "
                         "write pgn or dhtmlxq for a library")
    if fmt == "xqf":
        return xqf.write_xqf(games[0])
    if fmt == "cbf":
        return cbf.write_cbf(games[0])
    if fmt == "dhtmlxq":
        text = "\n".join(dhtmlxq.write_dhtmlxq(g) for g in games)
    else:
        canonical_notation(notation)
        text = "\n".join(write_pgn(g, notation=notation, traditional=traditional, iccs_style=iccs_style)
                         for g in games)
    return text.encode("gbk" if encoding.lower() == "gbk" else "utf-8", errors="replace")


__all__ = ["detect_format", "read_games", "read_pgn_library", "write_games", "READ_FORMATS",
           "WRITE_FORMATS", "GameFileError", "FORMAT_NAMES"]
