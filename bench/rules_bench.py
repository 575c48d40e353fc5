"""Rules engine speed: perft and legal-move generation, side by side with Fairy-Stockfish (pyffish).

Run from the repository root:  python bench/rules_bench.py [--perft5] [--positions N] [--no-sf]
                               python bench/rules_bench.py --formats-only   (game-file reading only)
                               python bench/rules_bench.py --adjudicate-only (repetition rulings only)

Figures printed:
- perft(3) and perft(4) from the start (bulk counting at the leaves), seconds and nodes/s; with
  --perft5 also perft(5). pyffish has no perft, so its figure is the same bulk-counting recursion
  over its `legal_moves(variant, fen, moves)` call (FEN + move list set up again in C++ at every
  node: what a Python program using pyffish pays, not Fairy-Stockfish's native search speed).
  That costs ~1-2 ms per call, so pyffish runs perft(3) by default (--sf-perft4 for depth 4,
  several minutes).
- legal moves per position, microseconds, over positions from the real games in
  tests/data/games/games.jsonl: ours on a ready Position, ours including FEN parsing (the fair
  comparison with pyffish, whose API takes a FEN), and pyffish.
- game-file reading speed, games/s and plies/s, per format (rules/formats; every move is replayed
  and checked): the real 188-game CCBridge library (CBL) and its games as single CBR records, and
  libraries written by xqtrack's own writers from the 613 games of games.jsonl: one PGN file
  (ICCS and Chinese notation), one DhtmlXQ page, and 613 XQF and CBF records.
- `adjudicate` (the repetition ruling, rules/repetition.py) on games of 2,000, 8,000 and 100,000
  plies (tests/support/long_games.py): a horse shuffle (every position recurs every 4 plies) and a
  mixed game (three pieces a side moved out and back at random: cycles of every length, positions
  recurring after long gaps); each with the time to read the game's PGN text (the rest of what
  `xqtrack adjudicate FILE` does). Before issue 43 the search was quadratic: 2,000 plies took
  ~12 s and 8,000 did not finish in minutes.
Times are CPU seconds of this process (time.process_time), best of a few repeats, so that a
shared, loaded machine does not inflate them; perft(4) also shows wall-clock seconds. The ratio
column is xqtrack time / pyffish time (below 1 = xqtrack is faster).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))   # long_games: the games adjudicate is timed on

from rules import START_FEN, Move, Position  # noqa: E402
from rules.perft import perft  # noqa: E402
from rules.squares import placement_from_points  # noqa: E402


def _sf_move(m: Move) -> str:
    f, t = m.from_sq, m.to_sq
    return f"{'abcdefghi'[f % 9]}{f // 9 + 1}{'abcdefghi'[t % 9]}{t // 9 + 1}"


def sf_perft(sf, fen: str, depth: int, moves: list[str] | None = None) -> int:
    moves = moves or []
    legal = sf.legal_moves("xiangqi", fen, moves)
    if depth == 1:
        return len(legal)
    return sum(sf_perft(sf, fen, depth - 1, moves + [m]) for m in legal)


def _from_sf(text: str) -> str:
    """pyffish xiangqi UCI (ranks 1-10) -> ICCS (ranks 0-9)."""
    import re
    a, r1, b, r2 = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", text).groups()
    return f"{a}{int(r1) - 1}{b}{int(r2) - 1}"


def _random_placement(rng) -> str | None:
    """A random but rule-abiding set-up (generals/advisors/elephants on their points, soldiers on
    reachable points), biased to put chariots and cannons on the generals' lines."""
    from rules._tables import ADVISOR_POINTS, ELEPHANT_POINTS
    board: dict[int, str] = {}

    def put(sq: int, letter: str) -> None:
        board.setdefault(sq, letter)

    put(rng.choice([3, 4, 5, 12, 13, 14, 21, 22, 23]), "K")
    put(rng.choice([66, 67, 68, 75, 76, 77, 84, 85, 86]), "k")
    for side, (a, e) in enumerate((("A", "B"), ("a", "b"))):
        for _ in range(rng.randint(0, 2)):
            put(rng.choice(sorted(ADVISOR_POINTS[side])), a)
        for _ in range(rng.randint(0, 2)):
            put(rng.choice(sorted(ELEPHANT_POINTS[side])), e)
    kings = [sq for sq, l in board.items() if l in "Kk"]
    for letter in "NRCnrc":
        for _ in range(rng.randint(0, 2)):
            if rng.random() < 0.4:  # on a general's file or rank
                k = rng.choice(kings)
                sq = rng.choice([k % 9 + 9 * r for r in range(10)] + [k - k % 9 + f for f in range(9)])
            else:
                sq = rng.randrange(90)
            put(sq, letter)
    for _ in range(rng.randint(0, 5)):
        sq = rng.randrange(27, 90)
        if sq >= 45 or sq % 2 == 0:
            put(sq, "P")
    for _ in range(rng.randint(0, 5)):
        sq = rng.randrange(0, 63)
        if sq < 45 or sq % 2 == 0:
            put(sq, "p")
    fen = placement_from_points("".join(board.get(sq, ".") for sq in range(90))) + " " + rng.choice("wb") + " - - 0 1"
    problems = Position.from_fen(fen).plausibility_problems()
    if any("but it is" in p or "face each other" in p for p in problems):
        return None  # the side not to move in check: not a reachable position
    return fen


