"""WXF (`C2.5`) and Chinese (`炮二平五`) notation: the two "file" (纵线) notations.

Both say the same four things (which piece, from which file or which of several on a file,
进/退/平, a number) in two alphabets, so they share one parser back end and one writer.

Reading works by *matching against the legal moves*: the text is parsed into a designator
(which piece) plus (action, number), and every legal move is tested against it. Each
designator has a strict reading (the standard form a careful writer produces) and a lenient
one (the common shortcuts: 前/后 omitted when only one of two pieces on a file can make the
move, 前兵 without the file when soldiers stand on two files, `+P` vs `P+`...). The strict
reading is tried first; the lenient one only when the strict one names nothing. A text is
accepted only if it names exactly one legal move; otherwise the error says which moves it
could mean, or why none fits.

Writing follows the standard conventions:
- Chinese (中国象棋竞赛规则): two pieces of a kind on a file take 前/后, three soldiers
  前/中/后, four or five 一/二/三/四/五 counted from the front; when soldiers stand two or
  more deep on two files, the piece name is replaced by the file (前五进一, 中七平六).
- WXF (AXF/WXF notation): tandem pieces `+C.5` / `-R+1` (marker before the letter, as the
  xqbase files write it); three soldiers on a file `+P`, `P<file>` (middle), `-P`; four or five
  `++`, `P+`, (`P<file>`), `P-`, `--`; soldiers on two files `<file>+`, `<file><file>` (middle),
  `<file>-`. Letters K A E H R C P (B and N accepted on input), `.` for sideways (`=` accepted).
"""
from __future__ import annotations

import unicodedata
from typing import Any
from dataclasses import dataclass

from rules.errors import NotationError
from rules.notation_common import (
    CHINESE_NUMERALS, COLOR_WORDS, COUNT_WORDS, DIAGONAL_KINDS, KIND_NAMES, KIND_PLURALS,
    NotationSyntaxError, SideFiles, action_and_number, action_phrase, color_of,
    describe_files, file_label, implied_target, leaves_general_exposed_reason, why_cannot,
)
from rules.squares import RED, SQUARE_NAMES


def article(noun: str) -> str:
    return "an" if noun[0] in "aeiou" else "a"

# ---- alphabets ------------------------------------------------------------------------------

CHINESE_KIND_CHARS = {
    "帅": "K", "帥": "K", "将": "K", "將": "K",
    "仕": "A", "士": "A",
    "相": "B", "象": "B",
    "马": "N", "馬": "N", "傌": "N",
    "车": "R", "車": "R", "俥": "R",
    "炮": "C", "砲": "C", "包": "C",
    "兵": "P", "卒": "P",
}
CHINESE_ACTIONS = {"进": "+", "進": "+", "退": "-", "平": "."}
CHINESE_POSITIONS = {"前": "front", "中": "middle", "后": "rear", "後": "rear"}
_NUMERAL_VALUES = {c: i + 1 for i, c in enumerate(CHINESE_NUMERALS)}

_WRITE_KIND = {
    (RED, False): dict(zip("KABNRCP", "帅仕相马车炮兵")),
    ("b", False): dict(zip("KABNRCP", "将士象马车炮卒")),
    (RED, True): dict(zip("KABNRCP", "帥仕相馬車炮兵")),
    ("b", True): dict(zip("KABNRCP", "將士象馬車炮卒")),
}
_WRITE_ACTION = {False: {"+": "进", "-": "退", ".": "平"}, True: {"+": "進", "-": "退", ".": "平"}}
_WRITE_POSITION = {False: {"front": "前", "middle": "中", "rear": "后"},
                   True: {"front": "前", "middle": "中", "rear": "後"}}

WXF_LETTERS = {"K": "K", "G": "K", "A": "A", "B": "B", "E": "B", "N": "N", "H": "N",
               "R": "R", "C": "C", "P": "P"}
WXF_WRITE_LETTER = {"K": "K", "A": "A", "B": "E", "N": "H", "R": "R", "C": "C", "P": "P"}
WXF_ACTIONS = {"+": "+", "-": "-", ".": ".", "=": "."}


def chinese_kind_char(kind: str, color: str, traditional: bool) -> str:
    return _WRITE_KIND[(color, traditional)][kind]


def normalize(text: str) -> str:
    """NFKC folds full-width digits and signs (８ → 8, ＋ → +); whitespace is dropped."""
    return "".join(unicodedata.normalize("NFKC", text).split())


# ---- designators: which piece the text names ------------------------------------------------

