"""Software: application access requests and approval routing, license catalog, requests, renewals, request
status and approval escalation."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.itsm.tools.common import (
    APPROVAL_SLA_HOURS,
    REGISTRY,
    RENEWAL_AFTER_DAYS,
    RENEWAL_BEFORE_DAYS,
    TEMPORARY_LICENSE_DAYS,
    _employee,
    _next_id,
    _require_auth,
    _require_otp,
    _resolve_name,
    _today,
)

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
