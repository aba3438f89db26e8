"""The caller's side of a Twilio Media Streams call: the call loop's ``AgentSession`` over a WebSocket.

The caller's frames go out as 20 ms media frames, all call long (the loop's line, evalkit.call.line: the caller's
speech, and silence or the condition's ambient bed between utterances, as on a phone line). The agent's media frames
come back as ``AgentSpeech`` chunks, one per voiced frame, stamped by the loop when it receives them. Silent frames
only mark time: a pause inside the agent's turn is the gap between its chunks on the timeline (the loop places a
chunk at its arrival), so it is not in the turn's clip, and trailing silence never lengthens the turn. The agent's
turn ends when it has been silent for ``take_turn_after_silence_ms`` after its audio has played out: a live call has
no end-of-turn message, the caller decides by silence. Any failure of the wire (refused, timed out, bad handshake,
dropped, malformed JSON) raises ``WireError`` with the reason: the loop records it as an infrastructure failure.

Tools stay in the harness (``agent.tools``, see evalkit.wire.tools): the session registers the conversation's
ToolBox with this process's tool server before it dials and tells the agent where its tools are in the ``start``
message's ``customParameters`` (``session_id``, ``tool_endpoint``, ``mcp_url``). The calls the agent makes there
run on the conversation's DB; each AgentSpeech carries the calls recorded since the previous one, so a call lands
in the agent turn in which it happened. The session is unregistered when the call ends (an ``agent_side`` agent
may post its final DB until ``final_db_timeout_s`` after the ``stop``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedError, InvalidHandshake, InvalidURI
from websockets.protocol import OPEN

from evalkit.agents.base import AgentContext
from evalkit.call.clock import Clock
from evalkit.call.events import AgentEvent, AgentSpeech, AgentTurnEnd, Frame, ToolCallTuple
from evalkit.dialogue_acts import DialogueAct
from evalkit.records import AudioClip
from evalkit.speech.vad import frame_vad
from evalkit.tool_log import EVENT as TOOL_LOG_EVENT
from evalkit.tool_log import ToolLogError
from evalkit.wire.errors import WireError
from evalkit.wire.tools.session import ToolSession
from evalkit.wire.twilio_ws import protocol
from evalkit.wire.twilio_ws.codec import MIME, decode, encode, resample

__all__ = ["TwilioCallerSession", "WireError"]

if TYPE_CHECKING:  # the kind's package builds this session: a run-time import back would be a module cycle
    from evalkit.wire.twilio_ws import TwilioWsConfig


PLAYOUT_SLACK_MS = 5.0  # a frame may be handed over this early: scheduling jitter, not a buffer
Inbound = tuple[str, Any]  # ("msg", message) | ("closed", None) | ("error", WireError)
ARRIVED = "_evalkit_arrived_ms"  # stamped on each message as it comes off the socket (call clock)
# Calls share one event loop (``concurrency``): an agent flooding its socket must not starve the others' clocks and
# timeouts, so reading and handling yield to the loop every this many messages.
YIELD_EVERY = 64


class TwilioCallerSession:
    def __init__(self, config: TwilioWsConfig, clock: Clock, hearing: Callable[[], Any] | None = None) -> None:
        self.config = config
        self.clock = clock
        self._hearing = hearing  # the listener ASR, for agent turns that come without a transcript
        self._vad = frame_vad(config.end_of_turn_vad, config.silence_dbfs)
        self._unheard: asyncio.Future[str] | None = None  # the caller's transcript of the turn that just ended
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._inbox: deque[Inbound] = deque()
        self._wake = asyncio.Event()
        self._ready: deque[AgentEvent] = deque()  # events made up locally, delivered before the inbox
        self._tasks: set[asyncio.Task[None]] = set()  # mark echoes in flight
        self._context: AgentContext | None = None
        self._tools: ToolSession | None = None  # the call's session on the tool server (agent.tools != none)
        self._tool_urls: dict[str, str] = {}  # where the agent finds them: tool_endpoint, mcp_url
        self._stream_sid = f"MZ{uuid.uuid4().hex}"
        self._call_sid = f"CA{uuid.uuid4().hex}"
        self._seq = 0
        self._chunk = 0
        self._fill_payload: tuple[np.ndarray, str] | None = None  # (read-only samples, their payload): _payload
        self._t0 = 0.0
        self._speaking = False  # the caller is mid-turn
        self._hung_up = False
        self._reset_agent_turn()

    def _reset_agent_turn(self) -> None:
        self._voiced = False  # the agent's current turn has had audio above the silence level
        self._voice_end_ms = 0.0  # when its last voiced audio has played out
        self._playback_end_ms = 0.0
        self._text = ""
        self._transcribed = False  # the agent sent its turn's text
        self._audio: list[np.ndarray] = []  # the turn's voiced audio, as heard
        self._hearing_early: tuple[int, asyncio.Future[str]] | None = None  # (frames heard, their transcript)
        self._heard: str | None = None
        self._end_call = False
        self._duration_ms: float | None = None  # the turn's audio length, when the agent announces it
        self._acts: list[DialogueAct] = []  # the turn's dialogue acts, when the agent states them

    # -- the caller's side ---------------------------------------------------------------------------------

    async def open(self, context: AgentContext) -> None:
        self._context = context
        await self._serve_tools(context)
        endpoint = self.config.endpoint
        try:
            self._ws = await connect(
                endpoint,
                additional_headers=self.config.resolved_headers() or None,
                open_timeout=self.config.connect_timeout_s,
                max_size=self.config.max_message_bytes,
                compression=None,  # base64 μ-law does not compress; deflating costs ~50 µs a frame each way
            )
        except TimeoutError:
            raise WireError(f"connecting to {endpoint} timed out after {self.config.connect_timeout_s:g} s") from None
        except (InvalidHandshake, InvalidURI) as exc:
            raise WireError(f"handshake with {endpoint} failed: {exc}") from None
        except OSError as exc:
            raise WireError(f"could not connect to {endpoint}: {exc}") from None
        self._t0 = self.clock.now_ms
        await self._send(protocol.connected())
        await self._send(self._start_message(context))
        self._reader = asyncio.create_task(self._read())

    async def _serve_tools(self, context: AgentContext) -> None:
        """Register the conversation's tools with the tool server (started on first use, off the event loop)."""
        if self.config.tools == "none":
            context.tools.executor.final_db_missing = (
                "agent.tools=none: the harness served no tools and got no final DB, so the end state is unknown"
            )
            return
        from evalkit.wire.tools.server import tool_server  # loads the web stack only for calls that serve tools

        config = self.config
        server = await asyncio.to_thread(tool_server, config.tool_host, config.tool_port, config.tool_public_url)
        self._tools = ToolSession(self._call_sid, context.tools, self.config.tools)
        server.register(self._tools)
        self._tool_urls = {"tool_endpoint": server.base_url(self._call_sid), "mcp_url": server.mcp_url(self._call_sid)}

    def _start_message(self, context: AgentContext) -> dict[str, Any]:
        # customParameters are strings (Twilio): where the call's tools are served (the harness owns the DB)
        custom = {
            "scenario_id": context.scenario_id,
            "domain": context.domain,
            "current_date_time": context.current_date_time,
            "session_id": self._call_sid,
            "tools": self.config.tools,
            **self._tool_urls,
        }
        mime = MIME[self.config.encoding]
        return protocol.start(self._next_seq(), self._stream_sid, self._call_sid, custom, mime, self.config.sample_rate)

    async def send(self, frame: Frame) -> None:
        if frame.samples is None:
            raise WireError("twilio_ws carries audio: the call needs an audio channel, not a text one")
        event = None  # a speech event that goes out with this frame, as its own message just before it
        if frame.fill and self._speaking:  # the caller's last frame has gone: the line between utterances again
            self._speaking = False
            event = "user_speech_stop"
        elif not frame.fill and not self._speaking:
            self._speaking = True
            event = "user_speech_start"
        self._chunk += 1
        payload = self._payload(frame)
        timestamp = int(self.clock.now_ms - self._t0)
        media = protocol.caller_media_json(self._stream_sid, payload, self._next_seq(), self._chunk, timestamp)
        if event is not None and self.config.speech_events:
            await self._send_texts(protocol.dumps(protocol.speech_event(event)), media)
        else:
            await self._send_texts(media)

    def _payload(self, frame: Frame) -> str:
        """The frame's audio on the wire (resampled, encoded, base64). A read-only frame (the line's silence: the
        same array every frame) is encoded once: its payload is kept while that very array comes back."""
        assert frame.samples is not None
        samples = frame.samples
        cached = self._fill_payload
        if cached is not None and cached[0] is samples:
            return cached[1]
        wire = resample(samples, frame.sample_rate, self.config.sample_rate)
        payload = base64.b64encode(encode(wire, self.config.encoding)).decode("ascii")
        if isinstance(samples, np.ndarray) and not samples.flags.writeable:  # it cannot change under the cache
            self._fill_payload = (samples, payload)
        return payload

    async def end_of_turn(self) -> None:
        """The caller has stopped (said once: at its first fill frame or when the loop says so, whichever is first)."""
        if not self._speaking:
            return
        self._speaking = False
        if self.config.speech_events:
            await self._send(protocol.speech_event("user_speech_stop"))

    async def interrupt(self) -> None:
        """The caller talks over the agent: what it has not played yet is dropped and its turn ends here."""
        if self._voiced:
            self._drop_unplayed()
            queued = len(self._ready)
            first = self._end_turn()  # it may queue the turn's end behind what it returns: keep them in that order
            self._ready.insert(queued, first)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for heard in (self._unheard, self._hearing_early[1] if self._hearing_early else None):
            if heard is not None:
                heard.cancel()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._send(protocol.stop(self._next_seq(), self._stream_sid, self._call_sid))
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._tools is not None:
            await self._end_tools(self._tools)
        self._tool_log_missing()

    async def _end_tools(self, tools: ToolSession) -> None:
        """Unregister the call's tools; an agent_side agent gets ``final_db_timeout_s`` to post its final DB."""
        from evalkit.wire.tools.server import tool_server

        # only a call that got through can have an agent that posts a final DB
        deadline = time.monotonic() + (self.config.final_db_timeout_s if self._ws is not None else 0.0)
        while tools.mode == "agent_side" and not tools.final_db_posted.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        tool_server().unregister(tools.session_id)
        if tools.mode == "agent_side" and not tools.final_db_posted.is_set():
            assert self._context is not None
            self._context.tools.executor.final_db_missing = (
                f"agent.tools=agent_side: the agent posted no final DB to {self._tool_urls['tool_endpoint']}"
                f"/final_db within {self.config.final_db_timeout_s:g} s of the call's end, so the end state is unknown"
            )

    # -- the agent's side ----------------------------------------------------------------------------------

    async def receive(self) -> AgentEvent:
        event = await self._receive()
        if self._unheard is not None:  # the turn just ended: its text, heard by the caller, comes before its end
            heard, self._unheard = self._unheard, None
            self._ready.appendleft(event)
            return AgentSpeech(text=await heard, text_source="caller_asr")
        return event

    def _needs_transcript(self) -> bool:
        mode = self.config.transcribe_agent
        return bool(self._audio) and (mode == "always" or (mode == "auto" and not self._transcribed))

    def _hearing_in_flight(self) -> bool:
        return self._hearing_early is not None and not self._hearing_early[1].done()

    def _hear(self) -> asyncio.Future[str]:
        """The transcript of the turn's audio so far: the one started early if no audio came since, else a new one.
        Started once the agent has been silent for half the take-turn window, it is mostly ready when the turn
        ends; a pause that long inside a turn costs one transcription thrown away (one at a time: the next early
        start waits until it is done)."""
        if self._hearing_early is not None and self._hearing_early[0] == len(self._audio):
            return self._hearing_early[1]
        heard = asyncio.ensure_future(self._transcribe(np.concatenate(self._audio)))
        heard.add_done_callback(lambda f: f.cancelled() or f.exception())  # a stale one's failure is not an error
        self._hearing_early = (len(self._audio), heard)
        return heard

    async def _transcribe(self, audio: np.ndarray) -> str:
        """The caller's ASR of the agent's turn, off the event loop (the other calls keep their pacing)."""
        if self._hearing is None:
            raise WireError("the agent sent no transcript and the caller has no listener ASR to hear it with")
        asr = await asyncio.to_thread(self._hearing)
        transcript = await asyncio.to_thread(asr.transcribe, audio, self.config.sample_rate)
        return str(transcript.text)

    async def _receive(self) -> AgentEvent:
        handled = 0
        while True:
            if self._ready:
                return self._ready.popleft()
            timeout = self._playout_wait_ms() / 1000.0 if self._inbox else None
            if self._inbox and timeout <= 0:
                event = self._handle(self._inbox.popleft())
                if event is not None:
                    return event
                handled += 1
                if handled % YIELD_EVERY == 0:  # thousands of marks or unknown events: the other calls still run
                    await asyncio.sleep(0)
                continue
            if self._hung_up and not self._inbox:
                raise WireError("the agent closed the call")
            if self._voiced and not self._inbox:  # the caller takes the turn once the agent has been quiet enough
                remaining = self._voice_end_ms + self.config.take_turn_after_silence_ms - self.clock.now_ms
                if remaining <= 0:  # decided at the window's end, however late the timer woke (AgentTurnEnd.at_ms)
                    return self._end_turn(at_ms=self._voice_end_ms + self.config.take_turn_after_silence_ms)
                hear_in = remaining - self.config.take_turn_after_silence_ms / 2
                if hear_in <= 0 and self._needs_transcript() and not self._hearing_in_flight():
                    self._hear()
                timeout = (remaining if hear_in <= 0 else hear_in) / 1000.0
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # not wait_for: no task per wait (one per frame played)
                    await self._wake.wait()

    def _playout_wait_ms(self) -> float:
        """How long the next media frame waits for its turn to play: the caller hears agent audio in real time
        whatever pace it is sent at (a jitter buffer), so a ``clear`` still finds the unplayed part to drop."""
        kind, value = self._inbox[0]
        if kind != "msg" or value["event"] != "media":
            return 0.0
        return max(0.0, self._playback_end_ms - self.clock.now_ms - PLAYOUT_SLACK_MS)

    def _handle(self, item: Inbound) -> AgentEvent | None:
        kind, value = item
        if kind == "error":
            raise value
        if kind == "closed":  # a clean close is the agent hanging up
            self._hung_up = True
            return self._end_turn(end_call=True)
        event = value["event"]
        if event == "media":
            return self._on_media(value)
        if event == "mark":
            self._echo_mark(value.get("mark", {}).get("name", ""))
        elif event == "clear":  # the queued media it cancels was purged by the reader already
            self._drop_unplayed(purge_inbox=False)
        elif event == TOOL_LOG_EVENT:  # the agent's own tools' calls (evalkit.tool_log), any time before it hangs up
            self._tool_log(value.get("calls"))
        elif event == protocol.TRANSCRIPT_EVENT:
            if self.config.transcribe_agent != "always":
                self._text = str(value.get("text") or "")
                self._transcribed = True
            self._heard = value.get("heard_text")
            self._end_call = bool(value.get("end_call"))
            acts = value.get("acts")
            parsed = [DialogueAct.parse(a) for a in acts] if isinstance(acts, list) else []
            self._acts = [a for a in parsed if a is not None]  # anything else in the list is ignored
            duration = value.get("duration_ms")
            self._duration_ms = float(duration) if isinstance(duration, int | float) and duration > 0 else None
        return None

    def _tool_log(self, calls: Any) -> None:
        """Take a reported tool-call log; a malformed one is the agent's mistake: its calls stay unknown, with why."""
        assert self._context is not None
        try:
            self._context.tools.report(calls)
        except ToolLogError as exc:
            self._context.tools.executor.tool_calls_unseen = f"the agent's {TOOL_LOG_EVENT} event was malformed: {exc}"

    def _tool_log_missing(self) -> None:
        """Tools on the agent's side (agent_side, none) and no log reported: the harness saw none of its calls."""
        executor = self._context.tools.executor if self._context is not None else None
        if executor is None or self.config.tools == "harness" or executor.agent_log is not None:
            return
        executor.tool_calls_unseen = executor.tool_calls_unseen or (
            f"agent.tools={self.config.tools}: the agent's tools ran on its side and it reported no tool-call log "
            f"({TOOL_LOG_EVENT} event, or POST <tool_endpoint>/tool_calls), so its calls are unknown"
        )

    def _on_media(self, message: dict[str, Any]) -> AgentSpeech | None:
        try:
            samples = decode(protocol.payload_of(message), self.config.encoding)
        except (KeyError, TypeError, ValueError) as exc:
            raise WireError(f"the agent sent a malformed media frame: {exc!r}") from None
        arrived = message.get(ARRIVED, self.clock.now_ms)  # a frame handed over late still played on time
        self._playback_end_ms = max(arrived, self._playback_end_ms) + samples.size / self.config.sample_rate * 1000.0
        if not self._vad.is_speech(samples, self.config.sample_rate):
            return None
        self._voiced = True
        self._audio.append(samples)
        self._voice_end_ms = self._playback_end_ms
        chunk = AgentSpeech(
            text=self._text,
            audio=AudioClip(samples=samples, sample_rate=self.config.sample_rate),
            heard_text=self._heard,
            tool_calls=self._drain_tools(),
            duration_ms=self._duration_ms if self._text else None,
            acts=self._acts,
        )
        self._text, self._heard, self._acts = "", None, []  # said once per turn, on its first chunk
        return chunk

    def _end_turn(self, end_call: bool = False, at_ms: float | None = None) -> AgentEvent:
        """The agent's turn is over; what it reported without audio still reaches the record first."""
        done = AgentTurnEnd(end_call=end_call or self._end_call, at_ms=at_ms)
        calls = self._drain_tools()
        leftover = AgentSpeech(text=self._text, heard_text=self._heard, tool_calls=calls, acts=self._acts)
        has_leftover = bool(self._text or calls or self._heard is not None or self._acts)
        if self._needs_transcript():
            self._unheard = self._hear()
        self._reset_agent_turn()
        if has_leftover:
            self._ready.append(done)
            return leftover
        return done

    def _drop_unplayed(self, purge_inbox: bool = True) -> None:
        """Barge-in (the agent's ``clear`` or the caller cutting in): buffered agent audio is never heard."""
        now = self.clock.now_ms
        self._playback_end_ms = min(self._playback_end_ms, now)
        self._voice_end_ms = min(self._voice_end_ms, now)
        if purge_inbox:
            self._inbox = deque(i for i in self._inbox if not (i[0] == "msg" and i[1]["event"] == "media"))

    def _drain_tools(self) -> list[ToolCallTuple]:
        """The tool calls the agent made at the harness's endpoint since the last AgentSpeech."""
        return self._tools.drain() if self._tools is not None else []

    def _echo_mark(self, name: str) -> None:
        """Twilio echoes a mark once the audio sent before it has played: the agent learns what was heard."""

        async def echo(delay_s: float) -> None:
            await asyncio.sleep(delay_s)
            with contextlib.suppress(Exception):
                await self._send(protocol.mark(self._stream_sid, name, self._next_seq()))

        task = asyncio.create_task(echo(max(0.0, self._playback_end_ms - self.clock.now_ms) / 1000.0))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the wire ------------------------------------------------------------------------------------------

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            read = 0
            async for raw in self._ws:
                read += 1
                if read % YIELD_EVERY == 0:  # a buffered flood is read without suspending: let the other calls run
                    await asyncio.sleep(0)
                try:
                    message = protocol.parse(raw)
                except protocol.ProtocolError as exc:
                    self._push(("error", WireError(f"the agent sent {exc}")))
                    return
                if message["event"] == "clear":  # the media queued before it was sent before it: never played
                    self._drop_unplayed()
                message[ARRIVED] = self.clock.now_ms
                self._push(("msg", message))
            self._push(("closed", None))
        except ConnectionClosedError as exc:
            self._push(("error", WireError(f"the agent disconnected mid-call: {exc}")))

    def _push(self, item: Inbound) -> None:
        self._inbox.append(item)
        self._wake.set()

    async def _send(self, message: dict[str, Any]) -> None:
        await self._send_text(protocol.dumps(message))

    async def _send_text(self, text: str) -> None:
        await self._send_texts(text)

    async def _send_texts(self, *texts: str) -> None:
        """Each text its own WebSocket message, all in one write to the socket. Frames go out 50 a second per call:
        while the connection is open and its write buffer empty they are framed and handed to the transport here
        (websockets' own ``send`` adds a context manager and a drain per message, ~30% of the Python cost of a
        frame; a speech event and its frame in one write wake the agent's side once, not twice). Otherwise (closing,
        or a slow reader: flow control) websockets' ``send`` runs, which waits for room and raises on a closed
        connection."""
        ws = self._ws
        assert ws is not None
        wire, transport = ws.protocol, ws.transport
        if wire.state is OPEN and not transport.get_write_buffer_size():
            for text in texts:
                wire.send_text(text.encode())
            transport.write(b"".join(wire.data_to_send()))
            return
        try:
            for text in texts:
                await ws.send(text)
        except ConnectionClosed as exc:
            raise WireError(f"the agent disconnected mid-call: {exc}") from None

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq
