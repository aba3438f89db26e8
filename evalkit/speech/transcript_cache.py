"""A content-addressed transcript cache for the ASR: the same audio through the same engine is decoded once.

TTS is deterministic, so a cell's clean caller utterances repeat across trials, and the agent's prompts repeat
across trials, cells and runs; each decode of tiny.en costs ~0.1-0.3 s. The key is the SHA-256 of everything that
can change a transcript: the audio (mono float32 bytes, shape) and its rate, the model (resolved folder, size and
mtime of ``model.bin``), compute type and threads, every decoding option (prompt and hotwords included), the
versions of faster-whisper, CTranslate2 and soxr, and the source of the transcribing module itself (an edit to it
misses the cache instead of returning an old answer). Sampled decoding (a temperature above 0) is never cached.

One JSON file per entry (``<dir>/<2 hex>/<64 hex>.json``) holding the Transcript's fields and its key, stored by
``evalkit.content_cache.ContentCache`` (shared with the LLM caller's and the remote voice's caches): written to a
temporary file in the same folder and renamed into place, so processes that share the folder (``workers``, a joblib
launcher) never see a half-written entry; two writers of one key write equal text. An entry that does not parse or
does not carry its key is a miss: it is recomputed and rewritten. A folder that cannot be created or written turns
the cache off for the process, with one log line per folder.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from evalkit import usage
from evalkit.content_cache import ContentCache

__all__ = ["DEFAULT_CACHE_DIR", "TranscriptCache", "canonical"]

DEFAULT_CACHE_DIR = "~/.cache/evalkit/transcripts"
FORMAT = "evalkit-transcript-cache/1"
log = logging.getLogger(__name__)


def canonical(value: Any) -> str:
    """Sorted keys, no whitespace: equal inputs give byte-equal text whatever the dict order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class TranscriptCache:
    """``get``/``put`` of transcript fields by key; ``key`` hashes (engine identity, options, audio).

    ``engine`` is everything about the recogniser that is fixed for its lifetime (model, versions, code); options
    are per call. ``hits``/``misses``/``recomputed`` count this instance's lookups (recomputed: corrupt entries)."""

    def __init__(self, directory: str | Path, engine: dict[str, Any]) -> None:
        self.store = ContentCache(
            directory, "transcript cache", suffix=".json", consequence="transcribing without it", logger=log
        )
        self.directory = Path(directory).expanduser()
        self.engine = canonical(engine)
        self.hits = self.misses = self.recomputed = 0

    @property
    def enabled(self) -> bool:
        """False once the folder proved unwritable: then nothing is looked up or stored for the process."""
        return self.store.writable

    def key(self, audio: np.ndarray, sample_rate: int, options: dict[str, Any]) -> str:
        samples = np.ascontiguousarray(audio)
        digest = hashlib.sha256()
        layout = f"{int(sample_rate)}|{samples.dtype.str}|{samples.shape}"
        for part in (FORMAT, self.engine, canonical(options), layout):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        digest.update(memoryview(samples).cast("B"))
        return digest.hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored fields, or None (a miss: no entry, or one that is corrupt, which is then recomputed)."""
        if not self.enabled:
            return None
        path = self.store.path(key)
        raw = self.store.get(key)
        if raw is None:
            self._count(hit=False)
            return None
        try:
            entry = json.loads(raw)
            if entry["key"] != key or not isinstance(entry["text"], str):
                raise ValueError("entry of another key")
            fields = {"text": entry["text"], "compute_s": float(entry["compute_s"]), "audio_s": float(entry["audio_s"])}
            if "alternatives" in entry:  # an n-best decode's hypotheses (issue 17.2)
                fields["alternatives"] = [str(t) for t in entry["alternatives"]]
        except (ValueError, KeyError, TypeError) as exc:
            log.debug("transcript cache entry %s is unreadable (%s): recomputing it", path, exc)
            self.recomputed += 1
            self._count(hit=False)
            return None
        self._count(hit=True)
        return fields

    def _count(self, hit: bool) -> None:
        """This instance's counters, and the running conversation's (``evalkit.usage``: the cell logs the sums as
        ``asr_cache_hits`` and ``asr_cache_lookups``; they stay out of the records, which a hit leaves unchanged)."""
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        usage.count("asr_cache_hits", int(hit))
        usage.count("asr_cache_lookups")

    def put(self, key: str, fields: dict[str, Any]) -> None:
        """Store atomically; a write error turns the cache off."""
        if self.enabled:
            self.store.put(key, canonical({"key": key, **fields}).encode("utf-8"))
