"""A real OpenAI-Realtime-protocol WebSocket server on 127.0.0.1 for tests, offline, driving evalkit's embedded
cascade agent (``evalkit.agents.reference.cascade_local``: Whisper tiny.en -> the local dialogue policy -> eSpeak NG).

    with RealtimeTestServer() as server:
        ... agent=openai_realtime agent.url=server.url ... (server.overrides())

Per connection (``/v1/realtime?model=...``): ``session.created``; ``session.update`` in either dialect (GA:
``session.type: realtime`` with ``audio.input/output``; beta: flat fields), answered with ``session.updated``;
``input_audio_buffer.append`` (pcm16 24 kHz or G.711 μ-law 8 kHz, base64); ``input_audio_buffer.commit`` /
``clear``; ``response.create``; ``response.cancel``; ``conversation.item.create`` (``function_call_output``);
``conversation.item.truncate`` (refused past the item's audio, as OpenAI does); anything else is an ``error``.

Turn detection: with ``server_vad`` (or ``semantic_vad``, treated alike) an energy rule: a 20 ms append above
-45 dBFS is speech; ``speech_started`` at the first voiced append (the prefix padding before it is kept),
``speech_stopped`` after ``silence_duration_ms`` (default 500) of appends below it, then the turn is committed and
answered (``create_response``, default on); speech while a response is active cancels it (``interrupt_response``,
default on). With ``turn_detection: null`` only the caller's commit ends a turn.

The agent: the session's domain is the one whose tool names are the session's tools and its date the
instructions' "Today is ..." line (the server knows only what the protocol tells it). ``response.create`` runs the
agent's ``start`` (the first response: the greeting) or ``respond`` on the last committed turn in a thread; each
tool call the policy makes goes out as a ``function_call`` item (``response.output_item.added``,
``response.function_call_arguments.delta`` / ``.done``, ``response.output_item.done``) and the response ends
(``response.done``); the agent's thread blocks until the client has sent the call's ``function_call_output`` and
a ``response.create``, whose response goes on with the output as the tool's result. So the tools run in the
harness, never here. The reply streams as one assistant message item: audio deltas of 100 ms at
``audio_pace`` times real time (0: all at once) interleaved with transcript deltas, the ``*.done`` events and
``response.done``. With input transcription on, the agent's Whisper transcript of a turn is sent as
``conversation.item.input_audio_transcription.completed``. When the policy ends the call the server closes the
socket after its last response.

Test hooks: ``api_key`` (the handshake needs ``Authorization: Bearer <key>``, else HTTP 401), ``models`` (another
``?model=`` gets OpenAI's ``model_not_found`` error event and the socket closes), ``error_on`` (client event type
-> the n-th one of that type is answered with a ``server_error`` event instead), ``make_agent`` (another
in-process agent), ``events`` (every client event received, audio payloads left out), ``first_audio_ms``
(per answered response: from its start to its first audio delta, tool round trips included), ``usage_sent`` (the
deterministic ``usage`` of every ``response.done``: 50 input tokens, 5 text and 20 audio tokens per second out).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.agents.reference.cascade_local import CascadeLocalAgent, CascadeLocalConfig
from evalkit.call.interrupt import delivered_at
from evalkit.domains import DOMAINS, tool_registry
from evalkit.domains.base import ToolRegistry
from evalkit.records import AudioClip
from evalkit.speech.vad import level_dbfs
from evalkit.wire.twilio_ws.codec import decode, encode, resample

MODEL = "evalkit-cascade-realtime"
# above the café bed that the caller's continuous line carries between utterances at 15 dB SNR (issue 26: a
# server VAD must hear the caller stop through the background; -45 took the bed for speech and never answered)
SPEECH_DBFS = -30.0
DELTA_MS = 100.0
FORMATS = {"pcm16": ("pcm16", 24_000), "g711_ulaw": ("mulaw", 8_000)}
GA_FORMATS = {"audio/pcm": "pcm16", "audio/pcmu": "g711_ulaw"}
EVENT_NAMES = {  # what the server sends, per dialect
    "ga": {
        "audio": "response.output_audio.delta",
        "audio_done": "response.output_audio.done",
        "transcript": "response.output_audio_transcript.delta",
        "transcript_done": "response.output_audio_transcript.done",
        "item_created": "conversation.item.added",
    },
    "beta": {
        "audio": "response.audio.delta",
        "audio_done": "response.audio.done",
        "transcript": "response.audio_transcript.delta",
        "transcript_done": "response.audio_transcript.done",
        "item_created": "conversation.item.created",
    },
}


class ClientError(Exception):
    """A client event the server refuses: answered with an ``error`` event (the session goes on)."""

    def __init__(self, code: str, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.code, self.kind = code, kind


class ResponseCancelled(BaseException):
    """The agent's thread asked for a tool in a response the client cancelled: its turn stops there."""


