"""Shifts and swaps (with the department-manager notice), the onboarding checklist and appointment booking."""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from pydantic import field_validator

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    EmployeeArgs,
    _DateArgs,
    _employee,
    _missing_certifications,
    _notify,
    _require_employee,
    _today,
)

# ---------------------------------------------------------------- shifts and swaps


class ShiftArgs(ToolArgs):
    employee_id: Code
    shift_id: Code


def _shift(db: dict[str, Any], shift_id: str) -> dict[str, Any]:
    shift = db["shifts"].get(shift_id)
    if shift is None:
        raise ToolError("shift_not_found", f"no shift {shift_id}")
    return shift


def _own_shift(db: dict[str, Any], employee_id: str, shift_id: str) -> dict[str, Any]:
    _require_employee(db, employee_id)
    shift = _shift(db, shift_id)
    if shift["employee_id"] != employee_id:
        raise ToolError("shift_not_found", f"shift {shift_id} is not assigned to you")
    return shift


@REGISTRY.tool(ShiftArgs, writes=False)
def get_shift_record(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """One of the caller's shifts: unit, date and times."""
    return {"shift": _own_shift(db, args.employee_id, args.shift_id)}


class SwapArgs(ToolArgs):
    employee_id: Code
    shift_id: Code
    colleague_employee_id: Code


def swap_eligibility(db: dict[str, Any], args: SwapArgs) -> tuple[bool, str]:
    shift = _own_shift(db, args.employee_id, args.shift_id)
    colleague = _employee(db, args.colleague_employee_id)
    if args.colleague_employee_id == args.employee_id:
        return False, "the colleague must be a different employee"
    if date.fromisoformat(shift["date"]) <= _today(db):
        return False, "only future shifts can be swapped"
    if colleague["employment_status"] != "active":
        return False, "the colleague is not currently active"
    if any(s["employee_id"] == colleague["employee_id"] and s["date"] == shift["date"] for s in db["shifts"].values()):
        return False, "the colleague already works a shift that day"
    return True, "eligible"


@REGISTRY.tool(SwapArgs, writes=False)
def check_swap_eligibility(db: dict[str, Any], args: SwapArgs) -> dict[str, Any]:
    """Whether the shift can go to this colleague (future shift, active colleague, no clash)."""
    eligible, reason = swap_eligibility(db, args)
    return {"eligible": eligible, "reason": reason}


class ColleagueCertArgs(ToolArgs):
    shift_id: Code
    colleague_employee_id: Code


@REGISTRY.tool(ColleagueCertArgs, writes=False)
def verify_colleague_certifications(db: dict[str, Any], args: ColleagueCertArgs) -> dict[str, Any]:
    """Whether the colleague holds every certification the shift's unit requires."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "Authentication must be completed before calling this tool")
    shift = _shift(db, args.shift_id)
    _employee(db, args.colleague_employee_id)
    missing = _missing_certifications(db, args.colleague_employee_id, shift["unit_code"])
    return {
        "all_certified": not missing,
        "required": db["units"][shift["unit_code"]]["required_certifications"],
        "missing": missing,
    }


@REGISTRY.tool(SwapArgs, writes=True)
def confirm_shift_swap(db: dict[str, Any], args: SwapArgs) -> dict[str, Any]:
    """Hand the shift to the colleague (re-checks eligibility and certifications)."""
    eligible, reason = swap_eligibility(db, args)
    if not eligible:
        raise ToolError("not_eligible", reason)
    shift = db["shifts"][args.shift_id]
    if _missing_certifications(db, args.colleague_employee_id, shift["unit_code"]):
        raise ToolError("not_eligible", "the colleague lacks certifications the unit requires")
    swap_id = f"SWP{len(db['shift_swaps']) + 1:02d}{args.shift_id[-4:]}"
    db["shift_swaps"][swap_id] = {
        "swap_id": swap_id,
        "shift_id": args.shift_id,
        "from": args.employee_id,
        "to": args.colleague_employee_id,
    }
    shift.update(employee_id=args.colleague_employee_id, swapped_from=args.employee_id)
    return {"swap_id": swap_id, "shift_id": args.shift_id, "new_employee_id": args.colleague_employee_id}


class ManagerNoticeArgs(ToolArgs):
    employee_id: Code
    case_id: str
    notification_type: Literal["shift_swap", "fmla_opened", "payroll_correction", "pto_request", "oncall_registration"]


@REGISTRY.tool(ManagerNoticeArgs, writes=True)
def notify_department_manager(db: dict[str, Any], args: ManagerNoticeArgs) -> dict[str, Any]:
    """Tell the employee's department manager about a schedule, leave or payroll change."""
    employee = _require_employee(db, args.employee_id)
    return _notify(
        db,
        f"manager_{employee['department_code']}",
        employee_id=args.employee_id,
        case_id=args.case_id,
        notification_type=args.notification_type,
    )


# ---------------------------------------------------------------- onboarding and appointments


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_onboarding_checklist(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The new hire's onboarding tasks and their status (never the completion codes)."""
    _require_employee(db, args.employee_id)
    tasks = db["onboarding"].get(args.employee_id, [])
    return {"tasks": [{k: v for k, v in t.items() if k != "completion_code"} for t in tasks]}


OnboardingTask = Literal[
    "hipaa_training", "bls_certification", "badge_photo", "ehr_training", "tb_screening", "fit_test"
]


class CompleteTaskArgs(ToolArgs):
    employee_id: Code
    task_id: OnboardingTask
    completion_code: Code


@REGISTRY.tool(CompleteTaskArgs, writes=True)
def complete_onboarding_task(db: dict[str, Any], args: CompleteTaskArgs) -> dict[str, Any]:
    """Mark a pending onboarding task done after checking its 4-character completion code."""
    _require_employee(db, args.employee_id)
    task = next((t for t in db["onboarding"].get(args.employee_id, []) if t["task_id"] == args.task_id), None)
    if task is None:
        raise ToolError("task_not_found", f"{args.task_id} is not on your checklist")
    if task["status"] != "pending":
        raise ToolError("task_not_pending", f"{args.task_id} is already {task['status']}")
    if task["completion_code"] != args.completion_code:
        raise ToolError("invalid_completion_code", "the completion code does not match this task")
    task["status"] = "completed"
    return {"task_id": args.task_id, "task_status": "completed"}


AppointmentType = Literal["orientation_followup", "return_to_work_checkin", "competency_review"]


class AvailabilityArgs(_DateArgs):
    department_code: Code
    appointment_type: AppointmentType
    preferred_date: str


@REGISTRY.tool(AvailabilityArgs, writes=False)
def check_appointment_availability(db: dict[str, Any], args: AvailabilityArgs) -> dict[str, Any]:
    """Open time slots on the preferred date, or the dates that have any when it has none."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "Authentication must be completed before calling this tool")
    calendar = db["appointment_slots"].get(args.department_code, {}).get(args.appointment_type, {})
    slots = calendar.get(args.preferred_date, [])
    alternatives = [] if slots else sorted(d for d, times in calendar.items() if times)[:3]
    return {"date": args.preferred_date, "available_slots": slots, "alternative_dates": alternatives}


def _book(
    db: dict[str, Any], kind: str, employee_id: str, department: str, day: str, time: str, **extra: Any
) -> dict[str, Any]:
    slots = db["appointment_slots"].get(department, {}).get(kind, {}).get(day, [])
    if time not in slots:
        raise ToolError("slot_unavailable", f"{day} {time} is not an open {kind} slot; check availability first")
    slots.remove(time)
    appointment_id = f"APT{len(db['appointments']) + 1:03d}{employee_id[-4:]}"
    db["appointments"][appointment_id] = {
        "appointment_id": appointment_id,
        "type": kind,
        "employee_id": employee_id,
        "department_code": department,
        "date": day,
        "time": time,
        **extra,
    }
    return {"appointment_id": appointment_id, "appointment_date": day, "appointment_time": time}


class TimeField(ToolArgs):
    @field_validator("appointment_time", check_fields=False)
    @classmethod
    def _hhmm(cls, value: str) -> str:
        if not re.fullmatch(r"\d{2}:\d{2}", value):
            raise ValueError("times are HH:MM (24 h)")
        return value


class OrientationArgs(_DateArgs, TimeField):
    employee_id: Code
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(OrientationArgs, writes=True)
def schedule_orientation_followup(db: dict[str, Any], args: OrientationArgs) -> dict[str, Any]:
    """Book the new hire's orientation follow-up in an open slot."""
    _require_employee(db, args.employee_id)
    return _book(
        db, "orientation_followup", args.employee_id, args.department_code, args.appointment_date, args.appointment_time
    )
