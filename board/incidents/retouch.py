"""Re-touch (`retouch`): once a player has released a moved piece, they may not touch it again
before the opponent moves. Physically: in a stretch of hands with no move of its own, after the
last move settled and before the opponent's reply, the last mover's hand rested on the piece it
had just put down, or moved that disc measurably while covering it, or changed its face alone of
all pieces.

Not a re-touch: putting right a disc left between points (what the arbiter wants); a short rest
that left the piece's face exactly as it was (a hand hovering over it; a real re-touch turns the
disc at least a little); a change made while the other player's hand lay over it longer; and a
rest read at the far end of the other player's arm reaching across the whole board (only a hand
that came in over the last mover's own edge counts).
"""
from __future__ import annotations

from ..episode import Dwell
from ..events import IncidentEvent, point_name
from .facts import (Findings, IncidentMemory, LastMove, SettleFacts, disc_shift, evidence_frames, face_unchanged,
                    handled_piece)
from .hand import dwell_on, other_hand_longer
from .weigh import Candidate, hand_signals


def retouch(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """The last mover's hand rests on the piece it just released (or moves it measurably),
    before the opponent's move (an episode with no move of its own). Putting right a disc left
    between points is what the arbiter wants, not a re-touch."""
    last = mem.last_move
    if last is None or s.moves or last.to_sq in mem.between_reported:
        return
    # only the last mover's own hand, not the far end of the other player's arm reaching over the
    # whole board: an arm reaching from one edge to the other is read, at its far end, as the
    # other side's hand, its tip resting over the piece just put down there, whose face changes a
    # little under the arm
    hit = dwell_on(s.cfg, s.episode, last.side, last.to_sq, by_entry=True)
    shifted = disc_shift(s, last.to_sq) >= s.cfg.touch and s.episode.occluded_frames[last.to_sq] > 0
    # its face, alone of all pieces, no longer matches itself after a hand covered it a while
    # (a disc turned under the fingers with no rest read, pushed less than a touch's offset)
    handled = handled_piece(s) == last.to_sq
    hovered = None
    if hit is not None and not shifted and not handled and face_unchanged(s, last.to_sq):
        # fingertips read resting over it, and the piece read again exactly as it was: the hand
        # hovered over it (every re-touch measured on the bench changed the piece's face 0.11 or
        # more; a hand hovering leaves it exactly as it was)
        hovered, hit = hit, None
    if hit is None and not shifted and not handled:
        if hovered is not None:
            # put down to a hand hovering: weighed for a review note, not an accusation
            found.candidates.append(Candidate(_retouch_event(s, last, hovered),
                                              hand_signals(s, last.side, last.to_sq, hovered, rules=False), "hovered"))
        return
    if hit is None and other_hand_longer(s.episode, last.side, last.to_sq):
        # moved or changed with no rest of the last mover's on it, while the other player's hand
        # lay over it longer: that hand did it (the opponent capturing the piece just put down,
        # the capture not yet read)
        return
    ev = _retouch_event(s, last, hit)
    signals = hand_signals(s, last.side, last.to_sq, hit)
    ev.extra["signals"] = signals.to_dict() if signals is not None else None   # None: the rules alone decide
    found.events.append(ev)
    mem.last_move = None


def _retouch_event(s: SettleFacts, last: LastMove, hit: Dwell | None) -> IncidentEvent:
    """The re-touch incident of the piece `last` put down (`hit`: the rest read on it, if any)."""
    frames = evidence_frames(s.cfg, s.episode, s.after, last.to_sq)
    if hit is not None:
        frames["during"] = (hit.frame_start + hit.frame_end) // 2
    return IncidentEvent(s.t, s.ply, "retouch", last.side, [last.to_sq],
                         f"{last.side} touched the piece on {point_name(last.to_sq)} again after "
                         f"releasing it (move {last.ply})", frames=frames)
