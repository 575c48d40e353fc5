"""BoardReader (video) and read_image (one photo): frames in, Observations out.

The video path is built around keeping work per frame small: find the board once, then only
verify the lock (vision.lock), watch for hands on a tiny rectified board (vision.hands), and
reclassify only points that changed since they were last read, once the board is quiet again.
Points under a hand keep their last reading and are flagged `occluded`; the tracker decides.
"""
from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import cv2
import numpy as np

from . import geometry as geo
from .anchor import AnchorProposal, AnchorResult, AnchorWatch, board_ids, propose_anchor
from .config import DEFAULT_READER, AnchorConfig, LockDoubtConfig, ReaderConfig
from .hands import HandDetector
from .lock import LockKeeper, same_orientation, to_gray
from .locate import BoardNotFoundError, _verify, find_lattice, orient, red_halves, red_score, same_lattice
from .lock_confirm import LockWitness, witness
from .looks import disc_looks
from .observation import CLASSES, NUM_POINTS, BoardPose, Observation
from .search_worker import SearchWorker, Timed
from .start_orientation import StartOrientation, start_orientation

if TYPE_CHECKING:
    from calibration.camera import CameraIntrinsics
    from .assignment import JointReading
    from calibration.piece_profile import PieceSetProfile
    from .disc import DiscMeter

_RED = np.array([c.isupper() for c in CLASSES])
_BLACK = np.array([c.islower() for c in CLASSES])
_K, _k = CLASSES.index("K"), CLASSES.index("k")
_PALACE_LOW = np.array([r * 9 + f for r in range(3) for f in range(3, 6)])
_PALACE_HIGH = np.array([r * 9 + f for r in range(7, 10) for f in range(3, 6)])


def red_evidence_from_probs(probs: np.ndarray) -> float:
    """> 0 when the readings say red sits at ranks 0-4 (as indexed), < 0 when at ranks 5-9.

    The generals are decisive (each stays in its own palace); the rest of the army weighs in
    more softly since pieces cross the river during a game.
    """
    p = np.asarray(probs, dtype=np.float64)
    low = np.arange(NUM_POINTS) < 45
    red = p[:, _RED].sum(axis=1)
    black = p[:, _BLACK].sum(axis=1)
    army = float(red[low].sum() - red[~low].sum() + black[~low].sum() - black[low].sum())
    kings = float(p[_PALACE_LOW, _K].sum() - p[_PALACE_HIGH, _K].sum()
                  + p[_PALACE_HIGH, _k].sum() - p[_PALACE_LOW, _k].sum())
    return 4.0 * kings + 0.25 * army


def _rot180_points(a: np.ndarray) -> np.ndarray:
    """Re-index per-point arrays for a 180 degree turn of the board (index i -> 89 - i)."""
    return a[::-1].copy()


LOOK_AGAIN_S = 0.3   # a point read when the board went quiet is looked at again on the quiet frames
                     # this long after (s): the first quiet frame may still hold the shadow of a hand
                     # just gone, and the tracker compares the looks of settled boards


@dataclass
class PointReads:
    """One classifier pass over some points: their class probabilities, the model's offset
    estimates, and the crops it read (the reader takes each piece's look from them)."""

    probs: np.ndarray        # (N, 15)
    offsets: np.ndarray      # (N, 2) spacings
    crops: np.ndarray        # (N, S, S, 3) BGR


class _Classify:
    """Lazy wrapper over vision.classifier so the geometry works before/without a model."""

    def __init__(self, model_path: str | None, profile: "PieceSetProfile | None") -> None:
        from .classifier import TTA_BELOW, PieceClassifier  # onnxruntime import only when reading pieces
        # quarter-turn averaging only for the unsure points: same accuracy, ~4x cheaper
        self.model = PieceClassifier(model_path, profile=profile, tta_below=TTA_BELOW)

    def run(self, image_bgr: np.ndarray, h: np.ndarray, points: np.ndarray | None = None) -> PointReads:
        # the model's own crop convention: its size, span and the disc-top plane (on oblique
        # views a disc's face sits well off its point on the board plane)
        crops = self.model.extract(image_bgr, h, points=None if points is None else points.tolist())
        out = self.model.predict_full(crops)
        return PointReads(out.probs, out.offsets, crops)


def _pose(h: np.ndarray, confidence: float) -> BoardPose:
    return BoardPose(homography=h, corners=geo.corners_of(h), confidence=float(np.clip(confidence, 0.0, 1.0)),
                     red_side=geo.red_side_of(h))


MAX_PIECES = 32
REFIND_TRIES = 2  # other lattices tried after a refused one, before "no board"


def reading_doubt(probs: np.ndarray) -> str | None:
    """Why a board reading cannot be a real position on its lattice; None when it can be.

    Line evidence alone can lock onto a wrong lattice (a cloth's weave, a shifted grid); the
    pieces can give it away: more points read as pieces than a position has. Two misread
    points are allowed (the start position has 32 pieces; a shadow or a board marking read as
    a piece must not refuse it). Deliberately set-agnostic: on an unfamiliar set characters
    and even colours are misread often (real street photos), whether a point carries a disc
    much less. (Counting pieces on the ring just beyond the edge was tried and dropped: the
    model reads board frames and margins as pieces, on renders 13-20 of 38 for correct locks.)
    """
    lab = np.asarray(probs).argmax(axis=1)
    n = int((lab > 0).sum())
    if n > MAX_PIECES + 2:
        return f"{n} points read as pieces (a position has at most {MAX_PIECES})"
    return None


@dataclass(frozen=True)
class FoundBoard:
    """A board found in one frame: its lattice (red's end decided when the pieces were read) and,
    when a classifier was given, the reading of its 90 points with the crops it was read from
    (so a reader that adopts the lock takes each point's look without extracting them again)."""

    homography: np.ndarray          # board -> image, normalised (h[2, 2] == 1)
    support: float                  # share of the lattice's lines seen in the image
    polarity: int                   # lines darker (+1) or lighter (-1) than the board
    score: float                    # the lattice search's score (LockDoubtConfig compares it)
    reads: PointReads | None        # None when no classifier was given
    disc_offsets: np.ndarray | None = None   # (90, 2) measured on the discs of the searched frame ...
    discs: "DiscMeter | None" = None         # ... by this meter (a live search's, _measured_search_job)


SURE_PIECE = 0.8   # a point read as one piece with at least this probability (and empty below 1 - it)


def _sure_pieces(probs: np.ndarray) -> int:
    """Points read surely as a piece."""
    p = np.asarray(probs)
    return int(((p[:, 0] < 1.0 - SURE_PIECE) & (p[:, 1:].max(axis=1) >= SURE_PIECE)).sum())


