"""Shared helpers for the rules tests: build FENs from {point: letter} so cases read clearly."""
from __future__ import annotations

from rules import parse_square


def fen_of(pieces: dict[str, str], turn: str = "w", halfmove: int = 0, fullmove: int = 1) -> str:
    """FEN from {'e0': 'K', 'e9': 'k', ...}."""
    board = {parse_square(name): letter for name, letter in pieces.items()}
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for file in range(9):
            letter = board.get(rank * 9 + file)
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn} - - {halfmove} {fullmove}"


def iccs_set(moves) -> set[str]:
    return {m.iccs() for m in moves}


def moves_from(pos, name: str) -> set[str]:
    sq = parse_square(name)
    return {m.iccs() for m in pos.legal_moves() if m.from_sq == sq}
