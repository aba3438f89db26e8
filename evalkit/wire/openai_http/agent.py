"""The in-process agents behind OpenAI-compatible servers: a cascade (STT -> chat with tools -> TTS) and a hybrid
(an audio-in chat model -> TTS). Turn-based: the call loop hands each whole caller turn to ``respond`` and moves the
virtual clock on by the measured wall time of the turn (STT + every chat request of the tool loop + the tools + TTS),
so latency metrics see what a caller would have waited.

The system prompt is the domain's agent prompt for the architecture (App. L, ``evalkit.prompts``); the tools are the
domain's, as OpenAI function schemas, and every tool call the model makes runs through the harness's ToolBox as JSON
text (``call_json``): an unknown tool or arguments that are not a JSON object are the agent's own mistake, answered
with an error result it sees on its next request and recorded for the tool metrics, never an infrastructure failure.

The tool loop: after each answer that requests tools, the tools run and their results go back as ``role: tool``
messages, until the model answers with text. ``max_tool_rounds`` bounds it: a request for tools beyond that many
rounds in one turn is not executed (it is dropped from the history) and the agent says ``tool_limit_reply`` instead:
the agent's behaviour, recorded as its turn. An answer with no text at all is a turn without speech.

Anything the endpoints fail at (unreachable, 429/5xx after every retry, a refused model or key, an answer that is
not what the endpoint promises) raises an ``EndpointError``: the call loop records an infrastructure failure.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from evalkit.agents.base import AgentContext, AgentReply
from evalkit.prompts import render_agent_prompt
from evalkit.records import AudioClip
from evalkit.wire.openai_http.client import Endpoint, chat, speech, transcribe, wav_bytes

log = logging.getLogger("evalkit")

DEFAULT_GREETING = "Hello! How can I help you today?"  # EVA-Bench's sample transcripts (App. H)


@dataclass(frozen=True)
class ChatSettings:
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    max_tool_rounds: int = 8
    tool_limit_reply: str = "I'm sorry, I couldn't finish that just now. Could you tell me again what you need?"


@dataclass(frozen=True)
class SpeechSettings:
    voice: str = "alloy"
    response_format: str = "wav"
    pcm_sample_rate: int = 24_000
    speed: float | None = None


@dataclass
class _Turn:
    """What one agent turn measured: stage times (ms) and HTTP retries."""

    started: float = field(default_factory=time.perf_counter)
    stt_ms: float | None = None
    llm_ms: float = 0.0
    tts_ms: float | None = None
    retries: int = 0


def tool_schemas(context: AgentContext) -> list[dict[str, Any]]:
    """The domain's tools as OpenAI function tools (EVA-Bench gives the agent the domain's whole flat list)."""
    registry = context.tools.executor.registry
    served = getattr(registry, "schemas", None)  # a remote registry (evalkit.wire.tools.remote) holds them as served
    if isinstance(served, dict):
        return [{"type": "function", "function": served[name]} for name in registry.names]
    return [{"type": "function", "function": registry[name].json_schema()} for name in registry.names]


def message_text(message: dict[str, Any]) -> str:
    """The text of an assistant message: a string, or the text parts of a content list (some servers send one)."""
    content = message.get("content")
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") in ("text", "output_text")]
        return " ".join(p for p in parts if isinstance(p, str)).strip()
    return ""


def normalised_tool_calls(message: dict[str, Any], round_index: int) -> list[dict[str, Any]]:
    """The message's tool calls in the request shape (id, type, function name and arguments as JSON text). A server
    that omits ids or sends arguments as an object still gets a well-formed history back."""
    calls = message.get("tool_calls") or []
    out = []
    for n, call in enumerate(calls if isinstance(calls, list) else []):
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        out.append(
            {
                "id": str(call.get("id") or f"call_{round_index}_{n}") if isinstance(call, dict) else f"call_{n}",
                "type": "function",
                "function": {"name": str(function.get("name") or ""), "arguments": arguments},
            }
        )
    return out


class OpenAIVoiceAgent:
    """The shared body of ``cascade_openai`` and ``hybrid_openai``: conversation history, tool loop and TTS; the
    two differ only in how the caller's turn enters the history (:meth:`_user_content`)."""

    architecture = "cascade"

    def __init__(
        self,
        llm: Endpoint,
        tts: Endpoint,
        chat_settings: ChatSettings,
        speech_settings: SpeechSettings,
        greeting: str | None,
    ) -> None:
        self.llm = llm
        self.tts = tts
        self.chat_settings = chat_settings
        self.speech_settings = speech_settings
        self.greeting = greeting
        self._context: AgentContext | None = None
        self._messages: list[dict[str, Any]] = []
        self._tools: list[dict[str, Any]] = []

    # -- the agent interface ---------------------------------------------------------------------------------------
    def start(self, context: AgentContext) -> AgentReply:
        """The agent speaks first (EVA-Bench §2.1) with a fixed greeting: no chat request, only TTS."""
        turn = _Turn()
        self._context = context
        prompt = render_agent_prompt(context.domain, context.current_date_time, self.architecture)  # type: ignore[arg-type]
        self._tools = tool_schemas(context)
        greeting = self.greeting or _domain_greeting(context.domain)
        self._messages = [{"role": "system", "content": prompt}, {"role": "assistant", "content": greeting}]
        return self._speak(greeting, None, turn, llm=False)

    def respond(self, user: AudioClip | str) -> AgentReply:
        assert self._context is not None, "start() must be called first"
        turn = _Turn()
        content, heard = self._user_content(user, turn)
        self._messages.append({"role": "user", "content": content})
        return self._speak(self._tool_loop(turn), heard, turn, llm=True)

    # -- the stages ------------------------------------------------------------------------------------------------
    def _user_content(self, user: AudioClip | str, turn: _Turn) -> tuple[Any, str | None]:
        raise NotImplementedError

    def _chat(self, turn: _Turn, round_index: int) -> dict[str, Any]:
        settings = self.chat_settings
        body: dict[str, Any] = {"messages": self._messages, "temperature": settings.temperature}
        if self._tools:
            body |= {"tools": self._tools, "tool_choice": "auto"}
        if settings.max_tokens is not None:
            body["max_tokens"] = settings.max_tokens
        if settings.seed is not None:
            body["seed"] = settings.seed
        started = time.perf_counter()
        message, retries = chat(self.llm, body)
        turn.llm_ms += (time.perf_counter() - started) * 1000.0
        turn.retries += retries
        return message

    def _tool_loop(self, turn: _Turn) -> str:
        """Chat until the model answers with text; run each requested tool through the ToolBox in between."""
        assert self._context is not None
        tools = self._context.tools
        for round_index in range(self.chat_settings.max_tool_rounds + 1):
            message = self._chat(turn, round_index)
            calls = normalised_tool_calls(message, round_index)
            text = message_text(message)
            if not calls:
                self._messages.append({"role": "assistant", "content": text})
                return text
            if round_index == self.chat_settings.max_tool_rounds:
                break
            self._messages.append({"role": "assistant", "content": text or None, "tool_calls": calls})
            for call in calls:
                result = tools.call_json(call["function"]["name"], call["function"]["arguments"])
                self._messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
        log.warning(
            "%s: the model still requested tools after %d rounds in one turn: not executed, the agent says %r",
            self.llm.what, self.chat_settings.max_tool_rounds, self.chat_settings.tool_limit_reply,
        )  # fmt: skip
        self._messages.append({"role": "assistant", "content": self.chat_settings.tool_limit_reply})
        return self.chat_settings.tool_limit_reply

    def _speak(self, text: str, heard: str | None, turn: _Turn, *, llm: bool) -> AgentReply:
        assert self._context is not None
        audio = None
        if text:
            settings = self.speech_settings
            started = time.perf_counter()
            samples, rate, retries = speech(
                self.tts, text, settings.voice, settings.response_format, settings.pcm_sample_rate, settings.speed
            )
            turn.tts_ms = (time.perf_counter() - started) * 1000.0
            turn.retries += retries
            audio = AudioClip(samples=samples, sample_rate=rate)
        return AgentReply(
            text=text,
            audio=audio,
            heard_text=heard,
            tool_calls=self._context.tools.drain(),
            asr_ms=turn.stt_ms or 0.0,
            compute_ms=(time.perf_counter() - turn.started) * 1000.0,
            stt_ms=turn.stt_ms,
            llm_ms=turn.llm_ms if llm else None,
            tts_ms=turn.tts_ms,
            http_retries=turn.retries,
        )


