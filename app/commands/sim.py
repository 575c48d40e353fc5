"""Sub-commands of `xqtrack` owned by the sim part: `xqtrack sim`.

    xqtrack sim GAMEFILE --out DIR [--game-id ID | --game N] [--plies N] [--seed S] [--look L]
    xqtrack sim --random N --out DIR [--seed S] [--look L]
    xqtrack sim --gallery DIR [--seed S]

GAMEFILE is a PGN (read by rules.pgn, UTF-8 or GBK) or a .jsonl of games like
tests/data/games/games.jsonl (one JSON object per line with "id", "start_fen", "moves_iccs").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `xqtrack sim`."""
    p = subparsers.add_parser(
        "sim", help="render a synthetic camera clip of a game (video + exact truth), or a gallery of looks",
        description="Film a Xiangqi game on a synthetic board: writes DIR/clip.mp4 and DIR/truth.json.")
    p.add_argument("gamefile", nargs="?", help="PGN file or .jsonl of games (tests/data/games/games.jsonl)")
    p.add_argument("--random", type=int, metavar="N", help="play N random legal plies instead of a game file")
    p.add_argument("--out", help="output folder for clip.mp4 and truth.json")
    p.add_argument("--gallery", metavar="DIR", help="write DIR/sim_gallery.jpg: a contact sheet of 24 looks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--look", help="board/piece style (default: drawn from the seed)")
    p.add_argument("--game-id", help="id of the game in a .jsonl file")
    p.add_argument("--game", type=int, default=1, help="1-based game number in the file (default 1)")
    p.add_argument("--plies", type=int, help="film only the first N plies of the game")
    p.add_argument("--incidents", help='planted incidents as JSON, e.g. \'[{"kind": "retouch", "ply": 5}]\' '
                                       '(default: a few drawn from the seed; "[]" for none)')
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--fps", type=float, default=25.0)
    p.add_argument("--allow-impossible", action="store_true",
                   help="film a game whose start position no game can reach (a study set-up)")
    p.set_defaults(func=run)


def _load_game(path: Path, game_id: str | None, number: int) -> tuple[str | None, list[str]]:
    """(start FEN or None, ICCS moves) of one game from a .jsonl file or any game file."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such game file")
    if path.suffix.lower() in (".jsonl", ".json"):
        games = []
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                games.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not a JSON object ({exc})") from exc
        if game_id is not None:
            found = [g for g in games if g.get("id") == game_id]
            if not found:
                raise ValueError(f"{path}: no game with id {game_id!r}")
            g = found[0]
        else:
            if not 1 <= number <= len(games):
                raise ValueError(f"{path}: game {number} requested, file has {len(games)}")
            g = games[number - 1]
        if "moves_iccs" not in g:
            raise ValueError(f"{path}: game {g.get('id', number)} has no 'moves_iccs'")
        return g.get("start_fen"), list(g["moves_iccs"])
    from rules.formats import read_game_file

    games = read_game_file(path)      # PGN, XQF, CBR, CBL, CBF or DhtmlXQ, found from the content
    if not 1 <= number <= len(games):
        raise ValueError(f"{path}: game {number} requested, file has {len(games)}")
    g = games[number - 1]
    return g.start_fen, [m.iccs() for m in g.moves]


def run(args: argparse.Namespace) -> int:
    from sim import LOOKS, ClipSpec, write_clip
    from sim.gallery import write_gallery

    if args.look is not None and args.look not in LOOKS:
        raise ValueError(f"unknown look {args.look!r}: choose one of {', '.join(LOOKS)}")
    if args.gallery:
        path = write_gallery(args.gallery, seed=args.seed)
        print(f"wrote {path}")
        return 0
    if not args.out:
        raise ValueError("--out DIR is required (or use --gallery DIR)")
    if (args.gamefile is None) == (args.random is None):
        raise ValueError("give either a GAMEFILE or --random N")
    incidents = None
    if args.incidents is not None:
        try:
            incidents = json.loads(args.incidents)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--incidents: not JSON ({exc})") from exc
        if not isinstance(incidents, list):
            raise ValueError("--incidents: expected a JSON list of {kind, ply} objects")
    if args.random is not None:
        if args.random < 1:
            raise ValueError("--random N needs N >= 1")
        spec = ClipSpec(seed=args.seed, look=args.look, random_plies=args.random, incidents=incidents,
                        width=args.width, height=args.height, fps=args.fps)
    else:
        fen, moves = _load_game(Path(args.gamefile), args.game_id, args.game)
        if fen:
            from rules import position_from_fen
            position_from_fen(fen, args.allow_impossible, what=f"{args.gamefile}: start position")
        if args.plies is not None:
            moves = moves[: max(0, args.plies)]
        spec = ClipSpec(seed=args.seed, look=args.look, start_fen=fen, moves=moves, incidents=incidents,
                        width=args.width, height=args.height, fps=args.fps)
    truth = write_clip(spec, args.out)
    print(f"wrote {Path(args.out) / 'clip.mp4'}: {truth.frame_count} frames, {len(truth.moves)} moves, "
          f"{len(truth.incidents)} incidents, look {truth.look}", file=sys.stdout)
    return 0
