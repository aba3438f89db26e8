"""The agent kinds ``cascade_openai`` and ``hybrid_openai`` (``conf/agent/cascade_openai.yaml``,
``conf/agent/hybrid_openai.yaml``): voice agents built from OpenAI-compatible servers, each stage with its own base
URL, model and key, so any mix of hosted and local servers (vLLM, Ollama, LiteLLM, speaches-style audio servers)
works.

Keys: each stage names the environment variable that holds its key (``api_key_env``; null for a keyless local
server). The value is read when the agent is built and never enters the config, its hash, the params or a message;
a variable that is not set is one line at preflight (``evalkit.config.preflight.key_env_problems``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.wire.openai_http.settings import EndpointSettings, RetrySettings

__all__ = [
    "CascadeOpenAIConfig",
    "EndpointSettings",
    "HybridOpenAIConfig",
    "LlmSettings",
    "RetrySettings",
    "SttSettings",
    "TtsSettings",
]


class SttSettings(EndpointSettings):
    """``POST {base_url}/audio/transcriptions``."""

    language: str | None = Field(default="en", description="ISO-639-1 hint sent with each clip; null: detect")
    prompt: str | None = Field(default=None, description="optional transcription prompt (vocabulary hints)")


class LlmSettings(EndpointSettings):
    """``POST {base_url}/chat/completions`` with the domain's tools."""

    temperature: float = Field(default=0.0, ge=0, le=2)  # sampling temperature sent with each chat request
    # named max_length, not max_tokens: config keys holding "token" are dropped from a cell's identity as secrets
    max_length: int | None = Field(default=512, ge=1, description="sent as max_tokens; null: the server's default")
    seed: int | None = Field(default=None, description="sent as seed where the server supports it")
    max_tool_rounds: int = Field(default=8, ge=1, le=64, description="chat requests per turn that may run tools")
    tool_limit_reply: str = Field(
        default="I'm sorry, I couldn't finish that just now. Could you tell me again what you need?",
        min_length=1,
        description="said instead when the model still requests tools after max_tool_rounds rounds",
    )


class TtsSettings(EndpointSettings):
    """``POST {base_url}/audio/speech``."""

    voice: str = Field(default="alloy", min_length=1)  # the server's voice name (alloy, coral, af_heart, ...)
    response_format: Literal["wav", "pcm"] = Field(default="wav", description="pcm: raw 16-bit little-endian mono")
    pcm_sample_rate: int = Field(default=24_000, ge=8_000, le=96_000, description="the rate of pcm answers")
    speed: float | None = Field(default=None, ge=0.25, le=4.0)  # sent as speed; null: not sent (the voice's own)


class _OpenAIAgentConfig(AgentConfig):
    METERING: ClassVar[str] = "metered"  # every request goes through evalkit's clients (evalkit.usage)
    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ("retry", "stt.timeout_s", "llm.timeout_s", "tts.timeout_s")

    llm: LlmSettings
    tts: TtsSettings
    greeting: str | None = Field(default=None, description="the agent's first words; null: the domain's greeting")
    retry: RetrySettings = RetrySettings()

    def _endpoints(self) -> dict[str, EndpointSettings]:
        return {"llm": self.llm, "tts": self.tts}

    def params(self) -> dict[str, str]:
        return super().params() | {f"agent_{stage}_model": s.model for stage, s in self._endpoints().items()}

    def _common(self) -> dict[str, Any]:
        from evalkit.wire.openai_http.agent import ChatSettings, SpeechSettings

        policy = self.retry.policy()
        llm, tts = self.llm, self.tts
        return {
            "llm": llm.endpoint("agent.llm", policy),
            "tts": tts.endpoint("agent.tts", policy),
            "chat_settings": ChatSettings(
                llm.temperature, llm.max_length, llm.seed, llm.max_tool_rounds, llm.tool_limit_reply
            ),
            "speech_settings": SpeechSettings(tts.voice, tts.response_format, tts.pcm_sample_rate, tts.speed),
            "greeting": self.greeting,
        }


@AGENTS.register("cascade_openai")
class CascadeOpenAIConfig(_OpenAIAgentConfig):
    """STT (``/audio/transcriptions``) -> chat with tools (``/chat/completions``) -> TTS (``/audio/speech``)."""

    kind: Literal["cascade_openai"] = "cascade_openai"
    architecture: Literal["cascade"] = "cascade"
    stt: SttSettings

    def _endpoints(self) -> dict[str, EndpointSettings]:
        return {"stt": self.stt, "llm": self.llm, "tts": self.tts}

    def build(self) -> Any:
        from evalkit.wire.openai_http.agent import CascadeOpenAIAgent

        stt = self.stt
        endpoint = stt.endpoint("agent.stt", self.retry.policy())
        return CascadeOpenAIAgent(endpoint, stt.language, stt.prompt, **self._common())


@AGENTS.register("hybrid_openai")
class HybridOpenAIConfig(_OpenAIAgentConfig):
    """An audio-in chat model (``input_audio`` content parts, base64 WAV) -> TTS (``/audio/speech``)."""

    kind: Literal["hybrid_openai"] = "hybrid_openai"
    architecture: Literal["hybrid"] = "hybrid"

    def build(self) -> Any:
        from evalkit.wire.openai_http.agent import HybridOpenAIAgent

        return HybridOpenAIAgent(**self._common())
