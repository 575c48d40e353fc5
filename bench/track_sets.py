"""The clip sets the tracking bench measures false accusations and recall on (issue 10, item 6).

Why two sets, defined here once: a figure measured on clips that were looked at while the
incident rules were tuned says little about the next renderer or camera. The TUNING set is the
one a developer may run, inspect and tune against; the HELD_BACK set is only ever scored, so its
false-incident and recall figures stand for clips nobody fitted the rules to. Seeds of both lie
outside every range used before (7101-7110 bench clips, 9101-9104 test truths, demo, tests), and
each clip fixes its own camera (tilt, azimuth, field of view, lens distortion, blur, noise,
glare, moving shadows, bump) rather than leaving them to the seed, so the set covers the camera
space broadly on purpose. Hands (their look, tempo, sloppiness) come from the seed, so new seeds
are new hands.

Both named causes of the false `touch_move_other` reports of issue 10 are in every set: arm
passes (a sleeve sweeping over the board with no touch) and camera bumps (the whole view
shifting mid-game), next to the planted incidents whose recall must stay >= 95 %.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BenchClip:
    """One rendered game of a bench set.

    seed: the renderer's seed (board art, pieces, hands, game); look: the table look;
    plies: random legal plies played; incidents: planted incidents and arm passes
    ({"kind", "ply"}, ply 1-based); camera: sim ClipSpec camera overrides (degrees, pixels,
    OpenCV k1) -- see sim/truth.py ClipSpec.
    """

    seed: int
    look: str
    plies: int
    incidents: tuple[tuple[str, int], ...]
    camera: dict[str, Any] = field(default_factory=dict)

    def incident_dicts(self) -> list[dict]:
        """The incidents as the renderer's ClipSpec wants them."""
        return [{"kind": k, "ply": p} for k, p in self.incidents]

    @property
    def planted(self) -> int:
        """Incidents that should be reported (an arm pass is not one)."""
        return sum(1 for k, _ in self.incidents if k != "arm_pass")


