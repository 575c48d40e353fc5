"""The clip sets the tracking bench scores false accusations on (bench/track_sets.py) are what
they claim: held-back games share nothing chosen with the tuning games or earlier bench clips."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from track_sets import HELD_BACK, TUNING  # noqa: E402


def test_held_back_seeds_are_new_and_apart_from_the_tuning_set_and_the_earlier_bench_clips():
    import track_bench
    held = {c.seed for c in HELD_BACK}
    tuning = {c.seed for c in TUNING}
    earlier = {j[0] for j in track_bench.BENCH_JOBS + track_bench.TEST_JOBS}
    assert len(held) == len(HELD_BACK) >= 10 and len(HELD_BACK) % 10 == 0 and len(tuning) == len(TUNING)
    assert not held & tuning and not held & earlier and not tuning & earlier


def test_no_held_back_camera_repeats_a_tuning_camera():
    def view(c):
        return (c.camera.get("tilt_deg"), c.camera.get("azimuth_deg"), c.camera.get("fov_deg"))
    assert not {view(c) for c in HELD_BACK} & {view(c) for c in TUNING}


def test_every_set_has_arm_passes_bumps_and_planted_incidents_inside_its_games():
    from sim.script import INCIDENT_KINDS
    for clips in (HELD_BACK, TUNING):
        assert sum(1 for c in clips if any(k == "arm_pass" for k, _ in c.incidents)) >= len(clips) * 0.8
        assert sum(1 for c in clips if c.camera.get("bump")) >= len(clips) // 2
        assert sum(c.planted for c in clips) >= 2 * len(clips)
        for c in clips:
            plies = [p for _, p in c.incidents]
            assert all(k in INCIDENT_KINDS for k, _ in c.incidents)
            assert all(1 <= p <= c.plies for p in plies) and len(set(plies)) == len(plies), c.seed


def test_the_held_back_set_is_exactly_what_its_recorded_draw_gives():
    """Nothing in HELD_BACK was picked or edited by hand: the seeded draw named beside it redraws it."""
    from draw_clips import draw_set
    drawn = draw_set(2026120341, 9290, 30, 2)
    source = (ROOT / "bench" / "track_sets.py").read_text()
    held = source[source.index("HELD_BACK: tuple"):]
    assert "\n".join(drawn) in held
    assert [c.seed for c in HELD_BACK] == list(range(9290, 9320))


def test_a_seed_whose_random_game_is_mated_before_the_last_ply_is_passed_over_by_the_draw():
    """8999's random game ends in mate at ply 6, so a clip planting incidents up to ply 8 cannot be
    rendered from it; the draw spends its draws and goes on to the next seed."""
    from draw_clips import PLIES, draw_set, plays_long_enough

    from sim import ClipSpec, planned_moves
    assert len(planned_moves(ClipSpec(seed=8999, random_plies=PLIES))) == 6
    assert not plays_long_enough(8999) and plays_long_enough(8998) and plays_long_enough(9000)
    seeds = [int(line.split("(")[1].split(",")[0]) for line in draw_set(2026120332, 8997, 3, 2)]
    assert seeds == [8997, 8998, 9000]
