"""Incident rules: what an arbiter needs to see, decided at each settle.

The camera cannot see fingers touch a disc, so the evidence is the hand's
behaviour, the discs' positions and their faces (a touched disc is usually turned
or pushed a little: its look, vision.looks, no longer matches itself). A hand reaching for a piece slows down
and rests on it: a *dwell* of its fingertips (the leading point of the hand's
covered region, see episode.dwells) on one point for ~0.3 s; an arm sweeping
over the board does not rest, and mere occlusion is never an incident.
A raised hand covers points displaced away from the camera (parallax), so a
dwell's contact point may be one step back toward the camera.

Rules (the side is the player whose hand it was):
- touch_move_other: the mover rested a hand on another of its own unmoved
  pieces before the dwell that picked up the moved piece (in the same
  stretch, or in a stretch of its own before the move, hand lifted clear).
  Where no rest is read on it, a piece the mover's fingers covered whose face
  alone changed was touched (handled_piece). A rest read on one piece right
  beside the move whose face is exactly as it was is the pick-up read a point
  off (rest_a_point_off).
- retouch: after a move settled, before the opponent's move, the mover's hand
  rested on the piece it had released (or moved it measurably, or changed its
  face alone of all pieces); a rest that left its face exactly as it was hovered.
- knocked: an unmoved disc moved `knock` spacings or more (relative to the
  common drift of all discs: a camera re-lock moves them all), its face changed
  where it was read again (one read again unchanged was measured differently).
- between_points: a disc settled more than `between` spacings off its point.
- illegal_move: built by the tracker from the physical displacement.
- repetition: built by the tracker from rules.repetition.adjudicate.

Each rule judged at a settle is its own small function of the settle's facts (`SettleFacts`),
the memory kept between settles (`IncidentMemory`) and what earlier rules found this settle
(`Findings`); `RULES` applies them in an explicit order (later rules read what earlier ones
found: a knocked disc is no touch and no between-points incident).
Pure logic, no I/O.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable

import numpy as np

from rules import Move, Position, Side
from rules.notation_common import KIND_NAMES

from .episode import MAX_FRAME_GAP, Dwell, Episode, Settled, away_from_camera, dwells, fingertips, reach
from .events import Event, IncidentEvent, point_name
from .explain import CLASS_LETTERS, EMPTY, Explanation, PhysicalMove


@dataclass
class IncidentConfig:
    touch: float = 0.1         # settled offset change (spacings) that means a covered disc was handled
    dwell_s: float = 0.28      # fingertips resting on a point this long = touching it
    unseen_move_dwell_s: float = 0.5  # a rest before a move the hand was lost for counts from this long
    hover_s: float = 0.5       # a rest shorter than this on a piece left exactly as it was is a hand hovering over it
    beside_rest_s: float = 1.0  # a rest this long beside the moved piece, then one on the moved piece itself, was on the piece beside
    beside_unseen_s: float = 0.75  # ... and one this long beside it, ended before the hand came over the moved piece (tuning 8878: 0.52 s, the pick-up; 9160: 0.92 s, a touch)
    # a moved disc read this likely empty at its destination is off the point (tuning: discs left
    # between points read 0.42-0.80 empty; an elephant put down 0.19 off read 0.33, tuning 8312)
    between_empty: float = 0.38
    faded_empty: float = 0.4   # an unmoved disc now read this likely empty was pushed off its point
    lone_dwell_s: float = 0.16  # ... in a stretch without a move whose fingertips never left one point
    touch_reach: int = 3       # a stretch whose fingertips roam farther is an arm passing, not a touch ...
    roam_dwell_s: float = 0.5  # ... but for a rest this long: an arm sweeping past does not stop on a piece
                               # (tuning: no such rest of 0.4 s or more in 96 games; clip 8369: red's
                               # hand put the disc h9 right, then rested on d0 for 0.64 s)
    knock: float = 0.2         # ... that means it was knocked
    put_back: float = 0.1      # a knocked disc is back on its point only below this offset (spacings):
                               # a disc measured 0.19, then 0.33 off is the same knocked disc, not a new one
    between: float = 0.3       # settled offset magnitude that means "between points"
    between_release: float = 0.7   # a reported between-points disc is news again once below this share of `between`
    halfway: float = 0.4       # a disc this far off its point along a file or rank lies about as near the next point that way: the report names both (tuning 8989: a chariot put down 0.48 off f1 toward g1, recorded on g1 and reported 'near g1' alone)
    min_discs_for_drift: int = 6   # discs needed to tell a camera drift from pieces moving
    clear_read: float = 0.5    # a disc read as its piece at least this surely: its offset can be trusted
    disc_reach: float = 0.6    # a disc seen off the points was put down for a legal destination this near it (spacings) ...
    disc_clear: float = 0.05   # ... when every other legal destination is this much farther from it (not a tie)
    same_disc: float = 0.1     # a disc seen off a point within this of where it was seen at the last settle is that disc
    one_disc: float = 0.4      # discs seen off two points nearer each other than this (spacings) are one disc seen from both (discs are ~0.85 across)
    handled_look: float = 0.2  # a covered piece whose face changed this much between settles (vision.looks) was handled
    handled_over_steady: float = 4.0  # ... and by this many times the median change of the other pieces read again
    righting_over_steady: float = 2.0  # a piece beside a disc being put right is touched only when its face changed this many times that median (tuning 8392: touched 0.30, median 0.11; 9260: untouched 0.25, median 0.16)
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


# ---------------------------------------------------------------- state and facts
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


IncidentRule = Callable[[SettleFacts, IncidentMemory, Findings], None]


# ---------------------------------------------------------------- geometry of a hand
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


def farther_off(s: SettleFacts, p: int) -> bool:
    """The disc on p sits farther from its point after the settle than before (the common drift
    taken off). A knock pushes a disc off its point; a disc measured a little differently once a
    hand has passed over it moves either way (tuning clips 8330, 8336: untouched discs 'moved'
    0.21-0.23 spacings toward their points)."""
    before = float(np.linalg.norm(s.before.offsets[p]))
    after = float(np.linalg.norm(s.after.offsets[p] - s.drift))
    return after > before


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
    several faces alike (tuning clips 8367, 8370: the back rank's faces changed 0.2-0.46 under
    the arm, none alone). A piece beside a point a piece left or came to must change further
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
    # its point toward a diagonal neighbour, and the hand setting it down presses around it;
    # tuning clip 8311: the cannon put on d1 changed c0 0.26). A lifted disc a diagonal step
    # away, 1.4 spacings, leaves no trace in the crop (tuning clip 8368: the soldier c6 touched,
    # its face changed 0.22, and the cannon b7 moved)
    by_move = np.array([any(king_steps(q, mv.to_sq) <= 1 or orthogonal_steps(q, mv.from_sq) == 1
                            for mv in s.moves) for q in range(90)])
    p = int(np.flatnonzero(read_again)[np.argmax(change[read_again])])
    if _handled(s, p, bool(by_move[p]), np.zeros(90, bool)):
        return p
    # a piece away from the move is weighed against the faces away from it too: a face the move
    # itself changed says nothing of how much faces change anyway (held-back 9165 of stop 36,
    # moved to tuning: red's fingers on the soldier e3, face 0.94, then the chariot e9 took c9;
    # the horse b9 beside the capture changed 1.24, and no piece stood out). But for the faces
    # right beside it: changed alike, they changed for the same reason, an arm over them both
    # (tuning 8970: red's elephant g0 taken to i2, the back rank under the arm, f0 0.52 and h0
    # 0.31 beside the move, i0 0.22 beside h0: 'red touched i0')
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
    # lines there as much as the disc (tuning clip 8360: the empty a9 changed 0.25 as the horse
    # b9 beside it changed 0.24, under the edge of black's arm; b9 'was touched')
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


def knocked_face(s: SettleFacts, p: int) -> bool:
    """The face of the disc on p changed as a knock changes one (`knocked_look`) and by
    `handled_standout` times more than any other unmoved disc read again: that disc alone turned."""
    faces, cfg = s.faces, s.cfg
    if faces is None or not faces.change[p] >= cfg.knocked_look:
        return False
    # a disc measured well off where it was has a face changed by its own move (put right, or
    # knocked itself), which says nothing of how much faces change anyway (held-back 8974 of stop
    # 31, moved to tuning: red's hand knocked the elephant c9, face 0.99, while putting the cannon
    # h9 right, 0.43 spacings, face 0.97: 'not alone', the knock missed)
    steady = faces.steady & (np.arange(90) != p)
    steady &= np.array([not steady[q] or disc_shift(s, q) < cfg.knock for q in range(90)])
    others = faces.change[steady]
    return not others.size or faces.change[p] >= cfg.handled_standout * float(others.max())


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
    knock turns and pushes a disc: every knock of the tuning clips changed its face 0.74 or
    more; tuning clip 8356: a cannon 'knocked 0.22 spacings' with its face changed 0.03; 8371:
    a horse 'left between points' before the first move, 0.004)."""
    return face_change(s, p) < s.cfg.handled_look


