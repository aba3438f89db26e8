"""The call's clock. A call is a timeline in milliseconds from its start; the parties and the loop read and advance
it only through this interface, so one loop serves both:

- ``VirtualClock``: simulated time. ``advance_to`` jumps instantly, so an in-process conversation runs much faster
  than real time while every timestamp stays what it would be on a real call (docs/architecture.md, decision 7).
- ``RealClock``: wall time since the call started; ``advance_to`` sleeps until then. For agents that stream in real
  time over a wire.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    realtime: bool  # False: time moves only when a party advances it (no waiting on a virtual clock)

    @property
    def now_ms(self) -> float: ...

    async def advance_to(self, t_ms: float) -> None:
        """Return when the call's time has reached ``t_ms`` (no-op when it already has)."""
        ...

    async def sleep(self, ms: float) -> None: ...


class VirtualClock:
    realtime = False

    def __init__(self, start_ms: float = 0.0) -> None:
        self._now = start_ms

    @property
    def now_ms(self) -> float:
        return self._now

    async def advance_to(self, t_ms: float) -> None:
        self._now = max(self._now, t_ms)

    async def sleep(self, ms: float) -> None:
        self._now = self._now + ms


class RealClock:
    realtime = True

    def __init__(self) -> None:
        self._t0 = time.perf_counter()

    @property
    def now_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000.0

    async def advance_to(self, t_ms: float) -> None:
        delay = (t_ms - self.now_ms) / 1000.0
        if delay > 0:
            await asyncio.sleep(delay)

    async def sleep(self, ms: float) -> None:
        await asyncio.sleep(max(0.0, ms) / 1000.0)
