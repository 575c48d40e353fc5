"""Repetition rulings (棋例): find a game's repeated cycle and rule on it.

Positions are compared by the core's Zobrist hash (which includes the side to move) and then
confirmed on the board placement, so a hash collision can never produce a ruling. A *cycle*
is the run of moves between two occurrences of the same position; the moves of each side in
it are classified by `rules.chase` as check 将, mate threat 杀, chase 捉 or idle 闲.

Readings implemented (Chinese competition rules as taught in the background lesson 004, which
the issue names; AXF/Pikafish agree on every case marked *):

* A side is **forbidden** (禁止着法) when *every* one of its moves in the cycle is check, mate
  threat or chase: 长将 (all checks)*, 长杀, 长捉*, and the mixed 一将一捉, 一将一杀, 一捉一杀.
  One idle move among them makes the side's play allowed (一将一闲, 一捉一闲, 一杀一闲 are
  allowed; figure 16-4, 16-5, 16-7 of the lesson). Chases count whichever piece is chased
  ("追捉一子或数子"); Pikafish requires the same piece throughout — the Chinese reading is used.
* 棋例总纲: unilateral perpetual check is never allowed*; one side forbidden and the other
  allowed — the forbidden side must vary*; both allowed — draw*; both forbidden — draw
  (figure 16-8), except that a side giving perpetual check against a side whose forbidden play
  is not all checks must vary (perpetual check is the gravest form; AXF: the checking side
  loses*). Mutual perpetual check is a draw*.
* **Counting** (the lesson, figure 16-2: the capture that starts the loop is not counted and
  the checker may still vary before its sixth check): a forbidden cycle repeated
  `LOSS_CYCLES` = 3 times loses; after 1 or 2 cycles the ruling is `<side>_must_vary`. Only the
  trailing cycles that earn the same ruling count, so a side that varied starts afresh.
  A draw ruling ("不变作和", neither side is obliged to vary) is given from the first cycle; its
  reason says how many cycles have been played so an arbiter can see whether the claim is ripe.
* The ruling is on the **final** repetition: if the position after the last move repeats an
  earlier one, that cycle is judged. If a forbidden cycle reached its third repetition earlier
  in the game (the game should have ended there), that loss is reported even though the record
  goes on. Otherwise, with no repetition at the end, the ruling is `none`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.chase import CHASE, CHECK, IDLE, KIND_CHINESE, MATE_THREAT, MoveClass, classify_move
from rules.errors import MoveError
from rules.move import Move
from rules.squares import BLACK, RED

#: Cycles of a forbidden repetition after which the offending side has lost.
LOSS_CYCLES = 3

RULINGS = ("red_loses", "black_loses", "draw", "red_must_vary", "black_must_vary", "none")

_SIDE_NAME = {RED: "red", BLACK: "black"}


@dataclass(frozen=True)
class ClassifiedMove:
    """One move of a cycle: its 1-based ply, who played it, ICCS text and classification."""

    ply: int
    side: str
    iccs: str
    cls: MoveClass

    def to_dict(self) -> dict:
        d = {"ply": self.ply, "side": _SIDE_NAME[self.side], "move": self.iccs,
             "kind": self.cls.kind, "chinese": self.cls.chinese}
        if self.cls.chases:
            d["chases"] = [p.describe() for p in self.cls.chases]
        if self.cls.note:
            d["note"] = self.cls.note
        return d


@dataclass(frozen=True)
class Ruling:
    """A repetition ruling.

    `ruling` is one of RULINGS; `reason` says in words which side did what and how many times;
    `cycle_plies` are the 1-based ply numbers of the moves of the judged cycle (empty for
    `none` without a repetition). `cycles` and `moves` carry the detail for programs (the
    number of identical cycles counted and the classification of each move of the last one);
    `to_dict` keeps to the three published keys so the command's JSON line stays stable.
    """

    ruling: str
    reason: str
    cycle_plies: list[int]
    cycles: int = 0
    moves: tuple[ClassifiedMove, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.ruling not in RULINGS:
            raise ValueError(f"ruling {self.ruling!r} is not one of {', '.join(RULINGS)}")

    def to_dict(self) -> dict:
        return {"ruling": self.ruling, "reason": self.reason, "cycle_plies": list(self.cycle_plies)}


@dataclass(frozen=True)
class SidePlay:
    """What one side did in a cycle."""

    side: str
    kinds: tuple[str, ...]

    @property
    def forbidden(self) -> bool:
        return bool(self.kinds) and all(k != IDLE for k in self.kinds)

    @property
    def perpetual_check(self) -> bool:
        return bool(self.kinds) and all(k == CHECK for k in self.kinds)

    def describe(self) -> str:
        return describe_kinds(self.kinds)


def describe_kinds(kinds: tuple[str, ...]) -> str:
    """Name a side's pattern in English and the rules' Chinese term."""
    present = [k for k in (CHECK, MATE_THREAT, CHASE, IDLE) if k in kinds]
    if len(present) == 1:
        only = present[0]
        return {CHECK: "perpetual check (长将)", MATE_THREAT: "perpetual mate threat (长杀)",
                CHASE: "perpetual chase (长捉)", IDLE: "idle (闲)"}[only]
    counts = ", ".join(f"{kinds.count(k)} {k.replace('_', ' ')}" for k in present)
    chinese = "".join(f"一{KIND_CHINESE[k]}" for k in present)
    allowed = IDLE in present
    return f"{chinese} ({counts}; {'allowed' if allowed else 'forbidden'})"


def rule_on_kinds(red_kinds: tuple[str, ...], black_kinds: tuple[str, ...]) -> tuple[str, str]:
    """The 棋例 decision for one cycle, from each side's move kinds (pure; no position needed).

    Returns (verdict, description) with verdict 'red_forbidden', 'black_forbidden' or 'draw'.
    """
    red, black = SidePlay(RED, tuple(red_kinds)), SidePlay(BLACK, tuple(black_kinds))
    text = f"red {red.describe()}; black {black.describe()}"
    if red.forbidden and black.forbidden:
        if red.perpetual_check and not black.perpetual_check:
            return "red_forbidden", text + "; unilateral perpetual check is never allowed"
        if black.perpetual_check and not red.perpetual_check:
            return "black_forbidden", text + "; unilateral perpetual check is never allowed"
        if red.perpetual_check:
            return "draw", text + "; mutual perpetual check"
        return "draw", text + "; both sides forbidden"
    if red.forbidden:
        return "red_forbidden", text
    if black.forbidden:
        return "black_forbidden", text
    return "draw", text + "; both sides allowed"


def _replay(start_fen: str | None, moves: list[Move]):
    """Replay the moves; return the positions' keys and a copy of the position before each move."""
    from rules.position import Position

    pos = Position() if start_fen is None else Position.from_fen(start_fen)
    keys = [(pos.zobrist_hash(), pos.board_fen(), pos.turn)]
    befores = []
    for i, move in enumerate(moves):
        if not isinstance(move, Move):
            raise MoveError(f"ply {i + 1}: expected a Move, got {move!r}")
        befores.append(pos.copy())
        try:
            pos.push(move)
        except MoveError as exc:
            raise MoveError(f"ply {i + 1} ({move.iccs()}): {exc}") from exc
        keys.append((pos.zobrist_hash(), pos.board_fen(), pos.turn))
    return keys, befores


