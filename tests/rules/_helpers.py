"""Shared helpers for the rules tests: build FENs from {point: letter} so cases read clearly."""
from __future__ import annotations

from rules import parse_square
from rules.squares import placement_from_points


def fen_of(pieces: dict[str, str], turn: str = "w", halfmove: int = 0, fullmove: int = 1) -> str:
    """FEN from {'e0': 'K', 'e9': 'k', ...}."""
    board = {parse_square(name): letter for name, letter in pieces.items()}
    placement = placement_from_points("".join(board.get(sq, ".") for sq in range(90)))
    return f"{placement} {turn} - - {halfmove} {fullmove}"


def iccs_set(moves) -> set[str]:
    return {m.iccs() for m in moves}


def moves_from(pos, name: str) -> set[str]:
    sq = parse_square(name)
    return {m.iccs() for m in pos.legal_moves() if m.from_sq == sq}
