"""xqtrack board part: the tracked game — observations + rules + clock presses → moves, incidents, events.

Pure: no files, frames, sockets or subprocesses. Of vision it knows only the Observation contract
(`vision/observation.py`); the runtime (`runtime/`) feeds it and writes what it reports, the app
(`app/`) wires the command line.

Modules (each one job):
  tracker    Tracker(start=None | Position, start_fen=, moves=, read_start=False).feed(obs) -> [events]
             the state machine quiet → hands → settle that connects the parts below
  window     SettleWindow: the frames since the last change and when they count as settled
  record     GameRecord: position, moves, their times, repetition counts (play / take_back)
  settle     the settle chain: EXPLAINERS tried in order, each a SettleOutcome or None
  corrector  find_correction / find_rewind: recorded plies the board shows were wrong (Correction)
  sync       SyncState (in_sync | out_of_sync | illegal), Phase, SettleKind
  explain    likelihood of candidate boards from reader probabilities; 1..3-ply search
  episode    per-point record of one hands-over-board stretch; fingertip dwells; CameraWatch (a bump's
             hand flags are no hand)
  incidents  RULES in order: retouch, confirm_faded_knocks, knocked, touch_move, between_points;
             IncidentTracker applies them and builds knocked / between_points / illegal_move for the tracker;
             void_after_correction: the incidents a correction retracts
  clockref   clock presses vs moves: clock_no_press, clock_two_moves, clock_press_no_move
  events     MoveEvent, IncidentEvent, IncidentRetracted, TrackingEvent, ClockEvent, GameEndEvent,
             ArbiterCorrection: .to_dict() = one journal line, .from_dict(d) / event_from_dict(d) reads one back
  arbiter    arbiter_line(start_fen, recorded, from_ply, texts): an arbiter's correction checked legal
             (any notation), ArbiterLineError naming the ply and the move that is not

Journal lines (written by runtime/journal.py to DIR/events.jsonl) all carry t (source seconds),
wall (UTC ISO-8601), type, ply:
  move      iccs, side (red|black), notation, fen, frame, score, [inferred], [capture], [clock_ms]
  incident  kind, side, points (ICCS), detail, frames {before, during, after}, evidence {role: path}
  incident_retracted  incident (its id), kind, incident_ply, points, reason: a correction voided it
  tracking  status: started (fen, headers, notation) | resumed | board_lost | board_found |
            out_of_sync (points, board_shows, expected) | resynced | source_ended | source_error | ...
  clock     kind, side, seq, boot_id, clock_ms, remaining_ms {red, black}
  game_end  result, reason; an arbiter's also by, note, revision, [revises], [command]
  arbiter_correction  from_ply, moves, was, by, note, fen: the record from from_ply is the arbiter's
  (a move after an arbiter's result carries post_game: true and is not part of the game)
"""
