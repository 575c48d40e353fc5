"""What happened to each point while hands were over the board.

An episode runs from the first frame that is not quiet (or whose reading
departs from the settled board) to the frame the board settles again. The
tracker feeds it every frame; at settle time the incident rules read the
per-point record: when a point was first covered, how far its disc moved
while it could be seen, how sure the reader stayed that the settled piece
was still there. Pure numpy, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from rules import Side

from .turning import turned_homography, turned_indices, turned_offsets, turned_points

# A pinch of fingers over the player's own edge rank covers fewer files than this: a region that
# narrow at a corner is fingers cut by the side edge (see fingertips)
CORNER_PINCH_FILES = 3


@dataclass
class Settled:
    """A settled board: what the tracker compares the next episode against."""

    t: float
    frame_index: int
    classes: np.ndarray          # (90,) class index per point (the legal position's placement)
    offsets: np.ndarray          # (90, 2) mean disc offsets over the settle window
    visible: np.ndarray          # (90,) bool, seen during the settle window
    ref_prob: np.ndarray         # (90,) mean probability of `classes` at each point
    provisional: bool = False    # no settle seen yet: offsets unknown, judge no incident against it
    covered: np.ndarray | None = None   # (90,) bool: under a resting hand/arm when it settled
    observed: np.ndarray | None = None  # (90,) the reader's most likely class per point then
    empty_prob: np.ndarray | None = None  # (90,) the reader's probability that the point is empty
    looks: np.ndarray | None = None       # (90, D) each point's face as last read (vision.looks), if the reader looks
    lattice: int = 0                      # the reader's lattice the offsets were measured against (Observation.lattice)

    def turned(self) -> "Settled":
        """The same settled board read with red's end and black's swapped (board.turning)."""
        def opt(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else turned_points(a)
        return replace(self, classes=turned_points(self.classes), offsets=turned_offsets(self.offsets),
                       visible=turned_points(self.visible), ref_prob=turned_points(self.ref_prob),
                       covered=opt(self.covered), observed=opt(self.observed), empty_prob=opt(self.empty_prob),
                       looks=opt(self.looks))


@dataclass
class CameraConfig:
    """When the camera counts as moving (a bump, a re-lock), so that hand flags are not trusted."""

    # the lattice shifted this much between two frames (point spacings): the camera moved. The
    # hand detector takes the same shift for a knock (vision.hands, bump_spacings): below it the
    # rectified board it compares against stays where it was. The lock's own refits reach a fifth
    # of that on a blurred or noisy view whose lines sit a third of a pixel from the fit (a refit
    # of 0.02 spacings taken for a camera move as a hand comes in would leave every point it covers
    # out of the hand evidence while it stays: a lift and a pick-up go unseen, and the rests left
    # over read as touches)
    moved: float = 0.03
    after_shift_s: float = 0.4   # flags this long (video s) after the camera's last shift are not taken as hands


def lattice_shift(h0: np.ndarray, h1: np.ndarray) -> float:
    """How far the board moved in the image between two poses, in point spacings: the largest
    distance, read on the board plane of `h1`, between where `h0` and `h1` put the lattice's
    corners and centre."""
    pts = np.array([[0.0, 0.0, 1.0], [8.0, 0.0, 1.0], [8.0, 9.0, 1.0], [0.0, 9.0, 1.0], [4.0, 4.5, 1.0]])
    img = pts @ np.asarray(h0, dtype=np.float64).T
    try:
        back = img @ np.linalg.inv(np.asarray(h1, dtype=np.float64)).T
    except np.linalg.LinAlgError:
        return float("inf")
    if np.any(np.abs(back[:, 2]) < 1e-12):
        return float("inf")
    return float(np.max(np.linalg.norm(back[:, :2] / back[:, 2:3] - pts[:, :2], axis=1)))


class CameraWatch:
    """Notices the camera moving from the board pose of each frame.

    Why: the hand detector compares each frame with what the board looked like; when the
    camera is bumped the whole view shifts, and for a moment the detector flags points whose
    look changed (a disc's edge, a printed line) although no hand is there. Such a flag can sit
    on one point for longer than a fingertip rest, and an own piece there would then read as
    touched. While the camera moves, and for `after_shift_s` after, the episode does not take the
    flags as a hand (an arm that stays over the board is still seen once the view is steady).
    The pose of a steady camera changes only by the lock's refits, when its lines drifted a third
    of a pixel, so a shift beyond `moved` is the camera.

    A flag raised while the camera moved can also outlast the move: the board's own edge seen
    from the new viewpoint differs along a whole side until the detector has learnt it again.
    Such a flag stays put on its points, and its leading point would read as fingertips
    resting there for seconds; the points flagged while the camera moved are therefore left
    out of the hand evidence for as long as they stay flagged without a break (`hands`). A
    hand that comes later is seen on every other point it covers, and on these once they clear.
    """

    def __init__(self, config: CameraConfig | None = None) -> None:
        self.cfg = config or CameraConfig()
        self._h: np.ndarray | None = None
        self._moved_t: float | None = None
        self.residue = np.zeros(90, dtype=bool)   # flagged since the camera moved, never clear since
        self.steady = np.zeros(90, dtype=bool)    # the hand's points in the last frame of a steady camera

    def unsteady(self, t: float, homography: np.ndarray | None) -> bool:
        """Feed one frame's pose (None: board not found); whether its hand flags are suspect."""
        if homography is not None:
            h = np.asarray(homography, dtype=np.float64)
            if self._h is not None and lattice_shift(self._h, h) >= self.cfg.moved:
                self._moved_t = t
            self._h = h
        return self._moved_t is not None and t - self._moved_t <= self.cfg.after_shift_s

    def turn(self) -> None:
        """Go on watching the board read with red's end and black's swapped (board.turning)."""
        if self._h is not None:
            self._h = turned_homography(self._h)
        self.residue = turned_points(self.residue)
        self.steady = turned_points(self.steady)

    def hands(self, occluded: np.ndarray, unsteady: bool) -> np.ndarray:
        """The flags of one frame that may be a hand: while the camera is unsteady only those of a
        hand at rest there since before it moved (the others are remembered as residue), and
        after it none of the residue while it stays flagged. A hand resting over the board when
        the lock refits the pose stays a hand (a refit of a third of a pixel under a resting hand
        would drop the rest, and with it a touch); a hand that moves meanwhile is not followed
        (its overlap with where it was is no hand)."""
        occ = np.asarray(occluded, dtype=bool)
        if unsteady:
            held = occ & self.steady
            # three quarters of the region is where the hand was, and most of where it was is
            # flagged still. A hand that moves on while an arm across the board walks the lock
            # is not at rest: held to where it was, its fingertips would rest there (a hand
            # reaching on across the board, held where it was for under half a second, reads as a
            # touch of the piece there)
            at_rest = 4 * int(held.sum()) >= 3 * int(occ.sum()) and 2 * int(held.sum()) >= int(self.steady.sum())
            if not at_rest:
                held = np.zeros_like(occ)
            self.residue |= occ & ~held
            return held
        self.residue &= occ
        self.steady = occ & ~self.residue
        return self.steady.copy()


@dataclass
class Episode:
    """Per-point record of one hands-over-board stretch."""

    t_start: float
    frame_start: int
    before: Settled
    frames: int = 0
    t_last: float = 0.0
    frame_last: int = 0
    first_occluded: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    last_occluded: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    occluded_frames: np.ndarray = field(default_factory=lambda: np.zeros(90, dtype=np.int64))
    # largest offset departure from the settled offset while the point was visible
    max_shift: np.ndarray = field(default_factory=lambda: np.zeros(90, dtype=np.float64))
    max_shift_frame: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))
    busiest_frame: int = -1
    busiest_count: int = -1
    # (frame index, t, occluded point indices) of every frame with something over the board
    covered: list = field(default_factory=list)
    homography: np.ndarray | None = None    # the board pose last seen (for parallax)
    unsteady_frames: int = 0                # frames taken while the camera moved (only a hand already there counted)
    # the last frame each point was seen uncovered and read as the piece it held when the episode
    # began (-1: never): a piece moved with the hand unseen was picked up after this frame
    home_last_seen: np.ndarray = field(default_factory=lambda: np.full(90, -1, dtype=np.int64))

    def turned(self) -> "Episode":
        """The same episode read with red's end and black's swapped (board.turning)."""
        return replace(self, before=self.before.turned(),
                       first_occluded=turned_points(self.first_occluded),
                       last_occluded=turned_points(self.last_occluded),
                       occluded_frames=turned_points(self.occluded_frames),
                       max_shift=turned_points(self.max_shift), max_shift_frame=turned_points(self.max_shift_frame),
                       covered=[(f, t, turned_indices(c)) for f, t, c in self.covered],
                       homography=None if self.homography is None else turned_homography(self.homography),
                       home_last_seen=turned_points(self.home_last_seen))

    @property
    def frame_interval(self) -> float:
        """Seconds between two of the episode's frames (its span over its frame count)."""
        return (self.t_last - self.t_start) / max(self.frames - 1, 1)

    @property
    def hand_seen(self) -> bool:
        """Whether anything (a hand, an arm) was seen over the board in the episode."""
        return bool(self.covered)

    def update(self, t: float, frame_index: int, occluded: np.ndarray | None, probs: np.ndarray | None,
               offsets: np.ndarray | None, unsteady: bool = False) -> None:
        """Add one frame. `occluded` None means the board was not found in this frame; `unsteady`
        that the camera was moving (CameraWatch): its disc offsets say nothing, and of its hand
        flags only those CameraWatch kept (a hand there before the camera moved) are given."""
        self.frames += 1
        self.t_last = t
        self.frame_last = frame_index
        if unsteady:
            self.unsteady_frames += 1
        if occluded is None or probs is None or offsets is None:
            return
        occ = np.asarray(occluded, dtype=bool)
        if occ.any() and not occ.all():
            self.covered.append((frame_index, t, np.flatnonzero(occ)))
        new = occ & (self.first_occluded < 0)
        self.first_occluded[new] = frame_index
        self.last_occluded[occ] = frame_index
        self.occluded_frames += occ
        n = int(occ.sum())
        if n > self.busiest_count:
            self.busiest_count, self.busiest_frame = n, frame_index
        if unsteady:
            return
        vis = ~occ
        held = self.before.classes != 0
        home = vis & held & (np.argmax(np.asarray(probs), axis=1) == self.before.classes)
        self.home_last_seen[home] = frame_index
        shift = np.linalg.norm(np.asarray(offsets, dtype=np.float64) - self.before.offsets, axis=1)
        shift = np.where(vis, shift, 0.0)
        grow = shift > self.max_shift
        self.max_shift[grow] = shift[grow]
        self.max_shift_frame[grow] = frame_index


