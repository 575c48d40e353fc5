"""CCBridge (象棋桥) binary records: CBR (one game) and CBL (a library of games), read.

    read_cbr(data, source=None) -> Game
    read_cbl(data, source=None) -> GameList          (broken games skipped and reported)

CBR layout (little-endian, text UTF-16LE, zero-padded):

    0     "CCBridge Record\\0"
    180   title (128 bytes)      692  event (64)     1076  red (64)     1300  black (64)
    2076  result (0 unknown, 1 red won, 2 black won, 3/4 draw)
    2116  side to move (1 red, else black; 2 bytes)
    2120  90 points, rank 9 first, a to i: 0x11..0x17 red R N B A K C P, 0x21..0x27 black
    2214  the move tree in pre-order: the root record, then one record per move

A record is 4 bytes: flags, 0, from-point, to-point (points numbered as above: row from the top
* 9 + file). Flags 0x01 "this line ends here", 0x02 "a variation follows", 0x04 "a comment
follows" (4-byte byte length, then UTF-16LE text). Next moves come before variations, so the
main line is the run of records up to the first one that ends its line. Four zero bytes after
the root also end the game.

A CBL library starts "CCBridgeLibrary\\0" (game capacity at 60, library name at 64); its games
are CBR records, each starting on a 4096-byte boundary counted from the first one (a long game
takes several blocks). Each game is read on its own: a damaged one is skipped and reported by
number, the rest are kept.
"""
from __future__ import annotations

import struct

from rules.pgn import Game

from rules.formats._replay import PointMove, RawGame, build_game
from rules.formats.errors import CcBridgeError, GameList, SkippedGame

RECORD_MAGIC = b"CCBridge Record\x00"
LIBRARY_MAGIC = b"CCBridgeLibrary\x00"
RECORD_HEADER_SIZE = 2214
LIBRARY_BLOCK = 4096
TEXT_ENCODING = "utf-16-le"
_MAX_COMMENT = 1 << 20

_PIECES = {0x11: "R", 0x12: "N", 0x13: "B", 0x14: "A", 0x15: "K", 0x16: "C", 0x17: "P",
           0x21: "r", 0x22: "n", 0x23: "b", 0x24: "a", 0x25: "k", 0x26: "c", 0x27: "p"}
_RESULTS = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2", 4: "1/2-1/2"}
_TEXT_FIELDS = (("Title", 180, 128), ("Event", 692, 64), ("Red", 1076, 64), ("Black", 1300, 64))
_RESULT_OFFSET = 2076
_SIDE_OFFSET = 2116
_BOARD_OFFSET = 2120


def _cb_square(index: int) -> int:
    """CCBridge point (row from the top * 9 + file) -> square index (rank * 9 + file)."""
    row, file = divmod(index, 9)
    return (9 - row) * 9 + file if row <= 9 else -1


def _text(data: bytes, at: int, size: int) -> str:
    raw = data[at:at + size]
    for i in range(0, len(raw) - 1, 2):
        if raw[i] == 0 and raw[i + 1] == 0:
            raw = raw[:i]
            break
    return raw.decode(TEXT_ENCODING, errors="replace").replace("\r\n", "\n")


def read_cbr(data: bytes, source: str | None = None) -> Game:
    """The main line of one CCBridge record; CcBridgeError (offset or ply) when it cannot be read."""
    if not data.startswith(RECORD_MAGIC):
        raise CcBridgeError("not a CCBridge record (expected 'CCBridge Record' at the start)",
                            source=source, offset=0)
    if len(data) < RECORD_HEADER_SIZE:
        raise CcBridgeError(f"the record's header is cut short (expected {RECORD_HEADER_SIZE} bytes, "
                            f"the file has {len(data)})", source=source, offset=len(data))
    points = {}
    for index in range(90):
        code = data[_BOARD_OFFSET + index]
        if code == 0:
            continue
        if code not in _PIECES:
            raise CcBridgeError(f"point {index} of the stored position holds code 0x{code:02x} "
                                "(expected 0, 0x11-0x17 or 0x21-0x27)", source=source,
                                offset=_BOARD_OFFSET + index)
        points[_cb_square(index)] = _PIECES[code]
    headers = {name: _text(data, at, size) for name, at, size in _TEXT_FIELDS}
    side = struct.unpack_from("<H", data, _SIDE_OFFSET)[0]
    raw = RawGame(points=points, headers=headers, result=_RESULTS.get(data[_RESULT_OFFSET], "*"),
                  turn="w" if side == 1 else "b", board_offset=_BOARD_OFFSET)
    _read_main_line(data, raw, source)
    raw.variations = _count_variations(data)
    if raw.moves:
        # the stored side is not always kept up to date by writers; the first mover decides
        first = points.get(raw.moves[0].from_sq)
        raw.turn = None if first is not None else raw.turn
    return build_game(raw, CcBridgeError, source)


