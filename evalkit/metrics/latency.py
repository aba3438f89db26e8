"""Response latency, EVA-Bench App. E.6 / Table 25 (deterministic diagnostic), in seconds.

Per answered user turn: onset of the agent's first segment minus the end of the user's last segment (the same ℓ
as turn-taking, E.5.3), split by whether the agent issued a tool call before responding. Score = mean over all
answered turns; the with/without-tool means are submetrics (``response_latency_with_tools_mean`` ...).
"""

from __future__ import annotations

import numpy as np

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.metrics.turn_taking import _is_tool_turn, exchanges
from evalkit.records import Conversation, MetricValue

NAME = "response_latency"


def _mean(xs: list[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def response_latency(conversation: Conversation) -> MetricValue:
    rows = []
    for ex in exchanges(conversation):
        if not ex.user or not ex.agent:
            continue
        onset = min(a.start_ms for a in ex.agent)
        latency_s = (onset - max(u.end_ms for u in ex.user)) / 1000.0
        rows.append({"turn": ex.index, "latency_s": latency_s, "tool_turn": _is_tool_turn(ex, onset)})
    if not rows:
        return unscored(NAME, "no answered user turn")
    with_tools = [r["latency_s"] for r in rows if r["tool_turn"]]
    without = [r["latency_s"] for r in rows if not r["tool_turn"]]
    return value(
        NAME,
        _mean([r["latency_s"] for r in rows]),
        None,
        turns=rows,
        submetrics={"with_tools": _mean(with_tools), "without_tools": _mean(without)},
    )


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="EVA-Bench App. E.6, F.5 / Table 25",
        inputs=("turns.start_ms", "turns.end_ms", "turns.tool_calls.t_ms"),
        fn=response_latency,
    ),
)

register_all(METRICS, __name__)
