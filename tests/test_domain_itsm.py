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
from evalkit.domains.itsm.generate import SLOTS, TODAY, typed_answers, write
from evalkit.domains.itsm.workflows import AUTH_TIER, CATEGORIES
from evalkit.domains.workflow import lookup_or_none, parse_slot, run_reference
from evalkit.prompts.render import render_agent_prompt, render_simulator_prompt
from evalkit.scenarios import load_scenarios, scenario_dir
from evalkit.scenarios.__main__ import main as scenarios_cli

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


def by_workflow(scenarios, workflow: str, kind: str = "single_intent"):
    return next(s for s in scenarios if s.workflow == workflow and s.type == kind)


def caller(s) -> tuple[str, str]:
    answers = s.user_goal.scripted.answers
    return answers["employee_id"], answers["phone_last_four"]


def authed(s, otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, s.scenario_db)
    eid, phone = caller(s)
    assert ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": phone})["status"] == "success"
    if otp:
        ex.call("initiate_otp_auth", {"employee_id": eid})
        assert ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": s.scenario_db["otp_codes"][eid]})[
            "otp_verified"
        ]
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
    """The scripted simulator answers by label: a question naming two labels would be ambiguous."""
    for slot in SLOTS.values():
        clash = [o.name for o in SLOTS.values() if o.name != slot.name and o.label.lower() in slot.question.lower()]
        assert not clash, (slot.name, clash)


@pytest.mark.parametrize("tool", sorted(TABLE_44_TOOLS))
def test_bad_arguments_are_structured_errors(tool, scenarios):
    ex = ToolExecutor(REGISTRY, scenarios[0].scenario_db)
    result = ex.call(tool, {"no_such_argument": 1})
    assert result == {"status": "error", "error_type": "invalid_arguments", "message": result["message"]}
    assert "no_such_argument" in result["message"]


def test_every_tool_succeeds_on_some_reference_path(scenarios):
    """Happy paths: the checker re-executes these; here we only require every tool to appear on one."""
    called = {c.name for s in scenarios for c in s.reference_calls}
    assert set(REGISTRY.names) - called == {"transfer_to_agent"}
    ex = ToolExecutor(REGISTRY, scenarios[0].scenario_db)
    assert ex.call("transfer_to_agent", {"reason": "caller asked"}) == {"status": "success", "transferred": True}
    assert ex.db["transfers"] == [{"reason": "caller asked"}]


def test_every_write_tool_refuses_an_unverified_caller(scenarios):
    """Replay each write call of the reference paths on a fresh, unauthenticated session: all must fail."""
    seen: set[str] = set()
    for s in scenarios:
        for call in s.reference_calls:
            if call.name in seen or not REGISTRY[call.name].writes or call.name == "transfer_to_agent":
                continue
            seen.add(call.name)
            ex = ToolExecutor(REGISTRY, s.scenario_db)
            assert err(ex.call(call.name, call.arguments)) in {
                "authentication_required",
                "manager_auth_required",
                "ticket_not_found",
                "case_not_found",
                "change_not_found",
                "booking_not_found",
                "troubleshooting_required",
            }, call.name
            assert ex.db == {**s.scenario_db, "session": s.scenario_db.get("session", {})}
    assert seen == set(REGISTRY.write_tools) - {"transfer_to_agent"}


# --------------------------------------------------------------------------------------------------- auth tiers


