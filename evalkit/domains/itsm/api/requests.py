"""Hardware requests and application access."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from evalkit.domains.base import ToolArgs, ToolError, row
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    RETURN_DAYS,
    AssetTag,
    BuildingRef,
    CatalogName,
    EmployeeArgs,
    EmployeeId,
    FloorCode,
    RequestId,
    approval_deadline,
    catalog_details,
    days_after,
    employee,
    empty_to_none,
    facility_code,
    filed,
    full_name,
    months_between,
    require,
    today,
    today_text,
)

HardwareType = Literal["laptop_replacement", "monitor_bundle"]
LAPTOP_REASONS = ("end_of_life", "performance_degradation", "physical_damage", "lost_or_stolen")
MONITOR_REASONS = ("new_setup", "replacement")
LAPTOP_MIN_MONTHS, MONITOR_MIN_MONTHS = 36, 12
APP_ID = r"^APP-\d{4}$"
LICENSE_ID = r"^LIC-\d{4}$"

# ------------------------------------------------------------------------------------------------ hardware


class EntitlementArgs(ToolArgs):
    employee_id: EmployeeId
    request_type: HardwareType


@REGISTRY.tool(EntitlementArgs, writes=False, needs="employee_auth")
def check_hardware_entitlement(db: dict[str, Any], args: EntitlementArgs) -> dict[str, Any]:
    """Whether the employee may get the hardware: role entitlement, no pending request, device old enough."""
    entitlement = employee(db, args.employee_id).get("hardware_entitlements", {}).get(args.request_type)
    if not entitlement:
        raise ToolError("no_entitlement", f"No entitlement for {args.request_type}")
    if entitlement.get("pending_request"):
        raise ToolError("request_already_pending", f"Pending: {entitlement.get('pending_request_id')}")
    tag = entitlement.get("current_asset_tag")
    asset = db.get("assets", {}).get(tag) if tag else None
    age = None
    if asset and asset.get("purchase_date"):
        age = months_between(date.fromisoformat(asset["purchase_date"]), today(db))
    if age is not None and args.request_type == "laptop_replacement" and age < LAPTOP_MIN_MONTHS:
        raise ToolError(
            "device_too_new",
            f"The laptop is {age} months old; a standard replacement needs {LAPTOP_MIN_MONTHS}. A lost, stolen "
            "or damaged device goes through a security incident.",
        )
    if age is not None and args.request_type == "monitor_bundle" and age < MONITOR_MIN_MONTHS:
        raise ToolError(
            "replaced_too_recently",
            f"The monitor is {age} months old; replacements are {MONITOR_MIN_MONTHS} months apart at least.",
        )
    current = None
    if asset:
        current = {"asset_tag": tag, "os": asset.get("os"), "size": asset.get("size"), "model": asset.get("model")}
    return {
        "eligible": True,
        "employee_id": args.employee_id,
        "request_type": args.request_type,
        "current_asset_tag": tag,
        "device_age_months": age,
        "current_asset": current,
        "message": "Eligible",
    }


def _cost_center(db: dict[str, Any], employee_id: str) -> tuple[dict[str, Any], str, str]:
    """The employee's cost center record, its code and the employee's department (they must agree)."""
    person = employee(db, employee_id)
    code, department = person.get("cost_center_code"), person.get("department_code")
    if not code:
        raise ToolError("cc_not_on_file", f"No cost center on file for {employee_id}")
    center = row(db.get("cost_centers", {}), code, "Cost center")
    if center.get("department_code") != department:
        raise ToolError("department_mismatch", f"{code} belongs to {center['department_code']}, not {department}")
    return center, code, department


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def verify_cost_center_budget(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Whether the employee's department cost center (from the employee record) has budget for hardware."""
    center, code, department = _cost_center(db, args.employee_id)
    remaining = center.get("remaining_budget_usd", 0)
    if not center.get("has_budget", True):
        raise ToolError(
            "insufficient_budget",
            f"Cost center {code} has no budget left; the request waits for budget approval",
            details={"cost_center_code": code, "remaining_budget_usd": remaining},
        )
    return {
        "cost_center_code": code,
        "department_code": department,
        "has_budget": True,
        "remaining_budget_usd": remaining,
        "message": "Budget available",
    }