# Used while fixing the false accusations: may be looked at and tuned against.
TUNING: tuple[BenchClip, ...] = (
    BenchClip(8301, "wood", 8, (("touch_move_other", 2), ("arm_pass", 3), ("knocked", 5), ("retouch", 7)),
              {"tilt_deg": 30.0, "azimuth_deg": 200.0, "fov_deg": 60.0, "bump": True, "shadows": True}),
    BenchClip(8302, "mat", 8, (("arm_pass", 2), ("between_points", 4), ("touch_move_other", 6)),
              {"tilt_deg": 12.0, "azimuth_deg": 95.0, "fov_deg": 50.0, "distortion": -0.08, "bump": True}),
    BenchClip(8303, "paper", 8, (("retouch", 2), ("arm_pass", 4), ("arm_pass", 7), ("knocked", 6)),
              {"tilt_deg": 38.0, "azimuth_deg": 10.0, "fov_deg": 70.0, "glare": True, "bump": False}),
    BenchClip(8304, "cloth", 8, (("touch_move_other", 3), ("arm_pass", 5), ("between_points", 7)),
              {"tilt_deg": 5.0, "azimuth_deg": 300.0, "fov_deg": 55.0, "noise": 6.0, "blur": 1.5, "bump": True}),
    BenchClip(8305, "plastic", 8, (("arm_pass", 1), ("retouch", 4), ("touch_move_other", 7)),
              {"tilt_deg": 25.0, "azimuth_deg": 150.0, "fov_deg": 65.0, "shadows": True, "bump": True}),
    BenchClip(8306, "wood", 8, (("arm_pass", 2), ("arm_pass", 5), ("arm_pass", 8)),
              {"tilt_deg": 20.0, "azimuth_deg": 250.0, "fov_deg": 48.0, "bump": True}),
    # added after the first measurement (one false touch, from a bump): more of both causes
    BenchClip(8307, "paper", 8, (("arm_pass", 3), ("touch_move_other", 4), ("arm_pass", 6), ("retouch", 8)),
              {"tilt_deg": 40.0, "azimuth_deg": 60.0, "fov_deg": 68.0, "bump": True, "noise": 4.0}),
    BenchClip(8308, "cloth", 8, (("knocked", 2), ("arm_pass", 4), ("arm_pass", 5), ("between_points", 7)),
              {"tilt_deg": 10.0, "azimuth_deg": 180.0, "fov_deg": 58.0, "bump": True, "glare": True}),
    BenchClip(8309, "plastic", 8, (("arm_pass", 1), ("retouch", 3), ("arm_pass", 6), ("touch_move_other", 8)),
              {"tilt_deg": 32.0, "azimuth_deg": 290.0, "fov_deg": 50.0, "distortion": -0.06, "bump": True}),
    BenchClip(8310, "mat", 8, (("arm_pass", 2), ("arm_pass", 3), ("knocked", 5), ("arm_pass", 7)),
              {"tilt_deg": 0.0, "azimuth_deg": 0.0, "fov_deg": 62.0, "bump": True, "shadows": True}),
    # added after the first held-back score (3 false touch_move_other in 10 games; their clips
    # were not looked into): six more games for tuning, wide lenses, steep views and noise
    BenchClip(8311, "wood", 8, (("arm_pass", 2), ("touch_move_other", 3), ("retouch", 5), ("arm_pass", 7)),
              {"tilt_deg": 43.0, "azimuth_deg": 110.0, "fov_deg": 76.0, "distortion": 0.03, "bump": True}),
    BenchClip(8312, "paper", 8, (("touch_move_other", 2), ("arm_pass", 4), ("knocked", 5), ("retouch", 8)),
              {"tilt_deg": 6.0, "azimuth_deg": 215.0, "fov_deg": 47.0, "blur": 1.8, "noise": 5.5, "bump": True}),
    BenchClip(8313, "cloth", 8, (("between_points", 2), ("arm_pass", 3), ("touch_move_other", 5), ("knocked", 7)),
              {"tilt_deg": 35.0, "azimuth_deg": 320.0, "fov_deg": 60.0, "glare": True, "shadows": True,
               "bump": True}),
    BenchClip(8314, "plastic", 8, (("retouch", 2), ("touch_move_other", 4), ("arm_pass", 6), ("between_points", 8)),
              {"tilt_deg": 24.0, "azimuth_deg": 35.0, "fov_deg": 69.0, "distortion": -0.1, "bump": False}),
    BenchClip(8315, "mat", 8, (("touch_move_other", 2), ("arm_pass", 3), ("retouch", 6), ("touch_move_other", 8)),
              {"tilt_deg": 16.0, "azimuth_deg": 255.0, "fov_deg": 53.0, "noise": 2.5, "bump": True}),
    BenchClip(8316, "wood", 8, (("knocked", 3), ("arm_pass", 5), ("touch_move_other", 6), ("arm_pass", 8)),
              {"tilt_deg": 30.0, "azimuth_deg": 145.0, "fov_deg": 64.0, "shadows": True, "bump": True}),
    # added after the second held-back score (false touch_move_other remained, two of them on a
    # game's last move; their clips were not looked into): games ending on an arm pass or a retouch
    BenchClip(8317, "plastic", 8, (("retouch", 2), ("arm_pass", 5), ("knocked", 6), ("arm_pass", 8)),
              {"tilt_deg": 39.0, "azimuth_deg": 120.0, "fov_deg": 70.0, "distortion": 0.02, "bump": True}),
    BenchClip(8318, "wood", 8, (("between_points", 3), ("arm_pass", 4), ("retouch", 8)),
              {"tilt_deg": 4.0, "azimuth_deg": 80.0, "fov_deg": 48.0, "blur": 1.6, "noise": 4.5, "bump": True}),
    BenchClip(8319, "cloth", 8, (("arm_pass", 2), ("retouch", 4), ("arm_pass", 8)),
              {"tilt_deg": 28.0, "azimuth_deg": 350.0, "fov_deg": 57.0, "glare": True, "shadows": True,
               "bump": False}),
    BenchClip(8320, "paper", 8, (("knocked", 2), ("arm_pass", 3), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 21.0, "azimuth_deg": 230.0, "fov_deg": 63.0, "distortion": -0.09, "bump": True}),
    BenchClip(8321, "mat", 8, (("arm_pass", 1), ("between_points", 4), ("arm_pass", 6), ("retouch", 7)),
              {"tilt_deg": 26.0, "azimuth_deg": 160.0, "fov_deg": 51.0, "noise": 3.5, "bump": True}),
    BenchClip(8322, "plastic", 8, (("touch_move_other", 3), ("arm_pass", 6), ("arm_pass", 8)),
              {"tilt_deg": 10.0, "azimuth_deg": 275.0, "fov_deg": 75.0, "blur": 1.0, "glare": True, "bump": True}),
    # added after the third held-back score (all 80 moves right; recall lost on knocks and
    # touch-moves in games read right, clips not looked into): more of those two kinds
    BenchClip(8323, "wood", 8, (("knocked", 2), ("touch_move_other", 4), ("knocked", 7)),
              {"tilt_deg": 20.0, "azimuth_deg": 40.0, "fov_deg": 60.0, "noise": 3.0, "bump": True}),
    BenchClip(8324, "cloth", 8, (("touch_move_other", 2), ("knocked", 5), ("touch_move_other", 7)),
              {"tilt_deg": 34.0, "azimuth_deg": 190.0, "fov_deg": 55.0, "shadows": True, "bump": False}),
    BenchClip(8325, "paper", 8, (("knocked", 3), ("arm_pass", 4), ("touch_move_other", 6)),
              {"tilt_deg": 12.0, "azimuth_deg": 300.0, "fov_deg": 66.0, "blur": 1.4, "bump": True}),
    BenchClip(8326, "mat", 8, (("touch_move_other", 3), ("knocked", 6), ("arm_pass", 7)),
              {"tilt_deg": 41.0, "azimuth_deg": 95.0, "fov_deg": 71.0, "distortion": 0.03, "bump": True}),
    BenchClip(8327, "plastic", 8, (("knocked", 2), ("touch_move_other", 5), ("retouch", 8)),
              {"tilt_deg": 7.0, "azimuth_deg": 160.0, "fov_deg": 50.0, "noise": 5.0, "glare": True, "bump": True}),
    BenchClip(8328, "wood", 8, (("touch_move_other", 2), ("arm_pass", 4), ("knocked", 6)),
              {"tilt_deg": 29.0, "azimuth_deg": 245.0, "fov_deg": 62.0, "distortion": -0.07, "shadows": True,
               "bump": True}),
    # added after the fourth held-back score (ten fresh held-back games: false knocks in three,
    # games lost in four; their clips were not looked into): eight more games of every look
    BenchClip(8329, "wood", 8, (("retouch", 2), ("arm_pass", 4), ("knocked", 6)),
              {"tilt_deg": 17.0, "azimuth_deg": 70.0, "fov_deg": 61.0, "noise": 3.5, "bump": True}),
    BenchClip(8330, "cloth", 8, (("knocked", 2), ("between_points", 5), ("arm_pass", 7)),
              {"tilt_deg": 30.0, "azimuth_deg": 215.0, "fov_deg": 65.0, "glare": True, "bump": True}),
    BenchClip(8331, "paper", 8, (("arm_pass", 2), ("touch_move_other", 4), ("retouch", 6)),
              {"tilt_deg": 6.0, "azimuth_deg": 155.0, "fov_deg": 54.0, "blur": 1.3, "shadows": True, "bump": True}),
    BenchClip(8332, "plastic", 8, (("knocked", 3), ("arm_pass", 5), ("between_points", 7)),
              {"tilt_deg": 23.0, "azimuth_deg": 340.0, "fov_deg": 67.0, "distortion": -0.05, "bump": False}),
    BenchClip(8333, "mat", 8, (("touch_move_other", 2), ("knocked", 5), ("arm_pass", 6)),
              {"tilt_deg": 36.0, "azimuth_deg": 100.0, "fov_deg": 59.0, "noise": 2.5, "bump": True}),
    BenchClip(8334, "wood", 8, (("arm_pass", 1), ("knocked", 4), ("touch_move_other", 7)),
              {"tilt_deg": 20.0, "azimuth_deg": 275.0, "fov_deg": 71.0, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8335, "cloth", 8, (("between_points", 3), ("knocked", 5), ("retouch", 8)),
              {"tilt_deg": 11.0, "azimuth_deg": 25.0, "fov_deg": 49.0, "noise": 5.0, "blur": 1.1, "bump": True}),
    BenchClip(8336, "paper", 8, (("knocked", 2), ("retouch", 4), ("arm_pass", 6)),
              {"tilt_deg": 33.0, "azimuth_deg": 185.0, "fov_deg": 58.0, "distortion": 0.02, "bump": True}),
    # added 2026-12-01 (second session): touch-moves and knocks beside arm passes, every look
    BenchClip(8337, "wood", 8, (("touch_move_other", 2), ("arm_pass", 4), ("knocked", 6)),
              {"tilt_deg": 14.5, "azimuth_deg": 240.0, "fov_deg": 57.0, "noise": 3.0, "bump": True}),
    BenchClip(8338, "mat", 8, (("arm_pass", 2), ("touch_move_other", 5), ("knocked", 7)),
              {"tilt_deg": 27.5, "azimuth_deg": 40.0, "fov_deg": 63.0, "glare": True, "bump": False}),
    BenchClip(8339, "paper", 8, (("knocked", 3), ("touch_move_other", 6), ("arm_pass", 8)),
              {"tilt_deg": 8.5, "azimuth_deg": 320.0, "fov_deg": 52.0, "blur": 1.2, "bump": True}),
    BenchClip(8340, "cloth", 8, (("touch_move_other", 3), ("arm_pass", 5), ("retouch", 7)),
              {"tilt_deg": 34.5, "azimuth_deg": 130.0, "fov_deg": 66.0, "shadows": True, "bump": True}),
    BenchClip(8341, "plastic", 8, (("arm_pass", 1), ("knocked", 4), ("touch_move_other", 6)),
              {"tilt_deg": 19.5, "azimuth_deg": 355.0, "fov_deg": 60.5, "distortion": 0.04, "bump": False}),
    BenchClip(8342, "wood", 8, (("between_points", 2), ("touch_move_other", 4), ("arm_pass", 6)),
              {"tilt_deg": 38.5, "azimuth_deg": 75.0, "fov_deg": 68.0, "noise": 4.0, "bump": True}),
    BenchClip(8343, "mat", 8, (("touch_move_other", 1), ("arm_pass", 3), ("knocked", 5), ("retouch", 8)),
              {"tilt_deg": 3.5, "azimuth_deg": 205.0, "fov_deg": 48.5, "shadows": True, "bump": True}),
    BenchClip(8344, "paper", 8, (("arm_pass", 2), ("knocked", 4), ("touch_move_other", 7)),
              {"tilt_deg": 24.5, "azimuth_deg": 165.0, "fov_deg": 62.5, "glare": True, "blur": 0.9, "bump": False}),
    BenchClip(8345, "cloth", 8, (("retouch", 2), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 31.5, "azimuth_deg": 290.0, "fov_deg": 58.5, "noise": 2.0, "bump": True}),
    BenchClip(8346, "plastic", 8, (("touch_move_other", 3), ("knocked", 6), ("arm_pass", 8)),
              {"tilt_deg": 16.5, "azimuth_deg": 15.0, "fov_deg": 55.5, "shadows": True, "distortion": -0.03, "bump": True}),
    # added after the held-back score of stop 17 lost whole games (moves 1-4 of 8 on four of the
    # fresh ten; those clips were not looked into): ten more games with bumps on every look, wide
    # and distorted lenses, glare with moving shadows, to find what loses a game on the tuning side
    BenchClip(8347, "wood", 8, (("arm_pass", 2), ("touch_move_other", 4), ("knocked", 6)),
              {"tilt_deg": 13.0, "azimuth_deg": 35.0, "fov_deg": 60.0, "noise": 4.5, "bump": True}),
    BenchClip(8348, "plastic", 8, (("between_points", 3), ("retouch", 5), ("arm_pass", 7)),
              {"tilt_deg": 27.0, "azimuth_deg": 345.0, "fov_deg": 70.0, "distortion": -0.07, "bump": True}),
    BenchClip(8349, "mat", 8, (("touch_move_other", 2), ("knocked", 4), ("arm_pass", 6)),
              {"tilt_deg": 40.0, "azimuth_deg": 95.0, "fov_deg": 61.0, "noise": 2.5, "bump": True}),
    BenchClip(8350, "wood", 8, (("retouch", 3), ("arm_pass", 5), ("knocked", 7)),
              {"tilt_deg": 21.0, "azimuth_deg": 245.0, "fov_deg": 75.0, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8351, "cloth", 8, (("knocked", 2), ("touch_move_other", 5), ("arm_pass", 8)),
              {"tilt_deg": 29.0, "azimuth_deg": 185.0, "fov_deg": 66.0, "glare": True, "noise": 3.5, "bump": True}),
    BenchClip(8352, "paper", 8, (("arm_pass", 1), ("between_points", 4), ("touch_move_other", 6)),
              {"tilt_deg": 7.0, "azimuth_deg": 125.0, "fov_deg": 54.0, "blur": 1.6, "shadows": True, "bump": True}),
    BenchClip(8353, "plastic", 8, (("touch_move_other", 3), ("arm_pass", 4), ("retouch", 6)),
              {"tilt_deg": 23.0, "azimuth_deg": 310.0, "fov_deg": 72.0, "distortion": -0.09, "glare": True, "bump": True}),
    BenchClip(8354, "mat", 8, (("arm_pass", 2), ("retouch", 4), ("touch_move_other", 7)),
              {"tilt_deg": 35.0, "azimuth_deg": 65.0, "fov_deg": 57.0, "noise": 5.0, "shadows": True, "bump": True}),
    BenchClip(8355, "wood", 8, (("between_points", 2), ("knocked", 5), ("arm_pass", 7)),
              {"tilt_deg": 17.0, "azimuth_deg": 275.0, "fov_deg": 68.0, "blur": 1.1, "glare": True, "bump": True}),
    BenchClip(8356, "cloth", 8, (("touch_move_other", 2), ("arm_pass", 3), ("retouch", 6)),
              {"tilt_deg": 11.0, "azimuth_deg": 160.0, "fov_deg": 63.0, "distortion": 0.04, "noise": 4.0, "bump": True}),
    # ten more after the held-back score of this stop (still 4 of its fresh ten games mostly lost,
    # not looked into): more chances to meet what loses a whole game
    BenchClip(8357, "mat", 8, (("retouch", 2), ("touch_move_other", 4), ("arm_pass", 6)),
              {"tilt_deg": 36.5, "azimuth_deg": 55.0, "fov_deg": 64.0, "noise": 2.5, "bump": True}),
    BenchClip(8358, "wood", 8, (("knocked", 3), ("arm_pass", 5), ("touch_move_other", 7)),
              {"tilt_deg": 15.5, "azimuth_deg": 230.0, "fov_deg": 71.0, "noise": 3.5, "bump": True}),
    BenchClip(8359, "plastic", 8, (("arm_pass", 2), ("between_points", 4), ("retouch", 7)),
              {"tilt_deg": 26.5, "azimuth_deg": 320.0, "fov_deg": 67.0, "distortion": -0.05, "bump": True}),
    BenchClip(8360, "mat", 8, (("touch_move_other", 3), ("knocked", 5), ("arm_pass", 8)),
              {"tilt_deg": 39.5, "azimuth_deg": 100.0, "fov_deg": 59.0, "noise": 1.5, "shadows": True, "bump": True}),
    BenchClip(8361, "wood", 8, (("arm_pass", 1), ("retouch", 3), ("knocked", 6)),
              {"tilt_deg": 20.5, "azimuth_deg": 270.0, "fov_deg": 74.0, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8362, "cloth", 8, (("touch_move_other", 2), ("between_points", 5), ("arm_pass", 7)),
              {"tilt_deg": 12.5, "azimuth_deg": 45.0, "fov_deg": 56.0, "noise": 4.5, "bump": True}),
    BenchClip(8363, "plastic", 8, (("retouch", 2), ("arm_pass", 4), ("touch_move_other", 6)),
              {"tilt_deg": 24.0, "azimuth_deg": 345.0, "fov_deg": 69.0, "distortion": -0.07, "bump": True}),
    BenchClip(8364, "mat", 8, (("knocked", 2), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 37.0, "azimuth_deg": 70.0, "fov_deg": 62.0, "noise": 2.0, "bump": True}),
    BenchClip(8365, "wood", 8, (("arm_pass", 2), ("retouch", 4), ("knocked", 7)),
              {"tilt_deg": 18.0, "azimuth_deg": 255.0, "fov_deg": 72.0, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8366, "paper", 8, (("touch_move_other", 3), ("arm_pass", 5), ("knocked", 7)),
              {"tilt_deg": 30.0, "azimuth_deg": 205.0, "fov_deg": 61.0, "noise": 3.0, "bump": True}),
    # held back from stop 16 to stop 18 (scored three times, never looked into); moved here at stop 19
    # because four of them lose most of their moves, which 20 tuning games chosen like them never
    # did: the cause had to be looked at. A fresh ten (8821-8830) took their place in HELD_BACK.
    BenchClip(8811, "wood", 8, (("touch_move_other", 2), ("arm_pass", 4), ("knocked", 6)),
              {"tilt_deg": 14.0, "azimuth_deg": 50.0, "fov_deg": 58.0, "noise": 4.0, "bump": True}),
    BenchClip(8812, "cloth", 8, (("retouch", 3), ("between_points", 5), ("arm_pass", 7)),
              {"tilt_deg": 31.0, "azimuth_deg": 200.0, "fov_deg": 64.0, "glare": True, "bump": True}),
    BenchClip(8813, "paper", 8, (("arm_pass", 2), ("knocked", 4), ("touch_move_other", 6)),
              {"tilt_deg": 5.0, "azimuth_deg": 140.0, "fov_deg": 52.0, "blur": 1.5, "shadows": True, "bump": False}),
    BenchClip(8814, "plastic", 8, (("between_points", 2), ("touch_move_other", 5), ("retouch", 7)),
              {"tilt_deg": 25.0, "azimuth_deg": 330.0, "fov_deg": 68.0, "distortion": -0.06, "bump": True}),
    BenchClip(8815, "mat", 8, (("knocked", 3), ("arm_pass", 5), ("touch_move_other", 7)),
              {"tilt_deg": 38.0, "azimuth_deg": 80.0, "fov_deg": 60.0, "noise": 2.0, "bump": True}),
    BenchClip(8816, "wood", 8, (("arm_pass", 1), ("retouch", 4), ("knocked", 7)),
              {"tilt_deg": 19.0, "azimuth_deg": 260.0, "fov_deg": 73.0, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8817, "cloth", 8, (("touch_move_other", 3), ("between_points", 6), ("arm_pass", 8)),
              {"tilt_deg": 9.0, "azimuth_deg": 10.0, "fov_deg": 47.0, "noise": 5.5, "blur": 1.0, "bump": True}),
    BenchClip(8818, "paper", 8, (("retouch", 2), ("arm_pass", 3), ("touch_move_other", 5)),
              {"tilt_deg": 35.0, "azimuth_deg": 170.0, "fov_deg": 57.0, "distortion": 0.03, "bump": False}),
    BenchClip(8819, "plastic", 8, (("knocked", 2), ("touch_move_other", 4), ("between_points", 7)),
              {"tilt_deg": 16.0, "azimuth_deg": 290.0, "fov_deg": 63.0, "blur": 0.8, "bump": True}),
    BenchClip(8820, "mat", 8, (("arm_pass", 2), ("touch_move_other", 6), ("retouch", 8)),
              {"tilt_deg": 28.0, "azimuth_deg": 120.0, "fov_deg": 66.0, "shadows": True, "noise": 3.0, "bump": True}),
    # added at stop 20 (seeded from the date, written before rendering): two planted touches a game,
    # because touch-moves are most of what the held-back set misses
    BenchClip(8367, "wood", 8, (("retouch", 1), ("touch_move_other", 2), ("arm_pass", 4), ("touch_move_other", 6)),
              {"tilt_deg": 40.0, "azimuth_deg": 150.0, "fov_deg": 63.5, "blur": 0.7, "bump": True}),
    BenchClip(8368, "cloth", 8, (("arm_pass", 3), ("touch_move_other", 4), ("touch_move_other", 6), ("knocked", 8)),
              {"tilt_deg": 16.5, "azimuth_deg": 235.0, "fov_deg": 62.0, "noise": 2.5, "glare": True, "bump": True}),
    BenchClip(8369, "paper", 8, (("touch_move_other", 2), ("arm_pass", 3), ("between_points", 5), ("touch_move_other", 7)),
              {"tilt_deg": 18.0, "azimuth_deg": 175.0, "fov_deg": 71.0, "noise": 3.6, "glare": True, "bump": True}),
    BenchClip(8370, "plastic", 8, (("touch_move_other", 3), ("retouch", 5), ("touch_move_other", 6), ("arm_pass", 8)),
              {"tilt_deg": 36.0, "azimuth_deg": 175.0, "fov_deg": 71.0, "glare": True, "noise": 2.5, "bump": True}),
    BenchClip(8371, "mat", 8, (("arm_pass", 1), ("touch_move_other", 3), ("touch_move_other", 7), ("knocked", 8)),
              {"tilt_deg": 8.5, "azimuth_deg": 40.0, "fov_deg": 63.5, "glare": True, "bump": True}),
    BenchClip(8372, "wood", 8, (("arm_pass", 1), ("between_points", 3), ("touch_move_other", 4), ("touch_move_other", 7)),
              {"tilt_deg": 36.0, "azimuth_deg": 270.0, "fov_deg": 66.5, "blur": 0.9, "glare": True, "bump": False}),
    BenchClip(8373, "cloth", 8, (("touch_move_other", 3), ("retouch", 5), ("touch_move_other", 7), ("arm_pass", 8)),
              {"tilt_deg": 7.0, "azimuth_deg": 180.0, "fov_deg": 75.0, "glare": True, "bump": True}),
    BenchClip(8374, "paper", 8, (("touch_move_other", 2), ("knocked", 4), ("arm_pass", 6), ("touch_move_other", 7)),
              {"tilt_deg": 11.0, "azimuth_deg": 170.0, "fov_deg": 56.0, "blur": 0.6, "bump": True}),
    BenchClip(8375, "plastic", 8, (("between_points", 1), ("touch_move_other", 2), ("arm_pass", 5), ("touch_move_other", 6)),
              {"tilt_deg": 29.5, "azimuth_deg": 255.0, "fov_deg": 66.5, "blur": 1.1, "bump": True}),
    BenchClip(8376, "mat", 8, (("retouch", 1), ("arm_pass", 3), ("touch_move_other", 4), ("touch_move_other", 7)),
              {"tilt_deg": 41.0, "azimuth_deg": 215.0, "fov_deg": 49.5, "noise": 5.9, "bump": True}),
    BenchClip(8377, "wood", 8, (("touch_move_other", 2), ("arm_pass", 3), ("knocked", 5), ("touch_move_other", 7)),
              {"tilt_deg": 16.0, "azimuth_deg": 55.0, "fov_deg": 49.0, "noise": 1.8, "bump": True}),
    BenchClip(8378, "cloth", 8, (("between_points", 1), ("touch_move_other", 3), ("arm_pass", 5), ("touch_move_other", 7)),
              {"tilt_deg": 14.0, "azimuth_deg": 305.0, "fov_deg": 56.5, "glare": True, "bump": True}),
    BenchClip(8379, "paper", 8, (("touch_move_other", 3), ("retouch", 6), ("touch_move_other", 7), ("arm_pass", 8)),
              {"tilt_deg": 38.0, "azimuth_deg": 25.0, "fov_deg": 70.5, "shadows": True, "glare": True, "bump": True}),
    BenchClip(8380, "plastic", 8, (("touch_move_other", 2), ("arm_pass", 3), ("touch_move_other", 6), ("knocked", 8)),
              {"tilt_deg": 17.0, "azimuth_deg": 300.0, "fov_deg": 49.5, "noise": 2.5, "shadows": True, "bump": True}),
    BenchClip(8381, "mat", 8, (("between_points", 1), ("touch_move_other", 4), ("arm_pass", 5), ("touch_move_other", 7)),
              {"tilt_deg": 16.5, "azimuth_deg": 65.0, "fov_deg": 58.0, "glare": True, "bump": True}),
    BenchClip(8382, "wood", 8, (("touch_move_other", 2), ("arm_pass", 3), ("retouch", 4), ("touch_move_other", 5)),
              {"tilt_deg": 14.5, "azimuth_deg": 305.0, "fov_deg": 54.0, "blur": 1.2, "glare": True, "bump": True}),
    BenchClip(8383, "cloth", 8, (("touch_move_other", 4), ("touch_move_other", 6), ("arm_pass", 7), ("knocked", 8)),
              {"tilt_deg": 7.0, "azimuth_deg": 180.0, "fov_deg": 50.0, "distortion": -0.02, "noise": 2.5, "bump": True}),
    BenchClip(8384, "paper", 8, (("arm_pass", 1), ("touch_move_other", 2), ("between_points", 5), ("touch_move_other", 7)),
              {"tilt_deg": 5.0, "azimuth_deg": 280.0, "fov_deg": 74.0, "blur": 1.3, "bump": True}),
    BenchClip(8385, "plastic", 8, (("touch_move_other", 2), ("retouch", 3), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 21.5, "azimuth_deg": 40.0, "fov_deg": 63.5, "noise": 4.6, "bump": True}),
    BenchClip(8386, "mat", 8, (("touch_move_other", 2), ("touch_move_other", 5), ("arm_pass", 7), ("knocked", 8)),
              {"tilt_deg": 38.0, "azimuth_deg": 25.0, "fov_deg": 70.0, "shadows": True, "bump": False}),
    # added at stop 25 (seeded from the date, 20261203, written before rendering): two touches and a disc
    # left between points a game, the kinds the held-back set still misses (not looked into)
    BenchClip(8387, "wood", 8, (("arm_pass", 1), ("touch_move_other", 2), ("touch_move_other", 3), ("between_points", 8)),
              {"tilt_deg": 24.0, "azimuth_deg": 230.0, "fov_deg": 51.5, "bump": True}),
    BenchClip(8388, "cloth", 8, (("between_points", 2), ("touch_move_other", 4), ("touch_move_other", 6), ("arm_pass", 7)),
              {"tilt_deg": 24.5, "azimuth_deg": 355.0, "fov_deg": 60.5, "bump": True}),
    BenchClip(8389, "paper", 8, (("between_points", 1), ("arm_pass", 4), ("touch_move_other", 5), ("touch_move_other", 7)),
              {"tilt_deg": 39.0, "azimuth_deg": 280.0, "fov_deg": 52.5, "distortion": -0.06, "bump": False}),
    BenchClip(8390, "plastic", 8, (("touch_move_other", 1), ("between_points", 4), ("touch_move_other", 5), ("arm_pass", 6)),
              {"tilt_deg": 32.0, "azimuth_deg": 55.0, "fov_deg": 64.5, "bump": True}),
    BenchClip(8391, "mat", 8, (("touch_move_other", 4), ("between_points", 5), ("arm_pass", 7), ("touch_move_other", 8)),
              {"tilt_deg": 22.0, "azimuth_deg": 70.0, "fov_deg": 50.5, "bump": True}),
    BenchClip(8392, "wood", 8, (("between_points", 2), ("touch_move_other", 4), ("touch_move_other", 6), ("arm_pass", 7)),
              {"tilt_deg": 40.5, "azimuth_deg": 190.0, "fov_deg": 76.0, "bump": True}),
    BenchClip(8393, "cloth", 8, (("touch_move_other", 1), ("touch_move_other", 2), ("arm_pass", 5), ("between_points", 6)),
              {"tilt_deg": 14.5, "azimuth_deg": 120.0, "fov_deg": 54.0, "distortion": -0.07, "noise": 4.1, "bump": True}),
    BenchClip(8394, "paper", 8, (("touch_move_other", 3), ("touch_move_other", 4), ("between_points", 5), ("arm_pass", 7)),
              {"tilt_deg": 22.0, "azimuth_deg": 115.0, "fov_deg": 69.5, "blur": 1.5, "bump": True}),
    BenchClip(8395, "plastic", 8, (("touch_move_other", 1), ("between_points", 5), ("touch_move_other", 6), ("arm_pass", 8)),
              {"tilt_deg": 6.5, "azimuth_deg": 40.0, "fov_deg": 69.5, "noise": 4.1, "blur": 1.2, "bump": True}),
    BenchClip(8396, "mat", 8, (("arm_pass", 1), ("touch_move_other", 3), ("between_points", 5), ("touch_move_other", 6)),
              {"tilt_deg": 35.5, "azimuth_deg": 105.0, "fov_deg": 57.0, "distortion": -0.02, "bump": True}),
    BenchClip(8397, "wood", 8, (("arm_pass", 1), ("between_points", 5), ("touch_move_other", 7), ("touch_move_other", 8)),
              {"tilt_deg": 22.0, "azimuth_deg": 330.0, "fov_deg": 56.0, "glare": True, "blur": 1.2, "bump": True}),
    BenchClip(8398, "cloth", 8, (("arm_pass", 2), ("between_points", 3), ("touch_move_other", 4), ("touch_move_other", 5)),
              {"tilt_deg": 27.0, "azimuth_deg": 310.0, "fov_deg": 51.0, "shadows": True, "bump": True}),
    BenchClip(8399, "paper", 8, (("touch_move_other", 3), ("arm_pass", 4), ("between_points", 5), ("touch_move_other", 8)),
              {"tilt_deg": 21.0, "azimuth_deg": 265.0, "fov_deg": 50.0, "bump": False}),
    BenchClip(8400, "plastic", 8, (("touch_move_other", 1), ("touch_move_other", 3), ("arm_pass", 4), ("between_points", 7)),
              {"tilt_deg": 5.0, "azimuth_deg": 320.0, "fov_deg": 61.0, "glare": True, "noise": 3.0, "bump": False}),
    BenchClip(8401, "mat", 8, (("touch_move_other", 3), ("arm_pass", 4), ("between_points", 7), ("touch_move_other", 8)),
              {"tilt_deg": 28.0, "azimuth_deg": 250.0, "fov_deg": 70.0, "bump": True}),
    BenchClip(8402, "wood", 8, (("between_points", 2), ("touch_move_other", 3), ("arm_pass", 7), ("touch_move_other", 8)),
              {"tilt_deg": 32.0, "azimuth_deg": 225.0, "fov_deg": 50.5, "blur": 1.5, "distortion": -0.07, "bump": True}),
    # added at stop 26 (drawn by a seeded script, 2026120326, written before rendering): one touch and two
    # more incidents of any planted kind a game, cameras drawn over the whole range the sets use
    BenchClip(8403, "wood", 8, (("arm_pass", 1), ("retouch", 3), ("knocked", 4), ("touch_move_other", 8)),
              {"tilt_deg": 14.5, "azimuth_deg": 210.0, "fov_deg": 77.0, "blur": 1.2, "glare": True, "bump": False}),
    BenchClip(8404, "cloth", 8, (("arm_pass", 2), ("between_points", 5), ("touch_move_other", 6), ("touch_move_other", 7)),
              {"tilt_deg": 3.5, "azimuth_deg": 250.0, "fov_deg": 51.0, "blur": 1.7, "shadows": True, "bump": False}),
    BenchClip(8405, "paper", 8, (("arm_pass", 2), ("touch_move_other", 5), ("touch_move_other", 6), ("touch_move_other", 7)),
              {"tilt_deg": 30.0, "azimuth_deg": 25.0, "fov_deg": 72.0, "distortion": 0.05, "blur": 0.9, "shadows": True, "bump": True}),
    BenchClip(8406, "plastic", 8, (("touch_move_other", 2), ("arm_pass", 5), ("between_points", 7), ("knocked", 8)),
              {"tilt_deg": 39.0, "azimuth_deg": 105.0, "fov_deg": 73.5, "distortion": 0.0, "blur": 1.4, "shadows": True, "bump": True}),
    BenchClip(8407, "mat", 8, (("touch_move_other", 3), ("arm_pass", 5), ("retouch", 6), ("between_points", 8)),
              {"tilt_deg": 18.0, "azimuth_deg": 60.0, "fov_deg": 68.0, "distortion": 0.01, "noise": 3.5, "bump": True}),
    BenchClip(8408, "wood", 8, (("touch_move_other", 1), ("arm_pass", 4), ("knocked", 6), ("touch_move_other", 8)),
              {"tilt_deg": 37.5, "azimuth_deg": 345.0, "fov_deg": 59.0, "blur": 1.7, "bump": True}),
    BenchClip(8409, "cloth", 8, (("retouch", 2), ("touch_move_other", 3), ("arm_pass", 6), ("knocked", 8)),
              {"tilt_deg": 14.0, "azimuth_deg": 125.0, "fov_deg": 48.0, "glare": True, "bump": True}),
    BenchClip(8410, "paper", 8, (("arm_pass", 1), ("touch_move_other", 5), ("between_points", 6), ("touch_move_other", 7)),
              {"tilt_deg": 13.0, "azimuth_deg": 135.0, "fov_deg": 73.0, "glare": True, "bump": True}),
    BenchClip(8411, "plastic", 8, (("touch_move_other", 2), ("knocked", 3), ("arm_pass", 6), ("touch_move_other", 8)),
              {"tilt_deg": 20.0, "azimuth_deg": 240.0, "fov_deg": 55.0, "blur": 1.1, "glare": True, "bump": True}),
    BenchClip(8412, "mat", 8, (("arm_pass", 1), ("touch_move_other", 5), ("knocked", 6), ("touch_move_other", 7)),
              {"tilt_deg": 21.0, "azimuth_deg": 120.0, "fov_deg": 61.5, "noise": 3.1, "shadows": True, "bump": False}),
    BenchClip(8413, "wood", 8, (("arm_pass", 2), ("touch_move_other", 4), ("touch_move_other", 5), ("touch_move_other", 8)),
              {"tilt_deg": 4.5, "azimuth_deg": 130.0, "fov_deg": 50.0, "blur": 1.7, "bump": False}),
    BenchClip(8414, "cloth", 8, (("touch_move_other", 3), ("retouch", 4), ("arm_pass", 6), ("knocked", 7)),
              {"tilt_deg": 20.5, "azimuth_deg": 210.0, "fov_deg": 77.5, "blur": 0.8, "noise": 2.1, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8415, "paper", 8, (("touch_move_other", 1), ("arm_pass", 2), ("retouch", 4), ("touch_move_other", 6)),
              {"tilt_deg": 26.5, "azimuth_deg": 135.0, "fov_deg": 62.5, "distortion": 0.02, "bump": False}),
    BenchClip(8416, "plastic", 8, (("touch_move_other", 4), ("arm_pass", 5), ("retouch", 7), ("touch_move_other", 8)),
              {"tilt_deg": 28.0, "azimuth_deg": 190.0, "fov_deg": 71.5, "noise": 5.2, "glare": True, "bump": False}),
    BenchClip(8417, "mat", 8, (("arm_pass", 3), ("touch_move_other", 4), ("touch_move_other", 6), ("between_points", 8)),
              {"tilt_deg": 27.5, "azimuth_deg": 130.0, "fov_deg": 55.0, "noise": 4.8, "bump": True}),
    BenchClip(8418, "wood", 8, (("between_points", 3), ("touch_move_other", 4), ("arm_pass", 5), ("knocked", 8)),
              {"tilt_deg": 36.5, "azimuth_deg": 150.0, "fov_deg": 61.0, "blur": 1.7, "bump": True}),


)

# Scored only: never run while tuning. Figures are given per 10 games (the unit).
HELD_BACK: tuple[BenchClip, ...] = (
    BenchClip(8801, "plastic", 8, (("arm_pass", 2), ("touch_move_other", 4), ("knocked", 6)),
              {"tilt_deg": 42.0, "azimuth_deg": 130.0, "fov_deg": 72.0, "distortion": 0.04, "bump": True}),
    BenchClip(8802, "wood", 8, (("retouch", 2), ("arm_pass", 3), ("between_points", 6)),
              {"tilt_deg": 3.0, "azimuth_deg": 75.0, "fov_deg": 46.0, "blur": 2.0, "noise": 5.0, "bump": True}),
    BenchClip(8803, "cloth", 8, (("touch_move_other", 2), ("arm_pass", 5), ("retouch", 7)),
              {"tilt_deg": 33.0, "azimuth_deg": 340.0, "fov_deg": 58.0, "glare": True, "shadows": True,
               "bump": False}),
    BenchClip(8804, "paper", 8, (("knocked", 3), ("arm_pass", 4), ("touch_move_other", 7)),
              {"tilt_deg": 18.0, "azimuth_deg": 225.0, "fov_deg": 66.0, "distortion": -0.11, "bump": True}),
    BenchClip(8805, "mat", 8, (("arm_pass", 1), ("between_points", 3), ("retouch", 5), ("arm_pass", 8)),
              {"tilt_deg": 27.0, "azimuth_deg": 170.0, "fov_deg": 52.0, "noise": 3.0, "bump": True}),
    BenchClip(8806, "plastic", 8, (("touch_move_other", 2), ("arm_pass", 6), ("knocked", 8)),
              {"tilt_deg": 8.0, "azimuth_deg": 280.0, "fov_deg": 78.0, "blur": 1.2, "glare": True, "bump": True}),
    BenchClip(8807, "wood", 8, (("between_points", 2), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 44.0, "azimuth_deg": 20.0, "fov_deg": 62.0, "shadows": True, "bump": True}),
    BenchClip(8808, "cloth", 8, (("arm_pass", 2), ("retouch", 4), ("knocked", 6)),
              {"tilt_deg": 15.0, "azimuth_deg": 110.0, "fov_deg": 49.0, "distortion": -0.05, "noise": 6.5,
               "bump": False}),
    BenchClip(8809, "paper", 8, (("touch_move_other", 3), ("arm_pass", 4), ("between_points", 7)),
              {"tilt_deg": 36.0, "azimuth_deg": 265.0, "fov_deg": 56.0, "glare": True, "bump": True}),
    BenchClip(8810, "mat", 8, (("retouch", 3), ("arm_pass", 5), ("touch_move_other", 8)),
              {"tilt_deg": 22.0, "azimuth_deg": 315.0, "fov_deg": 70.0, "blur": 0.6, "shadows": True, "bump": True}),
    # a fresh ten, written and committed before they were first rendered or run (stop 19), in place of
    # 8811-8820, which went to the tuning set to be looked into
    BenchClip(8821, "paper", 8, (("touch_move_other", 2), ("arm_pass", 3), ("knocked", 6)),
              {"tilt_deg": 11.0, "azimuth_deg": 240.0, "fov_deg": 61.5, "noise": 3.5, "bump": True}),
    BenchClip(8822, "plastic", 8, (("retouch", 2), ("touch_move_other", 5), ("arm_pass", 7)),
              {"tilt_deg": 33.5, "azimuth_deg": 25.0, "fov_deg": 69.5, "glare": True, "shadows": True, "bump": True}),
    BenchClip(8823, "wood", 8, (("arm_pass", 1), ("between_points", 4), ("touch_move_other", 6)),
              {"tilt_deg": 22.5, "azimuth_deg": 150.0, "fov_deg": 57.5, "distortion": -0.08, "noise": 2.5,
               "bump": True}),
    BenchClip(8824, "mat", 8, (("knocked", 2), ("arm_pass", 4), ("retouch", 6)),
              {"tilt_deg": 41.0, "azimuth_deg": 300.0, "fov_deg": 65.5, "blur": 1.3, "bump": False}),
    BenchClip(8825, "cloth", 8, (("touch_move_other", 3), ("arm_pass", 5), ("knocked", 8)),
              {"tilt_deg": 6.5, "azimuth_deg": 95.0, "fov_deg": 50.5, "noise": 5.0, "shadows": True, "bump": True}),
    BenchClip(8826, "wood", 8, (("retouch", 3), ("arm_pass", 4), ("touch_move_other", 7)),
              {"tilt_deg": 29.5, "azimuth_deg": 190.0, "fov_deg": 74.5, "glare": True, "bump": True}),
    BenchClip(8827, "paper", 8, (("between_points", 2), ("touch_move_other", 4), ("arm_pass", 6)),
              {"tilt_deg": 17.5, "azimuth_deg": 350.0, "fov_deg": 53.5, "blur": 1.0, "noise": 4.0, "bump": True}),
    BenchClip(8828, "plastic", 8, (("arm_pass", 2), ("knocked", 5), ("touch_move_other", 7)),
              {"tilt_deg": 37.5, "azimuth_deg": 115.0, "fov_deg": 59.5, "distortion": 0.05, "shadows": True,
               "bump": True}),
    BenchClip(8829, "mat", 8, (("touch_move_other", 2), ("retouch", 5), ("arm_pass", 8)),
              {"tilt_deg": 13.5, "azimuth_deg": 270.0, "fov_deg": 67.5, "glare": True, "noise": 2.0, "bump": True}),
    BenchClip(8830, "cloth", 8, (("arm_pass", 1), ("touch_move_other", 3), ("between_points", 6)),
              {"tilt_deg": 25.5, "azimuth_deg": 45.0, "fov_deg": 71.5, "noise": 3.0, "bump": True}),
)

SETS: dict[str, tuple[BenchClip, ...]] = {"tuning": TUNING, "heldback": HELD_BACK}
