"""Build the airline scenario files: initial DB, reference path and the expected DB it produces.

Run ``python -m evalkit.domains.airline.generate`` to rewrite ``scenarios/*.json``. The expected end state is
never typed by hand: it is the executor's result of the reference calls on the initial DB (EVA-Bench builds
goal, initial DB and expected DB jointly; this keeps them consistent by construction).

50 scenarios over Table 42's seven categories: AL-001..005 are hand-written (AL-001 is App. J.1's scenario with our
own codes); AL-006..050 come from per-category builders whose names, codes, routes and times are drawn from a
random stream seeded by the scenario id, so adding a scenario never changes another. Each builder states the
category's policy outcome (fees, vouchers, refunds) in its reference calls; the executor then produces the end state.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from evalkit.domains.airline.tools import MEAL_VOUCHER_AMOUNT, REGISTRY, cancellation_fee, change_fee
from evalkit.domains.base import ToolExecutor
from evalkit.scenarios.schema import Scenario

OUT_DIR = Path(__file__).resolve().parent / "scenarios"
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


def same_day_change() -> dict[str, Any]:
    original = journey(["SK530"], "LAX", "SFO", TODAY, "17:30", "18:55", {"main_cabin": 289}, {"main_cabin": 23})
    sold_out = journey(["SK110"], "LAX", "SFO", TODAY, "11:00", "12:25", {"main_cabin": 279}, {"main_cabin": 0})
    target = journey(["SK130"], "LAX", "SFO", TODAY, "13:00", "14:25", {"main_cabin": 289}, {"main_cabin": 8})
    late = journey(["SK215"], "LAX", "SFO", TODAY, "14:40", "16:05", {"main_cabin": 259}, {"main_cabin": 18})
    connection = journey(
        ["SK090", "SK410"], "LAX", "SFO", TODAY, "09:20", "12:10", {"main_cabin": 228}, {"main_cabin": 12}, stops=1
    )
    res = reservation("WK2EXB", "Daniel", "Brooks", original, "main_cabin", 289)
    return {
        "id": "AL-001",
        "workflow": "same_day_change",
        "type": "single_intent",
        "persona": persona("Daniel Brooks", "male"),
        "db": db_of([res], [original, sold_out, target, late, connection]),
        "goal": {
            "high_level_user_goal": "Move your LAX to SFO flight today from the late afternoon to an earlier "
            "direct flight that leaves before 2 PM, as long as the same-day change fee stays under 80 dollars.",
            "must_have_criteria": ["departs LAX today before 2 PM", "direct, no connections", "fee under $80"],
            "starting_utterance": "Can you move me to an earlier flight today?",
            "information_required": {
                "confirmation_number": "WK2EXB",
                "last_name": "Brooks",
                "first_name": "Daniel",
                "seat_preference": "window",
                "original_flight": "SK530 LAX to SFO today at 5:30 PM",
            },
            "decision_tree": rules(
                "Give the confirmation number and last name when asked; correct any mismatch in the read-back.",
                "Check every offered option against all must-haves.",
                "If flight SK130 at 1 PM is offered, choose it.",
                "If no qualifying option is offered, restate the must-haves once.",
                "When asked for a seat preference, say window.",
                "Confirm the change only if the stated fee is under 80 dollars.",
            ),
            "resolution_condition": "The rebooking to a qualifying flight is completed and confirmed.",
            "failure_condition": "No qualifying option after one more search: keep the original flight, end.",
            "escalation_behavior": NO_TRANSFER,
            "edge_cases": ["Decline standby.", "Decline other airports."],
            "scripted": {
                "answers": {
                    "confirmation_number": "WK2EXB",
                    "last_name": "Brooks",
                    "first_name": "Daniel",
                    "seat_preference": "window",
                    "original_flight": "The 5:30 PM flight to San Francisco, SK530.",
                },
                "accept_option": "SK130",
                "accept_say": "I'll take flight SK130 at 1 PM.",
                "reject_say": "None of those work. It has to be a direct flight today before 2 PM.",
                "max_fee": 79.99,
            },
        },
        "key_entities": {"confirmation_number": "WK2EXB", "last_name": "Brooks", "flight_number": "SK130"},
        "calls": auth("WK2EXB", "Brooks")
        + search(original, TODAY)
        + rebook("WK2EXB", original, target, "same_day")
        + seat("WK2EXB", target, "window"),
        "expected_flow": "Same-day change, main cabin: $75 fee, no fare difference; SK130 is the only direct "
        "flight before 2 PM with seats (SK110 is sold out in main cabin).",
    }


def voluntary_change() -> dict[str, Any]:
    original = journey(["SK722"], "ORD", "DEN", "2026-06-20", "08:15", "09:50", {"main_cabin": 210}, {"main_cabin": 30})
    target = journey(["SK722"], "ORD", "DEN", "2026-06-22", "08:15", "09:50", {"main_cabin": 230}, {"main_cabin": 9})
    evening = journey(["SK748"], "ORD", "DEN", "2026-06-22", "18:40", "20:15", {"main_cabin": 190}, {"main_cabin": 14})
    res = reservation("7HQ4TZ", "Priya", "Raman", original, "main_cabin", 210)
    return {
        "id": "AL-002",
        "workflow": "voluntary_change",
        "type": "single_intent",
        "persona": persona("Priya Raman", "female"),
        "db": db_of([res], [original, target, evening]),
        "goal": {
            "high_level_user_goal": "Move your Chicago to Denver flight from June 20 to a morning flight on "
            "June 22, paying no more than 150 dollars in total for the change.",
            "must_have_criteria": ["travel on June 22", "departs before noon", "total cost under $150"],
            "starting_utterance": "I need to change my flight to a different day.",
            "information_required": {
                "confirmation_number": "7HQ4TZ",
                "last_name": "Raman",
                "new_date": "June 22",
                "seat_preference": "aisle",
            },
            "decision_tree": rules(
                "Give the confirmation number and last name when asked.",
                "When asked for the new date, say June 22.",
                "Choose the morning flight, SK722 at 8:15 AM; reject evening flights once.",
                "When asked for a seat preference, say aisle.",
                "Confirm only if the change fee plus fare difference is under 150 dollars.",
            ),
            "resolution_condition": "The change to the June 22 morning flight is completed.",
            "failure_condition": "No morning flight on June 22: keep the original booking and end the call.",
            "escalation_behavior": NO_TRANSFER,
            "scripted": {
                "answers": {
                    "confirmation_number": "7HQ4TZ",
                    "last_name": "Raman",
                    "new_date": "June 22nd",
                    "seat_preference": "aisle",
                },
                "accept_option": "SK722",
                "accept_say": "The 8:15 AM flight, SK722, please.",
                "reject_say": "I need a morning flight on June 22.",
                "max_fee": 150,
            },
        },
        "key_entities": {
            "confirmation_number": "7HQ4TZ",
            "last_name": "Raman",
            "new_date": "2026-06-22",
            "flight_number": "SK722",
        },
        "calls": auth("7HQ4TZ", "Raman")
        + search(original, "2026-06-22")
        + rebook("7HQ4TZ", original, target, "voluntary")
        + seat("7HQ4TZ", target, "aisle"),
        "expected_flow": "Voluntary change, main cabin: $75 fee plus $20 fare difference.",
    }


def cancel_refund() -> dict[str, Any]:
    original = journey(["SK604"], "SEA", "PHX", "2026-06-25", "10:05", "13:40", {"main_cabin": 420}, {"main_cabin": 11})
    res = reservation("B9KM3R", "Marcus", "Delgado", original, "main_cabin", 420, fare_type="refundable")
    return {
        "id": "AL-003",
        "workflow": "cancellation_refund",
        "type": "single_intent",
        "persona": persona("Marcus Delgado", "male"),
        "db": db_of([res], [original]),
        "goal": {
            "high_level_user_goal": "Cancel your June 25 Seattle to Phoenix trip and get the full fare back to "
            "your card.",
            "must_have_criteria": ["reservation cancelled", "full refund to the original payment method"],
            "starting_utterance": "I want to cancel my flight and get a refund.",
            "information_required": {"confirmation_number": "B9KM3R", "last_name": "Delgado"},
            "decision_tree": rules(
                "Give the confirmation number and last name when asked.",
                "Accept the cancellation only with a full refund to the original payment.",
                "Decline travel credit.",
            ),
            "resolution_condition": "The reservation is cancelled and the refund is confirmed.",
            "failure_condition": "Only travel credit is offered twice: keep the booking and end the call.",
            "escalation_behavior": NO_TRANSFER,
            "scripted": {"answers": {"confirmation_number": "B9KM3R", "last_name": "Delgado"}},
        },
        "key_entities": {"confirmation_number": "B9KM3R", "last_name": "Delgado"},
        "calls": auth("B9KM3R", "Delgado")
        + disruption(original)
        + cancel("B9KM3R", "voluntary")
        + refund("B9KM3R", 420.0, "standard"),
        "expected_flow": "Refundable fare: cancel and refund $420 to the original payment in 5-7 business days.",
    }


def same_day_change_gold() -> dict[str, Any]:
    original = journey(["SK301"], "BOS", "JFK", TODAY, "19:00", "20:15", {"main_cabin": 159}, {"main_cabin": 20})
    early = journey(["SK255"], "BOS", "JFK", TODAY, "12:30", "13:45", {"main_cabin": 159}, {"main_cabin": 4})
    target = journey(["SK281"], "BOS", "JFK", TODAY, "15:45", "17:00", {"main_cabin": 159}, {"main_cabin": 6})
    res = reservation("Q3ZP8N", "Elena", "Fischer", original, "main_cabin", 159, elite="gold")
    return {
        "id": "AL-004",
        "workflow": "same_day_change",
        "type": "single_intent",
        "persona": persona("Elena Fischer", "female"),
        "db": db_of([res], [original, early, target]),
        "goal": {
            "high_level_user_goal": "Leave Boston for New York earlier today, on the latest flight that departs "
            "before 4 PM, without paying a change fee (you are a Gold member).",
            "must_have_criteria": ["today", "departs before 4 PM", "no change fee"],
            "starting_utterance": "Hi, I'd like to take an earlier flight to New York today.",
            "information_required": {
                "confirmation_number": "Q3ZP8N",
                "last_name": "Fischer",
                "seat_preference": "aisle",
            },
            "decision_tree": rules(
                "Give the confirmation number and last name when asked.",
                "Of the flights before 4 PM, choose the latest one (SK281 at 3:45 PM).",
                "When asked for a seat preference, say aisle.",
                "Confirm only if there is no change fee.",
            ),
            "resolution_condition": "The change to SK281 is completed with no fee.",
            "failure_condition": "A fee is charged: keep the original flight and end the call.",
            "escalation_behavior": NO_TRANSFER,
            "scripted": {
                "answers": {"confirmation_number": "Q3ZP8N", "last_name": "Fischer", "seat_preference": "aisle"},
                "accept_option": "SK281",
                "accept_say": "The 3:45 PM one, flight SK281.",
                "reject_say": "I need a flight before 4 PM today.",
                "max_fee": 0,
            },
        },
        "key_entities": {"confirmation_number": "Q3ZP8N", "last_name": "Fischer", "flight_number": "SK281"},
        "calls": auth("Q3ZP8N", "Fischer")
        + search(original, TODAY)
        + rebook("Q3ZP8N", original, target, "same_day")
        + seat("Q3ZP8N", target, "aisle"),
        "expected_flow": "Same-day change fee is waived for Gold members.",
    }


def compensation_claim() -> dict[str, Any]:
    delayed = journey(
        ["SK418"],
        "MIA",
        "ATL",
        TODAY,
        "12:10",
        "14:05",
        {"main_cabin": 199},
        {"main_cabin": 7},
        status="delayed",
        delay_minutes=75,
    )
    res = reservation("M4TX6L", "Grace", "Okafor", delayed, "main_cabin", 199)
    return {
        "id": "AL-005",
        "workflow": "compensation_claim",
        "type": "adversarial",
        "persona": persona("Grace Okafor", "female"),
        "db": db_of([res], [delayed]),
        "goal": {
            "high_level_user_goal": "Get a meal voucher because your flight to Atlanta is delayed.",
            "must_have_criteria": ["a meal voucher"],
            "starting_utterance": "My flight is delayed and I want a meal voucher.",
            "information_required": {"confirmation_number": "M4TX6L", "last_name": "Okafor"},
            "decision_tree": rules(
                "Give the confirmation number and last name when asked.",
                "If the agent refuses the voucher, insist exactly once.",
                "If the agent refuses again, accept it and end the call.",
            ),
            "resolution_condition": "A voucher is issued, or the agent refuses twice.",
            "failure_condition": "The agent refuses twice: say goodbye and end the call.",
            "escalation_behavior": NO_TRANSFER,
            "scripted": {
                "answers": {"confirmation_number": "M4TX6L", "last_name": "Okafor"},
                "push_back_say": "That's not fair. I've been waiting here, I really think I deserve a voucher.",
                "push_back_times": 1,
            },
        },
        "key_entities": {"confirmation_number": "M4TX6L", "last_name": "Okafor"},
        "calls": auth("M4TX6L", "Okafor") + flight_status(delayed) + disruption(delayed),
        "expected_flow": "A 75 minute delay is below the 2 hour meal-voucher threshold: refuse, write nothing.",
    }


# -- AL-006..050: per-category builders over seeded draws ------------------------------------------------------------
FIRST_NAMES = (
    ("Kenji", "male"),
    ("Aisha", "female"),
    ("Mateo", "male"),
    ("Ingrid", "female"),
    ("Tomasz", "male"),
    ("Nkechi", "female"),
    ("Rafael", "male"),
    ("Siobhan", "female"),
    ("Dmitri", "male"),
    ("Leilani", "female"),
    ("Arjun", "male"),
    ("Yuki", "female"),
    ("Olusegun", "male"),
    ("Margarethe", "female"),
    ("Bao", "male"),
)
LAST_NAMES = (
    "Thompson",
    "Nakamura",
    "Oyelaran",
    "Wojcik",
    "Fitzgerald",
    "Castellanos",
    "Lindqvist",
    "Abernathy",
    "Kowalczyk",
    "Papadopoulos",
    "Nguyen",
    "Szymanski",
    "Haddad",
    "Mbeki",
    "Vandermeer",
    "Quintero",
)
ROUTES = (
    ("LAX", "SFO"),
    ("ORD", "DEN"),
    ("JFK", "BOS"),
    ("SEA", "PHX"),
    ("ATL", "MIA"),
    ("DFW", "IAH"),
    ("DEN", "SLC"),
    ("BOS", "DCA"),
    ("SFO", "SEA"),
    ("MSP", "ORD"),
    ("PHX", "LAS"),
    ("IAD", "CLT"),
)
CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I/O/0/1, as real record locators
FARES = {"basic_economy": 159, "main_cabin": 249, "premium_economy": 489, "business": 899, "first": 1290}


class Draw:
    """One scenario's random choices, from a stream seeded by its id (so scenarios are independent)."""

    def __init__(self, sid: str) -> None:
        rng = random.Random(f"evalkit-airline-{sid}")
        self.sid = sid
        while True:
            code = "".join(rng.choice(CODE_CHARS) for _ in range(6))
            if any(c.isdigit() for c in code) and sum(c.isalpha() for c in code) >= 3:
                break
        self.code = code
        self.first, self.gender = rng.choice(FIRST_NAMES)
        self.last = rng.choice(LAST_NAMES)
        self.origin, self.destination = rng.choice(ROUTES)
        self._numbers = iter(f"SK{n}" for n in rng.sample(range(102, 989), 12))

    def flight(self) -> str:
        return next(self._numbers)

    def journey(
        self,
        date: str,
        dep: str,
        arr: str,
        fare_class: str,
        seats: int = 9,
        fare: int | None = None,
        origin: str | None = None,
        destination: str | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        fares = {fare_class: FARES[fare_class] if fare is None else fare}
        return journey(
            [self.flight()],
            origin or self.origin,
            destination or self.destination,
            date,
            dep,
            arr,
            fares,
            {fare_class: seats},
            **kw,
        )

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    def answers(self, **more: str) -> dict[str, str]:
        return {"confirmation_number": self.code, "last_name": self.last, "first_name": self.first, **more}

    def entities(self, **more: str) -> dict[str, str]:
        return {"confirmation_number": self.code, "last_name": self.last, **more}


def spoken(j: dict[str, Any]) -> str:
    hour, minute = (int(x) for x in j["departure"].split(":"))
    clock = f"{hour % 12 or 12}" + (f":{minute:02d}" if minute else "") + (" PM" if hour >= 12 else " AM")
    return f"{j['flights'][0]} at {clock}"


def spec(
    d: Draw,
    workflow: str,
    kind: str,
    db: dict[str, Any],
    *,
    goal: str,
    must: list[str],
    opening: str,
    info: dict[str, str],
    tree: list[str],
    resolution: str,
    failure: str,
    scripted: dict[str, Any],
    entities: dict[str, str],
    calls: Calls,
    flow: str,
    escalation: str = NO_TRANSFER,
    edge: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "id": d.sid,
        "workflow": workflow,
        "type": kind,
        "persona": persona(d.name, d.gender),
        "db": db,
        "goal": {
            "high_level_user_goal": goal,
            "must_have_criteria": must,
            "starting_utterance": opening,
            "information_required": info,
            "decision_tree": rules(
                "Give the confirmation number and last name when asked; correct any mismatch in the read-back.", *tree
            ),
            "resolution_condition": resolution,
            "failure_condition": failure,
            "escalation_behavior": escalation,
            "edge_cases": list(edge),
            "scripted": scripted,
        },
        "key_entities": entities,
        "calls": calls,
        "expected_flow": flow,
    }


def change_calls(
    d: Draw,
    old: dict[str, Any],
    new: dict[str, Any],
    kind: str,
    pref: str,
    paid: int,
    fare_class: str,
    meal_request: str | None = None,
) -> Calls:
    """rebook, a downgrade's credit, the seat, the meal request carried over: the policy's order."""
    calls = rebook(d.code, old, new, kind)
    difference = new["fares"][fare_class] - paid
    if kind in ("voluntary", "same_day") and difference < 0:
        calls += credit(d.code, float(-difference), "fare_downgrade")
    calls += seat(d.code, new, pref)
    if meal_request:
        calls += carry_meal(d.code, new, meal_request)
    return calls


def voluntary(
    sid: str,
    fare_class: str,
    target_fare: int,
    *,
    elite: str = "none",
    max_fee: float = 250,
    pref: str = "aisle",
    meal_request: str | None = None,
    sold_out: bool = False,
) -> dict[str, Any]:
    """1.x: a passenger-initiated change to a future date; $75 fee (0 for business/first or Platinum) plus the
    fare difference, a lower fare's difference back as travel credit. ``sold_out``: the wanted flight has no seat."""
    d = Draw(sid)
    paid = FARES[fare_class]
    old = d.journey("2026-06-24", "09:10", "11:35", fare_class, fare=paid)
    new_date = "2026-06-27"
    target = d.journey(new_date, "08:05", "10:30", fare_class, seats=0 if sold_out else 6, fare=target_fare)
    evening = d.journey(new_date, "19:25", "21:50", fare_class, fare=target_fare - 20)
    res = reservation(d.code, d.first, d.last, old, fare_class, paid, elite=elite, meal_request=meal_request)
    fee = change_fee("voluntary", fare_class, elite)
    total = fee + max(target_fare - paid, 0)
    accepted = total <= max_fee and not sold_out
    calls = auth(d.code, d.last) + search(old, new_date)
    if accepted:
        calls += change_calls(d, old, target, "voluntary", pref, paid, fare_class, meal_request)
    outcome = (
        f"moved to {target['flights'][0]}: fee ${fee}, fare difference ${target_fare - paid}"
        if accepted
        else (
            "the morning flight is sold out: no change"
            if sold_out
            else f"total ${total} is over ${max_fee:g}: declined"
        )
    )
    return spec(
        d,
        "voluntary_change",
        "single_intent",
        db_of([res], [old, target, evening]),
        goal=f"Move your {d.origin} to {d.destination} flight from June 24 to the morning flight on June 27, "
        f"paying no more than {max_fee:g} dollars in total for the change.",
        must=["travel on June 27", "departs before noon", f"total cost at most ${max_fee:g}"],
        opening="I'd like to change my flight to a different day, please.",
        info=d.answers(new_date="June 27", seat_preference=pref),
        tree=[
            "When asked for the new date, say June 27.",
            f"Choose the morning flight, {spoken(target)}; reject evening flights once, then keep the original.",
            f"When asked for a seat preference, say {pref}.",
            f"Confirm only if the change fee plus fare difference is at most {max_fee:g} dollars.",
        ],
        resolution="The change to the June 27 morning flight is completed.",
        failure="No morning flight on June 27 or too expensive: keep the original booking and end the call.",
        scripted={
            "answers": d.answers(new_date="June 27th", seat_preference=pref),
            "accept_option": target["flights"][0],
            "accept_say": f"The morning one, flight {spoken(target)}.",
            "reject_say": "I need the morning flight on June 27.",
            "max_fee": max_fee,
        },
        entities=d.entities(flight_number=target["flights"][0], new_date=new_date),
        calls=calls,
        flow=f"Voluntary change, {fare_class}, elite {elite}: {outcome}.",
    )


def same_day(
    sid: str, fare_class: str, target_fare: int, *, elite: str = "none", max_fee: float = 100, pref: str = "window"
) -> dict[str, Any]:
    """4.1: a confirmed same-day change to an earlier flight: $199 basic economy, $75 otherwise, waived for
    Gold/Platinum; flights leaving within 30 minutes are closed."""
    d = Draw(sid)
    paid = FARES[fare_class]
    old = d.journey(TODAY, "18:40", "20:05", fare_class, fare=paid)
    closing = d.journey(TODAY, "11:05", "12:30", fare_class, fare=paid)  # leaves in 15 minutes: closed
    target = d.journey(TODAY, "13:35", "15:00", fare_class, fare=target_fare)
    late = d.journey(TODAY, "16:50", "18:15", fare_class, fare=target_fare)
    res = reservation(d.code, d.first, d.last, old, fare_class, paid, elite=elite)
    fee = change_fee("same_day", fare_class, elite)
    total = fee + max(target_fare - paid, 0)
    accepted = total <= max_fee
    calls = auth(d.code, d.last) + search(old, TODAY)
    if accepted:
        calls += change_calls(d, old, target, "same_day", pref, paid, fare_class)
    return spec(
        d,
        "same_day_change",
        "single_intent",
        db_of([res], [old, closing, target, late]),
        goal=f"Take an earlier {d.origin} to {d.destination} flight today, leaving before 2 PM, if the total "
        f"cost stays at most {max_fee:g} dollars.",
        must=["today", "departs before 2 PM", f"total at most ${max_fee:g}"],
        opening="Can I get on an earlier flight today?",
        info=d.answers(seat_preference=pref),
        tree=[
            f"If {spoken(target)} is offered, choose it.",
            f"When asked for a seat preference, say {pref}.",
            f"Confirm only if the stated total is at most {max_fee:g} dollars; otherwise keep the original flight.",
        ],
        resolution="The same-day change is completed and confirmed.",
        failure="Too expensive or nothing before 2 PM: keep the original flight and end the call.",
        scripted={
            "answers": d.answers(seat_preference=pref),
            "accept_option": target["flights"][0],
            "accept_say": f"I'll take {spoken(target)}.",
            "reject_say": "It has to leave before 2 PM today.",
            "max_fee": max_fee,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=f"Same-day change, {fare_class}, elite {elite}: fee ${fee}, total ${total}, "
        f"{'accepted' if accepted else 'declined'}; {closing['flights'][0]} leaves within 30 minutes.",
    )


def standby_request(sid: str, *, elite: str = "none", pick: int = 0, tomorrow: bool = False) -> dict[str, Any]:
    """4.2: free same-day standby on an earlier (full) flight; the confirmed seat stays. ``tomorrow``: the booking
    is not today, so standby does not apply (policy boundary)."""
    d = Draw(sid)
    fare_class = "main_cabin"
    day = TOMORROW if tomorrow else TODAY
    old = d.journey(day, "20:15", "21:40", fare_class)
    full = [d.journey(day, dep, arr, fare_class, seats=0) for dep, arr in (("14:10", "15:35"), ("17:20", "18:45"))]
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class], elite=elite)
    wanted = full[pick]
    calls = auth(d.code, d.last)
    if not tomorrow:
        calls += search(old, TODAY) + standby(d.code, wanted)
    return spec(
        d,
        "same_day_change",
        "adversarial" if tomorrow else "single_intent",
        db_of([res], [old, *full]),
        goal=f"Get on the standby list for the {spoken(wanted)} flight to {d.destination}, keeping your confirmed "
        "seat on the later flight.",
        must=[f"standby on {wanted['flights'][0]}", "original seat kept"],
        opening="Can you put me on standby for an earlier flight?",
        info=d.answers(),
        tree=[
            f"Choose {spoken(wanted)} for standby.",
            "Agree to be added to the standby list.",
            "If the agent says standby is not possible, accept that and end the call.",
        ],
        resolution="You are on the standby list for the earlier flight.",
        failure="Standby refused: end the call politely.",
        scripted={
            "answers": d.answers(standby="yes"),
            "accept_option": wanted["flights"][0],
            "accept_say": f"The {spoken(wanted)} one, please.",
        },
        entities=d.entities(flight_number=wanted["flights"][0]),
        calls=calls,
        flow="Standby applies to same-day flights only: refuse, write nothing."
        if tomorrow
        else f"Free standby on {wanted['flights'][0]}, position by elite status ({elite}).",
    )


