"""Software workflows: application access, software license, license renewal and request status escalation."""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import ACCESS_LEVELS, APPLICATIONS, ELEVATED_AUTH, LICENSES, STANDARD_AUTH
from evalkit.domains.workflow import Ask, Call, Say, Slot, Workflow

# --------------------------------------------------------------------------------------------------- software

APPLICATION_ACCESS = Workflow(
    "application_access",
    "Access to an application (OTP-elevated); routed to the manager when the catalog says approval is needed.",
    ("access to", "need access"),
    (
        *ELEVATED_AUTH,
        Ask(Slot("application", "choice", "Which application do you need?", label="application", choices=APPLICATIONS)),
        Call("get_application_details", {"application_name": "$application"}, name="app"),
        Ask(
            Slot(
                "access_level",
                "choice",
                "Which access level: read only, standard or admin?",
                label="access level",
                choices=ACCESS_LEVELS,
            )
        ),
        Call(
            "submit_access_request",
            {"employee_id": "$employee_id", "catalog_id": "$app.catalog_id", "access_level": "$access_level"},
            name="acc_req",
        ),
        Call(
            "route_approval_workflow",
            {"request_id": "$acc_req.request_id", "employee_id": "$employee_id"},
            when="$app.requires_manager_approval",
        ),
        Say("Your access request is {acc_req.request_id}, status {acc_req.request_status}."),
    ),
)

SOFTWARE_LICENSE = Workflow(
    "software_license",
    "A permanent (validated cost center) or 30/60/90-day temporary license.",
    ("license for", "a license", "trial"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "license_product", "choice", "Which product is the license for?", label="license for", choices=LICENSES
            )
        ),
        Call("get_license_catalog_item", {"license_name": "$license_product"}, name="lic"),
        Ask(
            Slot(
                "license_temporary",
                "yes_no",
                "Do you need a temporary license rather than a permanent one?",
                label="temporary license",
            )
        ),
        Ask(
            Slot("license_days", "number", "For how many days: 30, 60 or 90?", label="how many days"),
            when="$license_temporary",
        ),
        Call(
            "submit_license_request",
            {
                "employee_id": "$employee_id",
                "catalog_id": "$lic.catalog_id",
                "license_type": "temporary",
                "duration_days": "$license_days",
            },
            name="lic_req",
            when="$license_temporary",
        ),
        Call(
            "validate_cost_center",
            {"cost_center": "$me.employee.cost_center"},
            name="cc",
            when="!$license_temporary",
            require={"active": True},
            refusal="Your cost center's charge code is inactive, so I can't submit a permanent license.",
        ),
        Call(
            "submit_license_request",
            {"employee_id": "$employee_id", "catalog_id": "$lic.catalog_id", "license_type": "permanent"},
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
        Ask(
            Slot(
                "renewal_product", "choice", "Which product's license should I renew?", label="renew", choices=LICENSES
            )
        ),
        Call(
            "get_employee_licenses",
            {"employee_id": "$employee_id", "product_name": "$renewal_product"},
            name="lics",
            require={"licenses.0.renewable": True},
            refusal="That license is outside the renewal window; please submit a new license request instead.",
        ),
        Call(
            "submit_license_renewal",
            {"employee_id": "$employee_id", "license_id": "$lics.licenses.0.license_id"},
            name="renewal",
        ),
        Say("Renewed; the license now expires on {renewal.new_expiration_date}."),
    ),
)

REQUEST_STATUS = Workflow(
    "request_status_escalation",
    "Status of a pending request; escalate to the skip-level approver only after the approval SLA is breached.",
    ("status of", "my request", "escalate"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot("request_id", "code", "What's the request number?", label="request number", length=11, read_back=True)
        ),
        Call(
            "get_request_status",
            {"request_id": "$request_id"},
            name="st",
            require={"sla_breached": True},
            refusal="The approval window hasn't passed yet, so I can't escalate it; your manager still has time.",
        ),
        Call("escalate_approval", {"request_id": "$request_id", "employee_id": "$employee_id"}, name="esc"),
        Say("I've escalated it to {esc.escalated_to}."),
    ),
)
