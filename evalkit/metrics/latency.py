"""Response latency, EVA-Bench App. E.6 / Table 25 (deterministic diagnostic), in seconds; and the cell's latency
percentiles (issue 30 point 3).

Per answered user turn: onset of the agent's first segment minus the end of the user's last segment (the same ℓ
as turn-taking, E.5.3), split by whether the agent issued a tool call before responding. Score = mean over all
answered turns; the with/without-tool means are submetrics (``response_latency_with_tools_mean`` ...).

:func:`latency_percentiles` gives a cell p50/p95/p99 of the same ℓ (in ms), and of the stages the agent reports
per turn (STT, LLM, TTS, its compute before speaking, tool work): a mean hides the slow tail a caller remembers.
Names and meanings: docs/latency.md "Latency percentiles".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.metrics.turn_taking import _is_tool_turn, exchanges
from evalkit.records import Conversation, ConversationRecord, MetricValue

NAME = "response_latency"


def _mean(xs: list[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def answered_turns(conversation: Conversation) -> list[tuple[int, float, bool]]:
    """(exchange index, latency in ms, tool turn) per answered user turn: the ℓ of E.6."""
    rows = []
    for ex in exchanges(conversation):
        if not ex.user or not ex.agent:
            continue
        onset = min(a.start_ms for a in ex.agent)
        rows.append((ex.index, onset - max(u.end_ms for u in ex.user), _is_tool_turn(ex, onset)))
    return rows


def response_latency(conversation: Conversation) -> MetricValue:
    rows = [
        {"turn": index, "latency_s": ms / 1000.0, "tool_turn": tool} for index, ms, tool in answered_turns(conversation)
    ]
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


PERCENTILES = (50, 95, 99)
PREFIX = "latency_"


def _stage_samples(conversation: Conversation) -> dict[str, list[float]]:
    """Per assistant turn, what the agent reported (None: not reported, left out, never counted as 0)."""
    out: dict[str, list[float]] = {"stt": [], "llm": [], "tts": [], "agent_compute": [], "tools": []}
    for turn in conversation.turns:
        if turn.role != "assistant":
            continue
        for stage in ("stt", "llm", "tts"):
            ms = getattr(turn, f"{stage}_ms")
            if ms is not None:
                out[stage].append(float(ms))
        if turn.compute_ms > 0:  # 0.0 is the default of an agent that does not time itself (a wire agent)
            out["agent_compute"].append(turn.compute_ms)
        if turn.tool_calls and turn.llm_ms is not None:
            # Tool calls carry their issue time only: their execution (and the rest of the turn's work) is the
            # compute the agent did not attribute to a speech or language-model stage.
            staged = sum(x for x in (turn.stt_ms, turn.llm_ms, turn.tts_ms) if x is not None)
            out["tools"].append(max(0.0, turn.compute_ms - staged))
    return out


def latency_percentiles(records: Sequence[ConversationRecord]) -> dict[str, float]:
    """``latency_<what>_ms_p50/p95/p99`` and ``latency_<what>_n`` (samples) over every turn of the cell's
    conversations, for each ``what`` with at least one sample: response (caller's end of speech → agent's first
    audio on the line: time to first audio as heard), response_tool_turns / response_no_tool_turns (the same,
    split by whether the agent called a tool first), and the agent-reported stt, llm, tts, agent_compute (its
    time from the caller's turn to its answer being ready) and tools (compute minus the reported stages, on turns
    that called tools). Percentiles interpolate linearly between samples (numpy's default)."""
    samples: dict[str, list[float]] = defaultdict(list)
    for record in records:
        conversation = record.conversation
        for _, ms, tool in answered_turns(conversation):
            samples["response"].append(ms)
            samples["response_tool_turns" if tool else "response_no_tool_turns"].append(ms)
        for stage, values in _stage_samples(conversation).items():
            samples[stage].extend(values)
    out: dict[str, float] = {}
    for what, values in samples.items():
        if not values:
            continue
        for q, x in zip(PERCENTILES, np.percentile(values, PERCENTILES), strict=True):
            out[f"{PREFIX}{what}_ms_p{q}"] = float(x)
        out[f"{PREFIX}{what}_n"] = float(len(values))
    return out


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="EVA-Bench App. E.6, F.5 / Table 25",
        inputs=("turns.start_ms", "turns.end_ms", "turns.tool_calls.t_ms"),
        fn=response_latency,
        lower_is_better=True,
    ),
)

register_all(METRICS, __name__)
