"""Turn-taking, exactly as EVA-Bench App. E.5.3 defines it (deterministic, from timestamps).

Each turn is classified by its interrupt condition and routed to one score function (Table 16):

- agent interrupted user -> s_agent = min(s_overlap, s_count, s_post), each capped at M = 0.5 (Eq. 1, Table 18)
- user interrupted agent -> s_yield = max(0, 1 - Δt/Δt_max), Δt_max = 2,000 ms (Eq. 2; not capped)
- both                   -> min(s_agent, s_yield)
- uninterrupted          -> s_latency(ℓ), ℓ = end of the user's utterance -> onset of the agent's response

s_latency is the piecewise-linear curve of Table 17: 0 at or below ℓ_hard-early = -500 ms, a linear ramp to 1 at
ℓ_sweet-low = 500 ms, 1 up to ℓ_sweet-high, a linear ramp to 0 at ℓ_hard-late. Tool-call turns (the agent issued a
tool call before responding) use the lenient upper breakpoints 3,000 / 5,000 ms instead of 2,000 / 3,500 ms.
The record score is the mean of the per-turn scores; pass iff >= 0.8.

Turns are rebuilt from the timeline as the paper's log processing does (E.1): segments sorted by start time, a new
turn starts at a user segment once the agent has spoken since the last advance; turn 0 (the greeting) is not a
response and is not scored. Two points the paper leaves open, decided here and recorded in the details:
a user turn the agent never answered scores 0 (the metric "takes into account when an agent fails to respond",
§3.2.2; per-turn treatment unspecified), except the user's closing turn when the user ended the call; s_post uses
the same tool-aware curve as the turn and is capped at M like the other two sub-scores ("all three are capped").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, Turn

NAME = "turn_taking"
THRESHOLD = 0.8  # τ_tt, App. E.5.3 "Pass/fail thresholding"

# Table 17 breakpoints (ms): (hard_early, sweet_low, sweet_high, hard_late)
STANDARD_BREAKPOINTS = (-500.0, 500.0, 2000.0, 3500.0)
TOOL_BREAKPOINTS = (-500.0, 500.0, 3000.0, 5000.0)
M_CAP = 0.5  # Table 18: every agent-interruption sub-score is capped at M
O_MAX_MS = 2000.0  # Table 18: maximum tolerable overlap
N_MAX = 3  # Table 18: maximum tolerable number of overlapping agent segments
MIN_OVERLAP_MS = 1.0  # Table 18: a segment counts when it intersects user speech by more than 1 ms
YIELD_MAX_MS = 2000.0  # Eq. 2: Δt_max


def latency_score(latency_ms: float, tool_turn: bool = False) -> float:
    """Table 17's piecewise-linear curve (np.interp is exactly piecewise-linear and clamps to 0 outside)."""
    he, sl, sh, hl = TOOL_BREAKPOINTS if tool_turn else STANDARD_BREAKPOINTS
    return float(np.interp(latency_ms, [he, sl, sh, hl], [0.0, 1.0, 1.0, 0.0], left=0.0, right=0.0))


def overlap_score(overlap_ms: float) -> float:
    return max(0.0, M_CAP * (1.0 - overlap_ms / O_MAX_MS))


def count_score(n_segments: int) -> float:
    return max(0.0, M_CAP * (1.0 - (max(n_segments, 1) - 1) / (N_MAX - 1)))


def yield_score(yield_ms: float) -> float:
    return max(0.0, 1.0 - yield_ms / YIELD_MAX_MS)


@dataclass
class _Exchange:
    """One turn of the paper's turn index: the user's segments and the agent's segments that follow them."""

    index: int
    user: list[Turn] = field(default_factory=list)
    agent: list[Turn] = field(default_factory=list)


def exchanges(conversation: Conversation) -> list[_Exchange]:
    """Group speech segments into turns the way E.1 advances the turn index (user audio_start after agent speech)."""
    out = [_Exchange(0)]
    agent_since_advance = True  # turn 0 is the greeting: the first user segment always opens turn 1
    for seg in sorted(conversation.turns, key=lambda t: (t.start_ms, t.index)):
        if seg.role == "user":
            if agent_since_advance:
                out.append(_Exchange(len(out)))
                agent_since_advance = False
            out[-1].user.append(seg)
        else:
            out[-1].agent.append(seg)
            agent_since_advance = True
    return [e for e in out if e.user or e.agent]


