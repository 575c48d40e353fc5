"""The two rulesets for repetition rulings (棋例): Chinese (`cn`) and Asian Xiangqi Federation (`axf`).

A ruling has two halves: what each move *is* (将 check, 杀 mate threat, 捉 chase, 闲 idle, in
`rules.chase`) and which patterns of those moves a side may not keep repeating (in
`rules.repetition`). The two rulesets agree on most of both halves; this module names the
places where they part, so the rest of the code asks a `Ruleset` instead of hard-coding one
reading. `docs/repetition-rulesets.md` explains each switch with the rule text and examples.

* `cn` — 《象棋竞赛规则》 of the Chinese Xiangqi Association as the background lesson teaches it:
  长将, 长杀, 长捉 and their mixtures (一将一捉, 一将一杀, 一捉一杀) are forbidden; a chase may
  fall on one piece or several ("追捉一子或数子"); a capture that is legal is a capture, so a
  pinned piece that can legally take the piece pinning it is chasing it.
* `axf` — the Asian Xiangqi Federation's rules (English translation by the Hong Kong Chinese
  Chess Association's referees, as published by the AXF/WXF): only perpetual check and
  perpetual chase of *one and the same* piece are forbidden. Perpetual mate threat is a draw
  (rule 9), one check one chase is a draw (rule 12), chasing two or more pieces in turn is a
  draw (rule 32), and a piece that may not move because it shields its own general (a chariot
  pinned by a cannon or held by a horse's leg) does not chase (rule 19, diagrams 39-41 and 63-66).
  A chase is a threat to capture "in the next move": wins that need an exchange on the point or
  a series of checks first are not chases under `axf`; under `cn` they are (the Chinese
  definition of 捉 lists them).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ruleset:
    """Where the rulesets differ, as switches; each names the rule text it follows.

    mate_threat_forbidden: 长杀 (every move a mate threat) and mixtures with it are forbidden.
    mixtures_forbidden: a side whose moves are all check/mate-threat/chase but not all of one
        kind (一将一捉 …) is forbidden; otherwise only a pure perpetual form is.
    chase_same_piece: a perpetual chase must chase one and the same enemy piece on every move
        (the piece followed as it moves); otherwise any piece chased on each move will do.
    pinned_piece_chases: a piece pinned against its own general chases what it can legally
        capture (the piece pinning it included); otherwise a pinned piece chases nothing.
    exchange_chases: a threat to win material through the full series of captures on one point
        (two attackers against one defender, 与其他子联合吃子 / 通过完整互吃交换后得子) is a chase.
    check_series_chases: a threat to win material after a series of checks
        (从下一着开始运用连续将军得子) is a chase.
    """

    name: str
    title: str
    mate_threat_forbidden: bool
    mixtures_forbidden: bool
    chase_same_piece: bool
    pinned_piece_chases: bool
    exchange_chases: bool
    check_series_chases: bool


CN = Ruleset(
    name="cn",
    title="Chinese Xiangqi Association, 象棋竞赛规则 (as taught in the background lesson)",
    mate_threat_forbidden=True,
    mixtures_forbidden=True,
    chase_same_piece=False,
    pinned_piece_chases=True,
    exchange_chases=True,
    check_series_chases=True,
)

AXF = Ruleset(
    name="axf",
    title="Asian Xiangqi Federation rules (Asian rules, English translation)",
    mate_threat_forbidden=False,
    mixtures_forbidden=False,
    chase_same_piece=True,
    pinned_piece_chases=False,
    exchange_chases=False,
    check_series_chases=False,
)

RULESETS: dict[str, Ruleset] = {CN.name: CN, AXF.name: AXF}


def get_ruleset(rules: str | Ruleset | None) -> Ruleset:
    """The ruleset named `rules` ('cn' or 'axf'; None means cn); ValueError names a wrong name."""
    if rules is None:
        return CN
    if isinstance(rules, Ruleset):
        return rules
    found = RULESETS.get(str(rules).strip().lower())
    if found is None:
        raise ValueError(f"unknown ruleset {rules!r}: expected one of {', '.join(RULESETS)}")
    return found


__all__ = ["Ruleset", "CN", "AXF", "RULESETS", "get_ruleset"]
