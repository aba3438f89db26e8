"""Steps shared by the medical HR workflows: identity slots, the employee / provider / passcode authentication
tiers, eligibility checks (EVA-Bench's tools answer "no" with an error, which ends the workflow as a refusal),
appointment scheduling, and the derived arguments (IDs the caller does not say in the tool's form).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from evalkit.domains.hr.places import country_code, state_code
from evalkit.domains.hr.tools.common import normalize_date
from evalkit.domains.workflow import Ask, Call, Derived, Say, Slot, Step, fit_pattern, spoken_digits
from evalkit.spoken import MONTHS

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MONTH_DAY = re.compile(r"\b([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?\b")  # "July 29", "June 4th" (a month if in MONTHS)
# Written forms of the tools' identifiers (evalkit.domains.hr.tools.common): the parser puts the dashes back.
EMPLOYEE_ID_FORM = r"EMP\d{6}"
FACILITY_FORM = r"[A-Z]{2,4}-\d{2}[A-Z]"
LICENSE_FORM = r"[A-Z]{2}-[A-Z]{2,4}-\d{6,8}"
DEA_FORM = r"[A-Z]{2}\d{7}"
POLICY_FORM = r"POL-\d{4}-[A-Z0-9]{6}"
CLEARANCE_FORM = r"CLR-[A-Z]{2,4}-\d{6}"
PRIVILEGE_FORM = r"PRV-[A-Z]{2,6}-\d{3}"
UNIT_FORM = r"\d{1,2}[A-Z]-[A-Z]{2,6}"
PETITION_FORM = r"[A-Z]{3}\d{10}"

EMPLOYEE_ID = Slot(
    "employee_id",
    "code",
    "Could you give me your employee ID?",
    label="employee ID",
    read_back=True,
    pattern=EMPLOYEE_ID_FORM,
)


def full_date(text: str) -> str | None:
    """A date in another year than the call's (a birth, a document's expiry), in ISO, when the words give one:
    month, day and year ("February 9, 1974") or ISO; None for "family ride in 1974" (a mishearing), so the agent asks
    again instead of failing the verification with it. ISO, so a read-back compares as a date, not as words."""
    iso = str(normalize_date(text))
    return iso if ISO_DATE.fullmatch(iso) else None


DATE_OF_BIRTH = Slot(
    "date_of_birth",
    "text",
    "And your date of birth?",
    label="date of birth",
    normalize=full_date,
)
NPI = Slot("npi", "digits", "What is your NPI number?", label="NPI", length=10, read_back=True)
FACILITY = Slot(
    "facility_code", "code", "What is your home facility code?", label="facility code", pattern=FACILITY_FORM
)
PIN = Slot("pin", "digits", "And your four-digit PIN?", label="PIN", length=4)
OTP = Slot(
    "otp_code",
    "digits",
    "I've texted a one-time passcode to your phone. Please read me the passcode.",
    label="passcode",
    length=6,
)
PREFERRED_DATE = Slot("preferred_date", "date", "What appointment date would you prefer?", label="appointment date")
PREFERRED_TIME = Slot(
    "preferred_time", "time", "Which appointment time would you like from the open slots?", label="appointment time"
)


# ---------------------------------------------------------------- derived arguments


def shift_id(day: str, start: str) -> str:
    """A shift's ID from its date and start time: SHF-YYYYMMDD-HHMM (callers know when they work, not the ID)."""
    return f"SHF-{day.replace('-', '')}-{start.replace(':', '')}"


def at(day: str, time: str) -> str:
    return f"{day} {time}"


def whole(number: Any) -> int:
    return int(float(number))


def codes(text: str, form: str) -> list[str] | None:
    """Every code of ``form`` named in a list ('PRV-SURG-004 and PRV-ECHO-007'); None when none was heard (the
    tool then refuses and the agent asks again)."""
    parts = re.split(r",|;|\band\b", text)
    return [code for part in parts if (code := fit_pattern(part, form))] or None


def codes_on_record(text: str, listed: Any, form: str) -> list[str] | None:
    """``codes``; when the words give none in ``form``, the codes of the record the agent looked up (``listed``: its
    items with ``code`` and ``status``; the suspended ones) named by their number, as a listener with the record in
    front of them hears "the army on, zero, zero, four" as PRV-ONC-004: per named part (split at "and"), the one
    suspended code whose number is the last digits heard. None when a part names none (the agent asks again rather
    than act on part of the list)."""
    found = codes(text, form)
    if found:
        return found
    suspended = [str(i["code"]) for i in listed or () if isinstance(i, dict) and i.get("status") == "suspended"]
    picked: list[str] = []
    for part in filter(str.strip, re.split(r";|\band\b", text)):
        digits = "".join(str(d) for d in spoken_digits(part))
        same = [code for code in suspended if digits and _number(code) == int(digits[-3:])]
        if len(same) != 1:
            return None
        picked.append(same[0])
    return list(dict.fromkeys(picked)) or None


