"""Move generation, rule by rule, on small hand-built positions (expected sets written out)."""
from __future__ import annotations

import pytest

from rules import Move, MoveError, Position, parse_square

from ._helpers import fen_of, iccs_set, moves_from


def pos_of(pieces, turn="w", **kw):
    return Position.from_fen(fen_of(pieces, turn, **kw))


def test_start_position_has_44_moves():
    pos = Position()
    moves = pos.legal_moves()
    assert len(moves) == 44 and len(set(moves)) == 44
    assert moves_from(pos, "b0") == {"b0a2", "b0c2"}  # d1 blocked by the elephant on c0 (horse leg)
    assert moves_from(pos, "c0") == {"c0a2", "c0e2"}
    assert moves_from(pos, "d0") == {"d0e1"}
    assert moves_from(pos, "e0") == {"e0e1"}
    assert moves_from(pos, "a3") == {"a3a4"}
    assert moves_from(pos, "a0") == {"a0a1", "a0a2"}
    # cannon: quiet moves up to the first piece, and the jump capture of the horse on b9
    assert moves_from(pos, "b2") == {"b2b1", "b2b3", "b2b4", "b2b5", "b2b6", "b2a2", "b2c2", "b2d2",
                                     "b2e2", "b2f2", "b2g2", "b2b9"}


def test_flying_general_king_may_not_step_onto_open_file():
    pos = pos_of({"d0": "K", "e9": "k"})
    assert moves_from(pos, "d0") == {"d0d1"}  # e0 would face the general on e9
    assert not pos.is_legal(Move.from_iccs("d0e0"))
    with pytest.raises(MoveError, match="generals would face each other"):
        pos.push(Move.from_iccs("d0e0"))


def test_flying_general_pins_the_only_blocker():
    pos = pos_of({"e0": "K", "e9": "k", "e5": "N"})
    assert moves_from(pos, "e5") == set()
    assert moves_from(pos, "e0") == {"e0d0", "e0f0", "e0e1"}
    assert len(pos.pseudo_legal_moves()) == 3 + 8  # the horse's moves are pseudo-legal
    # a pinned chariot may still move along the file
    pos = pos_of({"e0": "K", "e9": "k", "e5": "R"}, "w")
    assert moves_from(pos, "e5") == {f"e5e{r}" for r in (1, 2, 3, 4, 6, 7, 8, 9)}


def test_flying_general_counts_as_check_and_attack():
    pos = pos_of({"e0": "K", "e9": "k", "e1": "A"}, "w")
    assert moves_from(pos, "e1") == set()  # advisor is the only thing between the generals
    pos = pos_of({"e1": "K", "e8": "k", "e5": "n"}, "b")
    # the black horse is pinned by the flying general
    assert moves_from(pos, "e5") == set()
    pos = pos_of({"e0": "K", "e9": "k", "d4": "p"}, "b")
    assert parse_square("e0") in pos.attackers(parse_square("e9"), "w")


def test_horse_leg():
    pos = pos_of({"e0": "K", "d9": "k", "e4": "N"})
    assert moves_from(pos, "e4") == {"e4d6", "e4f6", "e4c5", "e4g5", "e4c3", "e4g3", "e4d2", "e4f2"}
    pos = pos_of({"e0": "K", "d9": "k", "e4": "N", "e5": "p", "d4": "P"})
    # e5 blocks d6/f6; d4 blocks c5/c3
    assert moves_from(pos, "e4") == {"e4g5", "e4g3", "e4d2", "e4f2"}
    assert "e4d6" in {str(m) for m in pos_of({"e0": "K", "d9": "k", "e4": "N", "d5": "p"}).legal_moves()}


def test_elephant_eye_and_river():
    pos = pos_of({"e0": "K", "d9": "k", "c4": "B"})
    assert moves_from(pos, "c4") == {"c4a2", "c4e2"}  # a6/e6 are across the river
    pos = pos_of({"e0": "K", "d9": "k", "c4": "B", "d3": "P"})
    assert moves_from(pos, "c4") == {"c4a2"}  # eye d3 blocked
    pos = pos_of({"e0": "K", "d9": "k", "g5": "b"}, "b")
    assert moves_from(pos, "g5") == {"g5e7", "g5i7"}
    assert "elephant eye blocked on d3" in pos_of({"e0": "K", "d9": "k", "c4": "B", "d3": "P"})._illegal_reason(
        Move.from_iccs("c4e2"))


