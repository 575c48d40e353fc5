"""DhtmlXQ, the UBB-style game blocks of dpxq.com (东萍象棋) and the web boards that copy it.

    read_dhtmlxq(text, source=None) -> GameList       write_dhtmlxq(game) -> str

A block is `[DhtmlXQ] ... [/DhtmlXQ]` (also `[DhtmlXQiFrame]`, or bare `[DhtmlXQ_...]` tags
pasted into a forum post) holding tags `[DhtmlXQ_name]value[/DhtmlXQ_name]`:

    title event date place round red black redteam blackteam result open remark author ...
    binit     the start: 32 two-digit points, red R N B A K A B N R C C P P P P P then black;
              a point is "file row" with file 0-8 from red's left and row 0-9 from black's
              back rank (so row = 9 - rank); anything off the board ("99") is a missing piece
    fen       some writers give the start as FEN instead (it wins over binit)
    movelist  the main line: four digits per move, from-point then to-point, as in binit
    commentN  the comment after ply N (comment0: before the first move); "||" is a line break
    move_B_N_C / commentB_N   variations and their comments (skipped: the main line is the game)

Blocks are found anywhere in a text, inside an HTML page too (tags such as <br> and entities
such as &amp; inside a block are undone first). The side to move is the colour of the first
piece moved. A page with several blocks gives several games; a broken block is skipped and
reported by number, the rest kept.
"""
from __future__ import annotations

import html
import re

from rules.pgn import Game
from rules.position import Position
from rules.squares import SQUARE_NAMES

from rules.formats._replay import PointMove, RawGame, build_game, points_to_slots, slots_to_points
from rules.formats.errors import DhtmlXqError, GameList, SkippedGame

_BLOCK_TOKEN_RE = re.compile(r"\[(/?)(DhtmlXQ(?:iFrame)?)\]", re.I)
_TAG_TOKEN_RE = re.compile(r"\[(/?)DhtmlXQ_([A-Za-z0-9_]{1,40})\]", re.I)
_HTML_TAG_RE = re.compile(r"<[^<>]{0,200}>")
_VARIATION_TAG_RE = re.compile(r"move_\d+_\d+_\d+")      # move_B_N_C: one variation each
_STANDARD_BINIT = "8979695949392919097717866646260600102030405060708012720323436383"

# DhtmlXQ tag -> PGN tag, in the order the writer puts them
_HEADER_TAGS: tuple[tuple[str, str], ...] = (
    ("title", "Title"), ("event", "Event"), ("date", "Date"), ("place", "Site"),
    ("round", "Round"), ("red", "Red"), ("redteam", "RedTeam"), ("black", "Black"),
    ("blackteam", "BlackTeam"), ("open", "Opening"), ("ecco", "ECCO"), ("timerule", "TimeControl"),
    ("remark", "Annotator"), ("author", "Author"),
)
CARRIED_HEADERS = tuple(tag for _, tag in _HEADER_TAGS)
_WIN_RED = {"红胜", "紅勝", "黑负", "黑負", "1-0"}
_WIN_BLACK = {"黑胜", "黑勝", "红负", "紅負", "0-1"}
_DRAWN = {"和", "和棋", "和局", "红和", "紅和", "黑和", "1/2-1/2"}
_RESULT_TEXT = {"1-0": "红胜", "0-1": "黑胜", "1/2-1/2": "和棋", "*": "未知"}


def _result(text: str) -> str:
    s = "".join(text.split()).replace("先", "").replace("方", "")
    if s in _WIN_RED:
        return "1-0"
    if s in _WIN_BLACK:
        return "0-1"
    if s in _DRAWN or "和" in s:
        return "1/2-1/2"
    return "*"


def find_blocks(text: str) -> list[tuple[int, str]]:
    """(offset, body) of every DhtmlXQ block in `text`; a bare tag list counts as one block.

    One pass over the bracket tokens (no backtracking regex), so a page full of unclosed tags
    costs linear time.
    """
    blocks = []
    open_name, open_end = "", -1
    for m in _BLOCK_TOKEN_RE.finditer(text):
        closing, name = m.group(1) == "/", m.group(2).lower()
        if not closing and open_end < 0:
            open_name, open_end = name, m.end()
        elif closing and open_end >= 0 and name == open_name:
            blocks.append((open_end, text[open_end:m.start()]))
            open_end = -1
    if not blocks and _TAG_TOKEN_RE.search(text):
        blocks = [(0, text)]
    return blocks


