"""A small OpenAI-compatible chat-completions client: retries, backoff, JSON mode, and errors that name the URL.

Hand-written on top of `requests` (already installed with mlflow) because the official `openai` SDK is not a
dependency and we need only one endpoint; what we add is the retry/error policy the judge layer relies on:

- 429, 408 and 5xx answers, timeouts and refused connections are retried with exponential backoff (seeded jitter);
  when retries run out the endpoint is *unavailable* (`JudgeUnavailable`, naming the URL);
- other 4xx answers (bad key, unknown model) are configuration mistakes and are raised at once (`JudgeRequestError`);
- a 200 answer that is not a chat completion is `InvalidOutput`: the judge layer retries it a little and then marks
  the metric failed instead of killing the cell.

The API key is sent as a Bearer header and is scrubbed from every error message.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class JudgeError(Exception):
    """Base of every judge-layer error: the metric layer can catch this one type."""


class JudgeUnavailable(JudgeError):
    """The endpoint could not be reached or kept failing (connection, timeout, 429/5xx) after all retries."""


class JudgeRequestError(JudgeError):
    """The endpoint refused the request for a reason retrying cannot fix (401, 403, 404, 400...)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def refuses_every_request(self) -> bool:
        """401/403/404: a bad key or wrong endpoint/model fails every later call the same way."""
        return self.status in (401, 403, 404)


class JudgeConfigError(JudgeError):
    """The judge is misconfigured before any request (e.g. the API key variable is not set)."""


class InvalidOutput(JudgeError):
    """The endpoint answered, but not with what we asked for (no chat completion, bad JSON, wrong schema)."""


@dataclass(frozen=True)
class ChatCompletion:
    text: str
    model: str | None
    usage: dict[str, Any] = field(default_factory=dict)
    attempts: int = 1


def backoff_delay(attempt: int, base_s: float, max_s: float, rng: random.Random | None) -> float:
    """Delay before retry number ``attempt`` (0-based): base·2^attempt capped at max, times uniform(0.5, 1) jitter."""
    delay = min(max_s, base_s * (2.0**attempt))
    return delay * rng.uniform(0.5, 1.0) if rng is not None else delay


def _retry_after_s(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:  # an HTTP date: rare from LLM gateways, fall back to our own backoff
        return None


class ChatClient:
    """POST {base_url}/chat/completions with retries. One instance per judge; safe to share across threads."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._rng = rng
        self._sleep = sleep

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool = True,
    ) -> ChatCompletion:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            wait: float | None = None
            try:
                response = requests.post(self.url, json=body, headers=self._headers(), timeout=self.timeout_s)
            except requests.Timeout as exc:
                last_problem = f"timed out after {self.timeout_s:g} s ({type(exc).__name__})"
            except requests.ConnectionError as exc:
                last_problem = f"connection failed ({type(exc).__name__}: {self._scrub(str(exc))[:300]})"
            else:
                if response.status_code == 200:
                    return self._parse(response, attempt + 1)
                snippet = self._scrub(response.text[:300])
                if response.status_code in RETRYABLE_STATUS or response.status_code >= 500:
                    last_problem = f"HTTP {response.status_code}: {snippet}"
                    wait = _retry_after_s(response)
                else:
                    raise JudgeRequestError(
                        f"judge endpoint {self.url} refused the request with HTTP {response.status_code}: {snippet}",
                        status=response.status_code,
                    )
            if attempt < self.max_retries:
                delay = backoff_delay(attempt, self.backoff_base_s, self.backoff_max_s, self._rng)
                self._sleep(min(self.backoff_max_s, wait) if wait is not None else delay)
        raise JudgeUnavailable(
            f"judge endpoint {self.url} is unavailable after {self.max_retries + 1} attempt(s): {last_problem}"
        )

    def _parse(self, response: requests.Response, attempts: int) -> ChatCompletion:
        try:
            payload = response.json()
            message = payload["choices"][0]["message"]
            text = message["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise InvalidOutput(
                f"answer is not a chat completion ({type(exc).__name__}): {self._scrub(response.text[:200])!r}"
            ) from exc
        if not isinstance(text, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            raise InvalidOutput(f"chat completion has no text content (refusal: {refusal!r})")
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        return ChatCompletion(text=text, model=payload.get("model"), usage=usage, attempts=attempts)
