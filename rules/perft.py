"""Perft: count the leaves of the legal move tree, the standard check of a move generator.

Bulk counting: at depth 1 the number of legal moves is the count, nothing is played.
"""
from __future__ import annotations

from rules.move import Move
from rules.position import Position


def perft(pos: Position, depth: int) -> int:
    """Leaf nodes of the legal move tree of `pos` to `depth` plies (pos is left unchanged)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    return _perft(pos.copy(), depth)


def _perft(pos: Position, depth: int) -> int:
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    push, pop = pos.push_unchecked, pos.pop
    d = depth - 1
    if d == 1:
        legal = pos.legal_moves
        for mv in moves:
            push(mv)
            total += len(legal())
            pop()
    else:
        for mv in moves:
            push(mv)
            total += _perft(pos, d)
            pop()
    return total


def perft_divide(pos: Position, depth: int) -> list[tuple[Move, int]]:
    """(move, leaf count under it) for every legal first move, in move order (depth >= 1)."""
    if depth < 1:
        raise ValueError(f"perft_divide depth must be >= 1, got {depth}")
    p = pos.copy()
    out = []
    for mv in sorted(p.legal_moves()):
        p.push_unchecked(mv)
        out.append((mv, 1 if depth == 1 else _perft(p, depth - 1)))
        p.pop()
    return out
