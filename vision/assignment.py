"""Joint board reading: every point's class chosen at once, under the contents of a set.

Why: read point by point, an unfamiliar set gives impossible boards (three red horses, a
general outside its palace, two black generals) because each point's reading ignores the rest.
A set holds, per side, 1 general, 2 advisors, 2 elephants, 2 horses, 2 chariots, 2 cannons
and 5 soldiers, and in a game position the general and advisors stay on their palace points,
elephants on their seven points and soldiers never go behind their start rank. Reading the
whole board as one assignment of points to classes under those limits turns many single-point
misreads into the right piece (the third "horse" goes to the class it was second most likely).

The assignment is a small transportation problem: 90 points (supply 1 each) to 15 classes
(capacity: empty 90, each piece its count in a set) at cost -log p. It is solved exactly by
successive shortest paths on the 15 class nodes (a point moved from class a to class b is an
edge a->b of cost c[p,b] - c[p,a], the cheapest such point per pair), starting from each
point's own best class, which is optimal whenever no class is over its count (the usual case),
so a full read costs well under a millisecond.

Placement tables live here, not in `rules`: vision never imports rules (design card).
Pure logic: no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.observation import CLASSES, NUM_POINTS

__all__ = ["SetCounts", "AssignConfig", "JointReading", "placement_mask", "assign_classes",
           "read_jointly", "STANDARD_SET"]

_NC = len(CLASSES)


@dataclass(frozen=True)
class SetCounts:
    """How many of each piece one side has in a set (a full Xiangqi set by default)."""

    general: int = 1
    advisor: int = 2
    elephant: int = 2
    horse: int = 2
    chariot: int = 2
    cannon: int = 2
    soldier: int = 5

    def capacity(self) -> np.ndarray:
        """Per-class capacity in CLASSES order (the empty class holds every point)."""
        side = [self.general, self.advisor, self.elephant, self.horse, self.chariot, self.cannon, self.soldier]
        if any(n < 0 for n in side):
            raise ValueError(f"piece counts must be >= 0, got {self}")
        return np.array([NUM_POINTS] + side + side, dtype=np.int64)


STANDARD_SET = SetCounts()


@dataclass(frozen=True)
class AssignConfig:
    """Knobs of the joint reading.

    prob_floor: the empty/occupied probability is clipped to [floor, 1 - floor] before the log
        (a model's near-zero is not a proof; without a floor one misread would forbid the truth).
    identity_temperature: the model's piece identities (given a disc) are raised to 1/T and
        renormalised: on unfamiliar sets its identities are over-confident, its occupancy is not.
    identity_floor: least identity probability (given a disc) any piece keeps.
    unsure_below: a point whose joint confidence (see `JointReading.confidence`) is below
        this is reported unsure.
    forbidden_cost: cost (nats) of a class the placement rules forbid on a point; large
        enough that it is never chosen while any allowed reading exists.
    """

    prob_floor: float = 1e-4
    identity_temperature: float = 2.0
    identity_floor: float = 0.01
    unsure_below: float = 0.6
    forbidden_cost: float = 1e4


@dataclass
class JointReading:
    """The board read as a whole.

    labels: (90,) class index per point (index order), never over a set's counts.
    probs: (90, 15) joint probabilities: for each point a softmax over the extra cost (nats) of
        the best assignment that gives the point each class, the rest of the board accounted
        for. Their argmax is `labels`; without binding counts they are the plain probabilities.
    unsure: (90,) bool, the assigned class's joint probability below the configured bar.
    changed: (90,) bool, points whose joint class differs from their own most likely class.
    cost: total -log probability of the reading (nats).
    flipped: True when the board reads better turned 180 degrees (point i is 89 - i of the
        input); labels and every other array here are already in the turned order.
    """

    labels: np.ndarray
    probs: np.ndarray
    unsure: np.ndarray
    changed: np.ndarray
    cost: float
    flipped: bool = False

    @property
    def confidence(self) -> np.ndarray:
        """(90,) joint probability of each point's assigned class."""
        return self.probs[np.arange(len(self.labels)), self.labels]

    def board_string(self) -> str:
        """90 characters in point-index order ('.' empty)."""
        return "".join(CLASSES[i] for i in self.labels)


def _palace(ranks: range) -> set[int]:
    return {r * 9 + f for r in ranks for f in range(3, 6)}


def placement_mask(red_low: bool = True) -> np.ndarray:
    """(90, 15) bool: where each class may stand in a game position.

    `red_low`: red's back rank is rank 0 of the point indexing (the indexing convention); with
    False the tables are turned (used to test an orientation). Generals on their nine palace
    points, advisors on their five, elephants on their seven, soldiers never behind their start
    rank and, before crossing the river, only on their files (a, c, e, g, i); the other pieces
    anywhere. Empty is allowed everywhere.
    """
    allowed = np.ones((NUM_POINTS, _NC), bool)

    def only(cls: str, pts: set[int]) -> None:
        col = np.zeros(NUM_POINTS, bool)
        col[sorted(pts)] = True
        allowed[:, CLASSES.index(cls)] = col

    def mirror(pts: set[int]) -> set[int]:  # red's point -> black's point (ranks turned)
        return {(9 - p // 9) * 9 + p % 9 for p in pts}

    red_palace = _palace(range(0, 3))
    red_adv = {0 * 9 + 3, 0 * 9 + 5, 1 * 9 + 4, 2 * 9 + 3, 2 * 9 + 5}
    red_ele = {0 * 9 + 2, 0 * 9 + 6, 2 * 9 + 0, 2 * 9 + 4, 2 * 9 + 8, 4 * 9 + 2, 4 * 9 + 6}
    red_sol = {r * 9 + f for r in (3, 4) for f in (0, 2, 4, 6, 8)} | {r * 9 + f for r in range(5, 10) for f in range(9)}
    for cls, pts in (("K", red_palace), ("A", red_adv), ("B", red_ele), ("P", red_sol)):
        only(cls, pts)
        only(cls.lower(), mirror(pts))
    if not red_low:
        allowed = allowed[::-1].copy()
    return allowed


def _costs(probs: np.ndarray, allowed: np.ndarray | None, cfg: AssignConfig) -> np.ndarray:
    """Cost (nats) of each class on each point: occupancy and identity priced apart.

    Whether a point carries a disc is read reliably even on unfamiliar sets; which piece it
    is is not, and there the model is over-confident. So the cost is -log p(empty) for empty,
    and -log p(occupied) - log q(piece | occupied) for a piece, with q the model's identity
    distribution tempered and floored: a full class pushes a disc to the next likely piece,
    rarely off the board.
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != _NC:
        raise ValueError(f"probs must be (N, {_NC}) class probabilities, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or (p < 0).any():
        raise ValueError("probs must be finite and non-negative")
    p = np.clip(p, 0.0, None)
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
    empty = np.clip(p[:, 0], cfg.prob_floor, 1.0 - cfg.prob_floor)
    ident = np.clip(p[:, 1:], 1e-12, None) ** (1.0 / cfg.identity_temperature)
    ident /= ident.sum(axis=1, keepdims=True)
    ident = np.maximum(ident, cfg.identity_floor)
    c = np.empty_like(p)
    c[:, 0] = -np.log(empty)
    c[:, 1:] = -np.log(1.0 - empty)[:, None] - np.log(ident)
    if allowed is not None:
        a = np.asarray(allowed, bool)
        if a.shape != p.shape:
            raise ValueError(f"allowed mask must have the shape of probs {p.shape}, got {a.shape}")
        c = np.where(a, c, cfg.forbidden_cost)
    return c


def _edges(c: np.ndarray, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class-level residual graph: w[a, b] = cheapest cost of moving one point now in a to b,
    arg[a, b] = that point (-1 where class a holds no point)."""
    w = np.full((_NC, _NC), np.inf)
    arg = np.full((_NC, _NC), -1, np.int64)
    for a in np.unique(lab):
        pts = np.flatnonzero(lab == a)
        delta = c[pts] - c[pts, a][:, None]          # (n_a, 15)
        j = delta.argmin(axis=0)
        w[a] = delta[j, np.arange(_NC)]
        arg[a] = pts[j]
    np.fill_diagonal(w, np.inf)
    return w, arg


def _shortest_from(w: np.ndarray, src: int) -> tuple[np.ndarray, np.ndarray]:
    """Bellman-Ford distances and predecessors from `src` over the 15 class nodes."""
    dist = np.full(_NC, np.inf)
    dist[src] = 0.0
    pred = np.full(_NC, -1, np.int64)
    for _ in range(_NC - 1):
        cand = dist[:, None] + w                     # via a -> b
        a = cand.argmin(axis=0)
        best = cand[a, np.arange(_NC)]
        better = best < dist - 1e-12
        if not better.any():
            break
        dist[better] = best[better]
        pred[better] = a[better]
    return dist, pred


def _all_pairs(w: np.ndarray) -> np.ndarray:
    """Floyd-Warshall over the class graph (15 nodes), 0 on the diagonal."""
    d = w.copy()
    np.fill_diagonal(d, 0.0)
    for k in range(_NC):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def assign_classes(probs: np.ndarray, counts: SetCounts = STANDARD_SET, allowed: np.ndarray | None = None,
                   config: AssignConfig = AssignConfig()) -> JointReading:
    """The most likely reading of all points together that no set could contradict.

    Args:
        probs: (90, 15) per-point class probabilities (rows need not be normalised).
        counts: the pieces of one side of the set (capacity per class).
        allowed: optional (90, 15) bool placement mask (`placement_mask`); None = anywhere.
        config: floors and thresholds.
    Returns a JointReading (never `flipped`; `read_jointly` tries both orientations).
    """
    c = _costs(probs, allowed, config)
    n = len(c)
    cap = counts.capacity()
    if n > cap[0]:
        cap = cap.copy()
        cap[0] = n
    own = c.argmin(axis=1)
    lab = own.copy()
    count = np.bincount(lab, minlength=_NC)
    guard = 0
    while (count > cap).any():
        guard += 1
        if guard > 4 * n:  # each augmentation removes one unit of excess; cannot happen
            raise RuntimeError("joint assignment did not converge")
        src = int(np.flatnonzero(count > cap)[0])
        w, arg = _edges(c, lab)
        dist, pred = _shortest_from(w, src)
        spare = np.flatnonzero(count < cap)
        dst = int(spare[np.argmin(dist[spare])])
        if not np.isfinite(dist[dst]):
            raise RuntimeError("joint assignment: no class can take the excess")
        path = [dst]
        while path[-1] != src:
            path.append(int(pred[path[-1]]))
        moves = [(int(arg[a, b]), b) for b, a in zip(path[:-1], path[1:])]
        for p, b in moves:
            lab[p] = b
        count = np.bincount(lab, minlength=_NC)
    return _finish(c, lab, own, cap, count, config)


def _finish(c: np.ndarray, lab: np.ndarray, own: np.ndarray, cap: np.ndarray, count: np.ndarray,
            cfg: AssignConfig) -> JointReading:
    n = len(c)
    w, _ = _edges(c, lab)
    d = _all_pairs(w)
    spare = count < cap
    # Extra cost of giving point p (now in a) class b: its own change, plus, when b is full,
    # pushing one point of b on to a class with room (a has room once p leaves it).
    to_room = np.min(np.where(spare[None, :], d, np.inf), axis=1)            # (15,) from b
    relief = np.minimum(to_room[None, :], d[:, lab].T)                        # (n, 15)
    extra = c - c[np.arange(n), lab][:, None] + np.where(spare[None, :], 0.0, relief)
    extra[np.arange(n), lab] = 0.0
    extra = np.clip(extra, 0.0, 50.0)
    weights = np.exp(-extra)
    probs = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
    conf = probs[np.arange(n), lab]
    total = float(c[np.arange(n), lab].sum())
    return JointReading(labels=lab, probs=probs, unsure=conf < cfg.unsure_below, changed=lab != own, cost=total)


def read_jointly(probs: np.ndarray, game_position: bool = True, counts: SetCounts = STANDARD_SET,
                 config: AssignConfig = AssignConfig(), try_flip: bool = True) -> JointReading:
    """Read a whole board under a set's counts and, for a game position, the placement rules.

    With `try_flip` the board is also read turned 180 degrees (red at the other end) and the
    cheaper reading kept: under placement rules the generals' palaces and the soldiers' sides
    settle which end is red's better than any single point. `flipped` says which was kept.
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.shape != (NUM_POINTS, _NC):
        raise ValueError(f"probs must be ({NUM_POINTS}, {_NC}), got shape {p.shape}")
    allowed = placement_mask(True) if game_position else None
    best = assign_classes(p, counts, allowed, config)
    if try_flip:
        other = assign_classes(p[::-1], counts, allowed, config)
        if other.cost < best.cost - 1e-9:
            other.flipped = True
            best = other
    return best
