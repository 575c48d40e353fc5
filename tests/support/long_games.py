"""Long games for the repetition tests and bench/rules_bench.py: the shapes that once made
`adjudicate` quadratic.

* `horse_shuffle(plies)`: both sides shuffle a horse out and back (b0c2 b9c7 c2b0 c7b9) from the
  start, so every position recurs every 4 plies: the most repetitions a game can hold.
* `mixed_game(plies, seed)`: from the start, each side moves one of three pieces (horse,
  chariot, advisor) out of or back to its home point, at random: no capture, no soldier move,
  so nothing is ever out of reach. Positions recur after gaps of every length, cycles run
  through different pieces, and few (position, move) pairs exist, so the figure measures the
  repetition search rather than the move classifier.
"""
from __future__ import annotations

import random

from rules import Move, Position

HORSE_CYCLE = ("b0c2", "b9c7", "c2b0", "c7b9")
# (home, away) points of the pieces each side moves in the mixed game; no two interfere
TOGGLES = {"w": (("b0", "c2"), ("a0", "a1"), ("f0", "e1")), "b": (("b9", "c7"), ("i9", "i8"), ("f9", "e8"))}


def horse_shuffle(plies: int) -> list[Move]:
    """`plies` moves of the horse shuffle from the start position."""
    cycle = [Move.from_iccs(m) for m in HORSE_CYCLE]
    return [cycle[i % 4] for i in range(plies)]


def mixed_game(plies: int, seed: int = 43) -> list[Move]:
    """`plies` legal moves from the start position (see the module docstring); the same for a seed."""
    rng = random.Random(seed)
    pos = Position()
    away = {side: [False] * len(pieces) for side, pieces in TOGGLES.items()}
    moves: list[Move] = []
    for _ in range(plies):
        side = pos.turn
        i = rng.randrange(len(TOGGLES[side]))
        home, out = TOGGLES[side][i]
        move = Move.from_iccs(out + home if away[side][i] else home + out)
        pos.push(move)          # checks legality: the walk stays a game
        away[side][i] = not away[side][i]
        moves.append(move)
    return moves


def pgn_text(moves: list[Move], event: str = "long game") -> str:
    """The moves from the start position as a PGN file in ICCS notation."""
    from rules.pgn import Game, write_pgn

    return write_pgn(Game(headers={"Event": event}, moves=list(moves)), notation="iccs", iccs_style="plain")
