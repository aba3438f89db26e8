"""Security: security incidents, remote wipe and MFA reset."""

from __future__ import annotations

from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.itsm.tools.common import (
    REGISTRY,
    _asset,
    _next_id,
    _require_auth,
)

# ------------------------------------------------------------------------------------------------ security


class SecurityIncidentArgs(ToolArgs):
    employee_id: str
    asset_tag: str
    incident_type: Literal["lost", "stolen", "compromised"]


@REGISTRY.tool(SecurityIncidentArgs, writes=True)
def report_security_incident(db: dict[str, Any], args: SecurityIncidentArgs) -> dict[str, Any]:
    """Open a security case for a lost, stolen or compromised device."""
    employee = _require_auth(db, args.employee_id)
    asset = _asset(db, args.asset_tag)
    if asset["employee_id"] != employee["employee_id"]:
        raise ToolError("asset_not_assigned", f"asset {args.asset_tag} is not assigned to the caller")
    case_id = _next_id(db, "security_case", "SEC", 7)
    db["security_cases"][case_id] = {
        "case_id": case_id,
        "employee_id": employee["employee_id"],
        "asset_tag": asset["asset_tag"],
        "incident_type": args.incident_type,
    }
    asset["status"] = args.incident_type
    return {"case_id": case_id}


class WipeArgs(ToolArgs):
    case_id: str
    asset_tag: str


@REGISTRY.tool(WipeArgs, writes=True)
def initiate_remote_wipe(db: dict[str, Any], args: WipeArgs) -> dict[str, Any]:
    """Send a remote wipe to the device named in a security case."""
    case = db["security_cases"].get(args.case_id.upper())
    if case is None or case["asset_tag"] != args.asset_tag.upper():
        raise ToolError("case_not_found", f"no security case {args.case_id} for asset {args.asset_tag}")
    _require_auth(db, case["employee_id"])
    case["remote_wipe"] = "dispatched"
    return {"case_id": case["case_id"], "wipe_status": "dispatched"}


class MfaArgs(ToolArgs):
    employee_id: str
    reason: str = "phone_of_record_change"


@REGISTRY.tool(MfaArgs, writes=True)
def submit_mfa_reset(db: dict[str, Any], args: MfaArgs) -> dict[str, Any]:
    """Phone-of-record change for MFA: always needs an in-person visit; opens a tracking case."""
    employee = _require_auth(db, args.employee_id)
    case_id = _next_id(db, "security_case", "SEC", 7)
    db["security_cases"][case_id] = {"case_id": case_id, "employee_id": employee["employee_id"], "type": "mfa_reset"}
    return {"case_id": case_id, "in_person_verification_required": True}