def _read_main_line(data: bytes, raw: RawGame, source: str | None) -> None:
    pos = RECORD_HEADER_SIZE
    index = 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise CcBridgeError("the file ends inside a move record (expected 4 bytes)",
                                source=source, offset=pos, ply=index - 1 if index else None)
        record = data[pos:pos + 4]
        at = pos
        pos += 4
        if record == b"\x00\x00\x00\x00" and index > 0:
            return
        flags, _, frm, to = record
        comment = None
        if flags & 0x04:
            if pos + 4 > len(data):
                raise CcBridgeError("the file ends inside a comment length (expected 4 bytes)",
                                    source=source, offset=pos)
            length = struct.unpack_from("<i", data, pos)[0]
            if not 0 <= length <= min(_MAX_COMMENT, len(data) - pos - 4):
                raise CcBridgeError(f"a comment length of {length} bytes does not fit the record "
                                    f"({len(data) - pos - 4} bytes left)", source=source, offset=pos,
                                    ply=index - 1 if index else None)
            pos += 4
            comment = _text(data, pos, length) or None
            pos += length
        if index == 0:
            raw.initial_comment = comment     # the root: its flags say nothing of the moves
        else:
            raw.moves.append(PointMove(_cb_square(frm), _cb_square(to), at, comment))
            if flags & 0x01:
                return
        index += 1


def _count_variations(data: bytes) -> int:
    """How many variations the record's move tree holds: records flagged 0x02 "a variation
    follows". The tree ends when every line opened has ended (0x01) or at four zero bytes;
    what follows is not records. Counted leniently (to the first record that does not fit):
    the count only feeds a warning that they are left out."""
    pos = RECORD_HEADER_SIZE
    index = 0
    count = 0
    open_lines = 1
    while pos + 4 <= len(data) and open_lines:
        record = data[pos:pos + 4]
        pos += 4
        if record == b"\x00\x00\x00\x00" and index > 0:
            break
        flags = record[0]
        if index:                       # the root's flags say nothing of the moves
            count += bool(flags & 0x02)
            open_lines += bool(flags & 0x02) - bool(flags & 0x01)
        if flags & 0x04:
            if pos + 4 > len(data):
                break
            length = struct.unpack_from("<i", data, pos)[0]
            if not 0 <= length <= len(data) - pos - 4:
                break
            pos += 4 + length
        index += 1
    return count


def read_cbl(data: bytes, source: str | None = None) -> GameList:
    """Every game of a CCBridge library; damaged games are skipped and listed in `.skipped`."""
    if not data.startswith(LIBRARY_MAGIC):
        raise CcBridgeError("not a CCBridge library (expected 'CCBridgeLibrary' at the start)",
                            source=source, offset=0)
    first = data.find(RECORD_MAGIC, len(LIBRARY_MAGIC))
    games: GameList = GameList(fmt="cbl")
    if first < 0:
        return games
    starts = []
    at = first
    while at < len(data):
        if data.startswith(RECORD_MAGIC, at):
            starts.append(at)
        at += LIBRARY_BLOCK
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(data)
        try:
            games.append(read_cbr(data[start:end]))
        except CcBridgeError as exc:
            located = exc.located(source=source, game_index=number, offset_base=start)
            games.skipped.append(SkippedGame(number + 1, str(located)))
    return games
