"""The ITSM workflows (EVA-Bench Table 44) as declarative ``Workflow``s.

Each starts with its authentication tier (standard, OTP-elevated or manager + OTP, App. L.5). Incident flows
branch on the caller's yes/no after troubleshooting: resolved -> ``mark_resolved``, no ticket; not resolved ->
ticket + SLA (the ticket tool itself refuses without failed troubleshooting). Slot names are unique per workflow
except the caller's credentials, so one multi-intent answer sheet serves every workflow in the call.
"""

from __future__ import annotations

from evalkit.domains.itsm.tools import HARDWARE_PRICES
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Step, Workflow

# --------------------------------------------------------------------------------------------------- choices

SERVICES = ("email", "vpn", "salesforce", "sharepoint", "zoom", "workday")
APPLICATIONS = ("confluence", "tableau", "github", "figma", "snowflake", "servicenow")
ACCESS_LEVELS = ("read_only", "standard", "admin")
LICENSES = ("adobe acrobat", "visio", "autocad", "matlab", "camtasia", "jetbrains")
BUILDINGS = ("harbor point", "riverside", "east campus", "the summit")
PARKING_ZONES = ("executive garage", "north lot", "visitor deck", "river lot")
EQUIPMENT = ("standing_desk_converter", "ergonomic_chair", "ergonomic_keyboard", "monitor_arm", "footrest")
GROUPS = ("finance reporting", "prod deploy", "hr analytics", "vendor portal", "data science lab")
ROOMS = ("redwood", "sequoia", "aspen", "juniper", "cedar", "willow")
IMPACTS = ("blocked", "degraded", "minor")

# --------------------------------------------------------------------------------------------------- slots

EMPLOYEE_ID = Slot(
    "employee_id", "code", "Could I have your employee ID, please?", label="employee ID", length=9, read_back=True
)
PHONE = Slot(
    "phone_last_four", "digits", "And the last four digits of your phone number on file?", label="last four", length=4
)
OTP = Slot(
    "otp_code",
    "digits",
    "I've texted a one-time passcode to your phone. Please read me the six digits.",
    label="passcode",
    length=6,
)
MANAGER_CODE = Slot(
    "manager_auth_code",
    "code",
    "Please give me your manager authorization code.",
    label="manager authorization code",
    length=6,
    read_back=True,
)


def _impact(name: str, what: str) -> Slot:
    return Slot(
        name,
        "choice",
        f"How is the {what} affecting your work: blocked, degraded or minor?",
        label=f"{what} affecting your work",
        choices=IMPACTS,
    )


def _resolved(name: str, what: str) -> Slot:
    return Slot(name, "yes_no", f"Did those steps fix the {what}?", label=f"fix the {what}")


def _building(name: str, what: str) -> Slot:
    return Slot(name, "choice", f"Which building for the {what}?", label=f"building for the {what}", choices=BUILDINGS)


def _floor(name: str, what: str) -> Slot:
    return Slot(name, "number", f"And which floor for the {what}?", label=f"floor for the {what}")


# --------------------------------------------------------------------------------------------------- auth steps

STANDARD_AUTH: tuple[Step, ...] = (
    Ask(EMPLOYEE_ID),
    Ask(PHONE),
    Call(
        "verify_employee_auth",
        {"employee_id": "$employee_id", "phone_last_four": "$phone_last_four"},
        name="auth",
        once=True,
    ),
    Call("get_employee_record", {"employee_id": "$employee_id"}, name="me", once=True),
)
OTP_STEPS: tuple[Step, ...] = (
    Call("initiate_otp_auth", {"employee_id": "$employee_id"}, once=True),
    Ask(OTP),
    Call("verify_otp_auth", {"employee_id": "$employee_id", "otp_code": "$otp_code"}, once=True),
)
ELEVATED_AUTH = STANDARD_AUTH + OTP_STEPS
MANAGER_AUTH: tuple[Step, ...] = (
    Ask(EMPLOYEE_ID),
    Ask(PHONE),
    Ask(MANAGER_CODE),
    Call(
        "verify_manager_auth",
        {
            "employee_id": "$employee_id",
            "phone_last_four": "$phone_last_four",
            "manager_auth_code": "$manager_auth_code",
        },
        once=True,
    ),
    *OTP_STEPS,
)


