"""Software workflows (application access, software license, license renewal, request status and escalation) on
EVA-Bench's ITSM tool API.
"""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import ACCESS_LEVELS, OTP_STEPS, STANDARD_AUTH, pick, request_id
from evalkit.domains.workflow import Ask, Call, Derived, Say, Slot, Workflow

SUCCESS = {"status": "success"}

APPLICATION_ACCESS = Workflow(
    "application_access",
    "Access to an application (OTP-elevated); routed to the manager when the catalog says approval is needed.",
    ("access to", "need access", "get access"),
    (
        *STANDARD_AUTH,
        Ask(Slot("application_name", "text", "Which application do you need access to?", label="which application")),
        Call("get_application_details", {"application_name": "$application_name"}, name="app"),
        Ask(
            Slot(
                "access_level",
                "choice",
                "Which access level: read only, standard or admin?",
                label="access level",
                choices=ACCESS_LEVELS,
            )
        ),
        *OTP_STEPS,
        Call(
            "submit_access_request",
            {"employee_id": "$employee_id", "catalog_id": "$app.catalog_id", "access_level": "$access_level"},
            name="acc_req",
        ),
        Call(
            "route_approval_workflow",
            {
                "request_id": "$acc_req.request_id",
                "employee_id": "$employee_id",
                "approver_employee_id": "$me.employee.manager_employee_id",
            },
            name="routed",
            when="$acc_req.requires_approval",
        ),
        Say("Your access request is {acc_req.request_id}."),
        Say(
            "It needs your manager's approval: {routed.approver_name} has until {routed.approval_deadline}.",
            when="$routed",
        ),
    ),
)


def _days(value: float) -> int:
    return int(value)


SOFTWARE_LICENSE = Workflow(
    "software_license",
    "A permanent license (the cost center validated) or a 30/60/90-day temporary one.",
    ("license for", "a license", "trial", "temporary license", "permanent license"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot("license_product_name", "text", "Which software product is the license for?", label="software product")
        ),
        Call("get_license_catalog_item", {"license_name": "$license_product_name"}, name="lic"),
        Ask(
            Slot(
                "license_temporary",
                "yes_no",
                "Do you need a temporary license rather than a permanent one?",
                label="temporary license",
            )
        ),
        Ask(
            Slot("duration_days", "number", "For how many days: 30, 60 or 90?", label="how many days"),
            when="$license_temporary",
        ),
        Call(
            "submit_license_request",
            {
                "employee_id": "$employee_id",
                "catalog_id": "$lic.catalog_id",
                "duration_days": Derived(_days, "$duration_days"),
            },
            name="lic_req",
            when="$license_temporary",
        ),
        Call(
            "validate_cost_center",
            {"employee_id": "$employee_id"},
            when="!$license_temporary",
            errors_ok=("cc_not_on_file", "department_mismatch", "not_found"),
            require=SUCCESS,
            refusal="Your cost center doesn't check out, so I can't submit a permanent license.",
        ),
        Call(
            "submit_license_request",
            {"employee_id": "$employee_id", "catalog_id": "$lic.catalog_id"},
            name="lic_req",
            when="!$license_temporary",
        ),
        Say("Your license request is {lic_req.request_id}."),
    ),
)

LICENSE_RENEWAL = Workflow(
    "license_renewal",
    "Renew a license inside the window (30 days before to 14 days after expiry).",
    ("renew",),
    (
        *STANDARD_AUTH,
        # The licenses first: the agent hears the product's name against the caller's own licensed products.
        Call("get_employee_licenses", {"employee_id": "$employee_id"}, name="lics"),
        Ask(
            Slot(
                "renewal_product_name",
                "text",
                "Which product's license should I renew?",
                label="renew",
                among=("$lics.licenses", "software_name"),
            )
        ),
        Call(
            "submit_license_renewal",
            {
                "employee_id": "$employee_id",
                "license_assignment_id": Derived(
                    pick("software_name", "license_assignment_id"), "$lics.licenses", "$renewal_product_name"
                ),
            },
            name="renewal",
            errors_ok=("not_in_renewal_window",),
            require=SUCCESS,
            refusal="I can't renew it now: {renewal.message}",
        ),
        Say("Renewed; the license now expires on {renewal.new_expiration_date}."),
    ),
)

REQUEST_STATUS = Workflow(
    "request_status_escalation",
    "Status of a pending request; escalate to the skip-level approver only after the approval deadline passed.",
    ("status of", "my request", "escalate", "still pending"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "request_id",
                "text",
                "What's the request number?",
                label="request number",
                read_back=True,
                normalize=request_id,
            )
        ),
        Call(
            "get_request_status",
            {"request_id": "$request_id"},
            name="st",
            require={"sla_breached": True},
            refusal="It's {st.request_status} and the approval deadline hasn't passed yet, so I can't escalate it.",
        ),
        Call("get_employee_record", {"employee_id": "$st.approval_routed_to"}, name="approver"),
        Call(
            "escalate_approval",
            {"request_id": "$request_id", "escalate_to_employee_id": "$approver.employee.manager_employee_id"},
            name="esc",
        ),
        Say("I've escalated it to {esc.approver_name}; they have until {esc.escalation_deadline}."),
    ),
)
