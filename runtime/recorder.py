"""The recording loop: source → vision → tracker → journal, PGN, evidence, console.

One job: wire the parts together and make sure nothing recorded is ever
lost — every event is journalled (synced) the moment the tracker reports
it, game.pgn is rewritten atomically after every move, and whatever stops
the loop (end of file, camera gone, Ctrl-C, a crash in a part) still
leaves the journal, the PGN and the review page behind.
"""
from __future__ import annotations

import queue
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from rules import Move, Position, Side

from board.events import ArbiterCorrection
from board.events import (Event, GameEndEvent, IncidentEvent, IncidentRetracted, MoveEvent, ReviewNote, TrackingEvent,
                          TrackingStatus)
from board.sync import SyncState
from .journal import EVENTS_NAME, DiskBudget, Journal, JournalError, free_bytes, load_game, write_game_pgn
from board.tracker import Tracker, TrackerConfig
from .arbiter_watch import ArbiterResult, ArbiterWatch, standing_result

if TYPE_CHECKING:
    from vision.protocol import Reader

    from .evidence import EvidenceStore


class RecordError(RuntimeError):
    """Recording cannot start or continue (message says why; data recorded so far is kept)."""


@dataclass
class RecordSummary:
    out_dir: Path
    moves: list[str]
    incidents: list[dict[str, Any]]
    frames: int
    video_s: float
    wall_s: float
    ended: str                      # "end_of_source", "source_lost", "interrupted", "disk_full", "error"
    message: str = ""
    out_of_sync: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    frames_dropped: int = 0         # frames a live/paced source dropped because processing fell behind

    @property
    def speed(self) -> float:
        return self.video_s / self.wall_s if self.wall_s > 0 else 0.0


# Tracking news that the readings disagree with the known position: the reader is told, and
# checks its lattice against the position when it judges that worth it (vision.config.AnchorConfig).
ANCHOR_ON = ("start_mismatch", "out_of_sync")

# Source seconds between two looks at the free space (a statvfs): the journal's reserve covers
# what is written in between.
DISK_CHECK_EVERY_S = 1.0

# Seconds of frames without a board before the recorder says so in the journal.
NO_BOARD_REPORT_S = 5.0


def resume_point(out_dir: str | Path) -> float:
    """Source time where the recording in `out_dir` stopped (its last journalled event): a resumed
    file recording opens the video there instead of replaying what is already recorded."""
    try:
        return load_game(out_dir).last_t
    except JournalError as exc:
        raise RecordError(str(exc)) from None


