"""Screenshots of the live pages and the review of a recording, for docs/ (dev tool).

Why a tool: the pictures in docs/ should show what the code draws today, and be redrawn with one
command when the pages change. Needs selenium and Debian's chromium + chromium-driver.

    .venv/bin/python -m live.screenshots RECORDING_DIR [--out docs]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from .server import LiveServer, ServerConfig


def _driver(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--allow-file-access-from-files"):
        opts.add_argument(arg)
    opts.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))


def shoot(recording: Path, out: Path) -> list[Path]:
    """docs/live-page.png, live-overlay.png (transparent), live-setup.png, live-review.png."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with LiveServer(recording, ServerConfig(port=0)) as server:
        d = _driver(1280, 800)
        try:
            for path, name in (("/", "live-page.png"), ("/setup", "live-setup.png")):
                d.get(server.url + path)
                time.sleep(2.0)
                d.save_screenshot(str(out / name))
                written.append(out / name)
            d.set_window_size(1920, 1080)
            d.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride",
                              {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
            d.get(server.url + "/overlay?layout=board-clocks")
            time.sleep(2.0)
            d.save_screenshot(str(out / "live-overlay.png"))
            written.append(out / "live-overlay.png")
            d.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {})
            d.set_window_size(1280, 1000)
            d.get((recording / "review.html").resolve().as_uri() + "#d5")
            time.sleep(1.5)
            d.save_screenshot(str(out / "live-review.png"))
            written.append(out / "live-review.png")
        finally:
            d.quit()
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recording")
    ap.add_argument("--out", default="docs")
    args = ap.parse_args()
    for p in shoot(Path(args.recording), Path(args.out)):
        print(p)


if __name__ == "__main__":
    main()
