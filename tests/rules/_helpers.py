"""Shared helpers for the rules tests: build FENs from {point: letter} so cases read clearly."""
from __future__ import annotations

import random

from rules import Move, Position, parse_square
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


def flip_fen(fen: str) -> str:
    """The colour mirror of a position: ranks reversed, colours swapped, the other side to move."""
    board, turn, *rest = fen.split()
    return " ".join(["/".join(r.swapcase() for r in board.split("/")[::-1]), "b" if turn == "w" else "w", *rest])


def flip_move(m: str) -> str:
    """The colour mirror of an ICCS move."""
    return f"{m[0]}{9 - int(m[1])}{m[2]}{9 - int(m[3])}"


# A ruling for one side is the same ruling for the other side of the colour mirror.
SWAP_SIDES = {"red_loses": "black_loses", "black_loses": "red_loses", "red_must_vary": "black_must_vary",
              "black_must_vary": "red_must_vary", "draw": "draw", "none": "none"}


def random_position_and_move(seed: int, plies: int) -> tuple[Position, Move] | None:
    """A position `plies` random legal moves from the start and a random legal move in it
    (None when the random game ended first)."""
    rng = random.Random(seed)
    pos = Position()
    for _ in range(plies):
        legal = pos.legal_moves()
        if not legal:
            return None
        pos.push(rng.choice(legal))
    legal = pos.legal_moves()
    if not legal:
        return None
    return pos, rng.choice(legal)
