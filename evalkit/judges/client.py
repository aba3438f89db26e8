"""A small OpenAI-compatible chat-completions client: retries, backoff, JSON mode, and errors that name the URL.

Hand-written on top of `requests` (already installed with mlflow) because we need only one endpoint; the retry policy
is the one every OpenAI-compatible request of evalkit shares (``evalkit.wire.openai_http.retry``, also used by the
``cascade_openai`` / ``hybrid_openai`` agents):

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

from evalkit import usage as metering
from evalkit.wire.openai_http.retry import (
    RETRYABLE_STATUS,
    EndpointRefused,
    EndpointUnavailable,
    RetryPolicy,
    backoff_delay,
    bearer_headers,
    post_with_retries,
)

__all__ = [
    "RETRYABLE_STATUS",
    "ChatClient",
    "ChatCompletion",
    "InvalidOutput",
    "JudgeConfigError",
    "JudgeError",
    "JudgeRequestError",
    "JudgeUnavailable",
    "backoff_delay",
]


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
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
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
        return bearer_headers(self._api_key)

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
        policy = RetryPolicy(self.max_retries, self.backoff_base_s, self.backoff_max_s, self._rng, self._sleep)
        try:
            answered = post_with_retries(
                self.url,
                what="judge endpoint",
                policy=policy,
                timeout_s=self.timeout_s,
                headers=self._headers(),
                scrub=self._scrub,
                json=body,
            )
        except EndpointRefused as exc:
            raise JudgeRequestError(str(exc), status=exc.status) from None
        except EndpointUnavailable as exc:
            raise JudgeUnavailable(str(exc)) from None
        try:  # metered whatever the answer says: the provider bills an answer the judge cannot read too
            payload = answered.response.json()
        except ValueError:
            payload = None
        metering.record_payload("judge", self.base_url, self.model, payload)
        return self._parse(answered.response, answered.retries + 1)

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