def _ticket_steps(prefix: str, category: str, impact_slot: Slot, system: str, when: str) -> tuple[Step, ...]:
    """Ticket + SLA on the not-resolved branch; urgency comes from the caller's described impact."""
    return (
        Ask(impact_slot, when=when),
        Call(
            "create_incident_ticket",
            {
                "employee_id": "$employee_id",
                "category": category,
                "impact": f"${impact_slot.name}",
                "affected_system": system,
                "troubleshooting_completed": category != "service_outage",
            },
            name=f"{prefix}_ticket",
            when=when,
        ),
        Call(
            "assign_sla_tier",
            {"ticket_number": f"${prefix}_ticket.ticket_number", "sla_tier": f"${prefix}_ticket.policy_sla_tier"},
            name=f"{prefix}_sla",
            when=when,
        ),
        Say(
            f"I've opened ticket {{{prefix}_ticket.ticket_number}}; expect a response within "
            f"{{{prefix}_sla.response_target}}.",
            when=when,
        ),
    )


def _troubleshoot(prefix: str, category: str, resolved: Slot) -> tuple[Step, ...]:
    return (
        Call(
            "get_troubleshooting_guide", {"employee_id": "$employee_id", "category": category}, name=f"{prefix}_guide"
        ),
        Say(f"Let's go through the troubleshooting steps together: {{{prefix}_guide.steps.0}}"),
        Ask(resolved),
        Call(
            "mark_resolved",
            {"employee_id": "$employee_id", "category": category, "resolution_notes": "resolved by troubleshooting"},
            when=f"${resolved.name}",
        ),
    )


# --------------------------------------------------------------------------------------------------- incidents

LOGIN_RESOLVED = Slot("login_resolved", "yes_no", "Can you sign in now?", label="sign in now")
LOGIN_ISSUE = Workflow(
    "login_issue",
    "Locked account or expired password: troubleshoot, then unlock or reset; a ticket only if that fails.",
    ("locked out", "can't log in", "cannot log in", "password expired", "account is locked", "sign in"),
    (
        *STANDARD_AUTH,
        Call("get_troubleshooting_guide", {"employee_id": "$employee_id", "category": "login_issue"}, name="lg_guide"),
        Say("First, let's try the basic steps: {lg_guide.steps.0}"),
        Ask(Slot("account_locked", "yes_no", "Does it say your account is locked?", label="account is locked")),
        Call("attempt_account_unlock", {"employee_id": "$employee_id"}, name="lg_fix", when="$account_locked"),
        Call("attempt_password_reset", {"employee_id": "$employee_id"}, name="lg_fix", when="!$account_locked"),
        Ask(LOGIN_RESOLVED),
        Call(
            "mark_resolved",
            {"employee_id": "$employee_id", "category": "login_issue", "resolution_notes": "unlock or reset"},
            when="$login_resolved",
        ),
        *_ticket_steps(
            "lg", "login_issue", _impact("login_impact", "login problem"), "active_directory", "!$login_resolved"
        ),
    ),
)

SERVICE_OUTAGE = Workflow(
    "service_outage",
    "A shared service is down: join the existing outage or open a new outage ticket with SLA and known error.",
    ("is down", "outage", "down for everyone", "not working for anyone"),
    (
        *STANDARD_AUTH,
        Ask(Slot("outage_service", "choice", "Which service is down?", label="service", choices=SERVICES)),
        Call("check_existing_outage", {"service_name": "$outage_service"}, name="outage"),
        Call(
            "add_affected_user",
            {"outage_id": "$outage.outage.outage_id", "employee_id": "$employee_id"},
            name="joined",
            when="$outage.outage_exists",
        ),
        Say("You're added to the existing outage, ticket {joined.ticket_number}.", when="$outage.outage_exists"),
        *_ticket_steps(
            "ou", "service_outage", _impact("outage_impact", "outage"), "$outage_service", "!$outage.outage_exists"
        ),
        Call("link_known_error", {"ticket_number": "$ou_ticket.ticket_number"}, when="!$outage.outage_exists"),
    ),
)

