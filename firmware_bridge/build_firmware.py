"""Builds the firmware's host binaries (C unit tests, vector runner) with the machine's cc.

Used by the tests (tests/clock) and by hand: `python -m firmware_bridge.build_firmware DIR`.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent / "firmware"


def compiler() -> str | None:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    return None


def build(target: str, build_dir: Path) -> Path:
    """`make <target>` into build_dir; the UB sanitizer is on when the compiler supports it."""
    cc = compiler()
    assert cc is not None
    build_dir.mkdir(parents=True, exist_ok=True)
    exe = build_dir / target
    base = ["make", "-s", "-C", str(FIRMWARE), f"BUILD={build_dir}", f"CC={cc}", str(exe)]
    proc = subprocess.run(base, capture_output=True, text=True)
    if proc.returncode != 0:
        # a compiler without UBSan runtime: build plainly rather than not at all
        plain = base + ["CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror -pedantic"]
        proc = subprocess.run(plain, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"building {target} failed:\n{proc.stdout}\n{proc.stderr}")
    return exe


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else FIRMWARE / "build")
    for target in ("test_core", "vector_runner"):
        print(build(target, out.resolve()))
