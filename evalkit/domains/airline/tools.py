"""SkyWay Airlines tools: EVA-Bench's airline tool API (ServiceNow/eva ``configs/agents/airline_agent.yaml``).

Tool names, argument names and types, enums, result fields and error types are EVA-Bench's, and so is the scenario
DB the tools work on, so EVA-Bench's records replay through them (``python -m evalkit.scenarios replay``):

- ``reservations[<code>]``: ``bookings`` (one per journey: ``journey_id``, ``fare_class``, ``fare_paid``, ``status``
  and ``segments``, each with ``flight_number``, ``date``, ``fare_paid``, ``seat``, ``bags_checked``,
  ``meal_request``), ``passengers`` (``passenger_id`` PAX001...), ``fare_type``, ``status``, optional
  ``standby_list``;
- ``journeys[FL_<flights>_<YYYYMMDD>]``: route, ``date``, ``status``, ``bookable``, journey ``fares`` and
  ``segments`` (per flight: times, ``available_seats`` and ``available_seat_types`` per fare class, segment
  ``fares``, delay and cancellation fields), optional ``standby_list``;
- ``disruptions[<flight>_<date>]``, and what the tools add: ``travel_credits``, ``meal_vouchers``,
  ``hotel_vouchers``, ``refunds``; ``_current_date`` (the record's date) and ``session`` (who authenticated).

As in EVA-Bench the tools are mechanical: they price a change (the change fee of the original fare class, waived
for any IRROPS type or on request) and carry out what the agent asks; whether a fee waiver, a voucher or a refund is
due is the agent's policy (the agent instructions, App. L.4). Amounts and codes are EVA-Bench's: meal vouchers
$12 / $15 / $15 / $25 by reason, a $100 cancellation fee on non-refundable fares, seat ``<row><letter>`` from the
fare class's first row plus the passenger number, codes such as ``MEAL-<code>-PAX0`` and ``REF-<code>-001``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, call_index, session_of

# irreversible=True marks MM-tau-p2's high-risk actions (changes, cancellations, money) that the caller must confirm
# first; seats, bags, meals, standby and vouchers write to the DB but can be redone or are not charged.

FARE_CLASSES = ("basic_economy", "main_cabin", "premium_economy", "business", "first")
FareClass = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first"]
FareClassOrAny = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first", "any"]
RebookingType = Literal[
    "voluntary",
    "same_day",
    "irrops_cancellation",
    "irrops_delay",
    "irrops_schedule_change",
    "missed_flight_passenger_fault",
    "missed_connection_airline_fault",
]
SeatPreference = Literal["window", "aisle", "middle", "no_preference"]
MealType = Literal[
    "vegetarian",
    "vegan",
    "kosher",
    "halal",
    "gluten_free",
    "diabetic",
    "low_sodium",
    "child",
    "hindu",
    "standard",
    "none",
]
CreditReason = Literal[
    "cancellation_non_refundable",
    "fare_difference_negative",
    "service_recovery",
    "goodwill",
    "downgrade_compensation",
]
VoucherReason = Literal["delay_over_2_hours", "delay_over_4_hours", "cancellation_wait_same_day", "irrops_overnight"]
RefundType = Literal["full_fare", "partial_fare", "taxes_only", "ancillary_fees"]
CancellationReason = Literal[
    "voluntary", "irrops_refund", "24_hour_rule", "schedule_unacceptable", "medical", "bereavement"
]

# Identifier formats as the agent schema states them.
ConfirmationNumber = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{6}$", description="6 alphanumeric characters")]
FlightNumber = Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}\d{1,4}$", description="e.g. SK621")]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
JourneyId = Annotated[str, Field(pattern=r"^FL_(?:[A-Za-z]{2,3}\d{1,4}_)+\d{8}$", description="FL_<flight>_<YYYYMMDD>")]
PassengerId = Annotated[str, Field(pattern=r"^PAX\d+$", description="e.g. PAX001")]
AirportCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$", description="3-letter airport code")]

# EVA-Bench's error type for an invalid value of each field.
FIELD_ERRORS = {
    "rebooking_type": "invalid_rebooking_type",
    "new_fare_class": "invalid_fare_class",
    "fare_class": "invalid_fare_class",
    "meal_type": "invalid_meal_type",
    "credit_reason": "invalid_credit_reason",
    "voucher_reason": "invalid_voucher_reason",
    "refund_type": "invalid_refund_type",
    "seat_preference": "invalid_seat_preference",
    "cancellation_reason": "invalid_cancellation_reason",
    "confirmation_number": "invalid_confirmation_number_format",
    "flight_number": "invalid_flight_number_format",
    "flight_date": "invalid_date_format",
    "date": "invalid_date_format",
    "journey_id": "invalid_journey_id_format",
    "new_journey_id": "invalid_journey_id_format",
    "passenger_id": "invalid_passenger_id_format",
    "passenger_ids": "invalid_passenger_id_format",
    "origin": "invalid_airport_code_format",
    "destination": "invalid_airport_code_format",
    "num_bags": "invalid_bag_count",
}

VOLUNTARY_FEE = {"basic_economy": 75, "main_cabin": 75, "premium_economy": 75, "business": 0, "first": 0}
SAME_DAY_FEE = {"basic_economy": 199, "main_cabin": 75, "premium_economy": 75, "business": 75, "first": 75}
MEAL_VOUCHER_AMOUNT = {
    "delay_over_2_hours": 12,
    "delay_over_4_hours": 15,
    "cancellation_wait_same_day": 15,
    "irrops_overnight": 25,
}
NON_REFUNDABLE_CANCELLATION_FEE = 100
FEE_FREE_CANCELLATIONS = ("irrops_refund", "24_hour_rule")
MAX_HOTEL_NIGHTS = 3
MAX_BAGS = 5
FIRST_ROW = {"basic_economy": 25, "main_cabin": 20, "premium_economy": 10, "business": 5, "first": 1}
SEAT_LETTER = {"window": "A", "middle": "B", "aisle": "C", "no_preference": "C"}
SEARCHABLE_STATUSES = ("scheduled", "on_time", "delayed")
# Policy thresholds the agent applies (App. L.4): the tools do not check them.
IRROPS_DELAY_MINUTES = 120  # delay or schedule change over 2 h: airline-caused, every fee waived
REFUND_DELAY_MINUTES = 240  # airline cancels or delays over 4 h: full refund whatever the fare
MEAL_VOUCHER_DELAY_BANDS = ((240, "delay_over_4_hours"), (120, "delay_over_2_hours"))


REGISTRY = ToolRegistry(field_error_types=FIELD_ERRORS)


class AirlineArgs(ToolArgs):
    """Arguments of an airline tool."""


def is_irrops(rebooking_type: str) -> bool:
    """The IRROPS rebooking types (airline-caused: every fee waived, the fare paid carried over)."""
    return rebooking_type.startswith("irrops")


def change_fee(rebooking_type: str, fare_class: str, waived: bool = False) -> int:
    """The fee the tool charges for a change, by the original fare class; elite waivers are the agent's to apply
    (``waive_change_fee``)."""
    if waived or is_irrops(rebooking_type):
        return 0
    table = SAME_DAY_FEE if rebooking_type == "same_day" else VOLUNTARY_FEE
    return table.get(fare_class, 75)


def meal_voucher_for_delay(delay_minutes: int) -> str | None:
    """The meal voucher reason a delay earns (None under two hours)."""
    return next((reason for minimum, reason in MEAL_VOUCHER_DELAY_BANDS if delay_minutes >= minimum), None)


def elite_waives(rebooking_type: str, elite_status: str | None) -> bool:
    """Whether the caller's elite status waives the change fee (the agent then passes ``waive_change_fee``):
    Platinum on voluntary changes, Gold and Platinum on same-day changes (App. L.4 "Elite Status Benefits")."""
    if rebooking_type == "voluntary":
        return elite_status == "platinum"
    return rebooking_type == "same_day" and elite_status in ("gold", "platinum")


def journey_id_of(flights: Iterable[str], date: str) -> str:
    return f"FL_{'_'.join(flights)}_{date.replace('-', '')}"


def seat_number(passenger_id: str, fare_class: str, preference: str) -> str:
    """The seat the tool assigns: the fare class's first row plus the passenger's number, letter by preference."""
    digits = passenger_id[-3:]
    row = FIRST_ROW.get(fare_class, 20) + (int(digits) if digits.isdigit() else 0)
    return f"{row}{SEAT_LETTER[preference]}"


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


def _reservation(db: dict[str, Any], code: str) -> dict[str, Any]:
    reservation = db.get("reservations", {}).get(code.upper())
    if reservation is None:
        raise ToolError("not_found", f"Reservation {code.upper()} not found")
    return reservation


def _booking(reservation: dict[str, Any], journey_id: str) -> dict[str, Any]:
    """The reservation's booking of a journey; a live one before a cancelled one (a partial rebook leaves both)."""
    matches = [b for b in reservation.get("bookings", []) if b.get("journey_id") == journey_id]
    if not matches:
        raise ToolError("journey_not_found", f"Journey {journey_id} not found in reservation")
    return next((b for b in matches if b.get("status") != "cancelled"), matches[0])


