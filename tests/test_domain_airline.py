"""Airline tools, executor semantics and the consistency of the shipped scenario files."""

from __future__ import annotations

import json

import pytest

from evalkit.domains.airline import REGISTRY
from evalkit.domains.airline.generate import BUILDERS, build
from evalkit.domains.airline.policy import change_fee, elite_waives, meal_voucher_for_delay
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios, scenario_dir
from evalkit.scenarios import load_scenario
from evalkit.scenarios.store import ScenarioError


@pytest.fixture
def al001():
    return load_scenarios("airline", ["AL-001"])[0]


def test_five_scenarios_ship_with_distinct_workflows():
    scenarios = load_scenarios("airline")
    assert len(scenarios) >= 5
    assert {"same_day_change", "voluntary_change", "cancellation_refund", "compensation_claim"} <= {
        s.workflow for s in scenarios
    }
    assert any(s.type == "adversarial" for s in scenarios)


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda b: b.__name__)
def test_stored_expected_db_is_the_result_of_the_reference_path(builder):
    """The files must equal what the generator produces: expected DBs are executed, never typed by hand."""
    rebuilt = build(builder())
    stored = json.loads((scenario_dir("airline") / f"{rebuilt.id}.json").read_text())
    assert stored == rebuilt.model_dump(mode="json")


