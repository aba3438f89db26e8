"""Airline's voluntary-change and same-day-change tasks on the workflow engine (issue 28.4): a change onto
another flight on another day the caller names, or today (earlier or later, at least 30 minutes off), quoted with
the domain's change fee (an elite waiver applied) and the fare difference before anything is written; the seat,
the checked bags and the meal request carried to the new flight (App. L.4 principle 5)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from evalkit.domains.airline.policy import change_fee, elite_waives, route_change
from evalkit.domains.airline.workflows.steps import (
    ASKED,
    IDENTIFY,
    PASSENGER,
    SAME_DAY_CUTOFF_MINUTES,
    cancelling,
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
    Refuse,
    Say,
    Slot,
    Step,
    Switch,
    Workflow,
    parse_slot,
)
from evalkit.spoken import parse_seat_preference, parse_seat_preferences, parse_yes_no, spell_code

STANDBY = re.compile(r"\bstand[\s-]?by\b", re.IGNORECASE)
# A same-day request for a flight before the booked one: "earlier", "sooner", "the next flight", "as soon as possible"
# (the first one still open is the next flight; the booked one is not "next" to a caller asking to move)
# A caller who asks for the cheapest way today: a full flight's standby list is free (App. L.4 "Same-day standby:
# Free"), so it is offered beside the paid changes
CHEAPEST = re.compile(r"\b(?:cheap(?:est|er)?|least expensive|lowest (?:cost|price|fare))\b", re.IGNORECASE)
EARLIER = re.compile(r"\b(?:earlier|sooner|soonest|next (?:available )?flight|as soon as possible|asap)\b", re.I)

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
# the seat type the caller names first ("window, then aisle"), as the hand-written policy hears it
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


def changing(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The booking a change moves: the return when the caller names it (as for a cancellation), else the first."""
    return cancelling(found, requested)[0]


