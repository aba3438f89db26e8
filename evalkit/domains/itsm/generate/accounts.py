"""Part builders for accounts: new employee provisioning, group membership, permission changes, access removal."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.base_db import laptop, make_manager, person
from evalkit.domains.itsm.generate.entities import asset_tag, employee_id, months_ago, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import DEPARTMENTS, GROUPS, NEW_ROLES, TODAY
from evalkit.spoken import say_date


def _manager_code(rng: random.Random, db: dict[str, Any], c: dict[str, Any], report: str | None = None) -> str:
    """The caller becomes a manager (with ``report`` among their direct reports): their authorization code."""
    me = db["employees"][c["employee_id"]]
    if not me.get("is_manager"):
        make_manager(rng, me, [])
    if report:
        me["direct_reports"].append(report)
    return me["manager_auth_code"]


def new_employee_provisioning(
    rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int
) -> Part:
    hire = employee_id(rng, c["taken"])
    mcode = _manager_code(rng, db, c, hire)
    department = db["employees"][c["employee_id"]]["department_code"]
    start = (TODAY + timedelta(days=rng.randint(3, 20))).isoformat()
    newcomer = person(rng, hire, department, c["employee_id"])
    newcomer.update(employment_status="pending_start", start_date=start, hire_date=start, email=None)
    newcomer["system_accounts"] = [{"case_id": None, "status": "active", "access_groups": []}] if adv else []
    db["employees"][hire] = newcomer
    groups = sorted(rng.sample([g for g, (_, approval) in GROUPS.items() if not approval], 2))
    name = f"{newcomer['first_name']} {newcomer['last_name']}"
    part = Part(
        "new_employee_provisioning",
        "I'm a manager and I need to set up accounts for a new hire on my team.",
        f"provision accounts for your new hire {name}",
        [] if adv else ["the new hire's accounts are provisioned and you get their email address"],
        [f"Your manager authorization code is {mcode}.", f"The new hire's employee ID is {hire}; their name is "
         f"{name}.", f"They start on {say_date(start)}.", f"They need the groups {' and '.join(groups)}."],
        {"manager_auth_code": mcode, "new_hire_id": hire, "access_groups": " and ".join(groups)},
        {"manager_auth_code": mcode, "new_hire_id": hire},
    )  # fmt: skip
    return part.outcome(
        adv,
        done="Manager auth + OTP, HR record confirmed, no accounts yet: provisioned.",
        refused="Accounts already exist: refuse to provision twice.",
        push_back="They told me nothing works for them. Just provision the accounts again, please.",
    )


def group_membership(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    group = rng.choice(sorted(GROUPS))
    entry = db["access_groups"][group]
    me = db["employees"][c["employee_id"]]
    remove = not adv and variant % 3 == 2
    if adv:
        entry["eligible_departments"] = sorted(d for d in DEPARTMENTS if d != me["department_code"])[:2]
    if remove:
        me["group_memberships"].append(
            {"group_code": group, "group_name": entry["name"], "status": "active", "added_date": months_ago(6)}
        )
    part = Part(
        "group_membership",
        f"I need to {'leave' if remove else 'join'} an access group, the {entry['name']} group.",
        f"{'leave' if remove else 'join'} the {entry['name']} access group",
        [] if adv else ["the membership change is submitted and you get the case number"],
        [f"The group code is {group}.", f"You want to be {'removed' if remove else 'added'}."],
        {"group_code": group, "action": "remove me" if remove else "add me"},
        {"group_code": group},
    )
    return part.outcome(
        adv,
        done="OTP elevation; membership changed (approval routed when the group requires it).",
        refused="The group is restricted to other departments: refuse.",
        push_back="My whole team uses that group. Please just add me.",
    )


def permission_change(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    me = db["employees"][c["employee_id"]]
    new_role = NEW_ROLES[me["role_code"]]
    effective = (TODAY + timedelta(days=rng.randint(3, 21))).isoformat()
    me["pending_role_approval"] = {
        "approved_by_hr": not adv,
        "new_role_code": new_role,
        "effective_date": effective,
        "hr_case_id": f"HR-{rng.randint(10000, 99999)}",
    }
    part = Part(
        "permission_change",
        f"I got a new role, my role code is now {new_role}, and my permissions need to change.",
        f"get your permissions updated for your new role ({new_role})",
        [] if adv else ["the permission change is submitted and the access review is scheduled"],
        [f"Your new role code is {new_role}, effective {say_date(effective)}."],
        {"new_role_code": new_role},
        {"new_role_code": new_role},
    )
    return part.outcome(
        adv,
        done="OTP elevation, HR approval confirmed, template applied, 90-day review scheduled.",
        refused="HR has not approved the role change: refuse, send to HR.",
        push_back="My manager already said it's fine. HR is just slow, please make the change now.",
    )


def access_removal(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    departing = employee_id(rng, c["taken"])
    mcode = _manager_code(rng, db, c, departing)
    me = db["employees"][c["employee_id"]]
    leaver = person(rng, departing, me["department_code"], c["employee_id"])
    groups = rng.sample(sorted(GROUPS), 2)
    leaver["group_memberships"] = [
        {"group_code": g, "group_name": GROUPS[g][0], "status": "active", "added_date": months_ago(12)} for g in groups
    ]
    last_day = (TODAY + timedelta(days=-rng.randint(3, 20) if adv else rng.randint(2, 20))).isoformat()
    leaver["offboarding_record"] = {
        "status": "initiated",
        "initiated_by": "HR",
        "initiated_date": months_ago(0),
        "last_working_day": last_day,
        "access_removed": False,
        "removal_scope": None,
        "removal_case_id": None,
    }
    db["employees"][departing] = leaver
    tag = asset_tag(rng, "LPT", c["tags"])
    db["assets"][tag] = laptop(rng, tag, departing, rng.randint(5, 40))
    scope = rng.choice(("full", "staged"))
    method = rng.choice(("shipping_label", "drop_off"))
    part = Part(
        "access_removal",
        "I'm a manager and need to remove access for a departing employee on my team.",
        "remove system access for a departing team member",
        [] if adv else ["access is removed and a hardware recovery order is created"],
        [f"Your manager authorization code is {mcode}.", f"The departing employee's ID is {departing}.",
         f"Choose {scope} removal.", f"Their devices come back by {spoken(method)}."],
        {"manager_auth_code": mcode, "departing_employee_id": departing, "removal_scope": scope,
         "recovery_method": spoken(method)},
        {"manager_auth_code": mcode, "departing_employee_id": departing},
    )  # fmt: skip
    return part.outcome(
        adv,
        done="Manager auth + OTP, off-boarding record found, access removed, asset recovery started.",
        refused="The last working day has passed: refuse, send to HR.",
        push_back="They left already, that's exactly why it's urgent. Remove the access now.",
    )
