"""Which end of the board is red's, on a frame whose position is known (a game's start).

Why two cues: the classifier's likelihood of the known position under each end settles it
whenever the model reads the set; on rendered games the two ends differ by 70 to 210 nats
(log-likelihood over the 90 points). A set the model hardly reads leaves them close, and there
the wrong end can win (a paper set blurred until its discs are plain colour leaves the ends a
few nats apart; keeping the wrong one reads every move turned round and loses the game). Red ink (`vision.locate.red_score`) does not depend on the model: red pieces carry
red characters or are red discs. It decides only where the pieces do not, and only when it is
clear: red on one half and none on the other. A board printed in red ink shows red on both halves
about alike, and so may a set under coloured light (some red on both halves, one with several
times the other's: taking the half with more red can lose a game whole).
Pure logic, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass

from .geometry import CheckedSettings
from .locate import RedHalves

__all__ = ["StartOrientConfig", "StartOrientation", "start_orientation"]


@dataclass(frozen=True)
class StartOrientConfig(CheckedSettings):
    """When the pieces settle which end is red's, and when red ink does instead."""

    pieces_decide_nats: float = 40.0  # the known position this much likelier (log, over 90 points) under one end: the pieces decide
    red_min: float = 0.5              # else red ink decides when one half shows at least this much (red_score summed over the half: discs' worth of red ink) ...
    red_none: float = 0.1             # ... and the other at most this: red pieces on one half and none on the other


@dataclass(frozen=True)
class StartOrientation:
    """The end kept: `turned` when the board is to be read turned 180 degrees from its lock;
    `by` names the cue that decided ("pieces" or "red ink"); `margin_nats`: how much likelier
    the known position is under the end the pieces prefer."""

    turned: bool
    by: str
    margin_nats: float


def start_orientation(ll_as_locked: float, ll_turned: float, red: RedHalves,
                      config: StartOrientConfig = StartOrientConfig()) -> StartOrientation:
    """Decide the end from the known position's log-likelihood as locked and turned round, and the
    red ink on each half as locked (ranks 0-4 are red's end as locked)."""
    pieces_turned = ll_turned > ll_as_locked
    margin = abs(ll_turned - ll_as_locked)
    if margin >= config.pieces_decide_nats:
        return StartOrientation(pieces_turned, "pieces", margin)
    more, less = max(red.low, red.high), min(red.low, red.high)
    if more >= config.red_min and less <= config.red_none:
        return StartOrientation(red.high > red.low, "red ink", margin)
    return StartOrientation(pieces_turned, "pieces", margin)
