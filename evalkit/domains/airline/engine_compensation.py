"""Airline's compensation claims on the workflow engine (issue 28.4): a meal or hotel voucher asked for a delay or a
cancellation, issued only as the policy allows (App. L.4 "Compensation"): a meal voucher from a two-hour delay (its
amount by the delay band), a hotel voucher only for an overnight wait after a rebooking; a cancelled flight's vouchers
come with its rebooking. A claim outside that is refused with the reason (the engine holds the refusal when the caller
pushes back, and a caller who then asks for a person is offered one: ``engine_escalation.live_agent``).

A caller who only tells of a disruption ("my flight is delayed, what's going on?") and names no task is told the
flight's state and given the meal voucher its delay earns, as the hand-written policy answers a question about a
disrupted booking (``flight_disruption``: the lowest priority, so any task the words also name wins)."""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.engine_common import ASKED, IDENTIFY
from evalkit.domains.airline.engine_disruptions import DAY, FLIGHT, voucher
from evalkit.domains.airline.policy import meal_voucher_for_delay
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


def claim(state: dict[str, Any], requested: str) -> dict[str, Any]:
    """What the claim gets: the meal voucher the delay earns (None under two hours), whether a hotel was asked for
    (only an overnight wait earns one), and the reason a refusal states."""
    hotel = "hotel" in requested.lower()
    meal = meal_voucher_for_delay(state["delay"])
    why = "Hotel vouchers are only for an overnight wait" if hotel else "Meal vouchers start at a delay of two hours"
    return {"meal": meal, "hotel_asked": hotel, "why": why}


REFUSE_CANCELLED = Refuse(
    "That flight is cancelled. Vouchers come with a rebooking, so I'm not able to issue one until you're rebooked. I "
    "can rebook you if you like.",
    when="$state.cancelled",
)
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
        REFUSE_CANCELLED,
        Compute("claim", Derived(claim, "$state", ASKED)),
        Refuse("It is {state.said}. {claim.why}, so I'm not able to issue one.", when="!$claim.meal"),
        voucher("issue_meal_voucher", "meal", "$claim.meal", voucher_reason="$claim.meal"),
        Say("It is {state.said}. I've issued a meal voucher of {meal.amount} dollars."),
        Say("A hotel voucher is only for an overnight wait, so I'm not able to issue that.", when="$claim.hotel_asked"),
    ),
)
ANOTHER_FLIGHT = Slot("another_flight", "yes_no", "Would you like me to look for another flight?", label="flight")
# Words that tell of a disruption without asking for anything ("cancel" is left to the cancellation's own match)
DISRUPTION_TOLD = (
    "delay",
    "time changed",
    "time got changed",
    "turn back",
    "turned back",
    "turn around",
    "turned around",
)


WAIVES_FEES = "$disruption.disruption.is_irrops"  # falsy when no disruption was read or none is on record
REPORT = Workflow(
    name="flight_disruption",
    description="What happened to a delayed or disrupted flight, with the meal voucher its delay earns.",
    intents=DISRUPTION_TOLD,
    steps=(
        *COMPENSATION.steps[: COMPENSATION.steps.index(REFUSE_CANCELLED) + 1],
        Compute("claim", Derived(claim, "$state", ASKED)),
        Say("It is {state.said}."),
        # a disruption that waives change fees: another flight offered and waited for (App. L.4: offered, never
        # imposed), a yes going on as the IRROPS rebooking
        Ask(ANOTHER_FLIGHT, when=WAIVES_FEES),
        Switch("irrops_rebooking", when="$another_flight"),
        Say("You'll stay on your booked flight.", when=WAIVES_FEES),  # a no (a yes went on as a rebooking)
        voucher("issue_meal_voucher", "meal", "$claim.meal", voucher_reason="$claim.meal"),
        Say("I've issued a meal voucher of {meal.amount} dollars.", when="$claim.meal"),
    ),
    priority=-1,  # a task the caller's words also name wins ("delayed ... I want another flight": a rebooking)
)
COMPENSATIONS = {COMPENSATION.name: COMPENSATION, REPORT.name: REPORT}
