"""Cell aggregates: pass@1, pass@k, pass^k (EVA-Bench §4) and mean scores.

With N scenarios and k trials each: pass@1 = share of all N·k trials that pass; pass@k = share of scenarios
with at least one passing trial; pass^k = mean over scenarios of p̂ᵢ^k with p̂ᵢ = passes/k (the plug-in
estimate the paper uses, not the unbiased combinatorial one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from evalkit.records import ConversationRecord

PassTable = Mapping[str, Sequence[bool]]  # scenario id -> pass flag per trial


def pass_at_1(table: PassTable) -> float:
    flags = [f for trials in table.values() for f in trials]
    return float(np.mean(flags)) if flags else float("nan")


def pass_at_k(table: PassTable) -> float:
    return float(np.mean([any(t) for t in table.values()])) if table else float("nan")


def pass_hat_k(table: PassTable) -> float:
    if not table:
        return float("nan")
    return float(np.mean([(sum(t) / len(t)) ** len(t) for t in table.values() if len(t)]))


def aggregate_cell(records: Sequence[ConversationRecord]) -> dict[str, float]:
    """Mean score per metric (unscored conversations left out, and counted) and the pass@ family."""
    scores: dict[str, list[float]] = defaultdict(list)
    passes: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    unscored: dict[str, int] = defaultdict(int)
    for record in records:
        sid = record.conversation.scenario_id
        for name, value in record.metrics.items():
            if value.score is None:
                unscored[name] += 1
                continue
            scores[name].append(value.score)
            if value.passed is not None:
                passes[name][sid].append(value.passed)
    out: dict[str, float] = {}
    for name, values in scores.items():
        out[f"{name}_mean"] = float(np.mean(values))
    for name, table in passes.items():
        out[f"{name}_pass_at_1"] = pass_at_1(table)
        out[f"{name}_pass_at_k"] = pass_at_k(table)
        out[f"{name}_pass_hat_k"] = pass_hat_k(table)
    for name, count in unscored.items():
        out[f"{name}_unscored"] = float(count)
    out["conversations"] = float(len(records))
    out["infrastructure_errors"] = float(sum(r.conversation.end_reason == "error" for r in records))
    return out
