"""Incident rules: what an arbiter needs to see, decided at each settle.

The camera cannot see fingers touch a disc, so the evidence is the hand's
behaviour and the discs' positions. A hand reaching for a piece slows down
and rests on it: a *dwell* of its fingertips (the leading point of the hand's
covered region, see episode.dwells) on one point for ~0.3 s; an arm sweeping
over the board does not rest, and mere occlusion is never an incident.
A raised hand covers points displaced away from the camera (parallax), so a
dwell's contact point may be one step back toward the camera.

Rules (the side is the player whose hand it was):
- touch_move_other: the mover rested a hand on another of its own unmoved
  pieces before the dwell that picked up the moved piece (in the same
  stretch, or in a stretch of its own before the move, hand lifted clear).
- retouch: after a move settled, before the opponent's move, the mover's hand
  rested on the piece it had released (or moved it measurably).
- knocked: an unmoved disc moved `knock` spacings or more (relative to the
  common drift of all discs: a camera re-lock moves them all).
- between_points: a disc settled more than `between` spacings off its point.
- illegal_move: built by the tracker from the physical displacement.
- repetition: built by the tracker from rules.repetition.adjudicate.
Pure logic, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules import Move, Position
from rules.notation_common import KIND_NAMES

from .episode import Dwell, Episode, Settled, away_from_camera, dwells, fingertips, reach
from .events import Event, IncidentEvent, point_name
from .explain import CLASS_LETTERS, EMPTY, Explanation, PhysicalMove


@dataclass
class IncidentConfig:
    touch: float = 0.1         # settled offset change (spacings) that means a covered disc was handled
    dwell_s: float = 0.28      # fingertips resting on a point this long = touching it
    between_empty: float = 0.3  # a moved disc read this likely empty at its destination is off the point
    faded_empty: float = 0.4   # an unmoved disc now read this likely empty was pushed off its point
    lone_dwell_s: float = 0.16  # ... in a stretch without a move whose fingertips never left one point
    touch_reach: int = 3       # a stretch whose fingertips roam farther is an arm passing, not a touch
    knock: float = 0.2         # ... that means it was knocked
    between: float = 0.3       # settled offset magnitude that means "between points"


def piece_label(letter: str) -> str:
    """'n' -> 'black horse (n)': readable for an arbiter, exact for a script."""
    colour = "red" if letter.isupper() else "black"
    return f"{colour} {KIND_NAMES.get(letter.upper(), letter)} ({letter})"


def king_steps(a: int, b: int) -> int:
    """Chebyshev distance between two points (king steps)."""
    return max(abs(a % 9 - b % 9), abs(a // 9 - b // 9))


def _side_of(piece_class: int) -> str:
    return "red" if CLASS_LETTERS[piece_class].isupper() else "black"


class IncidentTracker:
    """Keeps the little state incident rules need across settles (the last move)."""

    def __init__(self, config: IncidentConfig | None = None) -> None:
        self.cfg = config or IncidentConfig()
        # (to_sq, side, ply, settle frame) of the last move, until the opponent moves
        self.last_move: tuple[int, str, int, int] | None = None
        self._between_reported: set[int] = set()
        self._knocked_reported: set[int] = set()
        self._drift = np.zeros(2)
        # (side, point, frames) of own pieces the side to move rested a hand on in
        # stretches without a move, until that side moves
        self.pending_touches: list[tuple[str, int, dict[str, int]]] = []
        # knocks seen only as a disc that stopped reading as a piece: reported when the next
        # settle still shows it so (a hand the detector missed for a moment fades a reading too)
        self.pending_faded: list[tuple[int, int, IncidentEvent]] = []

    def _faded(self, ep: Episode, before: Settled, after: Settled, p: int, near: set[int]) -> bool:
        """A disc that read clearly before and now reads largely as an empty point,
        with the hand over it or beside a moved point: pushed off its point (a disc
        half off its point is half an empty crop to the reader)."""
        if before.empty_prob is None or after.empty_prob is None:
            return False
        if not (before.visible[p] and after.visible[p]):
            return False
        was_clear = before.empty_prob[p] < 0.1 and before.ref_prob[p] >= 0.5
        now_empty = after.empty_prob[p] >= self.cfg.faded_empty
        hand_near = ep.occluded_frames[p] > 0 or any(king_steps(p, q) <= 2 for q in near)
        return bool(was_clear and now_empty and hand_near)

    def knocked_off(self, t: float, ply: int, side: str, piece: str, p: int, disc_seen_near: bool,
                    frames: dict[str, int]) -> IncidentEvent:
        """A piece gone from point p that no legal move explains, a hand near it (the tracker
        decides that): knocked, and not reported again while its point stays empty."""
        self._knocked_reported.add(p)
        where = "pushed off its point" if disc_seen_near else "knocked off the board (no disc seen near its point)"
        return IncidentEvent(t, ply, "knocked", side, [p],
                             f"{piece_label(piece)} on {point_name(p)} {where}; "
                             f"the game goes on, the piece should be put back",
                             frames=frames, extra={"off_board": not disc_seen_near})

    def put_down_between(self, t: float, ply: int, piece: str, p: int, offset: np.ndarray,
                         frames: dict[str, int]) -> IncidentEvent:
        """A moved piece the tracker recorded from a disc seen off the points (or from the
        mover's rest, when the disc reads on no point): between points, reported once."""
        self._between_reported.add(p)
        off = float(np.abs(offset).max())
        how = (f"the disc is seen {off:.2f} spacings off the point" if off >= self.cfg.between * 0.5
               else "the reader cannot see it on any point")
        return IncidentEvent(t, ply, "between_points", "black" if piece.islower() else "red", [p],
                             f"{piece_label(piece)} put down off the points near {point_name(p)} ({how})",
                             frames=frames, extra={"offset": [round(float(v), 3) for v in offset]})

    def _shift(self, before: Settled, after: Settled, p: int) -> float:
        if not (before.visible[p] and after.visible[p]):
            return 0.0
        return float(np.linalg.norm(after.offsets[p] - before.offsets[p] - self._drift))

    @staticmethod
    def _common_drift(before: Settled, after: Settled) -> np.ndarray:
        """The median displacement of all discs: when every disc seems to move the
        same way, the camera moved (a bump, a re-lock), not the pieces."""
        both = (before.classes != EMPTY) & (after.classes == before.classes) & before.visible & after.visible
        if both.sum() < 6:
            return np.zeros(2)
        return np.median(after.offsets[both] - before.offsets[both], axis=0)

    def _was_between(self, before: Settled, p: int) -> bool:
        return bool(before.visible[p] and np.max(np.abs(before.offsets[p])) >= self.cfg.between)

    @classmethod
    def _contacts(cls, ep: Episode, d: Dwell, side: str | None = None) -> list[int]:
        """Points the fingers may rest on for a dwell: the covered fingertip point,
        the point one step back toward the camera (a raised hand covers points
        displaced away from the camera), and, given the hand's `side`, the point
        one step back toward that player's edge when the hand covered it too
        (fingers pinching a disc reach past it: the leading covered point
        overshoots the contact by up to a point)."""
        tips = cls._tips(ep, d, side) if side is not None else [d.point]
        out = list(tips)
        u = away_from_camera(ep.homography)
        if u is not None:
            for tp in tips:
                x, y = tp % 9 - u[0], tp // 9 - u[1]
                if 0 <= x <= 8 and 0 <= y <= 9 and y * 9 + x not in out:
                    out.append(y * 9 + x)
        if side is not None:
            for tp in tips:
                y = tp // 9 + (-1 if side == "red" else 1)
                q = y * 9 + tp % 9
                if 0 <= y <= 9 and q not in out and cls._covered_during(ep, d, q):
                    out.append(q)
        return out

    @staticmethod
    def _tips(ep: Episode, d: Dwell, side: str) -> list[int]:
        """The points the fingertips may be on during a dwell: its point, and any other
        point the hand's region leads with as much in at least half of the dwell's frames
        (a hand centred between two files, a hand cut by the board's side edge)."""
        frames = [c for f, _, c in ep.covered if d.frame_start <= f <= d.frame_end]
        counts: dict[int, int] = {}
        for c in frames:
            for q in fingertips(c, side, all_ties=True):
                counts[q] = counts.get(q, 0) + 1
        return [d.point] + [q for q, k in counts.items() if q != d.point and 2 * k >= len(frames)]

    def _dwell_on(self, ep: Episode, side: str, p: int) -> Dwell | None:
        """A dwell of `side`'s fingertips resting on point `p`: on it, one step
        back toward the camera (parallax), or next to it with `p` covered
        meanwhile (a broad hand: the fingertip point is then ambiguous)."""
        near = None
        for d in dwells(ep, side, self.cfg.dwell_s):
            if p in self._contacts(ep, d):
                return d
            if near is None and king_steps(d.point, p) <= 1 and self._covered_during(ep, d, p):
                near = d
        return near

    @staticmethod
    def _covered_during(ep: Episode, d: Dwell, p: int) -> bool:
        return any(d.frame_start <= f <= d.frame_end and p in c for f, _, c in ep.covered)

    def _touched_before_move(self, ep: Episode, before: Settled, before_pos: Position, moves: list[Move],
                             mover: str, after: Settled, knocked: set[int]) -> tuple[list[int], Dwell | None] | None:
        cfg = self.cfg
        m = moves[0]
        involved = set()
        for mv in moves:
            involved |= {mv.from_sq, mv.to_sq}
        own_upper = mover == "red"

        def own_unmoved(p: int) -> bool:
            c = int(before.classes[p])
            return (c != EMPTY and p not in involved and p not in knocked
                    and CLASS_LETTERS[c].isupper() == own_upper and not self._was_between(before, p))

        def contact(d: Dwell) -> int | None:
            # where the fingers may be is a few points; if the moved piece is one of
            # them, the rest was on it (never accuse a touch the pick-up explains)
            cands = self._contacts(ep, d, mover)
            for p in cands:
                if p in involved:
                    return p
            for p in cands:
                if int(before.classes[p]) != EMPTY:
                    return p
            return None

        ds = dwells(ep, mover, cfg.dwell_s)
        cs = [contact(d) for d in ds]
        # The pick-up is the last rest on the moved piece before the put-down (the
        # last rest on the destination). A victim lifted first (a rest on the
        # destination before the pick-up) is carried off the board; rests after
        # it are not touches.
        at_t = [i for i, c in enumerate(cs) if c == m.to_sq]
        place = at_t[-1] if at_t else len(ds)
        picks = [i for i, c in enumerate(cs) if c == m.from_sq and i < place]
        if picks:
            limit = picks[-1]
        else:
            # The pick-up was too quick (or the hand detector too patchy) for a rest:
            # it happened when the fingertips last came over the moved piece before the
            # rest that put it down (a hand entering over its own back rank passes over
            # pieces there first). A piece moved to the next point is picked up where it
            # is put down: then the first rest at either point.
            put_down = ds[place].frame_start if place < len(ds) else ep.frame_last + 1
            stretches = dwells(ep, mover, 0.0)
            over = [d.frame_start for d in stretches if contact(d) == m.from_sq and d.frame_start < put_down]
            first = over[-1:] or [d.frame_start for d, c in zip(ds, cs) if c in involved]
            if not first:
                return None   # the pick-up was not seen: a touch cannot be put before it
            limit = sum(1 for d in ds if d.frame_end < first[0])
        if m.to_sq in before_pos.pieces():
            first_victim = [i for i in at_t if i < limit]
            if not first_victim:
                # The victim had to come off before the pick-up, so a hand rested at its
                # point; seen from the player's side that rest often leads with the point
                # next to it (a broad hand over the edge rank leads with the rank beyond).
                # The last rest before the pick-up beside the victim, with its point under
                # the hand, is that lift; earlier rests may still be touches.
                first_victim = [i for i, d in enumerate(ds[:limit])
                                if king_steps(d.point, m.to_sq) <= 1 and self._covered_during(ep, d, m.to_sq)][-1:]
            if first_victim:
                limit = first_victim[0]
        for d in ds[:limit]:
            cands = self._contacts(ep, d, mover)
            if any(p in involved for p in cands):
                continue      # the hand may have been on the moved piece itself
            pieces = [p for p in cands if int(before.classes[p]) != EMPTY]
            if not pieces or not own_unmoved(pieces[0]):
                continue      # on no piece, the opponent's, or one being put right (between points)
            # where the fingers were is uncertain by a point: name the own pieces the
            # fingertips may have been on (the arbiter looks at the evidence frames)
            tips = self._tips(ep, d, mover)
            named = [p for p in [pieces[0]] + [q for q in tips if q != pieces[0]] if own_unmoved(p)]
            if named:
                return named[:2], d
        return None

    def _frames(self, ep: Episode, after: Settled, p: int) -> dict[str, int]:
        during = -1
        if ep.max_shift_frame[p] >= 0 and ep.max_shift[p] > self.cfg.touch:
            during = int(ep.max_shift_frame[p])
        elif ep.first_occluded[p] >= 0:
            during = int((ep.first_occluded[p] + ep.last_occluded[p]) // 2)
        elif ep.busiest_frame >= 0:
            during = ep.busiest_frame
        else:
            during = ep.frame_start
        return {"before": ep.before.frame_index, "during": during, "after": after.frame_index}

    def after_settle(self, ep: Episode, after: Settled, ex: Explanation | None, before_pos: Position,
                     ply: int) -> list[Event]:
        """Incidents of one settled episode. `ex` is None when the settle was not explained."""
        if ep.before.provisional:
            return []
        self._drift = self._common_drift(ep.before, after)
        cfg = self.cfg
        out: list[Event] = []
        before = ep.before
        moves: list[Move] = ex.moves if ex is not None else []
        mover = None
        if moves:
            mover = "red" if before_pos.turn == "w" else "black"
        moved_pts: set[int] = set()
        for m in moves:
            moved_pts |= {m.from_sq, m.to_sq}
        t = after.t

        # Retouch: the last mover's hand rests on the piece it just released,
        # before the opponent's move (an episode with no move of its own).
        if self.last_move is not None and not moves and self.last_move[0] not in self._between_reported:
            # (putting right a disc left between points is what the arbiter wants, not a re-touch)
            to_sq, side, mply, _ = self.last_move
            hit = self._dwell_on(ep, side, to_sq)
            shifted = self._shift(before, after, to_sq) >= cfg.touch and ep.occluded_frames[to_sq] > 0
            if hit is not None or shifted:
                frames = self._frames(ep, after, to_sq)
                if hit is not None:
                    frames["during"] = (hit.frame_start + hit.frame_end) // 2
                out.append(IncidentEvent(t, ply, "retouch", side, [to_sq],
                                         f"{side} touched the piece on {point_name(to_sq)} again after "
                                         f"releasing it (move {mply})", frames=frames))
                self.last_move = None

        # Knocks seen as a faded reading at the last settle: confirmed if it still reads so.
        still = []
        for p, c, ev in self.pending_faded:
            if int(after.classes[p]) == c and p not in moved_pts and after.visible[p] \
                    and after.empty_prob is not None and after.empty_prob[p] >= cfg.faded_empty:
                out.append(ev)
            elif not after.visible[p] and int(after.classes[p]) == c:
                still.append((p, c, ev))      # covered now: judge it at a later settle
        self.pending_faded = still
        pending = {p for p, _, _ in still}

        # Unmoved discs: knocked (displaced a lot) by the hand of this episode.
        knocked: set[int] = set()
        for p in range(90):
            c = int(before.classes[p])
            if c == EMPTY or p in moved_pts or int(after.classes[p]) != c:
                continue
            if self.last_move is not None and p == self.last_move[0] and not moves:
                continue
            if self._was_between(before, p):
                continue   # a disc left between points being put right is not knocked
            if p in self._knocked_reported:
                if after.empty_prob is not None and after.visible[p] and after.empty_prob[p] < cfg.faded_empty:
                    self._knocked_reported.discard(p)   # put back
                continue
            shift = self._shift(before, after, p)
            faded = self._faded(ep, before, after, p, moved_pts)
            if (shift >= cfg.knock or faded) and p not in pending:
                knocked.add(p)
                how = (f"knocked {shift:.2f} spacings off its place" if shift >= cfg.knock else
                       "knocked off its place (it no longer reads as a piece on its point)")
                ev = IncidentEvent(t, ply, "knocked", mover or _side_of(c), [p],
                                   f"{piece_label(CLASS_LETTERS[c])} on {point_name(p)} {how}",
                                   frames=self._frames(ep, after, p), extra={"shift": round(shift, 3)})
                if shift >= cfg.knock:
                    out.append(ev)
                else:
                    self.pending_faded.append((p, c, ev))

        # Touch-move: the mover's hand rested on another own piece before picking up the one moved.
        if moves and mover is not None:
            touched = self._touched_before_move(ep, before, before_pos, moves, mover, after, knocked)
            m = moves[0]
            if touched is None:
                # the touch may have been its own hands-over-board stretch, the hand
                # lifted clear of the board before reaching for the piece it moved
                for side, p, frames in self.pending_touches:
                    c = int(before.classes[p])
                    if side == mover and p != m.from_sq and p not in moved_pts and c != EMPTY \
                            and CLASS_LETTERS[c].isupper() == (mover == "red"):
                        touched = ([p], None)
                        pending_frames = frames
                        break
            if touched:
                pts, dwell = touched
                frames = self._frames(ep, after, pts[0])
                if dwell is not None:
                    frames["during"] = (dwell.frame_start + dwell.frame_end) // 2
                elif self.pending_touches:
                    frames.update({k: v for k, v in pending_frames.items() if k in ("before", "during")})
                where = " or ".join(point_name(p) for p in pts)
                out.append(IncidentEvent(t, ply, "touch_move_other", mover, list(pts) + [m.from_sq],
                                         f"{mover} touched {where} then moved {m.iccs()}",
                                         frames=frames))
            self.pending_touches = []
        elif not moves and ex is not None:
            # no move: remember the side to move resting a hand on its own pieces
            # (a hand that went to one place, not an arm sweeping across)
            side = "red" if before_pos.turn == "w" else "black"
            span = reach(ep, side)
            local = span <= cfg.touch_reach
            # a hand whose fingertips never left one point went to that piece and back: a
            # rest there counts from `lone_dwell_s` (a disc on the player's own edge rank,
            # reached from beyond the edge, is covered only while the fingers are on it)
            min_s = cfg.lone_dwell_s if span == 0 else cfg.dwell_s
            for d in (dwells(ep, side, min_s) if local else []):
                for c in self._contacts(ep, d, side):
                    k = int(before.classes[c])
                    if k != EMPTY and CLASS_LETTERS[k].isupper() == (side == "red") \
                            and not self._was_between(before, c):
                        self.pending_touches.append(
                            (side, c, {"before": before.frame_index, "during": (d.frame_start + d.frame_end) // 2}))
                        break

        # Between points: a disc left clearly off its point (relative to where all
        # the discs sit: a slightly off board registration moves them all).
        occupied = (after.classes != EMPTY) & after.visible
        centre = np.median(after.offsets[occupied], axis=0) if occupied.sum() >= 6 else np.zeros(2)
        for p in range(90):
            c = int(after.classes[p])
            if c == EMPTY or not after.visible[p]:
                self._between_reported.discard(p)
                continue
            mag = float(np.max(np.abs(after.offsets[p] - centre)))
            # a moved disc the reader sees as half an empty point is off its point too
            blurred = (p in moved_pts and after.empty_prob is not None
                       and after.empty_prob[p] >= cfg.between_empty and p not in self._between_reported)
            if blurred:
                mag = max(mag, cfg.between)
            if mag < cfg.between:
                if mag < cfg.between * 0.7:   # hysteresis: noise around the threshold is not a new incident
                    self._between_reported.discard(p)
                continue
            if p in self._between_reported:
                continue
            was = float(np.max(np.abs(before.offsets[p] - centre))) if before.visible[p] else 0.0
            if p not in moved_pts and was >= cfg.between:
                continue
            if any(e.kind == "knocked" and p in e.points for e in out if isinstance(e, IncidentEvent)):
                self._between_reported.add(p)
                continue
            self._between_reported.add(p)
            side = mover if (p in moved_pts and mover) else (mover or _side_of(c))
            out.append(IncidentEvent(t, ply, "between_points", side, [p],
                                     f"{piece_label(CLASS_LETTERS[c])} left between points near {point_name(p)} "
                                     f"(offset {mag:.2f} spacings)",
                                     frames=self._frames(ep, after, p), extra={"offset": round(mag, 3)}))

        if moves:
            last = moves[-1]
            side_last = mover if len(moves) % 2 == 1 else ("black" if mover == "red" else "red")
            self.last_move = (last.to_sq, side_last, ply, after.frame_index)
        return out

    def flush(self) -> list[Event]:
        """The source ended: knocks still waiting for a second look are reported as they are."""
        out = [ev for _, _, ev in self.pending_faded]
        self.pending_faded = []
        return out

    def illegal_move(self, t: float, ply: int, side: str, phys: PhysicalMove, reason: str,
                     board_shows: str, frames: dict[str, int]) -> IncidentEvent:
        m = Move(phys.from_sq, phys.to_sq)
        return IncidentEvent(t, ply, "illegal_move", side, [phys.from_sq, phys.to_sq],
                             f"illegal move of the {piece_label(phys.piece)} {m.iccs()}: {reason}; "
                             f"the board shows it until corrected",
                             frames=frames, extra={"move": m.iccs(), "reason": reason, "board_shows": board_shows})
