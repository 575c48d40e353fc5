"""FEN reading and writing: round trips, accepted variants, and an error for every kind of fault."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import START_FEN, FenError, Move, Position, RulesError

from ._helpers import fen_of

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"


def test_start_position_round_trip():
    pos = Position()
    assert pos.fen() == START_FEN
    assert Position.from_fen(START_FEN).fen() == START_FEN
    assert pos.turn == "w" and pos.halfmove_clock == 0 and pos.fullmove_number == 1
    assert pos.board_fen() == START_FEN.split()[0]
    assert len(pos.pieces()) == 32
    assert pos.piece_at(4) == "K" and pos.piece_at(85) == "k" and pos.piece_at(40) is None


def test_round_trip_over_real_game_positions():
    """Every position reached in the first 40 games writes and reads back identically."""
    lines = (GAMES / "games.jsonl").read_text(encoding="utf-8").splitlines()[:40]
    seen = 0
    for line in lines:
        game = json.loads(line)
        pos = Position.from_fen(game["start_fen"]) if game["start_fen"] else Position()
        for text in game["moves_iccs"]:
            pos.push(Move.from_iccs(text))
            fen = pos.fen()
            back = Position.from_fen(fen)
            assert back.fen() == fen
            assert back.zobrist_hash() == pos.zobrist_hash()
            assert back.pieces() == pos.pieces()
            seen += 1
    assert seen > 1000


def test_counters_and_turn_written():
    pos = Position()
    pos.push(Move.from_iccs("h2e2"))
    assert pos.fen().endswith(" b - - 1 1")
    pos.push(Move.from_iccs("h9g7"))
    assert pos.fen().endswith(" w - - 2 2")


def test_accepts_h_e_letters_and_r_for_red():
    pos = Position.from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r - - 0 1")
    assert pos.fen() == START_FEN


def test_accepts_short_forms():
    assert Position.from_fen(START_FEN.split()[0] + " w").fen() == START_FEN
    assert Position.from_fen(START_FEN.split()[0] + " b 3 7").fen() == START_FEN.split()[0] + " b - - 3 7"
    assert Position.from_board(START_FEN.split()[0], "b").turn == "b"


@pytest.mark.parametrize("fen, words", [
    ("", ["empty"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1", ["9 ranks", "expected 10"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", ["11 ranks"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", ["rank 0", "8 points", "expected 9"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR w", ["rank 2", "10 points"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", ["rank 0", "past file i"]),
    ("rnbakabnr/9/1c5x1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", ["rank 7", "unknown piece letter 'x'", "file h", "character 4"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", ["no red general"]),
    ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", ["no black general"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", ["no side-to-move"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1", ["side-to-move", "'x'"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQ - 0 1", ["field 3", "'KQ'"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", ["halfmove clock", "'x'"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 -3", ["move number", "'-3'"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - \u00b2 1", ["halfmove clock"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 extra", ["7 fields"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/0/RNBAKABNR w", ["rank 1", "digit 0"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/45/RNBAKABNR w", ["rank 1", "two digits in a row"]),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p//9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", ["rank 5", "empty"]),
])
def test_malformed_fen_names_the_fault(fen, words):
    with pytest.raises(FenError) as info:
        Position.from_fen(fen)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert isinstance(info.value, RulesError) and isinstance(info.value, ValueError)


def test_non_text_fen():
    with pytest.raises(FenError, match="must be text"):
        Position.from_fen(None)  # type: ignore[arg-type]


def test_plausibility_clean_for_real_positions():
    assert Position().plausibility_problems() == []
    pos = Position()
    for text in ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]:
        pos.push(Move.from_iccs(text))
    assert pos.plausibility_problems() == []


@pytest.mark.parametrize("pieces, turn, words", [
    ({"e0": "K", "e9": "k", "d3": "B"}, "w", ["red elephant on d3", "seven points"]),
    ({"e0": "K", "e9": "k", "e6": "b"}, "w", ["black elephant on e6"]),
    ({"e0": "K", "e9": "k", "e2": "A"}, "w", ["red advisor on e2", "five palace points"]),
    ({"e0": "K", "e1": "K", "d9": "k"}, "w", ["red has 2 generals", "e0, e1"]),
    ({"c0": "K", "e9": "k"}, "w", ["red general on c0 is outside its palace"]),
    ({"e0": "K", "e9": "k", "a2": "P"}, "w", ["red soldier on a2", "behind its starting rank"]),
    ({"e0": "K", "e9": "k", "b3": "P"}, "w", ["red soldier on b3", "not crossed the river"]),
    ({"e0": "K", "e9": "k", "b6": "p"}, "w", ["black soldier on b6"]),
    ({"e0": "K", "e9": "k", "a3": "P", "a4": "P"}, "w", ["two soldiers on one file"]),
    ({"e0": "K", "e9": "k", "a5": "P", "b5": "P", "c5": "P", "d5": "P", "f5": "P", "g5": "P"}, "w",
     ["red has 6 soldiers", "a set has 5"]),
    ({"e0": "K", "e9": "k", "a5": "R", "b5": "R", "c5": "R"}, "b", ["red has 3 chariots"]),
    ({"e0": "K", "e9": "k"}, "w", ["generals face each other on file e"]),
    ({"d0": "K", "e9": "k", "e5": "R"}, "w", ["black general on e9 is in check but it is red's turn"]),
])
def test_plausibility_reports_without_refusing(pieces, turn, words):
    pos = Position.from_fen(fen_of(pieces, turn))  # accepted
    text = " | ".join(pos.plausibility_problems())
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"


def test_too_many_pieces_reported():
    pieces = {"e0": "K", "e9": "k"}
    letters = "AABBNNRRCCPPPPP"
    names = ["d0", "f0", "c0", "g0", "b0", "h0", "a0", "i0", "b2", "h2", "a3", "c3", "e3", "g3", "i3"]
    pieces.update(dict(zip(names, letters)))
    pieces["b5"] = "N"
    pos = Position.from_fen(fen_of(pieces))
    text = " | ".join(pos.plausibility_problems())
    assert "red has 3 horses" in text and "red has 17 pieces" in text
