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
from typing import Any

DECISIONS: dict[str, str] = {"uphold": "upheld", "upheld": "upheld", "dismiss": "dismissed", "dismissed": "dismissed"}


class RulingError(ValueError):
    """A ruling that cannot be recorded (the message says what and where)."""


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
    with Journal(out_dir) as journal:
        return journal.write({"type": "ruling", "t": game.last_t, "ply": len(game.plies),
                              "incident": ruling.incident, "decision": ruling.decision,
                              "note": ruling.note, "by": ruling.by})
