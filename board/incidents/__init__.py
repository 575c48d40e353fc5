"""Incident rules: what an arbiter needs to see, decided at each settle.

The camera cannot see fingers touch a disc, so the evidence is the hand's behaviour, the discs'
positions and their faces (a touched disc is usually turned or pushed a little: its look,
vision.looks, no longer matches itself). A hand reaching for a piece slows down and rests on it;
an arm sweeping over the board does not rest, and mere occlusion is never an incident.

One module per incident, each stating the physical rule it judges (the side named is the player
whose hand it was):
- touch.py, touch_move_other: the mover rested a hand on another of its own unmoved pieces
  before picking up the piece it moved, or handled one so that its face alone changed.
- retouch.py, retouch: after a move settled, before the opponent's move, the mover's hand rested
  on the piece it had released, moved it measurably, or changed its face alone of all pieces.
- knock.py, knocked: an unmoved disc moved `knock` spacings or more (relative to the common drift
  of all discs), its face changed where it was read again; or it no longer reads as a piece.
- between.py, between_points: a disc settled more than `between` spacings off its point.
- illegal.py, illegal_move: judged by the tracker (board/tracker.py) from the physical
  displacement, stated here.
- repetition: built by the tracker from rules.repetition.adjudicate.
Shared parts: facts.py (thresholds, a settle's facts, the memory between settles, the measures of
a disc and its face) and hand.py (where a hand rests and whose it is); tracker.py applies the
rules in order (`RULES`: later rules read what earlier ones found) and keeps their memory.
Pure logic, no I/O.
"""
from __future__ import annotations

from .between import between_points, between_restated, between_text, points_between, put_down_between_event
from .facts import (FaceChanges, Findings, IncidentConfig, IncidentMemory, IncidentRule, LastMove, PendingKnock,
                    PendingTouch, SettleFacts, being_put_right, common_drift, covered_seconds, disc_place, disc_shift,
                    discs_centre, evidence_frames, face_change, face_kept, face_unchanged, face_unread, handled_piece,
                    king_steps, look_change, median_face_change, off_centre, off_point, orthogonal_steps, own_piece,
                    piece_label, point_face_change, side_of_class, turned_beyond_noise, was_between)
from .hand import (contacts, covered_during, dwell_on, other_hand_longer, released_at, steady_rests, tips,
                   under_fingers_seconds)
from .illegal import illegal_move_event
from .knock import (back_where_clear, confirm_faded_knocks, faded, farther_off, knocked, knocked_face,
                    knocked_off_event, move_under_way, put_back, remember_clear_offsets, touched_own)
from .retouch import retouch
from .touch import (MAX_PLIES_FOR_TOUCH, MoverRests, PutRightReach, RestOrder, RestsBeforePickUp, Touch,
                    beside_displaced_disc, handled_before_move, handled_instead, handled_without_rest, hovered,
                    judge_touch, pick_up_read_short, picked_up_in_own_rest, put_right_reach, rest_a_point_off,
                    touch_move, touched_before_move, victim_set_down_beside)
from .tracker import RULES, IncidentTracker, remember_last_move, void_after_correction

__all__ = [
    # facts.py
    "FaceChanges", "Findings", "IncidentConfig", "IncidentMemory", "IncidentRule", "LastMove", "PendingKnock",
    "PendingTouch", "SettleFacts", "being_put_right", "common_drift", "covered_seconds", "disc_place", "disc_shift",
    "discs_centre", "evidence_frames", "face_change", "face_kept", "face_unchanged", "face_unread", "handled_piece",
    "king_steps", "look_change", "median_face_change", "off_centre", "off_point", "orthogonal_steps", "own_piece",
    "piece_label", "point_face_change", "side_of_class", "turned_beyond_noise", "was_between",
    # hand.py
    "contacts", "covered_during", "dwell_on", "other_hand_longer", "released_at", "steady_rests", "tips",
    "under_fingers_seconds",
    # touch.py
    "MAX_PLIES_FOR_TOUCH", "MoverRests", "PutRightReach", "RestOrder", "RestsBeforePickUp", "Touch",
    "beside_displaced_disc", "handled_before_move", "handled_instead", "handled_without_rest", "hovered",
    "judge_touch", "pick_up_read_short", "picked_up_in_own_rest", "put_right_reach", "rest_a_point_off",
    "touch_move", "touched_before_move", "victim_set_down_beside",
    # retouch.py
    "retouch",
    # knock.py
    "back_where_clear", "confirm_faded_knocks", "faded", "farther_off", "knocked", "knocked_face",
    "knocked_off_event", "move_under_way", "put_back", "remember_clear_offsets", "touched_own",
    # between.py
    "between_points", "between_restated", "between_text", "points_between", "put_down_between_event",
    # illegal.py
    "illegal_move_event",
    # tracker.py
    "RULES", "IncidentTracker", "remember_last_move", "void_after_correction",
]
