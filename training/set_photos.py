"""Photos of piece sets the model never met, made for benchmarks (developer side).

Why: the real photos we may ship (tests/data/real_boards) hold few sets and few photos of each,
and the model reads most of them already; teaching and reading sets never seen need many
sets, each photographed several times (another camera, light, position). This module draws
a set's discs (`training.discs`: typeface, disc, inks, engraved or printed strokes, wear)
and lays them on an empty board rendered by the project's rig (`sim.render_still`), through
the true board-to-image homography of that render: a photo whose truth is known exactly.

Typefaces are split so "never seen" holds: `HELD_OUT_FONTS` are typefaces the shipped model
was never trained on (training/discs.py drew its styles from the others); a set drawn from
them is a set never seen.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.observation import CLASSES, board_from_fen

#: Typefaces (file name fragments) the shipped model never saw: Noto Serif CJK in every weight
#: (install fonts-noto-cjk, fonts-noto-cjk-extra; training/finetune.py --hold-out-fonts keeps
#: them out of training and model selection).
HELD_OUT_FONTS = ("NotoSerifCJK",)
EMPTY_FEN = "9/9/9/9/9/9/9/9/9/9 w - - 0 1"
START_BOARD = board_from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1")
DISC_DIAMETER = 0.88   # point spacings: a club set's discs nearly touch their neighbours


def held_out_fonts() -> tuple[str, ...]:
    from training.discs import cjk_fonts
    return tuple(f for f in cjk_fonts() if any(k in Path(f).name for k in HELD_OUT_FONTS))


def draw_set_style(rng: np.random.Generator, fonts: tuple[str, ...]):
    """A random set look (training.discs.DiscStyle) whose typeface is one of `fonts`."""
    from training.discs import random_style
    return random_style(rng, fonts)


INSTANCES = {"K": 1, "A": 2, "B": 2, "N": 2, "R": 2, "C": 2, "P": 5}


class PhysicalSet:
    """The 32 discs of one set, each drawn once: every photo of the set shows these very discs
    (a set's two black horses carry the same character in the same hand), turned as play
    leaves them."""

    def __init__(self, style, seed: int) -> None:
        from training.discs import draw_disc
        self.style = style
        self.discs: dict[str, list[np.ndarray]] = {}
        for letter, count in INSTANCES.items():
            for ch in (letter, letter.lower()):
                label = CLASSES.index(ch)
                # one generator state per kind of piece: its instances share character and ink
                self.discs[ch] = [draw_disc(label, style, np.random.default_rng([seed, label]), size=96)
                                  for _ in range(count)]

    def disc(self, ch: str, instance: int, rng: np.random.Generator) -> np.ndarray:
        d = self.discs[ch][instance % len(self.discs[ch])]
        s = d.shape[0]
        m = cv2.getRotationMatrix2D((s / 2, s / 2), float(rng.uniform(0, 360)), 1.0)
        return cv2.warpAffine(d, m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def lay_discs(image: np.ndarray, homography: np.ndarray, board: str, pieces: PhysicalSet,
              rng: np.random.Generator) -> np.ndarray:
    """`image` with the set's disc on every occupied point of `board` (90 chars, index order)."""
    out = image.copy()
    s = 96
    # disc crop pixel -> board plane: the drawn disc (radius 0.46 s) spans DISC_DIAMETER
    k = DISC_DIAMETER / (0.92 * s)
    h, w = image.shape[:2]
    used: dict[str, int] = {}
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    alpha = np.clip(0.46 * s + 0.5 - np.hypot(xx - s / 2, yy - s / 2), 0, 1)
    for p, ch in enumerate(board):
        if ch in ".?":
            continue
        f, r = p % 9, p // 9
        disc = pieces.disc(ch, used.get(ch, 0), rng)
        used[ch] = used.get(ch, 0) + 1
        jitter = rng.normal(0.0, 0.02, 2)
        a = np.array([[k, 0, f + jitter[0] - k * s / 2], [0, k, r + jitter[1] - k * s / 2], [0, 0, 1]])
        m = homography @ a
        warped = cv2.warpPerspective(disc, m, (w, h), flags=cv2.INTER_LINEAR)
        aw = cv2.warpPerspective(alpha, m, (w, h), flags=cv2.INTER_LINEAR)[..., None]
        out = (out * (1 - aw) + warped * aw).astype(np.uint8)
    return out


def set_photo(pieces: PhysicalSet, board: str, seed: int, look: str | None = None, width: int = 1280, height: int = 720,
              camera: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(photo, board->image homography) of `board` laid out with `pieces` on a rendered empty board."""
    import sim
    img, truth = sim.render_still(seed, look=look, fen=EMPTY_FEN, width=width, height=height, camera=camera)
    rng = np.random.default_rng([seed, 7])
    return lay_discs(img, truth.homography, board, pieces, rng), truth.homography


def random_game_board(seed: int) -> str:
    """A position of a game played at random from the start (as the rig's stills use)."""
    from sim.render import _random_board
    return _random_board(np.random.default_rng([seed, 31337]))