def irrops(
    sid: str,
    *,
    cancelled: bool = True,
    delay: int = 0,
    status: str | None = None,
    cause: str = "weather",
    same_day_seats: bool = True,
    reject_today: bool = False,
    fare_class: str = "main_cabin",
    meal_request: str | None = None,
) -> dict[str, Any]:
    """2.x: an airline disruption (cancellation, delay or schedule change over 2 h) waives all fees; rebook on the
    same day if possible, else the next; meal voucher by the wait, a hotel night when overnight."""
    d = Draw(sid)
    kind = "cancelled" if cancelled else (status or "delayed")
    old = d.journey(TODAY, "12:30", "14:45", fare_class, status=kind, delay_minutes=delay, cause=cause)
    today_opt = d.journey(TODAY, "16:20", "18:35", fare_class, seats=4 if same_day_seats else 0)
    next_opt = d.journey(TOMORROW, "07:45", "10:00", fare_class)
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class], meal_request=meal_request)
    irrops_applies = cancelled or delay > 120
    overnight = reject_today or not same_day_seats
    target = next_opt if overnight else today_opt
    calls = auth(d.code, d.last) + disruption(old)
    if irrops_applies:
        calls += search(old, TODAY)
        if overnight:
            calls += search(old, TOMORROW)
        calls += change_calls(d, old, target, "irrops", "aisle", FARES[fare_class], fare_class, meal_request)
        if overnight:
            calls += meal(d.code, "irrops_overnight") + hotel(d.code, 1, "irrops_overnight")
        elif cancelled:
            calls += meal(d.code, "cancellation_wait_same_day")
        elif kind == "delayed":
            calls += meal(d.code, "delay_over_4_hours" if delay >= 240 else "delay_over_2_hours")
    what = (
        "was cancelled"
        if cancelled
        else (f"is delayed {delay} minutes" if kind == "delayed" else f"was moved {delay} minutes by a schedule change")
    )
    return spec(
        d,
        "irrops_rebooking",
        "single_intent" if irrops_applies else "adversarial",
        db_of([res], [old, today_opt, next_opt]),
        goal=f"Your {d.origin} to {d.destination} flight today {what}. Get onto another flight at no cost"
        + (", but not today: you can only fly tomorrow morning." if reject_today else "."),
        must=["no change fee or fare difference", "a confirmed seat on another flight"],
        opening=f"My flight {what.replace('was ', 'got ').replace('is ', 'is ')}. I need to get on another flight."
        if cancelled
        else f"My flight {what}. Can you rebook me?",
        info=d.answers(seat_preference="aisle"),
        tree=[
            (
                "Reject today's flights once, saying you can only fly tomorrow; take the tomorrow morning flight "
                f"{spoken(next_opt)}."
                if reject_today
                else f"Take the first flight offered to {d.destination}."
            ),
            "When asked for a seat preference, say aisle.",
            "Confirm the rebooking if there is no charge.",
            "If the agent says this is a regular change with fees, thank them and end the call.",
        ],
        resolution="The rebooking is confirmed, with any vouchers the policy gives.",
        failure="No free rebooking: end the call.",
        scripted={
            "answers": d.answers(seat_preference="aisle"),
            "accept_option": target["flights"][0],
            "accept_say": f"Yes, {spoken(target)} works.",
            "reject_say": "I can't fly today anymore. Is there something tomorrow morning?",
            "max_fee": 0,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=(
            f"IRROPS ({kind}, {delay} min, {cause}): fees waived, rebooked on {target['flights'][0]}"
            + (", overnight: $25 meal + 1 hotel night" if overnight else "")
            if irrops_applies
            else f"A {delay}-minute delay is not IRROPS (over 2 h): no free change, nothing written."
        ),
    )


def missed_connection(
    sid: str,
    *,
    next_full: bool = False,
    take_standby: bool = True,
    none_today: bool = False,
    reject_today: bool = False,
    elite: str = "none",
) -> dict[str, Any]:
    """3.x: a late inbound leg made the caller miss the connection; the missed leg is rebooked free (protected for
    7 days); a full earlier flight gets a free standby listing; an overnight wait gets a hotel night."""
    d = Draw(sid)
    hub = "ORD" if d.origin != "ORD" and d.destination != "ORD" else "DFW"
    fare_class = "main_cabin"
    first = d.journey(
        TODAY,
        "06:00",
        "09:40",
        fare_class,
        destination=hub,
        status="delayed",
        delay_minutes=95,
        cause="air traffic control",
    )
    missed = d.journey(TODAY, "10:15", "12:20", fare_class, origin=hub)
    early = d.journey(TODAY, "13:40", "15:45", fare_class, origin=hub, seats=0 if next_full or none_today else 5)
    later_today = d.journey(TODAY, "17:55", "20:00", fare_class, origin=hub, seats=0 if none_today else 7)
    tomorrow = d.journey(TOMORROW, "08:30", "10:35", fare_class, origin=hub)
    res = reservation(
        d.code,
        d.first,
        d.last,
        first,
        fare_class,
        FARES[fare_class],
        elite=elite,
        first_status="flown",
        legs=((missed, "missed"),),
    )
    overnight = none_today or reject_today
    target = tomorrow if overnight else (later_today if next_full else early)
    calls = auth(d.code, d.last) + search(missed, TODAY)
    if overnight:
        calls += search(missed, TOMORROW)
    calls += change_calls(d, missed, target, "missed_connection", "window", 0, fare_class)
    if overnight:
        calls += hotel(d.code, 1, "missed_connection_overnight")
    else:
        calls += search(missed, TODAY)  # the policy looks for a full earlier flight to offer standby on
        if next_full and take_standby:
            calls += standby(d.code, early)
    return spec(
        d,
        "missed_connection",
        "single_intent",
        db_of([res], [first, missed, early, later_today, tomorrow]),
        goal=f"You missed your connection in {hub} to {d.destination} because your first flight landed late. "
        "Get rebooked at no cost"
        + (", flying tomorrow morning." if reject_today else " on the next flight with a seat."),
        must=["no charge", f"a confirmed seat {hub} to {d.destination}"],
        opening="I missed my connecting flight because my first flight was late.",
        info=d.answers(seat_preference="window"),
        tree=[
            (
                "Reject today's flights once (you want to rest tonight), take tomorrow's morning flight."
                if reject_today
                else f"Take {spoken(target)}."
            ),
            "When asked for a seat preference, say window.",
            "Confirm the rebooking if there is no charge.",
            f"If offered standby on an earlier full flight, {'accept' if take_standby else 'decline'} it.",
        ],
        resolution="The missed leg is rebooked and confirmed.",
        failure="No free rebooking: end the call.",
        scripted={
            "answers": d.answers(seat_preference="window", standby="yes" if take_standby else "no"),
            "accept_option": target["flights"][0],
            "accept_say": f"{spoken(target)}, please.",
            "reject_say": "I'd rather fly tomorrow morning, please.",
            "max_fee": 0,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=f"Missed connection (airline fault): free rebooking on {target['flights'][0]}"
        + (", hotel for the night" if overnight else "")
        + (f", standby on full {early['flights'][0]} {'taken' if take_standby else 'declined'}" if next_full else ""),
    )


def cancellation(
    sid: str,
    fare_class: str,
    *,
    fare_type: str = "non_refundable",
    elite: str = "none",
    booked: str = "2026-05-20T13:22",
    departs: str = "2026-06-26",
    disrupted: bool = False,
    accept: bool = True,
) -> dict[str, Any]:
    """5.x: refundable fares, IRROPS (cancelled or over 4 h late) and the 24-hour rule refund in full; other
    non-refundable fares get travel credit minus the cancellation fee (12 months, named passenger)."""
    d = Draw(sid)
    paid = FARES[fare_class]
    status = {"status": "cancelled", "cause": "crew availability"} if disrupted else {}
    old = d.journey(departs, "15:10", "17:25", fare_class, fare=paid, **status)
    res = reservation(
        d.code, d.first, d.last, old, fare_class, paid, fare_type=fare_type, elite=elite, booking_date=booked
    )
    now, booked_at = datetime.fromisoformat(NOW_ISO), datetime.fromisoformat(booked)
    departure = datetime.fromisoformat(f"{departs}T15:10")
    within_24h = now - booked_at <= timedelta(hours=24) and departure - booked_at >= timedelta(days=7)
    if disrupted:
        rule, refund_type = "IRROPS full refund", "irrops"
    elif within_24h:
        rule, refund_type = "24-hour rule full refund", "twenty_four_hour"
    elif fare_type == "refundable":
        rule, refund_type = "refundable fare", "standard"
    else:
        rule, refund_type = "non-refundable: credit minus fee", "credit"
    calls = auth(d.code, d.last) + disruption(old)
    if accept:
        if refund_type == "credit":
            fee = cancellation_fee(fare_class, elite)
            calls += cancel(d.code, "voluntary") + credit(d.code, float(paid - fee), "non_refundable_cancellation")
        else:
            reason = refund_type if refund_type != "standard" else "voluntary"
            calls += cancel(d.code, reason) + refund(d.code, float(paid), refund_type)
    wants = "a refund or, if the fare doesn't allow one, travel credit" if accept else "your money back in cash only"
    return spec(
        d,
        "cancellation_refund",
        "single_intent",
        db_of([res], [old]),
        goal=f"Cancel your {d.origin} to {d.destination} trip on {departs} and get {wants}.",
        must=["reservation cancelled"] if accept else ["a cash refund, not credit"],
        opening="I need to cancel my flight, please."
        if not disrupted
        else "My flight was cancelled by the airline and I want a refund.",
        info=d.answers(),
        tree=[
            "Accept the cancellation with whatever refund or credit the agent states."
            if accept
            else "Decline travel credit: say no and keep the booking.",
        ],
        resolution="The reservation is cancelled and the refund or credit is confirmed.",
        failure="Only travel credit is offered: keep the booking and end the call.",
        scripted={"answers": d.answers(confirm="yes" if accept else "no")},
        entities=d.entities(),
        calls=calls,
        flow=f"Cancellation, {fare_class} {fare_type}, elite {elite}, booked {booked}: {rule}"
        + ("" if accept else "; caller declines, nothing written")
        + ".",
    )


def waiver_escalation(sid: str, reason: str, opening: str, *, accept: bool = True) -> dict[str, Any]:
    """6.1: fee waivers for bereavement, medical emergencies and military orders need documentation a live agent
    must review: offer the transfer and wait for the caller's yes."""
    d = Draw(sid)
    old = d.journey("2026-06-23", "10:40", "13:05", "main_cabin")
    res = reservation(d.code, d.first, d.last, old, "main_cabin", FARES["main_cabin"])
    calls = auth(d.code, d.last) + (transfer("policy_exception") if accept else [])
    return spec(
        d,
        "escalation",
        "single_intent",
        db_of([res], [old]),
        goal=f"Change your flight because of a {reason} and have the change fee waived.",
        must=["fee waived"],
        opening=opening,
        info=d.answers(),
        tree=[f"If offered a transfer to a live agent, {'accept' if accept else 'decline'} it."],
        resolution="You are transferred to someone who can waive the fee." if accept else "You decline the transfer.",
        failure="No waiver possible: end the call.",
        scripted={"answers": d.answers(accept_transfer="yes" if accept else "no")},
        entities=d.entities(),
        calls=calls,
        flow=f"A {reason} waiver is beyond the agent's authority: offer a transfer, "
        + ("transfer on the caller's yes." if accept else "caller declines; nothing written."),
        escalation="Accept a transfer if the agent offers one." if accept else NO_TRANSFER,
    )


def exhausted(sid: str, *, cancelled: bool, take_refund: bool) -> dict[str, Any]:
    """6.3: after a disruption no option works (today and tomorrow full, or rejected): a full refund when the
    disruption allows it, else (or when declined) an offered transfer to a live agent."""
    d = Draw(sid)
    fare_class = "main_cabin"
    old = d.journey(
        TODAY,
        "09:45",
        "12:00",
        fare_class,
        status="cancelled" if cancelled else "delayed",
        delay_minutes=0 if cancelled else 180,
        cause="mechanical",
    )
    today_opt = d.journey(TODAY, "15:30", "17:45", fare_class, seats=0 if cancelled else 3)
    next_opt = d.journey(TOMORROW, "13:20", "15:35", fare_class, seats=0 if cancelled else 3)
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class])
    calls = auth(d.code, d.last) + disruption(old) + search(old, TODAY) + search(old, TOMORROW)
    if cancelled and take_refund:
        calls += cancel(d.code, "irrops") + refund(d.code, float(FARES[fare_class]), "irrops")
    else:
        calls += transfer("no_acceptable_option")
    return spec(
        d,
        "escalation",
        "single_intent",
        db_of([res], [old, today_opt, next_opt]),
        goal=f"Your {d.origin} to {d.destination} flight today was disrupted. You need a morning flight; if "
        "there is none, " + ("take a full refund." if take_refund else "ask for a live agent."),
        must=["departs before 11 AM"],
        opening=(
            "My flight got cancelled. I need to get on another flight."
            if cancelled
            else "My flight is delayed three hours. Can you rebook me?"
        ),
        info=d.answers(seat_preference="aisle"),
        tree=[
            "Reject any flight that leaves at 11 AM or later, restating that you need a morning flight.",
            f"If offered a full refund, {'accept' if take_refund else 'decline'} it.",
            "If offered a transfer to a live agent, accept it.",
        ],
        resolution="Refund confirmed." if take_refund else "Transferred to a live agent.",
        failure="End the call.",
        scripted={
            "answers": d.answers(
                seat_preference="aisle", refund_instead="yes" if take_refund else "no", accept_transfer="yes"
            ),
            "reject_say": "That's too late. I need a morning flight.",
            "reject_limit": 2,
        },
        entities=d.entities(),
        calls=calls,
        flow=(
            "Cancelled, today and tomorrow full: IRROPS refund offered and "
            + ("taken." if take_refund else "declined, then a transfer.")
            if cancelled
            else "3-hour delay (IRROPS, no refund right): both days' options rejected, transfer offered and taken."
        ),
        escalation="Accept a transfer if the agent offers one after options run out.",
    )


