"""The tracker's states as enums shared by the tracker, the recorder and the live pages.

Why enums: the states were bare strings compared in several places ("in_sync" in the recorder,
"quiet" in the tracker). Each is a `str` whose value is the word used so far, so journal text,
console text and comparisons with the old words stay exactly as they were.
"""
from __future__ import annotations

from enum import Enum


class SyncState(str, Enum):
    """Whether the recorded game matches the board.

    IN_SYNC: the board shows the recorded position. OUT_OF_SYNC: no legal line explains what
    the board shows. ILLEGAL: the board shows an illegal move (reported as an incident) that
    has not been put right yet.
    """

    IN_SYNC = "in_sync"
    OUT_OF_SYNC = "out_of_sync"
    ILLEGAL = "illegal"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Phase(str, Enum):
    """The tracker's state machine: QUIET (board settled, nobody touching) or ACTIVE (a hand over
    the board or a reading departing from the settled board, until the next settle)."""

    QUIET = "quiet"
    ACTIVE = "active"

    def __str__(self) -> str:
        return self.value


class SettleKind(str, Enum):
    """How a stretch settled: QUIET (readings unchanged and no hand in view for quiet_settle_s) or
    REST (an arm resting at the edge, the points it does not cover unchanged for rest_settle_s)."""

    QUIET = "quiet"
    REST = "rest"

    def __str__(self) -> str:
        return self.value
