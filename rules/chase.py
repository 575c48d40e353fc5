"""What one move threatens: check (将), mate threat (杀), chase (捉) or nothing (闲).

This module classifies single moves; `rules.repetition` applies the classification to the
moves of a repeated cycle and gives the ruling (棋例). Everything here is computed from the
rules-core primitives (`attackers`, `is_legal`, `gives_check`, push/pop), never from private
board tables, so it stays correct whatever the core's internal representation.

Readings implemented (the Chinese competition rules, 《象棋竞赛规则》 as taught in the
background lesson, cross-checked against the AXF rules as Pikafish and Fairy-Stockfish apply them;
where they differ the choice is stated):

* **将 check** — the move leaves the opponent's general attacked.
* **杀 mate threat** — after the move, if the opponent did nothing, the mover could mate by
  an unbroken series of checks ("企图在下一着将军或连续将军以将死对方"). Searched to
  `MATE_THREAT_DEPTH` checking moves (the lesson's figure 16-3 needs three). Pikafish and
  Fairy-Stockfish do not implement 杀 at all; here it is a forbidden form, as the lesson says.
* **捉 chase** — the move *creates* a way to win an enemy piece that did not exist before it
  (direct attack by the moved piece, a discovered attack, or an attack that becomes
  winnable because the defender was blocked or pinned): the set of winnable (attacker,
  victim) pairs after the move, minus those before it, is not empty. A pair is winnable when
  the capture is legal and

  - the victim is worth more than the attacker in the rules' tiers (chariot > horse = cannon
    > advisor = elephant): a horse or cannon attacking a chariot, an advisor or elephant
    attacking a chariot, horse or cannon — a chase even if the victim is protected
    (as Pikafish / Fairy-Stockfish); or
  - the victim is unprotected: after the capture its side has no *legal* recapture that
    does not allow mate at once (pinned defenders, a general that would face the other, and a
    defender whose recapture is met by an immediate mate do not protect — the last is the
    lesson's figure 16-8; the engines do not test it);

  and, in both cases, the capture does not let the opponent mate at once ("得子后不至立即被对方
  将死", which the engines omit).

  Not chases: attacks by a general or by a soldier, crossed or not ("兵卒和帅将本身捉吃对方棋子，
  按闲处理" — Chinese rules and AXF agree); attacks on an uncrossed soldier; an attack on a piece of
  the same kind that can legally take the attacker back (an offer to exchange, 兑子; a pinned
  victim cannot, so attacking it stays a chase; a horse whose leg is blocked towards the
  attacker cannot either). A pair that already existed before the move is not new, so a chariot
  sliding along the line on which it already attacked a piece does not chase it again.

  Because protection is tested by *legal* recapture, a capture that also gives check (a
  discovered check, 抽吃 of a piece the discovering piece attacks) counts as winning the piece
  unless the recapture also answers the check, and a newly pinned defender (假根) protects
  nothing.

  Ruleset switches (`rules.rulesets`): under `cn` a protected piece also counts as winnable
  when the whole series of captures on its point nets material (`exchange_gain`: two attackers
  against one defender, 与其他子联合吃子, 通过完整互吃交换后得子), and a move that makes a piece
  winnable by a series of checks (`won_by_checks`, up to `CHECK_SERIES_DEPTH` checks: after a
  check, whatever the reply, the piece can be won) chases it (连续将军得子; not asked of a move
  that answers a check). Under `axf` neither counts (a chase threatens a capture "in the next
  move"), and a piece pinned against its own general (`is_pinned`) chases nothing. A check or
  mate threat that also threatens a piece lists it in `chases` (the AXF reading counts it
  towards a perpetual chase of that piece).
* **闲 idle** — anything else. A general moving out of check is idle (the lesson: "凡走动帅将应将，
  都是闲着") unless the move itself gives check.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules.move import Move
from rules.rulesets import CN, Ruleset
from rules.squares import BLACK, RED, SQUARE_NAMES

CHECK = "check"
MATE_THREAT = "mate_threat"
CHASE = "chase"
IDLE = "idle"

KIND_CHINESE = {CHECK: "将", MATE_THREAT: "杀", CHASE: "捉", IDLE: "闲"}

#: Checking moves searched for a mate threat (杀). Three covers the lesson's examples; the
#: node budget keeps a pathological position from stalling an arbiter's screen.
MATE_THREAT_DEPTH = 3
MATE_THREAT_NODE_BUDGET = 40_000

# Value tiers for "attacking a stronger piece is a chase even if it is protected".
_TIER = {"r": 3, "n": 2, "c": 2, "a": 1, "b": 1}

_RED_NAMES = {"K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵"}
_BLACK_NAMES = {"k": "将", "a": "士", "b": "象", "n": "马", "r": "车", "c": "炮", "p": "卒"}


def piece_label(piece: str, sq: int) -> str:
    """'black 马 at c7' style label used in rulings' reasons."""
    colour = "red" if piece.isupper() else "black"
    name = _RED_NAMES.get(piece) or _BLACK_NAMES.get(piece) or piece
    return f"{colour} {name} ({piece}) at {SQUARE_NAMES[sq]}"


