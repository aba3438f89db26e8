"""evalkit's reference agent server: an in-process agent (the embedded cascade or any registered kind) behind the
Twilio Media Streams protocol, one fresh agent per call, many calls at once (``python -m evalkit.serve``).

Per call: the ``start`` message opens the agent (its greeting is spoken first); the caller's μ-law frames are
decoded and its turns found on the line, which carries frames all call long (silence or background between the
caller's utterances, as a phone line does): a turn is the audio between the caller's ``user_speech_start`` and
``user_speech_stop`` events, or, for a caller that sends no speech events, from its first frame above
``silence_dbfs`` to ``take_turn_after_silence_ms`` of frames below it (audio time; a caller that stops sending
frames ends its turn after as long without media); the agent's ``respond`` runs in a thread (the
server keeps serving other calls) and its reply streams back as 20 ms frames in real time, then a ``mark``. A
``user_speech_start`` while the agent talks is a barge-in: the reply stops, a ``clear`` goes out, and an agent that
recovers from interruptions (``interrupted(delivered, undelivered, full)``, the embedded ones) is told what the
caller heard: the words its streamed audio covered (IHBench's recoveries follow from it). The transcript message
carries ``duration_ms``, the reply's audio length, so a caller can place a word of the text on the audio. When the agent
ends the call it closes the socket after its last frame.

Tools: the agent calls its tools through the harness's tool endpoint (``customParameters.tool_endpoint``, see
evalkit.wire.tools): its ToolBox's executor is an HTTP client of that endpoint, so the calls run on the caller's
DB and the caller records them; the server never holds the scenario DB. Without a ``tool_endpoint`` the agent runs
without tools. A failing tool endpoint (unreachable, the session gone) ends that call (close code 1011). A
malformed or oversize frame never takes the server down: a bad JSON frame is logged and skipped, an oversize one
closes that call only (websockets' ``max_size``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.call.interrupt import delivered_at
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.records import AudioClip
from evalkit.speech.vad import RmsVad
from evalkit.wire.tools.remote import RemoteExecutor
from evalkit.wire.twilio_ws import protocol
from evalkit.wire.twilio_ws.codec import MIME, Encoding, decode, encode, resample

log = logging.getLogger("evalkit.serve")
ENCODING_OF_MIME = {mime: encoding for encoding, mime in MIME.items()}
SILENCE_DBFS = -50.0  # a caller frame below this level is not speech (callers without speech events)


class UnsupportedFormat(ValueError):
    """The caller's ``start`` asks for an audio format this server does not speak: the call is refused."""


def call_format(start: dict[str, Any]) -> tuple[Encoding, int]:
    """(encoding, sample rate) of a call from its ``start.mediaFormat``: μ-law 8 kHz when absent (Twilio's only
    format), PCM16 (audio/x-l16) at the declared rate otherwise (the caller's ``agent.encoding=pcm16`` option)."""
    media_format = start.get("mediaFormat") or {}
    mime = str(media_format.get("encoding", MIME["mulaw"]))
    if mime not in ENCODING_OF_MIME:
        raise UnsupportedFormat(f"unsupported audio encoding {mime!r}; this server speaks {sorted(ENCODING_OF_MIME)}")
    try:
        rate = int(media_format.get("sampleRate", protocol.SAMPLE_RATE))
    except (TypeError, ValueError):
        raise UnsupportedFormat(f"sampleRate {media_format.get('sampleRate')!r} is not a number") from None
    if not 8000 <= rate <= 48000 or int(media_format.get("channels", 1)) != 1:
        raise UnsupportedFormat(f"unsupported format {media_format}: mono, 8000-48000 Hz")
    return ENCODING_OF_MIME[mime], rate


