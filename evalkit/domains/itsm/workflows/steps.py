"""Building blocks of the ITSM workflows on EVA-Bench's ITSM tool API: choice lists, value forms (floor, asset tag
and reference-number formats), the shared slots, the authentication tiers (standard, OTP-elevated, manager + OTP;
App. L.5), and the troubleshooting and ticket steps of the incident flows.

Slot names are EVA-Bench's ``information_required`` field names where a record has one (``employee_id``,
``delivery_building``, ``preferred_os``, ``meeting_date``, ...), so a record's fields answer the same questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any, get_args

from evalkit.domains.itsm.api.common import TIER_OF_URGENCY, ServiceName, TargetSystem
from evalkit.domains.workflow import Ask, Call, Derived, Say, Slot, Step
from evalkit.spoken import spelled_runs

# --------------------------------------------------------------------------------------------------- choices

URGENCIES = ("high", "medium", "low")
# The tools' own value lists (one source: a service the API gains is askable at once).
TARGET_SYSTEMS: tuple[str, ...] = get_args(TargetSystem)
SERVICES: tuple[str, ...] = get_args(ServiceName)
NETWORKS = ("vpn", "wifi", "ethernet")
DEVICES = ("laptop", "monitor")
ACCESS_LEVELS = ("read_only", "standard", "admin")
EQUIPMENT = ("standing_desk_converter", "ergonomic_chair", "ergonomic_keyboard", "monitor_arm", "footrest")
NEEDS_ASSESSMENT = ("standing_desk_converter", "ergonomic_chair")
ROOM_EQUIPMENT = ("projector", "whiteboard", "video_conferencing", "display_screen", "speakerphone", "nothing")
ROLE_CODES = ("SWE", "PM", "DESGN", "ANLST", "ADMIN", "MGENG", "MGOPS", "MGSLS", "MGHR", "SECUR", "INFRA", "DATAN")

# --------------------------------------------------------------------------------------------------- value forms


def floor_code(value: str) -> str | None:
    """ "FL2" as heard ("F L 2" parses to "FL2"); anything else is not a floor code."""
    return value if re.fullmatch(r"FL\d{1,2}", value) else None


def dashed(*widths: int, lower_tail: bool = False) -> Any:
    """A code heard without its dashes ("ASTLPT284719") in the tool's dashed form ("AST-LPT-284719")."""

    def form(value: str) -> str | None:
        plain = value.replace("-", "")
        if len(plain) != sum(widths):
            return None
        parts, at = [], 0
        for width in widths:
            parts.append(plain[at : at + width])
            at += width
        if lower_tail:
            parts[-1] = parts[-1].lower()
        return "-".join(parts)

    return form


REQUEST_CATEGORIES = ("ACCT", "FAC", "HW", "SW")


def request_id(value: str) -> str | None:
    """The request number in the caller's words, written or spelled ("it's REQ-SW-3f2a...", "R, E, Q, -, S, W, -,
    3, F, 2, A, ..."), in the tools' form ("REQ-SW-3f2a...")."""
    categories = "|".join(REQUEST_CATEGORIES)
    found = re.search(rf"REQ[\s-]*({categories})[\s-]*([0-9a-f]{{12}})\b", value, re.IGNORECASE)
    if found is None:  # spelled: the characters with spaces, commas or dashes between them
        squeezed = re.sub(r"(?<=\b\w)[\s,.-]+(?=\w\b)", "", value)
        found = re.search(rf"REQ[\s,-]*({categories})[\s,-]*([0-9a-f]{{12}})\b", squeezed, re.IGNORECASE)
    return f"REQ-{found.group(1).upper()}-{found.group(2).lower()}" if found else None


def group_codes(value: str) -> list[str] | None:
    """The access group codes in the caller's words, written or spelled ("GRP-ENGCORE and GRP-VPNALL", "G R P - E N
    G C O R E and G R P - V P N A L L")."""
    found = re.findall(r"GRP-?([A-Z]{2,8})\b", value.upper())
    if not found:
        parts = re.split(r",|;|\band\b", value)  # one code per part: "... T and G ..." is no "Tango"
        found = [run[3:] for part in parts for run in spelled_runs(part) if re.fullmatch(r"GRP[A-Z]{2,8}", run)]
    return [f"GRP-{code}" for code in found] or None


def group_prefix(value: str) -> str:
    """A spelled group code with the format's own prefix: "DRP-FINRPT" -> "GRP-FINRPT" (``GroupCode``: GRP-XXXXXX)."""
    return "GRP-" + value.split("-", 1)[-1]


def group_code(value: str) -> str | None:
    codes = group_codes(value)
    return codes[0] if codes else None


def tier_of(urgency: str) -> str:
    return TIER_OF_URGENCY[urgency]


