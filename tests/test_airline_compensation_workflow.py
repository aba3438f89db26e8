"""Airline's compensation claims on the workflow engine (issue 28.4, ``airline/workflows/compensation.py``):
in text mode with the scripted caller every claim scenario completes, with the
reference calls: a delay under two hours refused a meal voucher (held when the caller pushes back), a hotel voucher
refused without an overnight wait, a cancelled flight's vouchers left to its rebooking; and a delay of two hours or
more earns the meal voucher of its band."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from evalkit.agents.reference.workflow_hearing import match_workflows
from evalkit.domains.airline.policy import meal_voucher_for_delay
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.airline.workflows.compensation import claim, flight_state
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.text_dialogue import run_text_dialogue, transcript
from tests.test_airline_workflow import engine_completes


def test_the_compensation_workflow_is_well_formed() -> None:
    WORKFLOWS["compensation_claim"].check(REGISTRY)


# AL-005/048/049 delays under two hours (049 pushes back twice), AL-047 a hotel for a 100-minute delay, AL-050 a
# cancelled flight
@pytest.mark.parametrize("sid", ["AL-005", "AL-047", "AL-048", "AL-049", "AL-050"])
def test_the_engine_completes_compensation_claims_with_the_reference_calls(sid: str) -> None:
    lines = engine_completes(sid)
    said = " ".join(t for r, t in lines if r == "assistant")
    assert "not able to issue one" in said, lines
    assert "I understand, but I'm not able to make an exception." in said or sid in ("AL-050",), lines


def test_a_delay_earns_the_meal_voucher_of_its_band_and_a_hotel_needs_an_overnight_wait() -> None:
    def status(state: str, *delays: int | None) -> dict:
        return {"journey": {"status": state, "segments": [{"delay_minutes": d} for d in delays]}}

    long = flight_state(status("delayed", 30, 250))
    assert (long["delay"], long["said"], long["disrupted"]) == (250, "delayed by 250 minutes", True)
    assert claim(long, "My flight is delayed and I want a meal voucher.")["meal"] == "delay_over_4_hours"
    assert claim(flight_state(status("delayed", 130)), "")["meal"] == "delay_over_2_hours"
    short = claim(flight_state(status("delayed", 100)), "I want a hotel voucher.")
    assert (short["meal"], short["hotel_asked"]) == (None, True) and short["why"].startswith("Hotel vouchers")
    on_time = flight_state(status("scheduled", None))
    assert (on_time["said"], on_time["disrupted"], claim(on_time, "")["meal"]) == ("on time", False, None)
    assert flight_state(status("cancelled", None))["cancelled"]


# -- a disruption told without a task named: the flight's state, another flight offered, else the voucher it earns --
def told_of_a_delay(confirm: str, irrops: bool = True) -> tuple[list[tuple[str, dict]], list[tuple[str, str]], float]:
    """AL-020 (a 300-minute airline-fault delay; ``irrops`` False: one that waives no fees) opened with the delay
    alone, the caller taking another flight or not (``confirm``); the engine's calls, transcript, task completion."""
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-020")
    if not irrops:
        db = copy.deepcopy(scenario.scenario_db)
        for record in db["disruptions"].values():
            record["is_irrops"] = False
        scenario = scenario.model_copy(update={"scenario_db": db})
    goal = scenario.user_goal
    answers = {**goal.scripted.answers, "confirm": confirm}
    told = goal.model_copy(
        update={
            "starting_utterance": "Hi, I'm calling about my delayed flight. What's going on with it?",
            "scripted": goal.scripted.model_copy(update={"answers": answers}),
        }
    )
    run = run_text_dialogue(
        scenario.model_copy(update={"user_goal": told}),
        lambda t: t,
        None,
        np.random.default_rng(0),
        registry=REGISTRY,
        workflows=WORKFLOWS,
    )
    made = [(c.name, c.arguments) for t in run.turns for c in t.tool_calls]
    return made, transcript(run), task_completion(run).score


