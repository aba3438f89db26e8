"""Building blocks of the ITSM workflows: the choice lists (services, applications, buildings, ...), the shared
slots, the authentication tiers (standard, OTP-elevated, manager + OTP; App. L.5), and the ticket and
troubleshooting steps of the incident flows.
"""

from __future__ import annotations

from evalkit.domains.workflow import Ask, Call, Say, Slot, Step

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
