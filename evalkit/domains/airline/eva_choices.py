"""What a caller of an imported EVA-Bench airline record chooses, read from its expected end state (issue 15
point 5: the scripted caller "makes its choices towards the record's expected end state"): a record states the
caller's goal in prose, and its expected DB says which outcome that goal leads to.

``airline_choices(initial, expected, calls)`` compares the two DBs (EVA-Bench's airline layout) and returns the
scripted caller's fields: the flight to accept (the first flight of a booking the expected DB adds) and any further
ones (``accept_also``: a round trip's return), the dates to ask for, the airports it moves to (``new_origin``,
``new_destination``) and the yes/no decisions (standby, a refund instead of a rebooking, a transfer, the
confirmation itself). Pure functions of the DBs; of the record's trace only
whether it transfers is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

NO, YES = "no", "yes"


def _bookings(db: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (code, booking)
        for code, reservation in (db.get("reservations") or {}).items()
        for booking in reservation.get("bookings", [])
    ]


def _key(booking: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    return booking.get("journey_id", ""), tuple(s.get("flight_number", "") for s in booking.get("segments", []))


def new_bookings(initial: Mapping[str, Any], expected: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Confirmed bookings of the expected DB that the initial DB does not have (a rebooking's result)."""
    before = {(code, _key(b)) for code, b in _bookings(initial)}
    return [b for code, b in _bookings(expected) if (code, _key(b)) not in before and b.get("status") == "confirmed"]


def standby_journeys(initial: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """Journeys whose standby list the expected DB extends."""
    out = []
    for journey_id, journey in (expected.get("journeys") or {}).items():
        before = ((initial.get("journeys") or {}).get(journey_id) or {}).get("standby_list") or []
        if len(journey.get("standby_list") or []) > len(before):
            out.append(journey_id)
    return out


def _added(initial: Mapping[str, Any], expected: Mapping[str, Any], table: str) -> bool:
    return bool(set(expected.get(table) or {}) - set(initial.get(table) or {}))


def _flight_of(journey_id: str) -> str:
    parts = journey_id.split("_")
    return parts[1] if len(parts) >= 3 else ""


def _endpoints(db: Mapping[str, Any], journey_id: str) -> tuple[str, str]:
    journey = (db.get("journeys") or {}).get(journey_id) or {}
    return journey.get("origin", ""), journey.get("destination", "")


def _moved_airports(
    initial: Mapping[str, Any], expected: Mapping[str, Any], booking: Mapping[str, Any]
) -> dict[str, str]:
    """``new_origin`` / ``new_destination``: an end of the new journey at an airport none of the caller's booked
    journeys uses (the caller moves the trip to another airport, or accepts one nearby)."""
    origin, destination = _endpoints(expected, booking.get("journey_id", ""))
    booked = [_endpoints(initial, b.get("journey_id", "")) for _code, b in _bookings(initial)]
    moved = {}
    if origin and origin not in {o for o, _ in booked}:
        moved["new_origin"] = origin
    if destination and destination not in {d for _, d in booked}:
        moved["new_destination"] = destination
    return moved


def airline_choices(
    initial: Mapping[str, Any], expected: Mapping[str, Any], calls: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """``{"accept_option": ..., "answers": {...}}`` for the scripted caller (only what the DBs decide)."""
    answers: dict[str, str] = {}
    rebooked = new_bookings(initial, expected)
    standby = standby_journeys(initial, expected)
    accept = None
    if rebooked:
        first = rebooked[0]
        accept = first["segments"][0]["flight_number"] if first.get("segments") else _flight_of(first["journey_id"])
        for field, booking in zip(("new_date", "return_date"), rebooked, strict=False):
            day = booking["segments"][0].get("date") if booking.get("segments") else None
            if day:
                answers[field] = day
        later = [b["segments"][0]["flight_number"] for b in rebooked[1:] if b.get("segments")]
        if later:
            answers["accept_also"] = " ".join(later)
        answers.update(_moved_airports(initial, expected, first))
    elif standby:
        accept = _flight_of(standby[0])
        if standby[1:]:  # standby on several flights: the further ones are taken with the first
            answers["accept_also"] = " ".join(_flight_of(j) for j in standby[1:])
    answers["standby"] = YES if standby else NO
    cancelled = any(
        b.get("status") == "cancelled"
        for code, b in _bookings(expected)
        if (code, _key(b)) in {(c, _key(x)) for c, x in _bookings(initial) if x.get("status") != "cancelled"}
    )
    refunded = _added(initial, expected, "refunds")
    answers["refund_instead"] = YES if refunded and not rebooked else NO
    answers["accept_transfer"] = YES if any(c.get("name") == "transfer_to_agent" for c in calls) else NO
    writes = rebooked or standby or cancelled or refunded or _added(initial, expected, "travel_credits")
    answers["confirm"] = YES if writes else NO
    return {"accept_option": accept, "answers": answers}
