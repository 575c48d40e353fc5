"""Fit and score the evidence model (board/incidents/weigh.py) on the rig's truth.

Why a script of its own: the touch and re-touch decisions are one calibrated score over a few
physical signals, and its weights must come from renders with known truth, never from the
clips it is scored on. Three steps:

  collect  run the real pipeline (decoded video, vision, tracker) on a clip set's renders with
           every candidate kept: each incident the rules raise and each one they set aside is
           journalled with its signals. Labelled against the planted incidents (same kind, a
           shared point, ply within 1: bench/track_bench.match) into
           CACHE/evidence/<set>_<seed>.jsonl.
  fit      a logistic model (intercept per kind, one weight per signal, L2) on the TUNING
           candidates; the accusation threshold is the highest score that keeps the planted
           incidents' recall, each look family scored by a model fitted without it, within
           `--recall-slack` of the rules' own (choose_accuse); written to board/incidents/weights.py.
           Leave-one-family-out: each look family in turn left out of the fit and of the choice
           of threshold, and scored.
  score    the model as it stands applied to a set's collected candidates: false accusations per
           10 games, recall of planted incidents, review notes, and the calibration (reliability
           by score bin, Brier score).

Usage:
  python bench/fit_evidence.py collect --set tuning --first 80 --jobs 2
  python bench/fit_evidence.py fit
  python bench/fit_evidence.py score --set heldback
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pprint
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

from board.incidents.weigh import FEATURES, WEIGHED_KINDS, EvidenceModel, HandSignals  # noqa: E402

CACHE = Path(os.environ.get("XQTRACK_BENCH_CACHE", str(Path.home() / ".cache" / "xqtrack-bench")))
OUT = CACHE / "evidence"
WEIGHTS = ROOT / "board" / "incidents" / "weights.py"
KEEP_ALL = EvidenceModel({k: 0.0 for k in WEIGHED_KINDS}, (0.0,) * len(FEATURES), accuse=0.0, note=0.0,
                         fitted_on="collect: every candidate kept")
"""Scores 0.5 for everything: every raised incident stands, every set-aside candidate is a note."""


def _collect_one(args: tuple[str, int, str, int, int]) -> str:
    """Run one clip with every candidate kept; write its labelled candidates and standing incidents."""
    set_name, seed, size, _i, _n = args
    import board.incidents.weights as weights
    import track_bench as tb
    from track_sets import SETS

    from board.incidents.tracker import IncidentTracker

    weights.EVIDENCE_MODEL = KEEP_ALL.to_dict()   # the tracker built by the recorder keeps every candidate ...
    IncidentTracker.survey = True                  # ... and every rest on an own piece no rule spoke of
    clip = next(c for c in SETS[set_name] if c.seed == seed)
    d = CACHE / f"{set_name}_{seed}_{size}"
    truth = tb.load_truth(d / "truth.json")
    out_dir = CACHE / "out" / f"evidence_{set_name}_{seed}"
    events, _video_s, _wall_s = tb.run_video(d, truth, out_dir)
    lines = [json.loads(x) for x in (out_dir / "events.jsonl").read_text().splitlines() if x.strip()]
    planted = [i for i in truth.incidents if i["kind"] != "arm_pass"]
    retracted = {e.get("incident") for e in lines if e.get("type") == "incident_retracted"}
    rows = []
    for e in lines:
        if e.get("type") not in ("incident", "review_note") or e.get("kind") == "repetition":
            continue
        standing = e["type"] == "incident" and e.get("id") not in retracted
        label = tb.match([e], planted)[0] == 1
        rows.append({"type": e["type"], "kind": e["kind"], "ply": e["ply"], "points": e.get("points"),
                     "signals": e.get("signals"), "set_aside": e.get("set_aside"), "standing": standing,
                     "retracted": e["type"] == "incident" and not standing, "label": label})
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{set_name}_{seed}.jsonl", "w") as f:
        f.write(json.dumps({"seed": seed, "look": clip.look, "camera": dict(clip.camera), "planted": planted,
                            "moves": tb.score(truth, events)["moves"], "truth_moves": len(truth.moves)}) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return f"{set_name} {seed}: {len(rows)} candidates, {sum(r['label'] for r in rows)} true"


def collect(set_name: str, first: int, jobs: int, size: str) -> None:
    from track_sets import SETS
    clips = [c for c in SETS[set_name][:first] if (CACHE / f"{set_name}_{c.seed}_{size}" / "clip.mp4").exists()]
    todo = [(set_name, c.seed, size, i, len(clips)) for i, c in enumerate(clips)
            if not (OUT / f"{set_name}_{c.seed}.jsonl").exists()]
    print(f"{len(todo)} of {len(clips)} rendered clips to run", flush=True)
    if jobs > 1:
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(jobs) as pool:
            for line in pool.imap_unordered(_collect_one, todo):
                print(line, flush=True)
    else:
        for a in todo:
            print(_collect_one(a), flush=True)


def load(set_name: str) -> list[dict[str, Any]]:
    """Every collected game of a set: its header and candidate rows."""
    games = []
    for p in sorted(OUT.glob(f"{set_name}_*.jsonl")):
        rows = [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
        games.append({**rows[0], "rows": rows[1:]})
    return games


def _weighed(r: dict[str, Any]) -> bool:
    return r["kind"] in WEIGHED_KINDS and isinstance(r.get("signals"), dict)


def design(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (an indicator per weighed kind, then the signals) and labels of weighed candidates."""
    xs, ys = [], []
    for r in rows:
        onehot = [1.0 if r["kind"] == k else 0.0 for k in WEIGHED_KINDS]
        xs.append(np.concatenate([onehot, row_signals(r).vector()]))
        ys.append(1.0 if r["label"] else 0.0)
    return np.array(xs).reshape(-1, len(WEIGHED_KINDS) + len(FEATURES)), np.array(ys)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50) -> np.ndarray:
    """Weights by Newton's method with an L2 penalty (the kinds' intercepts penalised lightly)."""
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], l2)
    pen[:len(WEIGHED_KINDS)] = 1e-3
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        g = x.T @ (p - y) + pen * w
        h = (x * (p * (1 - p))[:, None]).T @ x + np.diag(pen)
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def model_of(w: np.ndarray, accuse: float, note: float, fitted_on: str, **extra: Any) -> EvidenceModel:
    k = len(WEIGHED_KINDS)
    return EvidenceModel({kind: float(w[i]) for i, kind in enumerate(WEIGHED_KINDS)},
                         tuple(float(v) for v in w[k:]), accuse, note, fitted_on, extra)


