"""Repetition rulings (棋例): find a game's repeated cycle and rule on it.

Positions are compared by the core's Zobrist hash (which includes the side to move) and then
confirmed on the board placement, so a hash collision can never produce a ruling. A *cycle*
is the run of moves between two occurrences of the same position; the moves of each side in
it are classified by `rules.chase` as check 将, mate threat 杀, chase 捉 or idle 闲.

Two rulesets (`rules.rulesets`; `docs/repetition-rulesets.md` gives the rule texts):

* `cn` (default; Chinese competition rules as taught in the background lesson 004): a side is
  **forbidden** (禁止着法) when *every* one of its moves in the cycle is check, mate threat or
  chase: 长将, 长杀, 长捉, and the mixed 一将一捉, 一将一杀, 一捉一杀. One idle move among them
  makes the side's play allowed (一将一闲, 一捉一闲, 一杀一闲; figures 16-4, 16-5, 16-7). Chases
  count whichever piece is chased ("追捉一子或数子").
* `axf` (Asian Xiangqi Federation): only perpetual check, and a perpetual chase in which every
  move threatens one and the same piece (followed as it moves; a check or mate threat that also
  threatens it counts), are forbidden. Perpetual mate threat (rule 9), one check one chase
  (rule 12) and chases of different pieces in turn (rule 32) are allowed.
* Both rulesets (棋例总纲; AXF rules 5-8): unilateral perpetual check is never allowed; one side
  forbidden and the other allowed — the forbidden side must vary; both allowed — draw; both
  forbidden — draw (figure 16-8), except that a side giving perpetual check against a side
  whose forbidden play is not all checks must vary. Mutual perpetual check is a draw. The
  ruling's `rule` names the article that decided it.
* **Counting**, both rulesets (the lesson, figure 16-2: the capture that starts the loop is not counted and
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

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rules.chase import CHASE, CHECK, IDLE, KIND_CHINESE, MATE_THREAT, MoveClass, classify_move
from rules.errors import MoveError
from rules.move import Move
from rules.rulesets import CN, Ruleset, get_ruleset
from rules.squares import BLACK, RED

if TYPE_CHECKING:
    from rules.position import Position

_Key = tuple[int, bytes, str]       # (Zobrist hash, placement, side to move)
_Judgement = tuple["Verdict", tuple[tuple[str, MoveClass], ...]]   # verdict, (side, class) of each move

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
             "kind": self.cls.kind, "chinese": self.cls.chinese, "reason": self.cls.reason}
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
    `none` without a repetition). `cycles` is the number of identical cycles counted; `rules`
    the ruleset applied ('cn' or 'axf'); `rule` the rule of that ruleset that decided the
    ruling; `moves` the classification of each move of the judged cycle, each with its reason.
    """

    ruling: str
    reason: str
    cycle_plies: list[int]
    cycles: int = 0
    moves: tuple[ClassifiedMove, ...] = field(default=())
    rules: str = CN.name
    rule: str = ""

    def __post_init__(self) -> None:
        if self.ruling not in RULINGS:
            raise ValueError(f"ruling {self.ruling!r} is not one of {', '.join(RULINGS)}")
        get_ruleset(self.rules)

    def to_dict(self) -> dict:
        """The command's JSON object: ruling, reason, cycle_plies, rules, rule and moves."""
        return {"ruling": self.ruling, "reason": self.reason, "cycle_plies": list(self.cycle_plies),
                "rules": self.rules, "rule": self.rule, "moves": [m.to_dict() for m in self.moves]}


