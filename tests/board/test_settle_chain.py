"""The settle chain's explainers one by one (board.settle), and the window and record they rely on."""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board.corrector import CorrectorConfig, find_correction
from board.episode import Episode, Settled
from board.explain import Evidence, board_classes, explain, log_readings
from board.incidents import IncidentTracker
from board.record import GameRecord
from board.settle import (EXPLAINERS, SettleConfig, SettleContext, earlier_move_corrected,
                          explain_settle, fewer_plies_by_correction, given_start_position, knock_in_view, knocked_off,
                          legal_moves, move_and_knocked_aside, move_and_knocked_off, moved_half_way,
                          moves_with_discs_off_points, off_point_destination_move, vanished_piece)
from board.sync import SettleKind, SyncState
from board.window import Frame, SettleReading, SettleWindow, WindowConfig, read_frames
from rules import Move, Position, Side


def _p(name: str) -> int:
    return int(name[1]) * 9 + "abcdefghi".index(name[0])


def _reading(board: np.ndarray, offsets: np.ndarray | None = None) -> SettleReading:
    probs = np.full((90, 15), 0.002)
    probs[np.arange(90), board] = 1.0 - 14 * 0.002
    return SettleReading(Evidence(log_readings(probs), np.ones(90, bool)),
                         np.zeros((90, 2)) if offsets is None else offsets)


def _after(position: Position, *iccs: str) -> np.ndarray:
    p = position.copy()
    for m in iccs:
        p.push(Move.from_iccs(m))
    return board_classes(p)


def _ctx(record: GameRecord, reading: SettleReading, covered: Sequence[str] = (),
         kind: SettleKind = SettleKind.QUIET, unconfirmed_start: bool = False,
         offsets_before: np.ndarray | None = None) -> SettleContext:
    pos = record.position
    before = Settled(0.0, 0, board_classes(pos), np.zeros((90, 2)) if offsets_before is None else offsets_before,
                     np.ones(90, bool), np.ones(90))
    ep = Episode(0.04, 1, before)
    occ = np.zeros(90, bool)
    occ[[_p(n) for n in covered]] = True
    for f in range(1, 10):
        ep.update(f / 25, f, occ, np.ones((90, 15)) / 15, np.zeros((90, 2)))
    last = Frame(0.5, 12, True, np.zeros(90, bool), np.ones((90, 15)) / 15, np.zeros((90, 2)))
    cfg = SettleConfig()
    ex = explain(pos, reading.evidence, cfg.explain)
    return SettleContext(kind, pos, record.ply, record.ply, unconfirmed_start, reading, ex, ep, None, last, cfg,
                         IncidentTracker())


def test_the_explainers_are_tried_in_the_stated_order():
    assert [e.__name__ for e in EXPLAINERS] == [
        "given_start_position", "off_point_destination_move", "move_and_knocked_aside", "fewer_plies_by_correction",
        "moved_half_way", "legal_moves",
        "vanished_piece", "move_and_knocked_off", "knocked_off", "moves_with_discs_off_points",
        "earlier_move_corrected"]


def test_a_legal_move_on_the_board_is_accepted_by_the_legal_moves_step():
    rec = GameRecord.starting(Position())
    ctx = _ctx(rec, _reading(_after(rec.position, "h2e2")))
    out = explain_settle(ctx)
    assert out is not None and out.step == "legal_moves"
    assert [m.iccs() for m in out.explanation.moves] == ["h2e2"] and out.correction is None


def test_a_given_start_the_reader_disagrees_with_is_kept_and_the_points_are_named():
    rec = GameRecord.starting(Position())
    board = board_classes(rec.position)
    board[_p("a3")] = 0          # the reader misses a soldier
    ctx = _ctx(rec, _reading(board), unconfirmed_start=True)
    out = given_start_position(ctx)
    assert out is not None and out.explanation is not None and out.explanation.moves == []
    assert [(e.status, e.points) for e in out.events] == [("start_mismatch", [_p("a3")])]
    assert given_start_position(_ctx(rec, _reading(board))) is None


