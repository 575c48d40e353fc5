"""Xiangqi positions: FEN, legal moves, check and mate, make/undo, Zobrist hash, outcome.

Design (speed in pure Python):
- The board is a list of 90 ints (red 1..7, black -1..-7, 0 empty; see `rules._tables`), plus a
  set of occupied squares per side and the list of general squares per side, all kept in step
  by push/pop, so the generator visits only the side's pieces.
- Moves are generated pseudo-legally from precomputed tables. Legality is then decided without
  re-generating anything: one scan from the side's general finds (a) whether it is in check,
  (b) the few own pieces whose departure could expose it (a single blocker in front of a
  chariot or the enemy general, either of two screens in front of a cannon, a piece on a horse
  leg next to the general), and (c) the empty points between the general and an unscreened
  enemy cannon (stepping there makes a screen). Only moves of the general, moves of those
  pieces, or all moves when in check, are made on the board and tested with one attack probe
  on the general's square. A move to a (c) point is rejected outright.
- Positions with other than one general per side (odd studies) take a plain path that tests
  every pseudo-legal move against every own general.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterable

from rules import _tables as T
from rules._tables import A, B, C, K, N, P, R
from rules.errors import FenError, ImpossiblePositionError, MoveError, RulesError
from rules.move import Move
from rules.squares import BLACK, COLOR_NAMES, FILES, RED, SQUARE_NAMES, placement_from_points

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

#: Plies without a capture after which the game is drawn: 60 moves by each side.
SIXTY_MOVE_PLIES = 120

_ZOB = T.ZOBRIST
_ZB = T.ZOBRIST_BLACK_TO_MOVE
_RAYS = T.RAY_SQS
_ROOK = T.ROOK_RAYS
_HORSE = T.HORSE
_HORSE_ATK = T.HORSE_ATK
_LEGS = T.LEG_GROUPS
_ELE, _ELE_ATK = T.ELEPHANT, T.ELEPHANT_ATK
_ADV, _ADV_ATK = T.ADVISOR, T.ADVISOR_ATK
_KING, _KING_ATK = T.KING, T.KING_ATK
_PAWN, _PAWN_ATK = T.PAWN, T.PAWN_ATK
_SIDE_OF = {RED: 0, BLACK: 1}
_COLOR_OF = (RED, BLACK)


@dataclass(frozen=True)
class Outcome:
    """How a game ended. `winner` is "w", "b" or None (draw)."""

    winner: str | None
    reason: str  # "checkmate" | "no_legal_moves" | "sixty_moves"
    result: str  # "1-0" | "0-1" | "1/2-1/2"


def _king_attacked(b: list[int], ksq: int, side: int) -> bool:
    """Is the general of `side` standing on `ksq` attacked by the other side?

    The full probe (every piece kind, including odd placements of advisors and elephants and
    the flying general along the file). Used to test one candidate move at a time.
    """
    s = 1 if side == 0 else -1
    eR, eC, eK, eN = -R * s, -C * s, -K * s, -N * s
    d = 0
    for ray in _RAYS[ksq]:
        it = iter(ray)
        for t in it:
            v = b[t]
            if v:
                if v == eR or (v == eK and d < 2):
                    return True
                break
        for t in it:
            v = b[t]
            if v:
                if v == eC:
                    return True
                break
        d += 1
    for h, leg in _HORSE_ATK[ksq]:
        if b[h] == eN and not b[leg]:
            return True
    return _near_attacked(b, ksq, side)


def _near_attacked(b: list[int], ksq: int, side: int) -> bool:
    """The part of `_king_attacked` not covered by the ray/horse scan of `legal_moves`."""
    s = 1 if side == 0 else -1
    o = 1 - side
    eP = -P * s
    for p in _PAWN_ATK[o][ksq]:
        if b[p] == eP:
            return True
    eK = -K * s
    for p in _KING_ATK[o][ksq]:
        if b[p] == eK:
            return True
    eA = -A * s
    for p in _ADV_ATK[o][ksq]:
        if b[p] == eA:
            return True
    eB = -B * s
    for p, eye in _ELE_ATK[o][ksq]:
        if b[p] == eB and not b[eye]:
            return True
    return False


def _gen(b: list[int], squares: Iterable[int], side: int, sens, safe: list, test: list) -> None:
    """Pseudo-legal moves of `side`'s pieces on `squares`; moves of pieces in `sens` go to
    `test` (their legality must be probed), all others to `safe`. Written flat on purpose:
    this is the hot loop of perft and of every legality question."""
    s = 1 if side == 0 else -1
    ele, adv, king, pawn = _ELE[side], _ADV[side], _KING[side], _PAWN[side]
    for f in squares:
        k = b[f] * s
        out = test.append if f in sens else safe.append
        if k == R:
            for ray in _ROOK[f]:
                for t, mv in ray:
                    v = b[t]
                    if not v:
                        out(mv)
                    else:
                        if v * s < 0:
                            out(mv)
                        break
        elif k == P:
            for t, mv in pawn[f]:
                if b[t] * s <= 0:
                    out(mv)
        elif k == C:
            for ray in _ROOK[f]:
                it = iter(ray)
                for t, mv in it:
                    if not b[t]:
                        out(mv)
                    else:
                        break
                for t, mv in it:
                    v = b[t]
                    if v:
                        if v * s < 0:
                            out(mv)
                        break
        elif k == N:
            for leg, t, mv in _HORSE[f]:
                if not b[leg] and b[t] * s <= 0:
                    out(mv)
        elif k == B:
            for eye, t, mv in ele[f]:
                if not b[eye] and b[t] * s <= 0:
                    out(mv)
        elif k == A:
            for t, mv in adv[f]:
                if b[t] * s <= 0:
                    out(mv)
        elif k == K:
            for t, mv in king[f]:
                if b[t] * s <= 0:
                    out(mv)


_EMPTY: frozenset[int] = frozenset()


class Position:
    """A Xiangqi position with its move history (make/undo), in the spirit of python-chess.

    Squares are 0..89 (rank * 9 + file, a0 = 0); pieces are FEN letters; colours "w"/"b".
    """

    __slots__ = ("_b", "_sq", "_kings", "_side", "_hash", "halfmove_clock", "fullmove_number",
                 "move_stack", "_undo")

    def __init__(self, fen: str = START_FEN) -> None:
        self._set_fen(fen)

    # ------------------------------------------------------------------ FEN
    @classmethod
    def from_fen(cls, fen: str) -> "Position":
        """Parse a FEN (Pikafish style: `<board> <w|b> - - <halfmove> <fullmove>`).

        Accepted on input: H/h for horse, E/e for elephant, `r` for red to move, the two `-`
        fields omitted (`<board> w 0 1`) or the counters omitted (`<board> w`). FenError names
        the field, rank (ICCS number, 9 = top of the FEN) and column of the fault. A move
        number of 0 (written by some tools) is read as 1.
        """
        return cls(fen)

    @classmethod
    def from_board(cls, board_fen: str, turn: str = RED) -> "Position":
        """A position from the placement part only (e.g. what the camera read)."""
        return cls(f"{board_fen} {turn}")

    def _set_fen(self, fen: str) -> None:
        if not isinstance(fen, str):
            raise FenError(f"FEN must be text, got {type(fen).__name__}")
        fields = fen.split()
        if not fields:
            raise FenError("FEN is empty")
        b = _parse_board(fields[0])
        if len(fields) < 2:
            raise FenError(f"FEN {fen!r} has no side-to-move field: add ' w' (red) or ' b' (black) after the board")
        side_field = fields[1]
        if side_field in ("w", "r", "W", "R"):
            side = 0
        elif side_field in ("b", "B"):
            side = 1
        else:
            raise FenError(f"FEN side-to-move field {side_field!r} (field 2) must be 'w' or 'r' (red) or 'b' (black)")
        rest = fields[2:]
        if len(rest) == 2 and all(x.lstrip("-").isascii() and x.lstrip("-").isdigit() for x in rest):
            counters = rest
        elif len(rest) in (0, 2, 4):
            for i, x in enumerate(rest[:2]):
                if x != "-":
                    raise FenError(f"FEN field {i + 3} is {x!r}, expected '-' (xiangqi has no castling or en passant)")
            counters = rest[2:]
        else:
            raise FenError(f"FEN has {len(fields)} fields, expected 2, 4 or 6 (board, side, '-', '-', halfmove clock, move number)")
        halfmove, fullmove = 0, 1
        if counters:
            names = ("halfmove clock", "move number")
            vals = []
            for name, x in zip(names, counters):
                if not (x.isascii() and x.isdigit()):
                    raise FenError(f"FEN {name} {x!r} is not a non-negative whole number")
                vals.append(int(x))
            halfmove, fullmove = vals[0], max(1, vals[1])
        for code, name in ((K, "red general (K)"), (-K, "black general (k)")):
            if code not in b:
                raise FenError(f"FEN board {fields[0]!r} has no {name}")
        red: set[int] = set()
        black: set[int] = set()
        h = _ZB if side else 0
        for sq, v in enumerate(b):
            if v:
                (red if v > 0 else black).add(sq)
                h ^= _ZOB[v + 7][sq]
        self._b = b
        self._sq = [red, black]
        self._kings = [[sq for sq in sorted(red) if b[sq] == K], [sq for sq in sorted(black) if b[sq] == -K]]
        self._side = side
        self.halfmove_clock = halfmove
        self.fullmove_number = fullmove
        self.move_stack: list[Move] = []
        self._undo: list[tuple[int, int, int]] = []
        self._hash = h

    def points(self) -> str:
        """The 90 points in index order (rank 0 first), a FEN letter or '.': the board string the
        vision part reads and learns piece sets from."""
        return "".join(T.CODE_TO_LETTER[v] or "." for v in self._b)

    def placement_key(self) -> bytes:
        """The 90 points as 90 bytes (piece codes of `rules._tables`, 0 = empty), index order.

        The exact placement in a form that is cheap to make and to compare (a C-level copy, no
        text): what a table of positions keyed by `zobrist_hash` stores to confirm a hit."""
        return array("b", self._b).tobytes()

    def board_fen(self) -> str:
        """Placement part of the FEN, rank 9 first."""
        return placement_from_points(self.points())

    def fen(self) -> str:
        return f"{self.board_fen()} {'wb'[self._side]} - - {self.halfmove_clock} {self.fullmove_number}"

    def __repr__(self) -> str:
        return f"Position.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        """Text diagram, rank 9 at the top (uppercase red)."""
        lines = []
        for rank in range(9, -1, -1):
            cells = [T.CODE_TO_LETTER[self._b[rank * 9 + f]] or "." for f in range(9)]
            lines.append(f"{rank} " + " ".join(cells))
        lines.append("  " + " ".join(FILES))
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        """Same placement, side to move and counters (history is not compared)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (self._b == other._b and self._side == other._side
                and self.halfmove_clock == other.halfmove_clock and self.fullmove_number == other.fullmove_number)

    __hash__ = None  # type: ignore[assignment]  # mutable; use zobrist_hash()

    # ------------------------------------------------------------- accessors
    @property
    def turn(self) -> str:
        return _COLOR_OF[self._side]

    @property
    def ply(self) -> int:
        """Plies pushed since this position was set up."""
        return len(self.move_stack)

    def piece_at(self, sq: int) -> str | None:
        """FEN letter of the piece on `sq`, or None for an empty point."""
        return T.CODE_TO_LETTER[self._b[_check_square(sq)]]

    def pieces(self) -> dict[int, str]:
        """{square: letter} of every piece on the board."""
        c2l, b = T.CODE_TO_LETTER, self._b
        return {sq: c2l[b[sq]] or "." for sq in sorted(self._sq[0] | self._sq[1])}

    def king_square(self, color: str) -> int:
        """Square of `color`'s general (the lowest one if an odd set-up has two)."""
        kings = self._kings[_side_index(color)]
        if not kings:
            raise MoveError(f"the {COLOR_NAMES[color]} general is not on the board (captured by an unchecked move?)")
        return min(kings)

    def zobrist_hash(self) -> int:
        """64-bit hash of placement and side to move (counters excluded), kept incrementally."""
        return self._hash

    def _compute_hash(self) -> int:
        h = _ZB if self._side else 0
        for sq, v in enumerate(self._b):
            if v:
                h ^= _ZOB[v + 7][sq]
        return h

    def copy(self) -> "Position":
        """Independent copy, history included."""
        p = Position.__new__(Position)
        p._b = self._b[:]
        p._sq = [self._sq[0].copy(), self._sq[1].copy()]
        p._kings = [self._kings[0][:], self._kings[1][:]]
        p._side = self._side
        p._hash = self._hash
        p.halfmove_clock = self.halfmove_clock
        p.fullmove_number = self.fullmove_number
        p.move_stack = self.move_stack[:]
        p._undo = self._undo[:]
        return p

    # --------------------------------------------------------------- attacks
    def attackers(self, sq: int, color: str) -> list[int]:
        """Squares of `color`'s pieces that attack `sq`, whatever stands on it.

        "Attack" means the piece could move to `sq` if an enemy stood there (so it also answers
        "is this piece protected" when asked for the piece's own colour), with every geometric
        rule: chariot lines, cannon screens (exactly one piece between), horse legs, elephant
        eyes and the river, palace limits for general and advisors, soldier direction (sideways
        only after crossing). The general's flying attack along an open file counts on the
        points of the opposing palace and on the opposing general itself: those are the
        points the opposing general could stand on, so this is what makes a general-facing
        move illegal and what protects a piece the opposing general might capture. Legality
        (pins) is not considered.
        """
        side = _side_index(color)
        _check_square(sq)
        s = 1 if side == 0 else -1
        b = self._b
        aR, aC, aK, aN, aP, aA, aB = R * s, C * s, K * s, N * s, P * s, A * s, B * s
        flying_target = b[sq] == -aK or T.in_palace(1 - side, sq)
        out: list[int] = []
        for d, ray in enumerate(_RAYS[sq]):
            it = iter(ray)
            for t in it:
                v = b[t]
                if v:
                    if v == aR or (v == aK and d < 2 and flying_target):
                        out.append(t)
                    break
            for t in it:
                v = b[t]
                if v:
                    if v == aC:
                        out.append(t)
                    break
        out.extend(h for h, leg in _HORSE_ATK[sq] if b[h] == aN and not b[leg])
        out.extend(p for p in _PAWN_ATK[side][sq] if b[p] == aP)
        out.extend(p for p in _KING_ATK[side][sq] if b[p] == aK)
        out.extend(p for p in _ADV_ATK[side][sq] if b[p] == aA)
        out.extend(p for p, eye in _ELE_ATK[side][sq] if b[p] == aB and not b[eye])
        return sorted(set(out))

    def is_attacked(self, sq: int, by_color: str) -> bool:
        return bool(self.attackers(sq, by_color))

    def checkers(self) -> list[int]:
        """Squares of the pieces giving check to the side to move."""
        enemy = _COLOR_OF[1 - self._side]
        out: set[int] = set()
        for k in self._kings[self._side]:
            out.update(self.attackers(k, enemy))
        return sorted(out)

    def is_check(self) -> bool:
        """Is the side to move in check (any of its generals attacked)?"""
        b, side = self._b, self._side
        return any(_king_attacked(b, k, side) for k in self._kings[side])

    # ---------------------------------------------------------------- moves
    def pseudo_legal_moves(self) -> list[Move]:
        """Moves that obey each piece's movement rules, ignoring the safety of the own general."""
        out: list[Move] = []
        _gen(self._b, self._sq[self._side], self._side, _EMPTY, out, out)
        return out

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move."""
        side = self._side
        kings = self._kings[side]
        if len(kings) != 1:
            return self._legal_generic()
        b = self._b
        ksq = kings[0]
        s = 1 if side == 0 else -1
        eR, eC, eK, eN = -R * s, -C * s, -K * s, -N * s
        check = False
        sens = {ksq}
        forb = None
        d = 0
        for ray in _RAYS[ksq]:
            n = len(ray)
            i = 0
            while i < n and not b[ray[i]]:
                i += 1
            if i == n:
                d += 1
                continue
            v1 = b[ray[i]]
            if v1 == eR or (v1 == eK and d < 2):
                check = True
            else:
                if v1 == eC and i:
                    # empty points between the general and an unscreened cannon
                    if forb is None:
                        forb = set(ray[:i])
                    else:
                        forb.update(ray[:i])
                j = i + 1
                while j < n and not b[ray[j]]:
                    j += 1
                if j < n:
                    v2 = b[ray[j]]
                    if v2 == eC:
                        check = True
                    elif v2 == eR or (v2 == eK and d < 2):
                        if v1 * s > 0:
                            sens.add(ray[i])
                    else:
                        k = j + 1
                        while k < n and not b[ray[k]]:
                            k += 1
                        if k < n and b[ray[k]] == eC:
                            if v1 * s > 0:
                                sens.add(ray[i])
                            if v2 * s > 0:
                                sens.add(ray[j])
            d += 1
        for leg, hs in _LEGS[ksq]:
            v = b[leg]
            if not v:
                for h in hs:
                    if b[h] == eN:
                        check = True
            elif v * s > 0:
                for h in hs:
                    if b[h] == eN:
                        sens.add(leg)
        if not check:
            # soldiers, and odd placements of general/advisor/elephant next to ours (the rays
            # and horses were covered by the scan above)
            check = _near_attacked(b, ksq, side)
        own = self._sq[side]
        safe: list[Move] = []
        test: list[Move] = []
        _gen(b, own, side, own if check else sens, safe, test)
        if forb and not check:
            safe = [m for m in safe if m.to_sq not in forb]
        for mv in test:
            f, t = mv.from_sq, mv.to_sq
            cap = b[t]
            b[t] = b[f]
            b[f] = 0
            if not _king_attacked(b, t if f == ksq else ksq, side):
                safe.append(mv)
            b[f] = b[t]
            b[t] = cap
        return safe

    def _legal_generic(self) -> list[Move]:
        """Legal moves when a side has other than one general (odd studies): test everything."""
        out: list[Move] = []
        for mv in self.pseudo_legal_moves():
            if self._safe_after(mv):
                out.append(mv)
        return out

    def _safe_after(self, mv: Move) -> bool:
        """Make `mv` on the board only, probe every own general, unmake."""
        b, side = self._b, self._side
        f, t = mv.from_sq, mv.to_sq
        cap = b[t]
        b[t] = b[f]
        b[f] = 0
        kings = [t if k == f else k for k in self._kings[side]]
        ok = not any(_king_attacked(b, k, side) for k in kings)
        b[f] = b[t]
        b[t] = cap
        return ok

    def has_legal_moves(self) -> bool:
        return bool(self.legal_moves())

    def _illegal_reason(self, move: Move) -> str | None:
        """None when `move` is legal, else why not (for MoveError and for is_legal)."""
        if not isinstance(move, Move):
            return f"{move!r} is not a Move"
        b, side = self._b, self._side
        f, t = move.from_sq, move.to_sq
        v = b[f]
        name = f"{SQUARE_NAMES[f]}{SQUARE_NAMES[t]}"
        if not v:
            return f"{name}: no piece on {SQUARE_NAMES[f]}"
        s = 1 if side == 0 else -1
        piece = f"{COLOR_NAMES[_COLOR_OF[0 if v > 0 else 1]]} {T.PIECE_NAMES[abs(v)]}"
        if v * s < 0:
            return f"{name}: {SQUARE_NAMES[f]} holds a {piece} but it is {COLOR_NAMES[_COLOR_OF[side]]}'s turn"
        if b[t] * s > 0:
            return f"{name}: {SQUARE_NAMES[t]} holds a piece of the same side"
        pseudo: list[Move] = []
        _gen(b, (f,), side, _EMPTY, pseudo, pseudo)
        if move not in pseudo:
            return f"{name}: a {piece} cannot move from {SQUARE_NAMES[f]} to {SQUARE_NAMES[t]}{_geometry_hint(b, f, t, v)}"
        if not self._safe_after(move):
            b2 = b[:]
            b2[t], b2[f] = b2[f], 0
            kings = [t if k == f else k for k in self._kings[side]]
            if any(_faces(b2, k) for k in kings):
                return f"{name}: the generals would face each other on an open file"
            if self.is_check():
                return f"{name}: leaves the {COLOR_NAMES[_COLOR_OF[side]]} general in check"
            return f"{name}: exposes the {COLOR_NAMES[_COLOR_OF[side]]} general to check"
        return None

    def is_legal(self, move: Move) -> bool:
        return self._illegal_reason(move) is None

    def is_capture(self, move: Move) -> bool:
        """Does `move` land on an enemy piece (legality not checked)?"""
        v, w = self._b[move.from_sq], self._b[move.to_sq]
        return bool(v and w and (v > 0) != (w > 0))

    def gives_check(self, move: Move) -> bool:
        """Would `move` (assumed legal) put the opponent in check?"""
        self.push_unchecked(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def push(self, move: Move) -> None:
        """Play a legal move; MoveError names the move and why it is illegal."""
        reason = self._illegal_reason(move)
        if reason is not None:
            raise MoveError(f"illegal move {reason}")
        self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> None:
        """Play `move` without the legality check (the caller vouches for it).

        Still refuses, cheaply, what would corrupt the position: an empty from-point, a piece
        of the side not to move, or a capture of an own piece.
        """
        f, t = move.from_sq, move.to_sq
        b = self._b
        p = b[f]
        cap = b[t]
        side = self._side
        if not p or (p > 0) == bool(side) or (cap and (cap > 0) == (p > 0)):
            raise MoveError(f"cannot play {SQUARE_NAMES[f]}{SQUARE_NAMES[t]}: "
                            + ("no piece there" if not p else "wrong side's piece or own piece captured"))
        self._undo.append((cap, self.halfmove_clock, self._hash))
        self.move_stack.append(move)
        zp = _ZOB[p + 7]
        h = self._hash ^ zp[f] ^ zp[t] ^ _ZB
        b[t] = p
        b[f] = 0
        own = self._sq[side]
        own.remove(f)
        own.add(t)
        if cap:
            h ^= _ZOB[cap + 7][t]
            self._sq[1 - side].remove(t)
            self.halfmove_clock = 0
            if cap == K or cap == -K:
                self._kings[1 - side].remove(t)
        else:
            self.halfmove_clock += 1
        if p == K or p == -K:
            kl = self._kings[side]
            kl[kl.index(f)] = t
        if side:
            self.fullmove_number += 1
        self._side = 1 - side
        self._hash = h

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self.move_stack:
            raise MoveError("no move to take back")
        move = self.move_stack.pop()
        cap, self.halfmove_clock, self._hash = self._undo.pop()
        f, t = move.from_sq, move.to_sq
        b = self._b
        p = b[t]
        side = 1 - self._side
        b[f] = p
        b[t] = cap
        own = self._sq[side]
        own.remove(t)
        own.add(f)
        if cap:
            self._sq[1 - side].add(t)
            if cap == K or cap == -K:
                self._kings[1 - side].append(t)
        if p == K or p == -K:
            kl = self._kings[side]
            kl[kl.index(t)] = f
        if side:
            self.fullmove_number -= 1
        self._side = side
        return move

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    # -------------------------------------------------------------- endings
    def is_checkmate(self) -> bool:
        return self.is_check() and not self.legal_moves()

    def is_sixty_move_draw(self) -> bool:
        """120 plies (60 moves by each side) without a capture.

        Reading implemented: every ply counts, checks included (as Pikafish's rule60 counter
        does); the clock restarts only on a capture. Repetition rulings are separate
        (`rules.repetition`).
        """
        return self.halfmove_clock >= SIXTY_MOVE_PLIES

    def outcome(self) -> Outcome | None:
        """The result if the game is over, else None.

        A side with no legal move loses, whether in check ("checkmate") or not
        ("no_legal_moves"; in Xiangqi stalemate is a loss, not a draw). Mate or no-move on
        the 120th capture-free ply takes precedence over the sixty-move draw, since the
        game ended on the board before the count could be claimed.
        """
        if not self.legal_moves():
            winner = _COLOR_OF[1 - self._side]
            return Outcome(winner, "checkmate" if self.is_check() else "no_legal_moves",
                           "1-0" if winner == RED else "0-1")
        if self.is_sixty_move_draw():
            return Outcome(None, "sixty_moves", "1/2-1/2")
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -------------------------------------------------------- plausibility
    def plausibility_problems(self) -> list[str]:
        """Placements impossible in a game from the start position (reported, never refused:
        endgame studies use odd set-ups). Empty list = nothing impossible found."""
        return _plausibility(self)


def _side_index(color: str) -> int:
    try:
        return _SIDE_OF[color]
    except (KeyError, TypeError):
        raise RulesError(f"colour {color!r} must be 'w' (red) or 'b' (black)") from None


def _check_square(sq: int) -> int:
    if type(sq) is not int or not 0 <= sq < 90:
        raise RulesError(f"square {sq!r} is not a point index (0..89)")
    return sq


def _faces(b: list[int], ksq: int) -> bool:
    """Does the general on ksq see the other general along its file with nothing between?"""
    v = b[ksq]
    for ray in _RAYS[ksq][:2]:
        for t in ray:
            w = b[t]
            if w:
                if w == -v:
                    return True
                break
    return False


def _geometry_hint(b: list[int], f: int, t: int, v: int) -> str:
    """A short reason for a pattern-illegal move when one is easy to name."""
    k = abs(v)
    df, dr = t % 9 - f % 9, t // 9 - f // 9
    side = 0 if v > 0 else 1
    if k == N and sorted((abs(df), abs(dr))) == [1, 2]:
        leg = f + (dr // 2) * 9 if abs(dr) == 2 else f + df // 2
        if b[leg]:
            return f" (horse leg blocked on {SQUARE_NAMES[leg]})"
    if k == B and abs(df) == 2 and abs(dr) == 2:
        eye = (f + t) // 2
        if b[eye]:
            return f" (elephant eye blocked on {SQUARE_NAMES[eye]})"
        if not T.own_half(side, t):
            return " (an elephant may not cross the river)"
    if k in (K, A) and not T.in_palace(side, t):
        return " (must stay in the palace)"
    if k == P and dr == 0 and T.own_half(side, f):
        return " (a soldier moves sideways only after crossing the river)"
    if k == P and dr == (-1 if side == 0 else 1):
        return " (a soldier never moves backwards)"
    if k == C and (df == 0 or dr == 0) and b[t]:
        return " (a cannon captures by jumping exactly one screen)"
    if k in (R, C) and (df == 0 or dr == 0):
        return " (the path is blocked)"
    return ""


def _parse_board(text: str) -> list[int]:
    rows = text.split("/")
    if len(rows) != 10:
        raise FenError(f"FEN board {text!r} has {len(rows)} ranks separated by '/', expected 10")
    b = [0] * 90
    for i, row in enumerate(rows):
        rank = 9 - i
        where = f"rank {rank} (FEN rank {i + 1} from the top, {row!r})"
        if not row:
            raise FenError(f"{where} is empty: write '9' for an empty rank")
        col = 0
        prev_digit = False
        for j, ch in enumerate(row):
            if "1" <= ch <= "9":
                if prev_digit:
                    raise FenError(f"{where}: two digits in a row at character {j + 1} ({row[j - 1]}{ch}); write one digit per run of empty points")
                col += int(ch)
                prev_digit = True
                if col > 9:
                    raise FenError(f"{where}: {col} points by character {j + 1} ({ch!r}), a rank has 9")
                continue
            prev_digit = False
            if ch == "0":
                raise FenError(f"{where}: digit 0 at character {j + 1}; empty runs are 1-9")
            code = T.LETTER_TO_CODE.get(ch)
            if code is None:
                raise FenError(f"{where}: unknown piece letter {ch!r} at file {FILES[col] if col < 9 else '?'} "
                               f"(character {j + 1}); use K A B/E N/H R C P (red) or lowercase (black)")
            if col >= 9:
                raise FenError(f"{where}: piece {ch!r} at character {j + 1} falls past file i, a rank has 9 points")
            b[rank * 9 + col] = code
            col += 1
        if col != 9:
            raise FenError(f"{where} covers {col} points, expected 9")
    return b


def _plausibility(pos: Position) -> list[str]:
    b = pos._b
    problems: list[str] = []
    limits = {K: 1, A: 2, B: 2, N: 2, R: 2, C: 2, P: 5}
    for side in (0, 1):
        s = 1 if side == 0 else -1
        cname = COLOR_NAMES[_COLOR_OF[side]]
        letter = (lambda k: T.CODE_TO_LETTER[k * s])
        squares = {k: [sq for sq in range(90) if b[sq] == k * s] for k in limits}
        for k, lim in limits.items():
            n = len(squares[k])
            if n > lim:
                names = ", ".join(SQUARE_NAMES[q] for q in squares[k])
                problems.append(f"{cname} has {n} {T.PIECE_NAMES[k]}s ({letter(k)}) on {names}; a set has {lim}")
        total = sum(len(v) for v in squares.values())
        if total > 16:
            problems.append(f"{cname} has {total} pieces; a set has 16")
        for sq in squares[K]:
            if not T.in_palace(side, sq):
                problems.append(f"{cname} general on {SQUARE_NAMES[sq]} is outside its palace")
        for sq in squares[A]:
            if sq not in T.ADVISOR_POINTS[side]:
                problems.append(f"{cname} advisor on {SQUARE_NAMES[sq]} is off its five palace points")
        for sq in squares[B]:
            if sq not in T.ELEPHANT_POINTS[side]:
                problems.append(f"{cname} elephant on {SQUARE_NAMES[sq]} is off its seven points")
        uncrossed_files: dict[int, list[int]] = {}
        for sq in squares[P]:
            rank, file = sq // 9, sq % 9
            rel = rank if side == 0 else 9 - rank  # ranks from own back rank
            if rel < 3:
                problems.append(f"{cname} soldier on {SQUARE_NAMES[sq]} stands behind its starting rank")
            elif rel < 5:
                if file % 2:
                    problems.append(f"{cname} soldier on {SQUARE_NAMES[sq]} has not crossed the river, "
                                    f"yet stands on a file no soldier starts on")
                else:
                    uncrossed_files.setdefault(file, []).append(sq)
        for file, sqs in uncrossed_files.items():
            if len(sqs) > 1:
                problems.append(f"{cname} soldiers on {', '.join(SQUARE_NAMES[q] for q in sqs)}: two soldiers "
                                f"on one file before the river (they cannot change file there)")
    # generals facing / side not to move in check
    for side in (0, 1):
        for k in pos._kings[side]:
            if _faces(b, k) and side == 0:
                problems.append(f"the generals face each other on file {FILES[k % 9]} with nothing between")
    other = 1 - pos._side
    for k in pos._kings[other]:
        if _king_attacked(b, k, other):
            problems.append(f"{COLOR_NAMES[_COLOR_OF[other]]} general on {SQUARE_NAMES[k]} is in check "
                            f"but it is {COLOR_NAMES[_COLOR_OF[pos._side]]}'s turn")
            break
    return problems


def position_from_fen(fen: str, allow_impossible: bool = False, what: str = "FEN") -> Position:
    """A position to play or record from: a FEN that parses AND could arise in a game.

    Study positions with odd set-ups are real (hence `allow_impossible`), but a tournament tool
    given three generals or an elephant across the river by mistake must say so, not compute on.
    `what` names where the FEN came from in the message (an option, a file's [FEN] tag)."""
    pos = Position.from_fen(fen)
    if not allow_impossible:
        problems = pos.plausibility_problems()
        if problems:
            raise ImpossiblePositionError(
                f"{what} {fen!r} is not a position a game can reach: {'; '.join(problems)} "
                f"(use --allow-impossible for a study position)", problems)
    return pos