def locate_and_read(image_bgr: np.ndarray, classifier, exclude: tuple[np.ndarray, ...] = (),
                    quick: bool = False) -> FoundBoard:
    """Find, orient and (with a classifier: anything whose run(image, h) gives PointReads) read a board.

    `classifier` is a _Classify, None, or a callable making one (so a photo without a board
    fails fast, before the model is loaded). With a classifier, a lattice whose reading is
    implausible (`reading_doubt`) is refused and the next best lattice tried; when none is
    plausible the result is BoardNotFoundError. `exclude`: lattices not to return (find_lattice's).
    `quick`: find_lattice's quick search (a lattice it finds unclearly is to be checked again).
    """
    refused: list[np.ndarray] = []
    while True:
        fit = find_lattice(image_bgr, exclude=tuple(exclude) + tuple(refused), quick=quick)
        h = orient(fit.homography)  # proper handedness; red side still open
        if callable(classifier):
            classifier = classifier()
        if classifier is None:
            if image_bgr.ndim == 3:
                h = orient(h, red_score(image_bgr, h))
            return FoundBoard(h / h[2, 2], fit.support, fit.polarity, fit.score, None)
        reads = classifier.run(image_bgr, h)
        if fit.runner_up is not None:
            # a lattice only a later pass of the search found, where the first pass found another:
            # the later passes admit more, and a wrong lattice can outscore the board there (the
            # coarse combs of the wide band can fit a lattice whole spacings off, scoring above the
            # true one); the pieces decide, the later pass's lattice only where it reads more of
            # them surely
            other = orient(fit.runner_up.homography)
            other_reads = classifier.run(image_bgr, other)
            if _sure_pieces(other_reads.probs) >= _sure_pieces(reads.probs):
                fit, h, reads = fit.runner_up, other, other_reads
        doubt = reading_doubt(reads.probs)
        if doubt is None:
            break
        refused.append(fit.homography)
        if len(refused) > REFIND_TRIES:
            raise BoardNotFoundError(f"no board found: the line lattices in the image do not carry a "
                                     f"plausible position (best one: {doubt})")
    ev = red_evidence_from_probs(reads.probs)
    if abs(ev) < 0.5 and image_bgr.ndim == 3:  # readings undecided: fall back on ink colour
        rs = red_score(image_bgr, h)
        ev = float(rs[:45].sum() - rs[45:].sum())
    found = FoundBoard(h / h[2, 2], fit.support, fit.polarity, fit.score, reads)
    if ev < 0:
        h = h @ geo.board_symmetry("rot180")
        found = _turned_half_round(found, h / h[2, 2])
    return found


def _turned_half_round(found: FoundBoard, turned_h: np.ndarray) -> FoundBoard:
    """`found` labelled from the board's other end (`turned_h` is its homography turned 180
    degrees): point i is point 89 - i, its offset reversed and its crop turned half round."""
    reads = found.reads
    if reads is not None:
        reads = PointReads(_rot180_points(reads.probs), -_rot180_points(reads.offsets),
                           np.ascontiguousarray(_rot180_points(reads.crops)[:, ::-1, ::-1]))
    return FoundBoard(turned_h, found.support, found.polarity, found.score, reads)


_SHARED: dict[str, "_Classify"] = {}


def _shared_classify(model_path: str | None, profile: "PieceSetProfile | None") -> "_Classify":
    """read_image's classifier. Loading the ONNX session (~50 ms) costs more than reading all
    90 points, so photos read in one process share one session per model file; a piece-set
    profile gets a classifier of its own."""
    if profile is not None:
        return _Classify(model_path, profile)
    from pathlib import Path
    key = "" if model_path is None else str(Path(model_path).resolve())
    if key not in _SHARED:
        _SHARED[key] = _Classify(model_path, None)
    return _SHARED[key]


@dataclass
class PhotoReading:
    """One photo read: the Observation (probs already the joint reading's) and the joint
    reading itself (`unsure` points, which end was kept), None when read point by point."""

    observation: Observation
    joint: "JointReading | None"


class ColourlessImageError(ValueError):
    """A photo without colour: the sides of the pieces cannot be read from it."""


COLOURLESS_MESSAGE = ("the photo has no colour (greyscale): its pieces show no ink colour, so red and black "
                      "pieces cannot be told apart; take the photo in colour")

# A pixel counts as coloured when its channels differ by more than this (0..255): JPEG noise on a
# greyscale photo stays below ~10, red ink, wood and table tops are far above.
COLOURED_PIXEL_CHROMA = 24
# Below this share of coloured pixels the photo may be greyscale and its pieces decide (colour
# photos of boards: 0.2 .. 0.9; a white paper board with a few red pieces: well under 0.01).
MIN_COLOUR_SHARE = 0.01
# Above the most a greyscale photo's channels differ (max - min) once it went through a JPEG
# encoder and was decoded to three channels: its chroma planes carry only rounding and ringing
# (OpenCV's encoder: 0; grey with +-3 of noise per channel, then JPEG: 2-3; other encoders' rounding
# up to ~6).
GREY_NOISE_CHROMA = 10
# The face of a disc in a point crop (radius, share of the crop's width): the crop is one point
# spacing wide and a disc's radius 0.38-0.46 spacings, so this circle stays on the face, clear of
# the board around it, when the disc sits a little off its point; the character lies inside it.
FACE_RADIUS = 0.3
# A face with this share of coloured pixels carries coloured ink: a red character's strokes cover
# a fifth of the face circle or more (red pieces on rendered white discs 0.24-0.39, on bamboo
# ones 1.0; the most coloured piece of each real photo in tests/data/real_boards 0.78-1.0), a
# twentieth still counts a thin or faded one, and a greyscale photo has none at all: its noise
# stays far below COLOURED_PIXEL_CHROMA (0 coloured pixels on every face measured).
INK_SHARE = 0.05
# The faces themselves are tinted when their typical chroma is above a greyscale photo's noise:
# wood, bamboo and ivory discs are yellowish (real photos: median face chroma 8-93, most 19-55;
# greyscale versions of them, JPEG included: 0).
FACE_TINT_CHROMA = GREY_NOISE_CHROMA
# A photo is truly colourless (chroma ~0 everywhere) when at most this share of its pixels rise
# above a greyscale photo's noise: a colour photo has coloured things beyond that (real photos:
# 58-95 % of pixels; a render of a white board whose only colour is two red pieces: 0.4-0.9 %),
# a greyscale one none (0 in all measured, JPEG included).
GREY_PHOTO_SHARE = 1e-4


def _chroma(image_bgr: np.ndarray) -> np.ndarray:
    """Max - min channel (uint8) on a grid of about 40,000 pixels: plenty for a share, and well
    under a millisecond."""
    import cv2
    step = max(1, int(round(np.sqrt(image_bgr.shape[0] * image_bgr.shape[1] / 40_000))))
    b, g, r = cv2.split(np.ascontiguousarray(image_bgr[::step, ::step]))
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))


def colour_share(image_bgr: np.ndarray) -> float:
    """Share of pixels with visible colour (max - min channel above COLOURED_PIXEL_CHROMA),
    counted on a grid of about 40,000 pixels."""
    chroma = _chroma(image_bgr)
    return float(np.count_nonzero(chroma > COLOURED_PIXEL_CHROMA)) / chroma.size


def pieces_show_colour(reads: PointReads) -> bool:
    """Whether the pieces read in `reads` show colour: the ink of some occupied point's face
    (INK_SHARE of it strongly coloured), or the faces' tint (FACE_TINT_CHROMA). Points read as
    empty (class 0 at least even odds) are left out; with none occupied nothing shows colour."""
    crops = np.asarray(reads.crops)
    occupied = np.asarray(reads.probs)[:, 0] < 0.5
    if not occupied.any():
        return False
    size = crops.shape[1]
    yy, xx = np.mgrid[:size, :size]
    centre = (size - 1) / 2.0
    face = (yy - centre) ** 2 + (xx - centre) ** 2 <= (FACE_RADIUS * size) ** 2
    pix = crops[occupied][:, face].astype(np.int16)            # (n, face pixels, 3)
    chroma = pix.max(axis=2) - pix.min(axis=2)
    ink = (chroma > COLOURED_PIXEL_CHROMA).mean(axis=1)
    return bool(ink.max() >= INK_SHARE or np.median(np.median(chroma, axis=1)) > FACE_TINT_CHROMA)


