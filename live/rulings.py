"""An arbiter's decisions, journalled like everything else: rulings on incidents, results, and
corrections of the record.

Why through the journal: the journal is the record; a ruling written anywhere else could be
lost, or disagree with what the review and the live pages show. The same functions serve
the command line (`xqtrack rule`, `result`, `correct`), the served pages' token-protected forms
and the hall station journalling the console's commands, so every door checks the same things
and writes the same lines:
- a ruling or a result may be revised, never silently replaced: a second one must say which it
  revises (`revises`, the standing revision's number; `--revise` on the command line), each is
  its own line with its `revision` (1, 2, 3...), the latest stands and the review shows them all;
- a correction's moves are checked legal by the rules engine (board.arbiter) and the error names
  the move and the ply that do not follow;
- after each line, review.html is rebuilt, and game.pgn too unless a recorder runs on the folder
  (it takes the line up from the journal and rewrites the PGN from its own game).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

if TYPE_CHECKING:
    from .state import LiveGame

DECISIONS: dict[str, str] = {"uphold": "upheld", "upheld": "upheld", "dismiss": "dismissed", "dismissed": "dismissed"}
NOTE_MAX = 500          # characters of an arbiter's note or reason
NAME_MAX = 80           # characters of the arbiter's name (`by`)


class RulingError(ValueError):
    """A ruling that cannot be recorded (the message says what and where)."""


@dataclass(frozen=True)
class RulingEvent:
    """A ruling line of the journal, typed both ways like board.events' lines.

    `revision` is 1, 2, 3... for the rulings on this incident; `revises` the revision a later one
    replaces (None on the first). Lines from before revisions were written read with None."""

    t: float
    ply: int
    incident: int
    decision: str
    note: str = ""
    by: str = ""
    wall: str | None = None
    revision: int | None = None
    revises: int | None = None

    type: ClassVar[str] = "ruling"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "ruling", "t": self.t, "ply": self.ply, "incident": self.incident,
                             "decision": self.decision, "note": self.note, "by": self.by}
        if self.revision is not None:
            d["revision"] = self.revision
        if self.revises is not None:
            d["revises"] = self.revises
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
                   str(d.get("by") or ""), str(d["wall"]) if d.get("wall") is not None else None,
                   _count(d.get("revision")), _count(d.get("revises")))


def _count(v: Any) -> int | None:
    """A revision number as written (a whole number from 1), None for anything else."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else None


@dataclass(frozen=True)
class Ruling:
    """What an arbiter decided on incident `incident` (its journal id).

    `revises`: the standing ruling's revision this one replaces (the page sends the number it
    showed, so two arbiters revising at once cannot overwrite each other unseen); `revise`: the
    command line's `--revise`, which revises whatever stands."""

    incident: int
    decision: str          # "upheld" or "dismissed"
    note: str = ""
    by: str = "cli"        # who or where it was entered: "cli", "web", "arbiter" (the hall), a name
    revises: int | None = None
    revise: bool = False


def parse_decision(text: str) -> str:
    """'uphold'/'dismiss' (or their past tense) -> 'upheld'/'dismissed'; RulingError otherwise."""
    try:
        return DECISIONS[text.strip().lower()]
    except KeyError:
        raise RulingError(f"decision {text!r} is neither 'uphold' nor 'dismiss'") from None


