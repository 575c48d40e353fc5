"""Exception hierarchy of the rules package.

Every error is a `ValueError` (bad input, never a bug) so callers that only care about
"was the text acceptable" can catch one class; the subclasses say which kind of text failed.
The message always names what was wrong and where, because the people reading it are
arbiters and operators at a tournament table, not the programmer.
"""
from __future__ import annotations


class RulesError(ValueError):
    """Base of every error raised by `rules` for bad input."""


class FenError(RulesError):
    """A FEN string that cannot describe a position (the message names the field, rank and column)."""


class ImpossiblePositionError(FenError):
    """A well-formed FEN whose placement no game can reach (three generals, an elephant across the
    river, ...). `problems` lists each reason; commands accept it only with --allow-impossible."""

    def __init__(self, message: str, problems: list[str]) -> None:
        super().__init__(message)
        self.problems = list(problems)


class MoveError(RulesError):
    """A move that is malformed, or illegal in the position it was played in."""


class NotationError(RulesError):
    """A move text (ICCS, WXF, Chinese, 一字三码) that names no legal move, or more than one."""


class PgnError(RulesError):
    """A game file that cannot be read to the end.

    `game_index` (0-based) and `ply` (0-based index of the bad move in that game, or None when
    the fault is not in a move) locate the fault, `token` is the offending text, and `games`
    holds the games read completely before it, so nothing recorded is lost.
    """

    def __init__(self, message: str, *, game_index: int | None = None, ply: int | None = None,
                 token: str | None = None, games: list | None = None) -> None:
        super().__init__(message)
        self.game_index = game_index
        self.ply = ply
        self.token = token
        self.games = list(games) if games is not None else []
