"""Troubleshooting before a ticket: the guide (which opens the troubleshooting record), account unlock and
password reset, and marking the issue resolved."""

from __future__ import annotations

from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.itsm.tools.common import (
    REGISTRY,
    _next_id,
    _require_auth,
)


class GuideArgs(ToolArgs):
    employee_id: str
    category: Literal["login_issue", "hardware_malfunction", "network_connectivity"]


@REGISTRY.tool(GuideArgs, writes=False)
def get_troubleshooting_guide(db: dict[str, Any], args: GuideArgs) -> dict[str, Any]:
    """The ordered troubleshooting steps for a category; opens the call's troubleshooting record for it."""
    _require_auth(db, args.employee_id)
    session_of(db).setdefault("troubleshooting", {})[args.category] = "in_progress"
    return {"category": args.category, "steps": db["troubleshooting_guides"][args.category]}


class UnlockArgs(ToolArgs):
    employee_id: str
    target_system: str = "active_directory"


def _login_fix(db: dict[str, Any], args: UnlockArgs, state: str) -> dict[str, Any]:
    """Unlock / reset on the account; a security hold is an outcome the flow branches on (a ticket), so it is a
    result with ``resolved: false`` rather than a tool error."""
    _require_auth(db, args.employee_id)
    if session_of(db).get("troubleshooting", {}).get("login_issue") is None:
        raise ToolError("troubleshooting_required", "walk through the login troubleshooting guide first")
    account = db["accounts"].get(args.employee_id.upper(), {}).get(args.target_system)
    if account is None:
        raise ToolError("account_not_found", f"{args.employee_id} has no {args.target_system} account")
    if account.get("security_hold"):
        session_of(db)["troubleshooting"]["login_issue"] = "failed"
        return {
            "resolved": False,
            "outcome": "cannot_unlock_security_hold",
            "lock_reason": account.get("lock_reason", "security_investigation"),
        }
    if account["status"] != state:
        raise ToolError(f"account_not_{state}", f"the {args.target_system} account is {account['status']}")
    account["status"] = "active"
    account.pop("lock_reason", None)
    return {"resolved": True, "outcome": "unlocked" if state == "locked" else "password_reset"}


@REGISTRY.tool(UnlockArgs, writes=True)
def attempt_account_unlock(db: dict[str, Any], args: UnlockArgs) -> dict[str, Any]:
    """Unlock a locked account (refused by a security hold)."""
    return _login_fix(db, args, "locked")


@REGISTRY.tool(UnlockArgs, writes=True)
def attempt_password_reset(db: dict[str, Any], args: UnlockArgs) -> dict[str, Any]:
    """Reset an expired password; a temporary password goes to the phone on file."""
    return {**_login_fix(db, args, "password_expired"), "temporary_password_sent": True}


class ResolvedArgs(ToolArgs):
    employee_id: str
    category: Literal["login_issue", "hardware_malfunction", "network_connectivity"]
    resolution_notes: str = ""


@REGISTRY.tool(ResolvedArgs, writes=True)
def mark_resolved(db: dict[str, Any], args: ResolvedArgs) -> dict[str, Any]:
    """Close an issue resolved during the call, without a ticket."""
    _require_auth(db, args.employee_id)
    state = session_of(db).get("troubleshooting", {}).get(args.category)
    if state is None:
        raise ToolError("troubleshooting_required", f"no {args.category} troubleshooting happened on this call")
    if state == "failed":
        raise ToolError("not_resolved", "the resolution attempt failed: open an incident ticket instead")
    session_of(db)["troubleshooting"][args.category] = "resolved"
    resolution_id = _next_id(db, "resolution", "RES", 6)
    db["resolutions"][resolution_id] = {
        "resolution_id": resolution_id,
        "employee_id": args.employee_id.upper(),
        "category": args.category,
        "notes": args.resolution_notes,
        "date": db["current_date"],
    }
    return {"resolution_id": resolution_id, "resolved": True}
