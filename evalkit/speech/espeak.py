"""The built-in eSpeak NG kinds (``kind: espeak``): the agent's TTS engine and the caller's voice (a pool of
speakers, optionally accented by phoneme mapping, see ``evalkit.speech.accents``)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evalkit.speech.registry import TTS_ENGINES, VOICES, TtsConfig, VoiceConfig
from evalkit.speech.tts import EspeakTTS
from evalkit.speech.voices import UserVoice

__all__ = ["EspeakTtsConfig", "EspeakVoiceConfig", "SpeakerConfig"]


@TTS_ENGINES.register("espeak")
class EspeakTtsConfig(TtsConfig):
    kind: Literal["espeak"] = "espeak"
    voice: str = "en-us"  # eSpeak NG voice, optionally +variant (en-us+m3)
    rate_wpm: int = Field(default=175, ge=80, le=450)  # speaking rate, words per minute
    pitch: int = Field(default=50, ge=0, le=99)  # eSpeak pitch, 0-99

    def build(self) -> EspeakTTS:
        return EspeakTTS(self.voice, rate_wpm=self.rate_wpm, pitch=self.pitch)

    def random_sources(self) -> list[str]:
        return []  # steady variants and a reseeded PRNG: every utterance is a pure function of its text


class SpeakerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # the speaker's name in records and params (female, male, ...)
    gender: Literal["female", "male"] | None = Field(default=None, description="null: speaks for any caller")
    espeak_voice: str = Field(description="eSpeak NG voice, optionally +variant (en-us+f3)")
    pitch: int = Field(default=50, ge=0, le=99)  # eSpeak pitch of this speaker, 0-99
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="null: the voice's rate_wpm")


@VOICES.register("espeak")
class EspeakVoiceConfig(VoiceConfig):
    METERING: ClassVar[str] = "local"  # runs in this process, sends no request: 0 USD (evalkit.pricing)
    """A pool of eSpeak NG speakers (accent x gender); the persona's rate, pitch and pauses apply on top."""

    kind: Literal["espeak"] = "espeak"
    accent: Literal["none", "french", "indian", "spanish", "chinese"] = "none"
    method: Literal["text", "phonemes"] = Field(
        default="text", description="text: eSpeak reads the English text; phonemes: evalkit.speech.accents map"
    )
    rate_wpm: int = Field(default=175, ge=80, le=450)  # the voice's speaking rate, words per minute
    speakers: list[SpeakerConfig] = Field(min_length=1)  # the speaker pool; `assignment` picks one per scenario
    assignment: Literal["gender", "hash"] = Field(
        default="gender", description="gender: the scenario persona's gender picks the speaker; hash: scenario id"
    )

    @model_validator(mode="before")
    @classmethod
    def _single_voice_shorthand(cls, data: Any) -> Any:
        # `espeak_voice: en-us` (+ `pitch`) is the one-speaker form older configs and scripts use.
        if isinstance(data, dict) and "espeak_voice" in data and "speakers" not in data:
            data = dict(data)
            speaker = {"id": "default", "espeak_voice": data.pop("espeak_voice")}
            if "pitch" in data:
                speaker["pitch"] = data.pop("pitch")
            data["speakers"] = [speaker]
        return data

    @model_validator(mode="after")
    def _accent_needs_its_method(self) -> EspeakVoiceConfig:
        if self.accent != "none" and self.method != "phonemes":
            raise ValueError(f"accent {self.accent!r} is built by phoneme mapping: set method: phonemes")
        if self.accent == "none" and self.method != "text":
            raise ValueError("method: phonemes needs an accent (french, indian, spanish or chinese)")
        if len({s.id for s in self.speakers}) != len(self.speakers):
            raise ValueError("speaker ids must be unique")
        return self

    def build(self, persona: Any) -> UserVoice:
        return UserVoice.from_config(self, persona)

    def nominal_prosody(self, persona: Any) -> dict[str, tuple[int, int]]:
        """The persona's rate overrides the speaker's, which overrides the voice's; its pitch shift is added."""
        return {
            s.id: (persona.rate_wpm or s.rate_wpm or self.rate_wpm, max(0, min(99, s.pitch + persona.pitch_shift)))
            for s in self.speakers
        }

    def random_sources(self) -> list[str]:
        return []  # eSpeak is deterministic; the per-trial rate and pitch jitter is the persona's (counted there)
