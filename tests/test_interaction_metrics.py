"""Interaction metrics from the call timeline (issue 31 point 2): each formula on a small hand-built timeline with a
known answer, unscored below the minimum count with the reason, selectivity's yielded / not-yielded counts, the
agent talking over the caller, the cell's event totals, and a real in-process call."""

from __future__ import annotations

from typing import Any

import pytest

from evalkit.metrics.aggregate import aggregate_cell
from evalkit.metrics.interaction import MIN_EVENTS, YIELD_WINDOW_MS, interaction_totals
from evalkit.metrics.registry import METRICS, score_conversation
from evalkit.records import AppliedEffect, Conversation, ConversationRecord, Turn

INTERACTION = [
    "response_rate",
    "response_latency_p50",
    "yield_rate",
    "yield_latency",
    "agent_interruption_rate",
    "selectivity_backchannel",
    "selectivity_vocal_tic",
    "selectivity_side_speech",
]


def turn(index: int, role: str, start: float, end: float, *effects: AppliedEffect) -> Turn:
    return Turn(index=index, role=role, intended_text="x", start_ms=start, end_ms=end, effects=list(effects))


def agent(index: int, start: float, end: float, *effects: AppliedEffect) -> Turn:
    return turn(index, "assistant", start, end, *effects)


def user(index: int, start: float, end: float, *effects: AppliedEffect) -> Turn:
    return turn(index, "user", start, end, *effects)


def effect(kind: str, turn_index: int, start: float, end: float, **params: Any) -> AppliedEffect:
    return AppliedEffect(type=kind, turn=turn_index, start_ms=start, end_ms=end, params=params)


def call(*turns: Turn, end: str = "user_end_call", scenario: str = "S1") -> Conversation:
    return Conversation(scenario_id=scenario, domain="airline", trial=0, seed=1, turns=list(turns), end_reason=end,
                        initial_db={}, final_db={}, expected_db={})  # fmt: skip


def score(name: str, conversation: Conversation):
    return METRICS[name].score(conversation)


# A call with three answered caller turns (600, 1000, 500 ms after them), one the caller had to follow up unanswered,
# and the caller's goodbye (not a response opportunity).
RESPONSES = call(
    agent(0, 0, 2000),
    user(1, 2500, 4000),
    agent(2, 4600, 7000),
    user(3, 7500, 9000),
    agent(4, 10000, 12000),
    user(5, 12500, 14000),
    user(6, 16000, 17000),  # spoke again: turn 5 got no answer
    agent(7, 17500, 19000),
    user(8, 19500, 20000),  # goodbye
)


def test_response_rate_and_p50_on_a_known_timeline():
    rate = score("response_rate", RESPONSES)
    assert rate.score == pytest.approx(3 / 4)
    assert (rate.details["events"], rate.details["responded"], rate.details["talked_over"]) == (4, 3, 0)
    assert [e["responded"] for e in rate.details["per_event"]] == [True, True, False, True]
    assert [e["latency_ms"] for e in rate.details["per_event"]] == [600, 1000, None, 500]
    # p50 shares response_latency's samples (E.6's ℓ per answered exchange): 600, 1000, 500 ms -> 0.6 s
    p50 = score("response_latency_p50", RESPONSES)
    assert p50.score == pytest.approx(0.6) and p50.details["events"] == 3
    assert score("response_latency", RESPONSES).details["turns"][1]["latency_s"] == pytest.approx(1.0)
    none = score("agent_interruption_rate", RESPONSES)
    assert none.score == 0.0 and none.details["events"] == 5 and none.details["interruptions"] == 0


# The agent starts talking over the caller's first turn (at 3,000 ms, the caller speaking until 4,000).
OVER = call(
    user(0, 1000, 4000),
    agent(1, 3000, 5000),
    user(2, 6000, 8000),
    agent(3, 8500, 9000),
    user(4, 9500, 10000),
    agent(5, 10500, 11000),
    end="agent_end_call",
)


