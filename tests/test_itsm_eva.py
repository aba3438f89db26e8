"""evalkit's ITSM tools are EVA-Bench's ITSM API: an ITSM record of our own, written in EVA-Bench's layout (its
ground truth holding a ticket number from before EVA-Bench derived ids from content, as the published traces do),
replays to its expected DB, and the local agent with the scripted caller completes it in text mode."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from evalkit.domains.itsm import DOMAIN, REGISTRY
from evalkit.domains.itsm.api import content_id
from evalkit.domains.itsm.records import record_plan, workflow_of
from evalkit.scenario_tools.eva_import import DEFAULT_OPTIONS, find_datasets, iter_dataset
from evalkit.scenario_tools.replay import replay
from evalkit.scenario_tools.text_run import text_run
from evalkit.simulator.scripted.caller import task_requests
from tests.eva_fixtures import ITSM_TABLES, TREE, write_checkout

TODAY, EMPLOYEE, PHONE, DIAGNOSTIC = "2031-06-01", "EMP123456", "4321", "DIAG-7QW42KP8"


def ticket_number() -> str:
    """EVA-Bench's content id of the ticket below, derived here by hand: SHA-1 of the record's canonical JSON
    without the fields later tools change (status, SLA tier), first 12 hex digits."""
    created = {
        "ticket_number": None,
        "employee_id": EMPLOYEE,
        "category": "network_connectivity",
        "urgency": "high",
        "affected_system": "vpn",
        "troubleshooting_completed": True,
        "created_date": TODAY,
    }
    text = json.dumps(created, sort_keys=True, separators=(",", ":"))
    return "INC" + hashlib.sha1(text.encode()).hexdigest()[:12]


def initial_db() -> dict[str, Any]:
    db: dict[str, Any] = {"_current_date": TODAY} | {t: {} for t in ITSM_TABLES}
    db["employees"] = {
        EMPLOYEE: {
            "employee_id": EMPLOYEE,
            "first_name": "<FIRST_NAME>",
            "last_name": "<LAST_NAME>",
            "phone_last_four": PHONE,
            "department_code": "ENG",
            "role_code": "SWE",
            "employment_status": "active",
        }
    }
    db["troubleshooting_guides"] = {"network_connectivity": {"steps": ["Restart the VPN client."]}}
    return db


def network_record() -> tuple[dict[str, Any], dict[str, Any]]:
    db = initial_db()
    number = ticket_number()
    expected = copy.deepcopy(db)
    expected["session"] = {"employee_auth": True, "authenticated_employee_id": EMPLOYEE}
    expected["tickets"] = {
        number: {
            "ticket_number": number,
            "employee_id": EMPLOYEE,
            "category": "network_connectivity",
            "urgency": "high",
            "affected_system": "vpn",
            "troubleshooting_completed": True,
            "status": "open",
            "sla_tier": "tier_1",
            "sla_response_hours": 1,
            "sla_resolution_hours": 4,
            "created_date": TODAY,
            "diagnostic_ref_code": DIAGNOSTIC,
            "diagnostic_attached": True,
        }
    }
    stale = "INC0000001"  # what the published traces hold: a counter id from before the content ids

    def call(name: str, params: dict[str, Any], response: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        reply = {"status": "success", **(response or {})}
        return [
            {"event_type": "tool_call", "tool_name": name, "params": params},
            {"event_type": "tool_response", "tool_name": name, "status": "success", "response": reply},
        ]

    ticket = {
        "employee_id": EMPLOYEE,
        "category": "network_connectivity",
        "urgency": "high",
        "affected_system": "vpn",
        "troubleshooting_completed": True,
    }
    trace = [
        {"event_type": "user_utterance", "utterance": "My VPN keeps dropping."},
        *call("verify_employee_auth", {"employee_id": EMPLOYEE, "phone_last_four": PHONE}),
        *call("get_employee_record", {"employee_id": EMPLOYEE}),
        *call("get_troubleshooting_guide", {"issue_category": "network_connectivity"}),
        *call("create_incident_ticket", ticket, {"ticket_number": stale}),
        *call("assign_sla_tier", {"ticket_number": stale, "sla_tier": "tier_1"}, {"ticket_number": stale}),
        *call("attach_diagnostic_log", {"ticket_number": stale, "diagnostic_ref_code": DIAGNOSTIC}),
    ]
    record = {
        "id": "701",
        "current_date_time": f"{TODAY} 09:15 EST",
        "user_goal": {
            "high_level_user_goal": "Your VPN keeps dropping; you want it fixed or ticketed.",
            "decision_tree": copy.deepcopy(TREE),
            "information_required": {
                "first_name": "<FIRST_NAME>",
                "last_name": "<LAST_NAME>",
                "employee_id": EMPLOYEE,
                "phone_last_four": PHONE,
                "issue_description": "VPN disconnects every few minutes",
                "diagnostic_ref_code": DIAGNOSTIC,
            },
        },
        "user_config": {"name": "<FIRST_NAME> <LAST_NAME>", "gender": "woman", "user_persona": "You are brief."},
        "scenario_context": {"category": "single_intent", "intents": [{"intent": "Get my VPN working"}]},
        "ground_truth": {"expected_scenario_db": expected, "expected_trace": {"trace": trace}},
        "starting_utterances": {"en": "Hi, my VPN keeps dropping and I can't connect."},
        "culture_overrides": {"en": {"first_name": "Maren", "last_name": "Oyelaran"}},
        "romanized_culture_overrides": {},
    }
    return record, db


def test_the_content_id_is_eva_benchs_hash_of_the_record_without_its_issued_ids():
    created = {"ticket_number": None, "status": "open", "sla_tier": None, "owner": "REQ-SW-0123456789ab"}
    later = {**created, "status": "closed", "sla_tier": "tier_1"}  # fields tools change later are left out
    assert content_id("INC", created) == content_id("INC", later)
    expected = hashlib.sha1(b'{"owner":null,"ticket_number":null}').hexdigest()[:12]  # ids in it are blanked
    assert content_id("INC", created) == f"INC{expected}"
    assert content_id("INC", {"a": 1}) != content_id("INC", {"a": 2})


def test_an_eva_format_itsm_record_replays_to_its_expected_db(tmp_path: Path, capsys) -> None:
    checkout = write_checkout(tmp_path, {"itsm": [network_record()]})
    (report,) = replay(checkout)
    assert (report.domain, report.count("equal"), len(report.records)) == ("itsm", 1, 1), report.summary()


def test_an_imported_itsm_file_keeps_the_recorded_responses_and_replays_equal(tmp_path: Path, capsys) -> None:
    from evalkit.scenario_tools.__main__ import main

    checkout = write_checkout(tmp_path / "eva", {"itsm": [network_record()]})
    assert main(["import-eva", str(checkout), "--out", str(tmp_path / "out")]) == 0
    stored = json.loads((tmp_path / "out" / "itsm" / "701.json").read_text())
    ticket = next(c for c in stored["reference_calls"] if c["name"] == "create_incident_ticket")
    assert ticket["response"]["ticket_number"] == "INC0000001"
    assert "response" not in stored["reference_calls"][0] or stored["reference_calls"][0]["response"]
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "itsm: replayed 1: equal 1, differ 0, error 0"


def test_a_wrong_tool_result_is_caught_by_the_replay(tmp_path: Path) -> None:
    record, db = network_record()
    number = ticket_number()
    record["ground_truth"]["expected_scenario_db"]["tickets"][number]["sla_tier"] = "tier_2"
    (report,) = replay(write_checkout(tmp_path, {"itsm": [(record, db)]}))
    assert report.count("differ") == 1 and "sla_tier" in report.records[0].detail


def test_the_record_plays_in_workflow_mode_and_completes_in_text_mode(tmp_path: Path) -> None:
    checkout = write_checkout(tmp_path, {"itsm": [network_record()]})
    (dataset,) = find_datasets(checkout)
    ((_, _, scenario),) = list(iter_dataset(dataset, DEFAULT_OPTIONS, tools=None))
    names, answers = record_plan(scenario)
    assert names == ["network_vpn_issue"]
    assert answers["network_resolved"] == "no" and answers["network_urgency"] == "I'm completely blocked."
    assert answers["diagnostic_ref_code"] == DIAGNOSTIC and answers["network_type"] == "vpn"
    assert DOMAIN.record_plan is record_plan
    (run,) = text_run(checkout)
    assert run.completed == 1, run.summary()


def test_each_workflow_is_named_by_its_own_tools():
    assert workflow_of("submit_hardware_request", {"request_type": "monitor_bundle"}) == "monitor_bundle"
    assert workflow_of("submit_hardware_request", {"justification": "lost_or_stolen"}) == "security_incident"
    assert workflow_of("mark_resolved", {"flow_id": "hardware_malfunction"}) == "hardware_malfunction"
    assert workflow_of("verify_employee_auth", {}) is None
    named = {workflow_of(tool, {}) for tool in REGISTRY.names} - {None}
    assert named <= set(DOMAIN.workflows)


def test_further_requests_are_one_per_further_task():
    desk, parking = DOMAIN.workflows["desk_request"], DOMAIN.workflows["parking_request"]
    said = ["I also need to get a desk on floor 3 instead.", "I also need to get parking in the garage."]
    assert task_requests([parking], said) == ["I also need to get parking in the garage."]
    assert task_requests([desk, parking], []) == [
        "I also need help with a desk request.",
        "I also need help with a parking request.",
    ]


def test_a_task_that_comes_again_is_a_second_task_with_its_own_answers():
    """Two applications' access in one call: the second ``get_application_details`` after the first task wrote
    starts a second task, whose answers are ``<slot>#2``; a desk checked on two floors before its write is one."""
    from types import SimpleNamespace

    from evalkit.domains.itsm.records import occurrences
    from evalkit.scenarios.schema import ReferenceCall

    auth = ("verify_employee_auth", {"employee_id": EMPLOYEE, "phone_last_four": PHONE})
    calls = [
        auth,
        ("get_application_details", {"application_name": "Confluence"}),
        ("submit_access_request", {"employee_id": EMPLOYEE, "catalog_id": "APP-1", "access_level": "read_only"}),
        ("get_application_details", {"application_name": "Datadog"}),
        ("submit_access_request", {"employee_id": EMPLOYEE, "catalog_id": "APP-2", "access_level": "standard"}),
        ("get_license_catalog_item", {"license_name": "IntelliJ IDEA"}),
    ]
    assert occurrences(calls) == [("application_access", 1), ("application_access", 3), ("software_license", 5)]
    desk = [("check_desk_availability", {"floor_code": "FL2"}), ("check_desk_availability", {"floor_code": "FL3"})]
    assert occurrences([*desk, ("submit_desk_assignment", {})]) == [("desk_request", 0)]

    scripted = SimpleNamespace(answers={"employee_id": EMPLOYEE})
    scenario = SimpleNamespace(
        reference_calls=[ReferenceCall(name=n, arguments=a) for n, a in calls],
        user_goal=SimpleNamespace(scripted=scripted),
        scenario_db=initial_db(),
    )
    names, answers = record_plan(scenario)
    assert names == ["application_access", "application_access", "software_license"]
    assert (answers["application_name"], answers["access_level"]) == ("Confluence", "read only")
    assert (answers["application_name#2"], answers["access_level#2"]) == ("Datadog", "standard")
    assert "employee_id#2" not in answers  # verification is the first task's


def test_a_room_search_that_drops_the_equipment_is_the_callers_yes_to_a_room_without_it():
    from types import SimpleNamespace

    from evalkit.scenarios.schema import ReferenceCall

    room = {"building_code": "HQ", "date": TODAY, "start_time": "10:00", "end_time": "11:00", "min_capacity": 4}

    def plan(*checks: dict[str, Any]) -> dict[str, str]:
        calls = [ReferenceCall(name="check_room_availability", arguments=c) for c in checks]
        scripted = SimpleNamespace(answers={})
        scenario = SimpleNamespace(reference_calls=calls, user_goal=SimpleNamespace(scripted=scripted), scenario_db={})
        return record_plan(scenario)[1]

    with_projector = {**room, "equipment_required": ["projector"]}
    assert plan(with_projector, room)["room_without_equipment"] == "yes"
    assert plan(with_projector, {**with_projector, "floor_code": "FL3"})["room_without_equipment"] == "no"
    assert "room_without_equipment" not in plan(with_projector)