def _overlap(a: Turn, b: Turn) -> float:
    return max(0.0, min(a.end_ms, b.end_ms) - max(a.start_ms, b.start_ms))


def _is_tool_turn(ex: _Exchange, onset_ms: float) -> bool:
    """E.5.3: 'turns in which the agent issued a tool call before responding'."""
    return any(call.t_ms <= onset_ms for seg in ex.agent for call in seg.tool_calls)


def score_exchange(ex: _Exchange, previous: _Exchange | None) -> dict[str, Any]:
    """The per-turn routing of Table 16. Returns the score and every quantity it used."""
    user_start = min(u.start_ms for u in ex.user)
    user_end = max(u.end_ms for u in ex.user)
    onset = min((a.start_ms for a in ex.agent), default=float("nan"))
    tool = _is_tool_turn(ex, onset) if ex.agent else False
    row: dict[str, Any] = {"turn": ex.index, "tool_turn": tool}

    prev_agent_end = max((a.end_ms for a in previous.agent), default=None) if previous else None
    user_interrupted = prev_agent_end is not None and user_start < prev_agent_end
    overlapping = [a for a in ex.agent if sum(_overlap(a, u) for u in ex.user) > MIN_OVERLAP_MS]
    agent_interrupted = bool(overlapping)

    scores: list[float] = []
    if agent_interrupted:
        o = sum(_overlap(a, u) for a in ex.agent for u in ex.user)
        subs = {"overlap_ms": o, "s_overlap": overlap_score(o), "n_segments": len(overlapping)}
        subs["s_count"] = count_score(len(overlapping))
        last_user_end = max(u.end_ms for u in ex.user)
        still_speaking = any(a.start_ms < last_user_end < a.end_ms for a in ex.agent)
        settled = [a for a in ex.agent if a.start_ms >= last_user_end]
        if settled and not still_speaking:
            gap = min(a.start_ms for a in settled) - last_user_end
            subs |= {"post_gap_ms": gap, "s_post": min(M_CAP, latency_score(gap, tool))}
        s_agent = min(v for k, v in subs.items() if k.startswith("s_"))
        row |= subs | {"s_agent": s_agent}
        scores.append(s_agent)
    if user_interrupted:
        dt = float(prev_agent_end - user_start)  # type: ignore[operator]
        row |= {"yield_ms": dt, "s_yield": yield_score(dt)}
        scores.append(row["s_yield"])

    if agent_interrupted or user_interrupted:
        row["condition"] = (
            "both"
            if agent_interrupted and user_interrupted
            else ("agent_interrupted" if agent_interrupted else "user_interrupted")
        )
        row["score"] = min(scores)
    elif not ex.agent:
        row |= {"condition": "no_response", "score": 0.0}
    else:
        latency = onset - user_end
        row |= {"condition": "uninterrupted", "latency_ms": latency, "score": latency_score(latency, tool)}
    return row


def turn_taking(conversation: Conversation) -> Any:
    groups = exchanges(conversation)
    rows: list[dict[str, Any]] = []
    for position, ex in enumerate(groups):
        if not ex.user:
            continue  # the greeting: nothing to respond to
        is_last = position == len(groups) - 1
        if is_last and not ex.agent and conversation.end_reason == "user_end_call":
            continue  # the user's goodbye ends the call: there is nothing to answer
        rows.append(score_exchange(ex, groups[position - 1] if position > 0 else None))
    if not rows:
        return unscored(NAME, "no user turn to respond to")
    score = float(np.mean([r["score"] for r in rows]))
    conditions = [r["condition"] for r in rows]
    submetrics = {
        "agent_interrupted_rate": conditions.count("agent_interrupted") / len(rows),
        "user_interrupted_rate": conditions.count("user_interrupted") / len(rows),
        "no_response_rate": conditions.count("no_response") / len(rows),
    }
    return value(NAME, score, THRESHOLD, turns=rows, submetrics=submetrics)


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="EVA-Bench App. E.5.3 (Tables 16-18, Eqs. 1-2)",
        inputs=("turns.role", "turns.start_ms", "turns.end_ms", "turns.tool_calls.t_ms", "end_reason"),
        fn=turn_taking,
        threshold=THRESHOLD,
        description="per-turn routing: agent interruption / user interruption / tool-aware latency curve",
    ),
)

register_all(METRICS, __name__)
