"""Touch-move (`touch_move_other`): a player who touches one of their own pieces must move that
piece. Physically: before picking up the piece it moved, the mover's hand rested on another of
its own unmoved pieces.

The evidence, strongest first:
- a rest of the mover's fingertips (hand.py) on another own unmoved piece before the rest that
  picked up the moved piece, in the same stretch of hands (`touched_before_move`), or in a
  stretch of its own before the move with the hand lifted clear of the board in between
  (remembered as a `PendingTouch` at the settle without a move);
- where no rest is read on it, an own piece under the mover's fingers whose face alone changed
  (turned or pushed a little, standing out from every other face: `handled_before_move`,
  `handled_without_rest`).

What looks like a touch but is not one, each from what a hand physically does:
- the pick-up of the moved piece itself read a point off: a rest beside the moved piece whose
  pieces' faces are exactly as they were (`rest_a_point_off`), the hand's lead read a point short
  while the light changed every face (`pick_up_read_short`), or no rest seen on the moved piece
  at all (`MoverRests.unseen_pick_up_read_beside`);
- a hand hovering on its way: a short rest that left every face exactly as it was (`hovered`);
- a hand setting a disc back on its point, which hangs over the pieces beside it and whose disc
  reaches into their crops (`put_right_reach`);
- a capture's victim being lifted and carried off beyond the board's edge, and the hand leaving
  after it put the piece down, passing over pieces on its way out;
- a disc sitting off its point, picked up where it really lies (`beside_displaced_disc`).
Which rest came before the pick-up is told from the order of the rests and the hand's path
(`MoverRests`): the rest on the moved piece picked it up, the one on its destination put it down.
An arbiter's tool accuses on strong evidence: a short rest, or a face left as it was beside the
move, is not enough on its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from rules import Side

from ..episode import Dwell, Settled, dwells, reach
from ..events import IncidentEvent, point_name
from ..explain import CLASS_LETTERS, EMPTY
from .facts import (Findings, IncidentConfig, IncidentMemory, PendingTouch, SettleFacts, being_put_right, disc_place,
                    disc_shift, discs_centre, evidence_frames, face_change, face_kept, face_unchanged, handled_piece,
                    king_steps, median_face_change, off_centre, off_point, orthogonal_steps, own_piece,
                    turned_beyond_noise, was_between)
from .hand import (contacts, covered_during, other_hand_longer, released_at, steady_rests, tips,
                   under_fingers_seconds)
from .weigh import Candidate, HandSignals, hand_signals


def beside_displaced_disc(cfg: IncidentConfig, before: Settled, p: int) -> set[int]:
    """The neighbours of point p that a hand over p's disc may be read on, when the disc sits
    off its point (knocked, or put down off it): the points on the disc's side of p less than
    one spacing from where the disc really is. A hand picking that disc up rests there, not on p."""
    if not before.visible[p]:
        return set()
    off = np.asarray(before.offsets[p], dtype=np.float64)
    # clearly off its point (`between`): a disc measured a knock's worth off (0.2 spacings, as a
    # JPEG-compressed frame can make a disc sitting on its point) is picked up over its point
    if float(np.linalg.norm(off)) < cfg.between:
        return set()
    x, y = disc_place(p, off)
    out = set()
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            qx, qy = p % 9 + dx, p // 9 + dy
            if (dx or dy) and 0 <= qx <= 8 and 0 <= qy <= 9 and dx * off[0] + dy * off[1] > 0 \
                    and (qx - x) ** 2 + (qy - y) ** 2 < 1.0:
                out.add(qy * 9 + qx)
    return out


@dataclass(frozen=True)
class PutRightReach:
    """Where a hand putting discs back on their points may be read (`points`), and the pieces
    beside them that those discs had reached into (`leaned_on`): a disc lying toward a
    neighbour fills part of that neighbour's crop, so the neighbour's face changes when the disc
    is put right, touched or not. `discs`: the points of the discs being put right."""

    points: set[int]
    leaned_on: set[int]
    discs: set[int] = field(default_factory=set)


def put_right_reach(s: SettleFacts, mem: IncidentMemory, side: Side) -> PutRightReach:
    """Where `side`'s fingertips may be read while the hand puts one of its discs back on its point
    in this episode: the point of a disc that lay between points before (was_between, or reported
    so) and sits on its point now, and the neighbours on the side it lay toward (all four when its
    offset was not measured: reported from a reading half empty).

    Why: a rest there may be the hand setting that disc right rather than touching the piece beside
    it: a disc left half way to the next point is put right with the fingertips read on that
    point, the pieces under the hand's edge beside it, and a disc read half empty is put right
    with the fingertips on the piece beside it. Its face tells which."""
    cfg, before, after = s.cfg, s.before, s.after
    centre = discs_centre(cfg, after)
    out: set[int] = set()
    leaned: set[int] = set()
    discs: set[int] = set()
    for q in range(90):
        c = int(before.classes[q])
        if c == EMPTY or not side.owns(CLASS_LETTERS[c]) or q in s.moved_points or not being_put_right(s, mem, q):
            continue
        # back on its point, or moved by the hand well toward it and no longer between points
        # (a disc pushed back past its point, set down a little off on the other side, was still
        # being put right, the fingertips on the points it lay toward meanwhile)
        off_now = off_centre(after, q, centre)
        nearer = off_now < cfg.between and disc_shift(s, q) >= cfg.knock and off_now < off_centre(before, q, centre)
        back = bool(after.visible[q] and int(after.classes[q]) == c
                    and (off_now < cfg.between * cfg.between_release or nearer)
                    and (after.empty_prob is None or after.empty_prob[q] < cfg.between_empty))
        if not back:
            continue
        lean = beside_displaced_disc(cfg, before, q)
        leaned |= lean
        if not lean and not was_between(cfg, before, q):
            lean = {r for r in range(90) if orthogonal_steps(q, r) == 1}
        out |= {q} | lean
        discs.add(q)
    return PutRightReach(out, leaned, discs)


@dataclass
class Touch:
    """Own pieces the mover's fingertips may have rested on before the pick-up, and the rest."""

    points: list[int]
    dwell: Dwell | None


