"""Explain a settled board reading by legal moves, using probabilities.

Why likelihoods and not a per-point verdict: a classifier that is 60 % sure
a point holds a horse and 35 % a chariot is still useful evidence, and the
rules usually leave only one legal move that fits *all* the points together.
So each candidate resulting board is scored by the log-likelihood of the
readings given that board, relative to "nothing moved", over the visible
points only (an occluded point carries no evidence, so occlusion can never
produce a move). Readings are mixed with a small uniform floor so one
confidently wrong point costs a bounded amount instead of vetoing the truth.

Pure logic: numpy + the rules engine, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules import Move, Position

from .turning import turned_points

CLASS_LETTERS: tuple[str, ...] = (".", "K", "A", "B", "N", "R", "C", "P", "k", "a", "b", "n", "r", "c", "p")
CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASS_LETTERS)}
EMPTY = 0

# A reading is trusted as p' = (1 - FLOOR * 15) * p + FLOOR: a point read with
# certainty against a hypothesis costs at most about log(1 / FLOOR) nats.
FLOOR = 0.004

# How strongly a reader must disagree about WHICH piece stands on an occupied
# point before it counts against a board (see Evidence.contradictions).
IDENTITY_NATS = 6.0


def board_classes(position: Position) -> np.ndarray:
    """The position's placement as 90 class indices (point-index order)."""
    out = np.zeros(90, dtype=np.int64)
    for sq, piece in position.pieces().items():
        out[sq] = CLASS_INDEX[piece]
    return out


def classes_from_string(board: str) -> np.ndarray:
    """90 characters ('.' or FEN letters, point-index order) to class indices."""
    if len(board) != 90:
        raise ValueError(f"board string must have 90 characters, got {len(board)}")
    try:
        return np.array([CLASS_INDEX[c] for c in board], dtype=np.int64)
    except KeyError as exc:
        raise ValueError(f"board string has an unknown piece letter {exc.args[0]!r}") from None


def classes_to_string(classes: np.ndarray) -> str:
    return "".join(CLASS_LETTERS[int(c)] for c in classes)


def log_readings(probs: np.ndarray) -> np.ndarray:
    """(90, 15) probabilities -> floored log-probabilities (90, 15)."""
    p = np.asarray(probs, dtype=np.float64)
    p = np.clip(p, 0.0, 1.0)
    s = p.sum(axis=1, keepdims=True)
    p = np.where(s > 0, p / np.maximum(s, 1e-12), 1.0 / p.shape[1])
    return np.log(p * (1.0 - FLOOR * p.shape[1]) + FLOOR)


@dataclass
class Evidence:
    """What a settled stretch of frames says about the board.

    `logp` (90, 15) floored log-probabilities; `visible` (90,) bool: points
    seen in the settle window (others carry no evidence).
    """

    logp: np.ndarray
    visible: np.ndarray
    ignore: np.ndarray | None = None   # (90,) bool: known misreads, never counted as contradicting

    def observed(self) -> np.ndarray:
        """Most likely class per point (only meaningful where visible)."""
        return np.argmax(self.logp, axis=1)

    def turned(self) -> "Evidence":
        """The same evidence with red's end and black's swapped (board.turning)."""
        return Evidence(turned_points(self.logp), turned_points(self.visible),
                        None if self.ignore is None else turned_points(self.ignore))

    def delta(self, reference: np.ndarray, board: np.ndarray) -> float:
        """Log-likelihood of `board` minus that of `reference`, visible points only."""
        changed = np.nonzero((board != reference) & self.visible)[0]
        if changed.size == 0:
            return 0.0
        return float(self.logp[changed, board[changed]].sum() - self.logp[changed, reference[changed]].sum())

    def seen_empty(self, p: int) -> bool:
        """Point p is in view and reads empty, and that reading is news (not a known misread)."""
        return bool(self.visible[p] and self.observed()[p] == EMPTY
                    and (self.ignore is None or not self.ignore[p]))

    def contradictions(self, board: np.ndarray, threshold: float) -> list[int]:
        """Visible points whose reading confidently disagrees with `board`.

        Confident means the best class beats the board's class by more than
        `threshold` nats; uncertain points (a disc half off its point, glare)
        do not count, so they never block an otherwise clear explanation.
        """
        best = self.logp.max(axis=1)
        here = self.logp[np.arange(90), board]
        # A piece read as another piece (occupancy agrees) is the reader's commonest
        # mistake, and no move leaves a piece where it was while changing what it
        # is: such points must disagree far more strongly to count.
        same_occupancy = (board != EMPTY) & (self.observed() != EMPTY)
        need = np.where(same_occupancy, max(threshold, IDENTITY_NATS), threshold)
        bad = (best - here > need) & self.visible
        if self.ignore is not None:
            bad &= ~self.ignore
        return [int(i) for i in np.nonzero(bad)[0]]