def write_reference(sf, path: Path, seed: int = 20261129) -> None:
    """Write Fairy-Stockfish's legal move sets for varied positions (JSON lines) so the test suite
    can check our generator against an independent engine without needing pyffish in CI."""
    import random
    rng = random.Random(seed)
    fens: list[str] = []
    for _ in range(40):  # random playouts, captures favoured, several positions from each
        pos = Position()
        for ply in range(rng.randint(20, 160)):
            moves = pos.legal_moves()
            if not moves:
                break
            if ply % 23 == 11 or pos.is_check():
                fens.append(pos.fen())
            caps = [m for m in moves if pos.is_capture(m)]
            pos.push(rng.choice(caps if caps and rng.random() < 0.6 else moves))
        fens.append(pos.fen())
    while len(fens) < 450:
        fen = _random_placement(rng)
        if fen:
            fens.append(fen)
    for p in game_positions(100000)[::60]:
        fens.append(p.fen())
    with open(path, "w", encoding="utf-8") as out:
        for fen in fens:
            moves = sorted(_from_sf(m) for m in sf.legal_moves("xiangqi", fen, []))
            row = {"fen": fen, "legal": moves}
            if not moves:
                row["game_result"] = sf.game_result("xiangqi", fen, [])
            out.write(json.dumps(row) + "\n")
    print(f"wrote {len(fens)} positions to {path}")


