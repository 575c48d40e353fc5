"""Every label the live pages, the hall, the arbiters' console and the review show, in Chinese
and English, in one place; and the Chinese wording of an incident's detail.

Why one table: the pages ship a CJK font subset that holds only the characters they use
(live/make_font.py reads `font_text()` and the pages' own text), so a label added anywhere else
would come out as an empty box on a machine without Chinese fonts. tests/live/test_font.py checks
that the font covers this text, every page and script, and every incident detail written here.
The pages show one language at a time (`?lang=zh|en`, else the browser's language: see
live/static/xq-lang.js); the review, a static file without script, shows both, Chinese first.
"""
from __future__ import annotations

import html
import json
import re
from typing import Any, Mapping, Sequence

from .board_svg import BLACK_FILE_DIGITS, PIECE_CHARS, RED_FILE_DIGITS, parse_board

LABELS: dict[str, tuple[str, str]] = {
    "red": ("红方", "Red"),
    "black": ("黑方", "Black"),
    "moves": ("着法", "Moves"),
    "incidents": ("事件", "Incidents"),
    "notes": ("复核提示", "Review notes"),
    "notes_explain": ("证据不足以判罚：仅供裁判查看，不是指控", "evidence too weak to accuse on: for the arbiter to look at, not an accusation"),
    "score": ("证据评分", "evidence score"),
    "clocks": ("计时", "Clocks"),
    "sync": ("状态", "Sync"),
    "reading": ("读取中", "reading…"),
    "in_sync": ("同步", "in sync"),
    "out_of_sync": ("不同步：请检查棋盘", "out of sync: check the board"),
    "board_lost": ("未见棋盘", "board not seen"),
    "ended": ("录制结束", "recording ended"),
    "ply": ("回合", "ply"),
    "time": ("时间", "time"),
    "position": ("局面", "position"),
    "ruling": ("裁决", "ruling"),
    "uphold": ("维持", "uphold"),
    "dismiss": ("驳回", "dismiss"),
    "upheld": ("已维持", "upheld"),
    "dismissed": ("已驳回", "dismissed"),
    "pending": ("待裁决", "pending"),
    "note": ("备注", "note"),
    "clip": ("视频", "clip"),
    "crop": ("放大", "zoomed crop"),
    "before": ("之前", "before"),
    "during": ("期间", "during"),
    "after": ("之后", "after"),
    "frame": ("帧", "frame"),
    "result": ("结果", "result"),
    "red_wins": ("红胜", "red wins"),
    "black_wins": ("黑胜", "black wins"),
    "draw": ("和棋", "draw"),
    "enter_result": ("记录结果", "enter the result"),
    "reason": ("原因", "reason"),
    "review": ("裁判复核", "Arbiter's review"),
    "live": ("实时", "Live"),
    "setup": ("设置检查", "Set-up check"),
    "confidence": ("锁定置信度", "lock confidence"),
    "red_side": ("红方位置", "red's side"),
    "expected": ("预期局面", "expected position"),
    "reads": ("读取", "board reads"),
    "hints": ("提示", "hints"),
    "too_dark": ("太暗", "too dark"),
    "glare": ("反光", "glare"),
    "cut": ("棋盘被画面边缘切断", "board cut by the frame edge"),
    "no_board": ("未找到棋盘", "no board found"),
    "all_good": ("一切正常", "all good"),
    "differs": ("不符", "differs"),
    "matches": ("相符", "matches"),
    "start": ("开局", "start"),
    # Incident kinds, in the words of the competition rules (象棋竞赛规则): touch-move (摸子走子),
    # 起手后不得二次触摸 (no second touch once the hand has lifted), 落子不到位 (not put on a point),
    # 碰动 (knocking pieces), 循环反复 (repetition), and the clock.
    "touch_move_other": ("违反摸子走子", "touched one piece, moved another"),
    "retouch": ("起手后二次触摸", "touched again after letting go"),
    "between_points": ("落子不到位", "piece left between points"),
    "knocked": ("碰动棋子", "piece knocked off its point"),
    "illegal_move": ("违规着法", "illegal move"),
    "repetition": ("循环反复", "repetition"),
    "clock_no_press": ("走子未按钟", "moved without pressing the clock"),
    "clock_two_moves": ("一次按钟走两步", "two moves on one press"),
    "clock_press_no_move": ("按钟未走子", "pressed without a move"),
    # Result reasons (hall/station.py RESULT_REASONS) and repetition rulings (rules/repetition.py).
    "resignation": ("认负", "resignation"),
    "draw_agreed": ("议和", "draw by agreement"),
    "time_forfeit": ("超时判负", "loss on time"),
    "adjudication": ("裁判判定", "adjudication"),
    "red_loses": ("红方判负", "red loses"),
    "black_loses": ("黑方判负", "black loses"),
    "red_must_vary": ("红方应变着", "red must vary"),
    "black_must_vary": ("黑方应变着", "black must vary"),
    "retracted": ("已撤销", "retracted"),
    "token": ("口令", "token"),
    "points": ("点位", "points"),
    "none": ("无", "none"),
    "overlay": ("直播叠加", "overlay"),
    "language": ("语言", "language"),
    # The hall (hall/static/hall.html) and the arbiters' console (hall/static/arbiter.html).
    "hall": ("赛场", "Hall"),
    "arbiter": ("裁判", "arbiter"),
    "arbiter_console": ("裁判台", "Arbiters' console"),
    "board": ("台次", "board"),
    "players": ("棋手", "players"),
    "side": ("方", "side"),
    "kind": ("类型", "kind"),
    "detail": ("详情", "detail"),
    "evidence": ("证据", "evidence"),
    "diagram": ("局面图", "diagram"),
    "enter": ("提交", "enter"),
    "last_move": ("最后一着", "last move"),
    "open_incidents": ("待裁决事件", "open incidents"),
    "station": ("设备", "station"),
    "online": ("在线", "online"),
    "offline": ("离线", "offline"),
    "unknown": ("未知", "unknown"),
    "cards": ("卡片", "cards"),
    "list": ("列表", "list"),
    "sort": ("排序", "sort"),
    "filter": ("筛选", "filter"),
    "by_board": ("按台次", "by board"),
    "by_incidents": ("按待裁决事件", "by open incidents"),
    "by_sync": ("按状态", "by sync state"),
    "shown": ("显示", "shown"),
    "round": ("轮次", "round"),
    "earlier_game": ("上局", "earlier game"),
    "broker_reconnecting": ("正在重新连接消息服务器…", "broker: reconnecting…"),
    "hub_unreachable": ("无法连接赛场主机", "hub unreachable"),
    "needs_token": ("裁判台需要主机启动时打印的口令", "the arbiters' console needs the token printed when the hub started"),
    "sent": ("已发送到设备，记入记录后在此显示", "sent to the station; it shows here once journalled"),
    "results": ("对局结果", "Results"),
    "local_time": ("本地时间", "local time"),
    # The arbiter's corrections, revisions and the post-mortem (live/rulings.py, runtime/review.py).
    "correct": ("更正着法", "correct the moves"),
    "corrections": ("裁判更正", "arbiter's corrections"),
    "from_ply": ("从回合", "from ply"),
    "post_game": ("赛后着法", "post-game moves"),
    "revise": ("修改", "revise"),
    "confirm": ("确认", "confirm"),
    "history": ("历史", "history"),
    "board_name": ("第{n}台", "Board {n}"),     # how the hall's pages name board n
    "round_name": ("第{n}轮", "round {n}"),
    "oos_short": ("不同步", "out of sync"),
    "running": ("走棋中", "to move"),
    "all": ("全部", "all"),
    "info": ("帧信息", "info"),             # an incident's evidence: which frames the files show (JSON)
    "no_frame": ("尚无摄像头画面（录制端服务时每秒写入一次 setup.jpg）",
                 "no camera frame written yet (the recorder writes setup.jpg once a second while it serves)"),
    "bottom": ("下边", "bottom"),           # the image edge red's back rank lies on (vision's BoardPose)
    "top": ("上边", "top"),
    "left": ("左边", "left"),
    "right": ("右边", "right"),
}

