"""How strong an accusation's evidence is: a few physical signals, one calibrated score.

Why: the rules (touch.py, retouch.py, knock.py) say where a hand may have touched a piece, but an
arbiter may penalise a player on what is reported, so what is reported must rest on evidence
measured the same way on any camera, weighed once. The signals are what a hand physically does to
a disc and how the camera sees it, each scaled by what the board shows with nobody touching it:

- `rest_s`: the longest stretch the side's fingertips stayed over the point (a reaching hand
  slows down and rests on the piece it takes; a hand passing over pauses a quarter second);
- `fingers_s`: how long in all the point lay where that side's fingers may have been;
- `face_rise`: how much the disc's face changed, against the change of every other unmoved
  disc (log ratio: light, a re-lock or an arm's shadow change every face alike; a touch turns
  one); `face_unread` where the face was not read again;
- `shift`: how far the disc moved, less the camera's common drift (spacings);
- `other_hand`: the other player's hand lay over the point longer (the hand is not surely this
  player's);
- `beside_move`: the point is a king step from a point the move used (the pick-up or put-down
  read a point off looks like a touch there);
- `rules`: the incident rules raised it (0: the rules put it down to something else, see
  `Candidate`).

A logistic model (`EvidenceModel`, weights in weights.py, fitted on the rig's truth by
bench/fit_evidence.py) turns them into the probability that the incident happened. An incident
the rules raise stands as an accusation only from `accuse` up; below it, and for candidates the
rules put aside whose score still reaches `note`, it is a `ReviewNote`: the arbiter sees it, nobody
is accused. Pure logic, no I/O.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from rules import Side

from ..episode import Dwell, dwells
from ..events import IncidentEvent, ReviewNote
from .facts import SettleFacts, disc_shift, face_change, king_steps, median_face_change
from .hand import other_hand_longer, tips, under_fingers_seconds

WEIGHED_KINDS: tuple[str, ...] = ("touch_move_other", "retouch", "knocked")
"""The incidents that rest on what a hand did: their evidence is weighed. Between points and an
illegal move rest on the board's geometry and the rules, and stand as the rules find them."""

FEATURES: tuple[str, ...] = ("rest_s", "fingers_s", "face_rise", "face_unread", "shift", "other_hand",
                             "beside_move", "rules")
"""The model's inputs, in order (`HandSignals.vector`), after the kind's own intercept."""


