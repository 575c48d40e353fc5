"""Sub-commands of `xqtrack` owned by the rules part: perft, convert, adjudicate.

Handlers import their modules lazily so the entry point stays quick to start.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from rules.formats import GameList
    from rules.pgn import Game


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("perft", help="count leaf nodes of the legal move tree")
    p.add_argument("fen", help="position in FEN (quote it)")
    p.add_argument("depth", type=int, help="depth in plies (>= 0)")
    p.add_argument("--divide", action="store_true", help="also print the count under each first move")
    _add_allow_impossible(p)
    p.set_defaults(func=_perft)

    c = subparsers.add_parser(
        "convert", help="rewrite a game file (PGN, XQF, CBR, CBL, CBF, DhtmlXQ) as PGN, XQF, DhtmlXQ or CBF")
    c.add_argument("gamefile", help="any game file: PGN (UTF-8/GBK/Big5), XQF, CCBridge CBR/CBL/CBF, "
                   "DhtmlXQ (alone or in a web page); the format is found from the content; - reads "
                   "standard input")
    c.add_argument("--to", default="chinese", choices=["iccs", "wxf", "chinese", "yizi"],
                   help="notation of PGN moves (default chinese; iccs is written H2-E2 as xqbase does)")
    c.add_argument("--to-format", default="pgn", choices=["pgn", "xqf", "dhtmlxq", "cbf"],
                   help="file format written (default pgn; xqf and cbf hold one game)")
    c.add_argument("--encoding", default="utf-8", choices=["utf-8", "gbk"],
                   help="text encoding of PGN / DhtmlXQ output (gbk for older readers)")
    c.add_argument("--traditional", action="store_true", help="traditional characters for Chinese notation")
    c.add_argument("--iccs-style", default="xqbase", choices=["xqbase", "plain"],
                   help="ICCS moves as H2-E2 (xqbase, default) or h2e2 (plain)")
    c.add_argument("--out", default=None, help="write to this file instead of stdout (needed for xqf on a terminal)")
    c.add_argument("--strict", action="store_true",
                   help="a broken game in a library is an error (default: skip it, say so on stderr, keep the rest)")
    _add_max_bytes(c)
    _add_allow_impossible(c)
    c.set_defaults(func=_convert)

    a = subparsers.add_parser("adjudicate", help="rule on a game's final repetition (one JSON line)")
    a.add_argument("gamefile", help="any game file (PGN, XQF, CBR, CBL, CBF, DhtmlXQ); the last game is judged; "
                   "- reads standard input")
    a.add_argument("--rules", default="cn", choices=["cn", "axf"],
                   help="ruleset: cn = Chinese Xiangqi Association (default), axf = Asian Xiangqi Federation")
    _add_max_bytes(a)
    _add_allow_impossible(a)
    a.set_defaults(func=_adjudicate)


# Deeper perft trees do not finish (the count grows ~40x a ply: depth 7 is ~10^11 leaves) and the
# recursive count would end in a stack overflow message instead of an answer.
MAX_PERFT_DEPTH = 12


def _add_allow_impossible(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-impossible", action="store_true",
                   help="accept a start position no game can reach (a study set-up); refused by default")


# The game-file limit, as `--help` shows it (rules.bounded_read.GAME_FILE_MAX_BYTES; a test keeps
# the two equal): written out so that registering the commands does not import the rules package.
GAME_FILE_LIMIT_TEXT = "16M"


def byte_size(text: str) -> int:
    """`--max-bytes` as a number of bytes (K, M, G accepted); a usage error that says why otherwise."""
    from rules.bounded_read import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_max_bytes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-bytes", type=byte_size, default=None, metavar="BYTES",
                   help=f"read at most this much of the game file (default {GAME_FILE_LIMIT_TEXT}; "
                        "K, M, G accepted): a larger file, or an endless device or pipe, is refused")


def read_games_argument(path: str, max_bytes: int | None) -> "GameList":
    """The games of the file named on the command line (`-`: standard input), read bounded
    (`max_bytes` None: the game-file limit).

    Why here and not in rules: standard input belongs to the command, not to the codecs."""
    from rules.bounded_read import GAME_FILE_MAX_BYTES, MAX_BYTES_OPTION, InputTooLargeError, read_stream_bounded
    from rules.formats import GameFileError, read_game_file, read_games

    if max_bytes is None:
        max_bytes = GAME_FILE_MAX_BYTES
    if path != "-":
        return read_game_file(path, max_bytes)
    try:
        data = read_stream_bounded(sys.stdin.buffer, max_bytes, name="standard input", what="game file",
                                   option=MAX_BYTES_OPTION)
    except InputTooLargeError as exc:
        raise GameFileError(exc.detail, source="standard input") from None
    except OSError as exc:
        raise GameFileError(f"cannot read it: {exc.strerror or exc}", source="standard input") from None
    return read_games(data, "standard input")


def check_start_positions(games, allow_impossible: bool, source: str) -> None:
    """Every game's start position must be one a game can reach, unless the user allows studies."""
    from rules.position import position_from_fen

    if allow_impossible:
        return
    for n, game in enumerate(games, 1):
        if game.start_fen:
            position_from_fen(game.start_fen, what=f"{source}: game {n}: start position")


