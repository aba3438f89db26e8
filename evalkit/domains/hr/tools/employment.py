"""Employment-record tools: FMLA leave, I-9 verification, visa dependents, PTO, and the hand-over to a live agent.

Policy the tools hold: FMLA only when the eligibility on file says so; return-to-work check-ins not before the
leave ends; PTO days are the weekdays less holidays (standard schedule) or the scheduled shifts (shift workers) in
the range, within balance, outside department blackouts and existing requests.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolError, session_of
from evalkit.domains.hr.tools.auth import Department, EmployeeArgs, appointment, book_slot, deep
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    AppointmentAt,
    Args,
    CaseId,
    CountryCode,
    EmployeeId,
    IsoDate,
    Name,
    PetitionNumber,
    authenticated,
    case_id,
    employee,
    notified,
)

# ---------------------------------------------------------------- FMLA leave


@REGISTRY.tool(EmployeeArgs, writes=False, needs="otp_auth")
def check_leave_eligibility(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """FMLA eligibility on file (12 months employed, 1,250 hours in the past year), with the weeks left."""
    on_file = employee(db, args.employee_id).get("fmla_eligibility", {})
    if not on_file.get("eligible"):
        raise ToolError(
            "not_eligible",
            on_file.get("reason") or "The employee does not meet FMLA eligibility",
            months_employed=on_file.get("months_employed"),
            hours_worked_past_year=on_file.get("hours_worked_past_year"),
        )
    return {
        "eligible": True,
        "months_employed": on_file.get("months_employed"),
        "hours_worked_past_year": on_file.get("hours_worked_past_year"),
        "fmla_weeks_remaining": on_file.get("fmla_weeks_remaining"),
        "message": "The employee is eligible for FMLA leave",
    }


class FmlaArgs(Args):
    employee_id: EmployeeId
    leave_category: Literal[
        "employee_medical_condition", "family_member_serious_illness", "bonding", "military_exigency"
    ]
    leave_start_date: IsoDate
    leave_end_date: IsoDate


@REGISTRY.tool(FmlaArgs, writes=True, needs="otp_auth")
def submit_fmla_case(db: dict[str, Any], args: FmlaArgs) -> dict[str, Any]:
    """Open an FMLA leave case for a category and date range."""
    record = employee(db, args.employee_id)
    case = case_id("FMLA", args.employee_id)
    leave = args.model_dump(exclude={"employee_id"})
    record.setdefault("leave_records", []).append({"case_id": case, **leave, "status": "open"})
    return {"employee_id": args.employee_id, "case_id": case, **leave, "message": f"FMLA case {case} opened"}


class ReturnToWorkArgs(Args):
    employee_id: EmployeeId
    case_id: CaseId
    department_code: Department
    appointment_datetime: AppointmentAt


@REGISTRY.tool(ReturnToWorkArgs, writes=True, needs="otp_auth")
def schedule_return_to_work_checkin(db: dict[str, Any], args: ReturnToWorkArgs) -> dict[str, Any]:
    """Book the return-to-work check-in of a leave case, on or after the leave's end, in a free slot."""
    record = employee(db, args.employee_id)
    leave = next((r for r in record.get("leave_records", []) if r.get("case_id") == args.case_id), None)
    day = args.appointment_datetime.split(" ")[0]
    if leave and leave.get("leave_end_date") and day < leave["leave_end_date"]:
        raise ToolError(
            "appointment_before_leave_end",
            f"The check-in must be on or after the leave's end ({leave['leave_end_date']}), not {day}",
        )
    book_slot(db, "return_to_work_checkin", args.department_code, args.appointment_datetime)
    booked = case_id("RTW", args.employee_id)
    record.setdefault("scheduled_appointments", []).append(
        appointment("return_to_work_checkin", booked, args.appointment_datetime, fmla_case_id=args.case_id)
    )
    return {
        "employee_id": args.employee_id,
        "appointment_id": booked,
        "case_id": args.case_id,
        "appointment_datetime": args.appointment_datetime,
        "message": f"Return-to-work check-in booked for {args.appointment_datetime} ({booked})",
    }


# ---------------------------------------------------------------- I-9


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def get_i9_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's I-9 employment eligibility record."""
    i9 = employee(db, args.employee_id).get("i9_record")
    if not i9:
        raise ToolError("i9_record_not_found", f"No I-9 record for {args.employee_id}")
    return {"i9_record": deep(i9)}


class I9Args(Args):
    employee_id: EmployeeId
    verification_action: Literal["initial_verification", "reverification"]
    document_list_type: Literal["LIST_A", "LIST_B", "LIST_C"]
    document_type_code: Literal[
        "US_PASSPORT", "PERM_RESIDENT_CARD", "EAD", "DRIVERS_LICENSE", "STATE_ID", "SSN_CARD", "BIRTH_CERT"
    ]
    document_number: Annotated[str, Field(pattern=r"^[A-Z0-9]{6,12}$", description="6-12 capitals or digits")]
    document_expiration_date: IsoDate
    issuing_country_code: CountryCode


