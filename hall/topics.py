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

import re
from dataclasses import dataclass

ROOT = "xqtrack"
EVENT = "event"
STATE = "state"
STATUS = "status"
EVIDENCE = "evidence"

ALL_BOARDS = f"{ROOT}/board/+/#"          # what the hub subscribes to
ALL_COMMANDS = f"{ROOT}/command/board/#"  # what the hub may publish under

MAX_BOARD_DIGITS = 9                      # a topic's board number is at most this long
MAX_EVIDENCE_NAME = 120                   # characters of an evidence file name
EVIDENCE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webm", ".json")   # what runtime/evidence.py writes
_EVIDENCE_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def board_prefix(board: int) -> str:
    return f"{ROOT}/board/{check_board(board)}"


def event_topic(board: int) -> str:
    return f"{board_prefix(board)}/{EVENT}"


def state_topic(board: int) -> str:
    return f"{board_prefix(board)}/{STATE}"


def status_topic(board: int) -> str:
    return f"{board_prefix(board)}/{STATUS}"


def evidence_topic(board: int, name: str) -> str:
    return f"{board_prefix(board)}/{EVIDENCE}/{check_evidence_name(name)}"


def check_evidence_name(name: str) -> str:
    """An evidence file name as a station writes it (ValueError otherwise).

    Why so strict: the hub stores the file under this name in the board's folder and serves it,
    so it must be a plain name of the kinds runtime/evidence.py writes (JPEG images, the WebM clip,
    the frames' JSON) and nothing a browser would run or a path could climb out with."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_EVIDENCE_NAME:
        raise ValueError(f"evidence file name {shown(name)} is not 1 to {MAX_EVIDENCE_NAME} characters")
    if name.startswith(".") or not _EVIDENCE_NAME.fullmatch(name):
        raise ValueError(f"evidence file name {shown(name)} is not a plain name "
                         "(letters, digits, '_', '-', '.'; no leading dot)")
    if not name.lower().endswith(EVIDENCE_EXTENSIONS):
        raise ValueError(f"evidence file name {shown(name)} is not one of the kinds a station sends "
                         f"({', '.join(EVIDENCE_EXTENSIONS)})")
    return name


def command_topic(board: int) -> str:
    return f"{ROOT}/command/board/{check_board(board)}"


def check_board(board: int) -> int:
    """Board numbers are whole numbers from 1 with at most MAX_BOARD_DIGITS digits (ValueError otherwise)."""
    if isinstance(board, bool) or not isinstance(board, int) or not 1 <= board < 10 ** MAX_BOARD_DIGITS:
        raise ValueError(f"board number {board!r} is not a whole number from 1 "
                         f"(at most {MAX_BOARD_DIGITS} digits)")
    return board


@dataclass(frozen=True)
class BoardTopic:
    """A topic under xqtrack/board/<N>/ taken apart."""

    board: int
    kind: str            # event, state, status, evidence
    name: str = ""       # the evidence file name


def parse_board_topic(topic: str) -> BoardTopic | None:
    """xqtrack/board/7/event -> BoardTopic(7, "event"); None for anything outside the tree."""
    try:
        return read_board_topic(topic)
    except ValueError:
        return None


def read_board_topic(topic: str) -> BoardTopic:
    """xqtrack/board/7/event -> BoardTopic(7, "event"); ValueError saying why for anything else.

    The board is 1 to MAX_BOARD_DIGITS ASCII digits without a leading zero: str.isdigit() also
    takes '²' or '٣' (and int() reads the latter as 3), so a topic could otherwise pose as
    another board, and a number of hundreds of digits would become a folder and a card."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != ROOT or parts[1] != "board":
        raise ValueError("not under xqtrack/board/<N>/")
    if not is_board_number(parts[2]):
        raise ValueError(f"board {shown(parts[2])} is not a board number "
                         f"(1 to {MAX_BOARD_DIGITS} ASCII digits, no leading zero)")
    board = int(parts[2])
    kind = parts[3]
    if kind == EVIDENCE and len(parts) == 5:
        return BoardTopic(board, kind, parts[4])
    if kind in (EVENT, STATE, STATUS) and len(parts) == 4:
        return BoardTopic(board, kind)
    raise ValueError(f"{shown('/'.join(parts[3:]))} is not one of {EVENT}, {STATE}, {STATUS}, {EVIDENCE}/<file>")


def is_board_number(text: str) -> bool:
    """A board number as topics spell it: ASCII digits, no leading zero, at most MAX_BOARD_DIGITS."""
    return (0 < len(text) <= MAX_BOARD_DIGITS and text.isascii() and text.isdigit()
            and text[0] != "0")


def shown(value: object, limit: int = 40) -> str:
    """A value from the wire, quoted for one line of a log (non-ASCII escaped, long ones cut)."""
    text = ascii(value)
    return text if len(text) <= limit else text[:limit - 6] + "..." + text[-3:]
