"""The caller hears a third-party agent (issue 13 points 2 and 8): an agent server that sends audio and no transcript
has its turns transcribed by the caller's listener ASR (``transcribe_agent``), and the end of the agent's turn is
decided by a VAD that noise on the agent's line does not fool (``end_of_turn_vad: silero``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.server import ServerConnection, serve

from evalkit.call import CallOutcome, CallSettings, run_call
from evalkit.call.conversation import _agent_session
from evalkit.speech.registry import ASR_ENGINES
from evalkit.speech.tts import EspeakTTS
from evalkit.speech.vad import frame_vad
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.codec import encode, resample
from evalkit.wire.twilio_ws.server import ReferenceServer, url_of
from perturbations import Chain
from tests.test_call_loop import EchoAgent, ScriptCaller, ToneChannel, context
from tests.test_twilio_ws import ToneAgentServer

RATE = 8000
GREETING = "Hello, thank you for calling. How can I help you today?"
REPLY = "Your flight to Boston is confirmed."


def spoken(text: str) -> np.ndarray:
    audio, rate = EspeakTTS(voice="en-gb", rate_wpm=185, pitch=40).synthesize(text)
    return resample(audio, rate, RATE)


class SpeakingAgent(ToneAgentServer):
    """A third-party agent: real speech, Twilio framing, no transcript of what it says."""

    async def handler(self, ws: ServerConnection) -> None:
        sid = ""
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                await self.speak(ws, sid, encode(spoken(GREETING), "mulaw"))
            elif message["event"] == "user_speech_stop":
                await self.speak(ws, sid, encode(spoken(REPLY), "mulaw"))


class CountingListener:
    """The default listener ASR, counting its loads and the calls that had started when each happened."""

    def __init__(self) -> None:
        self.loads: list[int] = []  # per load: how many calls had started by then
        self.calls_started = 0

    def __call__(self) -> Any:
        self.loads.append(self.calls_started)
        # the 30 s window: on the short window (the default) tiny.en hears this eSpeak reply over 8 kHz mu-law as
        # "your site term after the in-converm."; this test is about the caller transcribing, not about the window
        return ASR_ENGINES.get("faster_whisper")(short_window=False).build()


def through(handler: Any, caller: ScriptCaller, listener: CountingListener | None = None, **config: Any) -> CallOutcome:
    """One call as a cell makes it (``_agent_session``: the agent prepares, then the call's clock starts)."""

    async def main() -> CallOutcome:
        async with serve(handler, "127.0.0.1", 0) as server:
            silence_ms = config.pop("take_turn", 300.0)
            agent = TwilioWsConfig(name="wire", url=url_of(server), take_turn_after_silence_ms=silence_ms, **config)
            wire = agent.build()
            wire.listener = listener
            clock, session, settings = _agent_session(wire, CallSettings(user_reaction_ms=100.0))
            if listener is not None:
                listener.calls_started += 1
            return await run_call(caller, session, ToneChannel(), context(), clock, settings)

    return asyncio.run(main())


def test_the_caller_transcribes_an_agent_that_sends_no_transcript() -> None:
    caller, agent, listener = ScriptCaller(["one two"]), SpeakingAgent(), CountingListener()
    outcome = through(agent.handler, caller, listener)
    assert listener.loads == [0]  # loaded once, before the call: never on its clock (a first call's warm-up)
    assert outcome.end_reason == "user_end_call", outcome.error
    greeting, _user, reply, _bye = outcome.turns
    assert "help" in greeting.intended_text.lower() and greeting.text_source == "caller_asr"
    assert "confirmed" in reply.intended_text.lower() and reply.text_source == "caller_asr"
    assert caller.heard == [reply.intended_text]  # the scripted caller answers what it heard
    assert (0, "assistant") in outcome.audio.clips  # the audio is recorded as before
    # the transcript takes no time on the timeline: the turn is as long as its audio took to play as the server sent
    # it (its length, 3.15 s, plus whatever a busy machine made the server's own pacing slip). A model loaded in the
    # call stretched it (late frames) or split it in two (the silence window passed while the loop was held).
    assert greeting.end_ms - greeting.start_ms == pytest.approx(agent.played_ms(0), abs=80.0)


def test_transcribe_agent_never_leaves_the_text_empty() -> None:
    listener = CountingListener()
    outcome = through(SpeakingAgent().handler, ScriptCaller(["one two"]), listener, transcribe_agent="never")
    assert outcome.end_reason == "user_end_call", outcome.error
    assert listener.loads == []  # never: nothing to hear with, so nothing loaded
    assert [t.intended_text for t in outcome.turns if t.role == "assistant"] == ["", ""]
    assert all(t.text_source is None for t in outcome.turns)


class DeafASR:
    def transcribe(self, audio: np.ndarray, sample_rate: int) -> Any:
        raise AssertionError("the reference server sends its transcript: nothing to transcribe")


def test_auto_keeps_the_servers_own_transcript_and_never_runs_the_asr() -> None:
    """auto loads the listener before the call (whether the agent sends transcripts is known once it speaks) and
    uses it only for turns that came without one."""
    reference = ReferenceServer(lambda: EchoAgent(reply_ms=300.0), port=0)
    loads: list[int] = []

    def listener() -> Any:
        loads.append(1)
        return DeafASR()

    async def main() -> CallOutcome:
        stop = asyncio.Event()
        urls: list[str] = []
        serving = asyncio.create_task(reference.serve_until(stop, urls.append))
        while not urls:
            await asyncio.sleep(0.01)
        agent = TwilioWsConfig(name="wire", url=urls[0], take_turn_after_silence_ms=300.0).build()
        agent.listener = listener
        clock, session, settings = _agent_session(agent, CallSettings(user_reaction_ms=100.0))
        outcome = await run_call(ScriptCaller(["one two"]), session, ToneChannel(), context(), clock, settings)
        stop.set()
        await serving
        return outcome

    outcome = asyncio.run(main())
    assert outcome.end_reason == "user_end_call", outcome.error
    assert [t.intended_text for t in outcome.turns if t.role == "assistant"] == ["hello", "you said 1600 samples"]
    assert all(t.text_source is None for t in outcome.turns) and loads == [1]


def test_the_cell_gives_a_wire_agent_its_listener_asr() -> None:
    from evalkit.cell.build import build_components
    from evalkit.config.schema import validate_config
    from tests.test_config import composed

    agent = build_components(validate_config(composed("agent=twilio_ws")), hears_agent_audio=False).agent
    assert callable(agent.listener)


def test_silero_ends_the_turn_on_a_noisy_agent_line_where_rms_never_does() -> None:
    speech = spoken(REPLY)
    turn = np.concatenate([speech, np.zeros(RATE, dtype=np.float32)])  # then 1 s of silence, under café noise
    noise = Chain.from_specs([{"op": "noise", "environment": "cafe", "snr_db": 15.0}])
    noisy, _ = noise(turn, RATE, np.random.default_rng(0))
    true_end_ms = len(speech) / RATE * 1000.0
    for kind, ends in (("rms", False), ("silero", True)):
        vad = frame_vad(kind)
        last = max(i for i in range(0, noisy.size - 159, 160) if vad.is_speech(noisy[i : i + 160], RATE))
        heard_until_ms = (last + 160) / RATE * 1000.0
        assert (heard_until_ms < true_end_ms + 300.0) is ends, (kind, heard_until_ms, true_end_ms)