def test_standard_verification_checks_the_phone_digits(scenarios):
    s = scenarios[0]
    eid, phone = caller(s)
    wrong = f"{(int(phone) + 1) % 10000:04d}"
    ex = ToolExecutor(REGISTRY, s.scenario_db)
    assert err(ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": wrong})) == "verification_failed"
    assert err(ex.call("get_employee_record", {"employee_id": eid})) == "authentication_required"
    assert err(ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": "61"})) == "invalid_arguments"
    ok = ex.call("verify_employee_auth", {"employee_id": eid.lower(), "phone_last_four": phone})
    assert ok["authenticated"] and ex.db["session"]["auth_level"] == "standard"
    assert ex.call("get_employee_record", {"employee_id": eid})["employee"]["employee_id"] == eid


def test_a_verified_employee_cannot_read_a_coworkers_record(scenarios):
    s = by_workflow(scenarios, "access_removal")
    ex = authed(s)
    departing = s.user_goal.scripted.answers["departing_employee_id"]
    assert err(ex.call("get_employee_record", {"employee_id": departing})) == "not_authorized"


def test_access_changes_need_the_otp_and_the_right_code(scenarios):
    s = by_workflow(scenarios, "application_access")
    eid, _ = caller(s)
    ex = authed(s)
    args = {"employee_id": eid, "catalog_id": "APP1040", "access_level": "read_only"}
    assert err(ex.call("submit_access_request", args)) == "otp_required"
    assert err(ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": "123456"})) == "otp_not_initiated"
    sent = ex.call("initiate_otp_auth", {"employee_id": eid})
    assert sent["phone_last_four"] == s.user_goal.scripted.answers["phone_last_four"]
    code = s.scenario_db["otp_codes"][eid]
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    assert err(ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": wrong})) == "otp_mismatch"
    assert ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": code})["otp_verified"]
    assert ex.call("submit_access_request", args)["request_status"] in ("approved", "pending_approval")


def test_acting_for_another_employee_needs_manager_auth_plus_otp(scenarios):
    s = by_workflow(scenarios, "new_employee_provisioning")
    eid, phone = caller(s)
    hire = s.user_goal.scripted.answers["new_hire_id"]
    mcode = s.user_goal.scripted.answers["manager_auth_code"]
    ex = authed(s, otp=True)  # standard + OTP is not enough
    assert err(ex.call("lookup_new_hire", {"new_hire_id": hire})) == "manager_auth_required"
    bad = {"employee_id": eid, "phone_last_four": phone, "manager_auth_code": "ZZZ999"}
    assert err(ex.call("verify_manager_auth", bad)) == "verification_failed"
    assert ex.call("verify_manager_auth", {**bad, "manager_auth_code": mcode.lower()})["auth_level"] == "manager"
    assert err(ex.call("lookup_new_hire", {"new_hire_id": hire})) == "otp_required"  # manager auth clears the OTP
    ex.call("initiate_otp_auth", {"employee_id": eid})
    ex.call("verify_otp_auth", {"employee_id": eid, "otp_code": s.scenario_db["otp_codes"][eid]})
    assert ex.call("lookup_new_hire", {"new_hire_id": hire})["new_hire"]["employee_id"] == hire


def test_each_workflow_starts_with_its_auth_tier():
    for name, workflow in WORKFLOWS.items():
        tools = workflow.tools
        tier = AUTH_TIER[name]
        assert tools[0] == ("verify_manager_auth" if tier == "manager" else "verify_employee_auth"), name
        assert ("verify_otp_auth" in tools) == (tier != "standard"), name


# --------------------------------------------------------------------------------------------------- incidents


def test_troubleshooting_must_fail_before_a_ticket(scenarios):
    s = by_workflow(scenarios, "network_vpn_issue")
    eid, _ = caller(s)
    ticket = {"employee_id": eid, "category": "network_connectivity", "impact": "blocked", "affected_system": "vpn"}
    ex = authed(s)
    assert err(ex.call("create_incident_ticket", {**ticket, "troubleshooting_completed": True})) == (
        "troubleshooting_required"
    )
    ex.call("get_troubleshooting_guide", {"employee_id": eid, "category": "network_connectivity"})
    assert err(ex.call("create_incident_ticket", ticket)) == "troubleshooting_required"  # caller reported no failure
    resolved = copy.deepcopy(ex)
    resolved.call("mark_resolved", {"employee_id": eid, "category": "network_connectivity"})
    assert err(resolved.call("create_incident_ticket", {**ticket, "troubleshooting_completed": True})) == (
        "already_resolved"
    )
    opened = ex.call("create_incident_ticket", {**ticket, "troubleshooting_completed": True})
    assert re.fullmatch(r"INC\d{7}", opened["ticket_number"]) and opened["urgency"] == "high"
    assert err(ex.call("assign_sla_tier", {"ticket_number": opened["ticket_number"], "sla_tier": "tier_3"})) == (
        "sla_tier_mismatch"
    )
    sla = ex.call("assign_sla_tier", {"ticket_number": opened["ticket_number"], "sla_tier": "tier_1"})
    assert (sla["response_target"], sla["resolution_target"]) == ("1h", "4h")


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
    assert runs[True][1]["incidents"] == ticketed.scenario_db["incidents"]
    assert "create_incident_ticket" in runs[False][0] and "mark_resolved" not in runs[False][0]
    assert len(runs[False][1]["incidents"]) == len(ticketed.scenario_db["incidents"]) + 1


def test_a_security_hold_ends_in_a_ticket_not_a_resolution(scenarios):
    s = next(s for s in scenarios if s.workflow == "login_issue" and "login_impact" in s.user_goal.scripted.answers)
    eid, _ = caller(s)
    ex = authed(s)
    ex.call("get_troubleshooting_guide", {"employee_id": eid, "category": "login_issue"})
    held = ex.call("attempt_account_unlock", {"employee_id": eid})
    assert held["resolved"] is False and held["outcome"] == "cannot_unlock_security_hold"
    assert ex.db["accounts"][eid]["active_directory"]["status"] == "locked"
    assert err(ex.call("mark_resolved", {"employee_id": eid, "category": "login_issue"})) == "not_resolved"
    assert [c.name for c in s.reference_calls][-2:] == ["create_incident_ticket", "assign_sla_tier"]


def test_outages_are_checked_before_a_ticket_and_never_duplicated(scenarios):
    s = next(s for s in scenarios if s.workflow == "service_outage" and "already on file" in s.expected_flow)
    eid, _ = caller(s)
    service = s.user_goal.scripted.answers["outage_service"]
    ticket = {"employee_id": eid, "category": "service_outage", "impact": "blocked", "affected_system": service}
    ex = authed(s)
    assert err(ex.call("create_incident_ticket", ticket)) == "outage_check_required"
    found = ex.call("check_existing_outage", {"service_name": service})
    assert found["outage_exists"]
    assert err(ex.call("create_incident_ticket", ticket)) == "duplicate_outage"
    outage_id = found["outage"]["outage_id"]
    assert ex.call("add_affected_user", {"outage_id": outage_id, "employee_id": eid})["sla_tier"] == "tier_1"
    assert err(ex.call("add_affected_user", {"outage_id": outage_id, "employee_id": eid})) == "already_affected_user"


# --------------------------------------------------------------------------------------------------- policy errors


def test_hardware_requests_need_entitlement_and_budget_checks(scenarios):
    s = by_workflow(scenarios, "monitor_bundle")
    eid, _ = caller(s)
    request = {"employee_id": eid, "equipment_type": "monitor", "reason": "new_setup", "size": "27_inch",
               "delivery_building": "riverside", "delivery_floor": 3}  # fmt: skip
    ex = authed(s)
    assert err(ex.call("submit_hardware_request", request)) == "entitlement_check_required"
    ex.call("check_hardware_entitlement", {"employee_id": eid, "equipment_type": "monitor"})
    assert err(ex.call("submit_hardware_request", request)) == "budget_check_required"
    cc = s.scenario_db["employees"][eid]["cost_center"]
    assert ex.call("verify_cost_center_budget", {"cost_center": cc, "amount": 420})["budget_available"]
    assert ex.call("submit_hardware_request", {**request, "delivery_building": "Nowhere"})["error_type"] == (
        "building_not_found"
    )
    assert ex.call("submit_hardware_request", request)["cost"] == 420.0


def test_license_rules(scenarios):
    s = by_workflow(scenarios, "software_license")
    eid, _ = caller(s)
    ex = authed(s)
    item = ex.call("get_license_catalog_item", {"license_name": "Visio"})
    temp = {"employee_id": eid, "catalog_id": item["catalog_id"], "license_type": "temporary"}
    assert err(ex.call("submit_license_request", {**temp, "duration_days": 45})) == "invalid_duration"
    ok = ex.call("submit_license_request", {**temp, "duration_days": 30})
    assert ok["expiration_date"] == "2026-08-26"  # J.2: a 30-day trial from 2026-07-27
    permanent = {**temp, "license_type": "permanent"}
    assert err(ex.call("submit_license_request", permanent)) == "cost_center_validation_required"
    assert err(ex.call("get_license_catalog_item", {"license_name": "Photoshop Pro"})) == "license_not_found"


@pytest.mark.parametrize(
    ("workflow", "require"),
    [
        ("laptop_replacement", "eligible"),
        ("monitor_bundle", "budget_available"),
        ("ergonomic_equipment", "eligible"),
        ("permission_change", "authorized"),
        ("request_status_escalation", "sla_breached"),
        ("license_renewal", "licenses.0.renewable"),
        ("group_membership", "eligible"),
        ("new_employee_provisioning", "has_active_accounts"),
        ("access_removal", "removable"),
    ],
)
def test_adversarial_scenarios_refuse_at_the_policy_boundary_without_writing(scenarios, workflow, require):
    s = by_workflow(scenarios, workflow, "adversarial")
    executor = ToolExecutor(REGISTRY, s.scenario_db)
    run = run_reference(WORKFLOWS[workflow], typed_answers(s.user_goal.scripted.answers), executor)
    assert run.outcome == "refused"
    last = s.reference_calls[-1]
    replay = ToolExecutor(REGISTRY, s.scenario_db)
    results = [replay.call(c.name, c.arguments) for c in s.reference_calls]
    assert lookup_or_none(require, results[-1]) is (require == "has_active_accounts")  # the failed requirement
    assert not REGISTRY[last.name].writes and not any(REGISTRY[c.name].writes for c in s.reference_calls)
    assert {k: v for k, v in s.expected_scenario_db.items() if k != "session"} == {
        k: v for k, v in s.scenario_db.items() if k != "session"
    }
    assert s.user_goal.scripted.push_back_say and s.user_goal.scripted.push_back_times >= 1


def test_the_policy_lives_in_the_write_tools_too(scenarios):
    """Skipping the look-up that would have refused does not help: the write tool refuses by itself."""
    s = by_workflow(scenarios, "license_renewal", "adversarial")
    eid, _ = caller(s)
    lid = next(iter(s.scenario_db["licenses"]))
    assert err(authed(s).call("submit_license_renewal", {"employee_id": eid, "license_id": lid})) == (
        "outside_renewal_window"
    )
    s = by_workflow(scenarios, "request_status_escalation", "adversarial")
    rid = s.user_goal.scripted.answers["request_id"]
    assert err(authed(s).call("escalate_approval", {"request_id": rid, "employee_id": caller(s)[0]})) == (
        "sla_not_breached"
    )
    s = by_workflow(scenarios, "permission_change", "adversarial")
    args = {"employee_id": caller(s)[0], "new_role": "x", "template_name": "standard", "effective_date": "2026-08-01"}
    assert err(authed(s, otp=True).call("submit_permission_change", args)) == "role_change_not_authorized"
    s = by_workflow(scenarios, "ergonomic_equipment", "adversarial")
    item = s.user_goal.scripted.answers["equipment_item"].replace(" ", "_")
    args = {"employee_id": caller(s)[0], "item": item, "delivery_building": "riverside", "delivery_floor": 2}
    assert err(authed(s).call("submit_equipment_request", args)) == "assessment_required"


def test_facilities_errors(scenarios):
    s = by_workflow(scenarios, "conference_room")
    eid, _ = caller(s)
    ex = ToolExecutor(REGISTRY, s.expected_scenario_db)
    ex.call("verify_employee_auth", {"employee_id": eid, "phone_last_four": caller(s)[1]})
    booked = next(c.arguments for c in s.reference_calls if c.name == "submit_room_booking")
    assert err(ex.call("submit_room_booking", booked)) == "room_unavailable"  # the reference already booked it
    assert err(ex.call("send_calendar_invite", {"booking_id": "BK999999", "organizer_id": eid})) == "booking_not_found"
    d = by_workflow(scenarios, "desk_request")
    ex = ToolExecutor(REGISTRY, d.expected_scenario_db)
    ex.call("verify_employee_auth", {"employee_id": caller(d)[0], "phone_last_four": caller(d)[1]})
    assign = next(c.arguments for c in d.reference_calls if c.name == "submit_desk_assignment")
    assert err(ex.call("submit_desk_assignment", assign)) == "desk_already_assigned"
    wait = {"employee_id": caller(d)[0], "resource_type": "desk", "location_id": "HPT"}
    assert ex.call("submit_waitlist", wait)["position"] == 1
    assert err(ex.call("submit_waitlist", wait)) == "already_waitlisted"


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
    patterns = {
        "employee_id": r"EMP\d{6}",
        "phone_last_four": r"\d{4}",
        "otp_code": r"\d{6}",
        "manager_auth_code": r"(?=.*\d)(?=.*[A-Z])[A-Z0-9]{6}",
        "asset_tag": r"(LT|PH|MN)[A-Z0-9]{6}",
        "request_id": r"REQSW\d{6}",
        "new_hire_id": r"EMP\d{6}",
        "departing_employee_id": r"EMP\d{6}",
        "diagnostic_code": r"ND[A-Z0-9]{6}",
    }
    for s in scenarios:
        for name, value in s.key_entities.items():
            assert re.fullmatch(patterns[name], value), (s.id, name, value)
        for number in s.expected_scenario_db["incidents"]:
            assert re.fullmatch(r"INC\d{7}", number)
    assert len({s.key_entities["employee_id"] for s in scenarios}) > 70  # a fresh caller per scenario


def test_multi_intent_keeps_call_scoped_auth_and_all_outcomes(scenarios):
    s = next(s for s in scenarios if s.type == "multi_intent" and "access_removal" in s.workflow.split("+")[1:])
    names = [c.name for c in s.reference_calls]
    assert names.count("verify_manager_auth") == 1
    assert s.expected_scenario_db["offboarding"] != s.scenario_db["offboarding"]


def test_prompts_render_for_the_domain(scenarios):
    agent = render_agent_prompt("itsm", "2026-07-27 08:30 EST")
    assert "Troubleshooting must fail before a ticket" in agent and "create_incident_ticket" in agent
    assert "30, 60, 90 days" in agent and "Tier 1, 1h response, 4h resolution" in agent
    simulator = render_simulator_prompt(scenarios[40])
    assert "IT service desk" in simulator and scenarios[40].key_entities["employee_id"] in simulator


def test_dates_in_answers_are_spoken_not_iso(scenarios):
    for s in scenarios:
        for name, text in s.user_goal.scripted.answers.items():
            if SLOTS[name].kind == "date":
                assert not re.search(r"\d{4}-\d{2}", text)
                assert date.fromisoformat(parse_slot(SLOTS[name], text, TODAY)) >= TODAY
