"""What every medical_hr tool shares: the one ``REGISTRY``, the identifier formats of EVA-Bench's medical_hr tool
API (as its agent configuration exports them), the authentication guards over the DB's ``session`` table, record
look-ups, case ids and notifications.

The formats are the API's contract: a value outside them is refused with an ``invalid_<field>_format``-style error
before the tool runs, as EVA-Bench's executor does. Dates also accept the spoken form ('March 4, 1986'), a superset
that changes nothing for ISO input, because the local agent passes the caller's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, ValidationError

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, row, session_of
from evalkit.spoken import MONTHS


def normalize_date(value: Any) -> Any:
    """ISO or spoken-form dates ('February 14, 1991', 'February 14th 1991') -> ISO, because dates of birth and
    document expiries lie in other years than the call and so reach the tool as the caller's words."""
    if not isinstance(value, str):
        return value
    text = value.strip().rstrip(".")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    match = re.search(r"([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text)
    if match and match.group(1).lower() in MONTHS:
        month = MONTHS[match.group(1).lower()]
        try:
            return date(int(match.group(3)), month, int(match.group(2))).isoformat()
        except ValueError:
            return value
    return value


class Args(ToolArgs):
    # EVA-Bench's argument models ignore unknown keys; an agent's extra argument is not an error there either.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


def _fmt(pattern: str, what: str, example: str) -> Any:
    return Field(pattern=pattern, description=what, examples=[example])


EmployeeId = Annotated[str, _fmt(r"^EMP\d{6}$", "EMP and 6 digits", "EMP102938")]
Npi = Annotated[str, _fmt(r"^\d{10}$", "a 10-digit NPI", "1928374650")]
FacilityCode = Annotated[
    str, _fmt(r"^[A-Z]{2,4}-\d{2}[A-Z]$", "2-4 capital letters, a dash, 2 digits and a capital letter", "RVH-07C")
]
Pin = Annotated[str, _fmt(r"^\d{4}$", "4 digits", "5150")]
Otp = Annotated[str, _fmt(r"^\d{6}$", "6 digits", "204816")]
IsoDate = Annotated[str, BeforeValidator(normalize_date), _fmt(r"^\d{4}-\d{2}-\d{2}$", "YYYY-MM-DD", "2027-01-15")]
AppointmentAt = Annotated[
    str, _fmt(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$", "a date and time as YYYY-MM-DD HH:MM", "2027-01-15 10:30")
]
DeaNumber = Annotated[str, _fmt(r"^[A-Z]{2}\d{7}$", "2 capital letters and 7 digits", "FT1234567")]
StateLicense = Annotated[
    str, _fmt(r"^[A-Z]{2}-[A-Z]{2,4}-\d{6,8}$", "STATE-TYPE-NUMBER (6 to 8 digits)", "OR-RN-7654321")
]
PolicyNumber = Annotated[str, _fmt(r"^POL-\d{4}-[A-Z0-9]{6}$", "POL-YYYY-XXXXXX", "POL-2027-QZ12B4")]
ShiftId = Annotated[str, _fmt(r"^SHF-\d{8}-\d{4}$", "SHF-YYYYMMDD-HHMM", "SHF-20270115-1900")]
CaseId = Annotated[str, _fmt(r"^CASE-[A-Z0-9]{2,6}-\d{6}$", "CASE-PREFIX-6 digits", "CASE-PTO-102938")]
PrivilegeCode = Annotated[str, _fmt(r"^PRV-[A-Z]{2,6}-\d{3}$", "PRV-CATEGORY-3 digits", "PRV-NEURO-004")]
UnitCode = Annotated[str, _fmt(r"^\d{1,2}[A-Z]-[A-Z]{2,6}$", "floor and wing, a dash, the unit type", "6C-CARD")]
ClearanceCode = Annotated[str, _fmt(r"^CLR-[A-Z]{2,4}-\d{6}$", "CLR-LETTERS-6 digits", "CLR-OH-556677")]
PetitionNumber = Annotated[str, _fmt(r"^[A-Z]{3}\d{10}$", "3 capital letters and 10 digits", "EAC2698765432")]
CountryCode = Annotated[str, _fmt(r"^[A-Z]{2}$", "an ISO 3166-1 alpha-2 country code", "PH")]
StateCode = Annotated[
    str,
    _fmt(
        r"^(AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH"
        r"|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|GU|VI|AS|MP)$",
        "a 2-letter US state or territory code",
        "OR",
    ),
]
Name = Annotated[str, _fmt(r"^[A-Za-z\-]{2,30}$", "2-30 letters or hyphens", "Anne-Marie")]

DEPARTMENTS = (
    "CARDIOLOGY",
    "EMERGENCY",
    "ONCOLOGY",
    "SURGERY",
    "NEUROLOGY",
    "PEDIATRICS",
    "RADIOLOGY",
    "PATHOLOGY",
    "ORTHOPEDICS",
    "OBSTETRICS",
)

# field -> error_type of an invalid value (EVA-Bench's error names; fields not listed: invalid_parameter).
_FORMAT_ERRORS = {
    "employee_id": "invalid_employee_id_format",
    "colleague_employee_id": "invalid_employee_id_format",
    "npi": "invalid_npi_format",
    "supervising_physician_npi": "invalid_npi_format",
    "facility_code": "invalid_facility_code_format",
    "new_facility_code": "invalid_facility_code_format",
    "pin": "invalid_pin_format",
    "otp_code": "invalid_otp_format",
    "state_license_number": "invalid_license_number_format",
    "extension_type": "invalid_extension_type",
    "extension_days": "invalid_extension_days",
    "shift_id": "invalid_shift_id_format",
    "unit_code": "invalid_unit_code_format",
    "new_carrier": "invalid_carrier",
    "new_policy_number": "invalid_policy_number_format",
    "per_occurrence_limit_usd": "invalid_coverage_limit",
    "aggregate_limit_usd": "invalid_coverage_limit",
    "task_code": "invalid_task_code",
    "dea_number": "invalid_dea_number_format",
    "new_state_code": "invalid_state_code_format",
    "state_code": "invalid_state_code_format",
    "transfer_reason": "invalid_transfer_reason",
    "leave_category": "invalid_leave_category",
    "correction_type": "invalid_correction_type",
    "corrected_hours": "invalid_hours",
    "privilege_codes": "invalid_privilege_code",
    "clearance_code": "invalid_clearance_code_format",
    "leave_type_on_record": "invalid_leave_type_on_record",
    "access_change_type": "invalid_access_change_type",
    "appointment_type": "invalid_appointment_type",
    "appointment_datetime": "invalid_appointment_datetime_format",
    "oncall_tier": "invalid_oncall_tier",
    "verification_action": "invalid_verification_action",
    "document_list_type": "invalid_document_list_type",
    "document_type_code": "invalid_document_type_code",
    "document_number": "invalid_document_number_format",
    "issuing_country_code": "invalid_country_code_format",
    "dependent_country_of_birth": "invalid_country_code_format",
    "notification_type": "invalid_notification_type",
    "visa_petition_number": "invalid_petition_number_format",
    "uscis_receipt_number": "invalid_uscis_receipt_format",
    "dependent_first_name": "invalid_name_format",
    "dependent_last_name": "invalid_name_format",
    "relationship": "invalid_relationship",
    "department_code": "invalid_department_code",
    "case_id": "invalid_case_id_format",
    "pto_type": "invalid_pto_type",
}


def invalid_args(exc: ValidationError, model: type[ToolArgs]) -> tuple[str, str]:
    """The first invalid (or missing) field as EVA-Bench names it: ``invalid_<what>`` (dates:
    ``invalid_date_format``) with the value and the format it must have; other fields: ``invalid_parameter``."""
    errors = exc.errors()
    for error in errors:
        field = str(error["loc"][0]) if error.get("loc") else ""
        if field not in model.model_fields:
            continue
        error_type = _FORMAT_ERRORS.get(field) or ("invalid_date_format" if "date" in field else None)
        if error_type is None:
            continue
        info = model.model_fields[field]
        why = f"must be {info.description}" if info.description else error.get("msg", "invalid")
        return error_type, f"Invalid {field} {error.get('input')!r}: {why}"
    first = errors[0] if errors else {}
    field = str(first["loc"][0]) if first.get("loc") else "parameter"
    return "invalid_parameter", f"Invalid or missing parameter {field!r}: {first.get('msg', 'invalid')}"


# ---------------------------------------------------------------- session and look-ups


def authenticated(db: dict[str, Any], *tiers: str) -> None:
    """ToolError unless one of ``tiers`` (employee_auth, provider_auth, otp_auth) is passed in this call."""
    session = session_of(db)
    if not any(session.get(tier) is True for tier in tiers):
        raise ToolError(
            "authentication_required",
            f"Authentication ({' or '.join(tiers)}) must be completed before calling this tool",
        )


def _any_tier(db: dict[str, Any], tiers: tuple[str, ...]) -> None:
    authenticated(db, *tiers)


REGISTRY = ToolRegistry(invalid_args=invalid_args, authorize=_any_tier)


def employee(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    return row(db.get("employees", {}), employee_id, "Employee")


def provider(db: dict[str, Any], npi: str) -> dict[str, Any]:
    return row(db.get("providers", {}), npi, "Provider with NPI")


def case_id(prefix: str, owner: str) -> str:
    """Case and appointment ids are derived, not counted (``CASE-<prefix>-<last 6 of the owner id>``), so the same
    request on the same record yields the same id in every run, as EVA-Bench's expected DBs hold."""
    return f"CASE-{prefix}-{owner[-6:]}"


def notify(db: dict[str, Any], notice: dict[str, Any]) -> None:
    """Record a notification once: a repeated identical notice is not a second one."""
    notifications = db.setdefault("notifications", [])
    if notice not in notifications:
        notifications.append(notice)


def notified(db: dict[str, Any], recipient: str, args: ToolArgs, message: str, **fields: Any) -> dict[str, Any]:
    """A notification tool's write and answer: the notice to ``recipient`` carries the tool's arguments (then
    ``fields``), recorded once; the answer echoes the arguments with ``message``."""
    notify(db, {"recipient": recipient, **args.model_dump(), **fields})
    return {**args.model_dump(), "message": message}


def current_date(db: dict[str, Any]) -> str:
    """The scenario's "today" (ISO), from the DB's ``_current_date``; empty when a DB has none."""
    return str(db.get("_current_date") or "")


ToolFn = Callable[[dict[str, Any], Any], dict[str, Any]]
