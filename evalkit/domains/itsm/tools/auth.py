"""Authentication tiers (standard, OTP-elevated, manager) and the caller's employee record."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.itsm.tools.common import (
    REGISTRY,
    EmployeeIdArgs,
    _employee,
    _require_auth,
)

# ------------------------------------------------------------------------------------------------ authentication


class EmployeeAuthArgs(ToolArgs):
    employee_id: str
    phone_last_four: str = Field(pattern=r"^\d{4}$")


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification: employee ID and the last four digits of the phone number on file."""
    employee = _employee(db, args.employee_id)
    if employee["phone_last_four"] != args.phone_last_four:
        raise ToolError("verification_failed", "the phone digits do not match the employee record")
    session = session_of(db)
    if session.get("employee_id") != employee["employee_id"]:  # call-scoped: re-verifying never downgrades
        session.clear()
        session.update(employee_id=employee["employee_id"], auth_level="standard", otp_verified=False)
    return {"authenticated": True, "employee_id": employee["employee_id"], "name": _full_name(employee)}


def _full_name(employee: dict[str, Any]) -> str:
    return f"{employee['first_name']} {employee['last_name']}"


class ManagerAuthArgs(ToolArgs):
    employee_id: str
    phone_last_four: str = Field(pattern=r"^\d{4}$")
    manager_auth_code: str = Field(pattern=r"^[A-Za-z0-9]{6}$")


@REGISTRY.tool(ManagerAuthArgs, writes=False)
def verify_manager_auth(db: dict[str, Any], args: ManagerAuthArgs) -> dict[str, Any]:
    """Manager verification in one step: employee ID, phone last four and the IT-security authorization code."""
    employee = _employee(db, args.employee_id)
    code = employee.get("manager_auth_code")
    if employee["phone_last_four"] != args.phone_last_four or code is None or code != args.manager_auth_code.upper():
        raise ToolError("verification_failed", "the manager credentials do not match")
    session = session_of(db)
    session.clear()
    session.update(employee_id=employee["employee_id"], auth_level="manager", otp_verified=False)
    return {"authenticated": True, "auth_level": "manager", "employee_id": employee["employee_id"]}


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """Send a one-time passcode to the phone on file of the verified caller."""
    session = session_of(db)
    if session.get("employee_id") != args.employee_id.upper():
        raise ToolError("authentication_required", "standard or manager verification of this employee comes first")
    if args.employee_id.upper() not in db["otp_codes"]:
        raise ToolError("otp_unavailable", "no phone of record can receive a passcode; visit IT security in person")
    session["otp_sent"] = True
    employee = _employee(db, args.employee_id)
    return {"otp_sent": True, "phone_last_four": employee["phone_last_four"]}


class OtpArgs(ToolArgs):
    employee_id: str
    otp_code: str = Field(pattern=r"^\d{6}$")


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit code the caller reads from their text message."""
    session = session_of(db)
    if not session.get("otp_sent") or session.get("employee_id") != args.employee_id.upper():
        raise ToolError("otp_not_initiated", "initiate_otp_auth must be called for this employee first")
    if db["otp_codes"][args.employee_id.upper()] != args.otp_code:
        raise ToolError("otp_mismatch", "the passcode does not match; ask the caller to check the message")
    session["otp_verified"] = True
    return {"otp_verified": True, "auth_level": session["auth_level"]}


# ------------------------------------------------------------------------------------------------ records


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def get_employee_record(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """The employee's HR-linked record: department, role, cost center, manager, desk and parking."""
    employee = _require_auth(db, args.employee_id)
    public = {k: v for k, v in employee.items() if k not in ("manager_auth_code", "phone_last_four")}
    return {"employee": public}
