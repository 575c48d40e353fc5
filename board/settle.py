"""The settle chain: what a settled board means, as named explainers tried in order.

Why a chain: a settle used to be decided by one long method of fallbacks steered by flags
(rescued, knocked_off, correction). Here each way of explaining a settle is a small function of
a `SettleContext` that returns a typed `SettleOutcome` when it applies, None otherwise; the
tracker tries `EXPLAINERS` in order and applies the first outcome (or reports the board as
unexplained when none applies). Pure: the only state any step touches is the incident tracker's
record of what it has reported (a knocked piece is reported once).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from rules import Move, Position, Side

from .corrector import Correction, CorrectorConfig, find_correction, find_rewind
from .episode import Episode, _attributed, dwells
from .events import Event, TrackingEvent, TrackingStatus, point_name
from .explain import (CLASS_LETTERS, Evidence, ExplainConfig, Explanation, PhysicalMove, apply_move,
                      board_classes, explain)
from .incidents import IncidentConfig, IncidentTracker, disc_place, king_steps, point_face_change
from .sync import SettleKind
from .window import Frame, SettleReading


def neighbours(p: int) -> list[int]:
    """The up-to-8 points around point p."""
    x, y = p % 9, p // 9
    return [(y + dy) * 9 + x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx <= 8 and 0 <= y + dy <= 9]


@dataclass
class SettleConfig:
    """The thresholds the explainers use (all owned by the tracker's config)."""

    explain: ExplainConfig = field(default_factory=ExplainConfig)
    incidents: IncidentConfig = field(default_factory=IncidentConfig)
    corrector: CorrectorConfig = field(default_factory=CorrectorConfig)
    near_hand_points: int = 2          # a piece gone counts as knocked off with a hand this many points away
    knock_stretch_gap_s: float = 3.0   # ... or with a hand over the board in a stretch ending this long before
    max_discs_off_points: int = 2      # moves are recorded with at most this many of their points read empty beside a disc (one put down between points, one knocked aside)
    first_piece_nats: float = 2.0      # a point reads as the first ply's piece over a later ply's by this much (nats)


@dataclass(frozen=True)
class HeldBoard:
    """An unexplained board the tracker waited on: the points no move explained, and how many
    plies its best explanation had. A later settle that still leaves exactly those points
    unexplained, after more moves were made, shows that the board was no passing state."""

    residual: frozenset[int]
    plies: int

    def outlived_by(self, ex: Explanation) -> bool:
        return frozenset(ex.residual) == self.residual and len(ex.moves) > self.plies


@dataclass
class SettleContext:
    """Everything the explainers read about one settle."""

    kind: SettleKind
    position: Position                 # the recorded position (not changed by the explainers)
    ply: int
    revisable: int                     # recorded plies the corrector may replace (the last ones, none locked)
    unconfirmed_start: bool            # the start position has not been seen on the board yet
    reading: SettleReading
    explanation: Explanation           # the best legal explanation of the board (explain.explain)
    episode: Episode
    prev_episode: Episode | None       # the stretch before (a hand may have left just before this one)
    last: Frame                        # the frame that settled
    cfg: SettleConfig
    incidents: IncidentTracker
    held: HeldBoard | None = None      # the unexplained board waited on before this settle, if any
    looks: np.ndarray | None = None    # (90, D) each point's face as the reader last read it (vision.looks), if it looks

    @property
    def evidence(self) -> Evidence:
        return self.reading.evidence

    @property
    def offsets(self) -> np.ndarray:
        return self.reading.offsets


@dataclass
class SettleOutcome:
    """What a settle means.

    `explanation`: the legal explanation the incident rules judge the settle by (None: nothing
    legal explains the board). `correction`: replace recorded plies first (then accept its
    `after`); otherwise `explanation` is accepted. `between`: the accepted move's piece lies off
    the points (a between-points incident once the move is recorded). `events`: what the step
    found before anything is recorded (start mismatch, a knocked-off piece).
    """

    step: str
    explanation: Explanation | None
    correction: Correction | None = None
    between: Move | None = None
    events: list[Event] = field(default_factory=list)


Explainer = Callable[[SettleContext], "SettleOutcome | None"]


def _no_change(position: Position) -> Explanation:
    return Explanation([], 0.0, 0.0, board_classes(position), [])


# ---------------------------------------------------------------- shared helpers
def off_by(offset: np.ndarray, cfg: IncidentConfig) -> bool:
    """An offset reported on an empty point that says a disc lies by it, off it."""
    return bool(np.abs(offset).max() >= cfg.between * 0.5)


def disc_off_point(evidence: Evidence, offsets: np.ndarray, cfg: IncidentConfig, q: int) -> bool:
    """Point q reads empty and the reader sees a disc off it, by it (vision.disc confirms such
    a disc is a piece before it reports its offset on an empty point)."""
    return bool(evidence.visible[q] and evidence.observed()[q] == 0 and off_by(offsets[q], cfg))


def off_point_destination(dests: list[Move], evidence: Evidence, offsets: np.ndarray,
                          cfg: IncidentConfig, offsets_before: np.ndarray | None = None,
                          ties_to_nearer: bool = False, rests: Sequence[int] = ()) -> Move | None:
    """The one move of `dests` whose destination is the legal one nearest a disc seen off the
    points (an empty reading whose offset says where the disc lies): within `disc_reach` of it
    and clearly nearer than any other legal destination. None if none or several. A disc half
    way between a legal destination and a point the piece cannot reach is still put down for
    the legal one (a disc half way to a point the piece cannot reach would otherwise read as the
    piece knocked off its point). A disc seen where it was at the last settle (`offsets_before`)
    was there before the move: not the moved piece (a circle read off a point emptied a move
    earlier is no disc just put down). With `ties_to_nearer`, a disc about as near two legal
    destinations is put down for the nearer.
    A disc about as near the piece's own point as any destination names none (a circle read
    beside the emptied origin, as near it as a destination, is no put-down disc). Of discs by
    several destinations, those within a step of one of the mover's `rests` (points) are the one
    the hand put down (a circle read where no hand came, such as the river's characters, is no
    disc put down)."""
    if not dests:
        return None
    places = np.array([(m.to_sq % 9, m.to_sq // 9) for m in dests], dtype=np.float64)
    origins = {m.from_sq for m in dests}
    hits: dict[int, list[np.ndarray]] = {}
    for disc in _discs_off_points(dests, evidence, offsets, cfg, offsets_before):
        dist = np.linalg.norm(places - disc, axis=1)
        order = np.argsort(dist)
        if dist[order[0]] > cfg.disc_reach:
            continue
        if len(origins) == 1:
            o_sq = next(iter(origins))
            if float(np.hypot(disc[0] - o_sq % 9, disc[1] - o_sq // 9)) - dist[order[0]] < cfg.disc_clear:
                continue    # about as near the piece's own point: pushed off it, or a circle there
        if len(order) > 1 and dist[order[1]] - dist[order[0]] < cfg.disc_clear and not ties_to_nearer:
            continue
        hits.setdefault(int(order[0]), []).append(disc)
    if len(hits) > 1 and rests:
        at_rest = {i: discs for i, discs in hits.items()
                   if any(max(abs(d[0] - r % 9), abs(d[1] - r // 9)) <= 1.0 for d in discs for r in rests)}
        hits = at_rest if at_rest else hits
    return dests[next(iter(hits))] if len(hits) == 1 else None


def _discs_off_points(dests: list[Move], evidence: Evidence, offsets: np.ndarray, cfg: IncidentConfig,
                      offsets_before: np.ndarray | None) -> list[np.ndarray]:
    """Where the discs seen off the points by the destinations of `dests` (or their neighbours)
    lie, in lattice coordinates, leaving out those seen there at the last settle. One disc half way
    between two points is seen from both, measured a little differently from each: positions nearer
    than `one_disc` are one disc, at their mean (a disc between two points may be measured
    nearer the first from one side and nearer the second from the other, and so seem to lie by
    neither)."""
    points: list[int] = []
    for m in dests:
        points += [q for q in (m.to_sq,) + tuple(neighbours(m.to_sq)) if q not in points]
    return discs_off_points_by(points, evidence, offsets, cfg, offsets_before)


def discs_off_points_by(points: Sequence[int], evidence: Evidence, offsets: np.ndarray, cfg: IncidentConfig,
                        offsets_before: np.ndarray | None) -> list[np.ndarray]:
    """Where the discs seen off the points from `points` lie (`_discs_off_points`)."""
    found: list[list[np.ndarray]] = []
    for q in points:
        if not disc_off_point(evidence, offsets, cfg, q):
            continue
        o = offsets[q]
        if offsets_before is not None and off_by(offsets_before[q], cfg) \
                and float(np.linalg.norm(o - offsets_before[q])) < cfg.same_disc:
            continue
        disc = disc_place(q, o)
        for group in found:
            if float(np.linalg.norm(np.mean(group, axis=0) - disc)) < cfg.one_disc:
                group.append(disc)
                break
        else:
            found.append([disc])
    return [np.mean(group, axis=0) for group in found]


def vanished_moves(position: Position, evidence: Evidence, xcfg: ExplainConfig) -> list[Move]:
    """Legal moves of a piece of the side to move that left its point and appears on
    no point (the only change): the candidates for a piece put down between points."""
    ref = board_classes(position)
    diff = evidence.contradictions(ref, xcfg.contradiction)
    if len(diff) != 1:
        return []
    f = diff[0]
    piece = position.piece_at(f)
    if piece is None or evidence.observed()[f] != 0 or not Side.from_fen(position.turn).owns(piece):
        return []
    return [m for m in position.legal_moves() if m.from_sq == f
            and position.piece_at(m.to_sq) is None and evidence.visible[m.to_sq]]


def off_point_disc_move(position: Position, reading: SettleReading, cfg: SettleConfig,
                        offsets_before: np.ndarray | None = None, rests: Sequence[int] = ()) -> Move | None:
    """The candidate move whose destination is the point nearest a disc the reader sees
    near, not on, a point (its reading is empty, its offset says where the disc is), and
    that was not seen there at the last settle (`offsets_before`). The piece left its point and
    reads on none, so the disc is it: one lying about half way between two legal destinations
    was put down for the nearer (a disc put down half a spacing off a point lies about as near
    the next one; choosing none leaves the move unrecorded, the piece 'knocked' and the reply
    'illegal')."""
    return off_point_destination(vanished_moves(position, reading.evidence, cfg.explain),
                                 reading.evidence, reading.offsets, cfg.incidents, offsets_before,
                                 ties_to_nearer=True, rests=rests)


def capture_under_way(position: Position, evidence: Evidence, xcfg: ExplainConfig) -> bool:
    """The only change is one opponent piece gone from a point the side to move can capture on."""
    ref = board_classes(position)
    diff = evidence.contradictions(ref, xcfg.contradiction)
    if len(diff) != 1:
        return False
    p = diff[0]
    return evidence.observed()[p] == 0 and takeable(position, p)


def takeable(position: Position, p: int) -> bool:
    """An opponent piece stands on p and the side to move can capture on p."""
    piece = position.piece_at(p)
    if piece is None or Side.from_fen(position.turn).owns(piece):
        return False
    return any(m.to_sq == p for m in position.legal_moves())


def put_down_off_point(position: Position, move: Move, evidence: Evidence) -> Explanation:
    """`move` as the explanation of a settle whose destination reads empty (the disc lies
    off the point): the destination's reading is a known misread, not a contradiction."""
    ref = board_classes(position)
    board = apply_move(ref, move)
    return Explanation([move], evidence.delta(ref, board), 0.0, board, [])


def illegal_reason(position: Position, phys: PhysicalMove, mover: Side) -> str:
    """Why the physical move `phys` by `mover` is not legal in `position`, in words."""
    turn = Side.from_fen(position.turn)
    if mover != turn:
        return f"{mover} moved out of turn ({turn} to move)"
    m = Move(phys.from_sq, phys.to_sq)
    if m in position.pseudo_legal_moves():
        return "the move leaves the own general in check or facing the other general"
    return "the piece cannot move that way"


def settle_frames_of(ctx: SettleContext) -> dict[str, int]:
    """The evidence frames of a settle: the board before, the busiest frame, the settled frame."""
    ep = ctx.episode
    return {"before": ep.before.frame_index,
            "during": ep.busiest_frame if ep.busiest_frame >= 0 else ep.frame_start,
            "after": ctx.last.frame_index}


# ---------------------------------------------------------------- the explainers, in order
def given_start_position(ctx: SettleContext) -> SettleOutcome | None:
    """The first look at a given start position: where the reader disagrees with it, trust the
    position (it was given) and say where."""
    if not ctx.unconfirmed_start or ctx.explanation.explains:
        return None
    ev = ctx.evidence
    ref = board_classes(ctx.position)
    diff = ev.contradictions(ref, ctx.cfg.explain.contradiction)
    mismatch = TrackingEvent(ctx.last.t, 0, TrackingStatus.START_MISMATCH,
                             "the reader disagrees with the start position on "
                             + ", ".join(f"{point_name(p)} (reads {CLASS_LETTERS[ev.observed()[p]]})"
                                         for p in diff[:12])
                             + "; taking the given position", points=list(diff))
    return SettleOutcome("given_start_position", Explanation([], 0.0, 0.0, ref, []), events=[mismatch])


def capture_unseen(ctx: SettleContext, move: Move) -> bool:
    """`move` is a capture, but its destination reads as it did at the last settle (the same most
    likely class): the capture is only taken for a reading too unsure to tell the capturer from
    the victim, and nothing was seen to change there."""
    before = ctx.episode.before.observed
    if ctx.position.piece_at(move.to_sq) is None or before is None:
        return False
    if int(ctx.evidence.observed()[move.to_sq]) != int(before[move.to_sq]):
        return False
    # a face unlike the one read there before is another disc, whatever class the model names
    # (on a paper set a piece may read as the kind of its capturer both before and after the
    # capture: the capture is then no 'unseen' one)
    return not face_replaced(ctx, move.to_sq)


def face_replaced(ctx: SettleContext, p: int) -> bool:
    """The face read on p now (vision.looks) is unlike the one read there at the last settle, as
    unlike as a knocked disc's (`knocked_look`): another disc lies there."""
    return point_face_change(ctx.episode.before.looks, ctx.looks, p) >= ctx.cfg.incidents.knocked_look


def off_point_destination_move(ctx: SettleContext) -> SettleOutcome | None:
    """The best move's destination reads empty and a disc is seen off the points by another
    legal destination of the same piece: the piece was put down between points there. Without
    this, the destination whose empty reading is least sure (a poorly lit point) wins by a hair
    and the record is wrong from here on. So too when the best move is a capture whose victim is
    still read there as before (on a board seen small, a disc put down between points may be taken
    for a capture of a piece whose unsure reading has not changed at all, and the record is wrong
    from then on)."""
    ex = ctx.explanation
    if ctx.kind == SettleKind.REST or not ex.explains or len(ex.moves) != 1:
        return None
    m = ex.moves[0]
    ev, pos = ctx.evidence, ctx.position
    if not capture_unseen(ctx, m):
        if ev.observed()[m.to_sq] != 0:
            return None   # a piece is read there (perhaps misread as another kind): it was put down there
        if pos.piece_at(m.to_sq) is not None:
            # a capture: its victim is gone from that point, which no move to another point explains
            # (the capturing piece read unsurely on the victim's point, a circle seen elsewhere)
            return None
    dests = [d for d in pos.legal_moves() if d.from_sq == m.from_sq
             and pos.piece_at(d.to_sq) is None and ev.visible[d.to_sq]]
    alt = off_point_destination(dests, ev, ctx.offsets, ctx.cfg.incidents, ctx.episode.before.offsets)
    if alt is None or alt == m:
        return None
    return SettleOutcome("off_point_destination_move", put_down_off_point(pos, alt, ev), between=alt)


def fewer_plies_by_correction(ctx: SettleContext) -> SettleOutcome | None:
    """Moves nobody was seen making, or one recent move misread: a correction of a recorded ply
    that needs fewer new plies wins over inventing them."""
    ex = ctx.explanation
    if ctx.kind == SettleKind.REST or not ex.explains or len(ex.moves) < 2:
        return None
    found = find_correction(ctx.position, ctx.revisable, ctx.evidence, ctx.cfg.corrector, len(ex.moves) - 1)
    if found is None:
        return None
    return SettleOutcome("fewer_plies_by_correction", ex, correction=found)


def legal_moves(ctx: SettleContext) -> SettleOutcome | None:
    """The most likely legal move sequence explains the board: accept it."""
    if not ctx.explanation.explains:
        return None
    return SettleOutcome("legal_moves", ctx.explanation)


def moved_half_way(ctx: SettleContext) -> SettleOutcome | None:
    """Nothing is read as changed (the emptied point reads empty, but not surely enough to
    contradict the record), yet a hand came and went, a piece of the side to move is seen
    `under_way` or more off its point, and the same disc is seen off an empty point it may
    legally move to: the piece was moved there and put down half way. Without this the move waits
    for the next settle while the disc is judged knocked, or left between points a ply early
    (a piece put down half way between two points, seen half a spacing off each, was otherwise
    judged knocked and its move recorded only with the reply)."""
    ex = ctx.explanation
    if not ex.explains or ex.moves or ctx.kind == SettleKind.REST or not ctx.episode.hand_seen:
        return None
    pos, ev, off, icfg = ctx.position, ctx.evidence, ctx.offsets, ctx.cfg.incidents
    before = ctx.episode.before.offsets
    found: list[Move] = []
    for m in pos.legal_moves():
        p, q = m.from_sq, m.to_sq
        if pos.piece_at(q) is not None or not ev.visible[p] or not disc_off_point(ev, off, icfg, q):
            continue
        if float(np.linalg.norm(off[p])) < icfg.under_way:
            continue
        if before is not None and float(np.linalg.norm(off[p] - before[p])) < icfg.same_disc:
            continue   # lay there at the last settle: not moved in this episode
        if float(np.linalg.norm(disc_place(p, off[p]) - disc_place(q, off[q]))) < icfg.one_disc:
            found.append(m)
    if len(found) != 1:
        return None
    return SettleOutcome("moved_half_way", put_down_off_point(pos, found[0], ev), between=found[0])


def vanished_piece(ctx: SettleContext) -> SettleOutcome | None:
    """One piece of the side to move left its point and appears on none: put down between
    points, where the reader sees no piece. Its destination is the point nearest the disc the
    reader sees off the points, else the one the mover's hand last rested next to; with
    neither, it is not a move (a piece gone with no such rest was knocked off)."""
    if ctx.explanation.explains:
        return None
    pos, ev = ctx.position, ctx.evidence
    dests = vanished_moves(pos, ev, ctx.cfg.explain)
    if not dests:
        return None
    side = Side.from_fen(pos.turn)
    rests = dwells(ctx.episode, side, ctx.cfg.incidents.dwell_s)
    choice = off_point_disc_move(pos, ctx.reading, ctx.cfg, ctx.episode.before.offsets, [d.point for d in rests])
    if choice is None:
        for d in reversed(rests):
            near = [m for m in dests if king_steps(m.to_sq, d.point) <= 1]
            if len(near) == 1:
                choice = near[0]
                break
            if near:
                break
    if choice is None:
        return None
    return SettleOutcome("vanished_piece", put_down_off_point(pos, choice, ev), between=choice)


def knocked_off_point(ctx: SettleContext, reference: np.ndarray | None = None) -> int | None:
    """The point of a piece knocked off the board: the only change from `reference` (the
    recorded position's classes by default) is one piece gone from its point, a hand or arm
    came within two points of it, and no legal move accounts for it. A piece gone with no hand
    near it is a reading the tracker cannot explain (out of sync), not an incident."""
    ev = ctx.evidence
    ref = board_classes(ctx.position) if reference is None else reference
    diff = ev.contradictions(ref, ctx.cfg.explain.contradiction)
    if len(diff) != 1:
        return None
    p = diff[0]
    if ref[p] == 0 or ev.observed()[p] != 0:
        return None
    return int(p) if hand_came_near(ctx, p) else None


def hand_came_near(ctx: SettleContext, p: int) -> bool:
    """A hand or arm came within `near_hand_points` of point p in this stretch (or in the one
    just before it: the hand may have left just before the reader looked again)."""
    return hand_near(ctx.episode, ctx.prev_episode, p, ctx.cfg)


def hand_near(episode: Episode, prev_episode: Episode | None, p: int, cfg: SettleConfig) -> bool:
    """`hand_came_near` for a stretch and the one before it."""
    px, py = p % 9, p // 9
    covered = list(episode.covered)
    if prev_episode is not None and episode.t_start - prev_episode.t_last <= cfg.knock_stretch_gap_s:
        covered += prev_episode.covered
    reach = cfg.near_hand_points
    return any(bool(np.any(np.maximum(np.abs(c % 9 - px), np.abs(c // 9 - py)) <= reach)) for _, _, c in covered)


def knock_in_view(position: Position, reading: SettleReading, ex: Explanation, episode: Episode,
                  prev_episode: Episode | None, cfg: SettleConfig, offsets_before: np.ndarray | None) -> bool:
    """The best explanation leaves one point unexplained, a piece of the record gone from it with a
    hand near, and the reader sees a disc off the points within `disc_reach` of it that was not
    there at the last settle: the piece was knocked aside, and the knock is in view now.

    Why: an unexplained board waits `unexplained_wait_s` of clean frames for a hand the detector
    missed, and a frame the detector calls stirred starts that wait again (a move that knocks a
    piece aside, a board quiet for under half a second at a time, and the opponent's hand coming
    in: the move, the knock and the reply were lost)."""
    if len(ex.residual) != 1:
        return False
    p = int(ex.residual[0])
    ev = reading.evidence
    if int(ex.board[p]) == 0 or not ev.visible[p] or ev.observed()[p] != 0:
        return False
    if any(p in (m.from_sq, m.to_sq) for m in ex.moves):
        # the moved piece itself, put down off its point: a disc between points, not a knock
        # (a capturing piece left half way to the next point is no knock of it)
        return False
    if not hand_near(episode, prev_episode, p, cfg):
        return False
    now = position.copy()
    for m in ex.moves:
        now.push(m)
    if takeable(now, p):
        # the side to move may be taking it, the victim lifted first (`capture_wait_s`: a player
        # often lifts the victim off before bringing the capturing piece)
        return False
    near = (p,) + tuple(neighbours(p))
    return any(float(np.hypot(d[0] - p % 9, d[1] - p // 9)) <= cfg.incidents.disc_reach
               for d in discs_off_points_by(near, ev, reading.offsets, cfg.incidents, offsets_before))


def _knocked_off_event(ctx: SettleContext, p: int, moves: list[Move] | None = None) -> Event:
    """The knocked-off incident for the piece the record has on p, at the ply of the last of
    `moves` (the moves made with it). The side is the one whose hand was over the board (by its
    covered frames), else the side to move. When the board was first seen with the piece gone
    one ply into the stretch (`ctx.held`), that ply's mover knocked it."""
    pos, ep = ctx.position, ctx.episode
    piece = pos.piece_at(p) or "?"
    hand_ep = ep if ep.covered or ctx.prev_episode is None else ctx.prev_episode
    counts = {side: len(_attributed(hand_ep, side)) for side in Side}
    to_move = Side.from_fen(pos.turn)
    side = max(counts, key=lambda s: counts[s]) if any(counts.values()) else to_move
    if counts[Side.RED] == counts[Side.BLACK]:
        side = to_move
    ply = ctx.ply + len(moves or [])
    if moves and ctx.held is not None and ctx.held.residual == frozenset([p]) and ctx.held.plies == 1:
        side, ply = to_move, ctx.ply + 1
    near = any(disc_off_point(ctx.evidence, ctx.offsets, ctx.cfg.incidents, q) for q in (p,) + tuple(neighbours(p)))
    return ctx.incidents.knocked_off(ctx.last.t, ply, side, piece, p, near, settle_frames_of(ctx))


def knocked_off(ctx: SettleContext) -> SettleOutcome | None:
    """A piece knocked off the board: the game goes on without it. The incident is recorded and
    the position kept (the arbiter has it put back); later moves are read around its point."""
    if ctx.explanation.explains:
        return None
    p = knocked_off_point(ctx)
    if p is None:
        return None
    return SettleOutcome("knocked_off", _no_change(ctx.position), events=[_knocked_off_event(ctx, p)])


def move_and_knocked_off(ctx: SettleContext) -> SettleOutcome | None:
    """The most likely legal move explains every point but one, and that one is a piece of the
    record gone from its point with the hand near it: the mover knocked it off the board while
    moving (a capture can sweep the piece beside the victim off). The move is
    recorded and the piece kept in the record (the arbiter has it put back), as `knocked_off`
    does when nothing else changed. Tried before `knocked_off`, which sees only the knock when the
    move's own points are read too unsurely to contradict the record (a piece left between
    points that captures and knocks another off on the way: the move explains every point but the
    knocked one by a wide margin, and must be recorded with the knock)."""
    ex = ctx.explanation
    if ex.explains or not ex.moves or ex.score < ctx.cfg.explain.accept_gain or len(ex.residual) != 1:
        return None
    p = knocked_off_point(ctx, ex.board)
    if p is None or p != ex.residual[0] or any(p in (m.from_sq, m.to_sq) for m in ex.moves):
        return None
    return SettleOutcome("move_and_knocked_off", replace(ex, residual=[]), events=[_knocked_off_event(ctx, p, ex.moves)])


def move_and_knocked_aside(ctx: SettleContext) -> SettleOutcome | None:
    """Two plies explain the board, but the second one's piece is still seen beside its own
    point, or where it would have landed the first ply's piece is read: one move was made and
    its hand pushed that piece aside. A capture can push the piece beside its destination off its
    point, and 'that piece then took the capturer' explains the empty point as a second ply
    nobody made (the capturer read on the destination passes for the pushed piece: a piece read
    as another kind is the reader's commonest mistake). The one move and a knocked-off incident
    are recorded instead."""
    ex = ctx.explanation
    if ctx.kind == SettleKind.REST or not ex.explains or len(ex.moves) < 2:
        return None
    one = explain(ctx.position, ctx.evidence, ctx.cfg.explain, max_plies=1)
    if not one.moves or one.moves[0] != ex.moves[0] or len(one.residual) != 1:
        return None
    p = one.residual[0]
    later = [m for m in ex.moves[1:] if m.from_sq == p]
    if not later or not (disc_off_point(ctx.evidence, ctx.offsets, ctx.cfg.incidents, p) or reads_as_first(ctx, one, ex, later[0].to_sq)):
        return None
    if knocked_off_point(ctx, one.board) != p:
        return None
    return SettleOutcome("move_and_knocked_aside", replace(one, residual=[]),
                         events=[_knocked_off_event(ctx, p, one.moves)])


def moves_with_discs_off_points(ctx: SettleContext) -> SettleOutcome | None:
    """Legal moves explain every point but one or two, and on each of those the record (after
    the moves) has a piece that reads on no point while the reader sees a disc off it: one moved
    piece put down between points (its destination), and at most one piece no move touched,
    pushed off its point by a hand that came near it (knocked). A move may push a piece a third
    of a spacing off its point and the reply be left off its own destination: without this the
    board stays unexplained and the game is lost from there. The moves are recorded with a
    between-points incident and a knocked one."""
    ex = ctx.explanation
    if ex.explains or not ex.moves or ex.score < ctx.cfg.explain.accept_gain \
            or len(ex.residual) > ctx.cfg.max_discs_off_points:
        return None
    touched = {sq for m in ex.moves for sq in (m.from_sq, m.to_sq)}
    between: Move | None = None
    knocked: list[int] = []
    for r in ex.residual:
        if ex.board[r] == 0 or not disc_off_point(ctx.evidence, ctx.offsets, ctx.cfg.incidents, r):
            return None
        landed = [m for m in ex.moves if m.to_sq == r]
        if landed and between is None:
            between = landed[-1]
        elif r not in touched and not knocked and hand_came_near(ctx, r):
            knocked.append(r)
        else:
            return None
    if between is None:
        return None   # a knock alone beside the moves: move_and_knocked_off's
    return SettleOutcome("moves_with_discs_off_points", replace(ex, residual=[]), between=between,
                         events=[_knocked_off_event(ctx, p, ex.moves) for p in knocked])


def reads_as_first(ctx: SettleContext, one: Explanation, two: Explanation, q: int) -> bool:
    """Point q reads as the piece the one-ply explanation leaves there, clearly more than as
    the piece the longer one lands there."""
    ev = ctx.evidence
    if not ev.visible[q] or one.board[q] == two.board[q]:
        return False
    return bool(ev.logp[q, one.board[q]] - ev.logp[q, two.board[q]] >= ctx.cfg.first_piece_nats)


def earlier_move_corrected(ctx: SettleContext) -> SettleOutcome | None:
    """Nothing legal explains the board from the record, but it does from the record with a
    recent ply (or the last few) replaced: correct the record rather than lose sync."""
    if ctx.explanation.explains:
        return None
    found = (find_correction(ctx.position, ctx.revisable, ctx.evidence, ctx.cfg.corrector)
             or find_rewind(ctx.position, ctx.revisable, ctx.evidence, ctx.cfg.corrector))
    if found is None:
        return None
    return SettleOutcome("earlier_move_corrected", None, correction=found)


EXPLAINERS: tuple[Explainer, ...] = (
    given_start_position,
    off_point_destination_move,
    move_and_knocked_aside,
    fewer_plies_by_correction,
    moved_half_way,
    legal_moves,
    vanished_piece,
    move_and_knocked_off,
    knocked_off,
    moves_with_discs_off_points,
    earlier_move_corrected,
)
"""Tried in this order; the first outcome wins. None of them: the board is unexplained."""


def explain_settle(ctx: SettleContext, explainers: tuple[Explainer, ...] = EXPLAINERS) -> SettleOutcome | None:
    """The first explainer's outcome for this settle, or None when nothing explains it."""
    for step in explainers:
        outcome = step(ctx)
        if outcome is not None:
            return outcome
    return None

