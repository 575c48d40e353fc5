"""Test-wide settings.

Property tests run derandomized under CI (the ``CI`` environment variable, which .ci/run sets) so a
red build always reproduces from the same examples; locally they explore fresh examples each run.
"""
import os
import sys
from pathlib import Path

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Test support shared by tests and benchmarks (synth: reader output from sim truth).
_support = str(Path(__file__).resolve().parent / "support")
if _support not in sys.path:
    sys.path.insert(0, _support)
