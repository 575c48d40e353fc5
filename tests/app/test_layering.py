"""The rooms keep their walls: what each product package may import, checked on the source."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
OURS = {"rules", "vision", "board", "runtime", "app", "live", "hall", "sim", "training", "firmware_bridge",
        "calibration", "tools", "bench", "tests"}


def imported_modules(package: str) -> dict[str, set[str]]:
    """{file: every module name it imports (absolute; relative ones resolved to the package)}."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    names.add(package + (("." + node.module) if node.module else ""))
                elif node.module:
                    names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def offenders(package: str, allowed) -> list[str]:
    return [f"{f}: {m}" for f, names in imported_modules(package).items() for m in sorted(names) if not allowed(m)]


def test_rules_imports_nothing_of_ours():
    assert offenders("rules", lambda m: m.split(".")[0] not in OURS - {"rules"}) == []


def test_vision_imports_nothing_of_board_rules_sim_or_training():
    banned = {"board", "rules", "sim", "training", "runtime", "app", "live", "hall"}
    assert offenders("vision", lambda m: m.split(".")[0] not in banned) == []


@pytest.mark.parametrize("banned", ["cv2", "serial", "socket", "subprocess", "http", "aiohttp", "paho",
                                    "runtime", "app", "live", "hall", "sim", "training", "firmware_bridge"])
def test_board_is_the_tracked_game_and_nothing_else(banned):
    assert offenders("board", lambda m: m.split(".")[0] != banned) == []


def test_board_knows_of_vision_only_the_observation_contract():
    assert offenders("board", lambda m: not m.startswith("vision") or m == "vision.observation") == []


def test_board_opens_no_files():
    for path in sorted((ROOT / "board").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == "open"]
        assert calls == [], f"{path.name} opens a file"


def test_only_the_app_imports_the_synthetic_rig():
    for package in ("rules", "vision", "board", "runtime", "live", "hall", "firmware_bridge", "calibration"):
        assert offenders(package, lambda m: m.split(".")[0] not in ("sim", "training")) == [], package