def test_palace_for_general_and_advisor():
    pos = pos_of({"d0": "K", "f9": "k", "e1": "A", "f2": "A"})
    assert moves_from(pos, "e1") == {"e1f0", "e1d2"}  # d0 and f2 hold own pieces
    assert moves_from(pos, "f2") == set()  # e1 own piece, g3 outside the palace
    assert moves_from(pos, "d0") == {"d0e0", "d0d1"}  # c0 outside the palace
    pos = pos_of({"f2": "K", "d9": "k", "d0": "A"})
    assert moves_from(pos, "f2") == {"f2e2", "f2f1"}
    assert moves_from(pos, "d0") == {"d0e1"}
    with pytest.raises(MoveError, match="must stay in the palace"):
        pos.push(Move.from_iccs("f2g2"))


def test_soldier_directions():
    pos = pos_of({"e0": "K", "d9": "k", "c3": "P", "g5": "P", "a9": "P"})
    assert moves_from(pos, "c3") == {"c3c4"}
    assert moves_from(pos, "g5") == {"g5g6", "g5f5", "g5h5"}
    assert moves_from(pos, "a9") == {"a9b9"}
    with pytest.raises(MoveError, match="sideways only after crossing"):
        pos.push(Move.from_iccs("c3d3"))
    with pytest.raises(MoveError, match="never moves backwards"):
        pos.push(Move.from_iccs("g5g4"))
    pos = pos_of({"e0": "K", "d9": "k", "c6": "p", "g4": "p"}, "b")
    assert moves_from(pos, "c6") == {"c6c5"}
    assert moves_from(pos, "g4") == {"g4g3", "g4f4", "g4h4"}


def test_chariot_and_cannon_screens():
    pieces = {"d0": "K", "f9": "k", "a0": "R", "a5": "p", "a7": "n", "a9": "r", "b0": "C", "b3": "P", "b7": "p"}
    pos = pos_of(pieces)
    assert moves_from(pos, "a0") == {"a0a1", "a0a2", "a0a3", "a0a4", "a0a5"}
    # cannon b0: c0 (d0 own general stops it); up b1, b2; jumps screen b3, captures b7
    assert moves_from(pos, "b0") == {"b0c0", "b0b1", "b0b2", "b0b7"}
    # a cannon never captures without exactly one screen
    pos = pos_of({"d0": "K", "f9": "k", "b0": "C", "b1": "p"})
    assert "b0b1" not in moves_from(pos, "b0")
    pos = pos_of({"d0": "K", "f9": "k", "b0": "C", "b1": "p", "b4": "p", "b8": "p"})
    assert moves_from(pos, "b0") == {"b0a0", "b0c0", "b0b4"}


def test_cannon_check_through_screen_and_new_screen_is_illegal():
    # red general e0, black cannon e7, nothing between: a red piece may not step onto the file
    pos = pos_of({"e0": "K", "d9": "k", "e7": "c", "c2": "B", "d4": "P"})
    assert not pos.is_check()
    assert "c2e4" not in moves_from(pos, "c2")
    assert "d4e4" not in moves_from(pos, "d4")
    # with a screen it is check; the screen may not be removed unless it blocks again
    pos = pos_of({"e0": "K", "d9": "k", "e7": "c", "e3": "P"})
    assert pos.is_check() and pos.checkers() == [parse_square("e7")]
    assert moves_from(pos, "e3") == set()  # e3e4 keeps the soldier as the screen
    # e1 is still behind the screen; d0 would face the black general on d9
    assert moves_from(pos, "e0") == {"e0f0"}
    # a piece that is the second of two screens is pinned
    pos = pos_of({"e0": "K", "d9": "k", "e7": "c", "e3": "P", "e5": "N"})
    assert not pos.is_check()
    assert moves_from(pos, "e5") == set()
    # ... also when the first "screen" is an enemy cannon standing next to the general
    pos = pos_of({"d2": "K", "e9": "k", "e8": "C", "e2": "n", "e1": "C"}, "b")
    assert not pos.is_check()
    assert moves_from(pos, "e2") == set()


def test_horse_leg_pin_and_horse_check():
    # black horse g1 attacks e0 via leg f1? (g1 -> e0 has leg f1)
    pos = pos_of({"e0": "K", "d9": "k", "g1": "n", "f1": "A"})
    assert not pos.is_check()
    assert moves_from(pos, "f1") == set()  # the advisor on the leg may not move
    pos = pos_of({"e0": "K", "d9": "k", "g1": "n"})
    assert pos.is_check() and pos.checkers() == [parse_square("g1")]
    # g1 reaches e0, e2, f3, h3, i0, i2; d0 would face the black general on d9
    assert moves_from(pos, "e0") == {"e0e1", "e0f0"}
    assert not pos.is_attacked(parse_square("f0"), "b")
    assert pos.is_attacked(parse_square("d0"), "b")  # flying general over the empty d file


