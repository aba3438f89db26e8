"""The voice kind ``openai_tts`` (``conf/voice/openai_tts.yaml``): the caller speaks through any OpenAI-compatible
speech endpoint (``POST {base_url}/audio/speech``: OpenAI, a speaches-style local server with Kokoro or Piper, a
LiteLLM proxy), so a study can use better voices than eSpeak NG.

Speakers mirror the eSpeak voices (``conf/voice/*.yaml``, ``evalkit.speech.voices``): an option is one accent
(``accent``), its ``speakers`` a table of the server's voices by gender, and the scenario persona's gender picks the
conversation's speaker (``assignment: gender``; ``hash``: by scenario id), deterministically, so a scenario has the
same speaker in every cell. A speaker row may also name a behavioural ``persona`` (App. G.2: a persona changes the
voice too): with that persona the rows naming it are the pool, otherwise the rows naming none. The persona's speaking
rate becomes the request's ``speed`` (``rate_wpm / reference_wpm``) and its pauses are silences at each "..." (as
for eSpeak); pitch and word gaps have no equivalent in the API and are not applied. The persona's per-trial rate
jitter (``persona.variation.rate_jitter_pct``, issue 17) is: each utterance's rate is drawn from the turn's seeded rng
around the speaker's nominal rate (``CallerVoice.vary``, as for eSpeak, inside the persona's ``bounds.rate_wpm``) and
sent as that utterance's ``speed``; its pitch jitter is not (no such knob).

Audio is cached on disk by (endpoint, model, voice, text, speed, the other request fields): the same words by the same
voice are synthesised once (``cache.py``), which also makes a rerun hear exactly what the first run heard from a
server whose voices vary from call to call. Requests, cache hits and HTTP retries are counted (cell metrics
``voice_requests``, ``voice_cache_hits``, ``voice_http_retries``); a speech request that still fails is an
infrastructure failure of the call (``EndpointUnavailable`` / ``EndpointRefused`` / ``EndpointAnswerInvalid``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evalkit import usage
from evalkit.speech.registry import VOICES, VoiceConfig
from evalkit.wire.openai_http.settings import EndpointSettings, RetrySettings

if TYPE_CHECKING:
    from evalkit.speech.voices import UserVoice
    from evalkit.wire.openai_http.cache import ResponseCache
    from evalkit.wire.openai_http.client import Endpoint

__all__ = ["OpenAITtsVoiceConfig", "RemoteSpeakerConfig", "RemoteSpeech"]

COUNTERS = ("voice_requests", "voice_cache_hits", "voice_http_retries")
EMPTY_TEXT_SILENCE_S = 0.1  # what an empty utterance sounds like (no request: servers refuse empty input)


class RemoteSpeakerConfig(BaseModel):
    """One row of the speaker table: a voice of the server, for a gender (and optionally a behavioural persona)."""

    model_config = ConfigDict(extra="forbid")

    id: str  # the speaker's name in records and params
    gender: Literal["female", "male"] | None = Field(default=None, description="null: speaks for any caller")
    voice: str = Field(min_length=1, description="the server's voice name (alloy, coral, af_heart, ...)")
    persona: str | None = Field(default=None, description="a behavioural persona this row is for; null: the others")
    instructions: str | None = Field(
        default=None, description="sent as `instructions` (e.g. an accent for gpt-4o-mini-tts); null: not sent"
    )
    speed: float | None = Field(default=None, ge=0.25, le=4.0, description="null: the voice's speed")


@VOICES.register("openai_tts")
class OpenAITtsVoiceConfig(VoiceConfig, EndpointSettings):
    METERING: ClassVar[str] = "metered"  # every request goes through evalkit's clients (evalkit.usage)
    """A pool of a speech server's voices (accent x gender x persona); see the module docstring."""

    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ("retry", "timeout_s", "cache_dir")

    kind: Literal["openai_tts"] = "openai_tts"
    response_format: Literal["wav", "pcm"] = Field(default="wav", description="pcm: raw 16-bit little-endian mono")
    pcm_sample_rate: int = Field(default=24_000, ge=8_000, le=96_000, description="the rate of pcm answers")
    speed: float | None = Field(default=None, ge=0.25, le=4.0, description="every speaker's speed; null: not sent")
    reference_wpm: int = Field(
        default=165, ge=80, le=450, description="the voices' own rate: a persona's rate_wpm is sent as speed rate/this"
    )
    assignment: Literal["gender", "hash"] = Field(
        default="gender", description="gender: the scenario persona's gender picks the speaker; hash: scenario id"
    )
    speakers: list[RemoteSpeakerConfig] = Field(min_length=1)
    cache_dir: str | None = Field(default=".evalkit_cache/tts", description="null: no cache")
    retry: RetrySettings = RetrySettings()

    @model_validator(mode="after")
    def _a_pool_for_every_persona(self) -> OpenAITtsVoiceConfig:
        if len({s.id for s in self.speakers}) != len(self.speakers):
            raise ValueError("speaker ids must be unique")
        if not any(s.persona is None for s in self.speakers):
            raise ValueError("at least one speaker must have no persona (the pool of the default persona)")
        return self

    def pool(self, persona_name: str | None) -> list[RemoteSpeakerConfig]:
        """The speakers for a persona: the rows naming it, else the rows naming none."""
        named = [s for s in self.speakers if persona_name is not None and s.persona == persona_name]
        return named or [s for s in self.speakers if s.persona is None]

    def speed_for(self, speaker: RemoteSpeakerConfig, persona: Any) -> float | None:
        rate = getattr(persona, "rate_wpm", None)
        if rate:  # the persona's rate, as for eSpeak, relative to the voices' own
            return self.speed_at(rate)
        return speaker.speed if speaker.speed is not None else self.speed

    def speed_at(self, rate_wpm: float) -> float:
        """The ``speed`` that says ``rate_wpm`` with voices whose own rate is ``reference_wpm`` (the API's range)."""
        return round(min(4.0, max(0.25, rate_wpm / self.reference_wpm)), 3)

    def nominal_rate(self, speaker: RemoteSpeakerConfig, persona: Any) -> int:
        """The words per minute a speaker says with ``persona`` before any jitter (no speed: the voice's own)."""
        speed = self.speed_for(speaker, persona)
        return round(self.reference_wpm * (1.0 if speed is None else speed))

    def nominal_prosody(self, persona: Any) -> dict[str, tuple[int, int | None]]:
        """The rate each speaker of the persona's pool jitters around (no pitch knob): checked against the bounds."""
        return {s.id: (self.nominal_rate(s, persona), None) for s in self.pool(getattr(persona, "name", None))}

    def build(self, persona: Any) -> UserVoice:
        from evalkit.speech.voices import Speaker, UserVoice, with_pauses
        from evalkit.wire.openai_http.cache import open_cache

        endpoint = self.endpoint("voice", self.retry.policy())
        cache = open_cache(self.cache_dir, "voice cache")
        pause_ms = getattr(persona, "pause_ms", 0) or 0
        speakers = []
        for spec in self.pool(getattr(persona, "name", None)):

            def speech_at(speed: float | None, spec: RemoteSpeakerConfig = spec) -> RemoteSpeech:
                args = (self.response_format, self.pcm_sample_rate, speed, spec.instructions)
                return RemoteSpeech(endpoint, cache, spec.voice, *args)

            def at(rate_wpm: int, _pitch: int, speech_at: Any = speech_at) -> Any:  # a drawn rate: its own speed
                return with_pauses(speech_at(self.speed_at(rate_wpm)), pause_ms)

            nominal = with_pauses(speech_at(self.speed_for(spec, persona)), pause_ms)
            rate = self.nominal_rate(spec, persona)
            speakers.append(Speaker(spec.id, spec.gender, nominal, rate_wpm=rate, pitch=None, at=at))
        return UserVoice(speakers, self.assignment, persona)

    def random_sources(self) -> list[str]:
        """With the cache, a line's audio is whatever the server said the first time, in every trial; without it,
        a server's voice may differ from request to request."""
        return [] if self.cache_dir else ["remote speech without a cache (a server may vary from request to request)"]

    def params(self) -> dict[str, str]:
        voices = ",".join(f"{s.id}={s.voice}" for s in self.speakers)
        return {"voice_model": self.model, "voice_base_url": self.base_url, "voice_speakers": voices}