def days_later(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def find(items: Iterable[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]], field: str, wanted: Any) -> Any:
    """The first item (of a list, or of a table's values) whose ``field`` is ``wanted`` (text compared without
    case and punctuation), or None."""
    values = items.values() if isinstance(items, Mapping) else items
    key = _plain(wanted)
    return next((item for item in values if _plain(item.get(field)) == key), None)


def _plain(value: Any) -> str:
    return re.sub(r"[\W_]+", "", str(value).lower())


def pick(field: str, result: str) -> Any:
    """``Derived`` of a list and a wanted value: the matching item's ``result`` field (None when none matches)."""

    def value(items: Any, wanted: Any) -> Any:
        item = find(items or [], field, wanted)
        return item.get(result) if item else None

    return value


# --------------------------------------------------------------------------------------------------- slots

EMPLOYEE_PREFIX = "EMP"


def employee_code(digits: str) -> str:
    """An employee ID from its six digits: the tools' format is "EMP followed by 6 digits" (``EmployeeId`` in the
    API schema), so a listener who knows it needs to hear only the digits; "E M P", which tiny.en hears as "C M B" or
    "D&M B", is the format's, not the caller's information (issue 17.2)."""
    return f"{EMPLOYEE_PREFIX}{digits}"


def employee_id_slot(name: str, question: str, label: str) -> Slot:
    """An employee ID as a six-digit string in the ``EMP`` format, read back whole ("E M P 5 9 5 ...")."""
    return Slot(name, "digits", question, label=label, length=6, read_back=True, normalize=employee_code)


EMPLOYEE_ID = employee_id_slot("employee_id", "Could I have your employee ID, please?", "employee ID")
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


# The caller's words about the impact -> urgency (EVA-Bench: inferred from the business impact; high = blocked,
# no workaround; medium = degraded but working; low = a workaround, not time-sensitive). First match wins.
IMPACT_WORDS = (
    ("high", r"\bhigh\b|blocked|can'?t work|cannot work|completely|urgent|down for|no workaround"),
    ("medium", r"\bmedium\b|degraded|slow|work around|workaround for now|partly|intermittent"),
    ("low", r"\blow\b|minor|can wait|not urgent|annoy"),
)


def urgency_of(text: str) -> str | None:
    low = text.lower()
    return next((level for level, words in IMPACT_WORDS if re.search(words, low)), None)


def urgency(name: str, what: str) -> Slot:
    return Slot(
        name,
        "text",
        f"How is the {what} affecting your work: are you completely blocked, can you work around it for now, or "
        "can it wait?",
        label=f"{what} affecting your work",
        normalize=urgency_of,
    )


def building(name: str, what: str) -> Slot:
    return Slot(name, "text", f"Which building for the {what}?", label=f"building for the {what}")


def floor(name: str, what: str) -> Slot:
    return Slot(
        name,
        "code",
        f"And which floor for the {what}, for example F L 2?",
        label=f"floor for the {what}",
        length=3,
        normalize=floor_code,
    )


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
        name="manager",
        once=True,
    ),
    *OTP_STEPS,
)

# --------------------------------------------------------------------------------------------------- incidents


def troubleshoot(prefix: str, category: str, resolved: Slot) -> tuple[Step, ...]:
    """Walk the caller through the guide; fixed -> ``mark_resolved`` and no ticket (``when`` the slot holds)."""
    return (
        Call("get_troubleshooting_guide", {"issue_category": category}, name=f"{prefix}_guide"),
        Say(f"Let's go through the troubleshooting steps together: {{{prefix}_guide.steps.0}}"),
        Ask(resolved),
        Call(
            "mark_resolved",
            {"employee_id": "$employee_id", "flow_id": category, "resolution_type": "resolved_via_troubleshooting"},
            when=f"${resolved.name}",
        ),
    )


def ticket_steps(
    prefix: str, category: str, urgency_slot: Slot, system: str, when: str, troubleshot: bool = True
) -> tuple[Step, ...]:
    """Ticket + SLA on the not-resolved branch: the urgency the caller's impact gives, the tier that urgency
    takes (high 1, medium 2, low 3)."""
    return (
        Ask(urgency_slot, when=when),
        Call(
            "create_incident_ticket",
            {
                "employee_id": "$employee_id",
                "category": category,
                "urgency": f"${urgency_slot.name}",
                "affected_system": system,
                "troubleshooting_completed": troubleshot,
            },
            name=f"{prefix}_ticket",
            when=when,
        ),
        Call(
            "assign_sla_tier",
            {
                "ticket_number": f"${prefix}_ticket.ticket_number",
                "sla_tier": Derived(tier_of, f"${urgency_slot.name}"),
            },
            name=f"{prefix}_sla",
            when=when,
        ),
        Say(
            f"I've opened ticket {{{prefix}_ticket.ticket_number}}; expect a response within "
            f"{{{prefix}_sla.response_target}}.",
            when=when,
        ),
    )
