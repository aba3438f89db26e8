"""The call loop: one loop for every agent and channel. In-process turn-based agents on a virtual clock, a text
channel, and a streaming agent on a real clock that talks while the caller talks and stops when interrupted."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

import numpy as np
import pytest

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.call import (
    AgentSpeech,
    AgentTurnEnd,
    CallSettings,
    Frame,
    RealClock,
    TurnBasedSession,
    UserSpeech,
    VirtualClock,
    run_call,
)
from evalkit.call.channel import audio_frames
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.records import AudioClip

RATE = 8000


def tone(ms: float, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(RATE * ms / 1000.0)) / RATE
    return (0.1 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@dataclass
class Said:
    text: str
    end_call: bool = False


class ScriptCaller:
    """Says its lines in order, whatever the agent says; hangs up after the last."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = deque(lines)
        self.heard: list[str] = []

    def first_utterance(self) -> Said:
        return Said(self.lines.popleft())

    def respond(self, agent_text: str) -> Said:
        self.heard.append(agent_text)
        return Said(self.lines.popleft()) if self.lines else Said("bye", end_call=True)


class ToneChannel:
    """Every utterance is a tone as long as its words (100 ms each), sent untouched."""

    def say(self, text: str, index: int, start_ms: float) -> UserSpeech:
        samples = tone(100.0 * len(text.split()))
        return UserSpeech(
            start_ms=start_ms,
            end_ms=start_ms + len(samples) / RATE * 1000.0,
            frames=lambda frame_ms: audio_frames(samples, RATE, frame_ms),
        )


def context() -> AgentContext:
    return AgentContext("toy", "2026-01-01 09:00", ToolBox(ToolExecutor(ToolRegistry(), {})))


class EchoAgent:
    """A turn-based in-process agent: answers with 'you said N samples' and a 2 s tone."""

    def __init__(self, reply_ms: float = 2000.0) -> None:
        self.reply_ms = reply_ms
        self.heard: list[int] = []

    def _reply(self, text: str) -> AgentReply:
        return AgentReply(text=text, audio=AudioClip(samples=tone(self.reply_ms), sample_rate=RATE), compute_ms=50.0)

    def start(self, ctx: AgentContext) -> AgentReply:
        return self._reply("hello")

    def respond(self, clip: AudioClip) -> AgentReply:
        self.heard.append(len(clip.samples))
        reply = self._reply(f"you said {len(clip.samples)} samples")
        reply.heard_text = f"{len(clip.samples)} samples"
        return reply


def run(coro):
    return asyncio.run(coro)


def test_turn_based_agent_on_virtual_clock_places_turns_on_the_timeline() -> None:
    agent = EchoAgent()
    clock = VirtualClock()
    caller = ScriptCaller(["one two three", "four five"])
    settings = CallSettings(user_reaction_ms=400.0)
    outcome = run(run_call(caller, TurnBasedSession(agent, clock), ToneChannel(), context(), clock, settings))
    roles = [t.role for t in outcome.turns]
    assert roles == ["assistant", "user", "assistant", "user", "assistant", "user"]
    assert outcome.end_reason == "user_end_call"
    greeting, user1, reply1 = outcome.turns[:3]
    assert (greeting.start_ms, greeting.end_ms) == (0.0, 2000.0)
    assert (user1.start_ms, user1.end_ms) == (2400.0, 2700.0)  # reaction, then 3 words of 100 ms
    assert reply1.start_ms == 2750.0  # the agent speaks after its compute time
    assert user1.heard_text == "2400 samples" and agent.heard == [2400, 1600]
    assert caller.heard == ["you said 2400 samples", "you said 1600 samples"]
    assert (0, "assistant") in outcome.audio.clips


def test_frames_reassemble_to_the_same_turn_for_a_turn_based_agent() -> None:
    whole, framed = EchoAgent(), EchoAgent()
    for agent, frame_ms in ((whole, None), (framed, 20.0)):
        clock = VirtualClock()
        caller = ScriptCaller(["one two three"])
        run(
            run_call(
                caller, TurnBasedSession(agent, clock), ToneChannel(), context(), clock, CallSettings(frame_ms=frame_ms)
            )
        )
    assert whole.heard == framed.heard == [2400]


def test_barge_in_cuts_the_agent_turn_and_records_it() -> None:
    agent = EchoAgent(reply_ms=3000.0)
    clock = VirtualClock()
    settings = CallSettings(barge_in_after_ms=500.0)
    outcome = run(
        run_call(ScriptCaller(["hi"]), TurnBasedSession(agent, clock), ToneChannel(), context(), clock, settings)
    )
    reply = outcome.turns[2]
    assert reply.end_ms - reply.start_ms == 500.0
    assert len(outcome.audio.clips[(2, "assistant")].samples) == RATE // 2
    cut = [e for e in reply.effects if e.type == "barge_in"]
    assert cut and cut[0].params == {"agent_spoken_ms": 500.0, "agent_unspoken_ms": 2500.0}
    next_user = outcome.turns[3]
    assert next_user.start_ms == reply.end_ms + 400.0


