"""ITSM domain: the 59 tools and their policy errors, tiered auth, troubleshooting-before-ticket, the workflows and
the consistency of the 80 generated scenario files."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from datetime import date
from typing import Any

import pytest

from evalkit.domains.base import ToolExecutor
from evalkit.domains.itsm import REGISTRY, WORKFLOWS
from evalkit.domains.itsm.api import FIELD_ERROR_TYPES
from evalkit.domains.itsm.generate import SLOTS, TODAY, typed_answers, write
from evalkit.domains.itsm.workflows import AUTH_TIER, CATEGORIES
from evalkit.domains.scenarios import load_scenarios, scenario_dir
from evalkit.domains.workflow import parse_slot, run_reference
from evalkit.prompts.render import render_agent_prompt, render_simulator_prompt
from evalkit.scenario_tools.__main__ import main as scenarios_cli

TABLE_44_TOOLS = [
    "verify_employee_auth",
    "get_employee_record",
    "get_troubleshooting_guide",
    "attempt_account_unlock",
    "attempt_password_reset",
    "mark_resolved",
    "check_existing_outage",
    "add_affected_user",
    "create_incident_ticket",
    "assign_sla_tier",
    "link_known_error",
    "get_employee_assets",
    "get_asset_record",
    "schedule_field_dispatch",
    "attach_diagnostic_log",
    "check_hardware_entitlement",
    "verify_cost_center_budget",
    "submit_hardware_request",
    "initiate_asset_return",
    "get_application_details",
    "submit_access_request",
    "route_approval_workflow",
    "get_license_catalog_item",
    "validate_cost_center",
    "submit_license_request",
    "get_employee_licenses",
    "submit_license_renewal",
    "check_desk_availability",
    "submit_desk_assignment",
    "submit_waitlist",
    "check_parking_availability",
    "submit_parking_assignment",
    "check_ergonomic_assessment",
    "submit_equipment_request",
    "check_room_availability",
    "submit_room_booking",
    "send_calendar_invite",
    "verify_manager_auth",
    "initiate_otp_auth",
    "verify_otp_auth",
    "lookup_new_hire",
    "check_existing_accounts",
    "provision_new_account",
    "get_group_memberships",
    "get_group_details",
    "submit_group_membership_change",
    "check_role_change_authorized",
    "get_permission_templates",
    "submit_permission_change",
    "schedule_access_review",
    "get_offboarding_record",
    "submit_access_removal",
    "initiate_asset_recovery",
    "report_security_incident",
    "initiate_remote_wipe",
    "submit_mfa_reset",
    "get_request_status",
    "escalate_approval",
    "transfer_to_agent",
]


@pytest.fixture(scope="module")
def scenarios():
    return load_scenarios("itsm")


def by_workflow(scenarios, workflow: str, kind: str = "single_intent", index: int = 0):
    return [s for s in scenarios if s.workflow == workflow and s.type == kind][index]


def caller(s) -> tuple[str, str]:
    answers = s.user_goal.scripted.answers
    return answers["employee_id"], answers["phone_last_four"]


def authed(s, otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, s.scenario_db)
    eid, phone = caller(s)
    assert ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": phone})["status"] == "success"
    if otp:
        assert ex.call("initiate_otp_auth", {"employee_id": eid})["status"] == "success"
        code = s.scenario_db["employees"][eid]["otp_code"]
        assert ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": code})["authenticated"]
    return ex


def err(result: dict[str, Any]) -> str:
    assert result["status"] == "error", result
    return result["error_type"]


# --------------------------------------------------------------------------------------------------- registry


def test_the_registry_holds_exactly_the_59_tools_of_table_44():
    assert len(TABLE_44_TOOLS) == 59
    assert sorted(REGISTRY.names) == sorted(TABLE_44_TOOLS)


def test_every_workflow_checks_and_together_they_use_every_tool():
    for workflow in WORKFLOWS.values():
        workflow.check(REGISTRY)
        assert workflow.intents and all(i == i.lower() for i in workflow.intents)
    used = {tool for w in WORKFLOWS.values() for tool in w.tools}
    assert set(REGISTRY.names) - used == {"transfer_to_agent"}
    assert sorted(n for names in CATEGORIES.values() for n in names) == sorted(WORKFLOWS)
    assert len(CATEGORIES) == 6 and len(WORKFLOWS) == 20


def test_no_question_names_another_slots_label():
    """The scripted simulator answers by label: a question naming two labels would be ambiguous; and a slot name is
    one question wherever it is asked (the caller knows each slot by one question)."""
    for name in SLOTS:
        asked = {s.question for w in WORKFLOWS.values() for s in w.slots if s.name == name}
        assert len(asked) == 1, (name, asked)
    for slot in SLOTS.values():
        clash = [o.name for o in SLOTS.values() if o.name != slot.name and o.label.lower() in slot.question.lower()]
        assert not clash, (slot.name, clash)


@pytest.mark.parametrize("tool", sorted(TABLE_44_TOOLS))
def test_bad_arguments_are_structured_errors(tool, scenarios):
    """A wrong argument is an error result naming it; a malformed value of a known field gets that field's EVA-Bench
    error type (``invalid_employee_id_format``...), anything else ``invalid_arguments``."""
    ex = ToolExecutor(REGISTRY, scenarios[0].scenario_db)
    result = ex.call(tool, {"no_such_argument": 1})
    assert result["status"] == "error" and set(result) == {"status", "error_type", "message"}
    assert "no_such_argument" in result["message"]
    assert result["error_type"] in {"invalid_arguments", *FIELD_ERROR_TYPES.values()}
    assert ex.db == {**scenarios[0].scenario_db, "session": {}}


def test_every_tool_is_on_some_reference_path(scenarios):
    """Happy paths: the checker re-executes these; here we only require every tool to appear on one."""
    called = {c.name for s in scenarios for c in s.reference_calls}
    assert set(REGISTRY.names) - called == {"transfer_to_agent"}
    eid, _ = caller(scenarios[0])
    args = {"employee_id": eid, "transfer_reason": "caller_requested", "issue_summary": "caller wants a person"}
    ex = ToolExecutor(REGISTRY, scenarios[0].scenario_db)
    first, second = ex.call("transfer_to_agent", args), ex.call("transfer_to_agent", args)
    assert (first["transfer_id"], second["transfer_id"]) == (f"TRF-{eid}-001", f"TRF-{eid}-002")
    assert err(ex.call("transfer_to_agent", {**args, "transfer_reason": "bored"})) == "invalid_transfer_reason"
    assert err(ex.call("transfer_to_agent", {**args, "issue_summary": "short"})) == "invalid_arguments"


def test_every_write_tool_refuses_an_unverified_caller(scenarios):
    """Replay each write call of the reference paths on a fresh, unauthenticated session: all must fail and leave
    the DB as it was."""
    seen: set[str] = set()
    for s in scenarios:
        for call in s.reference_calls:
            if call.name in seen or not REGISTRY[call.name].writes:
                continue
            seen.add(call.name)
            ex = ToolExecutor(REGISTRY, s.scenario_db)
            assert err(ex.call(call.name, call.arguments)) == "authentication_required", call.name
            assert ex.db == {**s.scenario_db, "session": s.scenario_db.get("session", {})}
    assert seen == set(REGISTRY.write_tools)


def test_irreversible_tools_are_the_submissions_that_commit_the_caller():
    assert REGISTRY.irreversible_tools == sorted(
        [
            "initiate_remote_wipe",
            "provision_new_account",
            "submit_access_removal",
            "submit_access_request",
            "submit_desk_assignment",
            "submit_equipment_request",
            "submit_group_membership_change",
            "submit_hardware_request",
            "submit_license_renewal",
            "submit_license_request",
            "submit_parking_assignment",
            "submit_permission_change",
            "submit_room_booking",
        ]
    )
    assert not any(REGISTRY[n].writes for n in REGISTRY.names if n.startswith(("get_", "check_", "lookup_")))


# --------------------------------------------------------------------------------------------------- auth tiers


def test_standard_verification_checks_the_phone_digits(scenarios):
    s = scenarios[0]
    eid, phone = caller(s)
    wrong = f"{(int(phone) + 1) % 10000:04d}"
    ex = ToolExecutor(REGISTRY, s.scenario_db)
    assert err(ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": wrong})) == (
        "authentication_failed"
    )
    assert err(ex.call("get_employee_record", {"employee_id": eid})) == "authentication_required"
    assert err(ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": "61"})) == (
        "invalid_phone_format"
    )
    assert err(ex.call("verify_employee_auth", {"employee_id": "EMP999999", "phone_last_four": phone})) == "not_found"
    ok = ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": phone})
    assert ok["authenticated"] and ex.db["session"] == {"employee_auth": True, "authenticated_employee_id": eid}
    record = ex.call("get_employee_record", {"employee_id": eid})["employee"]
    assert record["employee_id"] == eid and "phone_last_four" not in record and "otp_code" not in record


def test_access_changes_need_the_otp_and_the_right_code(scenarios):
    s = by_workflow(scenarios, "application_access")
    eid, _ = caller(s)
    ex = authed(s)
    app = next(c.arguments for c in s.reference_calls if c.name == "submit_access_request")
    assert err(ex.call("submit_access_request", app)) == "authentication_required"
    assert "otp_auth" in ex.call("submit_access_request", app)["message"]
    assert err(ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": "123456"})) == "otp_not_initiated"
    sent = ex.call("initiate_otp_auth", {"employee_id": eid})
    assert sent["phone_last_four"] == s.user_goal.scripted.answers["phone_last_four"]
    code = s.scenario_db["employees"][eid]["otp_code"]
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    assert err(ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": wrong})) == "authentication_failed"
    assert ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": code})["authenticated"]
    assert ex.db["session"]["otp_auth"] is True and "otp_issued" not in ex.db["session"]
    made = ex.call("submit_access_request", app)
    assert re.fullmatch(r"REQ-SW-[0-9a-f]{12}", made["request_id"])
    assert ex.db["requests"][made["request_id"]]["status"] in ("approved", "pending_approval")


def test_acting_for_another_employee_needs_manager_auth_plus_otp(scenarios):
    s = by_workflow(scenarios, "new_employee_provisioning")
    eid, phone = caller(s)
    hire = s.user_goal.scripted.answers["new_hire_id"]
    mcode = s.user_goal.scripted.answers["manager_auth_code"]
    ex = authed(s, otp=True)  # standard + OTP is not enough
    assert err(ex.call("lookup_new_hire", {"new_hire_employee_id": hire})) == "authentication_required"
    bad = {"employee_id": eid, "phone_last_four": phone, "manager_auth_code": "ZZZ999"}
    assert err(ex.call("verify_manager_auth", bad)) == "authentication_failed"
    assert err(ex.call("verify_manager_auth", {**bad, "manager_auth_code": mcode.lower()})) == (
        "invalid_manager_auth_code_format"
    )
    confirmed = ex.call("verify_manager_auth", {**bad, "manager_auth_code": mcode})
    assert hire in confirmed["direct_reports"]
    assert ex.call("lookup_new_hire", {"new_hire_employee_id": hire})["employee"]["employee_id"] == hire
    worker = s.scenario_db["employees"][eid]["manager_employee_id"]  # not a report of the caller's
    provision = next(c.arguments for c in s.reference_calls if c.name == "provision_new_account")
    assert err(ex.call("provision_new_account", {**provision, "new_hire_employee_id": worker})) == "not_authorized"


def test_each_workflow_starts_with_its_auth_tier():
    for name, workflow in WORKFLOWS.items():
        tools = workflow.tools
        tier = AUTH_TIER[name]
        assert tools[0] == ("verify_manager_auth" if tier == "manager" else "verify_employee_auth"), name
        assert ("verify_otp_auth" in tools) == (tier != "standard"), name


# --------------------------------------------------------------------------------------------------- incidents


def test_troubleshooting_must_fail_before_a_ticket_and_the_tier_follows_the_urgency(scenarios):
    s = by_workflow(scenarios, "network_vpn_issue")
    eid, _ = caller(s)
    ticket = {"employee_id": eid, "category": "network_connectivity", "urgency": "high", "affected_system": "vpn"}
    ex = authed(s)
    assert err(ex.call("create_incident_ticket", {**ticket, "troubleshooting_completed": False})) == (
        "troubleshooting_required"
    )
    assert err(ex.call("create_incident_ticket", {**ticket, "affected_system": "router"})) == (
        "invalid_affected_system"
    )
    opened = ex.call("create_incident_ticket", {**ticket, "troubleshooting_completed": True})
    number = opened["ticket_number"]
    assert re.fullmatch(r"INC[0-9a-f]{12}", number) and opened["urgency"] == "high"
    again = authed(s).call("create_incident_ticket", {**ticket, "troubleshooting_completed": True})
    assert again["ticket_number"] == number  # a content hash: the same ticket gets the same number
    assert err(ex.call("assign_sla_tier", {"ticket_number": number, "sla_tier": "tier_3"})) == "tier_urgency_mismatch"
    sla = ex.call("assign_sla_tier", {"ticket_number": number, "sla_tier": "tier_1"})
    assert (sla["response_target"], sla["resolution_target"]) == ("1h", "4h")
    assert ex.db["tickets"][number] == {
        "ticket_number": number,
        "employee_id": eid,
        "category": "network_connectivity",
        "urgency": "high",
        "affected_system": "vpn",
        "troubleshooting_completed": True,
        "status": "open",
        "sla_tier": "tier_1",
        "sla_response_hours": 1,
        "sla_resolution_hours": 4,
        "created_date": TODAY.isoformat(),
    }
    assert err(ex.call("attach_diagnostic_log", {"ticket_number": number, "diagnostic_ref_code": "ND12345"})) == (
        "invalid_diagnostic_ref_code_format"
    )
    assert ex.call("attach_diagnostic_log", {"ticket_number": number, "diagnostic_ref_code": "DIAG-AB12CD34"})[
        "diagnostic_ref_code"
    ] == ("DIAG-AB12CD34")
    assert ex.db["tickets"][number]["diagnostic_attached"] is True


@pytest.mark.parametrize(
    ("workflow", "resolved_slot"),
    [("network_vpn_issue", "network_resolved"), ("hardware_malfunction", "hardware_resolved")],
)
def test_the_caller_answer_branches_between_resolved_and_ticket(scenarios, workflow, resolved_slot):
    ticketed = next(
        s for s in scenarios if s.workflow == workflow and s.user_goal.scripted.answers[resolved_slot] == "no"
    )
    typed = typed_answers(ticketed.user_goal.scripted.answers)
    runs = {}
    for fixed in (True, False):
        ex = ToolExecutor(REGISTRY, ticketed.scenario_db)
        run = run_reference(WORKFLOWS[workflow], {**typed, resolved_slot: fixed}, ex)
        runs[fixed] = ([name for name, _ in run.calls], ex.db)
    assert "mark_resolved" in runs[True][0] and "create_incident_ticket" not in runs[True][0]
    assert runs[True][1]["tickets"] == ticketed.scenario_db["tickets"]
    assert next(iter(runs[True][1]["interactions"].values()))["resolution_type"] == "resolved_via_troubleshooting"
    assert "create_incident_ticket" in runs[False][0] and "mark_resolved" not in runs[False][0]
    assert len(runs[False][1]["tickets"]) == len(ticketed.scenario_db["tickets"]) + 1


def test_a_security_hold_ends_in_a_ticket_not_a_resolution(scenarios):
    s = next(s for s in scenarios if s.workflow == "login_issue" and "login_urgency" in s.user_goal.scripted.answers)
    eid, _ = caller(s)
    ex = authed(s)
    system = next(c.arguments["target_system"] for c in s.reference_calls if c.name == "attempt_account_unlock")
    held = ex.call("attempt_account_unlock", {"employee_id": eid, "target_system": system})
    assert err(held) == "cannot_unlock_security_hold" and held["lock_reason"] == "security_investigation"
    assert ex.db["employees"][eid]["account_status"][system]["locked"] is True
    unlock = next(c for c in s.reference_calls if c.name == "attempt_account_unlock")
    assert unlock.error_type == "cannot_unlock_security_hold"  # the reference path records the refusal
    assert [c.name for c in s.reference_calls][-2:] == ["create_incident_ticket", "assign_sla_tier"]
    ticket = next(iter(set(s.expected_scenario_db["tickets"]) - set(s.scenario_db["tickets"])))
    assert s.expected_scenario_db["tickets"][ticket]["category"] == "login_issue"


def test_an_unlock_and_a_reset_fix_the_account(scenarios):
    s = by_workflow(scenarios, "login_issue")
    eid, _ = caller(s)
    ex = authed(s)
    system = s.user_goal.scripted.answers["target_system"].lower().replace(" ", "_")
    assert err(ex.call("attempt_account_unlock", {"employee_id": eid, "target_system": system})) == "not_locked"
    reset = ex.call("attempt_password_reset", {"employee_id": eid, "target_system": system})
    assert reset["resolved"] is True
    account = ex.db["employees"][eid]["account_status"][system]
    assert (account["password_expired"], account["temp_password_issued"]) == (False, True)


def test_outages_are_checked_before_a_ticket_and_never_duplicated(scenarios):
    s = next(s for s in scenarios if s.workflow == "service_outage" and "already on file" in s.expected_flow)
    eid, _ = caller(s)
    service = next(iter(s.scenario_db["active_outages"]))
    ex = authed(s)
    found = ex.call("check_existing_outage", {"service_name": service})
    assert found["existing_outage"] and found["affected_user_count"] == 1
    added = ex.call("add_affected_user", {"ticket_number": found["ticket_number"], "employee_id": eid})
    assert added["total_affected"] == 2
    assert ex.call("add_affected_user", {"ticket_number": found["ticket_number"], "employee_id": eid})[
        "total_affected"
    ] == (2)  # an affected user is listed once
    assert err(ex.call("add_affected_user", {"ticket_number": "INC000000000000", "employee_id": eid})) == (
        "ticket_not_found"
    )
    assert "create_incident_ticket" not in [c.name for c in s.reference_calls]
    assert err(ex.call("check_existing_outage", {"service_name": "email"})) == "invalid_service_name"


# --------------------------------------------------------------------------------------------------- policy errors


def test_hardware_requests_check_the_fields_of_their_type(scenarios):
    s = by_workflow(scenarios, "monitor_bundle")
    eid, _ = caller(s)
    request = next(c.arguments for c in s.reference_calls if c.name == "submit_hardware_request")
    ex = authed(s)
    laptop = {**request, "request_type": "laptop_replacement", "justification": "end_of_life"}
    assert err(ex.call("submit_hardware_request", laptop)) == "invalid_arguments"  # no OS or size
    assert err(ex.call("submit_hardware_request", {**request, "justification": "end_of_life"})) == ("invalid_arguments")
    assert err(ex.call("submit_hardware_request", {**request, "delivery_building": "Nowhere"})) == "name_not_found"
    made = ex.call("submit_hardware_request", {**request, "laptop_os": "macos", "delivery_building": "BLD2"})
    stored = ex.db["requests"][made["request_id"]]
    assert stored["laptop_os"] is None and stored["delivery_building"] == "BLD2"  # the other type's fields dropped
    entitlement = ex.db["employees"][eid]["hardware_entitlements"]["monitor_bundle"]
    assert entitlement["pending_request"] is True and entitlement["pending_request_id"] == made["request_id"]
    assert err(ex.call("check_hardware_entitlement", {"employee_id": eid, "request_type": "monitor_bundle"})) == (
        "request_already_pending"
    )


def test_license_rules(scenarios):
    s = by_workflow(scenarios, "software_license")
    eid, _ = caller(s)
    ex = authed(s)
    item = ex.call("get_license_catalog_item", {"license_name": "visio"})  # case and punctuation do not matter
    assert item["catalog_id"] == "LIC-2041"
    temp = {"employee_id": eid, "catalog_id": item["catalog_id"]}
    assert err(ex.call("submit_license_request", {**temp, "duration_days": 45})) == "invalid_duration"
    ok = ex.call("submit_license_request", {**temp, "duration_days": "30"})
    assert ok["expiration_date"] == "2026-08-26"  # a 30-day trial from 2026-07-27
    assert ex.call("submit_license_request", {**temp, "duration_days": 0})["license_type"] == "permanent"
    assert err(ex.call("get_license_catalog_item", {"license_name": "Photoshop Pro"})) == "not_found"


@pytest.mark.parametrize(
    ("workflow", "refusal"),
    [
        ("laptop_replacement", "device_too_new"),
        ("monitor_bundle", "insufficient_budget"),
        ("ergonomic_equipment", "assessment_required"),
        ("permission_change", "not_authorized"),
        ("request_status_escalation", None),
        ("license_renewal", "not_in_renewal_window"),
        ("group_membership", "group_not_eligible"),
        ("new_employee_provisioning", "accounts_already_exist"),
        ("access_removal", "invalid_last_working_day"),
    ],
)
def test_adversarial_scenarios_refuse_at_the_policy_boundary_without_writing(scenarios, workflow, refusal):
    s = by_workflow(scenarios, workflow, "adversarial")
    executor = ToolExecutor(REGISTRY, s.scenario_db)
    run = run_reference(WORKFLOWS[workflow], typed_answers(s.user_goal.scripted.answers), executor)
    assert run.outcome == "refused"
    last = s.reference_calls[-1]
    assert last.error_type == refusal  # the refusing call (the status escalation refuses on sla_breached False)
    replay = ToolExecutor(REGISTRY, s.scenario_db)
    results = [replay.call(c.name, c.arguments) for c in s.reference_calls]
    assert results[-1].get("error_type") == refusal
    assert {k: v for k, v in s.expected_scenario_db.items() if k != "session"} == {
        k: v for k, v in s.scenario_db.items() if k != "session"
    }
    assert s.user_goal.scripted.push_back_say and s.user_goal.scripted.push_back_times >= 1


def test_the_policy_lives_in_the_write_tools_too(scenarios):
    """Skipping the look-up that would have refused does not help: the write tool refuses by itself."""
    s = by_workflow(scenarios, "license_renewal", "adversarial")
    eid, _ = caller(s)
    assignment = s.scenario_db["employees"][eid]["software_licenses"][0]["license_assignment_id"]
    refused = authed(s).call("submit_license_renewal", {"employee_id": eid, "license_assignment_id": assignment})
    assert err(refused) == "not_in_renewal_window" and "expiration_date" in refused
    s = by_workflow(scenarios, "request_status_escalation", "adversarial")
    rid = s.user_goal.scripted.answers["request_id"]
    boss = s.scenario_db["employees"][caller(s)[0]]["manager_employee_id"]
    assert err(authed(s).call("escalate_approval", {"request_id": rid, "escalate_to_employee_id": boss})) == (
        "sla_not_breached"
    )
    s = by_workflow(scenarios, "permission_change", "adversarial")
    eid = caller(s)[0]
    pending = s.scenario_db["employees"][eid]["pending_role_approval"]
    args = {
        "employee_id": eid,
        "new_role_code": pending["new_role_code"],
        "permission_template_id": f"PTPL-{pending['new_role_code']}-01",
        "effective_date": "2026-07-01",
    }
    assert err(authed(s, otp=True).call("submit_permission_change", args)) == "invalid_effective_date"
    wrong_day = {**args, "effective_date": "2026-12-01"}
    assert err(authed(s, otp=True).call("submit_permission_change", wrong_day)) == "effective_date_mismatch"
    s = by_workflow(scenarios, "group_membership", "adversarial")
    group = s.user_goal.scripted.answers["group_code"]
    args = {"employee_id": caller(s)[0], "group_code": group, "action": "add"}
    assert err(authed(s, otp=True).call("submit_group_membership_change", args)) == "group_not_eligible"


def test_the_mfa_reset_is_refused_but_its_security_case_is_kept(scenarios):
    s = next(s for s in scenarios if "mfa_reset" in s.workflow.split("+"))
    eid, _ = caller(s)
    ex = authed(s)
    refused = ex.call("submit_mfa_reset", {"employee_id": eid, "new_phone_last_four": "1234"})
    assert err(refused) == "in_person_required"
    case = ex.db["security_cases"][refused["security_case_id"]]
    assert case["status"] == "requires_in_person" and case["requested_new_phone_last_four"] == "1234"


def test_facilities_errors(scenarios):
    s = by_workflow(scenarios, "conference_room")
    eid, _ = caller(s)
    ex = ToolExecutor(REGISTRY, s.expected_scenario_db)
    ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": caller(s)[1]})
    booked = next(c.arguments for c in s.reference_calls if c.name == "submit_room_booking")
    assert err(ex.call("submit_room_booking", booked)) == "room_conflict"  # the reference already booked it
    assert err(ex.call("submit_room_booking", {**booked, "attendee_count": 50})) == "over_capacity"
    event = next(iter(s.expected_scenario_db["calendar_events"].values()))
    assert event["room_code"] == booked["room_code"] and event["request_id"].startswith("REQ-FAC-")
    d = by_workflow(scenarios, "desk_request")
    ex = ToolExecutor(REGISTRY, d.expected_scenario_db)
    ex.call("verify_employee_auth", {"employee_id": caller(d)[0], "phone_last_four": caller(d)[1]})
    assign = next(c.arguments for c in d.reference_calls if c.name == "submit_desk_assignment")
    assert err(ex.call("submit_desk_assignment", assign)) == "already_assigned"
    wait = {"employee_id": caller(d)[0], "resource_type": "desk", "zone_or_building": "BLD1"}
    assert ex.call("submit_waitlist", wait)["waitlist_id"] == "WL-DES-0001"
    assert err(ex.call("submit_waitlist", wait)) == "already_waitlisted"
    cooled = copy.deepcopy(d.scenario_db)
    cooled["employees"][caller(d)[0]]["last_desk_assignment_date"] = "2026-06-01"
    ex = ToolExecutor(REGISTRY, cooled)
    ex.call("verify_employee_auth", {"employee_id": caller(d)[0], "phone_last_four": caller(d)[1]})
    too_soon = ex.call("submit_desk_assignment", assign)
    assert err(too_soon) == "too_soon" and (too_soon["days_since_last"], too_soon["cooldown_days"]) == (56, 90)
    building = d.scenario_db["employees"][caller(d)[0]]["building_code"]
    name = d.scenario_db["facilities"]["buildings"][building]["name"]
    by_name = ex.call(
        "check_desk_availability", {"building_code": name.upper(), "floor_code": assign["desk_code"][5:8]}
    )
    assert by_name["building_code"] == building


# --------------------------------------------------------------------------------------------------- scenarios


def test_eva_bench_itsm_sizes(scenarios):
    assert [s.id for s in scenarios] == [f"IT-{i:03d}" for i in range(1, 81)]
    sizes = Counter((s.type, len(s.workflow.split("+"))) for s in scenarios)
    assert sizes == {
        ("single_intent", 1): 29,
        ("multi_intent", 2): 14,
        ("multi_intent", 3): 14,
        ("multi_intent", 4): 14,
        ("adversarial", 1): 9,
    }
    singles = {s.workflow for s in scenarios if s.type == "single_intent"}
    assert singles == set(WORKFLOWS) - {"security_incident", "mfa_reset"}  # Table 44: those two only in multi
    assert {w for s in scenarios for w in s.workflow.split("+")} == set(WORKFLOWS)


def test_generator_is_deterministic_and_the_repo_files_are_its_output(tmp_path):
    first = write(tmp_path / "a")
    second = write(tmp_path / "b")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    shipped = sorted(scenario_dir("itsm").glob("*.json"))
    assert [p.name for p in shipped] == [p.name for p in first]
    for generated, stored in zip(first, shipped, strict=True):
        assert json.loads(generated.read_text()) == json.loads(stored.read_text()), stored.name


def test_the_scenario_checker_passes(capsys):
    assert scenarios_cli(["check", "--domain", "itsm"]) == 0
    assert "80 scenario files checked: 80 ok" in capsys.readouterr().out


def test_every_scripted_answer_parses_and_drives_the_reference_path(scenarios):
    for s in scenarios:
        for name, text in s.user_goal.scripted.answers.items():
            assert parse_slot(SLOTS[name], text, TODAY) is not None, (s.id, name, text)
        needed = {slot.name for w in s.workflow.split("+") for slot in WORKFLOWS[w].slots}
        assert set(s.user_goal.scripted.answers) <= needed, s.id  # nothing the caller is never asked for
        ex = ToolExecutor(REGISTRY, s.scenario_db)
        typed = typed_answers(s.user_goal.scripted.answers)
        memo: dict = {}  # one verification per call, shared by its tasks
        calls = [c for w in s.workflow.split("+") for c in run_reference(WORKFLOWS[w], typed, ex, memo=memo).calls]
        assert calls == [(c.name, c.arguments) for c in s.reference_calls], s.id


def test_opening_request_and_followups_name_each_workflows_intent_in_order(scenarios):
    for s in scenarios:
        names = s.workflow.split("+")
        requests = [s.user_goal.starting_utterance, *s.user_goal.scripted.followups]
        assert len(requests) == len(names), s.id
        for name, request in zip(names, requests, strict=True):
            assert any(i in request.lower() for i in WORKFLOWS[name].intents), (s.id, name, request)


def test_key_entities_are_realistic_codes(scenarios):
    patterns = {  # EVA-Bench's identifier formats (its ITSM argument patterns)
        "employee_id": r"EMP\d{6}",
        "phone_last_four": r"\d{4}",
        "new_phone_last_four": r"\d{4}",
        "otp_code": r"\d{6}",
        "manager_auth_code": r"(?=.*\d)(?=.*[A-Z])[A-Z0-9]{6}",
        "asset_tag": r"AST-(LPT|MON)-\d{6}",
        "request_id": r"REQ-SW-[0-9a-f]{12}",
        "new_hire_id": r"EMP\d{6}",
        "departing_employee_id": r"EMP\d{6}",
        "diagnostic_ref_code": r"DIAG-[A-Z0-9]{8}",
        "group_code": r"GRP-[A-Z]{2,8}",
        "new_role_code": r"[A-Z]{2,5}",
    }
    for s in scenarios:
        for name, value in s.key_entities.items():
            assert re.fullmatch(patterns[name], value), (s.id, name, value)
        for number in s.expected_scenario_db["tickets"]:
            assert re.fullmatch(r"INC[0-9a-f]{12}", number)
    assert len({s.key_entities["employee_id"] for s in scenarios}) > 70  # a fresh caller per scenario


def test_multi_intent_keeps_call_scoped_auth_and_all_outcomes(scenarios):
    s = next(s for s in scenarios if s.type == "multi_intent" and "access_removal" in s.workflow.split("+")[1:])
    names = [c.name for c in s.reference_calls]
    assert names.count("verify_manager_auth") == 1
    departing = s.user_goal.scripted.answers["departing_employee_id"]
    record = s.expected_scenario_db["employees"][departing]["offboarding_record"]
    assert record["access_removed"] is True and record["removal_case_id"].startswith("CASE-ACCT-")


def test_prompts_render_for_the_domain(scenarios):
    agent = render_agent_prompt("itsm", "2026-07-27 08:30 EST")
    assert "Troubleshooting must fail before a ticket" in agent and "create_incident_ticket" in agent
    assert "30, 60, 90 days" in agent and "Tier 1, 1h response, 4h resolution" in agent
    assert "Riverside" not in agent  # the rules, not one scenario's data
    simulator = render_simulator_prompt(scenarios[40])
    assert "IT service desk" in simulator and scenarios[40].key_entities["employee_id"] in simulator


def test_dates_in_answers_are_spoken_not_iso(scenarios):
    for s in scenarios:
        for name, text in s.user_goal.scripted.answers.items():
            if SLOTS[name].kind == "date":
                assert not re.search(r"\d{4}-\d{2}", text)
                assert date.fromisoformat(parse_slot(SLOTS[name], text, TODAY)) >= TODAY


@pytest.mark.parametrize("without", [True, False])
def test_no_room_with_the_equipment_brings_the_offer_of_one_without(scenarios, without: bool):
    """EVA-Bench's room searches go on without the equipment when no room has it: the caller's yes books a room
    without it, a no leaves nothing booked."""
    s = by_workflow(scenarios, "conference_room")
    db = copy.deepcopy(s.scenario_db)
    for room in db["facilities"]["conference_rooms"].values():
        room["equipment"] = [e for e in room["equipment"] if e != "projector"]
    typed = typed_answers(s.user_goal.scripted.answers)
    assert typed["required_equipment"] == "projector"
    ex = ToolExecutor(REGISTRY, db)
    run = run_reference(WORKFLOWS["conference_room"], {**typed, "room_without_equipment": without}, ex)
    checks = [args for name, args in run.calls if name == "check_room_availability"]
    assert len(checks) == (2 if without else 1)
    assert "equipment_required" not in checks[-1] if without else checks[0]["equipment_required"] == ["projector"]
    booked = [name for name, _ in run.calls if name == "submit_room_booking"]
    assert bool(booked) is without
    # with a room that has it, the offer is not made
    with_projector = run_reference(WORKFLOWS["conference_room"], typed, ToolExecutor(REGISTRY, s.scenario_db))
    assert [name for name, _ in with_projector.calls].count("check_room_availability") == 1