def best_of(fn, repeats: int) -> tuple[float, object]:
    """Best CPU time of `repeats` runs, and the result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.process_time()
        result = fn()
        best = min(best, time.process_time() - t0)
    return best, result


def game_positions(limit: int) -> list[Position]:
    """Every `step`-th position of the real games, up to `limit` positions."""
    lines = (ROOT / "tests/data/games/games.jsonl").read_text(encoding="utf-8").splitlines()
    positions: list[Position] = []
    for line in lines:
        game = json.loads(line)
        pos = Position.from_fen(game["start_fen"]) if game["start_fen"] else Position()
        for i, text in enumerate(game["moves_iccs"]):
            if i % 7 == 3:
                positions.append(Position.from_fen(pos.fen()))  # fresh, without history
            pos.push(Move.from_iccs(text))
        if len(positions) >= limit:
            break
    return positions[:limit]


def _jsonl_games() -> list:
    from rules.pgn import Game

    games = []
    for line in (ROOT / "tests" / "data" / "games" / "games.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        games.append(Game(headers=dict(row["headers"]), start_fen=row["start_fen"],
                          moves=[Move.from_iccs(t) for t in row["moves_iccs"]], result=row["result"]))
    return games


def format_reading_rows(repeats: int) -> list[tuple[str, int, int, float]]:
    """(label, games, plies, CPU seconds) of reading each game-file format (see the docstring)."""
    from rules.formats import read_games, write_games
    from rules.formats.ccbridge import LIBRARY_BLOCK, RECORD_MAGIC

    cbl = (ROOT / "tests" / "data" / "games" / "club_formats" / "1981年承德十一省市邀请赛188局.CBL").read_bytes()
    first = cbl.find(RECORD_MAGIC)
    starts = [at for at in range(first, len(cbl), LIBRARY_BLOCK) if cbl.startswith(RECORD_MAGIC, at)]
    cbrs = [cbl[a:b] for a, b in zip(starts, starts[1:] + [len(cbl)])]
    games = _jsonl_games()
    plies = sum(len(g.moves) for g in games)
    cbl_plies = sum(len(g.moves) for g in read_games(cbl))
    cases = [
        ("CBL library (real, 188 games)", [cbl], 188, cbl_plies),
        ("CBR records (the same 188 games)", cbrs, 188, cbl_plies),
        ("PGN library, ICCS (H2-E2), generated", [write_games(games, "pgn", notation="iccs")], len(games), plies),
        ("PGN library, Chinese notation, generated", [write_games(games, "pgn", notation="chinese")], len(games), plies),
        ("DhtmlXQ page, generated", [write_games(games, "dhtmlxq")], len(games), plies),
        ("XQF records (keyed, v0x12), generated", [write_games([g], "xqf") for g in games], len(games), plies),
        ("CBF records, generated", [write_games([g], "cbf") for g in games], len(games), plies),
    ]
    rows = []
    for label, blobs, n_games, n_plies in cases:
        def read_all(blobs=blobs):
            return sum(len(read_games(b)) for b in blobs)
        seconds, read = best_of(read_all, repeats)
        assert read == n_games, (label, read, n_games)
        rows.append((label, n_games, n_plies, seconds))
    return rows


def print_format_rows(repeats: int) -> None:
    rows = format_reading_rows(repeats)
    width = max(len(r[0]) for r in rows)
    print(f"\ngame-file reading (rules/formats, every move replayed and checked), CPU s best of {repeats}")
    print(f"{'format':<{width}}  {'games':>6}  {'plies':>7}  {'games/s':>9}  {'plies/s':>9}")
    print("-" * (width + 41))
    for label, n_games, n_plies, seconds in rows:
        print(f"{label:<{width}}  {n_games:>6}  {n_plies:>7}  {n_games / seconds:>9.0f}  {n_plies / seconds:>9.0f}")


ADJUDICATE_PLIES = (2_000, 8_000, 100_000)


def adjudicate_rows(plies: tuple[int, ...] = ADJUDICATE_PLIES) -> list[tuple[str, int, float, float, str]]:
    """(game, plies, CPU s to read its PGN, CPU s to adjudicate, ruling) for each long game."""
    from rules.formats import read_games
    from rules.repetition import adjudicate
    from long_games import horse_shuffle, mixed_game, pgn_text

    rows = []
    for n in plies:
        for label, make in (("horse shuffle", horse_shuffle), ("mixed", mixed_game)):
            moves = make(n)
            data = pgn_text(moves).encode("utf-8")
            t_read, games = best_of(lambda: read_games(data), 1)
            assert games[0].moves == moves
            t_adj, ruling = best_of(lambda: adjudicate(None, moves), 1)
            rows.append((label, n, t_read, t_adj, f"{ruling.ruling} ({ruling.cycles} cycles)"))
    return rows


def print_adjudicate_rows(plies: tuple[int, ...] = ADJUDICATE_PLIES) -> None:
    print("\nadjudicate (repetition ruling, rules/repetition.py), CPU s, one run each")
    print(f"{'game':<14}  {'plies':>7}  {'read PGN':>9}  {'adjudicate':>10}  ruling")
    print("-" * 66)
    for label, n, t_read, t_adj, ruling in adjudicate_rows(plies):
        print(f"{label:<14}  {n:>7}  {t_read:>8.2f}s  {t_adj:>9.2f}s  {ruling}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perft5", action="store_true", help="also time perft(5) from the start (~1-2 min)")
    ap.add_argument("--positions", type=int, default=3000, help="real-game positions for the move-generation figure")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-sf", action="store_true", help="skip pyffish")
    ap.add_argument("--write-reference", type=Path, metavar="PATH",
                    help="write pyffish legal-move sets for test positions to PATH and exit")
    ap.add_argument("--sf-perft4", action="store_true", help="also run pyffish perft(4) (minutes)")
    ap.add_argument("--formats-only", action="store_true", help="only the game-file reading speed")
    ap.add_argument("--adjudicate-only", action="store_true", help="only the repetition-ruling speed")
    args = ap.parse_args(argv)
    if args.formats_only:
        print_format_rows(args.repeats)
        return 0
    if args.adjudicate_only:
        print_adjudicate_rows()
        return 0

    try:
        import pyffish as sf  # type: ignore
    except ImportError:
        sf = None
    if args.no_sf:
        sf = None

    try:
        from rules import _accel  # type: ignore  # optional C accelerator, if built
        accel = "C accelerator" if _accel.available() else "pure Python"
    except ImportError:
        accel = "pure Python"

    if args.write_reference:
        if sf is None:
            raise SystemExit("--write-reference needs pyffish")
        write_reference(sf, args.write_reference)
        return 0

    rows: list[tuple[str, str, str, str]] = []

    def add(label: str, ours: float, theirs: float | None, unit: str, fmt: str = "{:.2f}") -> None:
        rows.append((label, fmt.format(ours) + unit,
                     (fmt.format(theirs) + unit) if theirs is not None else "-",
                     f"{ours / theirs:.2f}" if theirs else "-"))

    start = Position()
    depths = [3, 4] + ([5] if args.perft5 else [])
    for depth in depths:
        reps = args.repeats if depth <= 4 else 1
        w0 = time.perf_counter()
        t_ours, n = best_of(lambda: perft(start, depth), reps)
        wall = (time.perf_counter() - w0) / reps
        t_sf = None
        if sf is not None and (depth == 3 or (depth == 4 and args.sf_perft4)):
            t_sf, n_sf = best_of(lambda: sf_perft(sf, START_FEN, depth), 1)
            assert n_sf == n, (n_sf, n)
        add(f"perft({depth}) start, {n} nodes: CPU time", t_ours, t_sf, " s")
        if depth >= 4:
            rows.append((f"perft({depth}) start: wall-clock time (mean of runs)", f"{wall:.2f} s", "-", "-"))
        add(f"perft({depth}) start: nodes/s (millions)", n / t_ours / 1e6,
            n / t_sf / 1e6 if t_sf else None, " M/s", "{:.3f}")

    positions = game_positions(args.positions)
    fens = [p.fen() for p in positions]
    count = len(positions)

    def ours_ready():
        total = 0
        for p in positions:
            total += len(p.legal_moves())
        return total

    def ours_fen():
        total = 0
        for f in fens:
            total += len(Position.from_fen(f).legal_moves())
        return total

    t_ready, total = best_of(ours_ready, args.repeats)
    t_fen, total2 = best_of(ours_fen, args.repeats)
    assert total == total2
    t_sf = None
    if sf is not None:
        def sf_fen():
            return sum(len(sf.legal_moves("xiangqi", f, [])) for f in fens)
        t_sf, total_sf = best_of(sf_fen, args.repeats)
        assert total_sf == total, (total_sf, total)
    add(f"legal moves, {count} game positions: us/position (ready Position)", t_ready / count * 1e6,
        t_sf / count * 1e6 if t_sf else None, " us", "{:.1f}")
    add("legal moves incl. FEN parsing: us/position", t_fen / count * 1e6,
        t_sf / count * 1e6 if t_sf else None, " us", "{:.1f}")

    width = max(len(r[0]) for r in rows)
    print(f"xqtrack rules ({accel}) vs pyffish {'.'.join(map(str, sf.version())) if sf else '(not run)'}; "
          f"Python {sys.version.split()[0]}; avg {total / count:.1f} legal moves/position")
    print(f"{'measure':<{width}}  {'xqtrack':>12}  {'pyffish':>12}  {'ratio':>6}")
    print("-" * (width + 38))
    for label, a, b, r in rows:
        print(f"{label:<{width}}  {a:>12}  {b:>12}  {r:>6}")
    print("ratio = xqtrack / pyffish (time rows: below 1 = xqtrack faster; nodes/s rows: above 1 = xqtrack "
          "faster).\npyffish perft = Python recursion over sf.legal_moves(fen, moves); times are CPU seconds.")
    print_format_rows(args.repeats)
    print_adjudicate_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
