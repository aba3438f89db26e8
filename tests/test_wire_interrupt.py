"""IHBench interruptions over the wire: the caller cuts into a wire agent's live audio stream at the planned cut
(the same ``plan_cut``: a word boundary outside the last sentence, IHBench's overlap range, seeded) and starts
sending its interjection while the agent still talks. The agent's own stop is measured on the audio received
(caller onset -> agent silence); an agent that does not stop is recorded as talking over the caller; what the caller
heard is the text the received audio covers (``full.startswith(delivered)``). Real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.server import ServerConnection, serve

from evalkit.agents.base import AgentContext, AgentReply
from evalkit.call import CallOutcome, CallSettings, RealClock, run_call
from evalkit.call.interrupt import Interrupter
from evalkit.cell import plan_cell, run_cell_conversations
from evalkit.config.interrupt import IHBENCH_OVERLAP_S, InterruptConfig
from evalkit.config.schema import validate_config
from evalkit.records import AudioClip
from evalkit.speech.vad import level_dbfs
from evalkit.textnorm import last_sentence, sentence_spans
from evalkit.wire.openai_realtime import OpenAIRealtimeConfig
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.codec import decode, encode
from evalkit.wire.twilio_ws.server import url_of
from tests.realtime_server import MODEL, RealtimeTestServer
from tests.test_call_loop import ScriptCaller, ToneChannel, context
from tests.test_config import composed
from tests.test_openai_realtime import airline_context

TEXT = "Sure, I can help with that. Let me check your booking first. May I have your confirmation code?"
SPEECH_MS = 4000.0
RATE = 8000
FRAME = 160
ROOT = Path(__file__).resolve().parent.parent


def tone(ms: float, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(rate * ms / 1000)) / rate
    return (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def interrupter(kind: str = "impatient", seed: int = 0) -> Interrupter:
    config = InterruptConfig(name=kind, type=kind, overlap_s=IHBENCH_OVERLAP_S[kind], probability=1.0, max_per_call=1)
    return Interrupter(config, np.random.default_rng(seed))


def talker(yields: bool, announced_ms: float = SPEECH_MS) -> Any:
    """A Twilio-framed agent server that answers every caller turn with ``TEXT`` (announced with its audio length,
    as evalkit's reference server does) and 4 s of audio paced at 20 ms; on ``user_speech_start`` it stops and sends
    ``clear`` (``yields``) or ignores it and talks on."""

    async def handler(ws: ServerConnection) -> None:
        sid, speaking = "", None

        async def speak(text: str, ms: float) -> None:
            said = announced_ms if text == TEXT else ms
            transcript = {"event": "evalkit_transcript", "streamSid": sid, "text": text, "duration_ms": said}
            await ws.send(json.dumps(transcript))
            audio = encode(tone(ms), "mulaw")
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            for n, i in enumerate(range(0, len(audio), FRAME)):
                await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
                payload = base64.b64encode(audio[i : i + FRAME]).decode()
                await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))

        async def after(previous: asyncio.Task[None] | None) -> None:
            if previous is not None and not previous.done():  # an agent that talked on finishes first, then pauses
                await asyncio.wait([previous])
                await asyncio.sleep(0.6)
            await speak(TEXT, SPEECH_MS)

        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                speaking = asyncio.create_task(speak("Hello.", 400.0))
            elif message["event"] == "user_speech_start" and yields and speaking is not None and not speaking.done():
                speaking.cancel()
                await ws.send(json.dumps({"event": "clear", "streamSid": sid}))
            elif message["event"] == "user_speech_stop":
                speaking = asyncio.create_task(after(speaking))

    return handler


def twilio_call(
    yields: bool, kind: str = "impatient", announced_ms: float = SPEECH_MS, cutter: Interrupter | None = None
) -> CallOutcome:
    async def main() -> CallOutcome:
        async with serve(talker(yields, announced_ms), "127.0.0.1", 0) as server:
            agent = TwilioWsConfig(
                name="wire", url=url_of(server), take_turn_after_silence_ms=300.0, transcribe_agent="never",
                tools="none",
            ).build()  # fmt: skip
            clock = RealClock()
            settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
            caller = ScriptCaller(["one two three"])
            return await run_call(
                caller, agent.session(clock), ToneChannel(), context(), clock, settings, cutter or interrupter(kind)
            )

    return asyncio.run(main())


def the_cut(outcome: CallOutcome) -> tuple[int, Any]:
    [(i, effect)] = [(i, e) for i, t in enumerate(outcome.turns) for e in t.effects if e.type == "interruption"]
    return i, effect


def check_the_cut_was_planned_as_ihbench_says(outcome: CallOutcome, kind: str = "impatient") -> tuple[Any, Any]:
    i, effect = the_cut(outcome)
    agent, caller = outcome.turns[i], outcome.turns[i + 1]
    low, high = IHBENCH_OVERLAP_S[kind]
    assert agent.role == "assistant" and caller.role == "user" and effect.params["kind"] == kind
    assert low <= effect.params["overlap_s"] <= high
    assert effect.params["cut_char"] < sentence_spans(TEXT)[-1][0]  # not in the last sentence
    assert TEXT[effect.params["cut_char"] - 1] != " " and TEXT[effect.params["cut_char"] :][:1] in (
        " ",
        "",
    )  # a word end
    assert caller.start_ms == pytest.approx(effect.start_ms)  # the interjection starts at the onset
    assert agent.start_ms < caller.start_ms < agent.start_ms + SPEECH_MS  # while the agent was still talking
    delivered, undelivered = effect.params["delivered"], effect.params["undelivered"]
    assert agent.intended_text == TEXT and TEXT.startswith(delivered)  # IHBench's invariant
    assert undelivered == TEXT[len(delivered) :].strip()
    return agent, effect


def test_a_twilio_agent_that_yields_is_cut_on_the_live_stream_and_its_stop_is_measured() -> None:
    outcome = twilio_call(yields=True)
    assert outcome.end_reason == "user_end_call", outcome.error
    agent, effect = check_the_cut_was_planned_as_ihbench_says(outcome)
    assert effect.params["measured"] == "wire" and effect.params["yielded"] is True
    # the agent fell silent soon after the caller's onset (its clear), long before its 4 s utterance ended
    assert 0.0 <= effect.params["yield_ms"] < 600.0 and agent.end_ms == pytest.approx(effect.end_ms)
    print(f"twilio_ws: caller onset -> agent silence {effect.params['yield_ms']:.0f} ms")
    spoken = effect.end_ms - agent.start_ms
    assert spoken < SPEECH_MS - 1000.0 and effect.params["undelivered"]
    # what the caller heard is the share of the text its received audio covers (within a word)
    heard_chars = len(TEXT) * spoken / SPEECH_MS
    assert abs(len(effect.params["delivered"]) - heard_chars) < 12
    # the recorded audio is what played before the silence (less when a busy machine played a frame late: the gap
    # was not audio)
    clip = outcome.audio.clips[(outcome.turns.index(agent), "assistant")].samples
    assert 0.7 * spoken / 1000.0 * RATE <= len(clip) <= spoken / 1000.0 * RATE + 3 * FRAME


@pytest.mark.slow
def test_a_twilio_agent_that_does_not_yield_is_recorded_talking_over_the_caller() -> None:
    outcome = twilio_call(yields=False)
    assert outcome.end_reason == "user_end_call", outcome.error
    agent, effect = check_the_cut_was_planned_as_ihbench_says(outcome)
    assert effect.params["yielded"] is False
    # it talked to the end of its utterance (frames played late only lengthen it), over the whole interjection
    assert SPEECH_MS - 100.0 <= effect.end_ms - agent.start_ms <= SPEECH_MS + 1000.0
    i, _ = the_cut(outcome)
    assert effect.end_ms > outcome.turns[i + 1].end_ms and effect.params["undelivered"] == ""


def test_a_planned_cut_the_agent_finishes_before_is_not_made() -> None:
    """The agent says it will talk for 40 s but stops after 4: the planned onset never comes, nothing is cut."""
    cutter = interrupter()
    outcome = twilio_call(yields=True, announced_ms=40 * SPEECH_MS, cutter=cutter)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert not [e for t in outcome.turns for e in t.effects if e.type == "interruption"]
    assert cutter.count == 0 and [t.role for t in outcome.turns] == ["assistant", "user", "assistant", "user"]
    assert SPEECH_MS - 100.0 <= outcome.turns[2].end_ms - outcome.turns[2].start_ms <= SPEECH_MS + 1000.0


class TalkAgent:
    """An in-process agent for the Realtime test server: ``TEXT`` and a 4 s tone every turn; keeps what the server
    tells it the caller heard of a truncated item."""

    def __init__(self) -> None:
        self.cut: tuple[str, str, str] | None = None

    def interrupted(self, delivered: str, undelivered: str, full: str) -> None:
        self.cut = (delivered, undelivered, full)

    def _reply(self, text: str) -> AgentReply:
        rate = 24000
        return AgentReply(text=text, audio=AudioClip(samples=tone(SPEECH_MS, rate), sample_rate=rate))

    def start(self, ctx: AgentContext) -> AgentReply:
        return AgentReply(text="Hello.", audio=AudioClip(samples=tone(400.0, 24000), sample_rate=24000))

    def respond(self, heard: Any) -> AgentReply:
        return self._reply(TEXT)


def test_a_realtime_agent_is_cut_on_its_live_stream_cancelled_and_truncated_to_what_was_heard() -> None:
    """Server VAD hears the caller start; the session stops the agent's audio there and truncates the item to what
    was played (the response was all sent: no cancel); the stop is measured on the audio the caller received."""
    talk = TalkAgent()
    with RealtimeTestServer(make_agent=lambda heard: talk, audio_pace=0.0) as server:
        agent = OpenAIRealtimeConfig(name="realtime", url=server.url, model=MODEL, api_key_env=None).build()
        clock = RealClock()
        settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
        call = run_call(
            ScriptCaller(["one two three"]), agent.session(clock), ToneChannel(), airline_context(), clock, settings,
            interrupter(),
        )  # fmt: skip
        outcome = asyncio.run(call)
        truncations = server.truncations
    assert outcome.end_reason == "user_end_call", outcome.error
    agent_turn, effect = check_the_cut_was_planned_as_ihbench_says(outcome)
    assert effect.params["yielded"] is True and 0.0 <= effect.params["yield_ms"] < 600.0
    heard_ms = effect.end_ms - agent_turn.start_ms
    [(_item, audio_end_ms, item_ms)] = truncations
    assert item_ms == pytest.approx(SPEECH_MS, abs=25.0)
    # truncated to what the caller heard (the audio played; less than the time it took when a busy machine played a
    # frame late: the gap was not audio)
    assert 0.6 * heard_ms <= audio_end_ms <= heard_ms + 40.0
    assert abs(len(effect.params["delivered"]) - len(TEXT) * heard_ms / SPEECH_MS) < 12
    # the server's model keeps only what was heard: its agent is told the same prefix, within a word or two
    assert talk.cut is not None and talk.cut[2] == TEXT and TEXT.startswith(talk.cut[0])
    assert abs(len(talk.cut[0]) - len(effect.params["delivered"])) < 25
    print(
        f"realtime: yield {effect.params['yield_ms']:.0f} ms, heard {heard_ms:.0f} ms, truncated at {audio_end_ms} ms"
    )


@pytest.mark.slow
def test_a_scenario_with_interruptions_through_the_wire_to_the_served_cascade(tmp_path: Path) -> None:
    """``python -m evalkit.serve agent=cascade_local`` (started here) and ``agent=twilio_ws +interrupt=impatient``
    through a cell: the caller cuts into the served agent's first reply; the server stops, sends ``clear`` and tells
    its agent what the caller heard, so its next turn skips to the pending question (IHBench's impatient recovery)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit.serve", "--port", "0", "agent=cascade_local"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("evalkit.serve: agent cascade_local on ws://127.0.0.1:"), line
        config = validate_config(
            composed(
                "agent=twilio_ws", f"agent.url={line.split(' on ')[1].strip()}", "agent.max_duration_s=20",
                "validation.enabled=false",  # the call ends at its limit (max_turns) on purpose: no reruns
                "domain.scenarios=[AL-005]", "trials=1", "progress=false", "persona.variation.enabled=false",
                "+interrupt=impatient", "interrupt.probability=1.0", "interrupt.max_per_call=1",
                "metrics=[interruption_recovery,interruption_yield_ms,turn_taking]",
            )
        )  # fmt: skip
        [record] = run_cell_conversations(plan_cell(config), tmp_path, log_audio=False)
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    conversation = record.conversation
    assert conversation.error is None, conversation.error
    [(i, effect)] = [(i, e) for i, t in enumerate(conversation.turns) for e in t.effects if e.type == "interruption"]
    cut, interjection = conversation.turns[i], conversation.turns[i + 1]
    assert effect.params["measured"] == "wire" and effect.params["yielded"] is True
    assert interjection.role == "user" and interjection.start_ms == pytest.approx(effect.start_ms)
    # the cut falls at a word boundary; on a busy machine the server's next clause may not have arrived yet there,
    # so the agent can already be silent at the onset (yield 0 ms): the turn was not over, its text was undelivered
    assert cut.start_ms < effect.start_ms <= effect.end_ms and 0.0 <= effect.params["yield_ms"] < 500.0
    assert cut.intended_text.startswith(effect.params["delivered"]) and effect.params["undelivered"]
    recovery = next(t for t in conversation.turns[i + 2 :] if t.role == "assistant")
    assert recovery.intended_text == last_sentence(cut.intended_text)  # the server's agent knew it was cut
    assert record.metrics["interruption_recovery"].score == 1.0, record.metrics["interruption_recovery"].details
    assert record.metrics["interruption_yield_ms"].score == pytest.approx(effect.params["yield_ms"])
    # EVA-Bench's turn-taking yield score reads the measured stop: the interjection interrupted the agent
    yields = [r["yield_ms"] for r in record.metrics["turn_taking"].details["turns"] if "yield_ms" in r]
    if effect.params["yield_ms"] > 0.0:
        assert yields and yields[0] == pytest.approx(effect.params["yield_ms"])
    else:  # the onset fell in a pause of the agent's audio (a comma): no overlap, nothing to yield
        assert yields == []
    print(f"served cascade over twilio_ws: caller onset -> agent silence {effect.params['yield_ms']:.0f} ms")


# -- a Twilio bot that sends audio only (issue 26 point 3) --------------------------------------------------------

WORD_MS, WORD_GAP_MS, PAUSE_MS = 180.0, 60.0, 300.0  # tone bursts, gaps between them, pauses between sentences
SILENT_FRAME = encode(np.zeros(FRAME, dtype=np.float32), "mulaw")


def speech_plan(sentences: int, words: int = 4) -> list[tuple[bool, float]]:
    """(voiced, ms) stretches of one reply: ``sentences`` sentence-equivalents of ``words`` tone bursts."""
    plan: list[tuple[bool, float]] = []
    for s in range(sentences):
        if s:
            plan.append((False, PAUSE_MS))
        for w in range(words):
            plan += [(False, WORD_GAP_MS)] if w else []
            plan.append((True, WORD_MS))
    return plan


class SentenceBot:
    """A phone bot that sends no transcript: it finds the caller's turns by the level of the frames it receives (no
    speech events), answers the caller's first line with ``sentences`` sentence-equivalents of tone-burst words
    (silent frames between them, paced at 20 ms), every later line with one short word; with ``yields`` it stops
    and sends ``clear`` when it hears the caller start while it talks, else it talks on."""

    def __init__(self, sentences: int = 3, yields: bool = True, reply: list[tuple[bool, float]] | None = None) -> None:
        self.sentences = sentences
        self.reply = reply or speech_plan(sentences)
        self.yields = yields
        self.heard_over_it = 0  # times the caller started talking while the bot was talking
        self.answers = 0

    async def speak(self, ws: ServerConnection, sid: str, plan: list[tuple[bool, float]]) -> None:
        loop = asyncio.get_running_loop()
        t0, n = loop.time(), 0
        for voiced, ms in plan:
            audio = encode(tone(ms), "mulaw") if voiced else SILENT_FRAME * round(ms / 20.0)
            for i in range(0, len(audio), FRAME):
                await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
                payload = base64.b64encode(audio[i : i + FRAME]).decode()
                await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
                n += 1

    async def answer(self, ws: ServerConnection, sid: str, previous: asyncio.Task[None] | None) -> None:
        if previous is not None and not previous.done():  # it talked on: it finishes, then a turn's pause
            await asyncio.wait([previous])
            await asyncio.sleep(1.0)
        self.answers += 1
        await self.speak(ws, sid, self.reply if self.answers == 1 else [(True, WORD_MS)])

    async def handler(self, ws: ServerConnection) -> None:
        sid, voiced, quiet, speaking = "", False, 0, None
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
            elif message["event"] == "media":
                level = level_dbfs(decode(base64.b64decode(message["media"]["payload"]), "mulaw"))
                if level >= -33.0:
                    if not voiced and speaking is not None and not speaking.done():
                        self.heard_over_it += 1
                        if self.yields:
                            speaking.cancel()
                            await ws.send(json.dumps({"event": "clear", "streamSid": sid}))
                    voiced, quiet = True, 0
                elif voiced:
                    quiet += 1
                    if quiet >= 10:  # 200 ms below the level: the caller's turn is over
                        voiced, quiet = False, 0
                        speaking = asyncio.create_task(self.answer(ws, sid, speaking))


def audio_only_call(bot: SentenceBot, cutter: Interrupter) -> CallOutcome:
    async def main() -> CallOutcome:
        async with serve(bot.handler, "127.0.0.1", 0) as server:
            agent = TwilioWsConfig(
                name="bot", url=url_of(server), take_turn_after_silence_ms=600.0, transcribe_agent="never",
                speech_events=False, first_speaker="caller", tools="none",
            ).build()  # fmt: skip
            clock = RealClock()
            settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
            caller = ScriptCaller(["one two three"])
            return await run_call(caller, agent.session(clock), ToneChannel(), context(), clock, settings, cutter)

    return asyncio.run(main())


def reply_ms(sentences: int) -> float:
    return sum(ms for _, ms in speech_plan(sentences))


def check_the_audio_cut(outcome: CallOutcome, cutter: Interrupter) -> tuple[Any, Any, Any]:
    """The cut of the bot's reply, planned on its audio: after its first sentence-equivalent, at a word's start."""
    assert outcome.end_reason == "user_end_call", outcome.error
    i, effect = the_cut(outcome)
    agent, caller = outcome.turns[i], outcome.turns[i + 1]
    assert agent.role == "assistant" and agent.intended_text == "" and caller.role == "user"
    assert effect.params["planned_on"] == "audio" and effect.params["measured"] == "wire"
    low, high = IHBENCH_OVERLAP_S["impatient"]
    assert low <= effect.params["overlap_s"] <= high and effect.params["kind"] == "impatient"
    assert caller.start_ms == pytest.approx(effect.start_ms)
    # never in the first sentence-equivalent (it might have been the only one), and while the bot still talked
    first_ends = agent.start_ms + reply_ms(1)
    assert first_ends + PAUSE_MS - 60.0 <= effect.start_ms < agent.start_ms + reply_ms(3)
    # at a word boundary: the onset is a word's start on the reply's grid (within a loaded machine's lateness)
    starts = [agent.start_ms + sum(ms for _, ms in speech_plan(3)[:k]) for k, (v, _) in enumerate(speech_plan(3)) if v]
    assert min(abs(effect.start_ms - s) for s in starts) < 80.0, effect.start_ms - agent.start_ms
    assert effect.params["delivered"] == "" and effect.params["undelivered"] == ""  # no text, no transcript asked
    assert effect.params["agent_spoken_ms"] == pytest.approx(effect.end_ms - agent.start_ms)
    assert cutter.planned == 1 and cutter.dropped == 0
    assert outcome.interruptions == {"kind": "impatient", "planned": 1, "dropped": 0, "delivered": 1}
    return agent, caller, effect


def test_a_bot_without_transcript_is_cut_on_its_audio_and_yields() -> None:
    bot, cutter = SentenceBot(sentences=3, yields=True), interrupter()
    outcome = audio_only_call(bot, cutter)
    agent, _caller, effect = check_the_audio_cut(outcome, cutter)
    assert bot.heard_over_it == 1  # the bot heard the caller cut in (its own VAD) and stopped
    assert effect.params["yielded"] is True and 0.0 <= effect.params["yield_ms"] < 600.0
    assert agent.end_ms == pytest.approx(effect.end_ms) and effect.end_ms < agent.start_ms + reply_ms(3) - 100.0
    clip = outcome.audio.clips[(outcome.turns.index(agent), "assistant")].samples
    assert len(clip) <= (effect.end_ms - agent.start_ms) / 1000.0 * RATE + 3 * FRAME  # what played before the stop
    onset = effect.start_ms - agent.start_ms
    print(f"audio-only bot: onset {onset:.0f} ms into its reply, yield {effect.params['yield_ms']:.0f} ms")


def test_a_bot_without_transcript_that_talks_on_is_recorded_not_yielding() -> None:
    bot, cutter = SentenceBot(sentences=3, yields=False), interrupter()
    outcome = audio_only_call(bot, cutter)
    agent, caller, effect = check_the_audio_cut(outcome, cutter)
    assert bot.heard_over_it == 1 and effect.params["yielded"] is False
    assert effect.end_ms > caller.end_ms  # it talked over the whole interjection, to the end of its reply
    assert reply_ms(3) - 100.0 <= effect.end_ms - agent.start_ms <= reply_ms(3) + 1000.0


def test_a_bot_reply_of_one_sentence_equivalent_is_never_cut() -> None:
    bot, cutter = SentenceBot(sentences=1, yields=True), interrupter()
    outcome = audio_only_call(bot, cutter)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert not [e for t in outcome.turns for e in t.effects if e.type == "interruption"]
    assert bot.heard_over_it == 0 and [t.role for t in outcome.turns] == ["user", "assistant", "user"]
    assert outcome.interruptions == {"kind": "impatient", "planned": 0, "dropped": 0, "delivered": 0}


def test_a_cut_drawn_while_listening_lands_on_a_short_second_sentence() -> None:
    """A sentence-equivalent, a pause, then one last word (a phone bot's short second sentence, sent at the pace it
    plays): the cut was drawn and its interjection made at the turn's first audio, so with no word boundary to let
    pass (seed 0 draws none) the caller cuts in at that word's start, before the turn ends."""
    bot, cutter = SentenceBot(reply=[*speech_plan(1), (False, PAUSE_MS), (True, WORD_MS)]), interrupter(seed=0)
    outcome = audio_only_call(bot, cutter)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert outcome.interruptions == {"kind": "impatient", "planned": 1, "dropped": 0, "delivered": 1}
    [cut] = [e for t in outcome.turns for e in t.effects if e.type == "interruption"]
    assert bot.heard_over_it == 1 and cut.params["yielded"] is True, cut.params


def test_a_cut_planned_on_the_audio_is_dropped_when_the_turn_ends_before_a_later_word() -> None:
    """The same turn, but the cut is to let a word boundary pass first (seed 2 draws at least one): no later word
    comes, the turn ends, the planned cut is dropped, counted, and the metrics say why."""
    from evalkit.metrics.registry import METRICS
    from evalkit.records import Conversation, InterruptionTally

    bot, cutter = SentenceBot(reply=[*speech_plan(1), (False, PAUSE_MS), (True, WORD_MS)]), interrupter(seed=2)
    outcome = audio_only_call(bot, cutter)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert not [e for t in outcome.turns for e in t.effects if e.type == "interruption"] and bot.heard_over_it == 0
    assert outcome.interruptions == {"kind": "impatient", "planned": 1, "dropped": 1, "delivered": 0}
    assert cutter.count == 0  # given back: a later turn may still be cut
    record = Conversation(
        scenario_id="S", domain="toy", trial=0, seed=0, turns=outcome.turns, end_reason="user_end_call",
        initial_db={}, final_db={}, expected_db={}, interruptions=InterruptionTally(**outcome.interruptions),
    )  # fmt: skip
    assert METRICS["interruptions_planned"].score(record).score == 1.0
    assert METRICS["interruptions_delivered"].score(record).score == 0.0
    assert "1 planned, 1 dropped" in METRICS["interruption_yield_ms"].score(record).details["reason"]
