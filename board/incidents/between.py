"""Between points (`between_points`): a piece must stand on a point. Physically: after a settle a
disc sits `between` spacings or more off its point, measured relative to where all the discs sit
(a board registration slightly off moves them all alike), or a disc just put down reads to the
reader as half an empty point (a disc between two points is half an empty crop).

Reported once, and news again only once it is really back on its point: below a lower threshold
(hysteresis, so noise around the threshold is no news), no longer read as half empty, and moved
there (a disc measured nearer its point with its face as it was did not move, it was measured
differently). An unmoved disc measured a little farther off than before, or farther with its face
as it was, has not moved either. A knocked disc lying off its point is that knock, not a second
incident. A disc half way between two points is on neither, so the report names both
(`points_between`).

The tracker records a move from a disc seen off the points and reports it here
(`put_down_between_event`); a report a correction voided is said again of the corrected point
when the disc was still off it (`between_restated`).
"""
from __future__ import annotations

import numpy as np

from rules import Move, Side

from ..episode import Episode, Settled
from ..events import IncidentEvent, point_name
from ..explain import CLASS_LETTERS, EMPTY
from .facts import (Findings, IncidentConfig, IncidentMemory, SettleFacts, covered_seconds, disc_shift, discs_centre,
                    evidence_frames, face_kept, face_unread, king_steps, off_centre, piece_label, side_of_class)


def points_between(cfg: IncidentConfig, p: int, offset: np.ndarray) -> list[int]:
    """p, and each point beside it that a disc `offset` off p lies about as near to (`halfway`).

    Why: a disc put down half way between two points is on neither; which of the two the record
    takes is a guess the arbiter should see, so a between-points report names both."""
    out = [p]
    for axis in (0, 1):
        if abs(float(offset[axis])) >= cfg.halfway:
            step = 1 if offset[axis] > 0 else -1
            f, r = p % 9 + step * (axis == 0), p // 9 + step * (axis == 1)
            if 0 <= f < 9 and 0 <= r < 10:
                out.append(r * 9 + f)
    return out


def between_text(points: list[int]) -> str:
    """'near e2', or 'between e2 and f2' for a disc half way between two points."""
    names = [point_name(q) for q in points]
    if len(names) == 1:
        return f"near {names[0]}"
    return "between " + ", ".join(names[:-1]) + " and " + names[-1]


