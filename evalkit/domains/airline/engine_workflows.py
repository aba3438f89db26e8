"""Airline's cancellation-and-refund, voluntary-change and same-day-change tasks as declarative workflows
(issue 28.4: one dialogue engine for all domains): a first step of airline's move onto the workflow engine, measured
against the hand-written policy
(``evalkit.agents.reference.airline_policy``) in text mode. Not registered as the domain's workflows: airline keeps
its hand-written policy until every task family runs on the engine at least as well (docs/scenarios.md); the
module is not named ``workflows`` for that reason (a domain's ``workflows`` module or package is what it runs).

The refund rules are the domain's (App. L.4 "Refund Policy", ``policy.cancellation_terms``): an airline disruption
that entitles a refund, then the 24-hour rule (booked within 24 hours, first flight at least seven days after
booking), refund any fare; else a refundable fare refunds and a non-refundable one becomes credit less the fee.
The confirmation quotes what cancelling gives before anything is written (``Compute`` steps: the reason, then the
quote from ``cancellation_terms``), in the hand-written policy's words. Every live journey of the reservation is
cancelled (``Call(each=...)``) and the refund or credit the cancellations give is summed over them (``total=``) into
one refund or one credit, as the hand-written policy does when the caller names no journey (one who asks to cancel
the return has only that journey cancelled, read from ``$requested``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from evalkit.domains.airline.policy import cancellation_terms, change_fee, elite_waives
from evalkit.domains.workflow import (
    NOW,
    REQUESTED,
    Ask,
    Call,
    Compute,
    Confirm,
    Derived,
    Offer,
    Say,
    Slot,
    Workflow,
)
from evalkit.spoken import parse_seat_preference

SAME_DAY_CUTOFF_MINUTES = 30  # a same-day change closes 30 minutes before departure (App. L.4)
ASKED = f"${REQUESTED}"  # the caller's words that started the task: a journey it names ("just the return")
CODE = Slot(
    "confirmation_number",
    "code",
    "Could you give me your six-character confirmation number?",
    label="confirmation number",
    length=6,
)
LAST_NAME = Slot("last_name", "name", "And the last name on the booking?", label="last name")


# Every task starts by finding the caller's reservation (its code and surname), looked up once.
IDENTIFY = (
    Ask(CODE),
    Ask(LAST_NAME),
    Call(
        "get_reservation",
        {"confirmation_number": "$confirmation_number", "last_name": "$last_name"},
        name="reservation",
        once=True,
    ),
)


def live_bookings(found: dict[str, Any]) -> list[dict[str, Any]]:
    """The reservation's bookings not cancelled yet: the journeys a cancellation covers, as in the hand-written
    policy (its first one when every booking is cancelled already, so the tool states that)."""
    bookings = found["reservation"]["bookings"]
    return [b for b in bookings if b.get("status") != "cancelled"] or bookings[:1]


def cancelling(found: dict[str, Any], requested: str) -> list[dict[str, Any]]:
    """The bookings a cancellation covers, as in the hand-written policy: the return (the last live one) when the
    caller's request names it on a reservation of several journeys, else every live one."""
    live = live_bookings(found)
    return live[-1:] if len(live) > 1 and "return" in requested.lower() else live


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
    ``cancellation_terms`` for the fares paid (summed over the bookings, as the hand-written policy quotes), with
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
PASSENGER = Derived(lambda found: found["reservation"]["passengers"][0]["passenger_id"], "$reservation")
DISRUPTED = Derived(lambda status: status["journey"].get("status") not in ("scheduled", "on_time"), "$status")
REFUND_OWED = "$disruption.disruption.passenger_entitled_to.refund_option"

# The confirmation quotes what cancelling gives, as the hand-written policy does (the route and time from the
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
WORKFLOWS = {CANCELLATION.name: CANCELLATION}


# -- voluntary change: another day, with the change fee and fare difference ----------------------------------

NEW_DATE = Slot("new_date", "date", "What date would you like to travel instead?", label="date")
NEW_FLIGHT = Slot("new_journey_id", "text", "Which flight would you like?", label="flight")
# the seat type the caller names first ("window, then aisle"), as the hand-written policy hears it
SEAT = Slot(
    "seat_preference",
    "text",
    "Would you like a window, an aisle or a middle seat?",
    label="seat",
    normalize=parse_seat_preference,
)