@dataclass(frozen=True)
class Designator:
    """Which piece a move text names, before looking at the board.

    rule:
      'file'      piece of `kind` on `file` (Chinese 炮二 / WXF C2; in WXF a file with an odd
                  number >= 3 of them means the middle one, as the AXF rules say)
      'front' 'rear' 'middle' 'ordinal'   position on a file, counted front to back
      'wxf_plus' 'wxf_minus'  WXF letter-then-marker (P+): front/rear with up to three on the
                  file, second from the front/back with four or five
    file None means "the file where they stand two or more deep" (前炮, +C).
    """

    kind: str
    rule: str
    file: int | None = None
    ordinal: int = 0
    wxf: bool = False
    strict_depths: tuple[int, ...] = ()   # pieces-on-file counts for which the form is standard

    def index_on_file(self, n: int) -> int | None:
        if self.rule == "front":
            return 0 if n >= 2 else None
        if self.rule == "rear":
            return n - 1 if n >= 2 else None
        if self.rule == "middle":
            return n // 2 if n >= 3 and n % 2 == 1 else None
        if self.rule == "ordinal":
            return self.ordinal - 1 if 2 <= n and self.ordinal <= n else None
        if self.rule == "wxf_plus":
            return (0 if n <= 3 else 1) if n >= 2 else None
        if self.rule == "wxf_minus":
            return (n - 1 if n <= 3 else n - 2) if n >= 2 else None
        raise AssertionError(self.rule)

    def sources(self, side: SideFiles) -> tuple[list[int], list[int]]:
        """(strict, lenient) candidate squares of the piece that moves."""
        if self.rule == "file":
            assert self.file is not None, "a file designator names its file"
            col = side.column(self.kind, self.file)
            n = len(col)
            if n == 1:
                strict = list(col)
            elif self.wxf and n >= 3 and n % 2 == 1:
                strict = [col[n // 2]]
            else:
                strict = []
            return strict, list(col)
        if self.file is not None:
            col = side.column(self.kind, self.file)
            i = self.index_on_file(len(col))
            if i is None:
                return [], []
            picked = [col[i]]
            return (picked if len(col) in self.strict_depths else []), picked
        tandem = side.tandem_files(self.kind)
        strict = []
        lenient: list[int] = []
        for f in tandem:
            col = side.column(self.kind, f)
            i = self.index_on_file(len(col))
            if i is None:
                continue
            lenient.append(col[i])
            if len(tandem) == 1 and len(col) in self.strict_depths:
                strict.append(col[i])
        return strict, lenient

    def phrase(self, color: str, numerals: bool) -> str:
        """English for the piece named, e.g. 'black horse on file 8', 'front red cannon'."""
        who = f"{COLOR_WORDS[color]} {KIND_NAMES[self.kind]}"
        where = f" on file {file_label(self.file, color, numerals)}" if self.file is not None else ""
        if self.rule == "file":
            return who + where
        word = {"front": "front", "rear": "rear", "middle": "middle",
                "wxf_plus": "front (P+)", "wxf_minus": "rear (P-)"}.get(self.rule)
        if word is None:
            word = _ordinal_word(self.ordinal) + " from the front"
            return f"{who}{where}, {word},"
        return f"{word} {who}{where}"


def _ordinal_word(k: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(k, f"{k}th")


@dataclass(frozen=True)
class ParsedFileMove:
    designator: Designator
    action: str
    number: int


# ---- Chinese parser -------------------------------------------------------------------------

def _chinese_char(ch: str) -> tuple[str, object]:
    if ch in CHINESE_KIND_CHARS:
        return "kind", CHINESE_KIND_CHARS[ch]
    if ch in CHINESE_ACTIONS:
        return "action", CHINESE_ACTIONS[ch]
    if ch in CHINESE_POSITIONS:
        return "pos", CHINESE_POSITIONS[ch]
    if ch in _NUMERAL_VALUES:
        return "cnum", _NUMERAL_VALUES[ch]
    if ch in "123456789":
        return "dnum", int(ch)
    return "other", ch


_CHINESE_SHAPE_HELP = ("expected a piece, its file, 进/退/平 and a number (炮二平五, 马8进7), or "
                       "前/中/后/一..五 and the piece (前车进一), or 前/中/后 and the file for soldiers "
                       "on two files (前五进一)")


def parse_chinese_text(text: str) -> ParsedFileMove:
    s = normalize(text)
    chars = [_chinese_char(c) for c in s]
    bad = [c for kind, c in chars if kind == "other"]
    if not s:
        raise NotationSyntaxError("empty move text")
    if bad:
        raise NotationSyntaxError(f"{text}: character {bad[0]!r} is not part of Chinese notation; "
                                  + _CHINESE_SHAPE_HELP)
    kinds = [k for k, _ in chars]
    vals: list[Any] = [v for _, v in chars]   # a kind letter, an action, a position word or a number

    def number(i: int) -> int:
        if kinds[i] not in ("cnum", "dnum"):
            raise NotationSyntaxError(f"{text}: the last character must be a number 1-9 "
                                      f"(一..九 or 1..9), got {s[i]!r}")
        return vals[i]

    def position(i: int) -> tuple[str, int]:
        if kinds[i] == "pos":
            return vals[i], 0
        if kinds[i] == "cnum" and vals[i] <= 5:
            return "ordinal", vals[i]
        raise NotationSyntaxError(f"{text}: {s[i]!r} does not say which piece (" + _CHINESE_SHAPE_HELP + ")")

    if len(s) == 4 and kinds[2] == "action":
        action, num = vals[2], number(3)
        if kinds[0] == "kind" and kinds[1] in ("cnum", "dnum"):
            return ParsedFileMove(Designator(vals[0], "file", file=vals[1]), action, num)
        if kinds[1] == "kind":
            rule, ordinal = position(0)
            depths = {"front": (2, 3), "rear": (2, 3), "middle": (3,), "ordinal": (4, 5, 6, 7, 8, 9)}[rule]
            return ParsedFileMove(Designator(vals[1], rule, ordinal=ordinal, strict_depths=depths), action, num)
        if kinds[1] in ("cnum", "dnum"):
            rule, ordinal = position(0)
            depths = {"front": (2, 3), "rear": (2, 3), "middle": (3,), "ordinal": (4, 5, 6, 7, 8, 9)}[rule]
            return ParsedFileMove(Designator("P", rule, file=vals[1], ordinal=ordinal, strict_depths=depths),
                                  action, num)
    if len(s) == 5 and kinds[3] == "action" and kinds[1] == "kind" and kinds[2] in ("cnum", "dnum"):
        rule, ordinal = position(0)
        depths = {"front": (2, 3), "rear": (2, 3), "middle": (3,), "ordinal": (4, 5, 6, 7, 8, 9)}[rule]
        return ParsedFileMove(Designator(vals[1], rule, file=vals[2], ordinal=ordinal, strict_depths=depths),
                              vals[3], number(4))
    raise NotationSyntaxError(f"{text}: not a move in Chinese notation; " + _CHINESE_SHAPE_HELP)


# ---- WXF parser -----------------------------------------------------------------------------

_WXF_SHAPE_HELP = ("expected a piece letter (K A E/B H/N R C P), its file 1-9 or a +/- marker, "
                   "an action (+ forward, - back, . or = sideways) and a number 1-9, e.g. C2.5, "
                   "H2+3, +C.5, R+.3")


def parse_wxf_text(text: str) -> ParsedFileMove:
    s = normalize(text).upper()
    if not s:
        raise NotationSyntaxError("empty move text")
    if len(s) == 3 and s[0] in WXF_LETTERS and s[1] in "123456789" and s[2] in "123456789":
        # "C25": the sideways sign left out, as some Chinese-language manuals print it
        return ParsedFileMove(Designator(WXF_LETTERS[s[0]], "file", file=int(s[1]), wxf=True), ".", int(s[2]))
    if len(s) != 4 or not s.isascii():
        raise NotationSyntaxError(f"{text}: not a move in WXF notation (4 ASCII characters); " + _WXF_SHAPE_HELP)
    a, b, act, num = s[0], s[1], s[2], s[3]
    if act not in WXF_ACTIONS:
        raise NotationSyntaxError(f"{text}: third character {act!r} is not an action "
                                  "(+ forward, - back, . or = sideways)")
    if num not in "123456789":
        raise NotationSyntaxError(f"{text}: last character {num!r} is not a number 1-9")
    action, number = WXF_ACTIONS[act], int(num)
    digits = "123456789"
    if a in WXF_LETTERS and b in digits:
        d = Designator(WXF_LETTERS[a], "file", file=int(b), wxf=True)
    elif a in "+-" and b in WXF_LETTERS:                      # +C.5 (marker before the letter)
        d = Designator(WXF_LETTERS[b], "front" if a == "+" else "rear", strict_depths=(2, 3))
    elif a in WXF_LETTERS and b in "+-":                      # C+.5 (AXF document's order)
        d = Designator(WXF_LETTERS[a], "wxf_plus" if b == "+" else "wxf_minus",
                       strict_depths=(2, 3, 4, 5, 6, 7, 8, 9))
    elif a in "+-" and b == a:                                # ++.4 / --.4: four or five soldiers
        d = Designator("P", "front" if a == "+" else "rear", strict_depths=(4, 5, 6, 7, 8, 9))
    elif a in digits and b in "+-":                           # 3+.4: soldiers on two files
        d = Designator("P", "front" if b == "+" else "rear", file=int(a), strict_depths=(2, 3))
    elif a in digits and b == a:                              # 33.4: middle of three
        d = Designator("P", "middle", file=int(a), strict_depths=(3,))
    else:
        raise NotationSyntaxError(f"{text}: {a + b!r} does not say which piece; " + _WXF_SHAPE_HELP)
    return ParsedFileMove(d, action, number)


# ---- resolution against the legal moves -----------------------------------------------------

def resolve(pos, text: str, parsed: ParsedFileMove, notation: str):
    """The one legal move `parsed` names, or NotationError saying why there is none or several."""
    color = pos.turn
    numerals = notation == "chinese"
    d = parsed.designator
    what = action_phrase(d.kind, parsed.action, parsed.number, color, numerals)
    if d.kind in DIAGONAL_KINDS and parsed.action == ".":
        name = KIND_NAMES[d.kind]
        raise NotationError(f"{text}: {article(name)} {name} never moves sideways (平 / .)")
    side = SideFiles.of(pos.pieces(), color)
    strict, lenient = d.sources(side)
    legal = pos.legal_moves()
    target = (parsed.action, parsed.number)

    def matching(sources: list[int]) -> list:
        src = set(sources)
        return [m for m in legal
                if m.from_sq in src and action_and_number(d.kind, m.from_sq, m.to_sq, color) == target]

    for group in (strict, lenient):
        found = matching(group)
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise NotationError(_ambiguous_message(pos, text, d, found, side, what, notation))
    raise NotationError(_no_move_message(pos, text, d, lenient, side, what, target, numerals))


def _ambiguous_message(pos, text, d, found, side, what, notation) -> str:
    color = pos.turn
    numerals = notation == "chinese"
    files = sorted({side.where(m.from_sq, d.kind, color)[0] for m in found})
    count = COUNT_WORDS.get(len(found), str(len(found)))
    on = (f"on file {file_label(files[0], color, numerals)}" if len(files) == 1
          else f"on files {describe_files(files, color, numerals)}")
    found = sorted(found, key=lambda m: side.where(m.from_sq, d.kind, color)[:2])   # by file, front first
    forms = [format_file_move(pos, m, notation) for m in found]
    if d.rule != "file" and d.file is None and len(files) > 1:
        hint = "name the file"
    elif notation == "chinese":
        n = max(len(side.column(d.kind, f)) for f in files)
        hint = "前/后" if n <= 2 else ("前/中/后" if n == 3 else "一/二/三/四/五")
    else:
        hint = "+/- markers"
    return (f"{text} is ambiguous: {count} {COLOR_WORDS[color]} {KIND_PLURALS[d.kind]} {on} can {what}, "
            f"use {hint}: {' or '.join(forms)} ({', '.join(m.iccs() for m in found)})")


def _no_move_message(pos, text, d, lenient, side, what, target, numerals) -> str:
    color = pos.turn
    cw = COLOR_WORDS[color]
    if not lenient:
        everywhere = side.columns[d.kind]
        if not everywhere:
            return f"{text}: {cw} has no {KIND_NAMES[d.kind]} on the board"
        if d.rule == "file":
            where = describe_files(sorted(everywhere), color, numerals)
            return (f"{text}: no {cw} {KIND_NAMES[d.kind]} on file {file_label(d.file, color, numerals)} "
                    f"({cw} {KIND_PLURALS[d.kind]} stand on file{'s' if len(everywhere) > 1 else ''} {where})")
        if d.file is not None:
            n = len(side.column(d.kind, d.file))
            return (f"{text}: there is no {d.phrase(color, numerals)}: file "
                    f"{file_label(d.file, color, numerals)} holds {n} {cw} "
                    f"{KIND_PLURALS[d.kind] if n != 1 else KIND_NAMES[d.kind]}")
        tandem = side.tandem_files(d.kind)
        if not tandem:
            return (f"{text}: no two {cw} {KIND_PLURALS[d.kind]} share a file, so there is no "
                    f"{d.phrase(color, numerals)}; name the file instead")
        depths = ", ".join(f"{len(side.column(d.kind, f))} on file {file_label(f, color, numerals)}"
                           for f in tandem)
        return f"{text}: there is no {d.phrase(color, numerals)} ({cw} {KIND_PLURALS[d.kind]}: {depths})"
    src = set(lenient)
    pseudo = [m for m in pos.pseudo_legal_moves()
              if m.from_sq in src and action_and_number(d.kind, m.from_sq, m.to_sq, color) == target]
    if pseudo:
        reason = leaves_general_exposed_reason(pos, pseudo[0], color)
        return f"{text}: the {d.phrase(color, numerals)} cannot {what}: {reason} ({pseudo[0].iccs()})"
    message = f"{text}: no {d.phrase(color, numerals)} can {what}"
    reasons = []
    for sq in lenient:
        landing = implied_target(d.kind, sq, target[0], target[1], color)
        if landing is not None:
            reasons.append(why_cannot(pos, sq, landing))
        elif d.kind in DIAGONAL_KINDS:
            reach = {"A": "one file", "B": "two files", "N": "one or two files"}[d.kind]
            reasons.append(f"{SQUARE_NAMES[sq]}: {article(KIND_NAMES[d.kind])} {KIND_NAMES[d.kind]} "
                           f"only moves {reach} across")
        elif target[0] != ".":
            reasons.append(f"{SQUARE_NAMES[sq]}: that is off the board")
    named = [r for r in reasons if r]
    if named:
        message += f" ({'; '.join(named)})"
    if d.rule != "file":
        # records sometimes swap 前 and 后: point at the piece on the same file that can
        files = {side.where(sq, d.kind, color)[0] for sq in lenient}
        others = {sq for f in files for sq in side.column(d.kind, f)} - src
        can = [m for m in pos.legal_moves()
               if m.from_sq in others and action_and_number(d.kind, m.from_sq, m.to_sq, color) == target]
        if can:
            notation = "chinese" if numerals else "wxf"
            message += f" (did you mean {' or '.join(format_file_move(pos, m, notation) for m in can)}?)"
    return message


# ---- writer ---------------------------------------------------------------------------------

def format_file_move(pos, move, notation: str, traditional: bool = False) -> str:
    """Standard WXF or Chinese text of a legal move (legality is the caller's concern)."""
    piece = pos.piece_at(move.from_sq)
    color = color_of(piece)
    kind = piece.upper()
    side = SideFiles.of(pos.pieces(), color)
    f, i, n = side.where(move.from_sq, kind, color)
    multi = len(side.tandem_files(kind)) >= 2
    action, number = action_and_number(kind, move.from_sq, move.to_sq, color)
    if notation == "chinese":
        return _chinese(kind, color, f, i, n, multi, action, number, traditional)
    return _wxf(kind, f, i, n, multi, action, number)


def _cn_number(value: int, color: str) -> str:
    return CHINESE_NUMERALS[value - 1] if color == RED else str(value)


def _position_word(i: int, n: int, traditional: bool) -> str:
    if n == 2:
        return _WRITE_POSITION[traditional]["front" if i == 0 else "rear"]
    if n == 3:
        return _WRITE_POSITION[traditional][("front", "middle", "rear")[i]]
    return CHINESE_NUMERALS[i]


def _chinese(kind, color, f, i, n, multi, action, number, traditional) -> str:
    piece = chinese_kind_char(kind, color, traditional)
    if n == 1:
        head = piece + _cn_number(f, color)
    elif multi and kind == "P":
        head = _position_word(i, n, traditional) + _cn_number(f, color)
    elif multi:
        head = _position_word(i, n, traditional) + piece + _cn_number(f, color)
    else:
        head = _position_word(i, n, traditional) + piece
    return head + _WRITE_ACTION[traditional][action] + _cn_number(number, color)


def _wxf(kind, f, i, n, multi, action, number) -> str:
    letter = WXF_WRITE_LETTER[kind]
    if n == 1:
        head = f"{letter}{f}"
    elif multi:
        if kind != "P" or n > 3:
            raise NotationError(f"WXF has no form for this move: {n} {KIND_PLURALS[kind]} on one file "
                                "while others of the kind also stand in tandem (only possible in a composed set-up)")
        head = f"{f}{('+', str(f), '-')[i] if n == 3 else ('+', '-')[i]}"
    elif n == 2:
        head = ("+", "-")[i] + letter
    elif n == 3:
        head = ("+" + letter, f"{letter}{f}", "-" + letter)[i]
    elif kind == "P" and n in (4, 5):
        head = (("++", "P+", "P-", "--") if n == 4 else ("++", "P+", f"P{f}", "P-", "--"))[i]
    else:
        raise NotationError(f"WXF has no form for this move: {n} {KIND_PLURALS[kind]} on one file "
                            "(only possible in a composed set-up)")
    return head + action + str(number)