def test_an_agent_failure_ends_the_call_as_an_error_with_its_reason() -> None:
    class Broken(EchoAgent):
        def respond(self, clip: AudioClip) -> AgentReply:
            raise ConnectionError("agent went away")

    clock = VirtualClock()
    outcome = run(run_call(ScriptCaller(["hi"]), TurnBasedSession(Broken(), clock), ToneChannel(), context(), clock))
    assert outcome.end_reason == "error" and outcome.error == "ConnectionError: agent went away"
    assert [t.role for t in outcome.turns] == ["assistant", "user"]


class StreamingAgent:
    """A real-time agent: streams 20 ms chunks, starts answering after 100 ms of caller audio (talking over the
    caller), and stops streaming when interrupted."""

    def __init__(self, chunks: int = 10) -> None:
        self.chunks = chunks
        self.frames = 0
        self.fill_frames = 0
        self.interrupted = 0
        self.queue: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None
        self.stop = asyncio.Event()

    async def _stream(self, text: str, n: int, end_turn: bool = True) -> None:
        for i in range(n):
            if self.stop.is_set():
                break
            await self.queue.put(AgentSpeech(text=f"{text}{i}", audio=AudioClip(samples=tone(20.0), sample_rate=RATE)))
            await asyncio.sleep(0.02)
        if end_turn:
            await self.queue.put(AgentTurnEnd())

    async def open(self, ctx: AgentContext) -> None:
        self.task = asyncio.ensure_future(self._stream("g", 2))

    async def send(self, frame: Frame) -> None:
        if frame.fill:  # the open line between the caller's utterances (evalkit.call.line)
            self.fill_frames += 1
            return
        self.frames += 1
        if self.frames == 5:  # 100 ms into the caller's turn: a backchannel while the caller talks
            await self.queue.put(AgentSpeech(text="mhm", audio=AudioClip(samples=tone(20.0), sample_rate=RATE)))

    async def end_of_turn(self) -> None:
        self.stop.clear()
        self.task = asyncio.ensure_future(self._stream("r", self.chunks))

    async def interrupt(self) -> None:
        self.interrupted += 1
        self.stop.set()

    async def receive(self):
        return await self.queue.get()

    async def close(self) -> None:
        if self.task:
            self.task.cancel()


def test_streaming_agent_talks_while_the_caller_talks_on_a_real_clock() -> None:
    agent = StreamingAgent(chunks=5)
    clock = RealClock()
    settings = CallSettings(frame_ms=20.0, user_reaction_ms=50.0)
    outcome = run(run_call(ScriptCaller(["one two three"]), agent, ToneChannel(), context(), clock, settings))
    user, reply = outcome.turns[1], outcome.turns[2]
    assert agent.frames == 15  # 300 ms of caller audio in 20 ms frames
    assert agent.fill_frames > 0  # and the line stayed open around it (silence frames)
    assert reply.start_ms < user.end_ms  # the backchannel overlapped the caller's speech
    assert reply.intended_text.split() == ["mhm", "r0", "r1", "r2", "r3", "r4"]
    assert outcome.turns[-1].start_ms >= user.end_ms + 5 * 20.0  # paced in real time
    assert outcome.end_reason == "user_end_call"


def test_a_streaming_agent_is_told_to_stop_when_the_caller_barges_in() -> None:
    agent = StreamingAgent(chunks=50)  # a 1 s answer
    clock = RealClock()
    settings = CallSettings(frame_ms=20.0, user_reaction_ms=50.0, barge_in_after_ms=200.0)
    outcome = run(run_call(ScriptCaller(["hi there"]), agent, ToneChannel(), context(), clock, settings))
    reply = outcome.turns[2]
    assert agent.interrupted == 1
    assert len(reply.intended_text.split()) < 30  # it stopped well before its 50 chunks
    assert reply.end_ms - reply.start_ms <= 200.0
    assert any(e.type == "barge_in" for e in reply.effects)


def test_a_silent_real_time_agent_is_an_infrastructure_failure() -> None:
    class Silent(StreamingAgent):
        async def end_of_turn(self) -> None:  # never answers
            return None

    clock = RealClock()
    settings = CallSettings(frame_ms=20.0, user_reaction_ms=10.0, agent_timeout_s=0.2)
    outcome = run(run_call(ScriptCaller(["hi"]), Silent(), ToneChannel(), context(), clock, settings))
    assert outcome.end_reason == "error"
    assert "the agent sent nothing for 0.2 s" in (outcome.error or "")


class PoliteStreamingAgent(StreamingAgent):
    """A streaming agent with no backchannel: it speaks only when the caller has finished."""

    async def send(self, frame: Frame) -> None:
        self.frames += not frame.fill


