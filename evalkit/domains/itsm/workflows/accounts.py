"""Account workflows (new employee provisioning, group membership, permission change, access removal) on
EVA-Bench's ITSM tool API.
"""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import (
    ELEVATED_AUTH,
    MANAGER_AUTH,
    ROLE_CODES,
    days_later,
    employee_id_slot,
    group_codes,
    group_prefix,
    pick,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Say, Slot, Workflow

SUCCESS = {"status": "success"}
ACCESS_REVIEW_DAYS = 90

NEW_HIRE_ID = employee_id_slot("new_hire_id", "What's the new hire's ID number?", "new hire's ID")
NEW_EMPLOYEE_PROVISIONING = Workflow(
    "new_employee_provisioning",
    "A manager sets up a direct report's accounts (manager auth + OTP); the hire must be pending start, without "
    "accounts.",
    ("new hire", "new employee", "set up accounts", "provision", "new team member"),
    (
        *MANAGER_AUTH,
        Ask(NEW_HIRE_ID),
        Call("lookup_new_hire", {"new_hire_employee_id": "$new_hire_id"}, name="hire"),
        Call(
            "check_existing_accounts",
            {"employee_id": "$new_hire_id"},
            errors_ok=("accounts_already_exist",),
            require=SUCCESS,
            refusal="{hire.employee.first_name} already has active accounts, so there is nothing to provision.",
        ),
        Ask(
            Slot(
                "access_groups",
                "text",
                "Which access groups should the accounts have? Please read me their G R P codes.",
                label="access groups",
                normalize=group_codes,
            )
        ),
        Confirm("I'll create {hire.employee.first_name}'s accounts, starting {hire.employee.start_date}. Go ahead?"),
        Call(
            "provision_new_account",
            {
                "manager_employee_id": "$employee_id",
                "new_hire_employee_id": "$new_hire_id",
                "department_code": "$hire.employee.department_code",
                "role_code": "$hire.employee.role_code",
                "start_date": "$hire.employee.start_date",
                "access_groups": "$access_groups",
            },
            name="prov",
            errors_ok=("group_not_eligible",),
            require=SUCCESS,
            refusal="I can't provision that: {prov.message}",
        ),
        Say("Done: case {prov.case_id}, mailbox {prov.email}."),
    ),
)

GROUP_MEMBERSHIP = Workflow(
    "group_membership",
    "Join or leave an access group (OTP-elevated); eligibility by department and role; approval routing for "
    "some joins.",
    ("group", "distribution list", "access group", "group for a"),
    (
        *ELEVATED_AUTH,
        Ask(
            Slot(
                "group_code",
                "code",
                "What's the group code, starting with G R P?",
                label="group code",
                # spelled and read back like any code; its first three letters are the format's GRP, whatever
                # they sounded like (tiny.en: "D R P", "E R P"), as for the EMP of an employee ID
                pattern=r"[A-Z]{3}-[A-Z]{2,8}",
                normalize=group_prefix,
                read_back=True,
            )
        ),
        Ask(
            Slot(
                "action", "choice", "Should I add you to it or remove you?", label="add you", choices=("add", "remove")
            )
        ),
        Call("get_group_memberships", {"employee_id": "$employee_id"}),
        Call("get_group_details", {"group_code": "$group_code"}, name="grp"),
        Confirm("I'll {action} you for {grp.group.name}. Shall I go ahead?"),
        Call(
            "submit_group_membership_change",
            {"employee_id": "$employee_id", "group_code": "$group_code", "action": "$action"},
            name="chg",
            errors_ok=("group_not_eligible", "already_member", "not_member"),
            require=SUCCESS,
            refusal="I can't make that change: {chg.message}",
        ),
        Call(
            "route_approval_workflow",
            {
                "request_id": "$chg.request_id",
                "employee_id": "$employee_id",
                "approver_employee_id": "$me.employee.manager_employee_id",
            },
            when="$chg.requires_approval",
        ),
        Say("Done, case {chg.case_id}."),
    ),
)

PERMISSION_CHANGE = Workflow(
    "permission_change",
    "Permissions for an HR-approved role change (OTP-elevated), then the 90-day access review.",
    ("permissions", "role change", "new role", "promotion"),
    (
        *ELEVATED_AUTH,
        Ask(
            Slot(
                "new_role_code",
                "choice",
                "What's the role code of your new role, for example M G E N G?",
                label="role code",
                choices=ROLE_CODES,
            )
        ),
        Call(
            "check_role_change_authorized",
            {"employee_id": "$employee_id", "new_role_code": "$new_role_code"},
            name="hr",
            errors_ok=("not_authorized", "role_mismatch"),
            require=SUCCESS,
            refusal="HR hasn't approved that role change yet, so please contact HR first.",
        ),
        Call("get_permission_templates", {"role_code": "$new_role_code"}, name="tpl"),
        Confirm("I'll apply the new role's standard permissions from {hr.effective_date}. Go ahead?"),
        Call(
            "submit_permission_change",
            {
                "employee_id": "$employee_id",
                "new_role_code": "$new_role_code",
                "permission_template_id": Derived(pick("role_code", "template_id"), "$tpl.templates", "$new_role_code"),
                "effective_date": "$hr.effective_date",
            },
            name="perm",
        ),
        Call(
            "schedule_access_review",
            {
                "case_id": "$perm.case_id",
                "employee_id": "$employee_id",
                "review_date": Derived(lambda day: days_later(day, ACCESS_REVIEW_DAYS), "$hr.effective_date"),
            },
            name="review",
        ),
        Say("Case {perm.case_id}; the access review is on {review.review_date}."),
    ),
)

ACCESS_REMOVAL = Workflow(
    "access_removal",
    "A manager removes a departing direct report's access (manager auth + OTP), then recovers the hardware.",
    ("offboard", "off-board", "leaving", "remove access", "departing"),
    (
        *MANAGER_AUTH,
        Ask(
            employee_id_slot("departing_employee_id", "What's the departing employee's ID?", "departing employee's ID")
        ),
        Call(
            "get_offboarding_record",
            {"employee_id": "$departing_employee_id"},
            name="ob",
            errors_ok=("no_offboarding_record",),
            require=SUCCESS,
            refusal="HR hasn't started the off-boarding yet, so I can't remove the access.",
        ),
        Ask(
            Slot(
                "removal_scope",
                "choice",
                "Should the removal be full, or staged to keep the mailbox for 30 days?",
                label="full, or staged",
                choices=("full", "staged"),
            )
        ),
        Confirm("I'll remove the access ({removal_scope}) as of {ob.offboarding.last_working_day}. Go ahead?"),
        Call(
            "submit_access_removal",
            {
                "manager_employee_id": "$employee_id",
                "departing_employee_id": "$departing_employee_id",
                "last_working_day": "$ob.offboarding.last_working_day",
                "removal_scope": "$removal_scope",
            },
            name="removal",
            errors_ok=("invalid_last_working_day",),
            require=SUCCESS,
            refusal="The last working day has already passed, so this needs HR; I can't remove the access here.",
        ),
        Ask(
            Slot(
                "recovery_method",
                "choice",
                "How should the devices come back: a shipping label or a drop off?",
                label="devices come back",
                choices=("shipping_label", "drop_off"),
            )
        ),
        Call(
            "initiate_asset_recovery",
            {
                "departing_employee_id": "$departing_employee_id",
                "case_id": "$removal.case_id",
                "recovery_method": "$recovery_method",
            },
            name="recovery",
        ),
        Say("Access removed, case {removal.case_id}; device recovery {recovery.recovery_id}."),
    ),
)