def test_a_piece_put_down_between_points_beside_the_read_destination_is_moved_there():
    rec = GameRecord.starting(Position())
    # the cannon h2 went to e2 but lies off the point toward f2; the reader sees e2 and f2 empty
    board = _after(rec.position, "h2e2")
    board[_p("e2")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("f2")] = (-0.7, 0.0)     # a disc seen near f2, nearest e2
    ctx = _ctx(rec, _reading(board, offsets))
    out = off_point_destination_move(ctx) or vanished_piece(ctx)
    assert out is not None and out.between == Move.from_iccs("h2e2")
    assert [m.iccs() for m in out.explanation.moves] == ["h2e2"]


def test_a_capture_read_unsurely_on_its_point_is_not_moved_beside_a_disc_seen_elsewhere():
    # live tuning clip 8326: the cannon that took on b0 read unsurely there (empty the likeliest
    # class at 0.21) while a circle was seen off c7: the victim is gone, so the capture was made
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "b2b9")
    board[_p("b9")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("b6")] = (0.0, 0.45)     # a disc seen off b6, another legal destination of the cannon
    ctx = _ctx(rec, _reading(board, offsets))
    assert [m.iccs() for m in ctx.explanation.moves] == ["b2b9"]
    assert off_point_destination_move(ctx) is None
    out = explain_settle(ctx)
    assert out is not None and [m.iccs() for m in out.explanation.moves] == ["b2b9"]


def test_a_disc_seen_off_a_point_before_the_move_is_not_where_the_moved_piece_went():
    # tuning clip 8348: a circle read off the emptied b7 after black's move was still there when
    # red's cannon went to h2 and read half empty there: not 'b2b7, put down between points'
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "h2e2")
    board[_p("e2")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("f2")] = (-0.7, 0.0)
    assert vanished_piece(_ctx(rec, _reading(board, offsets))) is not None
    stale = _ctx(rec, _reading(board, offsets), offsets_before=offsets + 0.03)
    assert off_point_destination_move(stale) is None and vanished_piece(stale) is None
    moved_on = offsets.copy()
    moved_on[_p("f2")] = (-0.4, 0.3)      # a disc seen there before, but not this one
    assert vanished_piece(_ctx(rec, _reading(board, offsets), offsets_before=moved_on)) is not None


def test_a_disc_half_way_to_a_point_the_piece_cannot_reach_is_put_down_for_the_legal_one():
    # tuning clip 8332: the chariot a0 put down 0.5 spacings beside a1, toward b1 (where a
    # chariot from a0 cannot go): nearest the disc is no point it can reach but a1 is the legal
    # destination beside it, not a piece knocked off a0
    rec = GameRecord.starting(Position(), [Move.from_iccs(m) for m in ("b0c2", "b9c7")])
    board = _after(rec.position, "a0a1")
    board[_p("a1")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("a1")] = (0.51, 0.09)
    offsets[_p("b1")] = (-0.49, 0.09)
    ctx = _ctx(rec, _reading(board, offsets), covered=["a1", "b1", "a0"])
    out = explain_settle(ctx)
    assert out is not None and out.step == "vanished_piece" and out.between == Move.from_iccs("a0a1")
    # a disc about as far from a1 as from a2 (held-back 8832, moved to tuning: a cannon put down
    # 0.49 off b5, its disc measured 0.51 from b5 and 0.53 from b4): the piece that vanished is
    # that disc, put down for the nearer point; a best move read elsewhere is not moved onto a tie
    offsets[:] = 0
    offsets[_p("a1")] = (0.0, 0.52)
    offsets[_p("a2")] = (0.0, -0.49)
    assert off_point_destination_move(_ctx(rec, _reading(board, offsets))) is None
    out = vanished_piece(_ctx(rec, _reading(board, offsets)))
    assert out is not None and out.between == Move.from_iccs("a0a2")


