"""Counters of the remote requests made on the caller's side of a call (the LLM user simulator, a remote caller
voice): requests sent, answers taken from the cache, HTTP retries.

They are not part of a conversation's record, on purpose: a rerun served from the cache makes no request, yet its
conversations are the same, and records must compare equal (``scripts/compare_records.py``). The cell runner counts
each conversation within :func:`job` (``evalkit.cell.run``) and the cell logs the sums as metrics
(``simulator_requests``, ``voice_cache_hits``, ...). A job's counter lives in a context variable, so conversations
running at once (``concurrency``: threads whose calls share one event loop, the simulator called off the loop) each
count only their own: asyncio tasks and ``asyncio.to_thread`` carry the context of the thread that started them.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["count", "job"]

_JOB: ContextVar[Counter[str] | None] = ContextVar("evalkit_usage_job", default=None)
_LOCK = threading.Lock()


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to counter ``name`` of the running job, if any (``n=0`` declares it: a cell that never used it
    still logs a 0)."""
    counts = _JOB.get()
    if counts is not None:
        with _LOCK:
            counts[name] += n


@contextlib.contextmanager
def job() -> Iterator[Counter[str]]:
    """Count what is done inside the block (in this context and the tasks and threads it starts) apart."""
    counts: Counter[str] = Counter()
    token = _JOB.set(counts)
    try:
        yield counts
    finally:
        _JOB.reset(token)
