"""`Judge`: score one judge-based metric of one conversation through an OpenAI-compatible endpoint, with a cache.

Failure policy (issue 6, "Bad input"): a judge that answers garbage or schema-invalid JSON, or a conversation that
lacks what the judge needs, yields a `JudgeResult` with ``failed`` set and ``score=None``: the cell's other
metrics go on. An endpoint that is down raises `JudgeUnavailable` (naming the URL) so the caller can decide;
after the first such failure the judge fails fast for the rest of its life instead of paying the full retry
budget on every conversation. An unknown metric name raises `UnknownJudgeMetric` listing the known ones.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, Field

from evalkit.judges.cache import JudgeCache, cache_key
from evalkit.judges.client import (
    ChatClient,
    InvalidOutput,
    JudgeConfigError,
    JudgeError,
    JudgeRequestError,
    JudgeUnavailable,
)
from evalkit.judges.prompts import PROMPTS, JudgeContext, JudgePrompt, NotApplicable
from evalkit.records import Conversation, MetricValue

if TYPE_CHECKING:  # config.py builds judges (a lazy import of this module): types only here
    from evalkit.judges.config import JudgeConfig


T = TypeVar("T")


@dataclass(frozen=True)
class Asked(Generic[T]):
    """One answer of ``Judge.ask``: the parsed ``value`` (None with ``failed`` set when every answer was invalid)."""

    value: T | None
    key: str
    cached: bool = False
    failed: str | None = None
    problems: tuple[str, ...] = ()
    attempts: int = 0
    usage: Any = None


class UnknownJudgeMetric(KeyError):
    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0])


class JudgeResult(BaseModel):
    """One judgment. ``score`` is None when ``failed`` is set or the metric did not apply (see details)."""

    metric: str
    score: float | None
    details: dict[str, Any] = Field(default_factory=dict)
    model: str
    prompt_version: str
    prompt_hash: str
    cache_key: str | None = None
    cached: bool = False
    failed: str | None = None

    def to_metric_value(self, name: str | None = None, threshold: float | None = None) -> MetricValue:
        """The record-layer verdict: judge identity and any failure reason travel in ``details``."""
        details = {**self.details, **self._identity()}
        if self.failed:
            details["failed"] = self.failed
        passed = None if self.score is None or threshold is None else bool(self.score >= threshold)
        return MetricValue(name=name or self.metric, score=self.score, passed=passed, details=details)

    def _identity(self) -> dict[str, Any]:
        return {
            "judge_model": self.model,
            "prompt_version": self.prompt_version,
            "prompt_hash": self.prompt_hash,
            "cached": self.cached,
        }

    def log_params(self) -> dict[str, str]:
        """What to log beside the score so a number can always be traced to the judge that produced it."""
        return {
            f"judge.{self.metric}.model": self.model,
            f"judge.{self.metric}.prompt_version": self.prompt_version,
            f"judge.{self.metric}.prompt_hash": self.prompt_hash[:12],
        }


def get_prompt(metric: str) -> JudgePrompt:
    try:
        return PROMPTS[metric]
    except KeyError:
        raise UnknownJudgeMetric(
            f"unknown judge metric {metric!r}; known judge metrics: {', '.join(sorted(PROMPTS))}"
        ) from None


def _read_api_key(config: JudgeConfig) -> str | None:
    if not config.api_key_env:
        return None
    key = os.environ.get(config.api_key_env)
    if not key:
        raise JudgeConfigError(
            f"judge.api_key_env names ${config.api_key_env}, which is not set; export it or set "
            "judge.api_key_env=null for a keyless endpoint"
        )
    return key


class Judge:
    """Calls the judge endpoint for judge-based metrics. Build one per cell (or process) and reuse it."""

    def __init__(
        self,
        config: JudgeConfig,
        *,
        context: JudgeContext | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if not config.enabled:
            raise JudgeConfigError("judge=none: no judge is configured (use build_judge, which returns None)")
        self.config = config
        self.model: str = config.model  # type: ignore[assignment]  # validated non-null when enabled
        self.context = context or JudgeContext()
        extra = {"sleep": sleep} if sleep is not None else {}
        self.client = ChatClient(
            config.base_url,  # type: ignore[arg-type]
            self.model,
            api_key=_read_api_key(config),
            timeout_s=config.timeout_s,
            max_retries=config.max_retries,
            backoff_base_s=config.backoff_base_s,
            backoff_max_s=config.backoff_max_s,
            rng=random.Random(config.seed) if config.jitter else None,
            **extra,
        )
        self.cache = JudgeCache(config.cache_dir) if config.cache_dir else None
        self._unavailable: JudgeUnavailable | JudgeRequestError | None = None

    @property
    def metrics(self) -> list[str]:
        return sorted(PROMPTS)

    def describe(self) -> dict[str, str]:
        """Loggable identity of the judge (never the key): endpoint, model and every prompt's version and hash."""
        out = {"judge.base_url": self.client.url, "judge.model": self.model}
        for name, prompt in sorted(PROMPTS.items()):
            out[f"judge.{name}.prompt_version"] = prompt.version
            out[f"judge.{name}.prompt_hash"] = prompt.prompt_hash[:12]
        return out

    def _params(self) -> dict[str, Any]:
        return {"temperature": self.config.temperature, "max_tokens": self.config.max_tokens}

    def evaluate(
        self, metric_name: str, conversation: Conversation, context: JudgeContext | None = None
    ) -> JudgeResult:
        prompt = get_prompt(metric_name)
        ctx = context or self.context
        base = {"metric": metric_name, "model": self.model, "prompt_version": prompt.version}
        base["prompt_hash"] = prompt.prompt_hash

        missing = prompt.missing_context(ctx)
        if missing:
            return JudgeResult(**base, score=None, failed=f"{metric_name} needs JudgeContext.{', '.join(missing)}")
        try:
            inputs = prompt.build_inputs(conversation, ctx)
        except NotApplicable as exc:
            return JudgeResult(**base, score=None, failed=f"not applicable: {exc}")

        def parse(text: str) -> tuple[Any, tuple[float | None, dict[str, Any]]]:
            output, score, details = prompt.parse(text, inputs)
            return output.model_dump(mode="json"), (score, details)

        asked = self.ask(
            metric=metric_name,
            version=prompt.version,
            prompt_hash=prompt.prompt_hash,
            messages=prompt.render(inputs),
            inputs=inputs,
            parse=parse,
        )
        if asked.value is None:
            details = {"problems": list(asked.problems)}
            return JudgeResult(**base, score=None, cache_key=asked.key, failed=asked.failed, details=details)
        score, details = asked.value
        if not asked.cached:
            details = {**details, "attempts": asked.attempts, "usage": asked.usage}
        return JudgeResult(**base, score=score, details=details, cache_key=asked.key, cached=asked.cached)

    def ask(
        self,
        *,
        metric: str,
        version: str,
        prompt_hash: str,
        messages: list[dict[str, str]],
        inputs: Mapping[str, Any],
        parse: Callable[[str], tuple[Any, T]],
        json_mode: bool | None = None,
    ) -> Asked[T]:
        """One judgment of any prompt (a metric's here, the arena's and the rubric's in ``evalkit.arena``): the
        cached answer when one is stored and still parses; else ask, re-asking an invalid answer up to
        ``invalid_output_retries`` times, and store the first valid one. ``parse`` turns the answer's text into
        (what to store, JSON-able; the parsed value) and raises ``InvalidOutput`` or ``ValueError`` on a bad one.
        A dead endpoint or a refused key raises (and the judge fails fast from then on); an answer still invalid
        after the retries is an ``Asked`` with ``failed`` set."""
        key = cache_key(
            metric=metric,
            prompt_version=version,
            prompt_hash=prompt_hash,
            model=self.model,
            params=self._params(),
            inputs=dict(inputs),
        )
        if self.cache is not None and (stored := self.cache.get(key)) is not None:
            try:
                return Asked(parse(_as_text(stored))[1], key, cached=True)
            except (InvalidOutput, ValueError):
                pass  # an entry no longer valid under today's parser or scoring rule: ask again and overwrite it

        if self._unavailable is not None:  # same type as the first failure, so the reason stays what it was
            first = self._unavailable
            message = f"{first} (failing fast: the endpoint already failed this way)"
            if isinstance(first, JudgeRequestError):
                raise JudgeRequestError(message, status=first.status)
            raise JudgeUnavailable(message)
        problems: list[str] = []
        for _ in range(self.config.invalid_output_retries + 1):
            try:
                completion = self.client.complete(
                    messages,
                    temperature=self.config.temperature,
                    max_tokens=self.config.max_tokens,
                    json_mode=self.config.json_mode if json_mode is None else json_mode,
                )
                output, value = parse(completion.text)
            except (InvalidOutput, ValueError) as exc:
                problems.append(str(exc)[:400])
                continue
            except JudgeUnavailable as exc:
                self._unavailable = exc
                raise
            except JudgeRequestError as exc:
                if exc.refuses_every_request:  # a bad key: do not send (and be refused) once per conversation
                    self._unavailable = exc
                raise
            if self.cache is not None:
                self.cache.put(
                    key, metric=metric, model=self.model, prompt_version=version, prompt_hash=prompt_hash, output=output
                )
            return Asked(value, key, attempts=completion.attempts, usage=completion.usage)
        reason = f"judge answer invalid after {len(problems)} attempt(s): {problems[-1]}"
        return Asked(None, key, failed=reason, problems=tuple(problems))

    def metric_value(
        self,
        metric_name: str,
        conversation: Conversation,
        context: JudgeContext | None = None,
        *,
        name: str | None = None,
        threshold: float | None = None,
    ) -> MetricValue:
        """`evaluate` for the metric layer: any judge error becomes an unscored value with the reason, so one bad
        judgment (or a dead endpoint) never takes the cell's other metrics with it. Unknown names still raise.
        ``details.judge_error`` (the error type) marks an infrastructure failure: the cell counts these and is not
        complete (evalkit.cell.score.judge_failures)."""
        try:
            return self.evaluate(metric_name, conversation, context).to_metric_value(name, threshold)
        except JudgeError as exc:
            prompt = get_prompt(metric_name)
            return MetricValue(
                name=name or metric_name,
                score=None,
                details={
                    "failed": str(exc),
                    "judge_error": type(exc).__name__,
                    "judge_model": self.model,
                    "prompt_version": prompt.version,
                    "prompt_hash": prompt.prompt_hash,
                    "cached": False,
                },
            )


def _as_text(stored: Any) -> str:
    return json.dumps(stored)


def build_judge(config: JudgeConfig, *, context: JudgeContext | None = None) -> Judge | None:
    """None for judge=none (the offline default): the metric layer then reports proxies or skips, never mixes."""
    return config.build(context=context)
