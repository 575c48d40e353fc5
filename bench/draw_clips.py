"""Draw fresh bench clips from a seed, as BenchClip lines to paste into bench/track_sets.py.

Why a script: a held-back set only stands for clips nobody fitted the rules to if it is drawn
before anyone has seen it, by a rule fixed in advance. Writing the rule down (and the seed that
was used) lets anyone redraw the same set and check that nothing was picked by hand.

    python bench/draw_clips.py --seed 2026120341 --first 9290 --count 30 --planted 2

Each clip gets `--planted` incidents of distinct kinds on distinct plies and one arm pass on
another ply; the camera is drawn over the whole range both sets use (tilt 3-44 degrees, any
azimuth, 46-78 degree field of view, optional barrel or pincushion distortion, blur, sensor
noise, glare, moving shadows and a mid-game bump). A seed whose random game ends in mate before
the last ply is passed over (the draw of stop 32 met one: 8999, mated at ply 6).
"""
from __future__ import annotations

import argparse
import random

PLANTED_KINDS = ("touch_move_other", "retouch", "knocked", "between_points")
LOOKS = ("wood", "cloth", "paper", "plastic", "mat")
PLIES = 8


def draw_clip(rng: random.Random, seed: int, look: str, planted: int, hands: str = "rig", resting: bool = False) -> str:
    """One BenchClip source line pair for `seed`."""
    kinds = rng.sample(PLANTED_KINDS, planted)
    plies = rng.sample(range(1, PLIES + 1), planted + 1)
    incidents = sorted([(k, p) for k, p in zip(kinds, plies)] + [("arm_pass", plies[-1])], key=lambda kp: kp[1])
    camera: dict[str, object] = {
        "tilt_deg": rng.randrange(6, 89) / 2,
        "azimuth_deg": float(rng.randrange(0, 72) * 5),
        "fov_deg": rng.randrange(92, 157) / 2,
    }
    if rng.random() < 0.35:
        camera["distortion"] = rng.randrange(-11, 6) / 100
    if rng.random() < 0.4:
        camera["blur"] = rng.randrange(6, 21) / 10
    if rng.random() < 0.5:
        camera["noise"] = rng.randrange(18, 66) / 10
    if rng.random() < 0.4:
        camera["glare"] = True
    if rng.random() < 0.35:
        camera["shadows"] = True
    camera["bump"] = rng.random() < 0.75
    inc = ", ".join(f'("{k}", {p})' for k, p in incidents)
    cam = ", ".join(f'"{k}": {v!r}' for k, v in camera.items())
    tail = (f', hands="{hands}"' if hands != "rig" else "") + (", resting=True" if resting else "")
    return f'    BenchClip({seed}, "{look}", {PLIES}, ({inc}),\n              {{{cam}}}{tail}),'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True, help="the draw's seed (write it next to the clips)")
    ap.add_argument("--first", type=int, required=True, help="the first clip's renderer seed")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--planted", type=int, default=2, help="planted incidents a clip (besides one arm pass)")
    ap.add_argument("--hands", choices=("rig", "wide"), default="rig",
                    help="the players' hands: the rig's, or hands it never rendered (sim.hands.HAND_KINDS)")
    ap.add_argument("--resting", action="store_true",
                    help="the players' free hands rest at their edges of the board for stretches (sim ClipSpec.resting)")
    args = ap.parse_args()
    if not 1 <= args.planted <= len(PLANTED_KINDS):
        ap.error(f"--planted must be 1-{len(PLANTED_KINDS)}, got {args.planted}")
    for line in draw_set(args.seed, args.first, args.count, args.planted, args.hands, args.resting):
        print(line)


def plays_long_enough(seed: int) -> bool:
    """Whether the renderer's random game for `seed` lasts PLIES moves (random play can mate sooner,
    and a clip whose incidents fall after the game's end cannot be rendered)."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from sim import ClipSpec, planned_moves
    return len(planned_moves(ClipSpec(seed=seed, random_plies=PLIES))) >= PLIES


def draw_set(seed: int, first: int, count: int, planted: int, hands: str = "rig", resting: bool = False) -> list[str]:
    """`count` clips from renderer seed `first` on. Every seed is drawn in turn (its looks and
    camera spent from the draw's stream), and one whose game ends before PLIES is passed over, so
    the set holds `count` renderable clips and the seeds after it are drawn as they would be."""
    rng = random.Random(seed)
    lines: list[str] = []
    i = 0
    while len(lines) < count:
        line = draw_clip(rng, first + i, LOOKS[i % len(LOOKS)], planted, hands, resting)
        if plays_long_enough(first + i):
            lines.append(line)
        i += 1
    return lines


if __name__ == "__main__":
    main()
