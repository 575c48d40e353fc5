"""DIR/review.html: the game for an arbiter, readable offline from its folder.

One page built only from the journal (and game.pgn for the clock readings, so they are the
PGN's to the character), so it can be regenerated from any recording, including a crashed
one. It draws the position at every ply with the live pages' own board drawing
(live/board_svg.py; click a move to see it: CSS :target, no script), lists each ply's FEN and wall-clock time, and
gives every incident its clip, a full-resolution crop of the points concerned, the
before / during / after images captioned with the frames they really show, and the arbiter's
ruling. Nothing comes from the network: styles and the CJK font subset are inline, there is no script,
evidence files are linked relatively inside DIR/evidence/.

The arbiter's part is shown whole: every ruling and result with its revisions (the latest stands),
each correction of the record (who, why, what it replaced), and the moves made after the result
(post-game, not in the game). Offline, each open incident names the exact command that rules on it
(with this folder's own path). Served by `xqtrack serve` / `record --http`, the same file gets the
ruling, result and correction forms (live/static/review.js, added by the server for a browser
holding the arbiters' token); it reads the elements' data-* attributes written here.
"""
from __future__ import annotations

import base64
import html
import json
import re
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

from .journal import EVENTS_NAME, PGN_NAME, atomic_write_text, read_events

REVIEW_NAME = "review.html"

_CSS = """
body{font-family:'XQ UI','XQ Names',system-ui,sans-serif;margin:1.2em auto;max-width:1200px;color:#222;background:#fafaf7;padding:0 1em}
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
.history{font-size:.9em;margin:.3em 0 .3em 1em;padding:0;list-style:none}.history li{color:#666}
.history li.stands{color:#222;font-weight:bold}.cmd{font-family:monospace;font-size:.85em;color:#555}
.fix{border-left:5px solid #36c;background:#f3f7ff;margin:.6em 0;padding:.4em .8em}
.tl li.arbiter{border-color:#36c;background:#f3f7ff} .tl li.post{border-color:#bbb;color:#777}
.arb{margin:.4em 0}.arb button{margin-right:.4em}.arb input{width:18em}
.note{border-left:5px solid #c90;background:#fffbea;margin:1em 0;padding:.6em .9em}
.note h3{margin:.1em 0 .3em;font-size:1em;color:#850}.tl li.note{border-color:#c90;background:#fffbea}
"""

def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _local(wall: Any, date: bool = True) -> str:
    """A journal's wall time (ISO-8601, UTC) in this machine's time zone, as the arbiters at the
    venue read a clock: 'YYYY-MM-DD HH:MM:SS' (HH:MM:SS.mmm without the date); the text as it
    came when it does not read. The page is a static file without script, so the zone is the one
    of the machine that writes it (the station's, or the hall's hub)."""
    text = str(wall or "")
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return text
    if t.tzinfo is None:
        return text
    t = t.astimezone()
    return t.strftime("%Y-%m-%d %H:%M:%S") if date else t.strftime("%H:%M:%S.") + f"{t.microsecond // 1000:03d}"


