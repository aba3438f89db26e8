"""Authentication tiers (employee, provider, one-time passcode) and the caller's own employee and provider
records."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, field_validator

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    EmployeeArgs,
    IsoDate,
    NpiArgs,
    _employee,
    _provider,
    _require_employee,
    _require_own_provider,
    _upper,
)

# ---------------------------------------------------------------- authentication


class EmployeeAuthArgs(ToolArgs):
    employee_id: Code
    date_of_birth: IsoDate


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification: employee ID and date of birth."""
    employee = _employee(db, args.employee_id)
    if employee["date_of_birth"] != args.date_of_birth:
        return {"authenticated": False, "reason": "the date of birth does not match our records"}
    session_of(db).update(employee_id=employee["employee_id"])
    return {
        "authenticated": True,
        "employee_id": employee["employee_id"],
        "name": f"{employee['first_name']} {employee['last_name']}",
    }


class ProviderAuthArgs(ToolArgs):
    npi: Annotated[str, BeforeValidator(_upper)]
    facility_code: Code
    pin: str

    @field_validator("npi")
    @classmethod
    def _npi(cls, value: str) -> str:
        if not re.fullmatch(r"\d{10}", value):
            raise ValueError("an NPI is 10 digits")
        return value

    @field_validator("pin")
    @classmethod
    def _pin(cls, value: str) -> str:
        if not re.fullmatch(r"\d{4}", value):
            raise ValueError("the PIN is 4 digits")
        return value


@REGISTRY.tool(ProviderAuthArgs, writes=False)
def verify_provider_auth(db: dict[str, Any], args: ProviderAuthArgs) -> dict[str, Any]:
    """Provider verification: NPI, home facility code and 4-digit PIN (also satisfies employee flows)."""
    provider = _provider(db, args.npi)
    if provider["facility_code"] != args.facility_code or provider["pin"] != args.pin:
        return {"authenticated": False, "reason": "the facility code or PIN does not match our records"}
    session_of(db).update(employee_id=provider["employee_id"], provider_npi=provider["npi"])
    employee = _employee(db, provider["employee_id"])
    return {
        "authenticated": True,
        "npi": provider["npi"],
        "employee_id": provider["employee_id"],
        "name": f"{employee['first_name']} {employee['last_name']}",
    }


@REGISTRY.tool(EmployeeArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Send a one-time passcode to the phone on file (after employee or provider verification)."""
    employee = _require_employee(db, args.employee_id)
    db["otp"][args.employee_id]["sent"] = True
    return {"otp_sent": True, "phone_last_four": employee["phone_last_four"]}


class OtpArgs(ToolArgs):
    employee_id: Code
    otp_code: str

    @field_validator("otp_code")
    @classmethod
    def _six(cls, value: str) -> str:
        if not re.fullmatch(r"\d{6}", value):
            raise ValueError("the passcode is 6 digits")
        return value


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit passcode the caller read from their text message."""
    _require_employee(db, args.employee_id)
    otp = db["otp"][args.employee_id]
    if not otp.get("sent"):
        raise ToolError("otp_not_initiated", "initiate_otp_auth must be called first")
    if otp["code"] != args.otp_code:
        return {"verified": False, "reason": "the passcode does not match"}
    session_of(db).update(otp_verified_for=args.employee_id)
    return {"verified": True}


# ---------------------------------------------------------------- record lookups


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_employee_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's HR record (department, role, unit, hire date, status)."""
    employee = _require_employee(db, args.employee_id)
    public = {k: v for k, v in employee.items() if k not in ("date_of_birth", "certifications")}
    return {"employee": public}


@REGISTRY.tool(NpiArgs, writes=False)
def get_provider_profile(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """The provider's credentialing profile: specialty, privileges and their status, EHR access."""
    provider = _require_own_provider(db, args.npi)
    return {"provider": {k: v for k, v in provider.items() if k not in ("pin", "clearance_code")}}
