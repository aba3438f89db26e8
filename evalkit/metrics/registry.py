"""Metric registry: config names -> :class:`Metric` plug-ins, and the scoring of one conversation.

Every metric module exports ``METRICS``; adding a metric = adding a module and listing it here. The judge layer
adds its metrics at run time with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from evalkit.metrics import (
    authentication,
    composites,
    conciseness,
    critical_fields,
    faithfulness,
    hearing,
    judged,
    latency,
    mmtau,
    progression,
    speakability,
    speech_fidelity,
    task_completion,
    tool_validity,
    turn_taking,
)
from evalkit.metrics.base import JudgeScorer, Metric, UnknownMetricError
from evalkit.records import Conversation, MetricValue

MetricFn = Callable[[Conversation], MetricValue]  # the plain scoring function a Metric wraps

_MODULES = (
    task_completion,
    faithfulness,
    speech_fidelity,
    turn_taking,
    progression,
    conciseness,
    judged,
    composites,
    hearing,
    authentication,
    latency,
    tool_validity,
    speakability,
    critical_fields,
    mmtau,
)
METRICS: dict[str, Metric] = {}


def register(metric: Metric) -> Metric:
    existing = METRICS.get(metric.name)
    if existing is not None and existing != metric:
        raise ValueError(f"metric {metric.name!r} is already registered ({existing.source})")
    METRICS[metric.name] = metric
    return metric


for _module in _MODULES:
    for _metric in _module.METRICS:
        register(_metric)


def get_metric(name: str) -> Metric:
    try:
        return METRICS[name]
    except KeyError:
        raise UnknownMetricError(f"unknown metric {name!r}; available: {', '.join(sorted(METRICS))}") from None


def resolve(names: Iterable[str]) -> list[str]:
    """Selected names plus what composites require, each after its requirements; unknown names raise."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"metric dependency cycle: {' -> '.join((*path, name))}")
        for dep in get_metric(name).requires:
            visit(dep, (*path, name))
        order.append(name)

    for n in names:
        visit(n, ())
    return order


def required_preparation(names: Iterable[str], judge: bool = True) -> set[str]:
    """What the cell must prepare before scoring (e.g. 'assistant_asr'), over the resolved selection. Without a
    judge (``judge=False``) the judge metrics are skipped, so their preparation is not paid for."""
    return {need for n in resolve(names) if judge or get_metric(n).kind != "judge" for need in get_metric(n).needs}


def _failed(name: str, exc: BaseException) -> MetricValue:
    return MetricValue(name=name, score=None, passed=None, details={"error": f"{type(exc).__name__}: {exc}"})


def score_conversation(
    conversation: Conversation, names: list[str], judge: JudgeScorer | None = None
) -> dict[str, MetricValue]:
    """Score one conversation with the selected metrics (and what they require).

    ``judge`` scores the judge-kind metrics (None offline: they are reported as skipped, see metrics.judged).

    A crashed conversation is unscored (None), never scored 0 (Inspect's rule). A metric that raises is recorded as
    failed (score None, ``details.error``); the other metrics are still scored.
    """
    ordered = resolve(names)
    if conversation.end_reason == "error":
        return {n: MetricValue(name=n, score=None, details={"unscored": conversation.error}) for n in ordered}
    out: dict[str, MetricValue] = {}
    for name in ordered:
        metric = METRICS[name]
        try:
            result = metric.score(conversation, out, judge)
        except Exception as exc:  # a metric bug must not cost the cell its other metrics and artifacts
            result = _failed(name, exc)
        if result.name != name:
            result = result.model_copy(update={"name": name})
        out[name] = result
    return out
