"""EVA-Bench airline records through evalkit (issue 15 points 1, 4 and 5), on our own record in EVA-Bench's published
layout: its ground-truth calls replay to its expected DB through evalkit's airline tools, and the local agent with
the scripted caller (answering from the record's fields, choosing towards its expected end state) completes it.

The expected DB is written out here from EVA-Bench's semantics (old booking kept as cancelled, the new one appended
with its own segment, seats moved, bags and meal carried over, the seat from the class's first row), not produced by
evalkit's tools, so a tool that departs from EVA-Bench's behaviour fails the replay.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from evalkit.domains.airline.eva_choices import airline_choices
from evalkit.scenario_tools.__main__ import main
from tests.eva_fixtures import TREE, write_checkout

CODE = "QX7PLN"


def journey(flight: str, date: str, departs: str, arrives: str, fare: float, seats: int) -> dict[str, Any]:
    fares = {"basic_economy": None, "main_cabin": fare, "premium_economy": None, "business": None, "first": None}
    return {
        "journey_id": f"FL_{flight}_{date.replace('-', '')}",
        "date": date,
        "origin": "AUS",
        "destination": "LAX",
        "num_stops": 0,
        "status": "scheduled",
        "bookable": True,
        "fares": fares,
        "segments": [
            {
                "segment_number": 1,
                "flight_number": flight,
                "origin": "AUS",
                "destination": "LAX",
                "scheduled_departure": departs,
                "scheduled_arrival": arrives,
                "status": "scheduled",
                "available_seats": {
                    "basic_economy": 0,
                    "main_cabin": seats,
                    "premium_economy": 0,
                    "business": 0,
                    "first": 0,
                },
                "available_seat_types": {"main_cabin": ["window", "aisle", "middle"]},
                "fares": fares,
            }
        ],
    }


def initial_db() -> dict[str, Any]:
    return {
        "_current_date": "2031-05-01",
        "reservations": {
            CODE: {
                "confirmation_number": CODE,
                "status": "confirmed",
                "fare_type": "non_refundable",
                "booking_date": "2031-04-02T09:15:00-05:00",
                "passengers": [
                    {
                        "passenger_id": "PAX001",
                        "first_name": "<FIRST_NAME_ROMANIZED>",
                        "last_name": "<LAST_NAME_ROMANIZED>",
                        "elite_status": None,
                    }
                ],
                "bookings": [
                    {
                        "journey_id": "FL_SK101_20310510",
                        "fare_class": "main_cabin",
                        "fare_paid": 200.0,
                        "status": "confirmed",
                        "segments": [
                            {
                                "flight_number": "SK101",
                                "date": "2031-05-10",
                                "fare_paid": 200.0,
                                "seat": "20A",
                                "bags_checked": 1,
                                "meal_request": "vegetarian",
                            }
                        ],
                    }
                ],
                "ancillaries": {"seat_selection_fee": 0.0, "bags_fee": 30.0},
            }
        },
        "journeys": {
            j["journey_id"]: j
            for j in (
                journey("SK101", "2031-05-10", "09:00", "10:30", 200, 5),
                journey("SK111", "2031-05-12", "08:40", "10:10", 230, 4),
                journey("SK115", "2031-05-12", "19:20", "20:50", 210, 9),
            )
        },
        "disruptions": {},
        "refunds": {},
        "travel_credits": {},
        "meal_vouchers": {},
    }


def expected_db() -> dict[str, Any]:
    """What EVA-Bench's tools leave after the voluntary change below (floats where EVA-Bench writes them)."""
    db = copy.deepcopy(initial_db())
    reservation = db["reservations"][CODE]
    reservation["status"] = "changed"
    reservation["bookings"][0]["status"] = "cancelled"
    new_segment = {"flight_number": "SK111", "date": "2031-05-12", "fare_paid": 230.0}
    new_segment |= {"seat": "21A", "bags_checked": 1, "meal_request": "vegetarian"}
    reservation["bookings"].append(
        {
            "journey_id": "FL_SK111_20310512",
            "fare_class": "main_cabin",
            "fare_paid": 230.0,
            "status": "confirmed",
            "segments": [new_segment],
        }
    )
    db["journeys"]["FL_SK101_20310510"]["segments"][0]["available_seats"]["main_cabin"] = 6
    db["journeys"]["FL_SK111_20310512"]["segments"][0]["available_seats"]["main_cabin"] = 3
    db["session"] = {"confirmation_number": CODE, "last_name": "<LAST_NAME_ROMANIZED>"}
    return db


def call(name: str, **params: Any) -> dict[str, Any]:
    return {"event_type": "tool_call", "tool_name": name, "params": params}


