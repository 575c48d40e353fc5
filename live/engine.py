"""An engine's evaluation of the positions the live pages show: a UCI engine (Fairy-Stockfish, with
`UCI_Variant xiangqi`, or Pikafish) in its own process, fed the latest position, never in anyone's way.

Why this shape: an evaluation bar is what viewers of a broadcast expect, but the recording is the
point of the program. So the engine runs as a separate process started at low priority (`nice`),
with one search thread and a small hash; one worker thread of ours talks to it over pipes and does
nothing else (never the recorder's thread, never the HTTP loop, which only reads finished results
from a cache). Each position gets a bounded search (`go movetime M`, optionally `depth D` too);
when the position a page shows moves on, the search for the old one is stopped at once. If the
engine dies or hangs it is started again (with a growing pause), and the pages say so meanwhile.

Conventions at the edge, checked against the engines themselves:
- Our FEN (rank 9 first, `w`/`b`, the letters K A B N R C P) is what Fairy-Stockfish's xiangqi
  and Pikafish read; a FEN written with `r` for red is given `w`.
- Moves: Fairy-Stockfish writes xiangqi UCI moves with ranks 1-10 (`h3e3` is our `h2e2`; rank 10
  is two digits, `h10g8`); Pikafish writes ranks 0-9, as our ICCS. Which one an engine speaks is
  told by the first move that names rank 0 or 10, and until then by which reading is legal.
- Scores: UCI gives them from the side to move; /state.json gives them from red's side
  (`score_cp` > 0 good for red; `mate` > 0 red mates in that many moves; `winner` says who).
"""
from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import subprocess
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rules import Move, Position, RulesError
from rules.notation import format_move

ENGINE_NAMES: tuple[str, ...] = ("fairy-stockfish", "pikafish")
GAMES_DIRS: tuple[str, ...] = ("/usr/games", "/usr/local/games")   # where Debian puts engines (not on every PATH)
AUTO = "auto"
_UCI_SQUARE = r"([a-i])(10|[0-9])"
_UCI_MOVE = re.compile(_UCI_SQUARE + _UCI_SQUARE + r"[a-z+]?")


class EngineError(RuntimeError):
    """The engine cannot be found or does not speak UCI (the message says which and why)."""


def find_engine(name: str | None = None) -> str | None:
    """The path of an installed engine: `name`, else the first of ENGINE_NAMES; on the PATH or in
    /usr/games (Debian's `fairy-stockfish` lives there, and /usr/games is not on every PATH)."""
    for candidate in ([name] if name else list(ENGINE_NAMES)):
        found = shutil.which(candidate)
        if found:
            return found
        for folder in GAMES_DIRS:
            path = os.path.join(folder, candidate)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


@dataclass(frozen=True)
class EngineConfig:
    """Which engine, and how hard it may work (per position: at most `movetime_ms`, or `depth`)."""

    command: tuple[str, ...]
    variant: str | None = "xiangqi"   # UCI_Variant, set only when the engine offers the option
    movetime_ms: int = 1000
    depth: int | None = None          # also stop at this depth (whichever comes first)
    nice: int = 10                    # niceness of the engine process
    threads: int = 1
    hash_mb: int = 16
    start_timeout_s: float = 10.0     # `uci` -> `uciok`, `isready` -> `readyok`
    restart_s: float = 0.5            # first pause before a restart; doubles up to restart_max_s
    restart_max_s: float = 30.0
    cache: int = 4096                 # positions whose evaluation is kept

    def __post_init__(self) -> None:
        if not self.command:
            raise ValueError("the engine command is empty")
        if self.movetime_ms < 10:
            raise ValueError(f"engine movetime {self.movetime_ms} ms: at least 10 ms")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"engine depth {self.depth}: at least 1")

    @property
    def name(self) -> str:
        return os.path.basename(self.command[0])


