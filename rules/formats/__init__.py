"""Game files in the formats Chinese clubs use, read into the same `Game` objects as PGN.

    read_game_file(path, max_bytes=16 MiB) -> GameList (a list of Game, plus `.skipped` and `.format`)
    read_games(data, source=None) -> GameList          detect_format(data) -> str
    write_games(games, fmt="pgn", notation=..., encoding=...) -> bytes

Formats (one module each, pure: bytes or text in, `Game` out): XQF (`xqf`, all versions,
the keyed ones included), CCBridge binary CBR / CBL (`ccbridge`), CCBridge XML CBF (`cbf`),
DhtmlXQ and its UBB variants (`dhtmlxq`), and PGN (`rules.pgn`). The format is found from the
content, not the file name. Every reader keeps the main line (variations are skipped), the
headers the format has, the result and the comments, and replays every move through the
rules, so a game read from any format is legal. Faults raise the format's `GameFileError`
subclass with one line naming the file, the game, the byte offset or ply, and what was
expected; in a library only the broken games are skipped (`GameList.skipped`).
"""
from __future__ import annotations

from pathlib import Path

from rules.bounded_read import GAME_FILE_MAX_BYTES, MAX_BYTES_OPTION, InputTooLargeError, read_file_bounded
from rules.formats.errors import (
    CbfError, CcBridgeError, DhtmlXqError, GameFileError, GameList, SkippedGame, UnknownFormatError, XqfError,
)
from rules.formats.library import READ_FORMATS, WRITE_FORMATS, detect_format, read_games, write_games

__all__ = ["read_game_file", "read_games", "detect_format", "write_games", "READ_FORMATS",
           "WRITE_FORMATS", "GameList", "SkippedGame", "GameFileError", "XqfError", "CcBridgeError",
           "CbfError", "DhtmlXqError", "UnknownFormatError"]


def read_game_file(path: str | Path, max_bytes: int = GAME_FILE_MAX_BYTES,
                   limit_option: str | None = MAX_BYTES_OPTION) -> GameList:
    """Every game in the file at `path`, any format (the only function here that opens a file).

    The result is a list of `Game`; `.skipped` lists the games of a library left out as
    broken and `.format` names the format found. GameFileError (a PgnError) when the file
    cannot be opened, is larger than `max_bytes` (the message names `limit_option` as the way
    to raise the limit), or holds no readable game at all. At most `max_bytes + 1` bytes are
    ever read, so a device or an endless pipe named as the file cannot exhaust memory.
    """
    p = Path(path)
    try:
        data = read_file_bounded(p, max_bytes, what="game file", option=limit_option)
    except OSError as exc:
        raise GameFileError(f"cannot read the file: {exc.strerror or exc}", source=str(p)) from None
    except InputTooLargeError as exc:
        raise GameFileError(exc.detail, source=str(p)) from None
    return read_games(data, str(p))
