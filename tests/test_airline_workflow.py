"""Airline's tasks on the workflow engine (issue 28.4): the declarations are well formed, and in text mode with the
scripted caller the engine completes every cancellation and change scenario with the reference calls (24-hour rule,
disruption refund, credit, a declined cancellation). Where the former hand-written policy (deleted when airline
moved onto the engine) was the measure, what it said and called is kept in ``airline_former_policy.json``
(recorded from it on db21ecf) and the engine is held to it."""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalkit.agents.reference.workflow_offer import choose_option
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.airline.workflows.cancellation import cancellation_quote, within_24_hours
from evalkit.domains.airline.workflows.changes import change_quote
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.text_dialogue import run_text_dialogue, transcript

CANCELLATIONS = [s for s in load_scenarios("airline") if s.workflow == "cancellation_refund"]
CHANGES = [s for s in load_scenarios("airline") if s.workflow == "voluntary_change"]


def test_the_cancellation_workflow_is_well_formed_and_are_what_airline_runs() -> None:
    from evalkit.domains import get_domain

    WORKFLOWS["cancellation_refund"].check(REGISTRY)
    assert get_domain("airline").workflows is WORKFLOWS  # the domain's own: what the local agent runs
    assert len(CANCELLATIONS) == 9


def engine_completes(sid: str, **argument_changes: dict[str, object]) -> list[tuple[str, str]]:
    """The engine's text run of scenario ``sid``, asserted complete with the scenario's reference calls (a tool's
    arguments changed as ``argument_changes`` says); its transcript."""
    scenario = next(s for s in load_scenarios("airline") if s.id == sid)
    conversation = run_text_dialogue(
        scenario, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]
    reference = [(c.name, {**c.arguments, **argument_changes.get(c.name, {})}) for c in scenario.reference_calls]
    assert made == reference, lines
    return lines


@pytest.mark.parametrize("sid", ["AL-034", "AL-035", "AL-036", "AL-032", "AL-033"])
def test_the_engine_completes_airline_cancellations_with_the_reference_calls(sid: str) -> None:
    engine_completes(sid)


FORMER = json.loads((Path(__file__).parent / "airline_former_policy.json").read_text())


def confirmation(sid: str) -> str:
    """The agent's cancellation question in a text run."""
    scenario = next(s for s in CANCELLATIONS if s.id == sid)
    conversation = run_text_dialogue(scenario, lambda t: t, None, np.random.default_rng(0))
    return next(t for r, t in transcript(conversation) if r == "assistant" and "go ahead and cancel" in t)


@pytest.mark.parametrize("sid", ["AL-032", "AL-034", "AL-036", "AL-039"])  # credit, 24 hours, disruption, refundable
def test_the_engine_quotes_the_refund_or_credit_as_the_former_policy_did(sid: str) -> None:
    engine = confirmation(sid)
    # the same words from the route on (the engine spells the flight number: "S K 8 0 4" for "SK804")
    assert engine.partition(" from ")[2] == FORMER["quotes"][sid], engine
    assert " dollars" in engine


def test_a_disruption_refund_gives_back_seat_and_bag_fees_as_the_former_policy_did() -> None:
    scenario = next(s for s in CANCELLATIONS if s.id == "AL-036")  # a disrupted flight: an IRROPS refund
    db = copy.deepcopy(scenario.scenario_db)
    next(iter(db["reservations"].values()))["ancillaries"] = {"bags_fee": 35.0, "seat_selection_fee": 25.0}
    with_fees = scenario.model_copy(update={"scenario_db": db})
    run = run_text_dialogue(with_fees, lambda t: t, None, np.random.default_rng(0))
    refunds = [call.arguments for turn in run.turns for call in turn.tool_calls if call.name == "process_refund"]
    fees = {"confirmation_number": "3FTVFL", "refund_amount": 60.0, "refund_type": "ancillary_fees"}
    assert refunds == FORMER["fees"]["refunds"] and fees in refunds, refunds
    closing = next(t for r, t in transcript(run) if r == "assistant" and "is cancelled" in t)
    assert closing == FORMER["fees"]["closing"], closing
    assert "Your 60 dollars of seat and bag fees are refunded as well." in closing


