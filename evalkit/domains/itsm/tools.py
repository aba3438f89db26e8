"""Enterprise IT service desk tools (names after EVA-Bench Table 44; policy after App. L.5).

The policy lives here, not in the agent: the tools enforce it and answer with structured errors, so an agent that
skips a step is caught by the executor whatever it says.

- Tiered authentication (call-scoped, kept in ``db["session"]``): *standard* (``verify_employee_auth``: employee
  ID + phone last four), *OTP-elevated* (``initiate_otp_auth`` + ``verify_otp_auth``; required to submit access,
  group and permission changes) and *manager* (``verify_manager_auth``: employee ID + phone last four + a
  6-character authorization code, then OTP; required to act for another employee: provisioning, off-boarding).
- OTP: the DB holds the code the caller's phone received (``otp_codes``); ``initiate_otp_auth`` "sends" it.
- Troubleshooting must fail before a ticket: ``get_troubleshooting_guide`` opens a troubleshooting record for the
  category; ``create_incident_ticket`` for login, hardware and network issues refuses unless that record exists,
  is not resolved, and the caller reported the steps failed (``troubleshooting_completed``). Service outages need
  ``check_existing_outage`` to have found no outage for the service first (no duplicate tickets).
- SLA tiers: high -> tier_1 (1 h / 4 h), medium -> tier_2 (4 h / 8 h), low -> tier_3 (8 h / 24 h); urgency is
  inferred from the caller's described impact, never asked.

Identifiers the desk issues come from per-DB counters (``db["sequences"]``) so every run is deterministic.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

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


# ------------------------------------------------------------------------------------------------ authentication


class EmployeeAuthArgs(ToolArgs):
    employee_id: str
    phone_last_four: str = Field(pattern=r"^\d{4}$")


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification: employee ID and the last four digits of the phone number on file."""
    employee = _employee(db, args.employee_id)
    if employee["phone_last_four"] != args.phone_last_four:
        raise ToolError("verification_failed", "the phone digits do not match the employee record")
    session = session_of(db)
    if session.get("employee_id") != employee["employee_id"]:  # call-scoped: re-verifying never downgrades
        session.clear()
        session.update(employee_id=employee["employee_id"], auth_level="standard", otp_verified=False)
    return {"authenticated": True, "employee_id": employee["employee_id"], "name": _full_name(employee)}


def _full_name(employee: dict[str, Any]) -> str:
    return f"{employee['first_name']} {employee['last_name']}"


class ManagerAuthArgs(ToolArgs):
    employee_id: str
    phone_last_four: str = Field(pattern=r"^\d{4}$")
    manager_auth_code: str = Field(pattern=r"^[A-Za-z0-9]{6}$")


@REGISTRY.tool(ManagerAuthArgs, writes=False)
def verify_manager_auth(db: dict[str, Any], args: ManagerAuthArgs) -> dict[str, Any]:
    """Manager verification in one step: employee ID, phone last four and the IT-security authorization code."""
    employee = _employee(db, args.employee_id)
    code = employee.get("manager_auth_code")
    if employee["phone_last_four"] != args.phone_last_four or code is None or code != args.manager_auth_code.upper():
        raise ToolError("verification_failed", "the manager credentials do not match")
    session = session_of(db)
    session.clear()
    session.update(employee_id=employee["employee_id"], auth_level="manager", otp_verified=False)
    return {"authenticated": True, "auth_level": "manager", "employee_id": employee["employee_id"]}


class EmployeeIdArgs(ToolArgs):
    employee_id: str


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """Send a one-time passcode to the phone on file of the verified caller."""
    session = session_of(db)
    if session.get("employee_id") != args.employee_id.upper():
        raise ToolError("authentication_required", "standard or manager verification of this employee comes first")
    if args.employee_id.upper() not in db["otp_codes"]:
        raise ToolError("otp_unavailable", "no phone of record can receive a passcode; visit IT security in person")
    session["otp_sent"] = True
    employee = _employee(db, args.employee_id)
    return {"otp_sent": True, "phone_last_four": employee["phone_last_four"]}


class OtpArgs(ToolArgs):
    employee_id: str
    otp_code: str = Field(pattern=r"^\d{6}$")


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit code the caller reads from their text message."""
    session = session_of(db)
    if not session.get("otp_sent") or session.get("employee_id") != args.employee_id.upper():
        raise ToolError("otp_not_initiated", "initiate_otp_auth must be called for this employee first")
    if db["otp_codes"][args.employee_id.upper()] != args.otp_code:
        raise ToolError("otp_mismatch", "the passcode does not match; ask the caller to check the message")
    session["otp_verified"] = True
    return {"otp_verified": True, "auth_level": session["auth_level"]}


# ------------------------------------------------------------------------------------------------ records


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def get_employee_record(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """The employee's HR-linked record: department, role, cost center, manager, desk and parking."""
    employee = _require_auth(db, args.employee_id)
    public = {k: v for k, v in employee.items() if k not in ("manager_auth_code", "phone_last_four")}
    return {"employee": public}


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


# ------------------------------------------------------------------------------------------------ hardware


class AssetsArgs(ToolArgs):
    employee_id: str
    asset_type: Literal["laptop", "monitor", "phone", "tablet"] | None = None