def engine_config(spec: str | None = AUTO, movetime_ms: int = 1000, depth: int | None = None) -> EngineConfig:
    """`--engine [CMD]`: CMD split like a shell would (`"pikafish --flag"`), a bare name looked up
    on the PATH and in /usr/games; AUTO (or empty) is fairy-stockfish, else pikafish, when installed.
    EngineError says what is missing."""
    text = (spec or "").strip()
    if not text or text == AUTO:
        path = find_engine()
        if path is None:
            raise EngineError("--engine: no engine found; install one (Debian: apt-get install fairy-stockfish) "
                              "or name it: --engine /path/to/pikafish")
        return EngineConfig((path,), movetime_ms=movetime_ms, depth=depth)
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise EngineError(f"--engine {text!r}: {exc}") from None
    if os.sep not in words[0]:
        path = find_engine(words[0])
        if path is None:
            raise EngineError(f"--engine {words[0]!r}: no such program on the PATH or in /usr/games")
        words[0] = path
    elif not (os.path.isfile(words[0]) and os.access(words[0], os.X_OK)):
        raise EngineError(f"--engine {words[0]!r}: not an executable file")
    return EngineConfig(tuple(words), movetime_ms=movetime_ms, depth=depth)


# ------------------------------------------------------------------------------------ notation
def engine_fen(fen: str) -> str:
    """Our FEN as the engine reads it: the same layout; red to move is `w` (we accept `r` on input)."""
    parts = fen.split()
    if len(parts) >= 2 and parts[1] == "r":
        parts[1] = "w"
    while len(parts) < 6:
        parts.append(["w", "-", "-", "0", "1"][len(parts) - 1])
    return " ".join(parts)


def uci_to_iccs(text: str, one_based: bool) -> str | None:
    """An engine's move as our ICCS: ranks 1-10 (Fairy-Stockfish) or 0-9 (Pikafish); None if it is
    not a board move in that reading (`(none)`, `0000`, rank 0 read one-based, rank 10 zero-based)."""
    m = _UCI_MOVE.fullmatch(text.strip())
    if m is None:
        return None
    f1, r1, f2, r2 = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
    if one_based:
        r1, r2 = r1 - 1, r2 - 1
    if not (0 <= r1 <= 9 and 0 <= r2 <= 9):
        return None
    return f"{f1}{r1}{f2}{r2}"


def _legal_line(fen: str, words: Sequence[str], one_based: bool) -> list[str]:
    """The longest legal start of an engine's line, as ICCS, in one rank reading."""
    try:
        pos = Position.from_fen(fen)
    except (RulesError, ValueError):
        return []
    out: list[str] = []
    for w in words:
        iccs = uci_to_iccs(w, one_based)
        if iccs is None:
            break
        try:
            move = Move.from_iccs(iccs)
        except (RulesError, ValueError):
            break
        if not pos.is_legal(move):
            break
        pos.push(move)
        out.append(iccs)
    return out


def chinese_line(fen: str, line: Sequence[str]) -> list[str]:
    """ICCS moves from `fen` in Chinese notation (炮二平五), as far as they are legal."""
    pos = Position.from_fen(fen)
    out: list[str] = []
    for iccs in line:
        move = Move.from_iccs(iccs)
        try:
            out.append(format_move(pos, move, "chinese"))
        except (RulesError, ValueError):
            break
        pos.push(move)
    return out


# ------------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class Evaluation:
    """One finished search of one position, from red's side."""

    fen: str
    depth: int
    score_cp: int | None              # centipawns, > 0 good for red (None with a mate score)
    mate: int | None                  # moves to mate, > 0 red mates, < 0 black mates, 0 already mated
    winner: str | None                # "red" / "black" with a mate score
    pv: tuple[str, ...]               # the best line, ICCS
    pv_chinese: tuple[str, ...]
    engine: str
    nodes: int = 0
    time_ms: int = 0

    @property
    def red_share(self) -> float:
        """How much of the bar is red's (0..1): a logistic of the score, 1 or 0 with a mate."""
        if self.winner is not None:
            return 1.0 if self.winner == "red" else 0.0
        cp = float(self.score_cp or 0)
        return 1.0 / (1.0 + 10.0 ** (-cp / 600.0))

    @property
    def text(self) -> str:
        """The score as broadcasts write it: +1.3, -0.4, M3 (red mates in 3), -M2, M0 / -M0 (mated)."""
        if self.winner is not None:
            n = abs(self.mate or 0)
            return f"M{n}" if self.winner == "red" else f"-M{n}"
        return f"{(self.score_cp or 0) / 100.0:+.1f}"

    def to_dict(self) -> dict[str, Any]:
        return {"status": "ok", "fen": self.fen, "depth": self.depth, "score_cp": self.score_cp,
                "mate": self.mate, "winner": self.winner, "text": self.text,
                "red_share": round(self.red_share, 4), "best": self.pv[0] if self.pv else None,
                "best_chinese": self.pv_chinese[0] if self.pv_chinese else None,
                "pv": list(self.pv), "pv_chinese": list(self.pv_chinese), "engine": self.engine,
                "nodes": self.nodes, "time_ms": self.time_ms}


