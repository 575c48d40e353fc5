"""Where a hand rests, and whose hand it is.

A hand reaching for a piece slows down and rests on it: a *dwell* of its fingertips (the leading
point of the hand's covered region, board.episode.dwells) on one point for about 0.3 s. An arm
sweeping over the board does not rest, and mere occlusion is never an incident. Where the fingers
really are is uncertain by a point: a raised hand covers points displaced away from the camera
(parallax), so the contact may be one step back toward the camera; fingers pinching a disc reach
past it, so the leading covered point may overshoot the contact by a point toward the far side;
a hand centred between two files leads with both. A rest may also be read as a flicker of short
stretches alternating between a piece and the empty points beside it: one rest on that piece.
A hand's side is the board edge its arm crosses, so an arm reaching across the whole board may be
read, at its far end, as the other player's: that reading may stop an accusation, never make one.
"""
from __future__ import annotations

from typing import Callable

from rules import Side

from ..episode import MAX_FRAME_GAP, Dwell, Episode, away_from_camera, dwells, fingertips
from .facts import IncidentConfig, king_steps


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
            # (fingers on a piece of the edge rank, read a point along the edge from it, while the
            # step toward the camera points diagonally off the board)
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


def steady_rests(stretches: list[Dwell], contacts_of: Callable[[Dwell], list[int]],
                 occupied: Callable[[int], bool], min_s: float,
                 tips_of: Callable[[Dwell], list[int]] | None = None, crossing_s: float = 0.0) -> list[Dwell]:
    """The rests among a hand's stretches (`dwells` at 0 s): each stretch of `min_s` or more, and
    runs of shorter ones whose fingertips alternate between one piece and the empty points
    beside it, that piece among the contacts of every one of them and the run `min_s` long in
    all: one rest on that piece (fingers resting a second on a piece may be read as a fingertip
    point flickering between it and the empty points beside it in stretches of 0.2 s or less,
    none long enough alone). A run whose fingertips cross another piece is not merged: which one
    they were on cannot be told; unless, given `tips_of`, the piece is among the fingertips there
    too (a hand centred between two pieces, the one it rests on under the fingertips throughout),
    and the run lasts `crossing_s` (a hand roaming past two pieces crosses both in about a quarter
    of a second, and rests on neither)."""
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


def under_fingers_seconds(ep: Episode, side: Side, q: int, until: int | None = None) -> float:
    """How long point q was among the places `side`'s fingers may have been (contacts), summed
    over the episode's stretches (those begun by frame `until`, when given)."""
    return sum((d.frame_end - d.frame_start + 1) * ep.frame_interval for d in dwells(ep, side, 0.0)
               if (until is None or d.frame_start <= until) and q in contacts(ep, d, side))


def released_at(ep: Episode, side: Side, from_sq: int, to_sq: int) -> int | None:
    """The last frame `side`'s fingertips were over the moved piece's destination after they had
    been over its origin: where the piece was let go. None when the hand's path does not show the
    piece carried (fingertips never read on the origin and then the destination): a hand may
    pass over the destination on its way in (a hand crossing the destination on its way to the
    piece it picks up)."""
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
