"""Steps shared by the HR workflows: identity slots, the employee / provider / OTP authentication tiers
(App. L.6), eligibility calls and appointment scheduling.
"""

from __future__ import annotations

from evalkit.domains.workflow import Ask, Call, Say, Slot, Step

EMPLOYEE_ID = Slot(
    "employee_id", "code", "Could you give me your employee ID?", label="employee ID", length=9, read_back=True
)
DATE_OF_BIRTH = Slot("date_of_birth", "text", "And your date of birth?", label="date of birth")
NPI = Slot("npi", "digits", "What is your NPI number?", label="NPI", length=10, read_back=True)
FACILITY = Slot("facility_code", "code", "What is your home facility code?", label="facility code", length=3)
PIN = Slot("pin", "digits", "And your four-digit PIN?", label="PIN", length=4)
OTP = Slot(
    "otp_code",
    "digits",
    "I've texted a one-time passcode to your phone. Please read me the passcode.",
    label="passcode",
    length=6,
)


def employee_auth() -> tuple[Step, ...]:
    return (
        Ask(EMPLOYEE_ID),
        Ask(DATE_OF_BIRTH),
        Call(
            "verify_employee_auth",
            {"employee_id": "$employee_id", "date_of_birth": "$date_of_birth"},
            name="auth",
            require={"authenticated": True},
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
            require={"authenticated": True},
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
            require={"verified": True},
            refusal="That passcode doesn't match, and I can't go further without it.",
            once=True,
        ),
    )


def eligible(tool: str, args: dict[str, str], name: str) -> Call:
    return Call(
        tool,
        args,
        name=name,
        require={"eligible": True},
        refusal="I'm sorry, I can't process that under our policy: it isn't eligible.",
    )


LABELS = {
    "orientation_followup": "orientation",
    "return_to_work_checkin": "check-in",
    "competency_review": "competency review",
}


def scheduling(kind: str, prefix: str, tool: str, extra: dict[str, str]) -> tuple[Step, ...]:
    """App. L.6 scheduling: ask a preferred date, check it, let the caller pick an offered time, book."""
    label = LABELS[kind]
    day = Slot(f"{prefix}_date", "date", f"What {label} date would you prefer?", label=f"{label} date")
    time = Slot(
        f"{prefix}_time", "time", f"Which {label} time would you like from the open slots?", label=f"{label} time"
    )
    return (
        Ask(day),
        Call(
            "check_appointment_availability",
            {
                "department_code": "$employee.employee.department_code",
                "appointment_type": kind,
                "preferred_date": f"${prefix}_date",
            },
            name=f"{prefix}_slots",
        ),
        Ask(time),
        Call(
            tool,
            {
                "employee_id": "$employee_id",
                "department_code": "$employee.employee.department_code",
                "appointment_date": f"${prefix}_date",
                "appointment_time": f"${prefix}_time",
                **extra,
            },
            name=f"{prefix}_booking",
        ),
        Say(
            f"You're booked on {{{prefix}_booking.appointment_date}} at {{{prefix}_booking.appointment_time}}, "
            f"appointment {{{prefix}_booking.appointment_id}}."
        ),
    )


def employee_record() -> Call:
    return Call("get_employee_record", {"employee_id": "$employee_id"}, name="employee")
