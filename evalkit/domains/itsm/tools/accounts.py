"""Accounts and access: new-hire provisioning, group memberships, permission changes, access reviews and
off-boarding (access removal, asset recovery)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.itsm.tools.common import (
    ACCESS_REVIEW_DAYS,
    REGISTRY,
    STAGED_MAILBOX_DAYS,
    EmployeeIdArgs,
    _next_id,
    _require_auth,
    _require_manager,
    _require_otp,
    _resolve_name,
    _today,
)

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
