"""Sub-commands of `xqtrack` owned by the board part: `record` and `demo`.

Handlers import the heavy parts (OpenCV, vision) lazily so other
sub-commands start fast.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.commands.hall import add_publish_options, check_publish, start_station, stop_station
from app.commands.live import add_http_option, start_live, stop_live, watch_recorder


def register(subparsers: argparse._SubParsersAction) -> None:
    r = subparsers.add_parser("record", help="record a game from a video file, camera or stream")
    r.add_argument("source", help="video file, camera index (0, 1, ...) or stream URL")
    r.add_argument("--out", required=True, help="output folder (events.jsonl, game.pgn, review.html, evidence/)")
    r.add_argument("--clock", metavar="PORT", help="serial port of the game clock (e.g. /dev/ttyUSB0)")
    r.add_argument("--start-fen", metavar="FEN", help="start from this position instead of the standard one")
    r.add_argument("--allow-impossible", action="store_true",
                   help="accept a --start-fen no game can reach (a study set-up); refused by default")
    r.add_argument("--read-start", action="store_true",
                   help="read the start position from the first quiet frames instead")
    r.add_argument("--resume", action="store_true", help="continue the game recorded in --out")
    r.add_argument("--notation", default="chinese", choices=["chinese", "iccs", "wxf", "yizi"],
                   help="notation of game.pgn (default chinese)")
    r.add_argument("--red", help="red player's name (PGN header)")
    r.add_argument("--black", help="black player's name (PGN header)")
    r.add_argument("--event", help="event name (PGN header)")
    r.add_argument("--rules", default="cn", choices=["cn", "axf"],
                   help="ruleset for repetition rulings (棋例): cn (default) or axf")
    r.add_argument("--quiet", action="store_true", help="no progress bar / live board")
    r.add_argument("--set", metavar="NAME", default=None,
                   help="piece set taught by `xqtrack calibrate pieces` (or learnt here: when NAME is not "
                        "taught yet and the game starts from a known position, the set is learnt from the "
                        "first quiet frame and saved as NAME for the next game)")
    _add_pacing(r)
    add_http_option(r, linger_default=3.0)  # live pages (app/commands/live.py)
    add_publish_options(r)  # hall station: --board N --publish URL (app/commands/hall.py)
    r.set_defaults(func=_record)

    d = subparsers.add_parser("demo", help="record the bundled sample clip and show where the outputs are")
    d.add_argument("--out", help="output folder (default: a new xqtrack-demo-<time> folder here)")
    _add_pacing(d)
    add_http_option(d, linger_default=None)  # live pages (app/commands/live.py)
    d.add_argument("--hall", action="store_true",
                   help="a whole tournament hall on this machine: a broker, a hub on --http (default 8080) and "
                        "two stations recording the bundled clip as boards 1 and 2")
    d.set_defaults(func=_demo)


def _add_pacing(p: argparse.ArgumentParser) -> None:
    p.add_argument("--realtime", action="store_true",
                   help="play a video file at its own pace, like a camera (frames dropped if processing falls behind)")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="with --realtime: X times real time (default 1)")


def _make_reader(live: bool = False, profile=None):
    """The video reader for a file or a live source (vision.config.ReaderConfig.for_source: a live
    source takes the search thread's answers when they are ready, a file at fixed frames)."""
    try:
        from vision import BoardReader
        from vision.config import ReaderConfig
    except ImportError as exc:
        raise RuntimeError(f"the vision stage is not available: {exc}") from None
    return BoardReader(config=ReaderConfig.for_source(live), profile=profile)


# The piece set a recording learnt from its start position, in its --out folder.
LEARNT_SET_FILE = "piece_set.json"
# Without --set, a learnt set is used only when the model alone read fewer of the start
# position's views than this (vision.set_learning.LearnConfig.apply_below). The tracker reads
# through a few misread pieces by itself (a set read right on three views in four still records
# every move); a profile it does not need costs moves and raises false knocks on sets read right
# on over nine views in ten, and a set misread almost everywhere (two views in three) is recorded
# only with one.
LEARN_SET_BELOW = 0.9


def _learning_reader(out: Path, board: str, live: bool, say):
    """A reader that learns this game's piece set from its start position (`board`, 90 chars) and
    keeps it in `out` (LEARNT_SET_FILE) for --resume."""
    from vision.set_learning import LearnConfig, StartSetLearner
    kept = out / LEARNT_SET_FILE

    def red_end() -> None:
        # an end told by red ink alone is worth a look: the pieces hardly told the two apart
        end = getattr(learner.reader, "start_end", None)
        if end is not None and end.by == "red ink":
            say(f"red's end of the board told by the red ink on it: the pieces alone told the two ends "
                f"apart by only {end.margin_nats:.0f} nats (check that the first move is recorded for red)")

    def keep(profile) -> None:
        red_end()
        try:
            profile.save(kept)
        except OSError as exc:
            say(f"piece set learnt from the start position, but it could not be kept in {kept}: {exc}")
            return
        say(f"piece set learnt from the start position (its views read {profile.fit_accuracy_before:.1%} "
            f"plainly, {profile.fit_accuracy_after:.1%} with it); kept in {kept} for --resume, "
            f"--set NAME keeps it for the next game")

    def plain(profile) -> None:
        red_end()
        say(f"piece set checked at the start position: the model reads it well alone "
            f"({profile.fit_accuracy_before:.1%} of its views)")
    learner = StartSetLearner(_make_reader(live), board, "this game's set", on_profile=keep, on_unneeded=plain,
                              config=LearnConfig(apply_below=LEARN_SET_BELOW))
    return learner


def _set_reader(args: argparse.Namespace, live: bool, say):
    """The reader for a recording: with --set NAME the taught set, or one that learns it from
    the start position (vision.set_learning) and saves it as NAME. Without --set, a game that
    starts from a known position checks its set the same way at the first quiet frame and uses
    what it learnt when the model alone misreads the start position (below LEARN_SET_BELOW of its
    views): a set the model knows reads as before, one it never met (two views in three read
    right, most moves lost) is read as itself, every move recorded. A set so learnt is kept
    in the record's folder, and --resume reads with it."""
    from calibration.piece_profile import PieceSetProfile, default_profile_path, load_named_profile
    from rules import Position
    from vision.set_learning import StartSetLearner
    learnable = not (args.resume or args.read_start)
    try:
        board = (Position.from_fen(args.start_fen) if args.start_fen else Position()).points()
    except ValueError:
        if args.set:
            raise
        return _make_reader(live)   # the recorder refuses the FEN with its reason
    if not args.set:
        # kept in the record's folder, so a resumed recording reads the set as the first part did
        kept = Path(args.out) / LEARNT_SET_FILE
        if args.resume and kept.is_file():
            return _make_reader(live, PieceSetProfile.load(kept))
        if args.read_start:
            return _make_reader(live)
        if args.resume:
            # stopped before the set was learnt: learn it now if no move is recorded yet
            from runtime.journal import JournalError, load_game
            try:
                game = load_game(args.out)
                board = Position.from_fen(game.start_fen).points()
            except (JournalError, OSError, ValueError):
                return _make_reader(live)     # the recorder says what is wrong with the record
            if game.moves:
                return _make_reader(live)
        return _learning_reader(Path(args.out), board, live, say)
    path = default_profile_path(args.set)
    if path.is_file():
        return _make_reader(live, load_named_profile(args.set))
    if not learnable:
        raise ValueError(f"--set {args.set!r}: no such set taught yet, and it can only be learnt from a known "
                         f"start position (not with --resume or --read-start); teach it with "
                         f"`xqtrack calibrate pieces PHOTO --name {args.set!r}`")

    def save(profile) -> None:
        profile.save(path)
        say(f"piece set {args.set!r} learnt from the start position, saved to {path}")
    return StartSetLearner(_make_reader(live), board, args.set, on_profile=save)


def _open_source(args: argparse.Namespace, start_s: float = 0.0):
    from runtime.sources import FrameSource, SourcePacing

    if args.speed != 1.0 and not args.realtime:
        raise ValueError("--speed goes with --realtime")
    return FrameSource(args.source if hasattr(args, "source") else args.clip,
                       pacing=SourcePacing(realtime=args.realtime, speed=args.speed), start_s=start_s)


class _StopOnSignals:
    """SIGTERM and SIGHUP (and Ctrl-C) end a recording the way the end of the source does: the
    journal's end event, game.pgn and review.html are written. A second Ctrl-C forces the stop."""

    def __init__(self, recorder) -> None:
        self.recorder = recorder
        self.previous: dict[int, object] = {}

    def __enter__(self) -> "_StopOnSignals":
        import signal
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            try:
                self.previous[sig] = signal.signal(sig, self._handle)
            except (ValueError, OSError):   # not the main thread, or a platform without it
                pass
        return self

    def _handle(self, signum: int, _frame) -> None:
        import signal
        name = signal.Signals(signum).name
        if signum == signal.SIGINT and self.recorder.stop_requested:
            raise KeyboardInterrupt
        self.recorder.request_stop(f"stopped by {name}; everything recorded so far is kept")

    def __exit__(self, *exc: object) -> None:
        import signal
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]


