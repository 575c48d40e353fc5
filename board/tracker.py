"""The tracker: a stream of Observations in, moves and incidents out.

States: QUIET (board settled, nobody touching) → ACTIVE (hands over the
board, or the reading departs from the settled board) → settle → QUIET.
A stretch settles when the readings have stayed the same for `settle_s`
with no hand in view, or, when a hand/arm rests at the edge, when the
points it does not cover have stayed the same for `rest_settle_s` (and the
change they show is fully visible). On each settle the change from the
last legal position is explained by the most likely legal move sequence
(board/explain.py); what cannot be explained becomes an illegal-move
incident or an out-of-sync report, and the tracker keeps explaining every
later settle from the last legal position, so it resumes by itself as soon
as the board shows a reachable position again.

Pure logic: no frames, no files. The recorder turns the events into the
journal, the PGN and the evidence images.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from rules import BLACK, RED, Move, Position
from rules.squares import placement_from_points
from rules.notation import format_move

from .episode import Episode, Settled
from .events import Event, IncidentEvent, MoveEvent, TrackingEvent, point_name
from .explain import (CLASS_LETTERS, Evidence, ExplainConfig, Explanation, apply_move, board_classes,
                      explain, log_readings, physical_move)
from . import incidents as incident_rules

QUIET, ACTIVE = "quiet", "active"
IN_SYNC, OUT_OF_SYNC, ILLEGAL = "in_sync", "out_of_sync", "illegal"


def _neighbours(p: int) -> list[int]:
    """The up-to-8 points around point p."""
    x, y = p % 9, p // 9
    return [(y + dy) * 9 + x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx <= 8 and 0 <= y + dy <= 9]


def side_name(color: str) -> str:
    return "red" if color == RED else "black"


def placement_fen(classes: np.ndarray) -> str:
    """FEN placement (rank 9 first) of a 90-point class array."""
    return placement_from_points("".join(CLASS_LETTERS[int(c)] for c in classes))


@dataclass
class TrackerConfig:
    settle_s: float = 0.08           # quiet + unchanged this long = settled (the reader already waited for quiet)
    min_settle_frames: int = 3
    rest_settle_s: float = 0.7       # with an arm resting at the edge: visible points unchanged this long
    capture_wait_s: float = 4.0      # a victim taken off first: wait this long for the capturing move
    unexplained_wait_s: float = 0.8  # any other unexplained board must stay this long to be reported
    lost_report_s: float = 0.3       # board not found this long → "board_lost" event
    change_nats: float = 2.5         # a quiet frame whose reading contradicts the board by this much starts an episode
    offset_wobble: float = 0.12      # disc offset change that breaks a settle window
    correct_plies: int = 2           # how far back a recorded move may be found wrong and replaced
    notation: str = "chinese"
    repetition_rules: str = "cn"     # 棋例 ruleset for repetition rulings: "cn" or "axf" (rules.rulesets)
    explain: ExplainConfig = field(default_factory=ExplainConfig)
    incidents: incident_rules.IncidentConfig = field(default_factory=incident_rules.IncidentConfig)


@dataclass
class _Frame:
    t: float
    frame_index: int
    quiet: bool
    occluded: np.ndarray
    probs: np.ndarray
    offsets: np.ndarray
    argmax: np.ndarray


class Tracker:
    """Follows one game. Feed it Observations in order; it returns events as they happen."""

    def __init__(self, start: Position | None = None, config: TrackerConfig | None = None,
                 start_fen: str | None = None, moves: list[Move] | None = None,
                 read_start: bool = False) -> None:
        """`start`: the position to start from (default: the standard start);
        `read_start=True`: read the start position from the first settled
        frames instead. `start_fen` + `moves` continue a recorded game."""
        self.cfg = config or TrackerConfig()
        if start_fen is not None:
            start = Position.from_fen(start_fen)
        if start is None and not read_start:
            start = Position()
        self.position: Position | None = None
        self.start_fen: str | None = None
        self.moves: list[Move] = []
        self.move_times: list[float | None] = []   # video time of each recorded ply (None: resumed)
        self.state = QUIET
        self.sync = IN_SYNC
        self.sync_detail: tuple[int, ...] = ()
        self.settled: Settled | None = None
        self.episode: Episode | None = None
        self._prev_episode: Episode | None = None   # the last settled episode (a hand just gone)
        self.window: deque[_Frame] = deque()
        self._occ_set: np.ndarray | None = None
        self._misread: np.ndarray | None = None
        self._misread_as: np.ndarray | None = None
        self._occ_since = 0.0
        self._rest_tries = 0
        self._reset_window()
        self.lost_since: float | None = None
        self.lost_reported = False
        self.just_settled = False       # True right after the frame that settled (recorder pins it)
        self.last_settle_frame: int = -1
        self.incidents = incident_rules.IncidentTracker(self.cfg.incidents)
        self._hashes: dict[int, int] = {}
        self._last_ruling: tuple | None = None
        self._t = 0.0
        self.locked_plies = 0
        if start is not None:
            self._set_start(start, moves or [])

    # ------------------------------------------------------------------ setup
    def _set_start(self, start: Position, moves: list[Move]) -> None:
        self.start_fen = start.fen()
        self.position = start.copy()
        self._hashes = {self.position.zobrist_hash(): 1}
        for m in moves:
            self._record(m, None)

    def lock_recorded_plies(self) -> None:
        """Plies recorded so far (journalled before a restart) are a person's to change, never the
        corrector's: a board that disagrees with them is out of sync, for someone to settle."""
        self.locked_plies = len(self.moves)

    @property
    def ply(self) -> int:
        return len(self.moves)

    # ------------------------------------------------------------------ main entry
    def feed(self, obs) -> list[Event]:
        """Process one Observation (vision.Observation or anything with its fields)."""
        self.just_settled = False
        self._t = float(obs.t)
        events: list[Event] = []
        if obs.pose is None:
            return self._lost(obs, events)
        if self.lost_since is not None:
            if self.lost_reported:
                events.append(TrackingEvent(obs.t, self.ply, "board_found",
                                            f"board found again after {obs.t - self.lost_since:.1f} s"))
            self.lost_since = None
            self.lost_reported = False
        probs = np.asarray(obs.probs, dtype=np.float32)
        occ = np.asarray(obs.occluded, dtype=bool)
        fr = _Frame(float(obs.t), int(obs.frame_index), bool(obs.quiet), occ, probs,
                    np.asarray(obs.offset, dtype=np.float32), np.argmax(probs, axis=1))

        if self.position is None:
            return self._await_start(fr, events)

        if self.state == QUIET:
            if self._departs(fr):
                self._begin_episode(fr)
            else:
                return events
        assert self.episode is not None
        self.episode.update(fr.t, fr.frame_index, fr.occluded, fr.probs, fr.offsets)
        self.episode.homography = obs.pose.homography
        self._extend_window(fr)
        settle = self._settle_kind()
        if settle is not None:
            events.extend(self._settle(settle))
        return events

    def finish(self, t: float | None = None) -> list[Event]:
        """The source ended: settle what the last frames show, if they are clean."""
        events: list[Event] = []
        if self.state == ACTIVE and self.window and self.position is not None:
            if all(f.quiet and not f.occluded.any() for f in self.window) and len(self.window) >= 2:
                events.extend(self._settle("quiet"))
        events.extend(self.incidents.flush())
        return events

    # ------------------------------------------------------------------ pieces of feed
    def _lost(self, obs, events: list[Event]) -> list[Event]:
        if self.lost_since is None:
            self.lost_since = float(obs.t)
        if not self.lost_reported and obs.t - self.lost_since >= self.cfg.lost_report_s:
            self.lost_reported = True
            events.append(TrackingEvent(obs.t, self.ply, "board_lost",
                                        "board not found (camera moved or view blocked); waiting for it"))
        self._reset_window()
        if self.position is not None and self.settled is not None:
            if self.state == QUIET:
                self._begin_episode_at(float(obs.t), int(obs.frame_index))
            if self.episode is not None:
                self.episode.update(float(obs.t), int(obs.frame_index), None, None, None)
        return events

    def _departs(self, fr: _Frame) -> bool:
        if not fr.quiet or fr.occluded.any():
            return True
        if self.settled is None:
            return True
        lp = log_readings(fr.probs)
        ref = self.settled.observed if self.settled.observed is not None else self.settled.classes
        here = lp[np.arange(90), ref]
        if np.any(lp.max(axis=1) - here > self.cfg.change_nats):
            return True
        occupied = ref != 0
        shift = np.linalg.norm(fr.offsets - self.settled.offsets, axis=1)
        return bool(np.any((shift > self.cfg.offset_wobble * 1.5) & occupied))

    def _begin_episode(self, fr: _Frame) -> None:
        self._begin_episode_at(fr.t, fr.frame_index)

    def _begin_episode_at(self, t: float, frame_index: int) -> None:
        assert self.position is not None
        before = self.settled or Settled(t, frame_index, board_classes(self.position),
                                         np.zeros((90, 2)), np.ones(90, dtype=bool), np.ones(90), provisional=True)
        self.episode = Episode(t, frame_index, before)
        self.state = ACTIVE
        self._reset_window()

    def _extend_window(self, fr: _Frame) -> None:
        """Add a frame to the stable window, or restart the window at a real change.

        A real change is a point (seen in both) whose reading contradicts the
        window's mean reading, or whose disc moved, in two frames running; a
        single-frame flicker of the reader is tolerated (and averaged away).
        """
        if self.window:
            n = self._win_n
            mean = self._win_psum / np.maximum(n, 1.0)[:, None]
            ref = np.argmax(mean, axis=1)
            both = ~fr.occluded & (n > 0)
            lp = log_readings(fr.probs)
            contra = (lp.max(axis=1) - lp[np.arange(90), ref] > self.cfg.change_nats) & both
            mean_off = self._win_osum / np.maximum(n, 1.0)[:, None]
            moved = (np.linalg.norm(fr.offsets - mean_off, axis=1) > self.cfg.offset_wobble) & both
            bad = contra | moved
            self._streak = np.where(bad, self._streak + 1, 0)
            if np.any(self._streak >= 2):
                prev = self.window[-1]
                self._reset_window()
                self._add_to_window(prev)
                self._streak[:] = 0
        self._add_to_window(fr)

    def _reset_window(self) -> None:
        self.window.clear()
        self._win_psum = np.zeros((90, 15), dtype=np.float64)
        self._win_osum = np.zeros((90, 2), dtype=np.float64)
        self._win_n = np.zeros(90, dtype=np.float64)
        self._streak = np.zeros(90, dtype=np.int64)
        self._holding = False
        self._hold_s = 0.0

    def _drop_oldest(self) -> None:
        fr = self.window.popleft()
        vis = ~fr.occluded
        self._win_psum[vis] -= fr.probs[vis]
        self._win_osum[vis] -= fr.offsets[vis]
        self._win_n -= vis

    def _add_to_window(self, fr: _Frame) -> None:
        if not fr.quiet or fr.occluded.any():
            self._holding = False
        if self._occ_set is None or not np.array_equal(fr.occluded, self._occ_set):
            self._occ_set = fr.occluded
            self._occ_since = fr.t
            self._rest_tries = 0
        self.window.append(fr)
        vis = ~fr.occluded
        self._win_psum[vis] += fr.probs[vis]
        self._win_osum[vis] += fr.offsets[vis]
        self._win_n += vis

    def _settle_kind(self) -> str | None:
        w = self.window
        if len(w) < self.cfg.min_settle_frames:
            return None
        n_clean = 0
        for f in reversed(w):
            if f.quiet and not f.occluded.any():
                n_clean += 1
            else:
                break
        if n_clean >= self.cfg.min_settle_frames:
            span = w[-1].t - w[-n_clean].t
            if self._holding and span < self._hold_s:
                return None
            if span >= self.cfg.settle_s - 1e-6:
                return "quiet"
        if n_clean == 0 and w[-1].t - max(w[0].t, self._occ_since) >= self.cfg.rest_settle_s:
            self._rest_tries += 1
            if self._rest_tries % 4 == 1:   # explaining costs; an arm at rest can wait a few frames
                return "rest"
        return None

    def _evidence(self, frames: list[_Frame]) -> tuple[Evidence, np.ndarray]:
        occ_any = np.zeros(90, dtype=bool)
        psum = np.zeros((90, 15), dtype=np.float64)
        osum = np.zeros((90, 2), dtype=np.float64)
        n = np.zeros(90, dtype=np.float64)
        for f in frames:
            occ_any |= f.occluded
            vis = ~f.occluded
            psum[vis] += f.probs[vis]
            osum[vis] += f.offsets[vis]
            n += vis
        visible = ~occ_any
        nn = np.maximum(n, 1.0)[:, None]
        probs = np.where(n[:, None] > 0, psum / nn, 1.0 / 15)
        offsets = osum / nn
        ev = Evidence(log_readings(probs), visible)
        if self._misread is not None:
            ev.ignore = self._misread & (ev.observed() == self._misread_as)
        return ev, offsets

    # ------------------------------------------------------------------ settling
    def _settle(self, kind: str) -> list[Event]:
        assert self.position is not None and self.episode is not None
        frames = list(self.window)
        if kind == "quiet":
            n_clean = 0
            for f in reversed(frames):
                if f.quiet and not f.occluded.any():
                    n_clean += 1
                else:
                    break
            frames = frames[-n_clean:]
        else:
            frames = [f for f in frames if f.t >= self._occ_since]
        evidence, offsets = self._evidence(frames)
        if kind == "rest":
            # An arm rests on the board: settle only on a move that is entirely in
            # view (otherwise it may be mid-move); after a long rest also on an
            # unexplained change in view (an illegal move made beside the arm).
            long_rest = frames[-1].t - frames[0].t >= 3 * self.cfg.rest_settle_s
            ex = explain(self.position, evidence, self.cfg.explain, max_plies=3 if long_rest else 1)
            changed = np.nonzero(ex.board != board_classes(self.position))[0]
            if not ex.moves and not (long_rest and not ex.explains):
                return []
            if np.any(~evidence.visible[changed]) or (not ex.explains and not long_rest):
                return []
            if not ex.explains and np.any(~evidence.visible[ex.residual]):
                return []
        else:
            ex = explain(self.position, evidence, self.cfg.explain)
            first_look = self.settled is None and self.ply == 0
            if not ex.explains and not first_look and self._off_point_disc_move(evidence, offsets) is not None:
                pass   # a disc seen off its point explains it now: no reason to wait
            elif not ex.explains and not self._holding and not first_look:
                # The victim off the board and the capturing piece not yet moved
                # is a capture in two steps: wait (a while) for the second step.
                # Anything else unexplained must last a moment before it is
                # reported (a hand the detector missed for a few frames).
                self._holding = True
                self._hold_s = (self.cfg.capture_wait_s if self._capture_under_way(evidence)
                                else self.cfg.unexplained_wait_s)
                return []
        last = frames[-1]
        events: list[Event] = []
        before_pos = self.position.copy()
        episode = self.episode
        first = self.settled is None or (self.settled.provisional and not self.moves)
        if first and not ex.explains and self.ply == 0:
            # The first look at a given start position: where the reader disagrees
            # with it, trust the position (it was given) and say where.
            ref = board_classes(self.position)
            diff = evidence.contradictions(ref, self.cfg.explain.contradiction)
            events.append(TrackingEvent(last.t, 0, "start_mismatch",
                                        "the reader disagrees with the start position on "
                                        + ", ".join(f"{point_name(p)} (reads {CLASS_LETTERS[evidence.observed()[p]]})"
                                                    for p in diff[:12])
                                        + "; taking the given position", points=list(diff)))
            ex = Explanation([], 0.0, 0.0, ref, [])
        rescued = None
        knocked_off = None
        if kind != "rest" and ex.explains and len(ex.moves) == 1 and offsets is not None:
            # The best move's destination reads empty and a disc is seen off the points by
            # another legal destination of the same piece: the piece was put down between
            # points there. Without this, the destination whose empty reading is least sure
            # (a poorly lit point) wins by a hair and the record is wrong from here on.
            m = ex.moves[0]
            moved_class = board_classes(self.position)[m.from_sq]
            if evidence.observed()[m.to_sq] != moved_class:
                dests = [d for d in self.position.legal_moves() if d.from_sq == m.from_sq
                         and self.position.piece_at(d.to_sq) is None and evidence.visible[d.to_sq]]
                alt = self._off_point_destination(dests, evidence, offsets)
                if alt is not None and alt != m:
                    rescued = ex = self._put_down_off_point(alt, evidence)
        if not ex.explains:
            rescued = self._vanished_piece_move(evidence, episode, offsets)
            if rescued is not None:
                ex = rescued
            else:
                knocked_off = self._knocked_off(evidence, episode)
                if knocked_off is not None:
                    # the game goes on without it: record the incident, keep the position
                    # (the arbiter has it put back), read later moves around its point
                    ex = Explanation([], 0.0, 0.0, board_classes(self.position), [])
                    events.append(self._knocked_off_event(knocked_off, evidence, offsets, last, episode))
        correction = None
        if kind != "rest" and ex.explains and len(ex.moves) >= 2 and rescued is None:
            # moves nobody was seen making, or one recent move misread: fewer plies wins
            correction = self._find_correction(evidence, len(ex.moves) - 1)
        if correction is not None:
            events.extend(self._apply_correction(correction, last, episode))
        elif ex.explains:
            events.extend(self._accept(ex, last, episode))
            if rescued is not None:
                m = rescued.moves[0]
                events.append(self.incidents.put_down_between(
                    last.t, self.ply, self.position.piece_at(m.to_sq) or "?", m.to_sq, offsets[m.to_sq],
                    {"before": episode.before.frame_index, "during": episode.busiest_frame,
                     "after": last.frame_index}))
        else:
            events.extend(self._unexplained(ex, evidence, last, episode))
        # The new settled reference: the legal position's placement, the readings' offsets.
        classes = board_classes(self.position) if self.sync == IN_SYNC else evidence.observed()
        ref_prob = np.exp(evidence.logp[np.arange(90), classes])
        prev_offsets = self.settled.offsets if self.settled is not None else offsets
        offsets = np.where(evidence.visible[:, None], offsets, prev_offsets)
        seen = evidence.visible | (self.settled.visible if self.settled is not None else False)
        # Readings that say nothing yet (a reader still warming up) make a
        # provisional reference: no incident is judged against its offsets.
        informative = float(np.mean(np.exp(evidence.logp.max(axis=1)))) >= 0.5
        observed = evidence.observed()
        if self.settled is not None and self.settled.observed is not None:
            observed = np.where(evidence.visible, observed, self.settled.observed)
        self.settled = Settled(last.t, last.frame_index, classes, offsets, seen, ref_prob,
                               provisional=not informative, covered=~evidence.visible, observed=observed,
                               empty_prob=np.exp(evidence.logp[:, 0]))
        if self.sync == IN_SYNC:
            # what the reader gets wrong about the accepted position, point by point:
            # the same reading later is no news (a look-alike the reader keeps seeing)
            self._misread = (observed != board_classes(self.position)) & seen
            self._misread_as = observed.copy()
        events.extend(self.incidents.after_settle(episode, self.settled, ex if ex.explains else None,
                                                  before_pos, self.ply))
        self.state = QUIET
        self._prev_episode = self.episode
        self.episode = None
        self._reset_window()
        self.just_settled = True
        self.last_settle_frame = last.frame_index
        return events

    def _capture_under_way(self, evidence: Evidence) -> bool:
        """The only change is one opponent piece gone from a point the side to move can capture on."""
        assert self.position is not None
        ref = board_classes(self.position)
        diff = evidence.contradictions(ref, self.cfg.explain.contradiction)
        if len(diff) != 1:
            return False
        p = diff[0]
        piece = self.position.piece_at(p)
        if piece is None or evidence.observed()[p] != 0:
            return False
        if (piece.isupper()) == (self.position.turn == RED):
            return False
        return any(m.to_sq == p for m in self.position.legal_moves())

    def _accept(self, ex: Explanation, last: _Frame, episode: Episode) -> list[Event]:
        assert self.position is not None
        events: list[Event] = []
        if self.sync != IN_SYNC:
            what = "the board is back to the recorded position" if not ex.moves else \
                "the board matches the recorded position after " + " ".join(m.iccs() for m in ex.moves)
            events.append(TrackingEvent(last.t, self.ply, "resynced", what,
                                        extra={"was": self.sync}))
            self.sync = IN_SYNC
            self.sync_detail = ()
        n = len(ex.moves)
        for i, m in enumerate(ex.moves):
            color, text, captured, h = self._record(m, last.t)
            events.append(MoveEvent(last.t, self.ply, m.iccs(), side_name(color), text, self.position.fen(),
                                    last.frame_index, score=ex.score, inferred=(i < n - 1),
                                    capture=captured, t_hand_left=self._hand_left_time(),
                                    t_touch=episode.t_start))
            if self._hashes[h] >= 3:
                events.extend(self._repetition(last))
            elif self._hashes[h] == 1:
                self._last_ruling = None   # a new position: any repetition stretch is over
        return events

    def _record(self, m: Move, t: float | None) -> tuple[str, str, str | None, int]:
        """Play m on the recorded game at video time t: (mover, notation, captured piece, new hash)."""
        assert self.position is not None
        color = self.position.turn
        text = format_move(self.position, m, self.cfg.notation)
        captured = self.position.piece_at(m.to_sq)
        self.position.push(m)
        self.moves.append(m)
        self.move_times.append(t)
        h = self.position.zobrist_hash()
        self._hashes[h] = self._hashes.get(h, 0) + 1
        return color, text, captured, h

    def _unrecord(self) -> None:
        """Take the last recorded ply back (a correction replaces it)."""
        assert self.position is not None
        h = self.position.zobrist_hash()
        self._hashes[h] = self._hashes.get(h, 1) - 1
        if self._hashes[h] <= 0:
            del self._hashes[h]
        self.position.pop()
        self.moves.pop()
        self.move_times.pop()

    def _hand_left_time(self) -> float | None:
        """Video time the last hand left (start of the clean settle window)."""
        for f in self.window:
            if f.quiet and not f.occluded.any():
                return f.t
        return None

    def _repetition(self, last: _Frame) -> list[Event]:
        from rules.repetition import adjudicate
        ruling = adjudicate(self.start_fen, list(self.moves), rules=self.cfg.repetition_rules)
        if ruling.ruling == "none":
            self._last_ruling = None
            return []
        key = (ruling.ruling,)   # one report per ruling while the repetition lasts
        if key == self._last_ruling:
            return []
        self._last_ruling = key
        side = None
        if ruling.ruling.startswith("red"):
            side = "red"
        elif ruling.ruling.startswith("black"):
            side = "black"
        pts = sorted({self.moves[-1].from_sq, self.moves[-1].to_sq})
        return [IncidentEvent(last.t, self.ply, "repetition", side, pts,
                              f"repetition: {ruling.ruling.replace('_', ' ')} ({ruling.reason})",
                              frames={"after": last.frame_index}, extra={"ruling": ruling.to_dict()})]

    def _knocked_off(self, evidence: Evidence, episode: Episode | None) -> int | None:
        """The point of a piece knocked off the board: the only change is one piece gone
        from its point, a hand or arm came within two points of it, and no legal move
        accounts for it (the caller tried those). A piece gone with no hand near it is a
        reading the tracker cannot explain (out of sync), not an incident."""
        assert self.position is not None
        ref = board_classes(self.position)
        diff = evidence.contradictions(ref, self.cfg.explain.contradiction)
        if len(diff) != 1 or episode is None:
            return None
        p = diff[0]
        if ref[p] == 0 or evidence.observed()[p] != 0:
            return None
        px, py = p % 9, p // 9
        # the hand may have left just before the reader looked again (a stretch of its own)
        covered = list(episode.covered)
        prev = self._prev_episode
        if prev is not None and episode.t_start - prev.t_last <= 3.0:
            covered += prev.covered
        near = any(np.any(np.maximum(np.abs(c % 9 - px), np.abs(c // 9 - py)) <= 2) for _, _, c in covered)
        return int(p) if near else None

    def _knocked_off_event(self, p: int, evidence: Evidence, offsets: np.ndarray, last: _Frame,
                           episode: Episode) -> IncidentEvent:
        """The knocked incident for a piece gone from point p; the side is the one whose hand
        was over the board (by its covered frames), else the side to move."""
        from .episode import _attributed
        assert self.position is not None
        piece = self.position.piece_at(p) or "?"
        hand_ep = episode if episode.covered or self._prev_episode is None else self._prev_episode
        counts = {side: len(_attributed(hand_ep, side)) for side in ("red", "black")}
        side = max(counts, key=counts.get) if any(counts.values()) else side_name(self.position.turn)
        if counts["red"] == counts["black"]:
            side = side_name(self.position.turn)
        near = any(evidence.visible[q] and np.abs(offsets[q]).max() >= self.cfg.incidents.between * 0.5
                   and evidence.observed()[q] == 0 for q in (p,) + tuple(_neighbours(p)))
        return self.incidents.knocked_off(
            last.t, self.ply, side, piece, p, near,
            {"before": episode.before.frame_index,
             "during": episode.busiest_frame if episode.busiest_frame >= 0 else episode.frame_start,
             "after": last.frame_index})

    def _vanished_moves(self, evidence: Evidence) -> list[Move]:
        """Legal moves of a piece of the side to move that left its point and appears on
        no point (the only change): the candidates for a piece put down between points."""
        assert self.position is not None
        ref = board_classes(self.position)
        diff = evidence.contradictions(ref, self.cfg.explain.contradiction)
        if len(diff) != 1:
            return []
        f = diff[0]
        piece = self.position.piece_at(f)
        if piece is None or evidence.observed()[f] != 0 or piece.isupper() != (self.position.turn == RED):
            return []
        return [m for m in self.position.legal_moves() if m.from_sq == f
                and self.position.piece_at(m.to_sq) is None and evidence.visible[m.to_sq]]

    def _off_point_disc_move(self, evidence: Evidence, offsets: np.ndarray) -> Move | None:
        """The candidate move whose destination is the point nearest a disc the reader sees
        near, not on, a point (its reading is empty, its offset says where the disc is)."""
        return self._off_point_destination(self._vanished_moves(evidence), evidence, offsets)

    def _off_point_destination(self, dests: list[Move], evidence: Evidence, offsets: np.ndarray) -> Move | None:
        """The one move of `dests` whose destination is the point nearest a disc seen off the
        points (an empty reading whose offset says where the disc lies); None if none or several."""
        if not dests:
            return None
        observed = evidence.observed()
        near_disc = self.cfg.incidents.between * 0.5
        hits = []
        for m in dests:
            # the disc is off the point but this point is the nearest one to it
            for q in (m.to_sq,) + tuple(_neighbours(m.to_sq)):
                o = offsets[q]
                if not evidence.visible[q] or observed[q] != 0 or np.abs(o).max() < near_disc:
                    continue
                x, y = q % 9 + o[0], q // 9 + o[1]
                if int(np.rint(x)) == m.to_sq % 9 and int(np.rint(y)) == m.to_sq // 9:
                    hits.append(m)
                    break
        return hits[0] if len(hits) == 1 else None

    def _vanished_piece_move(self, evidence: Evidence, episode: Episode,
                             offsets: np.ndarray | None = None) -> Explanation | None:
        """One piece of the side to move left its point and appears on none: put down
        between points, where the reader sees no piece. Its destination is the point
        nearest the disc the reader sees off the points, else the one the mover's hand
        last rested next to; with neither, it is not a move."""
        assert self.position is not None
        from .episode import dwells
        dests = self._vanished_moves(evidence)
        if not dests:
            return None
        choice = self._off_point_disc_move(evidence, offsets) if offsets is not None else None
        if choice is None:
            # the mover's hand last rested next to one destination: it put the piece down
            # there (a piece gone with no such rest was knocked off, not moved)
            side = side_name(self.position.turn)
            rests = dwells(episode, side, self.cfg.incidents.dwell_s)
            for d in reversed(rests):
                near = [m for m in dests if incident_rules.king_steps(m.to_sq, d.point) <= 1]
                if len(near) == 1:
                    choice = near[0]
                    break
                if near:
                    break
        if choice is None:
            return None
        return self._put_down_off_point(choice, evidence)

    def _put_down_off_point(self, move: Move, evidence: Evidence) -> Explanation:
        """`move` as the explanation of a settle whose destination reads empty (the disc lies
        off the point): the destination's reading is a known misread, not a contradiction."""
        assert self.position is not None
        ref = board_classes(self.position)
        board = apply_move(ref, move)
        return Explanation([move], evidence.delta(ref, board), 0.0, board, [], misread=[move.to_sq])

    def _unexplained(self, ex: Explanation, evidence: Evidence, last: _Frame, episode: Episode) -> list[Event]:
        assert self.position is not None
        found = self._find_correction(evidence) or self._find_rewind(evidence)
        if found is not None:
            return self._apply_correction(found, last, episode)
        ref = board_classes(self.position)
        differing = evidence.contradictions(ref, self.cfg.explain.contradiction)
        observed = evidence.observed()
        shown = np.where(evidence.visible, observed, ref)
        phys = physical_move(ref, evidence, self.cfg.explain.contradiction)
        events: list[Event] = []
        if phys is not None:
            key = ("illegal", phys.from_sq, phys.to_sq)
            if self.sync == ILLEGAL and self.sync_detail == key:
                return events
            self.sync, self.sync_detail = ILLEGAL, key
            mover = RED if phys.piece.isupper() else BLACK
            reason = self._illegal_reason(phys, mover)
            events.append(self.incidents.illegal_move(
                last.t, self.ply, side_name(mover), phys, reason, placement_fen(shown),
                {"before": self.settled.frame_index if self.settled else episode.frame_start,
                 "during": episode.busiest_frame if episode.busiest_frame >= 0 else episode.frame_start,
                 "after": last.frame_index}))
            return events
        key = tuple(differing)
        if self.sync == OUT_OF_SYNC and self.sync_detail == key:
            return events
        self.sync, self.sync_detail = OUT_OF_SYNC, key
        names = ", ".join(f"{point_name(p)}: expected {CLASS_LETTERS[ref[p]]} read {CLASS_LETTERS[observed[p]]}"
                          for p in differing[:12])
        events.append(TrackingEvent(last.t, self.ply, "out_of_sync",
                                    f"no legal move sequence explains the board ({names})",
                                    points=list(differing),
                                    extra={"board_shows": placement_fen(shown),
                                           "expected": placement_fen(ref), "frame": last.frame_index}))
        return events

    def _find_correction(self, evidence: Evidence, max_new_plies: int = 1
                         ) -> tuple[float, int, Move, list[Move], Explanation] | None:
        """A move recorded a ply or two ago that the board now shows was another.

        A settle explained by a hair (a destination whose empty reading was least sure, one of
        two like pieces that could reach a point) can record the wrong move; every later settle
        then looks unexplained, or is explained only by inventing moves nobody made. If swapping
        that one move for another of the same piece (same origin) or onto the same point (same
        destination), keeping the moves recorded after it, explains the board with at most
        `max_new_plies` new plies, that is the correction: (gain, plies back, the right move,
        the moves kept after it, the explanation of what followed).
        """
        assert self.position is not None
        if self.cfg.correct_plies <= 0 or not self.moves:
            return None
        ref_now = board_classes(self.position)
        best: tuple[float, int, Move, list[Move], Explanation] | None = None
        for k in range(1, min(self.cfg.correct_plies, len(self.moves) - self.locked_plies) + 1):
            base = self.position.copy()
            undone = [base.pop() for _ in range(k)][::-1]
            suspect, kept = undone[0], undone[1:]
            for alt in base.legal_moves():
                if alt == suspect or (alt.from_sq != suspect.from_sq and alt.to_sq != suspect.to_sq):
                    continue
                p = base.copy()
                p.push(alt)
                follows = True
                for m in kept:
                    if not p.is_legal(m):
                        follows = False
                        break
                    p.push(m)
                if not follows:
                    continue
                ex = explain(p, evidence, self.cfg.explain, max_plies=max_new_plies)
                if not ex.explains or len(ex.moves) > max_new_plies:
                    continue
                gain = evidence.delta(ref_now, ex.board)
                if gain >= self.cfg.explain.accept_gain and (best is None or gain > best[0]):
                    best = (gain, k, [alt] + kept, ex)
            if best is not None:
                return best   # the most recent suspect that works
        return None

    def _find_rewind(self, evidence: Evidence) -> tuple[float, int, list[Move], Explanation] | None:
        """Still out of sync: the last few recorded plies replaced by a legal line that explains
        the board, as long as it keeps at least as many plies (moves are never erased).

        The wider form of `_find_correction` for when a misread settle made the tracker record
        a move nobody made (inferred) or miss one: every later settle is then unexplained and,
        without this, the rest of the game is lost. Tried only on an unexplained settle.
        """
        assert self.position is not None
        if self.cfg.correct_plies <= 0 or not self.moves:
            return None
        ref_now = board_classes(self.position)
        for k in range(1, min(self.cfg.correct_plies + 1, len(self.moves) - self.locked_plies) + 1):
            base = self.position.copy()
            undone = [base.pop() for _ in range(k)][::-1]
            ex = explain(base, evidence, self.cfg.explain, max_plies=k + 1)
            if not ex.explains or len(ex.moves) < k or ex.moves[:k] == undone:
                continue
            gain = evidence.delta(ref_now, ex.board)
            if gain < self.cfg.explain.accept_gain:
                continue
            after = Explanation(ex.moves[k:], ex.score, 0.0, ex.board, [])
            return gain, k, ex.moves[:k], after
        return None

    def _apply_correction(self, found: tuple[float, int, list[Move], Explanation], last: _Frame,
                          episode: Episode) -> list[Event]:
        """Replace the last k recorded plies by `replacement` (re-stated as corrected move
        events from the first of them), then accept what followed."""
        assert self.position is not None
        _, k, replacement, ex = found
        times = [last.t if t is None else t for t in self.move_times[-k:]]
        undone = self.moves[-k:]
        first = next(i for i, (a, b) in enumerate(zip(undone, replacement)) if a != b)
        for _ in range(k):
            self._unrecord()
        ply = self.ply + 1
        was, now = undone[first:], replacement[first:]
        events: list[Event] = [TrackingEvent(
            last.t, ply, "corrected",
            f"from ply {ply + first} the record said {' '.join(m.iccs() for m in was)}; "
            f"the board shows {' '.join(m.iccs() for m in now)}",
            points=sorted({q for m in was + now for q in (m.from_sq, m.to_sq)}),
            extra={"ply": ply, "was": " ".join(m.iccs() for m in was), "now": " ".join(m.iccs() for m in now),
                   "frame": last.frame_index})]
        for m, t in zip(replacement, times):
            color, text, captured, _ = self._record(m, t)
            events.append(MoveEvent(t, self.ply, m.iccs(), side_name(color), text, self.position.fen(),
                                    last.frame_index, score=ex.score, capture=captured, corrected=True))
        events.extend(self._accept(ex, last, episode))
        return events

    def _illegal_reason(self, phys, mover: str) -> str:
        assert self.position is not None
        if mover != self.position.turn:
            return f"{side_name(mover)} moved out of turn ({side_name(self.position.turn)} to move)"
        m = Move(phys.from_sq, phys.to_sq)
        if m in self.position.pseudo_legal_moves():
            return "the move leaves the own general in check or facing the other general"
        return "the piece cannot move that way"

    def _await_start(self, fr: _Frame, events: list[Event]) -> list[Event]:
        """No start position given: read it from the first settled, fully visible frames."""
        self._extend_window(fr)
        if self._settle_kind() != "quiet":
            return events
        frames = list(self.window)
        evidence, offsets = self._evidence(frames)
        if float(np.mean(np.exp(evidence.logp.max(axis=1)))) < 0.5 or not evidence.visible.all():
            self._reset_window()   # the reader has not read the board yet
            return events
        standard = Position()
        if not evidence.contradictions(board_classes(standard), self.cfg.explain.contradiction):
            start = standard
        else:
            fen = placement_fen(evidence.observed()) + " w - - 0 1"
            try:
                start = Position.from_fen(fen)
            except Exception as exc:  # FenError: unreadable start; keep waiting, say why once
                if not getattr(self, "_start_error_said", False):
                    self._start_error_said = True
                    events.append(TrackingEvent(fr.t, 0, "start_unreadable",
                                                f"cannot read a start position yet: {exc}"))
                self._reset_window()
                return events
        self._set_start(start, [])
        classes = board_classes(start)
        ref_prob = np.exp(evidence.logp[np.arange(90), classes])
        self.settled = Settled(fr.t, fr.frame_index, classes, offsets, evidence.visible, ref_prob,
                               empty_prob=np.exp(evidence.logp[:, 0]))
        self._reset_window()
        self.just_settled = True
        self.last_settle_frame = fr.frame_index
        events.append(TrackingEvent(fr.t, 0, "started", "start position read from the board",
                                    extra={"fen": start.fen()}))
        return events