class EngineLock:
    """The embedded engines (one Whisper, one eSpeak) shared by every call, one call of theirs at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._agent: CascadeLocalAgent | None = None

    def engines(self) -> tuple[Any, Any]:
        with self.lock:
            if self._agent is None:
                self._agent = CascadeLocalConfig(name="cascade_local").build()
            return self._agent.asr, self._agent.tts


class HeardASR:
    """The agent's ASR, telling the session what it heard (the input transcription event)."""

    def __init__(self, asr: Any, lock: threading.Lock, on_text: Callable[[str], None]) -> None:
        self.asr, self.lock, self.on_text = asr, lock, on_text

    def transcribe(self, samples: np.ndarray, sample_rate: int) -> Any:
        with self.lock:
            transcript = self.asr.transcribe(samples, sample_rate)
        self.on_text(transcript.text)
        return transcript


class LockedTTS:
    def __init__(self, tts: Any, lock: threading.Lock) -> None:
        self.tts, self.lock = tts, lock

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        with self.lock:
            return self.tts.synthesize(text)


class ForwardingExecutor:
    """The agent's executor: each call goes out to the client as a function call and waits for its output."""

    def __init__(self, session: ServedSession, registry: ToolRegistry) -> None:
        self.session = session
        self.registry = registry
        self.db: dict[str, Any] = {}  # the scenario DB is the harness's: never here

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        future = asyncio.run_coroutine_threadsafe(self.session.function_call(name, arguments), self.session.loop)
        return future.result(timeout=120)


