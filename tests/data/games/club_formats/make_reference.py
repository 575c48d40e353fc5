"""Developer check, never run by the tests: write reference/*.pgn from the `cchess` package's
reading of the sample files, so the tests compare xqtrack's readers with an independent one.

    pip install cchess        # into a scratch environment; xqtrack does not depend on it
    python tests/data/games/club_formats/make_reference.py

Only cchess's public reading functions are called; the PGN is written here by hand (plain
ICCS moves) so that the reference does not pass through xqtrack's writer either.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAGS = (("event", "Event"), ("red", "Red"), ("black", "Black"), ("title", "Title"))


def pgn_of(game) -> str:
    info = game.info
    lines = ['[Game "Chinese Chess"]']
    for key, tag in TAGS:
        if info.get(key):
            lines.append(f'[{tag} "{info[key]}"]')
    lines.append(f'[Result "{info.get("result", "*")}"]')
    fen = game.init_board.to_fen()
    lines.append(f'[FEN "{fen} - - 0 1"]')
    lines.append('[Format "ICCS"]')
    moves = game.dump_iccs_moves()
    line = moves[0] if moves else []
    text = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(line))
    return "\n".join(lines) + "\n\n" + (text + " " if text else "") + info.get("result", "*") + "\n"


def main() -> int:
    from cchess.read_cbr import read_from_cbl, read_from_cbr
    from cchess.read_xqf import read_from_xqf

    out = HERE / "reference"
    out.mkdir(exist_ok=True)
    for path in sorted(HERE.iterdir()):
        suffix = path.suffix.lower()
        if suffix == ".xqf":
            games = [read_from_xqf(str(path))]
        elif suffix == ".cbr":
            games = [read_from_cbr(str(path))]
        elif suffix == ".cbl":
            games = read_from_cbl(str(path))["games"]
        else:
            continue
        text = "\n".join(pgn_of(g) for g in games)
        (out / (path.name + ".pgn")).write_text(text, encoding="utf-8")
        print(f"{path.name}: {len(games)} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
