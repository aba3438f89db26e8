"""Airline's compensation claims on the workflow engine (issue 28.4): a meal or hotel voucher asked for a delay or a
cancellation, issued only as the policy allows (App. L.4 "Compensation"): a meal voucher from a two-hour delay (its
amount by the delay band), a hotel voucher only for an overnight wait after a rebooking; a cancelled flight's vouchers
come with its rebooking. A claim outside that is refused with the reason (the engine holds the refusal when the caller
pushes back, and a caller who then asks for a person is offered one: ``escalation.live_agent``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evalkit.domains.airline.policy import meal_voucher_for_delay
from evalkit.domains.airline.workflows.disruptions import DAY, FLIGHT, voucher
from evalkit.domains.airline.workflows.escalation import handover
from evalkit.domains.airline.workflows.steps import ASKED, IDENTIFY, TOLD_DISRUPTED
from evalkit.domains.workflow import Ask, Call, Compute, Derived, Refuse, Say, Slot, Switch, Workflow


def flight_state(status: dict[str, Any]) -> dict[str, Any]:
    """The booked flight as the agent reads its status: ``status``, the longest delay of a segment (minutes),
    ``said`` ("delayed by 150 minutes", "on time"), ``disrupted`` (delayed or cancelled: its record is read)."""
    journey = status.get("journey") or {}
    delay = max((s.get("delay_minutes") or 0 for s in journey.get("segments", [])), default=0)
    state = journey.get("status", "scheduled")
    return {
        "status": state,
        "delay": delay,
        "said": f"delayed by {delay} minutes" if delay else "on time",
        "disrupted": state in ("delayed", "cancelled"),
        "cancelled": state == "cancelled",
    }


def with_record(state: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The flight state with the disruption record's delay where it is longer (a schedule change the status does
    not show as a delay), and disrupted when the record is an IRROPS one."""
    disruption = record.get("disruption") or {}
    delay = max(state["delay"], disruption.get("delay_minutes") or 0)
    said = f"delayed by {delay} minutes" if delay else state["said"]
    return {**state, "delay": delay, "said": said, "disrupted": state["disrupted"] or bool(disruption.get("is_irrops"))}


def claim(state: dict[str, Any], requested: str) -> dict[str, Any]:
    """What the claim gets: the meal voucher the delay earns (None under two hours), whether a hotel was asked for
    (only an overnight wait earns one), and the reason a refusal states."""
    hotel = "hotel" in requested.lower()
    meal = meal_voucher_for_delay(state["delay"])
    why = "Hotel vouchers are only for an overnight wait" if hotel else "Meal vouchers start at a delay of two hours"
    return {"meal": meal, "hotel_asked": hotel, "why": why}


COMPENSATION = Workflow(
    name="compensation_claim",
    description="A meal or hotel voucher for a delayed or cancelled flight, as the policy allows.",
    intents=("voucher", "compensation", "compensate"),
    steps=(
        *IDENTIFY,
        Call("get_flight_status", {"flight_number": FLIGHT, "flight_date": DAY}, name="status"),
        Compute("state", Derived(flight_state, "$status")),
        Call(
            "get_disruption_info",
            {"flight_number": FLIGHT, "date": DAY},
            name="disruption",
            when="$state.disrupted",
            errors_ok=("not_found",),
        ),
        Refuse(
            "That flight is cancelled. Vouchers come with a rebooking, so I'm not able to issue one until you're "
            "rebooked. I can rebook you if you like.",
            when="$state.cancelled",
        ),
        Compute("claim", Derived(claim, "$state", ASKED)),
        Refuse("It is {state.said}. {claim.why}, so I'm not able to issue one.", when="!$claim.meal"),
        voucher("issue_meal_voucher", "meal", "$claim.meal", voucher_reason="$claim.meal"),
        Say("It is {state.said}. I've issued a meal voucher of {meal.amount} dollars."),
        Say("A hotel voucher is only for an overnight wait, so I'm not able to issue that.", when="$claim.hotel_asked"),
    ),
)
COMPENSATIONS = {COMPENSATION.name: COMPENSATION}


# A question about the booked flight that names no task ("can you tell me the updated details?"): its status, and the
# meal voucher a long delay earns whether or not the caller moves; a cancelled flight goes on as its rebooking; a flight
# on time leaves a request beyond the agent's tools, offered to a live agent.
ANOTHER_FLIGHT = Slot("another_flight", "yes_no", "Would you like me to look for another flight?", label="flight")
WAIVES_FEES = "$disruption.disruption.is_irrops"  # falsy when no disruption was read or none is on record
FLIGHT_QUESTION = Workflow(
    name="flight_question",
    description="A question about a booked flight: its status and the voucher a long delay earns, else a live agent.",
    intents=(
        "updated details",
        "what's going on",
        "what is going on",
        "flight status",
        "status of my flight",
        "time changed",
    ),
    steps=(
        *IDENTIFY,
        Compute("flight", FLIGHT),
        Call("get_flight_status", {"flight_number": FLIGHT, "flight_date": DAY}, name="status"),
        Compute("state", Derived(flight_state, "$status")),
        Compute("told", Derived(lambda said: bool(TOLD_DISRUPTED.search(said)), ASKED)),
        Call(
            "get_disruption_info",
            {"flight_number": FLIGHT, "date": DAY},
            name="disruption",
            when=Derived(lambda state, told: state["disrupted"] or told, "$state", "$told"),
            errors_ok=("not_found",),
        ),
        # a delay the record states (a schedule change, a return to the gate) counts as the status's own
        Compute("state", Derived(with_record, "$state", "$disruption"), when="$disruption.disruption"),
        Switch("irrops_rebooking", when="$state.cancelled"),
        Say("I'm not able to help with that request myself.", when="!$state.disrupted"),
        *handover(
            "policy_exception_needed",
            Derived(lambda said: f"Caller asked about their booking: {said}"[:500], ASKED),
            when="!$state.disrupted",
        ),
        Say("Okay, your booking stays as it is.", when="!$state.disrupted", end=True),
        Say("Flight {flight} is {state.said}."),
        # a disruption that waives change fees: another flight offered and waited for (App. L.4: offered, never
        # imposed), a yes going on as the IRROPS rebooking (which issues the delay's voucher itself)
        Ask(ANOTHER_FLIGHT, when=WAIVES_FEES),
        Switch("irrops_rebooking", when="$another_flight"),
        Say("You'll stay on your booked flight.", when=WAIVES_FEES),  # a no (a yes went on as a rebooking)
        Compute("claim", Derived(claim, "$state", ASKED)),
        voucher("issue_meal_voucher", "meal", "$claim.meal", voucher_reason="$claim.meal"),
        Say("I've issued a meal voucher of {meal.amount} dollars for the wait.", when="$claim.meal"),
    ),
)
COMPENSATIONS[FLIGHT_QUESTION.name] = FLIGHT_QUESTION
# A caller who only tells of a disruption ("my flight is delayed and I need help", the plane turned around) is answered
# as a question about the flight; at the lowest priority, so any task the words also name wins ("delayed ... can you
# rebook me?": the rebooking; "delayed ... a meal voucher": the claim).
FLIGHT_DISRUPTION = replace(
    FLIGHT_QUESTION,
    name="flight_disruption",
    description="A disruption the caller tells of without a task: the flight's state, another flight offered.",
    intents=("delay", "turn back", "turned back", "turn around", "turned around"),
    priority=-1,
)
COMPENSATIONS[FLIGHT_DISRUPTION.name] = FLIGHT_DISRUPTION