def test_agent_over_the_caller_is_counted_per_caller_turn_and_the_turn_is_no_response_opportunity():
    rate = score("agent_interruption_rate", OVER)
    assert rate.score == pytest.approx(1 / 3) and rate.details["events"] == 3
    assert rate.details["per_event"] == [{"agent_turn": 1, "caller_turn": 0, "over_ms": 1000.0}]
    # the caller's first turn ended under the agent's speech: left out of the response opportunities, so 2 remain
    responses = score("response_rate", OVER)
    assert responses.score is None and responses.details["events"] == 2 and responses.details["talked_over"] == 1
    assert responses.details["reason"] == f"2 caller turns to answer in the call, fewer than the minimum {MIN_EVENTS}"


def cut(agent_index: int, start: float, onset: float, stop: float, **params: Any) -> list[Turn]:
    """An agent turn cut by a real interruption at ``onset`` that fell silent at ``stop``, and the interjection."""
    interruption = effect("interruption", agent_index, onset, stop, yield_ms=stop - onset, **params)
    return [agent(agent_index, start, stop, interruption), user(agent_index + 1, onset, onset + 800)]


YIELDS = call(
    *cut(0, 0, 2000, 2400),  # yields after 400 ms
    *cut(2, 3500, 4000, 7000),  # talks on for 3,000 ms: beyond the window, no yield
    *cut(4, 8000, 9000, 10500),  # 1,500 ms
    *cut(6, 11000, 12000, 12100, yielded=False),  # 100 ms (a wire agent's own flag is kept, the window decides)
    agent(8, 13500, 14000),
    end="agent_end_call",
)


def test_yield_rate_and_latency_over_real_interruptions():
    rate = score("yield_rate", YIELDS)
    assert rate.score == pytest.approx(3 / 4) and rate.details["events"] == 4
    assert [e["yielded"] for e in rate.details["per_event"]] == [True, False, True, True]
    assert rate.details["per_event"][3]["silent_before_interjection_ended"] is False
    latency = score("yield_latency", YIELDS)
    assert latency.score == pytest.approx((400 + 1500 + 100) / 3 / 1000) and latency.details["events"] == 3
    assert YIELD_WINDOW_MS == 2000.0  # τ-voice's no-yield window, as documented


def test_below_the_minimum_count_every_metric_is_unscored_with_the_count_in_the_reason():
    short = call(*cut(0, 0, 2000, 2400), *cut(2, 3500, 4000, 7000), agent(4, 5500, 6000), end="agent_end_call")
    for name, noun in (("yield_rate", "2 real interruptions"), ("yield_latency", "1 yields to a real interruption")):
        value = score(name, short)
        assert value.score is None and value.details["reason"].startswith(f"{noun} in the call, fewer than")
    clean = call(agent(0, 0, 1000), user(1, 1500, 2000), agent(2, 2500, 3000))
    for name in ("selectivity_backchannel", "selectivity_vocal_tic", "selectivity_side_speech"):
        value = score(name, clean)
        assert value.score is None and value.details["events"] == 0 and "0 " in value.details["reason"], name


def behaviours_call() -> Conversation:
    """Backchannels, vocal tics and side speech in every placement, with and without a recorded ``yielded``."""
    bc, tic, side = "backchannel", "vocal_tic", "side_speech"
    return call(
        agent(
            0, 0, 10000,
            effect(bc, 0, 1000, 1300, phrase="mm-hm", during="agent_speech"),  # talked through: correct
            effect(bc, 0, 9500, 9800, phrase="okay", during="agent_speech"),  # stopped within 1 s: a yield
            effect(bc, 0, 3000, 3300, phrase="right", during="agent_speech", yielded=True),
            effect(bc, 0, 5000, 5300, phrase="yeah", during="agent_speech", yielded=False),
            effect(tic, 0, 6000, 6300, phrase="um", during="agent_speech", yielded=False),
            effect(side, 0, 7000, 7500, phrase="one sec, honey", during="agent_speech", yielded=False),
        ),
        user(
            1, 11000, 14000,
            effect(side, 1, 10200, 10800, phrase="shh"),  # in the gap after the agent: no "during", derived
            effect(tic, 1, 12000, 12300, phrase="uh", during="own_turn"),  # the agent waits: correct
        ),
        agent(2, 14500, 15000),
        user(3, 15500, 18000, effect(tic, 3, 15800, 16000, phrase="um, sorry", during="own_turn")),
        agent(4, 16500, 20000),  # takes the turn before the caller's ends: a yield to the tic (and talks over)
        agent(5, 22000, 23000, effect(side, 5, 20200, 20800, phrase="not now", during="gap")),  # answers it
        user(6, 23500, 24000, effect(side, 6, 24200, 24600, phrase="hold on", during="gap")),  # after the caller
        agent(7, 25000, 26000),
        end="agent_end_call",
    )  # fmt: skip


