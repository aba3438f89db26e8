"""Work-schedule tools: shift swaps, onboarding, payroll corrections and on-call registration.

Policy the tools hold: swaps only of the caller's own future, unlocked, not yet swapped or cancelled shift, to a
colleague with the unit's certifications; payroll corrections only of a logged/approved shift whose pay period is
open and has no pending correction; on-call only off leave and with the unit's certifications, blackout dates
inside the window.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolError
from evalkit.domains.hr.tools.auth import Department, EmployeeArgs, appointment, book_slot, deep
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    AppointmentAt,
    Args,
    CaseId,
    EmployeeId,
    IsoDate,
    ShiftId,
    UnitCode,
    authenticated,
    case_id,
    current_date,
    employee,
    notify,
)

# ---------------------------------------------------------------- shifts and swaps


class ShiftArgs(Args):
    employee_id: EmployeeId
    shift_id: ShiftId


def _shift(db: dict[str, Any], shift_id: str) -> dict[str, Any]:
    found = db.get("shifts", {}).get(shift_id)
    if not found:
        raise ToolError("shift_not_found", f"Shift {shift_id} not found")
    return found


def _own_shift(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    authenticated(db, "employee_auth")
    shift = _shift(db, args.shift_id)
    if shift.get("employee_id") != args.employee_id:
        raise ToolError("shift_not_owned", f"Shift {args.shift_id} is not employee {args.employee_id}'s")
    return shift


@REGISTRY.tool(ShiftArgs, writes=False)
def get_shift_record(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """One of the caller's shifts: date, times, unit and status."""
    return {"shift": deep(_own_shift(db, args))}


def _required_certs(db: dict[str, Any], unit_code: str | None) -> list[str]:
    return list(db.get("unit_cert_requirements", {}).get(unit_code, []))