def rest_a_point_off(s: SettleFacts, touch: Touch) -> bool:
    """The rest was read on pieces right beside the moved piece's point or its destination, and
    each one's face, read again, is exactly as it was (`face_unchanged`): the fingertips were on
    the moved piece, placed a point off by the hand detector (the pick-up's fingertips read on
    the piece beside it, whose face changes a hundredth or two, within the camera's noise).
    True touches read with so little change lie two points or more from the move."""
    if not touch.points or not s.moves or picked_up_in_own_rest(s, touch):
        return False
    return all(_beside_move_unchanged(s, q, face_change(s, q)) for q in touch.points)


def pick_up_read_short(s: SettleFacts, touch: Touch) -> bool:
    """The rest's fingertips lay on empty points only, one of them right beside the moved piece's
    point; the pieces it names lay under the hand behind them (a step back toward the camera or the
    player's edge); and the light changed every face on the board (`handled_over_steady` times
    their median reaches `handled_look`), the named ones no more than that: the faces cannot tell a
    touch, and the hand was over the piece it then moved with its lead read a point short.

    Under steady light a named face left as it was still counts for nothing either way (a rest
    two points from the move is a touch however still its face). Under glare that changes every
    face on the board by a tenth to a quarter, the pieces behind a lead read a point short of the
    moved piece change as much as any, and say nothing.
    Not where a later rest had the fingers over the moved piece: that rest picked it up, and this
    one was on a piece behind (fingertips read on an empty point with an own piece behind them,
    then a rest over the piece moved: the piece behind was touched)."""
    d, faces = touch.dwell, s.faces
    if d is None or not s.moves or s.mover is None or faces is None:
        return False
    m, mover = s.moves[0], s.mover

    def occupied(q: int) -> bool:
        return int(s.before.classes[q]) != EMPTY

    lead = tips(s.episode, d, mover)
    if any(occupied(q) for q in lead) or not any(king_steps(q, m.from_sq) <= 1 for q in lead):
        return False
    # the faces first: comparing them is cheap, and under steady light they decide alone
    board_change = s.cfg.handled_over_steady * median_face_change(s, touch.points)
    if board_change < s.cfg.handled_look or any(face_change(s, q) >= board_change for q in touch.points):
        return False
    rests = steady_rests(dwells(s.episode, mover, 0.0), lambda r: contacts(s.episode, r, mover), occupied,
                         s.cfg.dwell_s, lambda r: tips(s.episode, r, mover), s.cfg.hover_s)
    # a later rest had the fingers over the moved piece: that one picked it up
    return not any(r.frame_start > d.frame_end and m.from_sq in contacts(s.episode, r, mover) for r in rests)


def picked_up_in_own_rest(s: SettleFacts, touch: Touch) -> bool:
    """The rest beside the moved piece lasted `beside_rest_s` or more, and a later rest of the
    mover had the fingertips on the moved piece's own point: that later rest picked it up, so the
    long one before it was not the pick-up read a point off (fingers resting over a second on a
    piece beside the moved one, then on the moved piece itself: the first piece was touched,
    however still its face)."""
    d = touch.dwell
    if d is None or d.seconds < s.cfg.beside_rest_s or s.mover is None:
        return False
    m = s.moves[0]
    return any(r.point == m.from_sq and r.t_start > d.t_end for r in dwells(s.episode, s.mover, s.cfg.dwell_s))


def hovered(s: SettleFacts, touch: Touch) -> bool:
    """The rest was short of `hover_s` and every piece it names was read again exactly as it was
    (`face_unchanged`): a hand hovering over a piece on its way, not fingers resting on it.
    A short rest is weak evidence on its own, and an arbiter's tool accuses on strong evidence
    (a hand passing over a piece pauses a quarter to under half a second and leaves its face
    within noise; the true touches measured on the bench that left a face as it was rested
    0.6 s and more)."""
    return touch.dwell is not None and touch.dwell.seconds < s.cfg.hover_s and \
        all(face_unchanged(s, q) for q in touch.points)


def _beside_move_unchanged(s: SettleFacts, p: int, change: float) -> bool:
    """A rest read on the piece at p, right beside the first move's from point (or a capture's victim,
    lifted before the pick-up too), whose face changed by no more than the camera's noise
    (`face_same`; NaN: not read again, no evidence). A touch is a rest before the pick-up, when
    a plain move's destination is still empty: a rest beside it then is on the piece there
    (fingers can rest a second on a piece beside a plain move's destination and leave its face
    as it was: that is still a touch)."""
    m = s.moves[0]
    capture = m.to_sq in s.before_pos.pieces()
    near = king_steps(p, m.from_sq) <= 1 or (capture and king_steps(p, m.to_sq) <= 1)
    return near and change < s.cfg.face_same


@dataclass
class RestOrder:
    """The mover's rests put in order with the move (the steps of `touched_before_move`).

    `contact_at[i]`: the point rest i was on, as far as the move is concerned (the moved piece's
    point for a rest that picked it up); `early`: points a rest on which may be the hand on the
    moved piece itself; `put_down`: the index of the rest that put the piece down (len(rests)
    when none was seen); `picks`: rests on the moved piece before it."""

    contact_at: list[int | None]
    early: set[int]
    put_down: int
    picks: list[int]


@dataclass(frozen=True)
class RestsBeforePickUp:
    """The steps of `touched_before_move` up to judging the rests: `order`, the rests put in order
    with the move; `limit`, how many rests may be touches (those before the pick-up, less a
    capture's victim being lifted); `aside`, the indices among them that set the victim down
    beyond the board's edge (the lift too quick for a rest of its own, so only where it must have
    been); `carried`, the rests at the board's side edge after a rest seen lifting the victim and
    before the pick-up, which set it down beyond that edge."""

    order: RestOrder
    limit: int
    aside: set[int]
    carried: set[int]