def _tags(body: str) -> dict[str, tuple[int, str]]:
    """tag name (lower case) -> (offset of its value, raw value); the first of each name wins."""
    tags: dict[str, tuple[int, str]] = {}
    opened: dict[str, int] = {}
    for m in _TAG_TOKEN_RE.finditer(body):
        name = m.group(2).lower()
        if m.group(1) != "/":
            opened.setdefault(name, m.end())
        elif name in opened:
            start = opened.pop(name)
            tags.setdefault(name, (start, body[start:m.start()]))
    return tags


def looks_like_dhtmlxq(text: str) -> bool:
    """Does `text` hold a DhtmlXQ block (wrapped or bare)?"""
    lowered = text.lower()
    return "[dhtmlxq]" in lowered or "[dhtmlxqiframe]" in lowered or any(
        f"[dhtmlxq_{tag}]" in lowered for tag in ("movelist", "binit", "fen"))


def read_dhtmlxq(text: str, source: str | None = None) -> GameList:
    """Every game in the DhtmlXQ blocks of `text`; broken blocks are listed in `.skipped`."""
    games = GameList(fmt="dhtmlxq")
    blocks = find_blocks(text)
    if not blocks:
        raise DhtmlXqError("no DhtmlXQ block found (expected [DhtmlXQ] ... [/DhtmlXQ] or "
                           "[DhtmlXQ_movelist] tags)", source=source, offset=0)
    for number, (offset, body) in enumerate(blocks):
        try:
            games.append(read_block(body, offset, source))
        except DhtmlXqError as exc:
            located = exc.located(game_index=number)
            if len(blocks) == 1:
                raise located from None
            games.skipped.append(SkippedGame(number + 1, str(located)))
    return games


def read_block(body: str, base: int = 0, source: str | None = None) -> Game:
    """One block's game; DhtmlXqError names the tag, the character offset and what was expected."""
    tags = {name: (base + at, _clean(value)) for name, (at, value) in _tags(body).items()}
    headers = {}
    for tag, name in _HEADER_TAGS:
        if tag in tags and tags[tag][1]:
            headers[name] = tags[tag][1]
    result = _result(tags["result"][1]) if "result" in tags else "*"
    raw = RawGame(points={}, headers=headers, result=result)
    if "fen" in tags and tags["fen"][1]:
        at, fen = tags["fen"]
        try:
            pos = Position.from_fen(fen)
        except ValueError as exc:
            raise DhtmlXqError(f"[DhtmlXQ_fen] is not a FEN: {exc}", source=source, offset=at) from None
        raw.points = dict(pos.pieces())
        raw.turn = pos.turn
    elif "binit" in tags:
        raw.points = _binit_points(*tags["binit"], source)
        raw.board_offset = tags["binit"][0]
    else:
        raw.points = dict(Position().pieces())
    if "movelist" in tags:
        raw.moves = _moves(*tags["movelist"], source)
        if raw.moves and raw.turn is not None:
            first = raw.points.get(raw.moves[0].from_sq)
            if first is not None and (first.isupper()) != (raw.turn == "w"):
                raw.turn = None      # the FEN's side is contradicted by the first move: trust the move
    comments = {}
    for tag, (_, value) in tags.items():
        numbered = re.fullmatch(r"comment(\d+)", tag)
        if numbered and value:
            comments[int(numbered.group(1))] = value.replace("||", "\n")
    raw.initial_comment = comments.get(0)
    raw.moves = [PointMove(pm.from_sq, pm.to_sq, pm.offset, comments.get(i + 1))
                 for i, pm in enumerate(raw.moves)]
    raw.variations = sum(1 for tag, (_, value) in tags.items() if _VARIATION_TAG_RE.fullmatch(tag) and value)
    return build_game(raw, DhtmlXqError, source)


def _clean(value: str) -> str:
    """A tag value as text: HTML line breaks and tags removed, entities decoded, trimmed."""
    value = re.sub(r"<br\s*/?>", "||", value, flags=re.I)
    value = _HTML_TAG_RE.sub("", value)
    return html.unescape(value).strip("\r\n")


