"""Parse time controls written the way arbiters say them, e.g. ``60m+30s`` or ``90m/40,15m/10``.

Grammar (whitespace separates options after the stages):
  STAGES   := STAGE ("," STAGE)*          STAGE := DURATION ["/" MOVES]
  options  := "+"DURATION (Fischer increment) | "delay="DURATION (simple delay)
            | "bronstein="DURATION | "byo="DURATION["*"PERIODS] (读秒) | "nocarry"
  DURATION := e.g. 90m, 1h30m, 30s, 500ms, 1m30s
Examples: ``15m`` (sudden death), ``60m+30s``, ``90m/40,15m/10``, ``20m byo=30s*3``,
``5m delay=3s``, ``5m bronstein=3s``.
"""
from __future__ import annotations

import re

from .codec import DelayMode, Stage, TimeControl

_DUR = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")


def parse_duration_ms(text: str) -> int:
    """'1h30m' -> 5400000. Units are required so '90' is never misread as seconds or minutes."""
    pos, total = 0, 0.0
    scale = {"h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}
    for m in _DUR.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * scale[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"bad duration {text!r}: write it with units, e.g. 90m, 30s, 1h30m, 500ms")
    return int(round(total))


def parse_time_control(spec: str) -> TimeControl:
    parts = spec.split()
    if not parts:
        raise ValueError("empty time control")
    head = parts[0]
    increment = 0
    if "+" in head:
        head, inc = head.split("+", 1)
        increment = parse_duration_ms(inc)
    stages = []
    for item in head.split(","):
        if "/" in item:
            t, n = item.split("/", 1)
            if not n.isdigit() or int(n) <= 0:
                raise ValueError(f"bad move count {n!r} in stage {item!r}")
            stages.append(Stage(parse_duration_ms(t), int(n)))
        else:
            stages.append(Stage(parse_duration_ms(item), 0))
    delay, mode, byo, byo_n, carry = 0, DelayMode.NONE, 0, 0, True
    for opt in parts[1:]:
        if opt.startswith("+"):
            increment = parse_duration_ms(opt[1:])
        elif opt.startswith("delay="):
            delay, mode = parse_duration_ms(opt[6:]), DelayMode.SIMPLE
        elif opt.startswith("bronstein="):
            delay, mode = parse_duration_ms(opt[10:]), DelayMode.BRONSTEIN
        elif opt.startswith("byo="):
            value = opt[4:]
            count = "1"
            if "*" in value:
                value, count = value.split("*", 1)
            if not count.isdigit() or not 1 <= int(count) <= 255:
                raise ValueError(f"bad byo-yomi period count {count!r} in {opt!r}")
            byo, byo_n = parse_duration_ms(value), int(count)
        elif opt == "nocarry":
            carry = False
        else:
            raise ValueError(f"unknown time-control option {opt!r} in {spec!r}")
    tc = TimeControl(tuple(stages), increment, delay, mode, byo, byo_n, carry)
    tc.validate()
    return tc
