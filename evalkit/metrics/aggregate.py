"""Cell aggregates: pass@1, pass@k, pass^k (EVA-Bench §4) and mean scores.

With N scenarios and k trials each: pass@1 = share of all N·k trials that pass; pass@k = share of scenarios
with at least one passing trial; pass^k = mean over scenarios of p̂ᵢ^k with p̂ᵢ = passes/k (the plug-in
estimate the paper uses, not the unbiased combinatorial one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

from evalkit.metrics.interaction import interaction_totals
from evalkit.metrics.latency import latency_percentiles
from evalkit.records import ConversationRecord

PassTable = Mapping[str, Sequence[bool]]  # scenario id -> pass flag per trial
BOOTSTRAP_RESAMPLES = 1000  # EVA-Bench: 1,000 percentile-bootstrap resamples over scenarios (G.3)
BOOTSTRAP_SEED = 0


def pass_at_1(table: PassTable) -> float:
    flags = [f for trials in table.values() for f in trials]
    return float(np.mean(flags)) if flags else float("nan")


def pass_at_k(table: PassTable) -> float:
    return float(np.mean([any(t) for t in table.values()])) if table else float("nan")


def pass_hat_k(table: PassTable) -> float:
    if not table:
        return float("nan")
    return float(np.mean([(sum(t) / len(t)) ** len(t) for t in table.values() if len(t)]))


def _scenario_means(by_scenario: Mapping[str, Sequence[float]]) -> np.ndarray:
    return np.array([float(np.mean(v)) for v in by_scenario.values() if len(v)])


def bootstrap_ci(
    by_scenario: Mapping[str, Sequence[float]],
    confidence: float = 0.95,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean over *scenarios* (trials of one scenario are not independent, so the
    scenario is the resampling unit, as in EVA-Bench's tables). Fixed seed: the same records give the same CI."""
    means = _scenario_means(by_scenario)
    if len(means) < 2:
        return float("nan"), float("nan")
    if np.all(means == means[0]):  # scipy warns and returns NaN on degenerate data; the CI is the point
        return float(means[0]), float(means[0])
    result = stats.bootstrap(
        (means,),
        np.mean,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def aggregate_cell(records: Sequence[ConversationRecord]) -> dict[str, float]:
    """Per metric: mean score (unscored conversations left out, and counted) with a bootstrap CI over scenarios,
    the pass@ family where the metric has a pass flag (EVA-A / EVA-X composites included), the means of its
    submetrics, and how many conversations it failed on (the metric raised); and the latency percentiles over all
    turns of the cell (``latency_*``, :func:`evalkit.metrics.latency.latency_percentiles`); and the interaction
    metrics' event counts and pooled rates (``<name>_events``, ``<name>_pooled``,
    :func:`evalkit.metrics.interaction.interaction_totals`)."""
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    passes: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    submetrics: dict[str, list[float]] = defaultdict(list)
    unscored: dict[str, int] = defaultdict(int)
    failed: dict[str, int] = defaultdict(int)
    for record in records:
        sid = record.conversation.scenario_id
        for name, value in record.metrics.items():
            if "error" in value.details:
                failed[name] += 1
            if value.score is None:
                unscored[name] += 1
                continue
            scores[name][sid].append(value.score)
            if value.passed is not None:
                passes[name][sid].append(value.passed)
            for sub, x in (value.details.get("submetrics") or {}).items():
                if isinstance(x, int | float) and not isinstance(x, bool):
                    submetrics[f"{name}_{sub}"].append(float(x))
    out: dict[str, float] = {}
    for name, by_scenario in scores.items():
        flat = [x for v in by_scenario.values() for x in v]
        out[f"{name}_mean"] = float(np.mean(flat))
        low, high = bootstrap_ci(by_scenario)
        if low == low:
            out[f"{name}_mean_ci_low"], out[f"{name}_mean_ci_high"] = low, high
    for name, table in passes.items():
        out[f"{name}_pass_at_1"] = pass_at_1(table)
        out[f"{name}_pass_at_k"] = pass_at_k(table)
        out[f"{name}_pass_hat_k"] = pass_hat_k(table)
    for name, xs in submetrics.items():
        out[f"{name}_mean"] = float(np.mean(xs))
    for name, count in unscored.items():
        out[f"{name}_unscored"] = float(count)
    for name, count in failed.items():
        out[f"{name}_failed"] = float(count)
    out["conversations"] = float(len(records))
    out["infrastructure_errors"] = float(sum(r.conversation.end_reason == "error" for r in records))
    out |= latency_percentiles(records)  # the tail of every turn's latency, beside the per-conversation means
    out |= interaction_totals(records)  # the interaction metrics' events over the cell, and their pooled rates
    return out


def aggregate_by_domain(records: Sequence[ConversationRecord]) -> dict[str, dict[str, float]]:
    """:func:`aggregate_cell` per domain (a cell holds one domain; a re-scored set of cells may hold several)."""
    groups: dict[str, list[ConversationRecord]] = defaultdict(list)
    for record in records:
        groups[record.conversation.domain].append(record)
    return {domain: aggregate_cell(group) for domain, group in sorted(groups.items())}


def pool_domains(per_domain: Mapping[str, Mapping[str, float]], key: str) -> float:
    """EVA-Bench's headline pooling: the equal-weighted mean of the per-domain estimates (L145), not the mean over
    all conversations (which would weight domains by their scenario counts)."""
    values = [agg[key] for agg in per_domain.values() if key in agg and agg[key] == agg[key]]
    return float(np.mean(values)) if values else float("nan")