def row_signals(r: dict[str, Any]) -> HandSignals:
    """A collected candidate's signals, `rules` as the journal line says (an incident: the rules
    raised it; a note: they set it aside or never spoke of it)."""
    return HandSignals.from_dict({**r["signals"], "rules": r["type"] == "incident"})


def _score_row(model: EvidenceModel, r: dict[str, Any]) -> float:
    return model.score(r["kind"], row_signals(r))


def outcome(model: EvidenceModel, games: list[dict[str, Any]]) -> dict[str, Any]:
    """What the arbiter would see with this model: accusations standing, false ones, recall, notes."""
    import track_bench as tb
    false = hit = planted = notes = notes_true = 0
    false_list = []
    for g in games:
        found, note_rows = [], []
        for r in g["rows"]:
            if r["type"] == "incident" and not r["standing"]:
                continue
            if not _weighed(r):
                if r["type"] == "incident":
                    found.append(r)
                continue
            p = _score_row(model, r)
            if r["type"] == "incident" and p >= model.accuse:
                found.append(r)
            elif r["type"] == "incident" or p >= model.note:
                note_rows.append(r)
        h, f = tb.match(found, g["planted"])
        hit, false, planted = hit + h, false + f, planted + len(g["planted"])
        notes += len(note_rows)
        notes_true += sum(1 for r in note_rows if r["label"])
        false_list += [f"{g['seed']}:{r['kind']}@{r['ply']}" for r in found if not tb.match([r], g["planted"])[0]]
    n = max(1, len(games))
    return {"games": len(games), "false": false, "false_per_10": 10.0 * false / n, "hit": hit, "planted": planted,
            "recall": hit / max(1, planted), "notes": notes, "notes_true": notes_true, "false_list": false_list}


def choose_accuse(games: list[dict[str, Any]], l2: float, recall_slack: float) -> float:
    """The accusation threshold: the highest score at which the planted incidents' recall, each
    look family scored by a model fitted without it, is at most `recall_slack` below the rules'
    own. Why held-out families: on the renders it was fitted on, the model tells the rules' few
    false accusations from the true ones better than it will on a look it never saw; a threshold
    chosen there would give up recall on the next renderer. Why the highest such: a camera or
    hand never rendered raises more false accusations, on weaker evidence, and the higher
    threshold turns those into notes while the true ones, strong on every held-out family here,
    still stand."""
    looks = sorted({g["look"] for g in games})
    held = {look: (fit_logistic(*design(_rows([g for g in games if g["look"] != look])), l2=l2),
                   [g for g in games if g["look"] == look]) for look in looks}

    def lofo_recall(t: float) -> float:
        hit = planted = 0
        for w, test in held.values():
            o = outcome(model_of(w, t, 1.0, ""), test)
            hit, planted = hit + o["hit"], planted + o["planted"]
        return hit / max(1, planted)

    rules = outcome(KEEP_ALL_RULES, games)["recall"]
    best = 0.0
    for t in np.round(np.arange(0.0, 0.96, 0.02), 2):
        if lofo_recall(float(t)) >= rules - recall_slack - 1e-9:
            best = float(t)
    return best


