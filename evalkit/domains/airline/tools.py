"""SkyWay Airlines tools (names and arguments after EVA-Bench Table 42 and the J.1 tool-call logs).

Fees follow the CSM agent policy (EVA-Bench App. L.4): voluntary change $75 for basic economy / main cabin /
premium economy and $0 for business / first, waived for Platinum; same-day change $199 for basic economy and
$75 otherwise, waived for Gold and Platinum; IRROPS and missed connections waive all fees.
Meal vouchers: $12 for a delay of 2 h to under 4 h, $15 from 4 h.
"""

from __future__ import annotations

from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry

REGISTRY = ToolRegistry()

FareClass = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first"]
RebookingType = Literal["voluntary", "same_day", "irrops", "missed_connection"]
SeatPreference = Literal["window", "aisle", "middle", "no_preference"]

VOLUNTARY_FEE = {"basic_economy": 75, "main_cabin": 75, "premium_economy": 75, "business": 0, "first": 0}
SAME_DAY_FEE = {"basic_economy": 199, "main_cabin": 75, "premium_economy": 75, "business": 75, "first": 75}
MEAL_VOUCHER_DELAY_BANDS = ((240, 15, "delay_over_4_hours"), (120, 12, "delay_over_2_hours"))


def change_fee(rebooking_type: str, fare_class: str, elite_status: str) -> int:
    """The policy fee for a change; the executor charges it, so an agent that quotes another fee is caught."""
    if rebooking_type in ("irrops", "missed_connection"):
        return 0
    if rebooking_type == "same_day":
        return 0 if elite_status in ("gold", "platinum") else SAME_DAY_FEE[fare_class]
    return 0 if elite_status == "platinum" else VOLUNTARY_FEE[fare_class]


def meal_voucher_for_delay(delay_minutes: int) -> tuple[int, str] | None:
    for minimum, amount, reason in MEAL_VOUCHER_DELAY_BANDS:
        if delay_minutes >= minimum:
            return amount, reason
    return None


def _reservation(db: dict[str, Any], code: str) -> dict[str, Any]:
    reservation = db["reservations"].get(code.upper())
    if reservation is None:
        raise ToolError("not_found", f"no reservation with confirmation number {code}")
    return reservation


def _authenticated(db: dict[str, Any], code: str) -> dict[str, Any]:
    if db.get("session", {}).get("confirmation_number", "").upper() != code.upper():
        raise ToolError(
            "authentication_required", "get_reservation with confirmation number and last name must succeed first"
        )
    return _reservation(db, code)


def _booking(reservation: dict[str, Any], journey_id: str) -> dict[str, Any]:
    for booking in reservation["bookings"]:
        if booking["journey_id"] == journey_id:
            return booking
    raise ToolError("journey_not_on_reservation", f"journey {journey_id} is not on this reservation")


def _journey(db: dict[str, Any], journey_id: str) -> dict[str, Any]:
    journey = db["journeys"].get(journey_id)
    if journey is None:
        raise ToolError("journey_not_found", f"no journey {journey_id}")
    return journey


def _public_journey(journey: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in journey.items() if k not in ("seat_map", "assigned_seats")}


class GetReservationArgs(ToolArgs):
    confirmation_number: str
    last_name: str


@REGISTRY.tool(GetReservationArgs, writes=False)
def get_reservation(db: dict[str, Any], args: GetReservationArgs) -> dict[str, Any]:
    """Look up a reservation by confirmation number and last name; authenticates the caller."""
    reservation = _reservation(db, args.confirmation_number)
    names = {p["last_name"].lower() for p in reservation["passengers"]}
    if args.last_name.lower() not in names:
        raise ToolError("last_name_mismatch", "the last name does not match the reservation")
    db["session"] = {"confirmation_number": reservation["confirmation_number"], "last_name": args.last_name.lower()}
    return {"reservation": reservation}


class FlightStatusArgs(ToolArgs):
    flight_number: str
    date: str


@REGISTRY.tool(FlightStatusArgs, writes=False)
def get_flight_status(db: dict[str, Any], args: FlightStatusArgs) -> dict[str, Any]:
    """Status and delay of a flight on a date."""
    for journey in db["journeys"].values():
        if args.flight_number.upper() in journey["flights"] and journey["date"] == args.date:
            return {
                "flight_number": args.flight_number.upper(),
                "date": args.date,
                "flight_status": journey["status"],
                "delay_minutes": journey.get("delay_minutes", 0),
                "departure": journey["departure"],
            }
    raise ToolError("flight_not_found", f"no flight {args.flight_number} on {args.date}")


class SearchArgs(ToolArgs):
    origin: str
    destination: str
    date: str
    passenger_count: int = 1
    fare_class: FareClass | Literal["any"] = "any"


@REGISTRY.tool(SearchArgs, writes=False)
def search_rebooking_options(db: dict[str, Any], args: SearchArgs) -> dict[str, Any]:
    """Bookable journeys on a route and date, with seats and fares per fare class."""
    options = [
        _public_journey(j)
        for j in db["journeys"].values()
        if j["origin"] == args.origin.upper()
        and j["destination"] == args.destination.upper()
        and j["date"] == args.date
        and j["bookable"]
        and (args.fare_class == "any" or j["seats"].get(args.fare_class, 0) >= args.passenger_count)
    ]
    options.sort(key=lambda j: j["departure"])
    return {"options": options}


