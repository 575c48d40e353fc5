"""Every setting of the video reader in one place: `ReaderConfig`, built of its stages' settings.

Why one object: the reader is made in one place (`xqtrack record`, the demo, the benches, the
tests) and each of its stages (hand detector, lock, disc meter, lattice checks, board searches)
used to take module defaults or loose keyword arguments of its own, so no caller could see, or
set, what the reader ran with. A `ReaderConfig` is passed down whole: `BoardReader(config=...)`
hands `config.hands` to the HandDetector, `config.lock` to every LockKeeper, `config.discs` to
the DiscMeter, and keeps the lattice and search settings for itself. All are frozen dataclasses
whose fields carry their unit in the name or the comment beside it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .disc import DEFAULT_DISC, DiscConfig
from .geometry import CheckedSettings
from .hands import DEFAULT_HANDS, HandConfig
from .lock import DEFAULT_LOCK, LockConfig

__all__ = ["AnchorConfig", "LockDoubtConfig", "ReaderConfig", "SearchConfig", "StaticConfig", "DEFAULT_READER", "LIVE_SEARCH_SHARE"]


@dataclass(frozen=True)
class AnchorConfig(CheckedSettings):
    """How far BoardReader.anchor looks for a lattice that fits a known position, and when the
    reader checks its lattice against the game's position by itself.

    A steep camera can lock the lattice one line off (the board's edge taken for a line): every
    point is then read from its neighbour. `max_shift` (points) is how far off it may be;
    `min_gain_nats` is how much more likely (log-likelihood over the 90 points) the known position
    must be under the shifted lattice than under the current one before it is moved: a real
    change on the board (a knocked piece) moves a few points' likelihood, never the whole board's.
    A lattice found wrong in its spacing too (a steep view, lines of disc rims taken for the
    lattice) is not mended by a shift: when even the best shift leaves the known position read
    on fewer than `explained_share` of the points, up to `fresh_lattices` other lattices are
    searched for in the frame (the finder's next best, the ones tried before passed over) and
    each is shifted and turned the same way; the most likely of all wins.

    When (BoardReader.game_position): the tracker saying the readings disagree with the game's
    position asks for a check, at most once every `every_s` seconds of source time (one costs
    ~0.1-0.2 s of model reads, up to ~2 s with the fresh searches, all off the frame path). A lock
    that has not given one quiet frame `unquiet_lock_s` seconds after it was taken is checked once
    all the same: a lattice a line off (a tiled floor's grout line taken for the board's edge
    line) puts a row of points on the floor and the rest between the discs, the hand detector
    then sees a hand somewhere in every frame, the board is never quiet, and the disagreement a
    quiet board would bring never comes (a lattice one file off can hold for many seconds, and
    the moves made meanwhile are lost)."""

    max_shift: int = 1
    min_gain_nats: float = 40.0
    explained_share: float = 0.9     # of the 90 points read as the known position says
    fresh_lattices: int = 4
    every_s: float = 5.0             # source seconds between two checks asked for by disagreement
    unquiet_lock_s: float = 2.0      # source seconds a new lock may go without a quiet frame before it is checked


@dataclass(frozen=True)
class LockDoubtConfig(CheckedSettings):
    """When a found lattice is doubted, and how it is checked again.

    A noisy or low-contrast frame can hide the true lattice from the search while a wrong one
    (a line off, a wrong spacing) still passes with a weak score; the lock then holds that wrong
    lattice for as long as the camera stays still, and its points lie between the real ones, so
    the board never reads as anything and the hand detector takes half of it for a hand at
    rest. A lock found with a lattice score below `doubt_below` is searched again (its own
    lattice excluded) `recheck_s` seconds of video time later, then at doubling intervals up to
    `max_recheck_s`; a lattice scoring `better_by` more on the same frame than the locked one
    replaces it, unless it reads more than `fewer_pieces_slack` fewer pieces surely or lies within
    `same_within` spacings of the lock (the lock found again). The doubt ends when the locked
    lattice itself scores `doubt_below` or more.

    A lock that followed a slide of the lattice (the camera knocked) is searched again too, on the
    first quiet frame `after_slide_s` after the last slide (or `after_slide_max_s` after it, quiet
    or not): the one fit from a wide window follows a large slide only part of the way, and a
    lock left a third of a spacing off still finds enough of its lines to hold (the board read
    and the hands learnt on such a lock lose the game from there).

    Any lock is audited the same way on quiet frames, `audit_first_s` after it was taken and then
    at doubling intervals up to `audit_max_s`: a search can return a lattice a third of a spacing
    off with a good score (a scale a little wrong), which then holds for the whole game (a
    search a second later finds the true one scoring clearly higher; left alone, discs measured
    off their points on the wrong lock raise false incidents).

    A lock that moves `new_lattice_after` spacings or more in one frame (at the point that moved
    most: following a slide, or a refit putting right a lock a slide left off) is a new lattice:
    offsets measured on it are not compared with those measured before (a knock followed a fifth
    of a spacing short at the far side puts the discs there a quarter off their points on that
    lock, and the refit that puts it right moves them back: measured across it, untouched discs
    read as knocked). The points are not all read again: a lock that has just followed a knock
    may still be off, and a disc read on it then would be measured off its point (and reported
    between points, the hand that then touches it taken for putting it right). The lock's own
    refits move it hundredths of a spacing, up to 0.06 in a frame while a hand hides part of
    the lines (taken for another lattice, such a refit between two settles would hide a real
    knock made in between).

    The pieces spare searches (vision.lock_confirm): once the game's position is known, a due
    audit or recheck is passed over when, on a quiet board read throughout, the known position
    reads on at least AnchorConfig.explained_share of the points and one affine map fitted to the
    discs' measured offsets (at least `confirm_discs` discs, those `confirm_far` or more off their
    points left out) moves no point `confirm_drift` spacings or more: a search could only find the
    same lattice again. A doubted lock so confirmed is doubted no longer. An audit passed over
    doubles its interval as one made; a recheck made counts as the audit due next."""

    doubt_below: float = 0.45        # lattice score (locate's, 0..1)
    better_by: float = 0.12          # lattice score
    recheck_s: float = 1.0
    max_recheck_s: float = 16.0
    after_slide_s: float = 0.3
    after_slide_max_s: float = 2.0
    audit_first_s: float = 1.0
    audit_max_s: float = 16.0
    fewer_pieces_slack: int = 1      # points read surely as pieces
    same_within: float = 0.2         # spacings
    new_lattice_after: float = 0.1   # spacings
    confirm_drift: float = 0.1       # spacings
    confirm_far: float = 0.35        # spacings
    confirm_discs: int = 12          # discs


# Share of each second of frames a live source may spend searching for a board it has not found.
LIVE_SEARCH_SHARE = 0.5


@dataclass(frozen=True)
class StaticConfig(CheckedSettings):
    """When a frame is taken as the last one looked at again, and not looked at.

    Why: in a game the board stands untouched most of the time (players think for seconds or
    minutes), and every frame of it cost the lock check and the hand detector (7-8 ms at 720p on
    one core, most of a frame's cost after decoding). A frame whose board and surroundings show
    no change from the last frame looked at (block means of `block_px` x `block_px` pixels over
    the board and a ring of one spacing around it, none off by `max_change` grey levels or more
    in any colour) while the board is quiet, nothing is hidden, no point waits to be read and no
    board check is due, cannot show a hand: a hand, its shadow or a moved disc changes whole
    blocks by tens of levels as it comes in (47-146 on the rendered views), while sensor noise
    and a video codec's grain average out over a block (3-6 levels between still frames of a
    lit or noisy view; a heavily compressed view's 12-30 keeps every frame looked at). Such a
    frame repeats the last observation with its own time. At least one frame every
    `max_idle_s` seconds is looked at all the same (the lock's refit, the background's slow
    drift with the light). `block_px` 0 turns the check off."""

    block_px: int = 16
    max_change: float = 8.0          # grey levels, block mean
    max_idle_s: float = 1.0          # source seconds


@dataclass(frozen=True)
class SearchConfig(CheckedSettings):
    """How board searches are scheduled and kept off the frame path.

    A board search (vision.locate.find_lattice, and the piece reading that judges its lattice)
    costs ~0.1 s on a board seen from above and several seconds on a steep side view, while one
    frame's work (the lock check, the hand detector) must stay within `frame_budget_s`. So every
    search made while a lock exists (an audit, a recheck of a doubted lock, the check after a
    slide, a re-anchoring on the known position) runs on one background thread
    (vision.search_worker) while the current lock and the hand detector keep serving frames, and
    its answer is applied later, checked again against the frame of that moment:

    - a file (`live_share` None) takes the answer `file_answer_frames` frames after it was asked
      for, waiting for it then if it is not ready, so a file's run never depends on the machine's
      speed; while no board is locked it searches on the frame path every `relock_every_frames`
      frames, as frames wait for it anyway;
    - a live source (`live_share` set) takes the answer at the first frame after it is ready (an
      audit's, which may take the lock over, at the first quiet one: not under a hand), and
      its searches for a board not yet locked go to the thread too, started at most so often that
      they take `live_share` of each second of frames (a camera that shows no board then costs
      the machine only that share).

    `frame_budget_s` is the most work one frame may take on the recorder's thread, the figure the
    frame path is held to at 720p on one core (BoardReader counts the frames over it:
    `frames_over_budget`). `worker_nice`: how much lower (Linux nice steps) the search thread runs
    than the frame path, so that on one shared core the frames come first.

    `quick_acquire`: a live source's search for a board not yet locked is find_lattice's quick
    search (its first pass; the whole search where that finds nothing). A board that shows itself
    clearly is found at the same pass; one that does not (a steep side view: 0.7 s of CPU against
    3.5 s) is locked on the first pass's lattice, and the whole search checks it on the search
    thread while the lock serves frames: a second later as a doubted lock's recheck where its
    score is under LockDoubtConfig.doubt_below (= the search's `clear_board`), and in any case as
    the audit of a new lock (`audit_first_s`, unless the known position reads on it). On a busy
    machine the board is locked while there is still play to follow."""

    relock_every_frames: int = 3
    live_share: float | None = None
    file_answer_frames: int = 1
    frame_budget_s: float = 0.040
    worker_nice: int = 10
    quick_acquire: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.live_share is not None and not 0.0 < self.live_share <= 1.0:
            raise ValueError(f"SearchConfig.live_share = {self.live_share!r}: must be in (0, 1]")
        if self.relock_every_frames < 1 or self.file_answer_frames < 1:
            raise ValueError("SearchConfig.relock_every_frames and file_answer_frames must be at least 1")


@dataclass(frozen=True)
class ReaderConfig:
    """Everything BoardReader runs with, passed down to its stages whole (see the module docstring)."""

    hands: HandConfig = DEFAULT_HANDS
    lock: LockConfig = DEFAULT_LOCK
    discs: DiscConfig = DEFAULT_DISC
    anchor: AnchorConfig = AnchorConfig()
    doubt: LockDoubtConfig = LockDoubtConfig()
    search: SearchConfig = SearchConfig()
    static: StaticConfig = StaticConfig()

    @property
    def live(self) -> bool:
        """Set up for a live source (a camera, a stream): answers are taken when ready."""
        return self.search.live_share is not None

    @classmethod
    def for_source(cls, live: bool, share: float = LIVE_SEARCH_SHARE) -> "ReaderConfig":
        """The default settings for a file (`live` False) or a live source searching at most
        `share` of each second of frames while no board is locked."""
        return cls(search=SearchConfig(live_share=share if live else None, quick_acquire=live))


DEFAULT_READER = ReaderConfig()