def test_attackers_cover_every_piece_kind():
    pieces = {"e0": "K", "e9": "k", "e4": "p", "c6": "n", "d5": "p", "g7": "b", "e7": "c", "e6": "R",
              "a4": "r", "f9": "a", "c3": "P"}
    pos = pos_of(pieces, "w")
    sq = parse_square
    # e4 (black soldier): red chariot e6 (e5 empty); not red soldier c3 (not adjacent)
    assert pos.attackers(sq("e4"), "w") == [sq("e6")]
    # e4 protected by: black chariot a4 (b4..d4 empty), cannon e7 over the screen e6
    assert pos.attackers(sq("e4"), "b") == [sq("a4"), sq("e7")]
    # e5: horse c6 (leg d6 empty), elephant g7 (eye f6 empty), cannon e7 jumping the screen e6;
    # not soldier d5, which has not crossed the river so cannot step sideways
    assert pos.attackers(sq("e5"), "b") == [sq("c6"), sq("e7"), sq("g7")]
    # elephant cannot attack across the river; horse leg blocked
    assert sq("g7") not in pos.attackers(sq("e3"), "b")
    blocked = pos_of({**pieces, "d6": "P"}, "w")
    assert sq("c6") not in blocked.attackers(sq("e5"), "b")
    # advisor attacks palace points only; the general its palace neighbours
    assert pos.attackers(sq("e8"), "b") == [sq("e9"), sq("f9")]
    # red soldier c3 attacks c4 only (not yet across the river)
    assert sq("c3") in pos.attackers(sq("c4"), "w") and sq("c3") not in pos.attackers(sq("b3"), "w")


def test_is_capture_and_gives_check():
    pos = Position()
    assert pos.is_capture(Move.from_iccs("b2b9"))
    assert not pos.is_capture(Move.from_iccs("h2e2"))
    assert not pos.gives_check(Move.from_iccs("h2e2"))
    pos = pos_of({"d0": "K", "e9": "k", "a8": "R"})
    assert pos.gives_check(Move.from_iccs("a8a9"))
    assert pos.gives_check(Move.from_iccs("a8e8"))
    assert not pos.gives_check(Move.from_iccs("a8b8"))
    assert pos.gives_check(Move.from_iccs("a8a0")) is False
    assert pos.fen() == fen_of({"d0": "K", "e9": "k", "a8": "R"})


def test_illegal_push_names_move_and_reason():
    pos = Position()
    cases = {
        "e5e6": "no piece on e5",
        "h7e7": "black cannon but it is red's turn",
        "a0b0": "same side",
        "b0d1": "horse leg blocked on c0",
        "h2h7": "cannon captures by jumping exactly one screen",
    }
    for text, words in cases.items():
        with pytest.raises(MoveError) as info:
            pos.push(Move.from_iccs(text))
        assert text in str(info.value) and words in str(info.value), str(info.value)
    assert pos.fen() == Position().fen()


@pytest.mark.parametrize("text, words", [
    ("h2e", "4 characters"), ("j2e2", "character 1"), ("hxe2", "character 2"), ("e2e2", "same"), ("", "4 characters"),
])
def test_from_iccs_errors(text, words):
    with pytest.raises(MoveError, match=words):
        Move.from_iccs(text)


def test_move_value_semantics():
    m = Move.from_iccs("h2e2")
    assert m == Move(parse_square("h2"), parse_square("e2")) and str(m) == "h2e2" == m.iccs()
    assert hash(m) == hash(Move(25, 22)) and Move(1, 2) < Move(1, 3) < Move(2, 0)
    assert Move.from_iccs(" H2-E2 ") == m
    with pytest.raises(MoveError):
        Move(0, 90)
    with pytest.raises(Exception):
        m.from_sq = 3  # frozen


def test_agrees_with_fairy_stockfish_reference():
    """Legal move sets equal Fairy-Stockfish's on 576 varied positions (tests/rules/data)."""
    import json
    from pathlib import Path

    path = Path(__file__).parent / "data" / "pyffish_legal_moves.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) > 500
    no_moves = 0
    for row in rows:
        pos = Position.from_fen(row["fen"])
        assert sorted(iccs_set(pos.legal_moves())) == row["legal"], row["fen"]
        if not row["legal"]:
            no_moves += 1
            assert row["game_result"] < 0  # the side to move has lost
            outcome = pos.outcome()
            assert outcome is not None and outcome.winner != pos.turn and outcome.result != "1/2-1/2"
    assert no_moves > 5
