"""xqtrack board part: the tracked game — observations + rules + clock → moves, incidents, records.

Modules (each one job):
  tracker    Tracker(start=None | Position, start_fen=, moves=, read_start=False).feed(obs) -> [events]
             the state machine quiet → hands → settle; explains each settle by legal moves
  explain    likelihood of candidate boards from reader probabilities; 1..3-ply search
  episode    per-point record of one hands-over-board stretch; fingertip dwells
  incidents  touch_move_other, retouch, between_points, knocked, illegal_move (rules on episodes)
  clockref   clock presses vs moves: clock_no_press, clock_two_moves, clock_press_no_move
  events     MoveEvent, IncidentEvent, TrackingEvent (.to_dict() = one journal line)
  journal    Journal(dir).write(event) (flushed + fsync'd), load_game(dir), write_game_pgn (atomic)
  review     write_review(dir) -> DIR/review.html (offline, self-contained)
  evidence   EvidenceStore: before/during/after JPEGs in DIR/evidence/
  sources    FrameSource(spec): video file, camera index or stream URL; SourceError / SourceLost
  recorder   Recorder(out_dir, reader=BoardReader(), clock=ClockLink|None, ...).run(frames)
  synth      observations(frames_truth, NoiseProfile) — readings from sim truth (tests, bench)
  console    progress bar (files), live board view (cameras, streams)
  commands   `xqtrack record SOURCE --out DIR [--clock PORT] [--start-fen FEN | --read-start] [--resume]`
             and `xqtrack demo [--out DIR]`

Journal lines (DIR/events.jsonl) all carry t (source seconds), wall (UTC ISO-8601), type, ply:
  move      iccs, side (red|black), notation, fen, frame, score, [inferred], [capture], [clock_ms]
  incident  kind, side, points (ICCS), detail, frames {before, during, after}, evidence {role: path}
  tracking  status: started (fen, headers, notation) | resumed | board_lost | board_found |
            out_of_sync (points, board_shows, expected) | resynced | source_ended | source_error | ...
  clock     kind, side, seq, clock_ms, remaining_ms {red, black}
  game_end  result, reason
"""
