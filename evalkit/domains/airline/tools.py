"""SkyWay Airlines tools (names and arguments after EVA-Bench Table 42 and the J.1 tool-call logs).

Fees follow the CSM agent policy (EVA-Bench App. L.4): voluntary change $75 for basic economy / main cabin /
premium economy and $0 for business / first, waived for Platinum; same-day change $199 for basic economy and
$75 otherwise, waived for Gold and Platinum; IRROPS and missed connections waive all fees.
Meal vouchers: $12 for a delay of 2 h to under 4 h, $15 from 4 h, $15 for a cancellation rebooked the same day,
$25 for one rebooked overnight; hotel vouchers one night per night between the original and the new flight, at most
three. Standby is free, same day only, on an earlier flight than the confirmed one.

EVA-Bench names 13 of its 15 airline tools (Table 42 and the J.1 logs); the other two are ours and sit on ancillaries
the policy asks agents to carry over (App. L.4 principle 5): ``update_meal_request`` and ``get_standby_list``.
The paper gives no cancellation-fee amount for non-refundable fares ("cancellation fee deducted from credit
amount"); we charge the voluntary change fee of the fare class (``cancellation_fee``), waived for Platinum.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry

# irreversible=True marks MM-tau-p2's high-risk actions (cancellations, charges, changes) that the caller must
# confirm first; seat assignment and transfers write to the DB but are neither irreversible nor charged.
REGISTRY = ToolRegistry()

FareClass = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first"]
RebookingType = Literal["voluntary", "same_day", "irrops", "missed_connection"]
SeatPreference = Literal["window", "aisle", "middle", "no_preference"]
MealReason = Literal["delay_over_2_hours", "delay_over_4_hours", "cancellation_wait_same_day", "irrops_overnight"]
HotelReason = Literal["irrops_overnight", "missed_connection_overnight"]
CreditReason = Literal["fare_downgrade", "non_refundable_cancellation"]
RefundType = Literal["standard", "irrops", "twenty_four_hour"]
# The escalation triggers of App. L.4, as categories so an end state can be compared whatever words an agent uses.
TransferReason = Literal[
    "caller_request",  # the caller asks for a live agent or insists on a supervisor
    "policy_exception",  # e.g. a bereavement / medical / military fee waiver that needs documentation
    "no_acceptable_option",  # alternatives exhausted after a disruption
    "unresolved_after_two_attempts",
    "authentication_failed",
    "system_issue",
]
MealRequest = Literal["vegetarian", "vegan", "kosher", "halal", "gluten_free", "child", "diabetic"]

VOLUNTARY_FEE = {"basic_economy": 75, "main_cabin": 75, "premium_economy": 75, "business": 0, "first": 0}
SAME_DAY_FEE = {"basic_economy": 199, "main_cabin": 75, "premium_economy": 75, "business": 75, "first": 75}
MEAL_VOUCHER_DELAY_BANDS = ((240, 15, "delay_over_4_hours"), (120, 12, "delay_over_2_hours"))
MEAL_VOUCHER_AMOUNT = {
    "delay_over_2_hours": 12,
    "delay_over_4_hours": 15,
    "cancellation_wait_same_day": 15,
    "irrops_overnight": 25,
}
IRROPS_DELAY_MINUTES = 120  # delay or schedule change > 2 h: all fees waived
REFUND_DELAY_MINUTES = 240  # airline cancels or delays > 4 h: full refund whatever the fare
MAX_HOTEL_NIGHTS = 3
ELITE_PRIORITY = {"platinum": 1, "gold": 2, "silver": 3}  # standby order; then confirmed same-day changers, general


def change_fee(rebooking_type: str, fare_class: str, elite_status: str) -> int:
    """The policy fee for a change; the executor charges it, so an agent that quotes another fee is caught."""
    if rebooking_type in ("irrops", "missed_connection"):
        return 0
    if rebooking_type == "same_day":
        return 0 if elite_status in ("gold", "platinum") else SAME_DAY_FEE[fare_class]
    return 0 if elite_status == "platinum" else VOLUNTARY_FEE[fare_class]


def cancellation_fee(fare_class: str, elite_status: str) -> int:
    """Deducted from a non-refundable fare's travel credit (our amount: the paper names the fee, not its size)."""
    return 0 if elite_status == "platinum" else VOLUNTARY_FEE[fare_class]


