"""The tracker: a stream of Observations in, moves and incidents out.

States: QUIET (board settled, nobody touching) → ACTIVE (hands over the
board, or the reading departs from the settled board) → settle → QUIET.
A stretch settles when the readings have stayed the same for `quiet_settle_s`
with no hand in view, or, when a hand/arm rests at the edge, when the
points it does not cover have stayed the same for `rest_settle_s` (and the
change they show is fully visible). On each settle the change from the
last legal position is explained by the most likely legal move sequence
(board/explain.py); what cannot be explained becomes an illegal-move
incident or an out-of-sync report, and the tracker keeps explaining every
later settle from the last legal position, so it resumes by itself as soon
as the board shows a reachable position again.

The parts, each its own object: the settle window (board/window.py: when a stretch has
settled), the game record (board/record.py: position, moves, times, repetition counts), the
settle chain (board/settle.py: named explainers tried in order, each a typed SettleOutcome),
the corrector (board/corrector.py) and the incident rules (board/incidents/). The tracker
is the state machine that connects them.

Pure logic: no frames, no files. The recorder turns the events into the
journal, the PGN and the evidence images.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rules import Move, Position, Side
from rules.squares import placement_from_points

from .corrector import Correction, CorrectorConfig
from .episode import CameraConfig, CameraWatch, Episode, Settled
from .events import Event, IncidentEvent, IncidentRetracted, MoveEvent, TrackingEvent, TrackingStatus, point_name
from .incidents.weigh import EvidenceModel, default_model
from .explain import (CLASS_LETTERS, ExplainConfig, Explanation, board_classes, explain, log_readings,
                      physical_move)
from . import incidents as incident_rules
from .record import GameRecord
from .settle import (HeldBoard, SettleConfig, SettleContext, SettleOutcome, capture_under_way, explain_settle,
                     illegal_reason, knock_in_view, off_point_disc_move)
from .sync import Phase, SettleKind, SyncState
from .turning import turned_homography, turned_offsets, turned_points
from .window import Frame, Misread, SettleReading, SettleWindow, WindowConfig, read_frames

# the old names, kept for readers of the tracker's state
QUIET, ACTIVE = Phase.QUIET, Phase.ACTIVE
IN_SYNC, OUT_OF_SYNC, ILLEGAL = SyncState.IN_SYNC, SyncState.OUT_OF_SYNC, SyncState.ILLEGAL


def placement_fen(classes: np.ndarray) -> str:
    """FEN placement (rank 9 first) of a 90-point class array."""
    return placement_from_points("".join(CLASS_LETTERS[int(c)] for c in classes))


@dataclass
class TrackerConfig:
    quiet_settle_s: float = 0.08     # quiet + unchanged this long = settled (the reader already waited for quiet)
    min_settle_frames: int = 3
    rest_settle_s: float = 0.7       # with an arm resting at the edge: visible points unchanged this long
    capture_wait_s: float = 4.0      # a victim taken off first: wait this long for the capturing move
    unexplained_wait_s: float = 0.8  # any other unexplained board must stay this long to be reported
    knock_seen_wait_s: float = 0.3   # ... one a knocked disc in view explains, this long (faces read settled)
    handless_wait_s: float = 0.8     # a move made with no hand or arm seen over the board must stay this long
    lost_report_s: float = 0.3       # board not found this long → "board_lost" event
    change_nats: float = 2.5         # a quiet frame whose reading contradicts the board by this much starts an episode
    offset_wobble: float = 0.12      # disc offset change that breaks a settle window
    correct_plies: int = 2           # how far back a recorded move may be found wrong and replaced
    notation: str = "chinese"
    repetition_rules: str = "cn"     # 棋例 ruleset for repetition rulings: "cn" or "axf" (rules.rulesets)
    informative_prob: float = 0.5    # mean best-class probability below which readings say nothing yet
    long_rest_factor: float = 3.0    # an arm at rest this many rest_settle_s: an unexplained change in view counts
    explain: ExplainConfig = field(default_factory=ExplainConfig)
    incidents: incident_rules.IncidentConfig = field(default_factory=incident_rules.IncidentConfig)
    # weighs what a hand did (touch, re-touch) into an accusation or a review note; None: the rules alone
    evidence: EvidenceModel | None = field(default_factory=default_model)
    camera: CameraConfig = field(default_factory=CameraConfig)   # when the camera counts as moving (a bump)

    def window(self) -> WindowConfig:
        return WindowConfig(quiet_settle_s=self.quiet_settle_s, min_settle_frames=self.min_settle_frames,
                            rest_settle_s=self.rest_settle_s, change_nats=self.change_nats,
                            offset_wobble=self.offset_wobble)

    def settle(self) -> SettleConfig:
        return SettleConfig(explain=self.explain, incidents=self.incidents,
                            corrector=CorrectorConfig(self.correct_plies, self.explain))


@dataclass(frozen=True)
class TurnedPose:
    """A board pose with the lattice turned (board.turning)."""

    homography: np.ndarray


@dataclass(frozen=True)
class TurnedObservation:
    """An observation read with red's end and black's swapped: what the tracker feeds itself
    after it turned the board, until the source reads it so (Tracker.source_turned)."""

    t: float
    frame_index: int
    pose: TurnedPose | None
    quiet: bool
    occluded: np.ndarray
    probs: np.ndarray
    offset: np.ndarray
    lattice: int
    looks: np.ndarray | None

    @staticmethod
    def of(obs: Any) -> "TurnedObservation":
        looks = getattr(obs, "looks", None)
        pose = None if obs.pose is None else TurnedPose(turned_homography(obs.pose.homography))
        return TurnedObservation(float(obs.t), int(obs.frame_index), pose, bool(obs.quiet),
                                 turned_points(obs.occluded), turned_points(obs.probs), turned_offsets(obs.offset),
                                 int(getattr(obs, "lattice", 0)), None if looks is None else turned_points(looks))


def alike_turned(position: Position) -> bool:
    """The placement looks the same from both ends to a reader that cannot tell red from black
    (the standard start, red to move): which end is red's is then not told by the pieces."""
    b = board_classes(position)
    letters = [CLASS_LETTERS[c] for c in b]
    return position.turn == "w" and letters == [CLASS_LETTERS[c].swapcase() for c in b[::-1]]


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
        self.record: GameRecord | None = None
        self.state = Phase.QUIET
        self.sync = SyncState.IN_SYNC
        self.sync_detail: tuple[str | int, ...] = ()   # what the board showed when sync was lost (reported once)
        self.settled: Settled | None = None
        self.episode: Episode | None = None
        self._prev_episode: Episode | None = None   # the last settled episode (a hand just gone)
        self.window = SettleWindow(self.cfg.window())
        self._misread: Misread | None = None
        self.lost_since: float | None = None
        self.lost_reported = False
        self.just_settled = False       # True right after the frame that settled (recorder pins it)
        self._looks: np.ndarray | None = None   # the latest frame's looks (vision.looks), kept by each settle
        self._lattice = 0                       # the latest frame's lattice (vision.Observation.lattice), kept likewise
        self._held: HeldBoard | None = None     # the unexplained board last waited on, until a settle
        self.incidents = incident_rules.IncidentTracker(self.cfg.incidents, evidence=self.cfg.evidence)
        self._settle_cfg = self.cfg.settle()
        self._start_error_said = False
        self.locked_plies = 0
        self.camera = CameraWatch(self.cfg.camera)
        self.raised: list[IncidentEvent] = []   # incidents reported and not retracted (a correction may void them)
        # the tracker turned the board at the first move (_first_move_turned) and turns each
        # observation itself until the source reads the board so (source_turned)
        self.turning_input = False
        if start is not None:
            self.record = GameRecord.starting(start, moves or [], self.cfg.notation)

    # ------------------------------------------------------------------ the record, read-only views
    @property
    def position(self) -> Position | None:
        return self.record.position if self.record is not None else None

    @property
    def start_fen(self) -> str | None:
        return self.record.start_fen if self.record is not None else None

    @property
    def moves(self) -> list[Move]:
        return self.record.moves if self.record is not None else []

    @property
    def move_times(self) -> list[float | None]:
        return self.record.move_times if self.record is not None else []

    @property
    def ply(self) -> int:
        return self.record.ply if self.record is not None else 0

    def lock_recorded_plies(self) -> None:
        """Plies recorded so far (journalled before a restart) are a person's to change, never the
        corrector's: a board that disagrees with them is out of sync, for someone to settle."""
        self.locked_plies = self.ply

    def take_arbiter_line(self, from_ply: int, moves: list[Move], t: float, by: str = "") -> list[Event]:
        """An arbiter replaced the record from `from_ply` by `moves` (journalled as an
        `arbiter_correction` line): the tracker goes on from that position.

        Returns what the recorder journals to say so: a `corrected` tracking event marked
        `arbiter` and the plies re-stated from `from_ply` (readers then hold the same game whatever
        the recorder wrote while the arbiter's line was on its way). The arbiter's plies are locked
        (a person's to change, never the corrector's), the board is taken to show the corrected
        position (an arbiter corrects what the camera misread), so the settled reference becomes
        its placement. ValueError when the moves do not follow (the recorder says so in the journal).
        """
        if self.record is None:
            raise ValueError("no game to correct yet: the start position has not been read")
        rec = self.record
        if not 1 <= from_ply <= rec.ply + 1:
            raise ValueError(f"the tracker holds {rec.ply} plies; a correction from ply {from_ply} does not fit")
        probe = rec.position.copy()
        for _ in range(rec.ply - from_ply + 1):
            probe.pop()
        for i, m in enumerate(moves):
            if not probe.is_legal(m):
                raise ValueError(f"ply {from_ply + i}: {m.iccs()} does not follow in the tracker's position")
            probe.push(m)
        times = rec.move_times[from_ply - 1:]
        was = rec.moves[from_ply - 1:]
        while rec.ply >= from_ply:
            rec.take_back()
        who = f" ({by})" if by else ""
        events: list[Event] = [TrackingEvent(
            t, from_ply, TrackingStatus.CORRECTED,
            f"the arbiter's correction{who}: from ply {from_ply} the record said "
            f"{' '.join(m.iccs() for m in was) or 'nothing'}; it is now {' '.join(m.iccs() for m in moves) or 'nothing'}",
            points=sorted({q for m in was + moves for q in (m.from_sq, m.to_sq)}),
            extra={"ply": from_ply, "was": " ".join(m.iccs() for m in was), "now": " ".join(m.iccs() for m in moves),
                   "arbiter": True, "by": by})]
        for i, m in enumerate(moves):
            at = times[i] if i < len(times) and times[i] is not None else t
            played = rec.play(m, at)
            events.append(MoveEvent(t, self.ply, m.iccs(), played.side, played.notation, rec.position.fen(), -1,
                                    capture=played.captured, corrected=True, extra={"arbiter": True}))
        self.locked_plies = self.ply
        self.sync, self.sync_detail = SyncState.IN_SYNC, ()
        self._held = None
        self._misread = None
        self.incidents.forget_last_move()
        if self.settled is not None:
            placement = board_classes(rec.position)
            self.settled = replace(self.settled, classes=placement, observed=placement.copy())
        return events

    # ------------------------------------------------------------------ main entry
    def feed(self, obs: Any) -> list[Event]:
        """Process one Observation (vision.Observation or anything with its fields)."""
        if self.turning_input:
            obs = TurnedObservation.of(obs)
        self.just_settled = False
        self._looks = getattr(obs, "looks", None)
        self._lattice = int(getattr(obs, "lattice", 0))
        events: list[Event] = []
        if obs.pose is None:
            return self._lost(obs, events)
        if self.lost_since is not None:
            if self.lost_reported:
                events.append(TrackingEvent(obs.t, self.ply, TrackingStatus.BOARD_FOUND,
                                            f"board found again after {obs.t - self.lost_since:.1f} s"))
            self.lost_since = None
            self.lost_reported = False
        unsteady = self.camera.unsteady(float(obs.t), obs.pose.homography)
        probs = np.asarray(obs.probs, dtype=np.float32)
        occ = np.asarray(obs.occluded, dtype=bool)
        hands = self.camera.hands(occ, unsteady)   # the flags that may be a hand (a bump's are not)
        fr = Frame(float(obs.t), int(obs.frame_index), bool(obs.quiet), occ, probs,
                   np.asarray(obs.offset, dtype=np.float32))

        if self.record is None:
            return self._await_start(fr, events)

        if self.state == Phase.QUIET:
            if self._departs(fr):
                self._begin_episode(fr.t, fr.frame_index)
            else:
                return events
        assert self.episode is not None
        self.episode.update(fr.t, fr.frame_index, hands, fr.probs, fr.offsets, unsteady)
        self.episode.homography = obs.pose.homography
        self.window.extend(fr)
        settle = self.window.settle_kind()
        if settle is not None:
            events.extend(self._settle(settle))
        self._remember_raised(events)
        return events

    def _remember_raised(self, events: list[Event]) -> None:
        self.raised.extend(e for e in events if isinstance(e, IncidentEvent))

    def finish(self, t: float | None = None) -> list[Event]:
        """The source ended: settle what the last frames show, if they are clean."""
        events: list[Event] = []
        w = self.window.frames
        if self.state == Phase.ACTIVE and w and self.record is not None:
            if all(f.clean for f in w) and len(w) >= 2:
                events.extend(self._settle(SettleKind.QUIET))
        events.extend(self.incidents.flush())
        self._remember_raised(events)
        return events

    # ------------------------------------------------------------------ pieces of feed
    def _lost(self, obs: Any, events: list[Event]) -> list[Event]:
        if self.lost_since is None:
            self.lost_since = float(obs.t)
        if not self.lost_reported and obs.t - self.lost_since >= self.cfg.lost_report_s:
            self.lost_reported = True
            events.append(TrackingEvent(obs.t, self.ply, TrackingStatus.BOARD_LOST,
                                        "board not found (camera moved or view blocked); waiting for it"))
        self.window.reset()
        if self.record is not None and self.settled is not None:
            if self.state == Phase.QUIET:
                self._begin_episode(float(obs.t), int(obs.frame_index))
            if self.episode is not None:
                self.episode.update(float(obs.t), int(obs.frame_index), None, None, None)
        return events

    def _departs(self, fr: Frame) -> bool:
        """Whether a frame starts an episode: a hand, or a reading that departs from the settled board."""
        if not fr.clean:
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

    def _begin_episode(self, t: float, frame_index: int) -> None:
        assert self.record is not None
        before = self.settled or Settled(t, frame_index, board_classes(self.record.position),
                                         np.zeros((90, 2)), np.ones(90, dtype=bool), np.ones(90), provisional=True)
        self.episode = Episode(t, frame_index, before)
        self.state = Phase.ACTIVE
        self.window.reset()

    # ------------------------------------------------------------------ settling
    def _ready(self, kind: SettleKind, frames: list[Frame], reading: SettleReading) -> Explanation | None:
        """The best legal explanation of a settle, or None to wait for more frames.

        An arm resting on the board settles only on a move entirely in view (otherwise it may be
        mid-move); after a long rest also on an unexplained change in view (an illegal move made
        beside the arm). A quiet board that nothing explains waits a moment first (a hand the
        detector missed), longer when a victim is off the board and the capture not yet made.
        It does not wait again when the same points are still unexplained after later moves:
        the next hand had cut the wait short, and plies would otherwise pile up past the search
        (a piece knocked off, then quick replies, each hand cutting the last wait short).
        """
        assert self.record is not None and self.episode is not None
        pos, evidence = self.record.position, reading.evidence
        if kind == SettleKind.REST:
            long_rest = frames[-1].t - frames[0].t >= self.cfg.long_rest_factor * self.cfg.rest_settle_s
            ex = explain(pos, evidence, self.cfg.explain, max_plies=3 if long_rest else 1)
            changed = np.nonzero(ex.board != board_classes(pos))[0]
            if not ex.moves and not (long_rest and not ex.explains):
                return None
            if np.any(~evidence.visible[changed]) or (not ex.explains and not long_rest):
                return None
            if not ex.explains and np.any(~evidence.visible[ex.residual]):
                return None
            return ex
        ex = explain(pos, evidence, self.cfg.explain)
        first_look = self.settled is None and self.ply == 0
        if ex.explains and ex.moves and not first_look and not self.episode.hand_seen and not self.window.holding:
            # pieces do not move by themselves: a board that changed with nothing over it is a reading
            # that flickered (a disc between points read empty for a moment, a shadow) until it has
            # stayed a while (a disc left between two points can read gone for a quarter second with
            # no hand over the board, and would be recorded as a move nobody made). A hand the
            # detector missed altogether only delays its move by the wait.
            self.window.hold(self.cfg.handless_wait_s)
            return None
        if ex.explains or first_look:
            return ex
        before = self.settled.offsets if self.settled is not None else None
        if off_point_disc_move(pos, reading, self._settle_cfg, before) is not None:
            return ex   # a disc seen off its point explains it now: no reason to wait
        if knock_in_view(pos, reading, ex, self.episode, self._prev_episode, self._settle_cfg, before):
            # ... and so does a piece knocked aside, its disc in view, once the board has stood a
            # moment: read the instant the hand left, a face it passed over is still stirred
            # (a face read the instant an arm left it can be far off its own, and be taken for a touch)
            if not self.window.holding:
                self.window.hold(self.cfg.knock_seen_wait_s)
                return None
            return ex
        if self._held is not None and self._held.outlived_by(ex):
            return ex
        if not self.window.holding:
            capture = capture_under_way(pos, evidence, self.cfg.explain)
            self.window.hold(self.cfg.capture_wait_s if capture else self.cfg.unexplained_wait_s)
            self._held = None if capture else HeldBoard(frozenset(ex.residual), len(ex.moves))
            return None
        return ex

    def _settle(self, kind: SettleKind) -> list[Event]:
        assert self.record is not None and self.episode is not None
        frames = self.window.settled_frames(kind)
        reading = read_frames(frames, self._misread)
        ex = self._ready(kind, frames, reading)
        if ex is None:
            return []
        held, self._held = self._held, None
        last = frames[-1]
        before_pos = self.record.position.copy()
        episode = self.episode
        unconfirmed = self.settled is None or (self.settled.provisional and not self.moves)
        ctx = SettleContext(kind, self.record.position, self.ply, self.ply - self.locked_plies,
                            unconfirmed and self.ply == 0, reading, ex, episode, self._prev_episode, last,
                            self._settle_cfg, self.incidents, held, self._looks)
        outcome = explain_settle(ctx)
        turned: list[Event] = []
        if outcome is None and self._first_move_turned(kind, reading, ex):
            turned.append(self._turn_board(last))
            assert self.episode is not None
            episode = self.episode
            frames = self.window.settled_frames(kind)
            last = frames[-1]
            reading = read_frames(frames, self._misread)
            ctx = replace(ctx, reading=reading, explanation=explain(self.record.position, reading.evidence,
                                                                     self.cfg.explain),
                          episode=episode, prev_episode=self._prev_episode, last=last, looks=self._looks)
            outcome = explain_settle(ctx)
        events = self._apply(outcome, reading, last, episode)
        self._new_reference(reading, last)
        judged = outcome.explanation if outcome is not None else None
        assert self.settled is not None
        events.extend(self.incidents.after_settle(episode, self.settled, judged, before_pos, self.ply))
        self.state = Phase.QUIET
        self._prev_episode = self.episode
        self.episode = None
        self.window.reset()
        self.just_settled = True
        return turned + events

    def _first_move_turned(self, kind: SettleKind, reading: SettleReading, as_read: Explanation) -> bool:
        """The board settled after a hand with no move recorded yet, and nothing explains what it
        shows as read (no move, no disc off its point, no knock: the settle chain found nothing),
        but one legal move explains it read the other way round: red moves first, so red's end is
        the other one. Only from a start that looks the same from both ends to a reader that
        cannot tell red from black (with colours read, the turned board shows red's pieces at
        black's end and explains nothing), and only one move (a first move put down between
        points is explained as read by the settle chain, and turned it may read as two or three
        plies). A wooden set in dim light on a paper board printed in red can leave the start as
        likely from either end; keeping the wrong end reads red's first move as black's mirrored
        one and turns every move after it round, losing the game whole. `as_read`: the best legal
        explanation of `reading`."""
        if kind != SettleKind.QUIET or self.record is None or self.moves or self.locked_plies or self.turning_input:
            return False
        if self.settled is None or self.episode is None or not self.episode.hand_seen:
            return False
        pos = self.record.position
        if not alike_turned(pos) or as_read.explains:
            return False
        other = explain(pos, reading.evidence.turned(), self.cfg.explain)
        return other.explains and len(other.moves) == 1

    def _turn_board(self, last: Frame) -> TrackingEvent:
        """Read the board the other way round from now on: everything held of the game so far
        turned (the settled start, this episode, the frames waiting to settle), and each
        observation turned as it comes until the source turns (source_turned)."""
        assert self.settled is not None and self.episode is not None and self.record is not None
        self.window.turn()
        # what was read turns; the position the game stands at does not (in sync, the settled
        # board's classes are its placement), and the reader's misreads are those of the turned
        # readings against it
        placement = board_classes(self.record.position)

        def turned(settled: Settled) -> Settled:
            out = settled.turned()
            return replace(out, classes=placement) if self.sync == SyncState.IN_SYNC else out
        was = self.settled
        self.settled = turned(was)
        self.episode = replace(self.episode.turned(),
                               before=self.settled if self.episode.before is was else turned(self.episode.before))
        if self._prev_episode is not None:
            self._prev_episode = replace(self._prev_episode.turned(), before=turned(self._prev_episode.before))
        if self._misread is not None and self.settled.observed is not None:
            self._misread = Misread((self.settled.observed != placement) & self.settled.visible,
                                    self.settled.observed.copy())
        if self._looks is not None:
            self._looks = turned_points(self._looks)
        self.camera.turn()
        self.incidents.memory = self.incidents.memory.turned_before_first_move()
        self._held = None
        self.turning_input = True
        return TrackingEvent(last.t, self.ply, TrackingStatus.BOARD_TURNED,
                             "red's end of the board is the other one: the first move is red's only read "
                             "that way round (the pieces' colours do not tell the two ends apart)",
                             extra={"frame": last.frame_index})

    def source_turned(self) -> None:
        """The source now reads the board the other way round itself (the reader turned its
        lattice after a BOARD_TURNED event): observations are taken as they come again."""
        self.turning_input = False

    def _apply(self, outcome: SettleOutcome | None, reading: SettleReading, last: Frame,
               episode: Episode) -> list[Event]:
        """Record what the settle chain concluded: a correction, accepted moves (with a between-points
        incident for a piece put down off the points), or the board reported as unexplained."""
        assert self.record is not None
        if outcome is None:
            return self._unexplained(reading, last, episode)
        events = list(outcome.events)
        if outcome.correction is not None:
            events.extend(self._apply_correction(outcome.correction, last, episode))
        elif outcome.explanation is not None:
            events.extend(self._accept(outcome.explanation, last, episode))
            if outcome.between is not None:
                m = outcome.between
                events.append(self.incidents.put_down_between(
                    last.t, self.ply, self.record.position.piece_at(m.to_sq) or "?", m.to_sq,
                    reading.offsets[m.to_sq],
                    {"before": episode.before.frame_index, "during": episode.busiest_frame,
                     "after": last.frame_index}))
        return events

    def _new_reference(self, reading: SettleReading, last: Frame) -> None:
        """The new settled reference: the legal position's placement, the readings' offsets."""
        assert self.record is not None
        evidence = reading.evidence
        in_sync = self.sync == SyncState.IN_SYNC
        classes = board_classes(self.record.position) if in_sync else evidence.observed()
        ref_prob = np.exp(evidence.logp[np.arange(90), classes])
        prev_offsets = self.settled.offsets if self.settled is not None else reading.offsets
        offsets = np.where(evidence.visible[:, None], reading.offsets, prev_offsets)
        seen = evidence.visible | (self.settled.visible if self.settled is not None else False)
        # Readings that say nothing yet (a reader still warming up) make a
        # provisional reference: no incident is judged against its offsets.
        informative = float(np.mean(np.exp(evidence.logp.max(axis=1)))) >= self.cfg.informative_prob
        observed = evidence.observed()
        if self.settled is not None and self.settled.observed is not None:
            observed = np.where(evidence.visible, observed, self.settled.observed)
        self.settled = Settled(last.t, last.frame_index, classes, offsets, seen, ref_prob,
                               provisional=not informative, covered=~evidence.visible, observed=observed,
                               empty_prob=np.exp(evidence.logp[:, 0]), looks=self._looks, lattice=self._lattice)
        if in_sync:
            # what the reader gets wrong about the accepted position, point by point:
            # the same reading later is no news (a look-alike the reader keeps seeing)
            self._misread = Misread((observed != board_classes(self.record.position)) & seen, observed.copy())

    def _accept(self, ex: Explanation, last: Frame, episode: Episode) -> list[Event]:
        assert self.record is not None
        events: list[Event] = []
        if self.sync != SyncState.IN_SYNC:
            what = "the board is back to the recorded position" if not ex.moves else \
                "the board matches the recorded position after " + " ".join(m.iccs() for m in ex.moves)
            events.append(TrackingEvent(last.t, self.ply, TrackingStatus.RESYNCED, what,
                                        extra={"was": self.sync.value}))
            self.sync = SyncState.IN_SYNC
            self.sync_detail = ()
        refuted = self._refuted_knocks(ex.moves, last)
        events.extend(refuted)
        events.extend(self._refuted_illegal(ex.moves, refuted, last))
        n = len(ex.moves)
        first_ply = self.ply + 1
        for i, m in enumerate(ex.moves):
            played = self.record.play(m, last.t)
            events.append(MoveEvent(last.t, self.ply, m.iccs(), played.side, played.notation,
                                    self.record.position.fen(), last.frame_index, score=ex.score,
                                    inferred=(i < n - 1) or not episode.hand_seen, capture=played.captured,
                                    t_hand_left=self.window.hand_left_time(), t_touch=episode.t_start))
            if played.occurrences >= 3:
                events.extend(self._repetition(last))
            elif played.occurrences == 1:
                self.record.repetition.last_ruling = None   # a new position: any repetition stretch is over
        if n >= 2:
            events.append(self._plies_merged(ex, first_ply, last, episode))
        return events

    def _plies_merged(self, ex: Explanation, first_ply: int, last: Frame, episode: Episode) -> TrackingEvent:
        """Say that plies were recorded from one settle, and whether their order is known.

        Why: the reader saw only the board after them (frames dropped by a busy machine, a
        camera that lost the board, two moves in one hand's visit). Turns alternate, so the
        sides' order is fixed; but two moves of one side that touch different pieces reach the
        same board in either order, and a piece may have gone by another route: the board cannot
        say which. The sequence written is then one of several, and the journal names the
        others instead of stating a guess as fact."""
        moves = [m.iccs() for m in ex.moves]
        others = [[m.iccs() for m in o] for o in ex.alternatives]
        plies = f"plies {first_ply}-{first_ply + len(moves) - 1}"
        if others:
            alt = "; ".join(" ".join(o) for o in others)
            what = (f"{plies} were seen at once ({' '.join(moves)}): which moves and in what order cannot be told from the board; "
                    f"also possible: {alt}")
        else:
            what = f"{plies} were seen at once ({' '.join(moves)}), in the only order the rules allow"
        return TrackingEvent(last.t, self.ply, TrackingStatus.PLIES_MERGED, what,
                             extra={"first_ply": first_ply, "moves": moves, "candidates": [moves] + others,
                                    "order_known": not others, "hand_seen": bool(episode.hand_seen),
                                    "frame": last.frame_index})

    def _withdraw(self, inc: IncidentEvent, t: float, ply: int, reason: str) -> IncidentRetracted:
        """`inc` no longer stands: off the list of raised incidents, and the retraction to journal."""
        self.raised.remove(inc)
        return IncidentRetracted.of(inc, t, ply, reason)

    def _refuted_knocks(self, moves: list[Move], last: Frame) -> list[Event]:
        """Retract a 'knocked off the board' that a move now explains: the piece reported gone
        (no disc seen near its point, never seen back on it) is moved from that point. It was
        carried and put down where the reader did not see it, between points (a disc carried two
        files and left between points, unseen there, reads as knocked off the board)."""
        events: list[Event] = []
        gone = self.incidents.memory.knocked_reported
        for m in moves:
            for inc in [e for e in self.raised if e.kind == "knocked" and e.extra.get("off_board")
                        and e.points == [m.from_sq] and m.from_sq in gone]:
                events.append(self._withdraw(
                    inc, last.t, self.ply,
                    f"the piece on {point_name(m.from_sq)} was moved ({m.iccs()}), not knocked off the "
                    f"board: it had been put down where it was not seen"))
        return events

    def _refuted_illegal(self, moves: list[Move], refuted: list[Event], last: Frame) -> list[Event]:
        """Retract an 'illegal move' (out of turn) that the sequence now accepted makes a legal
        ply, when an earlier ply of that sequence had been seen begun before it: its piece was
        reported gone from its point (a knock this sequence has just retracted) before the
        illegal move was raised. The player had moved; the reader had not seen where the piece
        went (a move lost in a sheen, and the reply then called out of turn)."""
        events: list[Event] = []
        seen_begun: dict[int, float] = {}
        for r in refuted:
            if isinstance(r, IncidentRetracted) and r.target is not None:
                seen_begun[r.target.points[0]] = r.target.t
        for j, m in enumerate(moves):
            for inc in [e for e in self.raised if e.kind == "illegal_move" and e.points[:2] == [m.from_sq, m.to_sq]]:
                earlier = [mv for mv in moves[:j] if mv.from_sq in seen_begun and seen_begun[mv.from_sq] <= inc.t]
                if not earlier:
                    continue
                events.append(self._withdraw(
                    inc, last.t, self.ply,
                    f"{m.iccs()} was a legal reply: {earlier[0].iccs()} had been made before it (its piece "
                    f"was seen leaving {point_name(earlier[0].from_sq)}), where the reader did not see it"))
        return events

    def _repetition(self, last: Frame) -> list[Event]:
        """A position seen a third time: the 棋例 ruling, once per ruling while the repetition lasts."""
        from rules.repetition import adjudicate
        assert self.record is not None
        rec = self.record
        ruling = adjudicate(rec.start_fen, list(rec.moves), rules=self.cfg.repetition_rules)
        if ruling.ruling == "none":
            rec.repetition.last_ruling = None
            return []
        if ruling.ruling == rec.repetition.last_ruling:
            return []
        rec.repetition.last_ruling = ruling.ruling
        side: Side | None = None
        if ruling.ruling.startswith("red"):
            side = Side.RED
        elif ruling.ruling.startswith("black"):
            side = Side.BLACK
        pts = sorted({rec.moves[-1].from_sq, rec.moves[-1].to_sq})
        return [IncidentEvent(last.t, self.ply, "repetition", side, pts,
                              f"repetition: {ruling.ruling.replace('_', ' ')} ({ruling.reason})",
                              frames={"after": last.frame_index}, extra={"ruling": ruling.to_dict()})]

    def _unexplained(self, reading: SettleReading, last: Frame, episode: Episode) -> list[Event]:
        """Nothing explains the board: an illegal move if the change is one piece moved, else out of
        sync; each reported once while the board shows the same."""
        assert self.record is not None
        evidence = reading.evidence
        ref = board_classes(self.record.position)
        differing = evidence.contradictions(ref, self.cfg.explain.contradiction)
        observed = evidence.observed()
        shown = np.where(evidence.visible, observed, ref)
        phys = physical_move(ref, evidence, self.cfg.explain.contradiction)
        events: list[Event] = []
        if phys is not None:
            key = ("illegal", phys.from_sq, phys.to_sq)
            if self.sync == SyncState.ILLEGAL and self.sync_detail == key:
                return events
            self.sync, self.sync_detail = SyncState.ILLEGAL, key
            mover = Side.of_piece(phys.piece)
            reason = illegal_reason(self.record.position, phys, mover)
            events.append(self.incidents.illegal_move(
                last.t, self.ply, mover, phys, reason, placement_fen(shown),
                {"before": self.settled.frame_index if self.settled else episode.frame_start,
                 "during": episode.busiest_frame if episode.busiest_frame >= 0 else episode.frame_start,
                 "after": last.frame_index}))
            return events
        key2 = tuple(differing)
        if self.sync == SyncState.OUT_OF_SYNC and self.sync_detail == key2:
            return events
        self.sync, self.sync_detail = SyncState.OUT_OF_SYNC, key2
        names = ", ".join(f"{point_name(p)}: expected {CLASS_LETTERS[ref[p]]} read {CLASS_LETTERS[observed[p]]}"
                          for p in differing[:12])
        events.append(TrackingEvent(last.t, self.ply, TrackingStatus.OUT_OF_SYNC,
                                    f"no legal move sequence explains the board ({names})",
                                    points=list(differing),
                                    extra={"board_shows": placement_fen(shown),
                                           "expected": placement_fen(ref), "frame": last.frame_index}))
        return events

    def _apply_correction(self, found: Correction, last: Frame, episode: Episode) -> list[Event]:
        """Replace the last k recorded plies by the correction's replacement (re-stated as corrected
        move events from the first that differs), then accept what followed."""
        assert self.record is not None
        rec, k, replacement = self.record, found.plies_back, found.replacement
        times = [last.t if t is None else t for t in rec.move_times[-k:]]
        undone = rec.moves[-k:]
        first = next(i for i, (a, b) in enumerate(zip(undone, replacement)) if a != b)
        for _ in range(k):
            rec.take_back()
        ply = self.ply + 1
        was, now = undone[first:], replacement[first:]
        events: list[Event] = [TrackingEvent(
            last.t, ply, TrackingStatus.CORRECTED,
            f"from ply {ply + first} the record said {' '.join(m.iccs() for m in was)}; "
            f"the board shows {' '.join(m.iccs() for m in now)}",
            points=sorted({q for m in was + now for q in (m.from_sq, m.to_sq)}),
            extra={"ply": ply, "was": " ".join(m.iccs() for m in was), "now": " ".join(m.iccs() for m in now),
                   "frame": last.frame_index})]
        void = incident_rules.void_after_correction(self.raised, ply + first, was, now)
        for inc in void:
            events.append(self._withdraw(
                inc, last.t, ply,
                f"ply {ply + first} was re-stated ({' '.join(m.iccs() for m in was)} -> "
                f"{' '.join(m.iccs() for m in now)}); the {inc.kind.replace('_', ' ')} on "
                f"{', '.join(point_name(p) for p in inc.points)} was judged on the record it replaced"))
        self.incidents.forget_last_move()
        for m, t in zip(replacement, times):
            played = rec.play(m, t)
            events.append(MoveEvent(t, self.ply, m.iccs(), played.side, played.notation, rec.position.fen(),
                                    last.frame_index, score=found.after.score, capture=played.captured,
                                    corrected=True))
        events.extend(self._accept(found.after, last, episode))
        assert self.settled is not None
        for inc in void:
            again = self.incidents.restate_between(inc, was, now, self.settled, episode)
            if again is not None:
                events.append(again)
        return events

    # ------------------------------------------------------------------ no start given
    def _await_start(self, fr: Frame, events: list[Event]) -> list[Event]:
        """No start position given: read it from the first settled, fully visible frames."""
        self.window.extend(fr)
        if self.window.settle_kind() != SettleKind.QUIET:
            return events
        reading = read_frames(list(self.window.frames), self._misread)
        evidence = reading.evidence
        if float(np.mean(np.exp(evidence.logp.max(axis=1)))) < self.cfg.informative_prob \
                or not evidence.visible.all():
            self.window.reset()   # the reader has not read the board yet
            return events
        standard = Position()
        if not evidence.contradictions(board_classes(standard), self.cfg.explain.contradiction):
            start = standard
        else:
            from rules import RulesError
            fen = placement_fen(evidence.observed()) + " w - - 0 1"
            try:
                start = Position.from_fen(fen)
            except RulesError as exc:  # an unreadable start: keep waiting, say why once
                if not self._start_error_said:
                    self._start_error_said = True
                    events.append(TrackingEvent(fr.t, 0, TrackingStatus.START_UNREADABLE,
                                                f"cannot read a start position yet: {exc}"))
                self.window.reset()
                return events
        self.record = GameRecord.starting(start, [], self.cfg.notation)
        classes = board_classes(start)
        ref_prob = np.exp(evidence.logp[np.arange(90), classes])
        self.settled = Settled(fr.t, fr.frame_index, classes, reading.offsets, evidence.visible, ref_prob,
                               empty_prob=np.exp(evidence.logp[:, 0]), looks=self._looks, lattice=self._lattice)
        self.window.reset()
        self.just_settled = True
        events.append(TrackingEvent(fr.t, 0, TrackingStatus.STARTED, "start position read from the board",
                                    extra={"fen": start.fen()}))
        return events