class ServedCall:
    """One call: the agent, the caller's buffered audio, and the agent's reply in flight."""

    def __init__(self, ws: ServerConnection, agent: Any, take_turn_after_silence_ms: float) -> None:
        self.ws = ws
        self.agent = agent
        self.silence_s = take_turn_after_silence_ms / 1000.0
        self.stream_sid = ""
        self._audio: list[np.ndarray] = []
        self._speech_events = False  # the caller marks its turns itself: no silence detection needed
        self._reply: asyncio.Task[None] | None = None
        self._turns = 0
        self._remote: RemoteExecutor | None = None  # the HTTP client of the call's tool endpoint
        self.encoding: Encoding = "mulaw"  # the call's audio format, from its start message
        self._speaking: tuple[str, int, int] | None = None  # (text, frames sent, frames) of the reply on the line
        self.sample_rate = protocol.SAMPLE_RATE
        self._in_speech = False  # between the caller's user_speech_start and user_speech_stop
        self._vad = RmsVad(SILENCE_DBFS)  # a caller without speech events: its turns by level
        self._quiet: list[np.ndarray] = []  # quiet frames since the caller's last voiced one (a pause, or the end)
        self._computing: asyncio.Future[AgentReply] | None = None  # the agent's last start/respond, in its thread

    async def run(self) -> None:
        while True:
            waiting_for_silence = self._audio and not self._speech_events
            try:
                raw = await asyncio.wait_for(self.ws.recv(), self.silence_s if waiting_for_silence else None)
            except TimeoutError:  # recv() is cancellation-safe: nothing is lost
                self._caller_turn_ended()
                continue
            try:
                message = protocol.parse(raw)
            except protocol.ProtocolError as exc:
                log.warning("call %s: skipped a frame: %s", self.stream_sid or "?", exc)
                continue
            if message["event"] == "stop":
                return
            await self._on(message)

    async def _on(self, message: dict[str, Any]) -> None:
        event = message["event"]
        if event == "start":
            await self._start(message.get("start") or {})
        elif event == "media":
            try:
                samples = decode(protocol.payload_of(message), self.encoding)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("call %s: skipped a media frame: %r", self.stream_sid, exc)
                return
            self._on_media(samples)
        elif event == "user_speech_start":
            self._speech_events = self._in_speech = True
            self._audio = []  # the line before the caller spoke is not its turn
            await self._barge_in()
        elif event == "user_speech_stop":
            self._speech_events, self._in_speech = True, False
            self._caller_turn_ended()

    def _on_media(self, samples: np.ndarray) -> None:
        """A frame of the caller's line: part of its turn between its speech events, or, without them, from its
        first voiced frame until ``silence_s`` of quiet frames."""
        if self._speech_events:
            if self._in_speech:
                self._audio.append(samples)
            return
        if self._vad.is_speech(samples, self.sample_rate):
            self._audio += [*self._quiet, samples]  # a pause inside the turn stays in it
            self._quiet = []
        elif self._audio:
            self._quiet.append(samples)
            if sum(q.size for q in self._quiet) / self.sample_rate >= self.silence_s:
                self._caller_turn_ended()

    async def _start(self, start: dict[str, Any]) -> None:
        self.stream_sid = str(start.get("streamSid", ""))
        try:
            self.encoding, self.sample_rate = call_format(start)
        except UnsupportedFormat as exc:  # a wrong sample format ends this call with the reason, never the server
            log.warning("call %s: %s", self.stream_sid or "?", exc)
            await self.ws.close(1003, str(exc)[:120])
            return
        custom = start.get("customParameters") or {}
        domain = str(custom.get("domain", ""))
        endpoint = str(custom.get("tool_endpoint") or "")
        if not endpoint:
            log.warning("call %s: no tool_endpoint in customParameters: the agent runs without tools", self.stream_sid)
        executor = RemoteExecutor(endpoint) if endpoint else ToolExecutor(ToolRegistry(), {})
        self._remote = executor if isinstance(executor, RemoteExecutor) else None
        context = AgentContext(
            domain, str(custom.get("current_date_time", "")), ToolBox(executor), str(custom.get("scenario_id"))
        )
        self._then(lambda: self.agent.start(context))

    def _caller_turn_ended(self) -> None:
        frames, self._audio = self._audio, []
        self._quiet = []  # the silence that ended the turn is not part of it
        samples = np.concatenate(frames) if frames else np.zeros(0, dtype=np.float32)
        self._then(lambda: self.agent.respond(AudioClip(samples=samples, sample_rate=self.sample_rate)))

    def _then(self, compute: Callable[[], AgentReply]) -> None:
        """Compute the agent's next reply (in a thread) and speak it after whatever it is saying now. A barge-in
        cancels the speaking, never the computing: the agent's ``start`` / ``respond`` calls run to the end and in
        order (a caller that speaks while the greeting is still being computed must not find the agent unstarted)."""
        previous, earlier = self._reply, self._computing
        computing = asyncio.ensure_future(_in_order(earlier, compute))
        computing.add_done_callback(lambda f: f.cancelled() or f.exception())  # a cut reply's failure: seen below
        self._computing = computing

        async def reply() -> None:
            if previous is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await previous
            try:
                answer = await asyncio.shield(computing)
            except Exception as exc:  # the agent (or its tool endpoint) failed: this call ends, the server goes on
                log.error("call %s: the agent failed: %s: %s", self.stream_sid or "?", type(exc).__name__, exc)
                await self.ws.close(1011, f"agent failed: {type(exc).__name__}"[:120])
                return
            await self._speak(answer)

        self._reply = asyncio.create_task(reply())

    async def _speak(self, reply: AgentReply) -> None:
        # reply.tool_calls went through the harness's tool endpoint, which recorded them: nothing to report
        transcript = {"text": reply.text, "heard_text": reply.heard_text, "end_call": reply.end_call}
        if reply.audio is not None:
            transcript["duration_ms"] = reply.audio.duration_s * 1000.0
        if reply.acts:  # the agent's dialogue acts, for a caller that wants exactness
            transcript["acts"] = [{k: v for k, v in asdict(act).items() if v is not None} for act in reply.acts]
        await self._send({"event": protocol.TRANSCRIPT_EVENT, "streamSid": self.stream_sid, **transcript})
        if reply.audio is not None:
            wire = encode(resample(reply.audio.samples, reply.audio.sample_rate, self.sample_rate), self.encoding)
            await self._stream(wire, reply.text)
        self._turns += 1
        await self._send(protocol.mark(self.stream_sid, f"agent-turn-{self._turns}"))
        if reply.end_call:
            await self.ws.close()  # the agent hangs up once its goodbye has been sent

    async def _stream(self, wire: bytes, text: str = "") -> None:
        """20 ms frames at real-time pace (a caller may take early audio for the end of a turn otherwise)."""
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        frame_bytes = int(self.sample_rate * protocol.FRAME_MS / 1000) * (1 if self.encoding == "mulaw" else 2)
        frames = -(-len(wire) // frame_bytes)
        try:
            for i, at in enumerate(range(0, len(wire), frame_bytes)):
                self._speaking = (text, i, frames)
                await asyncio.sleep(max(0.0, t0 + i * protocol.FRAME_MS / 1000.0 - loop.time()))
                await self._send(protocol.media(self.stream_sid, wire[at : at + frame_bytes]))
        finally:
            self._speaking = None

    async def _barge_in(self) -> None:
        if self._reply is not None and not self._reply.done():
            speaking = self._speaking
            self._reply.cancel()
            await self._send(protocol.clear(self.stream_sid))
            tell = getattr(self.agent, "interrupted", None)
            if speaking is not None and tell is not None:  # what the caller heard: the frames streamed so far
                text, sent, frames = speaking
                delivered = delivered_at(text, len(text) * sent // max(1, frames))
                tell(delivered, text[len(delivered) :].strip(), text)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message, default=str, separators=(",", ":")))

    async def close(self) -> None:
        if self._reply is not None:
            self._reply.cancel()
            with contextlib.suppress(BaseException):
                await self._reply
        if self._remote is not None:
            self._remote.close()


