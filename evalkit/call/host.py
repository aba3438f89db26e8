"""Many real-time calls at once in one process (``concurrency=N``, issue 13 point 5): one event loop, in a thread of
its own, runs every call's I/O; each conversation is driven from a thread of the cell's pool, which hands its call
to the loop and waits for the outcome (so retries, validation and scoring stay plain synchronous code).

Why one shared loop rather than a loop per call thread (measured by ``scripts/bench_transport.py``): a call's I/O is
a 20 ms timer, a small encode and a socket write; with one loop those run back to back in one thread, while N
loops in N threads contend for the GIL, and a thread that wakes for its frame waits up to the interpreter's switch
interval (5 ms) for every other runnable one. The CPU-bound parts of a call (the caller's TTS + perturbation chain,
the simulator, the caller's ASR of the agent) leave the loop for its worker threads (``asyncio.to_thread``).

The garbage collector is the other thing that stops every call at once: a full collection walks every tracked
object of the process, 50-250 ms with the models and libraries loaded and 64 calls' agent chunks in flight
(measured by ``scripts/bench_transport.py``). While a host runs, what exists at its start (modules, models) is
frozen out of the collector's walks (``gc.freeze``) and full collections are made 20× rarer; both are undone at
``close``. Reference counting frees almost everything a call makes; the young generations are collected as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")
FULL_COLLECTION_RARITY = 20  # full collections 20x rarer while real-time calls run (see the module docstring)


@contextlib.contextmanager
def quiet_collector() -> Iterator[None]:
    """What exists now is left out of the collector's walks and full collections are rarer, until the end."""
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], thresholds[2] * FULL_COLLECTION_RARITY)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


class CallHost:
    """An event loop running in a daemon thread until ``close``; ``run(coro)`` runs a call on it from any thread.
    ``threads``: the loop's executor for the calls' off-loop work (at least one per call in flight, so one call's
    long ASR never queues another call's TTS)."""

    def __init__(self, threads: int = 8) -> None:
        self._collector = quiet_collector()
        self._collector.__enter__()
        self._loop = asyncio.new_event_loop()
        self._loop.set_default_executor(ThreadPoolExecutor(max(1, threads), thread_name_prefix="evalkit-call-work"))
        self._thread = threading.Thread(target=self._loop.run_forever, name="evalkit-calls", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the host's loop and wait for its result (from a thread other than the loop's)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        if self._loop.is_closed():
            return

        async def finish() -> None:
            await self._loop.shutdown_default_executor()
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(finish(), self._loop)
        self._thread.join()
        self._loop.close()
        self._collector.__exit__(None, None, None)

    def __enter__(self) -> CallHost:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()