def colour_of(piece: str) -> str:
    return RED if piece.isupper() else BLACK


def _other(colour: str) -> str:
    return BLACK if colour == RED else RED


def crossed_river(piece: str, sq: int) -> bool:
    """A soldier on the enemy half (red at ranks 5-9, black at ranks 0-4)."""
    rank = sq // 9
    return rank >= 5 if piece.isupper() else rank <= 4


@dataclass(frozen=True)
class ChasePair:
    """One winnable target: `attacker` on `attacker_sq` can win `victim` on `victim_sq`."""

    attacker_sq: int
    victim_sq: int
    attacker: str
    victim: str
    why: str  # "unprotected", "stronger" (victim outranks the attacker), "exchange" or "checks"

    def describe(self) -> str:
        how = {"unprotected": "unprotected", "stronger": "worth more than its attacker",
               "exchange": "won in the exchanges on its point",
               "checks": "won after a series of checks"}.get(self.why, self.why)
        if self.why == "checks":
            return (f"{piece_label(self.victim, self.victim_sq)} can be won by a series of checks "
                    f"after {piece_label(self.attacker, self.attacker_sq)} moved")
        return (f"{piece_label(self.attacker, self.attacker_sq)} attacks "
                f"{piece_label(self.victim, self.victim_sq)} ({how})")


@dataclass(frozen=True)
class MoveClass:
    """The classification of one move; `chases` lists the new winnable targets it created."""

    kind: str
    chases: tuple[ChasePair, ...] = ()
    mate_threat: bool = False
    gives_check: bool = False
    note: str = ""
    reason: str = ""

    @property
    def chinese(self) -> str:
        return KIND_CHINESE[self.kind]

    @property
    def forbidden_form(self) -> bool:
        """Check, mate threat and chase are the attacking forms the rules restrict; idle is free."""
        return self.kind != IDLE


@dataclass
class _Budget:
    nodes: int
    exhausted: bool = field(default=False)


def with_turn(position, colour: str):
    """A copy of `position` with `colour` to move and nothing else changed (a 'null move').

    Used to ask "what could this side do if it moved again", which is how the rules define
    threats. Built through FEN so it relies only on the public contract.
    """
    from rules.position import Position  # the core; imported lazily to keep this module light

    if position.turn == colour:
        return position.copy()
    parts = position.fen().split()
    parts[1] = colour
    return Position.from_fen(" ".join(parts))


def _king_attacked_except(position, colour: str, ignore: frozenset[int]) -> bool:
    """Is `colour`'s general attacked by a piece not on a square in `ignore`?"""
    enemy = _other(colour)
    ksq = position.king_square(colour)
    return any(sq not in ignore for sq in position.attackers(ksq, enemy))


def _capture_is_legal(position, move: Move, mover: str, ignore_checkers: frozenset[int]) -> bool:
    """Legality of a capture, ignoring checks that were already on the board.

    A side that is in check at the moment we ask (for instance before its reply to a check)
    is still *threatening* what its pieces attack; the rules ask about the threat, so the
    checkers present before are ignored, as Pikafish's "chase legal" test does.
    """
    position.push_unchecked(move)
    try:
        return not _king_attacked_except(position, mover, ignore_checkers - {move.to_sq})
    finally:
        position.pop()


