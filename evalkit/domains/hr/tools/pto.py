"""Paid time off: balances, the days a request counts, eligibility and submission."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from evalkit.domains.base import ToolError
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    EmployeeArgs,
    _DateArgs,
    _require_employee,
    _today,
)

# ---------------------------------------------------------------- PTO


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_pto_balance(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """General PTO and sick-leave balances (days) and the schedule type that decides which days count."""
    employee = _require_employee(db, args.employee_id)
    balance = db["pto_balances"][args.employee_id]
    return {**balance, "schedule_type": employee["schedule_type"]}


class PtoArgs(_DateArgs):
    employee_id: Code
    pto_type: Literal["general_pto", "sick_leave"]
    start_date: str
    end_date: str


def pto_days(db: dict[str, Any], employee: dict[str, Any], start: str, end: str) -> list[str]:
    """Days that consume PTO: weekdays minus holidays (standard schedule) or scheduled shift dates (shift)."""
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    days = [(first + timedelta(days=i)).isoformat() for i in range((last - first).days + 1)]
    if employee["schedule_type"] == "shift":
        worked = {s["date"] for s in db["shifts"].values() if s["employee_id"] == employee["employee_id"]}
        return [d for d in days if d in worked]
    return [d for d in days if date.fromisoformat(d).weekday() < 5 and d not in db["holidays"]]


def pto_eligibility(db: dict[str, Any], employee: dict[str, Any], args: PtoArgs) -> tuple[bool, str, list[str]]:
    if args.end_date < args.start_date:
        return False, "the end date is before the start date", []
    if args.start_date < _today(db).isoformat():
        return False, "PTO cannot start in the past", []
    counted = pto_days(db, employee, args.start_date, args.end_date)
    for window in db["department_blackouts"].get(employee["department_code"], []):
        if args.start_date <= window["end"] and window["start"] <= args.end_date:
            return False, f"the department blocks PTO from {window['start']} to {window['end']}", counted
    balance = db["pto_balances"][employee["employee_id"]]["pto_days" if args.pto_type == "general_pto" else "sick_days"]
    if len(counted) > balance:
        return False, f"{len(counted)} days requested but only {balance} days available", counted
    if not counted:
        return False, "no working days fall in the requested range", counted
    return True, "eligible", counted


@REGISTRY.tool(PtoArgs, writes=False)
def check_pto_eligibility(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """Days the request would deduct, and whether balance and department blackouts allow it."""
    employee = _require_employee(db, args.employee_id)
    eligible, reason, counted = pto_eligibility(db, employee, args)
    return {"eligible": eligible, "reason": reason, "days_requested": len(counted), "counted_dates": counted}


@REGISTRY.tool(PtoArgs, writes=True)
def submit_pto_request(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """Submit the request and deduct the counted days from the balance."""
    employee = _require_employee(db, args.employee_id)
    eligible, reason, counted = pto_eligibility(db, employee, args)
    if not eligible:
        raise ToolError("not_eligible", reason)
    balance = db["pto_balances"][args.employee_id]
    key = "pto_days" if args.pto_type == "general_pto" else "sick_days"
    balance[key] -= len(counted)
    request_id = f"PTO{len(db['pto_requests']) + 1:02d}{args.employee_id[-4:]}"
    db["pto_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": args.employee_id,
        "pto_type": args.pto_type,
        "start_date": args.start_date,
        "end_date": args.end_date,
        "days": len(counted),
        "status": "submitted",
    }
    return {"request_id": request_id, "days_deducted": len(counted), "remaining": balance[key]}
