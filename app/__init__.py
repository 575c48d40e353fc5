"""xqtrack app: the one `xqtrack` command (`app/cli.py`) and its sub-commands (`app/commands/`).

Each module under `app/commands/` registers the sub-commands of one part (record/demo, rules, sim,
vision, calibration, clock) and imports that part's heavy modules only inside its handlers, so
`xqtrack perft` starts fast. This is the only layer that wires parts together.
"""