def calibration(model: EvidenceModel, games: list[dict[str, Any]], bins: int = 5) -> tuple[list[str], float]:
    """Reliability by score bin (mean score against the share true) and the Brier score."""
    ps, ys = [], []
    for g in games:
        for r in g["rows"]:
            if _weighed(r) and not r.get("retracted"):
                ps.append(_score_row(model, r))
                ys.append(1.0 if r["label"] else 0.0)
    if not ps:
        return [], float("nan")
    p, y = np.array(ps), np.array(ys)
    lines = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        m = (p >= lo) & ((p < hi) if b < bins - 1 else (p <= hi))
        if m.any():
            lines.append(f"  {lo:.1f}-{hi:.1f}: {int(m.sum()):4d} candidates, mean score {p[m].mean():.2f}, "
                         f"true {y[m].mean():.2f}")
    return lines, float(np.mean((p - y) ** 2))


def _rows(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for g in games for r in g["rows"] if _weighed(r) and not r.get("retracted")]


def fit(note: float, l2: float, recall_slack: float) -> None:
    games = load("tuning")
    if not games:
        raise SystemExit(f"no collected tuning games under {OUT}: run `collect --set tuning` first")
    x, y = design(_rows(games))
    print(f"tuning: {len(games)} games, {len(y)} weighed candidates, {int(y.sum())} true")
    hands = {g["seed"]: hand_looks(g["seed"]) for g in games}
    groups: list[tuple[str, dict[str, Callable[[dict[str, Any]], bool]]]] = [
        ("leave-one-family-out (fit and threshold without the family, scored on it)",
         {look: (lambda g, look=look: g["look"] == look) for look in sorted({g["look"] for g in games})}),
        ("leave-one-camera-family-out (fit and threshold on the games without the trait, scored on those with it)",
         {trait: (lambda g, has=has: has(g.get("camera") or {})) for trait, has in CAMERA_FAMILIES.items()}),
        ("leave-one-hand-family-out (fit and threshold on the games where neither hand has the trait)",
         {trait: (lambda g, has=has: any(has(h) for h in hands[g["seed"]])) for trait, has in HAND_FAMILIES.items()}),
    ]
    for title, families in groups:
        print(title + ":")
        for name, member in families.items():
            test = [g for g in games if member(g)]
            train = [g for g in games if not member(g)]
            if test and train:
                w = fit_logistic(*design(_rows(train)), l2=l2)
                m = model_of(w, choose_accuse(train, l2, recall_slack), note, "")
                o, rules = outcome(m, test), outcome(KEEP_ALL_RULES, test)
                print(f"  {name:13s} {o['games']:3d} games: false/10 {o['false_per_10']:.2f} (rules alone "
                      f"{rules['false_per_10']:.2f}), recall {o['recall']:.3f} (rules alone {rules['recall']:.3f}), "
                      f"notes {o['notes']}")
    w = fit_logistic(x, y, l2=l2)
    accuse = choose_accuse(games, l2, recall_slack)
    model = model_of(w, accuse, note, f"{len(games)} TUNING renders, {len(y)} candidates "
                     f"({int(y.sum())} true); accuse: the highest keeping held-out families' recall within "
                     f"{recall_slack} of the rules'")
    o, rules = outcome(model, games), outcome(KEEP_ALL_RULES, games)
    print(f"  false accusations: {', '.join(o['false_list']) or '-'}; rules alone: "
          f"{', '.join(rules['false_list']) or '-'}")
    print(f"all tuning: false/10 {o['false_per_10']:.2f} (rules alone {rules['false_per_10']:.2f}), recall "
          f"{o['recall']:.3f} (rules alone {rules['recall']:.3f}), notes {o['notes']} ({o['notes_true']} true)")
    lines, brier = calibration(model, games)
    print(f"calibration on tuning (Brier {brier:.3f}):")
    print("\n".join(lines))
    print("weights:", dict(zip(list(WEIGHED_KINDS) + list(FEATURES), np.round(w, 3).tolist())), f"accuse {accuse}")
    write_weights(model)


