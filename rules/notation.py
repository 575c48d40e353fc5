"""Move notations, read and written: ICCS (`h2e2`), WXF (`C2.5`), Chinese (`炮二平五` /
`马8进7`, simplified or traditional) and 一字三码 (`马325`).

    format_move(pos, move, notation, traditional=False) -> str
    parse_move(pos, text, notation=None) -> Move

Every notation except ICCS describes a move relative to the board, so both directions need
the position *before* the move. `format_move` writes the standard form; `parse_move` accepts
the standard form and the unambiguous variants seen in real records, and raises
NotationError naming the text and why it names no legal move or more than one. For every
legal move, `parse_move(pos, format_move(pos, m, n), n) == m` in every notation (tested with
hypothesis over random reachable positions).

With `notation=None` the notation is recognised from the text's shape; the four shapes are
disjoint (ICCS: file-letter digit file-letter digit; WXF: other ASCII; Chinese: 进/退/平 in
third or fourth place; 一字三码: piece character then digits or 进/退 second).
"""
from __future__ import annotations

import re

from rules.errors import MoveError, NotationError
from rules.move import Move
from rules.notation_common import (
    COLOR_WORDS, KIND_NAMES, NotationSyntaxError, color_of, leaves_general_exposed_reason,
)
from rules.notation_file import (
    CHINESE_ACTIONS, format_file_move, normalize, parse_chinese_text, parse_wxf_text, resolve,
)
from rules.notation_yizi import format_yizi, parse_yizi
from rules.squares import SQUARE_NAMES

NOTATIONS = ("iccs", "wxf", "chinese", "yizi")
_ALIASES = {"iccs": "iccs", "ucci": "iccs", "uci": "iccs", "coordinate": "iccs",
            "wxf": "wxf", "chinese": "chinese", "cn": "chinese", "zh": "chinese", "中文": "chinese",
            "yizi": "yizi", "yizisanma": "yizi", "一字三码": "yizi"}
_ICCS_RE = re.compile(r"^[a-i][0-9]-?[a-i][0-9]$")

__all__ = ["NOTATIONS", "format_move", "parse_move", "detect_notation", "canonical_notation",
           "NotationError", "NotationSyntaxError"]


def canonical_notation(name: str) -> str:
    """'ICCS', 'Chinese', 'WXF', 'yizi' (any case) -> the canonical name; NotationError otherwise."""
    key = str(name).strip().lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in _ALIASES:
        return _ALIASES[key]
    raise NotationError(f"unknown notation {name!r}: choose one of {', '.join(NOTATIONS)}")


def detect_notation(text: str) -> str:
    """Which notation `text` is written in, from its shape alone (NotationSyntaxError if none)."""
    s = normalize(text)
    if _ICCS_RE.match(s.lower()):
        return "iccs"
    if s and s.isascii():
        return "wxf"
    if (len(s) == 4 and s[2] in CHINESE_ACTIONS) or (len(s) == 5 and s[3] in CHINESE_ACTIONS):
        return "chinese"
    if len(s) == 4 and (s[1].isdigit() or s[1] in "进進退"):
        return "yizi"
    raise NotationSyntaxError(f"{text!r} is not a move in ICCS (h2e2), WXF (C2.5), Chinese (炮二平五) "
                              f"or 一字三码 (炮253) notation")


def format_move(pos, move: Move, notation: str = "iccs", traditional: bool = False) -> str:
    """The move as text in `notation`; `traditional` picks 馬 車 帥 進 後 for Chinese and 一字三码.

    The move must be legal in `pos` (NotationError otherwise): the file notations describe
    it relative to the pieces around it, so an illegal move has no meaningful description.
    """
    notation = canonical_notation(notation)
    if notation == "iccs":          # needs no other move: one legality test, not the whole list
        if not pos.is_legal(move):
            raise NotationError(f"cannot write {move.iccs()} in {notation}: {_why_not_legal(pos, move)}")
        return move.iccs()
    legal = pos.legal_moves()
    if move not in legal:
        raise NotationError(f"cannot write {move.iccs()} in {notation}: "
                            f"{_why_not_legal(pos, move)}")
    if notation == "yizi":
        return format_yizi(pos, move, legal, traditional)
    return format_file_move(pos, move, notation, traditional)


def parse_move(pos, text: str, notation: str | None = None) -> Move:
    """The legal move `text` names in `pos`.

    NotationError (a ValueError) when the text is malformed (NotationSyntaxError), names no
    legal move (the message says why: no such piece, it cannot go there, it would leave the
    general in check) or several (the message lists them in the standard form).
    """
    if not isinstance(text, str):
        raise NotationError(f"move text must be a string, got {type(text).__name__}")
    shown = text.strip()
    notation = detect_notation(shown) if notation is None else canonical_notation(notation)
    if notation == "iccs":
        return _parse_iccs(pos, shown)
    if notation == "yizi":
        return parse_yizi(pos, shown)
    parsed = parse_chinese_text(shown) if notation == "chinese" else parse_wxf_text(shown)
    return resolve(pos, shown, parsed, notation)


def _parse_iccs(pos, text: str) -> Move:
    try:
        move = Move.from_iccs(text)
    except MoveError as exc:
        raise NotationSyntaxError(str(exc)) from None
    if pos.is_legal(move):          # one piece's moves, not the whole list: files run to 10^5 plies
        return move
    raise NotationError(f"{text}: {_why_not_legal(pos, move)}")


def _why_not_legal(pos, move: Move) -> str:
    frm, to = SQUARE_NAMES[move.from_sq], SQUARE_NAMES[move.to_sq]
    piece = pos.piece_at(move.from_sq)
    mover = COLOR_WORDS[pos.turn]
    if piece is None:
        return f"there is no piece on {frm}"
    name = f"{COLOR_WORDS[color_of(piece)]} {KIND_NAMES[piece.upper()]}"
    if color_of(piece) != pos.turn:
        return f"the piece on {frm} is a {name} but {mover} is to move"
    if move in pos.pseudo_legal_moves():
        return f"the {name} on {frm} cannot go to {to}: {leaves_general_exposed_reason(pos, move, pos.turn)}"
    target = pos.piece_at(move.to_sq)
    if target is not None and color_of(target) == pos.turn:
        return f"{to} holds a {mover} {KIND_NAMES[target.upper()]} of the same side"
    return f"a {name} on {frm} cannot move to {to}"
