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
from typing import Any

from evalkit.domains.airline.api import (
    FIELD_ERRORS,
    AssignSeatArgs,
    BaggageArgs,
    CancelArgs,
    DisruptionArgs,
    FlightStatusArgs,
    GetReservationArgs,
    HotelVoucherArgs,
    MealRequestArgs,
    MealVoucherArgs,
    RebookArgs,
    RefundArgs,
    SearchArgs,
    StandbyArgs,
    TransferArgs,
    TravelCreditArgs,
)
from evalkit.domains.airline.db import (
    adjust_seats,
    booking_fare,
    cheapest_class,
    find_booking,
    find_flight,
    find_reservation,
    journey_seats,
    journey_summary,
    new_segments,
    next_year,
    search_option,
    target_segments,
    with_schedule,
)
from evalkit.domains.airline.policy import (
    MAX_HOTEL_NIGHTS,
    MEAL_VOUCHER_AMOUNT,
    REFUND_PROCESSING_DAYS,
    SEARCHABLE_STATUSES,
    cancellation_terms,
    change_fee,
    is_irrops,
    seat_number,
)
from evalkit.domains.base import ToolError, ToolRegistry, call_index, session_of

# irreversible=True marks MM-tau-p2's high-risk actions (changes, cancellations, money) that the caller must confirm
# first; seats, bags, meals, standby and vouchers write to the DB but can be redone or are not charged.


REGISTRY = ToolRegistry(field_error_types=FIELD_ERRORS)


@REGISTRY.tool(GetReservationArgs, writes=False)
def get_reservation(db: dict[str, Any], args: GetReservationArgs) -> dict[str, Any]:
    """Retrieve a reservation by confirmation number and passenger last name; authenticates the caller."""
    code = args.confirmation_number.upper()
    reservation = find_reservation(db, code)
    names = {p.get("last_name", "").lower() for p in reservation.get("passengers", [])}
    if args.last_name and args.last_name.lower() not in names:
        raise ToolError("authentication_failed", f"Last name does not match reservation {code}")
    session_of(db).update(confirmation_number=code, last_name=args.last_name.lower())
    shown = copy.deepcopy(reservation)
    shown["bookings"] = sorted(
        (with_schedule(b, db) for b in reservation.get("bookings", [])),
        key=lambda b: (b.get("segments", [{}])[0].get("date", ""), b.get("journey_id", "")),
    )
    return {"reservation": shown}


@REGISTRY.tool(FlightStatusArgs, writes=False)
def get_flight_status(db: dict[str, Any], args: FlightStatusArgs) -> dict[str, Any]:
    """A flight's journey on a date (route, times, status, delays, gate); any segment's flight number finds it."""
    journey = find_flight(db, args.flight_number.upper(), args.flight_date)
    if journey is None:
        raise ToolError("not_found", f"Flight {args.flight_number} not found for date {args.flight_date}")
    return {"journey": copy.deepcopy(journey)}


@REGISTRY.tool(DisruptionArgs, writes=False)
def get_disruption_info(db: dict[str, Any], args: DisruptionArgs) -> dict[str, Any]:
    """The disruption record of a flight on a date (type, cause, entitlements) for IRROPS handling."""
    flight = args.flight_number.upper()
    disruption = db.get("disruptions", {}).get(f"{flight}_{args.date}")
    if disruption is None:
        raise ToolError("not_found", f"No disruption info found for flight {flight}")
    return {"disruption": copy.deepcopy(disruption)}


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
            priced = cheapest_class(fares, seats, args.passenger_count)
        else:
            if (seats.get(args.fare_class) or 0) < args.passenger_count:
                continue
            priced = args.fare_class
        options.append(search_option(journey_id, journey, seats, fares.get(priced) if priced else None))
    options.sort(key=lambda o: o.get("departure_time") or "")
    return {"options": options, "count": len(options), "message": f"{len(options)} flight(s) found"}