@dataclass(frozen=True)
class HandSignals:
    """The physical signals behind one candidate incident at one point (see the module's text)."""

    rest_s: float
    fingers_s: float
    face_rise: float
    face_unread: bool
    shift: float
    other_hand: bool
    beside_move: bool
    rules: bool = True

    def vector(self) -> np.ndarray:
        """The model's inputs, each bounded so one wild reading cannot decide alone."""
        return np.array([min(self.rest_s, 3.0), min(self.fingers_s, 5.0), float(np.clip(self.face_rise, -3.0, 4.0)),
                         float(self.face_unread), min(self.shift, 1.0), float(self.other_hand),
                         float(self.beside_move), float(self.rules)], dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"rest_s": round(self.rest_s, 3), "fingers_s": round(self.fingers_s, 3),
                "face_rise": round(self.face_rise, 3), "face_unread": self.face_unread,
                "shift": round(self.shift, 3), "other_hand": self.other_hand, "beside_move": self.beside_move,
                "rules": self.rules}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "HandSignals":
        """Read back from a journal line's `signals` (ValueError names the key that does not read)."""
        try:
            return cls(float(d["rest_s"]), float(d["fingers_s"]), float(d["face_rise"]), bool(d["face_unread"]),
                       float(d["shift"]), bool(d["other_hand"]), bool(d["beside_move"]), bool(d.get("rules", True)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"signals {dict(d)!r} do not read: {exc!r}") from None


FACE_FLOOR = 0.01
"""Face changes under this are camera noise on any view: the ratio of two such is not evidence."""


def hand_signals(s: SettleFacts, side: Side, p: int, rest: Dwell | None = None,
                 rules: bool = True) -> HandSignals | None:
    """The signals of `side`'s hand at point p in this settle's episode. `rest`: the rest the rule
    found on p, where it found one (otherwise the longest stretch with the fingertips over p).
    None where the reader gave no faces at this settle (`SettleFacts.faces`): without them the
    strongest signal is missing, the model cannot weigh the evidence, and the rules alone decide."""
    if s.faces is None:
        return None
    ep = s.episode
    if rest is not None:
        rest_s = rest.seconds
    else:
        rest_s = max((d.seconds for d in dwells(ep, side, 0.0) if p in tips(ep, d, side)), default=0.0)
    fingers = under_fingers_seconds(ep, side, p)
    change = face_change(s, p)
    unread = not math.isfinite(change)
    rise = 0.0 if unread else math.log((change + FACE_FLOOR) / (median_face_change(s, [p]) + FACE_FLOOR))
    near = any(king_steps(p, q) <= 1 for q in s.moved_points if q != p)
    return HandSignals(float(rest_s), float(fingers), float(rise), unread, disc_shift(s, p),
                       other_hand_longer(ep, side, p, fingers), near, rules)


@dataclass(frozen=True)
class Candidate:
    """Evidence the rules put aside (a short rest with the face as it was, the pick-up read a
    point off): not an accusation, but a note where the model still scores it `note` or more.
    `reason`: the rule that put it aside."""

    event: IncidentEvent
    signals: HandSignals | None     # None: not weighable (no faces read), no note
    reason: str


@dataclass(frozen=True)
class EvidenceModel:
    """A logistic model of P(incident happened | signals): an intercept per kind plus one weight
    per feature (`FEATURES`), and the two thresholds.

    `accuse`: the score from which an incident the rules raised is reported as one; chosen for
    the false-alarm target on the tuning renders. `note`: the score from which a candidate the
    rules put aside is shown to the arbiter as a review note."""

    intercepts: Mapping[str, float]
    weights: tuple[float, ...]
    accuse: float
    note: float
    fitted_on: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"an evidence model has {len(FEATURES)} weights ({', '.join(FEATURES)}), "
                             f"not {len(self.weights)}")
        if not (0.0 <= self.note <= 1.0 and 0.0 <= self.accuse <= 1.0):
            raise ValueError(f"thresholds are probabilities in [0, 1], got note={self.note}, accuse={self.accuse}")

    def score(self, kind: str, signals: HandSignals) -> float:
        """The probability that incident `kind` happened, given its signals."""
        z = float(self.intercepts.get(kind, 0.0)) + float(np.dot(self.weights, signals.vector()))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "EvidenceModel":
        return cls(dict(d["intercepts"]), tuple(float(w) for w in d["weights"]), float(d["accuse"]),
                   float(d["note"]), str(d.get("fitted_on", "")),
                   {k: v for k, v in d.items() if k not in ("intercepts", "weights", "accuse", "note", "fitted_on")})

    def to_dict(self) -> dict[str, Any]:
        return {"intercepts": dict(self.intercepts), "weights": list(self.weights), "accuse": self.accuse,
                "note": self.note, "fitted_on": self.fitted_on, **dict(self.extra)}


def default_model() -> EvidenceModel:
    """The model bench/fit_evidence.py fitted (weights.py)."""
    from .weights import EVIDENCE_MODEL
    return EvidenceModel.from_dict(EVIDENCE_MODEL)


def weigh(events: list[IncidentEvent], candidates: list[Candidate], model: EvidenceModel | None,
          signals_of: Callable[[IncidentEvent], HandSignals | None]) -> list[IncidentEvent | ReviewNote]:
    """The incidents that stand and the notes, in the rules' order: each weighed incident gets its
    signals (from its `extra`, or `signals_of(event)`) and score; below `accuse` it becomes a note.
    One without signals (no faces read) stands as the rules raised it.
    Candidates the rules put aside become notes from `note` up. Without a model (None) the rules'
    incidents stand as they are and candidates are dropped: the rules alone decide."""
    out: list[IncidentEvent | ReviewNote] = []
    for e in events:
        if model is None or e.kind not in WEIGHED_KINDS:
            out.append(e)
            continue
        if "signals" in e.extra:     # measured by the rule where the hand was (None: not weighable)
            sig = e.extra["signals"]
            signals = HandSignals.from_dict(sig) if isinstance(sig, Mapping) else None
        else:
            signals = signals_of(e)
        if signals is None:
            e.extra.pop("signals", None)
            out.append(e)
            continue
        p = model.score(e.kind, signals)
        e.extra["signals"] = signals.to_dict()
        e.extra["score"] = round(p, 3)
        out.append(e if p >= model.accuse else ReviewNote.of(e, p))
    if model is not None:
        for c in candidates:
            if c.signals is None:
                continue
            p = model.score(c.event.kind, c.signals)
            if p >= model.note:
                c.event.extra["signals"] = c.signals.to_dict()
                c.event.extra["set_aside"] = c.reason
                out.append(ReviewNote.of(c.event, p))
    return out
