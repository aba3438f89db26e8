"""The initial HR DB of one scenario: the caller's complete footprint plus colleagues (``build_db``)."""

from __future__ import annotations

from typing import Any

from evalkit.domains.hr.generate.entities import day
from evalkit.domains.hr.generate.tables import DEPARTMENTS, HOLIDAYS, SPECIALTIES, TASK_SPOKEN, TASKS, TODAY


def build_db(p: dict[str, Any], workflows: tuple[str, ...]) -> dict[str, Any]:
    emp = p["employee_id"]
    department = p["department"]
    unit, unit_certs = DEPARTMENTS.get(department, ("ADMIN-1", ["BLS"]))
    certs = ["BLS"] if p.get("lapsed") else list(unit_certs)
    employees = {
        emp: {
            "employee_id": emp,
            "first_name": p["first_name"],
            "last_name": p["last_name"],
            "date_of_birth": p["date_of_birth"],
            "department_code": department,
            "role": (p["provider_type"] if p["provider"] else "registered_nurse") if p["clinical"] else "specialist",
            "unit_code": unit if p["clinical"] else None,
            "hire_date": p["hire_date"],
            "employment_status": "active",
            "schedule_type": "shift" if p["clinical"] else "standard",
            "phone_last_four": p["phone_last_four"],
            "months_employed": p["months_employed"],
            "hours_worked_past_year": p["hours_worked_past_year"],
            "fmla_weeks_remaining": p["fmla_weeks_remaining"],
            "certifications": certs,
        },
        p["colleague_id"]: {
            "employee_id": p["colleague_id"],
            "first_name": p["colleague_first"],
            "last_name": "Okafor",
            "date_of_birth": "1988-05-09",
            "department_code": department,
            "role": "registered_nurse",
            "unit_code": unit,
            "hire_date": "2019-03-11",
            "employment_status": "active",
            "schedule_type": "shift",
            "phone_last_four": "2291",
            "months_employed": 88,
            "hours_worked_past_year": 1980,
            "fmla_weeks_remaining": 12,
            "certifications": ["BLS"] if p.get("colleague_uncertified") else list(unit_certs),
        },
        p["other_id"]: {
            "employee_id": p["other_id"],
            "first_name": "Gideon",
            "last_name": "Marchetti",
            "date_of_birth": "1979-11-23",
            "department_code": department,
            "role": "registered_nurse",
            "unit_code": unit,
            "hire_date": "2015-08-03",
            "employment_status": "active",
            "schedule_type": "shift",
            "phone_last_four": "7710",
            "months_employed": 131,
            "hours_worked_past_year": 2010,
            "fmla_weeks_remaining": 12,
            "certifications": list(unit_certs),
        },
        p["supervisor_id"]: {
            "employee_id": p["supervisor_id"],
            "first_name": "Evelyn",
            "last_name": "Achterberg",
            "date_of_birth": "1969-04-30",
            "department_code": department,
            "role": "physician",
            "unit_code": unit,
            "hire_date": "2008-01-14",
            "employment_status": "active",
            "schedule_type": "shift",
            "phone_last_four": "5532",
            "months_employed": 222,
            "hours_worked_past_year": 2150,
            "fmla_weeks_remaining": 12,
            "certifications": list(unit_certs),
        },
    }
    suspended = "privilege_reactivation" in workflows
    providers = {
        p["supervisor_npi"]: {
            "npi": p["supervisor_npi"],
            "employee_id": p["supervisor_id"],
            "provider_type": "physician",
            "specialty": SPECIALTIES.get(department, "internal medicine"),
            "facility_code": p["facility_code"],
            "pin": "7391",
            "status": "active",
            "privileges": [],
            "ehr_access": "full",
        }
    }
    facilities = {
        p["facility_code"]: {"facility_code": p["facility_code"], "state": p["license_state"]},
        p["new_facility_code"]: {"facility_code": p["new_facility_code"], "state": p["new_state"]},
    }
    licenses: dict[str, Any] = {}
    malpractice: dict[str, Any] = {}
    dea: dict[str, Any] = {}
    if p["provider"]:
        providers[p["npi"]] = {
            "npi": p["npi"],
            "employee_id": emp,
            "provider_type": p["provider_type"],
            "specialty": SPECIALTIES.get(department, "internal medicine"),
            "facility_code": p["facility_code"],
            "pin": p["pin"],
            "status": "active",
            "privileges": [{"name": n, "status": "suspended" if suspended else "active"} for n in p["privileges"]],
            "ehr_access": "suspended" if suspended else "full",
            "clearance_code": p["clearance_code"] if suspended else None,
            "leave_type": p["leave_type"] if suspended else None,
            "competency_review": None,
        }
        expiring = "license_extension" in workflows
        licenses[p["license_number"]] = {
            "license_number": p["license_number"],
            "npi": p["npi"],
            "state": p["license_state"],
            "license_type": "medical" if p["provider_type"] == "physician" else "advanced_practice_nursing",
            "expiration_date": day(p["license_expires_in"] if expiring else 400),
            "status": "active",
            "extension": None,
        }
        malpractice[p["npi"]] = {
            "npi": p["npi"],
            "carrier": "medpro" if p["carrier"] != "medpro" else "coverys",
            "policy_number": p["policy_number"],
            "per_occurrence_limit": 1_000_000,
            "aggregate_limit": 3_000_000,
            "effective_date": day(-340),
            "recredentialing_case": None,
        }
        dea[p["dea_number"]] = {
            "dea_number": p["dea_number"],
            "npi": p["npi"],
            "state": p["license_state"],
            "facility_code": p["facility_code"],
            "schedules": ["2", "2N", "3", "3N", "4", "5"],
            "expiration_date": day(500),
            "status": "active",
        }
    shifts = {}
    if p["clinical"]:
        for offset, shift_id in zip(p["shift_offsets"], p["shift_ids"], strict=True):
            shifts[shift_id] = {
                "shift_id": shift_id,
                "employee_id": emp,
                "unit_code": unit,
                "date": day(offset),
                "start_time": "07:00",
                "end_time": "19:00",
            }
        for offset in (1, 5):  # the colleague works other days, so the swap does not clash
            other_day = next(o for o in range(offset, 60) if o not in p["shift_offsets"])
            shift_id = f"SH{900000 + other_day}"
            shifts[shift_id] = {
                "shift_id": shift_id,
                "employee_id": p["colleague_id"],
                "unit_code": unit,
                "date": day(other_day),
                "start_time": "19:00",
                "end_time": "07:00",
            }
    period = (-26, -13) if p.get("period_closed") else (-12, 1)
    entries = [
        {"date": day(o), "regular_hours": 12.0, "overtime_hours": 0.0, "oncall_hours": 0.0, "differential_hours": 0.0}
        for o in range(period[0] + 1, period[1], 3)
    ]
    p["correction_day"] = entries[1]["date"]
    timesheets = {
        p["timesheet_id"]: {
            "timesheet_id": p["timesheet_id"],
            "employee_id": emp,
            "pay_period_start": day(period[0]),
            "pay_period_end": day(period[1]),
            "entries": entries,
        },
        p["other_timesheet_id"]: {
            "timesheet_id": p["other_timesheet_id"],
            "employee_id": p["other_id"],
            "pay_period_start": day(-12),
            "pay_period_end": day(1),
            "entries": [dict(e) for e in entries],
        },
    }
    pending = [*[t for t in TASKS if t != p["task"]][:3], p["task"]]
    onboarding = {
        emp: [
            {
                "task_id": t,
                "name": TASK_SPOKEN[t],
                "status": "pending" if t in pending[-2:] else "completed",
                "completion_code": p["completion_code"] if t == p["task"] else f"{t[0].upper()}{i}Z{i + 2}",
            }
            for i, t in enumerate(pending)
        ]
    }
    i9 = {}
    if p["verification_type"] == "reverification":
        i9[emp] = {
            "verification_id": "I9V00" + emp[-4:],
            "verification_type": "initial",
            "document_list": "list_a",
            "document_type": "employment_authorization_document",
            "document_number": "E" + emp[-8:],
            "expiration_date": day(20),
            "country_of_issue": "US",
            "status": "expiring",
        }
    slots: dict[str, dict[str, dict[str, list[str]]]] = {department: {}}
    for kind, offset in (
        ("orientation_followup", p["orientation_offset"]),
        ("return_to_work_checkin", p["return_offset"]),
        ("competency_review", p["review_offset"]),
    ):
        slots[department][kind] = {day(offset): list(p["times"]), day(offset + 7): ["09:00", "14:00"]}
    return {
        "meta": {"today": TODAY.isoformat(), "organization": "Mercy Lakes Health System"},
        "employees": employees,
        "providers": providers,
        "facilities": facilities,
        "licenses": licenses,
        "license_extensions": {},
        "malpractice": malpractice,
        "recredentialing_cases": {},
        "dea_registrations": dea,
        "dea_transfers": {},
        "units": {unit: {"unit_code": unit, "required_certifications": unit_certs}},
        "shifts": shifts,
        "shift_swaps": {},
        "timesheets": timesheets,
        "payroll_corrections": {},
        "onboarding": onboarding,
        "appointment_slots": slots,
        "appointments": {},
        "fmla_cases": {},
        "oncall": {emp: {"unit_code": unit, "registrations": []}} if p["clinical"] else {},
        "i9_records": i9,
        "i9_verifications": {},
        "visa_records": {
            p["petition_number"]: {
                "petition_number": p["petition_number"],
                "employee_id": emp,
                "visa_type": "H-1B",
                "status": "approved",
                "dependents": [],
            }
        },
        "pto_balances": {emp: {"pto_days": p["pto_days"], "sick_days": p["sick_days"]}},
        "pto_requests": {},
        "holidays": HOLIDAYS,
        "department_blackouts": {department: [{"start": "2026-12-18", "end": "2027-01-02"}]},
        "otp": {emp: {"code": p["otp_code"], "sent": False}},
        "notifications": [],
        "transfers": [],
        "session": {},
    }
