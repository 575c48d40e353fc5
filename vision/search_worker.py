"""One background thread for the reader's board searches, so that no frame waits on one.

Why a thread (not a process, not slices of frames): a board search is a few calls into OpenCV
(line segments, warps, remaps) and onnxruntime (reading the pieces on a candidate lattice), which
release the GIL for nearly all of their time, and it needs the frame and the reader's classifier,
which a process would have to be sent or load again. A job is any callable; its answer comes back
as a `concurrent.futures.Future` holding the value and the wall seconds the job took, so the
reader decides when to look at it (when it is ready, or at a fixed frame for a file) and counts
the cost itself. The thread is a one-thread ThreadPoolExecutor's: it starts at the first job, ends
when the worker is dropped, and the interpreter lets its job finish before exiting (native code
still running in a thread at exit aborts the process). It runs `nice` steps below the frame path
(Linux) so that on one shared core the frames come first.
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

__all__ = ["SearchWorker", "Timed"]

T = TypeVar("T")


@dataclass(frozen=True)
class Timed(Generic[T]):
    """A job's value and the wall seconds it took on the search thread."""

    value: T
    seconds: float


def _timed(job: Callable[[], T]) -> Timed[T]:
    start = time.perf_counter()
    value = job()
    return Timed(value, time.perf_counter() - start)


class SearchWorker:
    """Runs submitted jobs one at a time, in order, on one background thread."""

    def __init__(self, nice: int = 10) -> None:
        self.nice = nice
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, job: Callable[[], T]) -> "Future[Timed[T]]":
        """Queue `job`; its Future holds Timed(value, seconds), or the exception it raised."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xqtrack-search",
                                            initializer=_lower_priority, initargs=(self.nice,))
        return self._pool.submit(_timed, job)


def _lower_priority(steps: int) -> None:
    """Run the calling thread `steps` nice steps lower (Linux sets niceness per thread); where the
    system does not allow it, the thread keeps the frame path's priority."""
    if steps <= 0:
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + steps))
    except (AttributeError, OSError):
        pass
