"""Learning a piece set from a game's known start position while recording.

Why: a recording of a game that starts from a known position holds, in its first quiet frame
with the board found, a labelled photo of the set under this light: exactly what
`xqtrack calibrate pieces` asks a user for. So `record --set NAME` teaches the set by itself
when no profile of that name exists yet, uses it from then on, and hands it back to be saved
for the next game.

It learns only from a frame that really shows the stated position: the board found, no hand
over it (the reader's quiet flag), and the plain reading agreeing with the position on which
points carry a disc (occupancy is read reliably even on unfamiliar sets; identities are not,
which is what the profile is for). A board that never shows it (a resumed game, pieces
still being set up) is simply never learnt from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .observation import NUM_POINTS, Observation

if TYPE_CHECKING:
    from calibration.piece_profile import PieceSetProfile

    from .anchor import AnchorResult
    from .reader import BoardReader

__all__ = ["LearnConfig", "StartSetLearner"]


@dataclass(frozen=True)
class LearnConfig:
    """When a frame is trusted to show the start position.

    min_occupancy_agreement: share of the 90 points whose plain reading (disc or no disc) must
        agree with the stated position.
    max_frames: frames with the board found after which the learner gives up (the game has
        moved on; a start position is on the board in the first seconds).
    apply_below: use the learnt profile only when the model alone read the start position's views
        on fewer than this share of them (None: always). A set the model already reads is best
        left as it is: a profile also changes how confident the reading of half-covered and
        off-centre discs is, which the incident rules are tuned on (with a profile fitted to a
        set the model already reads almost perfectly, knocked pieces are misjudged).
    """

    min_occupancy_agreement: float = 0.98
    max_frames: int = 300
    apply_below: float | None = None


class StartSetLearner:
    """Wraps a vision.BoardReader: passes frames through, and on the first quiet frame that
    shows `board` (90 chars, index order) fits a profile (`BoardReader.adapt`) and calls
    `on_profile(profile)` once (e.g. to save it) when it is used, `on_unneeded(profile)` when the
    model reads the set well enough alone (`LearnConfig.apply_below`). It is a
    vision.protocol.Reader itself (the recorder's reader), handing the rest to the reader."""

    def __init__(self, reader: "BoardReader", board: str, name: str,
                 on_profile: Callable[["PieceSetProfile"], None] | None = None,
                 config: LearnConfig = LearnConfig(),
                 on_unneeded: Callable[["PieceSetProfile"], None] | None = None) -> None:
        if len(board) != NUM_POINTS:
            raise ValueError(f"start board must be {NUM_POINTS} characters in point-index order, got {len(board)}")
        self.reader = reader
        self.board = board
        self.name = name
        self.on_profile = on_profile
        self.on_unneeded = on_unneeded
        self.config = config
        self.profile: "PieceSetProfile | None" = None
        self.done = False
        self._seen = 0
        self._occupied = np.array([c != "." for c in board])

    def __getattr__(self, item: str) -> Any:  # everything else is the reader's
        return getattr(self.reader, item)

    # the recorder's side of the reader (vision.protocol.Reader), handed on
    def game_position(self, board: str | None, disagrees: bool = False) -> None:
        self.reader.game_position(board, disagrees)

    def take_anchored(self) -> "list[AnchorResult]":
        return self.reader.take_anchored()

    def turn_board(self) -> bool:
        return self.reader.turn_board()

    @property
    def searches(self) -> int:
        return self.reader.searches

    @property
    def search_s(self) -> float:
        return self.reader.search_s

    @property
    def search_share(self) -> float | None:
        return self.reader.search_share

    @property
    def lattice_replaced(self) -> int:
        return self.reader.lattice_replaced

    def shows_start(self, obs: Observation) -> bool:
        """The observation is quiet, has a pose and its occupancy matches the start position."""
        if obs.pose is None or not obs.quiet or obs.occluded.any():
            return False
        occupied = np.asarray(obs.probs).argmax(axis=1) > 0
        agree = float(np.mean(occupied == self._occupied))
        # either end may be red's: occupancy of the start position is symmetric anyway
        return agree >= self.config.min_occupancy_agreement

    def process(self, frame_bgr: np.ndarray, t: float, frame_index: int) -> Observation:
        obs = self.reader.process(frame_bgr, t, frame_index)
        for fitted in self.reader.take_adapted():
            self._learnt(fitted)
        if self.done or obs.pose is None:
            return obs
        self._seen += 1
        if self._seen > self.config.max_frames:
            self.done = True
            return obs
        if self.shows_start(obs):
            # the fit runs beside the frames (a second or more of CPU): its profile is applied, and
            # handed to on_profile / on_unneeded, a few frames later
            self.done = True
            self.reader.begin_adapt(frame_bgr, self.board, name=self.name, apply_below=self.config.apply_below)
        return obs

    def _learnt(self, fitted: "PieceSetProfile") -> None:
        if self.reader.profile is fitted:
            self.profile = fitted
            if self.on_profile is not None:
                self.on_profile(fitted)
        elif self.on_unneeded is not None:
            self.on_unneeded(fitted)