# Hanzi, the CJK punctuation and the full-width forms: what the names font covers.
_CJK = re.compile("[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _font_face(free_text: str = "") -> str:
    """@font-face with the shipped CJK subset inline (a page without it shows tofu on bare machines).

    The UI subset holds the labels, notation and rule texts only; players', teams' and places'
    names can be any hanzi, so where the free text of the record (`free_text`: its headers) has
    any, the names font (GB 2312, about 0.6 MB) is inlined too, for those characters alone."""
    try:
        from live.board_svg import FONT_FAMILY
        from live.server import STATIC_DIR
        data = (STATIC_DIR / "xq-ui.woff").read_bytes()
        names = (STATIC_DIR / "xq-names.woff").read_bytes() if _CJK.search(free_text) else b""
    except (ImportError, OSError):
        return ""
    b64 = base64.b64encode(data).decode("ascii")
    css = f"@font-face{{font-family:'{FONT_FAMILY}';src:url(data:font/woff;base64,{b64}) format('woff')}}"
    if names:
        css += ("@font-face{font-family:'XQ Names';src:url(data:font/woff;base64,"
                f"{base64.b64encode(names).decode('ascii')}) format('woff');"
                "unicode-range:U+3000-303F,U+4E00-9FFF,U+FF00-FFEF}")
    return css


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


def _evidence_figures(folder: Path | None, ev: dict[str, str], frames: dict[str, int]) -> list[str]:
    """An incident's or a note's images: clip, crop and stills, captioned with the frames the files show."""
    from live.labels import label

    if not ev:
        return []
    shown = _evidence_frames(folder, ev)
    out: list[str] = []
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
                   f"{_e(shown.get('crop', frames.get('during', '?')))}</figcaption></figure>")
    for role in ("before", "during", "after"):
        if role in ev:
            src = _e(ev[role])
            frame = shown.get(role, frames.get(role, "?"))
            out.append(f"<figure><a href='{src}'><img src='{src}' alt='{role}'></a>"
                       f"<figcaption>{_e(label(role))} · {_e(label('frame'))} {_e(frame)}"
                       f"</figcaption></figure>")
    out.append("</div>")
    return out