class EnergyVad:
    """server_vad's stand-in: appends above SPEECH_DBFS are speech; a turn ends after ``silence_ms`` without."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.silence_ms = float(settings.get("silence_duration_ms") or 500)
        self.prefix_ms = float(settings.get("prefix_padding_ms") or 300)
        self.create_response = settings.get("create_response", True)
        self.interrupt_response = settings.get("interrupt_response", True)
        self.audio_ms = 0.0
        self.speaking = False
        self.quiet_ms = 0.0
        self.segment: list[np.ndarray] = []
        self.prefix: deque[np.ndarray] = deque()

    def feed(self, samples: np.ndarray, rate: int) -> str | None:
        """'started', 'stopped' (the turn is ``self.segment``) or None."""
        ms = samples.size / rate * 1000.0
        self.audio_ms += ms
        voiced = level_dbfs(samples) > SPEECH_DBFS
        if not self.speaking:
            self.prefix.append(samples)
            while len(self.prefix) > 1 and sum(p.size for p in self.prefix) / rate * 1000.0 > self.prefix_ms + ms:
                self.prefix.popleft()
            if voiced:
                self.speaking, self.quiet_ms, self.segment = True, 0.0, list(self.prefix)
                self.prefix.clear()
                return "started"
            return None
        self.segment.append(samples)
        self.quiet_ms = 0.0 if voiced else self.quiet_ms + ms
        if self.quiet_ms >= self.silence_ms:
            self.speaking = False
            return "stopped"
        return None


class ServedSession:
    """One Realtime connection: the session's settings, the caller's audio, and the agent's responses."""

    def __init__(self, server: RealtimeTestServer, ws: ServerConnection) -> None:
        self.server, self.ws = server, ws
        self.loop = asyncio.get_running_loop()
        self.dialect = "ga"
        self.format = "pcm16"
        self.turn_detection: dict[str, Any] | None = {"type": "server_vad"}
        self.vad: EnergyVad | None = EnergyVad({})
        self.transcribe = False
        self.tool_names: list[str] = []
        self.instructions = ""
        self.agent: Any = None
        self.context: AgentContext | None = None
        self.buffer: list[np.ndarray] = []
        self.pending: tuple[str, AudioClip] | None = None  # the caller's committed turn, not answered yet
        self.answering: str | None = None  # the user item the agent is answering
        self.greeted = False
        self.response: str | None = None  # the active response
        self.response_started = 0.0
        self.cancelled: set[str] = set()
        self.worker: asyncio.Task[None] | None = None
        self.waiting: asyncio.Future[str] | None = None  # a tool call waiting for the next response.create
        self.outputs: dict[str, str] = {}
        self.known_calls: set[str] = set()
        self.items_ms: dict[str, float] = {}  # assistant audio items: how much audio each has
        self.items_text: dict[str, str] = {}  # ... and what they say
        self.counts: Counter[str] = Counter()
        self._ids = itertools.count(1)
        self._last_item: str | None = None

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):04d}"

    async def send(self, kind: str, **fields: Any) -> None:
        """A server event; once the client has closed, nothing (what it sent before closing is still handled)."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps({"type": kind, "event_id": self.new_id("event"), **fields}))

    async def error(self, code: str | None, message: str, kind: str = "invalid_request_error", **extra: Any) -> None:
        await self.send("error", error={"type": kind, "code": code, "message": message, "param": None, **extra})

    # -- the session ----------------------------------------------------------------------------------------

    async def run(self, model: str) -> None:
        if model not in self.server.models:
            message = f"The model `{model}` does not exist or you do not have access to it."
            await self.error("model_not_found", message)
            await self.ws.close(1008, "model_not_found")
            return
        await self.send("session.created", session={"id": self.new_id("sess"), "model": model})
        handlers = {
            "session.update": self.session_update,
            "input_audio_buffer.append": self.append,
            "input_audio_buffer.commit": self.commit_buffer,
            "input_audio_buffer.clear": self.clear_buffer,
            "conversation.item.create": self.item_create,
            "conversation.item.truncate": self.truncate,
            "response.create": self.response_create,
            "response.cancel": self.response_cancel,
        }
        async for raw in self.ws:
            try:
                event = json.loads(raw)
                kind = event["type"]
            except (ValueError, KeyError, TypeError):
                await self.error("invalid_json", f"could not parse the client event: {str(raw)[:60]!r}")
                continue
            self.server.record(event)
            self.counts[kind] += 1
            if self.server.error_on.get(kind) == self.counts[kind]:
                await self.error(None, f"The server had an error while processing {kind} (injected).", "server_error")
                continue
            handler = handlers.get(kind)
            try:
                if handler is None:
                    raise ClientError(
                        "unknown_event", f"Invalid value: '{kind}'. Supported values are: {list(handlers)}"
                    )
                await handler(event)
            except ClientError as exc:
                await self.error(exc.code, str(exc), exc.kind, event_id=event.get("event_id"))

    async def session_update(self, event: dict[str, Any]) -> None:
        session = event.get("session") or {}
        if session.get("type") == "realtime" or "audio" in session:
            self.dialect = "ga"
            audio_in = (session.get("audio") or {}).get("input") or {}
            fmt = GA_FORMATS.get(str((audio_in.get("format") or {}).get("type", "audio/pcm")))
            settings = audio_in
            transcription = audio_in.get("transcription")
        else:
            self.dialect = "beta"
            fmt = session.get("input_audio_format", "pcm16")
            settings = session
            transcription = session.get("input_audio_transcription")
        if fmt not in FORMATS:
            raise ClientError("invalid_value", f"unsupported audio format in {session.get('audio') or session}")
        self.format = fmt
        if "turn_detection" in settings:
            self.turn_detection = settings["turn_detection"]
            self.vad = EnergyVad(self.turn_detection) if self.turn_detection else None
        self.transcribe = bool(transcription)
        self.instructions = str(session.get("instructions", self.instructions))
        if "tools" in session:
            self.tool_names = [str(t.get("name")) for t in session["tools"]]
        await self.send("session.updated", session={"id": self.new_id("sess"), "object": "realtime.session", **session})

    @property
    def rate(self) -> int:
        return FORMATS[self.format][1]

    async def append(self, event: dict[str, Any]) -> None:
        try:
            samples = decode(base64.b64decode(event["audio"], validate=True), FORMATS[self.format][0])
        except (KeyError, ValueError) as exc:
            raise ClientError("invalid_value", f"audio is not base64 {self.format}: {exc}") from None
        if self.vad is None:
            self.buffer.append(samples)
            return
        state = self.vad.feed(samples, self.rate)
        if state == "started":
            await self.send("input_audio_buffer.speech_started", audio_start_ms=int(self.vad.audio_ms), item_id="")
            if self.vad.interrupt_response and self.response is not None:
                await self.cancel(self.response)
        elif state == "stopped":
            await self.send("input_audio_buffer.speech_stopped", audio_end_ms=int(self.vad.audio_ms), item_id="")
            await self.commit(np.concatenate(self.vad.segment))
            if self.vad.create_response and self.response is None:
                await self.start_response()

    async def commit_buffer(self, event: dict[str, Any]) -> None:
        if not self.buffer:
            raise ClientError("input_audio_buffer_commit_empty", "Error committing input audio buffer: it is empty.")
        samples, self.buffer = np.concatenate(self.buffer), []
        await self.commit(samples)

    async def clear_buffer(self, event: dict[str, Any]) -> None:
        self.buffer = []
        await self.send("input_audio_buffer.cleared")

    async def commit(self, samples: np.ndarray) -> None:
        item = self.new_id("item")
        self.pending = (item, AudioClip(samples=samples.astype(np.float32), sample_rate=self.rate))
        await self.send("input_audio_buffer.committed", previous_item_id=self._last_item, item_id=item)
        content = [{"type": "input_audio", "transcript": None}]
        user_item = {"id": item, "object": "realtime.item", "type": "message", "role": "user", "content": content}
        await self.send(EVENT_NAMES[self.dialect]["item_created"], previous_item_id=self._last_item, item=user_item)
        self._last_item = item

    async def item_create(self, event: dict[str, Any]) -> None:
        item = event.get("item") or {}
        if item.get("type") != "function_call_output":
            raise ClientError("invalid_value", f"this server takes function_call_output items only, got {item}")
        call_id = str(item.get("call_id"))
        if call_id not in self.known_calls:
            raise ClientError("item_not_found", f"no function call with call_id {call_id!r}")
        self.outputs[call_id] = str(item.get("output"))
        created = {"id": self.new_id("item"), "object": "realtime.item", **item}
        await self.send(EVENT_NAMES[self.dialect]["item_created"], previous_item_id=self._last_item, item=created)

    async def truncate(self, event: dict[str, Any]) -> None:
        item, end_ms = str(event.get("item_id")), event.get("audio_end_ms")
        if item not in self.items_ms:
            raise ClientError("item_not_found", f"no assistant audio item {item!r}")
        if not isinstance(end_ms, int) or not 0 <= end_ms <= self.items_ms[item] + 1:
            raise ClientError("invalid_value", f"audio_end_ms {end_ms} is past the item's {self.items_ms[item]:.0f} ms")
        self.server.truncations.append((item, end_ms, self.items_ms[item]))
        await self.send("conversation.item.truncated", item_id=item, content_index=0, audio_end_ms=end_ms)
        # the model's memory of the item is what was heard: an embedded agent recovers from there (IHBench)
        text, tell = self.items_text.get(item, ""), getattr(self.agent, "interrupted", None)
        if text and tell is not None and self.items_ms[item] > 0:
            delivered = delivered_at(text, int(len(text) * end_ms / self.items_ms[item]))
            tell(delivered, text[len(delivered) :].strip(), text)

    # -- responses ------------------------------------------------------------------------------------------

    async def response_create(self, event: dict[str, Any]) -> None:
        if self.response is not None:
            raise ClientError("conversation_already_has_active_response", "Conversation already has an active response")
        await self.start_response()

    async def response_cancel(self, event: dict[str, Any]) -> None:
        if self.response is None:
            raise ClientError("response_cancel_not_active", "Cancellation failed: no active response found")
        await self.cancel(self.response)

    async def cancel(self, response: str) -> None:
        self.cancelled.add(response)
        await self.finish(response, "cancelled", [])

    async def finish(self, response: str, status: str, output: list[dict[str, Any]]) -> None:
        if self.response == response:
            self.response = None
        audio_ms = sum(self.items_ms.get(str(item.get("id")), 0.0) for item in output)
        usage = {  # deterministic: 50 tokens of instructions, 20 audio tokens per second of output
            "input_tokens": 50,
            "output_tokens": 5 + round(audio_ms / 50),
            "input_token_details": {"text_tokens": 50, "audio_tokens": 0},
            "output_token_details": {"text_tokens": 5, "audio_tokens": round(audio_ms / 50)},
        }
        self.server.usage_sent.append(usage)
        body = {"id": response, "object": "realtime.response", "status": status, "output": output, "usage": usage}
        await self.send("response.done", response=body)

    async def start_response(self) -> None:
        response = self.new_id("resp")
        self.response = response
        await self.send(
            "response.created", response={"id": response, "object": "realtime.response", "status": "in_progress"}
        )
        if self.waiting is not None and not self.waiting.done():  # the agent goes on after its tool call
            self.waiting.set_result(response)
            return
        self.response_started = time.perf_counter()
        agent = self.embedded_agent()
        if not self.greeted:
            self.greeted = True
            compute: Callable[[], AgentReply] = lambda: agent.start(self.context)  # noqa: E731
        elif self.pending is not None:
            (self.answering, clip), self.pending = self.pending, None
            compute = lambda: agent.respond(clip)  # noqa: E731
        else:
            await self.finish(response, "completed", [])
            return
        self.worker = asyncio.create_task(self.answer(compute))

    def embedded_agent(self) -> Any:
        if self.agent is None:
            domain = next((d for d in DOMAINS.names() if sorted(tool_registry(d).names) == sorted(self.tool_names)), "")
            today = re.search(r"^Today is (.+)\.$", self.instructions, re.MULTILINE)
            registry = tool_registry(domain) if domain else ToolRegistry()
            self.context = AgentContext(domain, today[1] if today else "", ToolBox(ForwardingExecutor(self, registry)))
            self.agent = self.server.make_agent(self.heard)
        return self.agent

    def heard(self, text: str) -> None:
        """From the agent's thread: what its ASR heard of the turn it is answering."""
        if self.transcribe and self.answering is not None:
            event = {"item_id": self.answering, "content_index": 0, "transcript": text}
            asyncio.run_coroutine_threadsafe(
                self.send("conversation.item.input_audio_transcription.completed", **event), self.loop
            )

    async def answer(self, compute: Callable[[], AgentReply]) -> None:
        try:
            reply = await asyncio.to_thread(compute)
        except ResponseCancelled:
            return
        except Exception as exc:  # the agent failed: the session says so
            await self.error(None, f"The agent failed: {type(exc).__name__}: {exc}", "server_error")
            return
        response = self.response
        if response is None or response in self.cancelled:
            return
        await self.speak(response, reply)
        if reply.end_call:
            await self.ws.close()

    async def function_call(self, name: str, arguments: Any) -> dict[str, Any]:
        """On the server's loop, for the agent's thread: the call goes out, the response ends, the output comes."""
        response = self.response
        if response is None or response in self.cancelled:
            raise ResponseCancelled
        call_id, item_id = self.new_id("call"), self.new_id("item")
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        item = {"id": item_id, "object": "realtime.item", "type": "function_call", "status": "completed"}
        item |= {"call_id": call_id, "name": name, "arguments": text}
        where = {"response_id": response, "output_index": 0}
        await self.send("response.output_item.added", **where, item={**item, "status": "in_progress", "arguments": ""})
        await self.send("response.function_call_arguments.delta", **where, item_id=item_id, call_id=call_id, delta=text)
        await self.send(
            "response.function_call_arguments.done",
            **where,
            item_id=item_id,
            call_id=call_id,
            name=name,
            arguments=text,
        )
        await self.send("response.output_item.done", **where, item=item)
        self.known_calls.add(call_id)
        self.waiting = self.loop.create_future()
        await self.finish(response, "completed", [item])
        await self.waiting
        self.waiting = None
        if call_id not in self.outputs:
            raise RuntimeError(f"the client asked for a response without the output of {call_id} ({name})")
        output = self.outputs.pop(call_id)
        try:
            result = json.loads(output)
        except ValueError:
            result = {"status": "error", "message": output}
        return result if isinstance(result, dict) else {"status": "error", "message": output}

    async def speak(self, response: str, reply: AgentReply) -> None:
        names = EVENT_NAMES[self.dialect]
        item_id = self.new_id("item")
        where = {"response_id": response, "item_id": item_id, "output_index": 0, "content_index": 0}
        message = {"id": item_id, "object": "realtime.item", "type": "message", "role": "assistant"}
        await self.send(
            "response.output_item.added", response_id=response, output_index=0, item={**message, "content": []}
        )
        await self.send("response.content_part.added", **where, part={"type": "audio", "transcript": ""})
        codec, rate = FORMATS[self.format]
        samples = resample(reply.audio.samples, reply.audio.sample_rate, rate) if reply.audio else np.zeros(0)
        step = int(rate * DELTA_MS / 1000)
        chunks = [samples[i : i + step] for i in range(0, samples.size, step)] or [samples]
        words = reply.text.split()
        self.items_ms[item_id] = 0.0
        self.items_text[item_id] = reply.text
        t0 = time.perf_counter()
        self.server.first_audio_ms.append((t0 - self.response_started) * 1000.0)
        for n, chunk in enumerate(chunks):
            if response in self.cancelled:
                return
            if self.server.audio_pace > 0:
                await asyncio.sleep(max(0.0, t0 + n * DELTA_MS / 1000 / self.server.audio_pace - time.perf_counter()))
            audio = base64.b64encode(encode(chunk, codec)).decode("ascii")
            await self.send(names["audio"], **where, delta=audio)
            self.items_ms[item_id] += chunk.size / rate * 1000.0
            self.server.audio_s_streamed += chunk.size / rate
            said = [w for i, w in enumerate(words) if i * len(chunks) // len(words) == n]  # words lead their audio
            if said:
                await self.send(names["transcript"], **where, delta=(" " if n else "") + " ".join(said))
        if response in self.cancelled:
            return
        await self.send(names["audio_done"], **where)
        await self.send(names["transcript_done"], **where, transcript=reply.text)
        await self.send("response.content_part.done", **where, part={"type": "audio", "transcript": reply.text})
        done = {**message, "status": "completed", "content": [{"type": "output_audio", "transcript": reply.text}]}
        await self.send("response.output_item.done", response_id=response, output_index=0, item=done)
        await self.finish(response, "completed", [done])

    async def close(self) -> None:
        if self.waiting is not None and not self.waiting.done():
            self.waiting.cancel()
        if self.worker is not None:
            self.worker.cancel()


class RealtimeTestServer:
    def __init__(
        self,
        make_agent: Callable[[Callable[[str], None]], Any] | None = None,
        api_key: str | None = None,
        audio_pace: float = 2.0,
        models: set[str] | None = None,
    ) -> None:
        self.make_agent = make_agent or self._embedded_agent
        self.api_key = api_key
        self.audio_pace = audio_pace
        self.models = models or {MODEL}
        self.error_on: dict[str, int] = {}
        self.events: list[dict[str, Any]] = []
        self.authorization: list[str | None] = []
        self.truncations: list[tuple[str, int, float]] = []  # (item, audio_end_ms, the item's audio ms)
        self.first_audio_ms: list[float] = []
        self.audio_s_streamed = 0.0  # assistant audio sent in deltas, all sessions
        self.usage_sent: list[dict[str, Any]] = []  # the usage of every response.done, in order (evalkit meters it)
        self.calls = 0
        self._engines = EngineLock()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.port = 0

    def _embedded_agent(self, on_heard: Callable[[str], None]) -> CascadeLocalAgent:
        asr, tts = self._engines.engines()
        return CascadeLocalAgent(HeardASR(asr, self._engines.lock, on_heard), LockedTTS(tts, self._engines.lock))

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime"

    def overrides(self, key_env: str | None = None, *extra: str) -> list[str]:
        """Hydra overrides pointing ``agent=openai_realtime`` at this server."""
        return [
            "agent=openai_realtime",
            f"agent.url={self.url}",
            f"agent.model={MODEL}",
            f"agent.api_key_env={key_env or 'null'}",
            *extra,
        ]

    def record(self, event: dict[str, Any]) -> None:
        self.events.append({k: v for k, v in event.items() if k != "audio"})

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def __enter__(self) -> RealtimeTestServer:
        if self.make_agent == self._embedded_agent:
            self._engines.engines()  # Whisper loads here, not on the server's event loop during a call
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the Realtime test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0, process_request=self._check, max_size=None) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def _check(self, connection: ServerConnection, request: Any) -> Any:
        authorization = request.headers.get("Authorization")
        self.authorization.append(authorization)
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return connection.respond(HTTPStatus.UNAUTHORIZED, "Incorrect API key provided.\n")
        return None

    async def _handle(self, ws: ServerConnection) -> None:
        self.calls += 1
        model = (parse_qs(urlsplit(ws.request.path).query).get("model") or [""])[0]
        session = ServedSession(self, ws)
        try:
            await session.run(model)
        except ConnectionClosed:  # the caller hung up: this call only
            pass
        except Exception:  # a bug here: shown in the test's output, and this call ends
            traceback.print_exc()
        finally:
            await session.close()