def disruption_of(journey: dict[str, Any]) -> dict[str, Any]:
    """What the disruption desk knows about a journey: type, delay, cause and the entitlements they trigger."""
    status = journey["status"]
    delay = int(journey.get("delay_minutes", 0))
    kind = {"cancelled": "cancellation", "delayed": "delay", "schedule_change": "schedule_change"}.get(status, "none")
    cancelled = kind == "cancellation"
    return {
        "disruption_type": kind,
        "delay_minutes": delay,
        "cause": journey.get("cause") if kind != "none" else None,
        "irrops": cancelled or (kind in ("delay", "schedule_change") and delay > IRROPS_DELAY_MINUTES),
        "refund_eligible": cancelled or delay > REFUND_DELAY_MINUTES,
        "rebooking_window_days": 7,
    }


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


@REGISTRY.tool(RebookArgs, writes=True, irreversible=True)
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
    # Involuntary changes protect the passenger's fare: no difference either way (App. L.4 IRROPS waivers).
    involuntary = args.rebooking_type in ("irrops", "missed_connection")
    fare_difference = 0 if involuntary else new["fares"][fare_class] - booking["fare_paid"]
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
        meal_request=None,  # ancillaries stay with the old flight until the agent carries them over
        status="confirmed",
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
    reason: Literal["voluntary", "irrops", "twenty_four_hour"] = "voluntary"


@REGISTRY.tool(CancelArgs, writes=True, irreversible=True)
def cancel_reservation(db: dict[str, Any], args: CancelArgs) -> dict[str, Any]:
    """Cancel every booking on a reservation."""
    reservation = _authenticated(db, args.confirmation_number)
    if reservation["status"] == "cancelled":
        raise ToolError("already_cancelled", "the reservation is already cancelled")
    reservation["status"] = "cancelled"
    reservation["cancellation_reason"] = args.reason
    for booking in reservation["bookings"]:
        booking["status"] = "cancelled"
    return {"confirmation_number": reservation["confirmation_number"], "reservation_status": "cancelled"}


def _irrops_refundable(db: dict[str, Any], reservation: dict[str, Any]) -> bool:
    return any(disruption_of(_journey(db, b["journey_id"]))["refund_eligible"] for b in reservation["bookings"])


def _within_24_hours(db: dict[str, Any], reservation: dict[str, Any]) -> bool:
    """Booked less than 24 h ago and at least 7 days before departure (App. L.4 24-hour rule)."""
    now = datetime.fromisoformat(db["clock"]["now"])
    booked = datetime.fromisoformat(reservation["booking_date"])
    first = min(datetime.fromisoformat(f"{b['date']}T{b['departure']}") for b in reservation["bookings"])
    return now - booked <= timedelta(hours=24) and first - booked >= timedelta(days=7)


class RefundArgs(ToolArgs):
    confirmation_number: str
    amount: float
    refund_type: RefundType = "standard"
    refund_method: Literal["original_payment"] = "original_payment"


@REGISTRY.tool(RefundArgs, writes=True, irreversible=True)
def process_refund(db: dict[str, Any], args: RefundArgs) -> dict[str, Any]:
    """Refund a cancelled reservation to the original payment: refundable fares, IRROPS, or the 24-hour rule."""
    reservation = _authenticated(db, args.confirmation_number)
    if reservation["status"] != "cancelled":
        raise ToolError("not_cancelled", "cancel the reservation before refunding it")
    eligible = {
        "standard": reservation["fare_type"] == "refundable",
        "irrops": _irrops_refundable(db, reservation),
        "twenty_four_hour": _within_24_hours(db, reservation),
    }[args.refund_type]
    if not eligible:
        raise ToolError("not_refund_eligible", f"a {args.refund_type} refund does not apply to this reservation")
    paid = sum(b["fare_paid"] for b in reservation["bookings"])
    if args.amount > paid:
        raise ToolError("amount_exceeds_fare", f"refund {args.amount} exceeds the {paid} paid")
    refund_id = _new_id(db, "refunds", "RF", reservation)
    db["refunds"][refund_id] = {
        "refund_id": refund_id,
        "confirmation_number": reservation["confirmation_number"],
        "amount": args.amount,
        "refund_type": args.refund_type,
        "refund_method": args.refund_method,
    }
    return {"refund_id": refund_id, "amount": args.amount, "processing_days": "5-7 business days"}


class TravelCreditArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    amount: float = Field(gt=0)
    reason: CreditReason


@REGISTRY.tool(TravelCreditArgs, writes=True)
def issue_travel_credit(db: dict[str, Any], args: TravelCreditArgs) -> dict[str, Any]:
    """Travel credit for a fare downgrade or a cancelled non-refundable fare; valid 12 months, named passenger."""
    reservation = _authenticated_passenger(db, args.confirmation_number, args.passenger_id)
    if args.reason == "non_refundable_cancellation" and reservation["status"] != "cancelled":
        raise ToolError("not_cancelled", "cancel the reservation before issuing its credit")
    credit_id = _new_id(db, "credits", "TC", reservation)
    expires = (datetime.fromisoformat(db["clock"]["now"]) + timedelta(days=365)).date().isoformat()
    db["credits"][credit_id] = {"credit_id": credit_id, **args.model_dump(), "expires": expires}
    return {"credit_id": credit_id, "amount": args.amount, "expires": expires}


def _new_id(db: dict[str, Any], table: str, prefix: str, reservation: dict[str, Any]) -> str:
    """Record ids count up per table: 'MV-WK2EXB-1' (deterministic, so expected DBs can be executed)."""
    return f"{prefix}-{reservation['confirmation_number']}-{len(db.setdefault(table, {})) + 1}"


def _authenticated_passenger(db: dict[str, Any], code: str, passenger_id: str) -> dict[str, Any]:
    reservation = _authenticated(db, code)
    _passenger(reservation, passenger_id)
    return reservation


def _passenger(reservation: dict[str, Any], passenger_id: str) -> dict[str, Any]:
    for passenger in reservation["passengers"]:
        if passenger["passenger_id"] == passenger_id:
            return passenger
    raise ToolError("passenger_not_found", f"no passenger {passenger_id} on this reservation")


class MealVoucherArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    amount: float
    reason: MealReason


@REGISTRY.tool(MealVoucherArgs, writes=True, irreversible=True)
def issue_meal_voucher(db: dict[str, Any], args: MealVoucherArgs) -> dict[str, Any]:
    """Issue an airport meal voucher; the amount must be the policy amount for the reason."""
    reservation = _authenticated_passenger(db, args.confirmation_number, args.passenger_id)
    if args.amount != MEAL_VOUCHER_AMOUNT[args.reason]:
        raise ToolError("amount_not_per_policy", f"a {args.reason} meal voucher is ${MEAL_VOUCHER_AMOUNT[args.reason]}")
    voucher_id = _new_id(db, "vouchers", "MV", reservation)
    db["vouchers"][voucher_id] = {"voucher_id": voucher_id, "type": "meal", **args.model_dump()}
    return {"voucher_id": voucher_id, "amount": args.amount, "valid": "airport terminal restaurants, 24 hours"}


class HotelVoucherArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    nights: int = Field(ge=1)
    reason: HotelReason


@REGISTRY.tool(HotelVoucherArgs, writes=True)
def issue_hotel_voucher(db: dict[str, Any], args: HotelVoucherArgs) -> dict[str, Any]:
    """Issue an airport-area hotel voucher after an IRROPS rebooking that leaves the passenger overnight."""
    reservation = _authenticated_passenger(db, args.confirmation_number, args.passenger_id)
    if args.nights > MAX_HOTEL_NIGHTS:
        raise ToolError("exceeds_max_nights", f"hotel vouchers cover at most {MAX_HOTEL_NIGHTS} nights")
    if reservation["status"] == "cancelled":
        raise ToolError("not_eligible", "no hotel voucher when the passenger took a refund instead of rebooking")
    voucher_id = _new_id(db, "vouchers", "HV", reservation)
    db["vouchers"][voucher_id] = {"voucher_id": voucher_id, "type": "hotel", **args.model_dump()}
    return {"voucher_id": voucher_id, "nights": args.nights, "valid": "any airport-area hotel, 24 hours"}