@REGISTRY.tool(I9Args, writes=True, needs="employee_auth")
def submit_i9_verification(db: dict[str, Any], args: I9Args) -> dict[str, Any]:
    """Record the document seen for an I-9 verification or reverification."""
    record = employee(db, args.employee_id)
    case = case_id("I9V", args.employee_id)
    document = args.model_dump(exclude={"employee_id"})
    if not record.get("i9_record"):
        record["i9_record"] = {}
    record["i9_record"].update(document, verification_status="verified", case_id=case)
    return {
        "employee_id": args.employee_id,
        **document,
        "case_id": case,
        "message": f"I-9 {args.verification_action} recorded, case {case}",
    }


class ComplianceArgs(Args):
    employee_id: EmployeeId
    case_id: CaseId
    notification_type: Literal["i9_verified", "i9_reverified"]


@REGISTRY.tool(ComplianceArgs, writes=True, needs="employee_auth")
def notify_hr_compliance(db: dict[str, Any], args: ComplianceArgs) -> dict[str, Any]:
    """Tell HR compliance an I-9 was verified."""
    employee(db, args.employee_id)
    return notified(db, "hr_compliance", args, f"HR compliance notified ({args.notification_type})")


# ---------------------------------------------------------------- visa dependents


class VisaArgs(Args):
    employee_id: EmployeeId
    visa_petition_number: PetitionNumber


def _visa(db: dict[str, Any], args: VisaArgs) -> dict[str, Any]:
    authenticated(db, "otp_auth")
    visa = employee(db, args.employee_id).get("visa_record")
    if not visa or visa.get("petition_number") != args.visa_petition_number:
        raise ToolError(
            "visa_record_not_found", f"Petition {args.visa_petition_number} not found for {args.employee_id}"
        )
    return visa


@REGISTRY.tool(VisaArgs, writes=False)
def get_visa_record(db: dict[str, Any], args: VisaArgs) -> dict[str, Any]:
    """The employee's visa petition and its dependents."""
    return {"visa_record": deep(_visa(db, args))}


class DependentArgs(VisaArgs):
    dependent_first_name: Name
    dependent_last_name: Name
    relationship: Literal["spouse", "child", "domestic_partner"]
    dependent_date_of_birth: IsoDate
    dependent_country_of_birth: CountryCode
    uscis_receipt_number: PetitionNumber


@REGISTRY.tool(DependentArgs, writes=True)
def add_visa_dependent(db: dict[str, Any], args: DependentArgs) -> dict[str, Any]:
    """Add a spouse, child or domestic partner to the petition (an amendment)."""
    visa = _visa(db, args)
    amendment = case_id("VISA", args.employee_id)
    visa.setdefault("dependents", []).append(
        {
            "first_name": args.dependent_first_name,
            "last_name": args.dependent_last_name,
            "relationship": args.relationship,
            "date_of_birth": args.dependent_date_of_birth,
            "country_of_birth": args.dependent_country_of_birth,
            "uscis_receipt_number": args.uscis_receipt_number,
            "amendment_id": amendment,
            "status": "pending",
        }
    )
    visa["amendment_id"] = amendment
    return {
        "employee_id": args.employee_id,
        "visa_petition_number": args.visa_petition_number,
        "dependent_name": f"{args.dependent_first_name} {args.dependent_last_name}",
        "relationship": args.relationship,
        "dependent_date_of_birth": args.dependent_date_of_birth,
        "dependent_country_of_birth": args.dependent_country_of_birth,
        "uscis_receipt_number": args.uscis_receipt_number,
        "amendment_id": amendment,
        "message": f"Dependent added to petition {args.visa_petition_number}, amendment {amendment}",
    }


class CounselArgs(VisaArgs):
    # A one-value enum, exported as an enum (pydantic would write "const") like the other notification types.
    notification_type: Annotated[Literal["dependent_added"], Field(json_schema_extra={"enum": ["dependent_added"]})]


@REGISTRY.tool(CounselArgs, writes=True, needs="otp_auth")
def notify_immigration_counsel(db: dict[str, Any], args: CounselArgs) -> dict[str, Any]:
    """Tell immigration counsel about a petition change."""
    employee(db, args.employee_id)
    return notified(db, "immigration_counsel", args, f"Immigration counsel notified ({args.notification_type})")


