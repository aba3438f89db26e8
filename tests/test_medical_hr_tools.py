"""medical_hr tools on EVA-Bench's API: exported schemas, authentication tiers, policy boundaries, result and error
shapes and DB writes, on a small DB of our own in EVA-Bench's layout (invented values)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from evalkit.domains.base import ToolExecutor
from evalkit.domains.hr.tools import REGISTRY

EMP, COLLEAGUE, NPI, SUPERVISOR = "EMP310442", "EMP310443", "4455667788", "9988776655"
LICENSE, DEA, SHIFT, PETITION = "WA-MD-5566778", "QR7654321", "SHF-20300318-0700", "LIN3012345678"
TODAY = "2030-03-11"  # a Monday


def db() -> dict[str, Any]:
    """Two employees (one a provider on a shift schedule), a supervising physician, and every per-record table."""
    return {
        "_current_date": TODAY,
        "employees": {
            EMP: {
                "employee_id": EMP,
                "first_name": "Odile",
                "last_name": "Marchetti",
                "date_of_birth": "1984-07-19",
                "phone_last_four": "3141",
                "otp_code": "271828",
                "department_code": "NEUROLOGY",
                "role_code": "RN",
                "unit_code": "6C-NEURO",
                "hire_date": "2019-04-01",
                "employment_status": "active",
                "schedule_type": "standard",
                "certifications": ["BLS"],
                "pto_balances": {"pto": 4.0, "sick": 2.0},
                "pto_requests": [],
                "fmla_eligibility": {
                    "eligible": True,
                    "months_employed": 130,
                    "hours_worked_past_year": 1900,
                    "fmla_weeks_remaining": 12,
                },
                "leave_records": [],
                "onboarding_checklist": {"tasks": {"TB_TEST": {"status": "pending", "completion_code": "K7Q2"}}},
                "visa_record": {"petition_number": PETITION, "dependents": []},
                "scheduled_appointments": [],
            },
            COLLEAGUE: {
                "employee_id": COLLEAGUE,
                "first_name": "Tomasz",
                "last_name": "Iverson",
                "date_of_birth": "1990-02-02",
                "department_code": "NEUROLOGY",
                "employment_status": "on_leave",
                "schedule_type": "shift",
                "certifications": ["BLS", "ACLS"],
                "pto_balances": {"pto": 10.0, "sick": 5.0},
            },
        },
        "providers": {
            NPI: {
                "npi": NPI,
                "employee_id": EMP,
                "first_name": "Odile",
                "last_name": "Marchetti",
                "facility_code": "PSH-12K",
                "pin": "6021",
                "clearance_code": "CLR-OH-123456",
                "licenses": {LICENSE: {"state_license_number": LICENSE, "expiration_date": "2030-05-10"}},
                "malpractice": {"carrier": "cna", "per_occurrence_limit_usd": 1000000},
                "dea_registration": {"dea_number": DEA, "facility_code": "PSH-12K", "state_code": "WA"},
                "privileges": {
                    "privilege_list": [
                        {"code": "PRV-NEURO-001", "status": "suspended"},
                        {"code": "PRV-NEURO-002", "status": "active"},
                    ],
                    "reactivation_case_id": None,
                },
            },
            SUPERVISOR: {"npi": SUPERVISOR, "employee_id": "EMP998877", "facility_code": "PSH-12K", "pin": "1111"},
        },
        "shifts": {
            SHIFT: {"shift_id": SHIFT, "employee_id": EMP, "date": "2030-03-18", "unit_code": "7A-ICU"},
            "SHF-20300312-1900": {"employee_id": COLLEAGUE, "date": "2030-03-12", "unit_code": "7A-ICU"},
            "SHF-20300314-1900": {"employee_id": COLLEAGUE, "date": "2030-03-14", "unit_code": "7A-ICU"},
        },
        "appointment_availability": {
            "return_to_work_checkin": {"NEUROLOGY": {"2030-04-15": ["09:00", "13:30"]}},
            "competency_review": {"NEUROLOGY": {"2030-03-20": ["10:00"]}},
        },
        "department_blackout_dates": {"NEUROLOGY": ["2030-03-15"]},
        "unit_cert_requirements": {"7A-ICU": ["ACLS", "BLS"]},
        "notifications": [],
        "org_holidays": ["2030-03-13"],
    }


def employee(otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, db())
    assert ex.call("verify_employee_auth", {"employee_id": EMP, "date_of_birth": "1984-07-19"})["status"] == "success"
    if otp:
        assert ex.call("initiate_otp_auth", {"employee_id": EMP})["phone_last_four"] == "3141"
        assert ex.call("verify_otp_auth", {"employee_id": EMP, "otp_code": "271828"})["status"] == "success"
    return ex


def provider(otp: bool = False) -> ToolExecutor:
    ex = ToolExecutor(REGISTRY, db())
    verified = ex.call("verify_provider_auth", {"npi": NPI, "facility_code": "PSH-12K", "pin": "6021"})
    assert verified["employee_id"] == EMP
    if otp:  # the employee ID comes from the provider verification
        ex.call("initiate_otp_auth", {"employee_id": verified["employee_id"]})
        assert ex.call("verify_otp_auth", {"employee_id": EMP, "otp_code": "271828"})["status"] == "success"
    return ex


def error(result: dict[str, Any]) -> str:
    assert result["status"] == "error", result
    return result["error_type"]


# ---------------------------------------------------------------- the exported API


def test_the_48_tools_and_their_exported_schemas() -> None:
    assert len(REGISTRY.names) == 48 and "get_privilege_record" in REGISTRY.names
    extension = REGISTRY["submit_license_extension"].json_schema()["parameters"]
    assert sorted(extension["required"]) == ["extension_days", "extension_type", "npi", "state_license_number"]
    assert "supervising_physician_npi" in extension["properties"]  # optional
    assert extension["properties"]["extension_type"]["enum"] == ["provisional", "supervised"]
    assert extension["properties"]["extension_days"]["enum"] == [30, 60, 90]
    reactivate = REGISTRY["reactivate_privileges"].json_schema()["parameters"]["properties"]
    assert reactivate["privilege_codes"]["type"] == "array"
    counsel = REGISTRY["notify_immigration_counsel"].json_schema()["parameters"]["properties"]
    assert counsel["notification_type"]["enum"] == ["dependent_added"]
    assert REGISTRY["check_appointment_availability"].json_schema()["parameters"]["properties"]["department_code"][
        "enum"
    ][:2] == ["CARDIOLOGY", "EMERGENCY"]
    assert set(REGISTRY.write_tools) >= {"submit_pto_request", "confirm_shift_swap", "notify_pdmp"}
    assert not {"verify_employee_auth", "get_privilege_record", "check_pto_eligibility"} & set(REGISTRY.write_tools)


@pytest.mark.parametrize(
    ("tool", "arguments", "error_type"),
    [
        (
            "verify_employee_auth",
            {"employee_id": "E310442", "date_of_birth": "1984-07-19"},
            "invalid_employee_id_format",
        ),
        ("verify_employee_auth", {"employee_id": EMP}, "invalid_date_format"),  # missing: named by its field
        (
            "verify_provider_auth",
            {"npi": NPI, "facility_code": "PSH12K", "pin": "6021"},
            "invalid_facility_code_format",
        ),
        ("get_shift_record", {"employee_id": EMP, "shift_id": "SHF202603180700"}, "invalid_shift_id_format"),
        ("submit_license_extension", {"npi": NPI, "state_license_number": LICENSE}, "invalid_extension_type"),
        ("complete_onboarding_task", {"employee_id": EMP, "task_code": "TB_TEST"}, "invalid_parameter"),
    ],
)
def test_invalid_arguments_are_named_by_field_format(tool: str, arguments: dict[str, Any], error_type: str) -> None:
    result = ToolExecutor(REGISTRY, db()).call(tool, arguments)
    assert error(result) == error_type
    assert result["message"]


def test_extra_arguments_are_ignored_and_spoken_dates_accepted() -> None:
    ex = ToolExecutor(REGISTRY, db())
    result = ex.call("verify_employee_auth", {"employee_id": EMP, "date_of_birth": "July 19, 1984", "name": "Odile"})
    assert result["status"] == "success" and (result["first_name"], result["last_name"]) == ("Odile", "Marchetti")


# ---------------------------------------------------------------- authentication


def test_authentication_tiers_and_session_keys() -> None:
    ex = ToolExecutor(REGISTRY, db())
    assert error(ex.call("get_employee_record", {"employee_id": EMP})) == "authentication_required"
    assert error(ex.call("verify_employee_auth", {"employee_id": EMP, "date_of_birth": "1984-07-20"})) == (
        "authentication_failed"
    )
    assert error(ex.call("verify_employee_auth", {"employee_id": "EMP000000", "date_of_birth": "1984-07-20"})) == (
        "not_found"
    )
    assert error(ex.call("verify_otp_auth", {"employee_id": EMP, "otp_code": "271828"})) == "otp_not_initiated"
    ex = employee()
    assert ex.db["session"] == {"employee_auth": True, "authenticated_employee_id": EMP}
    assert error(ex.call("check_leave_eligibility", {"employee_id": EMP})) == "authentication_required"  # OTP tier
    assert error(ex.call("get_provider_profile", {"npi": NPI})) == "authentication_required"
    ex = employee(otp=True)
    assert ex.db["session"]["otp_auth"] is True and ex.db["session"]["otp_employee_id"] == EMP
    profile = ex.call("get_provider_profile", {"npi": NPI})["provider"]
    assert "pin" not in profile and "clearance_code" not in profile and profile["employee_id"] == EMP
    ex = provider()
    assert ex.db["session"] == {"provider_auth": True, "authenticated_npi": NPI, "authenticated_employee_id": EMP}
    assert error(ex.call("get_dea_record", {"npi": NPI, "dea_number": DEA})) == "second_factor_required"
    assert provider(otp=True).call("get_dea_record", {"npi": NPI, "dea_number": DEA})["dea_registration"]["state_code"]


# ---------------------------------------------------------------- credentials


@pytest.mark.parametrize(
    ("expiry", "outcome"),
    [("2030-05-10", "success"), ("2030-05-11", "extension_too_early"), ("2030-03-10", "license_expired")],
)
def test_extension_window_is_60_days_before_expiry(expiry: str, outcome: str) -> None:
    ex = provider()
    ex.db["providers"][NPI]["licenses"][LICENSE]["expiration_date"] = expiry
    result = ex.call("check_extension_eligibility", {"npi": NPI, "state_license_number": LICENSE})
    assert (result["status"] if result["status"] == "success" else result["error_type"]) == outcome


def test_license_extension_writes_the_case_and_notifies_once() -> None:
    ex = provider()
    base = {"npi": NPI, "state_license_number": LICENSE, "extension_type": "supervised", "extension_days": 60}
    assert error(ex.call("submit_license_extension", base)) == "supervising_physician_required"
    assert error(ex.call("submit_license_extension", base | {"supervising_physician_npi": "1212121212"})) == (
        "supervising_physician_not_found"
    )
    done = ex.call("submit_license_extension", base | {"supervising_physician_npi": SUPERVISOR})
    assert done["case_id"] == "CASE-LIC-310442"
    lic = ex.db["providers"][NPI]["licenses"][LICENSE]
    assert (lic["extension_status"], lic["extension_days"], lic["supervising_physician_npi"]) == (
        "pending",
        60,
        SUPERVISOR,
    )
    assert error(ex.call("check_extension_eligibility", {"npi": NPI, "state_license_number": LICENSE})) == (
        "already_extended"
    )
    notice = {"npi": NPI, "case_id": done["case_id"], "notification_type": "license_extension_submitted"}
    for _ in range(2):
        assert ex.call("notify_credentialing_committee", notice)["status"] == "success"
    assert ex.db["notifications"] == [{"recipient": "credentialing_committee", **notice}]


def test_provisional_extension_drops_the_supervisor() -> None:
    ex = provider()
    args = {"npi": NPI, "state_license_number": LICENSE, "extension_type": "provisional", "extension_days": 30}
    assert ex.call("submit_license_extension", args | {"supervising_physician_npi": SUPERVISOR})["status"] == "success"
    assert "supervising_physician_npi" not in ex.db["providers"][NPI]["licenses"][LICENSE]


@pytest.mark.parametrize(("limit", "flag"), [(999_999, True), (1_000_000, False)])
def test_malpractice_limit_under_a_million_flags_recredentialing(limit: int, flag: bool) -> None:
    ex = provider()
    result = ex.call(
        "update_malpractice_coverage",
        {
            "npi": NPI,
            "new_carrier": "coverys",
            "new_policy_number": "POL-2030-AB12CD",
            "per_occurrence_limit_usd": limit,
            "aggregate_limit_usd": 3_000_000,
            "effective_date": "2030-04-01",
            "expiration_date": "2031-03-31",
        },
    )
    assert result["recredential_required"] is flag and result["new_carrier"] == "coverys"
    assert ex.db["providers"][NPI]["malpractice"]["update_case_id"] == "CASE-MAL-310442"


def test_dea_transfer_keeps_the_registration_until_effective() -> None:
    ex = provider(otp=True)
    result = ex.call(
        "transfer_dea_registration",
        {
            "npi": NPI,
            "dea_number": DEA,
            "new_facility_code": "ORM-03B",
            "new_state_code": "OR",
            "transfer_reason": "facility_relocation",
            "effective_date": "2030-04-01",
        },
    )
    assert (result["current_state_code"], result["new_state_code"]) == ("WA", "OR")
    dea = ex.db["providers"][NPI]["dea_registration"]
    assert dea["state_code"] == "WA" and dea["status"] == "transfer_pending"
    assert dea["pending_transfer"]["transfer_case_id"] == "CASE-DEA-310442"


def test_privilege_reactivation_needs_the_clearance_and_books_a_free_slot() -> None:
    ex = employee(otp=True)
    assert ex.call("get_privilege_record", {"npi": NPI})["privileges"]["privilege_list"][0]["code"] == "PRV-NEURO-001"
    assert error(ex.call("check_reactivation_eligibility", {"npi": NPI, "clearance_code": "CLR-OH-000000"})) == (
        "invalid_clearance_code"
    )
    eligible = ex.call("check_reactivation_eligibility", {"npi": NPI, "clearance_code": "CLR-OH-123456"})
    assert eligible["suspended_privilege_codes"] == ["PRV-NEURO-001"]
    review = {"npi": NPI, "department_code": "NEUROLOGY", "appointment_datetime": "2030-03-20 11:00"}
    assert error(ex.call("schedule_competency_review", review)) == "slot_not_available"
    booked = ex.call("schedule_competency_review", review | {"appointment_datetime": "2030-03-20 10:00"})
    assert booked["appointment_id"] == "CASE-CMP-310442"
    assert ex.db["appointment_availability"]["competency_review"]["NEUROLOGY"]["2030-03-20"] == []  # taken
    reactivate = {"npi": NPI, "clearance_code": "CLR-OH-123456", "leave_type_on_record": "medical_leave"}
    before = copy.deepcopy(ex.db)
    mixed = ex.call("reactivate_privileges", reactivate | {"privilege_codes": ["PRV-NEURO-001", "PRV-NEURO-009"]})
    assert error(mixed) == "privilege_not_found" and ex.db == before  # a failed call writes nothing
    assert ex.call("reactivate_privileges", reactivate | {"privilege_codes": ["PRV-NEURO-001"]})["case_id"] == (
        "CASE-PRV-310442"
    )
    assert ex.db["providers"][NPI]["privileges"]["privilege_list"][0]["status"] == "active"


# ---------------------------------------------------------------- employee workflows


def test_shift_swap_checks_ownership_and_the_colleagues_certifications() -> None:
    ex = employee()
    assert error(ex.call("get_shift_record", {"employee_id": COLLEAGUE, "shift_id": SHIFT})) == "shift_not_owned"
    eligible = ex.call("check_swap_eligibility", {"employee_id": EMP, "shift_id": SHIFT})
    assert eligible["required_cert_codes"] == ["ACLS", "BLS"] and eligible["unit_code"] == "7A-ICU"
    missing = ex.call("verify_colleague_certifications", {"colleague_employee_id": EMP, "unit_code": "7A-ICU"})
    assert error(missing) == "certification_missing" and missing["missing_certs"] == ["ACLS"]
    swap = {"employee_id": EMP, "shift_id": SHIFT, "colleague_employee_id": COLLEAGUE, "unit_code": "7A-ICU"}
    assert ex.call("confirm_shift_swap", swap)["case_id"] == "CASE-SWP-310442"
    assert ex.db["shifts"][SHIFT]["swapped_to_employee_id"] == COLLEAGUE
    assert error(ex.call("check_swap_eligibility", {"employee_id": EMP, "shift_id": SHIFT})) == "already_swapped"


def test_pto_counts_weekdays_less_holidays_and_refuses_blackouts() -> None:
    ex = employee()
    request = {"employee_id": EMP, "pto_type": "pto", "start_date": "2030-03-11", "end_date": "2030-03-17"}
    ex.db["employees"][EMP]["pto_balances"]["pto"] = 3.0
    blocked = ex.call("check_pto_eligibility", request)  # Mon-Fri less Wednesday's holiday: 4 days
    assert error(blocked) == "insufficient_pto_balance" and blocked["pto_days_required"] == 4.0
    ex.db["employees"][EMP]["pto_balances"]["pto"] = 6.0
    blocked = ex.call("check_pto_eligibility", request)
    assert error(blocked) == "blackout_date_conflict" and blocked["conflicting_dates"] == ["2030-03-15"]
    week = request | {"start_date": "2030-03-18", "end_date": "2030-03-24"}
    ok = ex.call("check_pto_eligibility", week)
    assert ok["working_days_in_range"] == ["2030-03-18", "2030-03-19", "2030-03-20", "2030-03-21", "2030-03-22"]
    submitted = ex.call("submit_pto_request", week)
    assert submitted["case_id"] == "CASE-PTO-310442" and submitted["remaining_balance"] == 1.0
    assert ex.db["employees"][EMP]["pto_balances"]["pto"] == 1.0
    assert error(ex.call("check_pto_eligibility", week | {"pto_type": "sick"})) == "insufficient_pto_balance"


def test_shift_workers_pto_counts_their_scheduled_shifts() -> None:
    ex = ToolExecutor(REGISTRY, db())
    ex.db["session"]["employee_auth"] = True
    request = {"employee_id": COLLEAGUE, "pto_type": "sick", "start_date": "2030-03-11", "end_date": "2030-03-17"}
    assert ex.call("check_pto_eligibility", request)["working_days_in_range"] == ["2030-03-12", "2030-03-14"]


def test_fmla_case_and_return_to_work_not_before_the_leave_ends() -> None:
    ex = employee(otp=True)
    assert ex.call("check_leave_eligibility", {"employee_id": EMP})["fmla_weeks_remaining"] == 12
    case = ex.call(
        "submit_fmla_case",
        {
            "employee_id": EMP,
            "leave_category": "bonding",
            "leave_start_date": "2030-03-25",
            "leave_end_date": "2030-04-15",
        },
    )["case_id"]
    assert case == "CASE-FMLA-310442"
    checkin = {"employee_id": EMP, "case_id": case, "department_code": "NEUROLOGY"}
    early = ex.call("schedule_return_to_work_checkin", checkin | {"appointment_datetime": "2030-04-14 09:00"})
    assert error(early) == "appointment_before_leave_end"
    assert ex.call("schedule_return_to_work_checkin", checkin | {"appointment_datetime": "2030-04-15 13:30"})[
        "appointment_id"
    ] == ("CASE-RTW-310442")
    ex.db["employees"][EMP]["fmla_eligibility"] = {"eligible": False, "months_employed": 5, "reason": "too new"}
    refused = ex.call("check_leave_eligibility", {"employee_id": EMP})
    assert error(refused) == "not_eligible" and refused["months_employed"] == 5 and refused["message"] == "too new"


def test_oncall_refuses_staff_on_leave_and_blackouts_outside_the_window() -> None:
    ex = employee()
    ex.db["session"]["employee_auth"] = True
    leave = ex.call("check_oncall_eligibility", {"employee_id": COLLEAGUE, "unit_code": "7A-ICU"})
    assert error(leave) == "employee_on_leave"
    window = {
        "employee_id": EMP,
        "unit_code": "6C-NEURO",
        "availability_start_date": "2030-04-01",
        "availability_end_date": "2030-04-30",
        "oncall_tier": "backup",
    }
    assert error(ex.call("register_oncall_availability", window | {"blackout_dates": ["2030-05-01"]})) == (
        "invalid_blackout_date"
    )
    done = ex.call("register_oncall_availability", window | {"blackout_dates": ["2030-04-10"]})
    assert done["registration_id"] == "CASE-ONC-310442"
    assert ex.db["employees"][EMP]["oncall_schedule"]["registrations"][0]["status"] == "registered"


def test_onboarding_visa_and_i9_writes() -> None:
    ex = employee(otp=True)
    task = {"employee_id": EMP, "task_code": "TB_TEST"}
    assert error(ex.call("complete_onboarding_task", task | {"completion_code": "ZZZZ"})) == "invalid_completion_code"
    assert ex.call("complete_onboarding_task", task | {"completion_code": "k7q2"})["remaining_tasks"] == []
    dependent = {
        "employee_id": EMP,
        "visa_petition_number": PETITION,
        "dependent_first_name": "Ines",
        "dependent_last_name": "Marchetti",
        "relationship": "child",
        "dependent_date_of_birth": "2029-12-01",
        "dependent_country_of_birth": "IT",
        "uscis_receipt_number": "IOE3012345678",
    }
    assert ex.call("add_visa_dependent", dependent)["amendment_id"] == "CASE-VISA-310442"
    assert ex.db["employees"][EMP]["visa_record"]["dependents"][0]["status"] == "pending"
    assert error(ex.call("get_i9_record", {"employee_id": EMP})) == "i9_record_not_found"
    i9 = {
        "employee_id": EMP,
        "verification_action": "initial_verification",
        "document_list_type": "LIST_A",
        "document_type_code": "US_PASSPORT",
        "document_number": "X1234567",
        "document_expiration_date": "2035-01-01",
        "issuing_country_code": "US",
    }
    assert ex.call("submit_i9_verification", i9)["case_id"] == "CASE-I9V-310442"
    assert ex.db["employees"][EMP]["i9_record"]["verification_status"] == "verified"


def test_transfers_are_numbered_per_call() -> None:
    ex = ToolExecutor(REGISTRY, db())
    args = {"employee_id": EMP, "transfer_reason": "caller_requested", "issue_summary": "wants a person"}
    assert [ex.call("transfer_to_agent", args)["transfer_id"] for _ in range(2)] == [
        "TRF-EMP310442-001",
        "TRF-EMP310442-002",
    ]
