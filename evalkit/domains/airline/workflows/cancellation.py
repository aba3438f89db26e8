"""Airline's cancellation-and-refund task as a declarative workflow.

The refund rules are the domain's (App. L.4 "Refund Policy", ``policy.cancellation_terms``): an airline disruption
that entitles a refund, then the 24-hour rule (booked within 24 hours, first flight at least seven days after
booking), refund any fare; else a refundable fare refunds and a non-refundable one becomes credit less the fee.
The confirmation quotes what cancelling gives before anything is written (``Compute`` steps: the reason, then the
quote from ``cancellation_terms``), in words a caller can weigh. Every live journey of the reservation is
cancelled (``Call(each=...)``) and the refund or credit the cancellations give is summed over them (``total=``) into
one refund or one credit when the caller names no journey (one who asks to cancel the return has only that journey
cancelled, read from ``$requested``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from evalkit.domains.airline.policy import cancellation_terms
from evalkit.domains.airline.workflows.steps import (
    ASKED,
    IDENTIFY,
    PASSENGER,
    TOLD_DISRUPTED,
    cancelling,
    live_bookings,
)
from evalkit.domains.workflow import NOW, Call, Compute, Confirm, Derived, Say, Workflow


def within_24_hours(found: dict[str, Any], now: str) -> bool:
    """The 24-hour rule: booked at most 24 hours ago, for a first flight at least seven days after booking."""
    booked = found["reservation"].get("booking_date")
    if not booked:
        return False
    since = datetime.fromisoformat(now) - datetime.fromisoformat(booked[:16])
    first = min(date.fromisoformat(b["segments"][0]["date"]) for b in live_bookings(found))
    return since.total_seconds() <= 24 * 3600 and (first - date.fromisoformat(booked[:10])).days >= 7


def refund_reason(found: dict[str, Any], now: str) -> str:
    """The cancellation reason when no disruption entitles a refund: the 24-hour rule, else voluntary."""
    return "24_hour_rule" if within_24_hours(found, now) else "voluntary"


def cancellation_quote(found: dict[str, Any], reason: str, requested: str = "") -> dict[str, Any]:
    """What cancelling the live bookings gives, quoted before the caller agrees (App. L.4): the domain's
    ``cancellation_terms`` for the fares paid (summed over the bookings: one quote for the call), with
    ``paid`` and the ``basis`` the confirmation states (the cancellation reason, or for a voluntary one whether the
    fare is refundable or becomes credit)."""
    paid = sum(b["fare_paid"] for b in cancelling(found, requested))
    terms = cancellation_terms(found["reservation"].get("fare_type", ""), reason, paid)
    basis = reason if reason != "voluntary" else "refundable" if terms["is_refundable"] else "credit"
    return {**terms, "paid": paid, "basis": basis}


def irrops_fees(found: dict[str, Any], reason: str) -> float:
    """The seat and bag fees an IRROPS refund gives back as well, in a refund of their own; 0 for any other reason."""
    return float(sum((found["reservation"].get("ancillaries") or {}).values())) if reason == "irrops_refund" else 0.0


# The flight whose status and disruption decide the refund: the first of the bookings cancelled.
FLIGHT = Derived(lambda found, said: cancelling(found, said)[0]["segments"][0]["flight_number"], "$reservation", ASKED)
DAY = Derived(lambda found, said: cancelling(found, said)[0]["segments"][0]["date"], "$reservation", ASKED)
JOURNEYS = Derived(
    lambda found, said: [{"journey_id": b["journey_id"]} for b in cancelling(found, said)], "$reservation", ASKED
)
# the disruption record is read when the flight is not on schedule, or when the caller says the airline disrupted it
# ("my flight time got changed a lot": a schedule change the status does not show)
DISRUPTED = Derived(
    lambda status, said: (
        status["journey"].get("status") not in ("scheduled", "on_time") or bool(TOLD_DISRUPTED.search(said))
    ),
    "$status",
    ASKED,
)
REFUND_OWED = "$disruption.disruption.passenger_entitled_to.refund_option"

# The confirmation quotes what cancelling gives (the route and time from the
# flight status, the refund or the credit less the fee from ``quote``), so the caller agrees knowing the amount.
FOUND = (
    "I found your booking on flight {status.journey.segments.0.flight_number} from {status.journey.origin} to "
    "{status.journey.destination} on {status.journey.date} at {status.journey.segments.0.scheduled_departure}."
)
FULL_REFUND = (
    "get a full refund of {quote.refund_amount_eligible} dollars to your original payment in five to seven "
    "business days. Shall I go ahead and cancel?"
)
REFUND_WHY = {
    "irrops_refund": "Because that flight was disrupted by the airline, you",
    "24_hour_rule": "You booked within the last 24 hours, so you",
    "refundable": "Your fare is refundable, so you",
}
CANCELLATION = Workflow(
    name="cancellation_refund",
    description="Cancel a booked flight with the refund or travel credit the fare allows.",
    intents=("cancel", "cancellation", "refund"),
    steps=(
        *IDENTIFY,
        Call("get_flight_status", {"flight_number": FLIGHT, "flight_date": DAY}, name="status"),
        Call(
            "get_disruption_info",
            {"flight_number": FLIGHT, "date": DAY},
            name="disruption",
            when=DISRUPTED,
            errors_ok=("not_found",),
        ),
        Compute("reason", "irrops_refund", when=REFUND_OWED),
        Compute("reason", Derived(refund_reason, "$reservation", f"${NOW}"), when=f"!{REFUND_OWED}"),
        Compute("quote", Derived(cancellation_quote, "$reservation", "$reason", ASKED)),
        *(Confirm(f"{FOUND} {why} {FULL_REFUND}", when=f"$quote.basis={basis}") for basis, why in REFUND_WHY.items()),
        Confirm(
            f"{FOUND} Your fare is non-refundable, so instead of a refund you would get a travel credit of "
            "{quote.credit_amount_eligible} dollars, that's the {quote.paid} you paid minus the "
            "{quote.cancellation_fee} dollar cancellation fee. It is valid for twelve months, for you only. "
            "Shall I go ahead and cancel?",
            when="$quote.basis=credit",
        ),
        # every live journey cancelled; the refund and the credit the cancellations give, summed over them
        Call(
            "cancel_reservation",
            {"confirmation_number": "$confirmation_number", "cancellation_reason": "$reason"},
            name="cancel",
            each=JOURNEYS,
            total=("refund_amount_eligible", "credit_amount_eligible"),
        ),
        Call(
            "issue_travel_credit",
            {
                "confirmation_number": "$confirmation_number",
                "passenger_id": PASSENGER,
                "amount": "$cancel.credit_amount_eligible",
                "credit_reason": "cancellation_non_refundable",
            },
            when="$cancel.credit_amount_eligible",
        ),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": "$cancel.refund_amount_eligible",
                "refund_type": "full_fare",
            },
            when="$cancel.refund_amount_eligible",
        ),
        Compute("fees", Derived(irrops_fees, "$reservation", "$reason")),
        Call(
            "process_refund",
            {"confirmation_number": "$confirmation_number", "refund_amount": "$fees", "refund_type": "ancillary_fees"},
            when="$fees",
        ),
        Say(
            "Your booking is cancelled and a travel credit of {cancel.credit_amount_eligible} dollars is ready.",
            when="$cancel.credit_amount_eligible",
        ),
        Say(
            "Your booking is cancelled and a refund of {cancel.refund_amount_eligible} dollars is on its way.",
            when="$cancel.refund_amount_eligible",
        ),
        Say("Your {fees} dollars of seat and bag fees are refunded as well.", when="$fees"),
    ),
)
