"""Test-wide settings.

Property tests run derandomized under CI (the ``CI`` environment variable, which .ci/run sets) so a
red build always reproduces from the same examples; locally they explore fresh examples each run.
"""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