def _opponent_mates_at_once(position, budget: _Budget) -> bool:
    """Side to move has a move that checkmates (used for "得子后不至立即被对方将死")."""
    for move in position.legal_moves():
        if budget.nodes <= 0:
            budget.exhausted = True
            return False
        budget.nodes -= 1
        if not position.gives_check(move):
            continue
        position.push(move)
        try:
            if not position.has_legal_moves():
                return True
        finally:
            position.pop()
    return False


def winnable_pairs(position, attacker_colour: str, budget: _Budget | None = None, *,
                   pinned_piece_chases: bool = True,
                   exchange_chases: bool = False) -> dict[tuple[int, int], ChasePair]:
    """Every (attacker square, victim square) where `attacker_colour` could win the victim.

    `position` may have either side to move; the question is asked as if `attacker_colour` were
    to move. Generals and soldiers are never attackers; generals and uncrossed soldiers never
    victims (see the module docstring for the full reading). With `pinned_piece_chases` False
    (the AXF reading) a piece that shields its own general attacks nothing; with
    `exchange_chases` (the Chinese reading) a protected victim is winnable when the whole series
    of captures on its point, least valuable capturer first, nets material.
    """
    if budget is None:
        budget = _Budget(MATE_THREAT_NODE_BUDGET)
    pos = with_turn(position, attacker_colour)
    victim_colour = _other(attacker_colour)
    own_king = pos.king_square(attacker_colour)
    standing_checkers = frozenset(pos.attackers(own_king, victim_colour))
    result: dict[tuple[int, int], ChasePair] = {}
    for vsq, victim in pos.pieces().items():
        if colour_of(victim) != victim_colour:
            continue
        vkind = victim.lower()
        if vkind == "k" or (vkind == "p" and not crossed_river(victim, vsq)):
            continue
        for asq in pos.attackers(vsq, attacker_colour):
            attacker = pos.piece_at(asq)
            if attacker is None:
                continue
            akind = attacker.lower()
            if akind in ("k", "p"):
                continue
            if not pinned_piece_chases and is_pinned(pos, asq):
                continue  # AXF: a piece held in place by a pin does not chase (rule 19, D63-66)
            capture = Move(asq, vsq)
            if not _capture_is_legal(pos, capture, attacker_colour, standing_checkers):
                continue  # pinned attacker, or the capture would face the generals
            if akind == vkind and _can_take_back(pos, vsq, asq, victim_colour):
                continue  # like attacking like, and it can take back: an offer to exchange
            stronger = _TIER.get(vkind, 0) > _TIER.get(akind, 0) and vkind in ("r", "n", "c")
            if stronger:
                why = "stronger"
            elif _unprotected_after(pos, capture, victim_colour, budget):
                why = "unprotected"
            elif exchange_chases and exchange_gain(pos, capture) > 0:
                why = "exchange"
            else:
                continue
            pos.push_unchecked(capture)
            try:
                if _opponent_mates_at_once(pos, budget):
                    continue  # winning it would be mated at once: not a real threat
            finally:
                pos.pop()
            result[(asq, vsq)] = ChasePair(asq, vsq, attacker, victim, why)
    return result


@dataclass(frozen=True)
class ExchangeValues:
    """Piece values for weighing a series of captures, in soldier units (an uncrossed soldier
    is 1). Horse and cannon are equal, as in the rules' tiers; the general's value only has to
    exceed everything else (a general is never captured, but may recapture)."""

    chariot: int = 9
    horse: int = 4
    cannon: int = 4
    advisor: int = 2
    elephant: int = 2
    soldier: int = 1
    crossed_soldier: int = 2
    general: int = 100

    def of(self, piece: str, sq: int) -> int:
        kind = piece.lower()
        if kind == "p":
            return self.crossed_soldier if crossed_river(piece, sq) else self.soldier
        return {"r": self.chariot, "n": self.horse, "c": self.cannon, "a": self.advisor,
                "b": self.elephant, "k": self.general}[kind]


EXCHANGE_VALUES = ExchangeValues()


