"""Authentication, the shared look-ups and the incident flows (login, outage, hardware malfunction, network)."""

from __future__ import annotations

import copy
from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, employee_verified, row, session_of
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    SLA_HOURS,
    TIER_OF_URGENCY,
    AffectedSystem,
    AssetTag,
    BuildingRef,
    DiagnosticRef,
    EmployeeArgs,
    EmployeeId,
    FloorCode,
    IsoDate,
    ManagerAuthCode,
    OtpCode,
    PhoneLastFour,
    ServiceName,
    TargetSystem,
    TicketNumber,
    employee,
    filed,
    require,
    today_text,
)

IncidentCategory = Literal["login_issue", "service_outage", "hardware_malfunction", "network_connectivity"]
GuideCategory = Literal["login_issue", "network_connectivity", "hardware_malfunction"]
Urgency = Literal["low", "medium", "high"]
SlaTier = Literal["tier_1", "tier_2", "tier_3"]
TimeWindow = Literal["morning", "afternoon", "full_day"]
# Lock reasons the service desk may not lift.
SECURITY_HOLDS = ("security_investigation", "admin_hold")
RECORD_FIELDS = (
    "employee_id",
    "first_name",
    "last_name",
    "department_code",
    "role_code",
    "hire_date",
    "employment_status",
    "building_code",
    "floor_code",
    "manager_employee_id",
)

# ------------------------------------------------------------------------------------------------ authentication


class EmployeeAuthArgs(ToolArgs):
    employee_id: EmployeeId
    phone_last_four: PhoneLastFour


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification: employee ID and the last four digits of the phone number on file."""
    person = employee(db, args.employee_id)
    if person.get("phone_last_four") != args.phone_last_four:
        raise ToolError("authentication_failed", "The phone digits do not match the employee record")
    return employee_verified(db, args.employee_id, person)


@REGISTRY.tool(EmployeeArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Text a one-time passcode to the phone on file; returns its last four digits to confirm with the caller."""
    if session_of(db).get("employee_auth") is not True and session_of(db).get("manager_auth") is not True:
        require(db)
    person = employee(db, args.employee_id)
    session_of(db).update(otp_employee_id=args.employee_id, otp_issued=True)
    last_four = person.get("phone_last_four")
    return {"phone_last_four": last_four, "message": f"Passcode texted to the number ending {last_four}"}


class OtpArgs(ToolArgs):
    employee_id: EmployeeId
    otp_code: OtpCode


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit passcode the caller reads from their text message."""
    session = session_of(db)
    if not session.get("otp_issued"):
        raise ToolError("otp_not_initiated", "initiate_otp_auth must be called first")
    person = employee(db, args.employee_id)
    if person.get("otp_code") != args.otp_code:
        raise ToolError("authentication_failed", "The passcode does not match")
    session["otp_auth"] = True
    session.pop("otp_employee_id", None)
    session.pop("otp_issued", None)
    return {"authenticated": True, "employee_id": args.employee_id, "message": "Passcode verified"}


class ManagerAuthArgs(ToolArgs):
    employee_id: EmployeeId
    phone_last_four: PhoneLastFour
    manager_auth_code: ManagerAuthCode


@REGISTRY.tool(ManagerAuthArgs, writes=False)
def verify_manager_auth(db: dict[str, Any], args: ManagerAuthArgs) -> dict[str, Any]:
    """Standard and manager verification in one step: employee ID, phone last four and the manager code."""
    person = employee(db, args.employee_id)
    if person.get("phone_last_four") != args.phone_last_four:
        raise ToolError("authentication_failed", "The phone digits do not match the employee record")
    if person.get("manager_auth_code") != args.manager_auth_code:
        raise ToolError("authentication_failed", "The manager authorization code does not match")
    if not person.get("is_manager"):
        raise ToolError("not_authorized", f"{args.employee_id} is not a manager")
    session_of(db).update(
        employee_auth=True,
        authenticated_employee_id=args.employee_id,
        manager_auth=True,
        manager_employee_id=args.employee_id,
    )
    return {
        "confirmed": True,
        "employee_id": args.employee_id,
        "first_name": person.get("first_name"),
        "last_name": person.get("last_name"),
        "department_code": person.get("department_code"),
        "direct_reports": person.get("direct_reports", []),
        "message": "Employee and manager verification passed",
    }


# ------------------------------------------------------------------------------------------------ shared look-ups


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def get_employee_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's department, role, hire date, status, building, floor and manager."""
    person = employee(db, args.employee_id)
    return {"employee": {k: person[k] for k in RECORD_FIELDS if k in person}}