def test_a_circle_by_the_vacated_point_does_not_hide_the_disc_by_the_destination():
    # held-back 8837 (moved to tuning): the cannon h7 put down 0.49 off h2, and a circle read 0.59
    # from g7 and 0.62 from the emptied h7 itself: two candidate destinations, so none was taken,
    # the move went unrecorded and the reply was called illegal. A disc about as near the piece's
    # own point as any destination says nothing of where it went.
    rec = GameRecord.starting(Position(), [Move.from_iccs("h2e2")])
    board = _after(rec.position, "h7h2")
    board[_p("h2")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("h2")] = (0.04, 0.44)
    offsets[_p("h3")] = (0.03, -0.56)
    offsets[_p("g7")] = (0.49, 0.34)
    out = vanished_piece(_ctx(rec, _reading(board, offsets)))
    assert out is not None and out.between == Move.from_iccs("h7h2")
    # the circle alone, nearer g7 than h7 by more than a measurement's noise: the cannon went to g7
    offsets[_p("h2")] = offsets[_p("h3")] = 0.0
    offsets[_p("g7")] = (0.3, 0.1)
    out = vanished_piece(_ctx(rec, _reading(board, offsets)))
    assert out is not None and out.between == Move.from_iccs("h7g7")


def test_a_moved_piece_read_as_another_own_kind_at_its_destination_is_still_that_move():
    rec = GameRecord.starting(Position())
    # the cannon h2 goes to f2, where a set the model reads poorly shows a chariot; a disc of
    # another piece is seen off the points near h3 (where the hand rested): the cannon was not
    # put down between points there (tuning clip 8325)
    board = _after(rec.position, "h2f2")
    board[_p("f2")] = board[_p("a0")]            # read as a red chariot
    offsets = np.zeros((90, 2))
    offsets[_p("h3")] = (0.0, -0.45)
    ctx = _ctx(rec, _reading(board, offsets), covered=["h2", "h3", "g3"])
    assert off_point_destination_move(ctx) is None     # a piece is read there: it was put down there
    out = explain_settle(ctx)
    assert out is not None and out.step == "legal_moves" and out.between is None
    assert [m.iccs() for m in out.explanation.moves] == ["h2f2"]


def test_a_piece_gone_with_a_hand_beside_it_is_knocked_off_and_the_position_kept():
    rec = GameRecord.starting(Position())
    board = board_classes(rec.position)
    board[_p("a3")] = 0
    ctx = _ctx(rec, _reading(board), covered=["a2", "b2", "a1"])
    assert legal_moves(ctx) is None and vanished_piece(ctx) is None
    out = knocked_off(ctx)
    assert out is not None and out.explanation.moves == []
    assert [(e.kind, e.points) for e in out.events] == [("knocked", [_p("a3")])]
    assert knocked_off(_ctx(rec, _reading(board))) is None   # no hand near: not an incident


def test_a_move_that_knocks_a_piece_beside_it_off_the_board_is_recorded_with_the_knock():
    rec = GameRecord.starting(Position())
    # the cannon h2 takes the horse h9 and the hand sweeps the soldier i6 off the board
    board = _after(rec.position, "h2h9")
    board[_p("i6")] = 0
    ctx = _ctx(rec, _reading(board), covered=["h8", "h9", "i8", "i7"])
    assert legal_moves(ctx) is None and knocked_off(ctx) is None
    out = move_and_knocked_off(ctx)
    assert out is not None and [m.iccs() for m in out.explanation.moves] == ["h2h9"]
    assert out.explanation.board[_p("i6")] != 0          # kept in the record: the arbiter puts it back
    assert [(e.kind, e.points) for e in out.events] == [("knocked", [_p("i6")])]
    # no hand near the soldier: the board is unexplained, not an incident
    assert move_and_knocked_off(_ctx(rec, _reading(board), covered=["h2", "h1"])) is None
    # two pieces gone besides the move: no single knock explains it
    board[_p("g6")] = 0
    assert move_and_knocked_off(_ctx(rec, _reading(board), covered=["h8", "h9", "i8", "i7", "g7"])) is None


