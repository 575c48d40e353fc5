"""One Side for everyone (rules.Side): the journal's words, FEN's letters and the clock's indices agree."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import Position, RulesError, Side


@given(st.sampled_from(list(Side)))
def test_every_spelling_of_a_side_reads_back_as_that_side(side):
    assert Side.parse(side.value) is side
    assert Side.parse(side.fen) is side
    assert Side.from_fen(side.fen) is side
    assert Side.parse(side.clock_index) is side
    assert Side.parse(side) is side
    assert side.opponent.opponent is side and side.opponent is not side


def test_a_side_is_written_as_the_journal_word():
    assert json.dumps({"side": Side.BLACK}) == '{"side": "black"}'
    assert f"{Side.RED} to move" == "red to move" and str(Side.BLACK) == "black"
    assert Side.RED == "red" and {"red": 1}[Side.RED] == 1


def test_fen_letters_clock_indices_and_pieces_agree():
    assert (Side.RED.fen, Side.BLACK.fen) == ("w", "b")
    assert (Side.RED.clock_index, Side.BLACK.clock_index) == (0, 1)
    assert Side.from_fen("r") is Side.RED
    assert Side.of_piece("K") is Side.RED and Side.of_piece("k") is Side.BLACK
    assert Side.RED.owns("R") and not Side.RED.owns("r")
    pos = Position()
    assert Side.from_fen(pos.turn) is Side.RED


@pytest.mark.parametrize("bad", ["green", "", 2, -1, None, True, 0.0])
def test_a_value_that_is_no_side_is_refused_naming_it(bad):
    with pytest.raises(RulesError) as err:
        Side.parse(bad)
    assert repr(bad) in str(err.value)


def test_a_fen_side_letter_that_is_no_side_is_refused():
    with pytest.raises(RulesError, match="'x'"):
        Side.from_fen("x")
    with pytest.raises(RulesError):
        Side.of_piece("?")