def face_unread(s: SettleFacts, p: int) -> bool:
    """Both settles were looked at and the face on p was not read again (its look the same to the
    bit: nothing changed in its crop), so nothing there moved; without looks nothing is known."""
    b, a = s.before.looks, s.after.looks
    return b is not None and a is not None and b.shape == a.shape and math.isnan(point_face_change(b, a, p))


def off_point(s: SettleFacts, p: int) -> bool:
    """The disc just put down on p may lie off its point: measured half of `between` off or more,
    or read even a little like an empty point (`handled_beside_empty`: a disc between two points
    is read so, and its offset is sometimes measured short, tuning clip 8814: 0.45 spacings off,
    measured 0.09, read 0.25 empty). Part of it may then lie in a neighbour's crop."""
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


def was_between(cfg: IncidentConfig, before: Settled, p: int) -> bool:
    """The disc on p was already off its point before (being put right is not an incident)."""
    return bool(before.visible[p] and np.max(np.abs(before.offsets[p])) >= cfg.between)


def move_under_way(s: "SettleFacts", p: int) -> bool:
    """No move was recorded, and the disc on p, a piece of the side to move, lies `under_way` or
    more off its point toward an empty point it may legally move to: its player has made that
    move and left the piece between points, or the reading has not caught up with it yet; the
    move's own settle judges it. Calling it knocked accuses the player of knocking a piece that
    was being moved (held-back 8942, moved to tuning: red's soldier put down half way between i3
    and i4, read unsure on both, 'knocked 0.56 spacings off its place')."""
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


def being_put_right(s: "SettleFacts", mem: "IncidentMemory", p: int) -> bool:
    """The disc on p was off its point before, or reported left between points and not seen back
    on it since: a hand on it is putting it right, no touch of another piece (tuning clips 8348,
    8355: a disc left between points, put right before the next move, was 'touched')."""
    return was_between(s.cfg, s.before, p) or p in mem.between_reported


def own_piece(s: "SettleFacts", mem: "IncidentMemory", side: Side, p: int) -> bool:
    """A piece of `side` stood on p before, not one being put right: one its hand can touch."""
    c = int(s.before.classes[p])
    return c != EMPTY and side.owns(CLASS_LETTERS[c]) and not being_put_right(s, mem, p)


def covered_during(ep: Episode, d: Dwell, p: int) -> bool:
    return any(d.frame_start <= f <= d.frame_end and p in c for f, _, c in ep.covered)


def tips(ep: Episode, d: Dwell, side: Side) -> list[int]:
    """The points the fingertips may be on during a dwell: its point, and any other
    point the hand's region leads with as much in at least half of the dwell's frames
    (a hand centred between two files, a hand cut by the board's side edge)."""
    frames = [c for f, _, c in ep.covered if d.frame_start <= f <= d.frame_end]
    counts: dict[int, int] = {}
    for c in frames:
        for q in fingertips(c, side, all_ties=True):
            counts[q] = counts.get(q, 0) + 1
    return [d.point] + [q for q, k in counts.items() if q != d.point and 2 * k >= len(frames)]


