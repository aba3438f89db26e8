"""The ITSM workflows (EVA-Bench Table 44) as declarative ``Workflow``s on EVA-Bench's ITSM tool API
(``evalkit.domains.itsm.api``).

Each starts with its authentication tier (standard, OTP-elevated or manager + OTP, App. L.5). Incident flows
branch on the caller's yes/no after troubleshooting: resolved -> ``mark_resolved``, no ticket; not resolved ->
ticket + SLA (the ticket tool itself refuses without failed troubleshooting). A slot name means one value in the
whole call (the caller's credentials, the delivery building and floor, the building), so one multi-intent answer
sheet serves every workflow in the call; the names are EVA-Bench's ``information_required`` fields where it has one.
Refusals the tools give (a security hold, a device too new, no budget) are ``errors_ok`` answers that end the
workflow at its policy boundary.

The package: ``steps`` (choice lists, shared slots, authentication tiers, ticket and troubleshooting steps) and the
workflows by category: ``incidents`` (incidents and security), ``equipment`` (hardware and facilities),
``software``, ``accounts``; this module lists them in Table 44's order with their categories and auth tiers.
"""

from __future__ import annotations

from evalkit.domains.itsm.workflows.accounts import (
    ACCESS_REMOVAL,
    GROUP_MEMBERSHIP,
    NEW_EMPLOYEE_PROVISIONING,
    PERMISSION_CHANGE,
)
from evalkit.domains.itsm.workflows.equipment import (
    CONFERENCE_ROOM,
    DESK_REQUEST,
    ERGONOMIC_EQUIPMENT,
    LAPTOP_REPLACEMENT,
    MONITOR_BUNDLE,
    PARKING_REQUEST,
)
from evalkit.domains.itsm.workflows.incidents import (
    HARDWARE_MALFUNCTION,
    LOGIN_ISSUE,
    MFA_RESET,
    NETWORK_ISSUE,
    SECURITY_INCIDENT,
    SERVICE_OUTAGE,
)
from evalkit.domains.itsm.workflows.software import (
    APPLICATION_ACCESS,
    LICENSE_RENEWAL,
    REQUEST_STATUS,
    SOFTWARE_LICENSE,
)
from evalkit.domains.itsm.workflows.steps import (
    ACCESS_LEVELS,
    EQUIPMENT,
    ROOM_EQUIPMENT,
    SERVICES,
    TARGET_SYSTEMS,
    URGENCIES,
)
from evalkit.domains.workflow import Workflow

__all__ = [
    "ACCESS_LEVELS",
    "AUTH_TIER",
    "CATEGORIES",
    "EQUIPMENT",
    "ROOM_EQUIPMENT",
    "SERVICES",
    "TARGET_SYSTEMS",
    "URGENCIES",
    "WORKFLOWS",
]

WORKFLOWS: dict[str, Workflow] = {
    w.name: w
    for w in (
        LOGIN_ISSUE,
        SERVICE_OUTAGE,
        HARDWARE_MALFUNCTION,
        NETWORK_ISSUE,
        LAPTOP_REPLACEMENT,
        MONITOR_BUNDLE,
        APPLICATION_ACCESS,
        SOFTWARE_LICENSE,
        LICENSE_RENEWAL,
        DESK_REQUEST,
        PARKING_REQUEST,
        ERGONOMIC_EQUIPMENT,
        CONFERENCE_ROOM,
        NEW_EMPLOYEE_PROVISIONING,
        GROUP_MEMBERSHIP,
        PERMISSION_CHANGE,
        ACCESS_REMOVAL,
        SECURITY_INCIDENT,
        MFA_RESET,
        REQUEST_STATUS,
    )
}

CATEGORIES: dict[str, tuple[str, ...]] = {
    "incidents": ("login_issue", "service_outage", "hardware_malfunction", "network_vpn_issue"),
    "hardware": ("laptop_replacement", "monitor_bundle"),
    "software": ("application_access", "software_license", "license_renewal", "request_status_escalation"),
    "facilities": ("desk_request", "parking_request", "ergonomic_equipment", "conference_room"),
    "accounts": ("new_employee_provisioning", "group_membership", "permission_change", "access_removal"),
    "security": ("security_incident", "mfa_reset"),
}
AUTH_TIER: dict[str, str] = {
    **{name: "standard" for name in WORKFLOWS},
    "application_access": "otp",
    "group_membership": "otp",
    "permission_change": "otp",
    "new_employee_provisioning": "manager",
    "access_removal": "manager",
}
