"""The round being played: event, round, date, site, time control and who sits at which board.

Why three formats: organisers write a small TOML or JSON by hand, and pairing software exports
CSV; all three become the same `Tournament`, whose only job is to give each board's game its
PGN headers (Event, Round, Board, Red, Black, ratings, teams). Pure: reading the file is the
caller's `load_tournament`, parsing is `parse_tournament` on text.
"""
from __future__ import annotations

import csv
import io
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TournamentError(ValueError):
    """A tournament file that cannot be used (the message names the file and the place)."""


@dataclass(frozen=True)
class Pairing:
    """Who plays at one board."""

    board: int
    red: str = ""
    black: str = ""
    red_rating: str = ""
    black_rating: str = ""
    red_team: str = ""
    black_team: str = ""


@dataclass(frozen=True)
class Tournament:
    """One round of an event."""

    event: str = ""
    round: str = ""
    date: str = ""           # PGN style YYYY.MM.DD
    site: str = ""
    time_control: str = ""   # PGN TimeControl, e.g. 5400+30
    boards: dict[int, Pairing] = field(default_factory=dict)

    def headers(self, board: int) -> dict[str, str]:
        """The PGN headers this file gives board `board`'s game (empty values left out)."""
        p = self.boards.get(board, Pairing(board))
        pairs = (("Event", self.event), ("Site", self.site), ("Date", self.date), ("Round", self.round),
                 ("Board", str(board)), ("Red", p.red), ("Black", p.black), ("RedElo", p.red_rating),
                 ("BlackElo", p.black_rating), ("RedTeam", p.red_team), ("BlackTeam", p.black_team),
                 ("TimeControl", self.time_control))
        return {k: v for k, v in pairs if v}


# Column names pairing programs use, folded to ours (lower case, spaces and dashes as _).
_ALIASES: dict[str, str] = {
    "board": "board", "bd": "board", "table": "board", "board_no": "board", "no": "board",
    "red": "red", "red_player": "red", "white": "red", "player1": "red", "home": "red",
    "black": "black", "black_player": "black", "player2": "black", "away": "black",
    "red_rating": "red_rating", "red_elo": "red_rating", "redelo": "red_rating", "white_rating": "red_rating",
    "rating1": "red_rating", "black_rating": "black_rating", "black_elo": "black_rating",
    "blackelo": "black_rating", "rating2": "black_rating",
    "red_team": "red_team", "redteam": "red_team", "team1": "red_team", "white_team": "red_team",
    "black_team": "black_team", "blackteam": "black_team", "team2": "black_team",
    "event": "event", "tournament": "event", "round": "round", "rd": "round", "date": "date",
    "site": "site", "venue": "site", "time_control": "time_control", "timecontrol": "time_control",
}
_EVENT_KEYS = ("event", "round", "date", "site", "time_control")
_PAIR_KEYS = ("red", "black", "red_rating", "black_rating", "red_team", "black_team")


def _key(name: str) -> str:
    k = name.strip().lower().replace(" ", "_").replace("-", "_")
    return _ALIASES.get(k, k)


def _text(v: Any) -> str:
    return "" if v is None else str(v).strip()


def _date(v: Any) -> str:
    text = _text(v)
    return text.replace("-", ".") if len(text) == 10 and text[4] in "-." and text[7] in "-." else text


def _board_no(v: Any, where: str) -> int:
    try:
        n = int(str(v).strip())
    except (TypeError, ValueError):
        raise TournamentError(f"{where}: board {v!r} is not a number") from None
    if n < 1:
        raise TournamentError(f"{where}: board {n} is not a number from 1")
    return n


def _from_mapping(data: Any, where: str) -> Tournament:
    if not isinstance(data, dict):
        raise TournamentError(f"{where}: the top level must be a table / object")
    top = {_key(k): v for k, v in data.items()}
    rows = top.get("boards", top.get("pairings", []))
    if isinstance(rows, dict):   # TOML [boards.1] tables, or JSON {"1": {...}}
        rows = [{**(v if isinstance(v, dict) else {}), "board": k} for k, v in rows.items()]
    if not isinstance(rows, list):
        raise TournamentError(f"{where}: 'boards' must be a list of pairings")
    return _build(top, rows, where)


def _build(top: dict[str, Any], rows: list[Any], where: str) -> Tournament:
    boards: dict[int, Pairing] = {}
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise TournamentError(f"{where}: pairing {i} is not a table / object")
        r = {_key(k): v for k, v in row.items()}
        if "board" not in r:
            raise TournamentError(f"{where}: pairing {i} has no board number")
        n = _board_no(r["board"], f"{where}: pairing {i}")
        if n in boards:
            raise TournamentError(f"{where}: board {n} is paired twice (pairing {i})")
        boards[n] = Pairing(n, *(_text(r.get(k)) for k in _PAIR_KEYS))
    return Tournament(_text(top.get("event")), _text(top.get("round")), _date(top.get("date")),
                      _text(top.get("site")), _text(top.get("time_control")), boards)


def _from_csv(text: str, where: str) -> Tournament:
    sample = text[:4096]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    if not reader.fieldnames or "board" not in [_key(f) for f in reader.fieldnames]:
        raise TournamentError(f"{where}: a pairing CSV needs a header row with a board column "
                              f"(board, red, black, red_rating, black_rating, red_team, black_team)")
    rows = [dict(r) for r in reader if any(_text(v) for v in r.values())]
    top: dict[str, Any] = {}
    for r in rows:                      # event columns, when the export repeats them per row
        for k, v in r.items():
            if k is not None and _key(k) in _EVENT_KEYS and _text(v) and _key(k) not in top:
                top[_key(k)] = v
    return _build(top, rows, where)


def parse_tournament(text: str, kind: str, where: str = "tournament file") -> Tournament:
    """Parse tournament text of kind 'toml', 'json' or 'csv'."""
    if kind == "toml":
        try:
            return _from_mapping(tomllib.loads(text), where)
        except tomllib.TOMLDecodeError as exc:
            raise TournamentError(f"{where}: not valid TOML: {exc}") from None
    if kind == "json":
        try:
            return _from_mapping(json.loads(text), where)
        except json.JSONDecodeError as exc:
            raise TournamentError(f"{where}: not valid JSON: line {exc.lineno}: {exc.msg}") from None
    if kind == "csv":
        return _from_csv(text, where)
    raise TournamentError(f"{where}: unknown tournament file kind {kind!r} (toml, json, csv)")


def load_tournament(path: str | Path) -> Tournament:
    """Read a tournament file; its kind comes from the extension (.toml, .json, .csv)."""
    p = Path(path)
    kind = p.suffix.lower().lstrip(".")
    if kind not in ("toml", "json", "csv"):
        raise TournamentError(f"{p}: a tournament file ends in .toml, .json or .csv")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise TournamentError(f"{p}: cannot read it: {exc.strerror or exc}") from None
    for enc in ("utf-8-sig", "gb18030"):   # Chinese pairing software may still export GBK
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise TournamentError(f"{p}: neither UTF-8 nor GBK text")
    return parse_tournament(text, kind, str(p))
