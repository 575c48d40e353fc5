"""Fixtures of the live part's tests: helper module path, a served folder (headless Chromium: tests/conftest.py)."""
import sys
from pathlib import Path

import pytest

_here = str(Path(__file__).resolve().parent)
if _here not in sys.path:
    sys.path.insert(0, _here)