class MoverRests:
    """One settle's rests of the mover's hand, and where its fingers may have been over each.

    The touch-move rule asks the same few questions of the same stretches many times (their
    contacts, their fingertip points), each answer a pass over the episode's frames: they are
    kept here once asked."""

    def __init__(self, s: SettleFacts, mem: IncidentMemory, knocked: set[int]) -> None:
        assert s.mover is not None
        self.s, self.mem, self.knocked = s, mem, knocked
        self.mover: Side = s.mover
        self.move = s.moves[0]
        self.capture = self.move.to_sq in s.before_pos.pieces()
        # a moved disc that sat off its point is picked up where it sat: a rest read on the point
        # beside it is that pick-up (and the piece there is no more touched than the moved one)
        self.beside = beside_displaced_disc(s.cfg, s.before, self.move.from_sq)
        self.involved = s.moved_points | self.beside
        self._contacts: dict[tuple[int, int], list[int]] = {}
        self._tips: dict[tuple[int, int], list[int]] = {}
        self.stretches = dwells(s.episode, self.mover, 0.0)
        self.rests = steady_rests(self.stretches, self.contacts_of, self.occupied, s.cfg.dwell_s, self.tips_of,
                                  s.cfg.hover_s)
        self.righting = put_right_reach(s, mem, self.mover)

    def occupied(self, p: int) -> bool:
        return int(self.s.before.classes[p]) != EMPTY

    def own_unmoved(self, p: int) -> bool:
        return p not in self.involved and p not in self.knocked and own_piece(self.s, self.mem, self.mover, p)

    def contacts_of(self, d: Dwell) -> list[int]:
        key = (d.frame_start, d.frame_end)
        if key not in self._contacts:
            self._contacts[key] = contacts(self.s.episode, d, self.mover)
        return self._contacts[key]

    def tips_of(self, d: Dwell) -> list[int]:
        key = (d.frame_start, d.frame_end)
        if key not in self._tips:
            self._tips[key] = tips(self.s.episode, d, self.mover)
        return self._tips[key]

    def contact(self, d: Dwell, moving: set[int] | None = None) -> int | None:
        """Where rest d was: where the fingers may be is a few points; if the moved piece is one
        of them, the rest was on it (never accuse a touch the pick-up explains)."""
        moving = self.involved if moving is None else moving
        cands = self.contacts_of(d)
        for p in cands:
            if p in self.beside:
                return self.move.from_sq
            if p in moving:
                return p
        for p in cands:
            if self.occupied(p):
                return p
        return None

    def before_hand_over_moved(self, touch: Touch) -> bool:
        """The touch's rest lasted `beside_unseen_s` or more and ended before the mover's hand first
        came over the moved piece (`_first_over`): it was no pick-up of that piece read a point off
        (fingers resting near a second on a piece beside the moved one, its face left as it was,
        before the hand ever came over the moved piece, touched that piece). A shorter one may be:
        the hand's region can lie off the fingers toward the arm for half a second while the
        fingers pick the moved piece up."""
        first_over = self._first_over()
        d = touch.dwell
        return d is not None and first_over is not None and d.frame_end < first_over \
            and d.seconds >= self.s.cfg.beside_unseen_s - 1e-6

    def unseen_pick_up_read_beside(self, touch: Touch) -> bool:
        """The touch's rest had its fingertips on empty points only, one a step from the moved
        piece; the pieces it names lie under the hand beside them, right beside the moved piece,
        none turned as a touch turns one (`handled_look`); and no rest was seen picking the piece
        up: the rest was the pick-up, read a point off (a quick pick-up from a corner, the hand
        leading on the empty point beside it and the piece next to that under the hand, its face
        changed only as a blurred, noisy view changes faces). Fingertips read on the named piece
        itself are a touch however little its face changed (fingers on a piece for over half a
        second, then a rest of its own on the piece moved)."""
        d, m = touch.dwell, self.move
        if d is None or not touch.points:
            return False
        lead = self.tips_of(d)
        if any(self.occupied(q) for q in lead) or not any(king_steps(q, m.from_sq) <= 1 for q in lead):
            return False
        if not all(king_steps(q, m.from_sq) <= 1 and face_change(self.s, q) < self.s.cfg.handled_look
                   for q in touch.points):
            return False
        before = self.before_pick_up()
        return before is not None and not before.order.picks

    def start_of(self, i: int) -> int:
        """The frame rest i began, or the one after the episode when there is no rest i."""
        return self.rests[i].frame_start if i < len(self.rests) else self.s.episode.frame_last + 1

    def hand_seen_at_destination(self) -> bool:
        """The mover's fingertips came within a step of where the piece was put down."""
        return any(king_steps(q, self.move.to_sq) <= 1 for d in self.stretches for q in self.contacts_of(d))

    def touch_before_unseen_move(self) -> Touch | None:
        """The detector lost the hand for the move, so the rests cannot be put in order with the
        pick-up by the hand (glare can hide a hand from before the pick-up to the put-down). The
        moved piece still read on its point after a rest ended was picked up later: that rest came
        first (a rest on one piece, then another moved with the hand never seen over it, its
        piece still read on its point half a second after the rest). Only a long rest counts so:
        without the hand's path the stretches seen may be a phantom (a change of light that turns
        every face can be read as a third of a second's 'rest' far from any hand)."""
        seen_home = int(self.s.episode.home_last_seen[self.move.from_sq])
        # and the last rest with the fingertips on the moved piece itself picked it up, wherever the
        # hand was lost after it: the rests before it came first (fingers resting on one piece,
        # the moved piece under the hand too, then on the moved piece, the capture made out of the
        # hand detector's sight)
        picks = [j for j, d in enumerate(self.rests) if self.move.from_sq in self.tips_of(d)]
        before_pick = max([sum(1 for d in self.rests if d.frame_end < seen_home)] + picks)
        short = {i for i, d in enumerate(self.rests[:before_pick]) if d.seconds < self.s.cfg.unseen_move_dwell_s}
        return self.first_touch(before_pick, self.involved, picks, short)

    def taken_before(self, d: Dwell) -> bool:
        """The fingertips stayed on the moved piece a while before rest d: it was picked up then,
        and a rest on it after this one is the hand leaving over it (a piece put down with the
        hand's lead a point beyond it, the hand then resting over the emptied point as it leaves:
        the put-down is no touch of the piece under the lead)."""
        m = self.move
        return any(e.frame_end < d.frame_start and e.t_end - e.t_start >= self.s.cfg.lone_dwell_s - 1e-6
                   and m.from_sq in self.tips_of(e) for e in self.stretches)

    def went_back_to_moved(self, i: int) -> bool:
        """After rest i, whose fingertips were beside the moved piece and not on it, the
        fingertips came back onto it, nearer the mover's own edge and farther from the destination
        than they were, before going on there: the hand left rest i for the piece and picked it up
        then, so rest i was on another piece under the fingers (fingers resting on a corner piece
        read a point in front of it, the moved piece among the points under them, then the
        fingertips back over the moved piece and the piece carried away)."""
        m, d = self.move, self.rests[i]
        tips = self.tips_of(d)
        if m.from_sq in tips:
            return False

        def depth(q: int) -> int:
            return q // 9 if self.mover == Side.RED else 9 - q // 9

        # before the fingertips first came to the destination after it (a hand leaving over the
        # origin after the move is not going back for the piece)
        arrive = min([e.frame_start for e in self.stretches if e.frame_start > d.frame_end
                      and m.to_sq in self.tips_of(e)], default=self.s.episode.frame_last + 1)
        # and back means away from the destination too: a piece moved back toward the player is
        # carried over its own point on its way
        back = (depth(m.from_sq) < min(depth(q) for q in tips)
                and king_steps(m.from_sq, m.to_sq) > max(king_steps(q, m.to_sq) for q in tips))
        return back and any(d.frame_end < e.frame_start < arrive and m.from_sq in self.tips_of(e)
                            for e in self.stretches)

    def order(self) -> RestOrder:
        """Which rest picked the piece up and which put it down."""
        m, ds = self.move, self.rests
        cs = [self.contact(d) for d in ds]
        # An empty destination cannot be touched before the piece is picked up: a rest read there
        # before the last rest on the moved piece is the hand on its way, and the fingertips may
        # be on a piece beside it (the king the player touched first, then the advisor moved)
        early = self.involved
        first_over: int | None = None
        if not self.capture:
            early = self.involved - {m.to_sq}
            first_over = self._first_over()
            last_pick = max((i for i, c in enumerate(cs) if c == m.from_sq), default=-1)
            for i, d in enumerate(ds):
                if cs[i] == m.to_sq and ((i < last_pick and not self.taken_before(d))
                                         or (first_over is not None and d.frame_end < first_over)):
                    cs[i] = self.contact(d, early)
        put_down = self._put_down(cs, first_over)
        return RestOrder(cs, early, put_down, self._picks(cs, put_down))

    def _first_over(self) -> int | None:
        """When the hand first came over the moved piece: a rest read on a plain move's
        destination before that is on a piece beside it (fingers on an edge-rank piece with the
        hand's lead over the empty point beyond it, the point another piece is moved to later,
        picked up too quickly for a rest). Over it: among a stretch's contacts, or, for a piece on
        the mover's own edge rank, anywhere under the hand (a hand reaching in from its edge covers
        the pieces there before its lead comes near them, and may take one with its lead two
        points beyond it)."""
        m = self.move
        edge_rank = 0 if self.mover == Side.RED else 9
        return min([d.frame_start for d in self.stretches if m.from_sq in self.contacts_of(d)]
                   + [f for f, _, c in self.s.episode.covered if m.from_sq // 9 == edge_rank and m.from_sq in c],
                   default=None)

    def _put_down(self, cs: list[int | None], first_over: int | None) -> int:
        """The rest that put the piece down: the last rest on the destination. A victim lifted
        first (a rest on the destination before the pick-up) is carried off the board; rests
        after it are not touches."""
        m, ds = self.move, self.rests
        at_t = [i for i, c in enumerate(cs) if c == m.to_sq]
        if at_t:
            return at_t[-1]
        if first_over is not None:
            # no rest read on the empty destination: a rest with the fingertips on empty points a
            # step from it, after the hand came over the moved piece and with the fingertips never
            # over the destination itself later, put it down (the hand's region stopping a point
            # short of where the fingers are); rests after it are no touches (the hand leaving
            # over the point the piece came from)
            near = [i for i, d in enumerate(ds) if d.frame_start > first_over and all(
                    q != m.to_sq and king_steps(q, m.to_sq) <= 1 and not self.occupied(q)
                    for q in self.tips_of(d)) and not any(
                    e.frame_start > d.frame_end and m.to_sq in self.tips_of(e) for e in self.stretches)]
            if near:
                return near[0]
        return len(ds)

    def _picks(self, cs: list[int | None], put_down: int) -> list[int]:
        """The rests on the moved piece before it was put down. On a plain move, a rest on it
        after the fingertips went over its (empty) destination, with a rest on it before that, is
        the hand leaving over the point it emptied: the piece was picked up at the earlier rest
        and put down in passing (a piece taken with the fingertips read a point in front of it,
        put down, and its emptied point 'rested on' for a second as the hand withdrew: the
        pick-up is no touch of the piece beside it)."""
        m, ds = self.move, self.rests
        picks = [i for i, c in enumerate(cs) if c == m.from_sq and i < put_down and not self.went_back_to_moved(i)]
        if not self.capture:
            def over_destination_between(a: int, b: int) -> bool:
                return any(ds[a].frame_end < e.frame_start and e.frame_end < ds[b].frame_start
                           and m.to_sq in self.tips_of(e) for e in self.stretches)
            while len(picks) >= 2 and over_destination_between(picks[-2], picks[-1]):
                picks.pop()
        return picks

    def pick_up(self, order: RestOrder) -> int | None:
        """How many rests came before the pick-up (None: the hand was never seen near the move,
        so no rest can be put before it)."""
        if order.picks:
            return order.picks[-1]
        # The pick-up was too quick (or the hand detector too patchy) for a rest: it happened
        # when the fingertips last came over the moved piece before the rest that put it down (a
        # hand entering over its own back rank passes over pieces there first). A piece moved to
        # the next point is picked up where it is put down: then the first rest at either point.
        m, ds, cs = self.move, self.rests, order.contact_at
        place = order.put_down
        put_down = self.start_of(place)
        if place == len(ds) and ds and not self.capture:
            # no rest at the destination either: the piece was put down no later than the hand's
            # first pass over it after its last rest; a pass over the origin after that is the
            # hand leaving (a piece taken from a corner with the hand's lead a point diagonally
            # in front of it for the whole grab, carried along the edge, the hand then leaving
            # over the corner: the grab is no touch of the piece beside the corner)
            passes = [d.frame_start for d in self.stretches if d.frame_start > ds[-1].frame_end
                      and m.to_sq in (c := self.contacts_of(d)) and m.from_sq not in c]
            put_down = min([put_down] + passes[:1])
        # (over the moved piece: with a capture's victim beside it, the contact names the victim's
        # point first; a plain move's destination beside it is left as it was: the pass onto it
        # is the move itself)
        over = [d.frame_start for d in self.stretches if d.frame_start < put_down
                and (self.contact(d) == m.from_sq or (self.capture and m.from_sq in self.contacts_of(d)))]
        first = over[-1:] or [d.frame_start for d, c in zip(ds, cs) if c in self.involved]
        if not first:
            # the pick-up was not seen (the detector lost the hand over the moved piece): the move
            # came no earlier than the fingertips' first pass within a step of its origin or its
            # destination, so a rest that ended before it came before the pick-up (a rest on one
            # piece, then another moved with the hand unseen over it until it put the piece down,
            # its fingertips read a point off the destination)
            first = [d.frame_start for d in self.stretches if any(
                king_steps(q, m.from_sq) <= 1 or king_steps(q, m.to_sq) <= 1 for q in self.contacts_of(d))][:1]
        if not first:
            return None
        return sum(1 for d in ds if d.frame_end < first[0])

    def before_pick_up(self) -> "RestsBeforePickUp | None":
        """The rests put in order with the move, how many came before the pick-up less a
        capture's victim being lifted, and those that set the victim down beyond the edge (None:
        the hand was never seen near the move). Worked out once: the touch rule, the face-change
        rule and the pick-up check all ask it of the same rests."""
        if not hasattr(self, "_before_pick_up"):
            self._before_pick_up = self._find_before_pick_up()
        return self._before_pick_up

    def _find_before_pick_up(self) -> "RestsBeforePickUp | None":
        order = self.order()
        pick = self.pick_up(order)
        if pick is None:
            return None
        limit, aside = self.victim_lift(order, pick)
        # rests from the victim's lift to the pick-up at the board's side edge carried it there
        carried = {i for i in range(limit, pick) if self.rests[i].point % 9 in (0, 8)}
        return RestsBeforePickUp(order, limit, aside, carried)

    def victim_lift(self, order: RestOrder, limit: int) -> tuple[int, set[int]]:
        """A capture's victim came off before the pick-up: rests from its lift on are no touches.
        Returns the rests that may be touches (how many) and those among them that set the victim
        down beyond the board's edge."""
        m, ds = self.move, self.rests
        if not self.capture:
            return limit, set()
        lifted_earlier = [i for i, c in enumerate(order.contact_at[:limit]) if c == m.to_sq]
        if limit < len(ds) and order.contact_at[limit] == m.to_sq and m.from_sq in self.contacts_of(ds[limit]) \
                and not lifted_earlier:
            # the pick-up was put at a rest on the victim's own point with the moved piece under
            # the fingers too: that one rest lifted the victim and took the piece beside it, and
            # rests before it may be touches (a touch of another piece, the victim under the
            # hand's edge, then one rest on the victim's point lifting it and moving the capturing
            # piece beside it there). Not when an earlier rest was on the victim's point: that one
            # lifted it, and the rests after it carried it away (a rest at the board's side edge
            # then sets the victim down beyond the edge, no touch of the piece there). A rest at the
            # board's side edge after the fingertips passed over the victim's point still set the
            # victim down beyond that edge (a victim lifted in a pass too quick for a rest, set down
            # beyond the edge, then the capture made in one rest on the victim's point)
            return limit, self.set_down_beyond_edge(limit, tips_only=True)
        first_victim = lifted_earlier
        if not first_victim:
            # The victim had to come off before the pick-up, so a hand rested at its point; seen
            # from the player's side that rest often leads with the point next to it (a broad hand
            # over the edge rank leads with the rank beyond). The last rest before the pick-up
            # beside the victim, with its point under the hand, is that lift; earlier rests may
            # still be touches.
            first_victim = [i for i, d in enumerate(ds[:limit])
                            if king_steps(d.point, m.to_sq) <= 1 and covered_during(self.s.episode, d, m.to_sq)][-1:]
        if first_victim:
            return first_victim[0], set()
        # The victim was lifted too quickly for a rest. A rest at the board's side edge after the
        # fingertips first came over its point, and before the pick-up, is the victim being set
        # down beyond that edge (a victim carried along the edge rank and set down beyond the
        # corner, the hand resting at the corner meanwhile). A rest elsewhere is not: a hand may
        # cross the victim's point on its way in to a touch.
        return limit, self.set_down_beyond_edge(limit)

    def set_down_beyond_edge(self, limit: int, tips_only: bool = False) -> set[int]:
        """The rests before rests[limit] at the board's side edge after the fingers first came
        over the capture's victim: the victim being set down beyond that edge. `tips_only`: over
        it means the fingertips themselves (the rest at `limit` is on the victim's point, and a
        hand merely covering it on its way to a touch is no lift)."""
        m, ds = self.move, self.rests
        pick = self.start_of(limit)
        over = [d.frame_start for d in self.stretches if d.frame_start < pick
                and m.to_sq in (self.tips_of(d) if tips_only else self.contacts_of(d))]
        if not over:
            return set()
        return {i for i, d in enumerate(ds[:limit]) if d.frame_start > over[0] and d.point % 9 in (0, 8)}

    def first_touch(self, limit: int, early: set[int], picks: list[int], skip: set[int]) -> Touch | None:
        """The first of the rests before rests[limit], less those in `skip`, that was on another
        own unmoved piece."""
        s, cfg, m = self.s, self.s.cfg, self.move
        for i, d in enumerate(self.rests[:limit]):
            if i in skip:
                continue      # setting a victim down beyond the edge, or too short to count
            # the fingertips over a disc put back on its point this episode, or beside it, or that
            # disc under the hand: that rest names a piece only if its face turned as a touch turns
            # one (a player putting a disc right may also touch a piece beside the spot, turning
            # it; the pieces the hand merely hangs over keep their faces)
            # A piece the disc lay against under the hand counts too: the hand pushing a disc back
            # from beside it is read a point off (the fingertips read beyond the piece the disc
            # lay against, whose face changes as the disc leaves its crop)
            righting_rest = bool(self.righting.points & set(self.tips_of(d))
                                 or (self.righting.discs | self.righting.leaned_on) & set(self.contacts_of(d)))
            cands = self.contacts_of(d)
            if any(p in early for p in cands):
                if any(p in early for p in self.tips_of(d)) or not (any(
                        j > i and m.from_sq in self.tips_of(self.rests[j]) for j in picks)
                        or self.went_back_to_moved(i)):
                    continue      # the hand may have been on the moved piece itself
                # the moved piece lay only beside the fingertips (a step toward the camera or the
                # player's edge), and a later rest had them on it: this rest was on another piece
                # (a piece touched with the moved piece diagonally beside the fingertips, or with
                # the rest on the moved piece coming after a capture's victim was lifted)
                cands = [p for p in cands if p not in early]
            pieces = [p for p in cands if self.occupied(p)]
            if pieces and not own_piece(s, self.mem, self.mover, pieces[0]) and not self.occupied(d.point):
                # fingertips read on an empty point with the opponent's piece beside it and an own
                # piece under the fingers too: the rest is on the own piece (a hand does not rest on
                # the opponent's pieces it does not take)
                pieces = [p for p in pieces if self.own_unmoved(p)] or pieces
            if not pieces or not self.own_unmoved(pieces[0]):
                continue      # on no piece, the opponent's, or one being put right (between points)
            # where the fingers were is uncertain by a point: name the own pieces the
            # fingertips may have been on (the arbiter looks at the evidence frames)
            tip_points = self.tips_of(d)
            named = [p for p in dict.fromkeys([pieces[0]] + tip_points + pieces) if self.own_unmoved(p)]
            if len(named) == 1:
                # one piece named: an own piece a step from the fingertips whose face turned as a
                # touch turns one is the other the fingers may have been on (a rest read in front
                # of a corner names the corner piece, while the piece beside it, the one touched,
                # turned more)
                turned = [q for q in range(90) if q not in named and self.own_unmoved(q)
                          and any(king_steps(q, tp) <= 1 for tp in tip_points)
                          and face_change(s, q) >= max(cfg.handled_look, face_change(s, named[0]))]
                named = sorted(turned, key=lambda q: -face_change(s, q))[:1] + named
            if righting_rest:
                # and not a piece the disc lay against: its face changed as the disc left its crop
                # (a disc half way to the next point, put right, turns the face of the piece on that
                # next point by a third, with nobody touching it)
                # Its face must also stand out from the whole board's: the hand that sets a disc
                # right hangs over its neighbours (on a noisy, glaring view a neighbour under the
                # hand's edge changes its face a quarter where the board's median changes a sixth)
                floor = max(cfg.handled_look, cfg.righting_over_steady * median_face_change(s, named))
                named = [q for q in named if face_change(s, q) >= floor and q not in self.righting.leaned_on]
            if named:
                return Touch(named[:2], d)
        return None


def touched_before_move(rests: MoverRests) -> Touch | None:
    """The mover's rest on another own unmoved piece before the rest that picked up the moved one.

    In steps: put the rests in order with the move (which picked the piece up, which put it
    down), count the rests before the pick-up, less a capture's victim being lifted, and judge
    those in turn."""
    if not rests.hand_seen_at_destination():
        return rests.touch_before_unseen_move()
    before = rests.before_pick_up()
    if before is None:
        return None
    return rests.first_touch(before.limit, before.order.early, before.order.picks, before.aside)


def victim_set_down_beside(rests: MoverRests, q: int) -> bool:
    """The mover set the capture's victim down beyond the board's edge beside point q: the disc
    lying there reaches into q's crop, and the hand setting it down hung over q, so q's face
    changed with nobody touching it (a victim set down beyond a corner turns the corner piece's
    face by a third). Only after a rest seen lifting the victim: a side-edge rest put down to a
    lift too quick to be seen may be a touch (fingertips crossing the victim's point on the way
    in, then resting a second on an edge piece and turning it, then taking the capture in one
    rest)."""
    if not rests.capture or not rests.hand_seen_at_destination():
        return False
    before = rests.before_pick_up()
    return before is not None and any(king_steps(rests.rests[i].point, q) <= 1 for i in before.carried)


def handled_before_move(rests: MoverRests) -> Touch | None:
    """The piece a hand handled in this episode (handled_piece), when it is another own unmoved
    piece the mover's fingers came near: the hand turned or pushed it, so it was touched, where no
    rest was read on it (the fingertips read a point off, or alternating between two points)."""
    s, mem, knocked = rests.s, rests.mem, rests.knocked
    mover = s.mover
    assert mover is not None
    m = s.moves[0]
    q = handled_piece(s)
    if q is None or q in s.moved_points | beside_displaced_disc(s.cfg, s.before, m.from_sq):
        return None
    if any(king_steps(q, mv.to_sq) == 1 and off_point(s, mv.to_sq) for mv in s.moves):
        return None     # a disc just put down off its point beside it reaches into its crop
    if q in knocked or q in mem.knocked_reported or q in {k.point for k in mem.pending_faded}:
        return None
    if not own_piece(s, mem, mover, q):
        return None     # the opponent's piece: a knock nobody measured, no touch
    if victim_set_down_beside(rests, q):
        return None
    # only while the move was being made: a hand leaving after it put the piece down passes over
    # pieces on its way out (for a frame or two, changing their faces as a touch does)
    fingers_s = under_fingers_seconds(s.episode, mover, q, until=released_at(s.episode, mover, m.from_sq, m.to_sq))
    if fingers_s < s.cfg.handled_fingers_s:
        # hardly under the mover's fingers: something else changed it (a hand coming in over its
        # back rank for a frame changes all the rank's faces a little under the arm, one of them
        # most; the touches this rule finds on the bench had the fingers over the piece 0.16 s or
        # more, most of them a second)
        return None
    if other_hand_longer(s.episode, mover, q, fingers_s):
        # an arm reaching across the board to a far piece is read, where it lies over the other
        # end, as the other side's hand, and the mover's own fingers over that piece only
        # briefly. (Where the arm came in is not asked here: a true touch may have the fingers
        # over its piece as briefly, and an arm's side is what this weighs.)
        return None
    return Touch([q], None)


MAX_PLIES_FOR_TOUCH = 2   # a touch is judged in a settle explained by at most this many plies (a quick reply)


def handled_instead(rests: MoverRests, touch: Touch) -> Touch:
    """The touch a rest found, or the piece the hand clearly handled (handled_before_move) when it
    is another one and no piece the rest names shows a handled face (`handled_look`): the rest was
    the hand passing, the turned piece the touch (fingers that handle a piece while their reading
    flickers between points never rest on it, and the hand may then pause briefly over another
    piece on its way to the one it moves, leaving that one's face as it was)."""
    s = rests.s
    if any(not face_change(s, q) < s.cfg.handled_look for q in touch.points):
        return touch      # a face turned as a handled one, or not read again: the rest stands
    handled = handled_before_move(rests)
    if handled is None or set(handled.points) & set(touch.points):
        return touch
    return handled


def judge_touch(s: SettleFacts, mem: IncidentMemory, found: Findings, remembered: bool = True) -> None:
    """Whether the mover of s.moves[0] touched another own piece before the one moved, reported in
    `found`. `remembered`: what came before this settle counts too (the rests remembered from
    stretches without a move, and the last episode where the mover's hand was not seen in this
    one); not for the reply made in the same stretch as the move before it."""
    cfg, before, mover = s.cfg, s.before, s.mover
    assert mover is not None
    m = s.moves[0]
    moved = s.moved_points
    rests = found_by = MoverRests(s, mem, found.knocked)
    touch = touched_before_move(rests)
    if touch is None and remembered and mem.last_episode is not None and not dwells(s.episode, mover, 0.0):
        # the mover's hand was never over the board in this episode: the move was made in
        # the last one, the board read settled before the reply was (a move and a quick reply in
        # one stretch of hands, the reply read a few frames after the settle the move explained:
        # the reply's rests lie in that earlier episode)
        found_by = MoverRests(replace(s, episode=mem.last_episode), mem, found.knocked)
        touch = touched_before_move(found_by)
    if touch is not None:
        aside = set_aside(s, found_by, touch)
        if aside is not None:
            # put down to something else: weighed for a review note, not an accusation
            found.candidates.append(Candidate(_touch_event(s, touch, None), _signals(found_by.s, touch, rules=False),
                                              aside))
            touch = None
    if touch is not None and touch.dwell is not None:
        touch = handled_instead(rests, touch)
    from_pending: dict[str, int] | None = None
    pending_signals: dict | None = None
    if touch is None:
        # the touch may have been its own hands-over-board stretch, the hand
        # lifted clear of the board before reaching for the piece it moved
        beside = beside_displaced_disc(cfg, before, m.from_sq)

        def other_own(q: int) -> bool:
            return q != m.from_sq and q not in moved | beside and own_piece(s, mem, mover, q)

        for pt in (mem.pending_touches if remembered else []):
            if pt.side == mover and other_own(pt.point):
                named = [q for q in pt.also if other_own(q)]
                if not named and _beside_move_unchanged(s, pt.point, pt.face_change):
                    # the same reading as rest_a_point_off, with the face read when that
                    # stretch settled: the fingers were on the piece moved now, a point off
                    continue
                touch = Touch([pt.point] + named[:1], None)
                from_pending, pending_signals = pt.frames, pt.signals
                break
    if touch is None:
        touch = handled_before_move(rests)
    if touch is not None:
        ev = _touch_event(s, touch, from_pending)
        # the pending touch's rest lay in its own stretch: its signals were measured there
        # (None: no faces were read then, and the rules alone decide)
        ev.extra["signals"] = pending_signals if from_pending is not None else \
            _as_dict(_signals(found_by.s if touch.dwell is not None else s, touch))
        found.events.append(ev)


def _touch_event(s: SettleFacts, touch: Touch, from_pending: dict[str, int] | None) -> IncidentEvent:
    """The touch_move_other incident of `touch` before the first move of s."""
    mover, m = s.mover, s.moves[0]
    frames = evidence_frames(s.cfg, s.episode, s.after, touch.points[0])
    if touch.dwell is not None:
        frames["during"] = (touch.dwell.frame_start + touch.dwell.frame_end) // 2
    elif from_pending is not None:
        frames.update({k: v for k, v in from_pending.items() if k in ("before", "during")})
    where = " or ".join(point_name(p) for p in touch.points)
    return IncidentEvent(s.t, s.ply, "touch_move_other", mover, list(touch.points) + [m.from_sq],
                         f"{mover} touched {where} then moved {m.iccs()}", frames=frames)


def _signals(s: SettleFacts, touch: Touch, rules: bool = True) -> HandSignals | None:
    """The mover's hand signals at the touched piece (weigh.hand_signals)."""
    assert s.mover is not None
    return hand_signals(s, s.mover, touch.points[0], touch.dwell, rules)


def _as_dict(signals: HandSignals | None) -> dict | None:
    return signals.to_dict() if signals is not None else None


def set_aside(s: SettleFacts, rests: MoverRests, touch: Touch) -> str | None:
    """Why a rest found before the pick-up is no touch, or None: the pick-up read a point off
    (`rest_a_point_off`, `unseen_pick_up_read_beside`, `pick_up_read_short`) or a hand hovering
    (`hovered`). The name is the note's `set_aside`."""
    if rest_a_point_off(s, touch) and not rests.before_hand_over_moved(touch):
        return "rest_a_point_off"
    if rests.unseen_pick_up_read_beside(touch):
        return "unseen_pick_up_read_beside"
    if hovered(s, touch):
        return "hovered"
    if pick_up_read_short(s, touch):
        return "pick_up_read_short"
    return None


def touch_move(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """The mover's hand rested on another own piece before picking up the one moved (in this
    stretch, or in a stretch of its own before it, hand lifted clear). A settle without a move
    remembers the side to move resting a hand on its own pieces for that."""
    cfg, before = s.cfg, s.before
    mover = s.mover
    if len(s.moves) > MAX_PLIES_FOR_TOUCH:
        # a settle that catches up three plies or more (the board was never seen quiet between
        # them, or the reader lost it): which rest came before which pick-up is not known (one
        # player's rest could be judged against the other player's move)
        mem.pending_touches = []
        return
    if s.moves and mover is not None:
        judge_touch(s, mem, found)
        if len(s.moves) == 2:
            # the reply made in the same stretch of hands: its mover's rests before picking up
            # the piece it moved are judged the same way (a move and its reply read at one settle:
            # the reply's mover may have touched another piece first, just as the first mover)
            # Only from the first mover's hand gone: before that, the reply's side may have been
            # touching its own last move's piece again (a re-touch, judged as such), and which of
            # its rests came before the reply's pick-up is told within its own stretch alone
            # (a player's fingers back on the piece just put down, then the opponent's reply and the
            # player's next move read at one settle: that first rest is no touch before the next
            # move)
            first_gone = max((d.frame_end for d in dwells(s.episode, mover, 0.0)), default=None)
            if first_gone is not None:
                after_first = s.before_pos.copy()
                after_first.push(s.moves[0])
                own_stretch = replace(s.episode, covered=[c for c in s.episode.covered if c[0] > first_gone])
                judge_touch(replace(s, moves=s.moves[1:], before_pos=after_first, episode=own_stretch), mem, found,
                            remembered=False)
        mem.pending_touches = []
    elif not s.moves and s.explained:
        # no move: remember the side to move resting a hand on its own pieces
        # (a hand that went to one place, not an arm sweeping across)
        side = Side.from_fen(s.before_pos.turn)
        ep = s.episode
        span = reach(ep, side)
        local = span <= cfg.touch_reach
        # a hand whose fingertips never left one point went to that piece and back: a
        # rest there counts from `lone_dwell_s` (a disc on the player's own edge rank,
        # reached from beyond the edge, is covered only while the fingers are on it); a hand
        # that roamed farther rests on a piece only by staying on it `roam_dwell_s`
        min_s = cfg.lone_dwell_s if span == 0 else cfg.dwell_s if local else cfg.roam_dwell_s
        # only a hand that came in over the side to move's own edge (board.episode.dwells
        # by_entry: a hand reaching across the whole board from one edge is read, at that edge, as
        # the other side's fingertips resting on a piece there)
        for d in dwells(ep, side, min_s, by_entry=True):
            for c in contacts(ep, d, side):
                if own_piece(s, mem, side, c):
                    also = tuple(q for q in tips(ep, d, side) if q != c and own_piece(s, mem, side, q))[:1]
                    if d.seconds < cfg.hover_s and face_unchanged(s, c):
                        # a short rest that left the piece exactly as it was, as `hovered` judges
                        # a rest before a move (a flicker read as fingertips for a quarter second,
                        # with no hand there at all, leaves every face as it was) ...
                        turned_tip = [q for q in also if turned_beyond_noise(s, q)]
                        if not turned_tip:
                            break
                        # ... unless the other own piece under the fingertips turned: the fingers
                        # were on that one, read a point off (a short rest read on one piece, its
                        # face as it was, while the piece beside it under the fingertips turned
                        # well beyond the board's noise)
                        c, also = turned_tip[0], (c,)
                    # where the fingers were is uncertain by a point: keep the other own piece
                    # the fingertips may have been on, as the touch in this stretch does
                    turned = handled_piece(s)
                    if turned is not None and turned != c and face_kept(s, c) and covered_during(ep, d, turned) \
                            and own_piece(s, mem, side, turned):
                        # the hand lay over two pieces and the fingertips were read on the wrong
                        # one: the piece it turned is the one it was on (a hand over two pieces by
                        # its edge, the fingertips read on the one it later moves, the other turned:
                        # the turned one was touched)
                        c, also = turned, (c,)
                    mem.pending_touches.append(
                        PendingTouch(side, c, {"before": before.frame_index,
                                               "during": (d.frame_start + d.frame_end) // 2}, also,
                                     face_change(s, c), _as_dict(hand_signals(s, side, c, d))))
                    break
        if local:
            handled_without_rest(s, mem, side)


def handled_without_rest(s: SettleFacts, mem: IncidentMemory, side: Side) -> None:
    """A stretch without a move in which no rest of the side to move was read, but one of its own
    pieces under its fingers was handled (`handled_piece`: its face turned, standing out from every
    other): that is a touch too, remembered for the move to come, as handled_before_move judges one
    in the move's own stretch (fingers that turn a piece in a quick touch, too quick for a rest,
    then lift clear before a stretch later moving another). Only a hand that stayed local: an arm
    sweeping across the board changes a face it passes over too."""
    q = handled_piece(s)
    if q is None or any(pt.side == side and s.before.frame_index == pt.frames.get("before")
                        for pt in mem.pending_touches):
        return
    if not own_piece(s, mem, side, q):
        return
    fingers_s = under_fingers_seconds(s.episode, side, q)
    if fingers_s < s.cfg.handled_fingers_s or other_hand_longer(s.episode, side, q, fingers_s):
        return
    mem.pending_touches.append(PendingTouch(side, q, evidence_frames(s.cfg, s.episode, s.after, q), (),
                                            face_change(s, q), _as_dict(hand_signals(s, side, q))))
