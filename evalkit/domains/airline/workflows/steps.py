"""What every airline workflow on the engine shares (issue 28.4): the caller's reservation found by its code and
surname (looked up once per call), the bookings a request covers (the return when the caller names it), the
passenger, the caller's own words, the same-day cut-off and the searched flights a change can move to."""

from __future__ import annotations

import re
from typing import Any

from evalkit.domains.workflow import REQUESTED, Ask, Call, Derived, Slot

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
    """The reservation's bookings not cancelled yet: the journeys a cancellation covers (its first one when every
    booking is cancelled already, so the tool states that)."""
    bookings = found["reservation"]["bookings"]
    return [b for b in bookings if b.get("status") != "cancelled"] or bookings[:1]


def cancelling(found: dict[str, Any], requested: str) -> list[dict[str, Any]]:
    """The bookings a cancellation covers: the return (the last live one) when the
    caller's request names it on a reservation of several journeys, else every live one."""
    live = live_bookings(found)
    return live[-1:] if len(live) > 1 and "return" in requested.lower() else live


PASSENGER = Derived(lambda found: found["reservation"]["passengers"][0]["passenger_id"], "$reservation")

# The caller's words telling of a disruption the flight's status may not show ("my flight time got changed a lot"):
# the agent reads the disruption record then.
TOLD_DISRUPTED = re.compile(
    r"\b(?:cancell?ed|delay(?:ed)?|time (?:got |was )?changed|schedule change|turned back)\b", re.I
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
