"""Part builders for accounts: new employee provisioning, group membership, permission changes, access removal."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.base_db import person
from evalkit.domains.itsm.generate.entities import code, employee_id, months_ago, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import DEPARTMENTS, FIRST_NAMES, LAST_NAMES, NEW_ROLES, TODAY
from evalkit.spoken import say_date


def _manager_code(rng: random.Random, db: dict[str, Any], c: dict[str, Any]) -> str:
    employee = db["employees"][c["employee_id"]]
    if not employee.get("manager_auth_code"):
        employee["manager_auth_code"] = code(rng, "", 6)
    return employee["manager_auth_code"]


def new_employee_provisioning(
    rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int
) -> Part:
    mcode = _manager_code(rng, db, c)
    hire = employee_id(rng, c["taken"])
    department = db["employees"][c["employee_id"]]["department"]
    first, _ = rng.choice(FIRST_NAMES)
    last = rng.choice(LAST_NAMES)
    start = TODAY + timedelta(days=rng.randint(3, 20))
    groups = sorted(rng.sample(sorted(db["groups"]), 2))
    db["new_hires"][hire] = {"employee_id": hire, "first_name": first, "last_name": last, "department": department,
                             "role": DEPARTMENTS[department][0], "start_date": start.isoformat(),
                             "manager_id": c["employee_id"], "default_groups": groups, "status": "pending"}  # fmt: skip
    if adv:
        db["accounts"][hire] = {"active_directory": {"status": "active"}}
    part = Part(
        "new_employee_provisioning",
        "I'm a manager and I need to set up accounts for a new hire on my team.",
        f"provision accounts for your new hire {first} {last}",
        [] if adv else ["the new hire's accounts are provisioned and you get their email address"],
        [f"Your manager authorization code is {mcode}.", f"The new hire's ID is {hire}; their name is {first} {last}.",
         f"The start date is {say_date(start.isoformat())}."],
        {"manager_auth_code": mcode, "new_hire_id": hire, "hire_start_date": say_date(start.isoformat())},
        {"manager_auth_code": mcode, "new_hire_id": hire},
    )  # fmt: skip
    if adv:
        part.push_back = "They told me nothing works for them. Just provision the accounts again, please."
        part.flow = "Accounts already exist: refuse to provision twice."
    else:
        part.flow = "Manager auth + OTP, HR record confirmed, no accounts yet: provisioned."
    return part


def group_membership(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    gid = rng.choice(sorted(db["groups"]))
    group = db["groups"][gid]
    department = db["employees"][c["employee_id"]]["department"]
    remove = not adv and variant % 3 == 2
    if adv:
        group["eligible_departments"] = sorted(d for d in DEPARTMENTS if d != department)[:2]
    if remove:
        db["group_members"][c["employee_id"]] = [gid]
    part = Part(
        "group_membership",
        f"I need to {'leave' if remove else 'join'} an access group, the {group['name']} group.",
        f"{'leave' if remove else 'join'} the {group['name']} access group",
        [] if adv else ["the membership change is submitted and you get the request ID"],
        [f"The group is {group['name']}.", f"You want to be {'removed' if remove else 'added'}."],
        {"group_name": group["name"], "group_action": "remove" if remove else "add"},
    )
    if adv:
        part.push_back = "My whole team uses that group. Please just add me."
        part.flow = "The group is restricted to other departments: refuse, offer a transfer."
    else:
        part.flow = "OTP elevation; membership changed (approval routed when the group requires it)."
    return part


def permission_change(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    employee = db["employees"][c["employee_id"]]
    new_role = NEW_ROLES[employee["role"]]
    effective = TODAY + timedelta(days=rng.randint(3, 21))
    db["role_changes"][c["employee_id"]] = {"new_role": new_role, "hr_approved": not adv,
                                            "effective_date": effective.isoformat()}  # fmt: skip
    for tier in ("standard", "elevated"):
        tid = f"PT{rng.randint(100, 999)}{tier[0].upper()}"
        db["permission_templates"][tid] = {"template_id": tid, "role": new_role, "name": tier}
    template = rng.choice(("standard", "elevated"))
    part = Part(
        "permission_change",
        f"I got a new role, I'm now a {spoken(new_role)}, and my permissions need to change.",
        f"get your permissions updated for your new role as {spoken(new_role)}",
        [] if adv else ["the permission change is submitted and the access review is scheduled"],
        [f"Choose the {template} permission template."],
        {"permission_template": template},
    )
    if adv:
        part.push_back = "My manager already said it's fine. HR is just slow, please make the change now."
        part.flow = "HR has not approved the role change: refuse, send to HR."
    else:
        part.flow = "OTP elevation, HR approval confirmed, template applied, 90-day review scheduled."
    return part


def access_removal(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    mcode = _manager_code(rng, db, c)
    dep = employee_id(rng, c["taken"])
    caller = db["employees"][c["employee_id"]]
    db["employees"][dep] = person(rng, dep, caller["department"], c["employee_id"], caller["cost_center"])
    db["accounts"][dep] = {"active_directory": {"status": "active", "security_hold": False},
                           "email": {"status": "active", "address": db["employees"][dep]["email"]}}  # fmt: skip
    db["group_members"][dep] = sorted(rng.sample(sorted(db["groups"]), 2))
    tag = code(rng, "LT", 6)
    db["assets"][tag] = {"asset_tag": tag, "employee_id": dep, "type": "laptop", "model": "MacBook Pro 14",
                         "serial": code(rng, "SN", 8), "assigned_date": months_ago(rng.randint(5, 40)),
                         "status": "assigned", "condition": "good"}  # fmt: skip
    last_day = TODAY + timedelta(days=-rng.randint(3, 20) if adv else rng.randint(2, 20))
    db["offboarding"][dep] = {"employee_id": dep, "manager_id": c["employee_id"], "last_working_day":
                              last_day.isoformat(), "status": "pending"}  # fmt: skip
    scope = rng.choice(("full", "staged"))
    method = rng.choice(("shipping_label", "in_person"))
    part = Part(
        "access_removal",
        "I'm a manager and need to remove access for a departing employee on my team.",
        "remove system access for a departing team member",
        [] if adv else ["access is removed and a hardware recovery order is created"],
        [f"Your manager authorization code is {mcode}.", f"The departing employee's ID is {dep}.",
         f"Choose {scope} removal.", f"They should use a {spoken(method)}."],
        {"manager_auth_code": mcode, "departing_employee_id": dep, "removal_scope": scope,
         "return_method": spoken(method)},
        {"manager_auth_code": mcode, "departing_employee_id": dep},
    )  # fmt: skip
    if adv:
        part.push_back = "They left already, that's exactly why it's urgent. Remove the access now."
        part.flow = "The last working day has passed: refuse, send to HR."
    else:
        part.flow = "Manager auth + OTP, off-boarding record found, access removed, asset recovery started."
    return part
