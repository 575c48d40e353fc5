"""An arbiter's decision on an incident, journalled like everything else.

Why through the journal: the journal is the record; a ruling written anywhere else could be
lost, or disagree with what the review and the live pages show. The same function serves
`xqtrack rule` and the served page's token-protected form, so both check the incident exists
and write the same line.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping

DECISIONS: dict[str, str] = {"uphold": "upheld", "upheld": "upheld", "dismiss": "dismissed", "dismissed": "dismissed"}


class RulingError(ValueError):
    """A ruling that cannot be recorded (the message says what and where)."""


@dataclass(frozen=True)
class RulingEvent:
    """A ruling line of the journal, typed both ways like board.events' lines."""

    t: float
    ply: int
    incident: int
    decision: str
    note: str = ""
    by: str = ""
    wall: str | None = None

    type: ClassVar[str] = "ruling"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "ruling", "t": self.t, "ply": self.ply, "incident": self.incident,
                             "decision": self.decision, "note": self.note, "by": self.by}
        if self.wall is not None:
            d["wall"] = self.wall
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "RulingEvent":
        """A ruling line read back (ValueError names the key that is missing or wrong)."""
        try:
            incident = int(d["incident"])
            decision = str(d["decision"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"ruling event: needs an incident number and a decision, got {dict(d)!r}") from None
        if decision not in ("upheld", "dismissed"):
            raise ValueError(f"ruling event: decision {decision!r} is neither 'upheld' nor 'dismissed'")
        return cls(float(d.get("t") or 0.0), int(d.get("ply") or 0), incident, decision, str(d.get("note") or ""),
                   str(d.get("by") or ""), str(d["wall"]) if d.get("wall") is not None else None)


@dataclass(frozen=True)
class Ruling:
    """What an arbiter decided on incident `incident` (its journal id)."""

    incident: int
    decision: str          # "upheld" or "dismissed"
    note: str = ""
    by: str = "cli"        # where it was entered: "cli" or "web"


def parse_decision(text: str) -> str:
    """'uphold'/'dismiss' (or their past tense) -> 'upheld'/'dismissed'; RulingError otherwise."""
    try:
        return DECISIONS[text.strip().lower()]
    except KeyError:
        raise RulingError(f"decision {text!r} is neither 'uphold' nor 'dismiss'") from None


def record_ruling(out_dir: str | os.PathLike[str], ruling: Ruling) -> dict[str, Any]:
    """Append the ruling to DIR/events.jsonl after checking the incident is there; returns the line."""
    from runtime.journal import EVENTS_NAME, Journal, read_events

    from .state import fold

    path = Path(out_dir) / EVENTS_NAME
    if not path.exists():
        raise RulingError(f"{path}: no journal here (expected events.jsonl from `xqtrack record`)")
    events, _ = read_events(path)
    game = fold(events)
    ids = [i.id for i in game.incidents]
    if ruling.incident not in ids:
        known = ", ".join(str(i) for i in ids) or "none"
        raise RulingError(f"{path}: no incident {ruling.incident} in the journal (incidents: {known})")
    if ruling.decision not in ("upheld", "dismissed"):
        raise RulingError(f"decision {ruling.decision!r} is neither 'upheld' nor 'dismissed'")
    line = RulingEvent(game.last_t, len(game.plies), ruling.incident, ruling.decision, ruling.note, ruling.by)
    with Journal(out_dir) as journal:
        return journal.write(line.to_dict())


RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2")


def record_result(out_dir: str | os.PathLike[str], result: str, reason: str = "") -> dict[str, Any]:
    """Journal the arbiter's result (resignation, agreed draw, a flag the clock did not see) as a
    `game_end` line; returns the line plus `pgn`: whether game.pgn was rewritten with it.

    game.pgn is the recorder's while it records (it writes the result its rules see); once the
    recording has ended the PGN is rewritten from the journal here so it carries the result.
    """
    from board.events import GameEndEvent
    from runtime.journal import EVENTS_NAME, Journal, load_game, read_events, write_game_pgn

    from .state import fold

    if result not in RESULTS:
        raise RulingError(f"result {result!r} is not one of {', '.join(RESULTS)}")
    path = Path(out_dir) / EVENTS_NAME
    if not path.exists():
        raise RulingError(f"{path}: no journal here (expected events.jsonl from `xqtrack record`)")
    events, _ = read_events(path)
    game = fold(events)
    why = f"arbiter: {reason.strip()}" if reason.strip() else "arbiter"
    with Journal(out_dir) as journal:
        line = journal.write(GameEndEvent(game.last_t, len(game.plies), result, why).to_dict())
    pgn = "left to the recorder"
    if game.ended:
        rec = load_game(out_dir)
        clocks = rec.clocks_ms if any(c is not None for c in rec.clocks_ms) else None
        write_game_pgn(out_dir, rec.headers, rec.start_fen, rec.moves, clocks, rec.result, rec.notation)
        pgn = "rewritten"
    return {**line, "pgn": pgn}
