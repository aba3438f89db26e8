"""The messages of a Twilio Media Streams call, as JSON text frames, from both ends (no I/O here).

The caller (Twilio's side; evalkit's ``twilio_ws`` client) sends ``connected``, ``start``, ``media``, echoes
``mark`` and ends with ``stop``; with speech events on it adds EVA-Bench's ``user_speech_start`` /
``user_speech_stop`` (wall-clock ``timestamp_ms``). The agent sends ``media``, ``mark`` and ``clear`` (drop the
agent audio the caller has buffered: barge-in).

The ``start`` message's ``customParameters`` (strings, as Twilio's are) carry ``scenario_id``, ``domain``,
``current_date_time``, ``session_id`` and ``tools`` (``harness`` | ``agent_side`` | ``none``); unless tools are
``none``, also ``tool_endpoint`` (the JSON HTTP base URL of this call's tools) and ``mcp_url`` (the same tools over
MCP, streamable HTTP). The endpoints are described in evalkit.wire.tools.server.

evalkit extension, sent by evalkit's reference server (``python -m evalkit.serve``) only and ignored by any other
caller: before the audio of each turn, ``evalkit_transcript`` (``text``, ``heard_text``, ``end_call``), so the
records hold what the served agent meant and heard.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

SAMPLE_RATE = 8000
FRAME_MS = 20.0  # Twilio's media frame: 20 ms (160 μ-law bytes at 8 kHz)

TRANSCRIPT_EVENT = "evalkit_transcript"


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def wall_ms() -> int:
    """Epoch milliseconds: EVA-Bench's speech events carry wall-clock time."""
    return int(time.time() * 1000)


def connected() -> dict[str, Any]:
    return {"event": "connected", "protocol": "Call", "version": "1.0.0"}


def start(
    seq: int,
    stream_sid: str,
    call_sid: str,
    custom: dict[str, str],
    mime: str = "audio/x-mulaw",
    sample_rate: int = SAMPLE_RATE,
) -> dict[str, Any]:
    return {
        "event": "start",
        "sequenceNumber": str(seq),
        "streamSid": stream_sid,
        "start": {
            "accountSid": "ACevalkit",
            "streamSid": stream_sid,
            "callSid": call_sid,
            "tracks": ["inbound"],
            "customParameters": custom,
            "mediaFormat": {"encoding": mime, "sampleRate": sample_rate, "channels": 1},
        },
    }


def media(stream_sid: str, payload: bytes, seq: int | None = None, chunk: int = 0, timestamp_ms: int = 0) -> dict:
    """A media frame; the caller's carry sequence/track/chunk/timestamp, the agent's only the payload."""
    message: dict[str, Any] = {"event": "media", "streamSid": stream_sid}
    body: dict[str, Any] = {"payload": base64.b64encode(payload).decode("ascii")}
    if seq is not None:
        message["sequenceNumber"] = str(seq)
        body.update(track="inbound", chunk=str(chunk), timestamp=str(timestamp_ms))
    message["media"] = body
    return message


def caller_media_json(stream_sid: str, payload_b64: str, seq: int, chunk: int, timestamp_ms: int) -> str:
    """``dumps(media(...))`` of a caller's frame, built as text: 50 a second per call, so no dict and no JSON
    encoder per frame. Every field is ASCII with nothing to escape (a ``MZ``+hex sid, base64, decimal numbers), so
    the text is byte for byte what ``dumps`` gives (tests/test_twilio_ws.py checks it)."""
    return (
        f'{{"event":"media","streamSid":"{stream_sid}","sequenceNumber":"{seq}","media":{{"payload":"{payload_b64}",'
        f'"track":"inbound","chunk":"{chunk}","timestamp":"{timestamp_ms}"}}}}'
    )


def mark(stream_sid: str, name: str, seq: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"event": "mark", "streamSid": stream_sid, "mark": {"name": name}}
    if seq is not None:
        message["sequenceNumber"] = str(seq)
    return message


def clear(stream_sid: str) -> dict[str, Any]:
    return {"event": "clear", "streamSid": stream_sid}


def stop(seq: int, stream_sid: str, call_sid: str) -> dict[str, Any]:
    return {
        "event": "stop",
        "sequenceNumber": str(seq),
        "streamSid": stream_sid,
        "stop": {"accountSid": "ACevalkit", "callSid": call_sid},
    }


def speech_event(kind: str) -> dict[str, Any]:
    """``user_speech_start`` / ``user_speech_stop`` (EVA-Bench's assistant contract)."""
    return {"event": kind, "timestamp_ms": wall_ms()}


def payload_of(message: dict[str, Any]) -> bytes:
    return base64.b64decode(message["media"]["payload"], validate=True)


class ProtocolError(ValueError):
    """A frame that is not a JSON object with an ``event``: the other end does not speak the protocol."""


def parse(raw: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed JSON ({exc.msg if hasattr(exc, 'msg') else exc}): {_excerpt(raw)}") from None
    if not isinstance(message, dict) or not isinstance(message.get("event"), str):
        raise ProtocolError(f"not a media-stream message (no 'event'): {_excerpt(raw)}")
    return message


def _excerpt(raw: str | bytes, limit: int = 60) -> str:
    text = raw if isinstance(raw, str) else raw[:limit].decode("utf-8", "replace")
    return repr(text[:limit] + ("…" if len(text) > limit else ""))
