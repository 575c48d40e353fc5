"""Fixtures of the hall's tests: helper module path, and a real Mosquitto (skipped, saying why, without one)."""
import sys
from pathlib import Path

import pytest

_here = str(Path(__file__).resolve().parent)
if _here not in sys.path:
    sys.path.insert(0, _here)


@pytest.fixture
def mosquitto_or_skip():
    from hall.broker import BrokerError, find_tool
    try:
        find_tool("mosquitto")
        find_tool("mosquitto_passwd")
    except BrokerError as exc:
        pytest.skip(f"a real broker is needed: {exc}")


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium through selenium; skipped, with the reason, where it cannot be had."""
    import shutil
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    binary = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).exists()),
                  shutil.which("chromium"))
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if Path(p).exists()),
                       shutil.which("chromedriver"))
    if not binary or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    opts.binary_location = binary
    try:
        driver = webdriver.Chrome(options=opts, service=Service(driver_path))
    except Exception as exc:  # a browser that will not start here is an environment problem, said as such
        pytest.skip(f"headless chromium would not start: {str(exc).splitlines()[0]}")
    yield driver
    driver.quit()
