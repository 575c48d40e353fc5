"""Error and report types shared by the game-file codecs.

Every codec raises its own subclass of `GameFileError` (itself a `PgnError`, so callers that
already catch the PGN reader's error catch these too). The message is one line naming the
file (when known), the game (1-based), the byte offset or the ply, and what was expected,
because the reader of the message is a club arbiter with a broken file, not the programmer.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules.errors import PgnError


class GameFileError(PgnError):
    """A game file in a club format that cannot be read (subclasses name the format).

    `offset` is the byte (or, for text formats, character) offset of the fault when known;
    `ply` (0-based) the bad move; `game_index` (0-based) the game inside a library.
    """

    format_name = "game file"
    offset_unit = "byte"      # text formats count characters of the decoded text

    def __init__(self, message: str, *, source: str | None = None, game_index: int | None = None,
                 ply: int | None = None, offset: int | None = None, token: str | None = None,
                 games: list | None = None) -> None:
        self.detail = message
        self.source = source
        self.offset = offset
        super().__init__(self._compose(message, source, game_index, ply, offset),
                         game_index=game_index, ply=ply, token=token, games=games)

    def _compose(self, message: str, source: str | None, game_index: int | None,
                 ply: int | None, offset: int | None) -> str:
        where = [] if source is None else [source]
        where.append(self.format_name)
        if game_index is not None:
            where.append(f"game {game_index + 1}")
        if ply is not None:
            where.append(f"ply {ply + 1}")
        if offset is not None:
            where.append(f"{self.offset_unit} {offset}")
        return f"{', '.join(where)}: {message}"

    def located(self, *, source: str | None = None, game_index: int | None = None,
                offset_base: int = 0) -> "GameFileError":
        """The same fault placed in a file / library (offsets shifted by `offset_base`)."""
        offset = None if self.offset is None else self.offset + offset_base
        return type(self)(self.detail, source=source if source is not None else self.source,
                          game_index=game_index if game_index is not None else self.game_index,
                          ply=self.ply, offset=offset, token=self.token, games=self.games)


class XqfError(GameFileError):
    """An XQF (XQStudio) file that cannot be read."""

    format_name = "XQF"


class CcBridgeError(GameFileError):
    """A CCBridge (象棋桥) binary record (CBR) or library (CBL) that cannot be read."""

    format_name = "CCBridge"


class CbfError(GameFileError):
    """A CCBridge XML record (CBF) that cannot be read."""

    format_name = "CBF"


class DhtmlXqError(GameFileError):
    """A DhtmlXQ / UBB block that cannot be read."""

    format_name = "DhtmlXQ"
    offset_unit = "character"


class UnknownFormatError(GameFileError):
    """Bytes that are none of the game-file formats xqtrack reads."""

    format_name = "game file"


@dataclass(frozen=True)
class SkippedGame:
    """One game of a library that could not be read and was left out (the rest are kept)."""

    game_number: int        # 1-based, as a user counts games in the library
    message: str            # the one-line error, naming file, game and offset/ply

    def __str__(self) -> str:
        return self.message


class GameList(list):
    """The games read from one file (a plain list of `Game`) plus the games skipped as broken.

    A library with one damaged game must still convert: `skipped` says which games were left
    out and why, so the command line can print one line for each.
    """

    def __init__(self, games=(), skipped: list[SkippedGame] | None = None, fmt: str = "") -> None:
        super().__init__(games)
        self.skipped: list[SkippedGame] = list(skipped or [])
        self.format = fmt
