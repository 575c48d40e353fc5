"""DIR/review.html: the game for an arbiter, readable offline from its folder.

One page built only from the journal (and game.pgn for the clock readings, so they are the
PGN's to the character), so it can be regenerated from any recording, including a crashed
one. It draws the position at every ply with the live pages' own board drawing
(live/board_svg.py; click a move to see it: CSS :target, no script), lists each ply's FEN and wall-clock time, and
gives every incident its clip, a full-resolution crop of the points concerned, the
before / during / after images captioned with the frames they really show, and the arbiter's
ruling. Nothing comes from the network: styles and the CJK font subset are inline, there is no script,
evidence files are linked relatively inside DIR/evidence/.
"""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

from .journal import EVENTS_NAME, PGN_NAME, atomic_write_text, read_events

REVIEW_NAME = "review.html"

_CSS = """
body{font-family:'XQ UI',system-ui,sans-serif;margin:1.2em auto;max-width:1200px;color:#222;background:#fafaf7;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
.meta{color:#555;font-size:.9em}
.flag{color:#b00;font-weight:bold}
.game{display:grid;grid-template-columns:minmax(280px,460px) 1fr;gap:1.2em;align-items:start}
.diagrams{position:sticky;top:.5em}
.dg{display:none}.dg.on{display:block}.dg:target{display:block}.dg svg{width:100%;height:auto}
.diagrams:has(.dg:target) .dg.on:not(:target){display:none}
.dg .cap{font-size:.9em;color:#444;margin:.3em 0;word-break:break-all}
.plies{max-height:80vh;overflow:auto}
table.plies-t{border-collapse:collapse;font-size:.92em;width:100%}
table.plies-t th{text-align:left;font-weight:600;color:#555;border-bottom:1px solid #ccc;padding:2px 6px;position:sticky;top:0;background:#fafaf7}
table.plies-t td{padding:2px 6px;border-bottom:1px solid #eee;vertical-align:top}
table.plies-t tr.on{background:#dbeafe} table.plies-t tr:hover{background:#eef4ff}
table.plies-t a{color:inherit;text-decoration:none;border-bottom:1px dotted #88a}
table.plies-t td.fen{font-family:monospace;font-size:.78em;color:#555;word-break:break-all}
.inc{border-left:5px solid #c33;background:#fff5f5;margin:1em 0;padding:.6em .9em}
.inc.upheld{border-color:#900}.inc.dismissed{border-color:#999;background:#f4f4f4}
.inc h3{margin:.1em 0 .3em;font-size:1.08em;color:#a00}
.inc.retracted{border-color:#999;background:#f4f4f4;color:#666}.inc.retracted h3{color:#666;text-decoration:line-through}
.retraction{font-weight:bold;color:#555}.tl li.retracted{border-color:#999;color:#666}
.ev{display:flex;gap:10px;flex-wrap:wrap;margin:.5em 0;align-items:flex-start}
.ev figure{margin:0} .ev img{max-width:300px;border:1px solid #999;display:block}
.ev img.crop{max-width:none;height:260px;image-rendering:pixelated}
.ev video{max-width:420px;border:1px solid #999;display:block;background:#000}
.ev figcaption{font-size:.8em;color:#555;text-align:center}
.ruling{font-weight:bold}.ruling.pending{color:#a60;font-weight:normal}
.tl{list-style:none;padding:0;font-size:.92em} .tl li{margin:.2em 0;padding:.2em .6em;border-left:4px solid #ccc}
.tl li.move{border-color:#7a7} .tl li.incident{border-color:#c33;background:#fff3f3}
.tl li.tracking{border-color:#99c;color:#445} .tl li.clock{border-color:#cc9;color:#665}
.tl li.ruling{border-color:#555}
.t{display:inline-block;min-width:5.5em;color:#777;font-variant-numeric:tabular-nums}
.summary td{padding:1px 12px 1px 0}
"""

def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _font_face() -> str:
    """@font-face with the shipped CJK subset inline (a page without it shows tofu on bare machines)."""
    try:
        from live.board_svg import FONT_FAMILY
        from live.server import STATIC_DIR
        data = (STATIC_DIR / "xq-ui.woff").read_bytes()
    except (ImportError, OSError):
        return ""
    b64 = base64.b64encode(data).decode("ascii")
    return f"@font-face{{font-family:'{FONT_FAMILY}';src:url(data:font/woff;base64,{b64}) format('woff')}}"


