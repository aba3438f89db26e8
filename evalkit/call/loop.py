"""The call loop: one conversation between a caller (the simulator behind a channel) and an agent session, on a
clock. The only place that holds both the agent and the simulator.

The loop is the same for every agent and every channel. Who opens is ``first_speaker``: the agent's greeting, the
caller's first line, or (``auto``, the default) the greeting if the agent's first audio comes within
``greeting_wait_s`` and else the caller's line. Then, turn after turn, the caller's utterance is placed on the
timeline after its reaction time, sent to the agent on the caller's line (evalkit.call.line: on a real clock a frame
every ``frame_ms`` all call long, the channel's silence or ambient bed between utterances), the end of the caller's
turn is signalled, and the agent's events are collected until it ends its turn. Agent speech that arrives while the
caller is still talking is recorded where it happened (an overlap); with ``barge_in_after_ms`` the caller cuts in
once the agent has spoken that long, the agent is told to stop and its turn is cut there (IHBench-style
interruptions build on this). A failure anywhere is an infrastructure failure: recorded with its reason, never
scored as the agent's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from evalkit.agents.base import AgentContext
from evalkit.call.agent_turn import AgentTurn, answering, check_agent_audio, stage_ms, tool_call_records
from evalkit.call.channel import UserSpeech, agent_played, play_agent
from evalkit.call.clock import Clock
from evalkit.call.events import AgentEvent, AgentSpeech, AgentTurnEnd
from evalkit.call.interrupt import Cut, Interrupter
from evalkit.call.line import CallerLine
from evalkit.call.live import ONSET, AudioCutPlanner, PlannedCut, WireCutter, cut_live
from evalkit.call.session import AgentSession, AgentTimeout, CallOver, at_max_duration, never_spoke
from evalkit.domains.base import ToolRegistry
from evalkit.records import AppliedEffect, AudioClip, Turn
from evalkit.redaction import redact_text


@dataclass(frozen=True)
class CallSettings:
    max_user_turns: int = 80  # safety net; EVA-Bench bounds calls by duration (600 s), not turns
    max_duration_s: float = 600.0  # EVA-Bench Table 7: max conversation duration
    user_reaction_ms: float = 400.0
    frame_ms: float | None = None  # caller audio sent in frames of this length; None: the whole turn at once
    barge_in_after_ms: float | None = None  # the caller cuts in after the agent has spoken this long; None: never
    # agent silence this long is an infrastructure failure: real-time calls wait this long for the next event,
    # in-process turn-based agents get a wall-clock guard per start/respond (evalkit.call.session)
    agent_timeout_s: float | None = None
    # who opens the call: the agent (its greeting), the caller (its first line), or auto: the caller waits up to
    # greeting_wait_s for the agent's first audio and opens if none came (an in-process agent always greets)
    first_speaker: FirstSpeaker = "auto"
    greeting_wait_s: float = 3.0


T = TypeVar("T")
FirstSpeaker = Literal["agent", "caller", "auto"]
NOTHING_SENT = "the agent sent nothing"  # the start of a silent agent's timeout reason


class Caller(Protocol):
    """The simulator as the loop uses it."""

    def first_utterance(self) -> Any: ...  # .text, .end_call

    def respond(self, agent_text: str) -> Any: ...


class Channel(Protocol):
    def say(self, text: str, index: int, start_ms: float) -> UserSpeech: ...


@dataclass
class ConversationAudio:
    """Per-turn clips keyed by (turn index, kind); kind in {'user_clean', 'user_heard', 'assistant'}. ``line``: what
    the caller's line carried between utterances (start on the call's timeline, clip): part of what the agent heard."""

    clips: dict[tuple[int, str], AudioClip] = field(default_factory=dict)
    line: list[tuple[float, AudioClip]] = field(default_factory=list)


@dataclass
class CallOutcome:
    turns: list[Turn]
    audio: ConversationAudio
    end_reason: str
    error: str | None = None
    interruptions: dict[str, Any] | None = None  # what the +interrupt condition did (Interrupter.tally); None: none


class Call:
    """One call in progress: the clock, the agent session, and what has been recorded so far."""

    def __init__(
        self,
        session: AgentSession,
        channel: Channel,
        clock: Clock,
        settings: CallSettings,
        registry: ToolRegistry | None = None,
    ) -> None:
        self.session = session
        self.registry = registry  # the call's tools: recorded calls carry their declared write/irreversible flags
        self.channel = channel
        self.clock = clock
        self.settings = settings
        self.turns: list[Turn] = []
        self.audio = ConversationAudio()
        self._early: list[tuple[float, AgentEvent]] = []  # agent events that came while the caller was talking
        self.interrupt_kind = ""  # the IHBench type of the call's interruptions (recorded with each)
        self.cutter: WireCutter | None = None  # IHBench interruptions on a live stream (a real clock)
        self.line = CallerLine(clock, session, channel, settings.frame_ms)

    def _deadline_s(self, start_ms: float | None, interrupted: bool) -> tuple[float | None, bool]:
        """(seconds to wait for the agent's next event, whether the wait ends in a barge-in). Only a real clock
        waits: on a virtual clock a turn-based agent has already delivered its whole turn."""
        if not self.clock.realtime:
            return None, False
        cut = self.settings.barge_in_after_ms
        if cut is not None and start_ms is not None and not interrupted:
            return max(0.0, start_ms + cut - self.clock.now_ms) / 1000.0, True
        return self.settings.agent_timeout_s, False

    async def _next_event(
        self, start_ms: float | None, interrupted: bool, onset_ms: float | None = None
    ) -> AgentEvent | str | None:
        """The agent's next event; None when the caller barged in instead (the agent has been told to stop);
        ONSET when the planned onset of an interjection has come first (the agent is not told anything)."""
        timeout, barge_in = self._deadline_s(start_ms, interrupted)
        if onset_ms is not None:
            until = max(0.0, onset_ms - self.clock.now_ms) / 1000.0
            if timeout is None or until <= timeout:
                try:
                    return await asyncio.wait_for(self.session.receive(), until)
                except TimeoutError:
                    return ONSET
        # A real-time agent that never ends its turn (an endless stream of voiced audio) sends events all the time,
        # so the per-event timeout never fires and the loop's max-duration check (between turns) is never reached:
        # on a real clock the call's own length bounds every wait (a virtual clock only moves when a party moves it).
        left_s = self.settings.max_duration_s - self.clock.now_ms / 1000.0 if self.clock.realtime else None
        overrun = left_s is not None and (timeout is None or left_s < timeout)
        try:
            return await asyncio.wait_for(self.session.receive(), max(0.0, left_s) if overrun else timeout)
        except TimeoutError:
            if overrun:
                raise at_max_duration(self.settings.max_duration_s, self.clock.now_ms, start_ms) from None
            if not barge_in:
                raise AgentTimeout(f"{NOTHING_SENT} for {timeout:.1f} s") from None
            await self.session.interrupt()
            return None

    async def agent_turn(self, live_cuts: bool = True, check: bool = True) -> AgentTurn:
        """Collect the agent's events up to the end of its turn; its speech starts when the first chunk arrives.
        With a ``cutter`` (IHBench on a live stream) the caller plans its cut once the turn's text is in, and the
        turn comes back unfinished at the cut's onset (``planned``), the agent still talking."""
        chunks: list[tuple[float, AgentSpeech]] = []
        start_ms: float | None = None
        interrupted = False
        planned: PlannedCut | None = None
        tried = not (live_cuts and self.cutter is not None)
        # a turn with audio and no text yet is cut on its audio as it plays (evalkit.call.live.AudioCutPlanner)
        listening = AudioCutPlanner(self.cutter) if not tried else None  # type: ignore[arg-type]
        pending, self._early = self._early, []
        while True:
            if pending:
                at, event = pending.pop(0)
            else:
                onset = planned.cut.onset_ms if planned is not None else None
                at, event = None, await self._next_event(start_ms, interrupted, onset)
                if event is ONSET:
                    return AgentTurn(chunks, False, False, self.clock.now_ms, planned)
                if event is None:
                    interrupted = True
                    continue
            if isinstance(event, AgentTurnEnd):
                if planned is not None:  # the agent finished before the planned onset: no cut after all
                    self.cutter.drop(planned)  # type: ignore[union-attr]
                if listening is not None:  # same, planned on the audio (or withdrawn: a one-sentence turn)
                    listening.let_go()
                turn = AgentTurn(chunks, event.end_call, interrupted, event.at_ms or self.clock.now_ms)
                if check:
                    check_agent_audio(turn)  # unusable audio fails the call here, before it is recorded or heard
                return turn
            assert isinstance(event, AgentSpeech)
            chunks.append((at if at is not None else self.clock.now_ms, event))
            if self.clock.realtime and event.audio is not None:  # a live stream plays on the caller's phone now
                play_agent(self.channel, chunks[-1][0], event.audio)
            start_ms = chunks[0][0]
            # the agent's text is in (not the caller's transcript of a turn already over), and the audio has not
            # decided on this turn yet: the cut is planned on the text
            if not tried and event.text and event.text_source != "caller_asr" and not (listening and listening.decided):
                listening.let_go()  # type: ignore[union-attr]  # (not tried: the audio's planner is there)
                tried, listening = True, None
                planned = self.cutter.plan(self, chunks)  # type: ignore[union-attr]
            elif listening is not None and event.audio is not None:
                cut = listening.hear(self, chunks[-1][0], event.audio.duration_s * 1000.0)
                if cut is not None:  # the caller cuts in now, at the start of a word
                    return AgentTurn(chunks, False, False, self.clock.now_ms, cut)

    def record_agent_turn(self, turn: AgentTurn, interruption: Cut | None = None) -> tuple[Turn, float]:
        """The agent's turn on the timeline; returns it and when its audio ends (cut where the caller barged in).
        ``interruption``: an IHBench interruption planned on this turn (the agent stops at its ``stop_ms``)."""
        index = len(self.turns)
        clip = turn.clip
        end_ms = turn.end_ms
        effects: list[AppliedEffect] = []
        cut = self.settings.barge_in_after_ms
        if interruption is not None:
            spoken = interruption.stop_ms - turn.start_ms
            effects.append(
                AppliedEffect(
                    type="interruption",
                    participant="user",
                    turn=index,
                    start_ms=interruption.onset_ms,
                    end_ms=interruption.stop_ms,
                    params={
                        "kind": self.interrupt_kind,
                        "overlap_s": interruption.overlap_s,
                        "yield_ms": interruption.stop_ms - interruption.onset_ms,
                        "cut_char": interruption.cut_char,
                        "delivered": interruption.delivered,
                        "undelivered": interruption.undelivered,
                        "agent_spoken_ms": spoken,
                        "agent_unspoken_ms": end_ms - interruption.stop_ms,
                        **({"corrects": interruption.corrects} if interruption.corrects is not None else {}),
                        # a wire agent: its stop measured on the audio received, and whether it talked over the caller
                        **(
                            {"yielded": interruption.yielded, "measured": "wire"}
                            if interruption.yielded is not None
                            else {}
                        ),
                        # planned on the agent's audio (it sent no text): no word to cut after
                        **({"planned_on": "audio"} if interruption.on_audio else {}),
                    },
                )
            )
            if clip is not None:
                clip = AudioClip(
                    samples=clip.samples[: int(spoken / 1000.0 * clip.sample_rate)], sample_rate=clip.sample_rate
                )
            end_ms = interruption.stop_ms
        elif cut is not None and (turn.interrupted or end_ms - turn.start_ms > cut):
            spoken = min(cut, end_ms - turn.start_ms)
            effects.append(
                AppliedEffect(
                    type="barge_in",
                    participant="user",
                    turn=index,
                    start_ms=turn.start_ms + spoken,
                    end_ms=end_ms,
                    params={"agent_spoken_ms": spoken, "agent_unspoken_ms": end_ms - turn.start_ms - spoken},
                )
            )
            if clip is not None:
                clip = AudioClip(
                    samples=clip.samples[: int(spoken / 1000.0 * clip.sample_rate)], sample_rate=clip.sample_rate
                )
            end_ms = turn.start_ms + spoken
        if clip is not None:
            self.audio.clips[(index, "assistant")] = clip
        # a turn-based agent's turn plays whole on the caller's phone (as far as it was not cut); its echo, if any
        effects += agent_played(self.channel, index, turn.start_ms, end_ms, None if self.clock.realtime else clip)
        compute_ms = sum(s.compute_ms for s in turn.speech)
        calls = [c for s in turn.speech for c in s.tool_calls]
        record = Turn(
            index=index,
            role="assistant",
            intended_text=turn.text,
            text_source=next((s.text_source for s in turn.speech if s.text_source), None),  # type: ignore[arg-type]
            start_ms=turn.start_ms,
            end_ms=end_ms,
            compute_ms=compute_ms,
            stt_ms=stage_ms(turn.speech, "stt_ms"),
            llm_ms=stage_ms(turn.speech, "llm_ms"),
            tts_ms=stage_ms(turn.speech, "tts_ms"),
            http_retries=sum(s.http_retries for s in turn.speech),
            tool_calls=tool_call_records(calls, turn.start_ms - compute_ms, self.registry),
            effects=effects,
            audio={"assistant": "assistant.wav"} if clip is not None else {},
            audio_sha256={"assistant": clip.sha256()} if clip is not None else {},
        )
        self.turns.append(record)
        return record, end_ms

    def record_user_turn(self, text: str, speech: UserSpeech) -> Turn:
        index = len(self.turns)
        for kind, clip in speech.clips.items():
            self.audio.clips[(index, kind)] = clip
        turn = Turn(
            index=index,
            role="user",
            intended_text=text,
            start_ms=speech.start_ms,
            end_ms=speech.end_ms,
            effects=speech.effects,
            seed=speech.seed,
            variation=speech.variation,
            audio=speech.audio_names,
            audio_sha256={kind: clip.sha256() for kind, clip in speech.clips.items()},
        )
        self.turns.append(turn)
        return turn

    async def speak_to_agent(self, speech: UserSpeech) -> None:
        """Send the caller's utterance on its line; agent events arriving meanwhile are kept with their time."""
        if self.line.continuous:
            self._early += await self.line.speak(speech)
        else:
            await self._speak_frames(speech)
        await self.session.end_of_turn()

    async def _speak_frames(self, speech: UserSpeech) -> None:
        """No continuous line (a virtual clock, or a text channel): the line since the caller's last utterance is
        recorded, then its frames (an in-process agent's lead-in first: evalkit.call.line) are sent paced by the
        clock; agent events arriving meanwhile are kept with their time."""
        offset, frames = self.line.heard_frames(speech, self.turns, self.settings.frame_ms)  # lead-in, utterance
        receiving = asyncio.ensure_future(self.session.receive())
        try:
            for frame in frames:
                await self.clock.advance_to(offset)
                await self.session.send(frame)
                offset += frame.duration_ms
                while receiving.done():
                    self._early.append((self.clock.now_ms, receiving.result()))
                    receiving = asyncio.ensure_future(self.session.receive())
            await self.clock.advance_to(speech.end_ms)
            if receiving.done():
                self._early.append((self.clock.now_ms, receiving.result()))
        finally:
            if not receiving.done():
                receiving.cancel()

    async def greeting(self) -> AgentTurn | None:
        """The agent's opening turn, as ``first_speaker`` says: waited for (``agent``), none (``caller``), or
        (``auto``) on a real clock the agent's if its first event comes within ``greeting_wait_s``, else none."""
        first = self.settings.first_speaker
        if first == "caller":
            return None
        if first == "agent" or not self.clock.realtime:
            try:
                return await self.agent_turn()
            except AgentTimeout as exc:
                raise AgentTimeout(f"no greeting: {exc} after the call was connected (first_speaker=agent)") from None
        try:
            event = await asyncio.wait_for(self.session.receive(), self.settings.greeting_wait_s)
        except TimeoutError:
            return None
        self._early.append((self.clock.now_ms, event))
        return await self.agent_turn()


async def _off_loop(clock: Clock, fn: Callable[..., T], *args: Any) -> T:
    """The caller's own work (TTS + perturbation chain, the simulator's next line: CPU-bound, or blocking for an
    LLM simulator) runs in a thread on a real clock, so the other calls sharing the event loop keep their 20 ms
    pacing (``concurrency``); a virtual clock never waits, so it runs inline."""
    if clock.realtime:
        return await asyncio.to_thread(fn, *args)
    return fn(*args)


def reaction_time_ms(utterance: Any, settings: CallSettings) -> float:
    """How long the caller waits after the agent before speaking: ``user_reaction_ms`` plus the jitter the
    simulator drew for this utterance (``reaction_jitter_ms``: a persona's variation; simulators without it: 0)."""
    return max(0.0, settings.user_reaction_ms + float(getattr(utterance, "reaction_jitter_ms", None) or 0.0))


def _turn_taken_at(clock: Clock, agent_end_ms: float, decided_ms: float) -> float:
    """When the caller may start reacting to the agent's turn. issue 13: on a real clock the caller knows the agent
    has finished only once it has decided so (``decided_ms``: the end of a silence window after the agent's audio, as
    scheduled, not when a timer got round to it), which is later than the audio's end; a virtual clock is untouched
    (the turn-based agent's end is known at once)."""
    return max(agent_end_ms, decided_ms) if clock.realtime else agent_end_ms


async def _agent_reply(
    call: Call, reply: AgentTurn, interrupter: Interrupter | None, caller_text: str
) -> tuple[AgentTurn, float, str]:
    """Record the agent's reply; with IHBench interruptions the caller may cut into it (virtual clock: an in-process
    agent stopped where the cut says), say its interjection over the agent's tail, and hear the agent's recovery,
    which may be cut again. Returns the agent's last turn, when its audio ends, and everything the caller heard the
    agent say since its own turn (what it answers: a question may have come in two pieces)."""
    heard: list[str] = []
    while True:
        if reply.planned is not None:  # a wire agent: the caller cuts into its live stream
            reply, live, said, speech = await cut_live(call, reply, check_agent_audio)
            _cut_turn, end_ms = call.record_agent_turn(reply, live)
            heard.append(live.delivered)
            interjection = call.record_user_turn(said, speech)
            if reply.end_call:  # it hung up in the utterance the caller cut into: nothing comes back
                return reply, max(end_ms, speech.end_ms), " ".join(heard)
            reply = await call.agent_turn()
            interjection.heard_text = next((s.heard_text for s in reply.speech if s.heard_text is not None), None)
            continue
        cut = None
        if interrupter is not None and not call.clock.realtime and not reply.end_call:
            cut = interrupter.maybe_cut(reply.text, reply.start_ms, reply.end_ms)
        agent_turn, end_ms = call.record_agent_turn(reply, cut)
        if cut is None:
            if not reply.interrupted and any(e.type == "barge_in" for e in agent_turn.effects):
                await call.session.interrupt()  # a turn-based agent is cut after the fact: tell it all the same
            return reply, end_ms, " ".join([*heard, reply.text])
        heard.append(cut.delivered)
        await call.session.interrupt()
        notify = getattr(call.session, "interrupted_at", None)
        if notify is not None:
            notify(cut.delivered, cut.undelivered, reply.text)
        text = interrupter.interjection(cut, caller_text)  # type: ignore[union-attr]
        speech = await _off_loop(call.clock, call.channel.say, text, len(call.turns), cut.onset_ms)
        interjection = call.record_user_turn(text, speech)
        await call.speak_to_agent(speech)
        reply = await call.agent_turn()
        interjection.heard_text = next((s.heard_text for s in reply.speech if s.heard_text is not None), None)


async def run_call(
    caller: Caller,
    session: AgentSession,
    channel: Channel,
    context: AgentContext,
    clock: Clock,
    settings: CallSettings | None = None,
    interrupter: Interrupter | None = None,
) -> CallOutcome:
    settings = settings or CallSettings()
    call = Call(session, channel, clock, settings, context.tools.executor.registry)
    if interrupter is not None:
        call.interrupt_kind = interrupter.config.type
        interrupter.hook(caller)  # corrections: the caller plants a wrong value to correct
    end_reason, error = "max_turns", None
    answered = False  # the agent has said something: a silence after that is not "it never spoke"
    try:
        await session.open(context)
        await call.line.open()
        greeting = await call.greeting()
        if greeting is not None:
            _greeting, now_ms = call.record_agent_turn(greeting)
            await clock.advance_to(now_ms)
            now_ms = _turn_taken_at(clock, now_ms, greeting.ended_at_ms)
            # the agent's greeting goes to a caller that listens to it (App. K: the call starts with the agent's
            # greeting; the LLM caller answers it); a scripted caller opens with its scenario's line whatever was said
            getattr(caller, "hear_greeting", lambda _text: None)(greeting.text)
            answered = True
        else:  # the caller opens: at once after waiting for a greeting, else after its reaction time
            waited = settings.first_speaker == "auto"
            now_ms = clock.now_ms - (settings.user_reaction_ms if waited else 0.0)
        if interrupter is not None and clock.realtime:
            call.cutter = WireCutter(interrupter)  # not the greeting: cuts start with the agent's replies
        utterance = await _off_loop(clock, caller.first_utterance)
        for _ in range(settings.max_user_turns):
            if interrupter is not None:
                interrupter.heard_from(caller)
            reaction_ms = reaction_time_ms(utterance, settings)
            speech = await _off_loop(clock, channel.say, utterance.text, len(call.turns), now_ms + reaction_ms)
            if getattr(utterance, "reaction_jitter_ms", None) is not None:  # drawn (issue 17): kept with the turn
                speech.variation = {"reaction_ms": reaction_ms, **speech.variation}
            if clock.realtime and clock.now_ms > speech.start_ms:  # the voice was not ready in time (a busy
                speech = speech.delayed(clock.now_ms - speech.start_ms)  # machine): it starts now, not in a burst
            speech = call.line.aligned(speech)  # on the line's frame grid: recorded when it was sent
            user_turn = call.record_user_turn(utterance.text, speech)
            now_ms = speech.end_ms
            if utterance.end_call:
                # The goodbye is recorded but the call is over: the agent never hears it (heard_text stays None,
                # so hearing metrics skip it). The line up to it is kept for the recording.
                if not call.line.continuous:
                    call.line.record_gap(speech, call.turns)
                end_reason = "user_end_call"
                break
            if call.cutter is not None:
                call.cutter.caller_text = utterance.text
            await call.speak_to_agent(speech)
            try:
                reply = await call.agent_turn()
            except AgentTimeout as exc:
                if answered or not str(exc).startswith(NOTHING_SENT):  # the call's max duration is its own reason
                    raise
                raise AgentTimeout(never_spoke(settings.first_speaker, settings.greeting_wait_s, exc)) from None
            answered = True
            user_turn.heard_text = next((s.heard_text for s in reply.speech if s.heard_text is not None), None)
            reply, now_ms, agent_said = await _agent_reply(call, reply, interrupter, utterance.text)
            await clock.advance_to(now_ms)
            now_ms = _turn_taken_at(clock, now_ms, reply.ended_at_ms)
            if reply.end_call:
                end_reason = "agent_end_call"
                break
            if now_ms > settings.max_duration_s * 1000.0:
                end_reason = "max_turns"
                break
            utterance = await _off_loop(clock, answering(caller, reply.speech), agent_said)
    except CallOver:  # the limit came mid-answer: the turns so far are the call
        end_reason = "max_turns"
    except Exception as exc:  # an infrastructure failure is recorded, never scored as an agent failure
        end_reason = "error"
        # the reason reaches the record, the run's failure tag and the log: a URL or header in it is redacted here
        error = redact_text(f"{type(exc).__name__}: {exc}")
    finally:
        await call.line.close()
        await session.close()
    call.audio.line = call.line.gap_clips()
    tally = None
    if interrupter is not None:
        tally = interrupter.tally(sum(e.type == "interruption" for t in call.turns for e in t.effects))
    return CallOutcome(call.turns, call.audio, end_reason, error, tally)
