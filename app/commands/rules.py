"""Sub-commands of `xqtrack` owned by the rules part: perft, convert, adjudicate.

Handlers import their modules lazily so the entry point stays quick to start.
"""
from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("perft", help="count leaf nodes of the legal move tree")
    p.add_argument("fen", help="position in FEN (quote it)")
    p.add_argument("depth", type=int, help="depth in plies (>= 0)")
    p.add_argument("--divide", action="store_true", help="also print the count under each first move")
    p.set_defaults(func=_perft)

    c = subparsers.add_parser("convert", help="rewrite a game file's moves in another notation (PGN to stdout)")
    c.add_argument("gamefile", help="PGN (UTF-8 or GBK)")
    c.add_argument("--to", required=True, choices=["iccs", "wxf", "chinese", "yizi"], help="output notation")
    c.add_argument("--traditional", action="store_true", help="traditional characters for Chinese notation")
    c.set_defaults(func=_convert)

    a = subparsers.add_parser("adjudicate", help="rule on a game's final repetition (one JSON line)")
    a.add_argument("gamefile", help="PGN (UTF-8 or GBK); the last game in the file is judged")
    a.add_argument("--rules", default="cn", choices=["cn", "axf"],
                   help="ruleset: cn = Chinese Xiangqi Association (default), axf = Asian Xiangqi Federation")
    a.set_defaults(func=_adjudicate)


def _perft(args: argparse.Namespace) -> int:
    from rules.perft import perft, perft_divide
    from rules.position import Position

    if args.depth < 0:
        raise ValueError(f"depth must be >= 0, got {args.depth}")
    position = Position.from_fen(args.fen)
    if args.divide:
        total = 0
        for move, count in perft_divide(position, args.depth):
            print(f"{move.iccs()}: {count}")
            total += count
        print(total)
    else:
        print(perft(position, args.depth))
    return 0


def _convert(args: argparse.Namespace) -> int:
    from rules.pgn import read_pgn_file, write_pgn

    games = read_pgn_file(args.gamefile)
    if not games:
        raise ValueError(f"{args.gamefile}: no game found")
    out = [write_pgn(game, notation=args.to, traditional=args.traditional) for game in games]
    sys.stdout.write("\n".join(out))
    return 0


def _adjudicate(args: argparse.Namespace) -> int:
    from rules.pgn import read_pgn_file
    from rules.repetition import adjudicate

    games = read_pgn_file(args.gamefile)
    if not games:
        raise ValueError(f"{args.gamefile}: no game found")
    game = games[-1]
    ruling = adjudicate(game.start_fen, game.moves, rules=args.rules)
    print(json.dumps(ruling.to_dict(), ensure_ascii=False))
    return 0
