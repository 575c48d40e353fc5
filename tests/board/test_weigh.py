"""The evidence model: a few physical signals weighed into one score; weak evidence is a review
note, never an accusation; the note is a journal line of its own that reads back as written."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from board.events import EventFormatError, IncidentEvent, ReviewNote, event_from_dict
from board.incidents.weigh import (FEATURES, WEIGHED_KINDS, Candidate, EvidenceModel, HandSignals, default_model,
                                   weigh)
from rules import Side


def _signals(rest_s=1.0, face_rise=2.0, rules=True, **kw) -> HandSignals:
    base = dict(rest_s=rest_s, fingers_s=rest_s * 1.2, face_rise=face_rise, face_unread=False, shift=0.03,
                other_hand=False, beside_move=False, rules=rules)
    base.update(kw)
    return HandSignals(**base)


def _touch(signals: HandSignals | None = None) -> IncidentEvent:
    extra = {"signals": signals.to_dict()} if signals is not None else {}
    return IncidentEvent(12.5, 5, "touch_move_other", Side.RED, [22, 40], "red touched e2 then moved e4e5",
                         frames={"before": 10, "during": 20, "after": 30}, extra=extra)


MODEL = EvidenceModel({k: -2.0 for k in WEIGHED_KINDS}, (1.5, 0.0, 0.8, 0.0, 0.0, -1.0, -0.5, 1.0),
                      accuse=0.6, note=0.3)


def test_a_review_note_reads_back_as_written_and_a_bad_score_is_named():
    note = ReviewNote.of(_touch(_signals()), 0.42)
    line = json.loads(json.dumps(note.to_dict()))
    assert line["type"] == "review_note" and line["score"] == 0.42 and line["signals"]["rest_s"] == 1.0
    again = event_from_dict(line)
    assert isinstance(again, ReviewNote) and again.to_dict() == note.to_dict()
    with pytest.raises(EventFormatError, match="score"):
        event_from_dict({**line, "score": 1.7})
    with pytest.raises(EventFormatError, match="score"):
        event_from_dict({k: v for k, v in line.items() if k != "score"})


def test_strong_evidence_accuses_weak_evidence_is_a_note_with_its_score():
    strong, weak = _touch(_signals(rest_s=1.5, face_rise=2.5)), _touch(_signals(rest_s=0.3, face_rise=0.0))
    out = weigh([strong, weak], [], MODEL, lambda e: None)
    assert isinstance(out[0], IncidentEvent) and out[0].extra["score"] >= MODEL.accuse
    assert isinstance(out[1], ReviewNote) and out[1].score < MODEL.accuse
    assert "score" not in out[1].extra and out[1].extra["signals"]["rest_s"] == 0.3


def test_a_candidate_the_rules_set_aside_is_a_note_only_from_the_note_threshold():
    likely = Candidate(_touch(), _signals(rest_s=2.0, face_rise=3.0, rules=False), "hovered")
    unlikely = Candidate(_touch(), _signals(rest_s=0.2, face_rise=-1.0, rules=False), "hovered")
    out = weigh([], [likely, unlikely], MODEL, lambda e: None)
    assert len(out) == 1 and isinstance(out[0], ReviewNote) and out[0].extra["set_aside"] == "hovered"


def test_without_a_model_the_rules_alone_decide():
    inc = _touch(_signals(rest_s=0.1, face_rise=-2.0))
    assert weigh([inc], [Candidate(_touch(), _signals(), "hovered")], None, lambda e: None) == [inc]


def test_kinds_that_rest_on_geometry_are_not_weighed():
    between = IncidentEvent(3.0, 2, "between_points", Side.BLACK, [30, 31], "between")
    assert weigh([between], [], MODEL, lambda e: _signals(rest_s=0.0, face_rise=-3.0)) == [between]


def test_signals_are_computed_where_the_rule_left_none():
    knocked = IncidentEvent(3.0, 2, "knocked", Side.BLACK, [30], "knocked")
    out = weigh([knocked], [], MODEL, lambda e: _signals(rest_s=0.0, face_rise=4.0, shift=0.5))
    assert out[0].extra["signals"]["shift"] == 0.5


def test_bad_models_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="weights"):
        EvidenceModel({}, (1.0,), 0.5, 0.5)
    with pytest.raises(ValueError, match="probabilities"):
        EvidenceModel({}, (0.0,) * len(FEATURES), 1.5, 0.5)
    with pytest.raises(ValueError, match="do not read"):
        HandSignals.from_dict({"rest_s": "long"})


@given(st.floats(0, 10), st.floats(0, 10), st.floats(-10, 10), st.booleans(), st.floats(0, 5), st.booleans(),
       st.booleans(), st.booleans())
def test_the_fitted_score_is_a_probability_for_any_signals(rest, fingers, rise, unread, shift, other, near, rules):
    s = HandSignals(rest, fingers, rise, unread, shift, other, near, rules)
    for kind in WEIGHED_KINDS:
        assert 0.0 <= default_model().score(kind, s) <= 1.0


def test_the_fitted_model_weighs_a_long_rest_that_turned_the_piece_above_a_brief_pass_that_left_it():
    """The physics the model must have learnt from the rig's truth, whatever its exact weights: fingers
    resting over a second on a piece and turning it are stronger evidence of a touch than a hand
    pausing a quarter second over a piece whose face is as it was, and the other player's hand
    lying over the piece longer weakens it."""
    m = default_model()
    touch = _signals(rest_s=1.2, face_rise=2.5)
    passing = _signals(rest_s=0.25, face_rise=0.0)
    for kind in ("touch_move_other", "retouch"):
        assert m.score(kind, touch) > m.score(kind, passing)
        assert m.score(kind, touch) > m.score(kind, _signals(rest_s=1.2, face_rise=2.5, other_hand=True))
    assert m.score("touch_move_other", touch) >= m.accuse, "a clear touch stands as an accusation"