def exchange_gain(pos, capture: Move, values: ExchangeValues = EXCHANGE_VALUES) -> int:
    """Material the capturing side nets from `capture` and the best series of recaptures on that
    point (each side captures with its least valuable legal piece, and may stop at any time).

    `pos` may have either side to move; it is left unchanged.
    """
    attacker = pos.piece_at(capture.from_sq)
    victim = pos.piece_at(capture.to_sq)
    if attacker is None or victim is None:
        return 0
    mover = colour_of(attacker)
    mover_pos = pos if pos.turn == mover else with_turn(pos, mover)
    gained = values.of(victim, capture.to_sq)
    mover_pos.push_unchecked(capture)
    try:
        return gained - _best_recapture(mover_pos, capture.to_sq, values)
    finally:
        mover_pos.pop()


def _best_recapture(pos, sq: int, values: ExchangeValues) -> int:
    """What the side to move nets by recapturing on `sq` (0 when it had better not)."""
    capturers = []
    for asq in pos.attackers(sq, pos.turn):
        piece = pos.piece_at(asq)
        move = Move(asq, sq)
        if piece is not None and pos.is_legal(move):
            capturers.append((values.of(piece, asq), move))
    if not capturers:
        return 0
    _, move = min(capturers, key=lambda c: c[0])
    taken = pos.piece_at(sq)
    gained = values.of(taken, sq) if taken is not None else 0
    pos.push(move)
    try:
        return max(0, gained - _best_recapture(pos, sq, values))
    finally:
        pos.pop()


#: Checks searched for a win of material by a series of checks (从下一着开始运用连续将军得子).
CHECK_SERIES_DEPTH = 2
CHECK_SERIES_NODE_BUDGET = 4_000


def won_by_checks(position, attacker_colour: str, depth: int = CHECK_SERIES_DEPTH,
                  budget: _Budget | None = None) -> frozenset[int]:
    """Squares of the enemy pieces `attacker_colour` can win by starting a series of at most
    `depth` checks: after some check, whatever the reply, the piece can be won at once (it is
    then unprotected or worth more than its attacker), or a further check leads to that.

    The question is asked as if `attacker_colour` were to move; a reply that leaves no legal
    move (mate) is a mate threat, found elsewhere, and not counted here.
    """
    if budget is None:
        budget = _Budget(CHECK_SERIES_NODE_BUDGET)
    pos = with_turn(position, attacker_colour)
    return _won_by_checks(pos, attacker_colour, depth, budget)


def _won_by_checks(pos, attacker_colour: str, depth: int, budget: _Budget) -> frozenset[int]:
    won: set[int] = set()
    for check in [m for m in pos.legal_moves() if pos.gives_check(m)]:
        budget.nodes -= 1
        if budget.nodes <= 0:
            budget.exhausted = True
            break
        pos.push(check)
        try:
            replies = pos.legal_moves()
            if not replies:
                continue   # mate: a mate threat, not a chase
            common: set[int] | None = None
            for reply in replies:
                pos.push(reply)
                try:
                    here = {v for (_, v) in winnable_pairs(pos, attacker_colour, budget)}
                    if depth > 1 and not budget.exhausted:
                        here |= _won_by_checks(pos, attacker_colour, depth - 1, budget)
                finally:
                    pos.pop()
                common = here if common is None else common & here
                if not common:
                    break
            # a piece that moved away in every reply is not the same piece: keep the points that
            # hold an enemy piece in the checked position (the reply did not touch them)
            if common:
                won |= {v for v in common if pos.piece_at(v) is not None
                        and colour_of(pos.piece_at(v) or "K") != attacker_colour}
        finally:
            pos.pop()
    return frozenset(won)


def board_without(position, sq: int):
    """A copy of `position` with the piece on `sq` lifted off (same side to move)."""
    from rules.position import Position

    rows = []
    placed = position.pieces()
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for file in range(9):
            here = rank * 9 + file
            letter = None if here == sq else placed.get(here)
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return Position.from_board("/".join(rows), position.turn)


def is_pinned(position, sq: int) -> bool:
    """Does the piece on `sq` shield its own general (lifted off, would its general be attacked
    by a piece that does not attack it now)? Covers line pins by chariot or cannon, a horse whose
    leg it blocks, and the facing generals."""
    piece = position.piece_at(sq)
    if piece is None or piece.lower() == "k":
        return False
    own = colour_of(piece)
    enemy = _other(own)
    ksq = position.king_square(own)
    now = set(position.attackers(ksq, enemy))
    lifted = board_without(position, sq)
    return any(a not in now for a in lifted.attackers(ksq, enemy))


