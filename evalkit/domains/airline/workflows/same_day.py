"""Airline's same-day change on the workflow engine: which of today's flights a same-day request can move to (earlier
or later as the caller asked, still open 30 minutes before departure, a full flight's free standby for a caller who
asks for the cheapest way) and the standby listing (the confirmed seat kept, one list or several at once)."""

from __future__ import annotations

import re
from typing import Any

from evalkit.domains.airline.workflows.steps import (
    ASKED,
    SAME_DAY_CUTOFF_MINUTES,
    change_options,
    changing,
    live_bookings,
)
from evalkit.domains.workflow import NOW, TODAY, Call, Compute, Confirm, Derived, Refuse, Say, Step
from evalkit.spoken import spell_code

STANDBY = re.compile(r"\bstand[\s-]?by\b", re.IGNORECASE)
# A same-day request for a flight before the booked one: "earlier", "sooner", "the next flight", "as soon as possible"
# (the first one still open is the next flight; the booked one is not "next" to a caller asking to move)
EARLIER = re.compile(r"\b(?:earlier|sooner|soonest|next (?:available )?flight|as soon as possible|asap)\b", re.I)
# A caller who asks for the cheapest way today: a full flight's standby list is free (App. L.4 "Same-day standby:
# Free"), so it is offered beside the paid changes
CHEAPEST = re.compile(r"\b(?:cheap(?:est|er)?|least expensive|lowest (?:cost|price|fare))\b", re.IGNORECASE)


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