HARDWARE_MALFUNCTION = Workflow(
    "hardware_malfunction",
    "A device fails: troubleshoot; if not fixed, confirm the asset, open a ticket and dispatch a technician.",
    ("broken", "won't turn on", "malfunction", "screen is", "keyboard", "battery"),
    STANDARD_AUTH
    + _troubleshoot("hw", "hardware_malfunction", _resolved("hardware_resolved", "device problem"))
    + (
        Call("get_employee_assets", {"employee_id": "$employee_id"}, when="!$hardware_resolved"),
        Ask(
            Slot(
                "faulty_asset_tag",
                "code",
                "What's the device's asset tag?",
                label="device's asset tag",
                length=8,
                read_back=True,
            ),
            when="!$hardware_resolved",
        ),
        Call("get_asset_record", {"asset_tag": "$faulty_asset_tag"}, when="!$hardware_resolved"),
    )
    + _ticket_steps(
        "hw",
        "hardware_malfunction",
        _impact("hardware_impact", "device problem"),
        "$faulty_asset_tag",
        "!$hardware_resolved",
    )
    + (
        Ask(
            Slot("dispatch_date", "date", "Which date suits you for the technician visit?", label="technician visit"),
            when="!$hardware_resolved",
        ),
        Ask(
            Slot(
                "dispatch_window",
                "choice",
                "Morning or afternoon time window?",
                label="time window",
                choices=("morning", "afternoon"),
            ),
            when="!$hardware_resolved",
        ),
        Call(
            "schedule_field_dispatch",
            {
                "ticket_number": "$hw_ticket.ticket_number",
                "asset_tag": "$faulty_asset_tag",
                "preferred_date": "$dispatch_date",
                "time_window": "$dispatch_window",
            },
            when="!$hardware_resolved",
        ),
    ),
)

NETWORK_ISSUE = Workflow(
    "network_vpn_issue",
    "Network or VPN trouble: troubleshoot; if not fixed, open a ticket and attach the netdiag reference code.",
    ("vpn", "wi-fi", "wifi", "network", "can't connect", "keeps dropping"),
    STANDARD_AUTH
    + _troubleshoot("nw", "network_connectivity", _resolved("network_resolved", "connection problem"))
    + _ticket_steps(
        "nw", "network_connectivity", _impact("network_impact", "connection problem"), "vpn", "!$network_resolved"
    )
    + (
        Ask(
            Slot(
                "diagnostic_code",
                "code",
                "Please run netdiag.company.com and read me the diagnostic reference code.",
                label="diagnostic reference code",
                length=8,
                read_back=True,
            ),
            when="!$network_resolved",
        ),
        Call(
            "attach_diagnostic_log",
            {"ticket_number": "$nw_ticket.ticket_number", "diagnostic_code": "$diagnostic_code"},
            when="!$network_resolved",
        ),
    ),
)

# --------------------------------------------------------------------------------------------------- hardware

NO_BUDGET = "Your department has no budget for this right now, so the request goes on hold pending budget approval."
LAPTOP_REPLACEMENT = Workflow(
    "laptop_replacement",
    "Replace a laptop: entitlement and budget first, then the request and a return authorization for the old one.",
    ("new laptop", "laptop replacement", "replace my laptop"),
    (
        *STANDARD_AUTH,
        Call(
            "check_hardware_entitlement",
            {"employee_id": "$employee_id", "equipment_type": "laptop"},
            name="lt_ent",
            require={"eligible": True},
            refusal="I'm sorry, you're not eligible for a laptop replacement yet: {lt_ent.reason}.",
        ),
        Call(
            "verify_cost_center_budget",
            {"cost_center": "$me.employee.cost_center", "amount": HARDWARE_PRICES["laptop"]},
            require={"budget_available": True},
            refusal=NO_BUDGET,
        ),
        Call("get_employee_assets", {"employee_id": "$employee_id", "asset_type": "laptop"}, name="lt_assets"),
        Ask(
            Slot(
                "laptop_reason",
                "choice",
                "What's the reason for the replacement?",
                label="reason",
                choices=("end_of_life", "performance_degradation", "physical_damage"),
            )
        ),
        Ask(
            Slot(
                "laptop_os",
                "choice",
                "Mac or Windows operating system?",
                label="operating system",
                choices=("mac", "windows"),
            )
        ),
        Ask(
            Slot(
                "laptop_size",
                "choice",
                "Which screen size: 13, 14 or 16 inch?",
                label="screen size",
                choices=("13_inch", "14_inch", "16_inch"),
            )
        ),
        Ask(_building("laptop_building", "laptop delivery")),
        Ask(_floor("laptop_floor", "laptop delivery")),
        Confirm("I'll order a {laptop_os} {laptop_size} laptop to {laptop_building}, floor {laptop_floor}. Go ahead?"),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "equipment_type": "laptop",
                "reason": "$laptop_reason",
                "size": "$laptop_size",
                "operating_system": "$laptop_os",
                "delivery_building": "$laptop_building",
                "delivery_floor": "$laptop_floor",
            },
            name="lt_req",
        ),
        Call(
            "initiate_asset_return",
            {"employee_id": "$employee_id", "asset_tag": "$lt_assets.assets.0.asset_tag"},
            name="lt_return",
        ),
        Say("Request {lt_req.request_id} is in; please return the old laptop by {lt_return.return_deadline}."),
    ),
)

