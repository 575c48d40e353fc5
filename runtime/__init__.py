"""xqtrack runtime: what runs a recording — frames in, files out.

It sits above the pure parts (board, vision, rules, firmware_bridge) and does the I/O they must not:
  sources    FrameSource(spec): video file, camera index or stream URL; SourceError / SourceLost
  recorder   Recorder(out_dir, reader=BoardReader(), clock=ClockLink|None, ...).run(frames)
  folder_lock  hold_folder(dir, command): one recorder per folder (DIR/.xqtrack.lock, flock)
  arbiter_watch  ArbiterWatch(dir).poll(): the arbiter's corrections and results journalled beside a recorder
  journal    Journal(dir).write(event) (flushed + fsync'd), load_game(dir), write_game_pgn (atomic)
  review     write_review(dir) -> DIR/review.html (offline, self-contained)
  evidence   EvidenceStore: before/during/after JPEGs in DIR/evidence/
  console    progress bar (files), live board view (cameras, streams)
"""