def _can_take_back(pos, victim_sq: int, attacker_sq: int, victim_colour: str) -> bool:
    """Could the victim capture its attacker (the exchange offer test)? Asked with the victim's side to move."""
    if victim_sq not in pos.attackers(attacker_sq, victim_colour):
        return False
    them = with_turn(pos, victim_colour)
    return them.is_legal(Move(victim_sq, attacker_sq))


def _unprotected_after(pos, capture: Move, victim_colour: str, budget: _Budget) -> bool:
    """After `capture`, has the victim's side no real way to take back on that point?

    A recapture counts only if it is legal and does not allow mate at once: a defender that
    may not take back without being mated (the lesson's figure 16-8, "红方不能走相五退三，否则
    黑方炮2进5闷杀") gives no protection.
    """
    pos.push_unchecked(capture)
    try:
        after = pos if pos.turn == victim_colour else with_turn(pos, victim_colour)
        for dsq in after.attackers(capture.to_sq, victim_colour):
            retake = Move(dsq, capture.to_sq)
            if not after.is_legal(retake):
                continue
            after.push(retake)
            try:
                if not _opponent_mates_at_once(after, budget):
                    return False
            finally:
                after.pop()
        return True
    finally:
        pos.pop()


def mate_by_checks(position, depth: int = MATE_THREAT_DEPTH, budget: _Budget | None = None,
                   line: list[Move] | None = None) -> bool:
    """Can the side to move mate with an unbroken series of at most `depth` checks?

    A mate here is "the opponent has no legal move after a check" (in Xiangqi having no legal
    move loses whether or not in check). The search is exhaustive within `depth`, bounded by
    `budget` nodes; when the budget runs out the answer is False and `budget.exhausted` is set.
    When `line` is given and the answer is True, the first checking move of a mating series is
    appended to it (for the ruling's per-move reason).
    """
    if budget is None:
        budget = _Budget(MATE_THREAT_NODE_BUDGET)
    return _mate_search(position, depth, budget, line)


def _mate_search(pos, depth: int, budget: _Budget, line: list[Move] | None = None) -> bool:
    checks = [m for m in pos.legal_moves() if pos.gives_check(m)]
    # Mate in one first: it is the cheapest answer and most threats are short.
    deeper: list[Move] = []
    for move in checks:
        budget.nodes -= 1
        if budget.nodes <= 0:
            budget.exhausted = True
            return False
        pos.push(move)
        try:
            if not pos.has_legal_moves():
                if line is not None:
                    line.append(move)
                return True
        finally:
            pos.pop()
        deeper.append(move)
    if depth <= 1:
        return False
    for move in deeper:
        pos.push(move)
        try:
            if all(_reply_loses(pos, reply, depth - 1, budget) for reply in pos.legal_moves()):
                if line is not None:
                    line.append(move)
                return True
        finally:
            pos.pop()
        if budget.exhausted:
            return False
    return False


def _reply_loses(pos, reply: Move, depth: int, budget: _Budget) -> bool:
    pos.push(reply)
    try:
        return _mate_search(pos, depth, budget)
    finally:
        pos.pop()