def render_review(events: list[dict[str, Any]], warnings: list[str] | None = None,
                  out_dir: str | Path | None = None, folder_shown: str | None = None) -> str:
    """The review page's HTML for a list of journal events (`out_dir` supplies game.pgn's clocks
    and the evidence's frame numbers). The arbiter's commands shown on it name `out_dir`'s real
    path, or `folder_shown` (the hub's copy of a board is not the station's folder: "DIR")."""
    from live.board_svg import board_svg, grid_symbol
    from live.labels import label
    from live.state import fold

    folder = Path(out_dir) if out_dir is not None else None
    game = fold(events)
    headers = game.headers
    clocks = _pgn_clocks(folder)
    where = folder_shown or (shlex.quote(str(folder.resolve())) if folder is not None else "DIR")
    title = " vs ".join(x for x in (headers.get("Red"), headers.get("Black")) if x) or "Recorded game"
    standing = game.results[-1]["revision"] if game.results else ""
    out = ["<!DOCTYPE html>", "<html lang='zh-Hans'><head><meta charset='utf-8'>",
           f"<title>{_e(title)} — {_e(label('review'))}</title><style>{_font_face(' '.join(str(v) for v in headers.values()))}{_CSS}</style></head>"
           f"<body data-plies='{len(game.plies)}' data-result='{_e(game.result)}' data-result-revision='{standing}'>",
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
    if game.notes:
        out.append(f"<tr><td>{_e(label('notes'))}</td><td><a href='#notes'>{len(game.notes)}</a> "
                   f"<span class='meta'>({_e(label('notes_explain'))})</span></td></tr>")
    if game.result != "*" or game.end_reason:
        revised = (f" <span class='meta'>(revision {standing} of {len(game.results)}: see "
                   f"<a href='#results'>{_e(label('history'))}</a>)</span>" if len(game.results) > 1 else "")
        out.append(f"<tr><td>{_e(label('result'))}</td><td id='result'>{_e(game.result)} ({_e(game.end_reason)})"
                   f"{revised}</td></tr>")
    if game.corrections:
        out.append(f"<tr><td>{_e(label('corrections'))}</td><td><a href='#corrections'>{len(game.corrections)}</a>"
                   f"</td></tr>")
    if game.post_game:
        out.append(f"<tr><td>{_e(label('post_game'))}</td><td><a href='#post-game'>{len(game.post_game)}</a> "
                   f"<span class='meta'>(after the result; not part of the game)</span></td></tr>")
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
    by_arbiter = _arbiter_plies(game.corrections, last)
    for p in game.plies:
        clk = clocks[p.ply - 1] if p.ply - 1 < len(clocks) and clocks[p.ply - 1] else ""
        flag = "".join(f" <a class='flag' href='#inc{i}'>#{i}</a>" for i in inc_plies.get(p.ply, []))
        note = " <span class='meta'>(inferred)</span>" if p.inferred else ""
        if p.ply in by_arbiter:
            note += f" <a class='meta' href='#fix{by_arbiter[p.ply]}'>({_e(label('arbiter'))})</a>"
        out.append(f"<tr data-ply='{p.ply}' id='ply{p.ply}' class='{'on' if p.ply == last else ''}'>"
                   f"<td>{(p.ply + 1) // 2}{'.' if p.side == 'red' else '…'}</td>"
                   f"<td><a href='#d{p.ply}'>{_e(p.chinese)}</a>{note}{flag}</td><td>{_e(p.wxf)}</td><td>{_e(p.iccs)}</td>"
                   f"<td class='clk'>{_e(clk)}</td><td>{_e(_local(p.wall, date=False))}"
                   f" <span class='meta'>({p.t:.1f} s)</span></td><td class='fen'>{_e(p.fen)}</td></tr>")
    out.append("</table></div></div>")
    out.extend(_arbiter_sections(game, where))

    # Incidents: clip, crop, stills (captions from the frames the files really show), ruling.
    out.append(f"<h2>{_e(label('incidents'))}</h2>")
    if not game.incidents:
        out.append(f"<p class='meta'>{_e(label('none'))}</p>")
    for inc in game.incidents:
        decision = (inc.ruling or {}).get("decision") or "pending"
        state = "retracted" if inc.retracted is not None else decision
        revision = inc.rulings[-1].get("revision", "") if inc.rulings else ""
        out.append(f"<div class='inc {_e(state)}' id='inc{inc.id}' data-id='{inc.id}' data-revision='{revision}'"
                   f" data-retracted='{1 if inc.retracted is not None else 0}'>"
                   f"<h3>#{inc.id} {_e(label(inc.kind) if inc.kind in _KNOWN else inc.kind)}</h3>"
                   f"<div>{_e(inc.side or '')} · <a href='#d{inc.ply}'>"
                   f"{_e(label('ply'))} {inc.ply}</a> · t={inc.t:.1f} s · {_e(_local(inc.wall))}"
                   f" · {_e(label('points'))} {_e(', '.join(inc.points) or '-')}</div>"
                   f"<div>{_e(inc.detail_zh)}</div><div>{_e(inc.detail)}</div>")
        if inc.retracted is not None:
            out.append(f"<div class='retraction'>retracted at t={float(inc.retracted.get('t', 0.0)):.1f} s: "
                       f"{_e(inc.retracted.get('reason', ''))}</div>")
        out.extend(_evidence_figures(folder, inc.evidence, inc.frames))
        if inc.retracted is not None and not inc.ruling:
            pass   # withdrawn by the tracker: nothing left to rule on
        elif inc.ruling:
            note = f" — {inc.ruling.get('note')}" if inc.ruling.get("note") else ""
            out.append(f"<div class='ruling {_e(decision)}'>{_e(label('ruling'))}: {_e(label(decision))}"
                       f"{_e(note)} <span class='meta'>{_e(_who(inc.ruling))} {_e(_local(inc.ruling.get('wall', '')))}</span></div>")
            if len(inc.rulings) > 1:
                out.append(_history(label("ruling"), [
                    (r, f"{label(str(r.get('decision')))}" + (f" — {r.get('note')}" if r.get("note") else ""))
                    for r in inc.rulings]))
            out.append(f"<div class='cmd'>xqtrack rule {_e(where)} {inc.id} --revise --uphold | --dismiss</div>")
        else:
            out.append(f"<div class='ruling pending'>{_e(label('ruling'))}: {_e(label('pending'))}"
                       f" <span class='meta cmd'>(xqtrack rule {_e(where)} {inc.id} --uphold | --dismiss)</span></div>")
        out.append("</div>")

    if game.notes:
        # weak evidence: shown with its score and images, never counted or ruled on as an incident
        out.append(f"<h2 id='notes'>{_e(label('notes'))}</h2><p class='meta'>{_e(label('notes_explain'))}</p>")
        for nv in game.notes:
            out.append(f"<div class='note' id='note{nv.id}' data-note='{nv.id}' data-score='{nv.score:.3f}'>"
                       f"<h3>{_e(label(nv.kind) if nv.kind in _KNOWN else nv.kind)} · {_e(label('score'))} "
                       f"{nv.score:.2f}</h3>"
                       f"<div>{_e(nv.side or '')} · <a href='#d{nv.ply}'>{_e(label('ply'))} {nv.ply}</a> · "
                       f"t={nv.t:.1f} s · {_e(_local(nv.wall))} · {_e(label('points'))} {_e(', '.join(nv.points) or '-')}"
                       f"</div><div>{_e(nv.detail_zh)}</div><div>{_e(nv.detail)}</div>")
            out.extend(_evidence_figures(folder, nv.evidence, nv.frames))
            out.append("</div>")

    out.append("<h2>Timeline</h2><ul class='tl'>")
    closed = False     # an arbiter's result stands: later moves are the post-mortem
    for e in events:
        typ = e.get("type")
        t = f"<span class='t'>{float(e.get('t', 0.0) or 0.0):8.1f} s</span>"
        if typ == "move":
            extra = " <span class='meta'>(inferred: not seen by itself)</span>" if e.get("inferred") else ""
            if e.get("corrected"):
                extra += " <span class='meta'>(re-stated after a correction)</span>"
            post = e.get("post_game") or (closed and not e.get("corrected"))
            if post:
                extra += f" <span class='meta'>({_e(label('post_game'))}: not part of the game)</span>"
            out.append(f"<li class='{'move post' if post else 'move'}'>{t} ply {_e(e.get('ply'))} · {_e(e.get('side'))}"
                       f" · <b>{_e(e.get('notation', ''))}</b> ({_e(e.get('iccs'))}){extra}</li>")
        elif typ == "arbiter_correction":
            out.append(f"<li class='arbiter'>{t} {_e(label('corrections'))}: {_e(label('from_ply'))} "
                       f"{_e(e.get('from_ply'))}: {_e(' '.join(e.get('was') or []) or '-')} → "
                       f"{_e(' '.join(e.get('moves') or []) or '-')} · {_e(e.get('by') or '')}"
                       f"{' — ' + _e(e.get('note')) if e.get('note') else ''}</li>")
        elif typ == "incident":
            ident = e.get("id", "")
            out.append(f"<li class='incident'>{t} <a href='#inc{_e(ident)}'>#{_e(ident)}</a> {_e(e.get('kind'))}"
                       f" · ply {_e(e.get('ply'))} · {_e(e.get('side') or '')}: {_e(e.get('detail', ''))}</li>")
        elif typ == "review_note":
            out.append(f"<li class='note'>{t} <a href='#note{_e(e.get('note', ''))}'>{_e(label('notes'))}</a> "
                       f"{_e(e.get('kind'))} · ply {_e(e.get('ply'))} · {_e(e.get('side') or '')} · "
                       f"{_e(label('score'))} {_e(e.get('score'))}: {_e(e.get('detail', ''))}</li>")
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
            rev = f" (revises r{_e(e.get('revises'))})" if e.get("revises") else ""
            out.append(f"<li class='ruling'>{t} {_e(label('ruling'))} #{_e(e.get('incident'))}: "
                       f"{_e(e.get('decision'))}{rev} {_e(e.get('note') or '')}</li>")
        elif typ == "game_end":
            rev = f" (revises r{_e(e.get('revises'))})" if e.get("revises") else ""
            who = f" · {_e(e.get('by'))}" if e.get("by") else ""
            out.append(f"<li class='tracking'>{t} game over: {_e(e.get('result'))} ({_e(e.get('reason'))}){rev}"
                       f"{who}</li>")
            closed = closed or _arbiter_end(e)
    out.append("</ul><p class='meta'>Generated by xqtrack from events.jsonl.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def _arbiter_end(e: dict[str, Any]) -> bool:
    """A game_end line entered by a person (board.events.GameEndEvent.arbiter, on the raw line)."""
    return bool(e.get("by") or e.get("command") or str(e.get("reason") or "").startswith("arbiter"))


def _who(entry: dict[str, Any]) -> str:
    """'by NAME' for an entry that says who made it."""
    return f"by {entry['by']}" if entry.get("by") else ""


def _history(title: str, entries: list[tuple[dict[str, Any], str]]) -> str:
    """Every revision of a ruling or a result, the last (standing) one in bold."""
    items = []
    for i, (entry, text) in enumerate(entries):
        rev = entry.get("revision") or i + 1
        revises = f", revises r{entry['revises']}" if entry.get("revises") else ""
        items.append(f"<li class='{'stands' if i == len(entries) - 1 else 'revised'}' data-revision='{_e(rev)}'>"
                     f"r{_e(rev)}{_e(revises)}: {_e(text)} <span class='meta'>{_e(_who(entry))} "
                     f"{_e(_local(entry.get('wall', '')))}</span></li>")
    return f"<ul class='history' title='{_e(title)}'>" + "".join(items) + "</ul>"


def _arbiter_plies(corrections: list[dict[str, Any]], plies: int) -> dict[int, int]:
    """Ply -> the number (1, 2, ...) of the arbiter's correction that last wrote it."""
    out: dict[int, int] = {}
    for n, c in enumerate(corrections, 1):
        start = int(c["from_ply"])
        for p in list(out):
            if p >= start:
                del out[p]
        for i in range(len(c["moves"])):
            if start + i <= plies:
                out[start + i] = n
    return out


def _arbiter_sections(game: Any, where: str) -> list[str]:
    """The result's history, the arbiter's corrections and the post-game moves, each when there is any."""
    from live.labels import label

    out: list[str] = []
    if game.results:
        out.append(f"<h2 id='results'>{_e(label('result'))} · {_e(label('history'))}</h2>")
        out.append(_history(label("result"), [(r, f"{r['result']} ({r['reason']})" +
                                               (f" — {r['note']}" if r.get("note") else "") +
                                               f" at ply {r['ply']}") for r in game.results]))
        out.append(f"<div class='cmd'>xqtrack result {_e(where)} RESULT --reason WHY --revise</div>")
    if game.corrections:
        out.append(f"<h2 id='corrections'>{_e(label('corrections'))}</h2>")
        for n, c in enumerate(game.corrections, 1):
            note = f" — {c['note']}" if c.get("note") else ""
            out.append(f"<div class='fix' id='fix{n}'><b>{_e(label('from_ply'))} {_e(c['from_ply'])}</b>: "
                       f"{_e(' '.join(c['was']) or '-')} → <b>{_e(' '.join(c['moves']) or '-')}</b>"
                       f" <span class='meta'>{_e(_who(c))}{_e(note)} · {_e(_local(c.get('wall', '')))}</span></div>")
    if game.post_game:
        out.append(f"<h2 id='post-game'>{_e(label('post_game'))}</h2><p class='meta'>Made on the board after the "
                   f"result ({_e(game.result)}); journalled, not part of the game.</p><ul class='tl'>")
        for p in game.post_game:
            out.append(f"<li class='move post'><span class='t'>{float(p['t']):8.1f} s</span> {_e(p['side'])} "
                       f"{_e(p['iccs'])}</li>")
        out.append("</ul>")
    if game.start_fen is not None:
        out.append(f"<div class='cmd'>xqtrack correct {_e(where)} --from-ply N --moves \"M1 M2 ...\" "
                   f"--by NAME --note WHY</div>")
    return out


_KNOWN = {"touch_move_other", "retouch", "between_points", "knocked", "illegal_move", "repetition",
          "clock_no_press", "clock_two_moves", "clock_press_no_move"}


def write_review(out_dir: str | Path) -> Path:
    """(Re)write DIR/review.html from DIR/events.jsonl."""
    out_dir = Path(out_dir)
    events, warnings = read_events(out_dir / EVENTS_NAME)
    path = out_dir / REVIEW_NAME
    atomic_write_text(path, render_review(events, warnings, out_dir))
    return path
