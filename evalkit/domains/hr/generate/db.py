"""The initial DB of one scenario in EVA-Bench's medical_hr layout (``build_db``): the caller's complete footprint
(employee record with its own per-record tables, provider credentials, shifts) plus colleagues, a supervising
physician, appointment slots, unit certification requirements, blackouts and holidays."""

from __future__ import annotations

from typing import Any

from evalkit.domains.hr.generate.entities import day
from evalkit.domains.hr.generate.tables import DEPARTMENTS, HOLIDAYS, TASKS, TODAY
from evalkit.domains.hr.workflows.steps import shift_id

OTHER_UNIT = ("7A-MED", ["BLS"])  # where standard-schedule staff would take on-call


def _employee(
    employee_id: str,
    first: str,
    last: str,
    birth: str,
    department: str,
    unit: str | None,
    certifications: list[str],
    **fields: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "employee_id": employee_id,
        "first_name": first,
        "last_name": last,
        "date_of_birth": birth,
        "phone_last_four": fields.pop("phone_last_four", "2291"),
        "otp_code": fields.pop("otp_code", "550913"),
        "department_code": department,
        "role_code": fields.pop("role_code", "RN"),
        "unit_code": unit,
        "hire_date": fields.pop("hire_date", "2019-03-11"),
        "employment_status": "active",
        "schedule_type": fields.pop("schedule_type", "shift"),
        "certifications": certifications,
        "fmla_eligibility": {
            "eligible": True,
            "months_employed": 88,
            "hours_worked_past_year": 1980,
            "fmla_weeks_remaining": 12,
            "reason": None,
        },
        "onboarding_checklist": {"tasks": {}},
        "oncall_schedule": {"registrations": []},
        "scheduled_appointments": [],
        "i9_record": None,
        "visa_record": None,
        "leave_records": [],
        "pto_balances": {"pto": 12.0, "sick": 6.0},
        "pto_requests": [],
    }
    record.update(fields)
    return record


def _provider(npi: str, employee: dict[str, Any], facility: str, pin: str, **fields: Any) -> dict[str, Any]:
    return {
        "npi": npi,
        "employee_id": employee["employee_id"],
        "first_name": employee["first_name"],
        "last_name": employee["last_name"],
        "facility_code": facility,
        "pin": pin,
        "phone_last_four": employee["phone_last_four"],
        "otp_code": employee["otp_code"],
        "role_code": employee["role_code"],
        "department_code": employee["department_code"],
        "hire_date": employee["hire_date"],
        "ehr_access_status": "active",
        "ehr_access_case_id": None,
        "clearance_code": None,
        "licenses": {},
        "malpractice": None,
        "dea_registration": None,
        "privileges": {"privilege_list": [], "reactivation_case_id": None},
        "scheduled_appointments": [],
        **fields,
    }


def _shift(owner: str, unit: str, offset: int, start: str, **fields: Any) -> dict[str, Any]:
    """A shift of ``owner``: past ones are logged in a pay period, future ones scheduled."""
    date = day(offset)
    past = offset < 0
    end = "19:00" if start == "07:00" else "07:00"
    return {
        "shift_id": shift_id(date, start),
        "employee_id": owner,
        "unit_code": unit,
        "date": date,
        "start_time": start,
        "end_time": end,
        "hours_scheduled": 12.0,
        "hours_logged": 12.0 if past else None,
        "on_call": False,
        "on_call_tier": None,
        "status": "logged" if past else "scheduled",
        "swap_locked": offset == 0,
        "pay_period_closed": False,
        "corrected_hours": None,
        "correction_type": None,
        "correction_case_id": None,
        "correction_status": None,
        "pay_period_end_date": day(fields.pop("period_end", 8)) if past else None,
        "swapped_to_employee_id": None,
        "swap_confirmation_id": None,
        **fields,
    }