@dataclass
class Dwell:
    """The fingertips resting over one point for a while."""

    point: int
    frame_start: int
    frame_end: int
    t_start: float
    t_end: float

    @property
    def seconds(self) -> float:
        return self.t_end - self.t_start


def _largest_component(covered: np.ndarray) -> np.ndarray:
    """The largest 8-connected group of covered points (a hand and its arm are one
    piece; a stray flagged point elsewhere is not the hand)."""
    if covered.size <= 1:
        return covered
    left = set(int(p) for p in covered)
    best: list[int] = []
    while left:
        seed = left.pop()
        comp, stack = [seed], [seed]
        while stack:
            p = stack.pop()
            px, py = p % 9, p // 9
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    q = (py + dy) * 9 + px + dx
                    if (dx or dy) and 0 <= px + dx <= 8 and 0 <= py + dy <= 9 and q in left:
                        left.discard(q)
                        comp.append(q)
                        stack.append(q)
        if len(comp) > len(best):
            best = comp
    return np.array(sorted(best), dtype=np.int64)


def fingertips(covered: np.ndarray, side: Side, all_ties: bool = False):
    """The point of the hand's region that leads its reach from `side`'s edge.

    The leading rank is the one farthest into the board from the player's edge; across
    it the fingertips are where the hand's region is centred (the mean file of its two
    leading ranks), not its outermost point: a hand is broad, and "farthest from the
    shoulder" drifts to whichever covered point lies farthest out sideways. With
    `all_ties`: the list of the points the fingertips may be on (equally central
    leading points, and the leading point at a side edge the hand's region is cut by).
    """
    covered = _largest_component(np.asarray(covered))
    x = covered % 9
    y = covered // 9
    depth = y if side == Side.RED else 9 - y
    lead = depth == depth.max()
    near = depth >= depth.max() - 1
    cx = float(x[near].mean())
    if depth.max() - depth.min() >= 3:
        # a long reach: the fingertips lie on the arm's line, from where the arm enters
        # over the player's edge through the middle of the region (an arm reaching in
        # diagonally drags the leading ranks' centre back toward its elbow)
        shallow = depth == depth.min()
        x0, d0 = float(x[shallow].mean()), float(depth.min())
        dm = float(depth.mean())
        if dm - d0 >= 0.5:
            cx = x0 + (float(x.mean()) - x0) * (float(depth.max()) - d0) / (dm - d0)
    cand = covered[lead]
    gap = np.abs(cand % 9 - cx)
    if not all_ties:
        return int(cand[int(np.argmin(gap))])
    out = [int(q) for q in cand[gap <= gap.min() + 1e-6]]
    # A hand reaching well into the board along a side edge may lie partly beyond
    # it, where no point records it: the region is cut there and its centre drifts
    # inward, so the leading point at the edge is as likely. A hand only just over
    # the player's own edge is fingers alone: cut sideways only when they cover no
    # more than a pinch's width at a corner (a corner piece grabbed with fingers over
    # three files is centred on the middle one; a hand lying along the edge rank over
    # five files is centred where it is).
    edge_lo, edge_hi = bool((cand % 9 == 0).any()), bool((cand % 9 == 8).any())
    if edge_lo != edge_hi and (depth.max() >= 2 or np.ptp(x) < CORNER_PINCH_FILES):
        q = int(cand[int(np.argmin(cand % 9))] if edge_lo else cand[int(np.argmax(cand % 9))])
        if q not in out:
            out.append(q)
    return out