CAMERA_FAMILIES: dict[str, Any] = {
    "steep": lambda c: float(c.get("tilt_deg", 0.0)) >= 30.0,
    "side": lambda c: 45.0 <= float(c.get("azimuth_deg", 0.0)) % 180.0 <= 135.0,
    "distorted": lambda c: abs(float(c.get("distortion", 0.0))) > 0.0,
    "glare": lambda c: bool(c.get("glare")),
    "noisy": lambda c: float(c.get("noise", 0.0)) > 0.0 or float(c.get("blur", 0.0)) > 0.0,
    "shadows": lambda c: bool(c.get("shadows")),
    "bumped": lambda c: bool(c.get("bump")),
}
"""Camera traits of the rig (bench/track_sets.py cameras): each in turn held out of the fit."""

def hand_looks(seed: int) -> list[Any]:
    """The two players' hands of a rendered game (sim.hands.HandLook), drawn again from its seed
    exactly as the renderer drew them."""
    from sim.hands import draw_hand_look
    from sim.render import _streams
    from sim.truth import ClipSpec

    r_hand = _streams(ClipSpec(seed=seed))[8]
    return [draw_hand_look(r_hand), draw_hand_look(r_hand)]


HAND_FAMILIES: dict[str, Any] = {
    "dark skin": lambda h: float(np.mean(h.skin)) < 100.0,
    "light skin": lambda h: float(np.mean(h.skin)) > 170.0,
    "short sleeve": lambda h: h.bare_arm or h.sleeve_start >= 7.5,
    "dark sleeve": lambda h: float(np.mean(h.sleeve)) < 60.0,
    "big hand": lambda h: h.scale > 1.06,
}
"""Traits of the rig's hands (sim/hands.py): each in turn held out of the fit."""

KEEP_ALL_RULES = EvidenceModel({k: 30.0 for k in WEIGHED_KINDS}, (0.0,) * len(FEATURES), accuse=0.0, note=1.0)
"""The rules alone: every raised incident stands, no note."""


def write_weights(model: EvidenceModel) -> None:
    d = model.to_dict()
    text = ('"""The evidence model\'s fitted weights (weigh.EvidenceModel), written by bench/fit_evidence.py fit.\n\n'
            'Do not edit by hand: refit. Intercepts per kind, then one weight per weigh.FEATURES entry;\n'
            '`accuse` chosen on the TUNING renders (fit_evidence.choose_accuse), `note` the score from which\n'
            'a candidate the rules set aside is shown as a review note.\n"""\n\n'
            f"EVIDENCE_MODEL = {pprint.pformat(d, width=110, sort_dicts=False)}\n")
    WEIGHTS.write_text(text)
    print(f"wrote {WEIGHTS.relative_to(ROOT)}")


def score(set_name: str) -> None:
    from board.incidents.weigh import default_model
    games = load(set_name)
    if not games:
        raise SystemExit(f"no collected {set_name} games under {OUT}: run `collect --set {set_name}` first")
    model = default_model()
    o, rules = outcome(model, games), outcome(KEEP_ALL_RULES, games)
    print(f"{set_name}: {len(games)} games, model accuse {model.accuse}, note {model.note}")
    print(f"  false/10 {o['false_per_10']:.2f} (rules alone {rules['false_per_10']:.2f}), recall {o['recall']:.3f} "
          f"({o['hit']}/{o['planted']}; rules alone {rules['recall']:.3f}), review notes {o['notes']} "
          f"({o['notes_true']} of them true incidents)")
    print(f"  false accusations: {', '.join(o['false_list']) or '-'}; rules alone: {', '.join(rules['false_list']) or '-'}")
    lines, brier = calibration(model, games)
    print(f"  calibration (Brier {brier:.3f}; rules-raised and set-aside candidates of weighed kinds):")
    print("\n".join(lines))
    moves = sum(g["moves"] for g in games), sum(g["truth_moves"] for g in games)
    print(f"  moves {moves[0]}/{moves[1]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--set", choices=("tuning", "heldback", "widehands"), required=True)
    c.add_argument("--first", type=int, default=1000, help="the set's first N clips (those rendered)")
    c.add_argument("--jobs", type=int, default=1)
    c.add_argument("--size", default="960x540")
    f = sub.add_parser("fit")
    f.add_argument("--note", type=float, default=0.5, help="score from which a set-aside candidate is a note")
    f.add_argument("--l2", type=float, default=1.0)
    f.add_argument("--recall-slack", type=float, default=0.01,
                   help="recall the threshold may give up against the rules alone on TUNING (default 0.01)")
    s = sub.add_parser("score")
    s.add_argument("--set", choices=("tuning", "heldback", "widehands"), required=True)
    a = ap.parse_args(argv)
    if a.cmd == "collect":
        collect(a.set, a.first, a.jobs, a.size)
    elif a.cmd == "fit":
        fit(a.note, a.l2, a.recall_slack)
    else:
        score(a.set)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
