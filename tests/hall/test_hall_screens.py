"""The hall of forty boards, its list view, the board pages and the arbiters' console in headless
Chromium on a machine WITHOUT Chinese fonts, as a Linux hall screen or OBS PC often is
(tests/support/nocjk_browser.py: a fontconfig without CJK, and the check for empty boxes).
Screenshots go to docs/ (hall-list.png, hall-cards.png, hall-list-en.png, arbiter-console.png,
hall-board-page.png) to be looked at.

The hub is a real `xqtrack hub` on a real Mosquitto; its forty boards are copies it reads back at
start (OUT/boards/N/events.jsonl, as after a restart), so no forty stations have to run.
"""
from __future__ import annotations

import json
import re
import urllib.request
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from hall_helpers import Hall, real_game
from nocjk_browser import TZ, bare_browser, browser_language, no_tofu, shot, until  # noqa: F401
from rules import Move, Position
from rules.notation import format_move
from runtime.journal import DiskBudget, Journal

pytestmark = pytest.mark.usefixtures("mosquitto_or_skip")

ROOT = Path(__file__).resolve().parents[2]
BOARDS = 40
NAMES = ("王天一 郑惟桐 许银川 吕钦 赵鑫鑫 蒋川 洪智 汪洋 孙勇征 谢靖 申鹏 陶汉明 柳大华 胡荣华 徐天红 李来群 赵国荣 "
         "卜凤波 金波 张强 王斌 程鸣 孟辰 黄海林 党斐 郝继超 王廓 陈富杰 于幼华 许国义 苗利明 赵殿宇 武俊强 "
         "刘殿中 阎文清 宗永生 景学义 李鸿嘉 徐超 杨辉 才溢 曹岩磊 黎德志 谢岿 刘明 陆伟韬 言缵昭 尚威 "
         "黄竹风 万春林 张学潮 蒋凤山 李少庚 于川 梁运龙 王跃飞 朱晓虎 刘子健 陈卓 胡明 唐丹 左文静 王琳娜 "
         "伍霞 党国蕾 金海英 张国凤 赵冠芳 刘欢 尤颖钦 时凤兰 陈幸琳 陈丽淳 宋晓琬 梁妍婷 郎祺琪 董嘉琪 吴可欣 "
         "沈思凡 杭宁").split()


def sort_by(driver, value: str) -> None:
    from selenium.webdriver.support.select import Select
    Select(driver.find_element("id", "sort")).select_by_value(value)


# ---------------------------------------------------------------------- the hall: forty boards
def _board_plan(n: int) -> dict:
    """What board n's journal ends in: its sync state, open incidents, a result."""
    sync = "out_of_sync" if n % 9 == 4 else "board_lost" if n % 13 == 6 else "in_sync"
    incidents = 2 if n % 7 == 0 else 1 if n % 5 == 0 else 0
    result = ("1-0", "resignation") if n % 8 == 0 else ("1/2-1/2", "draw_agreed") if n == 15 else None
    return {"sync": sync, "incidents": incidents, "result": result, "plies": 8 + (n * 7) % 31}


def _long_games() -> list[int]:
    """Indexes of the real games with 40 plies or more (each board plays one of them)."""
    lines = (ROOT / "tests" / "data" / "games" / "games.jsonl").read_text(encoding="utf-8").splitlines()
    return [i for i, line in enumerate(lines) if len(json.loads(line)["moves_iccs"]) >= 40]


