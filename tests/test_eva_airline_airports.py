"""A change of airport in EVA-Bench-format airline records (issue 15 point 5): the caller names a city, the local
agent (whose tools take airport codes and know no city names) asks for the new airport's code, and offers another
airport nearby when the booked route has no flights; the scripted caller answers with the airport of the journey
its expected end state books.

The records are test_eva_airline's voluntary change with the new flight moved to another airport: only asking for the
airport finds it (the booked route's search shows no flight the caller takes).
"""

from __future__ import annotations

import copy
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from evalkit.agents.reference.slot_hearing import hear_slot
from evalkit.domains.airline.eva_choices import airline_choices
from evalkit.domains.airline.policy import route_change
from evalkit.domains.airline.workflows.changes import NEW_DESTINATION
from evalkit.scenario_tools.__main__ import main
from tests.eva_fixtures import write_checkout
from tests.test_eva_airline import expected_db, initial_db, record


def moved(db: dict[str, Any], journeys: tuple[str, ...], destination: str) -> dict[str, Any]:
    """``db`` with the given journeys flying into ``destination`` instead of LAX."""
    db = copy.deepcopy(db)
    for journey_id in journeys:
        journey = db["journeys"][journey_id]
        journey["destination"] = journey["segments"][-1]["destination"] = destination
    return db


def airport_record(opening: str, journeys: tuple[str, ...], destination: str) -> tuple[dict[str, Any], dict]:
    """test_eva_airline's record with ``journeys`` flying into ``destination``; its caller opens with ``opening``."""
    initial = moved(initial_db(), journeys, destination)
    rec = record("8.3.1")
    rec["ground_truth"]["expected_scenario_db"] = moved(expected_db(), journeys, destination)
    for event in rec["ground_truth"]["expected_trace"]["trace"]:
        if event.get("tool_name") == "search_rebooking_options":
            event["params"]["destination"] = destination
    rec["starting_utterances"] = {"en": opening}
    return rec, initial


def text_run(tmp_path: Path, rec: dict[str, Any], initial: dict[str, Any], capsys) -> str:
    root = write_checkout(tmp_path / "eva", {"airline": [(rec, initial)]})
    main(["text-run", str(root)])
    return capsys.readouterr().out


def test_a_caller_moving_the_destination_to_a_city_is_asked_for_its_airport(tmp_path: Path, capsys) -> None:
    # SK111 on May 12 now flies to SFO; the booked route (AUS-LAX) has only SK115 that day, which the caller refuses
    rec, initial = airport_record(
        "I need to change my flight destination to San Francisco.", ("FL_SK111_20310512",), "SFO"
    )
    out = text_run(tmp_path, rec, initial, capsys)
    assert out.startswith("airline: 1/1 tasks completed in text mode (100%)"), out


def test_no_flights_on_the_booked_route_bring_an_offer_of_a_nearby_airport(tmp_path: Path, capsys) -> None:
    # every flight on May 12 flies into SNA: the LAX search is empty, the caller's end state is at SNA
    both = ("FL_SK111_20310512", "FL_SK115_20310512")
    rec, initial = airport_record("Hi, I need to change my flight to May 12.", both, "SNA")
    out = text_run(tmp_path, rec, initial, capsys)
    assert out.startswith("airline: 1/1 tasks completed in text mode (100%)"), out


def test_the_callers_airport_comes_from_the_journey_its_end_state_books() -> None:
    initial = moved(initial_db(), ("FL_SK111_20310512",), "SFO")
    expected = moved(expected_db(), ("FL_SK111_20310512",), "SFO")
    answers = airline_choices(initial, expected, [])["answers"]
    assert answers["new_destination"] == "SFO" and "new_origin" not in answers
    # the same route as the booking: no airport to move to
    assert not {"new_origin", "new_destination"} & set(airline_choices(initial_db(), expected_db(), [])["answers"])


@pytest.mark.parametrize(
    ("opening", "end"),
    [
        ("I need to change my flight destination to Detroit.", "destination"),
        ("I need to change my flight to leave from Newark instead of JFK.", "origin"),
        ("Hi, I need to change my flight to Chicago next week.", None),  # the booked city: a date change
        ("Can you move me to an earlier flight today?", None),
    ],
)
def test_which_end_of_the_trip_a_request_moves(opening: str, end: str | None) -> None:
    assert route_change(opening) == end


@pytest.mark.parametrize(
    ("heard", "code"),
    [
        ("It's D T W.", "DTW"),
        ("DTW.", "DTW"),
        ("Lima Golf Bravo.", "LGB"),
        ("I think it's D T X... oh wait, sorry, actually it's D T W.", "DTW"),
    ],
)
def test_an_airport_code_is_heard_as_spoken(heard: str, code: str | None) -> None:
    assert hear_slot(NEW_DESTINATION, heard, date(2026, 1, 1)) == code
