"""Airline scenario building blocks: the fixed clock, DB records (journeys, reservations, bookings) and the
reference calls, one helper per policy step, argument for argument (App. L.4).
"""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.api import FARE_CLASSES
from evalkit.domains.airline.policy import (
    IRROPS_DELAY_MINUTES,
    REFUND_DELAY_MINUTES,
    journey_id_of,
)

NOW = "2026-06-18 10:50 PDT"
TODAY = "2026-06-18"
TOMORROW = "2026-06-19"
DEFAULT_PERSONA_TEXT = (
    "You are direct and to the point. You answer what you are asked in short sentences, do not chat, "
    "and show impatience if things move slowly."
)
PAX = "PAX001"
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
    via: str = "SJC",
) -> dict[str, Any]:
    """A journey draft: the builders' flat view (first flight, times, one fare class); ``db_of`` writes it in
    EVA-Bench's layout (``eva_journey``). ``via``: the connecting airport of a two-flight journey."""
    return {
        "journey_id": journey_id_of(flights, date),
        "flights": flights,
        "origin": origin,
        "destination": destination,
        "via": via,
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
    """A reservation in EVA-Bench's layout. ``legs``: further (journey draft, status) bookings on the same ticket,
    e.g. a missed connection, each at its own fare."""
    bookings = [booking_of(booked, fare_class, fare_paid, first_status, meal_request)]
    bookings += [booking_of(j, fare_class, j["fares"][fare_class], status, meal_request) for j, status in legs]
    return {
        "confirmation_number": code,
        "status": "confirmed",
        "fare_type": fare_type,
        "booking_date": booking_date,
        "passengers": [
            {
                "passenger_id": PAX,
                "first_name": first,
                "last_name": last,
                "elite_status": None if elite == "none" else elite,
            }
        ],
        "bookings": bookings,
        "ancillaries": {"seat_selection_fee": 0.0, "bags_fee": 0.0},
    }


def _split(total: int, parts: int) -> list[int]:
    """A fare split over a journey's legs (the first leg takes the remainder)."""
    share = total // parts
    return [total - share * (parts - 1)] + [share] * (parts - 1)


def booking_of(
    booked: dict[str, Any], fare_class: str, fare_paid: int, status: str, meal_request: str | None
) -> dict[str, Any]:
    flights = booked["flights"]
    return {
        "journey_id": booked["journey_id"],
        "fare_class": fare_class,
        "fare_paid": fare_paid,
        "status": status,
        "segments": [
            {
                "flight_number": flight,
                "date": booked["date"],
                "fare_paid": paid,
                "seat": None,
                "bags_checked": 0,
                "meal_request": meal_request,
            }
            for flight, paid in zip(flights, _split(fare_paid, len(flights)), strict=True)
        ],
    }


def _clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:5])


def _class_table(draft: dict[str, Any], share: float = 1.0) -> tuple[dict[str, Any], dict[str, int]]:
    """Fares and seats of all five classes: the draft's own class, and (for an economy draft) two business seats
    at three times the fare, so a flight full in the booked class still shows in an any-class search (standby)."""
    fares: dict[str, Any] = dict.fromkeys(FARE_CLASSES)
    seats = dict.fromkeys(FARE_CLASSES, 0)
    for fare_class, fare in draft["fares"].items():
        fares[fare_class] = round(fare * share)
        seats[fare_class] = draft["seats"].get(fare_class, 0)
        if fare_class in ("basic_economy", "main_cabin", "premium_economy") and fares["business"] is None:
            fares["business"], seats["business"] = round(fare * 3 * share), 2
    return fares, seats


JOURNEY_STATUS = {"schedule_change": "delayed"}  # EVA-Bench's journeys are scheduled, on_time, delayed, cancelled


