"""What every ITSM tool module shares: the one ``REGISTRY``, the policy numbers (SLA tiers, cooldowns, renewal
windows, hardware prices), deterministic identifiers, entity lookups and the authentication-tier guards.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, session_of

REGISTRY = ToolRegistry()

IncidentCategory = Literal["login_issue", "service_outage", "hardware_malfunction", "network_connectivity"]
Impact = Literal["blocked", "degraded", "minor"]
SlaTier = Literal["tier_1", "tier_2", "tier_3"]
TROUBLESHOOT_FIRST = ("login_issue", "hardware_malfunction", "network_connectivity")
URGENCY_OF_IMPACT = {"blocked": "high", "degraded": "medium", "minor": "low"}
SLA_OF_URGENCY = {"high": "tier_1", "medium": "tier_2", "low": "tier_3"}
SLA_TARGETS = {"tier_1": ("1h", "4h"), "tier_2": ("4h", "8h"), "tier_3": ("8h", "24h")}
TEMPORARY_LICENSE_DAYS = (30, 60, 90)
RENEWAL_BEFORE_DAYS, RENEWAL_AFTER_DAYS = 30, 14
LAPTOP_MIN_AGE_MONTHS, MONITOR_MIN_AGE_MONTHS = 36, 12
DESK_COOLDOWN_DAYS, PARKING_COOLDOWN_DAYS = 90, 180
ASSESSMENT_ITEMS = ("standing_desk_converter", "ergonomic_chair")
APPROVAL_SLA_HOURS = 48
ACCESS_REVIEW_DAYS = 90
RETURN_DAYS = 14
STAGED_MAILBOX_DAYS = 30
HARDWARE_PRICES = {"laptop": 1850.0, "monitor": 420.0}


# --------------------------------------------------------------------------------------------------- helpers


def _today(db: dict[str, Any]) -> date:
    return date.fromisoformat(db["current_date"])


def _next_id(db: dict[str, Any], kind: str, prefix: str, width: int = 7) -> str:
    """Deterministic identifiers: a per-kind counter seeded by the scenario generator."""
    sequences = db.setdefault("sequences", {})
    number = sequences.get(kind, 1)
    sequences[kind] = number + 1
    return f"{prefix}{number:0{width}d}"


def _employee(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    employee = db["employees"].get(employee_id.upper())
    if employee is None:
        raise ToolError("employee_not_found", f"no employee with ID {employee_id}")
    return employee


def _require_auth(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    """Standard tier: the caller verified as ``employee_id``; a verified manager may also act on a direct report."""
    session = session_of(db)
    caller = session.get("employee_id")
    if caller is None:
        raise ToolError("authentication_required", "verify_employee_auth (or verify_manager_auth) must succeed first")
    employee = _employee(db, employee_id)
    if caller == employee["employee_id"]:
        return employee
    if session.get("auth_level") == "manager" and session.get("otp_verified") and employee["manager_id"] == caller:
        return employee
    raise ToolError(
        "not_authorized",
        f"the caller ({caller}) may not act on {employee['employee_id']}'s record without manager authorization",
    )


def _require_otp(db: dict[str, Any]) -> None:
    session = session_of(db)
    if not session.get("employee_id"):
        raise ToolError("authentication_required", "verify_employee_auth must succeed first")
    if not session.get("otp_verified"):
        raise ToolError("otp_required", "Authentication (otp_auth) must be completed before calling this tool")


def _require_manager(db: dict[str, Any]) -> str:
    session = session_of(db)
    if session.get("auth_level") != "manager":
        raise ToolError("manager_auth_required", "verify_manager_auth must succeed first (acting for another employee)")
    _require_otp(db)
    return session["employee_id"]


def _months_between(start: str, end: date) -> int:
    begin = date.fromisoformat(start)
    return (end.year - begin.year) * 12 + end.month - begin.month - (end.day < begin.day)


def _resolve_name(table: dict[str, dict[str, Any]], name: str, what: str) -> dict[str, Any]:
    """Catalog, building and zone lookups accept the exact name, the code or a common alias."""
    wanted = name.strip().lower()
    for key, entry in table.items():
        names = {key.lower(), entry["name"].lower(), *(a.lower() for a in entry.get("aliases", []))}
        if wanted in names:
            return entry
    known = ", ".join(sorted(e["name"] for e in table.values()))
    raise ToolError(f"{what}_not_found", f"no {what.replace('_', ' ')} named {name!r}; known: {known}")


def _asset(db: dict[str, Any], asset_tag: str) -> dict[str, Any]:
    asset = db["assets"].get(asset_tag.upper())
    if asset is None:
        raise ToolError("asset_not_found", f"no asset with tag {asset_tag}")
    return asset


def _ticket(db: dict[str, Any], ticket_number: str) -> dict[str, Any]:
    ticket = db["incidents"].get(ticket_number.upper())
    if ticket is None:
        raise ToolError("ticket_not_found", f"no incident ticket {ticket_number}")
    return ticket


class EmployeeIdArgs(ToolArgs):
    employee_id: str
