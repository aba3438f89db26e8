"""Incident workflows (login, service outage, hardware malfunction, network/VPN) and security workflows
(security incident, MFA reset).
"""

from __future__ import annotations

from evalkit.domains.itsm.workflows.steps import (
    SERVICES,
    STANDARD_AUTH,
    _impact,
    _resolved,
    _ticket_steps,
    _troubleshoot,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

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
