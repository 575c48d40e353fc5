"""The incident rules applied at each settle, in order, with the memory they keep across settles.

At every settle judged against a real (not provisional) board, `RULES` runs: `retouch`,
`confirm_faded_knocks`, `knocked`, `touch_move`, `between_points`. The order is physical: later
rules read what earlier ones found. The piece its player touched again is that re-touch, not a
knock; a knocked disc is no touch (the hand that knocked it was not resting on it) and no
between-points incident (it lies off its point because it was knocked). After the rules the
settle's last move is remembered (`remember_last_move`: what a re-touch is judged against) and
where each clearly read disc sits (`remember_clear_offsets`).

When the reader took another lattice between two settles, every offset is measured against
another grid: the difference is the grids', not the discs', so no disc is judged moved by its
offset. A correction that re-states recorded plies voids the incidents judged at the points it
re-states (`void_after_correction`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from rules import Move, Position, Side

from ..episode import Episode, Settled, dwells
from ..events import Event, IncidentEvent, point_name
from ..explain import Explanation, PhysicalMove
from .between import between_points, between_restated, put_down_between_event
from .facts import (Findings, IncidentConfig, IncidentMemory, IncidentRule, LastMove, SettleFacts, common_drift,
                    evidence_frames, own_piece)
from .hand import contacts
from .illegal import illegal_move_event
from .knock import confirm_faded_knocks, knocked, knocked_off_event, remember_clear_offsets
from .retouch import retouch
from .touch import touch_move
from .weigh import Candidate, EvidenceModel, HandSignals, hand_signals, weigh


RULES: tuple[IncidentRule, ...] = (retouch, confirm_faded_knocks, knocked, touch_move, between_points)
"""Applied in this order at every settle judged against a real (not provisional) board."""


def remember_last_move(s: SettleFacts, mem: IncidentMemory) -> None:
    """After the rules: the settle's last move is the one a re-touch would be judged against, and
    its episode the one a reply read only at the next settle was made in."""
    mem.last_episode = s.episode if s.moves else None
    if not s.moves:
        return
    mover = s.mover
    assert mover is not None
    side_last = mover if len(s.moves) % 2 == 1 else mover.opponent
    mem.last_move = LastMove(s.moves[-1].to_sq, side_last, s.ply, s.after.frame_index)


def void_after_correction(raised: list[IncidentEvent], first_ply: int, was: list[Move],
                          now: list[Move]) -> list[IncidentEvent]:
    """The incidents a correction makes void: raised once ply `first_ply` had been recorded
    (their `ply` is at least it) on a point the correction re-states: one that the replaced
    moves use and the replacing ones do not, or the other way round.

    Why these: such an incident was judged against a position the correction now says was
    wrong at exactly those points (a disc read as put down where it was not, a piece expected
    where none stood), so its evidence no longer says what it said. A point both versions use
    alike (the square the same piece left) keeps what was judged there: a touch of another
    piece before picking up that piece stands whichever square it then went to. An incident
    elsewhere on the board, or raised before the re-stated plies, is left as it was.
    """
    used_was = {q for m in was for q in (m.from_sq, m.to_sq)}
    used_now = {q for m in now for q in (m.from_sq, m.to_sq)}
    changed = used_was ^ used_now
    return [e for e in raised if e.ply >= first_ply and changed & set(e.points)]


def survey_rests(s: SettleFacts, mem: IncidentMemory, found: Findings,
                 sides: tuple[Side, ...] = (Side.RED, Side.BLACK)) -> None:
    """Every rest of either hand (`dwell_s` or longer) with one of its own unmoved pieces under the
    fingers (`contacts`) that no
    incident or candidate of this settle names, as a candidate set aside as `survey`: the touch if
    the side moved in this settle or has the move, a re-touch if it was the piece it just put down."""
    named = {p for e in found.events for p in e.points} | {p for c in found.candidates for p in c.event.points}
    mover = s.mover
    for side in sides:
        for d in dwells(s.episode, side, s.cfg.dwell_s):
            near = [q for q in contacts(s.episode, d, side)
                    if q not in named and q not in s.moved_points and own_piece(s, mem, side, q)]
            if not near:
                continue
            p = near[0]
            named.add(p)
            last = mem.last_move
            if last is not None and not s.moves and last.side == side and last.to_sq == p:
                kind, detail = "retouch", f"{side} rested on {point_name(p)} again"
            elif s.moves and side == mover:
                kind, detail = "touch_move_other", (f"{side} rested {d.seconds:.1f} s on {point_name(p)}, then "
                                                    f"moved {s.moves[0].iccs()}")
            else:
                kind, detail = "touch_move_other", f"{side} rested {d.seconds:.1f} s on {point_name(p)}"
            pts = [p] + ([s.moves[0].from_sq] if s.moves and side == mover else [])
            ev = IncidentEvent(s.t, s.ply, kind, side, pts, detail,
                               frames=evidence_frames(s.cfg, s.episode, s.after, p))
            found.candidates.append(Candidate(ev, hand_signals(s, side, p, d, rules=False), "survey"))


class IncidentTracker:
    """Applies the incident rules at each settle and keeps their memory across settles; also builds
    the incidents the tracker itself finds (knocked off, put down between points, illegal move)."""

    survey: bool = False
    """Also weigh every rest of either hand on one of its own unmoved pieces that no rule spoke of
    (`survey_rests`), at every settle: bench/fit_evidence.py turns it on to learn what rests that
    were no touch look like. In use only the mover's rests at a settle with a move are weighed, and
    only ever for a review note."""

    def __init__(self, config: IncidentConfig | None = None, rules: tuple[IncidentRule, ...] = RULES,
                 evidence: EvidenceModel | None = None) -> None:
        """`evidence`: the model that weighs what a hand did (weigh.py); None, the rules alone decide."""
        self.cfg = config or IncidentConfig()
        self.rules = rules
        self.evidence = evidence
        self.memory = IncidentMemory()

    def after_settle(self, ep: Episode, after: Settled, ex: Explanation | None, before_pos: Position,
                     ply: int) -> list[Event]:
        """Incidents of one settled episode. `ex` is None when the settle was not explained."""
        if ep.before.provisional:
            self.memory.between_fresh.clear()
            return []
        before = ep.before
        if before.lattice != after.lattice:
            # the reader took another lattice since the last settle (a new lock, a better lattice
            # found, the lock re-seated): every offset is measured against another grid, and the
            # difference is the grids', not the discs' (a first lock replaced by a clearly better
            # lattice a second later shifts untouched discs by a knock's worth). No disc is judged
            # moved by its offset.
            both = before.visible & after.visible
            before = replace(before, offsets=np.where(both[:, None], after.offsets, before.offsets))
        facts = SettleFacts(self.cfg, ep, before, after, before_pos, ex.moves if ex is not None else [],
                            ex is not None, ply, common_drift(before, after, self.cfg.min_discs_for_drift))
        found = Findings()
        for rule in self.rules:
            rule(facts, self.memory, found)
        if self.survey:
            survey_rests(facts, self.memory, found)
        elif self.evidence is not None and facts.mover is not None:
            # the mover's rests on its other pieces that no rule took for a touch: the model may
            # still find one strong enough for the arbiter to look at (a note, never an accusation)
            survey_rests(facts, self.memory, found, (facts.mover,))
        remember_last_move(facts, self.memory)
        remember_clear_offsets(facts, self.memory)
        self.memory.between_fresh.clear()

        def signals_of(e: IncidentEvent) -> HandSignals | None:
            return hand_signals(facts, e.side, e.points[0]) if e.side is not None and e.points else None

        return list(weigh(found.events, found.candidates, self.evidence, signals_of))

    def forget_last_move(self) -> None:
        """A correction re-stated the last plies: the piece the record said was just put down was
        not put down there, so a hand going back to that point is no re-touch (a disc left between
        points read as a move there, then corrected, is put right by its player, no re-touch). The
        corrected move's
        release was not seen as such; nothing is judged as its re-touch."""
        self.memory.last_move = None
        self.memory.last_episode = None

    def restate_between(self, inc: IncidentEvent, was: list[Move], now: list[Move], after: Settled,
                        ep: Episode) -> IncidentEvent | None:
        """between_restated, remembered as reported on the corrected point."""
        again = between_restated(self.cfg, inc, was, now, after, ep)
        if again is not None:
            self.memory.between_reported.discard(inc.points[0])
            self.memory.between_reported.add(again.points[0])
            self.memory.between_fresh.add(again.points[0])
        return again

    def flush(self) -> list[Event]:
        """The source ended: knocks still waiting for a second look are reported as they are."""
        out: list[Event] = [k.event for k in self.memory.pending_faded]
        self.memory.pending_faded = []
        return out

    def knocked_off(self, t: float, ply: int, side: Side, piece: str, p: int, disc_seen_near: bool,
                    frames: dict[str, int]) -> IncidentEvent:
        """A piece gone from point p that no legal move explains, a hand near it (the tracker
        decides that): knocked, and not reported again while its point stays empty (knock.py)."""
        return knocked_off_event(self.memory, t, ply, side, piece, p, disc_seen_near, frames)

    def put_down_between(self, t: float, ply: int, piece: str, p: int, offset: np.ndarray,
                         frames: dict[str, int]) -> IncidentEvent:
        """A moved piece the tracker recorded from a disc seen off the points (or from the
        mover's rest, when the disc reads on no point): between points, reported once (between.py)."""
        return put_down_between_event(self.cfg, self.memory, t, ply, piece, p, offset, frames)

    def illegal_move(self, t: float, ply: int, side: Side, phys: PhysicalMove, reason: str,
                     board_shows: str, frames: dict[str, int]) -> IncidentEvent:
        """The illegal move the tracker judged (illegal.py)."""
        return illegal_move_event(t, ply, side, phys, reason, board_shows, frames)