def _segments(booking: dict[str, Any], flight_number: str | None, *, all_when_omitted: bool) -> list[dict[str, Any]]:
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


def _adjust_seats(journey: dict[str, Any] | None, fare_class: str, delta: int) -> None:
    for segment in (journey or {}).get("segments", []):
        seats = segment.setdefault("available_seats", {})
        seats[fare_class] = (seats.get(fare_class) or 0) + delta


def _with_schedule(booking: dict[str, Any], db: dict[str, Any]) -> dict[str, Any]:
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


def _next_year(date: str) -> str:
    return f"{int(date[:4]) + 1}{date[4:]}"


class GetReservationArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    last_name: str


@REGISTRY.tool(GetReservationArgs, writes=False)
def get_reservation(db: dict[str, Any], args: GetReservationArgs) -> dict[str, Any]:
    """Retrieve a reservation by confirmation number and passenger last name; authenticates the caller."""
    code = args.confirmation_number.upper()
    reservation = _reservation(db, code)
    names = {p.get("last_name", "").lower() for p in reservation.get("passengers", [])}
    if args.last_name and args.last_name.lower() not in names:
        raise ToolError("authentication_failed", f"Last name does not match reservation {code}")
    session_of(db).update(confirmation_number=code, last_name=args.last_name.lower())
    shown = copy.deepcopy(reservation)
    shown["bookings"] = sorted(
        (_with_schedule(b, db) for b in reservation.get("bookings", [])),
        key=lambda b: (b.get("segments", [{}])[0].get("date", ""), b.get("journey_id", "")),
    )
    return {"reservation": shown}