# ---------------------------------------------------------------- PTO


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def get_pto_balance(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """PTO and sick balances, and whether the employee's PTO days count weekdays or scheduled shifts."""
    record = employee(db, args.employee_id)
    if not record.get("pto_balances"):
        raise ToolError("pto_record_not_found", f"No PTO balances for {args.employee_id}")
    schedule = record.get("schedule_type", "standard")
    return {
        "employee_id": args.employee_id,
        "schedule_type": schedule,
        "pto_balances": deep(record["pto_balances"]),
        "message": f"Balances found; PTO days count as a {schedule} schedule",
    }


class PtoArgs(Args):
    employee_id: EmployeeId
    pto_type: Literal["pto", "sick"]
    start_date: IsoDate
    end_date: IsoDate


def pto_days(db: dict[str, Any], record: dict[str, Any], start: str, end: str) -> list[str]:
    """The days a request uses: weekdays less holidays (standard schedule), else the scheduled shift dates."""
    if record.get("schedule_type", "standard") == "standard":
        first, last = date.fromisoformat(start), date.fromisoformat(end)
        holidays = set(db.get("org_holidays", []))
        days = (first + timedelta(n) for n in range((last - first).days + 1))
        return [d.isoformat() for d in days if d.weekday() < 5 and d.isoformat() not in holidays]
    employee_id = record.get("employee_id")
    shifts = db.get("shifts", {}).values()
    return sorted(
        {s["date"] for s in shifts if s.get("employee_id") == employee_id and start <= s.get("date", "") <= end}
    )


def _pto_request(db: dict[str, Any], args: PtoArgs, with_counts: bool) -> tuple[dict[str, Any], list[str], float]:
    authenticated(db, "employee_auth")
    record = employee(db, args.employee_id)
    if args.start_date > args.end_date:
        raise ToolError("invalid_date_range", "The start date must not be after the end date")
    days = pto_days(db, record, args.start_date, args.end_date)
    balance = record.get("pto_balances", {}).get(args.pto_type, 0.0)
    if len(days) > balance:
        raise ToolError(
            "insufficient_pto_balance",
            f"{float(len(days))} {args.pto_type} days needed, {balance} available",
            **({"pto_days_required": float(len(days)), "current_balance": balance} if with_counts else {}),
        )
    return record, days, balance


@REGISTRY.tool(PtoArgs, writes=False)
def check_pto_eligibility(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """Whether the range can be taken (balance, department blackouts, overlapping requests) and the days it uses."""
    record, days, balance = _pto_request(db, args, with_counts=True)
    blackouts = set(db.get("department_blackout_dates", {}).get(record.get("department_code", ""), []))
    blocked = sorted(set(days) & blackouts)
    if blocked:
        raise ToolError(
            "blackout_date_conflict",
            f"The range includes department blackout dates {blocked}",
            conflicting_dates=blocked,
        )
    for request in record.get("pto_requests", []):
        if request.get("status") in ("pending", "approved") and (
            args.start_date <= request.get("end_date", "") and args.end_date >= request.get("start_date", "")
        ):
            raise ToolError(
                "pto_overlap",
                f"The range overlaps request {request.get('case_id')} "
                f"({request.get('start_date')} to {request.get('end_date')})",
                overlapping_case_id=request.get("case_id"),
            )
    needed = float(len(days))
    return {
        "eligible": True,
        "employee_id": args.employee_id,
        "schedule_type": record.get("schedule_type", "standard"),
        "pto_type": args.pto_type,
        "pto_days_required": needed,
        "working_days_in_range": days,
        "current_balance": balance,
        "remaining_after": balance - needed,
        "message": f"{needed} {args.pto_type} day(s) needed, {balance - needed} left afterwards",
    }


@REGISTRY.tool(PtoArgs, writes=True)
def submit_pto_request(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """File the request and deduct its days (counted here, not taken from the agent) from the balance."""
    record, days, balance = _pto_request(db, args, with_counts=False)
    used = float(len(days))
    record["pto_balances"][args.pto_type] = balance - used
    case = case_id("PTO", args.employee_id)
    request = {
        "case_id": case,
        "pto_type": args.pto_type,
        "start_date": args.start_date,
        "end_date": args.end_date,
        "pto_days_deducted": used,
        "working_days": days,
        "status": "pending",
    }
    record.setdefault("pto_requests", []).append(request)
    return {
        "employee_id": args.employee_id,
        **{k: v for k, v in request.items() if k != "status"},
        "remaining_balance": balance - used,
        "message": f"PTO request {case} filed; {used} day(s) deducted",
    }


# ---------------------------------------------------------------- escalation


class TransferArgs(Args):
    employee_id: EmployeeId
    transfer_reason: Literal[
        "caller_requested", "policy_exception_needed", "unable_to_resolve", "complaint_escalation", "technical_issue"
    ]
    issue_summary: str


@REGISTRY.tool(TransferArgs, writes=False)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live HR agent (the DB is unchanged; the hand-over is the call's outcome)."""
    session = session_of(db)
    # The n-th transfer of the call, numbered like EVA-Bench's per-tool call index.
    session["transfers"] = session.get("transfers", 0) + 1
    return {
        "transfer_id": f"TRF-{args.employee_id}-{session['transfers']:03d}",
        "employee_id": args.employee_id,
        "transfer_reason": args.transfer_reason,
        "issue_summary": args.issue_summary,
        "estimated_wait": "2-3 minutes",
        "message": "Transferring to a live agent",
    }
