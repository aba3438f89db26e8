"""FMLA leave (eligibility, cases, the return-to-work check-in) and payroll corrections on open timesheets."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import field_validator

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    _DateArgs,
    _require_employee,
    _require_otp,
    _today,
)
from evalkit.domains.hr.tools.scheduling import TimeField, _book

FMLA_MIN_MONTHS = 12
FMLA_MIN_HOURS = 1250
FMLA_WEEKS = 12


# ---------------------------------------------------------------- FMLA


class LeaveEligibilityArgs(_DateArgs):
    employee_id: Code
    leave_start_date: str | None = None
    leave_end_date: str | None = None


def leave_eligibility(
    db: dict[str, Any], employee: dict[str, Any], start: str | None, end: str | None
) -> tuple[bool, str]:
    """FMLA: 12 months employed and 1,250 hours in the past year; with dates, no backdating and within balance."""
    if employee["months_employed"] < FMLA_MIN_MONTHS:
        return False, f"employed {employee['months_employed']} months; FMLA needs at least 12"
    if employee["hours_worked_past_year"] < FMLA_MIN_HOURS:
        return False, f"{employee['hours_worked_past_year']} hours worked in the past year; FMLA needs 1,250"
    if start and end:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
        if first < _today(db):
            return False, "the leave start date has already passed; leave cannot be backdated"
        if last < first:
            return False, "the leave end date is before the start date"
        weeks = ((last - first).days + 1) / 7
        if weeks > employee["fmla_weeks_remaining"]:
            return False, f"{weeks:.1f} weeks requested but only {employee['fmla_weeks_remaining']} weeks remain"
    return True, "eligible"


@REGISTRY.tool(LeaveEligibilityArgs, writes=False)
def check_leave_eligibility(db: dict[str, Any], args: LeaveEligibilityArgs) -> dict[str, Any]:
    """FMLA eligibility (tenure and hours), and with dates also no backdating and within the weeks left."""
    employee = _require_otp(db, args.employee_id)
    eligible, reason = leave_eligibility(db, employee, args.leave_start_date, args.leave_end_date)
    return {
        "eligible": eligible,
        "reason": reason,
        "months_employed": employee["months_employed"],
        "hours_worked_past_year": employee["hours_worked_past_year"],
        "fmla_weeks_remaining": employee["fmla_weeks_remaining"],
    }


LeaveCategory = Literal["employee_medical_condition", "family_member_serious_illness", "bonding", "military_exigency"]


class FmlaArgs(_DateArgs):
    employee_id: Code
    leave_category: LeaveCategory
    leave_start_date: str
    leave_end_date: str


@REGISTRY.tool(FmlaArgs, writes=True)
def submit_fmla_case(db: dict[str, Any], args: FmlaArgs) -> dict[str, Any]:
    """Open an FMLA leave case (re-checks eligibility, backdating and balance)."""
    employee = _require_otp(db, args.employee_id)
    eligible, reason = leave_eligibility(db, employee, args.leave_start_date, args.leave_end_date)
    if not eligible:
        raise ToolError("not_eligible", reason)
    case_id = f"CASEFMLA{args.employee_id[3:]}{len(db['fmla_cases']) + 1}"
    db["fmla_cases"][case_id] = {
        "case_id": case_id,
        "employee_id": args.employee_id,
        "leave_category": args.leave_category,
        "leave_start_date": args.leave_start_date,
        "leave_end_date": args.leave_end_date,
        "status": "open",
    }
    return {"case_id": case_id, "leave_end_date": args.leave_end_date}


class ReturnToWorkArgs(_DateArgs, TimeField):
    employee_id: Code
    case_id: str
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(ReturnToWorkArgs, writes=True)
def schedule_return_to_work_checkin(db: dict[str, Any], args: ReturnToWorkArgs) -> dict[str, Any]:
    """Book the return-to-work check-in, on or after the leave end date."""
    _require_otp(db, args.employee_id)
    case = db["fmla_cases"].get(args.case_id)
    if case is None or case["employee_id"] != args.employee_id:
        raise ToolError("case_not_found", f"no leave case {args.case_id} for this employee")
    if args.appointment_date < case["leave_end_date"]:
        raise ToolError("before_leave_end", "the check-in must be on or after the leave end date")
    return _book(
        db,
        "return_to_work_checkin",
        args.employee_id,
        args.department_code,
        args.appointment_date,
        args.appointment_time,
        case_id=args.case_id,
    )


# ---------------------------------------------------------------- payroll


class TimesheetArgs(ToolArgs):
    employee_id: Code
    timesheet_id: Code


def _timesheet(db: dict[str, Any], timesheet_id: str) -> dict[str, Any]:
    sheet = db["timesheets"].get(timesheet_id)
    if sheet is None:
        raise ToolError("timesheet_not_found", f"no timesheet {timesheet_id}")
    return sheet


@REGISTRY.tool(TimesheetArgs, writes=False)
def get_timesheet_record(db: dict[str, Any], args: TimesheetArgs) -> dict[str, Any]:
    """A timesheet and its pay period; another employee's timesheet shows only that it is not the caller's."""
    _require_employee(db, args.employee_id)
    sheet = _timesheet(db, args.timesheet_id)
    if sheet["employee_id"] != args.employee_id:
        return {"timesheet": {"timesheet_id": sheet["timesheet_id"], "owned_by_caller": False}}
    return {"timesheet": {**sheet, "owned_by_caller": True}}


def correction_eligibility(db: dict[str, Any], employee_id: str, timesheet_id: str) -> tuple[bool, str]:
    sheet = _timesheet(db, timesheet_id)
    if sheet["employee_id"] != employee_id:
        return False, "the timesheet belongs to another employee; only your own timesheets can be corrected"
    if date.fromisoformat(sheet["pay_period_end"]) < _today(db):
        return False, "the pay period has already closed; corrections must be submitted before it closes"
    return True, "eligible"


@REGISTRY.tool(TimesheetArgs, writes=False)
def check_correction_eligibility(db: dict[str, Any], args: TimesheetArgs) -> dict[str, Any]:
    """Whether the timesheet can still be corrected (own timesheet, pay period open)."""
    _require_employee(db, args.employee_id)
    eligible, reason = correction_eligibility(db, args.employee_id, args.timesheet_id)
    return {"eligible": eligible, "reason": reason}


class PayrollArgs(_DateArgs):
    employee_id: Code
    timesheet_id: Code
    shift_date: str
    correction_type: Literal["overtime", "on_call", "missed_differential"]
    corrected_hours: float

    @field_validator("corrected_hours")
    @classmethod
    def _hours(cls, value: float) -> float:
        if not 0 < value <= 24:
            raise ValueError("corrected hours are the category total for one shift: more than 0, at most 24")
        return value


@REGISTRY.tool(PayrollArgs, writes=True)
def submit_payroll_correction(db: dict[str, Any], args: PayrollArgs) -> dict[str, Any]:
    """Record the corrected category total for one shift on an open timesheet."""
    _require_employee(db, args.employee_id)
    eligible, reason = correction_eligibility(db, args.employee_id, args.timesheet_id)
    if not eligible:
        raise ToolError("not_eligible", reason)
    sheet = db["timesheets"][args.timesheet_id]
    entry = next((e for e in sheet["entries"] if e["date"] == args.shift_date), None)
    if entry is None:
        raise ToolError("shift_date_not_on_timesheet", f"{args.shift_date} is not on timesheet {args.timesheet_id}")
    correction_id = f"PAYC{len(db['payroll_corrections']) + 1:02d}{args.timesheet_id[-4:]}"
    field = {"overtime": "overtime_hours", "on_call": "oncall_hours", "missed_differential": "differential_hours"}
    db["payroll_corrections"][correction_id] = {
        "correction_id": correction_id,
        "timesheet_id": args.timesheet_id,
        "shift_date": args.shift_date,
        "correction_type": args.correction_type,
        "previous_hours": entry[field[args.correction_type]],
        "corrected_hours": args.corrected_hours,
        "status": "submitted",
    }
    entry[field[args.correction_type]] = args.corrected_hours
    return {"correction_id": correction_id}