def locate_in_colour(image_bgr: np.ndarray, classifier) -> FoundBoard:
    """`locate_and_read` (a classifier is required) for a photo whose pieces must show colour
    (read_photo, calibrating a piece set from a photo). Raises ColourlessImageError when they do
    not, BoardNotFoundError when there is no board.

    Most colour photos pass on the whole photo's colour share alone. Below MIN_COLOUR_SHARE the
    photo may still be in colour (a white paper board with a few red pieces), so the board is found
    and its pieces judged (`pieces_show_colour`). Where no board is found the colour message is
    given only for a photo with no colour anywhere, the board's absence otherwise."""
    if image_bgr.ndim == 2:
        raise ColourlessImageError(COLOURLESS_MESSAGE)
    chroma = _chroma(image_bgr)
    if np.count_nonzero(chroma > COLOURED_PIXEL_CHROMA) >= MIN_COLOUR_SHARE * chroma.size:
        return locate_and_read(image_bgr, classifier)
    try:
        found = locate_and_read(image_bgr, classifier)
    except BoardNotFoundError:
        if np.count_nonzero(chroma > GREY_NOISE_CHROMA) <= GREY_PHOTO_SHARE * chroma.size:
            raise ColourlessImageError(COLOURLESS_MESSAGE) from None
        raise
    if found.reads is None:
        raise ValueError("locate_in_colour: a classifier is needed to judge the pieces' colour")
    if not pieces_show_colour(found.reads):
        raise ColourlessImageError(COLOURLESS_MESSAGE)
    return found


def read_photo(image_bgr: np.ndarray, model_path: str | None = None,
               profile: "PieceSetProfile | None" = None, camera: "CameraIntrinsics | None" = None,
               joint: bool = True, game_position: bool = True) -> PhotoReading:
    """Full read of one photo. Raises BoardNotFoundError when there is no board in it and
    ColourlessImageError when its pieces show no colour (`locate_in_colour`).

    With `joint` (default) the board is read as a whole (vision.assignment): never more pieces
    of a kind than a set holds and, with `game_position`, generals, advisors, elephants and
    soldiers only where a game can put them; the end kept as red's is the one whose joint
    reading is more likely. The Observation's probs are then the joint probabilities (their
    argmax is the joint reading). With `camera` (optional intrinsics, `xqtrack calibrate
    camera`) the photo is undistorted first, and the pose refers to the undistorted image.
    """
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim not in (2, 3) or image_bgr.size == 0:
        raise ValueError("read_image: expected a non-empty BGR image array")
    if image_bgr.ndim == 2:
        raise ColourlessImageError(COLOURLESS_MESSAGE)
    if camera is not None:
        image_bgr = camera.undistort(image_bgr)
    found = locate_in_colour(image_bgr, lambda: _shared_classify(model_path, profile))
    assert found.reads is not None
    h, support, probs, offsets = found.homography, found.support, found.reads.probs, found.reads.offsets
    jr = None
    if joint:
        from .assignment import read_jointly
        jr = read_jointly(probs, game_position=game_position)
        if jr.flipped:
            h = h @ geo.board_symmetry("rot180")
            h = h / h[2, 2]
            offsets = -_rot180_points(offsets)
        probs = jr.probs
    obs = Observation(t=0.0, frame_index=0, pose=_pose(h, support), quiet=True,
                      occluded=np.zeros(NUM_POINTS, bool), probs=np.asarray(probs, np.float32),
                      offset=np.asarray(offsets, np.float32))
    return PhotoReading(obs, jr)


def read_image(image_bgr: np.ndarray, model_path: str | None = None,
               profile: "PieceSetProfile | None" = None, camera: "CameraIntrinsics | None" = None,
               joint: bool = True, game_position: bool = True) -> Observation:
    """`read_photo`'s Observation (see there). Raises BoardNotFoundError when there is no board."""
    return read_photo(image_bgr, model_path, profile, camera, joint, game_position).observation


def _search_job(search: "SearchFn", frame: np.ndarray, classifier: "_Classify | None",
                exclude: tuple[np.ndarray, ...]) -> FoundBoard | None:
    """One board search as the search thread runs it: None when no board is found."""
    try:
        return search(frame, classifier, exclude)
    except BoardNotFoundError:
        return None


def _measure_discs(meter: "DiscMeter", clf: "_Classify", frame: np.ndarray, h: np.ndarray, idx: np.ndarray,
                   probs: np.ndarray, model_offsets: np.ndarray) -> np.ndarray:
    """Offsets measured on the discs themselves (vision.disc): the model's estimate is 2-3x short."""
    from .disc import CentredRead
    m = clf.model

    def recentre(img: np.ndarray, hh: np.ndarray, pts: np.ndarray, off: np.ndarray) -> CentredRead:
        read = m.predict_full(m.extract(img, hh, offsets=off, points=pts.tolist()))
        return CentredRead(read.probs, read.offsets)

    def classify(img: np.ndarray, hh: np.ndarray, pts: np.ndarray, off: np.ndarray) -> np.ndarray:
        return recentre(img, hh, pts, off).probs
    return meter.offsets(frame, h, idx, probs, model_offsets, classify, height=m.crop_height, recentre=recentre)


def _measured_search_job(search: "SearchFn", frame: np.ndarray, classifier: "_Classify", meter: "DiscMeter",
                         exclude: tuple[np.ndarray, ...]) -> FoundBoard | None:
    """A live source's search for a board not yet locked, with the discs of the board found
    measured on the same frame by `meter` (a copy of the reader's, its fits forgotten): the lock
    then takes the search's whole reading without a full read on the frame path (0.3-0.5 s), and
    the offsets belong to the frame and lattice the pieces were read on."""
    found = _search_job(search, frame, classifier, exclude)
    if found is None or found.reads is None:
        return found
    offsets = _measure_discs(meter, classifier, frame, found.homography, np.arange(NUM_POINTS),
                             found.reads.probs.astype(np.float32), found.reads.offsets)
    return replace(found, disc_offsets=offsets.astype(np.float32), discs=meter)


def _locate_and_read_now(frame: np.ndarray, classifier: "_Classify | None",
                         exclude: tuple[np.ndarray, ...] = ()) -> FoundBoard:
    """locate_and_read as this module holds it at the moment of the call (tests replace it)."""
    return locate_and_read(frame, classifier, exclude=exclude)


def _quick_then_whole(frame: np.ndarray, classifier: "_Classify | None",
                      exclude: tuple[np.ndarray, ...] = ()) -> FoundBoard:
    """The quick search (find_lattice's first pass), the whole one where it finds no board. The
    lock taken on its lattice is searched again with the whole search on the search thread while
    it serves frames: a doubted lock's recheck, the new lock's audit (SearchConfig.quick_acquire)."""
    try:
        return locate_and_read(frame, classifier, exclude=exclude, quick=True)
    except BoardNotFoundError:
        return locate_and_read(frame, classifier, exclude=exclude)


