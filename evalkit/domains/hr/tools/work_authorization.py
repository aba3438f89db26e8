"""Work authorization: I-9 verification (with the HR-compliance notice) and visa petitions with dependents."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import field_validator

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    Code,
    CountryCode,
    EmployeeArgs,
    IsoDate,
    _DateArgs,
    _notify,
    _require_employee,
    _require_otp,
    _today,
)

# ---------------------------------------------------------------- I-9


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_i9_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's I-9 record, if any."""
    _require_employee(db, args.employee_id)
    record = db["i9_records"].get(args.employee_id)
    return {"has_record": record is not None, "i9": record}


DocumentType = Literal[
    "us_passport",
    "foreign_passport",
    "permanent_resident_card",
    "employment_authorization_document",
    "drivers_license",
    "state_id",
    "social_security_card",
    "birth_certificate",
]


class I9Args(_DateArgs):
    employee_id: Code
    verification_type: Literal["initial", "reverification"]
    document_list: Literal["list_a", "list_b_and_c"]
    document_type: DocumentType
    document_number: Code
    expiration_date: IsoDate
    country_of_issue: CountryCode

    @field_validator("document_number")
    @classmethod
    def _doc(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z0-9]{6,12}", value):
            raise ValueError("document numbers are 6 to 12 letters and digits")
        return value

    @field_validator("country_of_issue")
    @classmethod
    def _iso2(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{2}", value):
            raise ValueError("country of issue must be a two-letter ISO code")
        return value


@REGISTRY.tool(I9Args, writes=True)
def submit_i9_verification(db: dict[str, Any], args: I9Args) -> dict[str, Any]:
    """Record I-9 documents (needs a live new-hire record; reverification needs an I-9 on file)."""
    _require_employee(db, args.employee_id)
    if not db["onboarding"].get(args.employee_id):
        raise ToolError("record_not_live", "the new-hire record is not set up yet; refer the caller to HR")
    existing = db["i9_records"].get(args.employee_id)
    if args.verification_type == "reverification" and existing is None:
        raise ToolError("no_prior_i9", "reverification needs an I-9 on file")
    if args.expiration_date <= _today(db).isoformat():
        raise ToolError("document_expired", "the document has expired")
    verification_id = f"I9V{len(db['i9_verifications']) + 1:02d}{args.employee_id[-4:]}"
    record = {
        "verification_id": verification_id,
        "verification_type": args.verification_type,
        "document_list": args.document_list,
        "document_type": args.document_type,
        "document_number": args.document_number,
        "expiration_date": args.expiration_date,
        "country_of_issue": args.country_of_issue,
        "status": "verified",
    }
    db["i9_verifications"][verification_id] = {"employee_id": args.employee_id, **record}
    db["i9_records"][args.employee_id] = record
    return {"verification_id": verification_id}


class HrComplianceArgs(ToolArgs):
    employee_id: Code
    verification_id: str


@REGISTRY.tool(HrComplianceArgs, writes=True)
def notify_hr_compliance(db: dict[str, Any], args: HrComplianceArgs) -> dict[str, Any]:
    """Tell HR compliance about an I-9 submission."""
    _require_employee(db, args.employee_id)
    return _notify(db, "hr_compliance", employee_id=args.employee_id, case_id=args.verification_id)


# ---------------------------------------------------------------- visa


class VisaArgs(ToolArgs):
    employee_id: Code
    petition_number: Code


def _petition(db: dict[str, Any], employee_id: str, number: str) -> dict[str, Any]:
    _require_otp(db, employee_id)
    record = db["visa_records"].get(number)
    if record is None or record["employee_id"] != employee_id:
        raise ToolError("petition_not_found", f"no visa petition {number} for this employee")
    return record


@REGISTRY.tool(VisaArgs, writes=False)
def get_visa_record(db: dict[str, Any], args: VisaArgs) -> dict[str, Any]:
    """The visa petition (type, status, dependents); needs OTP."""
    return {"visa": _petition(db, args.employee_id, args.petition_number)}


class DependentArgs(_DateArgs):
    employee_id: Code
    petition_number: Code
    dependent_first_name: str
    dependent_last_name: str
    relationship: Literal["spouse", "child", "domestic_partner"]
    dependent_date_of_birth: IsoDate
    country_of_birth: CountryCode
    uscis_receipt_number: Code

    @field_validator("uscis_receipt_number")
    @classmethod
    def _receipt(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{3}\d{10}", value):
            raise ValueError("a USCIS receipt number is three letters and ten digits")
        return value


@REGISTRY.tool(DependentArgs, writes=True)
def add_visa_dependent(db: dict[str, Any], args: DependentArgs) -> dict[str, Any]:
    """Add a dependent to the petition through a USCIS amendment."""
    record = _petition(db, args.employee_id, args.petition_number)
    if args.uscis_receipt_number == args.petition_number:
        raise ToolError("receipt_is_petition", "the USCIS receipt number differs from the petition number")
    if args.dependent_date_of_birth > _today(db).isoformat():
        raise ToolError("invalid_date_of_birth", "the date of birth is in the future")
    dependent_id = f"DEP{len(record['dependents']) + 1:02d}{args.petition_number[-4:]}"
    record["dependents"].append(
        {
            "dependent_id": dependent_id,
            "first_name": args.dependent_first_name,
            "last_name": args.dependent_last_name,
            "relationship": args.relationship,
            "date_of_birth": args.dependent_date_of_birth,
            "country_of_birth": args.country_of_birth,
            "uscis_receipt_number": args.uscis_receipt_number,
        }
    )
    record["amendment_status"] = "amendment_filed"
    return {"dependent_id": dependent_id}


class CounselArgs(ToolArgs):
    employee_id: Code
    petition_number: Code
    dependent_id: str


@REGISTRY.tool(CounselArgs, writes=True)
def notify_immigration_counsel(db: dict[str, Any], args: CounselArgs) -> dict[str, Any]:
    """Tell immigration counsel about a petition amendment."""
    _petition(db, args.employee_id, args.petition_number)
    return _notify(
        db,
        "immigration_counsel",
        employee_id=args.employee_id,
        case_id=args.dependent_id,
        petition_number=args.petition_number,
    )