def _open_clock(port: str, out_dir: str | None = None, resume: bool = False):
    """The clock link; when resuming, continue after the last clock event journalled
    (the clock replays what it still holds, nothing twice)."""
    try:
        from firmware_bridge import ClockLink
    except ImportError as exc:
        raise RuntimeError(f"the clock link is not available: {exc}") from None
    resume_after: int | None = None
    resume_boot_id: int | None = None
    if resume and out_dir:
        from board.events import ClockEvent
        from runtime.journal import EVENTS_NAME, read_events
        path = Path(out_dir) / EVENTS_NAME
        if path.exists():
            events, _ = read_events(path)
            last = [c for c in (ClockEvent.from_dict(e) for e in events if e.get("type") == "clock")
                    if c.seq is not None]
            if last:
                resume_after, resume_boot_id = last[-1].seq, last[-1].boot_id
    return ClockLink(port, resume_after=resume_after, resume_boot_id=resume_boot_id)


def _record(args: argparse.Namespace) -> int:
    """`xqtrack record`: the arguments checked, then the recording made with its folder held."""
    if args.start_fen and args.resume:
        raise ValueError("--start-fen and --resume cannot be used together (the journal holds the position)")
    if args.start_fen:
        from rules import position_from_fen
        # FenError says what is wrong (or impossible) before anything opens
        position_from_fen(args.start_fen, args.allow_impossible, what="--start-fen")
    from runtime.folder_lock import hold_folder

    # one recorder per folder, from before anything is written (or the resume point read) to the end
    with hold_folder(args.out, "record --resume" if args.resume else "record"):
        return _record_held(args)


