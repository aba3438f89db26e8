"""Security incidents (lost, stolen or compromised devices), MFA phone changes, and the system tools: a transfer
to a live agent and the close of a call resolved without a ticket."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, row, session_of
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    AssetTag,
    EmployeeId,
    PhoneLastFour,
    SecurityCaseId,
    employee,
    filed,
    today_text,
)

# ------------------------------------------------------------------------------------------------ security


class SecurityIncidentArgs(ToolArgs):
    employee_id: EmployeeId
    asset_tag: AssetTag
    incident_type: Literal["lost", "stolen", "suspected_compromise"]


@REGISTRY.tool(SecurityIncidentArgs, writes=True, needs="employee_auth")
def report_security_incident(db: dict[str, Any], args: SecurityIncidentArgs) -> dict[str, Any]:
    """Open a security case for a lost, stolen or compromised device of the caller's."""
    asset = row(db.get("assets", {}), args.asset_tag, "Asset")
    if asset.get("assigned_employee_id") != args.employee_id:
        raise ToolError("not_assigned_to_caller", f"Asset {args.asset_tag} is not assigned to {args.employee_id}")
    case: dict[str, Any] = {
        "security_case_id": None,
        "employee_id": args.employee_id,
        "asset_tag": args.asset_tag,
        "incident_type": args.incident_type,
        "status": "open",
        "opened_date": today_text(db),
    }
    case_id = filed(db, "security_cases", case, "security_case_id", "SEC-")
    if args.incident_type in ("lost", "stolen"):
        asset["lifecycle_status"] = "lost_or_stolen"
    return {
        "security_case_id": case_id,
        "asset_tag": args.asset_tag,
        "incident_type": args.incident_type,
        "message": f"Security case {case_id} opened",
    }


class WipeArgs(ToolArgs):
    asset_tag: AssetTag
    security_case_id: SecurityCaseId


@REGISTRY.tool(WipeArgs, writes=True, irreversible=True, needs="employee_auth")
def initiate_remote_wipe(db: dict[str, Any], args: WipeArgs) -> dict[str, Any]:
    """Wipe the device of a security case remotely."""
    case = row(db.get("security_cases", {}), args.security_case_id, "Security case")
    asset = row(db.get("assets", {}), args.asset_tag, "Asset")
    if case.get("asset_tag") != args.asset_tag:
        raise ToolError("case_asset_mismatch", "The asset is not the security case's")
    wipe_id = f"WIPE-{args.asset_tag[-6:]}"
    asset["remote_wipe"] = {"wipe_id": wipe_id, "status": "dispatched", "dispatched_date": today_text(db)}
    asset["status"] = "wiped"
    case["remote_wipe_id"] = wipe_id
    return {"wipe_id": wipe_id, "asset_tag": args.asset_tag, "message": f"Remote wipe {wipe_id} sent"}


class MfaArgs(ToolArgs):
    employee_id: EmployeeId
    new_phone_last_four: PhoneLastFour


@REGISTRY.tool(MfaArgs, writes=True, needs="employee_auth")
def submit_mfa_reset(db: dict[str, Any], args: MfaArgs) -> dict[str, Any]:
    """A phone-of-record (MFA) change: always refused over the phone (in person only); a security case records it."""
    employee(db, args.employee_id)
    case: dict[str, Any] = {
        "security_case_id": None,
        "employee_id": args.employee_id,
        "incident_type": "mfa_reset_request",
        "requested_new_phone_last_four": args.new_phone_last_four,
        "status": "requires_in_person",
        "opened_date": today_text(db),
    }
    case_id = filed(db, "security_cases", case, "security_case_id", "SEC-")
    raise ToolError(
        "in_person_required",
        "The phone of record cannot be changed over the phone: visit the IT security office in person with a "
        "government-issued ID. A security case tracks the request.",
        details={"security_case_id": case_id},
        keep_writes=True,
    )


# ------------------------------------------------------------------------------------------------ system


class TransferArgs(ToolArgs):
    employee_id: EmployeeId
    transfer_reason: Literal[
        "caller_requested", "policy_exception_needed", "unable_to_resolve", "complaint_escalation", "technical_issue"
    ]
    issue_summary: str = Field(min_length=10, max_length=500)


@REGISTRY.tool(TransferArgs, writes=False)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent with a summary of the issue."""
    # The n-th transfer of the call (EVA-Bench numbers them per call); kept in the session, not in the tables.
    session = session_of(db)
    session["transfers"] = number = session.get("transfers", 0) + 1
    return {
        "transfer_id": f"TRF-{args.employee_id}-{number:03d}",
        "employee_id": args.employee_id,
        "transfer_reason": args.transfer_reason,
        "estimated_wait": "2-3 minutes",
        "message": "Transferring to a live agent",
    }


class ResolvedArgs(ToolArgs):
    employee_id: EmployeeId
    flow_id: Literal["login_issue", "network_connectivity", "hardware_malfunction"]
    resolution_type: Literal["resolved_via_troubleshooting", "transferred"]


@REGISTRY.tool(ResolvedArgs, writes=True, needs="employee_auth")
def mark_resolved(db: dict[str, Any], args: ResolvedArgs) -> dict[str, Any]:
    """Close a call resolved without a ticket (troubleshooting fixed it): logs an interaction."""
    employee(db, args.employee_id)
    interactions = db.setdefault("interactions", {})
    interaction_id = f"INT-{len(interactions) + 1:06d}"
    interactions[interaction_id] = {
        "interaction_id": interaction_id,
        "employee_id": args.employee_id,
        "flow_id": args.flow_id,
        "resolution_type": args.resolution_type,
        "logged_date": today_text(db),
    }
    return {
        "interaction_id": interaction_id,
        "flow_id": args.flow_id,
        "resolution_type": args.resolution_type,
        "message": f"Interaction {interaction_id} logged",
    }
