"""A content-addressed on-disk cache of OpenAI-compatible answers (the LLM simulator's chat completions, a remote
voice's speech): a rerun asks nothing it has asked before, so it replays what the server said the first time.

- **Key**: the SHA-256 of the request's canonical JSON (sorted keys): URL, model, body, and whatever else decides the
  answer (the simulator adds its per-conversation seed even when it does not send it, so trials never share answers).
  Never a header, never a key: nothing secret is hashed or stored.
- **Layout**: ``<dir>/<key[:2]>/<key>``, the answer's bytes as received (JSON text or audio), so a hit is decoded by
  the same code as a fresh answer and gives the same result.
- **Atomic writes**: the bytes go to a temporary file in the same folder, then ``os.replace`` puts it in place; a
  reader (another worker process, a concurrent sweep) sees the whole entry or none. Two writers of one key write the
  same bytes (or, for a nondeterministic server, the last one wins: either is a valid answer).
- **A folder that cannot be written** (read-only, a file in the way, a full disk) turns the cache off for the rest of
  the process with one warning naming the folder; the run goes on without it. Entries already there are still read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("evalkit")

__all__ = ["ResponseCache", "open_cache", "request_key"]


def request_key(material: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of everything that decides an answer."""
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """``get(key)`` / ``put(key, data)``; ``directory`` None is a cache that holds nothing (``cache_dir: null``)."""

    def __init__(self, directory: str | Path | None, what: str = "cache") -> None:
        self.what = what
        self.directory = Path(directory) if directory is not None else None
        self.writable = False
        self._lock = threading.Lock()
        if self.directory is not None:
            self.writable = self._probe()

    def _probe(self) -> bool:
        """A real write, not ``os.access``: root passes every access check, yet a read-only mount still refuses."""
        assert self.directory is not None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.directory, prefix=".probe-"):
                pass
        except OSError as exc:
            self._disable(exc)
            return False
        return True

    def _disable(self, exc: OSError) -> None:
        self.writable = False
        log.warning(
            "%s %s cannot be written (%s): running without caching new answers",
            self.what,
            self.directory,
            exc.strerror or type(exc).__name__,
        )

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / key

    def get(self, key: str) -> bytes | None:
        if self.directory is None:
            return None
        try:
            return self._path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        if not self.writable:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            with self._lock:
                if self.writable:  # the first failure says so; later ones are silent
                    self._disable(exc)


@functools.cache
def open_cache(directory: str | None, what: str) -> ResponseCache:
    """One cache per folder and process: every conversation of a cell shares it, and a folder that cannot be
    written is reported once, not once per conversation. A relative folder is taken from the launch directory."""
    return ResponseCache(Path(directory).resolve() if directory else None, what)
