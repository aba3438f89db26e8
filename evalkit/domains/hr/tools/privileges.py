"""Clinical privileges after leave (eligibility, the competency review, reactivation) and EHR access."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import field_validator

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    _DateArgs,
    _require_otp,
    _require_own_provider,
)
from evalkit.domains.hr.tools.scheduling import TimeField, _book

# ---------------------------------------------------------------- privileges


class ReactivationArgs(ToolArgs):
    employee_id: Code
    npi: str
    clearance_code: Code
    leave_type: Literal["medical", "parental", "personal", "military", "administrative"]


def reactivation_eligibility(db: dict[str, Any], args: ReactivationArgs) -> tuple[bool, str]:
    provider = _require_own_provider(db, args.npi)
    if provider["employee_id"] != args.employee_id:
        return False, "the NPI does not belong to this employee"
    if not any(p["status"] == "suspended" for p in provider["privileges"]):
        return False, "no privileges are suspended"
    if provider.get("clearance_code") != args.clearance_code:
        return False, "the occupational health clearance code is not valid"
    if provider.get("leave_type") != args.leave_type:
        return False, "the leave type does not match the leave on record"
    return True, "eligible"


@REGISTRY.tool(ReactivationArgs, writes=False)
def check_reactivation_eligibility(db: dict[str, Any], args: ReactivationArgs) -> dict[str, Any]:
    """Whether suspended privileges may be reactivated (valid clearance code, leave on record)."""
    _require_otp(db, args.employee_id)
    eligible, reason = reactivation_eligibility(db, args)
    provider = db["providers"][args.npi]
    suspended = [p["name"] for p in provider["privileges"] if p["status"] == "suspended"]
    return {"eligible": eligible, "reason": reason, "suspended_privileges": suspended if eligible else []}


class CompetencyArgs(_DateArgs, TimeField):
    employee_id: Code
    npi: str
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(CompetencyArgs, writes=True)
def schedule_competency_review(db: dict[str, Any], args: CompetencyArgs) -> dict[str, Any]:
    """Book the competency review that must precede privilege reactivation."""
    _require_otp(db, args.employee_id)
    _require_own_provider(db, args.npi)
    result = _book(
        db,
        "competency_review",
        args.employee_id,
        args.department_code,
        args.appointment_date,
        args.appointment_time,
        npi=args.npi,
    )
    db["providers"][args.npi]["competency_review"] = result["appointment_id"]
    return result


class ReactivateArgs(ToolArgs):
    employee_id: Code
    npi: str
    privileges: list[str]

    @field_validator("privileges", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        """A caller's sentence ('moderate sedation and central lines') -> the names in it, split on 'and'/','."""
        if isinstance(value, str):
            return [p.strip() for p in re.split(r",|\band\b", value) if p.strip()]
        return value


@REGISTRY.tool(ReactivateArgs, writes=True)
def reactivate_privileges(db: dict[str, Any], args: ReactivateArgs) -> dict[str, Any]:
    """Reactivate the suspended privileges the caller confirmed (after the competency review is booked)."""
    _require_otp(db, args.employee_id)
    provider = _require_own_provider(db, args.npi)
    if not provider.get("competency_review"):
        raise ToolError("competency_review_required", "schedule the competency review first")
    suspended = {p["name"].lower(): p for p in provider["privileges"] if p["status"] == "suspended"}
    chosen = []
    for asked in args.privileges:
        key = re.sub(r"^(the|my)\s+", "", asked.lower().rstrip("."))
        match = suspended.get(key) or next((p for name, p in suspended.items() if name in key), None)
        if match is None:
            raise ToolError("privilege_not_suspended", f"{asked!r} is not a suspended privilege")
        chosen.append(match)
    for privilege in chosen:
        privilege["status"] = "active"
    return {"reactivated": [p["name"] for p in chosen], "case_id": f"PRV{args.npi[-5:]}"}


class EhrArgs(ToolArgs):
    employee_id: Code
    access_level: Literal["full", "restricted"]


@REGISTRY.tool(EhrArgs, writes=True)
def update_ehr_access(db: dict[str, Any], args: EhrArgs) -> dict[str, Any]:
    """Restore EHR access (full or restricted) after privileges are reactivated."""
    _require_otp(db, args.employee_id)
    provider = next((p for p in db["providers"].values() if p["employee_id"] == args.employee_id), None)
    if provider is None or not any(p["status"] == "active" for p in provider["privileges"]):
        raise ToolError("no_active_privileges", "reactivate privileges before restoring EHR access")
    provider["ehr_access"] = args.access_level
    return {"ehr_access": args.access_level}
