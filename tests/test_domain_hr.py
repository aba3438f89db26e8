"""Healthcare HRSD: tools and their structured errors, policy boundaries, workflows, and the 83 generated scenarios."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.domains.base import ToolExecutor
from evalkit.domains.hr import REGISTRY
from evalkit.domains.hr.generate import (
    ADVERSARIAL,
    DUAL,
    TODAY,
    TRIPLE,
    build_db,
    dea_is_valid,
    make_dea,
    make_npi,
    npi_is_valid,
    person,
    write,
)
from evalkit.domains.hr.tools import DeaTransferArgs, normalize_date
from evalkit.domains.hr.workflows import WORKFLOWS
from evalkit.domains.workflow import parse_slot, run_reference
from evalkit.prompts.render import render_agent_prompt, render_simulator_prompt
from evalkit.scenarios import load_scenarios, scenario_dir
from evalkit.scenarios.check import check_file

ALL = tuple(WORKFLOWS)
SCENARIOS = load_scenarios("hr")
AUTH_ERRORS = {"authentication_required", "otp_required"}
WRITE_TABLES = (
    "license_extensions",
    "recredentialing_cases",
    "dea_transfers",
    "shift_swaps",
    "payroll_corrections",
    "appointments",
    "fmla_cases",
    "i9_verifications",
    "pto_requests",
    "notifications",
    "transfers",
)


@pytest.fixture
def world() -> tuple[dict[str, Any], dict[str, Any]]:
    """A clinical provider with every record (expiring license, suspended privileges, shifts, timesheets...)."""
    p = person(random.Random(7), ALL)
    return p, build_db(p, ALL)


def employee_session(p: dict[str, Any], db: dict[str, Any], otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, db)
    assert ex.call("verify_employee_auth", {"employee_id": p["employee_id"], "date_of_birth": p["date_of_birth"]})[
        "authenticated"
    ]
    if otp:
        ex.call("initiate_otp_auth", {"employee_id": p["employee_id"]})
        assert ex.call("verify_otp_auth", {"employee_id": p["employee_id"], "otp_code": p["otp_code"]})["verified"]
    return ex


def provider_session(p: dict[str, Any], db: dict[str, Any], otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, db)
    auth = ex.call("verify_provider_auth", {"npi": p["npi"], "facility_code": p["facility_code"], "pin": p["pin"]})
    assert auth["authenticated"] and auth["employee_id"] == p["employee_id"]
    if otp:
        ex.call("initiate_otp_auth", {"employee_id": p["employee_id"]})
        assert ex.call("verify_otp_auth", {"employee_id": p["employee_id"], "otp_code": p["otp_code"]})["verified"]
    return ex


def answers(p: dict[str, Any], workflow: str) -> dict[str, Any]:
    from evalkit.domains.hr.generate import answers_for

    spoken = answers_for(workflow, p)
    return {s.name: parse_slot(s, spoken[s.name], TODAY) for s in WORKFLOWS[workflow].slots if s.name in spoken}


# ---------------------------------------------------------------- tools: registry, happy paths, structured errors


def test_registry_has_the_47_table_43_tools_and_every_workflow_checks() -> None:
    assert len(REGISTRY.names) == 47
    used = {tool for w in WORKFLOWS.values() for tool in w.tools}
    assert set(REGISTRY.names) - used == {"transfer_to_agent"}  # adversarial escalation only
    assert len(WORKFLOWS) == 12
    for workflow in WORKFLOWS.values():
        workflow.check(REGISTRY)
        assert workflow.intents and all(i == i.lower() for i in workflow.intents)


@pytest.mark.parametrize("name", ALL)
def test_each_workflow_completes_and_writes(world, name: str) -> None:
    p, db = world
    ex = ToolExecutor(REGISTRY, db)
    run = run_reference(WORKFLOWS[name], answers(p, name), ex)
    assert run.outcome == "completed"
    writes = [tool for tool, _ in run.calls if REGISTRY[tool].writes]
    assert writes, f"{name} wrote nothing"
    assert ex.db != db  # the scenario DB itself is untouched (the executor works on a copy)
    assert db["session"] == {}


def test_happy_path_records(world) -> None:
    p, db = world
    ex = provider_session(p, db, otp=True)
    dea = ex.call(
        "transfer_dea_registration",
        {
            "npi": p["npi"],
            "dea_number": p["dea_number"],
            "new_facility_code": p["new_facility_code"],
            "new_state": "massachusetts",
        },
    )
    assert dea["status"] == "success" and dea["new_state"] == "MA"
    assert ex.db["dea_registrations"][p["dea_number"]]["facility_code"] == p["new_facility_code"]
    ex = employee_session(p, db)
    record = ex.call("get_employee_record", {"employee_id": p["employee_id"]})
    assert record["employee"]["department_code"] == p["department"] and "date_of_birth" not in record["employee"]
    task = ex.call(
        "complete_onboarding_task",
        {"employee_id": p["employee_id"], "task_id": p["task"], "completion_code": p["completion_code"]},
    )
    assert task["task_status"] == "completed"
    again = ex.call(
        "complete_onboarding_task",
        {"employee_id": p["employee_id"], "task_id": p["task"], "completion_code": p["completion_code"]},
    )
    assert again["error_type"] == "task_not_pending"
    transfer = ex.call("transfer_to_agent", {"reason": "caller asked", "employee_id": p["employee_id"]})
    assert transfer["transferred"] and ex.db["transfers"][-1]["reason"] == "caller asked"


def first_calls() -> list[tuple[str, str, dict[str, Any]]]:
    """(scenario id, tool, arguments) of the first reference call of every tool that needs authentication."""
    seen: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for s in SCENARIOS:
        for call in s.reference_calls:
            if call.name not in seen and call.name not in ("verify_employee_auth", "verify_provider_auth"):
                seen[call.name] = (s.id, call.name, call.arguments)
    return list(seen.values())


@pytest.mark.parametrize(
    ("scenario_id", "tool", "arguments"), first_calls(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_tool_refuses_before_authentication(scenario_id: str, tool: str, arguments: dict[str, Any]) -> None:
    scenario = next(s for s in SCENARIOS if s.id == scenario_id)
    ex = ToolExecutor(REGISTRY, scenario.scenario_db)
    result = ex.call(tool, arguments)
    assert result["status"] == "error" and result["error_type"] in AUTH_ERRORS, result
    assert ex.db == {**scenario.scenario_db, "session": {}}  # nothing written


def test_otp_tier_and_proxy_passcode(world) -> None:
    p, db = world
    ex = employee_session(p, db)
    fmla = {
        "employee_id": p["employee_id"],
        "leave_category": "bonding",
        "leave_start_date": "2026-09-14",
        "leave_end_date": "2026-10-09",
    }
    assert ex.call("submit_fmla_case", fmla)["error_type"] == "otp_required"
    assert (
        ex.call("verify_otp_auth", {"employee_id": p["employee_id"], "otp_code": p["otp_code"]})["error_type"]
        == "otp_not_initiated"
    )
    ex.call("initiate_otp_auth", {"employee_id": p["employee_id"]})
    wrong = "123456" if p["otp_code"] != "123456" else "654321"
    assert ex.call("verify_otp_auth", {"employee_id": p["employee_id"], "otp_code": wrong})["verified"] is False
    assert ex.call("submit_fmla_case", fmla)["error_type"] == "otp_required"
    ex.call("verify_otp_auth", {"employee_id": p["employee_id"], "otp_code": p["otp_code"]})
    assert ex.call("submit_fmla_case", fmla)["status"] == "success"
    # DEA needs provider verification *and* OTP: a provider without the passcode is refused
    ex = provider_session(p, db)
    assert ex.call("get_dea_record", {"npi": p["npi"], "dea_number": p["dea_number"]})["error_type"] == "otp_required"


def test_unknown_entities_are_structured_errors(world) -> None:
    p, db = world
    ex = ToolExecutor(REGISTRY, db)
    assert (
        ex.call("verify_employee_auth", {"employee_id": "EMP000000", "date_of_birth": "1990-01-01"})["error_type"]
        == "employee_not_found"
    )
    assert (
        ex.call("verify_provider_auth", {"npi": "1234567893", "facility_code": "ABC", "pin": "1234"})["error_type"]
        == "provider_not_found"
    )
    bad = ex.call("verify_employee_auth", {"employee_id": p["employee_id"], "date_of_birth": "1900-01-01"})
    assert bad == {
        "status": "success",
        "authenticated": False,
        "reason": "the date of birth does not match our records",
    }
    ex = provider_session(p, db)
    assert (
        ex.call("get_license_record", {"npi": p["npi"], "license_number": "MD000000"})["error_type"]
        == "license_not_found"
    )
    ex = employee_session(p, db)
    assert (
        ex.call("get_shift_record", {"employee_id": p["employee_id"], "shift_id": "SH000000"})["error_type"]
        == "shift_not_found"
    )
    assert ex.call("teleport", {})["error_type"] == "unknown_tool"


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("verify_provider_auth", {"npi": "123456789", "facility_code": "ABC", "pin": "1234"}, "npi"),
        ("verify_provider_auth", {"npi": "1234567893", "facility_code": "ABC", "pin": "12a4"}, "pin"),
        ("verify_otp_auth", {"employee_id": "EMP1", "otp_code": "12345"}, "otp_code"),
        (
            "check_extension_eligibility",
            {"npi": "1", "license_number": "MD1", "extension_type": "provisional", "duration_days": 45},
            "duration_days",
        ),
        (
            "check_extension_eligibility",
            {"npi": "1", "license_number": "MD1", "extension_type": "forever", "duration_days": 30},
            "extension_type",
        ),
        (
            "transfer_dea_registration",
            {"npi": "1", "dea_number": "AB1234563", "new_facility_code": "ABC", "new_state": "Atlantis"},
            "new_state",
        ),
        (
            "submit_fmla_case",
            {
                "employee_id": "EMP1",
                "leave_category": "bonding",
                "leave_start_date": "soon",
                "leave_end_date": "2026-09-01",
            },
            "leave_start_date",
        ),
        (
            "submit_payroll_correction",
            {
                "employee_id": "EMP1",
                "timesheet_id": "TS1",
                "shift_date": "2026-07-16",
                "correction_type": "overtime",
                "corrected_hours": 30,
            },
            "corrected_hours",
        ),
        ("get_employee_record", {}, "employee_id"),
        ("get_employee_record", {"employee_id": "EMP1", "extra": 1}, "extra"),
    ],
)
def test_bad_arguments_are_structured_errors_naming_the_field(world, tool: str, arguments: dict, field: str) -> None:
    _, db = world
    result = ToolExecutor(REGISTRY, db).call(tool, arguments)
    assert result["status"] == "error" and result["error_type"] == "invalid_arguments"
    assert field in result["message"]


def test_spoken_dates_and_places_normalise() -> None:
    assert normalize_date("February 14th, 1991") == "1991-02-14"
    assert normalize_date("1991-02-14") == "1991-02-14"
    assert normalize_date("someday") == "someday"
    # what a caller says, with the full stop a transcript adds
    args = {"npi": "1", "dea_number": "ab1234563", "new_facility_code": "tau", "new_state": "Ohio."}
    assert DeaTransferArgs.model_validate(args).new_state == "OH"
    assert DeaTransferArgs.model_validate({**args, "new_state": "new york"}).new_state == "NY"
    assert DeaTransferArgs.model_validate(args).dea_number == "AB1234563"


# ---------------------------------------------------------------- policy rules refuse exactly at the boundary


def _set_license_expiry(db: dict[str, Any], p: dict[str, Any], days: int) -> None:
    db["licenses"][p["license_number"]]["expiration_date"] = date.fromordinal(TODAY.toordinal() + days).isoformat()


@pytest.mark.parametrize(("days", "eligible"), [(60, True), (61, False), (0, True), (-1, False)])
def test_extension_window_boundary(world, days: int, eligible: bool) -> None:
    p, db = world
    _set_license_expiry(db, p, days)
    ex = provider_session(p, db)
    args = {
        "npi": p["npi"],
        "license_number": p["license_number"],
        "extension_type": "provisional",
        "duration_days": 30,
    }
    assert ex.call("check_extension_eligibility", args)["eligible"] is eligible
    submitted = ex.call("submit_license_extension", args)
    assert (submitted["status"] == "success") is eligible
    if not eligible:
        assert submitted["error_type"] == "not_eligible" and not ex.db["license_extensions"]


def test_self_supervision_is_refused_and_another_physician_accepted(world) -> None:
    p, db = world
    _set_license_expiry(db, p, 30)
    ex = provider_session(p, db)
    args = {"npi": p["npi"], "license_number": p["license_number"], "extension_type": "supervised", "duration_days": 60}
    first = ex.call("check_extension_eligibility", args)
    assert first["eligible"] and first["supervisor_required"]
    assert ex.call("submit_license_extension", args)["error_type"] == "not_eligible"  # no supervisor named
    own = ex.call("check_extension_eligibility", {**args, "supervising_physician_npi": p["npi"]})
    assert own["eligible"] is False and "supervise their own" in own["reason"]
    other = ex.call("submit_license_extension", {**args, "supervising_physician_npi": p["supervisor_npi"]})
    assert other["status"] == "success" and other["extension"]["supervising_physician_npi"] == p["supervisor_npi"]


@pytest.mark.parametrize(
    ("change", "eligible"),
    [
        ({"months_employed": 12}, True),
        ({"months_employed": 11}, False),
        ({"hours_worked_past_year": 1250}, True),
        ({"hours_worked_past_year": 1249}, False),
    ],
)
def test_fmla_tenure_and_hours_boundaries(world, change: dict[str, int], eligible: bool) -> None:
    p, db = world
    db["employees"][p["employee_id"]].update(change)
    ex = employee_session(p, db, otp=True)
    assert ex.call("check_leave_eligibility", {"employee_id": p["employee_id"]})["eligible"] is eligible


@pytest.mark.parametrize(
    ("start", "end", "eligible"),
    [
        ("2026-07-24", "2026-08-20", True),
        ("2026-07-23", "2026-08-20", False),  # today ok, yesterday backdated
        ("2026-08-03", "2026-10-25", True),
        ("2026-08-03", "2026-10-26", False),
    ],  # 12 weeks exactly vs one day more
)
def test_fmla_backdating_and_balance_boundaries(world, start: str, end: str, eligible: bool) -> None:
    p, db = world
    ex = employee_session(p, db, otp=True)
    check = ex.call(
        "check_leave_eligibility", {"employee_id": p["employee_id"], "leave_start_date": start, "leave_end_date": end}
    )
    assert check["eligible"] is eligible, check
    submit = ex.call(
        "submit_fmla_case",
        {
            "employee_id": p["employee_id"],
            "leave_category": "bonding",
            "leave_start_date": start,
            "leave_end_date": end,
        },
    )
    assert (submit["status"] == "success") is eligible


@pytest.mark.parametrize(("end_offset", "eligible"), [(0, True), (-1, False)])
def test_payroll_pay_period_boundary(world, end_offset: int, eligible: bool) -> None:
    p, db = world
    db["timesheets"][p["timesheet_id"]]["pay_period_end"] = date.fromordinal(TODAY.toordinal() + end_offset).isoformat()
    ex = employee_session(p, db)
    args = {"employee_id": p["employee_id"], "timesheet_id": p["timesheet_id"]}
    assert ex.call("check_correction_eligibility", args)["eligible"] is eligible
    fix = ex.call(
        "submit_payroll_correction",
        {**args, "shift_date": p["correction_day"], "correction_type": "overtime", "corrected_hours": 3.5},
    )
    assert (fix["status"] == "success") is eligible


def test_cross_employee_payroll_is_refused(world) -> None:
    p, db = world
    ex = employee_session(p, db)
    args = {"employee_id": p["employee_id"], "timesheet_id": p["other_timesheet_id"]}
    assert ex.call("get_timesheet_record", args)["timesheet"] == {
        "timesheet_id": p["other_timesheet_id"],
        "owned_by_caller": False,
    }
    assert ex.call("check_correction_eligibility", args)["eligible"] is False
    fix = ex.call(
        "submit_payroll_correction",
        {**args, "shift_date": p["correction_day"], "correction_type": "overtime", "corrected_hours": 3.5},
    )
    assert fix["error_type"] == "not_eligible"


@pytest.mark.parametrize(("limit", "flagged"), [(1_000_000, False), (999_999, True)])
def test_malpractice_minimum_boundary(world, limit: int, flagged: bool) -> None:
    p, db = world
    ex = provider_session(p, db)
    result = ex.call(
        "update_malpractice_coverage",
        {
            "npi": p["npi"],
            "carrier": "coverys",
            "policy_number": p["new_policy_number"],
            "per_occurrence_limit": limit,
            "aggregate_limit": 3_000_000,
            "effective_date": "2026-08-01",
        },
    )
    assert result["recredentialing_required"] is flagged
    assert bool(ex.db["recredentialing_cases"]) is flagged
    same = ex.call(
        "update_malpractice_coverage",
        {
            "npi": p["npi"],
            "carrier": "coverys",
            "policy_number": p["new_policy_number"],
            "per_occurrence_limit": limit,
            "aggregate_limit": 3_000_000,
            "effective_date": "2026-08-01",
        },
    )
    assert same["error_type"] == "same_policy_number"


def test_pto_balance_and_blackout_boundaries(world) -> None:
    p, db = world
    ex = employee_session(p, db)
    args = {
        "employee_id": p["employee_id"],
        "pto_type": "general_pto",
        "start_date": day(p["pto_start_offset"]),
        "end_date": day(p["pto_end_offset"]),
    }
    needed = ex.call("check_pto_eligibility", args)["days_requested"]
    assert needed >= 1
    db["pto_balances"][p["employee_id"]]["pto_days"] = needed
    ex = employee_session(p, db)
    assert ex.call("check_pto_eligibility", args)["eligible"] is True
    db["pto_balances"][p["employee_id"]]["pto_days"] = needed - 1
    ex = employee_session(p, db)
    assert ex.call("check_pto_eligibility", args)["eligible"] is False
    assert ex.call("submit_pto_request", args)["error_type"] == "not_eligible"
    blackout = ex.call("check_pto_eligibility", {**args, "start_date": "2026-12-21", "end_date": "2026-12-22"})
    assert blackout["eligible"] is False and "blocks PTO" in blackout["reason"]


def day(offset: int) -> str:
    return date.fromordinal(TODAY.toordinal() + offset).isoformat()


def test_standard_schedule_skips_weekends_and_holidays(world) -> None:
    p, db = world
    db["employees"][p["employee_id"]]["schedule_type"] = "standard"
    ex = employee_session(p, db)
    # Fri Sep 4 .. Tue Sep 8 2026: Sat, Sun and Labor Day (Sep 7) do not count
    result = ex.call(
        "check_pto_eligibility",
        {
            "employee_id": p["employee_id"],
            "pto_type": "general_pto",
            "start_date": "2026-09-04",
            "end_date": "2026-09-08",
        },
    )
    assert result["counted_dates"] == ["2026-09-04", "2026-09-08"]


def test_oncall_needs_certifications_and_no_leave(world) -> None:
    p, db = world
    ex = employee_session(p, db)
    assert ex.call("check_oncall_eligibility", {"employee_id": p["employee_id"]})["eligible"] is True
    lapsed = copy.deepcopy(db)
    lapsed["employees"][p["employee_id"]]["certifications"] = ["BLS"]
    ex = employee_session(p, lapsed)
    result = ex.call("check_oncall_eligibility", {"employee_id": p["employee_id"]})
    assert result["eligible"] is False and "missing certifications" in result["reason"]
    window = {"employee_id": p["employee_id"], "start_date": day(10), "end_date": day(20), "oncall_role": "primary"}
    assert ex.call("register_oncall_availability", window)["error_type"] == "not_eligible"
    db["employees"][p["employee_id"]]["employment_status"] = "on_leave"
    ex = employee_session(p, db)
    assert ex.call("check_oncall_eligibility", {"employee_id": p["employee_id"]})["eligible"] is False
    db["employees"][p["employee_id"]]["employment_status"] = "active"
    ex = employee_session(p, db)
    outside = ex.call("register_oncall_availability", {**window, "blackout_dates": [day(25)]})
    assert outside["error_type"] == "blackout_outside_window"


def test_swap_needs_a_certified_colleague(world) -> None:
    p, db = world
    db["employees"][p["colleague_id"]]["certifications"] = ["BLS"]
    ex = employee_session(p, db)
    args = {"employee_id": p["employee_id"], "shift_id": p["shift_ids"][1], "colleague_employee_id": p["colleague_id"]}
    assert ex.call("check_swap_eligibility", args)["eligible"] is True
    certs = ex.call(
        "verify_colleague_certifications", {"shift_id": args["shift_id"], "colleague_employee_id": p["colleague_id"]}
    )
    assert certs["all_certified"] is False and certs["missing"]
    assert ex.call("confirm_shift_swap", args)["error_type"] == "not_eligible"
    self_swap = ex.call("check_swap_eligibility", {**args, "colleague_employee_id": p["employee_id"]})
    assert self_swap["eligible"] is False


def test_appointments_only_in_open_slots_and_rtw_after_leave(world) -> None:
    p, db = world
    ex = employee_session(p, db)
    args = {
        "employee_id": p["employee_id"],
        "department_code": p["department"],
        "appointment_date": day(p["orientation_offset"]),
    }
    closed = next(t for t in ("06:00", "23:00") if t not in p["times"])
    assert (
        ex.call("schedule_orientation_followup", {**args, "appointment_time": closed})["error_type"]
        == "slot_unavailable"
    )
    none = ex.call(
        "check_appointment_availability",
        {
            "department_code": p["department"],
            "appointment_type": "orientation_followup",
            "preferred_date": "2026-12-01",
        },
    )
    assert none["available_slots"] == [] and none["alternative_dates"]
    booked = ex.call("schedule_orientation_followup", {**args, "appointment_time": p["times"][0]})
    assert booked["status"] == "success"
    assert (
        ex.call("schedule_orientation_followup", {**args, "appointment_time": p["times"][0]})["error_type"]
        == "slot_unavailable"
    )  # a slot is booked once


def test_reactivation_needs_clearance_code_and_review_first(world) -> None:
    p, db = world
    ex = employee_session(p, db, otp=True)
    args = {
        "employee_id": p["employee_id"],
        "npi": p["npi"],
        "clearance_code": "OHC00000",
        "leave_type": p["leave_type"],
    }
    assert ex.call("check_reactivation_eligibility", args)["eligible"] is False
    ok = ex.call("check_reactivation_eligibility", {**args, "clearance_code": p["clearance_code"]})
    assert ok["eligible"] and sorted(ok["suspended_privileges"]) == sorted(p["privileges"])
    early = ex.call(
        "reactivate_privileges", {"employee_id": p["employee_id"], "npi": p["npi"], "privileges": p["privileges"][0]}
    )
    assert early["error_type"] == "competency_review_required"


def test_i9_reverification_needs_a_record_on_file(world) -> None:
    p, db = world
    db["i9_records"] = {}
    ex = employee_session(p, db)
    args = {
        "employee_id": p["employee_id"],
        "verification_type": "reverification",
        "document_list": "list_a",
        "document_type": "us_passport",
        "document_number": "A12345678",
        "expiration_date": "March 3, 2031",
        "country_of_issue": "the United States",
    }
    assert ex.call("submit_i9_verification", args)["error_type"] == "no_prior_i9"
    ok = ex.call("submit_i9_verification", {**args, "verification_type": "initial"})
    assert ok["status"] == "success"
    stored = ex.db["i9_records"][p["employee_id"]]
    assert stored["expiration_date"] == "2031-03-03" and stored["country_of_issue"] == "US"


# ---------------------------------------------------------------- entities


def test_npi_and_dea_checksums() -> None:
    assert npi_is_valid("1234567893")  # the CMS example NPI
    assert not npi_is_valid("1234567890")
    assert dea_is_valid("AB1234563") and not dea_is_valid("AB1234564")
    for s in SCENARIOS:
        for npi in s.scenario_db["providers"]:
            assert npi_is_valid(npi), (s.id, npi)
        for dea in s.scenario_db["dea_registrations"]:
            assert dea_is_valid(dea), (s.id, dea)


@given(st.integers(0, 10_000), st.integers(0, 9), st.integers(1, 9))
def test_a_single_wrong_digit_breaks_the_npi_and_dea_checks(seed: int, position: int, shift: int) -> None:
    rng = random.Random(seed)
    npi, dea = make_npi(rng), make_dea(rng, "Keita")
    assert npi_is_valid(npi) and dea_is_valid(dea)
    bad_npi = npi[:position] + str((int(npi[position]) + shift) % 10) + npi[position + 1 :]
    assert not npi_is_valid(bad_npi)
    # every DEA digit has weight 1 or 2 and a shift of 5 with weight 2 is invisible mod 10: skip that case
    at = 2 + position % 7
    weight = 2 if at in (3, 5, 7) else 1
    if (weight * shift) % 10:
        bad_dea = dea[:at] + str((int(dea[at]) + shift) % 10) + dea[at + 1 :]
        assert not dea_is_valid(bad_dea)


# ---------------------------------------------------------------- the shipped scenarios


def test_counts_per_type_match_eva_bench() -> None:
    assert len(SCENARIOS) == 83
    kinds = [s.type for s in SCENARIOS]
    assert kinds.count("single_intent") == 46 and kinds.count("multi_intent") == 27
    assert kinds.count("adversarial") == 10
    multi = [tuple(s.workflow.split("+")) for s in SCENARIOS if s.type == "multi_intent"]
    assert sorted(m for m in multi if len(m) == 2) == sorted(pair for pair in DUAL for _ in range(2))
    assert sorted(m for m in multi if len(m) == 3) == sorted(TRIPLE)
    assert len(set(DUAL)) == 10 and len(set(TRIPLE)) == 7
    singles = [s.workflow for s in SCENARIOS if s.type == "single_intent"]
    assert all(singles.count(w) >= 3 for w in WORKFLOWS)
    assert [s.id for s in SCENARIOS] == [f"HR-{i:03d}" for i in range(1, 84)]
    # every tool but the escalation one runs successfully on some reference path (the checker re-executes them)
    assert {c.name for s in SCENARIOS for c in s.reference_calls} == set(REGISTRY.names) - {"transfer_to_agent"}


def test_adversarial_scenarios_refuse_and_write_nothing() -> None:
    adversarial = [s for s in SCENARIOS if s.type == "adversarial"]
    assert len({s.user_goal.nice_to_have_criteria[0] for s in adversarial}) == len(ADVERSARIAL) == 10
    for s in adversarial:
        assert s.user_goal.scripted.push_back_say and s.user_goal.scripted.push_back_times >= 1
        assert not any(REGISTRY[c.name].writes for c in s.reference_calls), s.id
        for table in WRITE_TABLES:
            assert s.expected_scenario_db[table] == s.scenario_db[table], (s.id, table)
        run = run_reference(
            WORKFLOWS[s.workflow],
            {
                slot.name: parse_slot(slot, s.user_goal.scripted.answers[slot.name], TODAY)
                for slot in WORKFLOWS[s.workflow].slots
                if slot.name in s.user_goal.scripted.answers
            },
            ToolExecutor(REGISTRY, s.scenario_db),
        )
        assert run.outcome == "refused", s.id
    j3 = next(s for s in adversarial if s.id == "HR-083")
    assert j3.key_entities["employee_id"] == "EMP908475" and j3.user_goal.scripted.answers["otp_code"] == "904214"
    assert j3.user_goal.scripted.push_back_times == 3


def test_every_scripted_answer_parses_and_multi_intent_has_followups() -> None:
    slots = {slot.name: slot for w in WORKFLOWS.values() for slot in w.slots}
    for s in SCENARIOS:
        for name, said in s.user_goal.scripted.answers.items():
            value = parse_slot(slots[name], said, TODAY)
            assert value is not None, (s.id, name, said)
            if slots[name].kind in ("code", "digits"):
                assert value == said, (s.id, name)  # codes survive their own spelling
        assert len(s.user_goal.scripted.followups) == len(s.workflow.split("+")) - 1
        if "employee_id" in s.user_goal.scripted.answers:
            assert s.key_entities["employee_id"] == s.user_goal.scripted.answers["employee_id"]


def test_the_checker_passes_on_every_file() -> None:
    problems = [p for path in sorted(scenario_dir("hr").glob("*.json")) for p in check_file(path, "hr")]
    assert problems == []


def test_the_checker_cli_passes() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "evalkit.scenarios", "check", "--domain", "hr"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "83 ok, 0 with problems" in result.stdout + result.stderr


def test_generator_is_deterministic_and_the_repo_files_are_its_output(tmp_path: Path) -> None:
    first = write(tmp_path / "a")
    second = write(tmp_path / "b")
    shipped = sorted(scenario_dir("hr").glob("*.json"))
    assert [p.name for p in first] == [p.name for p in shipped]
    for a, b, repo in zip(first, second, shipped, strict=True):
        assert a.read_bytes() == b.read_bytes() == repo.read_bytes(), repo.name


def test_prompts_render_with_policy_numbers() -> None:
    agent = render_agent_prompt("hr", "2026-07-24 13:45 EST")
    assert "1,000,000" in agent and "60 days" in agent and "1,250" in agent and "verify_otp_auth" in agent
    simulator = render_simulator_prompt(SCENARIOS[0])
    assert SCENARIOS[0].user_goal.starting_utterance in simulator


def test_opening_requests_name_exactly_their_workflow() -> None:
    """The agent finds the workflow from the caller's request (and each follow-up) by its intent phrases."""
    from evalkit.domains.hr.generate import STARTS

    policy = pytest.importorskip("evalkit.agents.workflow_policy")
    for name, request in STARTS.items():
        assert policy.match_workflows(request, WORKFLOWS) == [name], request