def game_over_evaluation(fen: str, engine: str) -> Evaluation | None:
    """The side to move has no legal move (mated, or stalemated: a loss in xiangqi): no search needed."""
    try:
        pos = Position.from_fen(fen)
    except (RulesError, ValueError):
        return None
    if pos.legal_moves():
        return None
    loser_red = pos.turn == "w"
    return Evaluation(fen, 0, None, 0, "black" if loser_red else "red", (), (), engine)


@dataclass
class _Info:
    """The latest `info ... score ... pv ...` line of a search (multipv 1)."""

    depth: int = 0
    cp: int | None = None
    mate: int | None = None
    pv: list[str] = field(default_factory=list)
    nodes: int = 0
    time_ms: int = 0


def parse_info(line: str, into: _Info) -> bool:
    """Fold one `info` line into `into` when it carries a score (and is the main line); bound-only
    scores (`lowerbound`/`upperbound`) keep the pv of the last exact one. True when taken."""
    words = line.split()
    if not words or words[0] != "info" or "score" not in words:
        return False
    if "multipv" in words:
        i = words.index("multipv")
        if i + 1 < len(words) and words[i + 1] != "1":
            return False
    vals: dict[str, str] = {}
    for key in ("depth", "nodes", "time"):
        if key in words:
            i = words.index(key)
            if i + 1 < len(words):
                vals[key] = words[i + 1]
    i = words.index("score")
    if i + 2 >= len(words):
        return False
    kind, number = words[i + 1], words[i + 2]
    bound = i + 3 < len(words) and words[i + 3] in ("lowerbound", "upperbound")
    try:
        value = int(number)
        depth = int(vals.get("depth", "0"))
    except ValueError:
        return False
    if bound and into.pv:
        return False
    into.depth = depth
    into.cp, into.mate = (value, None) if kind == "cp" else (None, value) if kind == "mate" else (into.cp, into.mate)
    if "pv" in words:
        into.pv = words[words.index("pv") + 1:]
    try:
        into.nodes = int(vals.get("nodes", into.nodes))
        into.time_ms = int(vals.get("time", into.time_ms))
    except ValueError:
        pass
    return True


# ------------------------------------------------------------------------------------ the worker
@dataclass
class _Want:
    fen: str
    since: float


