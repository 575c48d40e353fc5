"""Shared, cached sim material for the vision tests (rendering is the slow part)."""
from __future__ import annotations

import functools

import numpy as np


@functools.lru_cache(maxsize=None)
def still(seed: int, look: str | None = None, tilt: float | None = None, azimuth: float | None = None,
          width: int = 1280, height: int = 720, fen: str | None = None):
    """A sim still (image, truth), cached across tests."""
    import sim
    cam = {}
    if tilt is not None:
        cam["tilt_deg"] = tilt
    if azimuth is not None:
        cam["azimuth_deg"] = azimuth
    img, truth = sim.render_still(seed, look=look, fen=fen, width=width, height=height, camera=cam or None)
    img.setflags(write=False)
    return img, truth


@functools.lru_cache(maxsize=None)
def clip(seed: int, plies: int = 1, width: int = 960, height: int = 540, fps: float = 10.0,
         flicker: float | None = None):
    """All frames of a short sim clip with a hand making `plies` moves, cached."""
    import sim
    cam = {"flicker": flicker} if flicker else None
    spec = sim.ClipSpec(seed=seed, random_plies=plies, width=width, height=height, fps=fps, camera=cam)
    return list(sim.render_clip(spec))


def max_point_error(h: np.ndarray, h_true: np.ndarray) -> float:
    """Largest image distance between the 90 points under h and under the truth."""
    from vision import geometry as geo
    return float(np.abs(geo.apply_h(h, geo.POINTS) - geo.apply_h(h_true, geo.POINTS)).max())


def lattice_error(h: np.ndarray, h_true: np.ndarray) -> float:
    """Point error up to the lattice's symmetries (for the geometry alone, before orientation)."""
    from vision import geometry as geo
    return min(max_point_error(h @ geo.board_symmetry(k), h_true) for k in ("id", "flip_x", "flip_y", "rot180"))


class _Sim:
    still = staticmethod(still)
    clip = staticmethod(clip)
    max_point_error = staticmethod(max_point_error)
    lattice_error = staticmethod(lattice_error)


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def vsim() -> _Sim:
    """Cached sim renders and error measures for the vision tests."""
    return _Sim()


class DemoClipRead:
    """The bundled sample clip (sim/samples/demo, an MPEG-4 file decoded by OpenCV) read once by
    BoardReader(classify=False): its truth, every frame's Observation, and the reader as it ended."""

    def __init__(self) -> None:
        from pathlib import Path

        import cv2

        from sim import ClipTruth
        from vision.reader import BoardReader
        demo = Path(__file__).resolve().parents[2] / "sim" / "samples" / "demo"
        self.truth = ClipTruth.load(demo / "truth.json")
        self.reader = BoardReader(classify=False)
        self.observations = []
        cap = cv2.VideoCapture(str(demo / "clip.mp4"))
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            i = len(self.observations)
            self.observations.append(self.reader.process(frame, self.truth.frames[i].t, i))
        cap.release()


@pytest.fixture(scope="session")
def demo_clip_read() -> DemoClipRead:
    """The sample clip through the video path, shared by the tests that judge it (one decode + read)."""
    return DemoClipRead()
