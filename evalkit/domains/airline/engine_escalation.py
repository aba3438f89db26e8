"""Airline's escalation tasks on the workflow engine (issue 28.4): what the agent cannot settle itself is offered to
a live agent, and handed over only on the caller's yes (App. L.4: "always offer the transfer first and wait for the
caller to confirm"; never imposed).

- ``fee_waiver``: a bereavement, medical-emergency or military-orders waiver needs documentation only a live agent can
  review (App. L.4 "Fee Waivers"): the transfer is offered; a caller who declines is offered a regular change with the
  usual fees (the voluntary change's own steps), which a no leaves as it is. Its request also names a change, so the
  workflow has ``priority`` over the change tasks.
- ``disruption_rebooking``: a flight the airline disrupted (IRROPS): the delay's meal voucher, then the travel day's
  and the next day's flights with a seat, offered; a caller who takes one is moved without fees; when none fits, a
  full refund where the disruption entitles one (quoted before anything is written), else (or declined) a transfer.
- ``live_agent``: a caller who asks for a person (after a refusal, or at the start) is offered the transfer.

The hand-written policy (``evalkit.agents.reference.airline_policy``) does the same in text mode; the transfer's
``issue_summary`` states the situation (the waiver asked for, no option that fits, the caller's request)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from evalkit.domains.airline.engine_changes import CHANGES, NEW_FLIGHT, SEAT
from evalkit.domains.airline.engine_common import (
    ASKED,
    IDENTIFY,
    PASSENGER,
    SAME_DAY_CUTOFF_MINUTES,
    cancelling,
)
from evalkit.domains.airline.policy import WAIVER_KEYWORDS, cancellation_terms, meal_voucher_for_delay
from evalkit.domains.workflow import NOW, TODAY, Ask, Call, Compute, Confirm, Derived, Offer, Say, Slot, Workflow

TRANSFER = Slot("accept_transfer", "yes_no", "Would you like me to transfer you to a live agent?", label="transfer you")
REFUND = Slot("refund_instead", "yes_no", "Would you like a full refund instead?", label="full refund")
HANDED_OVER = "I'm transferring you to a live agent now. Please hold."


def booked(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The booking the call is about (the return when the caller names it), as the agent says and searches it: its
    first flight, route, day and departure, cabin, fare and journey."""
    booking = cancelling(found, requested)[0]
    first, last = booking["segments"][0], booking["segments"][-1]
    return {
        "journey_id": booking["journey_id"],
        "flight": first["flight_number"],
        "origin": first.get("origin", ""),
        "destination": last.get("destination", ""),
        "date": first["date"],
        "departs": first.get("scheduled_departure", ""),
        "fare_class": booking.get("fare_class", "main_cabin"),
        "fare_paid": booking["fare_paid"],
    }


BOOKED = Derived(booked, "$reservation", ASKED)
FOUND = (
    "I found your booking on flight {booked.flight} from {booked.origin} to {booked.destination} on {booked.date} "
    "at {booked.departs}."
)


def handover(reason: str, summary: str | Derived, when: str | Derived | None = None) -> tuple[Ask | Call | Say, ...]:
    """The transfer offered (the question said after what the steps before it said), made on the caller's yes."""
    return (
        Ask(TRANSFER, when=when),  # type: ignore[arg-type]  # a Derived decides as for Compute and Refuse
        Call(
            "transfer_to_agent",
            {"confirmation_number": "$confirmation_number", "transfer_reason": reason, "issue_summary": summary},
            when="$accept_transfer",
        ),
        Say(HANDED_OVER, when="$accept_transfer", end=True),
    )


# -- fee waivers that need a live agent ----------------------------------------------------------------------


def waiver_reason(requested: str) -> str:
    """The documented waiver the caller's words ask for (App. L.4 "Fee Waivers"); "fee waiver" when none is named."""
    low = requested.lower()
    return next((reason for reason, words in WAIVER_KEYWORDS if any(w in low for w in words)), "fee waiver")


REASON = Derived(waiver_reason, ASKED)
FEE_WAIVER = Workflow(
    name="fee_waiver",
    description="A fee waiver for a bereavement, a medical emergency or military orders: offered to a live agent.",
    intents=tuple(word for _, words in WAIVER_KEYWORDS for word in words),
    steps=(
        *IDENTIFY,
        Compute("booked", BOOKED),
        Compute("reason", REASON),
        Say(FOUND),
        Say("I'm so sorry for your loss.", when="$reason=bereavement"),
        Say("A {reason} fee waiver needs documentation, which only a live agent can review."),
        *handover(
            "policy_exception_needed",
            Derived(lambda reason: f"Caller asks for a {reason} change fee waiver; documentation needed.", "$reason"),
        ),
        Confirm(
            "Okay, no transfer then. I can still change your flight as a regular change, with the usual fees. Would "
            "you like me to do that?"
        ),
        # the regular change: the voluntary change's own steps after the caller's identification
        *CHANGES["voluntary_change"].steps[len(IDENTIFY) :],
    ),
    priority=1,
)