def contacts(ep: Episode, d: Dwell, side: Side | None = None) -> list[int]:
    """Points the fingers may rest on for a dwell: the covered fingertip point,
    the point one step back toward the camera (a raised hand covers points
    displaced away from the camera), and, given the hand's `side`, the point
    one step back toward that player's edge when the hand covered it too
    (fingers pinching a disc reach past it: the leading covered point
    overshoots the contact by up to a point)."""
    tp_list = tips(ep, d, side) if side is not None else [d.point]
    out = list(tp_list)
    u = away_from_camera(ep.homography)
    if u is not None:
        for tp in tp_list:
            x, y = tp % 9 - u[0], tp // 9 - u[1]
            # a diagonal step off the board: the camera's side along the edge still holds
            # (tuning clip 8353: fingers on b0 read at c0, the step toward the camera (-1, -1))
            steps = [(x, y)] if 0 <= x <= 8 and 0 <= y <= 9 else [(x, tp // 9), (tp % 9, y)]
            for sx, sy in steps:
                if (sx, sy) != (tp % 9, tp // 9) and 0 <= sx <= 8 and 0 <= sy <= 9 and sy * 9 + sx not in out:
                    out.append(sy * 9 + sx)
    if side is not None:
        for tp in tp_list:
            y = tp // 9 + (-1 if side == Side.RED else 1)
            q = y * 9 + tp % 9
            if 0 <= y <= 9 and q not in out and covered_during(ep, d, q):
                out.append(q)
    return out


def dwell_on(cfg: IncidentConfig, ep: Episode, side: Side, p: int, by_entry: bool = False) -> Dwell | None:
    """A dwell of `side`'s fingertips resting on point `p`: on it, one step
    back toward the camera (parallax), or next to it with `p` covered
    meanwhile (a broad hand: the fingertip point is then ambiguous). `by_entry`: only a hand
    that did not come in over the other player's edge (board.episode.dwells)."""
    near = None
    for d in dwells(ep, side, cfg.dwell_s, by_entry):
        if p in contacts(ep, d):
            return d
        if near is None and king_steps(d.point, p) <= 1 and covered_during(ep, d, p):
            near = d
    return near


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
    it (tuning 8394: the soldier c4, left half way to b4, put right with the fingertips read at b4
    for 0.96 s, and the soldier a3 under the hand's edge 'touched'; 8396: the chariot a3, read
    half empty, put right with the fingertips on the soldier a4 beside it). Its face tells which."""
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
        # (held-back 8886, moved to tuning: the cannon 0.39 off h1 toward h0 set down 0.22 off
        # on the other side, the fingertips read at h0 and i0 meanwhile: 'red touched h0 or i0')
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
    the moved piece, placed a point off by the hand detector (tuning clip 8381: 'touched c3' while
    picking up b2, its face changed 0.02; held-back 8848, moved to tuning: 'touched f9 or d9'
    while taking the general e9 to e8, faces 0.017 and 0.019). True touches read with so little
    change lay two points or more from the move (tuning 8366, 8374)."""
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
    two points from the move is a touch however still its face: tuning 8366, 8374). Held-back 9022
    of stop 33, moved to tuning: red's fingertips read at b1 for 0.68 s, then the cannon b2 taken to
    f2; glare changed the faces of the whole board 0.1-0.25, c0's 0.20: 'red touched c0 or d0'.
    Not where a later rest had the fingers over the moved piece: that rest picked it up, and this
    one was on a piece behind (tuning 8316: black's fingertips read at a8 for 0.84 s with the
    chariot a9 behind them, then over b7 for the cannon taken to b1: a9 was touched; 8397: red's
    fingertips read at b1/a1 for 0.64 s, then flickering over a3/a2 for 0.6 s before the chariot a2
    went to a6: the horse b0 was touched)."""
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
    long one before it was not the pick-up read a point off (held-back 8954 of stop 31, moved to
    tuning: red's fingers on the general e0 for 1.24 s, then on the advisor f0 for 0.56 s, which
    went to e1; the general's face as it was, and the touch was taken for the pick-up)."""
    d = touch.dwell
    if d is None or d.seconds < s.cfg.beside_rest_s or s.mover is None:
        return False
    m = s.moves[0]
    return any(r.point == m.from_sq and r.t_start > d.t_end for r in dwells(s.episode, s.mover, s.cfg.dwell_s))


def hovered(s: SettleFacts, touch: Touch) -> bool:
    """The rest was short of `hover_s` and every piece it names was read again exactly as it was
    (`face_unchanged`): a hand hovering over a piece on its way, not fingers resting on it.
    A short rest is weak evidence on its own, and an arbiter's tool accuses on strong evidence
    (held-back 8853 and 8859, moved to tuning: black's hand over the chariot a9 for 0.44 s and
    0.28 s, faces 0.02, and 'black touched a9'; the true touches of the tuning games that left a
    face as it was rested 0.6 s and 1.2 s)."""
    return touch.dwell is not None and touch.dwell.seconds < s.cfg.hover_s and \
        all(face_unchanged(s, q) for q in touch.points)


def _beside_move_unchanged(s: SettleFacts, p: int, change: float) -> bool:
    """A rest read on the piece at p, right beside the first move's from point (or a capture's victim,
    lifted before the pick-up too), whose face changed by no more than the camera's noise
    (`face_same`; NaN: not read again, no evidence). A touch is a rest before the pick-up, when
    a plain move's destination is still empty: a rest beside it then is on the piece there
    (tuning clip 8383: black's fingers on the advisor f9 for a second, then the horse h9 taken
    to f8; the nudge left f9's face as it was)."""
    m = s.moves[0]
    capture = m.to_sq in s.before_pos.pieces()
    near = king_steps(p, m.from_sq) <= 1 or (capture and king_steps(p, m.to_sq) <= 1)
    return near and change < s.cfg.face_same


def steady_rests(stretches: list[Dwell], contacts_of: Callable[[Dwell], list[int]],
                 occupied: Callable[[int], bool], min_s: float,
                 tips_of: Callable[[Dwell], list[int]] | None = None, crossing_s: float = 0.0) -> list[Dwell]:
    """The rests among a hand's stretches (`dwells` at 0 s): each stretch of `min_s` or more, and
    runs of shorter ones whose fingertips alternate between one piece and the empty points
    beside it, that piece among the contacts of every one of them and the run `min_s` long in
    all: one rest on that piece (tuning clip 8339: black's fingers on the elephant g9 for a
    second, the fingertip point flickering g9/g8/g9/h8 in stretches of 0.2 s or less, the touch
    unseen). A run whose fingertips cross another piece is not merged: which one they were on
    cannot be told; unless, given `tips_of`, the piece is among the fingertips there too (tuning
    8953: black's fingertips flickering g9, f9/g9, g9, f9/g9, g9 for 0.6 s, the elephant g9 under
    them throughout; the touch unseen), and the run lasts `crossing_s` (tuning 8840: red's hand
    roaming past h0, g0/h0, h0 for 0.28 s in all, no touch)."""
    out: list[Dwell] = []
    i = 0
    while i < len(stretches):
        d = stretches[i]
        if d.seconds >= min_s - 1e-6:
            out.append(d)
            i += 1
            continue
        common = [q for q in contacts_of(d) if occupied(q)]
        if occupied(d.point):
            common = [q for q in common if q == d.point]
        j, crossed = i, False
        while common and j + 1 < len(stretches):
            e = stretches[j + 1]
            if e.seconds >= min_s - 1e-6 or e.frame_start - stretches[j].frame_end > MAX_FRAME_GAP:
                break
            keep = [q for q in common if q in contacts_of(e) and (e.point == q or not occupied(e.point))]
            if not keep and tips_of is not None:
                # read on another piece: the run goes on where the first is still among the fingertips
                keep = [q for q in common if q in contacts_of(e) and q in tips_of(e)]
                crossed = crossed or bool(keep)
            if not keep:
                break
            common, j = keep, j + 1
        run = stretches[i:j + 1]
        on = [q for q in common if any(r.point == q for r in run)]
        least = max(min_s, crossing_s) if crossed else min_s
        if j > i and on and run[-1].t_end - run[0].t_start >= least - 1e-6:
            out.append(Dwell(on[0], run[0].frame_start, run[-1].frame_end, run[0].t_start, run[-1].t_end))
            i = j + 1
        else:
            i += 1
    return out


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
        (held-back 9160 of stop 36, moved to tuning: red's fingers on the soldier c3 for 0.92 s,
        read there with its face as it was, the hand over b2 only after it; the cannon b2 taken to
        e2). A shorter one may be: the hand's region can lie off the fingers toward the arm
        (tuning 8878: red's fingers on the cannon h2 read at g3 for 0.52 s, the hand's points
        g3/f3/g2, then h3/i3 with h2 under them; h2 taken to i2)."""
        first_over = self._first_over()
        d = touch.dwell
        return d is not None and first_over is not None and d.frame_end < first_over \
            and d.seconds >= self.s.cfg.beside_unseen_s - 1e-6

    def unseen_pick_up_read_beside(self, touch: Touch) -> bool:
        """The touch's rest had its fingertips on empty points only, one a step from the moved
        piece; the pieces it names lie under the hand beside them, right beside the moved piece,
        none turned as a touch turns one (`handled_look`); and no rest was seen picking the piece
        up: the rest was the pick-up, read a point off (held-back 9142 of stop 36, moved to
        tuning: red's fingertips read at the empty b1 for 0.28 s, the horse b0 under the hand,
        its face changed 0.076 under a blurred, noisy view; the chariot a0 taken to a1 with no
        rest over it: 'red touched b0'). Fingertips read on the named piece itself are a touch
        however little its face changed (tuning 8400: red's fingertips on b3/a3 for 0.68 s, the
        soldier a3's face changed 0.084, then a rest of its own on the cannon b2, taken to d2)."""
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
        pick-up by the hand (tuning clip 8365: glare hid red's hand from before the pick-up to the
        capture on h9). The moved piece still read on its point after a rest ended was picked up
        later: that rest came first (tuning 8402: red rested on the soldier a3 for 1.2 s, then
        moved c3c4 with the hand never seen there; c3 read its soldier until half a second later).
        Only a long rest counts so: without the hand's path the stretches seen may be a phantom
        (tuning 8385: red's hand unseen taking b2 to b9, a 0.36 s 'rest' read at i1 under a change
        of light that turned every face 0.3-0.5)."""
        seen_home = int(self.s.episode.home_last_seen[self.move.from_sq])
        # and the last rest with the fingertips on the moved piece itself picked it up, wherever the
        # hand was lost after it: the rests before it came first (held-back 8831, moved to tuning:
        # red's fingers on the soldier a3 for 1.2 s, read at b3/a3 with the cannon b2 under the hand
        # too, then on b2, the capture on b9 out of the hand detector's sight)
        picks = [j for j, d in enumerate(self.rests) if self.move.from_sq in self.tips_of(d)]
        before_pick = max([sum(1 for d in self.rests if d.frame_end < seen_home)] + picks)
        short = {i for i, d in enumerate(self.rests[:before_pick]) if d.seconds < self.s.cfg.unseen_move_dwell_s}
        return self.first_touch(before_pick, self.involved, picks, short)

    def taken_before(self, d: Dwell) -> bool:
        """The fingertips stayed on the moved piece a while before rest d: it was picked up then,
        and a rest on it after this one is the hand leaving over it (tuning clip 8316: the
        elephant taken from c9, put on e7 with the lead at e6, the hand resting over c9 as it
        left; the put-down was read as a touch of the soldier e6)."""
        m = self.move
        return any(e.frame_end < d.frame_start and e.t_end - e.t_start >= self.s.cfg.lone_dwell_s - 1e-6
                   and m.from_sq in self.tips_of(e) for e in self.stretches)

    def went_back_to_moved(self, i: int) -> bool:
        """After rest i, whose fingertips were beside the moved piece and not on it, the
        fingertips came back onto it, nearer the mover's own edge and farther from the destination
        than they were, before going on there: the hand left rest i for the piece and picked it up
        then, so rest i was on another piece under the fingers (held-back 8822, moved to tuning:
        red's fingers on the chariot a0 for 0.9 s read at a1/b1, the horse b0 among the points
        under them; then the fingertips on b0/a0 and the horse carried to a2)."""
        m, d = self.move, self.rests[i]
        tips = self.tips_of(d)
        if m.from_sq in tips:
            return False

        def depth(q: int) -> int:
            return q // 9 if self.mover == Side.RED else 9 - q // 9

        # before the fingertips first came to the destination after it (a hand leaving over the
        # origin after the move is not going back for the piece, tuning 8331)
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
        destination before that is on a piece beside it (tuning clip 8325: black's fingers on
        the chariot i9, the hand's lead over the empty i8 beyond it; the soldier i7 was moved to
        i8 later, picked up too quickly for a rest). Over it: among a stretch's contacts, or, for
        a piece on the mover's own edge rank, anywhere under the hand (tuning clip 8378: the
        chariot i0 taken with red's lead two points beyond it; a hand reaching in from its edge
        covers the pieces there before its lead comes near them)."""
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
            # short of where the fingers are); rests after it are no touches (tuning clip 8372:
            # the elephant c9 put on e7 with black's lead at d8/e8, then the hand leaving over c9)
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
        and put down in passing (tuning clip 8385: the horse b0 taken with the fingertips at b1,
        put on a2, and b0 'rested on' for a second as the hand withdrew; the pick-up was read as
        a touch of c0)."""
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
            # hand leaving (tuning clip 8813: a chariot taken from the corner a0 with the hand's
            # lead at b1 for the whole grab, carried up the a-file, and the hand leaving over a0
            # and b0 was taken for the pick-up, the grab for 'a touch of b0')
            passes = [d.frame_start for d in self.stretches if d.frame_start > ds[-1].frame_end
                      and m.to_sq in (c := self.contacts_of(d)) and m.from_sq not in c]
            put_down = min([put_down] + passes[:1])
        # (over the moved piece: with a capture's victim beside it, the contact names the victim's
        # point first, tuning clip 8338; a plain move's destination beside it is left as it was,
        # 8356: the pass onto it is the move itself)
        over = [d.frame_start for d in self.stretches if d.frame_start < put_down
                and (self.contact(d) == m.from_sq or (self.capture and m.from_sq in self.contacts_of(d)))]
        first = over[-1:] or [d.frame_start for d, c in zip(ds, cs) if c in self.involved]
        if not first:
            # the pick-up was not seen (the detector lost the hand over the moved piece): the move
            # came no earlier than the fingertips' first pass within a step of its origin or its
            # destination, so a rest that ended before it came before the pick-up (tuning clip
            # 8820: the piece on h0 rested on for 0.8 s, then b0 taken to d0, the hand unseen from
            # f0 on until it put the piece down, its fingertips read a point off at e0)
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
            # rests before it may be touches (tuning 8409: red's fingers on the elephant c0 for
            # 0.9 s, b0's victim under the hand's edge, then one rest at b0 lifting it and moving
            # the chariot a0 there). Not when an earlier rest was on the victim's point: that one
            # lifted it, and the rests after it carried it away (held-back 8863, moved to tuning:
            # black's hand on the cannon h9 for 0.5 s, then over a9 for 0.4 s setting it down
            # beyond the edge, then the chariot i9 taken to h9: 'black touched a9'). A rest at the
            # board's side edge after the fingertips passed over the victim's point still set the
            # victim down beyond that edge (held-back 9058 of stop 34, moved to tuning: the cannon
            # h9 lifted in a pass too quick for a rest, set down beyond a9 with the fingertips at a9
            # for 0.32 s, then the chariot i9 taken to h9 in one rest there: 'black touched a9')
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
        # down beyond that edge (tuning clip 8356: carried along the edge rank and set down beyond
        # i0, the hand resting at i0/i1 was 'a touch'). A rest elsewhere is not (8331: the hand
        # crossed the victim's point on its way in to the touch).
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
            # one (tuning 8392: black put the cannon g5 right and touched the soldier i6 beside the
            # spot, face 0.30; held-back 8886, moved to tuning: red's fingertips read at the empty
            # h2 for 0.7 s while the cannon 0.4 off h1 was set down 0.2 toward h2, and the elephant
            # g3 beside it, its face as it was, 'touched')
            # A piece the disc lay against under the hand counts too: the hand pushing a disc back
            # from beside it is read a point off (held-back 8980 of stop 31, moved to tuning: the
            # cannon 0.55 off h5 toward g5 pushed back with the fingertips read at g4, the soldier
            # g5 under the hand's edge, its face changed 0.29 as the disc left its crop: 'black
            # touched g5')
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
                # (tuning clips 8811, 8337, 8357: the cannon b7 touched, the soldier c6 beside it
                # moved; 8371: the rest on it came after the capture's victim was lifted)
                cands = [p for p in cands if p not in early]
            pieces = [p for p in cands if self.occupied(p)]
            if pieces and not own_piece(s, self.mem, self.mover, pieces[0]) and not self.occupied(d.point):
                # fingertips read on an empty point with the opponent's piece beside it and an own
                # piece under the fingers too: the rest is on the own piece (tuning clip 8819: black's
                # lead at the empty i5, red's cannon on h5 beside it, the soldier i6 touched)
                pieces = [p for p in pieces if self.own_unmoved(p)] or pieces
            if not pieces or not self.own_unmoved(pieces[0]):
                continue      # on no piece, the opponent's, or one being put right (between points)
            # where the fingers were is uncertain by a point: name the own pieces the
            # fingertips may have been on (the arbiter looks at the evidence frames)
            tip_points = self.tips_of(d)
            named = [p for p in dict.fromkeys([pieces[0]] + tip_points + pieces) if self.own_unmoved(p)]
            if len(named) == 1:
                # one piece named: an own piece a step from the fingertips whose face turned as a
                # touch turns one is the other the fingers may have been on (tuning clip 8814: the
                # rest read at i1 named the chariot i0, face changed 0.27; the horse h0 beside it,
                # the piece touched, changed 0.40)
                turned = [q for q in range(90) if q not in named and self.own_unmoved(q)
                          and any(king_steps(q, tp) <= 1 for tp in tip_points)
                          and face_change(s, q) >= max(cfg.handled_look, face_change(s, named[0]))]
                named = sorted(turned, key=lambda q: -face_change(s, q))[:1] + named
            if righting_rest:
                # and not a piece the disc lay against: its face changed as the disc left its crop
                # (held-back 8843, moved to tuning: black's general half way to c9 put right on d9,
                # the fingertips read on c9 and d9, the elephant c9's face changed 0.33)
                # Its face must also stand out from the whole board's: the hand that sets a disc
                # right hangs over its neighbours (held-back 9260 of stop 40, moved to tuning: black
                # put the advisor e8 back on its point, the general e9 under the hand's edge, its
                # face changed 0.25 on a noisy, glaring view where the median face changed 0.16:
                # 'black touched e9')
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
    changed with nobody touching it (held-back 9114 of stop 35, moved to tuning: red's cannon
    took the soldier c6, the hand carried it to beyond the corner i0 and rested there 0.28 s; the
    chariot i0's face changed 0.33: 'red touched i0'). Only after a rest seen lifting the victim:
    a side-edge rest put down to a lift too quick to be seen may be a touch (held-back 9132 of
    stop 35, moved to tuning: black's fingertips crossed the victim's point b9 coming in, then
    rested 1.0 s on the soldier a6, its face changed 0.56, and took the capture in one rest)."""
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
    # pieces on its way out (held-back 8839, moved to tuning: black's cannon put down on b2, the
    # fingertips over c6 for a frame on the way back to black's edge, c6's face changed 0.39:
    # 'black touched c6 then moved b7b2')
    fingers_s = under_fingers_seconds(s.episode, mover, q, until=released_at(s.episode, mover, m.from_sq, m.to_sq))
    if fingers_s < s.cfg.handled_fingers_s:
        # hardly under the mover's fingers: something else changed it (tuning 8392: red's hand
        # came in over e0 for one frame on its way to e3, the back rank's faces all changed a
        # little under the arm, e0's most, 0.21; the touches this rule found in 112 tuning games
        # had the fingers over the piece 0.16 s or more, most of them a second)
        return None
    if other_hand_longer(s.episode, mover, q, fingers_s):
        # held-back 8823, moved to tuning: black's arm reaching across to b0 read as a hand of
        # red's over a9 and b9 for 1.0 s, black's fingers over a9 for 0.12 s, a9's face changed
        # 0.35: 'black touched a9'. (Where the arm came in is not asked here: a true touch had the
        # fingers over its piece as briefly, tuning 8376, and an arm's side is what this weighs.)
        return None
    return Touch([q], None)


def under_fingers_seconds(ep: Episode, side: Side, q: int, until: int | None = None) -> float:
    """How long point q was among the places `side`'s fingers may have been (contacts), summed
    over the episode's stretches (those begun by frame `until`, when given)."""
    return sum((d.frame_end - d.frame_start + 1) * ep.frame_interval for d in dwells(ep, side, 0.0)
               if (until is None or d.frame_start <= until) and q in contacts(ep, d, side))


def released_at(ep: Episode, side: Side, from_sq: int, to_sq: int) -> int | None:
    """The last frame `side`'s fingertips were over the moved piece's destination after they had
    been over its origin: where the piece was let go. None when the hand's path does not show the
    piece carried (fingertips never read on the origin and then the destination): a hand may
    pass over the destination on its way in (tuning 8346: red's hand over h1 before it reached
    for i3 and then moved h2h1)."""
    stretches = dwells(ep, side, 0.0)
    picked = min((d.frame_start for d in stretches if from_sq in tips(ep, d, side)), default=None)
    if picked is None:
        return None
    return max((d.frame_end for d in stretches if d.frame_start > picked and to_sq in tips(ep, d, side)),
               default=None)


def other_hand_longer(ep: Episode, side: Side, q: int, side_s: float | None = None) -> bool:
    """The other side's hand lay over point q longer than `side`'s fingers did (`side_s`: the
    latter when already known): whatever changed the piece there, it was not `side`'s touch.
    A hand's side is the board edge its arm crosses, so an arm reaching across the board may be
    read as the other side's: this only ever stops an accusation."""
    if side_s is None:
        side_s = under_fingers_seconds(ep, side, q)
    return under_fingers_seconds(ep, side.opponent, q) > side_s


# ---------------------------------------------------------------- the rules, in order
def retouch(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """The last mover's hand rests on the piece it just released (or moves it measurably),
    before the opponent's move (an episode with no move of its own). Putting right a disc left
    between points is what the arbiter wants, not a re-touch."""
    last = mem.last_move
    if last is None or s.moves or last.to_sq in mem.between_reported:
        return
    # only the last mover's own hand, not the far end of the other player's arm reaching over the
    # whole board (held-back 9187 of stop 37, moved to tuning: black's arm passed from black's edge
    # to red's, the part over black's back rank read as red's fingertips resting on the cannon
    # just put on h9 for 0.36 s, its face changed 0.12 under the arm: 'red touched h9 again')
    hit = dwell_on(s.cfg, s.episode, last.side, last.to_sq, by_entry=True)
    shifted = disc_shift(s, last.to_sq) >= s.cfg.touch and s.episode.occluded_frames[last.to_sq] > 0
    # its face, alone of all pieces, no longer matches itself after a hand covered it a while
    # (tuning clip 8379: the elephant g0 turned under the fingers, no rest read, 0.09 spacings)
    handled = handled_piece(s) == last.to_sq
    if hit is not None and not shifted and not handled and face_unchanged(s, last.to_sq):
        # fingertips read resting over it, and the piece read again exactly as it was: the hand
        # hovered over it (tuning clip 8370: a rest over d9, the chariot's face changed 0.00;
        # every re-touch of the tuning clips changed the piece's face 0.11 or more)
        hit = None
    if hit is None and not shifted and not handled:
        return
    if hit is None and other_hand_longer(s.episode, last.side, last.to_sq):
        # moved or changed with no rest of the last mover's on it (held-back 8828, moved to
        # tuning: red's chariot taking black's cannon on b0, the capture not yet read, 'black
        # touched b0 again')
        return
    frames = evidence_frames(s.cfg, s.episode, s.after, last.to_sq)
    if hit is not None:
        frames["during"] = (hit.frame_start + hit.frame_end) // 2
    found.events.append(IncidentEvent(s.t, s.ply, "retouch", last.side, [last.to_sq],
                                      f"{last.side} touched the piece on {point_name(last.to_sq)} again after "
                                      f"releasing it (move {last.ply})", frames=frames))
    mem.last_move = None


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
            # move): moved by that hand, reported as that (held-back 9052 of stop 34, moved to
            # tuning: red's elephant put on e2 touched again, 0.25 spacings, and 'knocked')
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
        # or one whose face changed as a knock changes it (tuning clip 8355: a horse read 0.47
        # sure, knocked 0.34 spacings off with its face changed 1.05)
        if before.ref_prob[p] < cfg.clear_read and back_where_clear(s, mem, p):
            # read unsurely at the last settle and now where it sat when last read clearly: that
            # reading was the odd one out, measured under a hand's edge or shadow, and the disc
            # never moved (held-back 9249 of stop 39, moved to tuning: the horse b9 read 0.45 sure
            # at 0.0 spacings, face 0.97 from its own, as black re-touched b7 beside it; at the next
            # settle back at 0.19 as before, face as before: 'knocked 0.21 spacings')
            continue
        trusted = before.ref_prob[p] >= cfg.clear_read or face_change(s, p) >= cfg.knocked_look
        shift = disc_shift(s, p) if trusted else 0.0
        if shift >= cfg.knock and not farther_off(s, p):
            shift = 0.0   # measured nearer its point than before: re-measured or put right, not knocked off
        if shift >= cfg.knock and face_kept(s, p):
            shift = 0.0   # measured differently, not moved
        # measured short of a knock but farther than a touch pushes a disc, its face turned as a
        # knock turns one and far more than any other piece's: knocked, the offset measured short
        # (tuning clip 8349: the elephant c0 knocked 0.4 spacings off, measured 0.19, its face
        # changed 0.99; a relock or a change of light changes every face alike)
        # The mover's hand has no business on the opponent's pieces it does not take: one turned
        # so, alone, and moved at all was knocked too (held-back 8868, moved to tuning: black's
        # hand knocked red's soldier c3 0.29 spacings off, measured 0.11, its face changed 1.0)
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
    not a knock (tuning 8873: red's fingertips rested 1.2 s on the elephant g0, which turned and
    moved 0.19, before red moved i0h0: 'knocked'; offsets walked to full size measure such a
    push past `handled_shift`)."""
    if s.mover is None or not s.mover.owns(CLASS_LETTERS[c]):
        return False
    return any(tips(s.episode, d, s.mover) == [p] for d in dwells(s.episode, s.mover, s.cfg.dwell_s, True))


MAX_PLIES_FOR_TOUCH = 2   # a touch is judged in a settle explained by at most this many plies (a quick reply)


def handled_instead(rests: MoverRests, touch: Touch) -> Touch:
    """The touch a rest found, or the piece the hand clearly handled (handled_before_move) when it
    is another one and no piece the rest names shows a handled face (`handled_look`): the rest was
    the hand passing, the turned piece the touch (held-back 9179 of stop 37, moved to tuning: red's
    fingertips flickered between h0, g0 and g1, never resting, then rested 0.28 s on g3 on the way
    to the cannon h2; the chariot h0's face changed 0.60, g4's 0.06: 'red touched g4')."""
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
        # the last one, the board read settled before the reply was (tuning clip 8362: red's
        # move and black's reply in one stretch of hands, the settle explained by red's move
        # alone, black's i9-i7 read 4 frames later; black's rest on h9 came before it)
        found_by = MoverRests(replace(s, episode=mem.last_episode), mem, found.knocked)
        touch = touched_before_move(found_by)
    if touch is not None and ((rest_a_point_off(s, touch) and not found_by.before_hand_over_moved(touch))
                              or found_by.unseen_pick_up_read_beside(touch)
                              or hovered(s, touch) or pick_up_read_short(s, touch)):
        touch = None
    if touch is not None and touch.dwell is not None:
        touch = handled_instead(rests, touch)
    from_pending: dict[str, int] | None = None
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
                from_pending = pt.frames
                break
    if touch is None:
        touch = handled_before_move(rests)
    if touch is not None:
        frames = evidence_frames(cfg, s.episode, s.after, touch.points[0])
        if touch.dwell is not None:
            frames["during"] = (touch.dwell.frame_start + touch.dwell.frame_end) // 2
        elif from_pending is not None:
            frames.update({k: v for k, v in from_pending.items() if k in ("before", "during")})
        where = " or ".join(point_name(p) for p in touch.points)
        found.events.append(IncidentEvent(s.t, s.ply, "touch_move_other", mover, list(touch.points) + [m.from_sq],
                                          f"{mover} touched {where} then moved {m.iccs()}", frames=frames))


def touch_move(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """The mover's hand rested on another own piece before picking up the one moved (in this
    stretch, or in a stretch of its own before it, hand lifted clear). A settle without a move
    remembers the side to move resting a hand on its own pieces for that."""
    cfg, before = s.cfg, s.before
    mover = s.mover
    if len(s.moves) > MAX_PLIES_FOR_TOUCH:
        # a settle that catches up three plies or more (the board was never seen quiet between
        # them, or the reader lost it): which rest came before which pick-up is not known (tuning
        # clips 8381: black's rest read as a touch before red's move; 8335)
        mem.pending_touches = []
        return
    if s.moves and mover is not None:
        judge_touch(s, mem, found)
        if len(s.moves) == 2:
            # the reply made in the same stretch of hands: its mover's rests before picking up
            # the piece it moved are judged the same way (held-back 9047 of stop 34, moved to
            # tuning: black's chariot a9a8 and red's i3i4 read at one settle; red's fingers on the
            # cannon h2 for 0.28 s first, its face changed 0.71, and only black was judged)
            # Only from the first mover's hand gone: before that, the reply's side may have been
            # touching its own last move's piece again (a re-touch, judged as such), and which of
            # its rests came before the reply's pick-up is told within its own stretch alone
            # (tuning 8976: red's fingers on the advisor it had just put on e1, then black's reply
            # and red's next move at one settle: 'red touched e1 or e0')
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
        # by_entry: held-back 9065 of stop 34, moved to tuning: red's hand reached to h8 over
        # red's edge, seen over ranks 0-9, and black's 'fingertips' on the cannon h0 at red's edge
        # for 0.68 s were remembered as a touch, 'black touched h0' at black's next move)
        for d in dwells(ep, side, min_s, by_entry=True):
            for c in contacts(ep, d, side):
                if own_piece(s, mem, side, c):
                    also = tuple(q for q in tips(ep, d, side) if q != c and own_piece(s, mem, side, q))[:1]
                    if d.seconds < cfg.hover_s and face_unchanged(s, c):
                        # a short rest that left the piece exactly as it was, as `hovered` judges
                        # a rest before a move (held-back 8864, moved to tuning: no hand at all,
                        # a flicker beside the cannon just put on h9 read as fingertips on the
                        # empty g8 for 0.24 s and 0.28 s, then 'black touched f9') ...
                        turned_tip = [q for q in also if turned_beyond_noise(s, q)]
                        if not turned_tip:
                            break
                        # ... unless the other own piece under the fingertips turned: the fingers
                        # were on that one, read a point off (tuning 9216: red's fingertips read on
                        # the advisor d0 for 0.40 s, its face as it was, the general e0 beside it
                        # turned 0.126 where the board's faces changed 0.005; then e4e5 was moved)
                        c, also = turned_tip[0], (c,)
                    # where the fingers were is uncertain by a point: keep the other own piece
                    # the fingertips may have been on, as the touch in this stretch does
                    turned = handled_piece(s)
                    if turned is not None and turned != c and face_kept(s, c) and covered_during(ep, d, turned) \
                            and own_piece(s, mem, side, turned):
                        # the hand lay over two pieces and the fingertips were read on the wrong
                        # one: the piece it turned is the one it was on (held-back 9234 of stop
                        # 39, moved to tuning: red's hand over g0 and h0 by its edge, fingertips
                        # read on g0 for 0.56 s, the chariot h0's face turned; lifted clear, then
                        # g0 moved: 'touched g0', the piece moved, and nothing was reported)
                        c, also = turned, (c,)
                    mem.pending_touches.append(
                        PendingTouch(side, c, {"before": before.frame_index,
                                               "during": (d.frame_start + d.frame_end) // 2}, also,
                                     face_change(s, c)))
                    break
        if local:
            handled_without_rest(s, mem, side)


def handled_without_rest(s: SettleFacts, mem: IncidentMemory, side: Side) -> None:
    """A stretch without a move in which no rest of the side to move was read, but one of its own
    pieces under its fingers was handled (`handled_piece`: its face turned, standing out from every
    other): that is a touch too, remembered for the move to come, as handled_before_move judges one
    in the move's own stretch (held-back 8960 of stop 31, moved to tuning: black's fingers on the
    advisor f9 for under a second, too quick for a rest, its face changed 0.82; then a stretch
    later the horse g9 went to i7). Only a hand that stayed local: an arm sweeping across the
    board changes a face it passes over too (tuning 8394: red's cannon e6 0.42 under an arm pass,
    'red touched e6' at the next move)."""
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
                                            face_change(s, q)))


def between_points(s: SettleFacts, mem: IncidentMemory, found: Findings) -> None:
    """A disc left clearly off its point (relative to where all the discs sit: a slightly off
    board registration moves them all), reported once; a knocked disc is not reported again."""
    cfg, before, after = s.cfg, s.before, s.after
    moved = s.moved_points
    mover = s.mover
    centre = discs_centre(cfg, after)
    # a disc a move took away or brought is another disc than the one reported there (tuning 8391:
    # the soldier reported between points near c5, then taken by a cannon left between points
    # there too: 'reported already')
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
            # its offset reads (tuning clip 8355: 0.0 spacings while it still lay between points,
            # so the hand that then put it right 'touched' it)
            still_blurred = (p in mem.between_reported and after.empty_prob is not None
                             and after.empty_prob[p] >= cfg.between_empty)
            # nor has one measured back near its point with its face as it was: it did not move, it
            # was measured differently (held-back 9025 of stop 33, moved to tuning: a cannon left
            # 0.43 off g7 read 0.14 off at the next settle, face changed 0.006; put right a move
            # later, face 1.04, it was 'knocked')
            # A face not read again at all (the same look, to the bit: nothing changed in its crop)
            # says the same (held-back 9062 of stop 34, moved to tuning: a cannon left 0.38 off h4,
            # measured 0.13 off once a camera bump had the lattice found again, released at the
            # next settle with its face unread; put right a move later, the hand was 'a touch')
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
        # while the hand had barely left it (held-back 8886, moved to tuning: the cannon put down
        # 0.43 off h1 read 0.16 off at the move's settle, 0.39 at the next one, never reported)
        put_down_late = (not s.moves and mem.last_move is not None and mem.last_move.to_sq == p
                         and mem.last_move.ply == s.ply)
        if p not in moved and not put_down_late and before.visible[p] and \
                (disc_shift(s, p) < cfg.knock or face_kept(s, p)):
            # an unmoved disc measured a little farther off than last time, across the threshold,
            # or farther with its face as it was: it has not moved, it is measured differently
            # (tuning clip 8333: an elephant nobody touched 'left between points' at 0.30 spacings)
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


def between_restated(cfg: IncidentConfig, inc: IncidentEvent, was: list[Move], now: list[Move],
                     after: Settled, ep: Episode) -> IncidentEvent | None:
    """A between-points incident a correction voided, said again of the point the corrected record
    puts the same piece on, when that point is next to the one reported and the disc is still off
    its point or a hand has been over it since.

    Why: the disc was seen off its point whichever point the record names. When the record had the
    piece put down on q and the correction has it put down beside q, the disc lay between the two
    (tuning 8402: a soldier left between b4 and b5 was read as b7b5 and reported off b5; the
    correction to b7b4 voided the report, and by then the player had put the disc right, so
    nothing was said of it again). A disc seen on its point at the correction that no hand came
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


class IncidentTracker:
    """Applies the incident rules at each settle and keeps their memory across settles; also builds
    the incidents the tracker itself finds (knocked off, put down between points, illegal move)."""

    def __init__(self, config: IncidentConfig | None = None, rules: tuple[IncidentRule, ...] = RULES) -> None:
        self.cfg = config or IncidentConfig()
        self.rules = rules
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
            # difference is the grids', not the discs' (held-back 8873 of stop 31, moved to tuning:
            # the first lock replaced by a clearly better lattice a second in, and the soldier c3
            # nobody touched 'knocked 0.21 spacings off'). No disc is judged moved by its offset.
            both = before.visible & after.visible
            before = replace(before, offsets=np.where(both[:, None], after.offsets, before.offsets))
        facts = SettleFacts(self.cfg, ep, before, after, before_pos, ex.moves if ex is not None else [],
                            ex is not None, ply, common_drift(before, after, self.cfg.min_discs_for_drift))
        found = Findings()
        for rule in self.rules:
            rule(facts, self.memory, found)
        remember_last_move(facts, self.memory)
        remember_clear_offsets(facts, self.memory)
        self.memory.between_fresh.clear()
        return list(found.events)

    def forget_last_move(self) -> None:
        """A correction re-stated the last plies: the piece the record said was just put down was
        not put down there, so a hand going back to that point is no re-touch (tuning clip 8321: a
        disc left between points read as a move, corrected, then 'retouched'). The corrected move's
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
        decides that): knocked, and not reported again while its point stays empty."""
        self.memory.knocked_reported.add(p)
        where = "pushed off its point" if disc_seen_near else "knocked off the board (no disc seen near its point)"
        return IncidentEvent(t, ply, "knocked", side, [p],
                             f"{piece_label(piece)} on {point_name(p)} {where}; "
                             f"the game goes on, the piece should be put back",
                             frames=frames, extra={"off_board": not disc_seen_near})

    def put_down_between(self, t: float, ply: int, piece: str, p: int, offset: np.ndarray,
                         frames: dict[str, int]) -> IncidentEvent:
        """A moved piece the tracker recorded from a disc seen off the points (or from the
        mover's rest, when the disc reads on no point): between points, reported once."""
        self.memory.between_reported.add(p)
        self.memory.between_fresh.add(p)
        off = float(np.abs(offset).max())
        how = (f"the disc is seen {off:.2f} spacings off the point" if off >= self.cfg.between * 0.5
               else "the reader cannot see it on any point")
        near = points_between(self.cfg, p, offset)
        return IncidentEvent(t, ply, "between_points", Side.BLACK if piece.islower() else Side.RED, near,
                             f"{piece_label(piece)} put down off the points {between_text(near)} ({how})",
                             frames=frames, extra={"offset": [round(float(v), 3) for v in offset]})

    def illegal_move(self, t: float, ply: int, side: Side, phys: PhysicalMove, reason: str,
                     board_shows: str, frames: dict[str, int]) -> IncidentEvent:
        m = Move(phys.from_sq, phys.to_sq)
        return IncidentEvent(t, ply, "illegal_move", side, [phys.from_sq, phys.to_sq],
                             f"illegal move of the {piece_label(phys.piece)} {m.iccs()}: {reason}; "
                             f"the board shows it until corrected",
                             frames=frames, extra={"move": m.iccs(), "reason": reason, "board_shows": board_shows})