def _record_held(args: argparse.Namespace) -> int:
    """`record` with its folder held (runtime.folder_lock)."""
    from runtime.console import LiveView, ProgressBar
    from runtime.recorder import Recorder, resume_point

    start_s = resume_point(args.out) if args.resume and not _is_live_spec(args.source) else 0.0
    source = _open_source(args, start_s)
    clock = _open_clock(args.clock, args.out, args.resume) if args.clock else None
    headers = {k: v for k, v in (("Red", args.red), ("Black", args.black), ("Event", args.event)) if v}
    progress = live = None
    bar = None
    if not args.quiet:
        if source.live:
            view = LiveView()
            live = view.show
        else:
            bar = ProgressBar(source.frame_count, source.fps)
            progress = bar.update

    def say(line: str) -> None:
        if bar is not None:
            bar.clear()
        print(line, flush=True)

    from board.tracker import TrackerConfig

    check_publish(args)  # a bad --publish URL is one line before anything is written
    server = start_live(args, args.out)  # bound before anything is written: a port in use stops here
    rec = Recorder(args.out, start_fen=args.start_fen, read_start=args.read_start, resume=args.resume,
                   clock=clock, notation=args.notation, reader=_set_reader(args, source.paced, say), headers=headers,
                   on_line=say,
                   config=TrackerConfig(repetition_rules=args.rules))
    watch_recorder(server, rec)
    station = start_station(args, args.out)  # hall: publishes the journal as it grows
    try:
        with _StopOnSignals(rec):
            summary = rec.run(source, progress=progress, live_view=live)
    finally:
        source.close()
        if clock is not None and hasattr(clock, "close"):
            clock.close()
        stop_station(station)
    if bar is not None:
        bar.clear()
    _report(summary, source)
    stop_live(server, args)
    return 0 if summary.ended in ("end_of_source", "interrupted") else 1


def _report(summary, source=None) -> None:
    notes = sum(1 for e in summary.events if e.get("type") == "review_note")
    said = f", {notes} review note{'s' if notes != 1 else ''} (weak evidence, no accusation)" if notes else ""
    print(f"{len(summary.moves)} moves, {len(summary.incidents)} incidents{said}; "
          f"{summary.video_s:.1f} s of video in {summary.wall_s:.1f} s ({summary.speed:.1f}x real time)",
          file=sys.stderr)
    if summary.frames_dropped:
        print(f"note: {summary.frames_dropped} frames dropped (processing fell behind the source)", file=sys.stderr)
    if source is not None and getattr(source, "ended_early", False):
        print("warning: the video ended before its announced length (truncated file?); "
              "everything up to there is recorded", file=sys.stderr)
    if summary.ended not in ("end_of_source",):
        print(f"xqtrack record: {summary.message}", file=sys.stderr)
    if summary.out_of_sync:
        print("warning: the tracker ended out of sync with the board; see events.jsonl / review.html",
              file=sys.stderr)
    print(f"outputs in {summary.out_dir}/: game.pgn, events.jsonl, review.html, evidence/", file=sys.stderr)


