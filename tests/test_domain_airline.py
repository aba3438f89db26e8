"""Airline tools, executor semantics and the consistency of the shipped scenario files."""

from __future__ import annotations

import json

import pytest

from evalkit.domains.airline import REGISTRY
from evalkit.domains.airline.generate import BUILDERS, build
from evalkit.domains.airline.tools import change_fee, meal_voucher_for_delay
from evalkit.domains.base import ToolExecutor
from evalkit.scenarios import load_scenario, load_scenarios, scenario_dir
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


def test_write_tools_require_authentication(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    result = ex.call("cancel_reservation", {"confirmation_number": "WK2EXB", "reason": "voluntary"})
    assert result["error_type"] == "authentication_required"
    assert ex.db == {**al001.scenario_db, "session": {}}


def test_wrong_last_name_does_not_authenticate(al001):
    ex = ToolExecutor(REGISTRY, al001.scenario_db)
    assert ex.call("get_reservation", {"confirmation_number": "WK2EXB", "last_name": "Brook"})["status"] == "error"
    assert ex.db["session"] == {}
    ok = ex.call("get_reservation", {"confirmation_number": "wk2exb", "last_name": "BROOKS"})
    assert ok["status"] == "success"
    assert ex.db["session"] == {"confirmation_number": "WK2EXB", "last_name": "brooks"}


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
        },
    )
    assert sold_out["error_type"] == "no_availability"
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
        ("same_day", "main_cabin", "none", 75),
        ("same_day", "basic_economy", "none", 199),
        ("same_day", "main_cabin", "gold", 0),
        ("voluntary", "main_cabin", "gold", 75),
        ("voluntary", "business", "none", 0),
        ("voluntary", "premium_economy", "platinum", 0),
        ("irrops", "basic_economy", "none", 0),
    ],
)
def test_change_fees_follow_the_csm_policy(kind, fare, elite, fee):
    assert change_fee(kind, fare, elite) == fee


def test_meal_voucher_bands():
    assert meal_voucher_for_delay(75) is None
    assert meal_voucher_for_delay(120) == (12, "delay_over_2_hours")
    assert meal_voucher_for_delay(239) == (12, "delay_over_2_hours")
    assert meal_voucher_for_delay(240) == (15, "delay_over_4_hours")


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
    with pytest.raises(ScenarioError, match="no scenarios \\['AL-999'\\]"):
        load_scenarios("airline", ["AL-999"])


def test_registry_describes_tools_for_llm_agents_and_judges():
    # Table 42: 15 tools, 13 named by the paper plus our two ancillary ones
    assert len(REGISTRY.names) == 15
    assert REGISTRY.write_tools == [
        "add_to_standby",
        "assign_seat",
        "cancel_reservation",
        "issue_hotel_voucher",
        "issue_meal_voucher",
        "issue_travel_credit",
        "process_refund",
        "rebook_flight",
        "transfer_to_agent",
        "update_meal_request",
    ]
    schema = REGISTRY["rebook_flight"].json_schema()
    assert schema["name"] == "rebook_flight" and schema["description"].startswith("Move a booking")
    assert set(schema["parameters"]["required"]) == {
        "confirmation_number",
        "journey_id",
        "new_journey_id",
        "rebooking_type",
    }


# -- the 15 tools' policy rules (App. L.4) ------------------------------------------------------------------------
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


def booked_flight(scenario) -> dict:
    return scenario.scenario_db["reservations"][scenario.key_entities["confirmation_number"]]["bookings"][0]


def test_disruption_info_states_the_entitlements():
    ex, scenario = executor_for("AL-036")  # cancelled flight
    flight = booked_flight(scenario)
    cancelled = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    assert cancelled["disruption_type"] == "cancellation" and cancelled["irrops"] and cancelled["refund_eligible"]
    ex, scenario = executor_for("AL-021")  # 165-minute delay: fees waived, no refund right
    flight = booked_flight(scenario)
    delayed = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    assert delayed["irrops"] and not delayed["refund_eligible"] and delayed["delay_minutes"] == 165
    ex, scenario = executor_for("AL-025")  # 90 minutes: not IRROPS
    flight = booked_flight(scenario)
    short = ex.call("get_disruption_info", {"flight_number": flight["flight_number"], "date": flight["date"]})
    assert short["disruption_type"] == "delay" and not short["irrops"]