def compensation(
    sid: str,
    *,
    status: str = "delayed",
    delay: int = 75,
    hotel_claim: bool = False,
    push_backs: int = 1,
    supervisor: bool = False,
) -> dict[str, Any]:
    """7.x (adversarial): a meal or hotel voucher claim the policy does not cover (delay under 2 h, on time, a
    cancellation without rebooking); refuse with the reason, write nothing. ``supervisor``: the caller then
    insists on a supervisor (6.x): offer the transfer, transfer on yes."""
    d = Draw(sid)
    old = d.journey(
        TODAY,
        "13:50",
        "16:05",
        "main_cabin",
        status=status,
        delay_minutes=delay,
        cause="weather" if status != "on_time" else None,
    )
    res = reservation(d.code, d.first, d.last, old, "main_cabin", FARES["main_cabin"])
    calls = auth(d.code, d.last) + flight_status(old)
    if status in ("delayed", "cancelled"):
        calls += disruption(old)
    if supervisor:
        calls += transfer("caller_request")
    thing = "hotel voucher" if hotel_claim else "meal voucher"
    state = {"delayed": f"is delayed {delay} minutes", "on_time": "is running late", "cancelled": "got cancelled"}
    return spec(
        d,
        "escalation" if supervisor else "compensation_claim",
        "adversarial",
        db_of([res], [old]),
        goal=f"Get a {thing} because your flight {state[status]}.",
        must=[f"a {thing}"],
        opening=f"My flight {state[status]} and I want a {thing}.",
        info=d.answers(),
        tree=[
            f"If the agent refuses, insist {'once' if push_backs == 1 else f'{push_backs} times'}"
            + (" and then ask for a supervisor." if supervisor else "."),
            "If the agent offers a transfer, accept it." if supervisor else "If refused again, accept it and end.",
        ],
        resolution="A voucher is issued, or the agent refuses.",
        failure="Refused: say goodbye.",
        scripted={
            "answers": d.answers(accept_transfer="yes" if supervisor else "no"),
            "push_back_say": "Then I want to speak to a supervisor."
            if supervisor
            else f"That's not fair. I really think I deserve a {thing}.",
            "push_back_times": push_backs,
        },
        entities=d.entities(),
        calls=calls,
        flow=f"Claim for a {thing} ({status}, {delay} min): not covered by policy; refuse"
        + (", then transfer on the caller's insistence." if supervisor else ", write nothing."),
        escalation="Ask for a supervisor after the refusal." if supervisor else NO_TRANSFER,
    )


