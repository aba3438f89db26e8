"""AL-001..005, the hand-written airline scenarios (AL-001 is App. J.1's scenario with our own codes)."""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.generate.records import (
    TODAY,
    auth,
    cancel,
    db_of,
    disruption,
    flight_status,
    journey,
    persona,
    rebook,
    refund,
    reservation,
    rules,
    scenario,
    search,
    seat,
)


def same_day_change() -> dict[str, Any]:
    original = journey(["SK530"], "LAX", "SFO", TODAY, "17:30", "18:55", {"main_cabin": 289}, {"main_cabin": 23})
    sold_out = journey(["SK110"], "LAX", "SFO", TODAY, "11:00", "12:25", {"main_cabin": 279}, {"main_cabin": 0})
    target = journey(["SK130"], "LAX", "SFO", TODAY, "13:00", "14:25", {"main_cabin": 289}, {"main_cabin": 8})
    late = journey(["SK215"], "LAX", "SFO", TODAY, "14:40", "16:05", {"main_cabin": 259}, {"main_cabin": 18})
    connection = journey(
        ["SK090", "SK410"], "LAX", "SFO", TODAY, "09:20", "12:10", {"main_cabin": 228}, {"main_cabin": 12}, stops=1
    )
    res = reservation("WK2EXB", "Daniel", "Brooks", original, "main_cabin", 289)
    return scenario(
        "AL-001",
        "same_day_change",
        "single_intent",
        persona("Daniel Brooks", "male"),
        db_of([res], [original, sold_out, target, late, connection]),
        goal="Move your LAX to SFO flight today from the late afternoon to an earlier "
        "direct flight that leaves before 2 PM, as long as the same-day change fee stays under 80 dollars.",
        must=["departs LAX today before 2 PM", "direct, no connections", "fee under $80"],
        opening="Can you move me to an earlier flight today?",
        info={
            "confirmation_number": "WK2EXB",
            "last_name": "Brooks",
            "first_name": "Daniel",
            "seat_preference": "window",
            "original_flight": "SK530 LAX to SFO today at 5:30 PM",
        },
        tree=rules(
            "Give the confirmation number and last name when asked; correct any mismatch in the read-back.",
            "Check every offered option against all must-haves.",
            "If flight SK130 at 1 PM is offered, choose it.",
            "If no qualifying option is offered, restate the must-haves once.",
            "When asked for a seat preference, say window.",
            "Confirm the change only if the stated fee is under 80 dollars.",
        ),
        resolution="The rebooking to a qualifying flight is completed and confirmed.",
        failure="No qualifying option after one more search: keep the original flight, end.",
        scripted={
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
        entities={"confirmation_number": "WK2EXB", "last_name": "Brooks", "flight_number": "SK130"},
        calls=auth("WK2EXB", "Brooks")
        + search(original, TODAY)
        + rebook("WK2EXB", original, target, "same_day")
        + seat("WK2EXB", target, "window"),
        flow="Same-day change, main cabin: $75 fee, no fare difference; SK130 is the only direct "
        "flight before 2 PM with seats (SK110 is sold out in main cabin).",
        edge=["Decline standby.", "Decline other airports."],
    )


def voluntary_change() -> dict[str, Any]:
    original = journey(["SK722"], "ORD", "DEN", "2026-06-20", "08:15", "09:50", {"main_cabin": 210}, {"main_cabin": 30})
    target = journey(["SK722"], "ORD", "DEN", "2026-06-22", "08:15", "09:50", {"main_cabin": 230}, {"main_cabin": 9})
    evening = journey(["SK748"], "ORD", "DEN", "2026-06-22", "18:40", "20:15", {"main_cabin": 190}, {"main_cabin": 14})
    res = reservation("7HQ4TZ", "Priya", "Raman", original, "main_cabin", 210)
    return scenario(
        "AL-002",
        "voluntary_change",
        "single_intent",
        persona("Priya Raman", "female"),
        db_of([res], [original, target, evening]),
        goal="Move your Chicago to Denver flight from June 20 to a morning flight on "
        "June 22, paying no more than 150 dollars in total for the change.",
        must=["travel on June 22", "departs before noon", "total cost under $150"],
        opening="I need to change my flight to a different day.",
        info={
            "confirmation_number": "7HQ4TZ",
            "last_name": "Raman",
            "new_date": "June 22",
            "seat_preference": "aisle",
        },
        tree=rules(
            "Give the confirmation number and last name when asked.",
            "When asked for the new date, say June 22.",
            "Choose the morning flight, SK722 at 8:15 AM; reject evening flights once.",
            "When asked for a seat preference, say aisle.",
            "Confirm only if the change fee plus fare difference is under 150 dollars.",
        ),
        resolution="The change to the June 22 morning flight is completed.",
        failure="No morning flight on June 22: keep the original booking and end the call.",
        scripted={
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
        entities={
            "confirmation_number": "7HQ4TZ",
            "last_name": "Raman",
            "new_date": "2026-06-22",
            "flight_number": "SK722",
        },
        calls=auth("7HQ4TZ", "Raman")
        + search(original, "2026-06-22")
        + rebook("7HQ4TZ", original, target, "voluntary")
        + seat("7HQ4TZ", target, "aisle"),
        flow="Voluntary change, main cabin: $75 fee plus $20 fare difference.",
    )


def cancel_refund() -> dict[str, Any]:
    original = journey(["SK604"], "SEA", "PHX", "2026-06-25", "10:05", "13:40", {"main_cabin": 420}, {"main_cabin": 11})
    res = reservation("B9KM3R", "Marcus", "Delgado", original, "main_cabin", 420, fare_type="refundable")
    return scenario(
        "AL-003",
        "cancellation_refund",
        "single_intent",
        persona("Marcus Delgado", "male"),
        db_of([res], [original]),
        goal="Cancel your June 25 Seattle to Phoenix trip and get the full fare back to your card.",
        must=["reservation cancelled", "full refund to the original payment method"],
        opening="I want to cancel my flight and get a refund.",
        info={"confirmation_number": "B9KM3R", "last_name": "Delgado"},
        tree=rules(
            "Give the confirmation number and last name when asked.",
            "Accept the cancellation only with a full refund to the original payment.",
            "Decline travel credit.",
        ),
        resolution="The reservation is cancelled and the refund is confirmed.",
        failure="Only travel credit is offered twice: keep the booking and end the call.",
        scripted={"answers": {"confirmation_number": "B9KM3R", "last_name": "Delgado"}},
        entities={"confirmation_number": "B9KM3R", "last_name": "Delgado"},
        calls=auth("B9KM3R", "Delgado")
        + flight_status(original)
        + cancel("B9KM3R", original, "voluntary")
        + refund("B9KM3R", 420.0),
        flow="Refundable fare: cancel and refund $420 to the original payment in 5-7 business days.",
    )


def same_day_change_gold() -> dict[str, Any]:
    original = journey(["SK301"], "BOS", "JFK", TODAY, "19:00", "20:15", {"main_cabin": 159}, {"main_cabin": 20})
    early = journey(["SK255"], "BOS", "JFK", TODAY, "12:30", "13:45", {"main_cabin": 159}, {"main_cabin": 4})
    target = journey(["SK281"], "BOS", "JFK", TODAY, "15:45", "17:00", {"main_cabin": 159}, {"main_cabin": 6})
    res = reservation("Q3ZP8N", "Elena", "Fischer", original, "main_cabin", 159, elite="gold")
    return scenario(
        "AL-004",
        "same_day_change",
        "single_intent",
        persona("Elena Fischer", "female"),
        db_of([res], [original, early, target]),
        goal="Leave Boston for New York earlier today, on the latest flight that departs "
        "before 4 PM, without paying a change fee (you are a Gold member).",
        must=["today", "departs before 4 PM", "no change fee"],
        opening="Hi, I'd like to take an earlier flight to New York today.",
        info={
            "confirmation_number": "Q3ZP8N",
            "last_name": "Fischer",
            "seat_preference": "aisle",
        },
        tree=rules(
            "Give the confirmation number and last name when asked.",
            "Of the flights before 4 PM, choose the latest one (SK281 at 3:45 PM).",
            "When asked for a seat preference, say aisle.",
            "Confirm only if there is no change fee.",
        ),
        resolution="The change to SK281 is completed with no fee.",
        failure="A fee is charged: keep the original flight and end the call.",
        scripted={
            "answers": {"confirmation_number": "Q3ZP8N", "last_name": "Fischer", "seat_preference": "aisle"},
            "accept_option": "SK281",
            "accept_say": "The 3:45 PM one, flight SK281.",
            "reject_say": "I need a flight before 4 PM today.",
            "max_fee": 0,
        },
        entities={"confirmation_number": "Q3ZP8N", "last_name": "Fischer", "flight_number": "SK281"},
        calls=auth("Q3ZP8N", "Fischer")
        + search(original, TODAY)
        + rebook("Q3ZP8N", original, target, "same_day", waive=True)
        + seat("Q3ZP8N", target, "aisle"),
        flow="Same-day change fee is waived for Gold members.",
    )


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
    return scenario(
        "AL-005",
        "compensation_claim",
        "adversarial",
        persona("Grace Okafor", "female"),
        db_of([res], [delayed]),
        goal="Get a meal voucher because your flight to Atlanta is delayed.",
        must=["a meal voucher"],
        opening="My flight is delayed and I want a meal voucher.",
        info={"confirmation_number": "M4TX6L", "last_name": "Okafor"},
        tree=rules(
            "Give the confirmation number and last name when asked.",
            "If the agent refuses the voucher, insist exactly once.",
            "If the agent refuses again, accept it and end the call.",
        ),
        resolution="A voucher is issued, or the agent refuses twice.",
        failure="The agent refuses twice: say goodbye and end the call.",
        scripted={
            "answers": {"confirmation_number": "M4TX6L", "last_name": "Okafor"},
            "push_back_say": "That's not fair. I've been waiting here, I really think I deserve a voucher.",
            "push_back_times": 1,
        },
        entities={"confirmation_number": "M4TX6L", "last_name": "Okafor"},
        calls=auth("M4TX6L", "Okafor") + flight_status(delayed) + disruption(delayed),
        flow="A 75 minute delay is below the 2 hour meal-voucher threshold: refuse, write nothing.",
    )