def _perft(args: argparse.Namespace) -> int:
    from rules.perft import perft, perft_divide
    from rules.position import Position

    from rules.position import position_from_fen

    if args.depth < 0:
        raise ValueError(f"depth must be >= 0, got {args.depth}")
    if args.depth > MAX_PERFT_DEPTH:
        raise ValueError(f"depth {args.depth} is too big: perft grows about 40 times a ply (depth 7 is some "
                         f"10^11 leaves); at most {MAX_PERFT_DEPTH}")
    position = position_from_fen(args.fen, args.allow_impossible)
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
    from rules.formats import write_games

    games = read_games_argument(args.gamefile, args.max_bytes)
    if games.skipped and args.strict:
        raise ValueError(games.skipped[0].message)
    if not games:
        raise ValueError(f"{args.gamefile}: no game found")
    check_start_positions(games, args.allow_impossible, args.gamefile)
    data = write_games(games, args.to_format, notation=args.to, traditional=args.traditional,
                       encoding=args.encoding, iccs_style=args.iccs_style)
    for skipped in games.skipped:
        print(f"xqtrack convert: skipped: {skipped.message}", file=sys.stderr)
    dropped = variations_warning(games, args.gamefile)
    if dropped:
        print(f"xqtrack convert: warning: {dropped}", file=sys.stderr)
    if args.out:
        from pathlib import Path

        Path(args.out).write_bytes(data)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    if games.skipped:       # the good games are written; the exit status says the file was not whole
        print(f"xqtrack convert: error: {len(games.skipped)} game(s) of {args.gamefile} could not be read "
              f"(named above); the other {len(games)} are written", file=sys.stderr)
        return 1
    return 0


def variations_warning(games: "Iterable[Game]", source: str) -> str:
    """One line saying how many variations of which games of `source` are not written (every
    writer keeps the main line only), or "" when the file had none. Why: a converted file must
    not lose an annotator's work without a word."""
    counts = [(n, g.skipped_variations) for n, g in enumerate(games, 1) if g.skipped_variations]
    if not counts:
        return ""
    total = sum(c for _, c in counts)
    name = "standard input" if source == "-" else source
    where = (f"game {counts[0][0]}" if len(counts) == 1 else
             f"{len(counts)} games ({', '.join(str(n) for n, _ in counts[:10])}{', ...' if len(counts) > 10 else ''})")
    return (f"{name}: {total} variation{'s' if total != 1 else ''} in {where} dropped: only the main line "
            f"of each game is written")


def _adjudicate(args: argparse.Namespace) -> int:
    from rules.repetition import adjudicate

    games = read_games_argument(args.gamefile, args.max_bytes)
    if games.skipped:       # the game judged must be the file's real last game, read in full
        raise ValueError(games.skipped[-1].message)
    if not games:
        raise ValueError(f"{args.gamefile}: no game found")
    check_start_positions(games[-1:], args.allow_impossible, args.gamefile)
    game = games[-1]
    ruling = adjudicate(game.start_fen, game.moves, rules=args.rules)
    print(json.dumps(ruling.to_dict(), ensure_ascii=False))
    return 0
