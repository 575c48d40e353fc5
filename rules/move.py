"""The Move value type (from-point, to-point), written in ICCS as 'h2e2'."""
from __future__ import annotations

from dataclasses import dataclass

from rules.errors import MoveError
from rules.squares import FILES, SQUARE_NAMES


@dataclass(frozen=True, order=True, slots=True)
class Move:
    """A move from one point to another; says nothing about legality on its own.

    Move generation hands out shared, pre-built instances (see `rules._tables`), so creating
    moves never costs anything in the hot path; equality and hashing are by value, so a
    `Move(19, 22)` built by a caller compares equal to the generated one.
    """

    from_sq: int
    to_sq: int

    def __post_init__(self) -> None:
        for name, sq in (("from", self.from_sq), ("to", self.to_sq)):
            if type(sq) is not int or not 0 <= sq < 90:
                raise MoveError(f"move {name}-square {sq!r} is not a point index (0..89)")
        if self.from_sq == self.to_sq:
            raise MoveError(f"move {SQUARE_NAMES[self.from_sq]}{SQUARE_NAMES[self.to_sq]} does not move the piece")

    @classmethod
    def from_iccs(cls, text: str) -> "Move":
        """Parse 'h2e2' (also 'H2-E2', 'h2 e2'); MoveError with the text and the reason."""
        if not isinstance(text, str):
            raise MoveError(f"ICCS move must be text, got {type(text).__name__}")
        s = text.strip().lower().replace("-", "").replace(" ", "")
        if len(s) != 4:
            raise MoveError(f"ICCS move {text!r}: expected 4 characters like 'h2e2' (file a-i, rank 0-9, twice)")
        for i, (ch, kind) in enumerate(zip(s, ("file", "rank", "file", "rank"))):
            ok = ch in FILES if kind == "file" else ch in "0123456789"
            if not ok:
                allowed = "a-i" if kind == "file" else "0-9"
                raise MoveError(f"ICCS move {text!r}: character {i + 1} {ch!r} is not a {kind} ({allowed})")
        f = (ord(s[1]) - 48) * 9 + FILES.index(s[0])
        t = (ord(s[3]) - 48) * 9 + FILES.index(s[2])
        if f == t:
            raise MoveError(f"ICCS move {text!r}: from- and to-point are the same")
        return cls(f, t)

    def iccs(self) -> str:
        return SQUARE_NAMES[self.from_sq] + SQUARE_NAMES[self.to_sq]

    def __str__(self) -> str:
        return SQUARE_NAMES[self.from_sq] + SQUARE_NAMES[self.to_sq]

    def __repr__(self) -> str:
        return f"Move.from_iccs({self.iccs()!r})"