def test_the_max_duration_mid_answer_ends_the_call_like_between_turns() -> None:
    """The limit falls 0.5 s into a 4 s answer to a 2 s caller turn: the agent was conversing, so the call ends as
    max_turns with no error (an infrastructure failure would retry it and hide the agent's result)."""
    agent = PoliteStreamingAgent(chunks=200)
    settings = CallSettings(frame_ms=20.0, user_reaction_ms=50.0, max_duration_s=2.6)
    words = " ".join(["word"] * 20)  # ToneChannel: 100 ms per word
    outcome = run(run_call(ScriptCaller([words, "more"]), agent, ToneChannel(), context(), RealClock(), settings))
    assert outcome.end_reason == "max_turns" and outcome.error is None
    assert [t.role for t in outcome.turns] == ["assistant", "user"]  # the cut-off answer is not a turn


def test_an_agent_holding_the_floor_for_half_the_call_fails_it() -> None:
    """A monologue (here a greeting that never ends) is not a conversation: at the limit it fails the call, saying
    how long the agent held the floor."""

    class Monologue(PoliteStreamingAgent):
        async def open(self, ctx: AgentContext) -> None:
            self.task = asyncio.ensure_future(self._stream("g", 100_000))

    settings = CallSettings(frame_ms=20.0, user_reaction_ms=50.0, max_duration_s=1.0)
    outcome = run(run_call(ScriptCaller(["hi"]), Monologue(), ToneChannel(), context(), RealClock(), settings))
    assert outcome.end_reason == "error"
    assert "still going at the call's max duration (1 s), after" in (outcome.error or "")
    assert "without yielding the floor" in (outcome.error or "")


@pytest.mark.parametrize("words", [1, 12])
def test_text_channel_turns_last_as_long_as_their_words(words: int) -> None:
    from evalkit.call import TextChannel

    speech = TextChannel(lambda t: t.upper()).say(" ".join(["word"] * words), 1, 1000.0)
    assert speech.end_ms - speech.start_ms == pytest.approx(words / 2.5 * 1000.0)
    assert speech.frames(None)[0].text == " ".join(["WORD"] * words)


def test_each_turn_records_the_hash_of_its_audio() -> None:
    def call() -> list:
        clock = VirtualClock()
        outcome = run(
            run_call(ScriptCaller(["one two"]), TurnBasedSession(EchoAgent(), clock), ToneChannel(), context(), clock)
        )
        return outcome.turns

    first, again = call(), call()
    assert [t.audio_sha256 for t in first] == [t.audio_sha256 for t in again]
    greeting, reply = first[0].audio_sha256["assistant"], first[2].audio_sha256["assistant"]
    assert len(greeting) == 16 and greeting == reply  # both are the same 2 s tone
    assert (
        AudioClip(samples=tone(10.0), sample_rate=RATE).sha256()
        != AudioClip(samples=tone(20.0), sample_rate=RATE).sha256()
    )


class LateDecisionAgent(StreamingAgent):
    """A streaming session that decides its turn is over ``DECIDE_MS`` after its audio and delivers that decision
    ``LATE_MS`` late (a timer that woke late, a loop busy with other calls), saying when it decided (``at_ms``)."""

    DECIDE_MS, LATE_MS = 200.0, 150.0

    def __init__(self, clock: RealClock) -> None:
        super().__init__(chunks=3)
        self.clock = clock
        self.decided: list[float] = []

    async def _stream(self, text: str, n: int, end_turn: bool = True) -> None:
        await super()._stream(text, n, end_turn=False)
        self.decided.append(self.clock.now_ms + self.DECIDE_MS)
        await asyncio.sleep((self.DECIDE_MS + self.LATE_MS) / 1000.0)
        await self.queue.put(AgentTurnEnd(at_ms=self.decided[-1]))


def test_the_caller_reacts_from_when_the_agent_turn_was_decided_not_when_the_loop_heard_of_it() -> None:
    """AgentTurnEnd.at_ms (a wire session's scheduled end of the take-turn silence): the caller's next utterance
    starts its reaction time after that moment, however late the event reached the loop (here 150 ms: the caller
    would otherwise start 150 ms late, the harness's overhead). Exact on the call clock, whatever the load."""
    clock = RealClock()
    agent = LateDecisionAgent(clock)
    # the reaction outlasts the late delivery (a caller cannot start in the past: then it starts when it can)
    settings = CallSettings(frame_ms=20.0, user_reaction_ms=400.0)
    outcome = run(run_call(ScriptCaller(["one two"]), agent, ToneChannel(), context(), clock, settings))
    assert outcome.end_reason == "user_end_call", outcome.error
    users = [t for t in outcome.turns if t.role == "user"]
    assert len(users) == 2 and len(agent.decided) == 2  # the greeting and the reply each decided once
    for decided, user in zip(agent.decided, users, strict=True):
        start = user.start_ms - user.variation.get("line_align_ms", 0.0)  # the shift onto the line's frame grid
        assert start == pytest.approx(decided + 400.0, abs=1e-6)