def test_selectivity_counts_what_the_agent_yielded_to_and_what_it_talked_through():
    conversation = behaviours_call()
    expected = {  # (score, events, yielded, ignored, undecided)
        "selectivity_backchannel": (2 / 4, 4, 2, 2, 0),
        "selectivity_vocal_tic": (2 / 3, 3, 1, 2, 0),
        "selectivity_side_speech": (2 / 3, 3, 1, 2, 1),  # the gap after the caller spoke: its answer was due
    }
    for name, (share, events, yielded, ignored, undecided) in expected.items():
        value = score(name, conversation)
        assert value.score == pytest.approx(share), (name, value.details)
        got = (value.details["events"], value.details["yielded"], value.details["ignored"], value.details["undecided"])
        assert got == (events, yielded, ignored, undecided), name
    backchannels = score("selectivity_backchannel", conversation).details["per_event"]
    assert [(e["yielded"], e["from"]) for e in backchannels] == [
        (False, "timeline"), (True, "timeline"), (True, "recorded"), (False, "recorded")]  # fmt: skip
    side = score("selectivity_side_speech", conversation).details["per_event"]
    assert [e["during"] for e in side] == ["agent_speech", "gap", "gap"]  # the first derived from the timeline
    assert score("agent_interruption_rate", conversation).details["per_event"][0]["agent_turn"] == 4


def test_the_cell_logs_events_of_every_call_and_the_pooled_rate():
    records = [
        ConversationRecord(conversation=c, metrics=score_conversation(c, INTERACTION))
        for c in (RESPONSES, OVER.model_copy(update={"scenario_id": "S2"}))
    ]
    totals = interaction_totals(records)
    # response_rate: 4 events (3 answered) scored + 2 (both answered) in the unscored call
    assert totals["response_rate_events"] == 6 and totals["response_rate_pooled"] == pytest.approx(5 / 6)
    assert totals["agent_interruption_rate_events"] == 8 and totals["agent_interruption_rate_pooled"] == 1 / 8
    assert totals["selectivity_backchannel_events"] == 0 and "selectivity_backchannel_pooled" not in totals
    assert "response_latency_p50_pooled" not in totals and totals["response_latency_p50_events"] == 6  # ℓ < 0 included
    cell = aggregate_cell(records)
    assert cell["response_rate_events"] == 6 and cell["response_rate_mean"] == pytest.approx(0.75)
    assert cell["response_rate_unscored"] == 1


def test_a_real_in_process_text_call_has_response_metrics_with_counts():
    from evalkit.agents.reference.local_text import LocalTextAgent
    from evalkit.call import run_text_call
    from evalkit.domains import tool_registry
    from evalkit.domains.scenarios import scenario_dir
    from evalkit.scenarios import load_scenario

    scenario = load_scenario(scenario_dir("airline") / "AL-001.json")
    conversation, _ = run_text_call(scenario, 0, 0, LocalTextAgent(), tool_registry("airline"))
    scores = score_conversation(conversation, INTERACTION)
    callers = [t for t in conversation.turns if t.role == "user"]
    rate, p50 = scores["response_rate"], scores["response_latency_p50"]
    assert rate.score == 1.0 and rate.details["events"] >= MIN_EVENTS, rate.details  # the agent answers every turn
    assert rate.details["events"] == len(callers) - 1  # all but the caller's goodbye
    assert p50.score is not None and p50.score >= 0 and p50.details["events"] == rate.details["events"]
    assert scores["agent_interruption_rate"].score == 0.0
    assert scores["yield_rate"].score is None and scores["yield_rate"].details["events"] == 0  # no +interrupt
