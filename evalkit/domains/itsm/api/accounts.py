"""Accounts and access (provisioning, groups, role changes, off-boarding), security incidents, MFA resets, and
the system tools (transfer, resolution without a ticket)."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any, Literal

from evalkit.domains.base import ToolArgs, ToolError, row
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    CaseId,
    DepartmentCode,
    EmployeeArgs,
    EmployeeId,
    GroupCode,
    IsoDate,
    PermissionTemplateId,
    RoleCode,
    content_id,
    days_after,
    employee,
    group_eligible,
    not_found,
    require,
    today,
    today_text,
)

ACCESS_REVIEW_DAYS, REVIEW_TOLERANCE_DAYS, STAGED_MAILBOX_DAYS = 90, 3, 30

# ------------------------------------------------------------------------------------------------ provisioning


class NewHireArgs(ToolArgs):
    new_hire_employee_id: EmployeeId


@REGISTRY.tool(NewHireArgs, writes=False, needs="manager_auth")
def lookup_new_hire(db: dict[str, Any], args: NewHireArgs) -> dict[str, Any]:
    """A new hire's record (pending start): name, department, role and start date; manager callers only."""
    hire = employee(db, args.new_hire_employee_id)
    if hire.get("employment_status") != "pending_start":
        raise ToolError("not_new_hire", f"Status '{hire['employment_status']}', not 'pending_start'")
    return {
        "employee": {
            "employee_id": args.new_hire_employee_id,
            "first_name": hire["first_name"],
            "last_name": hire["last_name"],
            "department_code": hire["department_code"],
            "role_code": hire["role_code"],
            "start_date": hire.get("start_date"),
        }
    }


