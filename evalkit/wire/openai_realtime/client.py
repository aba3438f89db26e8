"""The caller's side of an OpenAI Realtime session: the call loop's ``AgentSession`` over the Realtime events.

Opening: connect (``?model=``, ``Authorization: Bearer`` from the key's environment variable), ``session.update``
(the domain's s2s agent prompt as instructions, the domain's tools, voice, audio formats, turn detection, input
transcription), wait for ``session.updated``, then ``response.create`` with the greeting to say: the agent speaks
first (EVA-Bench §2.1).

The caller's frames go out as ``input_audio_buffer.append`` (20 ms, paced by the loop's real clock). With server
VAD the line stays open as on a phone call: between the caller's turns the loop's line (evalkit.call.line) keeps
sending 20 ms frames of silence or the condition's ambient bed, so the server hears the caller stop and answers by
itself; with ``turn_detection: none`` only the caller's speech is appended, and the session commits the buffer and
asks for a response (``input_audio_buffer.commit`` + ``response.create``) at the end of the caller's turn.

The agent's audio deltas are cut into 20 ms frames and played out in real time whatever pace they come at (a
jitter buffer, as in evalkit.wire.twilio_ws.client): each voiced frame becomes an ``AgentSpeech`` chunk when it
starts playing, silent ones only mark time. The words are the model's transcript (``*_transcript.done`` per output
item, riding on the next chunk), so the simulator answers what the model said; the heard text is the server's
input transcription of the caller's turn, when ``input_transcription_model`` is set. ``response.done`` ends the
agent's turn once its audio has played out, unless the response asked for tools: then each function call runs in
the harness (``ToolBox.call_json``: recorded on the conversation's DB, a malformed call is the agent's error
result), its result goes back as a ``function_call_output`` item and a ``response.create`` lets the model go on.

Barge-in (``interrupt``, or the server hearing the caller start, ``input_audio_buffer.speech_started``, while the
agent's audio plays: the caller talking over it, IHBench's interruptions): the unplayed audio is dropped, the active
response is cancelled (``response.cancel``) and the item that was playing is truncated to what the caller heard
(``conversation.item.truncate``, its ``audio_end_ms``); whatever that response still sends is ignored. An ``error``
event (but a cancel that came too late), a failed response, a refused or dropped connection and malformed JSON raise
``WireError`` with the reason: the loop records an infrastructure failure.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    ConnectionClosedError,
    ConnectionClosedOK,
    InvalidHandshake,
    InvalidURI,
)

from evalkit import usage
from evalkit.agents.base import AgentContext
from evalkit.call.clock import Clock
from evalkit.call.events import AgentEvent, AgentSpeech, AgentTurnEnd, Frame
from evalkit.prompts import render_agent_prompt
from evalkit.records import AudioClip
from evalkit.speech.vad import level_dbfs
from evalkit.wire.errors import WireError
from evalkit.wire.openai_realtime import protocol
from evalkit.wire.tools.session import openai_tools
from evalkit.wire.twilio_ws.codec import decode, encode, resample

if TYPE_CHECKING:  # the kind's package builds this session: a run-time import back would be a module cycle
    from evalkit.wire.openai_realtime import OpenAIRealtimeConfig

__all__ = ["RealtimeCallerSession", "RealtimeServerError", "WireError"]

log = logging.getLogger("evalkit.wire")

PLAYOUT_SLACK_MS = 5.0  # a frame may be handed over this early: scheduling jitter, not a buffer
FRAME_MS = 20.0
GREETING_INSTRUCTIONS = 'Greet the caller by saying exactly this, and nothing else: "{greeting}"'
DEFAULT_GREETING = "Hello! How can I help you today?"  # EVA-Bench's sample transcripts (App. H)
# ("audio", (response_id, item_id, samples, arrived_ms)) | ("done", response_id) | ("closed", None)
# | ("error", WireError)
Inbound = tuple[str, Any]


class RealtimeServerError(WireError):
    """The Realtime server reported an error (an ``error`` event, a failed response): infrastructure."""


class RealtimeCallerSession:
    def __init__(self, config: OpenAIRealtimeConfig, clock: Clock) -> None:
        self.config = config
        self.clock = clock
        self.rate = protocol.SAMPLE_RATE[config.audio_format]
        self.codec = protocol.CODEC[config.audio_format]
        self._frame = int(self.rate * FRAME_MS / 1000)
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._inbox: deque[Inbound] = deque()
        self._wake = asyncio.Event()
        self._ready: deque[AgentEvent] = deque()
        self._context: AgentContext | None = None
        self._session_updated = False
        self._active: str | None = None  # the response the server is producing (response.created .. .done)
        self._tool_round = False  # tool results sent, the model's next response not started yet
        self._cancel_next = False  # barged in while the model was between tool rounds: cancel its next response
        self._dropped: set[str] = set()  # responses the caller stopped listening to (barge-in)
        self._calls: dict[str, dict[str, tuple[str, Any]]] = defaultdict(dict)  # response -> call_id -> call
        self._partial: dict[str, tuple[str, str]] = {}  # item -> (response, transcript so far)
        self._received_ms: dict[str, float] = defaultdict(float)  # agent audio per item: received ...
        self._delivered_ms: dict[str, float] = defaultdict(float)  # ... and handed to the caller's ear
        self._playing: str | None = None  # the item whose audio was delivered last
        self._playback_end_ms = 0.0
        self._appended = False  # caller audio appended since the last commit
        self._hung_up = False
        self._sent_s = 0.0  # caller audio sent, metered once at close (evalkit.usage)
        self._reset_agent_turn()

    def _reset_agent_turn(self) -> None:
        """``_user_item``: the caller's last committed turn, whose input transcription is this turn's heard text."""
        self._user_item: str | None = None  # a transcription of it that comes later is not this turn's
        self._voiced = False
        self._texts: list[str] = []  # finished transcripts not yet attached to a chunk
        self._heard: str | None = None

    # -- the caller's side ---------------------------------------------------------------------------------

    async def open(self, context: AgentContext) -> None:
        self._context = context
        config = self.config
        url = protocol.endpoint(config.url, config.model)
        try:
            key = config.api_key()
        except ValueError as exc:
            raise WireError(str(exc)) from None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        if config.api == "beta":
            headers[protocol.BETA_HEADER[0]] = protocol.BETA_HEADER[1]
        try:
            self._ws = await connect(
                url,
                additional_headers=headers or None,
                open_timeout=config.connect_timeout_s,
                max_size=config.max_message_bytes,
            )
        except TimeoutError:
            raise WireError(f"connecting to {url} timed out after {config.connect_timeout_s:g} s") from None
        except (InvalidHandshake, InvalidURI) as exc:
            raise WireError(f"handshake with {url} failed: {exc}") from None
        except OSError as exc:
            raise WireError(f"could not connect to {url}: {exc}") from None
        self._reader = asyncio.create_task(self._read())
        await self._send(protocol.session_update(self._session_settings(context), config.api))
        await self._until_session_updated(url)
        greeting = config.greeting or _domain_greeting(context.domain)
        await self._send(protocol.response_create(GREETING_INSTRUCTIONS.format(greeting=greeting)))

    def _session_settings(self, context: AgentContext) -> protocol.SessionSettings:
        config = self.config
        vad = {
            "threshold": config.vad_threshold,
            "prefix_padding_ms": config.vad_prefix_padding_ms,
            "silence_duration_ms": config.vad_silence_duration_ms,
        }
        return protocol.SessionSettings(
            instructions=render_agent_prompt(context.domain, context.current_date_time, "s2s"),
            tools=protocol.function_tools(openai_tools(context.tools.executor.registry)),
            voice=config.voice,
            audio_format=config.audio_format,
            turn_detection=config.turn_detection,
            vad=vad,
            input_transcription_model=config.input_transcription_model,
        )

    async def _until_session_updated(self, url: str) -> None:
        """The server has taken the session's settings (its ``error`` about them fails the call here)."""
        deadline = asyncio.get_running_loop().time() + self.config.connect_timeout_s
        while not self._session_updated:
            if self._inbox:
                kind, value = self._inbox.popleft()
                raise value if kind == "error" else WireError(f"{url} closed the session before session.updated")
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise WireError(f"{url} sent no session.updated within {self.config.connect_timeout_s:g} s")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), remaining)

    async def send(self, frame: Frame) -> None:
        if frame.samples is None:
            raise WireError("openai_realtime carries audio: the call needs an audio channel, not a text one")
        if frame.fill and self.config.turn_detection == "none":
            return  # manual turns: the buffer holds the caller's speech only
        wire = resample(frame.samples, frame.sample_rate, self.rate)
        await self._send(protocol.append(encode(wire, self.codec)))
        self._sent_s += wire.size / self.rate
        self._appended = True

    async def end_of_turn(self) -> None:
        """Server VAD hears the caller stop by itself; a manual turn is committed and answered now."""
        if self.config.turn_detection == "none":
            if self._appended:
                await self._send(protocol.commit())
            self._appended = False
            await self._send(protocol.response_create())

    async def interrupt(self) -> None:
        """The caller talks over the agent: stop the response and tell the server how much of it was heard."""
        queued = {v[0] for k, v in self._inbox if k == "audio"} | {v for k, v in self._inbox if k == "done"}
        if not (self._voiced or self._active or queued or self._calls):
            return  # the agent's turn is already over: nothing to stop
        self._wake.set()  # a receive() waiting for audio gets the turn's end at once
        now = self.clock.now_ms
        item = self._playing
        if item is not None:
            heard_ms = self._delivered_ms[item] - max(0.0, self._playback_end_ms - now)
            if heard_ms < self._received_ms[item]:
                await self._send(protocol.truncate(item, max(0, int(heard_ms))))
        if self._active is not None:
            self._dropped.add(self._active)
            await self._send(protocol.response_cancel())
        elif self._tool_round:
            self._cancel_next = True  # between tool rounds: the model's next response is cancelled when it starts
        self._dropped |= queued
        self._inbox = deque(i for i in self._inbox if i[0] not in ("audio", "done"))
        for item, (response, text) in list(self._partial.items()):  # what it had said of the cut response
            if response in self._dropped:
                del self._partial[item]
                self._texts += [text.strip()] if text.strip() else []
        self._playback_end_ms = min(self._playback_end_ms, now)
        self._ready.appendleft(self._end_turn())  # a leftover chunk first, then the AgentTurnEnd it queued

    def _meter(self, metered: usage.Usage) -> None:
        usage.record("agent", self.config.url, self.config.model or "", metered)

    async def close(self) -> None:
        # the audio the session carried, both ways (its tokens were metered per response.done)
        if self._sent_s >= 0:
            received_s = sum(self._received_ms.values()) / 1000.0
            self._meter(usage.Usage(audio_s_in=self._sent_s, audio_s_out=received_s))
            self._sent_s = -1.0  # metered: a second close adds nothing
        for task in (self._reader,):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()

    # -- the agent's side ----------------------------------------------------------------------------------

    async def receive(self) -> AgentEvent:
        while True:
            if self._ready:
                return self._ready.popleft()
            timeout = None
            if self._inbox:
                wait_ms = self._playout_wait_ms()
                if wait_ms <= 0:
                    event = self._handle(self._inbox.popleft())
                    if event is not None:
                        return event
                    continue
                timeout = wait_ms / 1000.0
            elif self._hung_up:
                raise WireError("the Realtime server closed the session")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    def _playout_wait_ms(self) -> float:
        """How long the next event waits: an audio frame for its turn to play, the end of the turn (or of the
        call) for the audio before it to have played out, so a barge-in still finds the agent talking."""
        kind, _ = self._inbox[0]
        if kind == "error":
            return 0.0
        slack = PLAYOUT_SLACK_MS if kind == "audio" else 0.0
        return max(0.0, self._playback_end_ms - self.clock.now_ms - slack)

    def _handle(self, item: Inbound) -> AgentEvent | None:
        kind, value = item
        if kind == "error":
            raise value
        if kind == "closed":  # a clean close: the server ended the session (the agent hung up)
            self._hung_up = True
            return self._end_turn(end_call=True)
        if kind == "done":
            if value in self._dropped:
                return None
            # the server closing right after its last response (its audio has played out by now): a hang-up
            hang_up = any(k == "closed" for k, _ in self._inbox)
            self._hung_up = self._hung_up or hang_up
            self._inbox = deque(i for i in self._inbox if i[0] != "closed")
            return self._end_turn(end_call=hang_up)
        response, item_id, samples, arrived_ms = value
        if response in self._dropped:
            return None
        duration_ms = samples.size / self.rate * 1000.0
        # played from when it arrived (or the audio before it ended), not from when this loop got round to it: a busy
        # machine waking the loop late must not push the rest of the turn later, frame after frame
        self._playback_end_ms = max(arrived_ms, self._playback_end_ms) + duration_ms
        self._delivered_ms[item_id] += duration_ms
        self._playing = item_id
        if level_dbfs(samples) < self.config.silence_dbfs:
            return None
        self._voiced = True
        return self._chunk(AudioClip(samples=samples, sample_rate=self.rate))

    def _chunk(self, audio: AudioClip | None) -> AgentSpeech:
        """A chunk carrying what arrived since the last one: finished transcripts, the heard text, tool calls."""
        assert self._context is not None
        duration = self._received_ms.get(self._playing) if self._texts and self._playing else None
        chunk = AgentSpeech(
            text=" ".join(self._texts),
            audio=audio,
            heard_text=self._heard,
            tool_calls=self._context.tools.drain(),
            duration_ms=duration or None,  # the item's audio, all in once its transcript is done
        )
        self._texts, self._heard = [], None
        return chunk

    def _end_turn(self, end_call: bool = False) -> AgentEvent:
        """The agent's turn is over; what it said or did without audio still reaches the record first (as a chunk
        of no duration when the turn had audio)."""
        assert self._context is not None
        done = AgentTurnEnd(end_call=end_call)
        if not (self._texts or self._heard is not None or self._context.tools.calls):
            self._reset_agent_turn()
            return done
        empty = AudioClip(samples=np.zeros(0, np.float32), sample_rate=self.rate)
        leftover = self._chunk(empty if self._voiced else None)
        self._reset_agent_turn()
        self._ready.append(done)
        return leftover

    # -- the wire ------------------------------------------------------------------------------------------

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for raw in self._ws:
                try:
                    await self._on_event(protocol.parse(raw))
                except protocol.ProtocolError as exc:
                    self._push(("error", WireError(f"the Realtime server sent {exc}")))
                    return
                except WireError as exc:
                    self._push(("error", exc))
                    return
            self._push(("closed", None))
        except ConnectionClosedError as exc:
            self._push(("error", WireError(f"the Realtime server disconnected mid-call: {exc}")))

    async def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        response = str(event.get("response_id") or "")
        if kind == "error":
            error = event.get("error") if isinstance(event.get("error"), dict) else {}
            if error.get("code") in protocol.BENIGN_ERROR_CODES:
                log.debug("realtime: ignored %s", protocol.error_text(event))
                return
            raise RealtimeServerError(f"the Realtime server sent an error: {protocol.error_text(event)}")
        if kind == "session.updated":
            self._session_updated = True
            self._wake.set()
        elif kind == "response.created":
            await self._on_response_created(str((event.get("response") or {}).get("id") or ""))
        elif kind in protocol.AUDIO_DELTA:
            self._on_audio(response, str(event.get("item_id") or ""), event.get("delta"))
        elif kind in protocol.TRANSCRIPT_DELTA and response not in self._dropped:
            item = str(event.get("item_id") or "")
            self._partial[item] = (response, self._partial.get(item, (response, ""))[1] + str(event.get("delta") or ""))
        elif kind in protocol.TRANSCRIPT_DONE and response not in self._dropped:
            item = str(event.get("item_id") or "")
            text = event.get("transcript", event.get("text"))
            text = str(text if text is not None else self._partial.get(item, ("", ""))[1]).strip()
            self._partial.pop(item, None)
            if text:
                self._texts.append(text)
        elif kind == "input_audio_buffer.speech_started" and self._voiced:
            await self.interrupt()  # the caller talks over the agent: it yields (a phone line's playback stops)
        elif kind == "input_audio_buffer.committed":
            self._user_item = str(event.get("item_id") or "")
        elif kind == protocol.INPUT_TRANSCRIBED and event.get("item_id") == self._user_item:
            self._heard = str(event.get("transcript") or "").strip()
        elif kind == "response.function_call_arguments.done" and response not in self._dropped:
            self._calls[response][str(event.get("call_id") or "")] = (
                str(event.get("name") or ""),
                event.get("arguments"),
            )
        elif kind == "response.done":
            await self._on_response_done(event.get("response") if isinstance(event.get("response"), dict) else {})

    async def _on_response_created(self, response: str) -> None:
        self._active = response
        self._tool_round = False
        if self._cancel_next:  # the caller barged in while the model was running tools: it is not listened to
            self._cancel_next = False
            self._dropped.add(response)
            await self._send(protocol.response_cancel())

    def _on_audio(self, response: str, item: str, delta: Any) -> None:
        if response in self._dropped:
            return
        try:
            samples = decode(base64.b64decode(str(delta), validate=True), self.codec)
        except ValueError as exc:
            raise WireError(f"the Realtime server sent a malformed audio delta: {exc}") from None
        self._received_ms[item] += samples.size / self.rate * 1000.0
        arrived_ms = self.clock.now_ms
        for at in range(0, samples.size, self._frame):
            self._push(("audio", (response, item, samples[at : at + self._frame], arrived_ms)))

    async def _on_response_done(self, done: dict[str, Any]) -> None:
        self._meter(usage.quantities(done))  # a response the caller cut off is billed too
        response = str(done.get("id") or "")
        if self._active == response:
            self._active = None
        calls = self._calls.pop(response, {})
        if response in self._dropped:
            return
        status = done.get("status")
        if status == "failed":
            raise RealtimeServerError(f"the Realtime response failed: {done.get('status_details')}")
        for call_id, name, arguments in protocol.function_calls(done):
            calls.setdefault(call_id, (name, arguments))
        if calls and status == "completed":
            await self._run_tools(calls)
        else:
            self._push(("done", response))

    async def _run_tools(self, calls: dict[str, tuple[str, Any]]) -> None:
        """The model's function calls run in the harness; their results go back, then the model goes on."""
        assert self._context is not None
        for call_id, (name, arguments) in calls.items():
            result = self._context.tools.call_json(name, arguments)  # recorded; a malformed call is an error result
            await self._send(protocol.function_call_output(call_id, result))
        self._tool_round = True
        await self._send(protocol.response_create())

    def _push(self, item: Inbound) -> None:
        self._inbox.append(item)
        self._wake.set()

    async def _send(self, event: dict[str, Any]) -> None:
        assert self._ws is not None
        try:
            await self._ws.send(protocol.dumps(event))
        except ConnectionClosed as exc:
            raise await self._closed_reason(exc) from None

    async def _closed_reason(self, exc: ConnectionClosed) -> WireError:
        """Why a send found the connection closed: the server's own error event when it sent one first (e.g. an
        unknown model: ``error``, then the close), else how it closed."""
        if self._reader is not None and asyncio.current_task() is not self._reader:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._reader), 1.0)  # it reads what came before the close
        reason = next((value for kind, value in self._inbox if kind == "error"), None)
        if reason is not None:
            return reason
        if isinstance(exc, ConnectionClosedOK):
            return WireError("the Realtime server closed the session")
        return WireError(f"the Realtime server disconnected mid-call: {exc}")


def _domain_greeting(domain: str) -> str:
    from evalkit.domains import get_domain

    return get_domain(domain).greeting or DEFAULT_GREETING
