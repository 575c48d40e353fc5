"""Fixtures of the hall's tests: helper module path, and a real Mosquitto (skipped, saying why, without one);
headless Chromium comes from tests/conftest.py."""
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
