"""Precomputed per-square move and attack tables (built once at import).

Why tables: in pure Python the cost of move generation is the number of bytecodes per
candidate move. Every geometric question (where can a horse on e3 go, which point is its
leg, which points could a horse attack e0 from) is answered here once, so the generator only
looks up the board. The tables also carry the shared `Move` instances so generation never
builds objects.

Pieces on the internal board are ints: red K A B N R C P = 1..7, black = -1..-7, empty = 0.
Side index 0 = red, 1 = black. Sources are unrestricted (odd set-ups may put a piece anywhere);
destinations obey the piece's region (palace, own half), so a piece placed off its points can
still move back onto them when the geometry allows.
"""
from __future__ import annotations

import random

from rules.move import Move

K, A, B, N, R, C, P = 1, 2, 3, 4, 5, 6, 7
LETTER_TO_CODE = {"K": K, "A": A, "B": B, "N": N, "R": R, "C": C, "P": P,
                  "k": -K, "a": -A, "b": -B, "n": -N, "r": -R, "c": -C, "p": -P,
                  # accepted on input only: E = elephant, H = horse
                  "E": B, "H": N, "e": -B, "h": -N}
CODE_TO_LETTER = {0: None, K: "K", A: "A", B: "B", N: "N", R: "R", C: "C", P: "P",
                  -K: "k", -A: "a", -B: "b", -N: "n", -R: "r", -C: "c", -P: "p"}
PIECE_NAMES = {K: "general", A: "advisor", B: "elephant", N: "horse", R: "chariot", C: "cannon", P: "soldier"}

_MOVES: dict[tuple[int, int], Move] = {}


def move_of(f: int, t: int) -> Move:
    """The shared Move instance for (f, t)."""
    mv = _MOVES.get((f, t))
    if mv is None:
        mv = _MOVES[(f, t)] = Move(f, t)
    return mv


def _on(file: int, rank: int) -> bool:
    return 0 <= file <= 8 and 0 <= rank <= 9


def in_palace(side: int, sq: int) -> bool:
    f, r = sq % 9, sq // 9
    return 3 <= f <= 5 and (r <= 2 if side == 0 else r >= 7)


def own_half(side: int, sq: int) -> bool:
    return sq // 9 <= 4 if side == 0 else sq // 9 >= 5


ADVISOR_POINTS = ({3, 5, 13, 21, 23}, {84, 86, 76, 66, 68})
ELEPHANT_POINTS = ({2, 6, 18, 22, 26, 38, 42}, {83, 87, 63, 67, 71, 47, 51})

_DIRS = ((0, 1), (0, -1), (-1, 0), (1, 0))  # up (+rank), down, left (-file), right

# RAY_SQS[sq] = 4 tuples of squares outward from sq (up, down, left, right)
RAY_SQS: list[tuple[tuple[int, ...], ...]] = []
# ROOK_RAYS[sq] = same rays as tuples of (to_sq, Move)
ROOK_RAYS: list[tuple[tuple[tuple[int, Move], ...], ...]] = []
# HORSE[sq] = (leg, to_sq, Move); HORSE_ATK[sq] = (horse_sq, leg) for horses that attack sq
HORSE: list[tuple[tuple[int, int, Move], ...]] = []
HORSE_ATK: list[list[tuple[int, int]]] = [[] for _ in range(90)]
# LEG_GROUPS[sq] = (leg, (horse squares that attack sq through that leg)) -- for pin detection
LEG_GROUPS: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
# per side: ELEPHANT[side][sq] = (eye, to, Move); ELEPHANT_ATK[side][sq] = (elephant_sq, eye)
ELEPHANT: tuple[list, list] = ([], [])
ELEPHANT_ATK: tuple[list, list] = ([[] for _ in range(90)], [[] for _ in range(90)])
# ADVISOR / KING / PAWN[side][sq] = (to, Move); *_ATK[side][sq] = source squares attacking sq
ADVISOR: tuple[list, list] = ([], [])
ADVISOR_ATK: tuple[list, list] = ([[] for _ in range(90)], [[] for _ in range(90)])
KING: tuple[list, list] = ([], [])
KING_ATK: tuple[list, list] = ([[] for _ in range(90)], [[] for _ in range(90)])
PAWN: tuple[list, list] = ([], [])
PAWN_ATK: tuple[list, list] = ([[] for _ in range(90)], [[] for _ in range(90)])
# ON_LINE[a][b]: a and b share a file or a rank
SAME_FILE = [[a % 9 == b % 9 for b in range(90)] for a in range(90)]


