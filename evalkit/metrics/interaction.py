"""Interaction metrics from the call timeline, no judge (issue 31 point 2; anchored in τ-voice's interaction panel,
sierra-research/tau2-bench ``docs/interaction-metrics.md``, re-derived here on evalkit's millisecond timeline).

Every metric counts *events* on the timeline (turns' ``start_ms``/``end_ms`` and the effect timeline) and scores the
share (or the latency) over them; each reports its count in ``details.events`` and is unscored, with the count in
the reason, below :data:`MIN_EVENTS`. The cell adds, per metric, the events of all its calls (``<name>_events``) and,
for the rates, the rate pooled over those events (``<name>_pooled``, :func:`interaction_totals`). Formulas and the
mapping to τ-voice's names: docs/metrics.md "Interaction (τ-voice)".

- ``response_rate``: caller turns the agent answered before the caller spoke again / caller turns that ended with
  the agent silent (a turn the agent was still talking over at its end is no response opportunity; the caller's
  goodbye that ends the call is none either).
- ``response_latency_p50``: median over answered caller turns of ℓ (agent onset − caller end; the samples of
  ``response_latency`` and of the cell's ``latency_response_ms_p50``), in seconds.
- ``yield_rate``: real interruptions (``interruption`` effects) after which the agent fell silent within
  :data:`YIELD_WINDOW_MS` of the caller's onset / real interruptions.
- ``yield_latency``: mean over those yields of (agent silent − caller onset), in seconds.
- ``agent_interruption_rate``: agent turns that start while the caller is speaking / caller turns (can exceed 1).
- ``selectivity_backchannel`` / ``_vocal_tic`` / ``_side_speech``: events of that behaviour the agent correctly
  did *not* yield to / events. The behaviour's own ``yielded`` flag decides when it recorded one; otherwise the
  timeline: during agent speech, the agent stopping within :data:`SELECTIVITY_YIELD_WINDOW_MS` is a yield; inside
  the caller's own turn, the agent starting before that turn ends is one (it took the turn early); in a gap after
  the agent spoke, the agent starting within :data:`SELECTIVITY_RESPONSE_WINDOW_MS` of the event's end and before
  the caller's next turn is one (it answered speech not meant for it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.interruption import interruptions
from evalkit.metrics.latency import answered_turns
from evalkit.metrics.registry import register_all
from evalkit.records import AppliedEffect, Conversation, ConversationRecord, MetricValue, Turn

# τ-voice's detection windows (docs/interaction-metrics.md "Detection windows"), in ms on evalkit's timeline.
YIELD_WINDOW_MS = 2000.0  # no_yield_window: a real interruption the agent talks through longer than this is no yield
SELECTIVITY_YIELD_WINDOW_MS = 1000.0  # stopping within this after a backchannel / tic / side speech is a yield
SELECTIVITY_RESPONSE_WINDOW_MS = 2000.0  # starting within this after a tic / side speech in silence is a response
# Fewer events than this in a call leave its metric unscored: a rate from one or two events says little. τ-voice
# hides leaderboard rates under 10 events; a call has far fewer, so the cell's pooled rate carries the weight.
MIN_EVENTS = 3
BEHAVIOURS = {"backchannel": "selectivity_backchannel", "vocal_tic": "selectivity_vocal_tic",
              "side_speech": "selectivity_side_speech"}  # fmt: skip
TAU_NAMES = {"backchannel": "S_BC", "vocal_tic": "S_VT", "side_speech": "S_ND"}  # τ-voice's symbols
SOURCE = "τ-voice interaction metrics (sierra-research/tau2-bench docs/interaction-metrics.md)"


def _spoken(conversation: Conversation, role: str) -> list[Turn]:
    """The role's turns that carry speech (an empty agent turn is silence, not a turn on the line), by start."""
    return sorted((t for t in conversation.turns if t.role == role and t.end_ms > t.start_ms), key=lambda t: t.start_ms)