def _write_board(folder: Path, n: int, evidence: dict | None = None) -> dict:
    """A station journal for board n, as the hub keeps its copy (OUT/boards/n/events.jsonl)."""
    plan = _board_plan(n)
    moves = real_game(_long_games()[n], plan["plies"])
    folder.mkdir(parents=True, exist_ok=True)
    pos = Position()
    t = 0.0
    red_ms = black_ms = 5_400_000
    last_text = ""
    walls = []
    with Journal(folder, DiskBudget(reserve_bytes=0)) as j:
        j.write({"type": "tracking", "t": 0.0, "ply": 0, "status": "started", "detail": "recording started",
                 "fen": pos.fen(), "headers": {"Date": "2026.12.01"}, "notation": "chinese"})
        j.write({"type": "tracking", "t": 0.5, "ply": 0, "status": "board_found", "detail": "board found"})
        for ply, iccs in enumerate(moves, 1):
            t = round(t + 20 + (ply * 13 + n) % 50, 3)
            side = "red" if pos.turn == "w" else "black"
            m = Move.from_iccs(iccs)
            last_text = format_move(pos, m, "chinese")
            pos.push(m)
            j.write({"type": "move", "t": t, "ply": ply, "iccs": iccs, "side": side, "notation": last_text,
                     "fen": pos.fen(), "frame": int(t * 15)})
            if side == "red":
                red_ms -= 20_000 + (ply * 13 + n) % 50 * 1000
            else:
                black_ms -= 20_000 + (ply * 13 + n) % 50 * 1000
            j.write({"type": "clock", "t": round(t + 0.2, 3), "ply": ply, "kind": "press", "side": side,
                     "remaining_ms": {"red": red_ms, "black": black_ms}})
        for k in range(plan["incidents"]):
            kind = ("touch_move_other", "retouch", "between_points")[(n + k + 2) % 3]
            pts = {"touch_move_other": ["a3", "h2"], "retouch": [moves[-1][2:]], "between_points": ["e4", "e5"]}[kind]
            line = j.write({"type": "incident", "t": t, "ply": len(moves), "kind": kind,
                            "side": "red" if len(moves) % 2 else "black", "points": pts,
                            "detail": f"{kind} (written by the test)", "id": k + 1,
                            **({"evidence": evidence} if evidence and k == 0 else {})})
            walls.append(line["wall"])
        if plan["sync"] != "in_sync":
            j.write({"type": "tracking", "t": t + 1, "ply": len(moves), "status": plan["sync"], "detail": "g2 differs"})
        if plan["result"]:
            j.write({"type": "game_end", "t": t + 2, "ply": len(moves), "result": plan["result"][0],
                     "reason": plan["result"][1]})
    return {**plan, "last_chinese": last_text, "walls": walls, "moves": moves}


def _clip(folder: Path) -> dict:
    """A real WebM clip and stills for an incident's evidence (what a station's recorder writes)."""
    from runtime.evidence import EvidenceStore
    store = EvidenceStore(folder, fps=15.0)
    hom = np.array([[40.0, 0.0, 100.0], [0.0, -40.0, 420.0], [0.0, 0.0, 1.0]])
    for i in range(45):
        img = np.full((480, 640, 3), 90, dtype=np.uint8)
        img[100:200, (i * 8) % 600:(i * 8) % 600 + 40] = 230
        store.add(i, img, hom)
    return store.save("001_ply011_touch_move_other", {"before": 5, "during": 20, "after": 40}, [30])


@pytest.fixture(scope="module")
def hall40(tmp_path_factory):
    base = tmp_path_factory.mktemp("hall40")
    hall = Hall(base, boards=BOARDS)
    boards_dir = hall.hub_dir / "boards"
    plans = {}
    for n in range(1, BOARDS + 1):
        ev = _clip(boards_dir / str(n)) if n == 7 else None
        plans[n] = _write_board(boards_dir / str(n), n, ev)
    tournament = {"event": "全国象棋团体赛", "round": 3, "date": "2026.12.01", "site": "杭州",
                  "boards": {str(n): {"red": NAMES[2 * n - 2], "black": NAMES[2 * n - 1],
                                      "red_rating": 2400 + (n * 37) % 300, "black_rating": 2400 + (n * 53) % 300}
                             for n in range(1, BOARDS + 1)}}
    (base / "round3.json").write_text(json.dumps(tournament, ensure_ascii=False), encoding="utf-8")
    try:
        hall.start_broker()
        hall.start_hub("--tournament", str(base / "round3.json"))
        yield hall, plans
    finally:
        hall.close()


def _open(driver, url: str, count_script: str, want: int) -> None:
    driver.get(url)
    until(driver, count_script, lambda v: v == want)