class HardwareRequestArgs(ToolArgs):
    employee_id: EmployeeId
    request_type: HardwareType
    justification: Literal[
        "end_of_life", "performance_degradation", "physical_damage", "lost_or_stolen", "new_setup", "replacement"
    ] = Field(
        description="laptop_replacement: end_of_life, performance_degradation, physical_damage or lost_or_stolen; "
        "monitor_bundle: new_setup or replacement"
    )
    current_asset_tag: AssetTag | None = Field(
        default=None, description="The device replaced; omit for lost_or_stolen laptops and new monitor setups"
    )
    laptop_os: Literal["macos", "windows"] | None = Field(default=None, description="laptop_replacement only")
    laptop_size: Literal["13_inch", "14_inch", "16_inch"] | None = Field(
        default=None, description="laptop_replacement only"
    )
    monitor_size: Literal["24_inch", "27_inch", "32_inch"] | None = Field(
        default=None, description="monitor_bundle only"
    )
    delivery_building: BuildingRef
    delivery_floor: FloorCode

    @field_validator("current_asset_tag", "laptop_os", "laptop_size", "monitor_size", mode="before")
    @classmethod
    def _placeholder_is_absent(cls, value: Any) -> Any:
        return empty_to_none(value)

    @model_validator(mode="after")
    def _fields_of_the_type(self) -> HardwareRequestArgs:
        """Fields the request type needs are required; those of the other type are dropped, as EVA-Bench's
        stored request records hold None for them."""
        if self.request_type == "laptop_replacement":
            if self.justification not in LAPTOP_REASONS:
                raise ValueError(f"justification must be one of {', '.join(LAPTOP_REASONS)} for a laptop")
            self.monitor_size = None
            if self.laptop_os is None or self.laptop_size is None:
                raise ValueError("laptop_os and laptop_size are required for laptop_replacement")
            if self.justification != "lost_or_stolen" and self.current_asset_tag is None:
                raise ValueError("current_asset_tag is required for laptop_replacement unless lost_or_stolen")
        else:
            if self.justification not in MONITOR_REASONS:
                raise ValueError(f"justification must be one of {', '.join(MONITOR_REASONS)} for a monitor bundle")
            self.laptop_os = self.laptop_size = None
            if self.monitor_size is None:
                raise ValueError("monitor_size is required for monitor_bundle")
            if self.justification == "replacement" and self.current_asset_tag is None:
                raise ValueError("current_asset_tag is required for a monitor replacement")
            if self.justification == "new_setup":
                self.current_asset_tag = None
        return self


@REGISTRY.tool(HardwareRequestArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_hardware_request(db: dict[str, Any], args: HardwareRequestArgs) -> dict[str, Any]:
    """Submit a laptop replacement or monitor bundle request for delivery to a building and floor."""
    building = facility_code(db, "building", args.delivery_building)
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": args.employee_id,
        "request_type": args.request_type,
        "justification": args.justification,
        "current_asset_tag": args.current_asset_tag,
        "monitor_size": args.monitor_size,
        "laptop_os": args.laptop_os,
        "laptop_size": args.laptop_size,
        "delivery_building": building,
        "delivery_floor": args.delivery_floor,
        "status": "submitted",
        "created_date": today_text(db),
    }
    request_id = filed(db, "requests", request, "request_id", "REQ-HW-")
    person = db.get("employees", {}).get(args.employee_id, {})
    entitlement = person.get("hardware_entitlements", {}).get(args.request_type)
    if entitlement:
        entitlement.update(pending_request=True, pending_request_id=request_id)
    if args.justification == "lost_or_stolen" and args.current_asset_tag:
        lost = db.get("assets", {}).get(args.current_asset_tag)
        if lost:
            lost.update(lifecycle_status="lost_or_stolen", status="inactive")
    return {"request_id": request_id, "request_type": args.request_type, "message": f"Submitted {request_id}"}


