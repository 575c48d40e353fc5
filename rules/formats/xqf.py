"""XQF, the binary record of XQStudio (象棋演播室), read and written.

    read_xqf(data, source=None) -> Game        write_xqf(game, version=0x12, key_seed=0) -> bytes

Layout (all versions): a 1024-byte header, then the move tree as records in pre-order.

    0   "XQ"          2  version (10 = 1.0 plain; 11 = 1.1 keyed; >= 12 keyed, piece slots rotated)
    3   key bytes     KeyMask, ProductId (4), KeyOrA..D, KeysSum, KeyXY, KeyXYf, KeyXYt (to 15)
    16  32 slots      red R N B A K A B N R C C P P P P P, then black; slot = file*10 + rank
    51  result        0 unknown, 1 red won, 2 black won, 3/4 draw
    80, 208, 272, 288, 304, 320, 336, 400, 416, 464, 480
                      Pascal strings (length byte, GBK text): title (63), event (63), date (15),
                      site (15), red (15), black (15), time rule (63), red time, black time,
                      annotator, author (15 each)

A record is 4 bytes (from + 0x18, to + 0x20, flags, 0), then a comment. Version <= 10: flags
high nibble "a next move follows", low nibble "a variation follows"; every record is followed
by a 4-byte comment length. Later versions: flags 0x80 next, 0x40 variation, 0x20 "a comment
follows" (4-byte length plus KeyRMKSize, then the text); from/to carry KeyXYf/KeyXYt and every
byte from offset 1024 on carries a key byte, repeating every 32 bytes. The first record is the
root (no move; its comment is the game's opening comment). Since the tree is written in
pre-order with the next move before the variations, the main line is simply the run of records
from the start up to the first one without a next move: variations after it are skipped.
(The root's own "next" flag is not trusted: some writers leave it unset although moves follow.)

Key arithmetic (from the public descriptions of XQStudio's format): for a header byte b and a
previous key k, f(b, k) = (((((b*b)*3+9)*3+8)*2+1)*3+8) * k (mod 256); KeyXY = f(KeyXY, KeyXY),
KeyXYf = f(KeyXYf, KeyXY), KeyXYt = f(KeyXYt, KeyXYf), KeyRMKSize = (KeysSum*256 + KeyXY) mod
32000 + 767, and the 32 body key bytes are "[(C) Copyright Mr. Dong Shiwei.]" AND-ed with
((KeysSum, KeyXY, KeyXYf, KeyXYt)[i % 4] AND KeyMask) OR KeyOr[i % 4].
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from rules.pgn import Game
from rules.squares import SQUARE_NAMES

from rules.formats._replay import PointMove, RawGame, build_game, points_to_slots, slots_to_points
from rules.formats.errors import XqfError

MAGIC = b"XQ"
HEADER_SIZE = 1024
PLAIN_MAX_VERSION = 10          # versions up to this store everything in the clear
ROTATED_MIN_VERSION = 12        # from this version the 32 piece slots are also rotated
DEFAULT_VERSION = 0x12          # what XQStudio 1.8 writes (keyed and rotated)
_COPYRIGHT = b"[(C) Copyright Mr. Dong Shiwei.]"
_RESULTS = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2", 4: "1/2-1/2"}
_RESULT_CODES = {"*": 0, "1-0": 1, "0-1": 2, "1/2-1/2": 3}
_RESULT_OFFSET = 51
_MAX_COMMENT = 1 << 20          # a longer comment length is a damaged file, not a comment

# (header tag, offset of the length byte, capacity in bytes)
_TEXT_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("Title", 80, 63), ("Event", 208, 63), ("Date", 272, 15), ("Site", 288, 15),
    ("Red", 304, 15), ("Black", 320, 15), ("TimeControl", 336, 63), ("RedTime", 400, 15),
    ("BlackTime", 416, 15), ("Annotator", 464, 15), ("Author", 480, 15),
)
CARRIED_HEADERS = tuple(name for name, _, _ in _TEXT_FIELDS)
TEXT_ENCODING = "gb18030"


@dataclass(frozen=True)
class XqfKeys:
    """The keys a keyed XQF derives from its header bytes 3..15."""

    xy: int          # piece slots (and their rotation)
    xyf: int         # move from-points
    xyt: int         # move to-points
    rmk_size: int    # added to comment lengths
    body: bytes      # 32 key bytes added to every byte from offset 1024 on

    @classmethod
    def from_header(cls, header: bytes) -> "XqfKeys":
        mask = header[3]
        or_a, or_b, or_c, or_d = header[8:12]
        keys_sum, key_xy, key_xyf, key_xyt = header[12:16]
        xy = _square_key(key_xy, key_xy)
        xyf = _square_key(key_xyf, xy)
        xyt = _square_key(key_xyt, xyf)
        rmk = (keys_sum * 256 + key_xy) % 32000 + 767
        mix = ((keys_sum & mask) | or_a, (key_xy & mask) | or_b,
               (key_xyf & mask) | or_c, (key_xyt & mask) | or_d)
        body = bytes(c & mix[i % 4] for i, c in enumerate(_COPYRIGHT))
        return cls(xy, xyf, xyt, rmk, body)


def _square_key(b: int, k: int) -> int:
    return ((((((b * b) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * k) & 0xFF


def _slot_square(value: int) -> int | None:
    """XQF slot byte (file*10 + rank) -> square index, None when off the board."""
    file, rank = divmod(value, 10)
    if file > 8:
        return None
    return rank * 9 + file


def _square_slot(sq: int) -> int:
    return (sq % 9) * 10 + sq // 9


# ---- reading ----------------------------------------------------------------------------------

def read_xqf(data: bytes, source: str | None = None) -> Game:
    """The main line of the XQF record `data`; XqfError (offset or ply) when it cannot be read."""
    if len(data) < HEADER_SIZE or data[:2] != MAGIC:
        what = "shorter than its 1024-byte header" if data[:2] == MAGIC else "missing the 'XQ' mark"
        raise XqfError(f"not an XQF record: {what} (expected 'XQ' and a 1024-byte header)",
                       source=source, offset=0 if data[:2] != MAGIC else len(data))
    version = data[2]
    keys = None if version <= PLAIN_MAX_VERSION else XqfKeys.from_header(data)
    points = _read_pieces(data, version, keys, source)
    body = data[HEADER_SIZE:]
    if keys is not None:
        kb = keys.body
        body = bytes((c - kb[(HEADER_SIZE + i) % 32]) & 0xFF for i, c in enumerate(body))
    raw = RawGame(points=points, headers=_read_headers(data), board_offset=16,
                  result=_RESULTS.get(data[_RESULT_OFFSET], "*"))
    _read_main_line(body, version, keys, raw, source)
    raw.variations = _count_variations(body, keys)
    return build_game(raw, XqfError, source)


def _count_variations(body: bytes, keys: XqfKeys | None) -> int:
    """How many variations the move tree holds: records flagged "a variation follows" (each
    such flag puts one alternative after the record's subtree). The tree ends when every line
    opened has ended (a record with no next move); bytes after it are not records. Counted
    leniently, to the first record that does not fit: the count only feeds a warning."""
    pos = 0
    index = 0
    count = 0
    open_lines = 1
    while pos + 4 <= len(body) and open_lines:
        flags = body[pos + 2]
        pos += 4
        if keys is None:
            has_next, has_variation = bool(flags & 0xF0), bool(flags & 0x0F)
            has_comment = True
        else:
            has_next, has_variation = bool(flags & 0x80), bool(flags & 0x40)
            has_comment = bool(flags & 0x20)
        if index:                       # the root's flags say nothing of the moves
            count += has_variation
            open_lines += has_variation - (not has_next)
        if has_comment:
            if pos + 4 > len(body):
                break
            length = struct.unpack_from("<i", body, pos)[0] - (keys.rmk_size if keys else 0)
            if not 0 <= length <= len(body) - pos - 4:
                break
            pos += 4 + length
        index += 1
    return count


def _read_pieces(data: bytes, version: int, keys: XqfKeys | None, source: str | None) -> dict[int, str]:
    stored = data[16:48]
    if keys is None:
        values = list(stored)
    else:
        values = [0] * 32
        for i in range(32):
            j = (keys.xy + i + 1) & 31 if version >= ROTATED_MIN_VERSION else i
            values[j] = (stored[i] - keys.xy) & 0xFF
    slots = [None if v > 89 else _slot_square(v) for v in values]
    points, clashes = slots_to_points(slots)
    if clashes:
        raise XqfError(f"two pieces stand on {SQUARE_NAMES[slots[clashes[0]] or 0]} in the stored "
                       "position (expected 32 distinct points or 'off the board')",
                       source=source, offset=16 + clashes[0])
    return points


def _read_headers(data: bytes) -> dict[str, str]:
    headers = {}
    for name, at, capacity in _TEXT_FIELDS:
        n = min(data[at], capacity)
        text = data[at + 1:at + 1 + n].decode(TEXT_ENCODING, errors="replace").strip("\x00")
        if text:
            headers[name] = text
    return headers


def _read_main_line(body: bytes, version: int, keys: XqfKeys | None, raw: RawGame,
                    source: str | None) -> None:
    pos = 0
    index = 0
    while True:
        at = HEADER_SIZE + pos
        if pos + 4 > len(body):
            what = "the opening record" if index == 0 else f"the record of ply {index}"
            raise XqfError(f"the file ends inside {what} (expected 4 more bytes of a move record)",
                           source=source, offset=at, ply=index - 1 if index else None)
        b0, b1, flags, _ = body[pos:pos + 4]
        pos += 4
        if keys is None:
            has_next = bool(flags & 0xF0)
            has_comment = True
        else:
            has_next = bool(flags & 0x80)
            has_comment = bool(flags & 0x20)
        comment = None
        if has_comment:
            if pos + 4 > len(body):
                raise XqfError("the file ends inside a comment length (expected 4 bytes)",
                               source=source, offset=HEADER_SIZE + pos)
            length = struct.unpack_from("<i", body, pos)[0] - (keys.rmk_size if keys else 0)
            if not 0 <= length <= min(_MAX_COMMENT, len(body) - pos - 4):
                raise XqfError(f"a comment length of {length} bytes does not fit the file "
                               f"({len(body) - pos - 4} bytes left)", source=source,
                               offset=HEADER_SIZE + pos, ply=index - 1 if index else None)
            pos += 4
            text = body[pos:pos + length].decode(TEXT_ENCODING, errors="replace")
            comment = text.replace("\r\n", "\n").strip("\x00") or None
            pos += length
        if index == 0:
            raw.initial_comment = comment
        else:
            frm = (b0 - 0x18 - (keys.xyf if keys else 0)) & 0xFF
            to = (b1 - 0x20 - (keys.xyt if keys else 0)) & 0xFF
            raw.moves.append(PointMove(_coded_square(frm), _coded_square(to), at, comment))
        if not has_next and not (index == 0 and pos + 4 <= len(body)):
            return      # the root's flag is not trusted: writers leave it unset before moves
        index += 1


def _coded_square(value: int) -> int:
    sq = _slot_square(value)
    return -1 if sq is None else sq


# ---- writing ----------------------------------------------------------------------------------

def write_xqf(game: Game, version: int = DEFAULT_VERSION, key_seed: int = 0) -> bytes:
    """The game's main line as an XQF record that XQStudio and other XQF readers open.

    `version` 10 writes the plain layout; 11 and up the keyed one, with header key bytes drawn
    from `key_seed` (any int; 0 gives fixed keys, so the output is reproducible). Text fields
    have fixed sizes (15 or 63 bytes of GBK): a longer tag is cut at a character boundary.
    ValueError for a position that a 32-piece set cannot hold.
    """
    if not 0 <= version <= 0xFF:
        raise ValueError(f"XQF version {version} is not a byte")
    header = bytearray(HEADER_SIZE)
    header[0:2] = MAGIC
    header[2] = version
    keys = None
    if version > PLAIN_MAX_VERSION:
        seed = bytes((key_seed >> (8 * i)) & 0xFF for i in range(8))
        header[3] = 0xFF                           # KeyMask
        header[8:12] = bytes(0 for _ in range(4))  # KeyOrA..D
        header[12:16] = bytes(((seed[i] * 37 + 11 * i + 5) & 0xFF) for i in range(4))
        keys = XqfKeys.from_header(bytes(header))
    pos = game.start_position()
    slots = points_to_slots(dict(pos.pieces()))
    values = [0xFF if sq is None else _square_slot(sq) for sq in slots]
    if keys is None:
        header[16:48] = bytes(values)
    else:
        for i in range(32):
            j = (keys.xy + i + 1) & 31 if version >= ROTATED_MIN_VERSION else i
            header[16 + i] = (values[j] + keys.xy) & 0xFF
    header[_RESULT_OFFSET] = _RESULT_CODES.get(game.result, 0)
    header[50] = 0 if pos.turn == "w" else 1
    for name, at, capacity in _TEXT_FIELDS:
        raw = _fit(game.headers.get(name, ""), capacity)
        header[at] = len(raw)
        header[at + 1:at + 1 + len(raw)] = raw
    body = bytearray()
    records = [(None, game.initial_comment)] + [
        (move, game.comments[i] if i < len(game.comments) else None) for i, move in enumerate(game.moves)]
    for i, (move, comment) in enumerate(records):
        frm, to = (0, 0) if move is None else (_square_slot(move.from_sq), _square_slot(move.to_sq))
        last = i == len(records) - 1
        text = (comment or "").encode(TEXT_ENCODING, errors="replace")
        if keys is None:
            body += bytes([(frm + 0x18) & 0xFF, (to + 0x20) & 0xFF, 0x00 if last else 0xF0, 0])
            body += struct.pack("<i", len(text)) + text
        else:
            flags = (0 if last else 0x80) | (0x20 if text else 0)
            body += bytes([(frm + 0x18 + keys.xyf) & 0xFF, (to + 0x20 + keys.xyt) & 0xFF, flags, 0])
            if text:
                body += struct.pack("<i", len(text) + keys.rmk_size) + text
    if keys is not None:
        kb = keys.body
        body = bytearray((c + kb[(HEADER_SIZE + i) % 32]) & 0xFF for i, c in enumerate(body))
    return bytes(header) + bytes(body)


def _fit(text: str, capacity: int) -> bytes:
    """`text` as GBK bytes, cut at a character boundary to fit `capacity` bytes."""
    out = b""
    for ch in str(text):
        piece = ch.encode(TEXT_ENCODING, errors="replace")
        if len(out) + len(piece) > capacity:
            break
        out += piece
    return out