class RemoteSpeech:
    """``synthesize(text)`` for one voice of a speech endpoint, through the audio cache."""

    def __init__(
        self,
        endpoint: Endpoint,
        cache: ResponseCache,
        voice: str,
        response_format: str = "wav",
        pcm_sample_rate: int = 24_000,
        speed: float | None = None,
        instructions: str | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.cache = cache
        self.voice = voice
        self.response_format = response_format
        self.pcm_sample_rate = pcm_sample_rate
        self.speed = speed
        self.instructions = instructions

    def __call__(self, text: str) -> tuple[np.ndarray, int]:
        from evalkit.wire.openai_http.cache import request_key
        from evalkit.wire.openai_http.client import SPEECH_PATH, decode_speech, speech_body, speech_bytes

        for name in COUNTERS:  # declared in every conversation that speaks: a cell logs its zeros too
            usage.count(name, 0)
        if not text.strip():
            return np.zeros(int(self.pcm_sample_rate * EMPTY_TEXT_SILENCE_S), dtype=np.float32), self.pcm_sample_rate
        body = speech_body(
            self.endpoint, text, self.voice, self.response_format, self.speed, instructions=self.instructions
        )
        key = request_key({"url": self.endpoint.url(SPEECH_PATH), "body": body})
        data = self.cache.get(key)
        if data is not None:
            usage.count("voice_cache_hits")
            return decode_speech(self.endpoint, data, self.response_format, self.pcm_sample_rate)
        data, retries = speech_bytes(self.endpoint, body, self.pcm_sample_rate)
        usage.count("voice_requests")
        usage.count("voice_http_retries", retries)
        samples, rate = decode_speech(self.endpoint, data, self.response_format, self.pcm_sample_rate)
        self.cache.put(key, data)  # only audio that decodes is kept
        return samples, rate

    synthesize = __call__