def _talking_at(segments: Sequence[Turn], t_ms: float) -> Turn | None:
    """The segment under way at ``t_ms`` (started before it, not yet ended), None when all are silent then."""
    return next((s for s in segments if s.start_ms < t_ms < s.end_ms), None)


def _first_start(segments: Sequence[Turn], after_ms: float, before_ms: float) -> Turn | None:
    """The first segment starting in [after_ms, before_ms)."""
    return next((s for s in segments if after_ms <= s.start_ms < before_ms), None)


def _counted(
    name: str, events: int, noun: str, score: float | None, threshold: float | None = None, **details: Any
) -> MetricValue:
    """The metric's value with its event count, unscored (the count in the reason) below :data:`MIN_EVENTS`."""
    if events < MIN_EVENTS:
        why = f"{events} {noun} in the call, fewer than the minimum {MIN_EVENTS}"
        return unscored(name, why, events=events, min_events=MIN_EVENTS, **details)
    return value(name, score, threshold, events=events, min_events=MIN_EVENTS, **details)


# -- responses ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResponseEvent:
    turn: int  # the caller's turn
    responded: bool
    latency_ms: float | None


def response_events(conversation: Conversation) -> tuple[list[ResponseEvent], int]:
    """(response opportunities, caller turns left out because the agent was still talking when they ended). Each
    caller turn on its own: a caller that speaks again unanswered is a missed response (a grouping into exchanges,
    as turn_taking does, would merge the two turns and hide it)."""
    agent, user = _spoken(conversation, "assistant"), _spoken(conversation, "user")
    events, talked_over = [], 0
    for position, turn in enumerate(user):
        last = position == len(user) - 1
        next_user = np.inf if last else user[position + 1].start_ms
        reply = _first_start(agent, turn.end_ms, next_user)
        if last and reply is None and conversation.end_reason == "user_end_call":
            continue  # the caller's goodbye ends the call: nothing to answer
        if _talking_at(agent, turn.end_ms) is not None:
            talked_over += 1  # the agent talked through the turn's end: counted by the interruption metrics instead
            continue
        events.append(
            ResponseEvent(turn.index, reply is not None, None if reply is None else reply.start_ms - turn.end_ms)
        )
    return events, talked_over


def response_rate(conversation: Conversation) -> MetricValue:
    events, talked_over = response_events(conversation)
    answered = sum(e.responded for e in events)
    rate = answered / len(events) if events else None
    rows = [{"turn": e.turn, "responded": e.responded, "latency_ms": e.latency_ms} for e in events]
    return _counted("response_rate", len(events), "caller turns to answer", rate, None, responded=answered,
                    hits=answered, talked_over=talked_over, per_event=rows)  # fmt: skip


def response_latency_p50(conversation: Conversation) -> MetricValue:
    latencies = [ms for _, ms, _ in answered_turns(conversation)]
    p50 = float(np.percentile(latencies, 50)) / 1000.0 if latencies else None
    return _counted("response_latency_p50", len(latencies), "answered caller turns", p50, None, latencies_ms=latencies)


# -- real interruptions ---------------------------------------------------------------------------------------------


def yield_events(conversation: Conversation) -> list[dict[str, Any]]:
    """Per ``interruption`` effect: the caller's onset, when the agent fell silent, and whether that was a yield."""
    rows = []
    for cut, params, _, effect in interruptions(conversation):
        stop_ms = effect.end_ms  # the cut turn's recorded end: measured on the audio for a live (wire) agent
        row = {"turn": cut.index, "onset_ms": effect.start_ms, "yield_ms": stop_ms - effect.start_ms}
        row["yielded"] = row["yield_ms"] <= YIELD_WINDOW_MS
        if "yielded" in params:  # a wire agent's own report: it fell silent before the interjection ended
            row["silent_before_interjection_ended"] = params["yielded"]
        rows.append(row)
    return rows


