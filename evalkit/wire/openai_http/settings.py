"""Settings every OpenAI-compatible endpoint of evalkit shares: the server, model, key variable and timeout of one
endpoint (``EndpointSettings``) and the retry policy (``RetrySettings``). Used by the agent kinds (``config``), the
LLM user simulator (``simulator``) and the remote caller voice (``voice``); importing it loads no agent, simulator or
voice.

Keys: a setting names the environment variable that holds its key (``api_key_env``; null for a keyless local
server). The value is read when the component is built and never enters the config, its hash, the params or a
message; a variable that is not set is one line at preflight (``evalkit.config.preflight.key_env_problems``).
"""

from __future__ import annotations

import os
import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evalkit.wire.openai_http.retry import RetryPolicy

__all__ = ["EndpointSettings", "RetrySettings", "missing_key_message"]


class EndpointSettings(BaseModel):
    """One OpenAI-compatible server and the model to ask there."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1")
    model: str = Field(min_length=1, description="the model id the server knows")
    api_key_env: str | None = Field(
        default="OPENAI_API_KEY", description="environment variable holding the key; null for a keyless server"
    )
    timeout_s: float = Field(default=60.0, gt=0, le=3600)  # seconds per HTTP request before it counts as failed

    @field_validator("base_url")
    @classmethod
    def _http(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {url!r}")
        return url

    def endpoint(self, where: str, policy: RetryPolicy) -> Any:
        """The runtime endpoint (``evalkit.wire.openai_http.client.Endpoint``) with its key from the environment."""
        from evalkit.wire.openai_http.client import Endpoint

        return Endpoint(self.base_url, self.model, f"{where} endpoint", self.api_key(where), self.timeout_s, policy)

    def api_key(self, where: str) -> str | None:
        """The key from the environment; a variable that is not set is one line (preflight says it first)."""
        if not self.api_key_env:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ValueError(missing_key_message(where, self.api_key_env))
        return value


def missing_key_message(where: str, var: str) -> str:
    return f"{where}.api_key_env: ${var} is not set; export it, or set {where}.api_key_env=null for a keyless server"


class RetrySettings(BaseModel):
    """HTTP 429 / 408 / 5xx answers, timeouts and refused connections are retried with exponential backoff (the
    judges' policy); when retries run out the call is an infrastructure failure. Retries are counted per turn."""

    model_config = ConfigDict(extra="forbid")

    max_retries: int = Field(default=4, ge=0, le=20)  # retries of a failed request before it is a failure
    backoff_base_s: float = Field(default=1.0, ge=0, le=60)  # first wait before a retry; doubles each time
    backoff_max_s: float = Field(default=30.0, ge=0, le=600)  # the longest wait between two retries
    jitter: bool = True  # scale each wait by a seeded uniform(0.5, 1) draw
    seed: int = Field(default=0, ge=0, description="seed of the jitter rng")

    def policy(self) -> RetryPolicy:
        rng = random.Random(self.seed) if self.jitter else None
        return RetryPolicy(self.max_retries, self.backoff_base_s, max(self.backoff_max_s, self.backoff_base_s), rng)