MONITOR_BUNDLE = Workflow(
    "monitor_bundle",
    "A new or replacement monitor: entitlement and budget, then the request (no return).",
    ("monitor",),
    (
        *STANDARD_AUTH,
        Call(
            "check_hardware_entitlement",
            {"employee_id": "$employee_id", "equipment_type": "monitor"},
            name="mn_ent",
            require={"eligible": True},
            refusal="I'm sorry, you're not eligible for a monitor right now: {mn_ent.reason}.",
        ),
        Call(
            "verify_cost_center_budget",
            {"cost_center": "$me.employee.cost_center", "amount": HARDWARE_PRICES["monitor"]},
            require={"budget_available": True},
            refusal=NO_BUDGET,
        ),
        Ask(
            Slot(
                "monitor_reason",
                "choice",
                "Is this a new setup or a replacement monitor?",
                label="new setup",
                choices=("new_setup", "replacement"),
            )
        ),
        Ask(
            Slot(
                "monitor_size",
                "choice",
                "Which monitor size: 24, 27 or 32 inch?",
                label="monitor size",
                choices=("24_inch", "27_inch", "32_inch"),
            )
        ),
        Ask(_building("monitor_building", "monitor delivery")),
        Ask(_floor("monitor_floor", "monitor delivery")),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "equipment_type": "monitor",
                "reason": "$monitor_reason",
                "size": "$monitor_size",
                "delivery_building": "$monitor_building",
                "delivery_floor": "$monitor_floor",
            },
            name="mn_req",
        ),
        Say("Your monitor request is {mn_req.request_id}."),
    ),
)

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

# --------------------------------------------------------------------------------------------------- facilities


DESK_REQUEST = Workflow(
    "desk_request",
    "A permanent desk in a building and floor, or the waitlist when none is free.",
    ("desk", "office space"),
    (
        *STANDARD_AUTH,
        Ask(_building("desk_building", "desk")),
        Ask(_floor("desk_floor", "desk")),
        Call("check_desk_availability", {"building": "$desk_building", "floor": "$desk_floor"}, name="desks"),
        Call(
            "submit_desk_assignment",
            {
                "employee_id": "$employee_id",
                "building_id": "$desks.building_id",
                "floor": "$desk_floor",
                "desk_id": "$desks.available_desks.0",
            },
            name="desk",
            when="$desks.desks_available",
        ),
        Confirm(
            "No desk is free there right now. Shall I put you on the desk waitlist?", when="!$desks.desks_available"
        ),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "desk", "location_id": "$desks.building_id"},
            when="!$desks.desks_available",
        ),
    ),
)

PARKING_REQUEST = Workflow(
    "parking_request",
    "A parking space in a zone, or the waitlist when the zone is full.",
    ("parking",),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "parking_zone",
                "choice",
                "Which parking zone would you like?",
                label="parking zone",
                choices=PARKING_ZONES,
            )
        ),
        Call("check_parking_availability", {"zone": "$parking_zone"}, name="zone"),
        Call(
            "submit_parking_assignment",
            {"employee_id": "$employee_id", "zone_id": "$zone.zone_id", "space_id": "$zone.available_spaces.0"},
            when="$zone.spaces_available",
        ),
        Confirm("That zone is full. Shall I put you on the parking waitlist?", when="!$zone.spaces_available"),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "parking", "location_id": "$zone.zone_id"},
            when="!$zone.spaces_available",
        ),
    ),
)

