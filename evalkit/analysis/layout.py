"""What the report shows first and in which order: metric directions, families, key metrics, the headline rows.

Pure (no matplotlib, no I/O). A metric's direction is its own ``Metric.lower_is_better``; a column derived from a
registered metric (``task_completion_pass``, ``latency_response_ms_p95`` from ``response_latency``) takes its
metric's. Families group metrics by the module that defines them (``Metric.fn.__module__``), in the fixed order of
``FAMILIES`` (docs/analysis.md, "Report layout"), never alphabetically.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from evalkit.analysis.compare import POOLED, DeltaRow, PassRow

# For names no registered metric declares nor derives from (a plug-in's column): words where a rise degrades.
LOWER_IS_BETTER_WORDS = ("wer", "error", "latency", "unscored", "failed", "overhead", "_ms")
# Cell aggregates named after a metric's tail rather than its name: prefix -> the registered metric they summarise.
DERIVED_PREFIXES = {"latency_": "response_latency"}

# (family title, modules of evalkit.metrics whose metrics belong to it), in report order: did the task get done,
# did the agent hear, how fast and how well it took turns, how well it spoke. Plug-ins and unknown columns last.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Task success", ("task_completion", "success", "mmtau", "tool_validity", "authentication", "critical_fields")),
    ("Hearing", ("hearing", "speech_fidelity")),
    ("Latency and turn-taking", ("latency", "turn_taking", "interruption")),
    ("Conversation quality", ("composites", "judged", "conciseness", "progression", "faithfulness", "speakability")),
)
OTHER_FAMILY = "Other metrics"
# The headline's metrics: task completion (and its pass^k), every success_* present, user WER, latency p95.
KEY_METRICS = ("task_completion", "user_wer")
KEY_PREFIXES = ("success_",)
LATENCY_P95 = "latency_response_ms_p95"


def _registered(metric: str) -> str | None:
    """The registered metric a column is, or derives from (None: unknown)."""
    from evalkit.metrics.registry import METRICS

    if metric in METRICS:
        return metric
    for suffix in ("_pass", "_pass_at_1", "_pass_at_k", "_pass_hat_k", "_mean"):
        if metric.endswith(suffix) and metric.removesuffix(suffix) in METRICS:
            return metric.removesuffix(suffix)
    for prefix, base in DERIVED_PREFIXES.items():
        if metric.startswith(prefix) and base in METRICS:
            return base
    return None


def lower_is_better(metric: str) -> bool:
    """The metric's own direction; a column no registered metric declares falls back to the words of its name."""
    from evalkit.metrics.registry import METRICS

    base = _registered(metric)
    if base is not None:
        return METRICS[base].lower_is_better
    return any(word in metric.lower() for word in LOWER_IS_BETTER_WORDS)


def family_of(metric: str) -> str:
    from evalkit.metrics.registry import METRICS

    base = _registered(metric)
    if base is None:
        return OTHER_FAMILY
    module = getattr(METRICS[base].fn, "__module__", "").rsplit(".", 1)[-1]
    for title, modules in FAMILIES:
        if module in modules:
            return title
    return OTHER_FAMILY


def family_order() -> list[str]:
    return [title for title, _ in FAMILIES] + [OTHER_FAMILY]


def by_family(metrics: Sequence[str]) -> list[tuple[str, list[str]]]:
    """(family, its metrics) in the fixed family order; within a family, key metrics first, then by name."""
    groups: dict[str, list[str]] = {}
    for metric in metrics:
        groups.setdefault(family_of(metric), []).append(metric)
    return [(f, sorted(groups[f], key=lambda m: (not is_key(m), m))) for f in family_order() if f in groups]


def is_key(metric: str) -> bool:
    return metric in KEY_METRICS or (metric.startswith(KEY_PREFIXES) and _registered(metric) == metric)


@dataclass(frozen=True)
class Headline:
    """One line of the headline: a condition × key metric, its clean and perturbed values and the change."""

    model: str
    domain: str
    condition: str
    metric: str
    clean: float
    perturbed: float
    delta: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    p_holm: float = float("nan")
    significant: bool = False

    @property
    def verdict(self) -> str:
        """better / worse (significant after Holm, by the metric's own direction), or why neither."""
        if math.isnan(self.delta):
            return "–"
        if math.isnan(self.p_holm):
            return "untested"  # an aggregate of the cell (pass^k, a percentile): no paired test
        if not self.significant or self.delta == 0:
            return "no significant change"
        return "worse" if (self.delta > 0) == lower_is_better(self.metric) else "better"

    @property
    def arrow(self) -> str:
        return "▲" if self.delta > 0 else "▼" if self.delta < 0 else "="


def _scope(rows: Sequence[DeltaRow]) -> list[DeltaRow]:
    """Pooled rows stand for their domains when present (one screen): the per-domain rows stay in the sections."""
    pooled = {(r.model, r.condition, r.metric) for r in rows if r.domain == POOLED}
    return [r for r in rows if r.domain == POOLED or (r.model, r.condition, r.metric) not in pooled]


def headline(
    rows: Sequence[DeltaRow], pass_rows: Sequence[PassRow], latency: Sequence[Headline] = ()
) -> list[Headline]:
    """Key metrics per condition (paired δ rows), pass^k of those with a pass flag, and the cells' latency p95."""
    out = [
        Headline(
            r.model,
            r.domain,
            r.condition,
            r.metric,
            r.clean_mean,
            r.perturbed_mean,
            r.delta,
            r.ci_low,
            r.ci_high,
            r.p_holm,
            r.significant,
        )
        for r in _scope(rows)
        if is_key(r.metric)
    ]
    clean = {(p.model, p.domain, p.metric): p.pass_hat_k for p in pass_rows if p.condition == "clean"}
    for p in pass_rows:
        base = clean.get((p.model, p.domain, p.metric))
        if p.condition == "clean" or base is None or not is_key(p.metric):
            continue
        out.append(Headline(p.model, p.domain, p.condition, f"{p.metric} pass^k", base, p.pass_hat_k,
                            p.pass_hat_k - base))  # fmt: skip
    out += latency
    order = {m: i for i, m in enumerate(KEY_METRICS)}
    return sorted(
        out,
        key=lambda h: (h.condition, h.model, order.get(h.metric.split()[0], 1), h.metric, h.domain == POOLED, h.domain),
    )


def latency_rows(pairs: Sequence[tuple[str, str, str, dict[str, float], dict[str, float]]]) -> list[Headline]:
    """The response latency p95 of each perturbed cell against its twin's (a cell aggregate: no paired test)."""
    out = []
    for model, domain, condition, perturbed, clean in pairs:
        if LATENCY_P95 in perturbed and LATENCY_P95 in clean:
            p, c = perturbed[LATENCY_P95], clean[LATENCY_P95]
            out.append(Headline(model, domain, condition, LATENCY_P95, c, p, p - c))
    return out
