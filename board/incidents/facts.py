"""What every incident rule reads: the thresholds (`IncidentConfig`), one settle's facts
(`SettleFacts`), the memory kept between settles (`IncidentMemory`), what the rules found so far at
a settle (`Findings`), and the measures of a disc and its face that several rules share.

The physical ground of all of them: the camera cannot see fingers touch a disc. It can measure
where each disc sits relative to its point (its offset, in spacings between neighbouring points)
and how its face looks (vision.looks). A hand that touches a disc usually turns it or pushes it a
little, so its look no longer matches itself; a hand that knocks one moves it well off its point.
Things that are no hand change these readings too, and change them for every disc alike: a camera
that moved shifts every offset the same way (`common_drift`), a board registration slightly off
shifts every disc off its point the same way (`discs_centre`), and light, a re-lock or an arm's
shadow changes every face a little (`median_face_change`). So one disc's change is evidence only
where it stands out from all the others' (`handled_piece`). A disc left off its point is seen by
the reader as partly an empty point, and its neighbours' crops hold part of it.
Pure logic, no I/O.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from rules import Move, Position, Side
from rules.notation_common import KIND_NAMES

from ..episode import Episode, Settled
from ..events import IncidentEvent
from ..explain import CLASS_LETTERS, EMPTY


@dataclass
class IncidentConfig:
    touch: float = 0.1         # settled offset change (spacings) that means a covered disc was handled
    dwell_s: float = 0.28      # fingertips resting on a point this long = touching it
    unseen_move_dwell_s: float = 0.5  # a rest before a move the hand was lost for counts from this long
    hover_s: float = 0.5       # a rest shorter than this on a piece left exactly as it was is a hand hovering over it
    beside_rest_s: float = 1.0  # a rest this long beside the moved piece, then one on the moved piece itself, was on the piece beside
    beside_unseen_s: float = 0.75  # ... and one this long beside it, ended before the hand came over the moved piece (a pick-up read a point off by the hand's region lasts about half a second; a real rest on the piece beside, near a second)
    # a moved disc read this likely empty at its destination is off the point (discs left between
    # points read 0.42-0.80 empty; a disc put down a fifth of a spacing off, on its point as far as
    # the rules go, reads about a third empty)
    between_empty: float = 0.38
    faded_empty: float = 0.4   # an unmoved disc now read this likely empty was pushed off its point
    lone_dwell_s: float = 0.16  # ... in a stretch without a move whose fingertips never left one point
    touch_reach: int = 3       # a stretch whose fingertips roam farther is an arm passing, not a touch ...
    roam_dwell_s: float = 0.5  # ... but for a rest this long: an arm sweeping past does not stop on a piece
                               # (a passing arm's longest stop over a piece stays under 0.4 s; a hand
                               # that put one disc right and then rested on another piece stays 0.6 s)
    knock: float = 0.2         # ... that means it was knocked
    put_back: float = 0.1      # a knocked disc is back on its point only below this offset (spacings):
                               # a disc measured 0.19, then 0.33 off is the same knocked disc, not a new one
    between: float = 0.3       # settled offset magnitude that means "between points"
    between_release: float = 0.7   # a reported between-points disc is news again once below this share of `between`
    halfway: float = 0.4       # a disc this far off its point along a file or rank lies about as near the next point that way: the report names both (a disc nearly half way from one point to the next may be recorded on either, and naming one alone misleads the arbiter)
    min_discs_for_drift: int = 6   # discs needed to tell a camera drift from pieces moving
    clear_read: float = 0.5    # a disc read as its piece at least this surely: its offset can be trusted
    disc_reach: float = 0.6    # a disc seen off the points was put down for a legal destination this near it (spacings) ...
    disc_clear: float = 0.05   # ... when every other legal destination is this much farther from it (not a tie)
    same_disc: float = 0.1     # a disc seen off a point within this of where it was seen at the last settle is that disc
    one_disc: float = 0.4      # discs seen off two points nearer each other than this (spacings) are one disc seen from both (discs are ~0.85 across)
    handled_look: float = 0.2  # a covered piece whose face changed this much between settles (vision.looks) was handled
    handled_over_steady: float = 4.0  # ... and by this many times the median change of the other pieces read again
    righting_over_steady: float = 2.0  # a piece beside a disc being put right is touched only when its face changed this many times that median (the hand setting a disc right hangs over its neighbours: on a noisy view an untouched neighbour changes about 1.5 times the median, a touched one about three times)
                                      # (a re-lock or a change of light changes them all alike)
    handled_beside: float = 0.33      # ... and this much beside a point a piece left or came to (its disc, its shadow)
    handled_shift: float = 0.15       # ... and moved less than this (spacings): farther is a knock, not a touch
    handled_standout: float = 1.4     # ... and changed this many times more than any other piece read again
    handled_covered_s: float = 0.2    # ... and lay under a hand this long (a passing arm covers a piece briefly)
    handled_fingers_s: float = 0.1    # ... and under the mover's fingers this long in all (more than two frames at 25 fps)
    handled_beside_empty: float = 0.1   # ... and no disc just put down beside it reads this likely empty (off its point)
    face_same: float = 0.05           # a face read again that changed less than this is the same face (camera noise)
    knocked_look: float = 0.6         # a disc's face changed this much: it was turned and pushed well off (a knock)
    knocked_other_shift: float = 0.08  # ... an opponent's disc so turned, alone, and moved this much was knocked
    under_way: float = 0.4            # with no move recorded, a disc of the side to move this far off its point (spacings) ...
    under_way_cos: float = 0.9        # ... toward an empty point it may move to (cosine) is that move under way, not a knock


def piece_label(letter: str) -> str:
    """'n' -> 'black horse (n)': readable for an arbiter, exact for a script."""
    colour = Side.RED if letter.isupper() else Side.BLACK   # '?' (an unknown piece) reads as black
    return f"{colour} {KIND_NAMES.get(letter.upper(), letter)} ({letter})"


def king_steps(a: int, b: int) -> int:
    """Chebyshev distance between two points (king steps)."""
    return max(abs(a % 9 - b % 9), abs(a // 9 - b // 9))


def orthogonal_steps(a: int, b: int) -> int:
    """Steps along files and ranks between two points (a diagonal neighbour is two)."""
    return abs(a % 9 - b % 9) + abs(a // 9 - b // 9)


def side_of_class(piece_class: int) -> Side:
    """The owner of a classifier class (a piece class, not EMPTY)."""
    return Side.of_piece(CLASS_LETTERS[piece_class])


@dataclass
class LastMove:
    """The last move, until the opponent moves: where its piece was put down, by whom, at which ply."""

    to_sq: int
    side: Side
    ply: int
    frame: int


@dataclass
class PendingTouch:
    """The side to move rested a hand on its own piece at `point` in a stretch without a move."""

    side: Side
    point: int
    frames: dict[str, int]
    also: tuple[int, ...] = ()   # another own piece the fingertips may have been on (a broad hand)
    face_change: float = float("nan")   # how much the piece's face changed at that stretch's settle
    signals: dict | None = None   # the hand's signals at that stretch (weigh.HandSignals.to_dict)


@dataclass
class PendingKnock:
    """A disc that stopped reading as a piece (class `piece_class` at `point`): reported as `event`
    when the next settle still shows it so (a hand the detector missed fades a reading too)."""

    point: int
    piece_class: int
    event: IncidentEvent


@dataclass
class IncidentMemory:
    """What the rules remember between settles."""

    last_move: LastMove | None = None
    between_reported: set[int] = field(default_factory=set)
    between_fresh: set[int] = field(default_factory=set)   # ... of them, reported by the settle chain at this settle
    knocked_reported: set[int] = field(default_factory=set)
    pending_touches: list[PendingTouch] = field(default_factory=list)
    # where each disc sat (its offset) when it was last read clearly (`clear_read`), on the lattice
    # `clear_lattice`: a reading the reader hardly recognised in between is told by it (`knocked`)
    clear_offsets: dict[int, np.ndarray] = field(default_factory=dict)
    clear_lattice: int | None = None
    pending_faded: list[PendingKnock] = field(default_factory=list)
    # the episode of the last settle explained by a move (None after a settle without one): a
    # reply read only at the next settle, its hand never seen there, was made in it
    last_episode: Episode | None = None

    def turned_before_first_move(self) -> "IncidentMemory":
        """What is remembered before the first move, read with red's end and black's swapped
        (board.turning): the discs reported off their points, on their turned points. Rests
        remembered as touches are not kept: each hand was put to a player by the edge it came in
        over, and the ends were the wrong way round. Nor is a knock still waiting for its second
        look (its event names the other end's point)."""
        def pts(ps: set[int]) -> set[int]:
            return {89 - q for q in ps}
        return IncidentMemory(between_reported=pts(self.between_reported), between_fresh=pts(self.between_fresh),
                              knocked_reported=pts(self.knocked_reported))


@dataclass(frozen=True)
class FaceChanges:
    """Every point's face change between two settles (look_change) and the points it counts on."""

    change: np.ndarray    # (90,) 0 for the same face, 1 for an unrelated one; NaN where not read
    seen: np.ndarray      # (90,) bool: read again at both settles (a change above float noise)
    unmoved: np.ndarray   # (90,) bool: no move of the settle left or reached the point
    steady: np.ndarray    # (90,) bool: unmoved discs (a piece before and after) read again


@dataclass(frozen=True)
class SettleFacts:
    """One settled episode as the rules see it (frozen: what is worked out from it once, such as
    `handled`, stays true)."""

    cfg: IncidentConfig
    episode: Episode
    before: Settled
    after: Settled
    before_pos: Position
    moves: list[Move]           # the moves the settle was explained by (empty: none)
    explained: bool             # the settle was explained (with or without moves)
    ply: int
    drift: np.ndarray           # (2,) common displacement of all discs (camera moved)

    @property
    def t(self) -> float:
        return self.after.t

    @property
    def mover(self) -> Side | None:
        return Side.from_fen(self.before_pos.turn) if self.moves else None

    @property
    def moved_points(self) -> set[int]:
        pts: set[int] = set()
        for m in self.moves:
            pts |= {m.from_sq, m.to_sq}
        return pts

    @cached_property
    def faces(self) -> FaceChanges | None:
        """How every point's face changed between the settles, worked out once (the handled piece
        and the knock rule both compare one disc's change with every other's); None where the
        reader does not look."""
        before, after = self.before, self.after
        if before.looks is None or after.looks is None or before.looks.shape != after.looks.shape:
            return None
        change = look_change(before.looks, after.looks)
        unmoved = np.ones(90, bool)
        unmoved[list(self.moved_points)] = False
        seen = np.isfinite(change) & (change > 1e-4)
        was, now = before.classes.astype(int), after.classes.astype(int)
        return FaceChanges(change, seen, unmoved, unmoved & (was != EMPTY) & (now != EMPTY) & seen)

    @cached_property
    def handled(self) -> int | None:
        """handled_piece of this settle, worked out once: the touch and re-touch rules both ask
        for it, and it compares every piece's face (a settle's facts do not change once made)."""
        return _find_handled_piece(self)


@dataclass
class Findings:
    """What the rules found at this settle so far: the incidents, and the discs found knocked
    (reported now or waiting for a second look)."""

    events: list[IncidentEvent] = field(default_factory=list)
    knocked: set[int] = field(default_factory=set)
    # evidence the rules put aside, weighed for a review note (weigh.Candidate)
    candidates: list = field(default_factory=list)


IncidentRule = Callable[[SettleFacts, IncidentMemory, Findings], None]


def common_drift(before: Settled, after: Settled, min_discs: int = 6) -> np.ndarray:
    """The median displacement of all discs: when every disc seems to move the
    same way, the camera moved (a bump, a re-lock), not the pieces."""
    both = (before.classes != EMPTY) & (after.classes == before.classes) & before.visible & after.visible
    if both.sum() < min_discs:
        return np.zeros(2)
    return np.median(after.offsets[both] - before.offsets[both], axis=0)


def disc_shift(s: SettleFacts, p: int) -> float:
    """How far the disc on p moved between the settles, less the common drift (spacings)."""
    if not (s.before.visible[p] and s.after.visible[p]):
        return 0.0
    return float(np.linalg.norm(s.after.offsets[p] - s.before.offsets[p] - s.drift))


def look_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """How much each point's look (vision.looks: a unit-length face) changed between two settled
    boards: 0 for the same face, 1 for an unrelated one; NaN where either was never read."""
    b = np.asarray(before, dtype=np.float32)
    a = np.asarray(after, dtype=np.float32)
    if b.shape != a.shape or b.ndim != 2:
        raise ValueError(f"looks must be two (N, D) arrays of one shape, got {b.shape} and {a.shape}")
    change = 1.0 - np.einsum("nd,nd->n", b, a)
    missing = (np.abs(b).max(axis=1) == 0) | (np.abs(a).max(axis=1) == 0)
    return np.where(missing, np.nan, change)


def covered_seconds(ep: Episode, p: int) -> float:
    """How long a hand covered point p in this episode (its frames times the frame interval)."""
    return float(ep.occluded_frames[p]) * ep.frame_interval


def handled_piece(s: SettleFacts) -> int | None:
    """The one unmoved piece a hand covered a while whose face no longer matches itself, or None
    (worked out once per settle: `SettleFacts.handled`, `_find_handled_piece`)."""
    return s.handled


def _find_handled_piece(s: SettleFacts) -> int | None:
    """The one unmoved piece a hand covered a while in this episode whose face no longer matches
    itself (turned or pushed a little: vision.looks), or None.

    It must stand out from every other piece read again at this settle (`handled_standout`
    times the next largest change): light that changed over the board, a re-lock that reads
    every crop a little differently, or an arm lying over the pieces of a back rank changes
    several faces alike (an arm over a back rank changes its faces 0.2-0.46, none alone). A piece beside a point a piece left or came to must change further
    (`handled_beside`): the moved disc's side and shadow reach into its crop. A disc that moved
    farther than a touch pushes one (`handled_shift`) was knocked or put right."""
    faces = s.faces
    if faces is None:
        return None
    change, steady, now = faces.change, faces.steady, s.after.classes.astype(int)
    read_again = steady & (now == s.before.classes.astype(int))   # unmoved discs read again as the same piece
    if not read_again.any():
        return None
    # beside a move: orthogonally next to a point a disc left (its side and shadow were in the
    # crop), or within a king step of one a disc was put down on (a disc put down may lie off
    # its point toward a diagonal neighbour, and the hand setting it down presses around it: a
    # disc put down changes its diagonal neighbour's face by a quarter). A lifted disc a diagonal
    # step away, 1.4 spacings, leaves no trace in the crop (so a piece touched diagonally beside
    # the moved piece's origin is weighed as any other)
    by_move = np.array([any(king_steps(q, mv.to_sq) <= 1 or orthogonal_steps(q, mv.from_sq) == 1
                            for mv in s.moves) for q in range(90)])
    p = int(np.flatnonzero(read_again)[np.argmax(change[read_again])])
    if _handled(s, p, bool(by_move[p]), np.zeros(90, bool)):
        return p
    # a piece away from the move is weighed against the faces away from it too: a face the move
    # itself changed says nothing of how much faces change anyway (a capture changes the faces
    # beside the victim more than a touch elsewhere changes its piece, and that piece would then
    # stand out from nothing). But for the faces right beside it: changed alike, they changed for
    # the same reason, an arm over them both (an arm along a back rank changes the faces beside
    # the move and their neighbours alike)
    away = read_again & ~by_move
    if not away.any():
        return None
    q = int(np.flatnonzero(away)[np.argmax(change[away])])
    beside_q = np.array([king_steps(q, r) <= 1 for r in range(90)])
    return q if q != p and _handled(s, q, False, by_move & ~beside_q) else None


def _handled(s: SettleFacts, p: int, beside: bool, left_out: np.ndarray) -> bool:
    """_find_handled_piece's test of the piece on p (`beside` a move or not), its face weighed
    against the other unmoved discs read again but those `left_out`."""
    cfg, faces, before, after = s.cfg, s.faces, s.before, s.after
    assert faces is not None
    change, seen, unmoved, steady = faces.change, faces.seen, faces.unmoved, faces.steady
    was, now = before.classes.astype(int), after.classes.astype(int)
    # every other unmoved disc read again counts for how much faces changed anyway, the ones now
    # read as another piece too (a face changed by the same light or arm may tip a reading), and
    # so do the empty points right beside this one: a shadow over the spot changes the printed
    # lines there as much as the disc (the edge of an arm over a corner changes an empty point's
    # lines as much as the piece beside it)
    bare_beside = unmoved & (was == EMPTY) & (now == EMPTY) & seen \
        & np.array([king_steps(p, q) == 1 for q in range(90)])
    compared = (steady | bare_beside) & (np.arange(90) != p) & ~left_out
    others = change[compared]
    floor = max(cfg.handled_look, cfg.handled_beside if beside else 0.0,
                cfg.handled_over_steady * float(np.median(others)) if others.size else 0.0,
                cfg.handled_standout * float(others.max()) if others.size else 0.0)
    return bool(change[p] >= floor and disc_shift(s, p) < cfg.handled_shift
                and covered_seconds(s.episode, p) >= cfg.handled_covered_s)


def point_face_change(before: np.ndarray | None, after: np.ndarray | None, p: int) -> float:
    """How much the face (vision.looks) on p changed from the looks `before` to the looks `after`;
    NaN where it was not read again (the same look, to the bit) or either side does not look."""
    if before is None or after is None or before.shape != after.shape:
        return float("nan")
    change = float(look_change(before[p:p + 1], after[p:p + 1])[0])
    return change if change > 1e-4 else float("nan")


def face_change(s: SettleFacts, p: int) -> float:
    """How much the face of the disc on p changed between the settles (point_face_change)."""
    return point_face_change(s.before.looks, s.after.looks, p)


def median_face_change(s: SettleFacts, left_out: list[int]) -> float:
    """The median change of the unmoved discs' faces read again at this settle, less those
    `left_out` (0 without faces): how much light, noise and an arm's shadow changed every face
    with nobody touching it. A touch changes one well past that."""
    if s.faces is None:
        return 0.0
    rest = s.faces.steady.copy()
    rest[left_out] = False
    others = s.faces.change[rest]
    return float(np.median(others)) if others.size else 0.0


def face_unchanged(s: SettleFacts, p: int) -> bool:
    """The disc on p was read again with a face that differs from before by no more than the
    camera's noise (`face_same`): nothing turned or pushed it."""
    return face_change(s, p) < s.cfg.face_same


def turned_beyond_noise(s: SettleFacts, p: int) -> bool:
    """The face on p changed past the camera's noise (`face_same`) and stands out from the
    whole board's change (`handled_over_steady` times the median of the others): a hand turned
    it, though less than a handled piece's turn (`handled_look`)."""
    change = face_change(s, p)
    return change >= max(s.cfg.face_same, s.cfg.handled_over_steady * median_face_change(s, [p]))


def face_kept(s: SettleFacts, p: int) -> bool:
    """The disc on p was read again and its face is as it was, short of a touch's change
    (`handled_look`): a disc that seems to have moved is measured differently, not moved (a
    knock turns and pushes a disc: every knock measured on the bench changed its face 0.74 or
    more, while untouched discs 'moved' a knock's or a between-points' worth kept their faces
    within a few hundredths)."""
    return face_change(s, p) < s.cfg.handled_look


def face_unread(s: SettleFacts, p: int) -> bool:
    """Both settles were looked at and the face on p was not read again (its look the same to the
    bit: nothing changed in its crop), so nothing there moved; without looks nothing is known."""
    b, a = s.before.looks, s.after.looks
    return b is not None and a is not None and b.shape == a.shape and math.isnan(point_face_change(b, a, p))


def off_point(s: SettleFacts, p: int) -> bool:
    """The disc just put down on p may lie off its point: measured half of `between` off or more,
    or read even a little like an empty point (`handled_beside_empty`: a disc between two points
    is read so, and its offset is sometimes measured short: a disc half a spacing off can be
    measured a tenth off and read a quarter empty). Part of it may then lie in a neighbour's crop."""
    cfg, after = s.cfg, s.after
    unsure = after.empty_prob is not None and after.empty_prob[p] >= cfg.handled_beside_empty
    return bool(unsure or np.linalg.norm(after.offsets[p]) >= cfg.between / 2)


def discs_centre(cfg: IncidentConfig, after: Settled) -> np.ndarray:
    """Where the discs sit relative to their points taken together (spacings): a board registration
    a little off moves them all, and a disc is off its point relative to the others."""
    occupied = (after.classes != EMPTY) & after.visible
    if occupied.sum() < cfg.min_discs_for_drift:
        return np.zeros(2)
    return np.median(after.offsets[occupied], axis=0)


def off_centre(settled: Settled, p: int, centre: np.ndarray) -> float:
    """How far the disc on p sits from its point relative to the discs' centre (discs_centre), on
    the larger axis (spacings)."""
    return float(np.max(np.abs(settled.offsets[p] - centre)))


def disc_place(p: int, offset: np.ndarray) -> np.ndarray:
    """Where the disc seen from point p at `offset` lies, in lattice coordinates (file, rank), so
    that sightings from different points can be compared."""
    return np.array([p % 9 + offset[0], p // 9 + offset[1]], dtype=np.float64)


def was_between(cfg: IncidentConfig, before: Settled, p: int) -> bool:
    """The disc on p was already off its point before (being put right is not an incident)."""
    return bool(before.visible[p] and np.max(np.abs(before.offsets[p])) >= cfg.between)


def being_put_right(s: "SettleFacts", mem: "IncidentMemory", p: int) -> bool:
    """The disc on p was off its point before, or reported left between points and not seen back
    on it since: a hand on it is putting it right, no touch of another piece (a player who puts
    right a disc left between points before the next move touches that disc, and only it)."""
    return was_between(s.cfg, s.before, p) or p in mem.between_reported


def own_piece(s: "SettleFacts", mem: "IncidentMemory", side: Side, p: int) -> bool:
    """A piece of `side` stood on p before, not one being put right: one its hand can touch."""
    c = int(s.before.classes[p])
    return c != EMPTY and side.owns(CLASS_LETTERS[c]) and not being_put_right(s, mem, p)


def evidence_frames(cfg: IncidentConfig, ep: Episode, after: Settled, p: int) -> dict[str, int]:
    """The frames an arbiter looks at for point p: before, the frame it was handled in, after."""
    during = -1
    if ep.max_shift_frame[p] >= 0 and ep.max_shift[p] > cfg.touch:
        during = int(ep.max_shift_frame[p])
    elif ep.first_occluded[p] >= 0:
        during = int((ep.first_occluded[p] + ep.last_occluded[p]) // 2)
    elif ep.busiest_frame >= 0:
        during = ep.busiest_frame
    else:
        during = ep.frame_start
    return {"before": ep.before.frame_index, "during": during, "after": after.frame_index}
