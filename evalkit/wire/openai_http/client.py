"""The three OpenAI-compatible endpoints a voice agent needs, over the shared retry policy (``retry.py``):

- ``POST {base_url}/audio/transcriptions`` (multipart: ``file``, ``model``, ``response_format=json``) -> text;
- ``POST {base_url}/chat/completions`` (``messages``, ``tools``) -> the assistant message (text and/or tool calls);
- ``POST {base_url}/audio/speech`` (``model``, ``input``, ``voice``, ``response_format`` wav or pcm) -> samples.

Each answer comes back with how many retries it took. A 2xx answer that is not what the endpoint promises (no
``text``, no ``choices``, audio that does not decode) is :class:`EndpointAnswerInvalid`: the server's failure, an
infrastructure failure of the call, never the agent's behaviour.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import requests
import soundfile as sf

from evalkit.wire.openai_http.retry import (
    EndpointError,
    RetryPolicy,
    bearer_headers,
    post_with_retries,
    scrubber,
)

SPEECH_PATH = "/audio/speech"
PCM_SAMPLE_RATE = 24_000  # OpenAI's `pcm` speech format: raw 16-bit little-endian mono at 24 kHz


class EndpointAnswerInvalid(EndpointError):
    """The endpoint answered 2xx with something that is not a transcription, a chat completion or audio."""


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible server and model. ``what`` names it in every message (``agent.llm endpoint``); the
    key is read by the caller from the environment and never printed."""

    base_url: str
    model: str
    what: str
    api_key: str | None = None
    timeout_s: float = 60.0
    policy: RetryPolicy = field(default_factory=RetryPolicy)

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def post(self, path: str, **request: Any) -> tuple[requests.Response, int]:
        answered = post_with_retries(
            self.url(path),
            what=f"{self.what} (model {self.model!r})",
            policy=self.policy,
            timeout_s=self.timeout_s,
            headers=bearer_headers(self.api_key, json_body="json" in request),
            scrub=scrubber(self.api_key),
            **request,
        )
        return answered.response, answered.retries

    def invalid(self, path: str, problem: str, response: requests.Response) -> EndpointAnswerInvalid:
        return self.invalid_bytes(path, problem, response.content)

    def invalid_bytes(self, path: str, problem: str, data: bytes) -> EndpointAnswerInvalid:
        body = scrubber(self.api_key)(data[:200].decode("utf-8", errors="replace"))
        return EndpointAnswerInvalid(f"{self.what} {self.url(path)} answered {problem}: {body!r}")


def wav_bytes(samples: np.ndarray, sample_rate: int) -> bytes:
    """A mono 16-bit PCM WAV file in memory (what the transcription and audio-chat endpoints accept)."""
    buffer = io.BytesIO()
    sf.write(buffer, np.asarray(samples, dtype=np.float32), int(sample_rate), subtype="PCM_16", format="WAV")
    return buffer.getvalue()


def transcribe(
    endpoint: Endpoint, wav: bytes, language: str | None = None, prompt: str | None = None
) -> tuple[str, int]:
    """The transcript of one WAV clip, and the retries it took."""
    path = "/audio/transcriptions"
    data = {"model": endpoint.model, "response_format": "json"}
    if language:
        data["language"] = language
    if prompt:
        data["prompt"] = prompt
    response, retries = endpoint.post(path, data=data, files={"file": ("turn.wav", wav, "audio/wav")})
    try:
        text = response.json()["text"]
    except (ValueError, KeyError, TypeError) as exc:
        raise endpoint.invalid(path, f"no transcription ({type(exc).__name__})", response) from None
    if not isinstance(text, str):
        raise endpoint.invalid(path, "a transcription whose text is not a string", response)
    return text.strip(), retries


def chat(endpoint: Endpoint, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The first choice's assistant message of one chat completion (``body`` without ``model``), and the retries."""
    path = "/chat/completions"
    response, retries = endpoint.post(path, json={"model": endpoint.model, **body})
    try:
        message = response.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise endpoint.invalid(path, f"no chat completion ({type(exc).__name__})", response) from None
    if not isinstance(message, dict):
        raise endpoint.invalid(path, "a choice whose message is not an object", response)
    return message, retries


def speech_body(
    endpoint: Endpoint, text: str, voice: str, response_format: str = "wav", speed: float | None = None, **extra: Any
) -> dict[str, Any]:
    """The JSON body of one speech request (``extra``: optional fields such as ``instructions``, sent when set)."""
    body: dict[str, Any] = {"model": endpoint.model, "input": text, "voice": voice, "response_format": response_format}
    if speed is not None:
        body["speed"] = speed
    return body | {k: v for k, v in extra.items() if v is not None}


def speech_bytes(endpoint: Endpoint, body: dict[str, Any]) -> tuple[bytes, int]:
    """(the audio bytes as the server sent them, retries) of one speech request: what a cache keeps."""
    response, retries = endpoint.post(SPEECH_PATH, json=body)
    return response.content, retries


def decode_speech(
    endpoint: Endpoint, data: bytes, response_format: str = "wav", pcm_sample_rate: int = PCM_SAMPLE_RATE
) -> tuple[np.ndarray, int]:
    """(mono float32 samples, sample rate) of a speech answer; audio that does not decode is the server's failure."""
    if response_format == "pcm":
        if len(data) < 2:
            raise endpoint.invalid_bytes(SPEECH_PATH, "no pcm audio", data)
        samples = np.frombuffer(data[: len(data) // 2 * 2], dtype="<i2").astype(np.float32) / 32768.0
        return samples, pcm_sample_rate
    try:
        samples, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, TypeError) as exc:
        raise endpoint.invalid_bytes(
            SPEECH_PATH, f"audio that does not decode as {response_format} ({exc})", data
        ) from None
    return samples.mean(axis=1).astype(np.float32), int(rate)


def speech(
    endpoint: Endpoint,
    text: str,
    voice: str,
    response_format: str = "wav",
    pcm_sample_rate: int = PCM_SAMPLE_RATE,
    speed: float | None = None,
) -> tuple[np.ndarray, int, int]:
    """(mono float32 samples, sample rate, retries) of ``text`` spoken by the speech endpoint."""
    data, retries = speech_bytes(endpoint, speech_body(endpoint, text, voice, response_format, speed))
    samples, rate = decode_speech(endpoint, data, response_format, pcm_sample_rate)
    return samples, rate, retries
