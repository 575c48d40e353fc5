"""Test-wide settings.

Property tests run derandomized under CI (the ``CI`` environment variable, which .ci/run sets) so a
red build always reproduces from the same examples; locally they explore fresh examples each run.
"""
import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Test support shared by tests and benchmarks (synth: reader output from sim truth).
_support = str(Path(__file__).resolve().parent / "support")
if _support not in sys.path:
    sys.path.insert(0, _support)

# Headless Debian Chromium for the pages of live/ and hall/ (one fixture for both).
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
DRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(paths, name):
    for p in paths:
        if Path(p).exists():
            return p
    return shutil.which(name)


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium through selenium; skipped, with the reason, where it cannot be had."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    binary = _first(CHROMIUM, "chromium")
    driver_path = _first(DRIVER, "chromedriver")
    if not binary or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,900", "--autoplay-policy=no-user-gesture-required", "--mute-audio",
                "--allow-file-access-from-files"):
        opts.add_argument(arg)
    opts.binary_location = binary
    try:
        driver = webdriver.Chrome(options=opts, service=Service(driver_path))
    except Exception as exc:  # a browser that will not start here is an environment problem, said as such
        pytest.skip(f"headless chromium would not start: {str(exc).splitlines()[0]}")
    yield driver
    driver.quit()