# -- a disruption: the day's and the next day's flights, then a refund or a transfer -------------------------


def disruption_said(found: dict[str, Any]) -> str:
    """What happened to the flight, as the agent tells it: "cancelled" or "delayed by 3 hours", with the cause."""
    record = found["disruption"]
    what = (
        "cancelled"
        if record.get("disruption_type") == "cancellation"
        else f"delayed by {(record.get('delay_minutes') or 0) // 60} hours"
    )
    cause = str(record.get("cause") or "").replace("_", " ")
    return f"{what} because of {cause}" if cause else what


def delay_voucher(found: dict[str, Any]) -> str | None:
    """The meal voucher a delay earns whether or not the caller moves (App. L.4 "Compensation"); a cancellation's
    comes with the rebooking (None)."""
    record = found["disruption"]
    if record.get("disruption_type") == "cancellation":
        return None
    return meal_voucher_for_delay(record.get("delay_minutes") or 0)


def disruption_options(trip: dict[str, Any], searched: dict[str, Any], day: str, now: str) -> list[dict[str, Any]]:
    """The searched journeys a disrupted caller can move to on ``day``: not the booked one, a seat in the booked
    cabin, and today not leaving within the next 30 minutes."""
    hours, minutes = divmod(min(int(now[11:13]) * 60 + int(now[14:16]) + SAME_DAY_CUTOFF_MINUTES, 23 * 60 + 59), 60)
    cutoff = f"{hours:02d}:{minutes:02d}" if day == now[:10] else ""
    return [
        {
            "journey_id": o["journey_id"],
            "flight": " and ".join(s.get("flight_number", "") for s in o.get("segments", [])),
            "day": day,
            "departs": o.get("departure_time") or "",
            "fare": o.get("fare") or 0,
        }
        for o in searched.get("options", [])
        if o["journey_id"] != trip["journey_id"]
        and (o.get("available_seats") or {}).get(trip["fare_class"], 0) >= 1
        and (o.get("departure_time") or "") >= cutoff
    ]


def irrops_refund(found: dict[str, Any], trip: dict[str, Any], decided: dict[str, Any] | None) -> dict[str, Any]:
    """The full refund a disruption that entitles one gives when no flight fits (``owed``: none was taken and the
    record says so): the domain's ``cancellation_terms`` for the fare paid, and the seat and bag fees it gives back."""
    owed = decided is None and bool(found["disruption"]["passenger_entitled_to"].get("refund_option"))
    terms = cancellation_terms(found["reservation"].get("fare_type", ""), "irrops_refund", trip["fare_paid"])
    fees = float(sum((found["reservation"].get("ancillaries") or {}).values()))
    return {"owed": owed, "amount": terms["refund_amount_eligible"], "fees": fees}


