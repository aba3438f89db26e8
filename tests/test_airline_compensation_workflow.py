"""Airline's compensation claims on the workflow engine (issue 28.4, ``engine_compensation.py``):
in text mode with the scripted caller every claim scenario completes as with the hand-written policy, with the
reference calls: a delay under two hours refused a meal voucher (held when the caller pushes back), a hotel voucher
refused without an overnight wait, a cancelled flight's vouchers left to its rebooking; and a delay of two hours or
more earns the meal voucher of its band."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from evalkit.domains.airline.engine_compensation import claim, flight_state
from evalkit.domains.airline.engine_workflows import WORKFLOWS
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.scenarios import load_scenarios
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


def test_a_schedule_change_the_record_states_counts_as_a_delay_for_the_voucher() -> None:
    from evalkit.domains.airline.engine_compensation import with_record

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