def test_a_piece_pushed_aside_by_a_capture_is_a_knock_not_a_second_ply_nobody_made():
    # tuning clip 8330: the cannon h7 takes the horse h0 and the hand pushes the chariot i0
    # half a point aside; its point reads empty, and "then the chariot took the cannon" (the
    # cannon read on h0 passes for the chariot: same occupancy) explained it as two plies
    rec = GameRecord.starting(Position(), [Move.from_iccs("a0a1")])
    board = _after(rec.position, "h7h0")
    board[_p("i0")] = 0
    beside = np.zeros((90, 2))
    beside[_p("i0")] = (0.45, 0.1)           # the disc the reader sees off the chariot's point
    ctx = _ctx(rec, _reading(board, beside), covered=["h1", "h0", "i1", "g1"])
    assert [m.iccs() for m in ctx.explanation.moves] == ["h7h0", "i0h0"] and ctx.explanation.explains
    out = explain_settle(ctx)
    assert out is not None and out.step == "move_and_knocked_aside"
    assert [m.iccs() for m in out.explanation.moves] == ["h7h0"]
    assert out.explanation.board[_p("i0")] != 0          # kept in the record: the arbiter puts it back
    assert [(e.kind, e.points) for e in out.events] == [("knocked", [_p("i0")])]
    # no disc seen by the chariot's point, but the cannon is read where the chariot would have
    # landed (tuning clip 8312): the same
    plain = _ctx(rec, _reading(board), covered=["h1", "h0", "i1", "g1"])
    assert [m.iccs() for m in plain.explanation.moves] == ["h7h0", "i0h0"]
    assert move_and_knocked_aside(plain) is not None
    # the chariot is read on h0 and no disc by its point: it did take the cannon (two plies)
    board[_p("h0")] = board_classes(rec.position)[_p("i0")]
    both = _ctx(rec, _reading(board), covered=["h1", "h0", "i1", "g1"])
    assert [m.iccs() for m in both.explanation.moves] == ["h7h0", "i0h0"]
    assert move_and_knocked_aside(both) is None
    assert explain_settle(both).step == "legal_moves"


def test_a_recent_move_the_board_shows_was_another_is_corrected():
    rec = GameRecord.starting(Position(), [Move.from_iccs(m) for m in ("h2e2", "h9g7", "a0a2")])
    ctx = _ctx(rec, _reading(_after(Position(), "h2e2", "h9g7", "a0a1")))
    assert legal_moves(ctx) is None
    out = earlier_move_corrected(ctx)
    assert out is not None and out.explanation is None
    assert out.correction.plies_back == 1 and [m.iccs() for m in out.correction.replacement] == ["a0a1"]


def test_inventing_two_plies_loses_to_correcting_one():
    rec = GameRecord.starting(Position(), [Move.from_iccs(m) for m in ("h2e2", "h9g7", "a0a2")])
    ctx = _ctx(rec, _reading(_after(Position(), "h2e2", "h9g7", "a0a1", "b9c7")))
    # from the record, the board is explained only by two plies (b9c7, then a2a1 nobody made)
    assert [m.iccs() for m in ctx.explanation.moves] == ["b9c7", "a2a1"]
    out = fewer_plies_by_correction(ctx)
    assert out is not None and out.correction is not None and out.explanation is ctx.explanation
    assert [m.iccs() for m in out.correction.replacement] == ["a0a1"]
    assert [m.iccs() for m in out.correction.after.moves] == ["b9c7"]
    assert explain_settle(ctx).step == "fewer_plies_by_correction"


def test_locked_plies_are_never_corrected():
    rec = GameRecord.starting(Position(), [Move.from_iccs(m) for m in ("h2e2", "h9g7", "a0a2")])
    reading = _reading(_after(Position(), "h2e2", "h9g7", "a0a1"))
    assert find_correction(rec.position, 0, reading.evidence, CorrectorConfig()) is None
    assert find_correction(rec.position, 1, reading.evidence, CorrectorConfig()) is not None


def test_nothing_explains_a_board_with_a_piece_gone_and_no_hand():
    rec = GameRecord.starting(Position())
    board = board_classes(rec.position)
    board[_p("a3")] = 0
    assert explain_settle(_ctx(rec, _reading(board))) is None


# ---------------------------------------------------------------- the settle window
def _frame(i: int, quiet: bool = True, covered: tuple[int, ...] = (), board: np.ndarray | None = None) -> Frame:
    b = board_classes(Position()) if board is None else board
    probs = np.full((90, 15), 0.002, dtype=np.float32)
    probs[np.arange(90), b] = 1.0 - 14 * 0.002
    occ = np.zeros(90, bool)
    occ[list(covered)] = True
    return Frame(i * 0.04, i, quiet, occ, probs, np.zeros((90, 2), dtype=np.float32))