class RebookArgs(ToolArgs):
    confirmation_number: str
    journey_id: str
    new_journey_id: str
    rebooking_type: RebookingType
    waive_change_fee: bool = False
    new_fare_class: FareClass | None = None


@REGISTRY.tool(RebookArgs, writes=True)
def rebook_flight(db: dict[str, Any], args: RebookArgs) -> dict[str, Any]:
    """Move a booking to another journey, charging the policy change fee and fare difference."""
    reservation = _authenticated(db, args.confirmation_number)
    booking = _booking(reservation, args.journey_id)
    old, new = _journey(db, args.journey_id), _journey(db, args.new_journey_id)
    fare_class = args.new_fare_class or booking["fare_class"]
    if not new["bookable"] or new["seats"].get(fare_class, 0) < 1:
        raise ToolError("no_availability", f"journey {args.new_journey_id} has no {fare_class} seats")
    elite = reservation["passengers"][0].get("elite_status", "none")
    fee = 0 if args.waive_change_fee else change_fee(args.rebooking_type, booking["fare_class"], elite)
    fare_difference = new["fares"][fare_class] - booking["fare_paid"]
    old["seats"][booking["fare_class"]] += 1
    new["seats"][fare_class] -= 1
    booking.update(
        journey_id=new["journey_id"],
        flight_number=new["flights"][0],
        date=new["date"],
        departure=new["departure"],
        arrival=new["arrival"],
        fare_class=fare_class,
        seat=None,
    )
    reservation["status"] = "changed"
    reservation["change_fee"] = fee
    reservation["fare_difference"] = fare_difference
    return {"booking": booking, "change_fee": fee, "fare_difference": fare_difference}


class AssignSeatArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    journey_id: str
    seat_preference: SeatPreference


@REGISTRY.tool(AssignSeatArgs, writes=True)
def assign_seat(db: dict[str, Any], args: AssignSeatArgs) -> dict[str, Any]:
    """Assign the first free seat of the preferred type on a journey."""
    reservation = _authenticated(db, args.confirmation_number)
    booking = _booking(reservation, args.journey_id)
    journey = _journey(db, args.journey_id)
    kinds = ["window", "aisle", "middle"] if args.seat_preference == "no_preference" else [args.seat_preference]
    taken = set(journey.setdefault("assigned_seats", []))
    for kind in kinds:
        for seat in journey["seat_map"].get(kind, []):
            if seat not in taken:
                journey["assigned_seats"].append(seat)
                booking["seat"] = seat
                return {"seat": seat, "passenger_id": args.passenger_id, "journey_id": args.journey_id}
    raise ToolError("no_seat_available", f"no free {args.seat_preference} seat on {args.journey_id}")


class CancelArgs(ToolArgs):
    confirmation_number: str
    reason: str = "voluntary"


@REGISTRY.tool(CancelArgs, writes=True)
def cancel_reservation(db: dict[str, Any], args: CancelArgs) -> dict[str, Any]:
    """Cancel every booking on a reservation."""
    reservation = _authenticated(db, args.confirmation_number)
    if reservation["status"] == "cancelled":
        raise ToolError("already_cancelled", "the reservation is already cancelled")
    reservation["status"] = "cancelled"
    for booking in reservation["bookings"]:
        booking["status"] = "cancelled"
    return {"confirmation_number": reservation["confirmation_number"], "reservation_status": "cancelled"}


class RefundArgs(ToolArgs):
    confirmation_number: str
    amount: float
    refund_method: Literal["original_payment"] = "original_payment"


@REGISTRY.tool(RefundArgs, writes=True)
def process_refund(db: dict[str, Any], args: RefundArgs) -> dict[str, Any]:
    """Refund a cancelled refundable reservation to the original payment method."""
    reservation = _authenticated(db, args.confirmation_number)
    if reservation["status"] != "cancelled":
        raise ToolError("not_cancelled", "cancel the reservation before refunding it")
    if reservation["fare_type"] != "refundable":
        raise ToolError("non_refundable_fare", "non-refundable fares get travel credit, not a refund")
    paid = sum(b["fare_paid"] for b in reservation["bookings"])
    if args.amount > paid:
        raise ToolError("amount_exceeds_fare", f"refund {args.amount} exceeds the {paid} paid")
    refund_id = f"RF-{reservation['confirmation_number']}-{len(db.setdefault('refunds', {})) + 1}"
    db["refunds"][refund_id] = {
        "refund_id": refund_id,
        "confirmation_number": reservation["confirmation_number"],
        "amount": args.amount,
        "refund_method": args.refund_method,
    }
    return {"refund_id": refund_id, "amount": args.amount, "processing_days": "5-7 business days"}


class MealVoucherArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    amount: float
    reason: str


@REGISTRY.tool(MealVoucherArgs, writes=True)
def issue_meal_voucher(db: dict[str, Any], args: MealVoucherArgs) -> dict[str, Any]:
    """Issue an airport meal voucher."""
    reservation = _authenticated(db, args.confirmation_number)
    voucher_id = f"MV-{reservation['confirmation_number']}-{len(db.setdefault('vouchers', {})) + 1}"
    db["vouchers"][voucher_id] = {"voucher_id": voucher_id, **args.model_dump()}
    return {"voucher_id": voucher_id}


class TransferArgs(ToolArgs):
    reason: str


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent (recorded, so an unneeded transfer fails task completion)."""
    db.setdefault("transfers", []).append({"reason": args.reason})
    return {"transferred": True}