def eva_journey(draft: dict[str, Any]) -> dict[str, Any]:
    """A journey draft in EVA-Bench's layout: journey fares and one segment per flight with its own seats, fares,
    times and operational status."""
    flights = draft["flights"]
    start, end = _minutes(draft["departure"]), _minutes(draft["arrival"])
    stops = [draft["origin"], *([draft["via"]] * (len(flights) - 1)), draft["destination"]]
    status = JOURNEY_STATUS.get(draft["status"], draft["status"])
    delay = draft["delay_minutes"] or None
    segments = []
    for i, flight in enumerate(flights):
        leg_start = start + (end - start) * i // len(flights)
        leg_end = start + (end - start) * (i + 1) // len(flights)
        fares, seats = _class_table(draft, 1 / len(flights))
        segments.append(
            {
                "segment_number": i + 1,
                "flight_number": flight,
                "origin": stops[i],
                "destination": stops[i + 1],
                "scheduled_departure": _clock(leg_start),
                "scheduled_arrival": _clock(leg_end - (20 if len(flights) > 1 and i == 0 else 0)),
                "duration_minutes": leg_end - leg_start,
                "aircraft_type": "A320",
                "status": status,
                "delay_minutes": delay,
                "delay_reason": draft["cause"] if delay else None,
                "cancellation_reason": draft["cause"] if status == "cancelled" else None,
                "gate": "B4",
                "available_seats": seats,
                "fares": fares,
                "available_seat_types": {c: ["window", "aisle", "middle"] for c in FARE_CLASSES},
            }
        )
    return {
        "journey_id": draft["journey_id"],
        "date": draft["date"],
        "origin": draft["origin"],
        "destination": draft["destination"],
        "num_stops": draft["stops"],
        "total_duration_minutes": end - start,
        "segments": segments,
        "status": status,
        "bookable": draft["bookable"],
        "fares": _class_table(draft)[0],
    }


def disruption_of(draft: dict[str, Any]) -> dict[str, Any] | None:
    """The disruptions-table record of a disrupted journey draft (None for one on schedule), entitlements per the
    policy (App. L.4): IRROPS from a cancellation or a delay / schedule change over 2 hours, a refund from a
    cancellation or a delay over 4 hours, a meal voucher from a 2-hour delay or a cancellation."""
    kind = {"cancelled": "cancellation", "delayed": "delay", "schedule_change": "schedule_change"}.get(draft["status"])
    if kind is None:
        return None
    delay = draft["delay_minutes"]
    cancelled = kind == "cancellation"
    irrops = cancelled or delay > IRROPS_DELAY_MINUTES
    return {
        "flight_number": draft["flights"][0],
        "date": draft["date"],
        "disruption_type": kind,
        "cause": draft["cause"],
        "cause_category": "weather" if draft["cause"] == "weather" else "airline_fault",
        "is_irrops": irrops,
        "delay_minutes": None if cancelled else delay,
        "passenger_entitled_to": {
            "fee_waiver": irrops,
            "refund_option": cancelled or delay > REFUND_DELAY_MINUTES,
            "meal_voucher": cancelled or (kind == "delay" and delay >= IRROPS_DELAY_MINUTES),
            "hotel_accommodation": False,
            "rebooking_window_days": 7,
        },
    }


def db_of(reservations: list[dict[str, Any]], journeys: list[dict[str, Any]]) -> dict[str, Any]:
    """A scenario DB in EVA-Bench's airline layout from EVA-layout reservations and journey drafts."""
    disruptions = {}
    for draft in journeys:
        record = disruption_of(draft)
        if record is not None:
            disruptions[f"{record['flight_number']}_{record['date']}"] = record
    return {
        "_current_date": TODAY,
        "reservations": {r["confirmation_number"]: r for r in reservations},
        "journeys": {j["journey_id"]: eva_journey(j) for j in journeys},
        "disruptions": disruptions,
        "refunds": {},
        "travel_credits": {},
        "meal_vouchers": {},
    }


def scenario(
    sid: str,
    workflow: str,
    kind: str,
    person: dict[str, Any],
    db: dict[str, Any],
    *,
    goal: str,
    must: list[str],
    opening: str,
    info: dict[str, str],
    tree: list[dict[str, Any]],
    resolution: str,
    failure: str,
    scripted: dict[str, Any],
    entities: dict[str, str],
    calls: Calls,
    flow: str,
    escalation: str = NO_TRANSFER,
    edge: list[str] | None = None,
) -> dict[str, Any]:
    """One scenario plan in EVA-Bench's record layout (the hand-written ones and the drawn ones share it);
    ``tree`` is the caller's decision rules (``rules(...)``), ``edge`` the edge cases when the record has any."""
    return {
        "id": sid,
        "workflow": workflow,
        "type": kind,
        "persona": person,
        "db": db,
        "goal": {
            "high_level_user_goal": goal,
            "must_have_criteria": must,
            "starting_utterance": opening,
            "information_required": info,
            "decision_tree": tree,
            "resolution_condition": resolution,
            "failure_condition": failure,
            "escalation_behavior": escalation,
            **({} if edge is None else {"edge_cases": edge}),
            "scripted": scripted,
        },
        "key_entities": entities,
        "calls": calls,
        "expected_flow": flow,
    }