class CascadeOpenAIAgent(OpenAIVoiceAgent):
    """STT -> chat with tools -> TTS: the model reads a transcript of the caller (architecture ``cascade``)."""

    architecture = "cascade"

    def __init__(self, stt: Endpoint, language: str | None, stt_prompt: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stt = stt
        self.language = language
        self.stt_prompt = stt_prompt

    def _user_content(self, user: AudioClip | str, turn: _Turn) -> tuple[Any, str | None]:
        if isinstance(user, str):  # a text channel: nothing to transcribe
            return user, user
        started = time.perf_counter()
        text, retries = transcribe(self.stt, wav_bytes(user.samples, user.sample_rate), self.language, self.stt_prompt)
        turn.stt_ms = (time.perf_counter() - started) * 1000.0
        turn.retries += retries
        return text, text


class HybridOpenAIAgent(OpenAIVoiceAgent):
    """An audio-in chat model (the caller's turn as an ``input_audio`` content part, base64 WAV) -> TTS: the model
    hears the caller itself (architecture ``hybrid``), so there is no transcript of what it heard."""

    architecture = "hybrid"

    def _user_content(self, user: AudioClip | str, turn: _Turn) -> tuple[Any, str | None]:
        if isinstance(user, str):
            return user, user
        data = base64.b64encode(wav_bytes(user.samples, user.sample_rate)).decode("ascii")
        return [{"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}], None


def _domain_greeting(domain: str) -> str:
    from evalkit.domains import get_domain

    return get_domain(domain).greeting or DEFAULT_GREETING