@REGISTRY.tool(AssetsArgs, writes=False)
def get_employee_assets(db: dict[str, Any], args: AssetsArgs) -> dict[str, Any]:
    """Company hardware assigned to the employee (optionally one type)."""
    employee = _require_auth(db, args.employee_id)
    assets = [
        a
        for a in db["assets"].values()
        if a["employee_id"] == employee["employee_id"] and args.asset_type in (None, a["type"])
    ]
    return {"assets": sorted(assets, key=lambda a: a["asset_tag"])}


class AssetArgs(ToolArgs):
    asset_tag: str


@REGISTRY.tool(AssetArgs, writes=False)
def get_asset_record(db: dict[str, Any], args: AssetArgs) -> dict[str, Any]:
    """One asset's record (model, serial, assignment date, warranty)."""
    asset = _asset(db, args.asset_tag)
    _require_auth(db, asset["employee_id"])
    return {"asset": asset}


class EntitlementArgs(ToolArgs):
    employee_id: str
    equipment_type: Literal["laptop", "monitor"]


@REGISTRY.tool(EntitlementArgs, writes=False)
def check_hardware_entitlement(db: dict[str, Any], args: EntitlementArgs) -> dict[str, Any]:
    """Role entitlement, device age (36 months laptop, 12 months monitor replacement) and pending requests."""
    employee = _require_auth(db, args.employee_id)
    session_of(db).setdefault("entitlement_checks", {})[args.equipment_type] = True
    if args.equipment_type not in db["role_entitlements"].get(employee["role"], []):
        return {"eligible": False, "reason": f"role {employee['role']} is not provisioned for a {args.equipment_type}"}
    pending = [
        r
        for r in db["hardware_requests"].values()
        if r["employee_id"] == employee["employee_id"] and r["equipment_type"] == args.equipment_type
    ]
    if pending:
        return {"eligible": False, "reason": f"a {args.equipment_type} request is already pending"}
    current = [a for a in db["assets"].values() if a["employee_id"] == employee["employee_id"]]
    current = [a for a in current if a["type"] == args.equipment_type and a["status"] == "assigned"]
    minimum = LAPTOP_MIN_AGE_MONTHS if args.equipment_type == "laptop" else MONITOR_MIN_AGE_MONTHS
    if args.equipment_type == "laptop" and not current:
        return {"eligible": False, "reason": "no laptop on file to replace"}
    for asset in current:
        age = _months_between(asset["assigned_date"], _today(db))
        if age < minimum and not (args.equipment_type == "laptop" and asset.get("condition") == "damaged"):
            return {"eligible": False, "reason": f"device is {age} months old; minimum {minimum} months"}
    return {"eligible": True, "reason": None}


class BudgetArgs(ToolArgs):
    cost_center: str
    amount: float = Field(gt=0)


