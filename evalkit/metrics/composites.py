"""EVA-A and EVA-X: the per-conversation pass rules of EVA-Bench §3.2.4 / Table 11.

A conversation passes a dimension when *every* metric of it meets its threshold (§3.2.4):
EVA-A = task completion = 1.0 ∧ faithfulness >= 0.5 ∧ speech fidelity >= 0.95;
EVA-X = turn-taking >= 0.8 ∧ conversation progression >= 0.5 ∧ conciseness >= 0.5.
(Checked against the paper: §3.2.4 and Table 11 give exactly these thresholds.)

Offline, the judge metrics are replaced by their deterministic proxies and the composite says so in its name
(``eva_a_proxy``, ``eva_x_proxy``), so a proxy composite is never pooled with a judged one. ``eva_a`` / ``eva_x``
combine the judge metrics (evalkit.metrics.judged); offline those are skipped, so the judged composites are unscored
(None), never passed or failed on proxies.

A composite over a skipped component (a judge metric with ``judge=none``) is skipped as a whole, so ``eva_a`` never
reports offline pass rates computed from task completion alone. Otherwise, three-valued conjunction: a component
that fails decides the composite (fail) even when another is unscored; when none fails but one is unscored, the
composite is unscored (None), never a silent pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalkit.metrics.base import Metric, MetricKind
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

EVA_A_PROXY = ("task_completion", "faithfulness_proxy", "speech_fidelity_proxy")
EVA_X_PROXY = ("turn_taking", "conversation_progression_proxy", "conciseness_proxy")
EVA_A_JUDGE = ("task_completion", "faithfulness", "agent_speech_fidelity")
EVA_X_JUDGE = ("turn_taking", "conversation_progression", "conciseness")


def combine(name: str, components: tuple[str, ...], values: Mapping[str, MetricValue]) -> MetricValue:
    flags = {c: values[c].passed if c in values else None for c in components}
    scores = {c: values[c].score if c in values else None for c in components}
    failed = [c for c, f in flags.items() if f is False]
    undecided = [c for c, f in flags.items() if f is None]
    details = {"components": scores, "component_passed": flags}
    skipped = [c for c in components if c in values and values[c].details.get("skipped")]
    if skipped:  # offline judge metrics: the judged composite is skipped too, never failed on task completion alone
        reason = f"judge=none: offline run; use {name}_proxy or judge=openai_compatible"
        return MetricValue(name=name, score=None, passed=None, details=details | {"skipped": reason})
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
    composite("eva_a", EVA_A_JUDGE, "judge", "EVA-Bench §3.2.4, Table 11 (EVA-A over LLM-judge scores)"),
    composite("eva_x", EVA_X_JUDGE, "judge", "EVA-Bench §3.2.4, Table 11 (EVA-X over LLM-judge scores)"),
)

register_all(METRICS, __name__)