def test_the_window_settles_quiet_after_enough_clean_frames():
    w = SettleWindow(WindowConfig())
    kinds = []
    for i in range(5):
        w.extend(_frame(i))
        kinds.append(w.settle_kind())
    assert kinds[:2] == [None, None] and SettleKind.QUIET in kinds
    assert len(w.settled_frames(SettleKind.QUIET)) == w.clean_tail()


def test_a_one_frame_flicker_does_not_restart_the_window_but_a_lasting_change_does():
    w = SettleWindow()
    moved = _after(Position(), "h2e2")
    for i in range(3):
        w.extend(_frame(i))
    w.extend(_frame(3, board=moved))
    w.extend(_frame(4))
    assert len(w) == 5
    w.extend(_frame(5, board=moved))
    w.extend(_frame(6, board=moved))
    assert len(w) == 2


def test_a_held_window_waits_for_its_hold():
    w = SettleWindow()
    w.hold(1.0)
    for i in range(10):
        w.extend(_frame(i))
        assert w.settle_kind() is None
    for i in range(10, 30):
        w.extend(_frame(i))
    assert w.settle_kind() == SettleKind.QUIET


def test_an_arm_resting_at_the_edge_settles_as_a_rest():
    w = SettleWindow()
    kinds = [None]
    for i in range(30):
        w.extend(_frame(i, quiet=False, covered=(0, 1)))
        kinds.append(w.settle_kind())
    assert SettleKind.REST in kinds and SettleKind.QUIET not in kinds


def test_a_reading_averages_only_the_frames_a_point_was_seen_in():
    frames = [_frame(0), _frame(1, covered=(5,))]
    r = read_frames(frames)
    assert not r.evidence.visible[5] and r.evidence.visible[4]


# ---------------------------------------------------------------- the game record
@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=12))
def test_playing_moves_then_taking_them_back_leaves_the_record_as_it_was(choices):
    rec = GameRecord.starting(Position())
    fen0, counts0 = rec.position.fen(), dict(rec.counts)
    played = []
    for c in choices:
        legal = rec.position.legal_moves()
        if not legal:
            break
        m = legal[c % len(legal)]
        out = rec.play(m, float(len(played)))
        assert out.side == Side.from_fen("w" if len(played) % 2 == 0 else "b")
        assert out.occurrences == rec.counts[rec.position.zobrist_hash()] >= 1
        played.append(m)
    assert rec.ply == len(played) == len(rec.move_times)
    for m in reversed(played):
        assert rec.take_back() == m
    assert rec.position.fen() == fen0 and rec.counts == counts0 and rec.moves == [] and rec.move_times == []


def test_a_resumed_record_has_no_times_and_counts_its_positions():
    moves = [Move.from_iccs(m) for m in ("h2e2", "h9g7", "e2h2", "g7h9")]
    rec = GameRecord.starting(Position(), moves)
    assert rec.move_times == [None] * 4 and rec.counts[rec.position.zobrist_hash()] == 2


@pytest.mark.parametrize("state, word", [(SyncState.IN_SYNC, "in_sync"), (SyncState.OUT_OF_SYNC, "out_of_sync"),
                                         (SyncState.ILLEGAL, "illegal")])
def test_sync_states_keep_their_words(state, word):
    assert state == word and f"{state}" == word and state.replace("_", " ") == word.replace("_", " ")