def yield_rate(conversation: Conversation) -> MetricValue:
    rows = yield_events(conversation)
    yields = sum(r["yielded"] for r in rows)
    rate = yields / len(rows) if rows else None
    return _counted("yield_rate", len(rows), "real interruptions", rate, None, hits=yields, per_event=rows)


def yield_latency(conversation: Conversation) -> MetricValue:
    times = [r["yield_ms"] for r in yield_events(conversation) if r["yielded"]]
    mean = float(np.mean(times)) / 1000.0 if times else None
    return _counted("yield_latency", len(times), "yields to a real interruption", mean, None, yield_ms=times)


def agent_interruptions(conversation: Conversation) -> list[dict[str, Any]]:
    """Agent turns that start while the caller is speaking (one event per such turn)."""
    user = _spoken(conversation, "user")
    rows = []
    for agent in _spoken(conversation, "assistant"):
        caller = _talking_at(user, agent.start_ms)
        if caller is not None:
            rows.append(
                {"agent_turn": agent.index, "caller_turn": caller.index, "over_ms": caller.end_ms - agent.start_ms}
            )
    return rows


def agent_interruption_rate(conversation: Conversation) -> MetricValue:
    rows = agent_interruptions(conversation)
    turns = len(_spoken(conversation, "user"))
    rate = len(rows) / turns if turns else None
    return _counted("agent_interruption_rate", turns, "caller turns", rate, None, hits=len(rows),
                    interruptions=len(rows), per_event=rows)  # fmt: skip


# -- selectivity ----------------------------------------------------------------------------------------------------


def placement(conversation: Conversation, event: AppliedEffect) -> str:
    """Where ``event`` fell: ``agent_speech`` (the agent was talking), ``own_turn`` (inside the caller's turn) or
    ``gap`` (both silent); the behaviour's recorded ``during`` when it gave one."""
    during = event.params.get("during")
    if during in ("agent_speech", "own_turn", "gap"):
        return str(during)
    if _talking_at(_spoken(conversation, "assistant"), event.start_ms) is not None:
        return "agent_speech"
    if any(u.start_ms <= event.start_ms < u.end_ms for u in _spoken(conversation, "user")):
        return "own_turn"
    return "gap"


def derived_yield(conversation: Conversation, event: AppliedEffect, during: str) -> bool | None:
    """Whether the agent yielded to ``event``, read from the timeline; None when the timeline cannot tell (no agent
    turn under way for speech said over it, or a gap in which the agent's answer to the caller was due anyway)."""
    agent, user = _spoken(conversation, "assistant"), _spoken(conversation, "user")
    if during == "agent_speech":  # it was talking: did it stop within the window?
        speaking = next((a for a in agent if a.start_ms <= event.start_ms <= a.end_ms), None)
        return None if speaking is None else speaking.end_ms <= event.start_ms + SELECTIVITY_YIELD_WINDOW_MS
    if during == "own_turn":  # inside the caller's own turn: did the agent take the turn before it ended?
        own = next((u for u in user if u.start_ms <= event.start_ms <= u.end_ms), None)
        return None if own is None else _first_start(agent, event.start_ms, own.end_ms) is not None
    before = [t for t in (*agent, *user) if t.end_ms <= event.start_ms]
    if before and max(before, key=lambda t: t.end_ms).role == "user":
        return None  # the caller had just spoken: an agent starting now is its answer, not a reaction
    next_user = min((u.start_ms for u in user if u.start_ms >= event.end_ms), default=np.inf)
    until = min(event.end_ms + SELECTIVITY_RESPONSE_WINDOW_MS, next_user)
    return _first_start(agent, event.start_ms, until) is not None


