"""A content-addressed on-disk cache of OpenAI-compatible answers (the LLM simulator's chat completions, a remote
voice's speech): a rerun asks nothing it has asked before, so it replays what the server said the first time.

- **Key**: the SHA-256 of the request's canonical JSON (sorted keys): URL, model, body, and whatever else decides the
  answer (the simulator adds its per-conversation seed even when it does not send it, so trials never share answers).
  Never a header, never a key: nothing secret is hashed or stored.
- **Layout**: ``<dir>/<key[:2]>/<key>``, the answer's bytes as received (JSON text or audio), so a hit is decoded by
  the same code as a fresh answer and gives the same result.
- **Storage** (``evalkit.content_cache.ContentCache``, shared with the ASR's transcript cache): atomic writes, and a
  folder that cannot be written turns caching off for the process with one warning naming the folder; the run goes
  on without it. Entries already there are still read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from evalkit.content_cache import ContentCache

log = logging.getLogger("evalkit")

__all__ = ["ResponseCache", "open_cache", "request_key"]


def request_key(material: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of everything that decides an answer."""
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache(ContentCache):
    """``get(key)`` / ``put(key, data)`` of answers as received; ``directory`` None holds nothing (cache_dir: null)."""

    def __init__(self, directory: str | Path | None, what: str = "cache") -> None:
        super().__init__(directory, what, consequence="running without caching new answers", logger=log)


@functools.cache
def open_cache(directory: str | None, what: str) -> ResponseCache:
    """One cache per folder and process: every conversation of a cell shares it, and a folder that cannot be
    written is reported once, not once per conversation. A relative folder is taken from the launch directory."""
    return ResponseCache(Path(directory).resolve() if directory else None, what)