def test_the_quote_is_the_domain_s_cancellation_terms_for_the_fare_paid() -> None:
    found = {"reservation": {"fare_type": "non_refundable", "bookings": [{"fare_paid": 249, "status": "confirmed"}]}}
    quote = cancellation_quote(found, "voluntary")
    assert (quote["basis"], quote["credit_amount_eligible"], quote["cancellation_fee"], quote["paid"]) == (
        "credit",
        149,
        100,
        249,
    )
    assert cancellation_quote(found, "24_hour_rule")["basis"] == "24_hour_rule"
    assert cancellation_quote(found, "24_hour_rule")["refund_amount_eligible"] == 249
    found["reservation"]["fare_type"] = "refundable"
    assert cancellation_quote(found, "voluntary")["basis"] == "refundable"


def test_the_24_hour_rule_counts_hours_and_the_week_before_the_flight() -> None:
    found = {"reservation": {"booking_date": "2026-06-17T15:30", "bookings": [{"segments": [{"date": "2026-06-28"}]}]}}
    assert within_24_hours(found, "2026-06-18 10:50")
    assert not within_24_hours(found, "2026-06-18 15:31")  # 24 hours and a minute
    found["reservation"]["bookings"][0]["segments"][0]["date"] = "2026-06-23"  # six days after booking
    assert not within_24_hours(found, "2026-06-18 10:50")


def with_a_second_journey(sid: str, opening: str | None = None) -> object:
    """A made-up variant of a real scenario: the reservation holds a second live journey (a return flight a week
    later at its own fare), so cancelling it covers both journeys unless the caller's ``opening`` names one."""
    scenario = next(s for s in CANCELLATIONS if s.id == sid)
    if opening is not None:
        goal = scenario.user_goal.model_copy(update={"starting_utterance": opening})
        scenario = scenario.model_copy(update={"user_goal": goal})
    db = copy.deepcopy(scenario.scenario_db)
    reservation = next(iter(db["reservations"].values()))
    back = copy.deepcopy(reservation["bookings"][0])
    back["segments"][0].update(flight_number="SK999", date="2026-07-30")
    back.update(journey_id="FL_SK999_20260730", fare_paid=back["fare_paid"] + 50)
    reservation["bookings"].append(back)
    flight = copy.deepcopy(db["journeys"][reservation["bookings"][0]["journey_id"]])  # the flight runs, as the first
    flight.update(journey_id="FL_SK999_20260730", date="2026-07-30")
    flight["segments"][0]["flight_number"] = "SK999"
    db["journeys"]["FL_SK999_20260730"] = flight
    return scenario.model_copy(update={"scenario_db": db})


def engine_run(scenario: object) -> tuple[list[list[Any]], list[str]]:
    """The engine's tool calls on ``scenario`` (as JSON keeps them: lists) and what it said."""
    run = run_text_dialogue(scenario, lambda t: t, None, np.random.default_rng(0))  # type: ignore[arg-type]
    made = [[c.name, c.arguments] for t in run.turns for c in t.tool_calls]
    return made, [t for r, t in transcript(run) if r == "assistant"]


@pytest.mark.parametrize("sid", ["AL-032", "AL-039"])  # a non-refundable fare (credit), a refundable one (refund)
def test_two_live_journeys_are_both_cancelled_and_settled_in_one_total_as_the_former_policy_did(sid: str) -> None:
    made, said = engine_run(with_a_second_journey(sid))
    former = FORMER["two_journeys"][sid]
    assert [c for c in made if c[0] != "get_flight_status"] == former["writes"], made
    cancelled = [args["journey_id"] for name, args in made if name == "cancel_reservation"]
    assert len(cancelled) == 2 and cancelled[1] == "FL_SK999_20260730", made
    settled = [args for name, args in made if name in ("issue_travel_credit", "process_refund")]
    assert len(settled) == 1, made  # one credit or refund for both journeys
    assert next(t for t in said if "go ahead" in t).partition(" from ")[2] == former["quote"], said
    assert next(t for t in said if "is cancelled" in t) == former["closing"], said


