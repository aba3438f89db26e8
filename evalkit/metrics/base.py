"""The metric plug-in interface: one module per metric, each registering one :class:`Metric`.

A metric is a pure function of a conversation record (docs/architecture.md, dependency rules: metrics never import
agents, simulators, speech engines or tracking). It declares its kind so a reader of MLflow never mistakes a
deterministic stand-in for a judge's verdict:

- ``deterministic``: the paper's own definition, computed exactly (task completion, turn-taking, WER, ...);
- ``proxy``: a documented deterministic stand-in for a metric the paper scores with an LLM judge. Its name ends in
  ``_proxy`` so proxy and judge scores can never be pooled by accident;
- ``judge``: an LLM/LALM judge. Its function receives the cell's judge (anything with ``metric_value``, see
  :class:`JudgeScorer`; None offline) besides the conversation: the metric layer never imports the judge layer.

Composite metrics (EVA-A, EVA-X) declare ``requires``: the metrics they combine, which are scored first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from evalkit.records import Conversation, MetricValue

MetricKind = Literal["deterministic", "judge", "proxy"]
ScoreFn = Callable[[Conversation], MetricValue]
CompositeFn = Callable[[Conversation, Mapping[str, MetricValue]], MetricValue]


class JudgeScorer(Protocol):
    """What a judge metric needs from the cell: ``evalkit.judges.Judge`` (or an adapter around it) fits."""

    def metric_value(
        self,
        metric_name: str,
        conversation: Conversation,
        context: Any = None,
        *,
        name: str | None = None,
        threshold: float | None = None,
    ) -> MetricValue: ...


JudgeFn = Callable[[Conversation, "JudgeScorer | None"], MetricValue]


class UnknownMetricError(ValueError):
    """A metric name that no module registered; the message lists the available ones."""


@dataclass(frozen=True)
class Metric:
    name: str
    kind: MetricKind
    source: str  # the paper section the definition comes from, e.g. "EVA-Bench App. E.5.3"
    inputs: tuple[str, ...]  # record fields it reads, e.g. ("turns.start_ms", "turns.tool_calls")
    fn: ScoreFn | CompositeFn | JudgeFn
    requires: tuple[str, ...] = ()  # other metrics it combines (composites only)
    threshold: float | None = None  # pass iff score >= threshold (None: no pass flag, e.g. diagnostics)
    needs: frozenset[str] = field(default_factory=frozenset)  # cell-side preparation, e.g. {"assistant_asr"}
    description: str = ""
    # Direction: True when a rise is a degradation (WER, latency, overhead). The analysis colours deltas by it
    # (improving green, degrading red), so a metric states it here instead of relying on its name.
    lower_is_better: bool = False
    # Bumped whenever a change to the metric's code can change its scores; every score carries it. A change without a
    # bump fails tests/test_metric_signatures.py (scripts/update_metric_signatures.py records the new signature).
    version: int = 1

    def score(
        self,
        conversation: Conversation,
        upstream: Mapping[str, MetricValue] | None = None,
        judge: JudgeScorer | None = None,
    ) -> MetricValue:
        if self.requires:
            return self.fn(conversation, upstream or {})  # type: ignore[call-arg]
        if self.kind == "judge":
            return self.fn(conversation, judge)  # type: ignore[call-arg]
        return self.fn(conversation)  # type: ignore[call-arg]

    def passed(self, score: float | None) -> bool | None:
        if score is None or self.threshold is None:
            return None
        return score >= self.threshold


def value(name: str, score: float | None, threshold: float | None = None, **details: object) -> MetricValue:
    """A MetricValue with the pass flag set from ``threshold`` (score >= threshold), None when unscored."""
    passed = None if score is None or threshold is None else bool(score >= threshold)
    return MetricValue(name=name, score=score, passed=passed, details=dict(details))


def unscored(name: str, reason: str, **details: object) -> MetricValue:
    """Nothing to score (e.g. no user turn was heard): score None, never 0, with the reason."""
    return MetricValue(name=name, score=None, passed=None, details={"reason": reason, **details})