def parse_revises(value: Any) -> int | None:
    """The `revises` of a request body: absent/null -> None, else a revision number (RulingError)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not str(value).strip().isdigit() or int(str(value)) < 1:
        raise RulingError(f"revises {value!r} is not a revision number (1, 2, 3...)")
    return int(str(value))


def _check_text(what: str, text: str, limit: int = NOTE_MAX) -> str:
    text = str(text or "").strip()
    if len(text) > limit:
        raise RulingError(f"{what} is longer than {limit} characters")
    return text


def _revision(kind: str, standing: int | None, shown: str, revises: int | None, revise: bool) -> int | None:
    """The revision a new entry replaces (None: the first), or RulingError when it does not say so
    rightly: a second entry must revise the standing one, and name it when it names one."""
    if standing is None:
        if revises is not None:
            raise RulingError(f"{kind}: there is nothing to revise yet (no revision {revises})")
        return None
    if revises is None and not revise:
        raise RulingError(f"{kind}: {shown} stands already (revision {standing}); to change it, revise it "
                          f"(--revise on the command line, the revise button on the pages)")
    if revises is not None and revises != standing:
        raise RulingError(f"{kind}: revision {revises} is not the one standing (revision {standing}: {shown}); "
                          f"look again before revising")
    return standing


# ---------------------------------------------------------------------- the lines, checked against the game
def ruling_line(game: "LiveGame", ruling: Ruling) -> dict[str, Any]:
    """The `ruling` line for `ruling` on the folded `game` (RulingError when it cannot be made)."""
    ids = [i.id for i in game.incidents]
    if ruling.incident not in ids:
        known = ", ".join(str(i) for i in ids) or "none"
        raise RulingError(f"no incident {ruling.incident} in the journal (incidents: {known})")
    if ruling.decision not in ("upheld", "dismissed"):
        raise RulingError(f"decision {ruling.decision!r} is neither 'upheld' nor 'dismissed'")
    inc = next(i for i in game.incidents if i.id == ruling.incident)
    standing = int(inc.rulings[-1]["revision"]) if inc.rulings else None
    shown = f"the ruling {inc.rulings[-1]['decision']}" if inc.rulings else ""
    revises = _revision(f"incident {ruling.incident}", standing, shown, ruling.revises, ruling.revise)
    line = RulingEvent(game.last_t, len(game.plies), ruling.incident, ruling.decision,
                       _check_text("the note", ruling.note), _check_text("the name", ruling.by, NAME_MAX),
                       revision=(standing or 0) + 1, revises=revises)
    return line.to_dict()


RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2")


def result_line(game: "LiveGame", result: str, reason: str, *, by: str, note: str = "",
                revises: int | None = None, revise: bool = False) -> dict[str, Any]:
    """The `game_end` line of an arbiter's result on the folded `game` (RulingError when it cannot be).

    The result counts at the ply the game stands at; moves the board shows after it are post-game.
    A result standing already (the arbiter's, or the recorder's checkmate) must be revised, not
    replaced: the line says `revises` and carries its own `revision`."""
    from board.events import GameEndEvent

    if result not in RESULTS:
        raise RulingError(f"result {result!r} is not one of {', '.join(RESULTS)}")
    standing = int(game.results[-1]["revision"]) if game.results else None
    shown = f"the result {game.results[-1]['result']} ({game.results[-1]['reason']})" if game.results else ""
    revised = _revision("the result", standing, shown, revises, revise)
    extra: dict[str, Any] = {"by": _check_text("the name", by, NAME_MAX), "note": _check_text("the note", note),
                             "revision": (standing or 0) + 1}
    if revised is not None:
        extra["revises"] = revised
    return GameEndEvent(game.last_t, len(game.plies), result, _check_text("the reason", reason), extra).to_dict()


def correction_line(game: "LiveGame", from_ply: int, moves: list[str], *, by: str, note: str = "") -> dict[str, Any]:
    """The `arbiter_correction` line replacing the record from `from_ply` by `moves` (any notation,
    each checked legal where it is played: RulingError names the ply and the move that is not)."""
    from board.arbiter import ArbiterLineError, arbiter_line
    from board.events import ArbiterCorrection
    from rules import START_FEN

    try:
        line = arbiter_line(game.start_fen or START_FEN, game.moves, from_ply, [m for m in moves if m.strip()])
    except ArbiterLineError as exc:
        raise RulingError(str(exc)) from None
    return ArbiterCorrection(game.last_t, line.plies, line.from_ply, [m.iccs() for m in line.moves],
                             [m.iccs() for m in line.was], _check_text("the name", by, NAME_MAX) or "arbiter",
                             _check_text("the note", note), line.fen).to_dict()


# ---------------------------------------------------------------------- writing them beside the recording
def _game(out_dir: str | os.PathLike[str]) -> "LiveGame":
    from runtime.journal import EVENTS_NAME, read_events

    from .state import fold

    path = Path(out_dir) / EVENTS_NAME
    if not path.exists():
        raise RulingError(f"{path}: no journal here (expected events.jsonl from `xqtrack record`)")
    events, _ = read_events(path)
    return fold(events)


def _journal(out_dir: str | os.PathLike[str], line: dict[str, Any]) -> dict[str, Any]:
    from runtime.journal import DiskBudget, Journal

    with Journal(out_dir, DiskBudget(reserve_bytes=0)) as journal:   # the recorder keeps the reserve
        return journal.write(line)


def after_change(out_dir: str | os.PathLike[str]) -> dict[str, str]:
    """Rebuild what follows from the journal once an arbiter's line is in it: review.html always,
    game.pgn unless a recorder runs on the folder (it rewrites the PGN when it takes the line up).
    Returns what was done with each ({"review": ..., "pgn": ...}); a failure is said, not raised:
    the line is journalled, and the files can be rebuilt from it later."""
    from runtime.folder_lock import recorder_running
    from runtime.journal import JournalError, load_game, write_game_pgn
    from runtime.review import write_review

    done: dict[str, str] = {}
    if recorder_running(out_dir):
        done["pgn"] = "left to the recorder"
    else:
        try:
            rec = load_game(out_dir)
            clocks = rec.clocks_ms if any(c is not None for c in rec.clocks_ms) else None
            write_game_pgn(out_dir, rec.headers, rec.start_fen, rec.moves, clocks, rec.result, rec.notation)
            done["pgn"] = "rewritten"
        except (JournalError, OSError, ValueError) as exc:
            done["pgn"] = f"not rewritten: {exc}"
    try:
        write_review(Path(out_dir))
        done["review"] = "rewritten"
    except (JournalError, OSError, ValueError) as exc:
        done["review"] = f"not rewritten: {exc}"
    return done


def record_ruling(out_dir: str | os.PathLike[str], ruling: Ruling) -> dict[str, Any]:
    """Append the ruling to DIR/events.jsonl after checking the incident is there (and, on a
    second ruling, that it revises the standing one); returns the line plus `review`/`pgn`."""
    path = Path(out_dir)
    game = _game(path)
    try:
        line = ruling_line(game, ruling)
    except RulingError as exc:
        raise RulingError(f"{path}: {exc}") from None
    written = _journal(path, line)
    return {**written, **after_change(path)}


def record_result(out_dir: str | os.PathLike[str], result: str, reason: str = "", *, by: str = "web",
                  note: str = "", revises: int | None = None, revise: bool = False) -> dict[str, Any]:
    """Journal the arbiter's result (resignation, agreed draw, a flag the clock did not see) as a
    `game_end` line; returns the line plus `pgn` and `review`: what was done with each file.

    The reason is written "arbiter: ..." as the pages show it. A result standing already must be
    revised (`revises` its revision, or `revise`), never silently replaced."""
    why = f"arbiter: {reason.strip()}" if reason.strip() else "arbiter"
    line = result_line(_game(out_dir), result, why, by=by, note=note, revises=revises, revise=revise)
    written = _journal(out_dir, line)
    return {**written, **after_change(out_dir)}


def record_correction(out_dir: str | os.PathLike[str], from_ply: int, moves: list[str], *, by: str,
                      note: str = "") -> dict[str, Any]:
    """Journal an arbiter's correction: the record from ply `from_ply` is `moves` (ICCS, WXF or
    Chinese, checked legal); returns the line plus `pgn` and `review`."""
    line = correction_line(_game(out_dir), from_ply, moves, by=by, note=note)
    written = _journal(out_dir, line)
    return {**written, **after_change(out_dir)}