def sample_clip() -> Path:
    """The bundled sample clip (made by the sim part's script, shipped in sim/samples/)."""
    import sim
    base = Path(sim.__file__).resolve().parent / "samples"
    for pattern in ("demo*.mp4", "*.mp4", "*/clip.mp4", "*.avi", "*.mkv"):
        hits = sorted(base.glob(pattern))
        if hits:
            return hits[0]
    raise FileNotFoundError(f"no sample clip in {base} (the sim part ships it there)")


def _demo(args: argparse.Namespace) -> int:
    """`xqtrack demo`: the bundled clip recorded (its truth, when shipped, gives the start and the score)."""
    import json

    if getattr(args, "hall", False):
        from app.commands.hall import run_hall_demo
        return run_hall_demo(args)

    clip = sample_clip()
    out = Path(args.out) if args.out else Path.cwd() / time.strftime("xqtrack-demo-%Y%m%d-%H%M%S")
    truth_path = clip.with_name("truth.json") if clip.name == "clip.mp4" else clip.with_suffix(".json")
    truth = None
    if truth_path.exists():
        try:
            truth = json.loads(truth_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            truth = None
    start_fen = None
    if truth is not None:
        placement = (truth.get("start_fen") or (truth.get("spec") or {}).get("start_fen") or "").split()
        if placement:
            side = placement[1] if len(placement) > 1 else (truth.get("moves") or [{}])[0].get("side", "w")
            start_fen = f"{placement[0]} {side} - - 0 1"
    from runtime.folder_lock import hold_folder

    with hold_folder(out, "demo"):   # one recorder per folder, as `record`
        return _demo_held(args, clip, out, truth, start_fen)


def _demo_held(args: argparse.Namespace, clip: Path, out: Path, truth: dict | None, start_fen: str | None) -> int:
    """`xqtrack demo` with its folder held (runtime.folder_lock)."""
    from runtime.recorder import Recorder

    print(f"xqtrack demo: recording {clip}")
    print(f"writing to {out}/\n")
    args.clip = str(clip)
    source = _open_source(args)
    server = start_live(args, out)
    from rules import Position
    board = (Position.from_fen(start_fen) if start_fen else Position()).points()
    reader = _learning_reader(out, board, source.paced, lambda line: print(line, flush=True))
    rec = Recorder(out, start_fen=start_fen, reader=reader, on_line=lambda s: print(s, flush=True),
                   headers={"Event": "xqtrack demo", "Site": str(clip.name)})
    watch_recorder(server, rec)
    try:
        with _StopOnSignals(rec):
            summary = rec.run(source)
    finally:
        source.close()
    print()
    print(f"{len(summary.moves)} moves and {len(summary.incidents)} incidents found in {summary.video_s:.1f} s "
          f"of video ({summary.speed:.1f}x real time).")
    if truth is not None and truth.get("moves"):
        expected = [m["iccs"] for m in truth["moves"]]
        same = sum(1 for a, b in zip(summary.moves, expected) if a == b)
        ok = summary.moves == expected
        print(f"Compared with the clip's ground truth: {same}/{len(expected)} moves right"
              + (" — all correct." if ok else "."))
        planted = [i for i in truth.get("incidents", []) if i.get("kind") != "arm_pass"]
        if planted:
            def hit(i):
                return any(f["kind"] == i["kind"] and set(f.get("points") or []) & set(i.get("points") or [])
                           for f in summary.incidents)
            found = sum(1 for i in planted if hit(i))
            print(f"Planted incidents reported: {found}/{len(planted)} "
                  f"({', '.join(i['kind'] + '@' + str(i['ply']) for i in planted if not hit(i)) or 'none missed'}"
                  + (" missed)" if found < len(planted) else ")"))
    if summary.ended != "end_of_source":
        print(f"note: {summary.message}")
    print(f"\nLook at:\n  {out / 'game.pgn'}      the game record (Chinese notation)\n"
          f"  {out / 'review.html'}   the arbiter's review, open it in a browser\n"
          f"  {out / 'events.jsonl'}  the journal, one event per line")
    stop_live(server, args)
    return 0 if summary.ended == "end_of_source" else 1


def _is_live_spec(spec: str) -> bool:
    """A camera index or a stream URL (anything but a file)."""
    return spec.strip().isdigit() or ("://" in spec and not spec.startswith("file://"))