def _pgn_clocks(out_dir: Path | None) -> list[str | None]:
    """Each ply's %clk exactly as game.pgn writes it (None where the PGN has none)."""
    if out_dir is None or not (out_dir / PGN_NAME).exists():
        return []
    from rules import RulesError
    from rules.pgn import format_clock, read_pgn_file
    try:
        games = read_pgn_file(out_dir / PGN_NAME)
    except RulesError:   # unreadable or damaged game.pgn (PgnError): the page shows no clocks
        return []
    if not games:
        return []
    return [format_clock(ms) if ms is not None else None for ms in games[0].clocks_ms]


def _evidence_frames(out_dir: Path | None, evidence: dict[str, str]) -> dict[str, Any]:
    """The frames each evidence file really shows, from the JSON saved beside them."""
    info = evidence.get("info")
    if out_dir is None or not info:
        return {}
    try:
        return dict(json.loads((out_dir / info).read_text(encoding="utf-8")).get("frames") or {})
    except (OSError, ValueError):
        return {}


def render_review(events: list[dict[str, Any]], warnings: list[str] | None = None,
                  out_dir: str | Path | None = None) -> str:
    """The review page's HTML for a list of journal events (`out_dir` supplies game.pgn's clocks
    and the evidence's frame numbers)."""
    from live.board_svg import board_svg, grid_symbol
    from live.labels import label
    from live.state import fold

    folder = Path(out_dir) if out_dir is not None else None
    game = fold(events)
    headers = game.headers
    clocks = _pgn_clocks(folder)
    title = " vs ".join(x for x in (headers.get("Red"), headers.get("Black")) if x) or "Recorded game"
    out = ["<!DOCTYPE html>", "<html lang='zh-Hans'><head><meta charset='utf-8'>",
           f"<title>{_e(title)} — {_e(label('review'))}</title><style>{_font_face()}{_CSS}</style></head><body>",
           f"<h1>{_e(title)}</h1><p class='meta'>{_e(label('review'))}</p>"]
    meta = [f"{k}: {v}" for k, v in headers.items() if k in ("Event", "Site", "Date", "Round")]
    meta.append(f"start: {game.start_fen or '?'}")
    out.append(f"<p class='meta'>{_e(' · '.join(meta))}</p>")
    out.append("<table class='summary'>")
    out.append(f"<tr><td>{_e(label('moves'))}</td><td>{len(game.plies)}</td></tr>")
    withdrawn = sum(1 for inc in game.incidents if inc.retracted is not None)
    out.append(f"<tr><td>{_e(label('incidents'))}</td><td>{len(game.incidents) - withdrawn}"
               + (f" <span class='meta'>(+{withdrawn} retracted after a correction)</span>" if withdrawn else "")
               + "</td></tr>")
    if game.result != "*" or game.end_reason:
        out.append(f"<tr><td>{_e(label('result'))}</td><td>{_e(game.result)} ({_e(game.end_reason)})</td></tr>")
    oos = [e for e in events if e.get("type") == "tracking" and e.get("status") == "out_of_sync"]
    if oos:
        out.append(f"<tr><td>{_e(label('out_of_sync'))}</td><td>{len(oos)} time(s) — see the timeline</td></tr>")
    out.append("</table>")
    for w in list(warnings or []) + game.warnings:
        out.append(f"<p class='flag'>{_e(w)}</p>")

    # The game: a diagram per ply (one shared grid), a row per ply with clock, wall time and FEN.
    last = len(game.plies)
    inc_plies: dict[int, list[int]] = {}
    for inc in game.incidents:
        if inc.retracted is None:
            inc_plies.setdefault(inc.ply, []).append(inc.id)
    out.append(f"<h2>{_e(label('moves'))} · {_e(label('position'))}</h2>")
    out.append(grid_symbol("xq-grid"))
    out.append("<div class='game'><div class='diagrams'>")
    for n in range(last + 1):
        p = game.plies[n - 1] if n else None
        fen = game.fen_at(n)
        cap = (f"{label('ply')} {n}: {p.chinese} ({p.wxf}, {p.iccs})" if p else f"{label('start')} · {label('ply')} 0")
        marks = tuple(pt for inc in game.incidents if inc.ply == n and inc.retracted is None for pt in inc.points)
        try:
            diagram = board_svg(fen, p.iccs if p else None, grid_ref="xq-grid", marks=marks, title=cap,
                                standalone=False)
        except ValueError as exc:   # a position the journal got wrong: say so, keep the rest of the page
            diagram = f"<p class='flag'>{_e(exc)}</p>"
        out.append(f"<div class='dg{' on' if n == last else ''}' id='d{n}'>{diagram}"
                   f"<p class='cap'>{_e(cap)}<br>FEN {_e(fen)}</p></div>")
    out.append("</div><div class='plies'><table class='plies-t'><tr>"
               f"<th>{_e(label('ply'))}</th><th>{_e(label('moves'))}</th><th>WXF</th><th>ICCS</th>"
               f"<th>{_e(label('clocks'))}</th><th>{_e(label('time'))}</th><th>FEN</th></tr>")
    out.append(f"<tr data-ply='0'><td>0</td><td colspan='5'><a href='#d0'>{_e(label('start'))}</a></td>"
               f"<td class='fen'>{_e(game.fen_at(0))}</td></tr>")
    for p in game.plies:
        clk = clocks[p.ply - 1] if p.ply - 1 < len(clocks) and clocks[p.ply - 1] else ""
        flag = "".join(f" <a class='flag' href='#inc{i}'>#{i}</a>" for i in inc_plies.get(p.ply, []))
        note = " <span class='meta'>(inferred)</span>" if p.inferred else ""
        out.append(f"<tr data-ply='{p.ply}' id='ply{p.ply}' class='{'on' if p.ply == last else ''}'>"
                   f"<td>{(p.ply + 1) // 2}{'.' if p.side == 'red' else '…'}</td>"
                   f"<td><a href='#d{p.ply}'>{_e(p.chinese)}</a>{note}{flag}</td><td>{_e(p.wxf)}</td><td>{_e(p.iccs)}</td>"
                   f"<td class='clk'>{_e(clk)}</td><td>{_e(p.wall[11:23] if len(p.wall) > 19 else p.wall)}"
                   f" <span class='meta'>({p.t:.1f} s)</span></td><td class='fen'>{_e(p.fen)}</td></tr>")
    out.append("</table></div></div>")

    # Incidents: clip, crop, stills (captions from the frames the files really show), ruling.
    out.append(f"<h2>{_e(label('incidents'))}</h2>")
    if not game.incidents:
        out.append(f"<p class='meta'>{_e(label('none'))}</p>")
    for inc in game.incidents:
        decision = (inc.ruling or {}).get("decision") or "pending"
        state = "retracted" if inc.retracted is not None else decision
        out.append(f"<div class='inc {_e(state)}' id='inc{inc.id}' data-id='{inc.id}'>"
                   f"<h3>#{inc.id} {_e(label(inc.kind) if inc.kind in _KNOWN else inc.kind)}</h3>"
                   f"<div>{_e(inc.side or '')} · <a href='#d{inc.ply}'>"
                   f"{_e(label('ply'))} {inc.ply}</a> · t={inc.t:.1f} s · {_e(inc.wall)}"
                   f" · {_e(label('points'))} {_e(', '.join(inc.points) or '-')}</div>"
                   f"<div>{_e(inc.detail)}</div>")
        if inc.retracted is not None:
            out.append(f"<div class='retraction'>retracted at t={float(inc.retracted.get('t', 0.0)):.1f} s: "
                       f"{_e(inc.retracted.get('reason', ''))}</div>")
        shown = _evidence_frames(folder, inc.evidence)
        ev = inc.evidence
        if ev:
            out.append("<div class='ev'>")
            if "clip" in ev:
                span = shown.get("clip")
                cap = (f"{label('clip')} · {label('frame')} {span[0]}–{span[1]}"
                       if isinstance(span, list) and len(span) == 2 else label("clip"))
                out.append(f"<figure><video class='clip' src='{_e(ev['clip'])}' controls muted loop preload='auto'>"
                           f"</video><figcaption>{_e(cap)}</figcaption></figure>")
            if "crop" in ev:
                out.append(f"<figure><a href='{_e(ev['crop'])}'><img class='crop' src='{_e(ev['crop'])}' "
                           f"alt='crop'></a><figcaption>{_e(label('crop'))} · {_e(label('frame'))} "
                           f"{_e(shown.get('crop', inc.frames.get('during', '?')))}</figcaption></figure>")
            for role in ("before", "during", "after"):
                if role in ev:
                    src = _e(ev[role])
                    frame = shown.get(role, inc.frames.get(role, "?"))
                    out.append(f"<figure><a href='{src}'><img src='{src}' alt='{role}'></a>"
                               f"<figcaption>{_e(label(role))} · {_e(label('frame'))} {_e(frame)}"
                               f"</figcaption></figure>")
            out.append("</div>")
        if inc.retracted is not None and not inc.ruling:
            pass   # withdrawn by the tracker: nothing left to rule on
        elif inc.ruling:
            note = f" — {inc.ruling.get('note')}" if inc.ruling.get("note") else ""
            out.append(f"<div class='ruling {_e(decision)}'>{_e(label('ruling'))}: {_e(label(decision))}"
                       f"{_e(note)} <span class='meta'>{_e(inc.ruling.get('wall', ''))}</span></div>")
        else:
            out.append(f"<div class='ruling pending'>{_e(label('ruling'))}: {_e(label('pending'))}"
                       f" <span class='meta'>(xqtrack rule DIR {inc.id} --uphold | --dismiss)</span></div>")
        out.append("</div>")

    out.append("<h2>Timeline</h2><ul class='tl'>")
    for e in events:
        typ = e.get("type")
        t = f"<span class='t'>{float(e.get('t', 0.0) or 0.0):8.1f} s</span>"
        if typ == "move":
            extra = " <span class='meta'>(inferred: not seen by itself)</span>" if e.get("inferred") else ""
            if e.get("corrected"):
                extra += " <span class='meta'>(re-stated after a correction)</span>"
            out.append(f"<li class='move'>{t} ply {_e(e.get('ply'))} · {_e(e.get('side'))}"
                       f" · <b>{_e(e.get('notation', ''))}</b> ({_e(e.get('iccs'))}){extra}</li>")
        elif typ == "incident":
            ident = e.get("id", "")
            out.append(f"<li class='incident'>{t} <a href='#inc{_e(ident)}'>#{_e(ident)}</a> {_e(e.get('kind'))}"
                       f" · ply {_e(e.get('ply'))} · {_e(e.get('side') or '')}: {_e(e.get('detail', ''))}</li>")
        elif typ == "incident_retracted":
            ident = e.get("incident", "")
            out.append(f"<li class='retracted'>{t} <a href='#inc{_e(ident)}'>#{_e(ident)}</a> {_e(e.get('kind'))}"
                       f" retracted: {_e(e.get('reason', ''))}</li>")
        elif typ == "tracking":
            status = e.get("status")
            if status in ("frame_error", "frames_dropped"):
                continue
            pts = e.get("points") or []
            out.append(f"<li class='tracking'>{t} {_e(status)}: {_e(e.get('detail', ''))}"
                       + (f" — points {_e(', '.join(str(p) for p in pts))}" if pts else "") + "</li>")
        elif typ == "clock":
            out.append(f"<li class='clock'>{t} clock: {_e(e.get('detail', e.get('kind', '')))}</li>")
        elif typ == "ruling":
            out.append(f"<li class='ruling'>{t} {_e(label('ruling'))} #{_e(e.get('incident'))}: "
                       f"{_e(e.get('decision'))} {_e(e.get('note') or '')}</li>")
        elif typ == "game_end":
            out.append(f"<li class='tracking'>{t} game over: {_e(e.get('result'))} ({_e(e.get('reason'))})</li>")
    out.append("</ul><p class='meta'>Generated by xqtrack from events.jsonl.</p>")
    out.append("</body></html>")
    return "\n".join(out)


_KNOWN = {"touch_move_other", "retouch", "between_points", "knocked", "illegal_move", "repetition",
          "clock_no_press", "clock_two_moves", "clock_press_no_move"}


def write_review(out_dir: str | Path) -> Path:
    """(Re)write DIR/review.html from DIR/events.jsonl."""
    out_dir = Path(out_dir)
    events, warnings = read_events(out_dir / EVENTS_NAME)
    path = out_dir / REVIEW_NAME
    atomic_write_text(path, render_review(events, warnings, out_dir))
    return path
