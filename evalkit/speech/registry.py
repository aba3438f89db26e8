"""The speech kinds: TTS engines (the agent's voice), caller voices (``conf/voice``) and ASR engines.

Each config names its kind (``kind: espeak``, ``kind: faster_whisper``); the class registered under that kind
validates it and builds the engine. TTS engines and caller voices share the entry-point group ``evalkit.tts`` (a
TTS package usually brings both); ASR engines use ``evalkit.asr``. The built-in kinds live in
``evalkit.speech.espeak``, ``evalkit.speech.piper`` and ``evalkit.speech.whisper``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from pydantic import model_validator

from evalkit.kinds import KindConfig
from evalkit.plugins import Registry

__all__ = [
    "ASR_ENGINES",
    "TTS_ENGINES",
    "VOICES",
    "AsrConfig",
    "Recognizer",
    "SpeechEngineError",
    "Synthesizer",
    "TtsConfig",
    "VoiceConfig",
]


class SpeechEngineError(RuntimeError):
    """A TTS or ASR engine failed on a clip mid-call (an onnxruntime or CTranslate2 error): the message names the
    engine and the reason in one line. The call loop records it as an infrastructure failure (``speech_engine``),
    never as an empty turn the agent is scored on."""


class Synthesizer(Protocol):
    def synthesize(self, text: str) -> tuple[np.ndarray, int]: ...


class Recognizer(Protocol):
    def transcribe(self, audio: np.ndarray, sample_rate: int) -> Any:
        """A result with ``text`` and ``compute_s`` (see ``evalkit.speech.asr.Transcript``)."""
        ...


ENGINE_DEFAULT_KEYS = ("voice", "rate_wpm", "pitch")


class TtsConfig(KindConfig):
    """A TTS engine with its settings (the agent's voice)."""

    @model_validator(mode="before")
    @classmethod
    def _engine_defaults(cls, data: Any) -> Any:
        """A null voice, rate or pitch is this engine's default: conf/agent/*.yaml lists them as null (Hydra's
        struct mode only overrides listed keys), so ``agent.tts.kind=espeak`` alone switches to a working voice."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None or k not in ENGINE_DEFAULT_KEYS}
        return data

    def build(self) -> Synthesizer:
        raise NotImplementedError(f"TTS kind {self.kind!r} does not implement build()")


class AsrConfig(KindConfig):
    """An ASR engine with its settings (the agent's ears, and the cell's listener for agent-audio metrics)."""

    def build(self) -> Recognizer:
        raise NotImplementedError(f"ASR kind {self.kind!r} does not implement build()")


class VoiceConfig(KindConfig):
    """The caller's voice for a cell. ``name`` is the option's display name; ``accent`` is the accent axis (a
    perturbation of the caller, EVA-Bench App. G.1): ``none`` for an unaccented voice."""

    name: str  # display name: run names and the `voice` param (the twin rule reads accent_* / <engine>_accent_*)
    accent: str = "none"  # the accent axis (EVA-Bench App. G.1): none for an unaccented voice

    def build(self, persona: Any) -> Callable[[str], tuple[np.ndarray, int]]:
        """The caller voice: callable on text; ``for_scenario(scenario)`` (optional) picks a scenario's speaker
        and ``persona`` (optional) is handed to the simulator (see ``evalkit.speech.voices.UserVoice``)."""
        raise NotImplementedError(f"voice kind {self.kind!r} does not implement build()")

    def params(self) -> dict[str, str]:
        """MLflow params beyond the ``voice`` axis param: a remote voice's endpoint and model."""
        return {}

    def identity_extras(self) -> dict[str, str]:
        """What decides the voice beyond its config: part of the cell key (none for the built-in kinds)."""
        return {}

    def nominal_prosody(self, persona: Any) -> dict[str, tuple[int, int | None]]:
        """Per speaker id, the (rate in wpm, pitch 0-99) it speaks at with ``persona`` before any per-trial jitter:
        what the persona's bounds are checked against (pitch None: the kind has no pitch knob). Empty: the kind has
        no such knobs (nothing to check)."""
        return {}


TTS_ENGINES: Registry[type[TtsConfig]] = Registry(
    "TTS engine", "evalkit.tts", builtin_modules=("evalkit.speech.espeak", "evalkit.speech.piper")
)
VOICES: Registry[type[VoiceConfig]] = Registry(
    "voice",
    "evalkit.tts",
    # evalkit.wire.openai_http.voice: voice=openai_tts, a caller voice behind an OpenAI-compatible speech endpoint
    # evalkit.speech.piper: voice=piper, a Piper voice from an installed wheel (onnxruntime, eSpeak NG phonemes)
    builtin_modules=("evalkit.speech.espeak", "evalkit.speech.piper", "evalkit.wire.openai_http.voice"),
)
ASR_ENGINES: Registry[type[AsrConfig]] = Registry(
    "ASR engine", "evalkit.asr", builtin_modules=("evalkit.speech.whisper",)
)
