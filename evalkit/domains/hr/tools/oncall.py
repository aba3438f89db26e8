"""On-call schedules: eligibility (not on leave, unit certifications) and availability windows."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from evalkit.domains.base import ToolError
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    EmployeeArgs,
    IsoDate,
    _DateArgs,
    _employee,
    _iso,
    _missing_certifications,
    _require_employee,
    _today,
)

# ---------------------------------------------------------------- on-call


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_oncall_schedule(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's on-call unit and current registrations."""
    _require_employee(db, args.employee_id)
    return {"schedule": db["oncall"].get(args.employee_id, {"unit_code": None, "registrations": []})}


def oncall_eligibility(db: dict[str, Any], employee_id: str) -> tuple[bool, str]:
    employee = _employee(db, employee_id)
    if employee["employment_status"] == "on_leave":
        return False, "employees on leave cannot register for on-call"
    unit = db["oncall"].get(employee_id, {}).get("unit_code")
    if unit is None:
        return False, "no on-call unit assigned"
    missing = _missing_certifications(db, employee_id, unit)
    if missing:
        return False, f"missing certifications required by {unit}: {', '.join(missing)}"
    return True, "eligible"


@REGISTRY.tool(EmployeeArgs, writes=False)
def check_oncall_eligibility(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Whether the employee may register for on-call (not on leave, unit certifications held)."""
    _require_employee(db, args.employee_id)
    eligible, reason = oncall_eligibility(db, args.employee_id)
    return {"eligible": eligible, "reason": reason}


class OncallArgs(_DateArgs):
    employee_id: Code
    start_date: str
    end_date: str
    oncall_role: Literal["primary", "backup"]
    blackout_dates: list[IsoDate] = Field(default_factory=list)

    @field_validator("blackout_dates", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


@REGISTRY.tool(OncallArgs, writes=True)
def register_oncall_availability(db: dict[str, Any], args: OncallArgs) -> dict[str, Any]:
    """Register an on-call availability window with blackout dates inside it."""
    _require_employee(db, args.employee_id)
    eligible, reason = oncall_eligibility(db, args.employee_id)
    if not eligible:
        raise ToolError("not_eligible", reason)
    if args.start_date < _today(db).isoformat() or args.end_date < args.start_date:
        raise ToolError("invalid_window", "the window must start today or later and end after it starts")
    blackouts = sorted(_iso(d) for d in args.blackout_dates)
    if any(not args.start_date <= d <= args.end_date for d in blackouts):
        raise ToolError("blackout_outside_window", "blackout dates must fall within the availability window")
    schedule = db["oncall"][args.employee_id]
    registration_id = f"ONC{len(schedule['registrations']) + 1:02d}{args.employee_id[-4:]}"
    schedule["registrations"].append(
        {
            "registration_id": registration_id,
            "start_date": args.start_date,
            "end_date": args.end_date,
            "oncall_role": args.oncall_role,
            "blackout_dates": blackouts,
        }
    )
    return {"registration_id": registration_id}