class Analyser:
    """Keeps one engine process busy with the positions that are wanted, newest need first.

    `want(key, fen)`: the position `key` (a page's view: "live", "public", "3/public"…) now shows.
    `view(fen)`: what /state.json says about a position (a finished evaluation, "thinking", or the
    engine's trouble). `on_result(fen)` is called from the worker thread when a position's
    evaluation is ready (hand it to your loop with call_soon_threadsafe).
    """

    def __init__(self, config: EngineConfig, on_result: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.on_result = on_result
        self.engine_name = config.name
        self.state = "starting"           # starting | ready | restarting | stopped
        self.detail = ""
        self.restarts = 0                 # times the engine was started again after dying or hanging
        self.searches = 0
        self._one_based: bool | None = None
        self._lock = threading.Condition()
        self._wanted: dict[str, _Want] = {}
        self._results: OrderedDict[str, Evaluation] = OrderedDict()
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopping = False

    # -------------------------------------------------------------- the callers' side (any thread)
    def start(self) -> "Analyser":
        self._thread = threading.Thread(target=self._run, name="xqtrack-engine", daemon=True)
        self._thread.start()
        return self

    def want(self, key: str, fen: str) -> None:
        """`key` now shows `fen`: analyse it unless known (a later want for the same key replaces it)."""
        fen = engine_fen(fen)
        with self._lock:
            old = self._wanted.get(key)
            if old is not None and old.fen == fen:
                return
            self._wanted[key] = _Want(fen, time.monotonic())
            self._lock.notify_all()

    def forget(self, key: str) -> None:
        with self._lock:
            self._wanted.pop(key, None)

    def result(self, fen: str) -> Evaluation | None:
        with self._lock:
            return self._results.get(engine_fen(fen))

    def view(self, fen: str) -> dict[str, Any]:
        """The `eval` of /state.json for `fen`: the evaluation when there is one, else what is going on."""
        found = self.result(fen)
        if found is not None:
            return found.to_dict()
        status = "thinking" if self.state == "ready" else self.state
        return {"status": status, "fen": engine_fen(fen), "engine": self.engine_name, "detail": self.detail,
                "restarts": self.restarts}

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def stop(self, timeout: float = 5.0) -> None:
        """End the worker and the engine (`quit`, then a kill if it lingers)."""
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_engine()
        self.state = "stopped"

    # -------------------------------------------------------------- the worker thread
    def _run(self) -> None:
        pause = self.config.restart_s
        first = True
        while not self._stopping:
            if self._proc is None or self._proc.poll() is not None:
                if not first:
                    self.restarts += 1
                    self.state = "restarting"
                    if self._sleep(pause):
                        break
                    pause = min(self.config.restart_max_s, pause * 2)
                first = False
                try:
                    self._open_engine()
                except (OSError, EngineError) as exc:
                    self.detail = str(exc)
                    self._close_engine()
                    continue
                self.state, self.detail = "ready", ""
            job = self._next_job()
            if job is None:
                continue
            try:
                ok = self._search(job)
            except (OSError, ValueError) as exc:   # a broken pipe: the engine died under us
                ok = False
                self.detail = f"the engine stopped: {exc}"
            if ok:
                pause = self.config.restart_s
            else:
                self._close_engine()
        self._close_engine()

    def _sleep(self, seconds: float) -> bool:
        """Wait, unless stopping (True then)."""
        with self._lock:
            self._lock.wait_for(lambda: self._stopping, timeout=seconds)
            return self._stopping

    def _next_job(self) -> str | None:
        """The wanted position without an evaluation that has waited longest (None after a short wait
        when there is none, so the loop sees a dead engine or a stop in time)."""
        with self._lock:
            def pick() -> str | None:
                todo = [w for w in self._wanted.values() if w.fen not in self._results]
                return min(todo, key=lambda w: w.since).fen if todo else None
            self._lock.wait_for(lambda: self._stopping or pick() is not None, timeout=0.5)
            return None if self._stopping else pick()

    def _still_wanted(self, fen: str) -> bool:
        with self._lock:
            return not self._stopping and any(w.fen == fen for w in self._wanted.values())

    def _open_engine(self) -> None:
        cmd = list(self.config.command)
        nice = shutil.which("nice")
        if nice and self.config.nice > 0:
            # the whole process niced from its first instruction (Linux nice is per thread: renicing
            # the pid afterwards would miss the search threads the engine already made)
            cmd = [nice, "-n", str(self.config.nice), *cmd]
        self._lines = queue.Queue()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, bufsize=1, start_new_session=True)
        self._proc = proc
        if not nice and self.config.nice > 0:
            try:
                os.setpriority(os.PRIO_PROCESS, proc.pid, self.config.nice)
            except OSError:
                pass
        threading.Thread(target=self._read, args=(proc, self._lines), name="xqtrack-engine-out",
                         daemon=True).start()
        self._send("uci")
        options: set[str] = set()
        for line in self._until("uciok", self.config.start_timeout_s):
            if line.startswith("id name "):
                self.engine_name = line[len("id name "):].strip()
            elif line.startswith("option name "):
                options.add(line[len("option name "):].split(" type ")[0].strip())
        if self.config.variant and "UCI_Variant" in options:
            self._send(f"setoption name UCI_Variant value {self.config.variant}")
        if "Threads" in options:
            self._send(f"setoption name Threads value {self.config.threads}")
        if "Hash" in options:
            self._send(f"setoption name Hash value {self.config.hash_mb}")
        self._send("isready")
        list(self._until("readyok", self.config.start_timeout_s))

    @staticmethod
    def _read(proc: subprocess.Popen[str], lines: "queue.Queue[str | None]") -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        lines.put(None)    # the engine closed its output: it is gone

    def _send(self, text: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineError("the engine is not running")
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    def _until(self, word: str, timeout: float) -> list[str]:
        """The engine's lines up to the one starting with `word` (EngineError after `timeout` or at
        the end of its output)."""
        end = time.monotonic() + timeout
        got: list[str] = []
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise EngineError(f"{self.config.name} did not answer {word!r} within {timeout:.0f} s")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EngineError(f"{self.config.name} exited (code {self._proc.poll() if self._proc else '?'})")
            if line.split()[:1] == [word]:
                return got
            got.append(line)

    def _search(self, fen: str) -> bool:
        """One bounded search of `fen`; False when the engine must be started again."""
        over = game_over_evaluation(fen, self.engine_name)
        if over is not None:
            self._store(over)
            return True
        self._send(f"position fen {fen}")
        go = f"go movetime {self.config.movetime_ms}"
        if self.config.depth is not None:
            go += f" depth {self.config.depth}"
        self._send(go)
        self.searches += 1
        info = _Info()
        stopped = False
        deadline = time.monotonic() + self.config.movetime_ms / 1000.0 + 5.0
        while True:
            if time.monotonic() > deadline:
                self.detail = f"{self.engine_name} did not finish a {self.config.movetime_ms} ms search; restarted"
                return False
            try:
                line = self._lines.get(timeout=0.05)
            except queue.Empty:
                if not stopped and not self._still_wanted(fen):
                    self._send("stop")     # the page moved on: answer the position it shows now
                    stopped = True
                continue
            if line is None:
                self.detail = f"{self.engine_name} exited during a search"
                return False
            if line.startswith("info "):
                parse_info(line, info)
            elif line.startswith("bestmove"):
                words = line.split()
                best = words[1] if len(words) > 1 else ""
                if not stopped:      # a search cut short is not kept: asked for again, it is done in full
                    self._finish(fen, info, best)
                return True

    def _finish(self, fen: str, info: _Info, best: str) -> None:
        words = info.pv or ([best] if best else [])
        if best and words and words[0] != best:
            words = [best]
        line = self._line(fen, words)
        if info.cp is None and info.mate is None:
            return          # stopped before any score: nothing worth showing
        red_to_move = fen.split()[1] in ("w", "r")
        sign = 1 if red_to_move else -1
        mate = winner = None
        cp: int | None = None
        if info.mate is not None:
            mate = sign * info.mate
            if info.mate > 0:
                winner = "red" if red_to_move else "black"
            else:
                winner = "black" if red_to_move else "red"
        else:
            cp = sign * int(info.cp or 0)
        self._store(Evaluation(fen, info.depth, cp, mate, winner, tuple(line), tuple(chinese_line(fen, line)),
                               self.engine_name, info.nodes, info.time_ms))

    def _line(self, fen: str, words: list[str]) -> list[str]:
        """The engine's line as ICCS, in the rank reading it speaks (learnt from rank 0 or 10)."""
        if self._one_based is None:
            for w in words:
                m = _UCI_MOVE.fullmatch(w)
                if m and "10" in (m.group(2), m.group(4)):
                    self._one_based = True
                    break
                if m and "0" in (m.group(2), m.group(4)):
                    self._one_based = False
                    break
        readings = [self._one_based] if self._one_based is not None else [True, False]
        best: list[str] = []
        for one_based in readings:
            got = _legal_line(fen, words, one_based)
            if len(got) > len(best):
                best = got
        return best

    def _store(self, evaluation: Evaluation) -> None:
        with self._lock:
            self._results[evaluation.fen] = evaluation
            self._results.move_to_end(evaluation.fen)
            while len(self._results) > self.config.cache:
                self._results.popitem(last=False)
        if self.on_result is not None:
            try:
                self.on_result(evaluation.fen)
            except RuntimeError:   # the loop it hands over to has closed: we are stopping
                pass

    def _close_engine(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            try:
                proc.wait(2.0)
            except subprocess.TimeoutExpired:
                pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
