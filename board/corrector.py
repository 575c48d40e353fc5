"""The corrector: a recorded move or two that the board later shows were wrong.

A settle explained by a hair (a destination whose empty reading was least sure, one of two like
pieces that could reach a point) can record the wrong move; every later settle then looks
unexplained, or is explained only by inventing moves nobody made. The corrector finds the
replacement line; the tracker applies it (a `corrected` event, the plies re-stated).
Pure: positions and evidence in, a `Correction` out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rules import Move, Position

from .explain import Evidence, ExplainConfig, Explanation, board_classes, explain


@dataclass
class CorrectorConfig:
    """How far back a recorded move may be found wrong and replaced (plies), and what a correction must gain."""

    correct_plies: int = 2
    explain: ExplainConfig = field(default_factory=ExplainConfig)


@dataclass
class Correction:
    """Replace the last `plies_back` recorded plies by `replacement`, then accept `after`.

    `gain` is the evidence's log-likelihood gain of the corrected board over the recorded one (nats).
    """

    gain: float
    plies_back: int
    replacement: list[Move]
    after: Explanation


def find_correction(position: Position, revisable: int, evidence: Evidence, cfg: CorrectorConfig,
                    max_new_plies: int = 1) -> Correction | None:
    """A move recorded a ply or two ago that the board now shows was another.

    `position` is the recorded game's current position; only its last `revisable` plies may be
    replaced (plies journalled before a restart are locked: a person's to change). If swapping
    one recorded move for another of the same piece (same origin) or onto the same point (same
    destination), keeping the moves recorded after it, explains the board with at most
    `max_new_plies` new plies, that is the correction (the most recent such suspect, its best
    replacement by gain).
    """
    xcfg = cfg.explain
    if cfg.correct_plies <= 0 or revisable <= 0:
        return None
    ref_now = board_classes(position)
    best: Correction | None = None
    for k in range(1, min(cfg.correct_plies, revisable) + 1):
        base = position.copy()
        undone = [base.pop() for _ in range(k)][::-1]
        suspect, kept = undone[0], undone[1:]
        for alt in base.legal_moves():
            if alt == suspect or (alt.from_sq != suspect.from_sq and alt.to_sq != suspect.to_sq):
                continue
            p = base.copy()
            p.push(alt)
            follows = True
            for m in kept:
                if not p.is_legal(m):
                    follows = False
                    break
                p.push(m)
            if not follows:
                continue
            ex = explain(p, evidence, xcfg, max_plies=max_new_plies)
            if not ex.explains or len(ex.moves) > max_new_plies:
                continue
            gain = evidence.delta(ref_now, ex.board)
            if gain >= xcfg.accept_gain and (best is None or gain > best.gain):
                best = Correction(gain, k, [alt] + kept, ex)
        if best is not None:
            return best   # the most recent suspect that works
    return None


def find_rewind(position: Position, revisable: int, evidence: Evidence, cfg: CorrectorConfig) -> Correction | None:
    """Still out of sync: the last few recorded plies replaced by a legal line that explains
    the board, as long as it keeps at least as many plies (moves are never erased).

    The wider form of `find_correction` for when a misread settle made the tracker record
    a move nobody made (inferred) or miss one: every later settle is then unexplained and,
    without this, the rest of the game is lost. Tried only on an unexplained settle. Only the
    last `revisable` plies may be replaced.
    """
    xcfg = cfg.explain
    if cfg.correct_plies <= 0 or revisable <= 0:
        return None
    ref_now = board_classes(position)
    for k in range(1, min(cfg.correct_plies + 1, revisable) + 1):
        base = position.copy()
        undone = [base.pop() for _ in range(k)][::-1]
        ex = explain(base, evidence, xcfg, max_plies=k + 1)
        if not ex.explains or len(ex.moves) < k or ex.moves[:k] == undone:
            continue
        gain = evidence.delta(ref_now, ex.board)
        if gain < xcfg.accept_gain:
            continue
        after = Explanation(ex.moves[k:], ex.score, 0.0, ex.board, [])
        return Correction(gain, k, ex.moves[:k], after)
    return None