def test_unknown_tool_and_bad_arguments_are_structured_errors(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    unknown = ex.call("fly_me_to_the_moon", {})
    assert unknown["status"] == "error" and unknown["error_type"] == "unknown_tool"
    bad = ex.call("get_reservation", {"confirmation_number": "WK2EXB"})
    assert bad["error_type"] == "invalid_arguments" and "last_name" in bad["message"]
    # EVA-Bench names an invalid value's field format in the error type
    code = ex.call("get_reservation", {"confirmation_number": "WK2-EXB", "last_name": "Brooks"})
    assert code["error_type"] == "invalid_confirmation_number_format"
    trip = {"confirmation_number": "WK2EXB", "journey_id": "SK530", "cancellation_reason": "voluntary"}
    assert ex.call("cancel_reservation", trip)["error_type"] == "invalid_journey_id_format"
    reason = {**trip, "journey_id": "FL_SK530_20260618", "cancellation_reason": "changed_my_mind"}
    assert ex.call("cancel_reservation", reason)["error_type"] == "invalid_cancellation_reason"
    assert ex.db == {**al001.scenario_db, "session": {}}


def test_wrong_last_name_does_not_authenticate(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    wrong = ex.call("get_reservation", {"confirmation_number": "WK2EXB", "last_name": "Brook"})
    assert wrong["error_type"] == "authentication_failed"
    assert ex.db["session"] == {}
    ok = ex.call("get_reservation", {"confirmation_number": "wk2exb", "last_name": "BROOKS"})
    assert ok["status"] == "success"
    assert ex.db["session"] == {"confirmation_number": "WK2EXB", "last_name": "brooks"}
    segment = ok["reservation"]["bookings"][0]["segments"][0]  # the schedule comes from the journeys table
    assert (segment["origin"], segment["scheduled_departure"]) == ("LAX", "17:30")
    assert "origin" not in ex.db["reservations"]["WK2EXB"]["bookings"][0]["segments"][0]


def test_failed_write_leaves_no_partial_state(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    ex.call("get_reservation", {"confirmation_number": "WK2EXB", "last_name": "Brooks"})
    before = json.dumps(ex.db, sort_keys=True)
    sold_out = ex.call(
        "rebook_flight",
        {
            "confirmation_number": "WK2EXB",
            "journey_id": "FL_SK530_20260618",
            "new_journey_id": "FL_SK110_20260618",
            "rebooking_type": "same_day",
            "waive_change_fee": False,
        },
    )
    assert sold_out["error_type"] == "no_seats_available"
    assert json.dumps(ex.db, sort_keys=True) == before


def test_executor_never_mutates_the_scenario(al001):
    original = json.dumps(al001.scenario_db, sort_keys=True)
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    for call in al001.reference_calls:
        ex.call(call.name, call.arguments)
    assert json.dumps(al001.scenario_db, sort_keys=True) == original
    assert ex.db == al001.expected_scenario_db


@pytest.mark.parametrize(
    ("kind", "fare", "elite", "fee"),
    [
        ("same_day", "main_cabin", None, 75),
        ("same_day", "basic_economy", None, 199),
        ("same_day", "main_cabin", "gold", 0),
        ("voluntary", "main_cabin", "gold", 75),
        ("voluntary", "business", None, 0),
        ("voluntary", "premium_economy", "platinum", 0),
        ("irrops_delay", "basic_economy", None, 0),
        ("missed_connection_airline_fault", "main_cabin", None, 75),  # not IRROPS: the agent must waive it
    ],
)
def test_change_fees_follow_the_csm_policy(kind, fare, elite, fee):
    assert change_fee(kind, fare, elite_waives(kind, elite)) == fee


def test_meal_voucher_bands():
    assert meal_voucher_for_delay(75) is None
    assert meal_voucher_for_delay(120) == "delay_over_2_hours"
    assert meal_voucher_for_delay(239) == "delay_over_2_hours"
    assert meal_voucher_for_delay(240) == "delay_over_4_hours"


# EVA-Bench's airline tool schemas as exported to agents (configs/agents/airline_agent.yaml): tool -> required
# arguments, optional arguments, and the enum of each enumerated argument.
FARE_CLASSES = ["basic_economy", "main_cabin", "premium_economy", "business", "first"]
EVA_SCHEMAS = {
    "get_reservation": ({"confirmation_number", "last_name"}, set(), {}),
    "get_flight_status": ({"flight_number", "flight_date"}, set(), {}),
    "get_disruption_info": ({"flight_number", "date"}, set(), {}),
    "search_rebooking_options": (
        {"origin", "destination", "date", "passenger_count", "fare_class"},
        set(),
        {"fare_class": [*FARE_CLASSES, "any"]},
    ),
    "rebook_flight": (
        {"confirmation_number", "journey_id", "new_journey_id", "rebooking_type", "waive_change_fee"},
        {"new_fare_class", "flight_number"},
        {
            "rebooking_type": [
                "voluntary",
                "same_day",
                "irrops_cancellation",
                "irrops_delay",
                "irrops_schedule_change",
                "missed_flight_passenger_fault",
                "missed_connection_airline_fault",
            ],
            "new_fare_class": FARE_CLASSES,
        },
    ),
    "add_to_standby": ({"confirmation_number", "journey_id", "passenger_ids"}, set(), {}),
    "assign_seat": (
        {"confirmation_number", "passenger_id", "journey_id", "seat_preference"},
        {"flight_number"},
        {"seat_preference": ["window", "aisle", "middle", "no_preference"]},
    ),
    "add_baggage_allowance": ({"confirmation_number", "journey_id", "num_bags"}, {"flight_number"}, {}),
    "add_meal_request": (
        {"confirmation_number", "passenger_id", "journey_id", "meal_type"},
        {"flight_number"},
        {
            "meal_type": [
                "vegetarian",
                "vegan",
                "kosher",
                "halal",
                "gluten_free",
                "diabetic",
                "low_sodium",
                "child",
                "hindu",
                "standard",
                "none",
            ]
        },
    ),
    "issue_travel_credit": (
        {"confirmation_number", "passenger_id", "amount", "credit_reason"},
        set(),
        {
            "credit_reason": [
                "cancellation_non_refundable",
                "fare_difference_negative",
                "service_recovery",
                "goodwill",
                "downgrade_compensation",
            ]
        },
    ),
    "issue_hotel_voucher": ({"confirmation_number", "passenger_id", "num_nights"}, set(), {}),
    "issue_meal_voucher": (
        {"confirmation_number", "passenger_id", "voucher_reason"},
        set(),
        {
            "voucher_reason": [
                "delay_over_2_hours",
                "delay_over_4_hours",
                "cancellation_wait_same_day",
                "irrops_overnight",
            ]
        },
    ),
    "cancel_reservation": (
        {"confirmation_number", "journey_id", "cancellation_reason"},
        set(),
        {
            "cancellation_reason": [
                "voluntary",
                "irrops_refund",
                "24_hour_rule",
                "schedule_unacceptable",
                "medical",
                "bereavement",
            ]
        },
    ),
    "process_refund": (
        {"confirmation_number", "refund_amount", "refund_type"},
        set(),
        {"refund_type": ["full_fare", "partial_fare", "taxes_only", "ancillary_fees"]},
    ),
    "transfer_to_agent": ({"confirmation_number", "transfer_reason", "issue_summary"}, set(), {}),
}


def _enum(prop: dict) -> list | None:
    for option in [prop, *prop.get("anyOf", [])]:
        if "enum" in option:
            return option["enum"]
    return None


@pytest.mark.parametrize("tool", sorted(EVA_SCHEMAS))
def test_tool_schemas_are_eva_benchs(tool):
    required, optional, enums = EVA_SCHEMAS[tool]
    parameters = REGISTRY[tool].json_schema()["parameters"]
    assert set(parameters.get("required", [])) == required
    assert set(parameters["properties"]) == required | optional
    for name, values in enums.items():
        assert _enum(parameters["properties"][name]) == values, name


def test_registry_is_eva_benchs_sixteen_tools_with_meaningful_flags():
    assert set(REGISTRY.names) == set(EVA_SCHEMAS)
    assert REGISTRY.write_tools == [
        "add_baggage_allowance",
        "add_meal_request",
        "add_to_standby",
        "assign_seat",
        "cancel_reservation",
        "issue_hotel_voucher",
        "issue_meal_voucher",
        "issue_travel_credit",
        "process_refund",
        "rebook_flight",
    ]  # transfer_to_agent writes nothing (as in EVA-Bench); get_reservation only opens the session
    assert REGISTRY.irreversible_tools == [
        "cancel_reservation",
        "issue_meal_voucher",
        "process_refund",
        "rebook_flight",
    ]
    assert REGISTRY["rebook_flight"].json_schema()["description"].startswith("Rebook a booked journey")


def test_malformed_scenario_file_names_file_and_field(tmp_path, al001):
    raw = al001.model_dump(mode="json")
    del raw["user_goal"]["starting_utterance"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ScenarioError, match=r"broken\.json.*user_goal\.starting_utterance"):
        load_scenario(path)


def test_unknown_domain_and_ids_are_clear_errors():
    with pytest.raises(ScenarioError, match="unknown domain 'space'"):
        load_scenarios("space")
    with pytest.raises(ScenarioError, match=r"unknown scenario id 'AL-999' in domain 'airline'; .* known") as info:
        load_scenarios("airline", ["AL-999", "AL-001", "AL-998"])
    assert len(str(info.value).splitlines()) == 2 and info.value.option == "domain.scenarios"  # one line per id


# -- the shipped scenarios ------------------------------------------------------------------------
WORKFLOWS = {
    "voluntary_change",
    "same_day_change",
    "irrops_rebooking",
    "missed_connection",
    "cancellation_refund",
    "escalation",
    "compensation_claim",
}


def executor_for(scenario_id: str) -> tuple[ToolExecutor, object]:
    scenario = load_scenarios("airline", [scenario_id])[0]
    ex = ToolExecutor(REGISTRY, scenario.scenario_db)
    code = scenario.key_entities["confirmation_number"]
    assert (
        ex.call("get_reservation", {"confirmation_number": code, "last_name": scenario.key_entities["last_name"]})[
            "status"
        ]
        == "success"
    )
    return ex, scenario


def test_fifty_scenarios_cover_the_seven_workflow_categories():
    scenarios = load_scenarios("airline")
    assert len(scenarios) == 50 and {s.workflow for s in scenarios} == WORKFLOWS
    counts = {w: sum(s.workflow == w for s in scenarios) for w in WORKFLOWS}
    assert min(counts.values()) >= 5, counts
    assert sum(s.type == "adversarial" for s in scenarios) >= 7
    codes = [s.key_entities["confirmation_number"] for s in scenarios]
    assert len(set(codes)) == 50 and all(any(c.isdigit() for c in code) for code in codes)


def test_the_default_run_samples_one_scenario_per_workflow():
    from tests.test_config import composed

    ids = composed()["domain"]["scenarios"]
    assert {s.workflow for s in load_scenarios("airline", ids)} == WORKFLOWS


def reservation_of(ex: ToolExecutor, scenario) -> dict:
    return ex.db["reservations"][scenario.key_entities["confirmation_number"]]


def booked(scenario) -> dict:
    """The first booking's first segment, with its journey id."""
    booking = scenario.scenario_db["reservations"][scenario.key_entities["confirmation_number"]]["bookings"][0]
    return {"journey_id": booking["journey_id"], **booking["segments"][0]}


def test_flight_status_and_disruption_records():
    ex, scenario = executor_for("AL-036")  # cancelled flight
    flight = booked(scenario)
    status = ex.call("get_flight_status", {"flight_number": flight["flight_number"], "flight_date": flight["date"]})
    assert status["journey"]["journey_id"] == flight["journey_id"] and status["journey"]["status"] == "cancelled"
    record = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    disruption = record["disruption"]
    assert disruption["disruption_type"] == "cancellation" and disruption["is_irrops"]
    assert disruption["passenger_entitled_to"]["refund_option"]
    ex, scenario = executor_for("AL-025")  # 90 minutes: not IRROPS
    flight = booked(scenario)
    short = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    assert short["disruption"]["delay_minutes"] == 90 and not short["disruption"]["is_irrops"]
    ex, scenario = executor_for("AL-032")  # on schedule: the disruption desk has no record
    flight = booked(scenario)
    none = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    assert none["error_type"] == "not_found"


def test_flight_status_finds_a_connection_by_its_second_flight(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    found = ex.call("get_flight_status", {"flight_number": "SK410", "flight_date": "2026-06-18"})
    assert found["journey"]["journey_id"] == "FL_SK090_SK410_20260618"
    missing = ex.call("get_flight_status", {"flight_number": "SK410", "flight_date": "2026-06-19"})
    assert missing["error_type"] == "not_found"


def test_search_lists_bookable_flights_with_seats_priced_in_the_class(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    route = {"origin": "LAX", "destination": "SFO", "date": "2026-06-18", "passenger_count": 1}
    main = ex.call("search_rebooking_options", {**route, "fare_class": "main_cabin"})
    ids = [o["journey_id"] for o in main["options"]]
    assert "FL_SK110_20260618" not in ids  # sold out in main cabin
    assert [o["departure_time"] for o in main["options"]] == sorted(o["departure_time"] for o in main["options"])
    target = next(o for o in main["options"] if o["journey_id"] == "FL_SK130_20260618")
    assert target["fare"] == 289 and main["count"] == len(ids)
    anyclass = ex.call("search_rebooking_options", {**route, "fare_class": "any"})
    full = next(o for o in anyclass["options"] if o["journey_id"] == "FL_SK110_20260618")
    assert full["available_seats"]["main_cabin"] == 0 and full["fare"] == full["segments"][0]["fares"]["business"]


def test_voluntary_rebook_charges_fee_and_difference_and_moves_seats():
    ex, scenario = executor_for("AL-002")  # main cabin, $210 paid, new flight $230
    rebook = next(c for c in scenario.reference_calls if c.name == "rebook_flight").arguments
    old_id, new_id = rebook["journey_id"], rebook["new_journey_id"]
    seats = {j: ex.db["journeys"][j]["segments"][0]["available_seats"]["main_cabin"] for j in (old_id, new_id)}
    result = ex.call("rebook_flight", rebook)
    assert result["cost_summary"] == {
        "original_fare_class": "main_cabin",
        "new_fare_class": "main_cabin",
        "cabin_changed": False,
        "change_fee": 75,
        "fare_difference": 20,
        "credit_due": 0,
        "total_collected": 95,
        "fee_waived": False,
    }
    reservation = reservation_of(ex, scenario)
    assert [(b["journey_id"], b["status"]) for b in reservation["bookings"]] == [
        (old_id, "cancelled"),
        (new_id, "confirmed"),
    ]
    assert reservation["status"] == "changed" and reservation["bookings"][1]["fare_paid"] == 230
    assert ex.db["journeys"][old_id]["segments"][0]["available_seats"]["main_cabin"] == seats[old_id] + 1
    assert ex.db["journeys"][new_id]["segments"][0]["available_seats"]["main_cabin"] == seats[new_id] - 1


def test_irrops_rebook_keeps_the_fare_paid_and_collects_nothing():
    ex, scenario = executor_for("AL-018")
    rebook = next(c for c in scenario.reference_calls if c.name == "rebook_flight").arguments
    assert rebook["rebooking_type"] == "irrops_cancellation"
    result = ex.call("rebook_flight", {**rebook, "waive_change_fee": False})
    summary = result["cost_summary"]
    assert summary["change_fee"] == 0 and summary["total_collected"] == 0 and summary["fee_waived"]
    paid = booked(scenario)["fare_paid"]
    new = reservation_of(ex, scenario)["bookings"][-1]
    assert new["fare_paid"] == paid and new["segments"][0]["fare_paid"] == paid


def test_partial_rebook_splits_a_connection(al001):
    from evalkit.domains.airline.generate.records import booking_of, journey

    db = json.loads(json.dumps(al001.scenario_db))
    connection = journey(["SK090", "SK410"], "LAX", "SFO", "2026-06-18", "09:20", "12:10", {"main_cabin": 228}, {})
    db["reservations"]["WK2EXB"]["bookings"] = [booking_of(connection, "main_cabin", 228, "confirmed", None)]
    ex = ToolExecutor(REGISTRY, db)
    args = {
        "confirmation_number": "WK2EXB",
        "journey_id": "FL_SK090_SK410_20260618",
        "new_journey_id": "FL_SK130_20260618",
        "rebooking_type": "same_day",
        "waive_change_fee": False,
    }
    assert ex.call("rebook_flight", args)["status"] == "success"  # the whole journey
    ex = ToolExecutor(REGISTRY, db)
    result = ex.call("rebook_flight", {**args, "flight_number": "SK410"})  # one leg of it
    assert result["partial_rebook"] and [s["flight_number"] for s in result["kept_segments"]] == ["SK090"]
    bookings = ex.db["reservations"]["WK2EXB"]["bookings"]
    assert [(b["journey_id"], b["status"], [s["flight_number"] for s in b["segments"]]) for b in bookings] == [
        ("FL_SK090_SK410_20260618", "cancelled", ["SK090", "SK410"]),
        ("FL_SK130_20260618", "confirmed", ["SK130"]),
        ("FL_SK090_SK410_20260618", "confirmed", ["SK090"]),
    ]
    assert result["cost_summary"]["fare_difference"] == 289 - 114  # against the replaced leg's fare only
    seat = {"confirmation_number": "WK2EXB", "passenger_id": "PAX001", "seat_preference": "aisle"}
    both = ToolExecutor(REGISTRY, db)
    needs = both.call("assign_seat", {**seat, "journey_id": "FL_SK090_SK410_20260618"})
    assert needs["error_type"] == "flight_number_required"


def test_seats_follow_class_row_passenger_and_seat_types(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    args = {"confirmation_number": "WK2EXB", "passenger_id": "PAX001", "journey_id": "FL_SK530_20260618"}
    window = ex.call("assign_seat", {**args, "seat_preference": "window"})
    assert window["seat_assigned"] == "21A"  # main cabin starts at row 20, passenger 1
    assert ex.db["reservations"]["WK2EXB"]["bookings"][0]["segments"][0]["seat"] == "21A"
    db = json.loads(json.dumps(ex.db))
    db["journeys"]["FL_SK530_20260618"]["segments"][0]["available_seat_types"]["main_cabin"] = ["aisle"]
    refused = ToolExecutor(REGISTRY, db).call("assign_seat", {**args, "seat_preference": "window"})
    assert refused["error_type"] == "seat_type_unavailable"


def test_bags_and_meals_apply_to_every_segment_or_one_flight(al001):
    from evalkit.domains.airline.generate.records import booking_of, journey

    db = json.loads(json.dumps(al001.scenario_db))
    connection = journey(["SK090", "SK410"], "LAX", "SFO", "2026-06-18", "09:20", "12:10", {"main_cabin": 228}, {})
    db["reservations"]["WK2EXB"]["bookings"] = [booking_of(connection, "main_cabin", 228, "confirmed", None)]
    ex = ToolExecutor(REGISTRY, db)
    trip = {"confirmation_number": "WK2EXB", "journey_id": "FL_SK090_SK410_20260618"}
    assert ex.call("add_baggage_allowance", {**trip, "num_bags": 2})["bags_checked"] == 2
    meal = {**trip, "passenger_id": "PAX001", "meal_type": "kosher", "flight_number": "SK410"}
    assert ex.call("add_meal_request", meal)["status"] == "success"
    segments = ex.db["reservations"]["WK2EXB"]["bookings"][0]["segments"]
    assert [(s["bags_checked"], s["meal_request"]) for s in segments] == [(2, None), (2, "kosher")]
    assert ex.call("add_baggage_allowance", {**trip, "num_bags": 6})["error_type"] == "invalid_bag_count"
    assert ex.call("add_meal_request", {**meal, "meal_type": "steak"})["error_type"] == "invalid_meal_type"


def test_vouchers_amounts_codes_and_limits():
    ex, scenario = executor_for("AL-018")
    code = scenario.key_entities["confirmation_number"]
    who = {"confirmation_number": code, "passenger_id": "PAX001"}
    meal = ex.call("issue_meal_voucher", {**who, "voucher_reason": "irrops_overnight"})
    assert (meal["amount"], meal["voucher_code"]) == (25, f"MEAL-{code}-PAX0")
    assert ex.db["meal_vouchers"][f"MEAL-{code}-PAX0"]["issued_date"] == "2026-06-18"
    too_long = ex.call("issue_hotel_voucher", {**who, "num_nights": 4})
    assert too_long["error_type"] == "exceeds_authority"
    hotel = ex.call("issue_hotel_voucher", {**who, "num_nights": 3})
    assert hotel["voucher_code"] == f"HOTEL-{code}" and ex.db["hotel_vouchers"][f"HOTEL-{code}"]["num_nights"] == 3
    credit = ex.call("issue_travel_credit", {**who, "amount": 40.0, "credit_reason": "goodwill"})
    assert credit["credit_code"] == f"TC{code}PAX"
    assert ex.db["travel_credits"][f"TC{code}PAX"]["expiry_date"] == "2027-06-18"


def test_cancellation_terms_non_refundable_and_24_hour_rule():
    ex, scenario = executor_for("AL-032")  # non-refundable main cabin, booked a month ago
    flight = booked(scenario)
    args = {
        "confirmation_number": scenario.key_entities["confirmation_number"],
        "journey_id": flight["journey_id"],
        "cancellation_reason": "voluntary",
    }
    before = ex.db["journeys"][flight["journey_id"]]["segments"][0]["available_seats"]["main_cabin"]
    result = ex.call("cancel_reservation", args)
    assert (result["is_refundable"], result["cancellation_fee"]) == (False, 100)
    assert (result["refund_amount_eligible"], result["credit_amount_eligible"]) == (0, flight["fare_paid"] - 100)
    assert reservation_of(ex, scenario)["status"] == "cancelled" and result["reservation_status"] == "cancelled"
    assert ex.db["journeys"][flight["journey_id"]]["segments"][0]["available_seats"]["main_cabin"] == before + 1
    assert ex.call("cancel_reservation", args)["error_type"] == "already_cancelled"
    ex, scenario = executor_for("AL-034")  # booked yesterday: the 24-hour rule refunds any fare
    flight = booked(scenario)
    rule = {**args, "confirmation_number": scenario.key_entities["confirmation_number"]}
    result = ex.call(
        "cancel_reservation", {**rule, "journey_id": flight["journey_id"], "cancellation_reason": "24_hour_rule"}
    )
    assert result["is_refundable"] and result["refund_amount_eligible"] == flight["fare_paid"]


def test_refund_ids_count_the_tools_calls(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    refund = {"confirmation_number": "WK2EXB", "refund_amount": 100.0, "refund_type": "full_fare"}
    assert ex.call("process_refund", refund)["refund_id"] == "REF-WK2EXB-001"
    assert ex.call("process_refund", {**refund, "refund_type": "cash"})["error_type"] == "invalid_refund_type"
    assert ex.call("process_refund", {**refund, "refund_type": "ancillary_fees"})["refund_id"] == "REF-WK2EXB-003"
    assert sorted(ex.db["refunds"]) == ["REF-WK2EXB-001", "REF-WK2EXB-003"]


def test_standby_lists_on_the_journey_and_the_reservation():
    ex, scenario = executor_for("AL-016")
    code = scenario.key_entities["confirmation_number"]
    wanted = scenario.key_entities["flight_number"]
    journey_id = next(
        j for j, v in scenario.scenario_db["journeys"].items() if v["segments"][0]["flight_number"] == wanted
    )
    ex.db["journeys"][journey_id]["standby_list"] = [
        {"confirmation_number": "ZZ9ZZZ", "passenger_id": "PAX001", "position": 1}
    ]
    args = {"confirmation_number": code, "journey_id": journey_id, "passenger_ids": ["PAX001"]}
    assert ex.call("add_to_standby", args)["standby_list_position"] == 2
    assert ex.db["journeys"][journey_id]["standby_list"][-1] == {
        "confirmation_number": code,
        "passenger_id": "PAX001",
        "position": 2,
    }
    assert reservation_of(ex, scenario)["standby_list"] == [
        {"journey_id": journey_id, "passenger_ids": ["PAX001"], "position": 2, "status": "pending"}
    ]
    assert ex.call("add_to_standby", {**args, "passenger_ids": ["PAX007"]})["error_type"] == "invalid_passengers"
    ex.db["journeys"][journey_id]["status"] = "cancelled"
    assert ex.call("add_to_standby", args)["error_type"] == "flight_cancelled"


def test_transfer_writes_nothing(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    before = json.dumps(ex.db, sort_keys=True)
    args = {"confirmation_number": "WK2EXB", "transfer_reason": "passenger_requested", "issue_summary": "upset"}
    assert ex.call("transfer_to_agent", args)["transfer_id"] == "TRF-WK2EXB-001"
    assert json.dumps(ex.db, sort_keys=True) == before
    assert ex.call("transfer_to_agent", {**args, "confirmation_number": "ZZZZZZ"})["error_type"] == "not_found"