def test_a_delay_told_alone_is_offered_another_flight_and_a_no_keeps_the_flight_with_its_meal_voucher() -> None:
    WORKFLOWS["flight_disruption"].check(REGISTRY)
    made, lines, _ = told_of_a_delay("no")
    assert [name for name, _ in made] == [
        "get_reservation",
        "get_flight_status",
        "get_disruption_info",
        "issue_meal_voucher",
    ], lines
    assert made[-1][1]["voucher_reason"] == meal_voucher_for_delay(300), lines
    said = [t for r, t in lines if r == "assistant"]
    offer = next(i for i, t in enumerate(said) if "Would you like me to look for another flight?" in t)
    assert "delayed by 300 minutes" in said[offer], lines
    # the voucher comes after the caller's no, with the flight kept: nothing moved without a yes
    assert "stay on your booked flight" in said[offer + 1] and "meal voucher of" in said[offer + 1], lines


def test_a_delay_told_alone_and_a_yes_to_another_flight_is_the_irrops_rebooking() -> None:
    made, lines, score = told_of_a_delay("yes")
    assert score == 1.0, lines  # the rebooking the scenario expects (AL-020's reference writes)
    names = [name for name, _ in made]
    assert "rebook_flight" in names and names.count("issue_meal_voucher") == 1, lines


def test_a_delay_that_waives_no_fees_is_not_offered_another_flight_but_earns_its_meal_voucher() -> None:
    made, lines, _ = told_of_a_delay("yes", irrops=False)
    assert [name for name, _ in made][-1] == "issue_meal_voucher" and "rebook_flight" not in dict(made), lines
    said = " ".join(t for r, t in lines if r == "assistant")
    assert "another flight" not in said and "meal voucher of" in said, lines


@pytest.mark.parametrize(
    ("request_", "workflow"),
    [
        ("I'm calling about my delayed flight, can you tell me what's happening?", ["flight_disruption"]),
        ("Our plane had to turn around and land again, what now?", ["flight_disruption"]),
        ("My flight is delayed and I want a meal voucher.", ["compensation_claim"]),
        ("My flight is delayed. Can you rebook me?", ["irrops_rebooking"]),
        ("My flight got cancelled and I want a refund.", ["cancellation_refund"]),
    ],
)
def test_a_disruption_told_alone_yields_to_any_task_the_words_name(request_: str, workflow: list[str]) -> None:
    assert match_workflows(request_, WORKFLOWS) == workflow


def test_a_schedule_change_the_record_states_counts_as_a_delay_for_the_voucher() -> None:
    from evalkit.domains.airline.workflows.compensation import with_record

    on_time = flight_state({"journey": {"status": "scheduled", "segments": [{"delay_minutes": None}]}})
    moved = with_record(on_time, {"disruption": {"delay_minutes": 150, "is_irrops": True}})
    assert (moved["delay"], moved["disrupted"], claim(moved, "")["meal"]) == (150, True, "delay_over_2_hours")


def question(sid: str, opening: str, delay: int | None, status: str = "delayed") -> list[tuple[str, str]]:
    """A claim scenario's caller asking about its flight instead (the flight's status and delay as given)."""
    scenario = next(s for s in load_scenarios("airline") if s.id == sid)
    db = copy.deepcopy(scenario.scenario_db)
    for journey in db["journeys"].values():
        journey["status"] = status
        journey["segments"][0].update(status=status, delay_minutes=delay)
    goal = scenario.user_goal.model_copy(update={"starting_utterance": opening})
    asked = scenario.model_copy(update={"scenario_db": db, "user_goal": goal})
    conversation = run_text_dialogue(
        asked, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    return transcript(conversation)


def test_a_question_about_a_delayed_flight_gets_its_status_and_the_voucher_the_delay_earns() -> None:
    lines = question("AL-049", "Can you tell me what’s going on with my flight?", 250)  # a curly apostrophe, typed
    said = " ".join(t for r, t in lines if r == "assistant")
    assert "is delayed by 250 minutes" in said and "I've issued a meal voucher of" in said, lines
    on_time = " ".join(t for r, t in question("AL-049", "What's going on with my flight?", None, "scheduled"))
    assert "transfer you to a live agent" in on_time and "meal voucher" not in on_time