@REGISTRY.tool(BudgetArgs, writes=False)
def verify_cost_center_budget(db: dict[str, Any], args: BudgetArgs) -> dict[str, Any]:
    """Whether the department's cost center can fund a hardware request of this amount."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "verify_employee_auth must succeed first")
    center = db["cost_centers"].get(args.cost_center.upper())
    if center is None:
        raise ToolError("cost_center_not_found", f"no cost center {args.cost_center}")
    ok = center["budget_remaining"] >= args.amount
    if ok:
        session_of(db).setdefault("budget_checks", {})[center["cost_center"]] = args.amount
    return {"budget_available": ok, "budget_remaining": center["budget_remaining"]}


class HardwareRequestArgs(ToolArgs):
    employee_id: str
    equipment_type: Literal["laptop", "monitor"]
    reason: Literal[
        "end_of_life", "performance_degradation", "physical_damage", "lost_stolen", "new_setup", "replacement"
    ]
    size: Literal["13_inch", "14_inch", "16_inch", "24_inch", "27_inch", "32_inch"]
    operating_system: Literal["mac", "windows"] | None = None
    delivery_building: str
    delivery_floor: int


@REGISTRY.tool(HardwareRequestArgs, writes=True)
def submit_hardware_request(db: dict[str, Any], args: HardwareRequestArgs) -> dict[str, Any]:
    """Submit a laptop or monitor request (entitlement and budget must have been verified on this call)."""
    employee = _require_auth(db, args.employee_id)
    session = session_of(db)
    if not session.get("entitlement_checks", {}).get(args.equipment_type):
        raise ToolError("entitlement_check_required", "check_hardware_entitlement must come first")
    if employee["cost_center"] not in session.get("budget_checks", {}):
        raise ToolError("budget_check_required", "verify_cost_center_budget with available budget must come first")
    price = HARDWARE_PRICES[args.equipment_type]
    db["cost_centers"][employee["cost_center"]]["budget_remaining"] -= price
    request_id = _next_id(db, "hardware_request", "REQHW", 6)
    db["hardware_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "equipment_type": args.equipment_type,
        "reason": args.reason,
        "size": args.size,
        "operating_system": args.operating_system,
        "delivery": f"{_resolve_name(db['buildings'], args.delivery_building, 'building')['building_id']}"
        f"-{args.delivery_floor}",
        "cost": price,
        "status": "submitted",
    }
    return {"request_id": request_id, "cost": price}


class ReturnArgs(ToolArgs):
    employee_id: str
    asset_tag: str


@REGISTRY.tool(ReturnArgs, writes=True)
def initiate_asset_return(db: dict[str, Any], args: ReturnArgs) -> dict[str, Any]:
    """Return authorization for a replaced device: a shipping label and a 14-day deadline."""
    employee = _require_auth(db, args.employee_id)
    asset = _asset(db, args.asset_tag)
    if asset["employee_id"] != employee["employee_id"]:
        raise ToolError("asset_not_assigned", f"asset {args.asset_tag} is not assigned to the caller")
    if asset["status"] != "assigned":
        raise ToolError("asset_not_returnable", f"asset {args.asset_tag} is {asset['status']}")
    asset["status"] = "return_pending"
    deadline = (_today(db) + timedelta(days=RETURN_DAYS)).isoformat()
    rma = _next_id(db, "return", "RMA", 6)
    db["asset_returns"][rma] = {"rma_id": rma, "asset_tag": asset["asset_tag"], "deadline": deadline}
    return {"rma_id": rma, "return_deadline": deadline, "shipping_label_sent": True}


# ------------------------------------------------------------------------------------------------ software


class ApplicationArgs(ToolArgs):
    application_name: str


@REGISTRY.tool(ApplicationArgs, writes=False)
def get_application_details(db: dict[str, Any], args: ApplicationArgs) -> dict[str, Any]:
    """Resolve an application name or alias to its catalog entry."""
    app = _resolve_name(db["applications"], args.application_name, "application")
    return {
        "catalog_id": app["catalog_id"],
        "name": app["name"],
        "requires_manager_approval": app["requires_manager_approval"],
        "access_levels": app["access_levels"],
    }


class AccessRequestArgs(ToolArgs):
    employee_id: str
    catalog_id: str
    access_level: str


@REGISTRY.tool(AccessRequestArgs, writes=True)
def submit_access_request(db: dict[str, Any], args: AccessRequestArgs) -> dict[str, Any]:
    """Request application access (OTP-elevated); auto-approved unless the application needs manager approval."""
    employee = _require_auth(db, args.employee_id)
    _require_otp(db)
    app = db["applications"].get(args.catalog_id.upper())
    if app is None:
        raise ToolError("catalog_item_not_found", f"no application {args.catalog_id}")
    if args.access_level not in app["access_levels"]:
        raise ToolError("invalid_access_level", f"{app['name']} offers {app['access_levels']}")
    request_id = _next_id(db, "software_request", "REQSW", 6)
    status = "pending_approval" if app["requires_manager_approval"] else "approved"
    db["software_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "catalog_id": app["catalog_id"],
        "type": "access",
        "access_level": args.access_level,
        "status": status,
        "submitted": db["current_date"],
        "approver_id": None,
    }
    return {"request_id": request_id, "request_status": status}


class RouteArgs(ToolArgs):
    request_id: str
    employee_id: str


@REGISTRY.tool(RouteArgs, writes=True)
def route_approval_workflow(db: dict[str, Any], args: RouteArgs) -> dict[str, Any]:
    """Send a pending request to the caller's manager; starts the 48-hour approval SLA."""
    employee = _require_auth(db, args.employee_id)
    request = db["software_requests"].get(args.request_id.upper()) or db["group_changes"].get(args.request_id.upper())
    if request is None or request["employee_id"] != employee["employee_id"]:
        raise ToolError("request_not_found", f"no request {args.request_id} for {args.employee_id}")
    if request["status"] != "pending_approval":
        raise ToolError("approval_not_required", f"request {args.request_id} is {request['status']}")
    if request.get("approver_id"):
        raise ToolError("already_routed", "the approval was already routed")
    request["approver_id"] = employee["manager_id"]
    request["approval_due"] = (_today(db) + timedelta(hours=APPROVAL_SLA_HOURS)).isoformat()
    return {"approver_id": employee["manager_id"], "approval_sla_hours": APPROVAL_SLA_HOURS}


class LicenseNameArgs(ToolArgs):
    license_name: str


@REGISTRY.tool(LicenseNameArgs, writes=False)
def get_license_catalog_item(db: dict[str, Any], args: LicenseNameArgs) -> dict[str, Any]:
    """Resolve a software product to its license catalog entry and supported license types."""
    item = _resolve_name(db["license_catalog"], args.license_name, "license")
    return {"catalog_id": item["catalog_id"], "name": item["name"], "license_types_supported": item["license_types"]}


class CostCenterArgs(ToolArgs):
    cost_center: str


@REGISTRY.tool(CostCenterArgs, writes=False)
def validate_cost_center(db: dict[str, Any], args: CostCenterArgs) -> dict[str, Any]:
    """Whether a cost center charge code is active (needed for permanent licenses)."""
    center = db["cost_centers"].get(args.cost_center.upper())
    if center is None:
        raise ToolError("cost_center_not_found", f"no cost center {args.cost_center}")
    if center["active"]:
        session_of(db).setdefault("validated_cost_centers", []).append(center["cost_center"])
    return {"cost_center": center["cost_center"], "active": center["active"]}


class LicenseRequestArgs(ToolArgs):
    employee_id: str
    catalog_id: str
    license_type: Literal["permanent", "temporary"]
    duration_days: int | None = None


