"""Incident tickets: outages and affected users, ticket creation, SLA tiers, known errors, field dispatch and
diagnostic logs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.itsm.tools.common import (
    REGISTRY,
    SLA_OF_URGENCY,
    SLA_TARGETS,
    TROUBLESHOOT_FIRST,
    URGENCY_OF_IMPACT,
    Impact,
    IncidentCategory,
    SlaTier,
    _asset,
    _next_id,
    _require_auth,
    _resolve_name,
    _ticket,
)

# ------------------------------------------------------------------------------------------------ incidents


class OutageArgs(ToolArgs):
    service_name: str


@REGISTRY.tool(OutageArgs, writes=False)
def check_existing_outage(db: dict[str, Any], args: OutageArgs) -> dict[str, Any]:
    """An active outage already reported for a service, if any."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "verify_employee_auth must succeed first")
    service = _resolve_name(db["services"], args.service_name, "service")
    session_of(db).setdefault("outage_checks", {})[service["service_id"]] = True
    for outage in db["outages"].values():
        if outage["service_id"] == service["service_id"] and outage["status"] == "active":
            return {"outage_exists": True, "service_id": service["service_id"], "outage": outage}
    return {"outage_exists": False, "service_id": service["service_id"], "outage": None}


class AffectedUserArgs(ToolArgs):
    outage_id: str
    employee_id: str


@REGISTRY.tool(AffectedUserArgs, writes=True)
def add_affected_user(db: dict[str, Any], args: AffectedUserArgs) -> dict[str, Any]:
    """Add the caller to an existing outage's affected users (instead of a duplicate ticket)."""
    employee = _require_auth(db, args.employee_id)
    outage = db["outages"].get(args.outage_id.upper())
    if outage is None or outage["status"] != "active":
        raise ToolError("outage_not_found", f"no active outage {args.outage_id}")
    if employee["employee_id"] in outage["affected_users"]:
        raise ToolError("already_affected_user", "the caller is already on this outage")
    outage["affected_users"].append(employee["employee_id"])
    return {"outage_id": outage["outage_id"], "ticket_number": outage["ticket_number"], "sla_tier": outage["sla_tier"]}


class TicketArgs(ToolArgs):
    employee_id: str
    category: IncidentCategory
    impact: Impact
    affected_system: str
    description: str = ""
    troubleshooting_completed: bool = False


@REGISTRY.tool(TicketArgs, writes=True)
def create_incident_ticket(db: dict[str, Any], args: TicketArgs) -> dict[str, Any]:
    """Open an incident ticket; urgency follows the described impact (blocked/degraded/minor -> high/medium/low).

    Login, hardware and network tickets need failed troubleshooting on this call; outages need a prior outage
    check that found nothing.
    """
    employee = _require_auth(db, args.employee_id)
    session = session_of(db)
    if args.category in TROUBLESHOOT_FIRST:
        state = session.get("troubleshooting", {}).get(args.category)
        if state is None or not args.troubleshooting_completed:
            raise ToolError("troubleshooting_required", "troubleshooting must be attempted and fail before a ticket")
        if state == "resolved":
            raise ToolError("already_resolved", "the issue was resolved during the call: no ticket")
        session["troubleshooting"][args.category] = "escalated"
    else:
        service = _resolve_name(db["services"], args.affected_system, "service")
        if not session.get("outage_checks", {}).get(service["service_id"]):
            raise ToolError("outage_check_required", "check_existing_outage for this service must come first")
        if any(o["service_id"] == service["service_id"] and o["status"] == "active" for o in db["outages"].values()):
            raise ToolError("duplicate_outage", "an outage is already on file: add the caller as an affected user")
    urgency = URGENCY_OF_IMPACT[args.impact]
    number = _next_id(db, "incident", "INC")
    db["incidents"][number] = {
        "ticket_number": number,
        "employee_id": employee["employee_id"],
        "category": args.category,
        "urgency": urgency,
        "affected_system": args.affected_system,
        "description": args.description,
        "troubleshooting_completed": args.troubleshooting_completed,
        "status": "open",
        "sla_tier": None,
        "known_error_id": None,
        "diagnostic_log": None,
        "opened": db["current_date"],
    }
    if args.category == "service_outage":
        service = _resolve_name(db["services"], args.affected_system, "service")
        outage_id = _next_id(db, "outage", "OUT", 5)
        db["outages"][outage_id] = {
            "outage_id": outage_id,
            "service_id": service["service_id"],
            "status": "active",
            "ticket_number": number,
            "affected_users": [employee["employee_id"]],
            "sla_tier": SLA_OF_URGENCY[urgency],
        }
    return {"ticket_number": number, "urgency": urgency, "policy_sla_tier": SLA_OF_URGENCY[urgency]}


