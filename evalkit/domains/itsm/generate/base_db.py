"""The base ITSM DB every scenario starts from, in EVA-Bench's ITSM layout (``evalkit.scenario_tools.eva_record
.DB_LAYOUTS["itsm"]``): the caller, their manager and skip-level manager, their assets, the facilities, the
software catalog, access groups and the rest. Values are invented; the layout is EVA-Bench's.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.entities import asset_tag, code, digits, employee_id, months_ago
from evalkit.domains.itsm.generate.tables import (
    APPLICATIONS,
    BUILDINGS,
    DEPARTMENTS,
    FIRST_NAMES,
    GROUPS,
    LAST_NAMES,
    LICENSES,
    MANAGER_ROLES,
    NEW_ROLES,
    TODAY,
    ZONES,
)

SYSTEMS = ("active_directory", "sso_identity", "email_exchange", "vpn_gateway", "erp_oracle")
GUIDES = {
    "login_issue": [
        "Check that Caps Lock is off and retype the password.",
        "Sign in at the self-service web portal.",
        "Restart the workstation while connected to the office network.",
    ],
    "hardware_malfunction": [
        "Inspect the device for visible damage.",
        "Power-cycle it completely.",
        "Reseat the cables and peripherals.",
        "Try a known-good power source.",
    ],
    "network_connectivity": [
        "Toggle Wi-Fi off and on.",
        "Forget and rejoin the corporate network.",
        "Restart the VPN client.",
        "Flush the DNS cache.",
    ],
}
TECHNICIANS = (("T-201", "Ines Carvalho"), ("T-202", "Rafael Moreau"), ("T-203", "Keiko Tanabe"))


def person(
    rng: random.Random, eid: str, department: str, manager: str | None, *, role: str | None = None
) -> dict[str, Any]:
    """An active employee in EVA-Bench's employee layout (no desk, parking, licenses or memberships yet)."""
    first, _ = rng.choice(FIRST_NAMES)
    last = rng.choice(LAST_NAMES)
    role_code, cost_center = DEPARTMENTS[department]
    return {
        "employee_id": eid,
        "first_name": first,
        "last_name": last,
        "phone_last_four": digits(rng, 4),
        "otp_code": digits(rng, 6),
        "email": f"{first}.{last}@company.com".lower().replace(" ", "").replace("-", ""),
        "department_code": department,
        "role_code": role or role_code,
        "cost_center_code": cost_center,
        "manager_employee_id": manager,
        "is_manager": False,
        "direct_reports": [],
        "hire_date": months_ago(rng.randint(14, 90)),
        "employment_status": "active",
        "building_code": "BLD1",
        "floor_code": "FL2",
        "account_status": {
            system: {"locked": False, "lock_reason": None, "requires_in_person_reset": False} for system in SYSTEMS
        },
        "hardware_entitlements": {},
        "group_memberships": [],
        "software_licenses": [],
        "system_accounts": [{"case_id": None, "status": "active", "access_groups": []}],
        "ergonomic_assessment": None,
        "assigned_desk": None,
        "last_desk_assignment_date": None,
        "assigned_parking": None,
        "last_parking_assignment_date": None,
        "offboarding_record": None,
        "pending_role_approval": None,
        "pending_role_change": None,
    }


def make_manager(rng: random.Random, employee: dict[str, Any], reports: list[str]) -> None:
    employee.update(is_manager=True, manager_auth_code=code(rng, "", 6), direct_reports=list(reports))


def laptop(rng: random.Random, tag: str, owner: str, months_old: int) -> dict[str, Any]:
    bought = months_ago(months_old)
    model = rng.choice((("Lenovo", "ThinkPad X1 Carbon", "windows"), ("Apple", "MacBook Pro", "macos")))
    return {
        "asset_tag": tag,
        "asset_type": "laptop",
        "assigned_employee_id": owner,
        "manufacturer": model[0],
        "model": model[1],
        "os": model[2],
        "size": rng.choice(("14_inch", "16_inch")),
        "serial_number": code(rng, "SN", 8),
        "purchase_date": bought,
        "warranty_expiration": f"{int(bought[:4]) + 3}{bought[4:]}",
        "status": "active",
        "lifecycle_status": "current",
    }


def monitor(rng: random.Random, tag: str, owner: str, months_old: int) -> dict[str, Any]:
    bought = months_ago(months_old)
    return {
        "asset_tag": tag,
        "asset_type": "monitor",
        "assigned_employee_id": owner,
        "manufacturer": "Dell",
        "model": rng.choice(("P2422H", "U2723QE")),
        "size": rng.choice(("24_inch", "27_inch")),
        "serial_number": code(rng, "SN", 8),
        "purchase_date": bought,
        "warranty_expiration": f"{int(bought[:4]) + 3}{bought[4:]}",
        "status": "active",
        "lifecycle_status": "current",
    }