@REGISTRY.tool(LicenseRequestArgs, writes=True)
def submit_license_request(db: dict[str, Any], args: LicenseRequestArgs) -> dict[str, Any]:
    """Request a permanent license (validated cost center) or a 30/60/90-day temporary one."""
    employee = _require_auth(db, args.employee_id)
    item = db["license_catalog"].get(args.catalog_id.upper())
    if item is None:
        raise ToolError("catalog_item_not_found", f"no license {args.catalog_id}")
    if args.license_type not in item["license_types"]:
        raise ToolError("license_type_not_supported", f"{item['name']} supports {item['license_types']}")
    expires = None
    if args.license_type == "temporary":
        if args.duration_days not in TEMPORARY_LICENSE_DAYS:
            raise ToolError("invalid_duration", "temporary licenses run exactly 30, 60 or 90 days")
        expires = (_today(db) + timedelta(days=args.duration_days)).isoformat()
    else:
        if employee["cost_center"] not in session_of(db).get("validated_cost_centers", []):
            raise ToolError("cost_center_validation_required", "validate_cost_center must confirm an active code")
        if args.duration_days is not None:
            raise ToolError("invalid_duration", "a permanent license has no duration")
    request_id = _next_id(db, "software_request", "REQSW", 6)
    db["software_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "catalog_id": item["catalog_id"],
        "type": "license",
        "license_type": args.license_type,
        "duration_days": args.duration_days,
        "expiration_date": expires,
        "status": "submitted",
        "submitted": db["current_date"],
        "approver_id": None,
    }
    return {"request_id": request_id, "expiration_date": expires}


class LicensesArgs(ToolArgs):
    employee_id: str
    product_name: str | None = None


def _renewable(db: dict[str, Any], lic: dict[str, Any]) -> bool:
    days_left = (date.fromisoformat(lic["expiration_date"]) - _today(db)).days
    return -RENEWAL_AFTER_DAYS <= days_left <= RENEWAL_BEFORE_DAYS


@REGISTRY.tool(LicensesArgs, writes=False)
def get_employee_licenses(db: dict[str, Any], args: LicensesArgs) -> dict[str, Any]:
    """The employee's software licenses (optionally one product), with expiry and renewal-window flag."""
    employee = _require_auth(db, args.employee_id)
    found = [lic for lic in db["licenses"].values() if lic["employee_id"] == employee["employee_id"]]
    if args.product_name:
        item = _resolve_name(db["license_catalog"], args.product_name, "license")
        found = [lic for lic in found if lic["catalog_id"] == item["catalog_id"]]
        if not found:
            raise ToolError("license_not_found", f"{employee['employee_id']} holds no {item['name']} license")
    found = sorted(found, key=lambda lic: lic["license_id"])
    return {"licenses": [{**lic, "renewable": _renewable(db, lic)} for lic in found]}


class RenewalArgs(ToolArgs):
    employee_id: str
    license_id: str


@REGISTRY.tool(RenewalArgs, writes=True)
def submit_license_renewal(db: dict[str, Any], args: RenewalArgs) -> dict[str, Any]:
    """Renew a license within 30 days before or 14 days after its expiration."""
    employee = _require_auth(db, args.employee_id)
    lic = db["licenses"].get(args.license_id.upper())
    if lic is None or lic["employee_id"] != employee["employee_id"]:
        raise ToolError("license_not_found", f"no license {args.license_id} for {args.employee_id}")
    if not _renewable(db, lic):
        raise ToolError(
            "outside_renewal_window",
            f"expires {lic['expiration_date']}: renewals open 30 days before and close 14 days after; "
            "submit a new license request instead",
        )
    base = max(date.fromisoformat(lic["expiration_date"]), _today(db))
    lic["expiration_date"] = (base + timedelta(days=365)).isoformat()
    lic["status"] = "active"
    return {"license_id": lic["license_id"], "new_expiration_date": lic["expiration_date"]}


class StatusArgs(ToolArgs):
    request_id: str


@REGISTRY.tool(StatusArgs, writes=False)
def get_request_status(db: dict[str, Any], args: StatusArgs) -> dict[str, Any]:
    """Status of a software request and whether its 48-hour approval SLA is breached."""
    request = db["software_requests"].get(args.request_id.upper())
    if request is None:
        raise ToolError("request_not_found", f"no request {args.request_id}")
    _require_auth(db, request["employee_id"])
    breached = False
    if request["status"] == "pending_approval" and request.get("approval_due"):
        breached = _today(db) > date.fromisoformat(request["approval_due"])
    return {"request": request, "sla_breached": breached}


class EscalateArgs(ToolArgs):
    request_id: str
    employee_id: str


@REGISTRY.tool(EscalateArgs, writes=True)
def escalate_approval(db: dict[str, Any], args: EscalateArgs) -> dict[str, Any]:
    """Route a pending request to the skip-level approver once its approval SLA is breached."""
    employee = _require_auth(db, args.employee_id)
    request = db["software_requests"].get(args.request_id.upper())
    if request is None or request["employee_id"] != employee["employee_id"]:
        raise ToolError("request_not_found", f"no request {args.request_id} for {args.employee_id}")
    due = request.get("approval_due")
    if request["status"] != "pending_approval" or not due or _today(db) <= date.fromisoformat(due):
        raise ToolError("sla_not_breached", "escalation is only allowed after the approval SLA is breached")
    skip_level = _employee(db, employee["manager_id"])["manager_id"]
    request["approver_id"] = skip_level
    request["escalated"] = True
    return {"request_id": request["request_id"], "escalated_to": skip_level}


# ------------------------------------------------------------------------------------------------ facilities


class DeskAvailabilityArgs(ToolArgs):
    building: str
    floor: int


@REGISTRY.tool(DeskAvailabilityArgs, writes=False)
def check_desk_availability(db: dict[str, Any], args: DeskAvailabilityArgs) -> dict[str, Any]:
    """Free desks on a floor of a building (names and aliases resolve to the building code)."""
    building = _resolve_name(db["buildings"], args.building, "building")
    desks = building["free_desks"].get(str(args.floor))
    if desks is None:
        raise ToolError("floor_not_found", f"{building['name']} has floors {sorted(building['free_desks'])}")
    return {
        "building_id": building["building_id"],
        "floor": args.floor,
        "desks_available": bool(desks),
        "available_desks": sorted(desks),
    }


