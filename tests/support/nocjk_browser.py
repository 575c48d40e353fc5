"""Headless Chromium on a machine WITHOUT Chinese fonts, and a check for empty boxes ("tofu").

Shared by the browser tests of live/ and hall/ that show the shipped fonts do the work alone (a
hall screen, an OBS PC or an arbiter's laptop often has no Chinese font). The browser gets a
fontconfig that knows only DejaVu and Liberation, so a character the shipped fonts lack comes out
as an empty box. `no_tofu` draws each CJK character a page shows (text, placeholders, the options
of its selects) on a canvas in the font the page gives it, next to 龘, which no font of ours holds:
the same picture is an empty box. It also checks itself: a Chinese character in the system's
sans-serif must be an empty box here, or the check would prove nothing.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TZ = "Asia/Shanghai"          # the browser's own time zone: times on the pages must be local, not UTC


# Draws each CJK character shown on the page in the font the page gives it, next to 龘 (a character
# no font of ours holds); the same picture is an empty box.
TOFU_JS = r"""
var done = arguments[arguments.length - 1];
var REF = "\u9F98";
function pic(ch, font) {
  var c = document.createElement("canvas"); c.width = c.height = 48;
  var x = c.getContext("2d"); x.font = font; x.fillStyle = "#000"; x.fillText(ch, 4, 36);
  return c.toDataURL();
}
function shown(el) { return el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden"; }
var byFont = {}, count = 0;
function add(text, el) {
  var fam = getComputedStyle(el).fontFamily;
  for (var i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x2E80) { byFont[fam] = (byFont[fam] || "") + text[i]; count++; }
  }
}
var w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, null), n;
while ((n = w.nextNode())) { if (shown(n.parentElement)) add(n.nodeValue, n.parentElement); }
document.querySelectorAll("input[placeholder]").forEach(function (el) { if (shown(el)) add(el.placeholder, el); });
document.querySelectorAll("select").forEach(function (s) {
  if (shown(s)) Array.prototype.forEach.call(s.options, function (o) { add(o.text, s); });
});
var fams = Object.keys(byFont);
Promise.all(fams.map(function (f) { return document.fonts.load("24px " + f, byFont[f]); })).then(function () {
  var tofu = [];
  fams.forEach(function (f) {
    var ref = pic(REF, "24px " + f), seenHere = {};
    for (var i = 0; i < byFont[f].length; i++) {
      var ch = byFont[f][i];
      if (seenHere[ch]) continue;
      seenHere[ch] = true;
      if (pic(ch, "24px " + f) === ref) tofu.push(ch + " in " + f);
    }
  });
  var bare = pic("\u8D5B", "24px sans-serif") === pic(REF, "24px sans-serif");
  var controls = Array.prototype.map.call(document.querySelectorAll("select, button, input"), function (el) {
    return getComputedStyle(el).fontFamily; });
  done({ tofu: tofu, checked: count, families: fams, systemHasNoCjk: bare, controls: controls });
});
"""


def no_tofu(driver, min_chars: int = 1) -> dict:
    """Every CJK character the page shows renders in a font it loads (and the system has none)."""
    got = driver.execute_async_script(TOFU_JS)
    assert got["systemHasNoCjk"], "this browser found a Chinese system font: the check would prove nothing"
    assert got["checked"] >= min_chars, got
    assert not got["tofu"], f"empty boxes: {got['tofu']}"
    # the shipped font must come first: Chrome does not redraw text it laid out in a system font
    # (one without Chinese) once a web font later in the list has loaded
    for fam in got["families"]:
        assert fam.startswith('"XQ UI"'), f"Chinese text set in {fam}: empty boxes until something redraws it"
    for fam in got["controls"]:
        assert fam.startswith('"XQ UI"'), f"a form control falls back to the system's fonts: {fam}"
    return got


def until(driver, script, check, timeout=20.0):
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = driver.execute_script(script)
        if check(got):
            return got
        time.sleep(0.05)
    raise AssertionError(f"{script!r} never passed; last {got!r}")


def shot(driver, name: str) -> None:
    """A screenshot for docs/ (looked at by eye: no empty boxes)."""
    DOCS.mkdir(exist_ok=True)
    # the names font loads when a name first needs it: wait for it, and for the images, to be drawn
    driver.execute_async_script("var done = arguments[arguments.length - 1];"
                                "document.fonts.ready.then(function () { requestAnimationFrame(function () {"
                                "requestAnimationFrame(function () { done(); }); }); });")
    driver.save_screenshot(str(DOCS / name))


@pytest.fixture(scope="module")
def bare_browser(tmp_path_factory):
    """Headless Chromium that knows no Chinese font, in a time zone of its own (to show times are local)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    binary = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).exists()), None)
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if Path(p).exists()),
                       shutil.which("chromedriver"))
    if not binary or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    conf_dir = tmp_path_factory.mktemp("fontconfig")
    dirs = [d for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation") if Path(d).is_dir()]
    (conf_dir / "fonts.conf").write_text(
        "<?xml version='1.0'?><!DOCTYPE fontconfig SYSTEM 'fonts.dtd'><fontconfig>"
        + "".join(f"<dir>{d}</dir>" for d in dirs) + f"<cachedir>{conf_dir / 'cache'}</cachedir></fontconfig>",
        encoding="utf-8")
    env = dict(os.environ, FONTCONFIG_FILE=str(conf_dir / "fonts.conf"), TZ=TZ)
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                "--autoplay-policy=no-user-gesture-required", "--mute-audio"):
        opts.add_argument(arg)
    opts.binary_location = binary
    try:
        driver = webdriver.Chrome(options=opts, service=Service(driver_path, env=env))
    except Exception as exc:  # an environment problem, said as such
        pytest.skip(f"headless chromium would not start: {str(exc).splitlines()[0]}")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    yield driver
    driver.quit()


def browser_language(driver, lang: str) -> None:
    """What navigator.language says from now on (the pages' default language follows it)."""
    ua = driver.execute_script("return navigator.userAgent")
    driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": ua, "acceptLanguage": lang})