def test_a_capture_whose_point_reads_as_it_did_before_gives_way_to_a_disc_seen_off_another_destination():
    """Held-back 8900 (moved to tuning): on a board seen small, the cannon h2 was put down 0.4
    spacings off h1, and the horse on h9 (read unsurely all game, as a red soldier the likeliest)
    passed for the cannon having taken it: the record went wrong at ply 1 and stayed wrong. The
    point h9 read as it had at the last settle; the disc off h1 is the cannon."""
    rec = GameRecord.starting(Position())
    board = board_classes(rec.position)
    board[_p("h2")] = 0
    probs = np.full((90, 15), 0.002)
    probs[np.arange(90), board] = 1.0 - 14 * 0.002
    h9 = _p("h9")
    probs[h9] = 0.002
    probs[h9, [7, 6, 11]] = (0.4, 0.29, 0.29)     # a red soldier likeliest, then the cannon and the horse
    offsets = np.zeros((90, 2))
    offsets[_p("h1")] = (0.38, 0.1)               # a disc seen off h1
    ctx = _ctx(rec, SettleReading(Evidence(log_readings(probs), np.ones(90, bool)), offsets))
    assert [m.iccs() for m in ctx.explanation.moves] == ["h2h9"] and ctx.explanation.explains
    ctx.episode.before.observed = np.where(np.arange(90) == h9, 7, board_classes(rec.position))
    out = off_point_destination_move(ctx)
    assert out is not None and out.between == Move.from_iccs("h2h1")
    # a reading that changed there since the last settle may be the capture
    ctx.episode.before.observed = board_classes(rec.position)
    assert off_point_destination_move(ctx) is None
    # and so may a face unlike the one read there before, whatever class the model names (tuning
    # 8394: a paper set's soldier read as a cannon, then the cannon that took it); a face as it was
    # leaves the capture unseen
    ctx.episode.before.observed = np.where(np.arange(90) == h9, 7, board_classes(rec.position))
    faces = np.zeros((90, 4), np.float32)
    faces[:, 0] = 1.0
    ctx.episode.before.looks = faces
    ctx.looks = faces.copy()
    out = off_point_destination_move(ctx)
    assert out is not None and out.between == Move.from_iccs("h2h1")
    ctx.looks[h9] = (0.0, 1.0, 0.0, 0.0)
    assert off_point_destination_move(ctx) is None


def test_moves_whose_destination_and_a_knocked_piece_read_empty_beside_their_discs_are_recorded_with_both():
    """Held-back 8904 (moved to tuning): a cannon's capture put down 0.4 off its point and a
    piece the hand pushed 0.33 off its own, both read empty with their discs seen beside them:
    the move is recorded, put down between points, and the other piece knocked."""
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "b2b9")
    board[_p("b9")] = 0                 # the cannon lies off b9
    board[_p("c9")] = 0                 # the elephant pushed off c9
    offsets = np.zeros((90, 2))
    offsets[_p("b9")] = (0.05, 0.41)
    offsets[_p("c9")] = (-0.1, 0.33)
    ctx = _ctx(rec, _reading(board, offsets), covered=("b9", "c9", "b8"))
    assert [m.iccs() for m in ctx.explanation.moves] == ["b2b9"] and sorted(ctx.explanation.residual) == [_p("b9"), _p("c9")]
    out = explain_settle(ctx)
    assert out is not None and out.step == "moves_with_discs_off_points"
    assert out.between == Move.from_iccs("b2b9") and [m.iccs() for m in out.explanation.moves] == ["b2b9"]
    assert [(e.kind, e.points) for e in out.events] == [("knocked", [_p("c9")])]
    # no disc seen by the elephant's point: the board is not explained so
    offsets[_p("c9")] = 0.0
    assert moves_with_discs_off_points(_ctx(rec, _reading(board, offsets), covered=("b9", "c9", "b8"))) is None
    # nor with the hand nowhere near the elephant
    offsets[_p("c9")] = (-0.1, 0.33)
    assert moves_with_discs_off_points(_ctx(rec, _reading(board, offsets), covered=("h2",))) is None


def test_one_disc_half_way_between_two_points_seen_from_both_is_put_down_for_the_nearer():
    """Tuning 8387: a cannon left between c7 and d7 was seen 0.41 off c7 and 0.47 off d7, nearest
    c7 from one and d7 from the other; two candidates, neither taken, and the move was 'knocked
    off the board'. The two sightings are one disc, at their mean."""
    rec = GameRecord.starting(Position())
    board = board_classes(rec.position)
    board[_p("h2")] = 0                 # the cannon left h2 and reads on no point
    offsets = np.zeros((90, 2))
    offsets[_p("c2")] = (0.40, 0.10)
    offsets[_p("d2")] = (-0.46, -0.10)
    out = vanished_piece(_ctx(rec, _reading(board, offsets)))
    assert out is not None and out.between == Move.from_iccs("h2c2")
    # two discs well apart are two candidates: none is taken
    offsets[_p("d2")] = (0.0, 0.45)
    assert vanished_piece(_ctx(rec, _reading(board, offsets))) is None


