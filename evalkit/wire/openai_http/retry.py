"""The retry policy of every OpenAI-compatible HTTP request evalkit makes (the judges' chat completions, the agents'
transcriptions, chat completions and speech): one POST loop, so a judge and an agent treat a flaky server alike.

- 429, 408, 409, 425 and 5xx answers, timeouts and refused connections are retried with exponential backoff (seeded
  jitter; a ``Retry-After`` header is honoured up to the backoff cap); when retries run out the endpoint is
  *unavailable* (:class:`EndpointUnavailable`, naming the URL and the last problem);
- any other 4xx answer (a bad key, an unknown model, a malformed request) is raised at once
  (:class:`EndpointRefused`, with the status): retrying cannot fix it;
- the API key is sent as a Bearer header and scrubbed from every message; retries are counted on the answer;
- every request holds a slot of its provider's concurrency cap, and a ``Retry-After`` pauses every request of the
  process to that provider (``limits.py``: shared by all calls of a process, configured under ``providers``).

Only this module and the endpoint clients beside it import ``requests`` (the wire-library contract in
pyproject.toml).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

from evalkit.wire.openai_http import limits

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class EndpointError(RuntimeError):
    """Base of the HTTP-layer errors: the endpoint failed, not whoever asked it."""


class EndpointUnavailable(EndpointError):
    """Unreachable, or kept failing (connection, timeout, 429/5xx) after every retry."""

    def __init__(self, message: str, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts


class EndpointRefused(EndpointError):
    """A 4xx other than the retryable ones: a bad key, an unknown model, a request the server will never accept."""

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


@dataclass(frozen=True)
class RetryPolicy:
    """How a request is retried. ``rng`` jitters each delay by uniform(0.5, 1) (None: no jitter); ``sleep`` is
    injectable for tests."""

    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    rng: random.Random | None = None
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)


@dataclass(frozen=True)
class Answered:
    """A 2xx answer and how many retries it took."""

    response: requests.Response
    retries: int


def backoff_delay(attempt: int, base_s: float, max_s: float, rng: random.Random | None) -> float:
    """Delay before retry number ``attempt`` (0-based): base·2^attempt capped at max, times uniform(0.5, 1) jitter."""
    delay = min(max_s, base_s * (2.0**attempt))
    return delay * rng.uniform(0.5, 1.0) if rng is not None else delay


def retry_after_s(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:  # an HTTP date: rare from LLM gateways, fall back to our own backoff
        return None


def bearer_headers(api_key: str | None, *, json_body: bool = True) -> dict[str, str]:
    headers = {"Content-Type": "application/json"} if json_body else {}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def scrubber(api_key: str | None) -> Callable[[str], str]:
    """A function that replaces the key in a text by ``***`` (for every message that quotes a server or error)."""
    return (lambda text: text.replace(api_key, "***")) if api_key else (lambda text: text)


def post_with_retries(
    url: str,
    *,
    what: str,
    policy: RetryPolicy,
    timeout_s: float,
    headers: dict[str, str],
    scrub: Callable[[str], str] = lambda text: text,
    **request: Any,
) -> Answered:
    """POST ``url`` (``request``: ``json=``, or ``data=`` and ``files=``) until a 2xx answer; ``what`` names the
    endpoint in messages ("judge endpoint", "agent STT endpoint")."""
    last_problem = ""
    waited_until = 0.0  # the end of a provider cool-down this call has slept through itself
    for attempt in range(policy.max_retries + 1):
        wait: float | None = None
        try:
            with limits.slot(url, policy.sleep, waited_until):
                response = requests.post(url, headers=headers, timeout=timeout_s, **request)
        except requests.Timeout as exc:
            last_problem = f"timed out after {timeout_s:g} s ({type(exc).__name__})"
        except requests.ConnectionError as exc:
            last_problem = f"connection failed ({type(exc).__name__}: {scrub(str(exc))[:300]})"
        else:
            if 200 <= response.status_code < 300:
                return Answered(response, attempt)
            snippet = scrub(response.text[:300])
            if response.status_code in RETRYABLE_STATUS or response.status_code >= 500:
                last_problem = f"HTTP {response.status_code}: {snippet}"
                wait = retry_after_s(response)
                if wait is not None:  # the server's word holds for every request of the process to it
                    waited_until = limits.cool_down(url, min(policy.backoff_max_s, wait))
            else:
                raise EndpointRefused(
                    f"{what} {url} refused the request with HTTP {response.status_code}: {snippet}",
                    status=response.status_code,
                    body=snippet,
                )
        if attempt < policy.max_retries:
            delay = backoff_delay(attempt, policy.backoff_base_s, policy.backoff_max_s, policy.rng)
            policy.sleep(min(policy.backoff_max_s, wait) if wait is not None else delay)
    attempts = policy.max_retries + 1
    raise EndpointUnavailable(f"{what} {url} is unavailable after {attempts} attempt(s): {last_problem}", attempts)
