"""The agent kind ``twilio_ws``: a voice agent reached over a WebSocket speaking Twilio Media Streams (EVA-Bench's
assistant contract). evalkit plays the caller; the call runs on a real clock with 20 ms frames.

``conf/agent/twilio_ws.yaml``; ``agent=twilio_ws agent.url=ws://host:port``. The wire adapters live here:
``client`` (the caller's session) and ``server`` (evalkit's own agents behind the same protocol, for
``python -m evalkit.serve``). The call's tools are the harness's (``evalkit.wire.tools``): the ``start`` message
tells the agent where they are served (``agent.tools``).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, field_validator

from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.call.loop import CallSettings
from evalkit.speech.vad import VadKind
from evalkit.wire.twilio_ws.codec import Encoding
from evalkit.wire.twilio_ws.protocol import FRAME_MS
from evalkit.wire.urls import checked_url

if TYPE_CHECKING:
    from evalkit.call.clock import Clock
    from evalkit.call.session import AgentSession

__all__ = ["TwilioWsAgent", "TwilioWsConfig"]


@AGENTS.register("twilio_ws")
class TwilioWsConfig(AgentConfig):
    kind: Literal["twilio_ws"] = "twilio_ws"
    realtime: ClassVar[bool] = True
    url: str = "ws://127.0.0.1:8765"  # the agent's WebSocket (ws:// or wss://); no credentials in it
    path: str = ""  # appended to url (EVA-Bench servers listen on /ws and /)
    headers: dict[str, str] = Field(default_factory=dict)  # plain headers; never put a secret here
    # header -> environment variable holding its value (e.g. Authorization -> AGENT_AUTH): read when connecting,
    # so a token never enters the config, its hash or the logs
    headers_from_env: dict[str, str] = Field(default_factory=dict)
    encoding: Encoding = "mulaw"
    sample_rate: int = Field(default=8000, ge=8000, le=48000)  # of the media frames both ways (Twilio: 8000)
    speech_events: bool = True  # send EVA-Bench's user_speech_start / user_speech_stop
    take_turn_after_silence_ms: float = Field(default=800.0, gt=0)  # the agent's turn ends after this much silence
    silence_dbfs: float = Field(default=-50.0, le=0)  # agent audio below this level counts as silence (rms VAD)
    # how the caller tells the agent's speech from silence (evalkit.speech.vad; scripts/bench_vad.py): rms (free,
    # exact on a clean line) or silero (ends turns on a noisy agent line too, ~35 ms CPU per second of agent audio)
    end_of_turn_vad: VadKind = "rms"
    # the agent's turn text when the server sends none (evalkit's reference server sends evalkit_transcript, other
    # agents do not): the caller transcribes the turn's audio with the cell's listener ASR. auto: only turns that
    # came without a transcript; always: every turn (the server's transcript is ignored); never: text stays empty
    transcribe_agent: Literal["auto", "always", "never"] = "auto"
    # who opens the call (evalkit.call.loop): agent (wait for its greeting), caller (speak first), or auto: wait up to
    # greeting_wait_s for the agent's first audio, then the caller opens (a bot that waits for the caller works as is)
    first_speaker: Literal["agent", "caller", "auto"] = "auto"
    greeting_wait_s: float = Field(default=3.0, gt=0, le=60)
    connect_timeout_s: float = Field(default=10.0, gt=0)  # connecting and the handshake; longer: infrastructure failure
    response_timeout_s: float = Field(default=30.0, gt=0)  # no agent audio for this long: infrastructure failure
    max_duration_s: float = Field(default=600.0, gt=0)  # EVA-Bench Table 7
    max_message_bytes: int = Field(default=1 << 20, ge=1024)  # a larger frame ends the call (infrastructure failure)
    # Who runs the tools (issue 13 point 3). harness: the agent calls the harness's tool endpoint (customParameters
    # tool_endpoint / mcp_url), executed on the conversation's DB and recorded. agent_side: the agent runs its tools
    # itself (scenario DB from GET <tool_endpoint>/scenario_db) and posts its final DB to <tool_endpoint>/final_db;
    # without one, task completion is unscored. none: no tools are served and no DB comes back (unscored).
    tools: Literal["harness", "agent_side", "none"] = "harness"
    # where the harness serves the tools: the bound address and port (0: free), and the URL the agent is told (a
    # deployed agent on another machine needs tool_host 0.0.0.0 and the address it reaches this machine by)
    tool_host: str = "127.0.0.1"
    tool_port: int = Field(default=0, ge=0, le=65535)
    tool_public_url: str | None = None
    final_db_timeout_s: float = Field(default=5.0, ge=0)  # agent_side: how long the final DB may come after `stop`

    @field_validator("url")
    @classmethod
    def _websocket_url(cls, url: str) -> str:
        return checked_url(url, ("ws", "wss"))

    @field_validator("tool_public_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        return url if url is None else checked_url(url, ("http", "https"))

    def preflight_problems(self) -> list[str]:
        """Checked before any cell starts: a header's environment variable that is not set."""
        missing = [f"{header} <- ${var}" for header, var in self.headers_from_env.items() if var not in os.environ]
        return [f"agent.headers_from_env: environment variable not set: {', '.join(missing)}"] if missing else []

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + ("/" + self.path.lstrip("/") if self.path else "")

    def resolved_headers(self) -> dict[str, str]:
        missing = [var for var in self.headers_from_env.values() if var not in os.environ]
        if missing:
            raise RuntimeError(f"agent.headers_from_env: environment variable(s) not set: {', '.join(missing)}")
        return {**self.headers, **{h: os.environ[var] for h, var in self.headers_from_env.items()}}

    def build(self) -> TwilioWsAgent:  # type: ignore[override]
        if self.tools != "none":  # the process's tool server starts here, not on the first call's clock (~1 s)
            from evalkit.wire.tools.server import tool_server

            tool_server(self.tool_host, self.tool_port, self.tool_public_url)
        return TwilioWsAgent(self)


