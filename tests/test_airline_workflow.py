"""Airline's cancellation-and-refund task on the workflow engine (issue 28.4, a first step of airline's move): the
declaration is well formed, and in text mode with the scripted caller it completes every cancellation scenario the
hand-written policy completes, with the reference calls (24-hour rule, disruption refund, credit, a declined
cancellation). Airline itself still runs the hand-written policy."""

from __future__ import annotations

import numpy as np
import pytest

from evalkit.domains.airline.engine_workflows import WORKFLOWS, within_24_hours
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.text_dialogue import run_text_dialogue, transcript

CANCELLATIONS = [s for s in load_scenarios("airline") if s.workflow == "cancellation_refund"]


def test_the_cancellation_workflow_is_well_formed_and_airline_keeps_its_policy() -> None:
    from evalkit.domains import get_domain

    WORKFLOWS["cancellation_refund"].check(REGISTRY)
    assert get_domain("airline").workflows is None  # not switched over: the hand-written policy still runs
    assert len(CANCELLATIONS) == 9


@pytest.mark.parametrize("sid", ["AL-034", "AL-035", "AL-036", "AL-032", "AL-033"])
def test_the_engine_completes_airline_cancellations_with_the_reference_calls(sid: str) -> None:
    scenario = next(s for s in CANCELLATIONS if s.id == sid)
    conversation = run_text_dialogue(
        scenario, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]
    assert made == [(c.name, c.arguments) for c in scenario.reference_calls], lines


def test_the_24_hour_rule_counts_hours_and_the_week_before_the_flight() -> None:
    found = {"reservation": {"booking_date": "2026-06-17T15:30", "bookings": [{"segments": [{"date": "2026-06-28"}]}]}}
    assert within_24_hours(found, "2026-06-18 10:50")
    assert not within_24_hours(found, "2026-06-18 15:31")  # 24 hours and a minute
    found["reservation"]["bookings"][0]["segments"][0]["date"] = "2026-06-23"  # six days after booking
    assert not within_24_hours(found, "2026-06-18 10:50")