def build_db(p: dict[str, Any], workflows: tuple[str, ...]) -> dict[str, Any]:
    emp = p["employee_id"]
    department = p["department"]
    unit, unit_certs = DEPARTMENTS.get(department, OTHER_UNIT)
    certs = ["BLS"] if p.get("lapsed") else list(unit_certs)
    caller = _employee(
        emp,
        p["first_name"],
        p["last_name"],
        p["date_of_birth"],
        department,
        unit if p["clinical"] else None,
        certs,
        phone_last_four=p["phone_last_four"],
        otp_code=p["otp_code"],
        role_code=p["role_code"] if p["provider"] else ("RN" if p["clinical"] else "ADMIN"),
        hire_date=p["hire_date"],
        schedule_type="shift" if p["clinical"] else "standard",
        pto_balances={"pto": p["pto_days"], "sick": p["sick_days"]},
        fmla_eligibility={
            "eligible": "fmla_refusal" not in p,
            "months_employed": p["months_employed"],
            "hours_worked_past_year": p["hours_worked_past_year"],
            "fmla_weeks_remaining": p["fmla_weeks_remaining"],
            "reason": p.get("fmla_refusal"),
        },
    )
    pending = [*[t for t in TASKS if t != p["task"]][:3], p["task"]]
    caller["onboarding_checklist"] = {
        "tasks": {
            t: {
                "status": "pending" if t in pending[-2:] else "complete",
                "completion_code": p["completion_code"] if t == p["task"] else f"{t[0]}{i}Z{i + 2}",
            }
            for i, t in enumerate(pending)
        }
    }
    reverifying = p["verification_type"] == "reverification"
    caller["i9_record"] = {
        "verification_action": "initial_verification" if reverifying else None,
        "document_list_type": "LIST_A" if reverifying else None,
        "document_type_code": "EAD" if reverifying else None,
        "document_number": ("E" + emp[-8:]) if reverifying else None,
        "document_expiration_date": day(20) if reverifying else None,
        "issuing_country_code": "US" if reverifying else None,
        "verification_status": "expiring" if reverifying else "pending",
        "case_id": None,
    }
    caller["visa_record"] = {
        "petition_number": p["petition_number"],
        "visa_type": "H-1B",
        "status": "approved",
        "dependents": [],
        "amendment_id": None,
    }
    colleague = _employee(
        p["colleague_id"],
        p["colleague_first"],
        "Okafor",
        "1988-05-09",
        department,
        unit,
        ["BLS"] if p.get("colleague_uncertified") else list(unit_certs),
    )
    other = _employee(
        p["other_id"], "Gideon", "Marchetti", "1979-11-23", department, unit, list(unit_certs), phone_last_four="7710"
    )
    supervisor = _employee(
        p["supervisor_id"],
        "Evelyn",
        "Achterberg",
        "1969-04-30",
        department,
        unit,
        list(unit_certs),
        role_code="MD",
        hire_date="2008-01-14",
        phone_last_four="5532",
    )
    employees = {e["employee_id"]: e for e in (caller, colleague, other, supervisor)}
    providers = {p["supervisor_npi"]: _provider(p["supervisor_npi"], supervisor, p["facility_code"], "7391")}
    if p["provider"]:
        suspended = "privilege_reactivation" in workflows
        expiring = "license_extension" in workflows
        providers[p["npi"]] = _provider(
            p["npi"],
            caller,
            p["facility_code"],
            p["pin"],
            ehr_access_status="suspended" if suspended else "active",
            clearance_code=p["clearance_code"] if suspended else None,
            licenses={
                p["license_number"]: {
                    "state_license_number": p["license_number"],
                    "license_type": p["role_code"],
                    "state_code": p["license_state"],
                    "expiration_date": day(p["license_expires_in"] if expiring else 400),
                    "status": "active",
                    "investigation_hold": False,
                    "extension_status": None,
                    "extension_type": None,
                    "extension_days": None,
                    "supervising_physician_npi": None,
                    "extension_case_id": None,
                }
            },
            malpractice={
                "carrier": "coverys" if p["carrier"] != "coverys" else "cna",
                "policy_number": p["policy_number"],
                "per_occurrence_limit_usd": 1_000_000,
                "aggregate_limit_usd": 3_000_000,
                "effective_date": day(-340),
                "expiration_date": day(25),
                "recredential_required": False,
                "update_case_id": None,
            },
            dea_registration={
                "dea_number": p["dea_number"],
                "facility_code": p["facility_code"],
                "state_code": p["license_state"],
                "schedule_codes": ["CII", "CIII", "CIV", "CV"],
                "expiration_date": day(500),
                "status": "active",
                "transfer_reason": None,
                "transfer_case_id": None,
            },
            privileges={
                "privilege_list": [
                    {"code": code, "description": name, "status": "suspended" if suspended else "active"}
                    for code, name in p["privileges"]
                ],
                "reactivation_case_id": None,
            },
        )
    shifts: dict[str, dict[str, Any]] = {}
    if p["clinical"]:
        for offset in p["shift_offsets"]:
            shifts[shift_id(day(offset), "07:00")] = _shift(emp, unit, offset, "07:00")
        closed = {"period_end": -5, "pay_period_closed": True} if p.get("period_closed") else {}
        for offset in p["past_shift_offsets"]:
            shift = _shift(emp, unit, offset, "07:00", **(closed if offset == p["correction_offset"] else {}))
            shifts[shift["shift_id"]] = shift
        for offset in (1, 5):  # the colleague works other days (nights), so the swap does not clash
            other_day = next(o for o in range(offset, 60) if o not in p["shift_offsets"])
            shift = _shift(p["colleague_id"], unit, other_day, "19:00")
            shifts[shift["shift_id"]] = shift
        # a colleague's logged night shift: what a caller correcting someone else's hours names
        shift = _shift(p["other_id"], unit, p["correction_offset"], "19:00")
        shifts[shift["shift_id"]] = shift
    availability: dict[str, dict[str, dict[str, list[str]]]] = {}
    for kind, offset in (
        ("orientation_followup", p["orientation_offset"]),
        ("return_to_work_checkin", p["return_offset"]),
        ("competency_review", p["review_offset"]),
    ):
        availability[kind] = {department: {day(offset): list(p["times"]), day(offset + 7): ["09:00", "14:00"]}}
    return {
        "_current_date": TODAY.isoformat(),
        "employees": employees,
        "providers": providers,
        "shifts": shifts,
        "appointment_availability": availability,
        "department_blackout_dates": {department: ["2026-12-24", "2026-12-31"]},
        "unit_cert_requirements": {unit: list(unit_certs)},
        "notifications": [],
        "org_holidays": list(HOLIDAYS),
    }
