"""The agent's side of a call, as the loop sees it, and the adapter for in-process turn-based agents.

``AgentSession`` is asynchronous and event-based: the loop sends the caller's frames as they are spoken, marks
the end of the caller's turn, asks the agent to stop (barge-in) and receives the agent's events whenever they
come, so an agent that streams audio, starts talking before the caller has finished, or stops when interrupted
fits behind it (wire agents implement it directly). ``TurnBasedSession`` wraps a synchronous in-process agent
(``start`` / ``respond``, see evalkit.agents.base): it buffers the caller's turn, answers at its end, and moves
the call's clock on by the agent's measured compute time, so latencies stay honest on a virtual clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from evalkit.agents.base import AgentContext
from evalkit.call.clock import Clock
from evalkit.call.events import AgentEvent, AgentSpeech, AgentTurnEnd, Frame
from evalkit.records import AudioClip


class AgentTimeout(RuntimeError):
    """The agent did not answer within its timeout: the call ends as an infrastructure failure."""


class CallOver(Exception):  # a call's ending, not an error
    """The call reached its max duration while the agent was answering: it ends there as ``max_turns``, as it does
    when the limit comes between turns (the agent was conversing; nothing failed)."""


def at_max_duration(max_duration_s: float, now_ms: float, turn_start_ms: float | None) -> Exception:
    """What ends a real-time call whose max duration came while the agent was answering. An agent answering was
    conversing: the call ends at its length (``CallOver``), as between turns. One that has held the floor for half
    the call or more was not (a monologue, or a stream the turn detector cannot split): it fails the call."""
    held_s = (now_ms - turn_start_ms) / 1000.0 if turn_start_ms is not None else 0.0
    if held_s < max_duration_s / 2.0:
        return CallOver()
    return AgentTimeout(
        f"the agent's turn was still going at the call's max duration ({max_duration_s:g} s), "
        f"after {held_s:.1f} s without yielding the floor"
    )


class AgentSession(Protocol):
    async def open(self, context: AgentContext) -> None:
        """Connect; the agent speaks first (EVA-Bench §2.1): its greeting arrives as events."""
        ...

    async def send(self, frame: Frame) -> None:
        """One frame of the caller's speech, in order, as it is spoken."""
        ...

    async def end_of_turn(self) -> None:
        """The caller has stopped speaking."""
        ...

    async def interrupt(self) -> None:
        """The caller talks over the agent: stop speaking (drop what is not yet said)."""
        ...

    async def receive(self) -> AgentEvent:
        """The agent's next event (waits until there is one)."""
        ...

    async def close(self) -> None: ...


class TurnBasedSession:
    """An in-process agent with ``start(context)`` and ``respond(heard)`` behind the event protocol. ``respond``
    receives the caller's whole turn: an ``AudioClip`` on an audio channel, the text on a text channel.

    ``timeout_s``: a wall-clock guard for agents that may hang. A virtual clock cannot time out a synchronous call,
    so with a timeout each ``start`` / ``respond`` runs in a daemon thread and a call that has not returned in time
    raises :class:`AgentTimeout` (the thread is abandoned: Python cannot stop it). None: called inline (no thread,
    the default and the fast path)."""

    def __init__(self, agent: Any, clock: Clock, timeout_s: float | None = None, greets: bool = True) -> None:
        self.agent = agent
        self.clock = clock
        self.timeout_s = timeout_s
        self.greets = greets  # False: the caller speaks first, what ``start`` returns is not said
        self._frames: list[Frame] = []
        self._events: deque[AgentEvent] = deque()
        self._ready = asyncio.Event()

    def _emit(self, reply: Any) -> None:
        self._events.append(
            AgentSpeech(
                text=reply.text,
                audio=reply.audio,
                heard_text=reply.heard_text,
                tool_calls=list(reply.tool_calls),
                compute_ms=reply.compute_ms,
                stt_ms=getattr(reply, "stt_ms", None),
                llm_ms=getattr(reply, "llm_ms", None),
                tts_ms=getattr(reply, "tts_ms", None),
                http_retries=getattr(reply, "http_retries", 0),
                acts=list(getattr(reply, "acts", None) or []),
            )
        )
        self._events.append(AgentTurnEnd(end_call=reply.end_call))
        self._ready.set()

    async def _guarded(self, fn: Callable[[Any], Any], arg: Any) -> Any:
        if self.timeout_s is None:
            return fn(arg)
        return await call_with_timeout(fn, arg, self.timeout_s)

    async def open(self, context: AgentContext) -> None:
        # the greeting opens the call: it starts at the call's time zero (unless the caller is to speak first)
        opening = await self._guarded(self.agent.start, context)
        if self.greets:
            self._emit(opening)

    async def send(self, frame: Frame) -> None:
        self._frames.append(frame)

    async def end_of_turn(self) -> None:
        frames, self._frames = self._frames, []
        reply = await self._guarded(self.agent.respond, _whole_turn(frames))
        await self.clock.sleep(reply.compute_ms)  # the agent speaks once it has computed its answer
        self._emit(reply)

    async def interrupt(self) -> None:
        """A turn-based agent has already produced its whole turn: nothing is left to stop."""

    def interrupted_at(self, delivered: str, undelivered: str, full: str) -> None:
        """Tell the agent where the caller cut into its last utterance (IHBench), when it wants to know."""
        hook = getattr(self.agent, "interrupted", None)
        if hook is not None:
            hook(delivered, undelivered, full)

    async def receive(self) -> AgentEvent:
        while not self._events:
            self._ready.clear()
            await self._ready.wait()
        return self._events.popleft()

    async def close(self) -> None:
        self._events.clear()


def _whole_turn(frames: list[Frame]) -> AudioClip | str:
    """The caller's turn as one piece: the clip (a single frame is passed through untouched) or the text."""
    if frames and frames[0].text is not None:
        return " ".join(f.text or "" for f in frames)
    if len(frames) == 1:
        return AudioClip(samples=frames[0].samples, sample_rate=frames[0].sample_rate)
    samples = np.concatenate([f.samples for f in frames if f.samples is not None]) if frames else np.zeros(0)
    return AudioClip(samples=samples.astype(np.float32), sample_rate=frames[0].sample_rate if frames else 16_000)


async def call_with_timeout(fn: Callable[[Any], Any], arg: Any, timeout_s: float) -> Any:
    """``fn(arg)`` in a daemon thread, awaited up to ``timeout_s`` wall-clock seconds. Not the event loop's default
    executor: ``asyncio.run`` joins its threads on exit, so one hung agent would hang the whole cell."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not done.done():
            done.set_result(value) if ok else done.set_exception(value)

    def work() -> None:
        try:
            ok, value = True, fn(arg)
        except BaseException as exc:  # handed to the awaiting call, which records it as the call's failure
            ok, value = False, exc
        # a timed-out call's loop may be closed by now: nobody waits for this answer any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, ok, value)

    threading.Thread(target=work, name="evalkit-agent-turn", daemon=True).start()
    try:
        return await asyncio.wait_for(done, timeout_s)
    except TimeoutError:
        raise AgentTimeout(f"the agent did not answer within {timeout_s:g} s") from None


def never_spoke(first_speaker: str, greeting_wait_s: float, exc: AgentTimeout) -> str:
    """The one line for an agent that neither greeted nor answered the caller's first line: the waits tried."""
    greeting = {
        "auto": f"no greeting within greeting_wait_s={greeting_wait_s:g} s, then ",
        "caller": "no greeting waited for (first_speaker=caller), then ",
    }.get(first_speaker, "")
    return f"the agent never spoke: {greeting}{exc} after the caller's first line"
