"""The agent kind ``openai_realtime``: a speech-to-speech model over the OpenAI Realtime WebSocket event protocol
(OpenAI's hosted endpoint, or any Realtime-compatible server). evalkit plays the caller; the call runs on a real
clock with 20 ms frames.

``conf/agent/openai_realtime.yaml``. The session (``client``) sets the model's instructions (the domain's App. L
agent prompt for a speech-to-speech architecture) and tools (the domain's, as Realtime function tools) with
``session.update``; the model asks for tools with function-call events and the session runs them in the harness
(recorded on the conversation's DB) and answers with ``function_call_output`` items. The key comes only from the
environment variable ``api_key_env`` names, read when a call connects; an unset one is one line at preflight
(``evalkit.config.preflight.key_env_problems``).
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, field_validator

from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.call.loop import CallSettings
from evalkit.wire.openai_realtime.protocol import Api, AudioFormat, TurnDetection
from evalkit.wire.urls import checked_url

if TYPE_CHECKING:
    from evalkit.call.clock import Clock
    from evalkit.call.session import AgentSession

__all__ = ["FRAME_MS", "OpenAIRealtimeAgent", "OpenAIRealtimeConfig"]

FRAME_MS = 20.0  # the caller's audio goes out in 20 ms appends, paced in real time


@AGENTS.register("openai_realtime")
class OpenAIRealtimeConfig(AgentConfig):
    METERING: ClassVar[str] = "metered"  # every request goes through evalkit's clients (evalkit.usage)
    kind: Literal["openai_realtime"] = "openai_realtime"
    architecture: Literal["cascade", "hybrid", "s2s"] = "s2s"  # a Realtime-compatible server may be a cascade
    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ("connect_timeout_s", "response_timeout_s", "max_message_bytes")
    realtime: ClassVar[bool] = True  # a wire agent: evalkit.serve refuses to serve it as an in-process one

    url: str = "wss://api.openai.com/v1/realtime"  # the Realtime WebSocket endpoint (ws:// for a local server)
    model: str | None = Field(default="gpt-realtime-1.5", description="sent as ?model= (null: no model in the URL)")
    voice: str = Field(default="marin", min_length=1)  # the model's output voice, sent in session.update
    api_key_env: str | None = Field(default="OPENAI_API_KEY", description="null for a keyless local server")
    api: Api = "ga"  # ga: OpenAI's current interface; beta: the preview one (OpenAI-Beta: realtime=v1)
    audio_format: AudioFormat = "pcm16"  # pcm16 (24 kHz) or g711_ulaw (8 kHz), both directions
    turn_detection: TurnDetection = "server_vad"  # the server finds the caller's turns; none: the caller commits
    # server_vad's settings; null: the server's defaults (EVA-Bench App. B ran OpenAI's defaults)
    vad_threshold: float | None = Field(default=None, ge=0, le=1)
    vad_prefix_padding_ms: int | None = Field(default=None, ge=0)  # audio kept before detected speech (null: server's)
    vad_silence_duration_ms: int | None = Field(default=None, ge=0)  # silence that ends a caller turn (null: server's)
    # a transcription model for what the agent heard (e.g. whisper-1, gpt-4o-mini-transcribe); null: heard unscored
    input_transcription_model: str | None = None
    greeting: str | None = Field(default=None, description="what the model is told to say first; null: the domain's")
    # who opens the call (evalkit.call.loop): agent (wait for its greeting), caller (speak first), or auto: wait up to
    # greeting_wait_s for the agent's first audio, then the caller opens (a bot that waits for the caller works as is)
    first_speaker: Literal["agent", "caller", "auto"] = "auto"
    greeting_wait_s: float = Field(default=3.0, gt=0, le=60)
    silence_dbfs: float = Field(default=-50.0, le=0)  # agent audio below this level is silence
    connect_timeout_s: float = Field(default=10.0, gt=0)  # connecting, and the session.updated answer
    response_timeout_s: float = Field(default=30.0, gt=0)  # no agent event for this long: infrastructure failure
    max_duration_s: float = Field(default=600.0, gt=0)  # EVA-Bench Table 7
    max_message_bytes: int = Field(default=1 << 24, ge=1024)  # a larger event ends the call (infrastructure failure)

    @field_validator("url")
    @classmethod
    def _websocket_url(cls, url: str) -> str:
        return checked_url(url, ("ws", "wss"))

    def params(self) -> dict[str, str]:
        model = {"agent_s2s_model": self.model} if self.model else {}
        transcription = self.input_transcription_model
        return model | ({"agent_input_transcription_model": transcription} if transcription else {})

    def api_key(self) -> str | None:
        """The key from the environment (never stored in the config); a variable that is not set is one line."""
        if not self.api_key_env:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ValueError(
                f"agent.api_key_env: ${self.api_key_env} is not set; export it, or set agent.api_key_env=null for "
                "a keyless server"
            )
        return value

    def build(self) -> OpenAIRealtimeAgent:  # type: ignore[override]
        self.api_key()  # a missing key fails here, before any call is placed
        return OpenAIRealtimeAgent(self)


@dataclasses.dataclass
class OpenAIRealtimeAgent:
    """Not an in-process agent: a factory of one Realtime session per call (``realtime``: the conversation runs it
    on a real clock with 20 ms frames, see evalkit.call.conversation)."""

    config: OpenAIRealtimeConfig
    realtime = True

    def session(self, clock: Clock) -> AgentSession:
        from evalkit.wire.openai_realtime.client import RealtimeCallerSession

        return RealtimeCallerSession(self.config, clock)

    def call_settings(self, base: CallSettings) -> CallSettings:
        return dataclasses.replace(
            base,
            frame_ms=FRAME_MS,
            agent_timeout_s=self.config.response_timeout_s,
            max_duration_s=min(base.max_duration_s, self.config.max_duration_s),
            first_speaker=self.config.first_speaker,
            greeting_wait_s=self.config.greeting_wait_s,
        )