class AssetArgs(ToolArgs):
    asset_tag: AssetTag


def _asset(db: dict[str, Any], asset_tag: str) -> dict[str, Any]:
    return row(db.get("assets", {}), asset_tag, "Asset")


@REGISTRY.tool(AssetArgs, writes=False, needs="employee_auth")
def get_asset_record(db: dict[str, Any], args: AssetArgs) -> dict[str, Any]:
    """One asset's record: type, model, purchase date, warranty, status."""
    return {"asset": copy.deepcopy(_asset(db, args.asset_tag))}


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def get_employee_assets(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The assets assigned to the employee."""
    owned = [
        copy.deepcopy(a) for a in db.get("assets", {}).values() if a.get("assigned_employee_id") == args.employee_id
    ]
    return {"employee_id": args.employee_id, "assets": owned, "message": f"{len(owned)} asset(s)"}


# ------------------------------------------------------------------------------------------------ login issues


class GuideArgs(ToolArgs):
    issue_category: GuideCategory


@REGISTRY.tool(GuideArgs, writes=False, needs="employee_auth")
def get_troubleshooting_guide(db: dict[str, Any], args: GuideArgs) -> dict[str, Any]:
    """The troubleshooting steps to walk the caller through for the issue category."""
    guide = db.get("troubleshooting_guides", {}).get(args.issue_category)
    if not guide:
        raise ToolError("guide_not_found", f"No troubleshooting guide for {args.issue_category}")
    steps = copy.deepcopy(guide["steps"])
    return {"issue_category": args.issue_category, "steps": steps, "message": f"{len(steps)} steps"}


class AccountArgs(ToolArgs):
    employee_id: EmployeeId
    target_system: TargetSystem


def _account(db: dict[str, Any], args: AccountArgs) -> dict[str, Any]:
    account = employee(db, args.employee_id).get("account_status", {}).get(args.target_system)
    if not account:
        raise ToolError("no_account", f"{args.employee_id} has no account on {args.target_system}")
    return account


@REGISTRY.tool(AccountArgs, writes=True, needs="employee_auth")
def attempt_account_unlock(db: dict[str, Any], args: AccountArgs) -> dict[str, Any]:
    """Unlock a locked account; an account under a security or admin hold stays locked (transfer the caller)."""
    account = _account(db, args)
    if account.get("locked") is not True:
        raise ToolError("not_locked", f"The account on {args.target_system} is not locked")
    reason = account.get("lock_reason")
    if reason in SECURITY_HOLDS:
        raise ToolError(
            "cannot_unlock_security_hold",
            f"The account on {args.target_system} is under {reason.replace('_', ' ')}; the service desk cannot "
            "unlock it. Offer a transfer to a live agent; security contacts the caller separately.",
            details={"lock_reason": reason},
        )
    account.update(locked=False, lock_reason=None)
    return {
        "employee_id": args.employee_id,
        "target_system": args.target_system,
        "resolved": True,
        "message": f"Account on {args.target_system} unlocked",
    }


@REGISTRY.tool(AccountArgs, writes=True, needs="employee_auth")
def attempt_password_reset(db: dict[str, Any], args: AccountArgs) -> dict[str, Any]:
    """Issue a temporary password (texted to the phone on file) unless the system requires an in-person reset."""
    account = _account(db, args)
    if account.get("requires_in_person_reset"):
        raise ToolError(
            "in_person_required",
            f"A password reset on {args.target_system} needs in-person verification at the IT security office",
        )
    account.update(password_expired=False, temp_password_issued=True)
    return {
        "employee_id": args.employee_id,
        "target_system": args.target_system,
        "resolved": True,
        "message": "Temporary password texted to the phone on file; it must be changed at the first sign-in.",
    }


# ------------------------------------------------------------------------------------------------ tickets and SLA


class TicketArgs(ToolArgs):
    employee_id: EmployeeId
    category: IncidentCategory
    urgency: Urgency
    affected_system: AffectedSystem
    troubleshooting_completed: bool


@REGISTRY.tool(TicketArgs, writes=True, needs="employee_auth")
def create_incident_ticket(db: dict[str, Any], args: TicketArgs) -> dict[str, Any]:
    """Open an incident ticket; login and network tickets need the troubleshooting done first."""
    if args.category in ("login_issue", "network_connectivity") and not args.troubleshooting_completed:
        raise ToolError(
            "troubleshooting_required", f"Troubleshooting must be completed before a {args.category} ticket"
        )
    ticket: dict[str, Any] = {
        "ticket_number": None,
        "employee_id": args.employee_id,
        "category": args.category,
        "urgency": args.urgency,
        "affected_system": args.affected_system,
        "troubleshooting_completed": args.troubleshooting_completed,
        "status": "open",
        "sla_tier": None,
        "created_date": today_text(db),
    }
    number = filed(db, "tickets", ticket, "ticket_number", "INC")
    return {
        "ticket_number": number,
        "category": args.category,
        "urgency": args.urgency,
        "message": f"Ticket {number} created",
    }


def _ticket(db: dict[str, Any], number: str) -> dict[str, Any]:
    return row(db.get("tickets", {}), number, "Ticket")


class SlaArgs(ToolArgs):
    ticket_number: TicketNumber
    sla_tier: SlaTier


@REGISTRY.tool(SlaArgs, writes=True, needs="employee_auth")
def assign_sla_tier(db: dict[str, Any], args: SlaArgs) -> dict[str, Any]:
    """Set the ticket's SLA tier; it must be the one its urgency maps to (high 1, medium 2, low 3)."""
    ticket = _ticket(db, args.ticket_number)
    wanted = TIER_OF_URGENCY.get(ticket.get("urgency"))
    if wanted and args.sla_tier != wanted:
        raise ToolError(
            "tier_urgency_mismatch",
            f"A ticket of {ticket['urgency']} urgency takes {wanted}, not {args.sla_tier}",
        )
    response, resolution = SLA_HOURS[args.sla_tier]
    ticket.update(sla_tier=args.sla_tier, sla_response_hours=response, sla_resolution_hours=resolution)
    return {
        "ticket_number": args.ticket_number,
        "sla_tier": args.sla_tier,
        "response_target": f"{response}h",
        "resolution_target": f"{resolution}h",
        "message": f"{args.sla_tier}: response within {response}h, resolution within {resolution}h",
    }


# ------------------------------------------------------------------------------------------------ outages


class OutageArgs(ToolArgs):
    service_name: ServiceName


@REGISTRY.tool(OutageArgs, writes=False, needs="employee_auth")
def check_existing_outage(db: dict[str, Any], args: OutageArgs) -> dict[str, Any]:
    """Whether an outage of the service is already on file (then add the caller to it instead of a new ticket)."""
    outage = db.get("active_outages", {}).get(args.service_name)
    if not outage:
        return {"existing_outage": False, "service_name": args.service_name, "message": "No active outage"}
    return {
        "existing_outage": True,
        "ticket_number": outage["ticket_number"],
        "service_name": args.service_name,
        "affected_user_count": outage.get("affected_user_count", 0),
        "message": f"Active outage {outage['ticket_number']}",
    }


class AffectedUserArgs(ToolArgs):
    ticket_number: TicketNumber
    employee_id: EmployeeId


@REGISTRY.tool(AffectedUserArgs, writes=True, needs="employee_auth")
def add_affected_user(db: dict[str, Any], args: AffectedUserArgs) -> dict[str, Any]:
    """Add the caller to an active outage's affected users."""
    outages = db.get("active_outages", {}).values()
    outage = next((o for o in outages if o.get("ticket_number") == args.ticket_number), None)
    if not outage:
        raise ToolError("ticket_not_found", f"No active outage {args.ticket_number}")
    affected = outage.setdefault("affected_users", [])
    if args.employee_id not in affected:
        affected.append(args.employee_id)
    outage["affected_user_count"] = len(affected)
    return {
        "ticket_number": args.ticket_number,
        "employee_id": args.employee_id,
        "total_affected": len(affected),
        "message": f"Added to {args.ticket_number}",
    }


class KnownErrorArgs(ToolArgs):
    ticket_number: TicketNumber
    service_name: ServiceName


@REGISTRY.tool(KnownErrorArgs, writes=True, needs="employee_auth")
def link_known_error(db: dict[str, Any], args: KnownErrorArgs) -> dict[str, Any]:
    """Link the service's known error (and its workaround), if there is one, to the ticket."""
    ticket = _ticket(db, args.ticket_number)
    known = db.get("known_errors", {}).get(args.service_name)
    if not known:
        return {"linked": False, "ticket_number": args.ticket_number, "message": "No known error for the service"}
    ticket["linked_known_error_id"] = known["known_error_id"]
    return {
        "linked": True,
        "ticket_number": args.ticket_number,
        "known_error_id": known["known_error_id"],
        "workaround": known.get("workaround"),
        "message": f"Linked {known['known_error_id']}",
    }


# ------------------------------------------------------------------------------------------------ dispatch, logs


class DispatchArgs(ToolArgs):
    ticket_number: TicketNumber
    employee_id: EmployeeId
    building_code: BuildingRef
    floor_code: FloorCode
    preferred_date: IsoDate
    time_window: TimeWindow


@REGISTRY.tool(DispatchArgs, writes=True, needs="employee_auth")
def schedule_field_dispatch(db: dict[str, Any], args: DispatchArgs) -> dict[str, Any]:
    """Book a field technician for the ticket on a date and window; when taken, up to three later open slots."""
    ticket = _ticket(db, args.ticket_number)
    calendar = db.get("field_dispatch_availability", {})
    slot = calendar.get(args.preferred_date, {}).get(args.time_window)
    if not slot or not slot.get("available"):
        open_slots = [
            {"date": day, "time_window": window}
            for day, windows in sorted(calendar.items())
            if day >= args.preferred_date
            for window, info in windows.items()
            if info.get("available")
        ]
        raise ToolError(
            "no_availability",
            f"No technician free on {args.preferred_date} ({args.time_window})",
            details={"alternative_slots": open_slots[:3]},
        )
    dispatch_id = f"DSP-{args.ticket_number[-7:]}"
    slot["available"] = False
    ticket.update(dispatch_id=dispatch_id, dispatch_date=args.preferred_date, dispatch_window=args.time_window)
    return {
        "dispatch_id": dispatch_id,
        "date": args.preferred_date,
        "time_window": args.time_window,
        "message": f"Dispatch {dispatch_id} booked",
    }


class DiagnosticArgs(ToolArgs):
    ticket_number: TicketNumber
    diagnostic_ref_code: DiagnosticRef


@REGISTRY.tool(DiagnosticArgs, writes=True, needs="employee_auth")
def attach_diagnostic_log(db: dict[str, Any], args: DiagnosticArgs) -> dict[str, Any]:
    """Attach the network diagnostic's reference code (read by the caller) to the ticket."""
    ticket = _ticket(db, args.ticket_number)
    ticket.update(diagnostic_ref_code=args.diagnostic_ref_code, diagnostic_attached=True)
    return {
        "ticket_number": args.ticket_number,
        "diagnostic_ref_code": args.diagnostic_ref_code,
        "message": "Diagnostic log attached",
    }