def selectivity_events(conversation: Conversation, kind: str) -> tuple[list[dict[str, Any]], int]:
    """(per event of behaviour ``kind``: when, where, yielded, from what; events not decidable)."""
    rows, undecided = [], 0
    for event in conversation.effects:
        if event.type != kind or event.participant != "user":
            continue
        during = placement(conversation, event)
        recorded = event.params.get("yielded")
        if isinstance(recorded, bool):  # the behaviour saw what the agent did: its verdict stands
            yielded, source = recorded, "recorded"
        else:
            yielded, source = derived_yield(conversation, event, during), "timeline"
        if yielded is None:
            undecided += 1
            continue
        rows.append({"turn": event.turn, "start_ms": event.start_ms, "during": during,
                     "yielded": yielded, "from": source})  # fmt: skip
    return rows, undecided


def _selectivity(kind: str) -> Callable[[Conversation], MetricValue]:
    name = BEHAVIOURS[kind]

    def score(conversation: Conversation) -> MetricValue:
        rows, undecided = selectivity_events(conversation, kind)
        ignored = sum(not r["yielded"] for r in rows)
        rate = ignored / len(rows) if rows else None
        return _counted(name, len(rows), f"{kind} events", rate, None, hits=ignored, ignored=ignored,
                        yielded=len(rows) - ignored, undecided=undecided, per_event=rows)  # fmt: skip

    score.__name__ = name
    return score


# -- the cell -------------------------------------------------------------------------------------------------------

RATES = ("response_rate", "yield_rate", "agent_interruption_rate", *BEHAVIOURS.values())
COUNTED = (*RATES, "response_latency_p50", "yield_latency")


def interaction_totals(records: Sequence[ConversationRecord]) -> dict[str, float]:
    """Per interaction metric scored in the cell: ``<name>_events``, its events over all calls (unscored ones too),
    and for the rates ``<name>_pooled``, hits / events over those events, once they reach :data:`MIN_EVENTS`."""
    events: dict[str, float] = defaultdict(float)
    hits: dict[str, float] = defaultdict(float)
    for record in records:
        for name in COUNTED:
            metric = record.metrics.get(name)
            if metric is None or "events" not in metric.details:
                continue
            events[name] += float(metric.details["events"])
            hits[name] += float(metric.details.get("hits", 0))
    out: dict[str, float] = {}
    for name, n in events.items():
        out[f"{name}_events"] = n
        if name in RATES and n >= MIN_EVENTS:
            out[f"{name}_pooled"] = hits[name] / n
    return out


METRICS = (
    Metric(name="response_rate", kind="deterministic", source=SOURCE + " R_R",
           inputs=("turns.role", "turns.start_ms", "turns.end_ms", "end_reason"), fn=response_rate,
           description="share of caller turns (ended with the agent silent) the agent answered before the caller "
           "spoke again"),
    Metric(name="response_latency_p50", kind="deterministic", source=SOURCE + " L_R (median); EVA-Bench App. E.6",
           inputs=("turns.role", "turns.start_ms", "turns.end_ms"), fn=response_latency_p50, lower_is_better=True,
           description="median over answered caller turns of caller end -> agent onset (s)"),
    Metric(name="yield_rate", kind="deterministic", source=SOURCE + " R_Y", inputs=("turns.effects",), fn=yield_rate,
           description="share of real interruptions after which the agent fell silent within 2 s"),
    Metric(name="yield_latency", kind="deterministic", source=SOURCE + " L_Y", inputs=("turns.effects",),
           fn=yield_latency, lower_is_better=True,
           description="mean time from the caller's onset to the agent's silence over the yields (s)"),
    Metric(name="agent_interruption_rate", kind="deterministic", source=SOURCE + " I_A",
           inputs=("turns.role", "turns.start_ms", "turns.end_ms"), fn=agent_interruption_rate, lower_is_better=True,
           description="agent turns started while the caller was speaking, per caller turn"),
    *(Metric(name=name, kind="deterministic", source=f"{SOURCE} {TAU_NAMES[kind]}",
             inputs=("turns.effects", "turns.start_ms", "turns.end_ms"), fn=_selectivity(kind),
             description=f"share of the caller's {kind.replace('_', ' ')} events the agent did not yield to")
      for kind, name in BEHAVIOURS.items()),
)  # fmt: skip

register_all(METRICS, __name__)