def persona(name: str, gender: str) -> dict[str, Any]:
    return {"id": "default", "name": name, "gender": gender, "text": DEFAULT_PERSONA_TEXT}


def rules(*texts: str) -> list[dict[str, Any]]:
    return [{"id": i + 1, "text": t} for i, t in enumerate(texts)]


# -- reference calls: the policy's steps, argument for argument (App. L.4), in EVA-Bench's tool API -----------------
Calls = list[tuple[str, dict[str, Any]]]


def auth(code: str, last: str) -> Calls:
    return [("get_reservation", {"confirmation_number": code, "last_name": last})]


def search(j: dict[str, Any], date: str, fare_class: str = "main_cabin") -> Calls:
    route = {"origin": j["origin"], "destination": j["destination"]}
    return [("search_rebooking_options", {**route, "date": date, "passenger_count": 1, "fare_class": fare_class})]


REBOOKING_TYPES = {  # the builders' kinds -> EVA-Bench's rebooking_type (IRROPS by the old journey's status)
    "cancelled": "irrops_cancellation",
    "delayed": "irrops_delay",
    "schedule_change": "irrops_schedule_change",
    "missed_connection": "missed_connection_airline_fault",
}


def rebooking_type(kind: str, old: dict[str, Any]) -> str:
    if kind == "irrops":
        return REBOOKING_TYPES[old["status"]]
    return REBOOKING_TYPES.get(kind, kind)


def rebook(code: str, old: dict[str, Any], new: dict[str, Any], kind: str, *, waive: bool = False) -> Calls:
    """``waive``: an elite waiver (Platinum voluntary, Gold/Platinum same-day); a missed connection caused by the
    airline is always waived, IRROPS types need no waiver."""
    ids = {"journey_id": old["journey_id"], "new_journey_id": new["journey_id"]}
    waive = waive or kind == "missed_connection"
    args = {"confirmation_number": code, **ids, "rebooking_type": rebooking_type(kind, old), "waive_change_fee": waive}
    return [("rebook_flight", args)]


def seat(code: str, new: dict[str, Any], preference: str) -> Calls:
    args = {"confirmation_number": code, "passenger_id": PAX, "journey_id": new["journey_id"]}
    return [("assign_seat", {**args, "seat_preference": preference})]


def disruption(j: dict[str, Any]) -> Calls:
    return [("get_disruption_info", {"flight_number": j["flights"][0], "date": j["date"]})]


def flight_status(j: dict[str, Any]) -> Calls:
    return [("get_flight_status", {"flight_number": j["flights"][0], "flight_date": j["date"]})]


def meal(code: str, reason: str) -> Calls:
    return [("issue_meal_voucher", {"confirmation_number": code, "passenger_id": PAX, "voucher_reason": reason})]


def hotel(code: str, nights: int) -> Calls:
    return [("issue_hotel_voucher", {"confirmation_number": code, "passenger_id": PAX, "num_nights": nights})]


def credit(code: str, amount: float, reason: str) -> Calls:
    args = {"confirmation_number": code, "passenger_id": PAX, "amount": amount, "credit_reason": reason}
    return [("issue_travel_credit", args)]


def standby(code: str, j: dict[str, Any]) -> Calls:
    return [("add_to_standby", {"confirmation_number": code, "journey_id": j["journey_id"], "passenger_ids": [PAX]})]


def carry_meal(code: str, new: dict[str, Any], meal_request: str) -> Calls:
    args = {"confirmation_number": code, "passenger_id": PAX, "journey_id": new["journey_id"]}
    return [("add_meal_request", {**args, "meal_type": meal_request})]


def cancel(code: str, j: dict[str, Any], reason: str) -> Calls:
    args = {"confirmation_number": code, "journey_id": j["journey_id"], "cancellation_reason": reason}
    return [("cancel_reservation", args)]


def refund(code: str, amount: float) -> Calls:
    return [("process_refund", {"confirmation_number": code, "refund_amount": amount, "refund_type": "full_fare"})]


def transfer(code: str, reason: str, summary: str) -> Calls:
    args = {"confirmation_number": code, "transfer_reason": reason, "issue_summary": summary}
    return [("transfer_to_agent", args)]
