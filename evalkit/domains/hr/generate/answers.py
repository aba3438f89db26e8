"""What the caller says: each workflow's slot answers (``answers_for``) and the slots that are key entities."""

from __future__ import annotations

from typing import Any

from evalkit.domains.hr.generate.entities import day, money, spoken_date, spoken_full_date, spoken_time
from evalkit.domains.hr.generate.tables import CARRIERS, COUNTRY_NAMES, STATE_NAMES, TASK_SPOKEN


def answers_for(workflow: str, p: dict[str, Any]) -> dict[str, str]:
    """Slot name -> the caller's words for one workflow (identity slots repeat across workflows on purpose)."""
    employee = {"employee_id": p["employee_id"], "date_of_birth": spoken_full_date(p["date_of_birth"])}
    provider = {"npi": p["npi"], "facility_code": p["facility_code"], "pin": p["pin"]}
    otp = {"otp_code": p.get("spoken_otp", p["otp_code"])}
    time = spoken_time(p["time_choice"])
    match workflow:
        case "license_extension":
            a = {
                **provider,
                "license_number": p["license_number"],
                "extension_type": p["extension_type"],
                "duration_days": f"{p['duration_days']} days",
            }
            if p["extension_type"] == "supervised":
                a["supervising_npi"] = p.get("supervisor_npi_spoken", p["supervisor_npi"])
            return a
        case "shift_swap":
            return {**employee, "shift_id": p["shift_ids"][1], "colleague_employee_id": p["colleague_id"]}
        case "malpractice_update":
            return {
                **provider,
                "carrier": CARRIERS[p["carrier"]],
                "new_policy_number": p["new_policy_number"],
                "per_occurrence_limit": money(p["per_occurrence"]),
                "aggregate_limit": money(p["aggregate"]),
                "coverage_effective_date": spoken_date(p["coverage_effective"]),
            }
        case "onboarding_task":
            return {
                **employee,
                "task_id": TASK_SPOKEN[p["task"]],
                "completion_code": p["completion_code"],
                "orientation_date": spoken_date(day(p["orientation_offset"])),
                "orientation_time": time,
            }
        case "dea_transfer":
            return {
                **provider,
                **otp,
                "dea_number": p["dea_number"],
                "new_facility_code": p["new_facility_code"],
                "new_state": STATE_NAMES[p["new_state"]],
            }
        case "fmla_leave":
            return {
                **employee,
                **otp,
                "leave_category": p["leave_category"].replace("_", " "),
                "leave_start_date": spoken_date(day(p["leave_start_offset"])),
                "leave_end_date": spoken_date(day(p["leave_end_offset"])),
                "return_date": spoken_date(day(p["return_offset"])),
                "return_time": time,
            }
        case "payroll_correction":
            return {
                **employee,
                "timesheet_id": p.get("spoken_timesheet", p["timesheet_id"]),
                "shift_date": spoken_date(p["correction_day"]),
                "correction_type": p["correction_type"].replace("_", " "),
                "corrected_hours": f"{p['corrected_hours']:g} hours",
            }
        case "privilege_reactivation":
            return {
                **employee,
                **otp,
                "npi": p["npi"],
                "clearance_code": p["clearance_code"],
                "leave_type": p["leave_type"],
                "review_date": spoken_date(day(p["review_offset"])),
                "review_time": time,
                "privileges": " and ".join(p["reactivate"]),
                "ehr_access": p["ehr_access"],
            }
        case "oncall_registration":
            a = {
                **employee,
                "oncall_start_date": spoken_date(day(p["oncall_start_offset"])),
                "oncall_end_date": spoken_date(day(p["oncall_end_offset"])),
                "oncall_role": p["oncall_role"],
                "has_blackout": "yes" if p["blackout_offset"] else "no",
            }
            if p["blackout_offset"]:
                a["blackout_date"] = spoken_date(day(p["blackout_offset"]))
            return a
        case "i9_verification":
            return {
                **employee,
                "verification_type": p["verification_type"],
                "document_list": "List A",
                "document_type": p["document_type"].replace("_", " "),
                "document_number": p["document_number"],
                "document_expiration": spoken_full_date(p["document_expiration"]),
                "country_of_issue": "the United States"
                if p["country_of_issue"] == "US"
                else COUNTRY_NAMES[p["country_of_issue"]],
            }
        case "visa_dependent":
            return {
                **employee,
                **otp,
                "petition_number": p["petition_number"],
                "dependent_first_name": p["dependent_first"],
                "dependent_last_name": p["last_name"],
                "relationship": p["relationship"].replace("_", " "),
                "dependent_date_of_birth": spoken_full_date(p["dependent_dob"]),
                "country_of_birth": COUNTRY_NAMES[p["dependent_country"]],
                "uscis_receipt_number": p["uscis_receipt"],
            }
        case "pto_request":
            return {
                **employee,
                "pto_start_date": spoken_date(day(p["pto_start_offset"])),
                "pto_end_date": spoken_date(day(p["pto_end_offset"])),
                "pto_type": "general PTO" if p["pto_type"] == "general_pto" else "sick leave",
            }
    raise ValueError(f"unknown workflow {workflow!r}")


KEY_SLOTS = (
    "employee_id",
    "npi",
    "facility_code",
    "otp_code",
    "license_number",
    "supervising_npi",
    "shift_id",
    "colleague_employee_id",
    "new_policy_number",
    "completion_code",
    "dea_number",
    "new_facility_code",
    "timesheet_id",
    "clearance_code",
    "document_number",
    "petition_number",
    "uscis_receipt_number",
    "dependent_first_name",
)
