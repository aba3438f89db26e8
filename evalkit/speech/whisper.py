"""The built-in ASR kind ``faster_whisper``: Whisper through faster-whisper (CTranslate2), offline, bounded decode."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from evalkit.speech.asr import WhisperASR
from evalkit.speech.registry import ASR_ENGINES, AsrConfig

__all__ = ["FasterWhisperConfig"]


@ASR_ENGINES.register("faster_whisper")
class FasterWhisperConfig(AsrConfig):
    kind: Literal["faster_whisper"] = "faster_whisper"
    model: str = "bundled:tiny.en"
    compute_type: Literal["int8", "int8_float32", "float32", "float16", "int16"] = "int8"
    cpu_threads: int = Field(default=2, ge=1, le=64)
    beam_size: int = Field(default=1, ge=1, le=10)
    max_new_tokens: int = Field(default=96, ge=8, le=440)

    def build(self) -> WhisperASR:
        return WhisperASR(self.model, self.compute_type, self.cpu_threads, self.beam_size, self.max_new_tokens)
