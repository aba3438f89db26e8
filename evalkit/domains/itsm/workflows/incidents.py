"""Incident workflows (login, service outage, hardware malfunction, network/VPN) and security workflows
(security incident, MFA reset), on EVA-Bench's ITSM tool API.
"""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import (
    DEVICES,
    NETWORKS,
    SERVICES,
    STANDARD_AUTH,
    TARGET_SYSTEMS,
    building,
    dashed,
    floor,
    pick,
    ticket_steps,
    troubleshoot,
    urgency,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Say, Slot, Workflow

# --------------------------------------------------------------------------------------------------- incidents

LOGIN_ISSUE = Workflow(
    "login_issue",
    "Locked account or expired password: troubleshoot, then unlock or reset; a ticket if that fails (a security "
    "hold cannot be lifted by the desk).",
    (
        "locked out",
        "can't log in",
        "cannot log in",
        "password expired",
        "expired password",
        "account is locked",
        "sign in",
        "password reset",
        "reset my password",
        "resetting my",
        "password",
        "unlocked",
    ),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "target_system",
                "choice",
                "Which system is it: active directory, SSO identity, email exchange, VPN gateway or ERP oracle?",
                label="which system",
                choices=TARGET_SYSTEMS,
            )
        ),
        Call("get_troubleshooting_guide", {"issue_category": "login_issue"}, name="lg_guide"),
        Say("First, let's try the basic steps: {lg_guide.steps.0}"),
        Ask(
            Slot(
                "account_locked",
                "yes_no",
                "Does it say your account is locked? Say no if your password expired instead.",
                label="account is locked",
            )
        ),
        Call(
            "attempt_account_unlock",
            {"employee_id": "$employee_id", "target_system": "$target_system"},
            name="lg_fix",
            when="$account_locked",
            errors_ok=("cannot_unlock_security_hold",),
        ),
        Call(
            "attempt_password_reset",
            {"employee_id": "$employee_id", "target_system": "$target_system"},
            name="lg_fix",
            when="!$account_locked",
            errors_ok=("in_person_required",),
        ),
        Say("Done, {lg_fix.message}", when="$lg_fix.resolved"),
        Call(
            "mark_resolved",
            {
                "employee_id": "$employee_id",
                "flow_id": "login_issue",
                "resolution_type": "resolved_via_troubleshooting",
            },
            when="$lg_fix.resolved",
        ),
        Say("I can't fix that from here: {lg_fix.message}", when="!$lg_fix.resolved"),
        *ticket_steps(
            "lg", "login_issue", urgency("login_urgency", "login problem"), "$target_system", "!$lg_fix.resolved"
        ),
    ),
)

SERVICE_OUTAGE = Workflow(
    "service_outage",
    "A shared service is down: join the outage on file, or open an outage ticket with SLA and the known error.",
    ("is down", "outage", "down for everyone", "not working for anyone", "down for the whole", "completely down"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "affected_service",
                "choice",
                "Which service is down, for example email exchange, VPN gateway, CRM platform or HR portal?",
                label="which service",
                choices=SERVICES,
            )
        ),
        Call("check_existing_outage", {"service_name": "$affected_service"}, name="outage"),
        Call(
            "add_affected_user",
            {"ticket_number": "$outage.ticket_number", "employee_id": "$employee_id"},
            name="joined",
            when="$outage.existing_outage",
        ),
        Say("There is already an outage on file; I've added you to ticket {joined.ticket_number}.", when="$joined"),
        *ticket_steps(
            "ou",
            "service_outage",
            urgency("outage_urgency", "outage"),
            "$affected_service",
            "!$outage.existing_outage",
            troubleshot=False,
        ),
        Call(
            "link_known_error",
            {"ticket_number": "$ou_ticket.ticket_number", "service_name": "$affected_service"},
            name="known",
            when="!$outage.existing_outage",
        ),
        Say("It's a known error; the workaround is: {known.workaround}", when="$known.linked"),
    ),
)