def _cooldown(db: dict[str, Any], last: str | None, days: int, what: str) -> None:
    if last is None:
        return
    eligible = date.fromisoformat(last) + timedelta(days=days)
    if _today(db) < eligible:
        raise ToolError("reassignment_cooldown", f"{what} reassignment allowed again from {eligible.isoformat()}")


class DeskAssignmentArgs(ToolArgs):
    employee_id: str
    building_id: str
    floor: int
    desk_id: str


@REGISTRY.tool(DeskAssignmentArgs, writes=True)
def submit_desk_assignment(db: dict[str, Any], args: DeskAssignmentArgs) -> dict[str, Any]:
    """Assign a free desk (not if one is on file; once per 90 days)."""
    employee = _require_auth(db, args.employee_id)
    if employee.get("desk"):
        raise ToolError("desk_already_assigned", f"desk {employee['desk']} is on file: release it first")
    _cooldown(db, employee.get("last_desk_assignment"), DESK_COOLDOWN_DAYS, "desk")
    building = _resolve_name(db["buildings"], args.building_id, "building")
    free = building["free_desks"].get(str(args.floor), [])
    if args.desk_id.upper() not in free:
        raise ToolError("desk_unavailable", f"desk {args.desk_id} is not free")
    free.remove(args.desk_id.upper())
    employee["desk"] = args.desk_id.upper()
    employee["last_desk_assignment"] = db["current_date"]
    return {"desk_id": employee["desk"], "building_id": building["building_id"], "floor": args.floor}


class ParkingAvailabilityArgs(ToolArgs):
    zone: str


@REGISTRY.tool(ParkingAvailabilityArgs, writes=False)
def check_parking_availability(db: dict[str, Any], args: ParkingAvailabilityArgs) -> dict[str, Any]:
    """Free spaces in a parking zone (names and aliases resolve to the zone code)."""
    zone = _resolve_name(db["parking_zones"], args.zone, "parking_zone")
    free = sorted(zone["free_spaces"])
    return {"zone_id": zone["zone_id"], "spaces_available": bool(free), "available_spaces": free}


class ParkingAssignmentArgs(ToolArgs):
    employee_id: str
    zone_id: str
    space_id: str


@REGISTRY.tool(ParkingAssignmentArgs, writes=True)
def submit_parking_assignment(db: dict[str, Any], args: ParkingAssignmentArgs) -> dict[str, Any]:
    """Assign a free parking space (not if one is on file; once per 180 days)."""
    employee = _require_auth(db, args.employee_id)
    if employee.get("parking"):
        raise ToolError("parking_already_assigned", f"space {employee['parking']} is on file")
    _cooldown(db, employee.get("last_parking_assignment"), PARKING_COOLDOWN_DAYS, "parking")
    zone = _resolve_name(db["parking_zones"], args.zone_id, "parking_zone")
    if args.space_id.upper() not in zone["free_spaces"]:
        raise ToolError("space_unavailable", f"space {args.space_id} is not free")
    zone["free_spaces"].remove(args.space_id.upper())
    employee["parking"] = args.space_id.upper()
    employee["last_parking_assignment"] = db["current_date"]
    return {"space_id": employee["parking"], "zone_id": zone["zone_id"]}


class WaitlistArgs(ToolArgs):
    employee_id: str
    resource_type: Literal["desk", "parking"]
    location_id: str


@REGISTRY.tool(WaitlistArgs, writes=True)
def submit_waitlist(db: dict[str, Any], args: WaitlistArgs) -> dict[str, Any]:
    """Waitlist the caller for a building's desks or a parking zone (once per list)."""
    employee = _require_auth(db, args.employee_id)
    key = f"{args.resource_type}:{args.location_id.upper()}"
    waitlist = db["waitlists"].setdefault(key, [])
    if employee["employee_id"] in waitlist:
        raise ToolError("already_waitlisted", f"already on the {key} waitlist")
    waitlist.append(employee["employee_id"])
    return {"waitlist": key, "position": len(waitlist)}


class AssessmentArgs(ToolArgs):
    employee_id: str
    item: str | None = None


@REGISTRY.tool(AssessmentArgs, writes=False)
def check_ergonomic_assessment(db: dict[str, Any], args: AssessmentArgs) -> dict[str, Any]:
    """Whether a completed ergonomic assessment is on file (and so whether ``item`` may be ordered)."""
    employee = _require_auth(db, args.employee_id)
    done = employee.get("ergonomic_assessment_date")
    eligible = done is not None or args.item not in ASSESSMENT_ITEMS
    return {"assessment_completed": done is not None, "assessment_date": done, "eligible": eligible}


class EquipmentArgs(ToolArgs):
    employee_id: str
    item: Literal["standing_desk_converter", "ergonomic_chair", "ergonomic_keyboard", "monitor_arm", "footrest"]
    delivery_building: str
    delivery_floor: int