class _Judge:
    """Classifies moves lazily (each position-and-move once) and rules on cycles."""

    def __init__(self, start_fen: str | None, moves: list[Move]):
        self.moves = list(moves)
        self.keys, self.befores = _replay(start_fen, self.moves)
        self._cache: dict[tuple, MoveClass] = {}
        self._seen: dict[tuple, list[int]] = {}
        for i, key in enumerate(self.keys):
            self._seen.setdefault(key, []).append(i)

    def classify(self, ply: int) -> ClassifiedMove:
        """Classification of the move at 1-based `ply`."""
        before = self.befores[ply - 1]
        move = self.moves[ply - 1]
        key = (self.keys[ply - 1], move)
        cls = self._cache.get(key)
        if cls is None:
            cls = classify_move(before, move)
            self._cache[key] = cls
        return ClassifiedMove(ply, before.turn, move.iccs(), cls)

    def occurrences(self, index: int) -> list[int]:
        """Position indices (0 = start, i = after ply i) equal to position `index`, up to it."""
        return [i for i in self._seen[self.keys[index]] if i <= index]

    def judge_cycle(self, start: int, end: int) -> tuple[str, str, tuple[ClassifiedMove, ...]]:
        """Rule on the cycle of plies start+1..end: (verdict, description, moves).

        verdict is one of 'red_forbidden', 'black_forbidden', 'draw'.
        """
        moves = tuple(self.classify(p) for p in range(start + 1, end + 1))
        red = tuple(m.cls.kind for m in moves if m.side == RED)
        black = tuple(m.cls.kind for m in moves if m.side == BLACK)
        verdict, text = rule_on_kinds(red, black)
        return verdict, text, moves

    def ruling_at(self, index: int) -> Ruling | None:
        """The ruling on the repetition ending at position `index`, or None if it is not repeated."""
        occ = self.occurrences(index)
        if len(occ) < 2:
            return None
        verdict, text, moves = self.judge_cycle(occ[-2], occ[-1])
        cycles = 1
        for j in range(len(occ) - 2, 0, -1):
            if self.judge_cycle(occ[j - 1], occ[j])[0] != verdict:
                break
            cycles += 1
        plies = list(range(occ[-2] + 1, occ[-1] + 1))
        times = "1 cycle" if cycles == 1 else f"{cycles} cycles"
        span = f"plies {plies[0]}-{plies[-1]}"
        if verdict == "draw":
            ripe = "" if cycles >= LOSS_CYCLES else f" (a draw claim is due after {LOSS_CYCLES})"
            return Ruling("draw", f"{text}; repeated {times}{ripe}, last cycle {span}",
                          plies, cycles, moves)
        side = "red" if verdict == "red_forbidden" else "black"
        if cycles >= LOSS_CYCLES:
            return Ruling(f"{side}_loses", f"{text}; repeated {times} ({span}): {side} loses",
                          plies, cycles, moves)
        return Ruling(f"{side}_must_vary",
                      f"{text}; repeated {times} ({span}): {side} must vary, "
                      f"or loses at {LOSS_CYCLES} cycles", plies, cycles, moves)


