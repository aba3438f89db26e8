"""Airline requests on the workflow engine that a careful human agent serves though the caller words them in its
own way (EVA-Bench's airline records the engine missed): each test takes one of evalkit's own airline scenarios,
changes what the gap needs (the opening, the database) and runs it in text mode with the scripted caller."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.scenarios import Scenario
from evalkit.text_dialogue import run_text_dialogue, transcript


def scenario(sid: str, opening: str | None = None) -> Scenario:
    """Evalkit's airline scenario ``sid``, its caller opening with ``opening`` when given."""
    found = next(s for s in load_scenarios("airline") if s.id == sid)
    if opening is None:
        return found
    goal = found.user_goal.model_copy(deep=True)
    goal.starting_utterance = opening
    return found.model_copy(update={"user_goal": goal})


def run(case: Scenario) -> tuple[Any, list[tuple[str, str]]]:
    conversation = run_text_dialogue(
        case, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    return conversation, transcript(conversation)


def calls(conversation: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]


# -- "the next flight home": a same-day change to the first flight still open ---------------------------------


def test_the_next_flight_as_soon_as_possible_is_a_same_day_change_to_an_earlier_flight() -> None:
    """AL-001 (an earlier flight today) asked for as "the next flight home as soon as possible": the same task, the
    same earlier flights offered, the same calls; the task is started on those words, not asked for again."""
    case = scenario("AL-001", "Hi, can you move me to the next flight home as soon as possible?")
    conversation, lines = run(case)
    assert "confirmation number" in lines[2][1], lines
    assert task_completion(conversation).score == 1.0, lines
    assert calls(conversation) == [(c.name, c.arguments) for c in case.reference_calls], lines


def test_next_flight_and_as_soon_as_possible_ask_for_a_flight_before_the_booked_one() -> None:
    from evalkit.domains.airline.workflows.same_day import same_day_options

    booking = {"journey_id": "J0", "fare_class": "main_cabin", "status": "confirmed"}
    booking["segments"] = [{"scheduled_departure": "17:30"}]
    found = {"reservation": {"bookings": [booking]}}
    searched = {
        "options": [
            {"journey_id": f"J{t}", "departure_time": t, "available_seats": {"main_cabin": 3}, "segments": []}
            for t in ("12:00", "18:00")
        ]
    }
    for said in ("Put me on the next flight home.", "I need to leave as soon as possible."):
        assert [o["departs"] for o in same_day_options(found, said, searched, "2026-06-18 10:50")] == ["12:00"]


# -- a disputed charge: the booking found, a live agent offered to review it ----------------------------------


def test_a_disputed_charge_is_offered_to_a_live_agent_after_the_booking_is_found() -> None:
    """A caller charged for something it was told would be free: the agent cannot reverse a charge without a
    documented authorization, so (as for AL-040's waiver) it finds the booking and offers a live agent, who is
    handed the dispute on the caller's yes; nothing on the booking changes."""
    case = scenario("AL-040", "I was charged for an upgrade that I was told would be free. Can you fix that?")
    conversation, lines = run(case)
    assert task_completion(conversation).score == 1.0, lines
    made = calls(conversation)
    assert [name for name, _ in made] == ["get_reservation", "transfer_to_agent"], lines
    assert made[1][1]["transfer_reason"] == "policy_exception_needed"
    assert "charged for an upgrade" in made[1][1]["issue_summary"]
    offer = next(t for r, t in lines if r == "assistant" and "transfer you" in t)
    assert "documented authorization" in offer and "I found your booking" in offer


# -- no open flight into the booked airport: an airport nearby, if the caller has one ------------------------


def full_into_denver(answer: str, accept: str | None = "SK748") -> Scenario:
    """AL-002 (ORD-DEN moved to June 22) with SK722 that day full and SK748 flying into Colorado Springs instead:
    no open flight into Denver; the caller answers the nearby-airport question with ``answer``."""
    case = scenario("AL-002")
    db = copy.deepcopy(case.scenario_db)
    full = db["journeys"]["FL_SK722_20260622"]
    for segment in full["segments"]:
        segment["available_seats"] = {**segment["available_seats"], "main_cabin": 0}
    moved = db["journeys"]["FL_SK748_20260622"]
    moved["destination"] = moved["segments"][-1]["destination"] = "COS"
    goal = case.user_goal.model_copy(deep=True)
    goal.scripted.answers["nearby_airport"] = answer
    goal.scripted.accept_option, goal.scripted.accept_say = accept, None
    return case.model_copy(update={"scenario_db": db, "user_goal": goal})


def test_no_open_flight_into_the_booked_airport_asks_for_one_nearby_and_searches_it() -> None:
    conversation, lines = run(full_into_denver("COS"))
    made = calls(conversation)
    searched = [(a["origin"], a["destination"]) for name, a in made if name == "search_rebooking_options"]
    assert searched == [("ORD", "DEN"), ("ORD", "COS")], lines
    assert any("another airport nearby" in t for r, t in lines if r == "assistant"), lines
    rebooked = [a for name, a in made if name == "rebook_flight"]
    assert [a["new_journey_id"] for a in rebooked] == ["FL_SK748_20260622"], lines


def test_a_caller_with_no_airport_nearby_keeps_the_booking_without_a_transfer() -> None:
    conversation, lines = run(full_into_denver("No, I need to keep that airport.", accept=None))
    names = [name for name, _ in calls(conversation)]
    assert names == ["get_reservation", "search_rebooking_options"], lines
    assert "anything else" in lines[-2][1].lower(), lines


def test_a_change_onto_a_flight_today_is_a_same_day_change() -> None:
    """AL-002's change to June 22 made on June 22 itself: the same-day change type (and its fee), not a voluntary
    change's."""
    case = scenario("AL-002").model_copy(update={"current_date_time": "2026-06-22 06:10 PDT"})
    conversation, lines = run(case)
    rebooked = [a for name, a in calls(conversation) if name == "rebook_flight"]
    assert [a["rebooking_type"] for a in rebooked] == ["same_day"], lines


# -- a cancelled flight already replaced by the airline: the disruption is the cancelled flight's ------------


def replaced_by_the_airline() -> Scenario:
    """AL-018 (SK937 cancelled, rebooked onto SK281 at 16:20) after the airline already replaced SK937 with a late
    flight the same day (SK990 at 21:40, a confirmed booking): the caller finds that rebooking unacceptable."""
    case = scenario("AL-018", "My flight got canceled and the rebooking they gave me isn't acceptable. Can you help?")
    db = copy.deepcopy(case.scenario_db)
    late = copy.deepcopy(db["journeys"]["FL_SK281_20260618"])
    late["journey_id"] = "FL_SK990_20260618"
    late["segments"][0].update(flight_number="SK990", scheduled_departure="21:40", scheduled_arrival="23:05")
    db["journeys"]["FL_SK990_20260618"] = late
    reservation = next(iter(db["reservations"].values()))
    original = reservation["bookings"][0]
    original["status"] = "cancelled"
    held = copy.deepcopy(original)
    held.update(journey_id="FL_SK990_20260618", status="confirmed")
    held["segments"][0]["flight_number"] = "SK990"
    reservation["bookings"].append(held)
    return case.model_copy(update={"scenario_db": db})


def test_a_cancelled_flight_already_replaced_is_the_disruption_and_its_same_day_wait_earns_the_meal_at_once() -> None:
    """The request names the rebooking (not a cancellation of the trip); the disruption looked up is the cancelled
    flight's (not the replacement's, which has none); the caller, waiting the same day for the flight it holds, gets
    the same-day meal voucher at once, and only once; a flight taken moves the booking it holds."""
    conversation, lines = run(replaced_by_the_airline())
    assert "confirmation number" in lines[2][1], lines
    made = calls(conversation)
    names = [name for name, _ in made]
    assert made[1] == ("get_disruption_info", {"flight_number": "SK937", "date": "2026-06-18"}), lines
    meals = [a["voucher_reason"] for name, a in made if name == "issue_meal_voucher"]
    assert meals == ["cancellation_wait_same_day"], lines
    assert names.index("issue_meal_voucher") < names.index("search_rebooking_options"), lines
    rebooked = [a for name, a in made if name == "rebook_flight"]
    assert [(a["journey_id"], a["new_journey_id"]) for a in rebooked] == [("FL_SK990_20260618", "FL_SK281_20260618")], (
        lines
    )


# -- the cheapest way today: a full flight's standby list is free while a later confirmed seat is kept -------


def missed_with_a_later_seat(opening: str) -> Scenario:
    """AL-015 (DFW-IAH, confirmed on SK866 at 20:15; SK321 at 14:10 full) with a flight this morning the caller
    missed (SK700 at 08:00, also booked) and SK900 at 17:20 given seats: the caller opens with ``opening``."""
    case = scenario("AL-015", opening)
    db = copy.deepcopy(case.scenario_db)
    morning = copy.deepcopy(db["journeys"]["FL_SK866_20260618"])
    morning["journey_id"] = "FL_SK700_20260618"
    morning["segments"][0].update(flight_number="SK700", scheduled_departure="08:00", scheduled_arrival="09:05")
    db["journeys"]["FL_SK700_20260618"] = morning
    for segment in db["journeys"]["FL_SK900_20260618"]["segments"]:
        segment["available_seats"] = {**segment["available_seats"], "main_cabin": 3}
    reservation = next(iter(db["reservations"].values()))
    missed = copy.deepcopy(reservation["bookings"][0])
    missed["journey_id"] = "FL_SK700_20260618"
    missed["segments"][0]["flight_number"] = "SK700"
    reservation["bookings"].insert(0, missed)
    return case.model_copy(update={"scenario_db": db})


def test_the_cheapest_way_today_offers_a_full_flight_s_free_standby_beside_the_paid_changes() -> None:
    """A caller who missed its flight and asks for the cheapest way today, holding a confirmed seat on a later flight:
    the full flight before that seat is offered as free standby beside the flight with seats (not the flight it
    already holds), and taking it lists the caller while the later seat stays confirmed."""
    case = missed_with_a_later_seat("I missed my flight this morning. Can you get me on the cheapest option today?")
    conversation, lines = run(case)
    offer = next(t for r, t in lines if r == "assistant" and "Which flight would you like" in t)
    assert "S K 3 2 1 at 2:10 PM, which is full, but standby on it is free" in offer, lines
    assert "S K 9 0 0" in offer and "S K 8 6 6" not in offer, lines
    confirm = next(t for r, t in lines if r == "assistant" and "Shall I add you to the standby list" in t)
    assert "your seat on flight S K 8 6 6 stays confirmed" in confirm, lines
    assert [name for name, _ in calls(conversation)] == [
        "get_reservation",
        "search_rebooking_options",
        "add_to_standby",
    ], lines
    assert calls(conversation)[2][1]["journey_id"] == "FL_SK321_20260618"


def test_without_asking_for_the_cheapest_way_no_full_flight_is_offered_nor_one_already_held() -> None:
    case = missed_with_a_later_seat("I missed my flight this morning. Can you get me on another one today?")
    _, lines = run(case)
    offer = next(t for r, t in lines if r == "assistant" and "Which flight would you like" in t)
    assert "S K 9 0 0" in offer and "S K 3 2 1" not in offer and "S K 8 6 6" not in offer, lines


# -- standby on several earlier flights at once -------------------------------------------------------------


def test_standby_on_two_earlier_flights_named_at_once_lists_the_caller_on_both() -> None:
    """AL-015 (standby for an earlier flight; SK321 at 14:10 and SK900 at 17:20 both full) with a caller who takes both
    at once: both read back, both lists joined, the confirmed seat kept; no one position is claimed for both."""
    case = scenario("AL-015")
    goal = case.user_goal.model_copy(deep=True)
    goal.scripted.answers["accept_also"] = "SK900"
    conversation, lines = run(case.model_copy(update={"user_goal": goal}))
    listed = [a["journey_id"] for name, a in calls(conversation) if name == "add_to_standby"]
    assert listed == ["FL_SK321_20260618", "FL_SK900_20260618"], lines
    said = [t for r, t in lines if r == "assistant"]
    assert any("S K 3 2 1 at 2:10 PM and flight S K 9 0 0 at 5:20 PM. Is that right?" in t for t in said), lines
    assert "You're on the standby lists for flight S K 3 2 1 and flight S K 9 0 0." in said[-1], lines


def test_two_flights_named_for_a_paid_change_are_asked_again_not_both_taken() -> None:
    """Several options are taken at once only for standby: a same-day change to two flights is unclear."""
    from evalkit.agents.reference.workflow_offer import several_named

    texts = ["flight S K 1 1 0 at 11 AM", "flight S K 1 3 0 at 1 PM", "flight S K 1 5 0 at 3:30 PM"]
    assert several_named("I'll take flight SK one ten and flight SK one thirty.", texts) == [0, 1]
    assert several_named("The 11 AM and the 3:30 PM, please.", texts) == [0, 2]
    assert several_named("I'll take flight SK one ten.", texts) == []
    case = scenario("AL-001")
    goal = case.user_goal.model_copy(deep=True)
    goal.scripted.answers["accept_also"] = "SK215"
    goal.scripted.accept_say = None
    conversation, lines = run(case.model_copy(update={"user_goal": goal}))
    assert not any("S K 1 3 0 at 1 PM and flight S K 2 1 5" in t for r, t in lines if r == "assistant"), lines
    assert not any(name == "add_to_standby" for name, _ in calls(conversation)), lines


def test_a_transcript_s_hyphen_after_re_does_not_hide_the_task() -> None:
    """Seen in audio (EVA-Bench 6.1.1): "rebooked" transcribed "re-booked" was heard as a cancellation only (the
    caller was then refunded instead of rebooked)."""
    from evalkit.agents.reference.workflow_hearing import match_workflows

    said = "My flight to Seattle got canceled and I need help getting {}."
    assert match_workflows(said.format("rebooked"), WORKFLOWS) == ["irrops_rebooking"]
    assert match_workflows(said.format("re-booked"), WORKFLOWS) == ["irrops_rebooking"]