def between_points(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """A disc left clearly off its point (relative to where all the discs sit: a slightly off
    board registration moves them all), reported once; a knocked disc is not reported again."""
    cfg, before, after = s.cfg, s.before, s.after
    moved = s.moved_points
    mover = s.mover
    centre = discs_centre(cfg, after)
    # a disc a move took away or brought is another disc than the one reported there (a piece
    # reported between points, then captured by a piece itself left between points on that spot,
    # is news again)
    mem.between_reported -= moved - mem.between_fresh
    for p in range(90):
        c = int(after.classes[p])
        if c == EMPTY or not after.visible[p]:
            mem.between_reported.discard(p)
            continue
        mag = off_centre(after, p, centre)
        # a moved disc the reader sees as half an empty point is off its point too
        blurred = (p in moved and after.empty_prob is not None
                   and after.empty_prob[p] >= cfg.between_empty and p not in mem.between_reported)
        if blurred:
            mag = max(mag, cfg.between)
        if mag < cfg.between:
            # hysteresis: noise around the threshold is no news; and a disc reported between
            # points whose reading is still half an empty point has not been put right, whatever
            # its offset reads (the offset of a disc between points can be measured as nothing at
            # all, and the hand that then puts it right would be taken for a touch)
            still_blurred = (p in mem.between_reported and after.empty_prob is not None
                             and after.empty_prob[p] >= cfg.between_empty)
            # nor has one measured back near its point with its face as it was: it did not move, it
            # was measured differently (a disc left between points may read near its point at the
            # next settle with its face unchanged; released then, putting it right a move later,
            # which turns its face, reads as a knock)
            # A face not read again at all (the same look, to the bit: nothing changed in its crop)
            # says the same (once a camera bump has the lattice found again, such a disc may be
            # measured near its point with its face unread; released then, the hand putting it
            # right reads as a touch)
            remeasured = p not in moved and before.visible[p] and (face_kept(s, p) or face_unread(s, p))
            if mag < cfg.between * cfg.between_release and not still_blurred and not remeasured:
                mem.between_reported.discard(p)
            continue
        if p in mem.between_reported:
            continue
        was = off_centre(before, p, centre) if before.visible[p] else 0.0
        if p not in moved and was >= cfg.between:
            continue
        # the disc the last move put down, read again at a settle without a move: it was measured
        # while the hand had barely left it (a disc put down well off its point can be measured
        # near it at the move's own settle and off it only at the next one)
        put_down_late = (not s.moves and mem.last_move is not None and mem.last_move.to_sq == p
                         and mem.last_move.ply == s.ply)
        if p not in moved and not put_down_late and before.visible[p] and \
                (disc_shift(s, p) < cfg.knock or face_kept(s, p)):
            # an unmoved disc measured a little farther off than last time, across the threshold,
            # or farther with its face as it was: it has not moved, it is measured differently
            # (an untouched disc read just across `between` is no disc left between points)
            continue
        if p in mem.knocked_reported or any(e.kind == "knocked" and p in e.points for e in found.events):
            mem.between_reported.add(p)   # a knocked disc off its point is that knock, reported as such
            continue
        mem.between_reported.add(p)
        near = points_between(cfg, p, after.offsets[p] - centre)
        found.events.append(IncidentEvent(s.t, s.ply, "between_points", mover or side_of_class(c), near,
                                          f"{piece_label(CLASS_LETTERS[c])} left between points "
                                          f"{between_text(near)} (offset {mag:.2f} spacings)",
                                          frames=evidence_frames(cfg, s.episode, after, p),
                                          extra={"offset": round(mag, 3)}))


def between_restated(cfg: IncidentConfig, inc: IncidentEvent, was: list[Move], now: list[Move],
                     after: Settled, ep: Episode) -> IncidentEvent | None:
    """A between-points incident a correction voided, said again of the point the corrected record
    puts the same piece on, when that point is next to the one reported and the disc is still off
    its point or a hand has been over it since.

    Why: the disc was seen off its point whichever point the record names. When the record had the
    piece put down on q and the correction has it put down beside q, the disc lay between the two
    (a disc left between two points, recorded on one, reported off it, and corrected to the other:
    the correction voids the report, and by then the player may have put the disc right, so
    without this nothing would be said of it again). A disc seen on its point at the correction that no hand came
    near was never between points: glare made its point read empty and it was seen off the next
    one (tests/board/test_retraction.py); that report stays voided, as do the other kinds, whose
    evidence was judged against a record that was wrong at their points.
    """
    if inc.kind != "between_points" or not inc.points:
        return None
    q = inc.points[0]
    centre = discs_centre(cfg, after)
    for old in was:
        if old.to_sq != q:
            continue
        for new in now:
            if new.from_sq != old.from_sq or new.to_sq == q or king_steps(new.to_sq, q) != 1:
                continue
            still_off = bool(after.visible[new.to_sq] and off_centre(after, new.to_sq, centre) >= cfg.between)
            handled = max(covered_seconds(ep, new.to_sq), covered_seconds(ep, q)) >= cfg.handled_covered_s
            if still_off or handled:
                extra = {k: v for k, v in inc.extra.items() if k != "id"}
                extra["restated_from"] = old.iccs()
                return IncidentEvent(inc.t, inc.ply, "between_points", inc.side, [new.to_sq, q],
                                     f"the disc reported off its point near {point_name(q)} was the piece moved "
                                     f"{new.iccs()} (the record had said {old.iccs()}): left between "
                                     f"{point_name(new.to_sq)} and {point_name(q)}",
                                     frames=dict(inc.frames), evidence=dict(inc.evidence), extra=extra)
    return None


def put_down_between_event(cfg: IncidentConfig, mem: IncidentMemory, t: float, ply: int, piece: str, p: int,
                           offset: np.ndarray, frames: dict[str, int]) -> IncidentEvent:
    """A moved piece the tracker recorded from a disc seen off the points (or from the
    mover's rest, when the disc reads on no point): between points, reported once."""
    mem.between_reported.add(p)
    mem.between_fresh.add(p)
    off = float(np.abs(offset).max())
    how = (f"the disc is seen {off:.2f} spacings off the point" if off >= cfg.between * 0.5
           else "the reader cannot see it on any point")
    near = points_between(cfg, p, offset)
    return IncidentEvent(t, ply, "between_points", Side.BLACK if piece.islower() else Side.RED, near,
                         f"{piece_label(piece)} put down off the points {between_text(near)} ({how})",
                         frames=frames, extra={"offset": [round(float(v), 3) for v in offset]})
