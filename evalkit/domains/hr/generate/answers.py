"""What the caller says: each workflow's slot answers (``answers_for``) and the slots that are key entities."""

from __future__ import annotations

from typing import Any

from evalkit.domains.hr.generate.db import OTHER_UNIT
from evalkit.domains.hr.generate.entities import day, money, spoken_date, spoken_full_date, spoken_time
from evalkit.domains.hr.generate.tables import (
    CARRIERS,
    COUNTRY_NAMES,
    DEPARTMENTS,
    DOCUMENTS,
    STATE_NAMES,
    TASK_SPOKEN,
)


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
                "state_license_number": p["license_number"],
                "extension_type": p["extension_type"],
                "extension_days": f"{p['duration_days']} days",
            }
            if p["extension_type"] == "supervised":
                a["supervising_physician_npi"] = p.get("supervisor_npi_spoken", p["supervisor_npi"])
            return a
        case "shift_swap":
            return {
                **employee,
                "shift_date": spoken_date(day(p["swap_offset"])),
                "shift_start_time": spoken_time("07:00"),
                "colleague_employee_id": p["colleague_id"],
            }
        case "malpractice_update":
            return {
                **provider,
                "new_carrier": CARRIERS[p["carrier"]],
                "new_policy_number": p["new_policy_number"],
                "per_occurrence_limit_usd": money(p["per_occurrence"]),
                "aggregate_limit_usd": money(p["aggregate"]),
                "malpractice_effective_date": spoken_date(p["coverage_effective"]),
                "malpractice_expiration_date": spoken_full_date(p["coverage_expiration"]),
            }
        case "onboarding_task":
            return {
                **employee,
                "completion_codes": f"{TASK_SPOKEN[p['task']]} with code {p['completion_code']}",
                "preferred_date": spoken_date(day(p["orientation_offset"])),
                "preferred_time": time,
            }
        case "dea_transfer":
            return {
                **provider,
                **otp,
                "dea_number": p["dea_number"],
                "new_facility_code": p["new_facility_code"],
                "new_state_code": STATE_NAMES[p["new_state"]],
                "transfer_reason": p["transfer_reason"].replace("_", " "),
                "dea_transfer_effective_date": spoken_date(day(p["dea_effective_offset"])),
            }
        case "fmla_leave":
            return {
                **employee,
                **otp,
                "leave_category": p["leave_category"].replace("_", " "),
                "leave_start_date": spoken_date(day(p["leave_start_offset"])),
                "leave_end_date": spoken_date(day(p["leave_end_offset"])),
                "preferred_date": spoken_date(day(p["return_offset"])),
                "preferred_time": time,
            }
        case "payroll_correction":
            owner_time = "19:00" if p.get("spoken_shift_owner") == "other" else "07:00"
            return {
                **employee,
                "payroll_shift_date": spoken_date(day(p["correction_offset"])),
                "payroll_shift_start_time": spoken_time(owner_time),
                "correction_type": p["correction_type"].replace("_", " "),
                "corrected_hours": f"{p['corrected_hours']:g} hours",
            }
        case "privilege_reactivation":
            return {
                **employee,
                **otp,
                "npi": p["npi"],
                "clearance_code": p["clearance_code"],
                "leave_type_on_record": p["leave_type"].replace("_", " "),
                "preferred_date": spoken_date(day(p["review_offset"])),
                "preferred_time": time,
                "privilege_codes": " and ".join(p["reactivate"]),
                "access_change_type": p["ehr_access"].replace("reactivate_", "") + " access",
            }
        case "oncall_registration":
            unit = DEPARTMENTS.get(p["department"], OTHER_UNIT)[0]
            a = {
                **employee,
                "unit_code": unit,
                "availability_start_date": spoken_date(day(p["oncall_start_offset"])),
                "availability_end_date": spoken_date(day(p["oncall_end_offset"])),
                "oncall_tier": p["oncall_role"],
                "blackout_dates": spoken_date(day(p["blackout_offset"])) if p["blackout_offset"] else "none",
            }
            return a
        case "i9_verification":
            return {
                **employee,
                "verification_action": p["verification_type"].replace("_", " "),
                "document_list_type": "List A",
                "document_type_code": DOCUMENTS[p["document_type"]],
                "document_number": p["document_number"],
                "document_expiration_date": spoken_full_date(p["document_expiration"]),
                "issuing_country_code": "the United States",
            }
        case "visa_dependent":
            return {
                **employee,
                **otp,
                "visa_petition_number": p["petition_number"],
                "dependent_first_name": p["dependent_first"],
                "dependent_last_name": p["last_name"],
                "relationship": p["relationship"].replace("_", " "),
                "dependent_date_of_birth": spoken_full_date(p["dependent_dob"]),
                "dependent_country_of_birth": COUNTRY_NAMES[p["dependent_country"]],
                "uscis_receipt_number": p["uscis_receipt"],
            }
        case "pto_request":
            return {
                **employee,
                "pto_start_date": spoken_date(day(p["pto_start_offset"])),
                "pto_end_date": spoken_date(day(p["pto_end_offset"])),
                "pto_type": "general PTO" if p["pto_type"] == "pto" else "sick leave",
            }
    raise ValueError(f"unknown workflow {workflow!r}")


KEY_SLOTS = (
    "employee_id",
    "npi",
    "facility_code",
    "otp_code",
    "state_license_number",
    "supervising_physician_npi",
    "colleague_employee_id",
    "new_policy_number",
    "dea_number",
    "new_facility_code",
    "clearance_code",
    "document_number",
    "visa_petition_number",
    "uscis_receipt_number",
    "dependent_first_name",
)
