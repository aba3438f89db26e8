"""Three phone bots built from pipecat (BSD-2) as a new user would build them: pipecat's FastAPI WebSocket
transport, its ``TwilioFrameSerializer``, its bundled Silero VAD, its user-turn strategies, pipeline, task and runner.
No LLM ships offline, so a small ``FrameProcessor`` answers each user turn with the next line of a short script,
spoken by a pipecat ``TTSService`` around eSpeak NG. Nothing here knows evalkit's protocol extras: no speech events
are read, no transcript is sent; the caller has to hear the bot through its own ASR.

Run (by tests/test_conformance_pipecat.py, in the interpreter that has pipecat, see ``scripts/conformance_env.sh``):

    python -m tests.conformance.bots --kind waits|greets|yields --log events.jsonl

prints ``ready ws://127.0.0.1:<port>/ws`` once it listens (port 0: a free one) and serves until SIGTERM. ``/ws`` is
the ``--kind`` bot; ``/ws/<kind>/<call>`` is any kind, its events tagged ``"call": <call>`` in the log: one process
serves the tests' calls one after another, so pipecat and its models are loaded once.

- ``waits``: says nothing until the caller has spoken (a bot that lets the caller speak first).
- ``greets``: greets as soon as the call is up.
- ``yields``: greets, and lets the caller barge in: pipecat's VAD turn start broadcasts an interruption, which stops
  its TTS and output and sends Twilio's ``clear`` (pipecat's own interruption handling).

What each bot saw goes to ``--log`` as JSON lines (``call_started``, ``user_started``, ``user_stopped``, ``reply``,
``bot_started``, ``bot_stopped``, ``interrupted``, ``vad_forced_stop``, ``call_ended``) with wall-clock times, for
the tests to read.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import sys
import threading
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import numpy as np
import uvicorn
from fastapi import FastAPI, WebSocket
from loguru import logger
from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    ErrorFrame,
    Frame,
    InterruptionFrame,
    TTSSpeakFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.runner.utils import parse_telephony_websocket
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TTSService
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat.turns.user_start import VADUserTurnStartStrategy
from pipecat.turns.user_stop import SpeechTimeoutUserTurnStopStrategy, TurnAnalyzerUserTurnStopStrategy
from pipecat.turns.user_turn_processor import UserTurnProcessor
from pipecat.turns.user_turn_strategies import UserTurnStrategies

from evalkit.speech.tts import EspeakTTS

RATE = 8000  # Twilio's μ-law rate, the pipeline's in and out: no resampling between the wire and the VAD
GREETING = "Thanks for calling Skyline Airlines. How can I help you today?"
# Two sentences each, as a phone bot speaks: a barge-in is planned before an utterance's last sentence.
REPLIES = (
    "I can help with that. What is your booking reference?",
    "Thank you. Could you also spell your last name?",
    "Got it, one moment please. Is there anything else?",
    "Sure, I have made a note of that. Your request is with our team.",
)
KINDS = ("waits", "greets", "yields")


class EventLog:
    """What the bot saw, one JSON line per event (appended and flushed at once: the test reads it after the call)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.call = ""  # the current call's tag: calls come one at a time, and pipecat's log lines name none
        self._lock = threading.Lock()

    def write(self, event: str, **fields: Any) -> None:
        if self.path is None:
            return
        line = json.dumps({"event": event, "t": time.time(), "call": self.call, **fields})
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


class EspeakTTSService(TTSService):
    """A pipecat TTS service around eSpeak NG (offline, deterministic): the same shape as pipecat's own Piper
    service (``push_start_frame`` / ``push_stop_frames``, audio streamed through the base class's resampler)."""

    def __init__(self, *, voice: str = "en-gb", **kwargs: Any) -> None:
        super().__init__(
            push_start_frame=True,
            push_stop_frames=True,
            settings=TTSSettings(model=None, voice=voice, language=None),
            **kwargs,
        )
        self._engine = EspeakTTS(voice=voice, rate_wpm=175, pitch=45)

    def can_generate_metrics(self) -> bool:
        return True

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame, None]:
        try:
            audio, rate = await asyncio.to_thread(self._engine.synthesize, text)
            pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()

            async def chunks() -> AsyncGenerator[bytes, None]:
                step = rate // 10 * 2  # 100 ms of 16-bit audio at a time, as a streaming TTS would send it
                for i in range(0, len(pcm), step):
                    yield pcm[i : i + step]

            async for frame in self._stream_audio_frames_from_iterator(
                chunks(), in_sample_rate=rate, context_id=context_id
            ):
                await self.stop_ttfb_metrics()
                yield frame
        except Exception as exc:  # a TTS failure is reported the pipecat way, as an ErrorFrame
            yield ErrorFrame(error=f"eSpeak NG failed: {exc}")