@REGISTRY.tool(EquipmentArgs, writes=True)
def submit_equipment_request(db: dict[str, Any], args: EquipmentArgs) -> dict[str, Any]:
    """Order ergonomic equipment; converters and chairs need a completed assessment on file."""
    employee = _require_auth(db, args.employee_id)
    if args.item in ASSESSMENT_ITEMS and not employee.get("ergonomic_assessment_date"):
        raise ToolError("assessment_required", "complete an ergonomic assessment on the occupational health portal")
    building = _resolve_name(db["buildings"], args.delivery_building, "building")
    request_id = _next_id(db, "equipment_request", "REQEQ", 6)
    db["equipment_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "item": args.item,
        "delivery": f"{building['building_id']}-{args.delivery_floor}",
    }
    return {"request_id": request_id}


class RoomAvailabilityArgs(ToolArgs):
    building: str
    date: str
    start_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    end_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    attendees: int = Field(gt=0)
    floor: int | None = None


def _overlaps(booking: dict[str, Any], day: str, start: str, end: str) -> bool:
    return booking["date"] == day and booking["start_time"] < end and start < booking["end_time"]


@REGISTRY.tool(RoomAvailabilityArgs, writes=False)
def check_room_availability(db: dict[str, Any], args: RoomAvailabilityArgs) -> dict[str, Any]:
    """Rooms in a building with enough seats and free for the whole time window."""
    if args.end_time <= args.start_time:
        raise ToolError("invalid_time_window", "the end time must be after the start time")
    building = _resolve_name(db["buildings"], args.building, "building")
    rooms = [
        {k: v for k, v in room.items() if k != "bookings"}
        for room in db["rooms"].values()
        if room["building_id"] == building["building_id"]
        and room["capacity"] >= args.attendees
        and (args.floor is None or room["floor"] == args.floor)
        and not any(_overlaps(b, args.date, args.start_time, args.end_time) for b in room["bookings"])
    ]
    return {"building_id": building["building_id"], "available_rooms": sorted(rooms, key=lambda r: r["room_id"])}


class RoomBookingArgs(ToolArgs):
    employee_id: str
    room_id: str
    date: str
    start_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    end_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    attendees: int = Field(gt=0)


@REGISTRY.tool(RoomBookingArgs, writes=True)
def submit_room_booking(db: dict[str, Any], args: RoomBookingArgs) -> dict[str, Any]:
    """Book a conference room the caller chose."""
    employee = _require_auth(db, args.employee_id)
    room = _resolve_name(db["rooms"], args.room_id, "room")
    if room["capacity"] < args.attendees:
        raise ToolError("capacity_exceeded", f"{room['room_id']} seats {room['capacity']}")
    if any(_overlaps(b, args.date, args.start_time, args.end_time) for b in room["bookings"]):
        raise ToolError("room_unavailable", f"{room['room_id']} is booked in that window")
    booking_id = _next_id(db, "room_booking", "BK", 6)
    room["bookings"].append(
        {
            "booking_id": booking_id,
            "date": args.date,
            "start_time": args.start_time,
            "end_time": args.end_time,
            "organizer": employee["employee_id"],
            "invite_sent": False,
        }
    )
    return {"booking_id": booking_id, "room_id": room["room_id"]}


class InviteArgs(ToolArgs):
    booking_id: str
    organizer_id: str


@REGISTRY.tool(InviteArgs, writes=True)
def send_calendar_invite(db: dict[str, Any], args: InviteArgs) -> dict[str, Any]:
    """Send the organizer the calendar invite for a booking (required after every booking)."""
    employee = _require_auth(db, args.organizer_id)
    for room in db["rooms"].values():
        for booking in room["bookings"]:
            if booking.get("booking_id") == args.booking_id.upper() and booking["organizer"] == employee["employee_id"]:
                booking["invite_sent"] = True
                return {"invite_sent_to": employee["email"], "booking_id": booking["booking_id"]}
    raise ToolError("booking_not_found", f"no booking {args.booking_id} organized by {args.organizer_id}")


# ------------------------------------------------------------------------------------------------ accounts


class NewHireArgs(ToolArgs):
    new_hire_id: str


@REGISTRY.tool(NewHireArgs, writes=False)
def lookup_new_hire(db: dict[str, Any], args: NewHireArgs) -> dict[str, Any]:
    """The HR record of a new hire reporting to the verified manager."""
    manager = _require_manager(db)
    hire = db["new_hires"].get(args.new_hire_id.upper())
    if hire is None:
        raise ToolError("new_hire_not_found", f"HR has no new hire {args.new_hire_id}")
    if hire["manager_id"] != manager:
        raise ToolError("not_authorized", "the new hire does not report to the caller")
    return {"new_hire": hire}


@REGISTRY.tool(NewHireArgs, writes=False)
def check_existing_accounts(db: dict[str, Any], args: NewHireArgs) -> dict[str, Any]:
    """Whether the new hire already has active system accounts."""
    _require_manager(db)
    accounts = db["accounts"].get(args.new_hire_id.upper(), {})
    return {"has_active_accounts": bool(accounts), "accounts": sorted(accounts)}


class ProvisionArgs(ToolArgs):
    new_hire_id: str
    department: str
    role: str
    start_date: str
    access_groups: list[str] = Field(min_length=1)