@dataclass
class Explanation:
    """The best account of a settled reading from the last known position."""

    moves: list[Move]
    score: float                # log-likelihood gain over "nothing moved", less ply penalties
    margin: float               # over the runner-up explanation
    board: np.ndarray           # resulting class array
    residual: list[int]         # visible points still confidently contradicting `board`
    runner_up: list[Move] = field(default_factory=list)
    # other sequences of as many plies that reach the same board as well as `moves`: two of one
    # side's moves that do not touch each other in the other order, or a piece that went by
    # another route (the final reading cannot tell which)
    alternatives: list[list[Move]] = field(default_factory=list)

    @property
    def explains(self) -> bool:
        return not self.residual


def apply_move(board: np.ndarray, move: Move) -> np.ndarray:
    """The class array after `move` (a copy): no legality, no captured-piece bookkeeping."""
    out = board.copy()
    out[move.to_sq] = out[move.from_sq]
    out[move.from_sq] = EMPTY
    return out


@dataclass
class ExplainConfig:
    accept_gain: float = 1.5          # a move must beat "nothing moved" by this many nats
    contradiction: float = 2.5        # nats for a point to count as contradicting a board
    ply_penalty: float = 4.0          # each extra (unseen) ply must pay for itself
    max_plies: int = 3
    min_margin: float = 0.7           # best vs runner-up among accepted explanations
    misread_extra: float = 2.0        # a move read with a misread destination needs this much more