@dataclass(frozen=True)
class SidePlay:
    """What one side did in a cycle: the kind of each of its moves and, for chases, which enemy
    pieces each move chased (as identities: the piece's square at the start of the cycle, so a
    piece that runs from point to point stays the same piece)."""

    side: str
    kinds: tuple[str, ...]
    victims: tuple[frozenset[int], ...] = ()

    @property
    def perpetual_check(self) -> bool:
        return bool(self.kinds) and all(k == CHECK for k in self.kinds)

    @property
    def common_victims(self) -> frozenset[int]:
        """Pieces threatened by every move (-1 stands for "one piece" when victims are unknown)."""
        if not self.victims or len(self.victims) != len(self.kinds):
            return frozenset({-1}) if self.kinds and all(k == CHASE for k in self.kinds) else frozenset()
        common = self.victims[0]
        for v in self.victims[1:]:
            common = common & v
        return common

    def judge(self, rules: Ruleset) -> tuple[bool, str]:
        """(forbidden, why) for this side's moves under `rules`; `why` names the rule when the
        side's play is allowed under `rules` but would be forbidden under the other ruleset."""
        kinds = self.kinds
        if not kinds or IDLE in kinds:
            return False, ""
        if self.perpetual_check:
            return True, ""
        counted = ""
        if not rules.mate_threat_forbidden and MATE_THREAT in kinds:
            # A mate threat is free here; one that also chases still counts as a chase.
            victims = self.victims if len(self.victims) == len(kinds) else tuple(frozenset() for _ in kinds)
            kinds = tuple(CHASE if k == MATE_THREAT and v else k for k, v in zip(kinds, victims))
            if MATE_THREAT in kinds:
                return False, "mate threats are allowed (AXF rule 9: perpetual mate threat is a draw)"
            counted = ("its mate threats are free (AXF rule 9) but each also threatens a piece, "
                       "so they count as chases")
        attacking = {CHECK, CHASE} | ({MATE_THREAT} if rules.mate_threat_forbidden else set())
        if not all(k in attacking for k in kinds):
            return False, ""
        if rules.mixtures_forbidden:
            return True, ""
        # every move a chase, or checks and chases mixed: forbidden only as a perpetual chase of
        # one piece that every move (the checks included) threatens
        if rules.chase_same_piece and not self.common_victims:
            if len(set(kinds)) > 1:
                return False, ("check mixed with chase is allowed when the checks do not threaten the "
                               "chased piece too (AXF rule 12: one check one chase is a draw)")
            return False, ("the chases fall on different pieces in turn, which is allowed (AXF rule 32: "
                           "chasing two or more pieces in turn is a draw)")
        if counted:
            return True, counted + ", all of one and the same piece: a perpetual chase"
        return True, ""

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
    return f"{chinese} ({counts})"


@dataclass(frozen=True)
class Verdict:
    """The decision on one cycle: `verdict` is 'red_forbidden', 'black_forbidden' or 'draw';
    `text` describes both sides; `rule` names the rule of the ruleset that decided it."""

    verdict: str
    text: str
    rule: str


_CN_RULE = {
    "check": "棋例总纲 一: unilateral perpetual check is never allowed",
    "one": "棋例总纲 三: one side forbidden, the other allowed: the forbidden side must vary",
    "none": "棋例总纲 二: both sides allowed: a draw if neither varies",
    "both": "棋例总纲 四 (规则 26.8.2): both sides forbidden: a draw if neither varies",
}
_AXF_RULE = {
    "check": "AXF rule 6: perpetual check loses under any circumstance",
    "one": "AXF rules: a side perpetually checking or perpetually chasing one piece must vary or lose",
    "none": "AXF rule 5: a repetition without violation by either side is a draw",
    "both": "AXF rules 7 and 32-36: both sides violating in the same way (mutual check or mutual chase) is a draw",
}


def rule_on_play(red: SidePlay, black: SidePlay, rules: Ruleset = CN) -> Verdict:
    """The 棋例 decision for one cycle from what each side did (pure; no position needed)."""
    table = _CN_RULE if rules.name == CN.name else _AXF_RULE
    red_forbidden, red_why = red.judge(rules)
    black_forbidden, black_why = black.judge(rules)

    def side_text(play: SidePlay, forbidden: bool, why: str) -> str:
        state = "forbidden" if forbidden else "allowed"
        return f"{_SIDE_NAME[play.side]} {play.describe()} [{state}{': ' + why if why else ''}]"

    text = f"{side_text(red, red_forbidden, red_why)}; {side_text(black, black_forbidden, black_why)}"
    allowed_why = red_why or black_why
    if red_forbidden and black_forbidden:
        if red.perpetual_check and not black.perpetual_check:
            return Verdict("red_forbidden", text + "; unilateral perpetual check is never allowed", table["check"])
        if black.perpetual_check and not red.perpetual_check:
            return Verdict("black_forbidden", text + "; unilateral perpetual check is never allowed", table["check"])
        if red.perpetual_check:
            return Verdict("draw", text + "; mutual perpetual check", table["both"])
        return Verdict("draw", text + "; both sides forbidden", table["both"])
    if red_forbidden or black_forbidden:
        play = red if red_forbidden else black
        return Verdict(f"{_SIDE_NAME[play.side]}_forbidden", text,
                       table["check"] if play.perpetual_check else table["one"])
    return Verdict("draw", text + "; both sides allowed", allowed_why if allowed_why else table["none"])