def test_forty_boards_in_the_list_view_fit_one_screen_sorted_and_filtered(bare_browser, hall40):
    hall, plans = hall40
    d = bare_browser
    _open(d, hall.http + "/?view=list&lang=zh", "return document.querySelectorAll('#rows tr').length", BOARDS)
    rows = lambda: d.execute_script("return [...document.querySelectorAll('#rows tr')].map(r => +r.dataset.board)")
    assert rows() == list(range(1, BOARDS + 1))                       # by board number
    # all forty on a 1280x800 screen, no scrolling
    bottom = d.execute_script("return document.querySelector('#rows tr:last-child').getBoundingClientRect().bottom")
    assert bottom <= 800, f"the 40th row ends at {bottom}px"
    assert d.execute_script("return document.scrollingElement.scrollHeight") <= 800
    # a row: board, players, the last move in Chinese, ply, clocks, sync, open incidents, result
    r1 = d.find_element("id", "row-1").text
    assert NAMES[0] in r1 and NAMES[1] in r1 and plans[1]["last_chinese"] in r1 and "1:" in r1
    oos = [n for n, p in plans.items() if p["sync"] == "out_of_sync"]
    assert "不同步" in d.find_element("id", f"row-{oos[0]}").text
    assert d.find_element("css selector", f"#row-{oos[0]}").get_attribute("data-sync") == "out_of_sync"
    # sorted by open incidents: the most first, ties by board
    sort_by(d, "incidents")
    want = sorted(plans, key=lambda n: (-plans[n]["incidents"], n))
    assert until(d, "return [...document.querySelectorAll('#rows tr')].map(r => +r.dataset.board)",
                 lambda v: v == want) == want
    assert "sort=incidents" in d.current_url                         # a hall screen can be bookmarked
    # sorted by sync state: out of sync first, then the board not seen, then in sync / ended
    sort_by(d, "sync")
    order = {"out_of_sync": 0, "board_lost": 1, "reading": 2, "in_sync": 3, "ended": 4}
    got = until(d, "return [...document.querySelectorAll('#rows tr')].map(r => r.dataset.sync)",
                lambda v: v and v[0] == "out_of_sync")
    assert got == sorted(got, key=order.__getitem__)
    # filtered: by a name, then by a sync state's words
    box = d.find_element("id", "filter")
    box.send_keys(NAMES[20])
    assert until(d, "return [...document.querySelectorAll('#rows tr')].map(r => +r.dataset.board)",
                 lambda v: v == [11]) == [11]
    assert d.find_element("id", "count").text == "显示 1 / 40"
    box.clear()
    box.send_keys("不同步")
    assert until(d, "return [...document.querySelectorAll('#rows tr')].map(r => +r.dataset.board)",
                 lambda v: v and len(v) < BOARDS) == oos
    no_tofu(d, min_chars=20)
    box.clear()
    box.send_keys(" ")
    sort_by(d, "incidents")
    until(d, "return document.querySelectorAll('#rows tr').length", lambda v: v == BOARDS)
    got = no_tofu(d, min_chars=300)                                   # names, moves, labels, controls
    assert any("XQ UI" in f for f in got["families"])
    shot(d, "hall-list.png")


def test_the_cards_show_sync_clocks_chinese_moves_and_thumbnails_without_fonts(bare_browser, hall40):
    hall, plans = hall40
    d = bare_browser
    _open(d, hall.http + "/?lang=zh", "return document.querySelectorAll('.card').length", BOARDS)
    card = d.find_element("id", "board-4").text
    assert "第4台" in card and plans[4]["last_chinese"] in card and "1:" in card   # name, last move, clocks
    assert "不同步" in card                                                        # board 4 is out of sync
    assert "! 1" in d.find_element("id", "board-5").text                          # an open incident
    # the thumbnails are SVG images that draw their own characters: they load, and hold no text
    assert until(d, "return [...document.querySelectorAll('.card img')].slice(0, 8).every(i => i.complete && i.naturalWidth > 0)",
                 bool)
    src = d.execute_script("return document.querySelector('#board-1 img').src")
    with urllib.request.urlopen(src, timeout=5) as r:
        svg = r.read().decode("utf-8")
    assert "<text" not in svg and "<path id='xqg" in svg
    no_tofu(d, min_chars=100)
    shot(d, "hall-cards.png")


def test_english_on_request_and_chinese_by_default_for_a_chinese_browser(bare_browser, hall40):
    hall, _ = hall40
    d = bare_browser
    _open(d, hall.http + "/?view=list&lang=en", "return document.querySelectorAll('#rows tr').length", BOARDS)
    assert d.find_element("id", "title").text == "Hall"
    assert d.find_element("css selector", "#sort option[value='board']").text == "by board"
    assert d.find_element("css selector", "#list thead").text.split()[:2] == ["board", "players"]
    assert "第" not in d.find_element("id", "round").text and "round 3" in d.find_element("id", "round").text
    assert d.find_element("css selector", "#row-4 .badge[data-sync]").text == "out of sync"
    hrefs = d.execute_script("return [...document.querySelectorAll('#rows a')].map(a => a.getAttribute('href'))")
    assert hrefs[0] == "/board/1/?lang=en"                             # the choice follows the links
    no_tofu(d, min_chars=20)                                           # names and moves stay Chinese
    shot(d, "hall-list-en.png")
    browser_language(d, "zh-CN")
    try:
        _open(d, hall.http + "/?view=list", "return document.querySelectorAll('#rows tr').length", BOARDS)
        assert d.find_element("id", "title").text == "赛场"
        assert d.execute_script("return document.documentElement.lang") == "zh-Hans"
        assert [a.text for a in d.find_elements("css selector", "#lang a")] == ["中文", "English"]
        browser_language(d, "en-GB")
        _open(d, hall.http + "/?view=list", "return document.querySelectorAll('#rows tr').length", BOARDS)
        assert d.find_element("id", "title").text == "Hall"
    finally:
        browser_language(d, "en-US")


