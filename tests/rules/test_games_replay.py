"""All 613 real games in tests/data/games/games.jsonl replay legally, move by move, via push."""
from __future__ import annotations

import json
from pathlib import Path

from rules import Move, Position

GAMES = Path(__file__).resolve().parents[1] / "data" / "games" / "games.jsonl"


def test_all_games_replay_legally():
    games = [json.loads(line) for line in GAMES.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(games) == 613
    plies = 0
    for game in games:
        pos = Position.from_fen(game["start_fen"]) if game["start_fen"] else Position()
        for i, text in enumerate(game["moves_iccs"]):
            move = Move.from_iccs(text)
            assert move in pos.legal_moves(), f"{game['id']} ply {i}: {text} not generated in {pos.fen()}"
            pos.push(move)  # raises MoveError if illegal
            plies += 1
        # the game stops where the record stops: the final position is consistent
        assert Position.from_fen(pos.fen()).zobrist_hash() == pos.zobrist_hash()
        if game["result"] in ("1-0", "0-1") and pos.outcome() is not None:
            assert pos.outcome().result == game["result"], game["id"]
    assert plies > 50000