def rule_on_kinds(red_kinds: tuple[str, ...], black_kinds: tuple[str, ...],
                  rules: str | Ruleset | None = None) -> tuple[str, str]:
    """The decision for one cycle from each side's move kinds alone: (verdict, description).

    Without the chased pieces, a side's chases are taken to fall on one piece throughout.
    """
    v = rule_on_play(SidePlay(RED, tuple(red_kinds)), SidePlay(BLACK, tuple(black_kinds)), get_ruleset(rules))
    return v.verdict, v.text


@dataclass(frozen=True)
class _Snapshot:
    """A position kept compactly (`Position.placement_key`, side to move, counters): a Position
    with its history for every ply costs memory and time quadratic in the game's length, so a
    long game keeps these and rebuilds a Position only for the plies a cycle's judgement needs."""

    placement: bytes
    turn: str
    halfmove: int
    fullmove: int

    def position(self) -> "Position":
        from rules._tables import CODE_TO_LETTER
        from rules.position import Position
        from rules.squares import placement_from_points

        codes = array("b")
        codes.frombytes(self.placement)
        points = "".join(CODE_TO_LETTER[c] or "." for c in codes)
        return Position.from_fen(f"{placement_from_points(points)} {self.turn} - - "
                                 f"{self.halfmove} {self.fullmove}")


def _irreversible(pos: "Position", move: Move) -> bool:
    """Can no position before `move` ever come back after it? True for a capture (the pieces
    only ever get fewer) and for a soldier's step forward (soldiers never step back, and no
    move brings a soldier back to its rank): such a move ends every cycle that could span it."""
    if pos.is_capture(move):
        return True
    piece = pos.piece_at(move.from_sq)
    return piece in ("P", "p") and move.from_sq // 9 != move.to_sq // 9


def _replay(start_fen: str | None,
            moves: list[Move]) -> tuple[list[_Key], list[_Snapshot], list[int], list[int], bytes]:
    """Replay the moves once; return each position's key, a snapshot of each position, for
    each position the index of its previous occurrence (-1 for none) and how often it has
    occurred up to it, and the moves as two bytes each (from * 90 + to, native order), so that
    a run of moves is a bytes slice: compared and hashed in C, whatever its length.

    A key is (Zobrist hash kept incrementally by the core, the placement, side to move): the
    hash finds the earlier occurrence in a dict, the placement confirms it, so a collision can never
    make a repetition. Only positions since the last irreversible move are looked up (the table
    is emptied at each capture or soldier advance), which keeps the table small; the result is
    the same as a search of the whole game, since nothing before such a move can recur."""
    from rules.position import Position

    pos = Position() if start_fen is None else Position.from_fen(start_fen)
    keys: list[_Key] = []
    snaps: list[_Snapshot] = []
    prev: list[int] = []
    count: list[int] = []
    last_seen: dict[_Key, int] = {}
    codes = array("H")

    def record() -> None:
        placement, turn = pos.placement_key(), pos.turn
        key = (pos.zobrist_hash(), placement, turn)
        index = len(keys)
        before = last_seen.get(key, -1)
        keys.append(key)
        snaps.append(_Snapshot(placement, turn, pos.halfmove_clock, pos.fullmove_number))
        prev.append(before)
        count.append(count[before] + 1 if before >= 0 else 1)
        last_seen[key] = index

    record()
    for i, move in enumerate(moves):
        if not isinstance(move, Move):
            raise MoveError(f"ply {i + 1}: expected a Move, got {move!r}")
        irreversible = _irreversible(pos, move)
        try:
            pos.push(move)
        except MoveError as exc:
            raise MoveError(f"ply {i + 1} ({move.iccs()}): {exc}") from exc
        codes.append(move.from_sq * 90 + move.to_sq)
        if irreversible:
            last_seen.clear()
        record()
    return keys, snaps, prev, count, codes.tobytes()


