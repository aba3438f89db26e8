"""Airline scenario building blocks: the fixed clock, DB records (journeys, reservations, bookings) and the
reference calls, one helper per policy step, argument for argument (App. L.4).
"""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.tools import MEAL_VOUCHER_AMOUNT

NOW = "2026-06-18 10:50 PDT"
TODAY = "2026-06-18"
NOW_ISO = "2026-06-18T10:50"
TOMORROW = "2026-06-19"
DEFAULT_PERSONA_TEXT = (
    "You are direct and to the point. You answer what you are asked in short sentences, do not chat, "
    "and show impatience if things move slowly."
)
SEAT_MAP = {"window": ["21A", "21F", "22A", "22F"], "aisle": ["21C", "21D", "22C"], "middle": ["21B", "21E"]}
NO_TRANSFER = "Never ask for a live agent. If the agent transfers you anyway, say goodbye and end the call."


def journey(
    flights: list[str],
    origin: str,
    destination: str,
    date: str,
    departure: str,
    arrival: str,
    fares: dict[str, int],
    seats: dict[str, int],
    *,
    stops: int = 0,
    status: str = "scheduled",
    delay_minutes: int = 0,
    bookable: bool = True,
    cause: str | None = None,
) -> dict[str, Any]:
    journey_id = f"FL_{'_'.join(flights)}_{date.replace('-', '')}"
    return {
        "journey_id": journey_id,
        "flights": flights,
        "origin": origin,
        "destination": destination,
        "date": date,
        "departure": departure,
        "arrival": arrival,
        "stops": stops,
        "status": status,
        "delay_minutes": delay_minutes,
        "cause": cause,
        "bookable": bookable,
        "fares": fares,
        "seats": seats,
        "seat_map": SEAT_MAP,
        "assigned_seats": [],
    }


def reservation(
    code: str,
    first: str,
    last: str,
    booked: dict[str, Any],
    fare_class: str,
    fare_paid: int,
    *,
    fare_type: str = "non_refundable",
    elite: str = "none",
    booking_date: str = "2026-05-20T13:22",
    meal_request: str | None = None,
    legs: tuple[tuple[dict[str, Any], str], ...] = (),
    first_status: str = "confirmed",
) -> dict[str, Any]:
    """``legs``: further (journey, status) bookings on the same ticket, e.g. a missed connection."""
    return {
        "confirmation_number": code,
        "status": "confirmed",
        "fare_type": fare_type,
        "booking_date": booking_date,
        "change_fee": None,
        "fare_difference": None,
        "passengers": [{"passenger_id": "PAX001", "first_name": first, "last_name": last, "elite_status": elite}],
        "bookings": [
            booking_of(j, fare_class, fare_paid if i == 0 else 0, status, meal_request)
            for i, (j, status) in enumerate([(booked, first_status), *legs])
        ],
    }


def booking_of(
    booked: dict[str, Any], fare_class: str, fare_paid: int, status: str, meal_request: str | None
) -> dict[str, Any]:
    return {
        "journey_id": booked["journey_id"],
        "flight_number": booked["flights"][0],
        "date": booked["date"],
        "origin": booked["origin"],
        "destination": booked["destination"],
        "departure": booked["departure"],
        "arrival": booked["arrival"],
        "fare_class": fare_class,
        "fare_paid": fare_paid,
        "seat": None,
        "meal_request": meal_request,
        "status": status,
    }


def db_of(reservations: list[dict[str, Any]], journeys: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "reservations": {r["confirmation_number"]: r for r in reservations},
        "journeys": {j["journey_id"]: j for j in journeys},
        "refunds": {},
        "vouchers": {},
        "credits": {},
        "standby": {},
        "transfers": [],
        "clock": {"now": NOW_ISO},
        "session": {},
    }


def persona(name: str, gender: str) -> dict[str, Any]:
    return {"id": "default", "name": name, "gender": gender, "text": DEFAULT_PERSONA_TEXT}


def rules(*texts: str) -> list[dict[str, Any]]:
    return [{"id": i + 1, "text": t} for i, t in enumerate(texts)]


# -- reference calls: the policy's steps, argument for argument (App. L.4) -----------------------------------------
Calls = list[tuple[str, dict[str, Any]]]
PAX = "PAX001"


def auth(code: str, last: str) -> Calls:
    return [("get_reservation", {"confirmation_number": code, "last_name": last})]


def search(j: dict[str, Any], date: str) -> Calls:
    route = {"origin": j["origin"], "destination": j["destination"]}
    return [("search_rebooking_options", {**route, "date": date, "passenger_count": 1, "fare_class": "any"})]


def rebook(code: str, old: dict[str, Any], new: dict[str, Any], kind: str) -> Calls:
    ids = {"journey_id": old["journey_id"], "new_journey_id": new["journey_id"]}
    waive = kind in ("irrops", "missed_connection")
    args = {"confirmation_number": code, **ids, "rebooking_type": kind, "waive_change_fee": waive}
    return [("rebook_flight", args)]


def seat(code: str, new: dict[str, Any], preference: str) -> Calls:
    args = {"confirmation_number": code, "passenger_id": PAX, "journey_id": new["journey_id"]}
    return [("assign_seat", {**args, "seat_preference": preference})]


def disruption(j: dict[str, Any]) -> Calls:
    return [("get_disruption_info", {"flight_number": j["flights"][0], "date": j["date"]})]


def flight_status(j: dict[str, Any]) -> Calls:
    return [("get_flight_status", {"flight_number": j["flights"][0], "date": j["date"]})]


def meal(code: str, reason: str) -> Calls:
    amount = float(MEAL_VOUCHER_AMOUNT[reason])
    return [
        ("issue_meal_voucher", {"confirmation_number": code, "passenger_id": PAX, "amount": amount, "reason": reason})
    ]


def hotel(code: str, nights: int, reason: str) -> Calls:
    return [
        ("issue_hotel_voucher", {"confirmation_number": code, "passenger_id": PAX, "nights": nights, "reason": reason})
    ]


def credit(code: str, amount: float, reason: str) -> Calls:
    return [
        ("issue_travel_credit", {"confirmation_number": code, "passenger_id": PAX, "amount": amount, "reason": reason})
    ]


def standby(code: str, j: dict[str, Any]) -> Calls:
    return [("add_to_standby", {"confirmation_number": code, "passenger_id": PAX, "journey_id": j["journey_id"]})]


def carry_meal(code: str, new: dict[str, Any], meal_request: str) -> Calls:
    args = {"confirmation_number": code, "journey_id": new["journey_id"], "meal_request": meal_request}
    return [("update_meal_request", args)]


def cancel(code: str, reason: str) -> Calls:
    return [("cancel_reservation", {"confirmation_number": code, "reason": reason})]


def refund(code: str, amount: float, refund_type: str) -> Calls:
    return [("process_refund", {"confirmation_number": code, "amount": amount, "refund_type": refund_type})]


def transfer(reason: str) -> Calls:
    return [("transfer_to_agent", {"reason": reason})]