def reach(episode: Episode, side: Side) -> int:
    """How far `side`'s fingertips travelled over the board in the episode (king steps
    between the two farthest fingertip points): a hand going to one piece stays
    local, an arm sweeping across the board does not."""
    pts = [fingertips(c, side) for _, _, c in _attributed(episode, side)]
    if not pts:
        return 0
    xs = np.array([p % 9 for p in pts])
    ys = np.array([p // 9 for p in pts])
    return int(max(xs.max() - xs.min(), ys.max() - ys.min()))


MAX_FRAME_GAP = 3   # frames: a hand's stretches further apart than this are not one stay over the board


def _reaches_edge(hand: np.ndarray, side: Side) -> bool:
    """The hand's region runs to `side`'s edge of the board: red's down to rank 0 (within two
    ranks: a lifted hand is seen displaced), black's up to rank 9."""
    ranks = hand // 9
    return bool(ranks.min() <= 2) if side == Side.RED else bool(ranks.max() >= 7)


def _attributed(episode: Episode, side: Side, by_entry: bool = False) -> list:
    """The episode's frames with a hand that may be `side`'s, its region in each.

    A hand reaches in from its player's edge, so a region running down to red's edge may be
    red's. A region across the whole board runs to both edges, and may be either's. `by_entry`:
    the hand that made it came in from one of them, and was seen there first: while the region
    that came in over one player's edge alone (and no farther) still runs back to that edge, it
    is that player's hand, not the other's with its fingertips where the arm enters (a hand
    reaching deep into the board from its own edge is seen over every rank; read as the other
    player's, that player's 'fingertips' sit on a piece at the first player's edge)."""
    resting = episode.before.covered
    frames = []
    owner: Side | None = None
    last_f: int | None = None
    for f, t, c in episode.covered:
        if resting is not None:
            c = c[~resting[c]]   # an arm resting since before is not a hand reaching
        if not c.size:
            continue
        hand = _largest_component(c)
        red, black = _reaches_edge(hand, Side.RED), _reaches_edge(hand, Side.BLACK)
        if last_f is None or f - last_f > MAX_FRAME_GAP:
            # a hand first seen over one player's edge alone came in from there
            owner = (Side.RED if red else Side.BLACK) if red != black else None
        elif owner is not None and not (red if owner == Side.RED else black):
            owner = None   # it left its edge: whatever is seen now may be another hand
        last_f = f
        if not (red if side == Side.RED else black) or (by_entry and owner is not None and owner != side):
            continue
        frames.append((f, t, hand))
    return frames


def dwells(episode: Episode, side: Side, min_s: float = 0.28, by_entry: bool = False) -> list[Dwell]:
    """Stretches where `side`'s fingertips stayed over one point for `min_s` or more.

    A hand reaching for a piece slows down and rests on it; an arm sweeping
    across the board does not. One-frame jitter of the fingertip point is
    smoothed away (majority of three frames).
    `by_entry`: only a hand that did not come in over the other player's edge (_attributed).
    """
    frames = _attributed(episode, side, by_entry)
    if not frames:
        return []
    tips = [fingertips(c, side) for _, _, c in frames]
    smooth = list(tips)
    for i in range(1, len(tips) - 1):
        if tips[i - 1] == tips[i + 1] != tips[i]:
            smooth[i] = tips[i - 1]
    out: list[Dwell] = []
    start = 0
    for i in range(1, len(smooth) + 1):
        gap = i < len(smooth) and frames[i][0] - frames[i - 1][0] > MAX_FRAME_GAP
        if i == len(smooth) or smooth[i] != smooth[start] or gap:
            f0, t0, _ = frames[start]
            f1, t1, _ = frames[i - 1]
            if t1 - t0 >= min_s - 1e-6:
                out.append(Dwell(smooth[start], f0, f1, t0, t1))
            start = i
    return out


def away_from_camera(homography: np.ndarray | None, min_gradient: float = 0.01) -> tuple[int, int] | None:
    """The lattice step (dx, dy) pointing away from the camera, or None when seen from above.

    A raised hand covers points displaced from the one its fingers touch,
    away from the camera (parallax). The image scale of the board shrinks
    fastest in that direction, so it is read off the homography alone,
    whatever side of the table the camera stands on.
    """
    if homography is None:
        return None
    h = np.asarray(homography, dtype=np.float64)

    def scale(x: float, y: float) -> float:
        e = 0.5
        pts = np.array([[x, y, 1.0], [x + e, y, 1.0], [x, y + e, 1.0]]) @ h.T
        if np.any(np.abs(pts[:, 2]) < 1e-9):
            return float("nan")
        p = pts[:, :2] / pts[:, 2:3]
        a, b = (p[1] - p[0]) / e, (p[2] - p[0]) / e
        return float(np.sqrt(abs(a[0] * b[1] - a[1] * b[0])))

    s0 = scale(4.0, 4.5)
    gx = (scale(6.0, 4.5) - scale(2.0, 4.5)) / 4.0
    gy = (scale(4.0, 6.5) - scale(4.0, 2.5)) / 4.0
    if not np.isfinite([s0, gx, gy]).all() or s0 <= 0:
        return None
    g = np.array([gx, gy]) / s0            # relative change of scale per point spacing
    if np.linalg.norm(g) < min_gradient:
        return None
    u = -g / np.linalg.norm(g)
    return int(np.round(u[0])), int(np.round(u[1]))