@REGISTRY.tool(EmployeeArgs, writes=False, needs="manager_auth")
def check_existing_accounts(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Whether the employee already has active system accounts (then there is nothing to provision)."""
    active = [a for a in employee(db, args.employee_id).get("system_accounts", []) if a.get("status") == "active"]
    if active:
        raise ToolError("accounts_already_exist", f"{len(active)} active account(s)")
    return {"employee_id": args.employee_id, "existing_accounts": [], "message": "Nothing provisioned yet"}


class ProvisionArgs(ToolArgs):
    manager_employee_id: EmployeeId
    new_hire_employee_id: EmployeeId
    department_code: DepartmentCode
    role_code: RoleCode
    start_date: IsoDate
    access_groups: list[GroupCode]


def _direct_report(db: dict[str, Any], manager_id: str, report_id: str) -> dict[str, Any]:
    manager = employee(db, manager_id)
    if report_id not in manager.get("direct_reports", []):
        raise ToolError("not_authorized", f"{report_id} is not a direct report of {manager_id}")
    return employee(db, report_id)


@REGISTRY.tool(ProvisionArgs, writes=True, irreversible=True, needs="manager_auth")
def provision_new_account(db: dict[str, Any], args: ProvisionArgs) -> dict[str, Any]:
    """Create a direct report's accounts (mailbox included) with access groups the new hire is eligible for."""
    require(db, "otp_auth")
    hire = _direct_report(db, args.manager_employee_id, args.new_hire_employee_id)
    for code in args.access_groups:
        group = db.get("access_groups", {}).get(code)
        if group and not group_eligible(group, hire):
            raise ToolError(
                "group_not_eligible",
                f"{args.new_hire_employee_id} (department {hire.get('department_code')}, role "
                f"{hire.get('role_code')}) is not eligible for {code}; use the role's permission template.",
                details={"group_code": code},
            )
    # The mailbox name is first.last, numbered from 2 when another employee already has it.
    base = f"{hire['first_name'].lower()}.{hire['last_name'].lower()}"
    taken = {e.get("email") for e in db.get("employees", {}).values() if e.get("email")}
    email, number = f"{base}@company.com", 2
    while email in taken:
        email, number = f"{base}{number}@company.com", number + 1
    hire["email"] = email
    account: dict[str, Any] = {
        "case_id": None,
        "status": "active",
        "provisioned_date": today_text(db),
        "access_groups": list(args.access_groups),
    }
    case_id = account["case_id"] = content_id("CASE-ACCT-", account)
    hire.update(system_accounts=[account], employment_status="active")
    return {
        "case_id": case_id,
        "new_hire_employee_id": args.new_hire_employee_id,
        "email": email,
        "access_groups": list(args.access_groups),
        "message": f"Accounts created ({case_id}); mailbox {email}",
    }


# ------------------------------------------------------------------------------------------------ groups


@REGISTRY.tool(EmployeeArgs, writes=False, needs="otp_auth")
def get_group_memberships(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The access groups the employee belongs to (OTP-verified callers)."""
    person = employee(db, args.employee_id)
    return {"employee_id": args.employee_id, "memberships": copy.deepcopy(person.get("group_memberships", []))}


class GroupArgs(ToolArgs):
    group_code: GroupCode


def _group(db: dict[str, Any], code: str) -> dict[str, Any]:
    return row(db.get("access_groups", {}), code, "Group")


@REGISTRY.tool(GroupArgs, writes=False, needs="otp_auth")
def get_group_details(db: dict[str, Any], args: GroupArgs) -> dict[str, Any]:
    """An access group's description, eligibility and whether joining it needs approval."""
    return {"group": copy.deepcopy(_group(db, args.group_code))}


class GroupChangeArgs(ToolArgs):
    employee_id: EmployeeId
    group_code: GroupCode
    action: Literal["add", "remove"]


@REGISTRY.tool(GroupChangeArgs, writes=True, irreversible=True, needs="otp_auth")
def submit_group_membership_change(db: dict[str, Any], args: GroupChangeArgs) -> dict[str, Any]:
    """Add the employee to an access group (pending approval where the group requires it) or remove them."""
    person = employee(db, args.employee_id)
    group = _group(db, args.group_code)
    memberships = person.get("group_memberships", [])
    member = any(m["group_code"] == args.group_code for m in memberships)
    if args.action == "remove":
        if not member:
            raise ToolError("not_member", f"Not a member of {args.group_code}")
        person["group_memberships"] = [m for m in memberships if m["group_code"] != args.group_code]
        change = {
            "employee_id": args.employee_id,
            "group_code": args.group_code,
            "action": "remove",
            "created_date": today_text(db),
        }
        case_id = content_id("CASE-ACCT-", change)
        return {
            "case_id": case_id,
            "action": "remove",
            "group_code": args.group_code,
            "message": f"Removed ({case_id})",
        }
    if member:
        raise ToolError("already_member", f"Already a member of {args.group_code}")
    if not group_eligible(group, person):
        raise ToolError(
            "group_not_eligible",
            f"{args.employee_id} (department {person.get('department_code')}, role {person.get('role_code')}) is "
            f"not eligible for {args.group_code}; departments: {group.get('eligible_departments') or 'any'}, "
            f"roles: {group.get('eligible_roles') or 'any'}.",
        )
    if not group.get("requires_approval", False):
        memberships.append(
            {
                "group_code": args.group_code,
                "group_name": group["name"],
                "status": "active",
                "added_date": today_text(db),
            }
        )
        change = {
            "employee_id": args.employee_id,
            "group_code": args.group_code,
            "action": "add",
            "auto_approved": True,
            "created_date": today_text(db),
        }
        case_id = content_id("CASE-ACCT-", change)
        return {
            "case_id": case_id,
            "action": "add",
            "group_code": args.group_code,
            "requires_approval": False,
            "message": f"Added ({case_id})",
        }
    membership: dict[str, Any] = {
        "group_code": args.group_code,
        "group_name": group["name"],
        "status": "pending_approval",
        "case_id": None,
        "request_id": None,
        "requested_date": today_text(db),
    }
    case_id = content_id("CASE-ACCT-", membership)
    request: dict[str, Any] = {
        "request_id": None,
        "case_id": case_id,
        "employee_id": args.employee_id,
        "group_code": args.group_code,
        "action": "add",
        "status": "pending_approval",
        "requires_manager_approval": True,
        "created_date": today_text(db),
    }
    request_id = content_id("REQ-ACCT-", request)
    membership.update(case_id=case_id, request_id=request_id)
    request["request_id"] = request_id
    person.setdefault("group_memberships", []).append(membership)
    db.setdefault("requests", {})[request_id] = request
    return {
        "case_id": case_id,
        "request_id": request_id,
        "action": "add",
        "group_code": args.group_code,
        "requires_approval": True,
        "message": f"Waiting for approval ({case_id}, {request_id})",
    }


# ------------------------------------------------------------------------------------------------ role changes


class RoleChangeArgs(ToolArgs):
    employee_id: EmployeeId
    new_role_code: RoleCode


@REGISTRY.tool(RoleChangeArgs, writes=False, needs="otp_auth")
def check_role_change_authorized(db: dict[str, Any], args: RoleChangeArgs) -> dict[str, Any]:
    """Whether HR approved the employee's change to the new role (and when it takes effect)."""
    pending = employee(db, args.employee_id).get("pending_role_approval")
    if not pending or not pending.get("approved_by_hr"):
        raise ToolError("not_authorized", "HR has not approved a role change for this employee; contact HR first.")
    if pending.get("new_role_code") != args.new_role_code:
        raise ToolError(
            "role_mismatch", f"HR approved the role '{pending.get('new_role_code')}', not '{args.new_role_code}'"
        )
    return {
        "employee_id": args.employee_id,
        "new_role_code": args.new_role_code,
        "hr_case_id": pending.get("hr_case_id"),
        "effective_date": pending.get("effective_date"),
        "message": "HR approved the role change",
    }


class TemplatesArgs(ToolArgs):
    role_code: RoleCode


@REGISTRY.tool(TemplatesArgs, writes=False, needs="otp_auth")
def get_permission_templates(db: dict[str, Any], args: TemplatesArgs) -> dict[str, Any]:
    """The permission templates of a role."""
    templates = {
        tid: copy.deepcopy(t)
        for tid, t in db.get("permission_templates", {}).items()
        if t.get("role_code") == args.role_code
    }
    if not templates:
        raise not_found(f"Templates for {args.role_code}")
    return {"role_code": args.role_code, "templates": templates}


class PermissionChangeArgs(ToolArgs):
    employee_id: EmployeeId
    new_role_code: RoleCode
    permission_template_id: PermissionTemplateId
    effective_date: IsoDate


@REGISTRY.tool(PermissionChangeArgs, writes=True, irreversible=True, needs="otp_auth")
def submit_permission_change(db: dict[str, Any], args: PermissionChangeArgs) -> dict[str, Any]:
    """Apply the new role's permission template from the HR-approved effective date."""
    if date.fromisoformat(args.effective_date) < today(db):
        raise ToolError("invalid_effective_date", f"effective_date {args.effective_date} is in the past")
    person = employee(db, args.employee_id)
    approved = person.get("pending_role_approval")
    if approved and approved.get("effective_date") and args.effective_date != approved["effective_date"]:
        raise ToolError(
            "effective_date_mismatch",
            f"effective_date {args.effective_date} is not the HR-approved {approved['effective_date']}",
        )
    template = row(db.get("permission_templates", {}), args.permission_template_id, "Template")
    if template["role_code"] != args.new_role_code:
        raise ToolError(
            "template_role_mismatch", f"The template is for '{template['role_code']}', not '{args.new_role_code}'"
        )
    change: dict[str, Any] = {
        "case_id": None,
        "new_role_code": args.new_role_code,
        "permission_template_id": args.permission_template_id,
        "effective_date": args.effective_date,
        "status": "pending",
    }
    case_id = change["case_id"] = content_id("CASE-ACCT-", change)
    person["pending_role_change"] = change
    return {
        "case_id": case_id,
        "employee_id": args.employee_id,
        "effective_date": args.effective_date,
        "message": f"Permission change submitted ({case_id})",
    }


class ReviewArgs(ToolArgs):
    case_id: CaseId
    employee_id: EmployeeId
    review_date: IsoDate


@REGISTRY.tool(ReviewArgs, writes=True, needs="otp_auth")
def schedule_access_review(db: dict[str, Any], args: ReviewArgs) -> dict[str, Any]:
    """Schedule the access review 90 days (give or take 3) after a role change takes effect."""
    change = employee(db, args.employee_id).get("pending_role_change")
    if not change:
        raise ToolError("no_pending_role_change", "No pending role change to review")
    if change.get("effective_date"):
        due = date.fromisoformat(days_after(date.fromisoformat(change["effective_date"]), ACCESS_REVIEW_DAYS))
        if abs((date.fromisoformat(args.review_date) - due).days) > REVIEW_TOLERANCE_DAYS:
            raise ToolError(
                "invalid_review_date",
                f"The review is due {ACCESS_REVIEW_DAYS} days after the effective date (around {due.isoformat()})",
            )
    review_id = f"ARVW-{args.case_id[-6:]}"
    change.update(access_review_id=review_id, review_date=args.review_date)
    return {
        "review_id": review_id,
        "review_date": args.review_date,
        "message": f"Review {review_id} on {args.review_date}",
    }


# ------------------------------------------------------------------------------------------------ off-boarding


@REGISTRY.tool(EmployeeArgs, writes=False, needs="manager_auth")
def get_offboarding_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The departing employee's HR off-boarding record (manager callers only)."""
    record = employee(db, args.employee_id).get("offboarding_record")
    if not record:
        raise ToolError("no_offboarding_record", "No off-boarding record; HR starts off-boarding.")
    return {"employee_id": args.employee_id, "offboarding": copy.deepcopy(record)}


class RemovalArgs(ToolArgs):
    manager_employee_id: EmployeeId
    departing_employee_id: EmployeeId
    last_working_day: IsoDate
    removal_scope: Literal["full", "staged"]


@REGISTRY.tool(RemovalArgs, writes=True, irreversible=True, needs="manager_auth")
def submit_access_removal(db: dict[str, Any], args: RemovalArgs) -> dict[str, Any]:
    """Remove a departing direct report's access, fully or staged (mailbox kept 30 days past the last day)."""
    require(db, "otp_auth")
    if date.fromisoformat(args.last_working_day) < today(db):
        raise ToolError("invalid_last_working_day", f"last_working_day {args.last_working_day} is in the past")
    departing = _direct_report(db, args.manager_employee_id, args.departing_employee_id)
    record = departing.get("offboarding_record")
    if not record:
        raise ToolError("no_offboarding_record", "No off-boarding record")
    departing.update(employment_status="terminated", system_accounts=[], group_memberships=[])
    if args.removal_scope == "staged":
        departing["email_preserved_until"] = days_after(date.fromisoformat(args.last_working_day), STAGED_MAILBOX_DAYS)
    record.update(access_removed=True, removal_scope=args.removal_scope, removal_case_id=None)
    case_id = record["removal_case_id"] = content_id("CASE-ACCT-", record)
    return {
        "case_id": case_id,
        "departing_employee_id": args.departing_employee_id,
        "removal_scope": args.removal_scope,
        "message": f"Access removed ({case_id})",
    }


class RecoveryArgs(ToolArgs):
    departing_employee_id: EmployeeId
    case_id: CaseId
    recovery_method: Literal["shipping_label", "drop_off"]


@REGISTRY.tool(RecoveryArgs, writes=True, needs="manager_auth")
def initiate_asset_recovery(db: dict[str, Any], args: RecoveryArgs) -> dict[str, Any]:
    """Recover the departing employee's devices by shipping label or drop-off."""
    devices = [
        {"asset_tag": a["asset_tag"], "asset_type": a["asset_type"], "model": a["model"]}
        for a in db.get("assets", {}).values()
        if a.get("assigned_employee_id") == args.departing_employee_id
    ]
    recovery_id = f"RECV-{args.case_id[-6:]}"
    db.setdefault("asset_recoveries", {})[recovery_id] = {
        "recovery_id": recovery_id,
        "case_id": args.case_id,
        "departing_employee_id": args.departing_employee_id,
        "recovery_method": args.recovery_method,
        "assets_to_recover": [d["asset_tag"] for d in devices],
        "created_date": today_text(db),
    }
    return {
        "recovery_id": recovery_id,
        "recovery_method": args.recovery_method,
        "assets_to_recover": devices,
        "message": f"Recovery {recovery_id}: {len(devices)} device(s) by {args.recovery_method}",
    }