class _Judge:
    """Classifies moves lazily (each position-and-move once) and rules on cycles.

    Linear in the game's length: every position knows its previous occurrence (`prev`); whether
    a cycle is a draw is mostly settled by its first moves (a side with one idle move is
    allowed, so one idle move of each side makes a draw: `_kind`); a cycle that needs the full
    judgement is judged once (identical cycles share it); and the number of trailing cycles
    with the same verdict is carried from one occurrence to the next (`_run`)."""

    def __init__(self, start_fen: str | None, moves: list[Move], rules: Ruleset):
        self.rules = rules
        self.moves = list(moves)
        self.keys, self._snaps, self.prev, self.count, self._move_bytes = _replay(start_fen, self.moves)
        self._cache: dict[tuple[_Key, Move], MoveClass] = {}
        # (start key, length, hash of the moves) -> [(start, end, judgement)]: a hit is confirmed
        # on the moves themselves, so two different cycles never share a judgement
        self._cycle_cache: dict[tuple[_Key, int, int], list[tuple[int, int, _Judgement]]] = {}
        self._kinds: dict[int, str] = {}
        self._runs: dict[int, int] = {}

    def before(self, ply: int) -> "Position":
        """The position before the move at 1-based `ply` (rebuilt from its snapshot)."""
        return self._snaps[ply - 1].position()

    def _class(self, ply: int) -> MoveClass:
        """The class of the move at 1-based `ply`, computed once per position and move."""
        move = self.moves[ply - 1]
        key = (self.keys[ply - 1], move)
        cls = self._cache.get(key)
        if cls is None:
            cls = classify_move(self.before(ply), move, ruleset=self.rules)
            self._cache[key] = cls
        return cls

    def classify(self, ply: int) -> ClassifiedMove:
        """Classification of the move at 1-based `ply`."""
        return ClassifiedMove(ply, self.keys[ply - 1][2], self.moves[ply - 1].iccs(), self._class(ply))

    def _judge(self, start: int, end: int) -> _Judgement:
        """The verdict on the cycle of plies start+1..end and each move's (side, class). Two
        cycles from the same position with the same moves are the same cycle: judged once."""
        moves = self._move_bytes[2 * start:2 * end]
        cache_key = (self.keys[start], end - start, hash(moves))
        seen = self._cycle_cache.setdefault(cache_key, [])
        for s0, e0, found in seen:
            if self._move_bytes[2 * s0:2 * e0] == moves:
                return found
        classes = tuple((self.keys[p - 1][2], self._class(p)) for p in range(start + 1, end + 1))
        # Follow every piece through the cycle by its square at the cycle's start, so a chased
        # piece that runs from point to point is still recognised as the same piece.
        ident = {sq: sq for sq, code in enumerate(self._snaps[start].placement) if code}
        victims: list[frozenset[int]] = []
        for (_, cls), mv in zip(classes, self.moves[start:end]):
            ident.pop(mv.to_sq, None)
            ident[mv.to_sq] = ident.pop(mv.from_sq, mv.from_sq)
            victims.append(frozenset(ident.get(p.victim_sq, p.victim_sq) for p in cls.chases))
        plays = {}
        for side in (RED, BLACK):
            mine = [i for i, (s, _) in enumerate(classes) if s == side]
            plays[side] = SidePlay(side, tuple(classes[i][1].kind for i in mine), tuple(victims[i] for i in mine))
        found = (rule_on_play(plays[RED], plays[BLACK], self.rules), classes)
        seen.append((start, end, found))
        return found

    def judge_cycle(self, start: int, end: int) -> tuple[Verdict, tuple[ClassifiedMove, ...]]:
        """Rule on the cycle of plies start+1..end: the verdict and the classified moves."""
        verdict, classes = self._judge(start, end)
        moves = tuple(ClassifiedMove(start + 1 + i, side, self.moves[start + i].iccs(), cls)
                      for i, (side, cls) in enumerate(classes))
        return verdict, moves

    def _kind(self, index: int) -> str:
        """The verdict ('draw', 'red_forbidden', 'black_forbidden') on the cycle that ends at
        position `index` (which must repeat). A side with an idle move in the cycle is allowed
        under both rulesets, so once each side has shown one the cycle is a draw and the rest
        of its moves need no classifying; otherwise the cycle is judged in full."""
        found = self._kinds.get(index)
        if found is not None:
            return found
        start = self.prev[index]
        idle: set[str] = set()
        for ply in range(start + 1, index + 1):
            side = self.keys[ply - 1][2]
            if side not in idle and self._class(ply).kind == IDLE:
                idle.add(side)
                if len(idle) == 2:
                    found = "draw"
                    break
        if found is None:
            found = self._judge(start, index)[0].verdict
        self._kinds[index] = found
        return found

    def _run(self, index: int) -> int:
        """How many cycles in a row, ending at position `index`, earn the same verdict: the
        cycle ending at `index`, then the one ending where it began, and so on back."""
        chain: list[int] = []
        j = index
        while j not in self._runs:
            p = self.prev[j]
            if self.prev[p] < 0 or self._kind(p) != self._kind(j):
                self._runs[j] = 1
                break
            chain.append(j)
            j = p
        for j in reversed(chain):
            self._runs[j] = self._runs[self.prev[j]] + 1
        return self._runs[index]

    def loses_at(self, index: int) -> bool:
        """Does a forbidden cycle reach its `LOSS_CYCLES`-th repetition at position `index`?"""
        return (self.count[index] > LOSS_CYCLES and self._kind(index) != "draw"
                and self._run(index) >= LOSS_CYCLES)

    def ruling_at(self, index: int) -> Ruling | None:
        """The ruling on the repetition ending at position `index`, or None if it is not repeated."""
        start = self.prev[index]
        if start < 0:
            return None
        verdict, moves = self.judge_cycle(start, index)
        cycles = self._run(index)
        plies = list(range(start + 1, index + 1))
        times = "1 cycle" if cycles == 1 else f"{cycles} cycles"
        span = f"plies {plies[0]}-{plies[-1]}"
        text = verdict.text
        rules, rule = self.rules.name, verdict.rule
        if verdict.verdict == "draw":
            ripe = "" if cycles >= LOSS_CYCLES else f" (a draw claim is due after {LOSS_CYCLES})"
            return Ruling("draw", f"{text}; repeated {times}{ripe}, last cycle {span}", plies,
                          cycles, moves, rules, rule)
        side = "red" if verdict.verdict == "red_forbidden" else "black"
        if cycles >= LOSS_CYCLES:
            return Ruling(f"{side}_loses", f"{text}; repeated {times} ({span}): {side} loses", plies,
                          cycles, moves, rules, rule)
        return Ruling(f"{side}_must_vary",
                      f"{text}; repeated {times} ({span}): {side} must vary, "
                      f"or loses at {LOSS_CYCLES} cycles", plies, cycles, moves, rules, rule)


