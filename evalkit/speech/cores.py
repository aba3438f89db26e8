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

__all__ = ["AUTO", "decoder_threads", "process_share", "set_process_share", "usable_cores"]

AUTO = "auto"
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