def _soldier_half_way_from_i3_to_i4(rec: GameRecord) -> SettleReading:
    """The red soldier i3 put down half way to i4: i3 reads empty, but too unsurely to contradict
    the record; the one disc is seen 0.50 off i3 and 0.49 off i4 (held-back 8942, moved to tuning)."""
    board = board_classes(rec.position)
    reading = _reading(board)
    probs = np.exp(reading.evidence.logp)
    probs[_p("i3")] = 0.002
    probs[_p("i3"), 0], probs[_p("i3"), board[_p("i3")]] = 0.5, 0.472
    offsets = np.zeros((90, 2))
    offsets[_p("i3")] = (0.07, 0.50)
    offsets[_p("i4")] = (0.07, -0.49)
    return SettleReading(Evidence(log_readings(probs), np.ones(90, bool)), offsets)


def test_a_piece_of_the_side_to_move_seen_half_way_to_an_empty_point_it_may_go_to_is_moved_there():
    rec = GameRecord.starting(Position())
    reading = _soldier_half_way_from_i3_to_i4(rec)
    ctx = _ctx(rec, reading, covered=("i3", "i4"))
    assert ctx.explanation.explains and not ctx.explanation.moves    # nothing reads as changed
    out = explain_settle(ctx)
    assert out is not None and out.step == "moved_half_way"
    assert out.between == Move.from_iccs("i3i4") and [m.iccs() for m in out.explanation.moves] == ["i3i4"]


def test_a_disc_half_way_is_no_move_without_a_hand_or_when_it_lay_there_before_or_is_the_other_sides():
    rec = GameRecord.starting(Position())
    reading = _soldier_half_way_from_i3_to_i4(rec)
    assert moved_half_way(_ctx(rec, reading)) is None                     # no hand came
    assert moved_half_way(_ctx(rec, reading, covered=("i3", "i4"), offsets_before=reading.offsets)) is None
    black = GameRecord.starting(Position(), [Move.from_iccs("h2e2")])     # black to move: the soldier is red's
    assert moved_half_way(_ctx(black, _soldier_half_way_from_i3_to_i4(black), covered=("i3", "i4"))) is None
    # two discs well apart (not one disc seen from both points): no move
    far = _soldier_half_way_from_i3_to_i4(rec)
    far.offsets[_p("i4")] = (-0.45, 0.0)
    assert moved_half_way(_ctx(rec, far, covered=("i3", "i4"))) is None


def test_a_move_read_unsurely_beside_a_sure_knock_is_recorded_with_the_knock_not_the_knock_alone():
    # held-back 9110 of stop 35, moved to tuning: black's cannon took the soldier a3 and knocked
    # red's cannon b2 off; the capture read as a piece where a piece was (no contradiction) and
    # the emptied point read unsurely, so only the knock contradicted the record. a7a3 explained
    # all but b2, yet only the knock was recorded and the move was lost.
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "h2h9")
    board[_p("i6")] = 0
    reading = _reading(board)
    probs = np.exp(reading.evidence.logp)
    probs[_p("h2")] = 0.002
    probs[_p("h2"), 0] = 0.6                              # the emptied point read unsurely
    probs[_p("h2"), board_classes(rec.position)[_p("h2")]] = 0.3
    ctx = _ctx(rec, SettleReading(Evidence(log_readings(probs), np.ones(90, bool)), reading.offsets),
               covered=["h8", "h9", "i8", "i7"])
    assert ctx.evidence.contradictions(board_classes(rec.position), ctx.cfg.explain.contradiction) == [_p("i6")]
    assert [m.iccs() for m in ctx.explanation.moves] == ["h2h9"] and ctx.explanation.residual == [_p("i6")]
    assert knocked_off(ctx) is not None                   # the knock alone, as the step before saw it
    out = explain_settle(ctx)
    assert out is not None and out.step == "move_and_knocked_off"
    assert [m.iccs() for m in out.explanation.moves] == ["h2h9"]
    assert [(e.kind, e.points) for e in out.events] == [("knocked", [_p("i6")])]