class FlightStatusArgs(AirlineArgs):
    flight_number: FlightNumber
    flight_date: IsoDate


@REGISTRY.tool(FlightStatusArgs, writes=False)
def get_flight_status(db: dict[str, Any], args: FlightStatusArgs) -> dict[str, Any]:
    """A flight's journey on a date (route, times, status, delays, gate); any segment's flight number finds it."""
    flight = args.flight_number.upper()
    journeys = db.get("journeys", {})
    journey = journeys.get(journey_id_of([flight], args.flight_date))
    if journey is None:
        day = args.flight_date.replace("-", "")
        journey = next(
            (
                j
                for j in journeys.values()
                if j.get("date", "").replace("-", "") == day
                and any(s.get("flight_number", "").upper() == flight for s in j.get("segments", []))
            ),
            None,
        )
    if journey is None:
        raise ToolError("not_found", f"Flight {args.flight_number} not found for date {args.flight_date}")
    return {"journey": copy.deepcopy(journey)}


class DisruptionArgs(AirlineArgs):
    flight_number: FlightNumber
    date: IsoDate


@REGISTRY.tool(DisruptionArgs, writes=False)
def get_disruption_info(db: dict[str, Any], args: DisruptionArgs) -> dict[str, Any]:
    """The disruption record of a flight on a date (type, cause, entitlements) for IRROPS handling."""
    flight = args.flight_number.upper()
    disruption = db.get("disruptions", {}).get(f"{flight}_{args.date}")
    if disruption is None:
        raise ToolError("not_found", f"No disruption info found for flight {flight}")
    return {"disruption": copy.deepcopy(disruption)}


