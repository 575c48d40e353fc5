"""`Reader`: what the recorder may ask of a video reader, typed (vision.reader.BoardReader is one).

Why a protocol: the recorder used to probe its reader with `getattr` for half a dozen optional
members and kept lattice policy of its own (when to re-anchor, when a lock that is never quiet
is checked). Now the reader decides those things and the recorder only tells it the game's
position and asks what happened; anything that stands in for a reader (a wrapper that learns
the piece set, the tests' prepared observations) implements the same members, and mypy checks it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from .anchor import AnchorResult
    from .observation import Observation

__all__ = ["Reader"]


@runtime_checkable
class Reader(Protocol):
    """Frames in, Observations out, plus what the recorder journals about the lattice."""

    def process(self, frame_bgr: "np.ndarray", t: float, frame_index: int) -> "Observation":
        """One frame (source time `t` seconds) -> its Observation (pose None while no board is locked)."""
        ...

    def game_position(self, board: str | None, disagrees: bool = False) -> None:
        """The position the game must show now (90 characters in point-index order; None while
        unknown) and whether the tracker just found the readings disagreeing with it. The reader
        checks its lattice against it when it judges that worth doing (vision.config.AnchorConfig)."""
        ...

    def take_anchored(self) -> "list[AnchorResult]":
        """The re-seatings of the lattice on the known position made since the last call (oldest first)."""
        ...

    def turn_board(self) -> bool:
        """Read the board the other way round from now on; False when the reader cannot (then the
        tracker turns each observation itself)."""
        ...

    @property
    def searches(self) -> int:
        """Board searches made so far."""
        ...

    @property
    def search_s(self) -> float:
        """Wall seconds those searches took (on whichever thread ran them)."""
        ...

    @property
    def search_share(self) -> float | None:
        """For a live source, the most of each second of frames spent searching while no board is
        locked; None for a file."""
        ...

    @property
    def lattice_replaced(self) -> int:
        """Doubted or audited locks given up for a clearly better lattice so far."""
        ...
