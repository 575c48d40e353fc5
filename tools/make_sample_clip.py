"""Make the committed demo clip sim/samples/demo/{clip.mp4,truth.json} (dev tool).

A real game (Hu Ronghua collection, tests/data/games/games.jsonl) filmed for its first plies with
planted handling incidents the tracker must report, plus an arm passing over the board and a
camera bump. 960x540 at 15 frames/s keeps the file under the 15 MB budget with mp4v.

    .venv/bin/python tools/make_sample_clip.py [--plies 32] [--seed 7]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim import ClipSpec, write_clip  # noqa: E402

GAME_ID = "wukong-hu-0892"
INCIDENTS = [
    {"kind": "touch_move_other", "ply": 5},
    {"kind": "retouch", "ply": 9},
    {"kind": "between_points", "ply": 12},
    {"kind": "arm_pass", "ply": 16},
    {"kind": "knocked", "ply": 21},
    {"kind": "touch_move_other", "ply": 26},
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plies", type=int, default=32)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--look", default="wood")
    ap.add_argument("--out", default=str(ROOT / "sim" / "samples" / "demo"))
    args = ap.parse_args()
    games = [json.loads(line) for line in (ROOT / "tests/data/games/games.jsonl").read_text(encoding="utf-8").splitlines()]
    game = next(g for g in games if g["id"] == GAME_ID)
    spec = ClipSpec(seed=args.seed, look=args.look, start_fen=game["start_fen"], moves=game["moves_iccs"][: args.plies],
                    incidents=[i for i in INCIDENTS if i["ply"] <= args.plies], width=960, height=540, fps=15.0,
                    camera={"bump": True, "noise": 1.5, "jpeg_quality": 0, "tilt_deg": 28.0, "fill": 0.95,
                            "blur": 0.6})
    truth = write_clip(spec, args.out)
    size = (Path(args.out) / "clip.mp4").stat().st_size
    print(f"{args.out}: {truth.frame_count} frames, {len(truth.moves)} moves, incidents "
          f"{[i['kind'] for i in truth.incidents]}, events {[e['kind'] for e in truth.events]}, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