def changing(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The booking a change moves: the return when the caller names it (as for a cancellation), else the first."""
    return cancelling(found, requested)[0]


def change_options(found: dict[str, Any], requested: str, searched: dict[str, Any]) -> list[dict[str, Any]]:
    """The searched journeys a change can move to: not the booked one, with a seat in the booked cabin."""
    booking = changing(found, requested)
    cabin = booking.get("fare_class", "main_cabin")
    return [
        {
            "journey_id": o["journey_id"],
            "flight": " and ".join(s.get("flight_number", "") for s in o.get("segments", [])),
            "departs": o.get("departure_time") or "",
            "fare": o.get("fare") or 0,
        }
        for o in searched.get("options", [])
        if o["journey_id"] != booking["journey_id"] and (o.get("available_seats") or {}).get(cabin, 0) >= 1
    ]


def change_quote(
    found: dict[str, Any], requested: str, chosen: dict[str, Any], kind: str = "voluntary"
) -> dict[str, Any]:
    """The domain's change fee for the rebooking ``kind`` (an elite waiver applied) and the fare difference."""
    booking = changing(found, requested)
    waived = elite_waives(kind, found["reservation"]["passengers"][0].get("elite_status"))
    fee = change_fee(kind, booking.get("fare_class", "main_cabin"), waived)
    difference = (chosen.get("fare") or 0) - booking["fare_paid"]
    return {"fee": fee, "waived": waived, "difference": difference, "total": fee + max(difference, 0)}


def same_day_options(found: dict[str, Any], requested: str, searched: dict[str, Any], now: str) -> list[dict[str, Any]]:
    """Today's journeys a same-day change can move to: those of ``change_options`` leaving at least 30 minutes from
    now (a same-day change closes then), earlier or later than the booked flight as the caller asked."""
    booked = changing(found, requested)["segments"][0].get("scheduled_departure", "")
    hours, minutes = divmod(min(int(now[11:13]) * 60 + int(now[14:16]) + SAME_DAY_CUTOFF_MINUTES, 23 * 60 + 59), 60)
    cutoff = f"{hours:02d}:{minutes:02d}"
    low = requested.lower()
    later = any(w in low for w in ("later", "miss my", "missed my", "running late"))
    earlier = not later and any(w in low for w in ("earlier", "sooner"))
    return [
        o
        for o in change_options(found, requested, searched)
        if o["departs"] >= cutoff and (not earlier or o["departs"] < booked) and (not later or o["departs"] > booked)
    ]


def carried_over(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """What a change carries to the new flight (App. L.4 principle 5): the booked journey's checked bags (the most on
    any segment) and its meal request (none when it has none)."""
    segments = changing(found, requested)["segments"]
    meal = next(
        (s.get("meal_request") for s in segments if s.get("meal_request") not in (None, "", "none", "standard")), None
    )
    return {"bags": max((s.get("bags_checked") or 0 for s in segments), default=0), "meal": meal}


def change_workflow(name: str, description: str, intents: tuple[str, ...], same_day: bool) -> Workflow:
    """A change onto another flight: on another day the caller names (``voluntary``), or today, earlier or later
    as the caller asked and at least 30 minutes off (``same_day``); its fee and the elite waiver by that type."""
    kind = "same_day" if same_day else "voluntary"
    options = (
        Derived(same_day_options, "$reservation", ASKED, "$search", f"${NOW}")
        if same_day
        else Derived(change_options, "$reservation", ASKED, "$search")
    )
    return Workflow(
        name=name,
        description=description,
        intents=intents,
        steps=(
            *IDENTIFY,
            # today's date for a same-day change (the call's own), else the day the caller names
            Compute("new_date", Derived(lambda now: now[:10], f"${NOW}")) if same_day else Ask(NEW_DATE),
            Call(
                "search_rebooking_options",
                {
                    "origin": Derived(
                        lambda found, said: changing(found, said)["segments"][0]["origin"], "$reservation", ASKED
                    ),
                    "destination": Derived(
                        lambda found, said: changing(found, said)["segments"][-1]["destination"], "$reservation", ASKED
                    ),
                    "date": "$new_date",
                    "passenger_count": 1,
                    "fare_class": Derived(
                        lambda found, said: changing(found, said).get("fare_class", "main_cabin"), "$reservation", ASKED
                    ),
                },
                name="search",
            ),
            Compute("options", options),
            Offer(
                "$options",
                "journey_id",
                "flight {flight} at {departs}",
                NEW_FLIGHT,
                name="chosen",
                again=None if same_day else "new_date",
            ),
            Ask(SEAT),
            Compute(REBOOKING, kind),
            Compute("quote", Derived(change_quote, "$reservation", ASKED, "$chosen", f"${REBOOKING}")),
            Confirm(
                "The change fee is {quote.fee} dollars and the fare difference is {quote.difference} dollars, for a "
                "total of {quote.total} dollars. Shall I go ahead and move you to flight {chosen.flight}?"
            ),
            Call(
                "rebook_flight",
                {
                    "confirmation_number": "$confirmation_number",
                    "journey_id": Derived(
                        lambda found, said: changing(found, said)["journey_id"], "$reservation", ASKED
                    ),
                    "new_journey_id": "$new_journey_id",
                    "rebooking_type": kind,
                    "waive_change_fee": "$quote.waived",
                },
                name="rebook",
            ),
            Call(
                "issue_travel_credit",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "amount": Derived(float, "$rebook.cost_summary.credit_due"),
                    "credit_reason": "fare_difference_negative",
                },
                when="$rebook.cost_summary.credit_due",
            ),
            Call(
                "assign_seat",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "journey_id": "$new_journey_id",
                    "seat_preference": "$seat_preference",
                },
            ),
            # the meal request and checked bags carried over to the new flight (App. L.4 principle 5)
            Compute("carried", Derived(carried_over, "$reservation", ASKED)),
            Call(
                "add_baggage_allowance",
                {
                    "confirmation_number": "$confirmation_number",
                    "journey_id": "$new_journey_id",
                    "num_bags": "$carried.bags",
                },
                when="$carried.bags",
            ),
            Call(
                "add_meal_request",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "journey_id": "$new_journey_id",
                    "meal_type": "$carried.meal",
                },
                when="$carried.meal",
            ),
            Say("You are moved to flight {chosen.flight}."),
        ),
    )


REBOOKING = "rebooking_type"
VOLUNTARY_CHANGE = change_workflow(
    "voluntary_change",
    "Move a booked flight to another day, with the change fee and fare difference the fare allows.",
    ("change my flight", "different day", "change"),
    same_day=False,
)
SAME_DAY_CHANGE = change_workflow(
    "same_day_change",
    "Move to an earlier or a later flight today, with the same-day change fee.",
    ("earlier flight", "later flight", "today"),
    same_day=True,
)
WORKFLOWS[VOLUNTARY_CHANGE.name] = VOLUNTARY_CHANGE
WORKFLOWS[SAME_DAY_CHANGE.name] = SAME_DAY_CHANGE
