"""Account workflows: new employee provisioning, group membership, permission change and access removal."""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import ELEVATED_AUTH, GROUPS, MANAGER_AUTH
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

# --------------------------------------------------------------------------------------------------- accounts

NEW_HIRE_ID = Slot(
    "new_hire_id", "code", "What's the new hire's ID number?", label="new hire's ID", length=9, read_back=True
)
NEW_EMPLOYEE_PROVISIONING = Workflow(
    "new_employee_provisioning",
    "A manager sets up a new hire's accounts (manager auth + OTP); the hire must exist in HR without accounts.",
    ("new hire", "new employee", "set up accounts", "provision"),
    (
        *MANAGER_AUTH,
        Ask(NEW_HIRE_ID),
        Call("lookup_new_hire", {"new_hire_id": "$new_hire_id"}, name="hire"),
        Confirm("That's {hire.new_hire.first_name} {hire.new_hire.last_name}, correct?"),
        Call(
            "check_existing_accounts",
            {"new_hire_id": "$new_hire_id"},
            require={"has_active_accounts": False},
            refusal="That employee already has active accounts, so I can't provision them again.",
        ),
        Ask(Slot("hire_start_date", "date", "What is the new hire's start date?", label="start date")),
        Call(
            "provision_new_account",
            {
                "new_hire_id": "$new_hire_id",
                "department": "$hire.new_hire.department",
                "role": "$hire.new_hire.role",
                "start_date": "$hire_start_date",
                "access_groups": "$hire.new_hire.default_groups",
            },
            name="prov",
        ),
        Say("Done: the new email is {prov.email}."),
    ),
)

GROUP_MEMBERSHIP = Workflow(
    "group_membership",
    "Join or leave an access group (OTP-elevated); department eligibility; approval routing for some joins.",
    ("group", "distribution list", "access group"),
    (
        *ELEVATED_AUTH,
        Call("get_group_memberships", {"employee_id": "$employee_id"}),
        Ask(Slot("group_name", "choice", "Which access group?", label="access group", choices=GROUPS)),
        Call(
            "get_group_details",
            {"group_name": "$group_name", "employee_id": "$employee_id"},
            name="grp",
            require={"eligible": True},
            refusal="That group is restricted to other departments, so I can't add you; I can transfer you if you "
            "think that's wrong.",
        ),
        Ask(
            Slot(
                "group_action",
                "choice",
                "Should I add you to the group or remove you?",
                label="add you",
                choices=("add", "remove"),
            )
        ),
        Call(
            "submit_group_membership_change",
            {"employee_id": "$employee_id", "group_id": "$grp.group.group_id", "action": "$group_action"},
            name="gm",
        ),
        Call(
            "route_approval_workflow",
            {"request_id": "$gm.request_id", "employee_id": "$employee_id"},
            when="$gm.needs_approval",
        ),
        Say("Request {gm.request_id}: {gm.request_status}."),
    ),
)

PERMISSION_CHANGE = Workflow(
    "permission_change",
    "Permissions after an HR-approved role change (OTP-elevated), then a 90-day access review.",
    ("permissions", "role change", "new role"),
    (
        *ELEVATED_AUTH,
        Call(
            "check_role_change_authorized",
            {"employee_id": "$employee_id"},
            name="rc",
            require={"authorized": True},
            refusal="HR hasn't approved a role change for you, so please contact HR first.",
        ),
        Call("get_permission_templates", {"role": "$rc.new_role"}),
        Ask(
            Slot(
                "permission_template",
                "choice",
                "Which permission template fits: standard or elevated?",
                label="permission template",
                choices=("standard", "elevated"),
            )
        ),
        Confirm("I'll apply the {permission_template} template for {rc.new_role} from {rc.effective_date}. OK?"),
        Call(
            "submit_permission_change",
            {
                "employee_id": "$employee_id",
                "new_role": "$rc.new_role",
                "template_name": "$permission_template",
                "effective_date": "$rc.effective_date",
            },
            name="pc",
        ),
        Call(
            "schedule_access_review",
            {"employee_id": "$employee_id", "change_id": "$pc.change_id", "review_date": "$pc.review_due"},
        ),
        Say("Change {pc.change_id} takes effect {pc.effective_date}; access review on {pc.review_due}."),
    ),
)

DEPARTING_ID = Slot(
    "departing_employee_id",
    "code",
    "What's the departing employee's ID?",
    label="departing employee",
    length=9,
    read_back=True,
)
ACCESS_REMOVAL = Workflow(
    "access_removal",
    "A manager removes a departing employee's access (manager auth + OTP), then recovers the hardware.",
    ("offboard", "off-board", "leaving", "remove access", "departing"),
    (
        *MANAGER_AUTH,
        Ask(DEPARTING_ID),
        Call(
            "get_offboarding_record",
            {"departing_employee_id": "$departing_employee_id"},
            name="off",
            require={"removable": True},
            refusal="The last working day on HR's record has passed, so I can't remove access here; please contact HR.",
        ),
        Call("get_employee_record", {"employee_id": "$departing_employee_id"}),
        Ask(
            Slot(
                "removal_scope",
                "choice",
                "Full removal now, or staged removal keeping email for the handoff?",
                label="staged removal",
                choices=("full", "staged"),
            )
        ),
        Confirm("This is permanent. Remove {removal_scope} access for {departing_employee_id}?"),
        Call(
            "submit_access_removal",
            {"departing_employee_id": "$departing_employee_id", "removal_scope": "$removal_scope"},
        ),
        Ask(
            Slot(
                "return_method",
                "choice",
                "Should they get a prepaid shipping label or return devices in person?",
                label="shipping label",
                choices=("shipping_label", "in_person"),
            )
        ),
        Call(
            "initiate_asset_recovery",
            {"departing_employee_id": "$departing_employee_id", "return_method": "$return_method"},
            name="rec",
        ),
        Say("Recovery order {rec.recovery_id} covers {rec.asset_tags}."),
    ),
)
