"""Airline's escalation family on the workflow engine (issue 28.4, ``evalkit/domains/airline/workflows/escalation.py``):
in text mode with the scripted caller the engine completes the escalation scenarios with the reference calls: a
documented fee waiver offered to a live agent (transferred on a yes; a no offered a regular change), and an IRROPS
rebooking with no flight the caller takes ending in the full refund the disruption entitles or an offered transfer.
The transfer is offered and made only on a yes, never imposed. The engine's new ``Workflow.priority`` and
``Say(end_call=True)`` are tested here too."""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.workflow_hearing import match_workflows
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains import get_domain
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.airline.workflows.disruptions import what_happened
from evalkit.domains.airline.workflows.escalation import irrops_refund, waiver_reason
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.workflow import Say, Workflow, run_reference
from evalkit.metrics.task_completion import task_completion
from evalkit.text_dialogue import run_text_dialogue, transcript
from tests.test_airline_workflow import FORMER, engine_completes

ESCALATIONS = {s.id: s for s in load_scenarios("airline") if s.workflow == "escalation"}


def test_the_escalation_workflows_are_well_formed_and_are_what_airline_runs() -> None:
    for name in ("fee_waiver", "live_agent", "irrops_rebooking"):
        WORKFLOWS[name].check(REGISTRY)
    assert get_domain("airline").workflows is WORKFLOWS  # the domain's own: what the local agent runs
    assert sorted(ESCALATIONS) == [f"AL-04{i}" for i in range(7)]


# AL-040/041 a bereavement / medical waiver, transferred on the caller's yes; AL-042 military orders, the transfer
# and then a regular change declined (nothing written); AL-043 a cancelled flight, both days full: the IRROPS refund
# taken; AL-044 the refund declined, then the transfer taken; AL-045 a 3-hour delay (its meal voucher), both days'
# flights rejected, no refund right: the transfer taken
@pytest.mark.parametrize("sid", ["AL-040", "AL-041", "AL-042", "AL-043", "AL-044", "AL-045"])
def test_the_engine_completes_escalations_with_the_reference_calls(sid: str) -> None:
    said = [t for r, t in engine_completes(sid) if r == "assistant"]
    offered = [i for i, t in enumerate(said) if "Would you like me to transfer you to a live agent?" in t]
    handed = [i for i, t in enumerate(said) if "I'm transferring you to a live agent now" in t]
    if sid != "AL-043":  # a transfer is offered before any is made, and the call ends with it
        assert offered and (not handed or (handed == [len(said) - 1] and handed[0] > offered[0])), said
    if sid in ("AL-043", "AL-044"):  # the refund quoted before anything is written
        assert any("full refund of 249 dollars" in t and t.endswith("refund instead?") for t in said), said
    if sid == "AL-040":
        assert "I'm so sorry for your loss. A bereavement fee waiver needs documentation" in said[-2]


def test_the_domain_s_own_agent_completes_all_seven() -> None:
    """Airline's registered workflows (what the local agent runs) complete all seven escalations in text mode."""
    for scenario in ESCALATIONS.values():
        conversation = run_text_dialogue(scenario, lambda t: t, None, np.random.default_rng(0))
        assert task_completion(conversation).score == 1.0, scenario.id


