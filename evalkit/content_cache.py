"""One content-addressed on-disk cache of bytes by key, shared by the ASR's transcripts (``evalkit.speech``), the LLM
caller's answers and a remote voice's audio (``evalkit.wire.openai_http``). It lives beside them, importing neither,
so speech never imports wire nor wire speech (docs/architecture.md, dependency rules); each user owns its keys and
its format.

- **Layout**: ``<dir>/<key[:2]>/<key><suffix>``, one file per entry.
- **Atomic writes**: the bytes go to a temporary file (``.tmp-*``) in the entry's folder, then ``os.replace`` puts it
  in place: a reader (another worker process, a concurrent sweep) sees a whole entry or none; two writers of one key
  write the same bytes (or, from a nondeterministic server, either valid answer).
- **A folder that cannot be written** (read-only, a file in the way, a full disk) is found by a real probe write at
  start (not ``os.access``: root passes every access check, yet a read-only mount still refuses) or by a failed write
  later; either turns writing off for the instance with one warning per folder and process. Entries already there
  are still read.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
from pathlib import Path

__all__ = ["ContentCache"]

_REPORTED: set[tuple[str, str]] = set()  # (what, folder) already reported unusable by this process
_REPORTED_LOCK = threading.Lock()


class ContentCache:
    """``get(key)`` / ``put(key, data)`` of bytes; ``directory`` None is a cache that holds nothing.

    ``what`` names the cache in its warning ("transcript cache"), ``consequence`` says what the run does without it;
    ``logger`` is the user's own, so its warnings come from where they always did."""

    def __init__(
        self,
        directory: str | Path | None,
        what: str = "cache",
        *,
        suffix: str = "",
        consequence: str = "running without caching new answers",
        logger: logging.Logger | None = None,
    ) -> None:
        self.what = what
        self.suffix = suffix
        self.consequence = consequence
        self.log = logger or logging.getLogger("evalkit")
        self.directory = Path(directory).expanduser() if directory is not None else None
        self.writable = False
        self._lock = threading.Lock()
        if self.directory is not None:
            self.writable = self._probe()

    def _probe(self) -> bool:
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
        with self._lock:
            self.writable = False
        where = (self.what, str(self.directory))
        with _REPORTED_LOCK:
            if where in _REPORTED:
                return
            _REPORTED.add(where)
        reason = exc.strerror or type(exc).__name__
        self.log.warning("%s %s is not writable (%s): %s", self.what, self.directory, reason, self.consequence)

    def path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}{self.suffix}"

    def get(self, key: str) -> bytes | None:
        """The entry's bytes, or None (no cache, no entry, or an entry that cannot be read)."""
        if self.directory is None:
            return None
        try:
            return self.path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        """Store atomically; a write error turns writing off (one warning), the temporary file is removed."""
        if not self.writable:
            return
        path = self.path(key)
        temporary: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=self.suffix)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
            temporary = None
        except OSError as exc:
            self._disable(exc)
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
