"""Process-wide counters of the remote requests made on the caller's side of a call (the LLM user simulator, a
remote caller voice): requests sent, answers taken from the cache, HTTP retries.

They are not part of a conversation's record, on purpose: a rerun served from the cache makes no request, yet its
conversations are the same, and records must compare equal (``scripts/compare_records.py``). The cell runner takes
the difference of :func:`snapshot` around each conversation (``evalkit.cell.run``), so every worker process reports
its own and the cell logs the sums as metrics (``simulator_requests``, ``voice_cache_hits``, ...).
"""

from __future__ import annotations

import threading
from collections import Counter

__all__ = ["count", "since", "snapshot"]

_COUNTS: Counter[str] = Counter()
_LOCK = threading.Lock()


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to counter ``name`` (``n=0`` declares it, so a cell that never used it still logs a 0)."""
    with _LOCK:
        _COUNTS[name] += n


def snapshot() -> dict[str, float]:
    with _LOCK:
        return {name: float(value) for name, value in _COUNTS.items()}


def since(before: dict[str, float]) -> dict[str, float]:
    """What was counted after ``before`` was taken, every declared counter included (zeros too)."""
    return {name: value - before.get(name, 0.0) for name, value in snapshot().items()}
