"""Builds the firmware's host binaries (C unit tests, vector runner) with the machine's cc.

Used by the tests (tests/clock) and by hand: `python -m firmware_bridge.build_firmware DIR`.
It calls the compiler directly (no make needed); `make -C firmware_bridge/firmware test`
does the same job from the Makefile.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent / "firmware"
CORE = ("src/xq_proto.c", "src/xq_clock.c", "src/xq_device.c")
MAINS = {"test_core": "test/test_core.c", "vector_runner": "test/vector_runner.c"}
WARN = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"]
UBSAN = ["-fsanitize=undefined", "-fno-sanitize-recover=undefined"]


def compiler() -> str | None:
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    return None


def build(target: str, build_dir: Path) -> Path:
    """Compile `target` (test_core or vector_runner) into build_dir; UBSan when available."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc, gcc or clang) on PATH")
    if target not in MAINS:
        raise ValueError(f"unknown firmware target {target!r}; one of {sorted(MAINS)}")
    build_dir.mkdir(parents=True, exist_ok=True)
    exe = build_dir / target
    sources = [str(FIRMWARE / MAINS[target])] + [str(FIRMWARE / c) for c in CORE]
    base = [cc, *WARN, f"-I{FIRMWARE / 'src'}", "-o", str(exe), *sources]
    proc = subprocess.run(base[:1] + UBSAN + base[1:], capture_output=True, text=True)
    if proc.returncode != 0:  # a compiler without the UBSan runtime: build plainly
        proc = subprocess.run(base, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building {target} failed:\n{proc.stdout}\n{proc.stderr}")
    return exe


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else FIRMWARE / "build")
    for name in MAINS:
        print(build(name, out.resolve()))