class SlaArgs(ToolArgs):
    ticket_number: str
    sla_tier: SlaTier


@REGISTRY.tool(SlaArgs, writes=True)
def assign_sla_tier(db: dict[str, Any], args: SlaArgs) -> dict[str, Any]:
    """Assign the SLA tier matching the ticket's urgency (a mismatch is refused: no urgency inflation)."""
    ticket = _ticket(db, args.ticket_number)
    _require_auth(db, ticket["employee_id"])
    if SLA_OF_URGENCY[ticket["urgency"]] != args.sla_tier:
        raise ToolError("sla_tier_mismatch", f"{ticket['urgency']} urgency maps to {SLA_OF_URGENCY[ticket['urgency']]}")
    ticket["sla_tier"] = args.sla_tier
    response, resolution = SLA_TARGETS[args.sla_tier]
    return {"ticket_number": ticket["ticket_number"], "response_target": response, "resolution_target": resolution}


class TicketNumberArgs(ToolArgs):
    ticket_number: str


@REGISTRY.tool(TicketNumberArgs, writes=True)
def link_known_error(db: dict[str, Any], args: TicketNumberArgs) -> dict[str, Any]:
    """Link a new outage ticket to a matching known error, if one exists, and return its workaround."""
    ticket = _ticket(db, args.ticket_number)
    _require_auth(db, ticket["employee_id"])
    service = _resolve_name(db["services"], ticket["affected_system"], "service")
    for error in db["known_errors"].values():
        if error["service_id"] == service["service_id"]:
            ticket["known_error_id"] = error["known_error_id"]
            return {"linked": True, "known_error_id": error["known_error_id"], "workaround": error["workaround"]}
    return {"linked": False, "known_error_id": None, "workaround": None}


class DispatchArgs(ToolArgs):
    ticket_number: str
    asset_tag: str
    preferred_date: str
    time_window: Literal["morning", "afternoon"]


@REGISTRY.tool(DispatchArgs, writes=True)
def schedule_field_dispatch(db: dict[str, Any], args: DispatchArgs) -> dict[str, Any]:
    """Book a field technician for a hardware ticket on a date and time window."""
    ticket = _ticket(db, args.ticket_number)
    _require_auth(db, ticket["employee_id"])
    if ticket["category"] != "hardware_malfunction":
        raise ToolError("not_hardware_ticket", "field dispatch is for hardware malfunction tickets")
    if _asset(db, args.asset_tag)["employee_id"] != ticket["employee_id"]:
        raise ToolError("asset_not_assigned", f"asset {args.asset_tag} is not assigned to the caller")
    slots = db["dispatch_slots"].get(args.preferred_date, [])
    if args.time_window not in slots:
        raise ToolError("no_dispatch_availability", f"no {args.time_window} slot on {args.preferred_date}: {slots}")
    slots.remove(args.time_window)
    dispatch_id = _next_id(db, "dispatch", "FD", 6)
    db["field_dispatches"][dispatch_id] = {
        "dispatch_id": dispatch_id,
        "ticket_number": ticket["ticket_number"],
        "asset_tag": args.asset_tag.upper(),
        "date": args.preferred_date,
        "time_window": args.time_window,
    }
    return {"dispatch_id": dispatch_id, "date": args.preferred_date, "time_window": args.time_window}


class DiagnosticArgs(ToolArgs):
    ticket_number: str
    diagnostic_code: str = Field(pattern=r"^[A-Za-z0-9]{8}$")


@REGISTRY.tool(DiagnosticArgs, writes=True)
def attach_diagnostic_log(db: dict[str, Any], args: DiagnosticArgs) -> dict[str, Any]:
    """Attach the netdiag reference code the caller read out to a network ticket."""
    ticket = _ticket(db, args.ticket_number)
    _require_auth(db, ticket["employee_id"])
    code = args.diagnostic_code.upper()
    if code not in db["diagnostic_runs"] or db["diagnostic_runs"][code] != ticket["employee_id"]:
        raise ToolError("diagnostic_not_found", f"no netdiag run {code} for this employee")
    ticket["diagnostic_log"] = code
    return {"ticket_number": ticket["ticket_number"], "diagnostic_code": code}
