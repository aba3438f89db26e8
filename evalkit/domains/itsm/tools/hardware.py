"""Hardware: assets, refresh entitlement, cost-center budget, hardware requests and returns."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.itsm.tools.common import (
    HARDWARE_PRICES,
    LAPTOP_MIN_AGE_MONTHS,
    MONITOR_MIN_AGE_MONTHS,
    REGISTRY,
    RETURN_DAYS,
    _asset,
    _months_between,
    _next_id,
    _require_auth,
    _resolve_name,
    _today,
)

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