def test_of_two_discs_off_the_points_the_one_the_movers_hand_put_down_names_the_vanished_pieces_place():
    # held-back 9130 of stop 35, moved to tuning: red's cannon left half way between b2 and c2
    # where the hand rested, and a circle read in the river where no hand came; neither was
    # taken, the cannon was 'knocked off the board' and black's reply lost
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "b2b5")
    board[_p("b5")] = 0
    offsets = np.zeros((90, 2))
    offsets[_p("b5")] = (0.5, 0.0)                        # the cannon, half way to c5
    offsets[_p("c5")] = (-0.5, 0.0)
    offsets[_p("e2")] = (0.0, 0.5)                        # a circle half way to e3, by no hand
    reading = _reading(board, offsets)
    assert vanished_piece(_ctx(rec, reading)) is None     # two discs, no hand: neither
    out = vanished_piece(_ctx(rec, reading, covered=["b0", "b1", "b2", "b3", "b4", "b5"]))
    assert out is not None and out.between == Move.from_iccs("b2b5")
    assert vanished_piece(_ctx(rec, reading, covered=["e0", "e1", "e2"])).between == Move.from_iccs("b2e2")


def test_a_knock_is_in_view_only_with_a_fresh_disc_beside_the_one_point_gone_and_a_hand_near():
    rec = GameRecord.starting(Position())
    board = _after(rec.position, "h0g2")
    board[_p("g3")] = 0                                  # the soldier knocked aside, read empty
    off = np.zeros((90, 2))
    off[_p("f3")] = (0.62, 0.02)                         # its disc seen from the empty f3, 0.38 off g3
    hand = ["h1", "g2", "g3", "h2"]

    def in_view(offsets: np.ndarray, covered: Sequence[str] = hand, before: np.ndarray | None = None,
                read: np.ndarray = board) -> bool:
        ctx = _ctx(rec, _reading(read, offsets), covered=covered, offsets_before=before)
        return knock_in_view(rec.position, ctx.reading, ctx.explanation, ctx.episode, None, ctx.cfg, before)

    assert in_view(off)
    assert not in_view(np.zeros((90, 2)))                # no disc seen: a hand the detector missed may be there
    assert not in_view(off, before=off)                  # the disc lay there before the move
    assert not in_view(off, covered=["a9", "b9"])        # no hand came near the soldier
    far = np.zeros((90, 2))
    far[_p("e3")] = (0.5, 0.0)                           # a disc by e3, 1.5 points from g3
    assert not in_view(far)
    two_gone = board.copy()
    two_gone[_p("c3")] = 0
    assert not in_view(off, read=two_gone)               # more than the one point unexplained
    # the moved piece itself, put down beside its destination: between points, not a knock
    # (a capture no piece can answer: the cannon e2 takes the soldier e6 over e3)
    bare = GameRecord.starting(Position.from_fen("4k4/9/9/4p4/9/9/4P4/4C4/9/4K4 w - - 0 1"))
    took = _after(bare.position, "e2e6")
    took[_p("e6")] = 0
    by_e6 = np.zeros((90, 2))
    by_e6[_p("e5")] = (0.0, 0.6)                         # the cannon's disc, 0.4 short of e6
    ctx = _ctx(bare, _reading(took, by_e6), covered=["e4", "e5", "e6"])
    assert [m.iccs() for m in ctx.explanation.moves] == ["e2e6"]
    short = dataclasses.replace(ctx.explanation, residual=[_p("e6")])   # as tuning 9202 read it
    assert not knock_in_view(bare.position, ctx.reading, short, ctx.episode, None, ctx.cfg, None)
    # a piece the side to move can take, lifted first: a capture under way, not a knock
    victim = _after(rec.position, "h0g2")
    victim[_p("b0")] = 0                                 # black's cannon b7 takes the horse b0 over b2
    by_b0 = np.zeros((90, 2))
    by_b0[_p("b1")] = (0.0, -0.62)                       # its disc seen from the empty b1
    assert not in_view(by_b0, covered=["b0", "b1", "c1"], read=victim)
