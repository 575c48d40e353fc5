"""Knocked (`knocked`): a hand displaced a piece it did not move. Physically, one of:
- an unmoved disc moved `knock` spacings or more, relative to the common drift of all discs (a
  camera re-lock moves them all), farther from its point than it was, its face changed where it
  was read again: a knock turns and pushes a disc, so a disc measured in a new place with its face
  as it was was measured differently, not moved;
- a disc moved less than that but more than a touch pushes one, its face turned as a knock turns
  a disc and far more than any other face (`knocked_face`): the offset was measured short. The
  mover's hand has no business on the opponent's pieces it does not take, so one of those turned
  alone and moved at all was knocked;
- a disc that read clearly now reads largely as an empty point with a hand near it (`faded`: a
  disc half off its point is half an empty crop to the reader); since a hand the detector missed
  fades a reading too, it is reported only when the next settle still reads it so
  (`confirm_faded_knocks`).
Not a knock: a disc being put right, the piece just re-touched by its player, a disc of the side
to move lying toward a point it may move to (that move under way), and a disc read unsurely once
that is back where it sat when last read clearly (that reading was the odd one). A knocked disc is
reported once, and is news again only once back on its point.

A piece knocked clean off its point (gone, with no legal move to explain it) is decided by the
settle chain (board.settle.knocked_off) and stated here (`knocked_off_event`).
"""
from __future__ import annotations

import numpy as np

from rules import Side

from ..episode import Settled, dwells
from ..events import IncidentEvent, point_name
from ..explain import CLASS_LETTERS, EMPTY
from .facts import (Findings, IncidentConfig, IncidentMemory, PendingKnock, SettleFacts, being_put_right, disc_shift,
                    evidence_frames, face_change, face_kept, king_steps, piece_label, side_of_class)
from .hand import tips


def farther_off(s: SettleFacts, p: int) -> bool:
    """The disc on p sits farther from its point after the settle than before (the common drift
    taken off). A knock pushes a disc off its point; a disc measured a little differently once a
    hand has passed over it moves either way (untouched discs re-measured after a hand passed
    seem to move a knock's worth toward their points)."""
    before = float(np.linalg.norm(s.before.offsets[p]))
    after = float(np.linalg.norm(s.after.offsets[p] - s.drift))
    return after > before


def knocked_face(s: SettleFacts, p: int) -> bool:
    """The face of the disc on p changed as a knock changes one (`knocked_look`) and by
    `handled_standout` times more than any other unmoved disc read again: that disc alone turned."""
    faces, cfg = s.faces, s.cfg
    if faces is None or not faces.change[p] >= cfg.knocked_look:
        return False
    # a disc measured well off where it was has a face changed by its own move (put right, or
    # knocked itself), which says nothing of how much faces change anyway (a hand that knocks one
    # disc while putting another right turns both faces alike: the knocked one must still count
    # as alone)
    steady = faces.steady & (np.arange(90) != p)
    steady &= np.array([not steady[q] or disc_shift(s, q) < cfg.knock for q in range(90)])
    others = faces.change[steady]
    return not others.size or faces.change[p] >= cfg.handled_standout * float(others.max())