def classify_move(before, move: Move, *, mate_depth: int = MATE_THREAT_DEPTH,
                  ruleset: Ruleset | None = None) -> MoveClass:
    """Classify `move` played from position `before` (which is left unchanged).

    `before` must have the mover to move and `move` must be legal there. `ruleset` (default
    `cn`) decides whether a pinned piece can chase; the class names are the same in both
    rulesets (whether a form is forbidden is decided in `rules.repetition`). The returned
    `reason` says in words why the move is 将, 杀, 捉 or 闲.
    """
    rules = ruleset if ruleset is not None else CN
    mover = before.turn
    enemy = _other(mover)
    piece = before.piece_at(move.from_sq)
    was_in_check = before.is_check()
    after = before.copy()
    after.push(move)
    if after.is_check():
        ksq = after.king_square(enemy)
        by = "; ".join(f"{piece_label(after.piece_at(sq) or '?', sq)} attacks the {_side_word(enemy)} general "
                       f"at {SQUARE_NAMES[ksq]}" for sq in after.checkers())
        # A check can threaten a piece as well; the AXF reading counts that towards a perpetual
        # chase of the piece (a check that also chases is still 将 for the class).
        also = _new_chases(before, after, move, mover, enemy, rules)
        extra = ("; it also threatens " + "; ".join(p.describe() for p in also)) if also else ""
        return MoveClass(CHECK, chases=tuple(also), gives_check=True, reason=f"将 check: {by}{extra}")
    if piece is not None and piece.lower() == "k" and was_in_check:
        note = "general moving out of check (应将) is idle"
        return MoveClass(IDLE, note=note, reason=f"闲 idle: {note}")
    budget = _Budget(MATE_THREAT_NODE_BUDGET)
    threat_pos = with_turn(after, mover)
    line: list[Move] = []
    if mate_by_checks(threat_pos, mate_depth, budget, line):
        first = line[-1].iccs() if line else "?"
        # Kept for the AXF reading, where a mate threat is free but a chase made by the same
        # move still counts towards a perpetual chase.
        also = _new_chases(before, after, move, mover, enemy, rules)
        extra = ("; it also threatens " + "; ".join(p.describe() for p in also)) if also else ""
        return MoveClass(MATE_THREAT, chases=tuple(also), mate_threat=True,
                         reason=f"杀 mate threat: if {_side_word(enemy)} did nothing, {_side_word(mover)} "
                                f"would mate by checks within {mate_depth} moves, starting {first}{extra}")
    note = "mate-threat search stopped at its node budget" if budget.exhausted else ""
    new_pairs = _new_chases(before, after, move, mover, enemy, rules)
    if new_pairs:
        text = "; ".join(p.describe() for p in new_pairs)
        return MoveClass(CHASE, chases=tuple(new_pairs), note=note,
                         reason=f"捉 chase: the move creates a threat to win material: {text}")
    why = "no check, no mate threat by checks, and no new threat to win a piece"
    if not rules.pinned_piece_chases:
        pinned = _pinned_threats(after, mover)
        if pinned:
            why += (f" ({'; '.join(p.describe() for p in pinned)}, but the attacker is pinned against its own "
                    f"general and does not chase under {rules.name})")
    return MoveClass(IDLE, note=note, reason=f"闲 idle: {why}" + (f"; {note}" if note else ""))


def _side_word(colour: str) -> str:
    return "red" if colour == RED else "black"


def _pinned_threats(after, mover: str) -> list[ChasePair]:
    """The winnable pairs that exist only if pinned pieces may chase (named in an idle move's reason)."""
    free = winnable_pairs(after, mover, pinned_piece_chases=False)
    return [p for key, p in sorted(winnable_pairs(after, mover).items()) if key not in free]


def _new_chases(before, after, move: Move, mover: str, enemy: str, rules: Ruleset = CN) -> list[ChasePair]:
    """Winnable pairs after the move that did not exist before it (pieces followed by identity)."""
    old = winnable_pairs(before, mover, pinned_piece_chases=rules.pinned_piece_chases,
                         exchange_chases=rules.exchange_chases)
    new = winnable_pairs(after, mover, pinned_piece_chases=rules.pinned_piece_chases,
                         exchange_chases=rules.exchange_chases)
    created = []
    for (asq, vsq), pair in sorted(new.items()):
        old_asq = move.from_sq if asq == move.to_sq else asq
        if (old_asq, vsq) in old:
            continue
        created.append(pair)
    if not created and rules.check_series_chases and not before.is_check():
        # 从下一着开始运用连续将军得子: a piece that only a series of checks wins, newly so. Not
        # asked of a move that answers a check: what checks the mover had before it cannot be
        # compared (its moves were limited to parrying), so nothing counts as newly created.
        threatened = {v for (_, v) in old} | {v for (_, v) in new}
        fresh = won_by_checks(after, mover) - won_by_checks(before, mover) - threatened
        for vsq in sorted(fresh):
            mover_piece = after.piece_at(move.to_sq) or "?"
            created.append(ChasePair(move.to_sq, vsq, mover_piece, after.piece_at(vsq) or "?", "checks"))
    return created