class ReturnArgs(ToolArgs):
    employee_id: EmployeeId
    asset_tag: AssetTag
    request_id: RequestId


@REGISTRY.tool(ReturnArgs, writes=True, needs="employee_auth")
def initiate_asset_return(db: dict[str, Any], args: ReturnArgs) -> dict[str, Any]:
    """Open a return authorization (14 days) for the device a replacement supersedes."""
    asset = row(db.get("assets", {}), args.asset_tag, "Asset")
    deadline = days_after(today(db), RETURN_DAYS)
    rma = f"RMA-{args.asset_tag[-6:]}"
    asset["return_authorization"] = {
        "return_auth_id": rma,
        "request_id": args.request_id,
        "return_deadline": deadline,
        "status": "pending_return",
    }
    return {
        "return_auth_id": rma,
        "asset_tag": args.asset_tag,
        "return_deadline": deadline,
        "message": f"Return {rma}: by {deadline}",
    }


# ------------------------------------------------------------------------------------------------ app access


class ApplicationArgs(ToolArgs):
    application_name: CatalogName


@REGISTRY.tool(ApplicationArgs, writes=False, needs="employee_auth")
def get_application_details(db: dict[str, Any], args: ApplicationArgs) -> dict[str, Any]:
    """The catalog entry of an application by name or alias: id, access levels, whether approval is needed."""
    return catalog_details(db, "applications", args.application_name, "application")


class AccessRequestArgs(ToolArgs):
    employee_id: EmployeeId
    catalog_id: str = Field(pattern=APP_ID, description="APP-NNNN, from get_application_details")
    access_level: Literal["read_only", "standard", "admin"]


@REGISTRY.tool(AccessRequestArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_access_request(db: dict[str, Any], args: AccessRequestArgs) -> dict[str, Any]:
    """Request access to an application (OTP-verified callers only); approval-gated apps wait for the manager."""
    require(db, "otp_auth")
    app = row(db.get("software_catalog", {}).get("applications", {}), args.catalog_id, "Application")
    levels = app.get("available_access_levels", [])
    if args.access_level not in levels:
        raise ToolError("invalid_access_level", f"'{args.access_level}' is not offered; options: {levels}")
    approval = app.get("requires_manager_approval", False)
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": args.employee_id,
        "catalog_id": args.catalog_id,
        "application_name": app["name"],
        "access_level": args.access_level,
        "status": "pending_approval" if approval else "approved",
        "requires_manager_approval": approval,
        "created_date": today_text(db),
    }
    request_id = filed(db, "requests", request, "request_id", "REQ-SW-")
    return {
        "request_id": request_id,
        "application_name": app["name"],
        "access_level": args.access_level,
        "requires_approval": approval,
        "message": request_id + (" (waiting for approval)" if approval else " (approved)"),
    }


class RouteArgs(ToolArgs):
    request_id: RequestId
    employee_id: EmployeeId
    approver_employee_id: EmployeeId


@REGISTRY.tool(RouteArgs, writes=True, needs="employee_auth")
def route_approval_workflow(db: dict[str, Any], args: RouteArgs) -> dict[str, Any]:
    """Send a request needing approval to the approver (the manager), with a 48-hour approval window."""
    request = row(db.get("requests", {}), args.request_id, "Request")
    approver = employee(db, args.approver_employee_id)
    deadline = approval_deadline(db)
    request.update(approval_routed_to=args.approver_employee_id, approval_sla_deadline=deadline)
    return {
        "request_id": args.request_id,
        "approver_name": full_name(approver),
        "approval_deadline": deadline,
        "message": f"Sent to {full_name(approver)} for approval within 48 hours",
    }
