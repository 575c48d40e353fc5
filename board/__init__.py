"""xqtrack board part: the tracked game — observations + rules + clock presses → moves, incidents, events.

Pure: no files, frames, sockets or subprocesses. Of vision it knows only the Observation contract
(`vision/observation.py`); the runtime (`runtime/`) feeds it and writes what it reports, the app
(`app/`) wires the command line.

Modules (each one job):
  tracker    Tracker(start=None | Position, start_fen=, moves=, read_start=False).feed(obs) -> [events]
             the state machine quiet → hands → settle; explains each settle by legal moves
  explain    likelihood of candidate boards from reader probabilities; 1..3-ply search
  episode    per-point record of one hands-over-board stretch; fingertip dwells
  incidents  touch_move_other, retouch, between_points, knocked, illegal_move (rules on episodes)
  clockref   clock presses vs moves: clock_no_press, clock_two_moves, clock_press_no_move
  events     MoveEvent, IncidentEvent, TrackingEvent, ClockEvent, GameEndEvent: .to_dict() = one journal
             line, .from_dict(d) / event_from_dict(d) reads one back (typed both ways)

Journal lines (written by runtime/journal.py to DIR/events.jsonl) all carry t (source seconds),
wall (UTC ISO-8601), type, ply:
  move      iccs, side (red|black), notation, fen, frame, score, [inferred], [capture], [clock_ms]
  incident  kind, side, points (ICCS), detail, frames {before, during, after}, evidence {role: path}
  tracking  status: started (fen, headers, notation) | resumed | board_lost | board_found |
            out_of_sync (points, board_shows, expected) | resynced | source_ended | source_error | ...
  clock     kind, side, seq, clock_ms, remaining_ms {red, black}
  game_end  result, reason
"""