def test_a_caller_who_names_the_return_has_only_the_return_cancelled_as_the_former_policy_did() -> None:
    made, said = engine_run(with_a_second_journey("AL-032", "Hi, I need to cancel just the return part of my trip."))
    assert made == FORMER["return_only"]["calls"], made
    cancelled = [args["journey_id"] for name, args in made if name == "cancel_reservation"]
    assert cancelled == ["FL_SK999_20260730"], made  # the outbound stays booked
    credit = next(args for name, args in made if name == "issue_travel_credit")
    assert credit["amount"] == 199, made  # the return's 299 less the 100 dollar fee
    assert next(t for t in said if "is cancelled" in t) == FORMER["return_only"]["closing"], said


def test_the_voluntary_change_workflow_is_well_formed() -> None:
    WORKFLOWS["voluntary_change"].check(REGISTRY)
    assert len(CHANGES) == 8


# a plain change, a Platinum fee waiver, a cheaper fare (credit), a meal request carried over
@pytest.mark.parametrize("sid", ["AL-002", "AL-007", "AL-008", "AL-010"])
def test_the_engine_completes_voluntary_changes_with_the_former_policy_s_calls(sid: str) -> None:
    scenario = next(s for s in CHANGES if s.id == sid)
    made, said = engine_run(scenario)
    assert made == FORMER["changes"][sid], made
    assert any("total of" in t for t in said), said  # the fee and difference quoted before the change
    # the scenario's reference calls, but for the search's fare class: both agents search the booked cabin
    reference = [(c.name, c.arguments) for c in scenario.reference_calls]
    cabin = [(n, {**a, "fare_class": "x"} if n == "search_rebooking_options" else a) for n, a in made]
    assert cabin == [(n, {**a, "fare_class": "x"} if n == "search_rebooking_options" else a) for n, a in reference]
    conversation = run_text_dialogue(scenario, lambda t: t, None, np.random.default_rng(0))
    assert task_completion(conversation).score == 1.0, transcript(conversation)


def test_the_change_quote_is_the_domain_s_fee_and_the_fare_difference() -> None:
    booking = {"fare_class": "main_cabin", "fare_paid": 200, "status": "confirmed", "segments": []}
    found = {"reservation": {"bookings": [booking], "passengers": [{"elite_status": None}]}}
    assert change_quote(found, "", {"fare": 240}) == {"fee": 75, "waived": False, "difference": 40, "total": 115}
    assert change_quote(found, "", {"fare": 150})["total"] == 75  # a cheaper fare: no refund in the total
    found["reservation"]["passengers"][0]["elite_status"] = "platinum"
    assert change_quote(found, "", {"fare": 200})["fee"] == 0


def test_an_offered_flight_is_chosen_by_its_number_or_its_time_said_in_words() -> None:
    from evalkit.domains.workflow import Offer

    step = next(s for s in WORKFLOWS["voluntary_change"].steps if isinstance(s, Offer))
    items = [{"journey_id": "FL_SK722_20260622"}, {"journey_id": "FL_SK748_20260622"}]
    texts = ["flight S K 7 2 2 at 8:15 AM", "flight S K 7 4 8 at 6:40 PM"]
    today = date(2026, 6, 1)
    assert choose_option("SK seven forty-eight, please.", step, items, texts, today) == 1
    assert choose_option("The 8:15 AM one.", step, items, texts, today) == 0


def test_a_flight_number_read_out_character_by_character_is_one_flight_number() -> None:
    from evalkit.spoken import parse_flight_numbers

    assert parse_flight_numbers("flight S K 7 2 2 at 8:15 AM; or flight S K 7 4 8") == ["SK722", "SK748"]
    assert parse_flight_numbers("go to 1 2 3") == []  # letters not read apart are no flight


# an earlier flight today; a Gold member's same-day fee waived
@pytest.mark.parametrize("sid", ["AL-001", "AL-004"])
def test_the_engine_completes_same_day_changes_with_the_reference_calls(sid: str) -> None:
    WORKFLOWS["same_day_change"].check(REGISTRY)
    engine_completes(sid)


