"""DIR/review.html: the game for an arbiter, readable offline.

One self-contained page (inline CSS, no scripts, no fonts or files from the
network; evidence images by relative link into DIR/evidence/) built only
from the journal, so it can be regenerated from any recording, including a
crashed one. It shows the moves, then a timeline where every incident sits
between the moves around it with its before / during / after images.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .journal import EVENTS_NAME, atomic_write_text, final_move_events, read_events

REVIEW_NAME = "review.html"

_CSS = """
body{font-family:system-ui,'Noto Sans CJK SC','Microsoft YaHei',sans-serif;margin:1.5em auto;max-width:1100px;
color:#222;background:#fafaf7;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
.meta{color:#555;font-size:.9em}
table.moves{border-collapse:collapse;font-size:.95em} table.moves td{padding:2px 10px}
table.moves tr:nth-child(even){background:#eee}
.flag{color:#b00;font-weight:bold}
.tl{list-style:none;padding:0} .tl li{margin:.3em 0;padding:.3em .6em;border-left:4px solid #ccc}
.tl li.move{border-color:#7a7} .tl li.incident{border-color:#c33;background:#fff3f3}
.tl li.tracking{border-color:#99c;color:#445} .tl li.clock{border-color:#cc9;color:#665}
.t{display:inline-block;min-width:5.5em;color:#777;font-variant-numeric:tabular-nums}
.kind{font-weight:bold;color:#a00}
.ev{display:flex;gap:8px;flex-wrap:wrap;margin:.4em 0}
.ev figure{margin:0} .ev img{max-width:340px;border:1px solid #999}
.ev figcaption{font-size:.8em;color:#555;text-align:center}
.summary td{padding:1px 12px 1px 0}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _clock(ms: Any) -> str:
    try:
        s = int(ms) // 1000
    except (TypeError, ValueError):
        return "-"
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def render_review(events: list[dict[str, Any]], warnings: list[str] | None = None) -> str:
    """The review page's HTML for a list of journal events."""
    started = next((e for e in events if e.get("type") == "tracking" and e.get("status") in ("started",)), {})
    headers = started.get("headers") or {}
    moves = final_move_events(events)
    incidents = [e for e in events if e.get("type") == "incident"]
    end = next((e for e in reversed(events) if e.get("type") == "game_end"), None)
    title = " vs ".join(x for x in (headers.get("Red"), headers.get("Black")) if x) or "Recorded game"
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           f"<title>{_e(title)} — xqtrack review</title><style>{_CSS}</style></head><body>",
           f"<h1>{_e(title)}</h1>"]
    meta = [f"{k}: {v}" for k, v in headers.items() if k in ("Event", "Site", "Date", "Round")]
    meta.append(f"start: {started.get('fen', '?')}")
    out.append(f"<p class='meta'>{_e(' · '.join(meta))}</p>")
    out.append("<table class='summary'>")
    out.append(f"<tr><td>moves</td><td>{len(moves)}</td></tr>")
    out.append(f"<tr><td>incidents</td><td>{len(incidents)}</td></tr>")
    if end:
        out.append(f"<tr><td>result</td><td>{_e(end.get('result', ''))} ({_e(end.get('reason', ''))})</td></tr>")
    oos = [e for e in events if e.get("type") == "tracking" and e.get("status") == "out_of_sync"]
    if oos:
        out.append(f"<tr><td>out of sync</td><td>{len(oos)} time(s) — see the timeline</td></tr>")
    out.append("</table>")
    for w in warnings or []:
        out.append(f"<p class='flag'>{_e(w)}</p>")

    # Moves table: numbered pairs, with a flag where incidents happened at that ply.
    inc_plies = {int(e.get("ply", -1)) for e in incidents}
    out.append("<h2>Moves</h2><table class='moves'>")
    for i in range(0, len(moves), 2):
        red = moves[i]
        black = moves[i + 1] if i + 1 < len(moves) else None
        cells = [f"<td>{(i // 2) + 1}.</td>"]
        for m in (red, black):
            if m is None:
                cells.append("<td></td>")
                continue
            flag = " <span class='flag'>⚑</span>" if int(m.get("ply", -1)) in inc_plies else ""
            clk = f" <span class='meta'>[{_clock(m['clock_ms'].get(m.get('side')))}]</span>" \
                if isinstance(m.get("clock_ms"), dict) and m.get("side") in m["clock_ms"] else ""
            cells.append(f"<td><a href='#ply{_e(m.get('ply'))}'>{_e(m.get('notation', m.get('iccs')))}</a>"
                         f" <span class='meta'>{_e(m.get('iccs'))}</span>{clk}{flag}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")

    out.append("<h2>Timeline</h2><ul class='tl'>")
    for e in events:
        typ = e.get("type")
        t = f"<span class='t'>{float(e.get('t', 0.0)):8.1f} s</span>"
        if typ == "move":
            inferred = " <span class='meta'>(inferred: not seen by itself)</span>" if e.get("inferred") else ""
            if e.get("corrected"):
                inferred += " <span class='meta'>(re-stated after a correction)</span>"
            out.append(f"<li class='move' id='ply{_e(e.get('ply'))}'>{t} ply {_e(e.get('ply'))} · {_e(e.get('side'))}"
                       f" · <b>{_e(e.get('notation', ''))}</b> ({_e(e.get('iccs'))}){inferred}</li>")
        elif typ == "incident":
            out.append(f"<li class='incident'>{t} <span class='kind'>{_e(e.get('kind'))}</span> · ply "
                       f"{_e(e.get('ply'))} · {_e(e.get('side') or '')} · points {_e(', '.join(e.get('points') or []))}"
                       f"<br>{_e(e.get('detail', ''))}")
            ev = e.get("evidence") or {}
            if ev:
                out.append("<div class='ev'>")
                for role in ("before", "during", "after"):
                    if role in ev:
                        src = _e(ev[role])
                        out.append(f"<figure><a href='{src}'><img src='{src}' alt='{role}'></a>"
                                   f"<figcaption>{role} (frame {_e((e.get('frames') or {}).get(role, '?'))})"
                                   f"</figcaption></figure>")
                out.append("</div>")
            if e.get("board_shows"):
                out.append(f"<div class='meta'>board shows: {_e(e['board_shows'])}</div>")
            out.append("</li>")
        elif typ == "tracking":
            status = e.get("status")
            if status in ("frame_error",):
                continue
            out.append(f"<li class='tracking'>{t} {_e(status)}: {_e(e.get('detail', ''))}"
                       + (f" — points {_e(', '.join(e.get('points')))}" if e.get("points") else "") + "</li>")
        elif typ == "clock":
            out.append(f"<li class='clock'>{t} clock: {_e(e.get('detail', e.get('kind', '')))}</li>")
        elif typ == "game_end":
            out.append(f"<li class='tracking'>{t} game over: {_e(e.get('result'))} ({_e(e.get('reason'))})</li>")
    out.append("</ul><p class='meta'>Generated by xqtrack from events.jsonl.</p></body></html>")
    return "\n".join(out)


def write_review(out_dir: str | Path) -> Path:
    """(Re)write DIR/review.html from DIR/events.jsonl."""
    out_dir = Path(out_dir)
    events, warnings = read_events(out_dir / EVENTS_NAME)
    path = out_dir / REVIEW_NAME
    atomic_write_text(path, render_review(events, warnings))
    return path
