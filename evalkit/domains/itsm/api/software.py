"""Software licenses (permanent, temporary, renewals) and the status and escalation of pending requests."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any, Literal

from pydantic import Field, field_validator

from evalkit.domains.base import ToolArgs, ToolError, row
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    CatalogName,
    EmployeeArgs,
    EmployeeId,
    LicenseAssignmentId,
    RequestId,
    approval_deadline,
    catalog_details,
    days_after,
    employee,
    empty_to_none,
    filed,
    full_name,
    not_found,
    today,
    today_text,
)
from evalkit.domains.itsm.api.requests import LICENSE_ID, _cost_center

RENEW_BEFORE_DAYS, RENEW_AFTER_DAYS, RENEWAL_TERM_DAYS = 30, 14, 365

# ------------------------------------------------------------------------------------------------ licenses


class LicenseNameArgs(ToolArgs):
    license_name: CatalogName


@REGISTRY.tool(LicenseNameArgs, writes=False, needs="employee_auth")
def get_license_catalog_item(db: dict[str, Any], args: LicenseNameArgs) -> dict[str, Any]:
    """The catalog entry of a software license by name or alias."""
    return catalog_details(db, "licenses", args.license_name, "license")


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def validate_cost_center(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Check that the employee's cost center (from the employee record) belongs to their department."""
    _, code, department = _cost_center(db, args.employee_id)
    return {
        "cost_center_code": code,
        "department_code": department,
        "validated": True,
        "message": f"Cost center {code} valid",
    }


class LicenseRequestArgs(ToolArgs):
    employee_id: EmployeeId
    catalog_id: str = Field(pattern=LICENSE_ID, description="LIC-NNNN, from get_license_catalog_item")
    duration_days: Literal[30, 60, 90] | None = Field(
        default=None, description="A temporary license's days (30, 60 or 90); omit for a permanent license"
    )

    @field_validator("duration_days", mode="before")
    @classmethod
    def _days(cls, value: Any) -> Any:
        """A placeholder or 0 means permanent; "60" is 60."""
        value = empty_to_none(value)
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                return value
        return None if value == 0 else value


@REGISTRY.tool(LicenseRequestArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_license_request(db: dict[str, Any], args: LicenseRequestArgs) -> dict[str, Any]:
    """Request a permanent license, or a temporary one for 30, 60 or 90 days."""
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": args.employee_id,
        "catalog_id": args.catalog_id,
        "status": "submitted",
        "created_date": today_text(db),
    }
    if args.duration_days is None:
        request["request_type"] = "license_request"
        request_id = filed(db, "requests", request, "request_id", "REQ-SW-")
        return {
            "request_id": request_id,
            "catalog_id": args.catalog_id,
            "license_type": "permanent",
            "message": f"License request {request_id}",
        }
    expires = days_after(today(db), args.duration_days)
    request.update(request_type="temporary_license", duration_days=args.duration_days, expiration_date=expires)
    request_id = filed(db, "requests", request, "request_id", "REQ-SW-")
    return {
        "request_id": request_id,
        "catalog_id": args.catalog_id,
        "license_type": "temporary",
        "duration_days": args.duration_days,
        "expiration_date": expires,
        "message": f"Temporary license {request_id}, expires {expires}",
    }


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def get_employee_licenses(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The software licenses assigned to the employee, with their expiration dates."""
    person = employee(db, args.employee_id)
    return {"employee_id": args.employee_id, "licenses": copy.deepcopy(person.get("software_licenses", []))}


class RenewalArgs(ToolArgs):
    employee_id: EmployeeId
    license_assignment_id: LicenseAssignmentId


@REGISTRY.tool(RenewalArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_license_renewal(db: dict[str, Any], args: RenewalArgs) -> dict[str, Any]:
    """Renew a license for a year: only from 30 days before its expiry to 14 days after."""
    person = employee(db, args.employee_id)
    held = person.get("software_licenses", [])
    license_ = next((x for x in held if x["license_assignment_id"] == args.license_assignment_id), None)
    if not license_:
        raise not_found(f"License {args.license_assignment_id}")
    now = today(db)
    expiry = license_.get("expiration_date", "")
    if expiry:
        days = (date.fromisoformat(expiry) - now).days
        if days > RENEW_BEFORE_DAYS:
            raise ToolError(
                "not_in_renewal_window",
                f"The license expires in {days} days; renewal opens {RENEW_BEFORE_DAYS} days before expiry.",
                details={"expiration_date": expiry},
            )
        if days < -RENEW_AFTER_DAYS:
            raise ToolError(
                "not_in_renewal_window",
                f"The license expired {-days} days ago; renewal closes {RENEW_AFTER_DAYS} days after expiry, "
                "so a new license request is needed.",
                details={"expiration_date": expiry},
            )
    start = max(date.fromisoformat(expiry), now) if expiry else now
    new_expiry = days_after(start, RENEWAL_TERM_DAYS)
    license_.update(expiration_date=new_expiry, status="active")
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": args.employee_id,
        "license_assignment_id": args.license_assignment_id,
        "request_type": "license_renewal",
        "new_expiration_date": new_expiry,
        "status": "submitted",
        "created_date": today_text(db),
    }
    request_id = filed(db, "requests", request, "request_id", "REQ-SW-")
    return {
        "request_id": request_id,
        "new_expiration_date": new_expiry,
        "message": f"Renewed until {new_expiry} ({request_id})",
    }


# ------------------------------------------------------------------------------------------------ status


class StatusArgs(ToolArgs):
    request_id: RequestId


def _deadline_passed(db: dict[str, Any], deadline: str) -> bool:
    return today(db) > date.fromisoformat(deadline.split(" ")[0])


@REGISTRY.tool(StatusArgs, writes=False, needs="employee_auth")
def get_request_status(db: dict[str, Any], args: StatusArgs) -> dict[str, Any]:
    """A request's status, approver, approval deadline and whether that deadline has passed."""
    request = row(db.get("requests", {}), args.request_id, "Request")
    deadline = request.get("approval_sla_deadline")
    breached = bool(deadline) and _deadline_passed(db, deadline)
    return {
        "request_id": args.request_id,
        "request_status": request.get("status"),
        "approval_routed_to": request.get("approval_routed_to"),
        "approval_sla_deadline": deadline,
        "sla_breached": breached,
        "created_date": request.get("created_date"),
        "message": f"Request {args.request_id}: {request.get('status')}" + (" (deadline passed)" if breached else ""),
    }


class EscalateArgs(ToolArgs):
    request_id: RequestId
    escalate_to_employee_id: EmployeeId


@REGISTRY.tool(EscalateArgs, writes=True, needs="employee_auth")
def escalate_approval(db: dict[str, Any], args: EscalateArgs) -> dict[str, Any]:
    """Escalate a routed request to a skip-level approver once its approval deadline has passed."""
    request = row(db.get("requests", {}), args.request_id, "Request")
    deadline = request.get("approval_sla_deadline")
    if not deadline:
        raise ToolError("no_pending_approval", "The request was never routed for approval")
    if not _deadline_passed(db, deadline):
        raise ToolError("sla_not_breached", "The approval deadline has not passed yet")
    approver = employee(db, args.escalate_to_employee_id)
    new_deadline = approval_deadline(db)
    request.update(escalated_to=args.escalate_to_employee_id, escalation_sla_deadline=new_deadline, status="escalated")
    return {
        "request_id": args.request_id,
        "escalated_to": args.escalate_to_employee_id,
        "approver_name": full_name(approver),
        "escalation_deadline": new_deadline,
        "message": f"Escalated to {full_name(approver)}; 48 hours to decide",
    }