ERGONOMIC_EQUIPMENT = Workflow(
    "ergonomic_equipment",
    "Ergonomic equipment; converters and chairs need a completed ergonomic assessment on file.",
    ("ergonomic", "standing desk", "chair", "footrest", "monitor arm"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "equipment_item",
                "choice",
                "Which equipment item do you need?",
                label="equipment item",
                choices=EQUIPMENT,
            )
        ),
        Call(
            "check_ergonomic_assessment",
            {"employee_id": "$employee_id", "item": "$equipment_item"},
            require={"eligible": True},
            refusal="That item needs a completed ergonomic assessment first; please book one on the occupational "
            "health portal.",
        ),
        Ask(_building("equipment_building", "equipment delivery")),
        Ask(_floor("equipment_floor", "equipment delivery")),
        Call(
            "submit_equipment_request",
            {
                "employee_id": "$employee_id",
                "item": "$equipment_item",
                "delivery_building": "$equipment_building",
                "delivery_floor": "$equipment_floor",
            },
            name="eq_req",
        ),
        Say("Your equipment request is {eq_req.request_id}."),
    ),
)

CONFERENCE_ROOM = Workflow(
    "conference_room",
    "Book a room for a date, time window and head count; the calendar invite is required afterwards.",
    ("conference room", "meeting room", "book a room"),
    (
        *STANDARD_AUTH,
        Ask(_building("room_building", "meeting")),
        Ask(Slot("meeting_date", "date", "What's the meeting date?", label="meeting date")),
        Ask(Slot("meeting_start", "time", "What start time?", label="start time")),
        Ask(Slot("meeting_end", "time", "And the end time?", label="end time")),
        Ask(Slot("attendees", "number", "How many attendees?", label="attendees")),
        Call(
            "check_room_availability",
            {
                "building": "$room_building",
                "date": "$meeting_date",
                "start_time": "$meeting_start",
                "end_time": "$meeting_end",
                "attendees": "$attendees",
            },
            name="rooms",
        ),
        Ask(
            Slot(
                "room_choice",
                "choice",
                "Which of the available rooms would you like?",
                label="available rooms",
                choices=ROOMS,
            )
        ),
        Call(
            "submit_room_booking",
            {
                "employee_id": "$employee_id",
                "room_id": "$room_choice",
                "date": "$meeting_date",
                "start_time": "$meeting_start",
                "end_time": "$meeting_end",
                "attendees": "$attendees",
            },
            name="booking",
        ),
        Call("send_calendar_invite", {"booking_id": "$booking.booking_id", "organizer_id": "$employee_id"}),
        Say("Room {booking.room_id} is booked, confirmation {booking.booking_id}; the invite is on its way."),
    ),
)

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

SECURITY_INCIDENT = Workflow(
    "security_incident",
    "A lost, stolen or compromised device: a security case and a remote wipe.",
    ("lost my", "stolen", "compromised"),
    (
        *STANDARD_AUTH,
        Call("get_employee_assets", {"employee_id": "$employee_id"}),
        Ask(
            Slot(
                "lost_asset_tag",
                "code",
                "What's the tag number of the missing device?",
                label="missing device",
                length=8,
                read_back=True,
            )
        ),
        Call("get_asset_record", {"asset_tag": "$lost_asset_tag"}),
        Ask(
            Slot(
                "incident_type",
                "choice",
                "Was it lost, stolen or compromised?",
                label="lost, stolen",
                choices=("lost", "stolen", "compromised"),
            )
        ),
        Call(
            "report_security_incident",
            {"employee_id": "$employee_id", "asset_tag": "$lost_asset_tag", "incident_type": "$incident_type"},
            name="case",
        ),
        Call("initiate_remote_wipe", {"case_id": "$case.case_id", "asset_tag": "$lost_asset_tag"}),
        Say("Security case {case.case_id} is open and a remote wipe is on its way."),
    ),
)

MFA_RESET = Workflow(
    "mfa_reset",
    "A phone-of-record change for MFA: never over the phone; a tracking case and an in-person visit.",
    ("mfa", "new phone number", "authenticator", "phone of record"),
    (
        *STANDARD_AUTH,
        Confirm("Changing the MFA phone needs an in-person visit to IT security. Shall I open the tracking case?"),
        Call("submit_mfa_reset", {"employee_id": "$employee_id"}, name="mfa"),
        Say("Case {mfa.case_id} is open; please visit IT security in person with your badge."),
    ),
)

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
