"""Airline's voluntary-change and same-day-change tasks on the workflow engine (issue 28.4): a change onto
another flight on another day the caller names, or today (earlier or later, at least 30 minutes off), quoted with
the domain's change fee (an elite waiver applied) and the fare difference before anything is written; the seat,
the checked bags and the meal request carried to the new flight (App. L.4 principle 5)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from evalkit.domains.airline.policy import change_fee, elite_waives, route_change
from evalkit.domains.airline.workflows.same_day import (
    CHEAPEST,
    STANDBY_CHECK,
    STANDBY_FLIGHTS,
    STANDBY_LISTING,
    same_day_options,
    wants_standby,
)
from evalkit.domains.airline.workflows.steps import (
    ASKED,
    IDENTIFY,
    PASSENGER,
    change_options,
    changing,
    live_bookings,
)
from evalkit.domains.workflow import (
    NOW,
    TODAY,
    Ask,
    Call,
    Compute,
    Confirm,
    Derived,
    Offer,
    Say,
    Slot,
    Step,
    Switch,
    Workflow,
    parse_slot,
)
from evalkit.spoken import parse_seat_preference, parse_seat_preferences, parse_yes_no

# -- voluntary change: another day, with the change fee and fare difference ----------------------------------

NEW_DATE = Slot("new_date", "date", "What date would you like to travel instead?", label="date")
# another airport at one end of the trip, when the caller's words ask for one ("change my destination to Detroit"):
# its three-letter code (the tools know no city names)
NEW_ORIGIN = Slot(
    "new_origin",
    "code",
    "Which departure airport would you like instead? Please tell me its three-letter code.",
    label="departure airport",
    length=3,
)
NEW_DESTINATION = Slot(
    "new_destination",
    "code",
    "Which arrival airport would you like instead? Please tell me its three-letter code.",
    label="arrival airport",
    length=3,
)
NEW_FLIGHT = Slot("new_journey_id", "text", "Which flight would you like?", label="flight")
NO_AIRPORT = "none"  # the caller has no other airport to fly into


def nearby_code(said: str) -> str | None:
    """The three-letter code of the airport nearby the caller names, ``NO_AIRPORT`` for a no ("No, I need to keep
    that airport."), None when neither is heard (asked again)."""
    if parse_yes_no(said) is False:
        return NO_AIRPORT
    code = parse_slot(NEW_DESTINATION, said, date.today())
    return code if isinstance(code, str) and len(code) == 3 else None


# App. L.4 principle 4 (offer alternatives): no flight with a seat into the booked airport that day, so an airport
# nearby the caller could fly into instead (its code: the tools know no city names)
NEARBY = Slot(
    "nearby_airport",
    "text",
    "Is there another airport nearby you could fly into instead? If so, please tell me its three-letter code.",
    label="airport nearby",
    normalize=nearby_code,
)
NEARBY_GIVEN = Derived(lambda nearby, code: bool(nearby) and code != NO_AIRPORT, "$nearby", "$nearby_airport")
# the seat types the caller names, in its order ("window, then aisle")
SEAT = Slot(
    "seat_preference",
    "text",
    "Would you like a window, an aisle or a middle seat?",
    label="seat",
    normalize=lambda said: ", ".join(parse_seat_preferences(said)) or parse_seat_preference(said),
)
# the seat types in the caller's order, each tried until one is free on the new flight (App. L.4: the caller's
# preference, not an assumed one)
SEATS = Derived(
    lambda said: [{"seat_preference": kind} for kind in parse_seat_preferences(said) or [said]], "$seat_preference"
)


def change_quote(
    found: dict[str, Any], requested: str, chosen: dict[str, Any], kind: str = "voluntary"
) -> dict[str, Any]:
    """The domain's change fee for the rebooking ``kind`` (an elite waiver applied) and the fare difference."""
    booking = changing(found, requested)
    waived = elite_waives(kind, found["reservation"]["passengers"][0].get("elite_status"))
    fee = change_fee(kind, booking.get("fare_class", "main_cabin"), waived)
    difference = (chosen.get("fare") or 0) - booking["fare_paid"]
    return {"fee": fee, "waived": waived, "difference": difference, "total": fee + max(difference, 0)}


def carried_over(found: dict[str, Any], requested: str, booking: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a change carries to the new flight (App. L.4 principle 5): the booked journey's checked bags (the most on
    any segment) and its meal request (none when it has none); ``booking`` as for ``change_options``."""
    segments = (booking or changing(found, requested))["segments"]
    meal = next(
        (s.get("meal_request") for s in segments if s.get("meal_request") not in (None, "", "none", "standard")), None
    )
    return {"bags": max((s.get("bags_checked") or 0 for s in segments), default=0), "meal": meal}


BOOKED = ("$reservation", ASKED)


def booked_destination(found: dict[str, Any], requested: str) -> str:
    return changing(found, requested)["segments"][-1]["destination"]


def change_workflow(
    name: str,
    description: str,
    intents: tuple[str, ...],
    same_day: bool,
    leg: tuple[Step, ...] = (),
    slots: tuple[Slot, Slot] = (NEW_DATE, NEW_FLIGHT),
    then: tuple[Step, ...] = (),
) -> Workflow:
    """A change onto another flight: on another day the caller names (``voluntary``), or today, earlier or later
    as the caller asked and at least 30 minutes off (``same_day``); its fee and the elite waiver by that type.
    ``leg``: steps that narrow the reservation to the journey changed (a round trip's return); ``slots``: the new
    date's and the new flight's (another pair for a second journey in the same call); ``then``: the last steps."""
    date_slot, flight_slot = slots
    new_flight = f"${flight_slot.name}"
    kind = "same_day" if same_day else "voluntary"
    options = (
        Derived(same_day_options, "$reservation", ASKED, "$search", f"${NOW}")
        if same_day
        else Derived(change_options, "$reservation", ASKED, "$search")
    )

    def search(when: str | Derived | None = None) -> Call:
        return Call(
            "search_rebooking_options",
            {
                "origin": "$new_origin",
                "destination": "$new_destination",
                "date": f"${date_slot.name}",
                "passenger_count": 1,
                # any cabin for standby (a flight full in the booked one has its list), else the booked one
                "fare_class": Derived(
                    lambda found, said: (
                        "any"
                        if same_day and (wants_standby(said) or CHEAPEST.search(said))
                        else changing(found, said).get("fare_class", "main_cabin")
                    ),
                    "$reservation",
                    ASKED,
                ),
            },
            name="search",
            when=when,
        )

    return Workflow(
        name=name,
        description=description,
        intents=intents,
        steps=(
            *IDENTIFY,
            *leg,
            # today's date for a same-day change (the call's own), else the day the caller names
            # the booked route, unless the caller asked to fly from or to another airport
            Compute("moving", Derived(route_change, ASKED)),
            Compute("new_origin", Derived(lambda found, said: changing(found, said)["segments"][0]["origin"], *BOOKED)),
            Compute("new_destination", Derived(booked_destination, *BOOKED)),
            Ask(NEW_ORIGIN, when="$moving=origin"),
            Ask(NEW_DESTINATION, when="$moving=destination"),
            Compute("new_date", Derived(lambda now: now[:10], f"${NOW}")) if same_day else Ask(date_slot),
            *(STANDBY_CHECK if same_day else ()),
            search(),
            Compute("options", options),
            *(
                ()
                if same_day
                else (
                    # nothing with a seat on the booked route that day: an airport nearby, if the caller has one
                    Compute("nearby", Derived(lambda found, moving: not found and not moving, "$options", "$moving")),
                    Say("I'm sorry, I don't see any open flights to {new_destination} that day.", when="$nearby"),
                    Ask(NEARBY, when="$nearby"),
                    Compute("new_destination", "$nearby_airport", when=NEARBY_GIVEN),
                    search(NEARBY_GIVEN),
                    Compute("options", options, when=NEARBY_GIVEN),
                )
            ),
            Offer(
                "$options",
                "journey_id",
                "flight {flight} at {departs}{note}",
                flight_slot,
                name="chosen",
                again=None if same_day else date_slot.name,
                # standby may be on several earlier flights at once (the confirmed seat kept either way)
                several=STANDBY_FLIGHTS[1:] if same_day else None,
                several_when="$standby" if same_day else None,
            ),
            *(STANDBY_LISTING if same_day else ()),
            Ask(SEAT),
            # a change onto a flight today is a same-day change, whichever way the caller asked for it
            Compute(
                REBOOKING,
                Derived(lambda day, today: "same_day" if day == today else kind, f"${date_slot.name}", f"${TODAY}"),
            ),
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
                    "new_journey_id": new_flight,
                    "rebooking_type": f"${REBOOKING}",
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
                    "journey_id": new_flight,
                },
                each=SEATS,
                first_ok=True,
            ),
            # the meal request and checked bags carried over to the new flight (App. L.4 principle 5)
            Compute("carried", Derived(carried_over, "$reservation", ASKED)),
            Call(
                "add_baggage_allowance",
                {
                    "confirmation_number": "$confirmation_number",
                    "journey_id": new_flight,
                    "num_bags": "$carried.bags",
                },
                when="$carried.bags",
            ),
            Call(
                "add_meal_request",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "journey_id": new_flight,
                    "meal_type": "$carried.meal",
                },
                when="$carried.meal",
            ),
            Say("You are moved to flight {chosen.flight}."),
            *then,
        ),
    )


def returning(found: dict[str, Any]) -> dict[str, Any]:
    """The reservation as looked up, narrowed to its last live journey (a round trip's return)."""
    return {**found, "reservation": {**found["reservation"], "bookings": live_bookings(found)[-1:]}}


REBOOKING = "rebooking_type"
ROUND_TRIP = re.compile(r"\b(?:round[ -]trip|both (?:flights|ways|legs|directions))\b", re.IGNORECASE)
RETURN_DATE = Slot("return_date", "date", "What return date would you like?", label="return date")
RETURN_FLIGHT = Slot("new_return_journey_id", "text", "Which return flight would you like?", label="return flight")
# A round trip changed both ways ("change my round-trip flight dates"): after the outbound, the return, as its own
# task with its own date and flight (the reservation as looked up at the start, narrowed to its last live journey)
RETURN_LEG = change_workflow(
    "return_flight_change",
    "Move the return flight of a round trip to another day, after its outbound.",
    ("change my return", "change the return"),
    same_day=False,
    leg=(
        Compute(
            "reservation",
            Derived(
                lambda found: {**found, "reservation": {**found["reservation"], "bookings": live_bookings(found)[-1:]}},
                "$reservation",
            ),
        ),
        Compute("moving", None),
    ),
    slots=(RETURN_DATE, RETURN_FLIGHT),
)
VOLUNTARY_CHANGE = change_workflow(
    "voluntary_change",
    "Move a booked flight to another day, with the change fee and fare difference the fare allows.",
    # the generic verb short, so a same-day request's own words win ("change my flight to a later one today")
    ("different day", "another day", "change the date", "reschedule", "change"),
    same_day=False,
    then=(
        Switch(
            RETURN_LEG.name,
            when=Derived(
                lambda found, said: bool(ROUND_TRIP.search(said)) and len(live_bookings(found)) > 1,
                "$reservation",
                ASKED,
            ),
        ),
    ),
)
SAME_DAY_CHANGE = change_workflow(
    "same_day_change",
    "Move to an earlier or a later flight today, with the same-day change fee.",
    # standby and a caller's own missed flight are same-day requests too (EVA-Bench's same-day category)
    (
        "earlier flight",
        "later flight",
        "earlier one",
        "later one",
        "today",
        "standby",
        "stand by",
        "missed my flight",
        "miss my flight",
        "next flight",
        "next available flight",
        "as soon as possible",
    ),
    same_day=True,
)
CHANGES = {w.name: w for w in (VOLUNTARY_CHANGE, SAME_DAY_CHANGE, RETURN_LEG)}
