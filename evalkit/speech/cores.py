"""How many threads one decoder may use: the cores this process may run on, divided among the processes that
share them (issue 16 point 8).

A sweep can run several decoders at once: ``workers`` processes inside a cell, and ``n_jobs`` cells side by side
through the joblib launcher. Each Whisper model then gets ``usable cores // processes`` threads (at least one)
instead of every process starting the configured count and oversubscribing the cores. Measured on the 2-core
reference machine (83 caller and agent clips, tiny.en int8): 2 threads decode only ~1.15x faster than 1, so two
single-thread processes do ~1.75x the work of one two-thread process; the transcripts were identical for 1 and 2
threads (CTranslate2's int8 CPU kernels do not depend on the thread count here; tests/test_cores.py checks it), which
is why the thread count is part of neither the cell key nor the transcript cache's key.
"""

from __future__ import annotations

import os

__all__ = ["AUTO", "conversation_workers", "decoder_threads", "process_share", "set_process_share", "usable_cores"]

AUTO = "auto"
# ``workers: auto`` starts a worker process only for a cell that gives each at least this many conversations: a
# worker pays for its start (spawn, import, Whisper and Piper loaded: ~2-4 s measured on the 2-core machine) once, and
# one voice conversation costs ~5-8 s of compute, so with two per worker the start is paid back.
MIN_CONVERSATIONS_PER_WORKER = 2
_SHARE_ENV = "EVALKIT_PROCESS_SHARE"  # inherited by spawned workers and launcher jobs


def usable_cores() -> int:
    """The CPUs this process may run on (a SLURM allocation or ``taskset`` narrows it), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def process_share() -> int:
    """How many decoding processes share this process's cores (1 unless a launcher or a cell said otherwise)."""
    try:
        return max(1, int(os.environ.get(_SHARE_ENV, "1")))
    except ValueError:
        return 1


def set_process_share(processes: int) -> None:
    """Declare that ``processes`` decoding processes (this one included) run on these cores from now on; worker
    processes started afterwards inherit it through the environment."""
    os.environ[_SHARE_ENV] = str(max(1, int(processes)))


def decoder_threads(configured: int | str) -> int:
    """A configured thread count as is; ``"auto"``: this process's fair share of the usable cores."""
    if configured != AUTO:
        return int(configured)
    return max(1, usable_cores() // process_share())


def conversation_workers(configured: int | str, conversations: int, voice: bool, realtime: bool) -> int:
    """The worker processes a cell runs its ``conversations`` on. A number is taken as given. ``"auto"``: one per
    fair share of a core (``usable_cores() // process_share()``) for an in-process voice agent, at most one per
    ``MIN_CONVERSATIONS_PER_WORKER`` conversations; 1 for text (a text call takes milliseconds, a worker's start
    seconds) and for real-time agents (their calls wait on the line; ``concurrency`` overlaps them in one process)."""
    if configured != AUTO:
        return int(configured)
    if not voice or realtime:
        return 1
    cores = max(1, usable_cores() // process_share())
    return max(1, min(cores, conversations // MIN_CONVERSATIONS_PER_WORKER))
