"""The base ITSM DB every scenario starts from: the caller, colleagues, assets, groups, licenses and the rest."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.entities import code, digits, employee_id, months_ago
from evalkit.domains.itsm.generate.tables import DEPARTMENTS, FIRST_NAMES, LAST_NAMES, NEW_ROLES, TODAY
from evalkit.domains.itsm.workflows import APPLICATIONS, BUILDINGS, GROUPS, LICENSES, PARKING_ZONES, SERVICES


def person(rng: random.Random, eid: str, department: str, manager: str | None, cc: str) -> dict[str, Any]:
    first, _ = rng.choice(FIRST_NAMES)
    last = rng.choice(LAST_NAMES)
    role = DEPARTMENTS[department][0]
    return {
        "employee_id": eid,
        "first_name": first,
        "last_name": last,
        "phone_last_four": digits(rng, 4),
        "department": department,
        "role": role,
        "cost_center": cc,
        "manager_id": manager,
        "email": f"{first}.{last.replace(' ', '').replace('-', '')}@northwind.example".lower(),
        "hire_date": months_ago(rng.randint(14, 90)),
        "status": "active",
        "desk": None,
        "parking": None,
        "last_desk_assignment": None,
        "last_parking_assignment": None,
        "ergonomic_assessment_date": None,
    }


def base_db(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """Reference tables shared by every scenario plus the caller, their manager and skip-level manager."""
    taken: set[str] = set()
    department = rng.choice(sorted(DEPARTMENTS))
    cc = DEPARTMENTS[department][1]
    skip, manager, caller = (employee_id(rng, taken) for _ in range(3))
    employees = {
        skip: person(rng, skip, department, None, cc),
        manager: person(rng, manager, department, skip, cc),
        caller: person(rng, caller, department, manager, cc),
    }
    first, gender = rng.choice(FIRST_NAMES)
    employees[caller]["first_name"] = first
    employees[caller]["email"] = f"{first}.{employees[caller]['last_name']}@northwind.example".lower().replace(" ", "")
    laptop, phone = code(rng, "LT", 6), code(rng, "PH", 6)
    db: dict[str, Any] = {
        "current_date": TODAY.isoformat(),
        "email_domain": "northwind.example",
        "employees": employees,
        "otp_codes": {caller: digits(rng, 6)},
        "accounts": {
            caller: {
                "active_directory": {"status": "active", "security_hold": False},
                "email": {"status": "active", "address": employees[caller]["email"]},
            }
        },
        "troubleshooting_guides": {
            "login_issue": [
                "Check Caps Lock and the keyboard layout.",
                "Sign in at the web portal.",
                "Restart the workstation while connected to the office network.",
            ],
            "hardware_malfunction": [
                "Inspect the device for visible damage.",
                "Power-cycle it.",
                "Reseat the cables.",
                "Swap in a known-good peripheral.",
                "Check the power source.",
            ],
            "network_connectivity": [
                "Toggle Wi-Fi off and on.",
                "Forget and rejoin the corporate network.",
                "Restart the VPN client.",
                "Flush DNS with ipconfig /flushdns.",
            ],
        },
        "services": {
            f"SVC{i + 101}": {
                "service_id": f"SVC{i + 101}",
                "name": name,
                "aliases": [f"{name} service"] + (["exchange", "outlook"] if name == "email" else []),
            }
            for i, name in enumerate(SERVICES)
        },
        "outages": {},
        "known_errors": {},
        "incidents": {},
        "resolutions": {},
        "field_dispatches": {},
        "dispatch_slots": {
            (TODAY + timedelta(days=d)).isoformat(): ["morning", "afternoon"]
            for d in range(1, 15)
            if d % 7 not in (5, 6)
        },
        "diagnostic_runs": {},
        "assets": {
            laptop: {
                "asset_tag": laptop,
                "employee_id": caller,
                "type": "laptop",
                "model": "Latitude 7440",
                "serial": code(rng, "SN", 8),
                "assigned_date": months_ago(rng.randint(8, 30)),
                "status": "assigned",
                "condition": "good",
            },
            phone: {
                "asset_tag": phone,
                "employee_id": caller,
                "type": "phone",
                "model": "iPhone 15",
                "serial": code(rng, "SN", 8),
                "assigned_date": months_ago(rng.randint(3, 20)),
                "status": "assigned",
                "condition": "good",
            },
        },
        "role_entitlements": {role: ["laptop", "monitor"] for role, _ in DEPARTMENTS.values()}
        | {new: ["laptop", "monitor"] for new in NEW_ROLES.values()},
        "cost_centers": {
            c: {
                "cost_center": c,
                "department": d,
                "budget_remaining": float(rng.randrange(20000, 80000, 500)),
                "active": True,
            }
            for d, (_, c) in DEPARTMENTS.items()
        },
        "hardware_requests": {},
        "asset_returns": {},
        "applications": {
            f"APP{1040 + i}": {
                "catalog_id": f"APP{1040 + i}",
                "name": name,
                "aliases": [],
                "requires_manager_approval": name in ("snowflake", "github", "servicenow"),
                "access_levels": ["read_only", "standard", "admin"],
            }
            for i, name in enumerate(APPLICATIONS)
        },
        "license_catalog": {
            f"LIC{2040 + i}": {
                "catalog_id": f"LIC{2040 + i}",
                "name": name,
                "aliases": [],
                "license_types": ["permanent", "temporary"],
            }
            for i, name in enumerate(LICENSES)
        },
        "software_requests": {},
        "licenses": {},
        "buildings": {
            code_: {"building_id": code_, "name": name, "aliases": [], "free_desks": {str(f): [] for f in range(1, 7)}}
            for code_, name in zip(("HPT", "RVS", "ECM", "SMT"), BUILDINGS, strict=True)
        },
        "parking_zones": {
            code_: {"zone_id": code_, "name": name, "aliases": [], "free_spaces": []}
            for code_, name in zip(("PZEX", "PZNL", "PZVD", "PZRL"), PARKING_ZONES, strict=True)
        },
        "waitlists": {},
        "equipment_requests": {},
        "rooms": {},
        "new_hires": {},
        "groups": {
            f"GRP{300 + i}": {
                "group_id": f"GRP{300 + i}",
                "name": name,
                "aliases": [],
                "eligible_departments": [],
                "requires_approval": name in ("prod deploy", "data science lab"),
            }
            for i, name in enumerate(GROUPS)
        },
        "group_members": {caller: []},
        "group_changes": {},
        "role_changes": {},
        "permission_templates": {},
        "permission_changes": {},
        "access_reviews": {},
        "offboarding": {},
        "asset_recoveries": {},
        "security_cases": {},
        "transfers": [],
        "sequences": {
            "incident": rng.randint(10000, 99999),
            "software_request": rng.randint(5000, 9000),
            "hardware_request": rng.randint(1000, 9000),
            "outage": rng.randint(100, 900),
            "security_case": rng.randint(100000, 900000),
            "room_booking": rng.randint(1000, 9000),
        },
        "session": {},
    }
    caller_info = {"employee_id": caller, "manager_id": manager, "gender": gender, "laptop": laptop, "phone": phone,
                   "taken": taken}  # fmt: skip
    return db, caller_info