def test_the_arbiters_console_shows_local_times_clips_and_diagrams_in_chinese(bare_browser, hall40):
    hall, plans = hall40
    d = bare_browser
    want = sum(p["incidents"] for p in plans.values())
    _open(d, hall.http + f"/arbiter?token={hall.token}&lang=zh", "return +document.body.dataset.incidents", want)
    row = d.find_element("css selector", "#incidents tr[data-board='7'][data-id='1']")
    cells = row.find_elements("css selector", "td")
    local = datetime.fromisoformat(plans[7]["walls"][0]).astimezone(ZoneInfo(TZ)).strftime("%H:%M:%S")
    assert cells[0].text == local                                     # the browser's time zone, not UTC
    assert cells[1].text == "第7台" and cells[3].text == "违反摸子走子"
    assert "摸了 a3" in cells[7].text and "touch_move_other" not in row.text
    # the clip plays inline, the diagram is the board at that ply with the points ringed
    assert until(d, "var v=document.querySelector(\"tr[data-board='7'][data-id='1'] video\");"
                    "return v && v.readyState >= 1 && v.videoWidth", lambda w: w == 640)
    assert d.execute_script("return document.querySelector(\"tr[data-board='7'][data-id='1'] video\")"
                            ".getAttribute('src')").endswith("_clip.webm")
    diagram = d.execute_script("return document.querySelector(\"tr[data-board='7'][data-id='1'] img.diagram\").src")
    assert f"board.svg?ply={plans[7]['plies']}&marks=a3%2Ch2" in diagram
    assert until(d, "return [...document.querySelectorAll('img.diagram')].slice(0, 4).every(i => i.complete && i.naturalWidth > 0)",
                 bool)
    with urllib.request.urlopen(diagram, timeout=5) as r:
        svg = r.read().decode("utf-8")
    assert "class='mark'" in svg and "<text" not in svg
    # the results form speaks Chinese in its controls, drawn in the shipped font
    options = d.execute_script("return [...document.querySelector(\"select[data-reason='1']\").options].map(o => o.text)")
    assert options == ["认负", "议和", "超时判负", "裁判判定"]
    assert d.find_element("css selector", "button[data-result='1']").text == "提交"
    no_tofu(d, min_chars=200)
    d.execute_script("window.scrollTo(0, 0)")
    shot(d, "arbiter-console.png")
    # English on request, still no identifiers
    _open(d, hall.http + "/arbiter?lang=en", "return +document.body.dataset.incidents", want)
    row = d.find_element("css selector", "#incidents tr[data-board='7'][data-id='1']")
    assert "touched one piece, moved another" in row.text and "Board 7" in row.text
    assert d.execute_script("return [...document.querySelector(\"select[data-reason='1']\").options].map(o => o.text)") \
        == ["resignation", "draw by agreement", "loss on time", "adjudication"]


def test_a_boards_page_on_the_hub_has_no_dead_links(bare_browser, hall40):
    hall, plans = hall40
    d = bare_browser
    d.get(hall.http + f"/board/7/?token={hall.token}&lang=zh")
    until(d, "return document.body.dataset.ply", lambda v: v == str(plans[7]["plies"]))
    until(d, "return document.getElementById('arbiter').hidden", lambda v: v is False)
    assert until(d, "return document.querySelector(\"nav a[href^='setup']\").hidden", bool)   # no camera frame here
    for a in d.find_elements("css selector", "header nav a"):
        if a.is_displayed():
            href = a.get_attribute("href")
            with urllib.request.urlopen(href, timeout=30) as r:               # none answers 404
                assert r.status == 200, href
    with urllib.request.urlopen(hall.http + "/board/7/review.html", timeout=30) as r:
        review = r.read().decode("utf-8")
    assert plans[7]["last_chinese"] in review and "evidence/001_ply011_touch_move_other_clip.webm" in review
    inc = d.find_element("css selector", "#incidents li").text
    assert "违反摸子走子" in inc and re.search(r"\d\d:\d\d:\d\d", inc)
    assert [o.text for o in d.find_elements("css selector", "#result-value option")][0] == "1-0 红胜"
    no_tofu(d, min_chars=50)                                             # the result form's controls included
    shot(d, "hall-board-page.png")