class SearchArgs(AirlineArgs):
    origin: AirportCode
    destination: AirportCode
    date: IsoDate
    passenger_count: int = Field(ge=1)
    fare_class: FareClassOrAny  # "any": the cheapest class with seats


def _cheapest_class(fares: dict[str, Any], seats: dict[str, int], count: int) -> str | None:
    open_classes = [c for c in FARE_CLASSES if (seats.get(c) or 0) >= count and fares.get(c) is not None]
    return min(open_classes, key=lambda c: fares[c]) if open_classes else None


@REGISTRY.tool(SearchArgs, writes=False)
def search_rebooking_options(db: dict[str, Any], args: SearchArgs) -> dict[str, Any]:
    """Bookable journeys on a route and date with enough seats; the fare is the asked class's or the cheapest."""
    origin, destination = args.origin.upper(), args.destination.upper()
    options = []
    for journey_id, journey in db.get("journeys", {}).items():
        if (journey.get("origin"), journey.get("destination"), journey.get("date")) != (
            origin,
            destination,
            args.date,
        ):
            continue
        if journey.get("status") not in SEARCHABLE_STATUSES or not journey.get("bookable", False):
            continue
        seats = journey_seats(journey)
        fares = journey.get("fares", {})
        if args.fare_class == "any":
            if not any((n or 0) >= args.passenger_count for n in seats.values() if n is not None):
                continue
            priced = _cheapest_class(fares, seats, args.passenger_count)
        else:
            if (seats.get(args.fare_class) or 0) < args.passenger_count:
                continue
            priced = args.fare_class
        segments = copy.deepcopy(journey.get("segments", []))
        options.append(
            {
                "journey_id": journey_id,
                "origin": journey.get("origin"),
                "destination": journey.get("destination"),
                "num_stops": journey.get("num_stops", 0),
                "total_duration_minutes": journey.get("total_duration_minutes"),
                "segments": segments,
                "departure_time": segments[0]["scheduled_departure"] if segments else None,
                "arrival_time": segments[-1]["scheduled_arrival"] if segments else None,
                "available_seats": {c: seats.get(c, 0) for c in FARE_CLASSES},
                "fare": fares.get(priced) if priced else None,
            }
        )
    options.sort(key=lambda o: o.get("departure_time") or "")
    return {"options": options, "count": len(options), "message": f"{len(options)} flight(s) found"}


class RebookArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    new_journey_id: JourneyId
    rebooking_type: RebookingType
    waive_change_fee: bool
    new_fare_class: FareClass | None = None
    flight_number: FlightNumber | None = None


