"""After the camera is knocked, a still board is quiet again (vision.hands, issue 10 item 8).

A board has thickness: once the camera has moved, its sides just beyond the lattice look
different from the new viewpoint, all along an edge. That strip of changed ring cells is no
arm, and must not keep a piece moved beside it from settling for ever (a resting arm never
settles). On the bundled sample clip (sim/samples/demo, one planted bump), whenever the truth
has been quiet for half a second, the reader calls the board quiet, after the bump as before it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


SETTLED_S = 0.5      # the truth has been quiet this long: the hand is well gone


@dataclass
class QuietShare:
    """Frames the truth has been quiet for SETTLED_S, and how many of them the reader called quiet."""

    settled: int = 0
    called: int = 0

    @property
    def share(self) -> float:
        return self.called / max(1, self.settled)


def test_the_board_goes_quiet_again_after_the_camera_is_knocked(demo_clip_read) -> None:
    truth = demo_clip_read.truth
    bump_end = max(b for e in truth.events if e.get("kind") == "bump" for b in [e["frames"][1]])
    before, after = QuietShare(), QuietShare()
    quiet_since: float | None = None
    i = 0
    for obs in demo_clip_read.observations:
        ft = truth.frames[i]
        quiet_since = (quiet_since if quiet_since is not None else ft.t) if ft.quiet else None
        if quiet_since is not None and ft.t - quiet_since >= SETTLED_S:
            part = after if i > bump_end else before
            part.settled += 1
            part.called += int(obs.quiet and not np.asarray(obs.occluded).any())
        i += 1
    assert before.settled > 100 and after.settled > 100
    assert before.share >= 0.95
    # the first second after the bump the ring is still being relearnt (0.90 before this work too)
    assert after.share >= 0.85, f"quiet on {after.called} of {after.settled} settled frames after the bump"
