"""The three OpenAI-compatible endpoints a voice agent needs, over the shared retry policy (``retry.py``):

- ``POST {base_url}/audio/transcriptions`` (multipart: ``file``, ``model``, ``response_format=json``) -> text;
- ``POST {base_url}/chat/completions`` (``messages``, ``tools``) -> the assistant message (text and/or tool calls);
- ``POST {base_url}/audio/speech`` (``model``, ``input``, ``voice``, ``response_format`` wav or pcm) -> samples.

Each answer comes back with how many retries it took, and every answered request is metered (``evalkit.usage``:
the tokens its ``usage`` reports, the audio seconds sent and received, the characters sent to speech) under the
endpoint's component (``agent.stt``, ``simulator`` ...), base URL and model. A 2xx answer that is not what the
endpoint promises (no ``text``, no ``choices``, audio that does not decode) is :class:`EndpointAnswerInvalid`: the
server's failure, an infrastructure failure of the call, never the agent's behaviour.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import requests
import soundfile as sf

from evalkit import usage
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

    @property
    def component(self) -> str:
        """Who sends this endpoint's requests, for the usage ledger: ``agent.llm endpoint`` -> ``agent.llm``."""
        return self.what.removesuffix(" endpoint")

    def meter(self, payload: Any, **measured: float) -> None:
        usage.record_payload(self.component, self.base_url, self.model, payload, **measured)

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


def wav_seconds(data: bytes) -> float:
    """The length of a WAV clip in seconds (0 for bytes that are no WAV: metering never fails a call)."""
    try:
        return float(sf.info(io.BytesIO(data)).duration)
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError):
        return 0.0


def speech_seconds(data: bytes, response_format: str, pcm_sample_rate: int = PCM_SAMPLE_RATE) -> float:
    return len(data) / 2 / pcm_sample_rate if response_format == "pcm" else wav_seconds(data)


def _json(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def sent_audio_seconds(body: dict[str, Any]) -> float:
    """Seconds of audio in a chat request's ``input_audio`` parts (base64 WAV: what a hybrid agent sends)."""
    import base64

    total = 0.0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            audio = part.get("input_audio") if isinstance(part, dict) else None
            if isinstance(audio, dict) and isinstance(audio.get("data"), str):
                total += wav_seconds(base64.b64decode(audio["data"]))
    return total


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
    endpoint.meter(_json(response), audio_s_in=wav_seconds(wav))
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
    endpoint.meter(_json(response), audio_s_in=sent_audio_seconds(body))
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


def speech_bytes(endpoint: Endpoint, body: dict[str, Any], pcm_sample_rate: int = PCM_SAMPLE_RATE) -> tuple[bytes, int]:
    """(the audio bytes as the server sent them, retries) of one speech request: what a cache keeps."""
    response, retries = endpoint.post(SPEECH_PATH, json=body)
    seconds = speech_seconds(response.content, str(body.get("response_format", "wav")), pcm_sample_rate)
    endpoint.meter(None, audio_s_out=seconds, characters_in=len(str(body.get("input", ""))))
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
    data, retries = speech_bytes(endpoint, speech_body(endpoint, text, voice, response_format, speed), pcm_sample_rate)
    samples, rate = decode_speech(endpoint, data, response_format, pcm_sample_rate)
    return samples, rate, retries


def probe_models(base_url: str, api_key: str | None, timeout_s: float) -> tuple[int | None, str]:
    """One ``GET {base_url}/models`` (the cheapest request an OpenAI-compatible server answers, free of charge):
    (the HTTP status, "") or (None, why it could not be reached). Not retried: a preflight says what is wrong now."""
    try:
        response = requests.get(base_url.rstrip("/") + "/models", headers=bearer_headers(api_key), timeout=timeout_s)
    except requests.Timeout:
        return None, f"no answer within {timeout_s:g} s"
    except requests.ConnectionError as exc:
        # the OS's reason ("[Errno 111] Connection refused", a DNS failure), not urllib3's nested retry report
        reason = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", str(exc))
        return None, f"unreachable ({reason[1].strip() if reason else type(exc).__name__})"
    return response.status_code, ""