# Characters Chinese move notation can use (simplified and traditional piece names, verbs,
# tandem-piece words, numerals), so any move text renders in the shipped font.
NOTATION_CHARS = "帅帥仕士相象马傌馬车俥車炮砲包兵卒将將进進退平前后後中一二三四五六七八九１２３４５６７８９"
RIVER_CHARS = "楚河汉漢界"


def label(key: str) -> str:
    """'中文 English' for a label key (KeyError names the unknown key)."""
    zh, en = LABELS[key]
    return f"{zh} {en}"


def fill_labels(text: str) -> str:
    """A page template with `{{label:KEY}}` as '中文 English' (the page's script then shows one
    language) and `{{labels_json}}` as the whole table, for the script's own texts."""
    text = re.sub(r"\{\{label:(\w+)\}\}", lambda m: html.escape(label(m.group(1))), text)
    return text.replace("{{labels_json}}", json.dumps(LABELS, ensure_ascii=False))


# The Chinese detail of each incident kind ({side}: 红方 / 黑方; {a}, {b}: points with the piece on
# them, e.g. "c3 的红兵"). The tracker writes its own detail in English (board/); this says the
# same from the incident's kind, side, points and the position, in the arbiters' words.
DETAIL_ZH: dict[str, str] = {
    "touch_move_other": "{side}摸了{a}，却走了{b}（摸子走子）",
    "retouch": "{side}放手后又触摸了{a}（起手后不得二次触摸）",
    "between_points": "{side}的棋子停在{a}之间，未落在交叉点上",
    "knocked": "{a}被碰离原位；对局继续，应将棋子放回原位",
    "knocked_off": "{a}被碰出棋盘；对局继续，应将棋子放回原位",
    "illegal_move": "{side}走了不合规则的着法：{a}走到{b}；棋盘更正前按此显示",
    "repetition": "循环反复：{a}",
    "clock_no_press": "{side}走子后未按钟，对方即已走子",
    "clock_two_moves": "{side}一次按钟走了两步",
    "clock_press_no_move": "{side}按钟但未走子",
}
_SIDE_ZH = {"red": "红方", "black": "黑方"}


