"""一字三码 (one character, three digits): `马325` = the horse on file 3 lands on file 2, rank 5.

Implements `shared/notation-yizi-sanma.md` exactly:
- `<piece><from-file><to-file><to-rank>`; every field one digit, each side in its own frame
  (files 1-9 from the mover's right, ranks 1-10 from the mover's back rank, rank 10 written 0);
- the last two digits always name the landing point, so 前/中/后 and 进/退/平 are not needed;
- tandem pieces: when two pieces of one kind stand on one file and BOTH can (legally) reach
  the landing point, the from-file is replaced by 进 (the one that moves forward to get there)
  or 退 (the one that moves back): `车进25`. (On one file, two pieces that reach the same point
  always do so from opposite sides, so 进/退 always decides.)
- Arabic digits for both sides (the source: 双方都用阿拉伯数码); full-width digits and
  traditional piece characters are accepted on input.

Parsing is strict in the sense the spec asks: the text must name exactly one legal move. A
`车进25` whose other chariot cannot reach the point still names one move and is accepted.
"""
from __future__ import annotations

from rules.errors import NotationError
from rules.notation_common import (
    COLOR_WORDS, KIND_NAMES, KIND_PLURALS, NotationSyntaxError, color_of, forward_delta,
    frame_file, frame_rank, leaves_general_exposed_reason, square_from_frame, why_cannot,
)
from rules.notation_file import CHINESE_ACTIONS, CHINESE_KIND_CHARS, chinese_kind_char, normalize
from rules.squares import SQUARE_NAMES

_SHAPE_HELP = ("expected a piece character and three digits (from-file, to-file, to-rank; rank 10 "
               "written 0), e.g. 马325, or with 进/退 for the from-file when two pieces on one file "
               "can both land there, e.g. 车进25")


def format_yizi(pos, move, legal: list, traditional: bool = False) -> str:
    piece = pos.piece_at(move.from_sq)
    color = color_of(piece)
    kind = piece.upper()
    from_file = frame_file(move.from_sq, color)
    rivals = [m for m in legal
              if m.to_sq == move.to_sq and m.from_sq != move.from_sq
              and (pos.piece_at(m.from_sq) or "") == piece and frame_file(m.from_sq, color) == from_file]
    if rivals:
        # tandem: say which of the two moves by its direction
        source = "进" if forward_delta(move.from_sq, move.to_sq, color) > 0 else "退"
        if traditional and source == "进":
            source = "進"
    else:
        source = str(from_file)
    rank = frame_rank(move.to_sq, color) % 10
    return f"{chinese_kind_char(kind, color, traditional)}{source}{frame_file(move.to_sq, color)}{rank}"


def parse_yizi(pos, text: str):
    s = normalize(text)
    if len(s) != 4:
        raise NotationSyntaxError(f"{text}: not a move in 一字三码 notation (4 characters); {_SHAPE_HELP}")
    p, src, tf, tr = s[0], s[1], s[2], s[3]
    if p not in CHINESE_KIND_CHARS:
        raise NotationSyntaxError(f"{text}: {p!r} is not a piece character; {_SHAPE_HELP}")
    if not (tf in "123456789" and tr in "0123456789"):
        raise NotationSyntaxError(f"{text}: the landing point must be two digits (file 1-9, rank 1-9 "
                                  f"or 0 for rank 10); {_SHAPE_HELP}")
    direction = CHINESE_ACTIONS.get(src)
    if direction == ".":
        raise NotationSyntaxError(f"{text}: 平 is not used in 一字三码; {_SHAPE_HELP}")
    if direction is None and src not in "123456789":
        raise NotationSyntaxError(f"{text}: {src!r} must be the from-file 1-9 or 进/退; {_SHAPE_HELP}")
    kind = CHINESE_KIND_CHARS[p]
    color = pos.turn
    cw = COLOR_WORDS[color]
    landing = square_from_frame(int(tf), int(tr) or 10, color)
    land_name = f"file {tf}, rank {int(tr) or 10} ({SQUARE_NAMES[landing]})"

    def selects(m) -> bool:
        piece = pos.piece_at(m.from_sq)
        if piece is None or piece.upper() != kind or m.to_sq != landing:
            return False
        if direction is None:
            return frame_file(m.from_sq, color) == int(src)
        d = forward_delta(m.from_sq, m.to_sq, color)
        return d > 0 if direction == "+" else d < 0

    found = [m for m in pos.legal_moves() if selects(m)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        alternatives = " or ".join(format_yizi(pos, m, found) for m in found)
        return_hint = "use 进/退 instead of the file" if direction is None else "name the from-file"
        raise NotationError(f"{text} is ambiguous: {len(found)} {cw} {KIND_PLURALS[kind]} can land on "
                            f"{land_name}, {return_hint}: {alternatives} "
                            f"({', '.join(m.iccs() for m in found)})")
    who = (f"{cw} {KIND_NAMES[kind]} on file {src}" if direction is None
           else f"{cw} {KIND_NAMES[kind]} moving {'forward' if direction == '+' else 'back'}")
    own = [sq for sq, pc in pos.pieces().items() if pc.upper() == kind and color_of(pc) == color]
    if not own:
        return _raise(f"{text}: {cw} has no {KIND_NAMES[kind]} on the board")
    if direction is None and not any(frame_file(sq, color) == int(src) for sq in own):
        files = ", ".join(str(f) for f in sorted({frame_file(sq, color) for sq in own}))
        return _raise(f"{text}: no {cw} {KIND_NAMES[kind]} on file {src} ({cw} {KIND_PLURALS[kind]} "
                      f"stand on file{'s' if ',' in files else ''} {files})")
    pseudo = [m for m in pos.pseudo_legal_moves() if selects(m)]
    if pseudo:
        reason = leaves_general_exposed_reason(pos, pseudo[0], color)
        return _raise(f"{text}: the {who} cannot land on {land_name}: {reason} ({pseudo[0].iccs()})")
    sources = [sq for sq in own if direction is None and frame_file(sq, color) == int(src)
               or direction is not None and (forward_delta(sq, landing, color) > 0) == (direction == "+")
               and forward_delta(sq, landing, color) != 0]
    reasons = [r for r in (why_cannot(pos, sq, landing) for sq in sources if sq != landing) if r]
    detail = f" ({'; '.join(reasons)})" if reasons else ""
    return _raise(f"{text}: no {who} can land on {land_name}{detail}")


def _raise(message: str):
    raise NotationError(message)