def test_a_supervisor_asked_for_after_a_refused_voucher_is_offered_then_transferred() -> None:
    """AL-046: a meal voucher refused (the compensation claim's workflow), then the caller insists on a supervisor: the
    ``live_agent`` workflow offers the transfer and makes it on the yes, without verifying the caller again."""
    scenario = ESCALATIONS["AL-046"]
    assert match_workflows(scenario.user_goal.starting_utterance, WORKFLOWS) == ["compensation_claim"]
    conversation = run_text_dialogue(
        scenario, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    made = [(c.name, {**c.arguments, "issue_summary": ""}) for t in conversation.turns for c in t.tool_calls]
    assert made == [(c.name, {**c.arguments, "issue_summary": ""}) for c in scenario.reference_calls], lines


def agent(sid: str) -> WorkflowPolicy:
    scenario = ESCALATIONS[sid]
    executor = ToolExecutor(REGISTRY, scenario.scenario_db)
    now = scenario.current_date_time[:16]
    return WorkflowPolicy(ToolBox(executor), date.fromisoformat(now[:10]), WORKFLOWS, now=now)


def replies(policy: WorkflowPolicy, lines: list[str]) -> list[Any]:
    policy.greet()
    return [policy.step(line) for line in lines]


def made(policy: WorkflowPolicy) -> list[str]:
    return [name for name, _, _ in policy.tools.drain()]


def test_after_a_refusal_a_request_for_a_supervisor_gets_the_transfer_offered_not_imposed() -> None:
    """The caller's flight (AL-046's, a weather delay) is no IRROPS disruption: a free rebooking is refused; asking
    for a supervisor then gets the transfer offered, and only the yes makes it (passenger_requested), ending the
    call; the caller is not asked for the reservation again."""
    policy = agent("AL-046")
    said = replies(
        policy,
        ["My flight is delayed. Can you rebook me?", "3 W W S N F", "yes", "Fitzgerald", "I want a supervisor."],
    )
    assert "isn't a disruption that waives change fees" in said[3].text
    assert said[-1].text.endswith("Would you like me to transfer you to a live agent?") and not said[-1].end_call
    assert made(policy) == ["get_reservation", "get_disruption_info"]  # nothing before the yes
    done = policy.step("Yes, please.")
    assert done.end_call and done.text.endswith("I'm transferring you to a live agent now. Please hold.")
    assert made(policy) == ["transfer_to_agent"]


def test_a_declined_transfer_is_not_made_and_the_call_goes_on() -> None:
    """AL-045's caller, who this time says no to the transfer: nothing is handed over, the booking stays."""
    policy = agent("AL-045")
    said = replies(
        policy,
        [
            "My flight is delayed three hours. Can you rebook me?",
            "L S J E 7 H",
            "yes",
            "Kowalczyk",
            "That's too late.",
            "That's too late.",
            "No, thank you.",
        ],
    )
    assert "Would you like me to transfer you to a live agent?" in said[-2].text
    assert "I won't transfer you" in said[-1].text and "anything else" in said[-1].text and not said[-1].end_call
    assert "transfer_to_agent" not in made(policy)


def test_a_declined_waiver_transfer_can_still_become_a_regular_change() -> None:
    """AL-042's caller says no to the transfer, then yes to a regular change: the voluntary change's steps follow."""
    policy = agent("AL-042")
    said = replies(
        policy,
        [
            "I've received military orders and need the change fee waived.",
            "A D L Z 5 X",
            "yes",
            "Wojcik",
            "No.",
            "Yes.",
        ],
    )
    assert "A military orders fee waiver needs documentation" in said[3].text
    assert "regular change, with the usual fees" in said[4].text
    assert said[5].text.endswith("What date would you like to travel instead?")
    assert made(policy) == ["get_reservation"]


def test_the_reference_run_stops_at_the_hand_over() -> None:
    scenario = ESCALATIONS["AL-040"]
    answers = {"confirmation_number": "M8BMMR", "last_name": "Abernathy", "requested": "My father passed away."}
    run = run_reference(
        WORKFLOWS["fee_waiver"], {**answers, "accept_transfer": True}, ToolExecutor(REGISTRY, scenario.scenario_db)
    )
    assert run.outcome == "completed" and [c[0] for c in run.calls] == ["get_reservation", "transfer_to_agent"]
    assert run.calls[1][1]["transfer_reason"] == "policy_exception_needed"
    declined = run_reference(
        WORKFLOWS["fee_waiver"],
        {**answers, "accept_transfer": False},
        ToolExecutor(REGISTRY, scenario.scenario_db),
        confirm=False,
    )
    assert declined.outcome == "declined" and [c[0] for c in declined.calls] == ["get_reservation"]
    assert Say("x", end_call=True).end_call and not Say("x").end_call


def test_a_waiver_request_goes_to_the_waiver_before_the_change_its_words_also_name() -> None:
    heard = "My father passed away and I need to change my flight for the funeral."
    assert match_workflows(heard, WORKFLOWS) == ["fee_waiver"]
    assert "voluntary_change" in match_workflows(heard, {k: v for k, v in WORKFLOWS.items() if k != "fee_waiver"})
    # the rule on its own: of two workflows a request matches, the higher priority wins over a longer phrase
    low = Workflow("long", "", ("change my flight",), ())
    high = Workflow("short", "", ("funeral",), (), priority=1)
    assert match_workflows(heard, {"long": low, "short": high}) == ["short"]
    assert match_workflows(heard, {"long": low, "short": Workflow("short", "", ("funeral",), ())}) == ["long"]


def test_the_waiver_reason_is_the_documented_waiver_the_caller_names() -> None:
    assert waiver_reason("My father passed away and I need to change my flight") == "bereavement"
    assert waiver_reason("I had a medical emergency") == "medical emergency"
    assert waiver_reason("I've received military orders") == "military orders"
    assert waiver_reason("Can you waive the fee?") == "fee waiver"


def test_the_irrops_refund_is_owed_only_where_the_record_entitles_one_and_is_the_fare_plus_fees() -> None:
    found = {
        "reservation": {
            "fare_type": "non_refundable",
            "ancillaries": {"seat_selection_fee": 25.0, "bags_fee": 35.0},
            "bookings": [{"journey_id": "J", "status": "confirmed", "fare_paid": 249, "segments": []}],
        }
    }

    def record(refund: bool) -> dict[str, Any]:
        return {"disruption": {"disruption_type": "cancellation", "passenger_entitled_to": {"refund_option": refund}}}

    assert irrops_refund(found, what_happened(record(True)), "") == {"owed": True, "amount": 249, "fees": 60.0}
    assert irrops_refund(found, what_happened(record(False)), "")["owed"] is False
    assert irrops_refund(found, what_happened({"status": "error", "error_type": "not_found"}), "")["owed"] is False
    assert irrops_refund(found, {"kind": "missed_connection", "meals": False}, "")["owed"] is False  # no record


@pytest.mark.parametrize("sid", ["AL-040", "AL-041", "AL-042"])
def test_the_waiver_offer_is_worded_as_the_former_policy_worded_it(sid: str) -> None:
    """From the route on, the same sentence: the booking found, the waiver that needs documentation, the offer (the
    engine spells the flight number, "S K 2 9 6" for "SK296")."""
    run = run_text_dialogue(ESCALATIONS[sid], lambda t: t, None, np.random.default_rng(0))
    offer = next(t for r, t in transcript(run) if r == "assistant" and "fee waiver needs" in t)
    assert offer.partition(" from ")[2] == FORMER["waiver_offers"][sid], offer
