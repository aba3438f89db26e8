"""A content-addressed cache of synthesised speech, like the transcript cache (``evalkit.speech.transcript_cache``).

The key is the SHA-256 of everything that decides the audio: the engine's identity (engine, voice, the model file's
SHA-256, prosody: rate, pitch shift, noise, speaker, output rate; see ``PiperTTS.identity``), the source of the
synthesising module and the text. Perturbations (noise, codecs, packet loss) are applied to the caller's audio
after TTS, so a noisy cell's utterances hit the entries its clean twin wrote, and trials of a deterministic voice
hit each other's. Entries are ``<dir>/<2 hex>/<64 hex>.f32``: a 4-byte little-endian sample rate then float32
samples, written atomically by ``evalkit.content_cache.ContentCache``; an entry of the wrong size is a miss.
Hits and lookups are counted for the running conversation (``tts_cache_hits``, ``tts_cache_lookups``).

eSpeak NG is not cached: it synthesises ~1000x faster than real time, about what reading the entry back costs.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evalkit import usage
from evalkit.content_cache import ContentCache
from evalkit.speech.transcript_cache import canonical

__all__ = ["DEFAULT_TTS_CACHE_DIR", "TtsCache", "cached"]

DEFAULT_TTS_CACHE_DIR = "~/.cache/evalkit/tts"
FORMAT = "evalkit-tts-cache/1"
log = logging.getLogger(__name__)


@functools.cache
def _code_identity() -> str:
    """The synthesising modules' source (the voice's and the text front end's): an edit to one misses the cache
    instead of replaying old audio."""
    from evalkit.speech import piper_tts, spelled_letters

    digest = hashlib.sha256()
    for module in (piper_tts, spelled_letters):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


class TtsCache:
    """``get``/``put`` of (audio, rate) by ``key(identity, text)``; ``hits``/``misses`` count this instance."""

    def __init__(self, directory: str | Path) -> None:
        self.store = ContentCache(
            directory, "TTS cache", suffix=".f32", consequence="synthesising without it", logger=log
        )
        self.hits = self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.store.writable

    @staticmethod
    def key(identity: dict[str, Any], text: str) -> str:
        digest = hashlib.sha256()
        for part in (FORMAT, _code_identity(), canonical(identity), text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()

    def get(self, key: str) -> tuple[np.ndarray, int] | None:
        raw = self.store.get(key) if self.enabled else None
        entry = None
        if raw is not None and len(raw) >= 4 and (len(raw) - 4) % 4 == 0:
            rate = int.from_bytes(raw[:4], "little")
            if rate > 0:
                entry = (np.frombuffer(raw[4:], dtype="<f4").astype(np.float32), rate)
        if self.enabled:
            self.hits += entry is not None
            self.misses += entry is None
            usage.count("tts_cache_hits", int(entry is not None))
            usage.count("tts_cache_lookups")
        return entry

    def put(self, key: str, audio: np.ndarray, rate: int) -> None:
        if self.enabled:
            self.store.put(key, int(rate).to_bytes(4, "little") + np.asarray(audio, dtype="<f4").tobytes())


def cached(synthesize: Callable[[str], tuple[np.ndarray, int]], identity: dict[str, Any], cache: TtsCache | None):
    """``synthesize`` behind ``cache`` (None: unchanged)."""
    if cache is None:
        return synthesize

    def speak(text: str) -> tuple[np.ndarray, int]:
        key = cache.key(identity, text)
        if (entry := cache.get(key)) is not None:
            return entry
        audio, rate = synthesize(text)
        cache.put(key, audio, rate)
        return audio, rate

    return speak