def move_under_way(s: "SettleFacts", p: int) -> bool:
    """No move was recorded, and the disc on p, a piece of the side to move, lies `under_way` or
    more off its point toward an empty point it may legally move to: its player has made that
    move and left the piece between points, or the reading has not caught up with it yet; the
    move's own settle judges it. Calling it knocked accuses the player of knocking a piece that
    was being moved (a piece put down half way to the point it moves to, read unsurely on both
    points, seems knocked half a spacing off its place)."""
    if s.moves or not s.after.visible[p]:
        return False
    c = int(s.before.classes[p])
    if c == EMPTY or not Side.from_fen(s.before_pos.turn).owns(CLASS_LETTERS[c]):
        return False
    off = np.asarray(s.after.offsets[p], np.float64) - s.drift
    size = float(np.linalg.norm(off))
    if size < s.cfg.under_way:
        return False
    for m in s.before_pos.legal_moves():
        if m.from_sq != p or s.before_pos.piece_at(m.to_sq) is not None:
            continue
        way = np.array([m.to_sq % 9 - p % 9, m.to_sq // 9 - p // 9], np.float64)
        if float(off @ way) >= s.cfg.under_way_cos * size * float(np.linalg.norm(way)):
            return True
    return False


def put_back(cfg: IncidentConfig, after: Settled, p: int) -> bool:
    """A knocked disc is back: seen, read as a piece, and clearly on its point (less than `put_back`
    off; a reading just under `knock` is that knocked disc measured a little differently)."""
    return bool(after.visible[p] and after.empty_prob is not None and after.empty_prob[p] < cfg.faded_empty
                and np.max(np.abs(after.offsets[p])) < cfg.put_back)


def faded(s: SettleFacts, p: int) -> bool:
    """A disc that read clearly before and now reads largely as an empty point,
    with the hand over it or beside a moved point: pushed off its point (a disc
    half off its point is half an empty crop to the reader)."""
    before, after = s.before, s.after
    if before.empty_prob is None or after.empty_prob is None:
        return False
    if not (before.visible[p] and after.visible[p]):
        return False
    was_clear = before.empty_prob[p] < 0.1 and before.ref_prob[p] >= s.cfg.clear_read
    now_empty = after.empty_prob[p] >= s.cfg.faded_empty
    hand_near = s.episode.occluded_frames[p] > 0 or any(king_steps(p, q) <= 2 for q in s.moved_points)
    return bool(was_clear and now_empty and hand_near)


def confirm_faded_knocks(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """Knocks seen as a faded reading at the last settle: confirmed if it still reads so; a disc
    covered now is judged at a later settle; one that reads as a piece again was not knocked."""
    after, moved = s.after, s.moved_points
    still = []
    for k in mem.pending_faded:
        p, c = k.point, k.piece_class
        if int(after.classes[p]) == c and p not in moved and after.visible[p] \
                and after.empty_prob is not None and after.empty_prob[p] >= s.cfg.faded_empty:
            found.events.append(k.event)
            mem.knocked_reported.add(p)   # once reported, the same disc is no news until put back
        elif not after.visible[p] and int(after.classes[p]) == c:
            still.append(k)
    mem.pending_faded = still


def knocked(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """Unmoved discs knocked by the hand of this episode: displaced `knock` spacings or more
    (reported now), or no longer reading as a piece (reported if the next settle agrees)."""
    cfg, before, after = s.cfg, s.before, s.after
    moved = s.moved_points
    mem.knocked_reported -= moved          # a disc moved on from there is no longer that knocked disc
    pending = {k.point for k in mem.pending_faded}
    for p in range(90):
        c = int(before.classes[p])
        if c == EMPTY or p in moved or int(after.classes[p]) != c:
            continue
        if mem.last_move is not None and p == mem.last_move.to_sq and not s.moves:
            continue
        if any(e.kind == "retouch" and p in e.points for e in found.events):
            # the piece its player touched again at this settle (the re-touch forgets the last
            # move): moved by that hand, reported as that (a re-touch often pushes the disc a
            # knock's worth, and one hand's act is one incident)
            continue
        if being_put_right(s, mem, p):
            continue   # a disc left between points being put right is not knocked
        if move_under_way(s, p):
            continue
        if p in mem.knocked_reported:
            # reported already: reading clearly again, or moving on, it is the same knocked disc
            # (a faded one read again where it lies, one being put right); news again once back
            # on its point
            if put_back(cfg, after, p):
                mem.knocked_reported.discard(p)
            continue
        # the offset of a disc the reader hardly recognised is a guess (a rim fitted to the wrong
        # circle jumps by ~0.2 spacings): only a disc read clearly before can be seen knocked,
        # or one whose face changed as a knock changes it (a knocked disc may be read unsurely
        # before, yet its face, turned by the knock, changes completely)
        if before.ref_prob[p] < cfg.clear_read and back_where_clear(s, mem, p):
            # read unsurely at the last settle and now where it sat when last read clearly: that
            # reading was the odd one out, measured under a hand's edge or shadow, and the disc
            # never moved (a hand's edge or shadow over a disc beside it can make one settle read
            # it unsurely, its offset and face both off; at the next settle it reads as before)
            continue
        trusted = before.ref_prob[p] >= cfg.clear_read or face_change(s, p) >= cfg.knocked_look
        shift = disc_shift(s, p) if trusted else 0.0
        if shift >= cfg.knock and not farther_off(s, p):
            shift = 0.0   # measured nearer its point than before: re-measured or put right, not knocked off
        if shift >= cfg.knock and face_kept(s, p):
            shift = 0.0   # measured differently, not moved
        # measured short of a knock but farther than a touch pushes a disc, its face turned as a
        # knock turns one and far more than any other piece's: knocked, the offset measured short
        # (a disc knocked 0.4 spacings off can be measured at half that, its face changed
        # completely; a relock or a change of light changes every face alike)
        # The mover's hand has no business on the opponent's pieces it does not take: one turned
        # so, alone, and moved at all was knocked too (an opponent's disc knocked a third of a
        # spacing off may be measured at a tenth, its face changed completely)
        short = cfg.knocked_other_shift if s.mover is not None and not s.mover.owns(CLASS_LETTERS[c]) \
            else cfg.handled_shift
        off = shift >= cfg.knock or (shift >= short and knocked_face(s, p) and not touched_own(s, p, c))
        is_faded = faded(s, p)
        if (off or is_faded) and p not in pending:
            found.knocked.add(p)
            how = (f"knocked {shift:.2f} spacings off its place" + (" and turned" if shift < cfg.knock else "")
                   if off else
                   "knocked off its place (it no longer reads as a piece on its point)")
            ev = IncidentEvent(s.t, s.ply, "knocked", s.mover or side_of_class(c), [p],
                               f"{piece_label(CLASS_LETTERS[c])} on {point_name(p)} {how}",
                               frames=evidence_frames(cfg, s.episode, after, p), extra={"shift": round(shift, 3)})
            if off:
                found.events.append(ev)
                mem.knocked_reported.add(p)
            else:
                mem.pending_faded.append(PendingKnock(p, c, ev))


def back_where_clear(s: SettleFacts, mem: IncidentMemory, p: int) -> bool:
    """The disc on p is read clearly now, within `same_disc` of where it sat when last read clearly
    (on the same lattice)."""
    last = mem.clear_offsets.get(p)
    return (last is not None and mem.clear_lattice == s.after.lattice and s.after.ref_prob[p] >= s.cfg.clear_read
            and float(np.linalg.norm(s.after.offsets[p] - last)) < s.cfg.same_disc)


def remember_clear_offsets(s: SettleFacts, mem: IncidentMemory) -> None:
    """Keep where each disc read clearly at this settle sits (`IncidentMemory.clear_offsets`); a disc
    a move took away or brought, or a point read empty, is forgotten, and so is all of it when the
    reader took another lattice."""
    after = s.after
    if mem.clear_lattice != after.lattice:
        mem.clear_offsets = {}
        mem.clear_lattice = after.lattice
    for p in range(90):
        if p in s.moved_points or int(after.classes[p]) == EMPTY:
            mem.clear_offsets.pop(p, None)
        elif after.visible[p] and after.ref_prob[p] >= s.cfg.clear_read:
            mem.clear_offsets[p] = np.array(after.offsets[p], np.float64)


def touched_own(s: SettleFacts, p: int, c: int) -> bool:
    """The mover's own fingertips rested on its own piece on p alone (`dwell_s`, the mover's own hand):
    a face turned and a disc pushed short of a knock there is the touch's doing, for judge_touch,
    not a knock (fingertips resting a second on an own piece before moving another turn it and
    push it a fifth of a spacing; offsets walked to full size measure such a push past
    `handled_shift`)."""
    if s.mover is None or not s.mover.owns(CLASS_LETTERS[c]):
        return False
    return any(tips(s.episode, d, s.mover) == [p] for d in dwells(s.episode, s.mover, s.cfg.dwell_s, True))


def knocked_off_event(mem: IncidentMemory, t: float, ply: int, side: Side, piece: str, p: int,
                      disc_seen_near: bool, frames: dict[str, int]) -> IncidentEvent:
    """A piece gone from point p that no legal move explains, a hand near it (the settle chain
    decides that): knocked, and not reported again while its point stays empty."""
    mem.knocked_reported.add(p)
    where = "pushed off its point" if disc_seen_near else "knocked off the board (no disc seen near its point)"
    return IncidentEvent(t, ply, "knocked", side, [p],
                         f"{piece_label(piece)} on {point_name(p)} {where}; "
                         f"the game goes on, the piece should be put back",
                         frames=frames, extra={"off_board": not disc_seen_near})