def piece_zh(letter: str) -> str:
    """A FEN piece letter as the pages name it in Chinese: 红车, 黑马…"""
    return ("红" if letter.isupper() else "黑") + PIECE_CHARS[letter]


def _pieces(fen: str | None) -> dict[str, str]:
    """Point name (ICCS) -> FEN letter for a FEN; empty when there is none or it does not read."""
    if not fen:
        return {}
    try:
        return {"abcdefghi"[i % 9] + str(i // 9): ch for i, ch in parse_board(fen).items()}
    except ValueError:
        return {}


def incident_detail_zh(kind: str, side: str | None, points: Sequence[str], fen_before: str | None,
                       fen_after: str | None, extra: Mapping[str, Any] | None = None) -> str:
    """The incident's detail in Chinese ('' for a kind this table does not know).

    `fen_before` is the position before the incident's ply (a touched or moved piece is still on
    its point there), `fen_after` the position after it (a piece re-touched or knocked is there)."""
    extra = extra or {}
    before, after = _pieces(fen_before), _pieces(fen_after)

    def on(point: str, where: Mapping[str, str]) -> str:
        letter = where.get(point)
        return f" {point} 的{piece_zh(letter)}" if letter else f" {point} "

    pts = list(points)
    sd = _SIDE_ZH.get(str(side), "")
    if kind == "touch_move_other" and pts:
        touched = "、".join(on(p, before).strip() for p in pts[:-1]) or "另一子"
        return DETAIL_ZH[kind].format(side=sd, a=f" {touched}", b=on(pts[-1], before))
    if kind == "retouch" and pts:
        return DETAIL_ZH[kind].format(side=sd, a=on(pts[0], after))
    if kind == "between_points":
        return DETAIL_ZH[kind].format(side=sd, a=" " + " 与 ".join(pts) + " " if pts else "两点")
    if kind == "knocked" and pts:
        key = "knocked_off" if extra.get("off_board") else "knocked"
        return DETAIL_ZH[key].format(a=on(pts[0], after).lstrip())
    if kind == "illegal_move" and len(pts) >= 2:
        return DETAIL_ZH[kind].format(side=sd, a=on(pts[0], after).lstrip(), b=f" {pts[1]}")
    if kind == "repetition":
        ruling = extra.get("ruling")
        code = ruling.get("ruling") if isinstance(ruling, Mapping) else None
        words = LABELS[code][0] if isinstance(code, str) and code in LABELS else "请裁判审查"
        return DETAIL_ZH[kind].format(a=words)
    if kind in ("clock_no_press", "clock_two_moves", "clock_press_no_move"):
        return DETAIL_ZH[kind].format(side=sd)
    return ""


def font_text() -> str:
    """Every character the shipped UI font must hold: labels, incident details, pieces, notation,
    ASCII, a few marks (the pages' own text is added by live/make_font.py)."""
    chars = set(NOTATION_CHARS + RIVER_CHARS + "".join(PIECE_CHARS.values()) + RED_FILE_DIGITS + BLACK_FILE_DIGITS)
    for zh, en in LABELS.values():
        chars.update(zh)
        chars.update(en)
    for text in list(DETAIL_ZH.values()) + list(_SIDE_ZH.values()) + ["红黑另一子两点请裁判审查与"]:
        chars.update(text)
    chars.update(chr(c) for c in range(0x20, 0x7F))
    chars.update("…·：，。、（）—–→←↑↓✓！？；「」")
    return "".join(sorted(chars))
