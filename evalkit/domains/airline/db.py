"""Reading and updating a scenario DB in EVA-Bench's airline layout: a reservation and its booking of a journey,
the segments a call targets, seats per journey and class, a booking's fare, the segments a rebooking creates."""

from __future__ import annotations

import copy
from typing import Any

from evalkit.domains.airline.api import FARE_CLASSES
from evalkit.domains.base import ToolError


def journey_seats(journey: dict[str, Any]) -> dict[str, int]:
    """Seats bookable on the whole journey per fare class: the fewest over its segments."""
    segments = journey.get("segments", [])
    if not segments:
        return {}
    seats = dict(segments[0].get("available_seats", {}))
    for segment in segments[1:]:
        for fare_class in seats:
            seats[fare_class] = min(seats[fare_class] or 0, segment.get("available_seats", {}).get(fare_class) or 0)
    return seats


def booking_fare(booking: dict[str, Any]) -> float:
    if "fare_paid" in booking:
        return booking["fare_paid"]
    return sum(s.get("fare_paid", 0) for s in booking.get("segments", []))


def find_reservation(db: dict[str, Any], code: str) -> dict[str, Any]:
    reservation = db.get("reservations", {}).get(code.upper())
    if reservation is None:
        raise ToolError("not_found", f"Reservation {code.upper()} not found")
    return reservation


def find_booking(reservation: dict[str, Any], journey_id: str) -> dict[str, Any]:
    """The reservation's booking of a journey; a live one before a cancelled one (a partial rebook leaves both)."""
    matches = [b for b in reservation.get("bookings", []) if b.get("journey_id") == journey_id]
    if not matches:
        raise ToolError("journey_not_found", f"Journey {journey_id} not found in reservation")
    return next((b for b in matches if b.get("status") != "cancelled"), matches[0])


def target_segments(
    booking: dict[str, Any], flight_number: str | None, *, all_when_omitted: bool
) -> list[dict[str, Any]]:
    """The booking segments a call targets: the named flight's; without one, all of them (bags, meals) or the only
    one (seats, which need a flight on a multi-segment journey)."""
    segments = booking.get("segments", [])
    if flight_number:
        chosen = [s for s in segments if s.get("flight_number") == flight_number]
        if not chosen:
            raise ToolError(
                "flight_not_found", f"Flight {flight_number} not found in journey {booking.get('journey_id')}"
            )
        return chosen
    if all_when_omitted or len(segments) == 1:
        return segments
    raise ToolError(
        "flight_number_required",
        f"Journey {booking.get('journey_id')} has {len(segments)} segments; flight_number is required",
    )


def adjust_seats(journey: dict[str, Any] | None, fare_class: str, delta: int) -> None:
    for segment in (journey or {}).get("segments", []):
        seats = segment.setdefault("available_seats", {})
        seats[fare_class] = (seats.get(fare_class) or 0) + delta


def with_schedule(booking: dict[str, Any], db: dict[str, Any]) -> dict[str, Any]:
    """A copy of a booking whose segments carry their route and scheduled times from the journeys table (the
    operational status stays with get_flight_status)."""
    shown = copy.deepcopy(booking)
    journey = db.get("journeys", {}).get(booking.get("journey_id"), {})
    by_flight = {s.get("flight_number"): s for s in journey.get("segments", [])}
    for segment in shown.get("segments", []):
        scheduled = by_flight.get(segment.get("flight_number"), {})
        for key in ("origin", "destination", "scheduled_departure", "scheduled_arrival"):
            if key in scheduled:
                segment[key] = scheduled[key]
    return shown


def next_year(date: str) -> str:
    return f"{int(date[:4]) + 1}{date[4:]}"


def cheapest_class(fares: dict[str, Any], seats: dict[str, int], count: int) -> str | None:
    open_classes = [c for c in FARE_CLASSES if (seats.get(c) or 0) >= count and fares.get(c) is not None]
    return min(open_classes, key=lambda c: fares[c]) if open_classes else None


def new_segments(
    new: dict[str, Any], old_booking: dict[str, Any], replaced: dict[str, Any] | None, fare_class: str, irrops: bool
) -> list[dict[str, Any]]:
    """Booking segments on the new journey: an IRROPS rebooking keeps the fare paid per leg, others pay the new
    leg's fare; seats, bags and meals start empty (the agent carries them over)."""
    old_segments = old_booking.get("segments", [])
    segments = []
    for i, leg in enumerate(new.get("segments", [])):
        if irrops and replaced is None and i < len(old_segments):
            paid = old_segments[i].get("fare_paid", 0)
        elif irrops and replaced is not None and len(new.get("segments", [])) == 1:
            paid = replaced.get("fare_paid", 0)
        else:
            paid = leg.get("fares", {}).get(fare_class, 0)
        segments.append(
            {
                "flight_number": leg.get("flight_number"),
                "date": new.get("date"),
                "fare_paid": paid,
                "seat": None,
                "bags_checked": 0,
                "meal_request": None,
            }
        )
    return segments


def journey_summary(journey_id: str, journey: dict[str, Any]) -> dict[str, Any]:
    """A journey as a rebooking reports it: its legs, first departure, last arrival and route."""
    legs = journey.get("segments", [])
    return {
        "journey_id": journey_id,
        "num_stops": journey.get("num_stops", 0),
        "segments": copy.deepcopy(legs),
        "departure": legs[0]["scheduled_departure"] if legs else None,
        "arrival": legs[-1]["scheduled_arrival"] if legs else None,
        "origin": journey.get("origin"),
        "destination": journey.get("destination"),
    }


def find_flight(db: dict[str, Any], flight: str, date: str) -> dict[str, Any] | None:
    """The journey of a flight on a date: the direct flight's id first, else any journey with it as a segment."""
    journeys = db.get("journeys", {})
    direct = journeys.get(f"FL_{flight}_{date.replace('-', '')}")
    if direct is not None:
        return direct
    day = date.replace("-", "")
    return next(
        (
            j
            for j in journeys.values()
            if j.get("date", "").replace("-", "") == day
            and any(s.get("flight_number", "").upper() == flight for s in j.get("segments", []))
        ),
        None,
    )


def search_option(journey_id: str, journey: dict[str, Any], seats: dict[str, int], fare: Any) -> dict[str, Any]:
    """A journey as the rebooking search lists it: route, legs, times, seats per class and the quoted fare."""
    segments = copy.deepcopy(journey.get("segments", []))
    return {
        "journey_id": journey_id,
        "origin": journey.get("origin"),
        "destination": journey.get("destination"),
        "num_stops": journey.get("num_stops", 0),
        "total_duration_minutes": journey.get("total_duration_minutes"),
        "segments": segments,
        "departure_time": segments[0]["scheduled_departure"] if segments else None,
        "arrival_time": segments[-1]["scheduled_arrival"] if segments else None,
        "available_seats": {c: seats.get(c, 0) for c in FARE_CLASSES},
        "fare": fare,
    }