class ScriptedResponder(FrameProcessor):
    """Stands where an LLM would: answers each user turn (pipecat's ``UserStoppedSpeakingFrame``) with the next
    scripted line, at once. Watches the frames going by to log what the bot saw: user turns, its own speech
    (``BotStarted/StoppedSpeakingFrame``, pushed upstream by the output transport) and interruptions."""

    def __init__(self, log: EventLog, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._log = log
        self._lines = itertools.cycle(REPLIES)
        self._bot_speaking = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, UserStartedSpeakingFrame):
            self._log.write("user_started", bot_speaking=self._bot_speaking)
        elif isinstance(frame, InterruptionFrame):
            self._log.write("interrupted", bot_speaking=self._bot_speaking)
        elif isinstance(frame, BotStartedSpeakingFrame):
            self._bot_speaking = True
            self._log.write("bot_started")
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self._bot_speaking = False
            self._log.write("bot_stopped")
        await self.push_frame(frame, direction)
        if isinstance(frame, UserStoppedSpeakingFrame):
            line = next(self._lines)
            self._log.write("user_stopped")
            self._log.write("reply", text=line)
            await self.push_frame(TTSSpeakFrame(line))


def turn_stop(how: str) -> Any:
    """When the user's turn is over. ``smart_turn``: pipecat's default, its bundled Smart Turn v3 model judges the
    audio at each VAD stop (Silero's default stop_secs, 0.2 s); ``timeout``: the VAD stop plus pipecat's default
    speech timeout (0.6 s). No transcript is waited for either way: there is no STT."""
    if how == "smart_turn":
        return TurnAnalyzerUserTurnStopStrategy(turn_analyzer=LocalSmartTurnAnalyzerV3(), wait_for_transcript=False)
    return SpeechTimeoutUserTurnStopStrategy(wait_for_transcript=False)


async def run_bot(websocket: WebSocket, kind: str, log: EventLog, stop: str = "smart_turn") -> None:
    """One call: the pipeline a pipecat Twilio bot builds per WebSocket (pipecat's telephony examples' shape)."""
    _transport_type, call_data = await parse_telephony_websocket(websocket)
    log.write("call_started", stream_sid=call_data["stream_id"], call_sid=call_data["call_id"])
    serializer = TwilioFrameSerializer(
        stream_sid=call_data["stream_id"],
        call_sid=call_data["call_id"],
        params=TwilioFrameSerializer.InputParams(auto_hang_up=False),  # no Twilio account: the caller hangs up
    )
    transport = FastAPIWebsocketTransport(
        websocket=websocket,
        params=FastAPIWebsocketParams(
            audio_in_enabled=True, audio_out_enabled=True, add_wav_header=False, serializer=serializer
        ),
    )
    # pipecat's defaults (Silero: confidence 0.7, start 0.2 s, stop 0.2 s); the responder answers as soon as the
    # turn stop strategy ends the user's turn.
    analyzer = SileroVADAnalyzer()
    log.write("vad", stop_secs=analyzer.params.stop_secs, start_secs=analyzer.params.start_secs)  # pipecat's defaults
    vad = VADProcessor(vad_analyzer=analyzer)
    turns = UserTurnProcessor(
        user_turn_strategies=UserTurnStrategies(
            start=[VADUserTurnStartStrategy(enable_interruptions=kind == "yields")],
            stop=[turn_stop(stop)],
        )
    )
    responder = ScriptedResponder(log)
    tts = EspeakTTSService()
    pipeline = Pipeline([transport.input(), vad, turns, responder, tts, transport.output()])
    task = PipelineTask(
        pipeline,
        params=PipelineParams(audio_in_sample_rate=RATE, audio_out_sample_rate=RATE),
        enable_rtvi=False,
    )

    @transport.event_handler("on_client_connected")
    async def on_client_connected(_transport: Any, _client: Any) -> None:
        if kind != "waits":
            log.write("reply", text=GREETING)
            await task.queue_frames([TTSSpeakFrame(GREETING)])

    @transport.event_handler("on_client_disconnected")
    async def on_client_disconnected(_transport: Any, _client: Any) -> None:
        log.write("call_ended")
        await task.cancel()

    await PipelineRunner(handle_sigint=False).run(task)


def app_for(kind: str, log: EventLog, stop: str) -> FastAPI:
    app = FastAPI()

    @app.websocket("/ws")
    async def media_stream(websocket: WebSocket) -> None:
        await websocket.accept()
        await run_bot(websocket, kind, log, stop)

    @app.websocket("/ws/{call_kind}/{call}")
    async def tagged_stream(websocket: WebSocket, call_kind: str, call: str) -> None:
        if call_kind not in KINDS:
            await websocket.close(code=1008)
            return
        await websocket.accept()
        log.call = call
        await run_bot(websocket, call_kind, log, stop)

    return app


def forced_stop(message: Any, log: EventLog) -> None:
    """pipecat's VAD says the user stopped because no audio came for 1 s (VADProcessor's audio_idle_timeout), not
    because it heard silence: a caller's line that goes quiet between utterances. Only a log line tells it apart
    (pipecat 1.14's wording)."""
    if "no audio received while speaking" in str(message):
        log.write("vad_forced_stop")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=KINDS, required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, default=None)
    parser.add_argument("--turn-stop", choices=("smart_turn", "timeout"), default="smart_turn")
    args = parser.parse_args(argv)
    log = EventLog(args.log)
    logger.remove()
    logger.add(sys.stderr, level="WARNING")  # pipecat logs every frame event at DEBUG
    logger.add(lambda message: forced_stop(message, log), level="WARNING")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)  # a caller that dials before uvicorn runs waits in the backlog instead of being refused
    config = uvicorn.Config(app_for(args.kind, log, args.turn_stop), log_level="warning")
    server = uvicorn.Server(config)
    print(f"ready ws://127.0.0.1:{sock.getsockname()[1]}/ws", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
