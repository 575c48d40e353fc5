"""Every label the live pages and the review show, in Chinese and English, in one place.

Why one table: the pages ship a CJK font subset that holds only the characters they use
(live/make_font.py reads `font_text()`), so a label added anywhere else would come out as
an empty box on a machine without Chinese fonts. A test checks the font covers this text.
"""
from __future__ import annotations

from .board_svg import BLACK_FILE_DIGITS, PIECE_CHARS, RED_FILE_DIGITS

LABELS: dict[str, tuple[str, str]] = {
    "red": ("红方", "Red"),
    "black": ("黑方", "Black"),
    "moves": ("着法", "Moves"),
    "incidents": ("事件", "Incidents"),
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
    "touch_move_other": ("摸子走他子", "touched one piece, moved another"),
    "retouch": ("放手后再摸", "touched again after letting go"),
    "between_points": ("棋子不在点上", "piece left between points"),
    "knocked": ("碰动棋子", "piece knocked off its point"),
    "illegal_move": ("违例着法", "illegal move"),
    "repetition": ("重复局面", "repetition"),
    "clock_no_press": ("未按钟", "moved without pressing the clock"),
    "clock_two_moves": ("一次按钟走两步", "two moves on one press"),
    "clock_press_no_move": ("按钟未走子", "pressed without a move"),
    "token": ("口令", "token"),
    "points": ("点位", "points"),
    "none": ("无", "none"),
}

# Characters Chinese move notation can use (simplified and traditional piece names, verbs,
# tandem-piece words, numerals), so any move text renders in the shipped font.
NOTATION_CHARS = "帅帥仕士相象马傌馬车俥車炮砲包兵卒将將进進退平前后後中一二三四五六七八九１２３４５６７８９"
RIVER_CHARS = "楚河汉漢界"


def label(key: str) -> str:
    """'中文 English' for a label key (KeyError names the unknown key)."""
    zh, en = LABELS[key]
    return f"{zh} {en}"


def font_text() -> str:
    """Every character the shipped UI font must hold: labels, pieces, notation, ASCII, a few marks."""
    chars = set(NOTATION_CHARS + RIVER_CHARS + "".join(PIECE_CHARS.values()) + RED_FILE_DIGITS + BLACK_FILE_DIGITS)
    for zh, en in LABELS.values():
        chars.update(zh)
        chars.update(en)
    chars.update(chr(c) for c in range(0x20, 0x7F))
    chars.update("…·：，。、（）—–→←✓")
    return "".join(sorted(chars))