def _new_segments(
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


@REGISTRY.tool(RebookArgs, writes=True, irreversible=True)
def rebook_flight(db: dict[str, Any], args: RebookArgs) -> dict[str, Any]:
    """Rebook a booked journey (or, with flight_number, one leg of it) onto another journey, with its cost.

    The old booking is kept as cancelled and a new one added; the change fee and the fare difference are collected
    unless the rebooking type is IRROPS."""
    code = args.confirmation_number.upper()
    reservation = _reservation(db, code)
    booking = _booking(reservation, args.journey_id)
    journeys = db.get("journeys", {})
    new = journeys.get(args.new_journey_id)
    if new is None:
        raise ToolError("flight_not_found", f"Flight {args.new_journey_id} not found")
    if not new.get("bookable", True):
        raise ToolError("not_bookable", f"Flight {args.new_journey_id} is not available for booking")
    original_class = booking.get("fare_class", "main_cabin")
    fare_class = args.new_fare_class or original_class
    irrops = is_irrops(args.rebooking_type)
    fee = change_fee(args.rebooking_type, original_class, args.waive_change_fee)
    replaced = _segments(booking, args.flight_number, all_when_omitted=False)[0] if args.flight_number else None
    old_fare = replaced.get("fare_paid", 0) if replaced is not None else booking_fare(booking)
    new_fare = new.get("fares", {}).get(fare_class)
    if new_fare is None:
        raise ToolError(
            "fare_class_not_available", f"Fare class '{fare_class}' is not available on flight {args.new_journey_id}"
        )
    if (journey_seats(new).get(fare_class) or 0) <= 0:
        raise ToolError("no_seats_available", f"No seats available in {fare_class} on flight {args.new_journey_id}")
    difference = new_fare - old_fare

    # The journey's first booking is the one cancelled (EVA-Bench's rule, also after a partial rebook).
    next(b for b in reservation["bookings"] if b.get("journey_id") == args.journey_id)["status"] = "cancelled"
    reservation["bookings"].append(
        {
            "journey_id": args.new_journey_id,
            "fare_class": fare_class,
            "fare_paid": old_fare if irrops else new_fare,
            "status": "confirmed",
            "segments": _new_segments(new, booking, replaced, fare_class, irrops),
        }
    )
    kept_info = []
    if replaced is not None:
        kept = [s for s in booking.get("segments", []) if s.get("flight_number") != args.flight_number]
        if kept:
            reservation["bookings"].append(
                {
                    "journey_id": args.journey_id,
                    "fare_class": original_class,
                    "fare_paid": sum(s.get("fare_paid", 0) for s in kept),
                    "status": "confirmed",
                    "segments": copy.deepcopy(kept),
                }
            )
            kept_info = [
                {k: s.get(k) for k in ("flight_number", "origin", "destination", "fare_paid", "seat")} for s in kept
            ]
    reservation["status"] = "changed"
    _adjust_seats(new, fare_class, -1)
    _adjust_seats(journeys.get(booking.get("journey_id")), original_class, +1)

    legs = new.get("segments", [])
    result: dict[str, Any] = {
        "confirmation_number": code,
        "new_journey": {
            "journey_id": args.new_journey_id,
            "num_stops": new.get("num_stops", 0),
            "segments": copy.deepcopy(legs),
            "departure": legs[0]["scheduled_departure"] if legs else None,
            "arrival": legs[-1]["scheduled_arrival"] if legs else None,
            "origin": new.get("origin"),
            "destination": new.get("destination"),
        },
        "cost_summary": {
            "original_fare_class": original_class,
            "new_fare_class": fare_class,
            "cabin_changed": original_class != fare_class,
            "change_fee": fee,
            "fare_difference": difference,
            "credit_due": max(0, -difference),
            "total_collected": 0 if irrops else fee + max(0, difference),
            "fee_waived": irrops or args.waive_change_fee,
        },
        "message": f"Rebooked to flight {args.new_journey_id}"
        + (f" in {fare_class}" if fare_class != original_class else ""),
    }
    if replaced is not None:
        result["partial_rebook"] = True
        result["replaced_segment"] = {
            "flight_number": args.flight_number,
            **{k: replaced.get(k) for k in ("origin", "destination", "fare_paid")},
        }
        result["kept_segments"] = kept_info
    return result


class StandbyArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    passenger_ids: list[PassengerId]


@REGISTRY.tool(StandbyArgs, writes=True)
def add_to_standby(db: dict[str, Any], args: StandbyArgs) -> dict[str, Any]:
    """List passengers for standby on a journey: on the journey's queue and on the reservation (pending)."""
    code = args.confirmation_number.upper()
    journey = db.get("journeys", {}).get(args.journey_id)
    if journey is None:
        raise ToolError("flight_not_found", f"Flight {args.journey_id} not found")
    if journey.get("status") == "cancelled":
        raise ToolError("flight_cancelled", "Cannot add to standby for cancelled flight")
    reservation = db.get("reservations", {}).get(code)
    if reservation is not None:
        known = {p.get("passenger_id") for p in reservation.get("passengers", [])}
        unknown = [pid for pid in args.passenger_ids if pid not in known]
        if unknown:
            raise ToolError("invalid_passengers", f"Unknown passenger ID(s): {', '.join(unknown)}")
    queue = journey.setdefault("standby_list", [])
    position = len(queue) + len(args.passenger_ids)  # the last listed passenger's place
    if reservation is not None:
        reservation.setdefault("standby_list", []).append(
            {
                "journey_id": args.journey_id,
                "passenger_ids": list(args.passenger_ids),
                "position": position,
                "status": "pending",
            }
        )
    for pid in args.passenger_ids:
        queue.append({"confirmation_number": code, "passenger_id": pid, "position": len(queue) + 1})
    return {
        "confirmation_number": code,
        "journey_id": args.journey_id,
        "standby_list_position": position,
        "message": f"Added {len(args.passenger_ids)} passenger(s) to standby list",
    }


class AssignSeatArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    journey_id: JourneyId
    seat_preference: SeatPreference
    flight_number: FlightNumber | None = None


@REGISTRY.tool(AssignSeatArgs, writes=True)
def assign_seat(db: dict[str, Any], args: AssignSeatArgs) -> dict[str, Any]:
    """Assign a seat of the preferred type (window, aisle, middle) on a booked journey's segment.

    The booking already holds its place, so availability is not decremented."""
    code = args.confirmation_number.upper()
    booking = _booking(_reservation(db, code), args.journey_id)
    segment = _segments(booking, args.flight_number, all_when_omitted=False)[0]
    flight = args.flight_number or segment.get("flight_number", "")
    fare_class = booking.get("fare_class", "main_cabin")
    journey = db.get("journeys", {}).get(args.journey_id, {})
    leg = next((s for s in journey.get("segments", []) if s.get("flight_number") == flight), None)
    if leg is not None:
        if (leg.get("available_seats", {}).get(fare_class) or 0) <= 0:
            raise ToolError("no_seats_available", f"No seats available in {fare_class} fare class")
        seat_types = leg.get("available_seat_types")
        kinds = (
            seat_types.get(fare_class, ["window", "aisle", "middle"])
            if isinstance(seat_types, dict) and seat_types
            else ["window", "aisle", "middle"]
        )
        if args.seat_preference != "no_preference" and args.seat_preference not in kinds:
            raise ToolError(
                "seat_type_unavailable",
                f"No {args.seat_preference} seats available in {fare_class} on this flight. "
                f"Available types: {', '.join(kinds)}",
            )
    seat = seat_number(args.passenger_id, fare_class, args.seat_preference)
    segment["seat"] = seat
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "journey_id": args.journey_id,
        "flight_number": flight,
        "seat_assigned": seat,
        "fare_class": fare_class,
        "preference": args.seat_preference,
        "message": f"Seat {seat} ({args.seat_preference}) assigned",
    }


class BaggageArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    num_bags: int = Field(ge=0, le=MAX_BAGS)
    flight_number: FlightNumber | None = None


@REGISTRY.tool(BaggageArgs, writes=True)
def add_baggage_allowance(db: dict[str, Any], args: BaggageArgs) -> dict[str, Any]:
    """Set the checked bags (0-5) on a journey's segments, or on one named flight of it."""
    code = args.confirmation_number.upper()
    booking = _booking(_reservation(db, code), args.journey_id)
    for segment in _segments(booking, args.flight_number, all_when_omitted=True):
        segment["bags_checked"] = args.num_bags
    return {
        "confirmation_number": code,
        "journey_id": args.journey_id,
        "bags_checked": args.num_bags,
        "message": f"Baggage allowance set to {args.num_bags} checked bag(s)",
    }


class MealRequestArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    journey_id: JourneyId
    meal_type: MealType
    flight_number: FlightNumber | None = None


@REGISTRY.tool(MealRequestArgs, writes=True)
def add_meal_request(db: dict[str, Any], args: MealRequestArgs) -> dict[str, Any]:
    """Set the special meal on a journey's segments, or on one named flight of it."""
    code = args.confirmation_number.upper()
    booking = _booking(_reservation(db, code), args.journey_id)
    for segment in _segments(booking, args.flight_number, all_when_omitted=True):
        segment["meal_request"] = args.meal_type
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "journey_id": args.journey_id,
        "meal_type": args.meal_type,
        "message": f"{args.meal_type} meal request added",
    }


class TravelCreditArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    amount: float = Field(gt=0)
    credit_reason: CreditReason


@REGISTRY.tool(TravelCreditArgs, writes=True)
def issue_travel_credit(db: dict[str, Any], args: TravelCreditArgs) -> dict[str, Any]:
    """Issue a travel credit valid 12 months (code ``TC<confirmation><PAX>``)."""
    code = args.confirmation_number.upper()
    _reservation(db, code)
    credit_code = f"TC{code}{args.passenger_id[:3].upper()}"
    today = db["_current_date"]
    db.setdefault("travel_credits", {})[credit_code] = {
        "credit_code": credit_code,
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "amount": args.amount,
        "credit_reason": args.credit_reason,
        "issued_date": today,
        "expiry_date": _next_year(today),
        "status": "active",
    }
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "credit_code": credit_code,
        "amount": args.amount,
        "valid_months": 12,
        "message": f"${args.amount} travel credit issued with code {credit_code}",
    }


class HotelVoucherArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    num_nights: int = Field(ge=1)


@REGISTRY.tool(HotelVoucherArgs, writes=True)
def issue_hotel_voucher(db: dict[str, Any], args: HotelVoucherArgs) -> dict[str, Any]:
    """Issue an airport-area hotel voucher for up to three nights (code ``HOTEL-<confirmation>``)."""
    code = args.confirmation_number.upper()
    _reservation(db, code)
    if args.num_nights > MAX_HOTEL_NIGHTS:
        raise ToolError("exceeds_authority", f"Hotel vouchers can be issued for maximum of {MAX_HOTEL_NIGHTS} nights")
    voucher_code = f"HOTEL-{code}"
    db.setdefault("hotel_vouchers", {})[voucher_code] = {
        "voucher_code": voucher_code,
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "num_nights": args.num_nights,
        "issued_date": db["_current_date"],
        "status": "active",
    }
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "voucher_code": voucher_code,
        "number_of_nights": args.num_nights,
        "valid_at": "Any hotels in airport area",
        "message": f"Hotel voucher {voucher_code} issued for {args.num_nights} nights",
    }


class MealVoucherArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    voucher_reason: VoucherReason


@REGISTRY.tool(MealVoucherArgs, writes=True, irreversible=True)
def issue_meal_voucher(db: dict[str, Any], args: MealVoucherArgs) -> dict[str, Any]:
    """Issue an airport meal voucher; its amount follows from the reason (code ``MEAL-<confirmation>-PAX0``)."""
    code = args.confirmation_number.upper()
    _reservation(db, code)
    amount = MEAL_VOUCHER_AMOUNT[args.voucher_reason]
    voucher_code = f"MEAL-{code}-{args.passenger_id[:4].upper()}"
    db.setdefault("meal_vouchers", {})[voucher_code] = {
        "voucher_code": voucher_code,
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "amount": amount,
        "voucher_reason": args.voucher_reason,
        "issued_date": db["_current_date"],
        "status": "active",
    }
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "voucher_code": voucher_code,
        "amount": amount,
        "valid_at": "Airport terminal restaurants",
        "message": f"${amount} meal voucher issued with code {voucher_code}",
    }


class CancelArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    cancellation_reason: CancellationReason


def cancellation_terms(fare_type: str, reason: str, fare: float) -> dict[str, Any]:
    """Refund or credit for a cancelled booking: a refundable fare, an IRROPS refund or the 24-hour rule refund in
    full; otherwise the fare less the cancellation fee becomes credit."""
    refundable = reason in FEE_FREE_CANCELLATIONS or fare_type == "refundable"
    fee = 0 if refundable else NON_REFUNDABLE_CANCELLATION_FEE
    net = max(0, fare - fee)
    return {
        "is_refundable": refundable,
        "cancellation_fee": fee,
        "refund_amount_eligible": net if refundable else 0,
        "credit_amount_eligible": 0 if refundable else net,
    }


@REGISTRY.tool(CancelArgs, writes=True, irreversible=True)
def cancel_reservation(db: dict[str, Any], args: CancelArgs) -> dict[str, Any]:
    """Cancel one booked journey and state the refund or travel credit it is eligible for.

    The reservation is cancelled once all its bookings are."""
    code = args.confirmation_number.upper()
    reservation = _reservation(db, code)
    booking = _booking(reservation, args.journey_id)
    if booking.get("status") == "cancelled":
        raise ToolError("already_cancelled", f"Journey {args.journey_id} is already cancelled")
    terms = cancellation_terms(reservation.get("fare_type", ""), args.cancellation_reason, booking_fare(booking))
    booking["status"] = "cancelled"
    _adjust_seats(db.get("journeys", {}).get(args.journey_id), booking.get("fare_class", "main_cabin"), +1)
    all_cancelled = all(b.get("status") == "cancelled" for b in reservation.get("bookings", []))
    if all_cancelled:
        reservation["status"] = "cancelled"
    return {
        "confirmation_number": code,
        "journey_id": args.journey_id,
        **terms,
        "reservation_status": "cancelled" if all_cancelled else "active",
        "message": f"Journey {args.journey_id} cancelled",
    }


class RefundArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    refund_amount: float = Field(gt=0)
    refund_type: RefundType


REFUND_PROCESSING_DAYS = 7


@REGISTRY.tool(RefundArgs, writes=True, irreversible=True)
def process_refund(db: dict[str, Any], args: RefundArgs) -> dict[str, Any]:
    """Refund to the original payment after a cancellation; one call per refund type (fare, ancillary fees).

    The refund id counts this tool's calls (``REF-<confirmation>-001``)."""
    code = args.confirmation_number.upper()
    _reservation(db, code)
    refund_id = f"REF-{code}-{call_index():03d}"
    db.setdefault("refunds", {})[refund_id] = {
        "refund_id": refund_id,
        "confirmation_number": code,
        "refund_amount": args.refund_amount,
        "refund_type": args.refund_type,
        "processing_days": REFUND_PROCESSING_DAYS,
        "initiated_date": db["_current_date"],
        "status": "processing",
    }
    return {
        "confirmation_number": code,
        "refund_id": refund_id,
        "refund_amount": args.refund_amount,
        "refund_type": args.refund_type,
        "processing_days": REFUND_PROCESSING_DAYS,
        "message": f"${args.refund_amount} refund initiated, processing time {REFUND_PROCESSING_DAYS} business days",
    }


class TransferArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    transfer_reason: str  # free text in EVA-Bench's schema: passenger_requested, policy_exception_needed, ...
    issue_summary: str


@REGISTRY.tool(TransferArgs, writes=False)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent with a summary (the DB is unchanged, as in EVA-Bench)."""
    code = args.confirmation_number.upper()
    _reservation(db, code)
    return {
        "transfer_id": f"TRF-{code}-{call_index():03d}",
        "confirmation_number": code,
        "transfer_reason": args.transfer_reason,
        "issue_summary": args.issue_summary,
        "estimated_wait": "2-3 minutes",
        "message": "Transferring to live agent",
    }