def _number(code: str) -> int | None:
    """'PRV-ONC-009' -> 9: a code's trailing number."""
    tail = code.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def named(table: dict[str, str]) -> Callable[[str], str | None]:
    """The code a caller's words name: the code itself ('US_PASSPORT', 'us passport'), else the first name of
    ``table`` they contain."""
    codes = set(table.values())

    def code_of(text: str) -> str | None:
        said = re.sub(r"[\s-]+", "_", text.strip().rstrip(".").upper())
        if said in codes:
            return said
        lowered = text.lower()
        return next((code for name, code in table.items() if name in lowered), None)

    return code_of


def dates_in(text: str, first: str) -> list[str]:
    """The dates a caller lists ('July 29 and August 2', '2026-07-29'; 'none' -> []), in the year of ``first``
    (the window's first day) or the next one for a month before it."""
    start = date.fromisoformat(first)
    found = [iso for iso in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", text)]
    for month, day_ in MONTH_DAY.findall(text):
        if month.lower() in MONTHS:
            when = date(start.year, MONTHS[month.lower()], int(day_))
            found.append((when if when >= start else when.replace(year=start.year + 1)).isoformat())
    return sorted(set(found))


def dates_or_none(text: str) -> str | None:
    """A list of dates or a "none", in the caller's words; None when the words give neither ("August salmon" for
    "August 7": no date, and no "none" either), so the agent asks again instead of registering no blackout."""
    said_none = re.search(r"\b(?:none|no|nope|nothing)\b", text, re.IGNORECASE)
    dated = ISO_DATE.search(text) or any(month.lower() in MONTHS for month, _ in MONTH_DAY.findall(text))
    return text if said_none or dated else None


SHIFT_ID = Derived(("shift_date", "shift_start_time"), shift_id)
APPOINTMENT_AT = Derived(("preferred_date", "preferred_time"), at)
STATE = Derived(("new_state_code",), state_code)
COUNTRY_OF_ISSUE = Derived(("issuing_country_code",), country_code)
COUNTRY_OF_BIRTH = Derived(("dependent_country_of_birth",), country_code)


def employee_auth() -> tuple[Step, ...]:
    return (
        Ask(EMPLOYEE_ID),
        Ask(DATE_OF_BIRTH),
        Call(
            "verify_employee_auth",
            {"employee_id": "$employee_id", "date_of_birth": "$date_of_birth"},
            name="auth",
            refuse_on=("authentication_failed",),
            refusal="I'm sorry, those details don't match our records, so I can't go on.",
            once=True,
        ),
    )


def provider_auth() -> tuple[Step, ...]:
    return (
        Ask(NPI),
        Ask(FACILITY),
        Ask(PIN),
        Call(
            "verify_provider_auth",
            {"npi": "$npi", "facility_code": "$facility_code", "pin": "$pin"},
            name="auth",
            refuse_on=("authentication_failed",),
            refusal="I'm sorry, those credentials don't match our records, so I can't go on.",
            once=True,
        ),
    )


def otp(employee_ref: str) -> tuple[Step, ...]:
    """The second factor; ``employee_ref`` is the employee ID slot or the provider verification's result."""
    return (
        Call("initiate_otp_auth", {"employee_id": employee_ref}, name="otp_sent", once=True),
        Ask(OTP),
        Call(
            "verify_otp_auth",
            {"employee_id": employee_ref, "otp_code": "$otp_code"},
            refuse_on=("authentication_failed",),
            refusal="That passcode doesn't match, and I can't go further without it.",
            once=True,
        ),
    )


def eligible(tool: str, args: dict[str, Any], name: str, refuse_on: tuple[str, ...]) -> Call:
    """An eligibility check whose "no" (one of ``refuse_on``) ends the workflow with the tool's reason."""
    return Call(
        tool,
        args,
        name=name,
        refuse_on=refuse_on,
        refusal=f"I'm sorry, I can't process that under our policy: {{{name}.message}}",
    )


def scheduling(kind: str, tool: str, department: str, owner: dict[str, Any]) -> tuple[Step, ...]:
    """Scheduling: ask a preferred date, check it, let the caller pick an offered time, book it. ``department``:
    the reference to the caller's department code; ``owner``: the booking's identifying arguments."""
    return (
        Ask(PREFERRED_DATE),
        Call(
            "check_appointment_availability",
            {"department_code": department, "appointment_type": kind, "preferred_date": "$preferred_date"},
            name="slots",
        ),
        Ask(PREFERRED_TIME),
        Call(
            tool,
            {**owner, "department_code": department, "appointment_datetime": APPOINTMENT_AT},
            name="booking",
        ),
        Say("You're booked for {booking.appointment_datetime}, appointment {booking.appointment_id}."),
    )


def employee_record() -> Call:
    return Call("get_employee_record", {"employee_id": "$employee_id"}, name="employee")


def provider_profile() -> Call:
    return Call("get_provider_profile", {"npi": "$npi"}, name="profile")


def notify(
    tool: str, case: str, notification_type: str, *, owner: str = "employee_id", when: str | None = None
) -> Call:
    """The notice EVA-Bench's HR flows send once a case is filed: ``tool`` told of the case the step named ``case``
    opened (its ``case_id``), for the caller the slot ``owner`` holds (``employee_id`` or ``npi``)."""
    args = {owner: f"${owner}", "case_id": f"${case}.case_id", "notification_type": notification_type}
    return Call(tool, args, when=when)
