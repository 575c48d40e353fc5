"""xqtrack rules: pure Xiangqi rules and notation (no I/O, no import of vision/board).

Core API (see docs in each module): Position, Move, FEN, legal moves, check/mate, outcome,
Zobrist hash; perft in `rules.perft`; notation in `rules.notation`; game files in `rules.pgn`;
repetition rulings (棋例) in `rules.repetition`.
"""
from rules.errors import FenError, ImpossiblePositionError, MoveError, NotationError, PgnError, RulesError
from rules.move import Move
from rules.position import SIXTY_MOVE_PLIES, START_FEN, Outcome, Position, position_from_fen
from rules.squares import BLACK, FILES, RED, SQUARE_NAMES, Side, opposite, parse_square, square, square_name

__all__ = [
    "Position", "Move", "Outcome", "Side", "RED", "BLACK", "START_FEN", "SIXTY_MOVE_PLIES",
    "square_name", "parse_square", "square", "opposite", "FILES", "SQUARE_NAMES",
    "RulesError", "FenError", "ImpossiblePositionError", "position_from_fen", "MoveError", "NotationError", "PgnError",
]
