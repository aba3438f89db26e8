"""The OpenAI Realtime event protocol, as JSON objects: the client events the caller sends and the names of the
server events it reads, in both dialects OpenAI has shipped.

``ga`` is the generally available interface (``session.type: realtime``, audio settings under ``session.audio``,
``response.output_audio.delta``); ``beta`` is the preview one still spoken by many Realtime-compatible servers
(flat ``input_audio_format`` / ``voice`` / ``turn_detection``, ``response.audio.delta``, the ``OpenAI-Beta:
realtime=v1`` header). The caller writes the dialect of ``agent.api`` and reads both: a server event is recognised
by either name. The event shapes follow OpenAI's API reference (client events ``session.update``,
``input_audio_buffer.append`` / ``commit``, ``conversation.item.create``, ``conversation.item.truncate``,
``response.create`` / ``cancel``; server events ``session.updated``, ``response.*``, ``error``).
"""

from __future__ import annotations

import base64
import itertools
import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

Api = Literal["ga", "beta"]
AudioFormat = Literal["pcm16", "g711_ulaw"]
TurnDetection = Literal["server_vad", "semantic_vad", "none"]

SAMPLE_RATE: dict[str, int] = {"pcm16": 24_000, "g711_ulaw": 8_000}  # Realtime's PCM is 24 kHz only
CODEC: dict[str, Literal["pcm16", "mulaw"]] = {"pcm16": "pcm16", "g711_ulaw": "mulaw"}  # twilio_ws.codec names
GA_FORMAT: dict[str, dict[str, Any]] = {
    "pcm16": {"type": "audio/pcm", "rate": 24_000},
    "g711_ulaw": {"type": "audio/pcmu"},
}
BETA_HEADER = ("OpenAI-Beta", "realtime=v1")

# server events by meaning, each under its GA and its beta name
AUDIO_DELTA = frozenset({"response.output_audio.delta", "response.audio.delta"})
TRANSCRIPT_DELTA = frozenset(
    {"response.output_audio_transcript.delta", "response.audio_transcript.delta"}
    | {"response.output_text.delta", "response.text.delta"}  # a text-only response: its text is the words
)
TRANSCRIPT_DONE = frozenset(
    {"response.output_audio_transcript.done", "response.audio_transcript.done"}
    | {"response.output_text.done", "response.text.done"}
)
INPUT_TRANSCRIBED = "conversation.item.input_audio_transcription.completed"
# error codes that report a harmless race, not a failure: a cancel that came after the response had finished
BENIGN_ERROR_CODES = frozenset({"response_cancel_not_active"})


class ProtocolError(ValueError):
    """A server message that is not a JSON object with a ``type``."""


@dataclass(frozen=True)
class SessionSettings:
    """What ``session.update`` sets: the agent's instructions and tools, its voice and the call's audio."""

    instructions: str
    tools: list[dict[str, Any]]
    voice: str
    audio_format: AudioFormat = "pcm16"
    turn_detection: TurnDetection = "server_vad"
    vad: dict[str, Any] | None = (
        None  # server_vad's threshold / prefix_padding_ms / silence_duration_ms (None: default)
    )
    input_transcription_model: str | None = None


def endpoint(url: str, model: str | None) -> str:
    """``url`` with ``?model=`` added (the Realtime API names the model in the WebSocket URL's query)."""
    if not model:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "model"] + [("model", model)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def function_tools(chat_tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-completions function tools (``{"type": "function", "function": {...}}``) in Realtime's flat shape."""
    return [{"type": "function", **tool["function"]} for tool in chat_tools]


def turn_detection(settings: SessionSettings) -> dict[str, Any] | None:
    if settings.turn_detection == "none":
        return None
    vad = {k: v for k, v in (settings.vad or {}).items() if v is not None}
    return {"type": settings.turn_detection, **(vad if settings.turn_detection == "server_vad" else {})}


def session_update(settings: SessionSettings, api: Api) -> dict[str, Any]:
    transcription = {"model": settings.input_transcription_model} if settings.input_transcription_model else None
    common = {"instructions": settings.instructions, "tools": settings.tools, "tool_choice": "auto"}
    if api == "beta":
        session: dict[str, Any] = {
            "modalities": ["audio", "text"],
            "voice": settings.voice,
            "input_audio_format": settings.audio_format,
            "output_audio_format": settings.audio_format,
            "turn_detection": turn_detection(settings),
            **({"input_audio_transcription": transcription} if transcription else {}),
            **common,
        }
    else:
        audio_input: dict[str, Any] = {
            "format": GA_FORMAT[settings.audio_format],
            "turn_detection": turn_detection(settings),
            **({"transcription": transcription} if transcription else {}),
        }
        session = {
            "type": "realtime",
            "output_modalities": ["audio"],
            "audio": {
                "input": audio_input,
                "output": {"format": GA_FORMAT[settings.audio_format], "voice": settings.voice},
            },
            **common,
        }
    return {"type": "session.update", "session": session}


def append(audio: bytes) -> dict[str, Any]:
    return {"type": "input_audio_buffer.append", "audio": base64.b64encode(audio).decode("ascii")}


def commit() -> dict[str, Any]:
    return {"type": "input_audio_buffer.commit"}


def response_create(instructions: str | None = None) -> dict[str, Any]:
    return {"type": "response.create", **({"response": {"instructions": instructions}} if instructions else {})}


def response_cancel() -> dict[str, Any]:
    return {"type": "response.cancel"}


def truncate(item_id: str, audio_end_ms: int) -> dict[str, Any]:
    return {"type": "conversation.item.truncate", "item_id": item_id, "content_index": 0, "audio_end_ms": audio_end_ms}


def function_call_output(call_id: str, output: dict[str, Any]) -> dict[str, Any]:
    item = {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output, default=str)}
    return {"type": "conversation.item.create", "item": item}


_event_ids = itertools.count(1)


def dumps(event: dict[str, Any]) -> str:
    """A client event as sent, with an ``event_id`` (the server names it in an ``error`` it causes)."""
    return json.dumps({"event_id": f"evt_evalkit_{next(_event_ids)}", **event}, separators=(",", ":"))


def parse(raw: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except ValueError:
        raise ProtocolError(f"malformed JSON: {str(raw)[:80]!r}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"a message without a type: {str(raw)[:80]!r}")
    return message


def error_text(message: dict[str, Any]) -> str:
    """One line from an ``error`` event: its type, code, message and the client event that caused it."""
    error = message.get("error") if isinstance(message.get("error"), dict) else {}
    kind = error.get("type") or "error"
    code = f" ({error['code']})" if error.get("code") else ""
    param = f" [param {error['param']}]" if error.get("param") else ""
    return f"{kind}{code}: {error.get('message') or 'no message'}{param}"


def function_calls(response: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(call_id, name, arguments) of the function calls a finished response (``response.done``) holds."""
    items = response.get("output") if isinstance(response.get("output"), list) else []
    return [
        (str(item.get("call_id") or item.get("id") or ""), str(item.get("name") or ""), item.get("arguments") or "")
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]