async def _in_order(earlier: asyncio.Future[AgentReply] | None, compute: Callable[[], AgentReply]) -> AgentReply:
    """``compute`` in a thread once the agent's previous computation is over, whatever became of it."""
    if earlier is not None:
        with contextlib.suppress(BaseException):
            await earlier
    return await asyncio.to_thread(compute)


class ReferenceServer:
    """``make_agent`` builds a fresh in-process agent for every call."""

    def __init__(
        self,
        make_agent: Callable[[], Any],
        host: str = "127.0.0.1",
        port: int = 8765,
        take_turn_after_silence_ms: float = 700.0,
        max_message_bytes: int = 1 << 20,
    ) -> None:
        self.make_agent = make_agent
        self.host = host
        self.port = port
        self.take_turn_after_silence_ms = take_turn_after_silence_ms
        self.max_message_bytes = max_message_bytes
        self.calls = 0

    async def _handle(self, ws: ServerConnection) -> None:
        self.calls += 1
        agent = await asyncio.to_thread(self.make_agent)  # off the loop: the other calls keep their pace meanwhile
        call = ServedCall(ws, agent, self.take_turn_after_silence_ms)
        try:
            await call.run()
        except ConnectionClosed:
            pass  # the caller hung up (or its frame was oversize): this call only
        except Exception:
            log.exception("call %s failed", call.stream_sid or "?")
        finally:
            await call.close()

    async def serve_until(self, stop: asyncio.Event, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve until ``stop`` is set, then close every call and return. One agent is built (and dropped) before
        the server listens: the models it loads stay cached in the process, so the first call's greeting is not late
        by their loading (a caller that waits ``greeting_wait_s`` would open the call itself, and that call's record
        would differ from every later one's)."""
        await asyncio.to_thread(self.make_agent)
        async with serve(self._handle, self.host, self.port, max_size=self.max_message_bytes) as server:
            if on_ready is not None:
                on_ready(url_of(server))
            await stop.wait()
            server.close()
            await server.wait_closed()


def url_of(server: Server) -> str:
    host, port = next(iter(server.sockets)).getsockname()[:2]
    return f"ws://{host}:{port}"