@REGISTRY.tool(RebookArgs, writes=True, irreversible=True)
def rebook_flight(db: dict[str, Any], args: RebookArgs) -> dict[str, Any]:
    """Rebook a booked journey (or, with flight_number, one leg of it) onto another journey, with its cost.

    The old booking is kept as cancelled and a new one added; the change fee and the fare difference are collected
    unless the rebooking type is IRROPS."""
    code = args.confirmation_number.upper()
    reservation = find_reservation(db, code)
    booking = find_booking(reservation, args.journey_id)
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
    replaced = target_segments(booking, args.flight_number, all_when_omitted=False)[0] if args.flight_number else None
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
            "segments": new_segments(new, booking, replaced, fare_class, irrops),
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
    adjust_seats(new, fare_class, -1)
    adjust_seats(journeys.get(booking.get("journey_id")), original_class, +1)

    result: dict[str, Any] = {
        "confirmation_number": code,
        "new_journey": journey_summary(args.new_journey_id, new),
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


@REGISTRY.tool(AssignSeatArgs, writes=True)
def assign_seat(db: dict[str, Any], args: AssignSeatArgs) -> dict[str, Any]:
    """Assign a seat of the preferred type (window, aisle, middle) on a booked journey's segment.

    The booking already holds its place, so availability is not decremented."""
    code = args.confirmation_number.upper()
    booking = find_booking(find_reservation(db, code), args.journey_id)
    segment = target_segments(booking, args.flight_number, all_when_omitted=False)[0]
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


def _set_on_segments(db: dict[str, Any], args: BaggageArgs | MealRequestArgs, field: str, value: Any) -> str:
    """Set ``field`` on the journey's segments, or on its one named flight; returns the confirmation number."""
    code = args.confirmation_number.upper()
    booking = find_booking(find_reservation(db, code), args.journey_id)
    for segment in target_segments(booking, args.flight_number, all_when_omitted=True):
        segment[field] = value
    return code


@REGISTRY.tool(BaggageArgs, writes=True)
def add_baggage_allowance(db: dict[str, Any], args: BaggageArgs) -> dict[str, Any]:
    """Set the checked bags (0-5) on a journey's segments, or on one named flight of it."""
    code = _set_on_segments(db, args, "bags_checked", args.num_bags)
    return {
        "confirmation_number": code,
        "journey_id": args.journey_id,
        "bags_checked": args.num_bags,
        "message": f"Baggage allowance set to {args.num_bags} checked bag(s)",
    }


@REGISTRY.tool(MealRequestArgs, writes=True)
def add_meal_request(db: dict[str, Any], args: MealRequestArgs) -> dict[str, Any]:
    """Set the special meal on a journey's segments, or on one named flight of it."""
    code = _set_on_segments(db, args, "meal_request", args.meal_type)
    return {
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "journey_id": args.journey_id,
        "meal_type": args.meal_type,
        "message": f"{args.meal_type} meal request added",
    }


@REGISTRY.tool(TravelCreditArgs, writes=True)
def issue_travel_credit(db: dict[str, Any], args: TravelCreditArgs) -> dict[str, Any]:
    """Issue a travel credit valid 12 months (code ``TC<confirmation><PAX>``)."""
    code = args.confirmation_number.upper()
    find_reservation(db, code)
    credit_code = f"TC{code}{args.passenger_id[:3].upper()}"
    today = db["_current_date"]
    db.setdefault("travel_credits", {})[credit_code] = {
        "credit_code": credit_code,
        "confirmation_number": code,
        "passenger_id": args.passenger_id,
        "amount": args.amount,
        "credit_reason": args.credit_reason,
        "issued_date": today,
        "expiry_date": next_year(today),
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


@REGISTRY.tool(HotelVoucherArgs, writes=True)
def issue_hotel_voucher(db: dict[str, Any], args: HotelVoucherArgs) -> dict[str, Any]:
    """Issue an airport-area hotel voucher for up to three nights (code ``HOTEL-<confirmation>``)."""
    code = args.confirmation_number.upper()
    find_reservation(db, code)
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


@REGISTRY.tool(MealVoucherArgs, writes=True, irreversible=True)
def issue_meal_voucher(db: dict[str, Any], args: MealVoucherArgs) -> dict[str, Any]:
    """Issue an airport meal voucher; its amount follows from the reason (code ``MEAL-<confirmation>-PAX0``)."""
    code = args.confirmation_number.upper()
    find_reservation(db, code)
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


@REGISTRY.tool(CancelArgs, writes=True, irreversible=True)
def cancel_reservation(db: dict[str, Any], args: CancelArgs) -> dict[str, Any]:
    """Cancel one booked journey and state the refund or travel credit it is eligible for.

    The reservation is cancelled once all its bookings are."""
    code = args.confirmation_number.upper()
    reservation = find_reservation(db, code)
    booking = find_booking(reservation, args.journey_id)
    if booking.get("status") == "cancelled":
        raise ToolError("already_cancelled", f"Journey {args.journey_id} is already cancelled")
    terms = cancellation_terms(reservation.get("fare_type", ""), args.cancellation_reason, booking_fare(booking))
    booking["status"] = "cancelled"
    adjust_seats(db.get("journeys", {}).get(args.journey_id), booking.get("fare_class", "main_cabin"), +1)
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


@REGISTRY.tool(RefundArgs, writes=True, irreversible=True)
def process_refund(db: dict[str, Any], args: RefundArgs) -> dict[str, Any]:
    """Refund to the original payment after a cancellation; one call per refund type (fare, ancillary fees).

    The refund id counts this tool's calls (``REF-<confirmation>-001``)."""
    code = args.confirmation_number.upper()
    find_reservation(db, code)
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


@REGISTRY.tool(TransferArgs, writes=False)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent with a summary (the DB is unchanged, as in EVA-Bench)."""
    code = args.confirmation_number.upper()
    find_reservation(db, code)
    return {
        "transfer_id": f"TRF-{code}-{call_index():03d}",
        "confirmation_number": code,
        "transfer_reason": args.transfer_reason,
        "issue_summary": args.issue_summary,
        "estimated_wait": "2-3 minutes",
        "message": "Transferring to live agent",
    }
