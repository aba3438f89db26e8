"""EVA-A and EVA-X: the per-conversation pass rules of EVA-Bench §3.2.4 / Table 11.

A conversation passes a dimension when *every* metric of it meets its threshold (§3.2.4):
EVA-A = task completion = 1.0 ∧ faithfulness >= 0.5 ∧ speech fidelity >= 0.95;
EVA-X = turn-taking >= 0.8 ∧ conversation progression >= 0.5 ∧ conciseness >= 0.5.
(Checked against the paper: §3.2.4 and Table 11 give exactly these thresholds.)

Offline, the judge metrics are replaced by their deterministic proxies and the composite says so in its name
(``eva_a_proxy``, ``eva_x_proxy``), so a proxy composite is never pooled with a judged one. The judge layer builds
``eva_a`` / ``eva_x`` over its judge metrics with :func:`composite`.

Three-valued conjunction: a component that fails decides the composite (fail) even when another is unscored; when
none fails but one is unscored, the composite is unscored (None), never a silent pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalkit.metrics.base import Metric, MetricKind
from evalkit.records import Conversation, MetricValue

EVA_A_PROXY = ("task_completion", "faithfulness_proxy", "speech_fidelity_proxy")
EVA_X_PROXY = ("turn_taking", "conversation_progression_proxy", "conciseness_proxy")
EVA_A_JUDGE = ("task_completion", "faithfulness", "speech_fidelity")
EVA_X_JUDGE = ("turn_taking", "conversation_progression", "conciseness")


def combine(name: str, components: tuple[str, ...], values: Mapping[str, MetricValue]) -> MetricValue:
    flags = {c: values[c].passed if c in values else None for c in components}
    scores = {c: values[c].score if c in values else None for c in components}
    failed = [c for c, f in flags.items() if f is False]
    undecided = [c for c, f in flags.items() if f is None]
    details = {"components": scores, "component_passed": flags}
    if failed:
        return MetricValue(name=name, score=0.0, passed=False, details=details | {"failed": failed})
    if undecided:
        return MetricValue(name=name, score=None, passed=None, details=details | {"reason": f"unscored: {undecided}"})
    return MetricValue(name=name, score=1.0, passed=True, details=details)


def composite(name: str, components: tuple[str, ...], kind: MetricKind, source: str) -> Metric:
    def fn(conversation: Conversation, values: Mapping[str, MetricValue]) -> MetricValue:
        return combine(name, components, values)

    return Metric(
        name=name,
        kind=kind,
        source=source,
        inputs=tuple(f"metrics.{c}" for c in components),
        fn=fn,
        requires=components,
        threshold=1.0,
        description=" ∧ ".join(components),
    )


METRICS = (
    composite("eva_a_proxy", EVA_A_PROXY, "proxy", "EVA-Bench §3.2.4, Table 11 (EVA-A with offline proxies)"),
    composite("eva_x_proxy", EVA_X_PROXY, "proxy", "EVA-Bench §3.2.4, Table 11 (EVA-X with offline proxies)"),
)
