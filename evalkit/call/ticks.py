"""Shared wake-ups for the continuous lines of one event loop (evalkit.call.line).

Each open line sends a frame every 20 ms. With a timer per line per frame, N calls on one event loop wake it 50 N
times a second, and each wake-up costs a timer, its heap entry and a trip through the selector (~37 µs of CPU per
frame measured with 32 calls, against ~6 µs when one timer serves them all). So every line's frame grid starts on a
process-wide grid of ``GRID_MS`` (``start_delay_ms``: a line's first frame waits at most that long), and a line
waiting for a time on that grid joins the one timer already set for it (``until``). Times off the grid (the end of
an utterance whose last frame is short, where ``user_speech_stop`` goes out) get a timer of their own, so nothing is
moved: sharing changes when the loop wakes up, never when a frame is due. ``GRID_MS`` divides every frame length a
protocol uses (20 ms Twilio, 20-100 ms PCM), and lines land on its phases spread, so a wake-up serves a share of the
calls, not all of them at once.
"""

from __future__ import annotations

import asyncio
import weakref

from evalkit.call.clock import Clock

GRID_MS = 5.0
ON_GRID_MS = 0.05  # a time this close to a grid point is that point (float rounding of the grid's sums)

# per event loop: grid point -> the futures of the lines waiting for it (one timer sets them all)
_waiting: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, list[asyncio.Future[None]]]] = (
    weakref.WeakKeyDictionary()
)


def start_delay_ms() -> float:
    """How long from now until the next point of the loop's grid (a line's first frame goes out there)."""
    now_ms = asyncio.get_running_loop().time() * 1000.0
    return (-now_ms) % GRID_MS


async def until(clock: Clock, at_ms: float) -> None:
    """Return when the call's time has reached ``at_ms`` (as ``clock.advance_to``), sharing the loop's wake-up with
    the other lines waiting for the same grid point."""
    delay_ms = at_ms - clock.now_ms
    if delay_ms <= 0.0:
        return
    loop = asyncio.get_running_loop()
    slot = (loop.time() * 1000.0 + delay_ms) / GRID_MS
    point = round(slot)
    if abs(slot - point) * GRID_MS > ON_GRID_MS:  # off the grid: a timer of its own, exactly then
        await asyncio.sleep(delay_ms / 1000.0)
        return
    waiting = _waiting.setdefault(loop, {})
    waiters = waiting.get(point)
    if waiters is None:
        waiters = waiting[point] = []
        loop.call_at(point * GRID_MS / 1000.0, _wake, waiting, point)
    mine: asyncio.Future[None] = loop.create_future()  # one per waiter: cancelling a line cancels only its own
    waiters.append(mine)
    await mine


def _wake(waiting: dict[int, list[asyncio.Future[None]]], point: int) -> None:
    for waiter in waiting.pop(point, ()):
        if not waiter.done():
            waiter.set_result(None)