def _build() -> None:
    for sq in range(90):
        f0, r0 = sq % 9, sq // 9
        rays = []
        for df, dr in _DIRS:
            ray = []
            f, r = f0 + df, r0 + dr
            while _on(f, r):
                ray.append(r * 9 + f)
                f, r = f + df, r + dr
            rays.append(tuple(ray))
        RAY_SQS.append(tuple(rays))
        ROOK_RAYS.append(tuple(tuple((t, move_of(sq, t)) for t in ray) for ray in rays))

        horse = []
        for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
            if not _on(f0 + df, r0 + dr):
                continue
            leg = (r0 + (dr // 2 if abs(dr) == 2 else 0)) * 9 + f0 + (df // 2 if abs(df) == 2 else 0)
            t = (r0 + dr) * 9 + f0 + df
            horse.append((leg, t, move_of(sq, t)))
            HORSE_ATK[t].append((sq, leg))
        HORSE.append(tuple(horse))

        for side in (0, 1):
            el = []
            for df, dr in ((2, 2), (2, -2), (-2, 2), (-2, -2)):
                if _on(f0 + df, r0 + dr):
                    t = (r0 + dr) * 9 + f0 + df
                    if own_half(side, t):
                        eye = (r0 + dr // 2) * 9 + f0 + df // 2
                        el.append((eye, t, move_of(sq, t)))
                        ELEPHANT_ATK[side][t].append((sq, eye))
            ELEPHANT[side].append(tuple(el))

            adv = []
            for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                if _on(f0 + df, r0 + dr) and in_palace(side, (r0 + dr) * 9 + f0 + df):
                    t = (r0 + dr) * 9 + f0 + df
                    adv.append((t, move_of(sq, t)))
                    ADVISOR_ATK[side][t].append(sq)
            ADVISOR[side].append(tuple(adv))

            king = []
            for df, dr in _DIRS:
                if _on(f0 + df, r0 + dr) and in_palace(side, (r0 + dr) * 9 + f0 + df):
                    t = (r0 + dr) * 9 + f0 + df
                    king.append((t, move_of(sq, t)))
                    KING_ATK[side][t].append(sq)
            KING[side].append(tuple(king))

            pawn = []
            fwd = 1 if side == 0 else -1
            crossed = not own_half(side, sq)
            steps = [(0, fwd)] + ([(-1, 0), (1, 0)] if crossed else [])
            for df, dr in steps:
                if _on(f0 + df, r0 + dr):
                    t = (r0 + dr) * 9 + f0 + df
                    pawn.append((t, move_of(sq, t)))
                    PAWN_ATK[side][t].append(sq)
            PAWN[side].append(tuple(pawn))

    for sq in range(90):
        groups: dict[int, list[int]] = {}
        for h, leg in HORSE_ATK[sq]:
            groups.setdefault(leg, []).append(h)
        LEG_GROUPS.append(tuple((leg, tuple(hs)) for leg, hs in groups.items()))


_build()

# Zobrist keys: fixed seed so hashes are stable across runs and machines (they may be stored).
_rng = random.Random(0x58517A636B)
ZOBRIST: list[list[int]] = [[_rng.getrandbits(64) for _ in range(90)] for _ in range(15)]  # [code + 7][sq]
for _sq in range(90):
    ZOBRIST[7][_sq] = 0  # empty
ZOBRIST_BLACK_TO_MOVE: int = _rng.getrandbits(64)
del _rng, _sq