@dataclasses.dataclass
class TwilioWsAgent:
    """Not an in-process agent: a factory of one wire session per call (``realtime``: the conversation runs it on
    a real clock with 20 ms frames, see evalkit.call.conversation). Sessions run concurrently (``concurrency``).

    ``listener``: builds the ASR the caller hears the agent with when the server sends no transcript (the cell sets
    it to its listener ASR, evalkit.cell.build; default: the default ASR engine). Built once, by ``prepare``: before
    the first call's clock starts."""

    config: TwilioWsConfig
    listener: Callable[[], Any] | None = None
    realtime = True

    def __post_init__(self) -> None:
        self._asr: Any = None
        self._asr_lock = threading.Lock()

    def session(self, clock: Clock) -> AgentSession:
        from evalkit.wire.twilio_ws.client import TwilioCallerSession

        return TwilioCallerSession(self.config, clock, self.hearing)

    def prepare(self) -> None:
        """Load what a call may need before the call's clock starts (evalkit.call.conversation): the listener ASR,
        unless ``transcribe_agent`` is never. auto loads it too: whether the agent sends its transcripts is known
        only once it speaks. Loaded by the first call that needs it instead, the model load (seconds, holding the
        GIL for up to ~0.3 s at a time) and the first decode ran inside that call, while the agent's audio was
        streaming: late frames stretched or split the agent's turn and delayed the caller's answer."""
        if self.config.transcribe_agent != "never":
            self.hearing()

    def hearing(self) -> Any:
        """The listener ASR (a ``Recognizer``), loaded once (thread-safe): by ``prepare``, else on first use."""
        with self._asr_lock:
            if self._asr is None:
                if self.listener is None:
                    from evalkit.speech.registry import ASR_ENGINES

                    self._asr = ASR_ENGINES.get("faster_whisper")().build()
                else:
                    self._asr = self.listener()
            return self._asr

    def call_settings(self, base: CallSettings) -> CallSettings:
        return dataclasses.replace(
            base,
            frame_ms=FRAME_MS,
            agent_timeout_s=self.config.response_timeout_s,
            max_duration_s=min(base.max_duration_s, self.config.max_duration_s),
            first_speaker=self.config.first_speaker,
            greeting_wait_s=self.config.greeting_wait_s,
        )