# standby on an earlier flight today (full in the booked cabin: the search is of any cabin, as the former policy's),
# the confirmed seat kept
@pytest.mark.parametrize("sid", ["AL-015", "AL-016"])
def test_a_standby_request_lists_the_caller_on_an_earlier_flight_and_keeps_the_confirmed_seat(sid: str) -> None:
    lines = engine_completes(sid, search_rebooking_options={"fare_class": "any"})
    confirmation = next(t for r, t in lines if r == "assistant" and "standby list for flight" in t)
    assert "stays confirmed" in confirmation
    assert any(r == "assistant" and "on the standby list for flight" in t for r, t in lines[-3:]), lines


def test_standby_for_a_flight_not_booked_today_is_refused_before_any_search() -> None:
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-015")
    earlier_day = scenario.model_copy(update={"current_date_time": "2026-06-17 10:50 PDT"})
    conversation = run_text_dialogue(
        earlier_day, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    made = [c.name for t in conversation.turns for c in t.tool_calls]
    assert made == ["get_reservation"], transcript(conversation)
    assert any("Standby is only for flights today" in t for _, t in transcript(conversation))


def test_a_standby_request_is_told_from_a_same_day_change_by_the_caller_s_words() -> None:
    from evalkit.domains.airline.workflows.changes import wants_standby

    assert wants_standby("Can you put me on standby for an earlier flight?")
    assert wants_standby("I'd like to stand by for the 2 PM")
    assert not wants_standby("Can you move me to an earlier flight today?")


def test_a_same_day_change_offers_only_flights_earlier_than_booked_and_not_closed() -> None:
    from evalkit.domains.airline.workflows.changes import same_day_options

    booking = {"journey_id": "J0", "fare_class": "main_cabin", "status": "confirmed"}
    booking["segments"] = [{"scheduled_departure": "17:30"}]
    found = {"reservation": {"bookings": [booking]}}
    seats = {"main_cabin": 3}
    searched = {
        "options": [
            {"journey_id": f"J{t}", "departure_time": t, "available_seats": seats, "segments": []}
            for t in ("11:00", "11:30", "18:00")
        ]
    }
    earlier = same_day_options(found, "Can you move me to an earlier flight today?", searched, "2026-06-18 10:50")
    assert [o["departs"] for o in earlier] == ["11:30"]  # 11:00 closes at 10:30; 18:00 is later
    later = same_day_options(found, "I need a later flight today.", searched, "2026-06-18 10:50")
    assert [o["departs"] for o in later] == ["18:00"]


def test_a_ranked_seat_preference_is_kept_in_order_and_each_type_tried_until_one_is_free() -> None:
    from evalkit.domains.airline.workflows.changes import SEAT, SEATS
    from evalkit.domains.workflow import resolve

    heard = SEAT.normalize("Aisle, then window, then middle.")
    assert heard == "aisle, window, middle"
    assert [item["seat_preference"] for item in resolve(SEATS, {"seat_preference": heard})] == [
        "aisle",
        "window",
        "middle",
    ]
    assert SEAT.normalize("A window seat, please.") == "window" and SEAT.normalize("Hmm.") is None
    assign = next(s for s in WORKFLOWS["voluntary_change"].steps if getattr(s, "tool", "") == "assign_seat")
    assert assign.each is SEATS and assign.first_ok


def test_the_disruption_record_is_read_when_the_caller_tells_of_a_disruption_the_status_does_not_show() -> None:
    from evalkit.domains.airline.workflows.cancellation import DISRUPTED
    from evalkit.domains.workflow import resolve

    def read(status: str, said: str) -> bool:
        return resolve(DISRUPTED, {"status": {"journey": {"status": status}}, "requested": said})

    assert read("scheduled", "My flight time got changed a lot and I need to cancel and get a refund.")
    assert read("cancelled", "I need to cancel my flight, please.")
    assert not read("scheduled", "I need to cancel my flight, please.")


def test_a_change_to_another_destination_asks_its_airport_code_and_searches_that_route() -> None:
    """A caller who asks to fly into another airport ("change my destination") is asked its three-letter code (the
    tools know no city names) and offered that route's flights; the booked route otherwise."""
    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-002")
    db = copy.deepcopy(scenario.scenario_db)
    for journey in db["journeys"].values():
        if journey["journey_id"] == "FL_SK748_20260622":  # the evening flight now flies into Colorado Springs
            journey["destination"] = journey["segments"][-1]["destination"] = "COS"
    goal = scenario.user_goal.model_copy(deep=True)
    goal.starting_utterance = "I need to change my destination to Colorado Springs."
    goal.scripted.answers["new_destination"] = "COS"
    goal.scripted.accept_option, goal.scripted.accept_say = "SK748", "The 6:40 PM one, please."
    moved = scenario.model_copy(update={"scenario_db": db, "user_goal": goal})
    conversation = run_text_dialogue(
        moved, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert any("Which arrival airport would you like instead?" in t for r, t in lines if r == "assistant"), lines
    searched = [c.arguments for t in conversation.turns for c in t.tool_calls if c.name == "search_rebooking_options"]
    assert [(a["origin"], a["destination"]) for a in searched] == [("ORD", "COS")], lines
    rebooked = [c.arguments for t in conversation.turns for c in t.tool_calls if c.name == "rebook_flight"]
    assert [a["new_journey_id"] for a in rebooked] == ["FL_SK748_20260622"], lines


def round_trip(scenario_id: str = "AL-002") -> object:
    """AL-002 (ORD-DEN on June 20, changed to June 22) made a round trip: DEN-ORD on June 25, movable to June 27."""
    scenario = next(s for s in load_scenarios("airline") if s.id == scenario_id)
    db = copy.deepcopy(scenario.scenario_db)

    def journey(number: str, day: str, origin: str, destination: str) -> dict:
        template = copy.deepcopy(db["journeys"]["FL_SK722_20260622"])
        template.update(
            journey_id=f"FL_{number}_{day.replace('-', '')}", date=day, origin=origin, destination=destination
        )
        template["segments"][0].update(flight_number=number, origin=origin, destination=destination)
        return template

    for made in (journey("SK723", "2026-06-25", "DEN", "ORD"), journey("SK733", "2026-06-27", "DEN", "ORD")):
        db["journeys"][made["journey_id"]] = made
    reservation = db["reservations"]["7HQ4TZ"]
    back = copy.deepcopy(reservation["bookings"][0])
    back.update(journey_id="FL_SK723_20260625")
    back["segments"][0].update(flight_number="SK723", date="2026-06-25")
    reservation["bookings"].append(back)
    goal = scenario.user_goal.model_copy(deep=True)
    goal.starting_utterance = "I need to change my round-trip flight dates."
    goal.scripted.answers.update(return_date="June 27th", accept_also="SK733")
    return scenario.model_copy(update={"scenario_db": db, "user_goal": goal})


def test_a_round_trip_changed_both_ways_moves_the_outbound_then_asks_the_return_date() -> None:
    conversation = run_text_dialogue(
        round_trip(), lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    rebooked = [c.arguments for t in conversation.turns for c in t.tool_calls if c.name == "rebook_flight"]
    moves = [(a["journey_id"], a["new_journey_id"]) for a in rebooked]
    assert moves == [("FL_SK722_20260620", "FL_SK722_20260622"), ("FL_SK723_20260625", "FL_SK733_20260627")], lines
    assert any("What return date would you like?" in t for r, t in lines if r == "assistant"), lines
    one_way = run_text_dialogue(
        round_trip().model_copy(update={"user_goal": next(s for s in CHANGES if s.id == "AL-002").user_goal}),
        lambda t: t,
        None,
        np.random.default_rng(0),
        registry=REGISTRY,
        workflows=WORKFLOWS,
    )
    assert len([c for t in one_way.turns for c in t.tool_calls if c.name == "rebook_flight"]) == 1  # not asked: one leg