SEARCH = {
    "origin": "$booked.origin",
    "destination": "$booked.destination",
    "passenger_count": 1,
    "fare_class": "$booked.fare_class",
}
OPTION = "flight {flight} on {day} at {departs}"
NONE_TAKEN = "!$chosen"
STUCK = Derived(lambda chosen, refund: not chosen and not refund, "$chosen", "$refund_instead")
DISRUPTION = Workflow(
    name="disruption_rebooking",
    description="Another flight after the airline cancelled or delayed one; a refund or a live agent if none fits.",
    intents=("another flight", "different flight", "rebook me", "rebooked", "next flight"),
    steps=(
        *IDENTIFY,
        Compute("booked", BOOKED),
        Call(
            "get_disruption_info",
            {"flight_number": "$booked.flight", "date": "$booked.date"},
            name="disruption",
            errors_ok=("not_found",),
        ),
        Compute("found", Derived(lambda r, d: {"reservation": r["reservation"], **d}, "$reservation", "$disruption")),
        Compute("irrops", Derived(lambda d: bool((d.get("disruption") or {}).get("is_irrops")), "$disruption")),
        Say(
            f"{FOUND} I don't see a disruption by the airline on that flight, so a change would be a regular change "
            "with the usual fees.",
            when="!$irrops",
        ),
        Compute("meal", Derived(delay_voucher, "$found"), when="$irrops"),
        Call(
            "issue_meal_voucher",
            {"confirmation_number": "$confirmation_number", "passenger_id": PASSENGER, "voucher_reason": "$meal"},
            name="voucher",
            when="$meal",
        ),
        Compute("what", Derived(disruption_said, "$found"), when="$irrops"),
        Say(f"{FOUND} I'm sorry, that flight is {{what}}. All change fees are waived.", when="$irrops"),
        Say("I've issued a {voucher.amount} dollar meal voucher for the airport restaurants.", when="$meal"),
        Compute("chosen", None),
        Compute("day", Derived(lambda trip, today: max(trip["date"], today), "$booked", f"${TODAY}"), when="$irrops"),
        Call("search_rebooking_options", {**SEARCH, "date": "$day"}, name="search", when="$irrops"),
        Compute("options", Derived(disruption_options, "$booked", "$search", "$day", f"${NOW}"), when="$irrops"),
        Offer(
            "$options",
            "journey_id",
            OPTION,
            NEW_FLIGHT,
            name="chosen",
            optional=True,
            none="I don't see open seats that day, so I checked the next day.",
            when="$irrops",
        ),
        Say("Let me check the next day.", when=Derived(lambda o, c: bool(o) and not c, "$options", "$chosen")),
        Compute(
            "next_day",
            Derived(lambda day: (date.fromisoformat(day) + timedelta(days=1)).isoformat(), "$day"),
            when="$irrops",
        ),
        Call("search_rebooking_options", {**SEARCH, "date": "$next_day"}, name="next", when=NONE_TAKEN),
        Compute("options_next", Derived(disruption_options, "$booked", "$next", "$next_day", f"${NOW}"), when="$next"),
        Offer("$options_next", "journey_id", OPTION, NEW_FLIGHT, name="chosen", optional=True, none="", when="$next"),
        # none fits: a full refund where the disruption entitles one, else (or declined) a live agent
        Compute("refund", Derived(irrops_refund, "$found", "$booked", "$chosen"), when="$irrops"),
        Compute("refund_instead", False),
        Say(
            "I've checked {day} and {next_day} and there's nothing that works. Since the airline disrupted your trip, "
            "you can have a full refund of {refund.amount} dollars to your original payment.",
            when="$refund.owed",
        ),
        Ask(REFUND, when="$refund.owed"),
        Call(
            "cancel_reservation",
            {
                "confirmation_number": "$confirmation_number",
                "journey_id": "$booked.journey_id",
                "cancellation_reason": "irrops_refund",
            },
            name="cancel",
            when="$refund_instead",
        ),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": Derived(float, "$cancel.refund_amount_eligible"),
                "refund_type": "full_fare",
            },
            when="$refund_instead",
        ),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": "$refund.fees",
                "refund_type": "ancillary_fees",
            },
            when=Derived(lambda yes, refund: yes and refund["fees"] > 0, "$refund_instead", "$refund"),
        ),
        Say(
            "Your booking is cancelled and a refund of {cancel.refund_amount_eligible} dollars is on its way.",
            when="$cancel",
        ),
        Say(
            "Your {refund.fees} dollars of seat and bag fees are refunded as well.",
            when=Derived(lambda y, r: y and r["fees"] > 0, "$refund_instead", "$refund"),
        ),
        Say(
            "I've checked {day} and {next_day} and I can't find an option that works.",
            when=Derived(
                lambda irrops, chosen, refund: irrops and not chosen and not refund["owed"],
                "$irrops",
                "$chosen",
                "$refund",
            ),
        ),
        Say("Okay.", when=Derived(lambda refund, yes: refund["owed"] and not yes, "$refund", "$refund_instead")),
        *handover(
            "unable_to_resolve",
            "Disrupted flight; no acceptable rebooking option found.",
            when=Derived(
                lambda irrops, chosen, yes: irrops and not chosen and not yes, "$irrops", "$chosen", "$refund_instead"
            ),
        ),
        Say("Okay, I won't transfer you.", when=Derived(lambda t: t is False, "$accept_transfer")),
        # a flight taken: moved without fees (the disruption was the airline's)
        Ask(SEAT, when="$chosen"),
        Confirm(
            "Because the disruption was on our side, there is no change fee and no fare difference. Shall I go ahead "
            "and move you to flight {chosen.flight}?",
            when="$chosen",
        ),
        Call(
            "rebook_flight",
            {
                "confirmation_number": "$confirmation_number",
                "journey_id": "$booked.journey_id",
                "new_journey_id": "$new_journey_id",
                "rebooking_type": Derived(
                    lambda d: {"delay": "irrops_delay", "schedule_change": "irrops_schedule_change"}.get(
                        d["disruption"].get("disruption_type"), "irrops_cancellation"
                    ),
                    "$disruption",
                ),
                "waive_change_fee": True,
            },
            when="$chosen",
        ),
        Call(
            "assign_seat",
            {
                "confirmation_number": "$confirmation_number",
                "passenger_id": PASSENGER,
                "journey_id": "$new_journey_id",
                "seat_preference": "$seat_preference",
            },
            when="$chosen",
        ),
        Say("You are moved to flight {chosen.flight}.", when="$chosen"),
    ),
)


# -- a caller who asks for a person --------------------------------------------------------------------------

LIVE_AGENT = Workflow(
    name="live_agent",
    description="A caller who asks for a supervisor or a live agent: the transfer offered, made on a yes.",
    intents=("supervisor", "manager", "live agent", "real person", "human being", "representative"),
    steps=(
        *IDENTIFY,
        Say("I understand."),
        *handover(
            "passenger_requested",
            Derived(lambda said: f"Caller asks for a supervisor: {said}"[:500], ASKED),
        ),
        Say("Okay, I won't transfer you."),
    ),
)
ESCALATION = {w.name: w for w in (FEE_WAIVER, DISRUPTION, LIVE_AGENT)}
