"""Counters of the remote requests made on the caller's side of a call (the LLM user simulator, a remote caller
voice): requests sent, answers taken from the cache, HTTP retries; and the *metered usage* of every request any
component sends to a provider (tokens, audio tokens, audio seconds, characters: :class:`Usage`, by component,
base URL and model), which the cell prices (``evalkit.pricing``) and records per conversation.

They are not part of a conversation's record, on purpose: a rerun served from the cache makes no request, yet its
conversations are the same, and records must compare equal (``scripts/compare_records.py``). The cell runner counts
each conversation within :func:`job` (``evalkit.cell.run``) and the cell logs the sums as metrics
(``simulator_requests``, ``voice_cache_hits``, ...). A job's counter lives in a context variable, so conversations
running at once (``concurrency``: threads whose calls share one event loop, the simulator called off the loop) each
count only their own: asyncio tasks and ``asyncio.to_thread`` carry the context of the thread that started them.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["Ledger", "Usage", "count", "job", "metered", "quantities", "record", "record_payload"]

_JOB: ContextVar[Counter[str] | None] = ContextVar("evalkit_usage_job", default=None)
_LOCK = threading.Lock()


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to counter ``name`` of the running job, if any (``n=0`` declares it: a cell that never used it
    still logs a 0)."""
    counts = _JOB.get()
    if counts is not None:
        with _LOCK:
            counts[name] += n


@contextlib.contextmanager
def job() -> Iterator[Counter[str]]:
    """Count what is done inside the block (in this context and the tasks and threads it starts) apart."""
    counts: Counter[str] = Counter()
    token = _JOB.set(counts)
    try:
        yield counts
    finally:
        _JOB.reset(token)


# -- metered usage ---------------------------------------------------------------------------------------------------


@dataclass
class Usage:
    """What one component sent to one provider's model, summed over its requests. Tokens as the provider reported
    them (``tokens_in`` / ``tokens_out`` include the audio tokens, which ``audio_tokens_*`` count apart); audio
    seconds as measured here (a clip sent, speech received), whatever the provider reports; characters of text sent
    to a speech endpoint. A request whose answer carries no ``usage`` adds its request and measured quantities
    only, and is counted in ``requests_without_usage`` (a token-billed model is then unpriced, not free)."""

    requests: int = 0
    requests_without_usage: int = 0  # answered requests whose answer carried no ``usage`` object
    tokens_in: int = 0
    tokens_out: int = 0
    audio_tokens_in: int = 0
    audio_tokens_out: int = 0
    audio_s_in: float = 0.0
    audio_s_out: float = 0.0
    characters_in: int = 0

    def add(self, other: Usage) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


# (component, base URL, model): "agent.llm", "simulator", "voice", "judge", "agent" (a Realtime session) ...
UsageKey = tuple[str, str, str]


class Ledger:
    """The metered usage of one job (a conversation, a cell's judging), by (component, base URL, model).
    Thread-safe: a conversation's calls may run on several threads."""

    def __init__(self) -> None:
        self.entries: dict[UsageKey, Usage] = {}
        self._lock = threading.Lock()

    def add(self, key: UsageKey, usage: Usage) -> None:
        with self._lock:
            self.entries.setdefault(key, Usage()).add(usage)

    def merge(self, other: Ledger | list[dict[str, Any]]) -> None:
        rows = other.rows() if isinstance(other, Ledger) else other
        for row in rows:
            key = (str(row["component"]), str(row["base_url"]), str(row["model"]))
            self.add(key, Usage(**{f.name: row.get(f.name, 0) for f in fields(Usage)}))

    def rows(self) -> list[dict[str, Any]]:
        """JSON rows (the record's ``usage``), sorted by key: ``component``, ``base_url``, ``model`` and counts."""
        with self._lock:
            items = sorted(self.entries.items())
        return [{"component": c, "base_url": b, "model": m, **u.as_dict()} for (c, b, m), u in items]


_LEDGER: ContextVar[Ledger | None] = ContextVar("evalkit_usage_ledger", default=None)


@contextlib.contextmanager
def metered() -> Iterator[Ledger]:
    """Meter the requests sent inside the block (this context and the tasks and threads it starts) apart."""
    ledger = Ledger()
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def record(component: str, base_url: str, model: str, usage: Usage) -> None:
    """Add one request's usage to the running job's ledger, if any (outside a job nothing is metered)."""
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.add((component, base_url.rstrip("/"), model), usage)


def _int(node: Any, *path: str) -> int:
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return int(node) if isinstance(node, int | float) and not isinstance(node, bool) and node >= 0 else 0


def quantities(payload: Any) -> Usage:
    """The token counts of an answer's ``usage`` object, in any of the shapes OpenAI-compatible servers send:
    chat completions (``prompt_tokens`` / ``completion_tokens``, audio in ``*_tokens_details.audio_tokens``),
    the Realtime API and token-billed transcriptions (``input_tokens`` / ``output_tokens``, audio in
    ``*_token_details.audio_tokens``). A duration-billed transcription (``{"type": "duration", "seconds": s}``)
    carries no tokens; its audio seconds are measured by the caller. Anything else counts as nothing."""
    usage = payload.get("usage") if isinstance(payload, Mapping) else None
    if not isinstance(usage, Mapping):
        return Usage(requests=1, requests_without_usage=1)
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        return Usage(
            requests=1,
            tokens_in=_int(usage, "prompt_tokens"),
            tokens_out=_int(usage, "completion_tokens"),
            audio_tokens_in=_int(usage, "prompt_tokens_details", "audio_tokens"),
            audio_tokens_out=_int(usage, "completion_tokens_details", "audio_tokens"),
        )
    return Usage(
        requests=1,
        tokens_in=_int(usage, "input_tokens"),
        tokens_out=_int(usage, "output_tokens"),
        audio_tokens_in=_int(usage, "input_token_details", "audio_tokens"),
        audio_tokens_out=_int(usage, "output_token_details", "audio_tokens"),
    )


def record_payload(component: str, base_url: str, model: str, payload: Any, **measured: float) -> None:
    """Record one answered request: the tokens its ``usage`` reports plus what was measured here (``audio_s_in``,
    ``audio_s_out``, ``characters_in``)."""
    usage = quantities(payload)
    for name, value in measured.items():
        setattr(usage, name, type(getattr(usage, name))(value))
    record(component, base_url, model, usage)