class StandbyArgs(ToolArgs):
    confirmation_number: str
    passenger_id: str
    journey_id: str


@REGISTRY.tool(StandbyArgs, writes=True)
def add_to_standby(db: dict[str, Any], args: StandbyArgs) -> dict[str, Any]:
    """List a passenger for standby on an earlier same-day flight (free; the confirmed booking stays)."""
    reservation = _authenticated(db, args.confirmation_number)
    passenger = _passenger(reservation, args.passenger_id)
    journey = _journey(db, args.journey_id)
    today = db["clock"]["now"][:10]
    confirmed = [
        b
        for b in reservation["bookings"]
        if b["status"] == "confirmed"
        and b["origin"] == journey["origin"]
        and b["destination"] == journey["destination"]
    ]
    if journey["date"] != today or not any(b["date"] == today for b in confirmed):
        raise ToolError("standby_not_eligible", "standby is for same-day flights with a confirmed seat later today")
    if not any(journey["departure"] < b["departure"] for b in confirmed if b["date"] == today):
        raise ToolError("standby_not_eligible", "standby must be on a flight earlier than the confirmed one")
    waiting = db.setdefault("standby", {}).setdefault(args.journey_id, [])
    if any(w["confirmation_number"] == reservation["confirmation_number"] for w in waiting):
        raise ToolError("already_listed", "the passenger is already on this standby list")
    priority = ELITE_PRIORITY.get(passenger.get("elite_status", "none"), 5)
    waiting.append(
        {
            "confirmation_number": reservation["confirmation_number"],
            "passenger_id": args.passenger_id,
            "priority": priority,
        }
    )
    waiting.sort(key=lambda w: w["priority"])  # stable: same priority keeps arrival order
    position = (
        next(
            i
            for i, w in enumerate(waiting)
            if w["passenger_id"] == args.passenger_id and w["confirmation_number"] == reservation["confirmation_number"]
        )
        + 1
    )
    return {"journey_id": args.journey_id, "standby_position": position, "clears": "at the gate, 15 minutes before"}


class StandbyListArgs(ToolArgs):
    journey_id: str


@REGISTRY.tool(StandbyListArgs, writes=False)
def get_standby_list(db: dict[str, Any], args: StandbyListArgs) -> dict[str, Any]:
    """How many passengers are listed for standby on a journey, and its open seats."""
    journey = _journey(db, args.journey_id)
    waiting = db.get("standby", {}).get(args.journey_id, [])
    return {"journey_id": args.journey_id, "listed": len(waiting), "open_seats": sum(journey["seats"].values())}


class MealRequestArgs(ToolArgs):
    confirmation_number: str
    journey_id: str
    meal_request: MealRequest | None


@REGISTRY.tool(MealRequestArgs, writes=True)
def update_meal_request(db: dict[str, Any], args: MealRequestArgs) -> dict[str, Any]:
    """Set (or clear) the special meal on a booked journey, e.g. to carry it over after a rebooking."""
    reservation = _authenticated(db, args.confirmation_number)
    booking = _booking(reservation, args.journey_id)
    booking["meal_request"] = args.meal_request
    return {"journey_id": args.journey_id, "meal_request": args.meal_request}


class DisruptionArgs(ToolArgs):
    flight_number: str
    date: str


@REGISTRY.tool(DisruptionArgs, writes=False)
def get_disruption_info(db: dict[str, Any], args: DisruptionArgs) -> dict[str, Any]:
    """Disruption type, delay, cause and entitlements (fees waived, refund) for a flight on a date."""
    for journey in db["journeys"].values():
        if args.flight_number.upper() in journey["flights"] and journey["date"] == args.date:
            return {"flight_number": args.flight_number.upper(), "date": args.date, **disruption_of(journey)}
    raise ToolError("flight_not_found", f"no flight {args.flight_number} on {args.date}")


class TransferArgs(ToolArgs):
    reason: TransferReason
    summary: str = ""  # for the live agent; not part of the recorded end state


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent (recorded, so an unneeded transfer fails task completion)."""
    db.setdefault("transfers", []).append({"reason": args.reason})
    return {"transferred": True}