SearchFn = Callable[[np.ndarray, "_Classify | None", "tuple[np.ndarray, ...]"], FoundBoard]
"""A board search: (frame, classifier or None, lattices to pass over) -> FoundBoard, raising
BoardNotFoundError when there is none (locate_and_read)."""


@dataclass
class _Asked:
    """A job on the search thread: what it was asked for, and when (vision.config.SearchConfig)."""

    kind: str                          # "acquire" (no lock), "slide", "recheck", "audit", "anchor"
    answer: "Future[Timed[Any]]"
    frame_no: int                      # the reader's count of frames when it was asked
    t: float                           # source time of that frame
    h: np.ndarray | None               # the lock's lattice then (None for "acquire")
    stirred: bool = False              # a frame since showed the board not quiet: its reads may be stale


@dataclass
class _Adapting:
    """A piece set's fit on the learning thread (BoardReader.begin_adapt)."""

    answer: "Future[Timed[Any]]"
    frame_no: int
    apply_below: float | None


class BoardReader:
    """Video reader: keeps the board lock, sees hands, reclassifies only what changed.

    Board searches made while a lock exists (audits, rechecks of a doubted lock, the check after a
    slide, re-anchoring on the game's position) run on a search thread and their answers are
    applied at a later frame (SearchConfig says which), checked again on that frame: the frame
    path itself only checks the lock, watches hands and reads the points that changed."""

    def __init__(self, model_path: str | None = None, profile: "PieceSetProfile | None" = None,
                 classify: bool = True, camera: "CameraIntrinsics | None" = None,
                 config: ReaderConfig = DEFAULT_READER, search: SearchFn | None = None) -> None:
        """`camera`: optional lens intrinsics; frames are undistorted first and poses refer to the
        undistorted frame. `classify=False` runs geometry and hands only (no model needed).
        `config`: every setting of the reader and its stages (vision.config.ReaderConfig; for a
        live source `ReaderConfig.for_source(live=True)`). `search`: the board search to run
        (locate_and_read by default; a benchmark or a test may slow it down or stand in for it)."""
        self.config = config
        self.camera = camera
        self._search: SearchFn = search or _locate_and_read_now
        # the first search of a live source: quick, then checked again (SearchConfig.quick_acquire)
        self._acquire_search: SearchFn = search or (_quick_then_whole if config.search.quick_acquire
                                                    else _locate_and_read_now)
        self._worker = SearchWorker(nice=config.search.worker_nice)
        self._asked: _Asked | None = None          # the job on the search thread whose answer is awaited
        self._learn_worker = SearchWorker(nice=config.search.worker_nice)  # a piece set's fit (begin_adapt)
        self._adapting: _Adapting | None = None    # the fit awaited
        self._adapted: list["PieceSetProfile"] = []  # fits taken since take_adapted
        self._anchor_board: str | None = None      # a check on this known position, waiting for the thread
        self._anchored: list[AnchorResult] = []     # re-seatings made since take_anchored
        self._watch = AnchorWatch(config.anchor)
        self._known: str | None = None             # the game's position as the recorder last told it
        self._frames = 0                           # frames processed
        self._frame: np.ndarray | None = None      # the last frame processed (undistorted) ...
        self._t = 0.0                              # ... and its source time
        self._next_search_t: float | None = None   # frame time before which no search is started (live)
        self.searches = 0
        self.search_s = 0.0                         # wall seconds spent searching for the board
        self.searches_spared = 0                    # audits and rechecks the pieces made needless
        self.last_witness: LockWitness | None = None   # the pieces' last verdict on the lattice
        self.frames_over_budget = 0                 # process() calls that took longer than frame_budget_s
        self.frames_idle = 0                        # frames that showed no change, not looked at (StaticConfig)
        self._static_ref: tuple[tuple[int, int, int, int], np.ndarray] | None = None   # block means of the last quiet frame looked at
        self._static_t = -np.inf                    # ... and its time
        self._clf: _Classify | None = _Classify(model_path, profile) if classify else None
        self._discs: "DiscMeter | None" = None   # vision.disc.DiscMeter, made at the first classified read (learns the set's disc radius)
        self.hands = HandDetector(config.hands)
        self.lock: LockKeeper | None = None
        self.h: np.ndarray | None = None
        self.confidence = 0.0
        self.probs = np.full((NUM_POINTS, len(CLASSES)), 1.0 / len(CLASSES), np.float32)
        self.offset = np.zeros((NUM_POINTS, 2), np.float32)
        self.dirty = np.ones(NUM_POINTS, bool)   # points to (re)classify at the next quiet frame
        # each point's look when last read (vision.looks); replaced, never changed in place, so an
        # Observation can hand it on without a copy per frame
        self.looks: np.ndarray | None = None
        self._look_again = np.zeros(NUM_POINTS, bool)   # points read at the last quiet frame, looked at again ...
        self._look_again_until = -np.inf                # ... on quiet frames until this frame time
        self._lost_frames = 0
        self._hidden: np.ndarray | None = None
        self.relocks = 0
        self._recheck_t: float | None = None    # frame time of the next search while the lock is doubted
        self._recheck_wait = config.doubt.recheck_s
        self.lattice_replaced = 0                # doubted locks replaced by a clearly better lattice
        self.lattices = 0                        # lattices taken so far (Observation.lattice)
        self.start_end: StartOrientation | None = None   # how `adapt` chose red's end from a known position
        self._slid_t: float | None = None       # frame time of the last slide the lock followed, until checked
        self._audit_t: float | None = None      # frame time of the next audit of the lock
        self._audit_wait = config.doubt.audit_first_s
        self._quiet_before = False              # the last frame was quiet

    @property
    def profile(self) -> "PieceSetProfile | None":
        return None if self._clf is None else self._clf.model.profile

    @property
    def search_share(self) -> float | None:
        """For a live source, the most of each second of frames searching while no board is locked."""
        return self.config.search.live_share

    # ------------------------------------------------------------------ taking a lattice
    def _acquire(self, frame: np.ndarray, t: float) -> bool:
        """Search this frame for the board here and now and lock onto it if found."""
        try:
            found = self._search(frame, self._clf, ())
        except BoardNotFoundError:
            return False
        self._take_found(frame, t, found)
        return True

    def _take_found(self, frame: np.ndarray, t: float, found: FoundBoard) -> None:
        """Lock onto a board found with no lock held."""
        if self.h is not None:
            if self._recheck_t is None:
                # re-lock after a bump: keep red where it was (unless the lattice lost was a doubted
                # one, perhaps not the board at all: its orientation says nothing)
                kept = same_orientation(found.homography, self.h)
                if not np.array_equal(kept, found.homography):
                    found = _turned_half_round(found, kept)
            self.relocks += 1
        self._adopt(frame, t, found)

    def _adopt(self, frame: np.ndarray, t: float, found: FoundBoard) -> None:
        """Lock onto a found lattice: every point is read afresh, the hand detector starts over."""
        doubt = self.config.doubt
        self._drop_asked()
        self._recheck_t = t + doubt.recheck_s if found.score < doubt.doubt_below else None
        self._recheck_wait = doubt.recheck_s
        self._slid_t = None
        self._audit_wait = doubt.audit_first_s
        self._audit_t = t + self._audit_wait
        h = found.homography
        self.h = h
        self.lattices += 1
        self._forget_discs()
        self.confidence = found.support
        self.lock = LockKeeper(h, found.polarity, found.support, found.score, config=self.config.lock)
        self._watch.lock_taken(t)
        self.hands.reset()
        self._hidden = None
        if found.reads is not None:
            assert self._clf is not None, "a board search reads pieces only with a classifier"
            self.probs = found.reads.probs.astype(np.float32)
            if found.disc_offsets is not None and found.discs is not None:
                # measured by the search, on its own frame and lattice (a live source's)
                self._discs = found.discs
                self.offset = found.disc_offsets.copy()
            else:
                self.offset = self._disc_offsets(frame, np.arange(NUM_POINTS), self.probs, found.reads.offsets)
            self.looks = disc_looks(found.reads.crops)
            self.dirty[:] = False
        else:
            self.looks = None
            self.dirty[:] = True

    def _lose_lock(self) -> None:
        """The lock check failed (a bump, the board gone): search afresh."""
        self.lock = None
        self._lost_frames = 0
        self._watch.lock_lost()
        self._drop_asked()

    def _drop_asked(self) -> None:
        """The lock an awaited answer concerns is gone or replaced: the answer would judge a lattice
        no longer held (the thread finishes the job; nobody looks at it)."""
        if self._asked is not None and self._asked.kind != "acquire":
            self._asked = None

    def _replace_lock(self, frame: np.ndarray, t: float, found: FoundBoard) -> None:
        self.relocks += 1
        self.lattice_replaced += 1
        self._adopt(frame, t, found)

    # ------------------------------------------------------------------ asking the search thread
    def _ask(self, kind: str, job: Callable[[], Any]) -> None:
        """Hand `job` to the search thread; its answer is taken at a later frame (_take_answer)."""
        h = None if self.h is None or kind == "acquire" else self.h.copy()
        self._asked = _Asked(kind, self._worker.submit(job), self._frames, self._t, h)

    def _ask_search(self, kind: str, frame: np.ndarray, exclude: tuple[np.ndarray, ...] = ()) -> None:
        """A board search of (a copy of) this frame on the search thread."""
        search = self._acquire_search if kind == "acquire" else self._search
        if kind == "acquire" and self._clf is not None:
            self._ask(kind, partial(_measured_search_job, search, frame.copy(), self._clf, self._fresh_meter(), exclude))
            return
        self._ask(kind, partial(_search_job, search, frame.copy(), self._clf, exclude))

    def _ask_checks(self, frame: np.ndarray, gray: np.ndarray, t: float, slid: bool) -> None:
        """Start the most pressing lattice check that is due, when the search thread is free:
        a check on the known position, the one after a slide, a doubted lock's, an audit."""
        if self._asked is not None:
            return
        if self._anchor_board is not None:
            self._ask_anchor()
            if self._asked is not None:
                return
        doubt = self.config.doubt
        if not slid and self._slide_check_due(t):
            self._slid_t = None
            self._ask_search("slide", frame)
            return
        if self._recheck_t is not None and t >= self._recheck_t:
            assert self.lock is not None and self.h is not None
            if _verify(gray, self.h, self.lock.polarity).score >= doubt.doubt_below:
                self._recheck_t = None      # the locked lattice shows itself clearly now
            elif self._pieces_confirm_lock():
                self._recheck_t = None      # the known position stands on this lattice's points
                self.searches_spared += 1
            else:
                self._ask_search("recheck", frame, exclude=(self.h.copy(),))
                self._audit_done(t)         # a recheck searches the whole frame as an audit does
                return
        if not slid and self._audit_due(t):
            self._audit_done(t)
            if self._pieces_confirm_lock():
                self.searches_spared += 1
            else:
                self._ask_search("audit", frame)

    def _audit_done(self, t: float) -> None:
        """The audit due is made (or spared): the next one waits twice as long (LockDoubtConfig)."""
        doubt = self.config.doubt
        self._audit_wait = min(doubt.audit_max_s, 2.0 * self._audit_wait)
        self._audit_t = t + self._audit_wait

    def _pieces_confirm_lock(self) -> bool:
        """The pieces confirm the locked lattice (vision.lock_confirm): the game's known position
        reads on its points and the discs show no common drift off them, on a quiet board whose
        every point has been read on this lattice."""
        if self._known is None or self._clf is None or not self._quiet_before or self.dirty.any():
            return False
        doubt = self.config.doubt
        self.last_witness = witness(self.probs, self.offset, board_ids(self._known, "game position"),
                                    self.config.anchor.explained_share, doubt.confirm_drift, doubt.confirm_far,
                                    doubt.confirm_discs)
        return self.last_witness.confirmed

    def _ask_anchor(self) -> None:
        """Check the lock against the known position on the search thread (vision.anchor)."""
        board, self._anchor_board = self._anchor_board, None
        if board is None or self._clf is None or self.lock is None or self.h is None or self._frame is None:
            return
        ids = board_ids(board, "anchor")
        self._ask("anchor", partial(propose_anchor, self._frame.copy(), self.h.copy(), self._clf.model, ids,
                                    self.config.anchor))

    def _take_answer(self, frame: np.ndarray, gray: np.ndarray, t: float) -> None:
        """Apply the awaited answer of the search thread: a live source's once it is ready (an
        audit's at the first quiet frame from then), a file's `file_answer_frames` frames after it
        was asked (waiting for it then)."""
        asked = self._asked
        if asked is None:
            return
        if self.config.live:
            if not asked.answer.done():
                return
            if asked.kind == "audit" and not self._quiet_before:
                # an audit is asked on a quiet board and may take the lock over: not while a hand
                # is over the board, where the hand detector would start over under it
                return
        elif self._frames < asked.frame_no + self.config.search.file_answer_frames:
            return
        self._asked = None
        answer = asked.answer.result()
        if asked.kind == "anchor":
            self._take_anchor(t, asked, answer.value)
            return
        self.searches += 1
        self.search_s += answer.seconds
        found: FoundBoard | None = answer.value
        if asked.kind == "acquire":
            self._take_acquired(frame, gray, t, asked, found, answer.seconds)
        elif self.lock is not None:
            self._take_better(frame, gray, t, found, doubted=asked.kind == "recheck", stirred=asked.stirred)

    def _take_acquired(self, frame: np.ndarray, gray: np.ndarray, t: float, asked: _Asked,
                       found: FoundBoard | None, cost: float) -> None:
        """A live source's search with no lock: the next one waits cost / live_share of frame time;
        the board found is taken if its lattice still shows on this frame (the camera may have
        moved while it was searched)."""
        share = self.config.search.live_share
        if share is not None:
            self._next_search_t = asked.t + cost / share
        if found is None or self.lock is not None:
            return
        if _verify(gray, found.homography, found.polarity).score < self.config.lock.lattice_share * found.score:
            return
        self._lost_frames = 0
        self._take_found(frame, t, found)

    def _take_better(self, frame: np.ndarray, gray: np.ndarray, t: float, found: FoundBoard | None,
                     doubted: bool = False, stirred: bool = False) -> None:
        """A search's lattice replaces the lock if, judged on this frame, it is clearly better
        (`_better_than_lock`). Red stays on the side it was unless the lock was doubted (its
        orientation then says nothing). A doubted lock not replaced is searched again at doubling
        intervals. `stirred`: the board was not quiet since the searched frame, so the search's
        reading of the pieces may be stale: every point is read again instead."""
        assert self.lock is not None and self.h is not None
        doubt = self.config.doubt
        here = _verify(gray, self.h, self.lock.polarity).score
        better = None if found is None else self._better_than_lock(found, gray, here)
        if better is None:
            if doubted:
                self._recheck_wait = min(doubt.max_recheck_s, 2.0 * self._recheck_wait)
                self._recheck_t = t + self._recheck_wait
            return
        if not doubted:
            kept = same_orientation(better.homography, self.h)
            if not np.array_equal(kept, better.homography):
                better = _turned_half_round(better, kept)
        if stirred:
            better = FoundBoard(better.homography, better.support, better.polarity, better.score, None)
        self._replace_lock(frame, t, better)

    def _better_than_lock(self, found: FoundBoard, gray: np.ndarray, here: float) -> FoundBoard | None:
        """`found` if, tested as the lock is on this frame's grey, it scores `better_by` more than the
        lock's `here`, reads no more than `fewer_pieces_slack` fewer pieces surely, and is not the
        lock found again; else None. (The search's own score is taken on its own grey and polarity:
        a lens-distorted board can score a lattice a sixth of a spacing off that way above the
        right lock.)"""
        assert self.h is not None and self.lock is not None
        doubt = self.config.doubt
        if self._reads_fewer_pieces(found):
            return None
        if _verify(gray, found.homography, self.lock.polarity).score < here + doubt.better_by:
            return None
        if same_lattice(found.homography, self.h, doubt.same_within):
            # the lock itself, found again or fitted a little differently: taking it gains
            # nothing, while every disc's offset, measured on a lattice a little different, would
            # jump (a lattice a hundredth of a spacing from the lock, taken on the frame a hand
            # left, can make an untouched disc read as knocked a fifth of a spacing off; on a
            # lens-distorted board audits and the lock's own refits would take turns between two
            # fits an eighth of a spacing apart, and a touch be called on a piece nobody touched)
            return None
        return found

    def _take_anchor(self, t: float, asked: _Asked, proposal: AnchorProposal) -> None:
        """A check on the known position, applied if the lock is where it was when asked."""
        if self.lock is None or self.h is None or asked.h is None:
            return
        if geo.points_moved(asked.h, self.h) >= self.config.doubt.new_lattice_after:
            return      # the lock moved on since: the proposal judged another lattice
        moved = self._seat(t, proposal, self.config.anchor)
        if moved is not None:
            self._anchored.append(moved)

    def _reads_fewer_pieces(self, found: FoundBoard) -> bool:
        """A lattice found in place of a doubted lock reads fewer points surely as pieces than the
        lock does: its lines may show more clearly (the edge of a far, foreshortened board, a line
        off), but the pieces stand on the lock's points (the true lattice, its far lines faint
        under sensor noise, would be replaced by one well off at the far end, and the game lost).
        One piece fewer is no evidence: a lock a quarter of a spacing off may read one disc surely
        that the true lattice reads just short of sure."""
        if found.reads is None or self.lock is None:
            return False
        return _sure_pieces(found.reads.probs) < _sure_pieces(self.probs) - self.config.doubt.fewer_pieces_slack

    def _slide_check_due(self, t: float) -> bool:
        if self._slid_t is None:
            return False
        waited = t - self._slid_t
        doubt = self.config.doubt
        return (self._quiet_before and waited >= doubt.after_slide_s) or waited >= doubt.after_slide_max_s

    def _audit_due(self, t: float) -> bool:
        return self._quiet_before and self._audit_t is not None and t >= self._audit_t

    def _search_due(self, t: float) -> bool:
        if not self.config.live:
            return self._lost_frames % self.config.search.relock_every_frames == 0
        return self._next_search_t is None or t >= self._next_search_t

    def _timed_acquire(self, frame: np.ndarray, t: float) -> bool:
        """A board search on the frame path (a file with no lock), its cost counted."""
        start = time.perf_counter()
        found = self._acquire(frame, t)
        self.searches += 1
        self.search_s += time.perf_counter() - start
        return found

    def _find_board(self, frame: np.ndarray, t: float) -> bool:
        """No lock: a file searches this frame when a search is due (frames wait for it anyway); a
        live source starts a search on the search thread, taken when ready (_take_answer)."""
        if not self.config.live:
            return self._search_due(t) and self._timed_acquire(frame, t)
        if self._asked is None and self._search_due(t):
            self._ask_search("acquire", frame)
        return False

    # ------------------------------------------------------------------ reading points
    def _take_looks(self, idx: np.ndarray, crops: np.ndarray) -> None:
        """Each point's look (vision.looks) from its crops; a new array, so that Observations
        handed out before keep the looks they had."""
        looks = disc_looks(crops)
        if self.looks is None or self.looks.shape != (NUM_POINTS, looks.shape[1]):
            self.looks = np.zeros((NUM_POINTS, looks.shape[1]), np.float32)
        else:
            self.looks = self.looks.copy()
        self.looks[idx] = looks

    def _moved_to_new_lattice(self) -> None:
        """The lock moved to another lattice of its own (LockDoubtConfig.new_lattice_after)."""
        self.lattices += 1
        self._forget_discs()

    def _forget_discs(self) -> None:
        """A new lattice: the disc meter's last fits were measured against another one."""
        if self._discs is not None:
            self._discs.forget()

    def _fresh_meter(self) -> "DiscMeter":
        """A disc meter for a new lattice: the reader's (the set's disc radius it learnt kept), its
        fits forgotten; a copy, so that a search thread may use it while the frames go on."""
        import copy

        from .disc import DiscMeter
        meter = DiscMeter(self.config.discs) if self._discs is None else copy.deepcopy(self._discs)
        meter.forget()
        return meter

    def _disc_offsets(self, frame: np.ndarray, idx: np.ndarray, probs: np.ndarray, model_offsets: np.ndarray) -> np.ndarray:
        """Offsets measured on the discs themselves (vision.disc): the model's estimate is 2-3x short."""
        from .disc import DiscMeter
        assert self._clf is not None and self.h is not None, "disc offsets are measured on a locked, classified board"
        if self._discs is None:
            self._discs = DiscMeter(self.config.discs)
        return _measure_discs(self._discs, self._clf, frame, self.h, idx, probs, model_offsets)

    # ------------------------------------------------------------------ the frame path
    def process(self, frame_bgr: np.ndarray, t: float, frame_index: int) -> Observation:
        """One video frame -> Observation (pose None while the board is not found)."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError(f"frame {frame_index}: expected an HxWx3 BGR image, got "
                             f"{getattr(frame_bgr, 'shape', type(frame_bgr))}")
        start = time.perf_counter()
        try:
            return self._process(frame_bgr, t, frame_index)
        finally:
            if time.perf_counter() - start > self.config.search.frame_budget_s:
                self.frames_over_budget += 1

    def _process(self, frame_bgr: np.ndarray, t: float, frame_index: int) -> Observation:
        if self.camera is not None:
            frame_bgr = self.camera.undistort(frame_bgr)
        idle = self._idle_frame(frame_bgr, t, frame_index)
        if idle is not None:
            return idle
        obs = self._look(frame_bgr, t, frame_index)
        self._keep_static_ref(frame_bgr, t, obs)
        return obs

    # ------------------------------------------------------------------ frames that show no change
    def _static_view(self, frame_bgr: np.ndarray) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
        """Block means (vision.config.StaticConfig) of the board and a spacing around it: the
        blocks' box in the frame and their (rows, cols, 3) float32 means; None when the board's
        box is too small to judge."""
        assert self.h is not None
        b = self.config.static.block_px
        ring = geo.apply_h(self.h, np.array([[-1.0, -1.0], [9.0, -1.0], [9.0, 10.0], [-1.0, 10.0]]))
        H, W = frame_bgr.shape[:2]
        x0, y0 = max(0, int(ring[:, 0].min()) // b * b), max(0, int(ring[:, 1].min()) // b * b)
        x1 = min(W // b * b, (int(np.ceil(ring[:, 0].max())) // b + 1) * b)
        y1 = min(H // b * b, (int(np.ceil(ring[:, 1].max())) // b + 1) * b)
        if x1 - x0 < 4 * b or y1 - y0 < 4 * b:
            return None
        crop = frame_bgr[y0:y1, x0:x1]
        means = cv2.resize(crop, ((x1 - x0) // b, (y1 - y0) // b), interpolation=cv2.INTER_AREA)
        return (x0, y0, x1, y1), means.astype(np.float32)

    def _idle_frame(self, frame_bgr: np.ndarray, t: float, frame_index: int) -> Observation | None:
        """The last observation again, at this frame's time, when this frame shows no change from
        the last frame looked at and nothing waits to be done on it (StaticConfig); else None."""
        ref = self._static_ref
        cfg = self.config.static
        if (ref is None or self.lock is None or self.h is None or t - self._static_t >= cfg.max_idle_s
                or self._asked is not None or self._adapting is not None or self._anchor_board is not None
                or self._slid_t is not None or self.dirty.any() or t <= self._look_again_until
                or not self._quiet_before or self._audit_due(t)
                or (self._recheck_t is not None and t >= self._recheck_t) or not self.hands.can_idle()):
            return None
        view = self._static_view(frame_bgr)
        if view is None or view[0] != ref[0] or float(np.abs(view[1] - ref[1]).max()) >= cfg.max_change:
            return None
        hs = self.hands.idle(t)
        assert hs is not None
        self._frames += 1
        self._frame, self._t = frame_bgr, t
        self.frames_idle += 1
        self._watch.unquiet_too_long(t, True)
        return Observation(t=t, frame_index=frame_index, pose=_pose(self.h, self.confidence), quiet=True,
                           occluded=hs.hidden.copy(), probs=self.probs.copy(), offset=self.offset.copy(),
                           looks=self.looks, lattice=self.lattices)

    def _keep_static_ref(self, frame_bgr: np.ndarray, t: float, obs: Observation) -> None:
        """After a frame looked at: on a quiet locked board, its block means are what later frames
        are compared with (StaticConfig); otherwise there is nothing to compare with."""
        self._static_ref = None
        if self.config.static.block_px <= 0 or not obs.quiet or self.h is None or self.lock is None:
            return
        self._static_ref = self._static_view(frame_bgr)
        self._static_t = t

    def _look(self, frame_bgr: np.ndarray, t: float, frame_index: int) -> Observation:
        """One frame looked at: the lock checked, the hands watched, the points that changed read."""
        gray = to_gray(frame_bgr)
        self._frames += 1
        self._frame, self._t = frame_bgr, t
        self._take_answer(frame_bgr, gray, t)
        self._take_fit()
        hidden_prev = self._hidden
        if self.lock is not None:
            res = self.lock.check(gray, hidden_prev, hand_seen=self.hands.board_verified())
            if res.ok:
                jumped = self.h is not None and geo.points_moved(self.h, res.homography) >= self.config.doubt.new_lattice_after
                self.h = res.homography
                if jumped:
                    self._moved_to_new_lattice()
                self.confidence = 0.8 * self.confidence + 0.2 * min(1.0, res.support)
                if res.slid:
                    self._slid_t = t
                self._ask_checks(frame_bgr, gray, t, res.slid)
            else:
                self._lose_lock()
        if self.lock is None:
            if self._find_board(frame_bgr, t):
                self._lost_frames = 0
            else:
                self._lost_frames += 1
                return Observation(t=t, frame_index=frame_index, pose=None, quiet=False,
                                   occluded=np.ones(NUM_POINTS, bool), probs=self.probs.copy(),
                                   offset=self.offset.copy(), lattice=self.lattices)
        assert self.h is not None   # locked (kept or just acquired)
        hs = self.hands.update(frame_bgr, self.h, t)
        self._hidden = hs.hidden
        self._quiet_before = hs.quiet
        if self._asked is not None and self._asked.frame_no < self._frames and not hs.quiet:
            self._asked.stirred = True
        self.dirty |= hs.hidden | hs.moving
        if hs.quiet and self.dirty.any() and self._clf is not None:
            idx = np.flatnonzero(self.dirty)
            reads = self._clf.run(frame_bgr, self.h, idx)
            self.probs[idx] = reads.probs
            self.offset[idx] = self._disc_offsets(frame_bgr, idx, reads.probs, reads.offsets)
            self._take_looks(idx, reads.crops)
            self._look_again[:] = False
            self._look_again[idx] = True
            self._look_again_until = t + LOOK_AGAIN_S
            self.dirty[:] = False
        elif hs.quiet and self._clf is not None and t <= self._look_again_until:
            idx = np.flatnonzero(self._look_again)
            self._take_looks(idx, self._clf.model.extract(frame_bgr, self.h, points=idx.tolist()))
        elif hs.quiet and self._clf is None:
            self.dirty[:] = False
        if self._watch.unquiet_too_long(t, hs.quiet) and self._known is not None and self._watch.allow(t):
            self._want_anchor(self._known)
        return Observation(t=t, frame_index=frame_index, pose=_pose(self.h, self.confidence), quiet=hs.quiet,
                           occluded=hs.hidden.copy(), probs=self.probs.copy(), offset=self.offset.copy(),
                           looks=self.looks, lattice=self.lattices)

    # ------------------------------------------------------------------ the game's position
    def game_position(self, board: str | None, disagrees: bool = False) -> None:
        """The position the game must show now (90 characters, point-index order; None while
        unknown), and whether the tracker just found the readings disagreeing with it: then the
        lattice is checked against it (AnchorConfig: at most every `every_s`), on the search thread.
        A lock that gives no quiet frame for `unquiet_lock_s` is checked against it too (process)."""
        self._known = board
        if disagrees and board is not None and self._watch.allow(self._t):
            self._want_anchor(board)

    def _want_anchor(self, board: str) -> None:
        """Check the lock against `board` as soon as the search thread is free."""
        self._anchor_board = board
        if self._asked is None:
            self._ask_anchor()

    def take_anchored(self) -> list[AnchorResult]:
        """The re-seatings on the known position made since the last call (oldest first)."""
        out, self._anchored = self._anchored, []
        return out

    def anchor(self, frame_bgr: np.ndarray, board: str, config: AnchorConfig | None = None) -> AnchorResult | None:
        """Re-seat the locked lattice on a position known to stand on the board (the game's start,
        or the recorded position when the readings disagree with it), here and now: the lattice
        shifted by up to `max_shift` points either way, and turned, is scored by how likely `board`
        (90 characters in point-index order) is under it; if none explains the position well, other
        lattices found in the frame are tried the same way (AnchorConfig, the reader's own by
        default). The best replaces the lock when it gains `min_gain_nats`. Every point is read
        again at the next quiet frame. None: kept as it was. (While recording, `game_position`
        asks for the same on the search thread.)"""
        config = config or self.config.anchor
        ids = board_ids(board, "anchor")
        if self._clf is None or self.h is None or self.lock is None:
            return None
        if self.camera is not None:
            frame_bgr = self.camera.undistort(frame_bgr)
        return self._seat(self._t, propose_anchor(frame_bgr, self.h, self._clf.model, ids, config), config)

    def _seat(self, t: float, proposal: AnchorProposal, config: AnchorConfig) -> AnchorResult | None:
        """Move the lock to the proposal's best seat when it gains `min_gain_nats` (AnchorConfig)."""
        assert self.lock is not None
        if proposal.here_share >= config.explained_share:
            self._recheck_t = None    # the known position reads on this lattice: no more doubt
        best = proposal.best
        gain = best.loglik - proposal.here_loglik
        if gain < config.min_gain_nats:
            return None
        self._drop_asked()
        self.h = best.h
        self.lattices += 1
        if best.share >= config.explained_share:
            self._recheck_t = None    # seated on the known position
        self._forget_discs()
        if best.fit is not None:
            self.lock = LockKeeper(best.h, best.fit.polarity, best.fit.support, best.fit.score, config=self.config.lock)
            self._watch.lock_taken(t)
            self.relocks += 1
        else:
            self.lock.h = self.h.copy()
        self.hands.reset()
        self._hidden = None
        self.dirty[:] = True
        return AnchorResult(best.shift_x, best.shift_y, best.turned, round(gain, 1), fresh=best.fit is not None,
                            explained=round(best.share, 3))

    def _turn_lattice(self) -> None:
        """The locked lattice turned 180 degrees on the board: red's end where black's was."""
        assert self.h is not None
        self._drop_asked()
        self.h = self.h @ geo.board_symmetry("rot180")
        self.h /= self.h[2, 2]
        self._forget_discs()
        if self.lock is not None:
            self.lock.h = self.h.copy()

    def turn_board(self) -> bool:
        """Read the board the other way round from now on (the tracker found red's end to be the
        other one at the first move: board.tracker.Tracker._first_move_turned): the lattice turned
        180 degrees on the board, as a new lattice (offsets are not compared across it), every
        point read again at the next quiet frame. False when no board is locked."""
        if self.h is None:
            return False
        self._turn_lattice()
        self.lattices += 1
        self.hands.reset()
        self._hidden = None
        self.probs = np.ascontiguousarray(self.probs[::-1])
        self.offset = np.ascontiguousarray(-self.offset[::-1])
        if self.looks is not None:
            self.looks = np.ascontiguousarray(self.looks[::-1])
        self._look_again = np.ascontiguousarray(self._look_again[::-1])
        self.dirty[:] = True
        self.start_end = StartOrientation(not (self.start_end is not None and self.start_end.turned), "first move",
                                          self.start_end.margin_nats if self.start_end is not None else 0.0)
        return True

    def adapt(self, frame_bgr: np.ndarray, board: str, name: str = "piece set",
              apply_below: float | None = None) -> "PieceSetProfile":
        """Tune the classifier to this piece set and light from a frame whose position is known
        (calibration.piece_profile.fit_from_frame), here and now; every point is read again at the
        next quiet frame. (While recording, `begin_adapt` does the same on a background thread.)

        `apply_below`: apply the fitted profile only when the model alone read the known position's
        views on fewer than this share of them (else the reader stays as it was; `profile` tells)."""
        from calibration.piece_profile import fit_from_frame
        frame_bgr = self._oriented_for(frame_bgr, board)
        assert self._clf is not None and self.h is not None
        profile, _ = fit_from_frame(self._clf.model, frame_bgr, self.h, board, name=name, apply=False)
        self._use_fit(profile, apply_below)
        return profile

    def begin_adapt(self, frame_bgr: np.ndarray, board: str, name: str = "piece set",
                    apply_below: float | None = None) -> None:
        """`adapt`, with the fit (a second or more of CPU) on a background thread so no frame waits
        on it: which end is red's is settled on this frame, the fit's profile is applied at a
        later frame (a live source's once ready, a file's `file_answer_frames` frames later) and
        handed out by `take_adapted`."""
        from calibration.piece_profile import fit_from_frame
        frame_bgr = self._oriented_for(frame_bgr, board)
        assert self._clf is not None and self.h is not None
        job = partial(fit_from_frame, self._clf.model, frame_bgr.copy(), self.h.copy(), board, name=name,
                      apply=False)
        self._adapting = _Adapting(self._learn_worker.submit(job), self._frames, apply_below)

    def take_adapted(self) -> list["PieceSetProfile"]:
        """The fits `begin_adapt` asked for that were taken since the last call."""
        out, self._adapted = self._adapted, []
        return out

    def _take_fit(self) -> None:
        pending = self._adapting
        if pending is None:
            return
        if self.config.live:
            if not pending.answer.done():
                return
        elif self._frames < pending.frame_no + self.config.search.file_answer_frames:
            return
        self._adapting = None
        profile, _ = pending.answer.result().value
        self._use_fit(profile, pending.apply_below)
        self._adapted.append(profile)

    def _use_fit(self, profile: "PieceSetProfile", apply_below: float | None) -> None:
        assert self._clf is not None
        if apply_below is None or profile.fit_accuracy_before < apply_below:
            self._clf.model.set_profile(profile)
        self.dirty[:] = True

    def _oriented_for(self, frame_bgr: np.ndarray, board: str) -> np.ndarray:
        """The frame (undistorted) with the board locked and turned so that `board` (a known
        position) reads the right way: the position settles which end is red's before an
        untuned reading could mislead the fit; where the pieces hardly tell, red ink does
        (vision.start_orientation)."""
        ids = board_ids(board, "adapt")
        if self._clf is None:
            raise ValueError("adapt: this reader was made without a classifier")
        if self.camera is not None:
            frame_bgr = self.camera.undistort(frame_bgr)
        if self.h is None or self.lock is None:
            if not self._acquire(frame_bgr, 0.0):
                raise BoardNotFoundError("adapt: no board found in the frame")
        assert self.h is not None
        crops = self._clf.model.extract(frame_bgr, self.h)
        p = np.clip(self._clf.model.predict(crops), 1e-6, 1.0)
        ll_locked = float(np.log(p[np.arange(NUM_POINTS), ids]).sum())
        ll_turned = float(np.log(p[::-1][np.arange(NUM_POINTS), ids]).sum())
        self.start_end = start_orientation(ll_locked, ll_turned, red_halves(red_score(frame_bgr, self.h)))
        if self.start_end.turned:
            self._turn_lattice()
        return frame_bgr


__all__ = ["AnchorConfig", "AnchorResult", "BoardReader", "LockDoubtConfig", "PhotoReading", "ReaderConfig", "read_image", "read_photo", "reading_doubt", "red_evidence_from_probs"]
