"""Game files in PGN, the xqbase convention for Xiangqi: read and write.

    read_pgn(text) -> list[Game]          read_pgn_file(path) -> list[Game]   (UTF-8 or GBK)
    write_pgn(game, notation="chinese", traditional=False) -> str

The xqbase convention: `[Game "Chinese Chess"]`, `[Format "ICCS"|"WXF"|"Chinese"]` saying how the
moves are written, `[FEN "..."]` for a non-standard start, the usual PGN result tokens, clock
readings as `{[%clk 0:10:00]}` comments. The reader takes what real files contain: move numbers
glued to moves or not, `1...` for black, nested `{}` comments, `;` and `%` comments, variations
`( ... )` (skipped: the main line is the game), NAGs `$1` and `!?` glyphs, junk after a game's
result (xqbase appends a web-site banner) and text in UTF-8, GBK/GB18030 or Big5, with or
without a BOM. Moves are parsed with `rules.notation.parse_move` against the position they are
played in, so every move read is legal.

An illegal or unreadable move stops reading with a PgnError naming the game (1-based in the
message; `game_index` is 0-based), the ply (`ply`, 0-based; 1-based in the message), the
token and the line, and `.games` holds every game read completely before it: nothing
recorded before the fault is lost.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from rules.bounded_read import GAME_FILE_MAX_BYTES, InputTooLargeError, read_file_bounded
from rules.errors import NotationError, PgnError, RulesError
from rules.move import Move
from rules.notation import canonical_notation, format_move, parse_move
from rules.notation_common import NotationSyntaxError
from rules.position import START_FEN, Position

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_RESULT_ALIASES = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "½-½": "1/2-1/2",
                   "1/2": "1/2-1/2", "0.5-0.5": "1/2-1/2", "*": "*"}
FORMAT_NAMES = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "yizi": "Yizi"}

__all__ = ["Game", "read_pgn", "read_pgn_file", "write_pgn", "decode_game_file", "PgnError",
           "format_clock", "parse_clock"]


@dataclass
class Game:
    """One game: tags, start, moves and, per move, the mover's clock after it and a comment.

    clocks_ms[i] and comments[i] belong to moves[i] (None where the file has none); both lists
    are padded to the length of `moves`. `initial_comment` is a comment written before the
    first move (kept so that rewriting a file loses nothing). `skipped_variations` counts the
    variations the file held for this game that were not read (only the main line is the game),
    so that a tool rewriting the file can say what it leaves out; it is not part of equality.
    """

    headers: dict[str, str] = field(default_factory=dict)
    start_fen: str | None = None
    moves: list[Move] = field(default_factory=list)
    clocks_ms: list[int | None] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    result: str = "*"
    initial_comment: str | None = None
    skipped_variations: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        n = len(self.moves)
        for name in ("clocks_ms", "comments"):
            values = list(getattr(self, name))
            if len(values) > n:
                raise ValueError(f"Game.{name} has {len(values)} entries for {n} moves")
            setattr(self, name, values + [None] * (n - len(values)))
        if self.result not in RESULTS:
            raise ValueError(f"Game.result {self.result!r} must be one of {', '.join(RESULTS)}")

    def start_position(self) -> Position:
        return Position.from_fen(self.start_fen) if self.start_fen else Position()

    def end_position(self) -> Position:
        """The position after the last move (every move is checked)."""
        pos = self.start_position()
        for move in self.moves:
            pos.push(move)
        return pos


# ---- decoding -------------------------------------------------------------------------------

_SCORE_CHARS = set("进進退平前后後中马馬车車炮砲帅帥将將仕士相象兵卒一二三四五六七八九红紅黑胜勝负負和先")


def decode_game_file(data: bytes, name: str = "game file") -> str:
    """Text of a game file: UTF-8 (with or without BOM), UTF-16 with BOM, else GBK/GB18030 or Big5.

    Chinese game files come from Windows programs in the legacy code pages; GB18030 decodes
    almost any byte string, so when Big5 also decodes the bytes the one that yields more of
    the characters Xiangqi records are made of is taken.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise PgnError(f"{name}: has a UTF-16 byte-order mark but is not valid UTF-16 "
                           f"(byte {exc.start})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        utf8_fault = exc.start
    candidates = []
    for codec in ("gb18030", "big5"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        candidates.append((sum(ch in _SCORE_CHARS for ch in text), codec == "gb18030", text))
    if not candidates:
        raise PgnError(f"{name}: neither UTF-8 (bad byte at offset {utf8_fault}) nor GBK/GB18030 "
                       "nor Big5 text")
    return max(candidates, key=lambda c: (c[0], c[1]))[2]


def read_pgn_file(path, max_bytes: int = GAME_FILE_MAX_BYTES) -> list[Game]:
    """Every game in the file at `path` (UTF-8 or GBK, detected); see `read_pgn`.

    At most `max_bytes` are read (PgnError past it), so a device or pipe cannot exhaust memory."""
    p = Path(path)
    try:
        data = read_file_bounded(p, max_bytes, what="game file", option=None)
    except OSError as exc:
        raise PgnError(f"{p}: cannot read the file: {exc.strerror or exc}") from None
    except InputTooLargeError as exc:
        raise PgnError(str(exc)) from None
    text = decode_game_file(data, str(p))
    try:
        return read_pgn(text)
    except PgnError as exc:
        raise PgnError(f"{p}: {exc}", game_index=exc.game_index, ply=exc.ply, token=exc.token,
                       games=exc.games) from None


# ---- tokenizer ------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Token:
    kind: str     # tag comment open close nag symbol
    text: str
    line: int
    value: str = ""   # tag value


_SYMBOL_END = set(" \t\r\n\f\v{}()[];")
_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]', re.S)


class _Tokens:
    """PGN lexer; raises PgnError (without game context) on unterminated tags/comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1

    def __iter__(self) -> Iterator[_Token]:
        text, n = self.text, len(self.text)
        while self.i < n:
            ch = text[self.i]
            if ch == "\n":
                self.line += 1
                self.i += 1
                if self.i < n and text[self.i] == "%":           # escape line
                    self._skip_line()
                continue
            if ch.isspace() or ch == "\ufeff":
                self.i += 1
                continue
            if self.i == 0 and ch == "%":
                self._skip_line()
                continue
            start_line = self.line
            if ch == "[":
                m = _TAG_RE.match(text, self.i)
                if not m:
                    end = text.find("\n", self.i)
                    snippet = text[self.i:end if end != -1 else n].strip()
                    raise PgnError(f"line {start_line}: malformed tag {snippet[:60]!r} "
                                   '(expected [Name "value"])', token=snippet[:60])
                self.line += m.group(0).count("\n")
                self.i = m.end()
                value = re.sub(r"\\(.)", r"\1", m.group(2))
                yield _Token("tag", m.group(1), start_line, value)
            elif ch == "{":
                depth, j = 0, self.i
                while j < n:
                    c = text[j]
                    if c == "{":
                        depth += 1
                    elif c == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j >= n:
                    raise PgnError(f"line {start_line}: comment '{{' is never closed", token="{")
                body = text[self.i + 1:j]
                self.line += body.count("\n")
                self.i = j + 1
                yield _Token("comment", body, start_line)
            elif ch == ";":
                end = text.find("\n", self.i)
                end = n if end == -1 else end
                body = text[self.i + 1:end]
                self.i = end
                yield _Token("comment", body, start_line)
            elif ch == "(":
                self.i += 1
                yield _Token("open", "(", start_line)
            elif ch == ")":
                self.i += 1
                yield _Token("close", ")", start_line)
            elif ch in "]}":
                self.i += 1
                yield _Token("symbol", ch, start_line)
            else:
                j = self.i
                while j < n and text[j] not in _SYMBOL_END:
                    j += 1
                word = text[self.i:j]
                self.i = j
                if word.startswith("$") and word[1:].isdigit():
                    yield _Token("nag", word, start_line)
                else:
                    yield _Token("symbol", word, start_line)

    def _skip_line(self) -> None:
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end == -1 else end


# ---- reader ---------------------------------------------------------------------------------

_MOVE_NUMBER_RE = re.compile(r"^(\d+)\s*(\.{1,3}|…|、)(.*)$")
_FIRST_MOVE_RE = re.compile(r"^1(\.{1,3}|…|、)(\D.*)?$")


def _nfkc(text: str) -> str:
    """Full-width digits and stops (１．) as ASCII, so move numbers are recognised."""
    return unicodedata.normalize("NFKC", text)
_CLOCK_RE = re.compile(r"\[%clk\s+([^\]]*)\]")
_GLYPHS = "!?"


def parse_clock(text: str) -> int:
    """'1:30:00', '0:09:58.5', '9:58' -> milliseconds (ValueError when not a clock)."""
    s = text.strip()
    sign = -1 if s.startswith("-") else 1
    parts = s.lstrip("-").split(":")
    if not 1 <= len(parts) <= 3 or not all(parts):
        raise ValueError(f"clock {text!r} is not h:mm:ss")
    try:
        secs = float(parts[-1])
        mins = int(parts[-2]) if len(parts) >= 2 else 0
        hours = int(parts[-3]) if len(parts) == 3 else 0
    except ValueError:
        raise ValueError(f"clock {text!r} is not h:mm:ss") from None
    if secs < 0 or secs >= 60 and len(parts) > 1 or mins < 0 or (mins >= 60 and len(parts) == 3) or hours < 0:
        raise ValueError(f"clock {text!r} is not h:mm:ss")
    return sign * int(round(((hours * 60 + mins) * 60 + secs) * 1000))


def format_clock(ms: int) -> str:
    """Milliseconds -> 'h:mm:ss' (with a decimal fraction only when not whole seconds)."""
    sign = "-" if ms < 0 else ""
    ms = abs(int(ms))
    secs, frac = divmod(ms, 1000)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    text = f"{sign}{h}:{m:02d}:{s:02d}"
    if frac:
        text += f".{frac:03d}".rstrip("0")
    return text


class _GameBuilder:
    def __init__(self, index: int, line: int) -> None:
        self.index = index
        self.line = line
        self.headers: dict[str, str] = {}
        self.moves: list[Move] = []
        self.clocks: list[int | None] = []
        self.comments: list[str | None] = []
        self.initial_comment: str | None = None
        self.initial_clock: int | None = None
        self.result: str | None = None
        self.pos: Position | None = None
        self.notation: str | None = None
        self.start_fen: str | None = None
        self.variations = 0           # variations '(' ... ')' skipped, nested ones included

    @property
    def has_movetext(self) -> bool:
        return self.pos is not None

    def label(self) -> str:
        red, black = self.headers.get("Red"), self.headers.get("Black")
        who = f" ({red} vs {black})" if red or black else ""
        return f"game {self.index + 1}{who}"

    def fail(self, message: str, *, ply: int | None, token: str | None, line: int, games: list[Game]) -> PgnError:
        where = f", ply {ply + 1} ({_move_label(self.pos, ply)})" if ply is not None else ""
        tok = f" {token!r}" if token is not None else ""
        return PgnError(f"{self.label()}{where}{tok}, line {line}: {message}",
                        game_index=self.index, ply=ply, token=token, games=games)

    def start(self, games: list[Game], line: int) -> None:
        """Enter the movetext: set up the start position from the tags."""
        fen = self.headers.get("FEN", "").strip()
        if fen:
            try:
                self.pos = Position.from_fen(fen)
            except RulesError as exc:
                raise self.fail(f"bad [FEN] tag: {exc}", ply=None, token=fen, line=line, games=games) from None
            self.start_fen = fen
        else:
            self.pos = Position()
        fmt = self.headers.get("Format", "").strip()
        if fmt:
            try:
                self.notation = canonical_notation(fmt)
            except NotationError:
                self.notation = None   # unknown Format: recognise each move by its shape

    def add_comment(self, body: str) -> None:
        clock: int | None = None

        def take_clock(m: re.Match) -> str:
            nonlocal clock
            try:
                clock = parse_clock(m.group(1))
            except ValueError:
                return m.group(0)       # not a clock after all: keep the text
            return ""

        stripped = _CLOCK_RE.sub(take_clock, body)
        text = " ".join(stripped.split()) or None
        if not self.moves:
            if clock is not None:
                self.initial_clock = clock
            if text:
                self.initial_comment = text if self.initial_comment is None else f"{self.initial_comment} {text}"
            return
        if clock is not None:
            self.clocks[-1] = clock
        if text:
            prev = self.comments[-1]
            self.comments[-1] = text if prev is None else f"{prev} {text}"

    def add_move(self, token: _Token, games: list[Game]) -> None:
        ply = len(self.moves)
        move = None
        error: NotationError | None = None
        for text in _move_spellings(token.text):
            try:
                move = self._parse(text)
                break
            except NotationSyntaxError as exc:
                error = error or exc
            except NotationError as exc:
                error = exc
                break
        if move is None:
            message = str(error)
            for prefix in (token.text + ": ", token.text.strip() + ": "):
                if message.startswith(prefix):   # the token is already named once
                    message = message[len(prefix):]
                    break
            raise self.fail(message, ply=ply, token=token.text, line=token.line, games=games)
        assert self.pos is not None     # add_move is only called inside the movetext
        self.pos.push(move)
        self.moves.append(move)
        self.clocks.append(None)
        self.comments.append(None)

    def _parse(self, text: str) -> Move:
        if self.notation is None:
            return parse_move(self.pos, text)
        try:
            return parse_move(self.pos, text, self.notation)
        except NotationSyntaxError:
            # a wrong [Format] tag is common; a move that reads in another notation is accepted
            try:
                return parse_move(self.pos, text)
            except NotationSyntaxError:
                raise NotationSyntaxError(f"{text} is not a move in {FORMAT_NAMES[self.notation]} "
                                          "notation (the file's [Format]) nor in another notation") from None

    def build(self) -> Game:
        result = self.result or _RESULT_ALIASES.get(self.headers.get("Result", "*").strip(), "*")
        initial = self.initial_comment
        if self.initial_clock is not None:
            clk = f"[%clk {format_clock(self.initial_clock)}]"
            initial = clk if initial is None else f"{clk} {initial}"
        return Game(headers=dict(self.headers), start_fen=self.start_fen, moves=self.moves,
                    clocks_ms=self.clocks, comments=self.comments, result=result,
                    initial_comment=initial, skipped_variations=self.variations)


def _move_label(pos: Position | None, ply: int) -> str:
    if pos is None:
        return ""
    # pos is the position before the bad move
    number = pos.fullmove_number
    return f"move {number}{'.' if pos.turn == 'w' else '...'}"


def _move_spellings(token: str) -> list[str]:
    """The token, then without trailing annotation glyphs / check marks (炮二平五!?, h2e2+)."""
    out = [token]
    stripped = token.rstrip(_GLYPHS)
    if stripped and stripped != token:
        out.append(stripped)
    for mark in ("#", "+", "++"):
        if stripped.endswith(mark) and len(stripped) > len(mark):
            out.append(stripped[: -len(mark)])
    return out


def read_pgn(text: str) -> list[Game]:
    """Every game in PGN `text`; PgnError (with `.games` read so far) at the first fault."""
    games: list[Game] = []
    builder: _GameBuilder | None = None
    after_result = False          # skipping junk between a result and the next game
    depth = 0                     # variation nesting
    var_line = 0
    tokens = _Tokens(text)
    try:
        for tok in tokens:
            if after_result:
                # junk (a site banner) may follow a result; a new game starts with tags, or
                # in a tag-less file with the move number "1."
                if tok.kind == "tag" or (tok.kind == "symbol" and _FIRST_MOVE_RE.match(_nfkc(tok.text))):
                    after_result = False
                else:
                    continue
            if depth:
                if tok.kind == "open":
                    depth += 1
                    if builder is not None:
                        builder.variations += 1
                elif tok.kind == "close":
                    depth -= 1
                elif tok.kind == "tag" and builder is not None:
                    raise builder.fail("variation '(' opened here is never closed before the next game",
                                       ply=None, token="(", line=var_line, games=games)
                continue
            if tok.kind == "tag":
                if builder is not None and builder.has_movetext:
                    if builder.moves:
                        games.append(builder.build())  # previous game ended without a result
                        builder = None
                    else:
                        builder.pos = None             # only comments so far: still the tag section
                if builder is None:
                    builder = _GameBuilder(len(games), tok.line)
                builder.headers[tok.text] = tok.value
                continue
            if builder is None:
                builder = _GameBuilder(len(games), tok.line)
            if not builder.has_movetext:
                builder.start(games, tok.line)
            if tok.kind == "comment":
                builder.add_comment(tok.text)
            elif tok.kind == "nag":
                continue
            elif tok.kind == "open":
                depth, var_line = 1, tok.line
                builder.variations += 1
            elif tok.kind == "close":
                raise builder.fail("')' closes no variation", ply=None, token=")", line=tok.line, games=games)
            else:
                word = _nfkc(tok.text)
                m = _MOVE_NUMBER_RE.match(word)
                if m:
                    word = m.group(3)
                    if not word:
                        continue
                    tok = _Token("symbol", word, tok.line)
                if word in _RESULT_ALIASES:
                    builder.result = _RESULT_ALIASES[word]
                    games.append(builder.build())
                    builder = None
                    after_result = True
                    continue
                if word and all(c in _GLYPHS for c in word):
                    continue
                builder.add_move(tok, games)
    except PgnError as exc:
        if exc.games or exc.game_index is not None:
            raise
        # a lexer fault: give it the game context
        index = builder.index if builder is not None else len(games)
        raise PgnError(f"game {index + 1}, {exc}", game_index=index, ply=None, token=exc.token,
                       games=games) from None
    if depth and builder is not None:
        raise builder.fail("variation '(' opened here is never closed", ply=None, token="(",
                           line=var_line, games=games)
    if builder is not None and (builder.has_movetext or builder.headers):
        if not builder.has_movetext:
            builder.start(games, tokens.line)
        games.append(builder.build())
    return games


# ---- writer ---------------------------------------------------------------------------------

def _escape_tag(value: str) -> str:
    """A tag value on one line, as it was otherwise (runs of spaces kept: names are compared)."""
    text = re.sub(r"[\r\n\t\v\f]+", " ", str(value))
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _comment_text(text: str) -> str:
    """Comment body safe inside {}: balanced braces are kept (the reader nests), others widened."""
    depth = 0
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "｛").replace("}", "｝")
    return text


def _is_standard_start(fen: str | None) -> bool:
    if not fen:
        return True
    try:
        return Position.from_fen(fen).fen() == Position.from_fen(START_FEN).fen()
    except RulesError:
        return False


# The tag order PGN readers expect (the chess Seven Tag Roster with Red/Black, as xqbase writes
# it); the game's other tags follow in their own order, then FEN and Format.
USUAL_TAG_ORDER = ("Game", "Event", "Site", "Date", "Round", "Red", "Black", "Result")
ICCS_STYLES = ("plain", "xqbase")


def _iccs_text(move: Move, style: str) -> str:
    """'h2e2' (plain) or 'H2-E2' (xqbase, what XQStudio and other older readers look for)."""
    text = move.iccs()
    return text if style == "plain" else f"{text[:2].upper()}-{text[2:].upper()}"


def write_pgn(game: Game, notation: str = "chinese", traditional: bool = False,
              iccs_style: str = "plain") -> str:
    """The game as xqbase-style PGN text, moves in `notation` (iccs, wxf, chinese, yizi).

    Tags in the usual order (`USUAL_TAG_ORDER`: Game, Event, Site, Date, Round, Red, Black,
    Result), then the game's other tags in their order, [FEN] only for a non-standard start,
    [Format] naming the notation. `iccs_style` "xqbase" writes ICCS moves as `H2-E2`, the form
    older readers expect; "plain" as `h2e2`. One move pair per line; clock readings as
    {[%clk h:mm:ss]} comments after the move they belong to (a reader that does not know %clk
    keeps or skips them as ordinary comments).
    """
    notation = canonical_notation(notation)
    if iccs_style not in ICCS_STYLES:
        raise ValueError(f"iccs_style {iccs_style!r} must be one of {', '.join(ICCS_STYLES)}")
    values = {"Game": "Chinese Chess", "Result": game.result}
    for key, value in game.headers.items():
        if key not in ("Game", "Format", "FEN", "Result"):
            values[key] = value
    lines = []
    for key in USUAL_TAG_ORDER:
        if key in values:
            lines.append(f'[{key} "{_escape_tag(values.pop(key))}"]')
    lines.extend(f'[{key} "{_escape_tag(value)}"]' for key, value in values.items())
    if game.start_fen is not None and not _is_standard_start(game.start_fen):
        lines.append(f'[FEN "{_escape_tag(game.start_fen)}"]')
    lines.append(f'[Format "{FORMAT_NAMES[notation]}"]')
    lines.append("")

    pos = game.start_position()
    if game.initial_comment:
        lines.append("{" + _comment_text(game.initial_comment) + "}")
    row: list[str] = []
    for ply, move in enumerate(game.moves):
        try:
            text = format_move(pos, move, notation, traditional)
        except NotationError as exc:
            raise PgnError(f"cannot write game: ply {ply + 1} {move.iccs()}: {exc}", ply=ply,
                           token=move.iccs()) from None
        if notation == "iccs":
            text = _iccs_text(move, iccs_style)
        red = pos.turn == "w"
        if red or not row:
            if row:
                lines.append(" ".join(row))
            row = [f"{pos.fullmove_number}.{'' if red else '..'}"]
        row.append(text)
        clock = game.clocks_ms[ply] if ply < len(game.clocks_ms) else None
        comment = game.comments[ply] if ply < len(game.comments) else None
        parts = []
        if clock is not None:
            parts.append(f"[%clk {format_clock(clock)}]")
        if comment:
            parts.append(_comment_text(comment))
        if parts:
            row.append("{" + " ".join(parts) + "}")
        pos.push(move)
        if not red:
            lines.append(" ".join(row))
            row = []
    if row:
        lines.append(" ".join(row))
    lines.append(game.result)
    return "\n".join(lines) + "\n"