def record(record_id: str = "8.2.1") -> dict[str, Any]:
    new = {"confirmation_number": CODE, "journey_id": "FL_SK111_20310512"}
    trace = [
        {"event_type": "user_utterance", "utterance": "I need to change my flight to May 12."},
        call("get_reservation", confirmation_number=CODE, last_name="<LAST_NAME_ROMANIZED>"),
        call(
            "search_rebooking_options",
            origin="AUS",
            destination="LAX",
            date="2031-05-12",
            passenger_count=1,
            fare_class="main_cabin",
        ),
        call(
            "rebook_flight",
            confirmation_number=CODE,
            journey_id="FL_SK101_20310510",
            new_journey_id="FL_SK111_20310512",
            rebooking_type="voluntary",
            waive_change_fee=False,
        ),
        call("assign_seat", **new, passenger_id="PAX001", seat_preference="window"),
        call("add_baggage_allowance", **new, num_bags=1),
        call("add_meal_request", **new, passenger_id="PAX001", meal_type="vegetarian"),
    ]
    return {
        "id": record_id,
        "current_date_time": "2031-05-01 10:20 CDT",
        "user_goal": {
            "high_level_user_goal": "You want to move your Austin to Los Angeles flight to the morning of May 12.",
            "decision_tree": copy.deepcopy(TREE),
            "information_required": {
                "Passenger last name": "<LAST_NAME>",
                "Booking confirmation number": CODE,
                "Desired new departure date": "2031-05-12",
                "seat_preference": {"first_choice": "window", "second_choice": "aisle"},
                "Maximum total rebooking cost": "$120",
            },
        },
        "user_config": {"name": "<FIRST_NAME> <LAST_NAME>", "gender": "woman", "user_persona": "You are brief."},
        "expected_flow": "Voluntary change to the morning flight on May 12; seat, bag and meal carried over.",
        "ground_truth": {"expected_scenario_db": expected_db(), "expected_trace": {"trace": trace}},
        "starting_utterances": {"en": "Hi, I need to change my flight to May 12."},
        "culture_overrides": {"en": {"first_name": "Ilse", "last_name": "Brandauer"}},
        "romanized_culture_overrides": {"en": {"first_name": "Ilse", "last_name": "Brandauer"}},
    }


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return write_checkout(tmp_path / "eva", {"airline": [(record(), initial_db())]})


def test_the_ground_truth_calls_reproduce_eva_benchs_expected_db(checkout, capsys) -> None:
    assert main(["replay", str(checkout)]) == 0
    assert capsys.readouterr().out.strip() == "airline: replayed 1: equal 1, differ 0, error 0"


def test_a_tool_that_departs_from_eva_bench_is_caught(tmp_path: Path, capsys) -> None:
    wrong = record()
    seat = wrong["ground_truth"]["expected_scenario_db"]["reservations"][CODE]["bookings"][1]["segments"][0]
    seat["seat"] = "22F"  # a seat EVA-Bench's rule would not give
    root = write_checkout(tmp_path / "eva", {"airline": [(wrong, initial_db())]})
    assert main(["replay", str(root)]) == 1
    assert 'seat: modified expected "22F", actual "21A"' in capsys.readouterr().out


def test_the_local_agent_and_scripted_caller_complete_the_record(checkout, capsys) -> None:
    assert main(["text-run", str(checkout)]) == 0
    assert capsys.readouterr().out.startswith("airline: 1/1 tasks completed in text mode (100%)")


def test_the_callers_choices_come_from_the_expected_end_state() -> None:
    choices = airline_choices(initial_db(), expected_db(), [{"name": "rebook_flight"}])
    assert choices["accept_option"] == "SK111"
    assert choices["answers"] == {
        "new_date": "2031-05-12",
        "standby": "no",
        "refund_instead": "no",
        "accept_transfer": "no",
        "confirm": "yes",
    }
    nothing = airline_choices(initial_db(), initial_db(), [{"name": "transfer_to_agent"}])
    assert nothing["accept_option"] is None
    assert nothing["answers"]["confirm"] == "no" and nothing["answers"]["accept_transfer"] == "yes"


def test_standby_on_several_flights_is_chosen_from_the_end_states_standby_lists() -> None:
    expected = copy.deepcopy(initial_db())
    for journey_id in ("FL_SK111_20310512", "FL_SK115_20310512"):
        expected["journeys"][journey_id]["standby_list"] = [{"confirmation_number": CODE, "passenger_id": "PAX001"}]
    choices = airline_choices(initial_db(), expected, [])
    assert choices["accept_option"] == "SK111" and choices["answers"]["accept_also"] == "SK115"
    assert choices["answers"]["standby"] == "yes"
