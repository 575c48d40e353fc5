"""CBF, the XML game record of CCBridge (象棋桥), read and written.

    read_cbf(data, source=None) -> Game        write_cbf(game) -> bytes

    <ChineseChessRecord Version="1.0">
      <Head> <Name/> <Contest/> <Round/> <Date/> <Site/> <Red/> <RedTeam/> <Black/>
             <BlackTeam/> <ECCO/> <Opening/> <RecordResult/> <FEN/> ... </Head>
      <MoveList>
        <Move value="00-00" comment="..."/>        the root: no move, the opening comment
        <Move value="77-47" comment="..."/>        file row - file row, row 0 = black's back rank
        <Move value="79-67" end="1"/>              end="1": the line ends here
      </MoveList>
    </ChineseChessRecord>

RecordResult uses the CCBridge codes (0 unknown, 1 red won, 2 black won, 3 draw). A comment is
the `comment` attribute or a <Comment> child. Variations follow the main line in the same list
(pre-order, like the binary CBR); the main line ends at the first move marked end="1".
The XML is parsed without DTDs or entities of its own (a record never needs them), so a
hostile file cannot make the parser expand entities or fetch anything.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from rules.pgn import Game
from rules.position import START_FEN, Position

from rules.formats._replay import PointMove, RawGame, build_game
from rules.formats.errors import CbfError

_RESULTS = {"0": "*", "1": "1-0", "2": "0-1", "3": "1/2-1/2", "4": "1/2-1/2"}
_RESULT_CODES = {"*": "0", "1-0": "1", "0-1": "2", "1/2-1/2": "3"}
_MOVE_RE = re.compile(r"^\s*(\d)(\d)\s*-\s*(\d)(\d)\s*$")
# CBF <Head> element -> PGN tag, in the order the writer puts them
_HEADER_TAGS: tuple[tuple[str, str], ...] = (
    ("Name", "Title"), ("Contest", "Event"), ("Round", "Round"), ("Date", "Date"),
    ("Site", "Site"), ("Red", "Red"), ("RedTeam", "RedTeam"), ("Black", "Black"),
    ("BlackTeam", "BlackTeam"), ("TimeRule", "TimeControl"), ("ECCO", "ECCO"),
    ("Opening", "Opening"), ("Commentator", "Annotator"),
)
CARRIED_HEADERS = tuple(tag for _, tag in _HEADER_TAGS)


def looks_like_cbf(head: bytes) -> bool:
    """Do the first bytes of a file look like a CBF record?"""
    return b"<ChineseChessRecord" in head or "<ChineseChessRecord".encode("utf-16-le") in head


def read_cbf(data: bytes, source: str | None = None) -> Game:
    """The main line of a CBF record; CbfError (with the XML line/column) when it cannot be read."""
    if b"<!DOCTYPE" in data[:4096].upper() or b"<!ENTITY" in data.upper():
        raise CbfError("the XML declares a DTD or entities (a CBF record has none)", source=source,
                       offset=data.upper().find(b"<!"))
    document = _for_expat(data, source)
    try:
        root = ET.fromstring(document)
    except ET.ParseError as exc:
        line, col = exc.position
        raise CbfError(f"not well-formed XML at line {line}, column {col + 1} ({exc.msg if hasattr(exc, 'msg') else exc})",
                       source=source) from None
    except (ValueError, LookupError) as exc:   # e.g. an unknown declared encoding
        raise CbfError(f"the XML cannot be decoded: {exc}", source=source) from None
    if root.tag != "ChineseChessRecord":
        raise CbfError(f"the root element is <{root.tag}> (expected <ChineseChessRecord>)", source=source)
    head = root.find("Head")
    fields = {child.tag: (child.text or "").strip("\r\n") for child in (head if head is not None else [])}
    headers = {name: fields[tag] for tag, name in _HEADER_TAGS if fields.get(tag)}
    fen = fields.get("FEN", "").strip() or START_FEN
    try:
        start = Position.from_fen(fen)
    except ValueError as exc:
        raise CbfError(f"<FEN> is not a FEN: {exc}", source=source) from None
    raw = RawGame(points=dict(start.pieces()), headers=headers, turn=start.turn,
                  result=_RESULTS.get(fields.get("RecordResult", "0").strip(), "*"))
    move_list = root.find("MoveList")
    elements = [] if move_list is None else [e for e in move_list if e.tag == "Move"]
    main_end = len(elements)
    for index, element in enumerate(elements):
        comment = element.get("comment") or element.findtext("Comment") or None
        comment = comment.strip() if comment else None
        value = element.get("value", "")
        if index == 0 and value.strip() in ("00-00", ""):
            raw.initial_comment = comment
            continue
        m = _MOVE_RE.match(value)
        if not m:
            raise CbfError(f"<Move value={value!r}> is not a move (expected 'file row-file row' "
                           "like '77-47')", source=source, ply=len(raw.moves))
        f1, r1, f2, r2 = (int(g) for g in m.groups())
        frm = (9 - r1) * 9 + f1 if f1 <= 8 else -1
        to = (9 - r2) * 9 + f2 if f2 <= 8 else -1
        raw.moves.append(PointMove(frm, to, None, comment))
        if element.get("end") == "1":
            main_end = index + 1
            break
    # each variation follows the main line as a run of moves ending with end="1"
    rest = elements[main_end:]
    raw.variations = sum(e.get("end") == "1" for e in rest) + (1 if rest and rest[-1].get("end") != "1" else 0)
    if raw.moves:
        first = raw.points.get(raw.moves[0].from_sq)
        if first is not None and first.isupper() != (raw.turn == "w"):
            raw.turn = None     # the FEN's side is contradicted by the first move: trust the move
    return build_game(raw, CbfError, source)


_DECLARATION_RE = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["'][^>]*\?>""")
_EXPAT_ENCODINGS = {"utf-8", "utf8", "utf-16", "utf16", "us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1"}


