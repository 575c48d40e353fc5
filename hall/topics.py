"""The hall's MQTT topic tree, in one place so stations, hub, ACL and docs cannot drift apart.

    xqtrack/board/<N>/event            QoS 1   one journal line: {"board", "seq", "game", "line"}
                                               (or "damaged": true for a line that does not read)
    xqtrack/board/<N>/state            retained  the board's current state and its last seq
    xqtrack/board/<N>/status           retained  "online" / "offline" (the station's last will)
    xqtrack/board/<N>/evidence/<file>  QoS 1   an evidence file named by an incident line (bytes)
    xqtrack/command/board/<N>          QoS 1   hub -> station: resend, result, ruling

`seq` is the line's number in the station's events.jsonl (1, 2, 3…): the journal is append-only,
so the number never changes and a hub can put lines in order, drop repeats and ask for gaps.
"""
from __future__ import annotations

from dataclasses import dataclass

ROOT = "xqtrack"
EVENT = "event"
STATE = "state"
STATUS = "status"
EVIDENCE = "evidence"

ALL_BOARDS = f"{ROOT}/board/+/#"          # what the hub subscribes to
ALL_COMMANDS = f"{ROOT}/command/board/#"  # what the hub may publish under


def board_prefix(board: int) -> str:
    return f"{ROOT}/board/{check_board(board)}"


def event_topic(board: int) -> str:
    return f"{board_prefix(board)}/{EVENT}"


def state_topic(board: int) -> str:
    return f"{board_prefix(board)}/{STATE}"


def status_topic(board: int) -> str:
    return f"{board_prefix(board)}/{STATUS}"


def evidence_topic(board: int, name: str) -> str:
    if not name or "/" in name or name.startswith(".") or "+" in name or "#" in name:
        raise ValueError(f"evidence file name {name!r} cannot be a topic level")
    return f"{board_prefix(board)}/{EVIDENCE}/{name}"


def command_topic(board: int) -> str:
    return f"{ROOT}/command/board/{check_board(board)}"


def check_board(board: int) -> int:
    """Board numbers are whole numbers from 1 (ValueError otherwise)."""
    if isinstance(board, bool) or not isinstance(board, int) or board < 1:
        raise ValueError(f"board number {board!r} is not a whole number from 1")
    return board


@dataclass(frozen=True)
class BoardTopic:
    """A topic under xqtrack/board/<N>/ taken apart."""

    board: int
    kind: str            # event, state, status, evidence
    name: str = ""       # the evidence file name


def parse_board_topic(topic: str) -> BoardTopic | None:
    """xqtrack/board/7/event -> BoardTopic(7, "event"); None for anything outside the tree."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != ROOT or parts[1] != "board" or not parts[2].isdigit():
        return None
    board = int(parts[2])
    if board < 1:
        return None
    kind = parts[3]
    if kind == EVIDENCE and len(parts) == 5:
        return BoardTopic(board, kind, parts[4])
    if kind in (EVENT, STATE, STATUS) and len(parts) == 4:
        return BoardTopic(board, kind)
    return None
