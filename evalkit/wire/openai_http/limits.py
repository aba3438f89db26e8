"""Provider limits shared by every OpenAI-compatible HTTP request of a process (the agents' STT, chat and TTS, the
LLM caller, the caller voice, the judge): a concurrency cap per provider and a shared 429 cool-down.

- **Cap**: at most ``max_concurrency`` requests in flight to one provider at once, whoever sends them (the
  conversations of ``concurrency``, a judge, the caller); the others wait for a slot. Per process: with
  ``workers=N`` each worker process holds its own slots, so N x the cap reach the provider.
- **Cool-down**: a 429 (or 503) answer with ``Retry-After`` pauses every request to that provider, not only the
  one that got it, until the time the server asked for (capped by the retry policy's ``backoff_max_s``); each
  retry still waits its own backoff on top (``retry.py``).

A provider is a base URL: the longest configured ``providers.limits[].base_url`` that starts the request's URL,
else the URL's scheme and host (so every unconfigured endpoint of one server shares one default cap).
Configured from ``providers`` in conf/config.yaml (:func:`configure`, called when a cell starts).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlparse

__all__ = ["configure", "cool_down", "provider_of", "slot", "snapshot"]


@dataclass
class _Gate:
    cap: int | None
    semaphore: threading.BoundedSemaphore | None
    cool_until: float = 0.0  # time.monotonic() before which nobody sends to this provider
    in_flight: int = 0
    peak: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


_LOCK = threading.Lock()
_CAPS: dict[str, int | None] = {}  # configured base URL -> cap (None: no cap)
_DEFAULT_CAP: list[int | None] = [None]
_GATES: dict[str, _Gate] = {}


def configure(default_cap: int | None = None, caps: dict[str, int | None] | None = None) -> None:
    """Set the caps (``caps``: base URL -> cap; ``default_cap`` for any other provider). Gates whose cap changes
    start afresh; a provider's cool-down is kept (the server's request outlives a reconfiguration)."""
    wanted = {url.rstrip("/"): cap for url, cap in (caps or {}).items()}
    with _LOCK:
        if wanted == _CAPS and _DEFAULT_CAP[0] == default_cap:
            return
        _CAPS.clear()
        _CAPS.update(wanted)
        _DEFAULT_CAP[0] = default_cap
        for provider, gate in list(_GATES.items()):
            if gate.cap != _cap_of(provider):
                _GATES[provider] = _Gate(_cap_of(provider), _semaphore(_cap_of(provider)), gate.cool_until)


def _semaphore(cap: int | None) -> threading.BoundedSemaphore | None:
    return threading.BoundedSemaphore(cap) if cap else None


def _cap_of(provider: str) -> int | None:
    return _CAPS.get(provider, _DEFAULT_CAP[0])


def provider_of(url: str) -> str:
    """The provider a request URL belongs to: its longest configured base URL, else scheme://host[:port]."""
    matches = [base for base in _CAPS if url == base or url.startswith(base + "/")]
    if matches:
        return max(matches, key=len)
    parsed = urlparse(url)
    return f"{parsed.scheme}://{parsed.netloc}"


def _gate(provider: str) -> _Gate:
    with _LOCK:
        gate = _GATES.get(provider)
        if gate is None:
            cap = _cap_of(provider)
            gate = _GATES[provider] = _Gate(cap, _semaphore(cap))
        return gate


@contextlib.contextmanager
def slot(url: str, sleep: Callable[[float], None] = time.sleep, waited_until: float = 0.0) -> Iterator[None]:
    """Hold one of the provider's request slots for the block, after its cool-down (if any) has passed.
    ``waited_until``: the end of a cool-down the caller has already slept through itself (the request that got the
    429 waits its ``Retry-After`` in its own backoff, once)."""
    gate = _gate(provider_of(url))
    _wait_cool(gate, sleep, waited_until)
    if gate.semaphore is not None:
        gate.semaphore.acquire()
    with gate.lock:
        gate.in_flight += 1
        gate.peak = max(gate.peak, gate.in_flight)
    try:
        yield
    finally:
        with gate.lock:
            gate.in_flight -= 1
        if gate.semaphore is not None:
            gate.semaphore.release()


def _wait_cool(gate: _Gate, sleep: Callable[[float], None], waited_until: float) -> None:
    # one sleep, not a loop: a later 429 of another thread moves the deadline, and that thread's requests wait for it
    if gate.cool_until > waited_until and (left := gate.cool_until - time.monotonic()) > 0:
        sleep(left)


def cool_down(url: str, seconds: float) -> float:
    """The provider asked to wait ``seconds`` (``Retry-After``): nobody in this process sends to it before then.
    Returns the deadline (``time.monotonic()``)."""
    gate = _gate(provider_of(url))
    with gate.lock:
        gate.cool_until = max(gate.cool_until, time.monotonic() + max(0.0, seconds))
        return gate.cool_until


def snapshot() -> dict[str, dict[str, float | None]]:
    """Per provider seen: its cap and the most requests it had in flight at once (a test and a log read it)."""
    with _LOCK:
        gates = dict(_GATES)
    return {p: {"cap": g.cap, "peak": float(g.peak)} for p, g in gates.items()}