class Recorder:
    """Records one game into `out_dir`.

    `reader` is a vision.protocol.Reader (vision.BoardReader, or anything that stands in for
    it): frames in, Observations out; the recorder tells it the game's position after every frame
    and journals what it did to its lattice. `on_line` receives the human lines (moves, incidents,
    tracking changes) as they happen.
    """

    def __init__(self, out_dir: str | Path, *, start_fen: str | None = None, read_start: bool = False,
                 resume: bool = False, clock: Any = None, notation: str = "chinese",
                 reader: "Reader | None" = None, config: TrackerConfig | None = None,
                 headers: dict[str, str] | None = None, on_line: Callable[[str], None] | None = None,
                 evidence: bool = True, disk: DiskBudget | None = None) -> None:
        self.out_dir = Path(out_dir)
        self.disk = disk or DiskBudget()
        self._stop_reason: str | None = None
        self._disk_warned = False
        self._disk_checked_t: float | None = None   # source time of the last free-space look
        self._dropped_reported = 0
        self._no_board_since: float | None = None
        self._lattices_replaced = 0   # the reader's count of doubted lattices it replaced, as journalled
        self._no_board_said = False
        self.resume_at_s: float | None = None   # a resumed recording: source time where the last one stopped
        self.moves_found: list[str] = []
        self.incidents: list[dict[str, Any]] = []
        self.all_events: list[dict[str, Any]] = []
        self.notation = notation
        self.arbiter_result: ArbiterResult | None = None   # an arbiter's result stands: the game is closed ...
        self.closed_at: int | None = None                  # ... at this many plies (later moves: post-game)
        self.on_line = on_line or (lambda s: None)
        self.reader = reader
        cfg = config or TrackerConfig()
        cfg.notation = notation
        self.t_offset = 0.0
        existing = self.out_dir / EVENTS_NAME
        if resume:
            try:
                game = load_game(self.out_dir)
            except JournalError as exc:
                raise RecordError(str(exc)) from None
            for w in game.warnings:
                print(f"xqtrack record: warning: {w}", file=sys.stderr)
            self.headers = dict(game.headers)
            self.notation = game.notation or notation
            cfg.notation = self.notation
            self.tracker = Tracker(config=cfg, start_fen=game.start_fen, moves=game.moves)
            self.clocks_ms: list[int | None] = list(game.clocks_ms)
            self.resume_at_s = game.last_t
            self.journal = Journal(self.out_dir, self.disk)
            self.tracker.lock_recorded_plies()
        else:
            if existing.exists() and existing.stat().st_size > 0:
                raise RecordError(f"{self.out_dir} already holds a recording (events.jsonl); "
                                  f"use --resume to continue it, or choose another --out folder")
            self.headers = dict(headers or {})
            self.headers.setdefault("Date", time.strftime("%Y.%m.%d"))
            start = Position.from_fen(start_fen) if start_fen else (None if read_start else Position())
            self.tracker = Tracker(start=start, config=cfg, read_start=read_start and not start_fen)
            self.clocks_ms = []
            self.journal = Journal(self.out_dir, self.disk)
            if self.tracker.position is not None:
                self._write(TrackingEvent(0.0, 0, "started", "recording started",
                                          extra={"fen": self.tracker.start_fen, "headers": self.headers,
                                                 "notation": self.notation}))
                self._write_pgn()
        self._ply_base = 0
        self.host_t0: float | None = None
        self.clock = clock
        self.clock_queue: "queue.Queue[Any]" = queue.Queue()
        self.referee = None
        if clock is not None:
            from board.clockref import ClockReferee
            self.referee = ClockReferee()
            clock.subscribe(self.clock_queue.put)
        self.evidence: EvidenceStore | None = None
        self._evidence_on = evidence
        # incident ids (1, 2, 3…, the arbiter's handle: `xqtrack rule DIR ID`) go on after a resume
        self._n_incident = sum(1 for e in game.events if e.get("type") == "incident") if resume else 0
        self._n_note = sum(1 for e in game.events if e.get("type") == "review_note") if resume else 0
        # live set-up view (live/setupframe.py): called with (frame, observation) for every frame read
        self.frame_hook: Callable[[Any, Any], None] | None = None
        self.last_clock_ms: dict[str, int] | None = None
        # the arbiter's lines written beside the recording (corrections, results): taken up each frame
        self.arbiter = ArbiterWatch(self.out_dir)
        if resume and (standing := standing_result(game.events)) is not None:
            self.arbiter_result, self.closed_at = standing, self.tracker.ply

    @property
    def stop_requested(self) -> bool:
        """A stop was asked for (a signal, a full disk) and the loop ends after the frame in hand."""
        return self._stop_reason is not None

    def request_stop(self, reason: str) -> None:
        """End the recording after the frame in hand, like the end of the source (signal-safe)."""
        if self._stop_reason is None:
            self._stop_reason = reason

    def _announce_resume(self, source: Any) -> None:
        """Journal where a resumed recording goes on: a file continues at its own time (the source
        was opened at `resume_at_s`), a live source's clock restarts, so its times are shifted."""
        if self.resume_at_s is None:
            return
        live = bool(getattr(source, "live", False))
        self.t_offset = self.resume_at_s + 1.0 if live else 0.0
        start = 0.0 if live else self.resume_at_s
        self._write(TrackingEvent(start, self.tracker.ply, "resumed", f"continuing after ply {self.tracker.ply}",
                                  extra={"fen": self.tracker.position.fen() if self.tracker.position else None,
                                         "t_offset": round(self.t_offset, 3), "source_t": round(start, 3)}))

    def _tell_position(self, disagrees: bool) -> None:
        """Tell the reader the position the game must show now (and whether the tracker just found
        the readings disagreeing with it): the reader decides whether to check its lattice."""
        assert self.reader is not None
        pos = self.tracker.position
        self.reader.game_position(pos.points() if pos is not None else None, disagrees)

    def _note_anchored(self, fr: Any) -> None:
        """Journal each re-seating of the lattice on the known position the reader made: the
        lattice shifted by a point (steep cameras take the board's edge for a line), turned, or
        another lattice found in the frame."""
        assert self.reader is not None
        for moved in self.reader.take_anchored():
            turn = ", turned" if moved.turned else ""
            what = ("another lattice found in the frame" if moved.fresh else
                    f"lattice moved by ({moved.shift_x}, {moved.shift_y}) points{turn}")
            self._write(TrackingEvent(fr.t, self.tracker.ply, "lattice_anchored",
                                      f"{what}: the known position is {moved.gain_nats:.0f} nats more likely "
                                      f"there ({moved.explained:.0%} of the points read as it)",
                                      extra={"shift": [moved.shift_x, moved.shift_y], "turned": moved.turned,
                                             "fresh": moved.fresh, "frame": fr.index}))

    def _turn_source(self) -> None:
        """The tracker found red's end to be the other one at the first move: the reader turns its
        lattice, so that the tracker can take its observations as they come again (a reader that
        cannot turn leaves the tracker turning each one itself)."""
        assert self.reader is not None
        if self.reader.turn_board():
            self.tracker.source_turned()
        if self.evidence is not None:
            self.evidence.turn_lattice()

    def _note_lattice_replaced(self, fr: Any) -> None:
        """Journal it when the reader gave up a weakly shown lattice for a clearly better one
        (vision.reader.LockDoubtConfig): every point is read afresh from this frame on."""
        assert self.reader is not None
        replaced = self.reader.lattice_replaced
        if replaced > self._lattices_replaced:
            self._lattices_replaced = replaced
            self._write(TrackingEvent(fr.t, self.tracker.ply, "lattice_anchored",
                                      "another lattice found in the frame: the one locked first showed its "
                                      "lines only weakly, this one clearly",
                                      extra={"fresh": True, "doubted": True, "frame": fr.index}))

    def _note_board_search(self, found: bool, t: float) -> None:
        """Say so when no board has been found for a while (a camera pointed elsewhere, noise):
        once per stretch, with how much searching was done, so nobody waits on a silent recorder."""
        if found:
            self._no_board_since = None
            self._no_board_said = False
            return
        if self._no_board_since is None:
            self._no_board_since = t
        if not self._no_board_said and t - self._no_board_since >= NO_BOARD_REPORT_S:
            self._no_board_said = True
            assert self.reader is not None
            searches = self.reader.searches
            share = self.reader.search_share
            bound = f"; searching at most {share:.0%} of each second" if share else ""
            self._write(TrackingEvent(t, self.tracker.ply, "board_not_found",
                                      f"no board found for {t - self._no_board_since:.0f} s of frames "
                                      f"({searches} searches so far, {self.reader.search_s:.1f} s of searching)"
                                      f"{bound}; check the camera's view",
                                      extra={"searches": searches}))

    def _check_disk(self, t: float) -> None:
        """Warn once when space runs low; stop when the journal had to use its reserve."""
        if self.journal.disk_full:
            self.request_stop(f"the disk holding {self.out_dir} is full: recording stopped; the journal and "
                              f"game.pgn are complete up to ply {self.tracker.ply}")
            return
        if self._disk_warned or (self._disk_checked_t is not None and t - self._disk_checked_t < DISK_CHECK_EVERY_S):
            return
        self._disk_checked_t = t
        try:
            free = free_bytes(self.out_dir)
        except OSError:
            return
        if free < self.disk.warn_free_bytes:
            self._disk_warned = True
            msg = (f"only {free / 2**20:.0f} MiB free on the disk holding {self.out_dir}; evidence images stop "
                   f"below {self.disk.evidence_min_free_bytes / 2**20:.0f} MiB, the recording stops when it is full")
            print(f"xqtrack record: warning: {msg}", file=sys.stderr)
            self._write(TrackingEvent(t, self.tracker.ply, "disk_low", msg, extra={"free_bytes": free}))

    def _evidence_allowed(self) -> bool:
        try:
            return free_bytes(self.out_dir) >= self.disk.evidence_min_free_bytes
        except OSError:
            return False

    def _report_drops(self, source: Any, t: float, final: bool = False) -> None:
        dropped = int(getattr(source, "dropped", 0) or 0)
        new = dropped - self._dropped_reported
        if new <= 0 or (not final and new < max(1, int(getattr(source, "fps", 25.0)))):
            return
        self._dropped_reported = dropped
        self._write(TrackingEvent(t, self.tracker.ply, "frames_dropped",
                                  f"{new} frames dropped: processing fell behind the source",
                                  extra={"dropped": new, "dropped_total": dropped}))

    # ------------------------------------------------------------------ output
    def _write_dict(self, d: dict[str, Any]) -> dict[str, Any]:
        d = dict(d)
        d["t"] = round(float(d["t"]) + self.t_offset, 3)
        line = self.journal.write(d)
        self.all_events.append(line)
        return line

    def _write(self, ev: Event) -> dict[str, Any]:
        d = ev.to_dict()
        d["t"] = round(float(d["t"]) + self.t_offset, 3)
        if ev.type == "tracking" and getattr(ev, "status", "") == "started" and "fen" not in d:
            d["fen"] = self.tracker.start_fen
        if ev.type == "tracking" and getattr(ev, "status", "") == "started":
            d.setdefault("headers", self.headers)
            d.setdefault("notation", self.notation)
        line = self.journal.write(d)
        self.all_events.append(line)
        return line

    def _write_pgn(self) -> None:
        result = "*"
        pos = self.tracker.position
        if pos is not None:
            out = pos.outcome()
            if out is not None:
                result = out.result
        moves, clocks_ms = self.tracker.moves, self.clocks_ms
        if self.arbiter_result is not None and self.closed_at is not None:
            # the game as it stood at the arbiter's result: later moves are the post-mortem
            moves, clocks_ms, result = moves[:self.closed_at], clocks_ms[:self.closed_at], self.arbiter_result.result
        clocks = clocks_ms if any(c is not None for c in clocks_ms) else None
        self.journal.write_file(lambda: write_game_pgn(self.out_dir, self.headers, self.tracker.start_fen,
                                                       moves, clocks, result, self.notation))

    def _take_arbiter_lines(self, t: float) -> None:
        """Take up what an arbiter journalled since the last frame (runtime/arbiter_watch.py)."""
        for line in self.arbiter.poll():
            if isinstance(line, ArbiterCorrection):
                self._take_correction(line, t)
                continue
            self.arbiter_result = line
            if self.closed_at is None:
                self.closed_at = max(0, min(line.ply, self.tracker.ply))
                self.tracker.lock_recorded_plies()     # the game is the arbiter's to change now
                self.on_line(f"  = result {line.result} entered ({line.reason}): moves from here on are post-game")
            self._write_pgn()

    def _take_correction(self, line: ArbiterCorrection, t: float) -> None:
        """The arbiter's moves replace the record from `line.from_ply`: the tracker goes on from the
        corrected position, and the journal says so (a `corrected` line marked `arbiter`, the plies
        re-stated), so every reader holds the arbiter's game whatever was written meanwhile."""
        try:
            events = self.tracker.take_arbiter_line(line.from_ply, [Move.from_iccs(m) for m in line.moves], t,
                                                    line.by)
        except ValueError as exc:
            self._write(TrackingEvent(t, self.tracker.ply, TrackingStatus.ARBITER_CORRECTION_REFUSED,
                                      f"the arbiter's correction from ply {line.from_ply} was not taken up by the "
                                      f"tracker ({exc}); it goes on from its own position"))
            return
        keep = line.from_ply - 1
        kept_clocks = self.clocks_ms[keep:]
        self.clocks_ms = self.clocks_ms[:keep] + [kept_clocks[i] if i < len(kept_clocks) else None
                                                  for i in range(len(line.moves))]
        self.moves_found = self.moves_found[:keep] + list(line.moves)
        for ev in events:
            self._write(ev)
        if self.closed_at is not None:
            self.closed_at = self.tracker.ply
        pos = self.tracker.position
        out = pos.outcome() if pos is not None and self.closed_at is None else None
        if out is not None:     # the corrected game ends on the board (mate, stalemate): say so as for any move
            self._write_dict(GameEndEvent(t, self.tracker.ply, out.result, out.reason).to_dict())
        self._write_pgn()
        who = f" ({line.by})" if line.by else ""
        self.on_line(f"  = the arbiter's correction{who} from ply {line.from_ply}: {' '.join(line.moves) or '-'}")

    def _save_evidence(self, ev: IncidentEvent | ReviewNote, stem: str) -> None:
        """An incident's or a note's images, named after `stem`; a failure is said on the line."""
        assert self.evidence is not None
        try:
            # an incident said again (a correction restated it) keeps its first images when its
            # frames are no longer buffered
            ev.evidence = self.evidence.save(stem, ev.frames, ev.points) or ev.evidence
        except (OSError, ValueError) as exc:  # evidence is a courtesy; the incident itself must be kept
            ev.extra["evidence_error"] = str(exc)

    def _handle(self, ev: Event, image=None, homography=None) -> None:
        if self.closed_at is not None:
            # after the arbiter's result the board shows the post-mortem: journalled, not the game
            if isinstance(ev, MoveEvent):
                ev.post_game = True
            elif isinstance(ev, TrackingEvent) and ev.status == TrackingStatus.CORRECTED:
                ev.extra["post_game"] = True
        if isinstance(ev, IncidentEvent):
            self._n_incident += 1
            ev.extra.setdefault("id", self._n_incident)
            if self.evidence is not None and not self._evidence_allowed():
                ev.extra["evidence_error"] = "not saved: disk space low (kept for the journal)"
            elif self.evidence is not None:
                self._save_evidence(ev, f"{self._n_incident:03d}_ply{ev.ply:03d}_{ev.kind}")
            line = self._write(ev)
            self.incidents.append(line)
            self.on_line(f"  ! {ev.kind} ({ev.side or '-'}) at ply {ev.ply}, t={line['t']:.1f} s: {ev.detail}")
        elif isinstance(ev, ReviewNote):
            # evidence too weak to accuse on: journalled with its images for the arbiter to look
            # at, numbered apart from the incidents an arbiter rules on
            self._n_note += 1
            ev.extra.setdefault("note", self._n_note)
            if self.evidence is not None and self._evidence_allowed():
                self._save_evidence(ev, f"note{self._n_note:03d}_ply{ev.ply:03d}_{ev.kind}")
            line = self._write(ev)
            self.on_line(f"  ? review note ({ev.kind}, {ev.side or '-'}, score {ev.score:.2f}) at ply {ev.ply}, "
                         f"t={line['t']:.1f} s: {ev.detail}")
        elif isinstance(ev, IncidentRetracted):
            # the incident's id was given above when it was written; the line names it
            line = self._write(ev)
            for inc in self.incidents:
                if inc.get("id") == line.get("incident"):
                    inc["retracted"] = line.get("reason", "")
            self.on_line(f"  ! incident {line.get('incident')} ({ev.kind}) retracted: {ev.reason}")
        elif isinstance(ev, MoveEvent) and ev.corrected and 0 < ev.ply <= len(self.moves_found):
            # a ply re-stated after a correction: it replaces the one recorded, keeps its clock
            line = self._write(ev)
            self.moves_found[ev.ply - 1] = ev.iccs
            self._write_pgn()
            self.on_line(f"      ply {ev.ply} is now {ev.san}  [{ev.iccs}] (corrected)")
        elif isinstance(ev, MoveEvent):
            if self.referee is not None:
                ev.clock_ms = dict(self.last_clock_ms) if self.last_clock_ms else None
            self.clocks_ms.append(None)
            line = self._write(ev)
            self.moves_found.append(ev.iccs)
            self._write_pgn()
            n = (ev.ply + 1) // 2
            dots = "." if ev.side == Side.RED else "..."
            extra = " (inferred: the camera missed it)" if ev.inferred else ""
            extra += " (post-game: not part of the game)" if ev.post_game else ""
            self.on_line(f"{n:3d}{dots} {ev.san}  [{ev.iccs}]  t={line['t']:.1f} s{extra}")
            pos = self.tracker.position
            out = pos.outcome() if pos is not None else None
            if out is not None and ev.ply == self.tracker.ply and not ev.post_game:
                self._write_dict(GameEndEvent(ev.t, ev.ply, out.result, out.reason).to_dict())
                self.on_line(f"  game over: {out.result} ({out.reason})")
            if self.referee is not None:
                for cev in self.referee.on_move(ev):
                    self._handle(cev)
                self._apply_clock_times()
        else:
            line = self._write(ev)
            self.on_line(f"  - {ev.status}: {ev.detail}" if ev.detail else f"  - {ev.status}")
            if ev.status == "started":
                self._write_pgn()

    # ------------------------------------------------------------------ loop
    def run(self, frames: Iterable[Any], *, progress: Callable[[int, int], None] | None = None,
            live_view: Callable[[str], None] | None = None) -> RecordSummary:
        """Process frames (runtime.sources.Frame-like: image, t, index) until they end."""
        from .evidence import EvidenceStore

        if self.reader is None:
            raise RecordError("no vision reader")
        reader = self.reader
        if self._evidence_on:
            self.evidence = EvidenceStore(self.out_dir, fps=float(getattr(frames, "fps", 0) or 25.0), background=True)
        self._announce_resume(frames)
        vision_errors = _vision_frame_errors()
        t_wall = time.monotonic()
        self.host_t0 = getattr(frames, "t0_monotonic", None) or t_wall
        n = 0
        video_s = 0.0
        ended, message = "end_of_source", ""
        consecutive_errors = 0
        last_frame = None
        try:
            for fr in frames:
                n += 1
                video_s = fr.t
                try:
                    obs = reader.process(fr.image, fr.t, fr.index)
                    consecutive_errors = 0
                except vision_errors as exc:  # this frame could not be read; a bug elsewhere still stops the run
                    consecutive_errors += 1
                    if consecutive_errors == 1:
                        self._handle(TrackingEvent(fr.t, self.tracker.ply, "frame_error",
                                                   f"frame {fr.index}: vision failed: {exc}"))
                    if consecutive_errors > 50:
                        raise RecordError(f"vision failed on 50 frames in a row (last: frame {fr.index}: {exc})")
                    continue
                self._note_board_search(obs.pose is not None, fr.t)
                self._note_lattice_replaced(fr)
                hom = obs.pose.homography if obs.pose is not None else None
                if self.frame_hook is not None:  # live set-up view
                    self.frame_hook(fr, obs)
                if self.evidence is not None:
                    self.evidence.add(fr.index, fr.image, hom)
                self._drain_clock(fr.t)
                self._take_arbiter_lines(fr.t)
                disagrees = False
                for ev in self.tracker.feed(obs):
                    self._handle(ev)
                    disagrees |= isinstance(ev, TrackingEvent) and ev.status in ANCHOR_ON
                    if isinstance(ev, TrackingEvent) and ev.status == TrackingStatus.BOARD_TURNED:
                        self._turn_source()   # before the incidents after it save their evidence
                self._tell_position(disagrees)
                self._note_anchored(fr)
                if self.tracker.just_settled and self.evidence is not None:
                    self.evidence.pin(fr.index, fr.image, hom)
                last_frame = fr
                self._note_evidence_failures(fr.t)
                self._check_disk(fr.t)
                self._report_drops(frames, fr.t)
                if self._stop_reason is not None:
                    break
                if progress is not None:
                    progress(fr.index, self.tracker.ply)
                if live_view is not None and self.tracker.position is not None:
                    from .console import board_text
                    last = self.tracker.moves[-1].iccs() if self.tracker.moves else None
                    live_view(board_text(self.tracker.position, last, self.last_clock_ms,
                                         "" if self.tracker.sync == SyncState.IN_SYNC else self.tracker.sync.replace("_", " ")))
        except KeyboardInterrupt:
            ended, message = "interrupted", "interrupted; everything recorded so far is kept"
        except Exception as exc:  # noqa: BLE001 — whatever broke the loop, the record below is finished and kept
            from .sources import SourceLost
            ended = "source_lost" if isinstance(exc, SourceLost) else "error"
            message = str(exc) or exc.__class__.__name__
        finally:
            if self._stop_reason is not None and ended == "end_of_source":
                ended = "disk_full" if self.journal.disk_full else "interrupted"
                message = self._stop_reason
            self._report_drops(frames, video_s, final=True)
            try:
                for ev in self.tracker.finish(video_s):
                    self._handle(ev)
            except Exception as exc:  # noqa: BLE001 — said, then the record is closed all the same
                print(f"xqtrack: warning: the tracker failed while finishing: {exc!r}", file=sys.stderr)
                if ended == "end_of_source":
                    ended, message = "error", f"the tracker failed while finishing: {exc}"
            try:
                self._take_arbiter_lines(video_s)   # a result entered at the very end goes into the PGN
            except (OSError, ValueError) as exc:
                print(f"xqtrack: warning: the arbiter's last lines were not taken up: {exc}", file=sys.stderr)
            status = {"end_of_source": "source_ended", "interrupted": "interrupted",
                      "disk_full": "disk_full"}.get(ended, "source_error")
            if self.evidence is not None:
                self.evidence.close()    # the incidents' files are all in place before the review
                self._note_evidence_failures(video_s)
            self._write(TrackingEvent(video_s, self.tracker.ply, status, message or "end of the source",
                                      extra={"frames": n}))
            if self.tracker.position is not None:
                self._write_pgn()
            try:
                from .review import write_review
                self.journal.write_file(lambda: write_review(self.out_dir))
            except OSError as exc:
                print(f"xqtrack: warning: review page not written: {exc}", file=sys.stderr)
            self.journal.close()
        return RecordSummary(self.out_dir, list(self.moves_found), list(self.incidents), n, video_s,
                             time.monotonic() - t_wall, ended, message,
                             self.tracker.sync != SyncState.IN_SYNC, list(self.all_events),
                             int(getattr(frames, "dropped", 0) or 0))

    def _note_evidence_failures(self, t: float) -> None:
        """Journal the evidence files the writer thread could not write (the incident stands)."""
        if self.evidence is None:
            return
        for what in self.evidence.take_failures():
            self._write(TrackingEvent(t, self.tracker.ply, TrackingStatus.EVIDENCE_ERROR, what))

    def _drain_clock(self, t: float) -> None:
        if self.referee is None:
            return
        while True:
            try:
                cev = self.clock_queue.get_nowait()
            except queue.Empty:
                break
            # the clock's host time (time.monotonic) on the source's time base
            t_ev = float(getattr(cev, "host_time", 0.0) or 0.0) - self.host_t0 if self.host_t0 is not None else t
            t_ev = min(max(t_ev, 0.0), t) if t_ev > 0 else t
            self.last_clock_ms = self.referee.snapshot(cev) or self.last_clock_ms
            self._write_dict(self.referee.event(cev, t_ev, self.tracker.ply).to_dict())
            for ev in self.referee.on_clock(cev, t_ev, self.tracker.ply):
                self._handle(ev)
        for ev in self.referee.tick(t, self.tracker.ply):
            self._handle(ev)
        self._apply_clock_times()

    def _apply_clock_times(self) -> None:
        if self.referee is None:
            return
        changed = False
        for ply, ms in self.referee.take_assignments():
            i = ply - 1 - self._ply_base
            if 0 <= i < len(self.clocks_ms):
                self.clocks_ms[i] = ms
                changed = True
        if changed:
            self._write_pgn()


def _vision_frame_errors() -> tuple[type[BaseException], ...]:
    """What a reader raises for a frame it cannot read (bad pixels, a numeric corner case, OpenCV
    or onnxruntime refusing an input); other exceptions are bugs and end the run (record kept)."""
    errors: list[type[BaseException]] = [ValueError, RuntimeError, ArithmeticError, IndexError]
    try:
        import cv2
        errors.append(cv2.error)
        from vision.classifier import onnxruntime_errors
        errors.extend(onnxruntime_errors())
    except ImportError:  # pragma: no cover - vision needs OpenCV and onnxruntime anyway
        pass
    return tuple(errors)