def _point(digits: str) -> int | None:
    file, row = int(digits[0]), int(digits[1])
    if file > 8:
        return None
    return (9 - row) * 9 + file


def _binit_points(at: int, value: str, source: str | None) -> dict[int, str]:
    digits = "".join(value.split())
    if len(digits) != 64 or not digits.isdigit():
        raise DhtmlXqError(f"[DhtmlXQ_binit] has {len(digits)} characters {digits[:20]!r}... "
                           "(expected 64 digits: 32 two-digit points)", source=source, offset=at)
    slots = [_point(digits[i:i + 2]) for i in range(0, 64, 2)]
    points, clashes = slots_to_points(slots)
    if clashes:
        sq = slots[clashes[0]]
        raise DhtmlXqError(f"[DhtmlXQ_binit] puts two pieces on {SQUARE_NAMES[sq or 0]} "
                           f"(piece {clashes[0] + 1} of 32)", source=source, offset=at + 2 * clashes[0])
    return points


def _moves(at: int, value: str, source: str | None) -> list[PointMove]:
    digits = "".join(value.split())
    if digits and not digits.isdigit() or len(digits) % 4:
        bad = next((i for i, c in enumerate(digits) if not c.isdigit()), len(digits) - len(digits) % 4)
        raise DhtmlXqError(f"[DhtmlXQ_movelist] is not four digits per move: {digits[bad:bad + 8]!r} "
                           f"in move {bad // 4 + 1} (expected from-file from-row to-file to-row)",
                           source=source, offset=at + bad)
    moves = []
    for i in range(0, len(digits), 4):
        frm, to = _point(digits[i:i + 2]), _point(digits[i + 2:i + 4])
        moves.append(PointMove(-1 if frm is None else frm, -1 if to is None else to, at + i))
    return moves


# ---- writing ----------------------------------------------------------------------------------

def _digits(sq: int) -> str:
    return f"{sq % 9}{9 - sq // 9}"


def _value(text: str) -> str:
    """A tag value that cannot close the tag early: brackets widened, line breaks as '||'."""
    return "||".join(str(text).splitlines()).replace("[", "［").replace("]", "］")


def write_dhtmlxq(game: Game) -> str:
    """The game's main line as a `[DhtmlXQ]` block (one tag per line), as dpxq.com writes it.

    The start is given as binit and, when it is not the standard start, also as
    [DhtmlXQ_fen] (binit cannot say whose turn it is). ValueError for a position that a
    32-piece set cannot hold.
    """
    lines = ["[DhtmlXQ]"]
    for tag, name in _HEADER_TAGS:
        value = game.headers.get(name)
        if value:
            lines.append(f"[DhtmlXQ_{tag}]{_value(value)}[/DhtmlXQ_{tag}]")
    lines.append(f"[DhtmlXQ_result]{_RESULT_TEXT.get(game.result, '未知')}[/DhtmlXQ_result]")
    pos = game.start_position()
    slots = points_to_slots(dict(pos.pieces()))
    binit = "".join("99" if sq is None else _digits(sq) for sq in slots)
    lines.append(f"[DhtmlXQ_binit]{binit}[/DhtmlXQ_binit]")
    if game.start_fen and not (binit == _STANDARD_BINIT and pos.turn == "w"):
        lines.append(f"[DhtmlXQ_fen]{pos.fen()}[/DhtmlXQ_fen]")
    moves = "".join(_digits(m.from_sq) + _digits(m.to_sq) for m in game.moves)
    lines.append(f"[DhtmlXQ_movelist]{moves}[/DhtmlXQ_movelist]")
    if game.initial_comment:
        lines.append(f"[DhtmlXQ_comment0]{_value(game.initial_comment)}[/DhtmlXQ_comment0]")
    for i, comment in enumerate(game.comments):
        if comment:
            lines.append(f"[DhtmlXQ_comment{i + 1}]{_value(comment)}[/DhtmlXQ_comment{i + 1}]")
    lines.append("[DhtmlXQ_generator]xqtrack[/DhtmlXQ_generator]")
    lines.append("[/DhtmlXQ]")
    return "\n".join(lines) + "\n"