HARDWARE_MALFUNCTION = Workflow(
    "hardware_malfunction",
    "A device fails: troubleshoot; if not fixed, find the asset, open a ticket and dispatch a technician.",
    (
        "broken",
        "won't turn on",
        "won't power on",
        "malfunction",
        "screen is",
        "keyboard",
        "battery",
        "dead pixel",
        "no signal",
        "flickering",
        "not powering",
    ),
    STANDARD_AUTH
    + troubleshoot(
        "hw",
        "hardware_malfunction",
        Slot("hardware_resolved", "yes_no", "Did those steps fix the device?", label="fix the device"),
    )
    + (
        Ask(
            Slot(
                "faulty_device",
                "choice",
                "Is the faulty device your laptop or your monitor?",
                label="faulty device",
                choices=DEVICES,
            ),
            when="!$hardware_resolved",
        ),
        Call("get_employee_assets", {"employee_id": "$employee_id"}, name="hw_assets", when="!$hardware_resolved"),
        Call(
            "get_asset_record",
            {"asset_tag": Derived(pick("asset_type", "asset_tag"), "$hw_assets.assets", "$faulty_device")},
            name="hw_asset",
            when="!$hardware_resolved",
        ),
    )
    + ticket_steps(
        "hw",
        "hardware_malfunction",
        urgency("hardware_urgency", "device problem"),
        "$hw_asset.asset.asset_tag",
        "!$hardware_resolved",
    )
    + (
        Ask(
            Slot("preferred_date", "date", "Which date suits you for the technician visit?", label="technician visit"),
            when="!$hardware_resolved",
        ),
        Ask(
            Slot(
                "preferred_time_window",
                "choice",
                "Morning, afternoon or full day time window?",
                label="time window",
                choices=("morning", "afternoon", "full_day"),
            ),
            when="!$hardware_resolved",
        ),
        Ask(building("dispatch_building", "technician"), when="!$hardware_resolved"),
        Ask(floor("dispatch_floor", "technician"), when="!$hardware_resolved"),
        Call(
            "schedule_field_dispatch",
            {
                "ticket_number": "$hw_ticket.ticket_number",
                "employee_id": "$employee_id",
                "building_code": "$dispatch_building",
                "floor_code": "$dispatch_floor",
                "preferred_date": "$preferred_date",
                "time_window": "$preferred_time_window",
            },
            name="dispatch",
            when="!$hardware_resolved",
        ),
        Say("A technician is booked, dispatch {dispatch.dispatch_id}.", when="!$hardware_resolved"),
    ),
)

NETWORK_ISSUE = Workflow(
    "network_vpn_issue",
    "Network or VPN trouble: troubleshoot; if not fixed, open a ticket and attach the diagnostic reference code.",
    ("vpn", "wi-fi", "wifi", "network", "can't connect", "keeps dropping", "disconnect", "ethernet"),
    STANDARD_AUTH
    + troubleshoot(
        "nw",
        "network_connectivity",
        Slot("network_resolved", "yes_no", "Did those steps fix the connection?", label="fix the connection"),
    )
    + (
        Ask(
            Slot(
                "network_type",
                "choice",
                "Is it the VPN, the wifi or a wired ethernet connection?",
                label="wired ethernet",
                choices=NETWORKS,
            ),
            when="!$network_resolved",
        ),
    )
    + ticket_steps(
        "nw",
        "network_connectivity",
        urgency("network_urgency", "connection problem"),
        "$network_type",
        "!$network_resolved",
    )
    + (
        Ask(
            Slot(
                "diagnostic_ref_code",
                "code",
                "Please run the network diagnostic and read me its reference code.",
                label="reference code",
                length=12,
                read_back=True,
            ),
            when="!$network_resolved",
        ),
        Call(
            "attach_diagnostic_log",
            # Read back as heard (no dash), sent in the tool's form: DIAG-XXXXXXXX.
            {
                "ticket_number": "$nw_ticket.ticket_number",
                "diagnostic_ref_code": Derived(dashed(4, 8), "$diagnostic_ref_code"),
            },
            when="!$network_resolved",
        ),
    ),
)


# --------------------------------------------------------------------------------------------------- security

SECURITY_INCIDENT = Workflow(
    "security_incident",
    "A lost, stolen or compromised device: a security case and a remote wipe.",
    ("lost my", "stolen", "compromised"),
    (
        *STANDARD_AUTH,
        Call("get_employee_assets", {"employee_id": "$employee_id"}, name="sec_assets"),
        Ask(
            Slot(
                "lost_device",
                "choice",
                "Which device is it, your laptop or your monitor?",
                label="which device",
                choices=DEVICES,
            )
        ),
        Ask(
            Slot(
                "incident_type",
                "choice",
                "Was it lost, stolen, or is it a suspected compromise?",
                label="suspected compromise",
                choices=("lost", "stolen", "suspected_compromise"),
            )
        ),
        Confirm("I'll open a security case and wipe the device remotely. Shall I go ahead?"),
        Call(
            "report_security_incident",
            {
                "employee_id": "$employee_id",
                "asset_tag": Derived(pick("asset_type", "asset_tag"), "$sec_assets.assets", "$lost_device"),
                "incident_type": "$incident_type",
            },
            name="case",
        ),
        Call("initiate_remote_wipe", {"asset_tag": "$case.asset_tag", "security_case_id": "$case.security_case_id"}),
        Say("Security case {case.security_case_id} is open and a remote wipe is on its way."),
    ),
)

MFA_RESET = Workflow(
    "mfa_reset",
    "A phone-of-record change for MFA: never over the phone; a tracking case and an in-person visit.",
    ("mfa", "new phone number", "authenticator", "phone of record", "new phone"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "new_phone_last_four",
                "digits",
                "What are the final 4 digits of the new phone number?",
                label="new phone number",
                length=4,
            )
        ),
        Confirm("Changing the MFA phone needs an in-person visit to IT security. Shall I open the tracking case?"),
        Call(
            "submit_mfa_reset",
            {"employee_id": "$employee_id", "new_phone_last_four": "$new_phone_last_four"},
            name="mfa",
            errors_ok=("in_person_required",),
        ),
        Say("Case {mfa.security_case_id} is open; please visit IT security in person with a government-issued ID."),
    ),
)