def _for_expat(data: bytes, source: str | None) -> bytes | str:
    """The record as the XML parser can take it: a Chinese code page (GB2312, GBK, Big5) that
    the parser does not know is decoded here (GB2312/GBK as their superset GB18030)."""
    m = _DECLARATION_RE.match(data)
    if not m or m.group(1).decode("ascii").lower() in _EXPAT_ENCODINGS:
        return data
    name = m.group(1).decode("ascii").lower()
    codec = "gb18030" if name in ("gb2312", "gbk", "gb18030", "x-gbk") else name
    try:
        return data[m.end():].decode(codec)
    except (LookupError, UnicodeDecodeError) as exc:
        raise CbfError(f"the record declares encoding {name!r} but cannot be read in it ({exc})",
                       source=source, offset=m.start(1)) from None


def _cbf_point(sq: int) -> str:
    return f"{sq % 9}{9 - sq // 9}"


def write_cbf(game: Game) -> bytes:
    """The game's main line as a CBF record (UTF-8 XML)."""
    root = ET.Element("ChineseChessRecord", Version="1.0")
    head = ET.SubElement(root, "Head")
    for tag, name in _HEADER_TAGS:
        ET.SubElement(head, tag).text = game.headers.get(name, "")
    ET.SubElement(head, "RecordResult").text = _RESULT_CODES.get(game.result, "0")
    ET.SubElement(head, "FEN").text = game.start_position().fen()
    move_list = ET.SubElement(root, "MoveList")
    root_move = ET.SubElement(move_list, "Move", value="00-00")
    if game.initial_comment:
        root_move.set("comment", game.initial_comment)
    for i, move in enumerate(game.moves):
        element = ET.SubElement(move_list, "Move", value=f"{_cbf_point(move.from_sq)}-{_cbf_point(move.to_sq)}")
        if game.comments[i]:
            element.set("comment", game.comments[i] or "")
        if i == len(game.moves) - 1:
            element.set("end", "1")
    ET.indent(root, space=" ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"