def adjudicate(start_fen: str | None, moves: list[Move]) -> Ruling:
    """Rule on the game's final repetition (see the module docstring for the readings).

    `start_fen` None means the standard start. An illegal move raises MoveError naming its ply.
    """
    judge = _Judge(start_fen, moves)
    n = len(judge.moves)
    # A loss that became final earlier ends the game there, whatever was recorded after it.
    for index in range(1, n):
        if len(judge.occurrences(index)) > LOSS_CYCLES:
            ruling = judge.ruling_at(index)
            if ruling is not None and ruling.ruling.endswith("_loses"):
                return Ruling(ruling.ruling,
                              f"{ruling.reason} (at ply {index}; the record continues to ply {n})",
                              ruling.cycle_plies, ruling.cycles, ruling.moves)
    final = judge.ruling_at(n)
    if final is not None:
        return final
    last = max((i for i in range(n + 1) if len(judge.occurrences(i)) >= 2), default=None)
    if last is None:
        return Ruling("none", "no position repeated", [])
    return Ruling("none", f"the last repetition (at ply {last}) was left at ply {last + 1}; "
                          f"the final position is not a repetition", [])


def classify_cycle(start_fen: str | None, moves: list[Move]) -> tuple[ClassifiedMove, ...]:
    """Classification of every move of the final cycle (empty if the final position is new)."""
    ruling = adjudicate(start_fen, moves)
    return ruling.moves


__all__ = ["Ruling", "ClassifiedMove", "adjudicate", "classify_cycle", "describe_kinds", "rule_on_kinds",
           "LOSS_CYCLES", "RULINGS"]