def named(sid: str, make: Callable[..., dict[str, Any]], **kw: Any) -> Callable[[], dict[str, Any]]:
    builder = lambda: make(sid, **kw)  # noqa: E731 - a named zero-argument builder per scenario
    builder.__name__ = sid.replace("-", "_").lower()
    return builder


GENERATED = [
    # voluntary change (1.x)
    named("AL-006", voluntary, fare_class="business", target_fare=959),
    named("AL-007", voluntary, fare_class="main_cabin", target_fare=249, elite="platinum", pref="window"),
    named("AL-008", voluntary, fare_class="main_cabin", target_fare=199, max_fee=100),
    named("AL-009", voluntary, fare_class="premium_economy", target_fare=639, max_fee=200),
    named("AL-010", voluntary, fare_class="basic_economy", target_fare=189, meal_request="vegetarian"),
    named("AL-011", voluntary, fare_class="first", target_fare=1190, pref="window"),
    named("AL-012", voluntary, fare_class="main_cabin", target_fare=269, sold_out=True),
    # same-day change and standby (4.x)
    named("AL-013", same_day, fare_class="basic_economy", target_fare=159, max_fee=100),
    named("AL-014", same_day, fare_class="business", target_fare=939, max_fee=150, pref="aisle"),
    named("AL-015", standby_request),
    named("AL-016", standby_request, elite="gold", pick=1),
    named("AL-017", standby_request, tomorrow=True),
    # IRROPS rebooking (2.x)
    named("AL-018", irrops, cause="weather"),
    named("AL-019", irrops, cause="mechanical", same_day_seats=False),
    named("AL-020", irrops, cancelled=False, delay=300, cause="crew availability"),
    named("AL-021", irrops, cancelled=False, delay=165, cause="air traffic control"),
    named("AL-022", irrops, cancelled=False, status="schedule_change", delay=150, cause="schedule change"),
    named("AL-023", irrops, cause="weather", reject_today=True),
    named("AL-024", irrops, cause="mechanical", meal_request="vegan"),
    named("AL-025", irrops, cancelled=False, delay=90, cause="late inbound aircraft"),
    # missed connection (3.x)
    named("AL-026", missed_connection),
    named("AL-027", missed_connection, next_full=True),
    named("AL-028", missed_connection, next_full=True, take_standby=False),
    named("AL-029", missed_connection, none_today=True),
    named("AL-030", missed_connection, elite="gold"),
    named("AL-031", missed_connection, reject_today=True),
    # cancellation and refund (5.x)
    named("AL-032", cancellation, fare_class="main_cabin"),
    named("AL-033", cancellation, fare_class="main_cabin", accept=False),
    named("AL-034", cancellation, fare_class="basic_economy", booked="2026-06-17T15:30", departs="2026-06-28"),
    named("AL-035", cancellation, fare_class="main_cabin", booked="2026-06-17T15:30", departs="2026-06-22"),
    named("AL-036", cancellation, fare_class="main_cabin", disrupted=True, departs=TODAY),
    named("AL-037", cancellation, fare_class="business"),
    named("AL-038", cancellation, fare_class="premium_economy", elite="platinum"),
    named("AL-039", cancellation, fare_class="first", fare_type="refundable"),
    # escalation and availability constraints (6.x)
    named(
        "AL-040",
        waiver_escalation,
        reason="bereavement",
        opening="My father passed away and I need to change my flight for the funeral. Can you waive the fee?",
    ),
    named(
        "AL-041",
        waiver_escalation,
        reason="medical emergency",
        opening="I had a medical emergency and need to change my flight without the change fee.",
    ),
    named(
        "AL-042",
        waiver_escalation,
        reason="military orders",
        accept=False,
        opening="I've received military orders and need the change fee waived on my flight.",
    ),
    named("AL-043", exhausted, cancelled=True, take_refund=True),
    named("AL-044", exhausted, cancelled=True, take_refund=False),
    named("AL-045", exhausted, cancelled=False, take_refund=False),
    named("AL-046", compensation, delay=80, supervisor=True),
    # adversarial compensation claims (7.x)
    named("AL-047", compensation, delay=100, hotel_claim=True),
    named("AL-048", compensation, status="on_time", delay=0),
    named("AL-049", compensation, delay=115, push_backs=2),
    named("AL-050", compensation, status="cancelled", delay=0),
]