def explain(position: Position, evidence: Evidence, config: ExplainConfig | None = None,
            max_plies: int | None = None) -> Explanation:
    """The most likely legal move sequence (0..max_plies plies) behind `evidence`.

    Tries nothing-moved and every legal move first; only if the best of those
    leaves confident contradictions does it search deeper (missed moves),
    pruned to moves touching a differing or unseen point. Returns the best
    explanation even when it does not explain everything (`residual` says
    what is left), so the caller can decide between "out of sync" and an
    illegal move.
    """
    cfg = config or ExplainConfig()
    limit = cfg.max_plies if max_plies is None else max_plies
    ref = board_classes(position)
    null = Explanation([], 0.0, 0.0, ref, evidence.contradictions(ref, cfg.contradiction))

    scored: list[tuple[float, list[Move], np.ndarray]] = []
    for m in position.legal_moves():
        b = apply_move(ref, m)
        scored.append((evidence.delta(ref, b), [m], b))
    best, runner = _top_two(scored)
    one = None
    if best is not None and best[0] >= cfg.accept_gain:
        one = Explanation(best[1], best[0], best[0] - (runner[0] if runner else 0.0), best[2],
                          evidence.contradictions(best[2], cfg.contradiction),
                          runner[1] if runner else [])
        if one.explains:
            return one
    if null.explains and (one is None):
        return null
    if limit < 2:
        return one if one is not None else null

    # Deeper: sequences of 2..limit plies (the camera missed a move, or two
    # moves were made in one hands-over-board episode).
    differing = set(int(i) for i in np.nonzero((evidence.observed() != ref) & evidence.visible)[0])
    differing |= set(int(i) for i in np.nonzero(~evidence.visible)[0])
    candidates: list[tuple[float, list[Move], np.ndarray]] = []

    def walk(pos: Position, board: np.ndarray, seq: list[Move], depth: int) -> None:
        for m in pos.legal_moves():
            if m.from_sq not in differing and m.to_sq not in differing:
                continue  # a move that touches no changed point leaves no trace: not worth a ply
            b = apply_move(board, m)
            s = seq + [m]
            if len(s) >= 2:
                candidates.append((evidence.delta(ref, b) - cfg.ply_penalty * (len(s) - 1), s, b))
            if len(s) < limit:
                pos.push_unchecked(m)
                try:
                    walk(pos, b, s, depth + 1)
                finally:
                    pos.pop()

    walk(position.copy(), ref, [], 0)
    best_n, runner_n = _top_two(candidates)
    if best_n is not None and best_n[0] >= cfg.accept_gain:
        deep = Explanation(best_n[1], best_n[0], best_n[0] - (runner_n[0] if runner_n else 0.0), best_n[2],
                           evidence.contradictions(best_n[2], cfg.contradiction),
                           runner_n[1] if runner_n else [], _same_board_alternatives(candidates, best_n))
        if deep.explains:
            return deep
    # A clear single move whose only disagreement is on its own destination (the
    # reader takes the piece that arrived for a look-alike, or the disc lies between
    # points there) is still that move - if the board shows the piece left its point. A
    # destination read empty with the origin unseen or a known misread is no evidence of
    # a move: a victim taken off first would be recorded as captured by a piece nobody had
    # touched yet, whose point, pushed aside earlier, reads empty anyway.
    if one is not None and one.score >= cfg.accept_gain + cfg.misread_extra:
        m = one.moves[0]
        if set(one.residual) <= {m.to_sq} and (not one.residual or evidence.observed()[m.to_sq] != EMPTY
                                               or evidence.seen_empty(m.from_sq)):
            return Explanation(one.moves, one.score, one.margin, one.board, [], one.runner_up)
    if best_n is not None and best_n[0] >= cfg.accept_gain:
        deep = Explanation(best_n[1], best_n[0], 0.0, best_n[2], evidence.contradictions(best_n[2], cfg.contradiction),
                           alternatives=_same_board_alternatives(candidates, best_n))
        if one is None or len(deep.residual) < len(one.residual):
            return deep
    return one if one is not None else null


def _same_board_alternatives(candidates: list[tuple[float, list[Move], np.ndarray]],
                       best: tuple[float, list[Move], np.ndarray], tolerance: float = 0.5) -> list[list[Move]]:
    """The other sequences of as many plies that end on the best one's board as likely: the same
    moves in another order, or by another route (the reading shows where pieces stand, never
    when or how they got there)."""
    score, seq, board = best
    return [s for sc, s, b in candidates
            if s != seq and len(s) == len(seq) and sc >= score - tolerance and np.array_equal(b, board)]


def _top_two(items: list[tuple[float, list[Move], np.ndarray]]):
    best = runner = None
    for it in items:
        if best is None or it[0] > best[0]:
            best, runner = it, best
        elif runner is None or it[0] > runner[0]:
            runner = it
    return best, runner


@dataclass
class PhysicalMove:
    """A single piece lifted from one point and put on another, legal or not."""

    from_sq: int
    to_sq: int
    piece: str
    captured: str | None


def physical_move(reference: np.ndarray, evidence: Evidence, threshold: float) -> PhysicalMove | None:
    """The one-piece displacement the reading shows, if that is all it shows.

    Used when no legal sequence explains a settle: if exactly one piece left
    its point and the same piece type now stands on one other point, the
    player made that (illegal) move.
    """
    bad = evidence.contradictions(reference, threshold)
    if len(bad) != 2:
        return None
    obs = evidence.observed()
    a, b = bad
    for src, dst in ((a, b), (b, a)):
        piece = int(reference[src])
        if piece != EMPTY and obs[src] == EMPTY and obs[dst] == piece:
            cap = int(reference[dst])
            if cap != EMPTY and (CLASS_LETTERS[cap].isupper() == CLASS_LETTERS[piece].isupper()):
                continue  # cannot land on an own piece
            return PhysicalMove(src, dst, CLASS_LETTERS[piece], CLASS_LETTERS[cap] if cap else None)
    return None