@REGISTRY.tool(ProvisionArgs, writes=True)
def provision_new_account(db: dict[str, Any], args: ProvisionArgs) -> dict[str, Any]:
    """Create the new hire's accounts and initial access groups (manager + OTP)."""
    manager = _require_manager(db)
    hire = db["new_hires"].get(args.new_hire_id.upper())
    if hire is None or hire["manager_id"] != manager:
        raise ToolError("new_hire_not_found", f"no new hire {args.new_hire_id} reporting to the caller")
    if db["accounts"].get(hire["employee_id"]):
        raise ToolError("accounts_exist", "the new hire already has active accounts")
    if (args.department, args.role) != (hire["department"], hire["role"]):
        raise ToolError("hr_mismatch", f"HR lists {hire['department']} / {hire['role']}")
    unknown = [g for g in args.access_groups if g.upper() not in db["groups"]]
    if unknown:
        raise ToolError("group_not_found", f"unknown groups {unknown}")
    email = f"{hire['first_name']}.{hire['last_name']}@{db['email_domain']}".lower()
    db["accounts"][hire["employee_id"]] = {
        "active_directory": {"status": "active", "start_date": args.start_date},
        "email": {"status": "active", "address": email},
    }
    db["group_members"][hire["employee_id"]] = sorted(g.upper() for g in args.access_groups)
    hire["status"] = "provisioned"
    return {"email": email, "services": ["active_directory", "email"], "access_groups": args.access_groups}


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def get_group_memberships(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """The access groups the employee belongs to."""
    employee = _require_auth(db, args.employee_id)
    return {"groups": db["group_members"].get(employee["employee_id"], [])}


class GroupArgs(ToolArgs):
    group_name: str
    employee_id: str


@REGISTRY.tool(GroupArgs, writes=False)
def get_group_details(db: dict[str, Any], args: GroupArgs) -> dict[str, Any]:
    """An access group's eligibility restrictions (for this employee) and whether joining needs approval."""
    employee = _require_auth(db, args.employee_id)
    group = _resolve_name(db["groups"], args.group_name, "group")
    eligible = not group["eligible_departments"] or employee["department"] in group["eligible_departments"]
    return {"group": group, "eligible": eligible, "requires_approval": group["requires_approval"]}


class GroupChangeArgs(ToolArgs):
    employee_id: str
    group_id: str
    action: Literal["add", "remove"]


@REGISTRY.tool(GroupChangeArgs, writes=True)
def submit_group_membership_change(db: dict[str, Any], args: GroupChangeArgs) -> dict[str, Any]:
    """Join or leave an access group (OTP-elevated; eligibility by department; some joins need approval)."""
    employee = _require_auth(db, args.employee_id)
    _require_otp(db)
    group = db["groups"].get(args.group_id.upper())
    if group is None:
        raise ToolError("group_not_found", f"no group {args.group_id}")
    members = db["group_members"].setdefault(employee["employee_id"], [])
    if args.action == "add":
        if group["eligible_departments"] and employee["department"] not in group["eligible_departments"]:
            raise ToolError("not_eligible", f"{group['name']} is limited to {group['eligible_departments']}")
        if group["group_id"] in members:
            raise ToolError("already_member", f"already in {group['name']}")
    elif group["group_id"] not in members:
        raise ToolError("not_member", f"not in {group['name']}")
    pending = args.action == "add" and group["requires_approval"]
    if not pending:
        members.remove(group["group_id"]) if args.action == "remove" else members.append(group["group_id"])
        members.sort()
    request_id = _next_id(db, "group_change", "REQGM", 6)
    db["group_changes"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "group_id": group["group_id"],
        "action": args.action,
        "status": "pending_approval" if pending else "completed",
        "approver_id": None,
    }
    return {
        "request_id": request_id,
        "request_status": db["group_changes"][request_id]["status"],
        "needs_approval": pending,
    }


@REGISTRY.tool(EmployeeIdArgs, writes=False)
def check_role_change_authorized(db: dict[str, Any], args: EmployeeIdArgs) -> dict[str, Any]:
    """Whether HR pre-approved a role change for the employee, with the new role and effective date."""
    employee = _require_auth(db, args.employee_id)
    change = db["role_changes"].get(employee["employee_id"])
    if change is None:
        return {"authorized": False, "new_role": None, "effective_date": None}
    return {
        "authorized": change["hr_approved"],
        "new_role": change["new_role"],
        "effective_date": change["effective_date"],
    }


class TemplatesArgs(ToolArgs):
    role: str


@REGISTRY.tool(TemplatesArgs, writes=False)
def get_permission_templates(db: dict[str, Any], args: TemplatesArgs) -> dict[str, Any]:
    """Permission templates available for a role."""
    templates = [t for t in db["permission_templates"].values() if t["role"] == args.role]
    if not templates:
        raise ToolError("no_templates", f"no permission templates for role {args.role}")
    return {"templates": sorted(templates, key=lambda t: t["template_id"])}


class PermissionChangeArgs(ToolArgs):
    employee_id: str
    new_role: str
    template_name: str
    effective_date: str


@REGISTRY.tool(PermissionChangeArgs, writes=True)
def submit_permission_change(db: dict[str, Any], args: PermissionChangeArgs) -> dict[str, Any]:
    """Apply a permission template after an HR-approved role change (OTP-elevated; HR's effective date)."""
    employee = _require_auth(db, args.employee_id)
    _require_otp(db)
    change = db["role_changes"].get(employee["employee_id"])
    if change is None or not change["hr_approved"]:
        raise ToolError("role_change_not_authorized", "HR has not approved a role change: contact HR first")
    template = next(
        (
            t
            for t in db["permission_templates"].values()
            if t["role"] == change["new_role"] and args.template_name.lower() in (t["name"], t["template_id"].lower())
        ),
        None,
    )
    if template is None or args.new_role != change["new_role"]:
        raise ToolError("template_mismatch", f"use a template for the approved role {change['new_role']}")
    if args.effective_date != change["effective_date"]:
        raise ToolError("effective_date_mismatch", f"HR's effective date is {change['effective_date']}")
    change_id = _next_id(db, "permission_change", "PC", 6)
    db["permission_changes"][change_id] = {
        "change_id": change_id,
        "employee_id": employee["employee_id"],
        "template_id": template["template_id"],
        "effective_date": args.effective_date,
    }
    employee["role"] = change["new_role"]
    review_due = (date.fromisoformat(args.effective_date) + timedelta(days=ACCESS_REVIEW_DAYS)).isoformat()
    return {"change_id": change_id, "effective_date": args.effective_date, "review_due": review_due}


class ReviewArgs(ToolArgs):
    employee_id: str
    change_id: str
    review_date: str


@REGISTRY.tool(ReviewArgs, writes=True)
def schedule_access_review(db: dict[str, Any], args: ReviewArgs) -> dict[str, Any]:
    """Schedule the compliance access review 90 days (± 3) after a permission change takes effect."""
    employee = _require_auth(db, args.employee_id)
    change = db["permission_changes"].get(args.change_id.upper())
    if change is None or change["employee_id"] != employee["employee_id"]:
        raise ToolError("change_not_found", f"no permission change {args.change_id}")
    target = date.fromisoformat(change["effective_date"]) + timedelta(days=ACCESS_REVIEW_DAYS)
    if abs((date.fromisoformat(args.review_date) - target).days) > 3:
        raise ToolError("review_date_out_of_range", f"the review is due {target.isoformat()} (± 3 days)")
    review_id = _next_id(db, "access_review", "AR", 6)
    db["access_reviews"][review_id] = {
        "review_id": review_id,
        "change_id": change["change_id"],
        "date": args.review_date,
    }
    return {"review_id": review_id, "review_date": args.review_date}


class OffboardingArgs(ToolArgs):
    departing_employee_id: str


@REGISTRY.tool(OffboardingArgs, writes=False)
def get_offboarding_record(db: dict[str, Any], args: OffboardingArgs) -> dict[str, Any]:
    """HR's off-boarding record for a departing direct report of the verified manager."""
    manager = _require_manager(db)
    record = db["offboarding"].get(args.departing_employee_id.upper())
    if record is None:
        raise ToolError("offboarding_record_not_found", "HR has not created an off-boarding record: contact HR")
    if record["manager_id"] != manager:
        raise ToolError("not_authorized", "the departing employee does not report to the caller")
    removable = date.fromisoformat(record["last_working_day"]) >= _today(db) and record["status"] != "access_removed"
    return {"offboarding": record, "removable": removable}


class RemovalArgs(ToolArgs):
    departing_employee_id: str
    removal_scope: Literal["full", "staged"]


@REGISTRY.tool(RemovalArgs, writes=True)
def submit_access_removal(db: dict[str, Any], args: RemovalArgs) -> dict[str, Any]:
    """Remove a departing employee's access (manager + OTP); staged keeps the mailbox 30 days."""
    manager = _require_manager(db)
    record = db["offboarding"].get(args.departing_employee_id.upper())
    if record is None or record["manager_id"] != manager:
        raise ToolError("offboarding_record_not_found", "no off-boarding record for a report of the caller")
    if date.fromisoformat(record["last_working_day"]) < _today(db):
        raise ToolError("last_day_in_past", "the last working day is in the past: contact HR")
    if record["status"] == "access_removed":
        raise ToolError("already_removed", "access was already removed")
    accounts = db["accounts"].get(record["employee_id"], {})
    for name, account in accounts.items():
        staged = args.removal_scope == "staged" and name == "email"
        account["status"] = "retained_until_handoff" if staged else "disabled"
    db["group_members"][record["employee_id"]] = []
    record["status"] = "access_removed"
    record["removal_scope"] = args.removal_scope
    keep = date.fromisoformat(record["last_working_day"]) + timedelta(days=STAGED_MAILBOX_DAYS)
    return {
        "removal_scope": args.removal_scope,
        "mailbox_until": keep.isoformat() if args.removal_scope == "staged" else None,
    }


class RecoveryArgs(ToolArgs):
    departing_employee_id: str
    return_method: Literal["shipping_label", "in_person"]


@REGISTRY.tool(RecoveryArgs, writes=True)
def initiate_asset_recovery(db: dict[str, Any], args: RecoveryArgs) -> dict[str, Any]:
    """Recovery order for all of a departing employee's hardware."""
    manager = _require_manager(db)
    record = db["offboarding"].get(args.departing_employee_id.upper())
    if record is None or record["manager_id"] != manager:
        raise ToolError("offboarding_record_not_found", "no off-boarding record for a report of the caller")
    tags = sorted(a["asset_tag"] for a in db["assets"].values() if a["employee_id"] == record["employee_id"])
    for tag in tags:
        db["assets"][tag]["status"] = "recovery_pending"
    recovery_id = _next_id(db, "recovery", "REC", 6)
    db["asset_recoveries"][recovery_id] = {"recovery_id": recovery_id, "asset_tags": tags, "method": args.return_method}
    return {"recovery_id": recovery_id, "asset_tags": tags, "return_method": args.return_method}


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


class TransferArgs(ToolArgs):
    reason: str


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent (recorded, so an unneeded transfer fails task completion)."""
    db.setdefault("transfers", []).append({"reason": args.reason})
    return {"transferred": True}
