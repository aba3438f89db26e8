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
    assert REGISTRY.write_tools == [
        "assign_seat",
        "cancel_reservation",
        "issue_meal_voucher",
        "process_refund",
        "rebook_flight",
        "transfer_to_agent",
    ]
    schema = REGISTRY["rebook_flight"].json_schema()
    assert schema["name"] == "rebook_flight" and schema["description"].startswith("Move a booking")
    assert set(schema["parameters"]["required"]) == {
        "confirmation_number",
        "journey_id",
        "new_journey_id",
        "rebooking_type",
    }