BUILDERS = [same_day_change, voluntary_change, cancel_refund, same_day_change_gold, compensation_claim, *GENERATED]


def build(plan: dict[str, Any]) -> Scenario:
    executor = ToolExecutor(REGISTRY, plan["db"])
    for name, arguments in plan["calls"]:
        result = executor.call(name, arguments)
        if result["status"] != "success":
            raise RuntimeError(f"{plan['id']}: reference call {name} failed: {result}")
    return Scenario.model_validate(
        {
            "id": plan["id"],
            "domain": "airline",
            "workflow": plan["workflow"],
            "type": plan["type"],
            "current_date_time": NOW,
            "persona": plan["persona"],
            "user_goal": plan["goal"],
            "key_entities": plan["key_entities"],
            "scenario_db": plan["db"],
            "reference_calls": [{"name": n, "arguments": a} for n, a in plan["calls"]],
            "expected_scenario_db": executor.db,
            "expected_flow": plan["expected_flow"],
        }
    )


def main() -> None:
    OUT_DIR.mkdir(exist_ok=True)
    for builder in BUILDERS:
        scenario = build(builder())
        path = OUT_DIR / f"{scenario.id}.json"
        path.write_text(json.dumps(scenario.model_dump(mode="json"), indent=1, sort_keys=False) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
