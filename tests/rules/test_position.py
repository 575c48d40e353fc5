"""Make/undo, Zobrist hash, check/checkmate/no-move outcome, sixty-move rule, copy, properties."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import BLACK, RED, START_FEN, Move, MoveError, Outcome, Position, parse_square

from ._helpers import fen_of


def play(pos: Position, *texts: str) -> Position:
    for text in texts:
        pos.push(Move.from_iccs(text))
    return pos


def test_push_pop_restores_fen_hash_and_counters():
    pos = Position()
    before = [(pos.fen(), pos.zobrist_hash())]
    for text in ["h2e2", "h9g7", "b2b9", "a9b9", "h0g2", "i9h9", "i0h0"]:
        pos.push(Move.from_iccs(text))
        before.append((pos.fen(), pos.zobrist_hash()))
    assert pos.ply == 7 and pos.fullmove_number == 4 and pos.turn == BLACK
    assert pos.halfmove_clock == 3  # captures on plies 3 and 4
    assert [str(m) for m in pos.move_stack] == ["h2e2", "h9g7", "b2b9", "a9b9", "h0g2", "i9h9", "i0h0"]
    for fen, h in reversed(before[:-1]):
        pos.pop()
        assert (pos.fen(), pos.zobrist_hash()) == (fen, h)
    assert pos.fen() == START_FEN and pos.ply == 0
    with pytest.raises(MoveError, match="no move to take back"):
        pos.pop()


def test_hash_equal_after_transposition_and_side_matters():
    a = play(Position(), "h2e2", "h9g7", "b0c2", "b9c7")
    b = play(Position(), "b0c2", "b9c7", "h2e2", "h9g7")
    assert a.fen() == b.fen() and a.zobrist_hash() == b.zobrist_hash()
    c = play(Position(), "h2e2", "h9g7", "b0c2")
    d = Position.from_fen(c.board_fen() + " w")
    assert c.board_fen() == d.board_fen() and c.zobrist_hash() != d.zobrist_hash()
    assert Position.from_fen(a.fen()).zobrist_hash() == a.zobrist_hash()
    assert 0 <= a.zobrist_hash() < 2 ** 64
    assert Position().zobrist_hash() == Position().zobrist_hash()  # stable seed


def test_copy_is_independent():
    pos = play(Position(), "h2e2")
    cp = pos.copy()
    cp.push(Move.from_iccs("h9g7"))
    assert pos.fen() != cp.fen() and pos.ply == 1 and cp.ply == 2
    cp.pop()
    cp.pop()
    assert cp.fen() == START_FEN and pos.move_stack == [Move.from_iccs("h2e2")]


def test_checkmate():
    pos = Position.from_fen(fen_of({"d0": "K", "e9": "k", "a9": "R", "b8": "R"}, "b"))
    assert pos.is_check() and pos.checkers() == [parse_square("a9")]
    assert pos.legal_moves() == [] and not pos.has_legal_moves()
    assert pos.is_checkmate()
    assert pos.outcome() == Outcome("w", "checkmate", "1-0")


def test_no_legal_moves_is_a_loss_not_a_draw():
    pos = Position.from_fen(fen_of({"d0": "K", "d1": "R", "f2": "R", "e7": "P", "e9": "k"}, "b"))
    assert not pos.is_check()
    assert pos.legal_moves() == []
    assert not pos.is_checkmate()
    assert pos.outcome() == Outcome("w", "no_legal_moves", "1-0")
    # mirrored: red has no move
    pos = Position.from_fen(fen_of({"e0": "K", "e2": "p", "d8": "r", "f7": "r", "d9": "k"}, "w"))
    assert not pos.is_check() and pos.legal_moves() == []
    assert pos.outcome() == Outcome("b", "no_legal_moves", "0-1")


def test_sixty_move_rule():
    pos = Position.from_fen(fen_of({"e0": "K", "d9": "k", "a0": "R", "i9": "n"}, "w", halfmove=118, fullmove=80))
    play(pos, "a0a1")
    assert pos.halfmove_clock == 119 and pos.outcome() is None
    play(pos, "i9h7")
    assert pos.halfmove_clock == 120 and pos.is_sixty_move_draw()
    assert pos.outcome() == Outcome(None, "sixty_moves", "1/2-1/2")
    pos.pop()
    play(pos, "d9d8", "a1a8")
    assert pos.halfmove_clock == 121  # non-captures keep counting past the limit
    pos = Position.from_fen(fen_of({"e0": "K", "d9": "k", "a0": "R", "a5": "n"}, "w", halfmove=119))
    play(pos, "a0a5")
    assert pos.halfmove_clock == 0 and pos.outcome() is None


def test_mate_on_the_120th_ply_beats_the_sixty_move_draw():
    pos = Position.from_fen(fen_of({"d0": "K", "e9": "k", "a0": "R", "b8": "R"}, "w", halfmove=119))
    play(pos, "a0a9")
    assert pos.halfmove_clock == 120
    assert pos.outcome() == Outcome("w", "checkmate", "1-0")


def test_push_unchecked_refuses_corrupting_moves():
    pos = Position()
    with pytest.raises(MoveError, match="no piece"):
        pos.push_unchecked(Move.from_iccs("e5e6"))
    with pytest.raises(MoveError):
        pos.push_unchecked(Move.from_iccs("h7e7"))  # black piece, red to move
    with pytest.raises(MoveError):
        pos.push_unchecked(Move.from_iccs("a0b0"))  # own piece captured
    assert pos.fen() == START_FEN


def test_king_square_and_colour_errors():
    pos = Position()
    assert pos.king_square(RED) == parse_square("e0") and pos.king_square(BLACK) == parse_square("e9")
    with pytest.raises(ValueError, match="colour"):
        pos.king_square("red")


def test_two_generals_study_is_playable():
    """Odd set-ups are accepted; with two red generals both must be safe."""
    pos = Position.from_fen(fen_of({"d0": "K", "f2": "K", "e9": "k", "f7": "r"}, "w"))
    assert pos.plausibility_problems()
    assert pos.is_check()  # f2 is attacked by the chariot on f7
    for mv in pos.legal_moves():
        pos.push(mv)
        assert not any(pos.attackers(k, "b") for k in (mv.to_sq, parse_square("d0"), parse_square("f2"))
                       if pos.piece_at(k) == "K")
        pos.pop()


def _random_game(seed: int, plies: int, start: str = START_FEN) -> tuple[Position, list]:
    rng = random.Random(seed)
    pos = Position.from_fen(start)
    trail = []
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        trail.append((pos.fen(), pos.zobrist_hash()))
        # favour captures so that games reach sparse, tactical positions
        caps = [m for m in moves if pos.is_capture(m)]
        pos.push(rng.choice(caps if caps and rng.random() < 0.5 else moves))
    return pos, trail


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), plies=st.integers(1, 150))
def test_push_pop_restores_fen_and_hash_on_random_playouts(seed, plies):
    pos, trail = _random_game(seed, plies)
    assert pos.zobrist_hash() == Position.from_fen(pos.fen()).zobrist_hash()
    for fen, h in reversed(trail):
        pos.pop()
        assert pos.fen() == fen and pos.zobrist_hash() == h


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), plies=st.integers(0, 160))
def test_fast_legality_agrees_with_full_probe(seed, plies):
    """The pin/screen scan of legal_moves() must agree with make-and-probe on every pseudo move."""
    pos, _ = _random_game(seed, plies)
    legal = set(pos.legal_moves())
    assert len(legal) == len(pos.legal_moves())
    pseudo = pos.pseudo_legal_moves()
    assert legal <= set(pseudo)
    for mv in pseudo:
        assert (mv in legal) == pos._safe_after(mv) == pos.is_legal(mv), (pos.fen(), mv)
    # is_check agrees with checkers()
    assert pos.is_check() == bool(pos.checkers())


def test_unchecked_capture_of_a_general_undoes_cleanly():
    """Rulings code plays pseudo-legal captures with push_unchecked; even taking a general
    (only possible from an impossible position) must undo exactly."""
    fen = fen_of({"d0": "K", "e9": "k", "e5": "R", "a9": "n"}, "w")
    pos = Position.from_fen(fen)
    h = pos.zobrist_hash()
    pos.push_unchecked(Move.from_iccs("e5e9"))
    assert pos.piece_at(parse_square("e9")) == "R" and "k" not in pos.pieces().values()
    pos.pop()
    assert pos.fen() == fen and pos.zobrist_hash() == h
    assert pos.king_square(BLACK) == parse_square("e9")
    assert Move.from_iccs("e5e9") in pos.legal_moves()


def test_bad_square_arguments():
    pos = Position()
    for bad in (-1, 90, "e0", None):
        with pytest.raises(ValueError, match="point index"):
            pos.piece_at(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="point index"):
            pos.attackers(bad, RED)  # type: ignore[arg-type]


def test_pieces_and_board_accessors():
    pos = Position()
    pieces = pos.pieces()
    assert list(pieces) == sorted(pieces) and pieces[0] == "R" and pieces[89] == "r"
    assert "".join(pieces[sq] for sq in range(9)) == "RNBAKABNR"
    assert str(pos).splitlines()[0] == "9 r n b a k a b n r"