def test_vouchers_follow_the_policy_amounts_and_limits():
    ex, scenario = executor_for("AL-018")
    code = scenario.key_entities["confirmation_number"]
    who = {"confirmation_number": code, "passenger_id": "PAX001"}
    wrong = ex.call("issue_meal_voucher", {**who, "amount": 25.0, "reason": "delay_over_2_hours"})
    assert wrong["error_type"] == "amount_not_per_policy"
    assert ex.call("issue_meal_voucher", {**who, "amount": 12.0, "reason": "delay_over_2_hours"})["status"] == "success"
    too_long = ex.call("issue_hotel_voucher", {**who, "nights": 4, "reason": "irrops_overnight"})
    assert too_long["error_type"] == "exceeds_max_nights"
    assert ex.call("issue_hotel_voucher", {**who, "nights": 3, "reason": "irrops_overnight"})["status"] == "success"
    ex.call("cancel_reservation", {"confirmation_number": code, "reason": "irrops"})
    after_refund = ex.call("issue_hotel_voucher", {**who, "nights": 1, "reason": "irrops_overnight"})
    assert after_refund["error_type"] == "not_eligible"


def test_refund_rules_irrops_24_hours_and_non_refundable():
    ex, scenario = executor_for("AL-032")  # non-refundable, booked a month ago
    code = scenario.key_entities["confirmation_number"]
    ex.call("cancel_reservation", {"confirmation_number": code})
    for refund_type in ("standard", "irrops", "twenty_four_hour"):
        refused = ex.call("process_refund", {"confirmation_number": code, "amount": 10.0, "refund_type": refund_type})
        assert refused["error_type"] == "not_refund_eligible", refund_type
    ex, scenario = executor_for("AL-034")  # booked yesterday afternoon, departs in ten days: 24-hour rule
    code = scenario.key_entities["confirmation_number"]
    ex.call("cancel_reservation", {"confirmation_number": code, "reason": "twenty_four_hour"})
    ok24 = ex.call("process_refund", {"confirmation_number": code, "amount": 159.0, "refund_type": "twenty_four_hour"})
    assert ok24["status"] == "success"
    ex, scenario = executor_for("AL-035")  # booked yesterday, departs in 4 days: the rule needs 7
    code = scenario.key_entities["confirmation_number"]
    ex.call("cancel_reservation", {"confirmation_number": code})
    late = ex.call("process_refund", {"confirmation_number": code, "amount": 1.0, "refund_type": "twenty_four_hour"})
    assert late["error_type"] == "not_refund_eligible"


def test_credit_for_a_cancelled_fare_needs_the_cancellation_first():
    ex, scenario = executor_for("AL-032")
    args = {"confirmation_number": scenario.key_entities["confirmation_number"], "passenger_id": "PAX001"}
    early = ex.call("issue_travel_credit", {**args, "amount": 174.0, "reason": "non_refundable_cancellation"})
    assert early["error_type"] == "not_cancelled"
    assert ex.call("issue_travel_credit", {**args, "amount": 0.0, "reason": "fare_downgrade"})["error_type"] == (
        "invalid_arguments"
    )


def test_standby_is_same_day_earlier_and_ordered_by_elite_status():
    ex, scenario = executor_for("AL-017")  # booking is tomorrow
    code = scenario.key_entities["confirmation_number"]
    full = next(j for j in scenario.scenario_db["journeys"].values() if sum(j["seats"].values()) == 0)
    refused = ex.call(
        "add_to_standby", {"confirmation_number": code, "passenger_id": "PAX001", "journey_id": full["journey_id"]}
    )
    assert refused["error_type"] == "standby_not_eligible"
    ex, scenario = executor_for("AL-016")  # gold member, today
    code = scenario.key_entities["confirmation_number"]
    wanted = scenario.key_entities["flight_number"]
    journey_id = next(j for j, v in scenario.scenario_db["journeys"].items() if v["flights"] == [wanted])
    ex.db["standby"][journey_id] = [{"confirmation_number": "ZZ9ZZZ", "passenger_id": "PAX001", "priority": 5}]
    listed = ex.call(
        "add_to_standby", {"confirmation_number": code, "passenger_id": "PAX001", "journey_id": journey_id}
    )
    assert listed["standby_position"] == 1, "gold is listed ahead of a general standby passenger who came first"
    again = ex.call("add_to_standby", {"confirmation_number": code, "passenger_id": "PAX001", "journey_id": journey_id})
    assert again["error_type"] == "already_listed"


def test_involuntary_rebooking_protects_the_fare_and_transfer_reasons_are_categories():
    ex, scenario = executor_for("AL-018")
    rebook = next(c for c in scenario.reference_calls if c.name == "rebook_flight")
    charged = ex.call("rebook_flight", {**rebook.arguments, "waive_change_fee": False})
    assert charged["change_fee"] == 0 and charged["fare_difference"] == 0
    free_text = ex.call("transfer_to_agent", {"reason": "the caller is upset"})
    assert free_text["error_type"] == "invalid_arguments"
    assert ex.call("transfer_to_agent", {"reason": "caller_request", "summary": "upset"})["status"] == "success"
    assert ex.db["transfers"] == [{"reason": "caller_request"}]
