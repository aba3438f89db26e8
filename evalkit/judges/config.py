"""The `judge` config group: which OpenAI-compatible endpoint scores the judge-based metrics, if any.

The API key itself never appears here: the config names the environment variable that holds it, so a resolved
config (logged to MLflow, hashed into a cell's identity) can never leak the secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from evalkit.judges.registry import JUDGES, BaseJudgeConfig

if TYPE_CHECKING:
    from evalkit.judges.judge import Judge
    from evalkit.judges.prompts import JudgeContext


# One class for both built-in kinds: `none` is this config with nothing enabled (so JudgeConfig() is "no judge").
@JUDGES.register("none")
@JUDGES.register("openai_compatible")
class JudgeConfig(BaseJudgeConfig):
    METERING: ClassVar[str] = "metered"  # every request goes through evalkit's clients (evalkit.usage)
    kind: Literal["none", "openai_compatible"] = Field(
        default="none", description="none: offline, no judge (judge metrics use proxies or are skipped)"
    )
    name: str = Field(default="", description="display name; empty: the kind")
    base_url: str | None = Field(
        default=None, description="e.g. https://api.openai.com/v1 (we POST {base_url}/chat/completions)"
    )
    model: str | None = Field(default=None, description="the judge model name sent to the endpoint")
    api_key_env: str | None = Field(
        default="OPENAI_API_KEY", description="environment variable holding the key; null for keyless local servers"
    )
    timeout_s: float = Field(default=120.0, gt=0, le=3600)  # seconds per judge request
    max_retries: int = Field(default=4, ge=0, le=20, description="extra attempts on 429/5xx/connection errors")
    backoff_base_s: float = Field(default=1.0, ge=0, le=60, description="first retry delay; doubles per attempt")
    backoff_max_s: float = Field(default=30.0, ge=0, le=600)  # the longest wait between two retries
    jitter: bool = Field(default=True, description="scale each delay by a seeded uniform(0.5, 1) draw")
    seed: int = Field(default=0, ge=0, description="seed of the jitter rng (so a sweep's retry timing is replayable)")
    invalid_output_retries: int = Field(
        default=1, ge=0, le=10, description="extra attempts when the answer is not valid JSON for the schema"
    )
    temperature: float = Field(default=0.0, ge=0, le=2)  # sampling temperature sent to the judge (0: greedy)
    max_tokens: int | None = Field(default=4096, ge=1)  # the answer's length limit sent to the judge (null: none)
    json_mode: bool = Field(default=True, description='send response_format {"type": "json_object"}')
    cache_dir: str | None = Field(default=".evalkit_cache/judges", description="null disables the cache")

    @model_validator(mode="before")
    @classmethod
    def _name_defaults_to_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("name"):
            data = {**data, "name": data.get("kind", "none")}
        return data

    @model_validator(mode="after")
    def _endpoint_complete(self) -> JudgeConfig:
        if self.kind == "openai_compatible":
            missing = [k for k in ("base_url", "model") if not getattr(self, k)]
            if missing:
                raise ValueError(f"judge=openai_compatible needs {' and '.join(missing)}")
            if not self.base_url.startswith(("http://", "https://")):  # type: ignore[union-attr]
                raise ValueError(f"judge.base_url must start with http:// or https://, got {self.base_url!r}")
        if self.backoff_max_s < self.backoff_base_s:
            raise ValueError("judge.backoff_max_s must be >= judge.backoff_base_s")
        return self

    def build(self, *, context: JudgeContext | None = None) -> Judge | None:
        from evalkit.judges.judge import Judge  # judge.py imports this module

        return Judge(self, context=context) if self.enabled else None