def adjudicate(start_fen: str | None, moves: list[Move], rules: str | Ruleset | None = None) -> Ruling:
    """Rule on the game's final repetition under `rules` ('cn', the default, or 'axf').

    `start_fen` None means the standard start. An illegal move raises MoveError naming its ply;
    an unknown ruleset raises ValueError naming it. See the module docstring for the readings.
    Time and memory grow linearly with the game (a 100,000-ply shuffle takes seconds).
    """
    ruleset = get_ruleset(rules)
    judge = _Judge(start_fen, moves, ruleset)
    n = len(judge.moves)
    # A loss that became final earlier ends the game there, whatever was recorded after it.
    for index in range(1, n):
        if judge.loses_at(index):
            ruling = judge.ruling_at(index)
            assert ruling is not None
            return Ruling(ruling.ruling,
                          f"{ruling.reason} (at ply {index}; the record continues to ply {n})",
                          ruling.cycle_plies, ruling.cycles, ruling.moves, ruling.rules, ruling.rule)
    final = judge.ruling_at(n)
    if final is not None:
        return final
    last = max((i for i in range(n + 1) if judge.prev[i] >= 0), default=None)
    if last is None:
        return Ruling("none", "no position repeated", [], rules=ruleset.name)
    return Ruling("none", f"the last repetition (at ply {last}) was left at ply {last + 1}; "
                          f"the final position is not a repetition", [], rules=ruleset.name)


def classify_cycle(start_fen: str | None, moves: list[Move],
                   rules: str | Ruleset | None = None) -> tuple[ClassifiedMove, ...]:
    """Classification of every move of the final cycle (empty if the final position is new)."""
    ruling = adjudicate(start_fen, moves, rules)
    return ruling.moves


__all__ = ["Ruling", "ClassifiedMove", "SidePlay", "Verdict", "adjudicate", "classify_cycle", "describe_kinds",
           "rule_on_kinds", "rule_on_play", "LOSS_CYCLES", "RULINGS"]