@REGISTRY.tool(ShiftArgs, writes=False, needs="employee_auth")
def check_swap_eligibility(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """Whether the shift may be swapped, with the certifications its unit requires of the colleague."""
    shift = _shift(db, args.shift_id)
    if shift.get("status") == "swapped":
        raise ToolError("already_swapped", "This shift was swapped already")
    if shift.get("status") == "cancelled":
        raise ToolError("shift_cancelled", "A cancelled shift cannot be swapped")
    today, day = current_date(db), shift.get("date", "")
    if today and day and day < today:
        raise ToolError("shift_in_past", f"The shift on {day} is before today ({today}) and cannot be swapped")
    if shift.get("swap_locked"):
        raise ToolError("swap_locked", "The shift starts within 24 hours: swaps are locked")
    unit = shift.get("unit_code")
    return {
        "eligible": True,
        "shift_date": shift.get("date"),
        "unit_code": unit,
        "required_cert_codes": sorted(_required_certs(db, unit)),
        "message": "The shift can be swapped",
    }


class ColleagueArgs(Args):
    colleague_employee_id: EmployeeId
    unit_code: UnitCode


@REGISTRY.tool(ColleagueArgs, writes=False, needs="employee_auth")
def verify_colleague_certifications(db: dict[str, Any], args: ColleagueArgs) -> dict[str, Any]:
    """Whether the colleague holds every certification the unit requires (the unit's list is on file)."""
    colleague = employee(db, args.colleague_employee_id)
    required = _required_certs(db, args.unit_code)
    missing = sorted(set(required) - set(colleague.get("certifications", [])))
    if missing:
        raise ToolError(
            "certification_missing", f"Colleague {args.colleague_employee_id} lacks {missing}", missing_certs=missing
        )
    return {
        "colleague_employee_id": args.colleague_employee_id,
        "unit_code": args.unit_code,
        "certifications_verified": sorted(required),
        "message": "The colleague holds every required certification",
    }


class SwapArgs(Args):
    employee_id: EmployeeId
    shift_id: ShiftId
    colleague_employee_id: EmployeeId
    unit_code: UnitCode


@REGISTRY.tool(SwapArgs, writes=True, needs="employee_auth")
def confirm_shift_swap(db: dict[str, Any], args: SwapArgs) -> dict[str, Any]:
    """Hand the shift to the colleague."""
    shift = _shift(db, args.shift_id)
    case = case_id("SWP", args.employee_id)
    shift.update(status="swapped", swapped_to_employee_id=args.colleague_employee_id, swap_confirmation_id=case)
    return {
        "shift_id": args.shift_id,
        "original_employee_id": args.employee_id,
        "new_employee_id": args.colleague_employee_id,
        "unit_code": args.unit_code,
        "case_id": case,
        "message": f"Swap confirmed, case {case}",
    }


class ManagerNoticeArgs(Args):
    employee_id: EmployeeId
    case_id: CaseId
    notification_type: Literal[
        "shift_swap_confirmed", "fmla_opened", "payroll_correction_submitted", "pto_request_submitted"
    ]


@REGISTRY.tool(ManagerNoticeArgs, writes=True, needs=("employee_auth", "otp_auth"))
def notify_department_manager(db: dict[str, Any], args: ManagerNoticeArgs) -> dict[str, Any]:
    """Tell the employee's department manager about a swap, leave case, payroll correction or PTO request."""
    record = employee(db, args.employee_id)
    notice = {
        "recipient": "department_manager",
        "employee_id": args.employee_id,
        "department_code": record.get("department_code"),
        "case_id": args.case_id,
        "notification_type": args.notification_type,
    }
    notify(db, notice)
    return {**args.model_dump(), "message": f"Department manager notified ({args.notification_type})"}


# ---------------------------------------------------------------- onboarding

TaskCode = Literal[
    "BLS_UPLOAD", "I9_VERIFY", "BADGE_PICKUP", "OCC_HEALTH", "HIPAA_TRAIN", "DRUG_SCREEN", "TB_TEST", "ORIENTATION"
]


@REGISTRY.tool(EmployeeArgs, writes=False, needs=("employee_auth", "otp_auth"))
def get_onboarding_checklist(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """A new hire's onboarding tasks and their status."""
    checklist = employee(db, args.employee_id).get("onboarding_checklist")
    if not checklist:
        raise ToolError("checklist_not_found", f"No onboarding checklist for {args.employee_id}")
    return {"onboarding_checklist": deep(checklist)}


class CompleteTaskArgs(Args):
    employee_id: EmployeeId
    task_code: TaskCode
    completion_code: Annotated[str, Field(pattern=r"^[A-Za-z0-9]{4}$", description="4 letters or digits")]


@REGISTRY.tool(CompleteTaskArgs, writes=True, needs=("employee_auth", "otp_auth"))
def complete_onboarding_task(db: dict[str, Any], args: CompleteTaskArgs) -> dict[str, Any]:
    """Mark one onboarding task done, with the completion code the employee received for it."""
    tasks = employee(db, args.employee_id).get("onboarding_checklist", {}).get("tasks", {})
    task = tasks.get(args.task_code)
    if task is None:
        raise ToolError("task_not_found", f"Task {args.task_code} is not on {args.employee_id}'s checklist")
    if task.get("status") == "complete":
        raise ToolError("task_already_complete", f"Task {args.task_code} is complete already")
    expected = task.get("completion_code") or ""
    if expected and args.completion_code.upper() != expected.upper():
        raise ToolError("invalid_completion_code", f"The completion code for {args.task_code} does not match")
    task["status"] = "complete"
    remaining = [code for code, t in tasks.items() if t.get("status") != "complete"]
    return {
        "employee_id": args.employee_id,
        "task_code": args.task_code,
        "remaining_tasks": remaining,
        "message": f"{args.task_code} done; {len(remaining)} task(s) left",
    }


class OrientationArgs(Args):
    employee_id: EmployeeId
    department_code: Department
    appointment_datetime: AppointmentAt


@REGISTRY.tool(OrientationArgs, writes=True, needs=("employee_auth", "otp_auth"))
def schedule_orientation_followup(db: dict[str, Any], args: OrientationArgs) -> dict[str, Any]:
    """Book the orientation follow-up in a free slot."""
    record = employee(db, args.employee_id)
    book_slot(db, "orientation_followup", args.department_code, args.appointment_datetime)
    booked = case_id("ORI", args.employee_id)
    record.setdefault("scheduled_appointments", []).append(
        appointment("orientation_followup", booked, args.appointment_datetime, department_code=args.department_code)
    )
    return {
        **args.model_dump(),
        "appointment_id": booked,
        "message": f"Orientation follow-up booked for {args.appointment_datetime} ({booked})",
    }


# ---------------------------------------------------------------- payroll corrections


@REGISTRY.tool(ShiftArgs, writes=False)
def get_timesheet_record(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """The timesheet entry (hours logged, pay period) of one of the caller's shifts."""
    return {"shift": deep(_own_shift(db, args))}


@REGISTRY.tool(ShiftArgs, writes=False, needs="employee_auth")
def check_correction_eligibility(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """Whether the shift's hours may be corrected."""
    shift = _shift(db, args.shift_id)
    if shift.get("correction_status") == "pending":
        raise ToolError("correction_already_pending", "A correction of this shift is pending already")
    if shift.get("pay_period_closed"):
        raise ToolError("pay_period_closed", "The shift's pay period is closed")
    if shift.get("status") not in ("logged", "approved"):
        raise ToolError("shift_not_logged", "Only a logged or approved shift can be corrected")
    return {
        "eligible": True,
        "shift_id": args.shift_id,
        "logged_hours": shift.get("hours_logged"),
        "message": "The shift can be corrected",
    }


class PayrollArgs(Args):
    employee_id: EmployeeId
    shift_id: ShiftId
    correction_type: Literal["on_call_hours", "overtime_hours", "differential_missed"]
    corrected_hours: Annotated[float, Field(gt=0, le=24, description="the shift's correct total hours")]


@REGISTRY.tool(PayrollArgs, writes=True, needs="employee_auth")
def submit_payroll_correction(db: dict[str, Any], args: PayrollArgs) -> dict[str, Any]:
    """File a correction of a shift's total hours while its pay period is open."""
    shift = _shift(db, args.shift_id)
    period_end = shift.get("pay_period_end_date")
    if not period_end:
        raise ToolError("pay_period_not_set", f"Shift {args.shift_id} has no pay period end date")
    today = current_date(db)
    if today and period_end < today:
        raise ToolError("pay_period_closed", f"The pay period ended {period_end}, before today ({today})")
    case = case_id("PAY", args.employee_id)
    shift.update(
        corrected_hours=args.corrected_hours,
        correction_type=args.correction_type,
        correction_case_id=case,
        correction_status="pending",
    )
    return {
        **args.model_dump(),
        "pay_period_end_date": period_end,
        "case_id": case,
        "message": f"Payroll correction filed, case {case}",
    }


# ---------------------------------------------------------------- on-call


class UnitArgs(Args):
    employee_id: EmployeeId
    unit_code: UnitCode


@REGISTRY.tool(UnitArgs, writes=False, needs="employee_auth")
def get_oncall_schedule(db: dict[str, Any], args: UnitArgs) -> dict[str, Any]:
    """The employee's on-call registrations."""
    schedule = employee(db, args.employee_id).get("oncall_schedule", {})
    return {"employee_id": args.employee_id, "unit_code": args.unit_code, "oncall_schedule": deep(schedule)}


@REGISTRY.tool(UnitArgs, writes=False, needs="employee_auth")
def check_oncall_eligibility(db: dict[str, Any], args: UnitArgs) -> dict[str, Any]:
    """Whether the employee may take on-call on the unit (not on leave, the unit's certifications held)."""
    record = employee(db, args.employee_id)
    if record.get("employment_status") == "on_leave":
        raise ToolError("employee_on_leave", "An employee on leave cannot register for on-call")
    missing = sorted(set(_required_certs(db, args.unit_code)) - set(record.get("certifications", [])))
    if missing:
        raise ToolError(
            "certification_missing", f"Certifications for {args.unit_code} missing: {missing}", missing_certs=missing
        )
    return {**args.model_dump(), "eligible": True, "message": "The employee can register for on-call here"}


class OncallArgs(Args):
    employee_id: EmployeeId
    unit_code: UnitCode
    availability_start_date: IsoDate
    availability_end_date: IsoDate
    oncall_tier: Literal["primary", "backup"]
    blackout_dates: list[IsoDate]


@REGISTRY.tool(OncallArgs, writes=True, needs="employee_auth")
def register_oncall_availability(db: dict[str, Any], args: OncallArgs) -> dict[str, Any]:
    """Register an on-call window, tier and blackout dates (each inside the window)."""
    record = employee(db, args.employee_id)
    start, end = args.availability_start_date, args.availability_end_date
    for day in args.blackout_dates:
        if not start <= day <= end:
            raise ToolError("invalid_blackout_date", f"Blackout date {day} is outside {start} to {end}")
    registered = case_id("ONC", args.employee_id)
    window = args.model_dump(exclude={"employee_id"})
    registration = {"registration_id": registered, **window, "status": "registered"}
    record.setdefault("oncall_schedule", {}).setdefault("registrations", []).append(registration)
    return {
        "employee_id": args.employee_id,
        "registration_id": registered,
        **window,
        "message": f"On-call registered ({registered})",
    }