def base_db(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """Reference tables shared by every scenario plus the caller, their manager and skip-level manager."""
    taken: set[str] = set()
    tags: set[str] = set()
    department = rng.choice(sorted(DEPARTMENTS))
    skip, manager, caller = (employee_id(rng, taken) for _ in range(3))
    employees = {
        skip: person(rng, skip, department, None, role=MANAGER_ROLES[department]),
        manager: person(rng, manager, department, skip, role=MANAGER_ROLES[department]),
        caller: person(rng, caller, department, manager),
    }
    make_manager(rng, employees[skip], [manager])
    make_manager(rng, employees[manager], [caller])
    first, gender = rng.choice(FIRST_NAMES)
    me = employees[caller]
    me["first_name"] = first
    me["email"] = f"{first}.{me['last_name']}@company.com".lower().replace(" ", "").replace("-", "")
    building = rng.choice(sorted(BUILDINGS))
    me.update(building_code=building, floor_code=f"FL{rng.randint(1, 6)}")
    laptop_tag, monitor_tag = asset_tag(rng, "LPT", tags), asset_tag(rng, "MON", tags)
    me["hardware_entitlements"] = {
        "laptop_replacement": {"current_asset_tag": laptop_tag, "pending_request": False, "pending_request_id": None},
        "monitor_bundle": {"current_asset_tag": None, "pending_request": False, "pending_request_id": None},
    }
    assets = {
        laptop_tag: laptop(rng, laptop_tag, caller, rng.randint(8, 30)),
        monitor_tag: monitor(rng, monitor_tag, manager, rng.randint(8, 30)),
    }
    dispatch_days = [TODAY + timedelta(days=d) for d in range(1, 15) if (TODAY + timedelta(days=d)).weekday() < 5]
    db: dict[str, Any] = {
        "_current_date": TODAY.isoformat(),
        "employees": employees,
        "access_groups": {
            code_: {
                "group_code": code_,
                "name": name,
                "description": f"{name} access",
                "eligible_departments": [],
                "eligible_roles": [],
                "requires_approval": approval,
                "member_count": rng.randint(8, 200),
            }
            for code_, (name, approval) in GROUPS.items()
        },
        "active_outages": {},
        "asset_recoveries": {},
        "assets": assets,
        "calendar_events": {},
        "cases": {},
        "cost_centers": {
            cc: {
                "cost_center_code": cc,
                "department_code": dept,
                "description": f"{dept} operations",
                "has_budget": True,
                "remaining_budget_usd": rng.randrange(20000, 80000, 500),
            }
            for dept, (_, cc) in DEPARTMENTS.items()
        },
        "facilities": {
            "buildings": {
                code_: {"building_code": code_, "name": name, "name_aliases": aliases}
                for code_, (name, aliases) in BUILDINGS.items()
            },
            "zones": {
                code_: {"zone_code": code_, "name": name, "name_aliases": aliases}
                for code_, (name, aliases) in ZONES.items()
            },
            "desks": {},
            "parking": {},
            "conference_rooms": {},
        },
        "field_dispatch_availability": {
            day.isoformat(): {
                window: {"available": True, "technician_id": tech[0], "technician_name": tech[1]}
                for window, tech in zip(("morning", "afternoon"), rng.sample(TECHNICIANS, 2), strict=True)
            }
            for day in dispatch_days
        },
        "interactions": {},
        "known_errors": {},
        "permission_templates": {
            f"PTPL-{role}-01": {
                "template_id": f"PTPL-{role}-01",
                "role_code": role,
                "name": f"{role} standard",
                "description": f"Standard permissions for the {role} role",
                "groups": [],
                "permissions": [f"{role.lower()}.standard"],
            }
            for role in sorted(set(NEW_ROLES.values()))
        },
        "requests": {},
        "security_cases": {},
        "software_catalog": {
            "applications": {
                cid: {
                    "catalog_id": cid,
                    "name": name,
                    "name_aliases": [],
                    "vendor": vendor,
                    "available_access_levels": levels,
                    "department_restrictions": [],
                    "requires_manager_approval": approval,
                }
                for cid, (name, vendor, levels, approval) in APPLICATIONS.items()
            },
            "licenses": {
                cid: {
                    "catalog_id": cid,
                    "name": name,
                    "name_aliases": [],
                    "vendor": vendor,
                    "license_cost_usd": rng.randrange(120, 900, 10),
                    "license_types_supported": ["permanent", "temporary"],
                }
                for cid, (name, vendor) in LICENSES.items()
            },
        },
        "tickets": {},
        "troubleshooting_guides": {category: {"steps": list(steps)} for category, steps in GUIDES.items()},
        "waitlists": {},
        "session": {},
    }
    caller_info = {
        "employee_id": caller,
        "manager_id": manager,
        "skip_id": skip,
        "gender": gender,
        "laptop": laptop_tag,
        "taken": taken,
        "tags": tags,
    }
    return db, caller_info