def change_options(
    found: dict[str, Any],
    requested: str,
    searched: dict[str, Any],
    seats: bool = True,
    booking: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The searched journeys a change can move to: not the booked one, with a seat in the booked cabin (any, full
    ones too, when ``seats`` is off: a standby list is for a full flight). ``booking``: the one moved, if not the one
    the caller's words name (``changing``)."""
    booking = booking or changing(found, requested)
    cabin = booking.get("fare_class", "main_cabin")
    held = {b["journey_id"] for b in live_bookings(found)} | {booking["journey_id"]}  # flights it already holds
    return [
        {
            "journey_id": o["journey_id"],
            "flight": " and ".join(s.get("flight_number", "") for s in o.get("segments", [])),
            "departs": o.get("departure_time") or "",
            "fare": o.get("fare") or 0,
            "note": "",  # said after the option (a full flight offered for standby says so)
        }
        for o in searched.get("options", [])
        if o["journey_id"] not in held and (not seats or (o.get("available_seats") or {}).get(cabin, 0) >= 1)
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


def open_from(now: str) -> str:
    """The earliest departure ("HH:MM") a flight today can still be booked onto: 30 minutes from ``now``."""
    hours, minutes = divmod(min(int(now[11:13]) * 60 + int(now[14:16]) + SAME_DAY_CUTOFF_MINUTES, 23 * 60 + 59), 60)
    return f"{hours:02d}:{minutes:02d}"


def wants_standby(requested: str) -> bool:
    """A same-day request for the standby list of an earlier flight ("can you put me on standby?"), not a change:
    the caller keeps the confirmed seat."""
    return STANDBY.search(requested) is not None


def same_day_options(found: dict[str, Any], requested: str, searched: dict[str, Any], now: str) -> list[dict[str, Any]]:
    """Today's journeys a same-day change can move to: those of ``change_options`` leaving at least 30 minutes from
    now (a same-day change closes then), earlier or later than the booked flight as the caller asked; for standby,
    the earlier ones, full or not."""
    booked = changing(found, requested)["segments"][0].get("scheduled_departure", "")
    cutoff = open_from(now)
    low = requested.lower()
    standby = wants_standby(requested)
    later = not standby and any(w in low for w in ("later", "miss my", "missed my", "running late"))
    earlier = standby or (not later and EARLIER.search(requested) is not None)
    options = [
        o
        for o in change_options(found, requested, searched, seats=not standby)
        if o["departs"] >= cutoff and (not earlier or o["departs"] < booked) and (not later or o["departs"] > booked)
    ]
    if standby or not CHEAPEST.search(requested):
        return options
    # the cheapest way: the search was of any cabin, so the flights with a seat are priced in the booked one again;
    # a full flight's standby list is free while the caller keeps a confirmed seat on a later flight today: the full
    # flights still open that leave before that seat, in the direction asked
    cabin = changing(found, requested).get("fare_class", "main_cabin")
    legs = {o["journey_id"]: o.get("segments") or [] for o in searched.get("options", [])}
    for o in options:
        fares = [(leg.get("fares") or {}).get(cabin) for leg in legs.get(o["journey_id"], [])]
        o["fare"] = sum(fares) if fares and None not in fares else o["fare"]
    kept = kept_seats(found, now)
    taken = {o["journey_id"] for o in options}
    full = [
        {**o, "standby": True, "note": ", which is full, but standby on it is free"}
        for o in change_options(found, requested, searched, seats=False)
        if o["journey_id"] not in taken
        and cutoff <= o["departs"] < max(kept, default="")
        and (not earlier or o["departs"] < booked)
        and (not later or o["departs"] > booked)
    ]
    return sorted(options + full, key=lambda o: o["departs"])


def kept_seats(found: dict[str, Any], now: str) -> list[str]:
    """The departures ("HH:MM") of the caller's confirmed flights today still to leave: the seats standby keeps."""
    return [
        b["segments"][0].get("scheduled_departure", "")
        for b in live_bookings(found)
        if b.get("status") == "confirmed"
        and b["segments"][0].get("date") == now[:10]
        and b["segments"][0].get("scheduled_departure", "") > now[11:16]
    ]


def kept_flight(found: dict[str, Any], requested: str, chosen: dict[str, Any], now: str) -> str:
    """The confirmed flight the caller keeps while on standby for ``chosen``: its first held flight today leaving
    after it, else the booked one."""
    later = sorted(
        (b["segments"][0].get("scheduled_departure", ""), b["segments"][0]["flight_number"])
        for b in live_bookings(found)
        if b.get("status") == "confirmed"
        and b["segments"][0].get("date") == now[:10]
        and b["segments"][0].get("scheduled_departure", "") > chosen["departs"]
    )
    return later[0][1] if later else changing(found, requested)["segments"][0]["flight_number"]


def carried_over(found: dict[str, Any], requested: str, booking: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a change carries to the new flight (App. L.4 principle 5): the booked journey's checked bags (the most on
    any segment) and its meal request (none when it has none); ``booking`` as for ``change_options``."""
    segments = (booking or changing(found, requested))["segments"]
    meal = next(
        (s.get("meal_request") for s in segments if s.get("meal_request") not in (None, "", "none", "standard")), None
    )
    return {"bags": max((s.get("bags_checked") or 0 for s in segments), default=0), "meal": meal}


PASSENGERS = Derived(lambda found: [found["reservation"]["passengers"][0]["passenger_id"]], "$reservation")


def standby_steps(
    offer: str, journey: str, flight: str, end: bool = False, several: str | None = None
) -> tuple[Step, ...]:
    """When ``$standby`` names a list to join: the ``offer`` (what the caller keeps, said first), the caller added on
    a yes (``journey``: a reference to the flight's journey), the position said (``flight``: how it is named); ``end``:
    the task is done then. ``several``: a reference to the options taken, each listed (standby on several flights at
    once: the lists named, no one position)."""
    each = Derived(lambda taken: [{"journey_id": o["journey_id"]} for o in taken], several) if several else None
    one = Derived(lambda standby, taken: bool(standby) and len(taken) == 1, "$standby", several) if several else None
    return (
        Confirm(offer, when="$standby"),
        Call(
            "add_to_standby",
            {"confirmation_number": "$confirmation_number", "passenger_ids": PASSENGERS, "journey_id": journey},
            name="listed",
            when="$standby",
            each=each,
        ),
        Say(
            f"You're number {{listed.standby_list_position}} on the standby list for flight {flight}.",
            when=one or "$standby",
            end=end,
        ),
        *((Say(f"You're on the standby lists for flight {flight}.", when="$standby", end=end),) if several else ()),
    )


# Standby, asked for within a same-day request: only for a flight booked today (App. L.4: a confirmed seat on a later
# flight the same day), listed after the caller hears that the confirmed seat is kept; the task ends there.
STANDBY_CHECK = (
    Compute("standby", Derived(wants_standby, ASKED)),
    Refuse(
        "Standby is only for flights today, with a confirmed seat on a later flight the same day, so I'm not able "
        "to list you for that.",
        when=Derived(
            lambda standby, found, said, today: standby and changing(found, said)["segments"][0]["date"] != today,
            "$standby",
            "$reservation",
            ASKED,
            f"${TODAY}",
        ),
    ),
)
STANDBY_FLIGHTS = "$standby_flights"  # the options taken for standby (``Offer.several``)
STANDBY_LISTING = (
    # standby asked for, or the full flight the caller took from the cheapest ways offered
    Compute("standby", Derived(lambda asked, chosen: bool(asked or chosen.get("standby")), "$standby", "$chosen")),
    Compute("booked", Derived(kept_flight, "$reservation", ASKED, "$chosen", f"${NOW}")),
    # the flights taken (standby on several at once: "the 11 and the 1 PM"), as said and as listed
    Compute("taken", Derived(lambda all: " and flight ".join(spell_code(o["flight"]) for o in all), STANDBY_FLIGHTS)),
    *standby_steps(
        "The standby list clears at the gate about 15 minutes before departure. If you don't clear, your seat on "
        "flight {booked} stays confirmed. Shall I add you to the standby list for flight {taken}?",
        journey="$new_journey_id",
        flight="{taken}",
        end=True,
        several=STANDBY_FLIGHTS,
    ),
)


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
