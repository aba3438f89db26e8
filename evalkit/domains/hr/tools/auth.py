"""Authentication (employee, provider, one-time passcode), the caller's own records and appointment slots.

The ``session`` table holds what the caller proved: ``employee_auth`` / ``provider_auth`` / ``otp_auth`` (true),
``authenticated_employee_id``, ``authenticated_npi``, and ``otp_issued`` / ``otp_employee_id`` once a passcode was
sent; EVA-Bench's expected DBs hold the same keys.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from evalkit.domains.base import ToolError, employee_verified, session_of
from evalkit.domains.hr.tools.common import (
    DEPARTMENTS,
    REGISTRY,
    AppointmentAt,
    Args,
    EmployeeId,
    FacilityCode,
    IsoDate,
    Npi,
    Otp,
    Pin,
    employee,
    provider,
)


class EmployeeAuthArgs(Args):
    employee_id: EmployeeId
    date_of_birth: IsoDate


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification of an employee: employee ID and date of birth."""
    record = employee(db, args.employee_id)
    if record.get("date_of_birth") != args.date_of_birth:
        raise ToolError("authentication_failed", "The date of birth does not match this employee ID")
    return employee_verified(db, args.employee_id, record)


class ProviderAuthArgs(Args):
    npi: Npi
    facility_code: FacilityCode
    pin: Pin


@REGISTRY.tool(ProviderAuthArgs, writes=False)
def verify_provider_auth(db: dict[str, Any], args: ProviderAuthArgs) -> dict[str, Any]:
    """Provider verification: NPI, home facility code and 4-digit PIN; the provider's employee ID then serves the
    passcode step."""
    record = provider(db, args.npi)
    if record.get("facility_code") != args.facility_code:
        raise ToolError("authentication_failed", "The facility code does not match this NPI")
    if record.get("pin") != args.pin:
        raise ToolError("authentication_failed", "The PIN does not match this NPI")
    session_of(db).update(
        provider_auth=True, authenticated_npi=args.npi, authenticated_employee_id=record.get("employee_id")
    )
    return {
        "authenticated": True,
        "npi": args.npi,
        "first_name": record.get("first_name"),
        "last_name": record.get("last_name"),
        "employee_id": record.get("employee_id"),
        "message": f"Provider {args.npi} verified",
    }


class EmployeeArgs(Args):
    employee_id: EmployeeId


@REGISTRY.tool(EmployeeArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Text a one-time passcode to the employee's phone on file."""
    record = employee(db, args.employee_id)
    session_of(db).update(otp_employee_id=args.employee_id, otp_issued=True)
    last_four = record.get("phone_last_four")
    return {
        "phone_last_four": last_four,
        "message": f"A passcode was texted to the number ending {last_four}; ask the caller to read it.",
    }


class OtpArgs(Args):
    employee_id: EmployeeId
    otp_code: Otp


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit passcode the caller reads from the text message."""
    session = session_of(db)
    if not session.get("otp_issued"):
        raise ToolError("otp_not_initiated", "No passcode was sent yet: call initiate_otp_auth first.")
    record = employee(db, args.employee_id)
    if record.get("otp_code") != args.otp_code:
        raise ToolError("authentication_failed", "The passcode does not match; ask the caller to read it again.")
    session.update(otp_auth=True, authenticated_employee_id=args.employee_id)
    return {
        "authenticated": True,
        "employee_id": args.employee_id,
        "first_name": record.get("first_name"),
        "message": f"Passcode verified for {args.employee_id}",
    }


# ---------------------------------------------------------------- the caller's records

_PROVIDER_FIELDS = (
    "npi",
    "employee_id",
    "first_name",
    "last_name",
    "facility_code",
    "role_code",
    "department_code",
    "hire_date",
)
_EMPLOYEE_FIELDS = (
    "employee_id",
    "first_name",
    "last_name",
    "department_code",
    "role_code",
    "unit_code",
    "hire_date",
    "employment_status",
)


class NpiArgs(Args):
    npi: Npi


@REGISTRY.tool(NpiArgs, writes=False, needs=("provider_auth", "otp_auth"))
def get_provider_profile(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """A provider's identity, role and department (no PIN, passcode or clearance code)."""
    record = provider(db, args.npi)
    return {"provider": {k: record[k] for k in _PROVIDER_FIELDS if k in record}}


@REGISTRY.tool(EmployeeArgs, writes=False, needs=("employee_auth", "otp_auth"))
def get_employee_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """An employee's identity, department, role, unit and employment status."""
    record = employee(db, args.employee_id)
    return {"employee": {k: record[k] for k in _EMPLOYEE_FIELDS if k in record}}


# ---------------------------------------------------------------- appointment slots

AppointmentType = Literal["orientation_followup", "return_to_work_checkin", "competency_review"]
Department = Literal[DEPARTMENTS]  # type: ignore[valid-type]


class AvailabilityArgs(Args):
    department_code: Department
    appointment_type: AppointmentType
    preferred_date: IsoDate


def _slots(db: dict[str, Any], kind: str, department: str) -> dict[str, list[str]]:
    """``appointment_availability[type][department][date]`` -> free HH:MM times."""
    return db.get("appointment_availability", {}).get(kind, {}).get(department, {})


@REGISTRY.tool(AvailabilityArgs, writes=False, needs=("employee_auth", "otp_auth"))
def check_appointment_availability(db: dict[str, Any], args: AvailabilityArgs) -> dict[str, Any]:
    """Free times for an appointment type in a department on a date; when none, up to three later dates that have
    some."""
    by_date = _slots(db, args.appointment_type, args.department_code)
    slots = list(by_date.get(args.preferred_date, []))
    if slots:
        return {
            "available_slots": slots,
            "date": args.preferred_date,
            "message": f"{len(slots)} time(s) free on {args.preferred_date}",
        }
    later = [
        {"date": day, "available_slots": list(times)}
        for day, times in sorted(by_date.items())
        if times and day >= args.preferred_date
    ][:3]
    return {
        "available_slots": [],
        "date": args.preferred_date,
        "alternative_dates": later,
        "message": f"Nothing free on {args.preferred_date} for {args.appointment_type} in {args.department_code}",
    }


def book_slot(db: dict[str, Any], kind: str, department: str, at: str) -> None:
    """Take ``at`` ('YYYY-MM-DD HH:MM') out of the free slots, or ToolError ``slot_not_available``."""
    day, time = at.split(" ")
    times = _slots(db, kind, department).get(day, [])
    if time not in times:
        raise ToolError(
            "slot_not_available",
            f"{time} on {day} is not free for {kind} in {department}; free that day: {times or 'none'}",
        )
    times.remove(time)


def appointment(kind: str, appointment_id: str, at: str, **fields: Any) -> dict[str, Any]:
    return {"appointment_id": appointment_id, "type": kind, **fields, "appointment_datetime": at, "status": "scheduled"}


def deep(value: Any) -> Any:
    """A copy for a result, so the agent's view never aliases the live DB."""
    return copy.deepcopy(value)


__all__ = ["AppointmentAt", "book_slot"]
