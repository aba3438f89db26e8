"""Employment workflows: onboarding tasks, FMLA leave, I-9 verification, visa dependents and PTO."""

from __future__ import annotations

from datetime import date

from evalkit.domains.hr.places import COUNTRIES_SAID, COUNTRY_NAMES
from evalkit.domains.hr.workflows.checklist import finished_on_checklist
from evalkit.domains.hr.workflows.steps import (
    COUNTRY_OF_BIRTH,
    COUNTRY_OF_ISSUE,
    PETITION_FORM,
    eligible,
    employee_auth,
    employee_record,
    full_date,
    named,
    notify,
    otp,
    scheduling,
)
from evalkit.domains.workflow import TODAY, Ask, Call, Confirm, Derived, Refuse, Say, Slot, Workflow

# What callers call a task or a document -> the tools' code (a code said as such is taken as it is).
DOCUMENT_NAMES = {
    "passport": "US_PASSPORT",
    "permanent resident card": "PERM_RESIDENT_CARD",
    "green card": "PERM_RESIDENT_CARD",
    "employment authorization": "EAD",
    "driver's license": "DRIVERS_LICENSE",
    "drivers license": "DRIVERS_LICENSE",
    "state id": "STATE_ID",
    "social security card": "SSN_CARD",
    "birth certificate": "BIRTH_CERT",
}


DOCUMENT_CODE = Derived(("document_type_code",), named(DOCUMENT_NAMES))
# A document code as a caller names the document (``Slot.said_as``): "EAD" -> "employment authorization"
DOCUMENTS_SAID = tuple({code: name for name, code in reversed(DOCUMENT_NAMES.items())}.items())

ONBOARDING = Workflow(
    name="onboarding_task",
    description="A new hire marks an onboarding task done with its completion code and books an orientation follow-up.",
    intents=("onboarding", "onboarding task", "mark a task complete", "orientation"),
    steps=(
        *employee_auth(),
        employee_record(),
        Call("get_onboarding_checklist", {"employee_id": "$employee_id"}, name="checklist"),
        Ask(
            Slot(
                "completion_codes",
                "text",
                "Which onboarding tasks did you finish, and what are their completion codes?",
                label="completion codes",
            )
        ),
        Call(
            "complete_onboarding_task",
            {"employee_id": "$employee_id"},
            each=Derived(("completion_codes", "checklist"), finished_on_checklist),
        ),
        *scheduling(
            "orientation_followup",
            "schedule_orientation_followup",
            "$employee.employee.department_code",
            {"employee_id": "$employee_id"},
        ),
    ),
)


def _passed(today: str, start: str) -> bool:
    return start < today  # ISO dates compare as text


def _beyond_balance(start: str, end: str, weeks_left: float) -> bool:
    """More calendar days asked for than the weeks of FMLA entitlement left cover (both ends counted)."""
    days = (date.fromisoformat(end) - date.fromisoformat(start)).days + 1
    return days > float(weeks_left) * 7


FMLA = Workflow(
    name="fmla_leave",
    description="An employee opens an FMLA case after eligibility is verified and books a return-to-work check-in.",
    intents=("fmla", "f m l a", "leave of absence", "medical leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        employee_record(),
        eligible("check_leave_eligibility", {"employee_id": "$employee_id"}, "fmla_check", ("not_eligible",)),
        Ask(
            Slot(
                "leave_category",
                "choice",
                "Which leave category applies?",
                label="leave category",
                choices=("employee_medical_condition", "family_member_serious_illness", "bonding", "military_exigency"),
            )
        ),
        Ask(Slot("leave_start_date", "date", "What is the leave start date?", label="leave start date")),
        Ask(Slot("leave_end_date", "date", "And the leave end date?", label="leave end date")),
        # App. L.6: leave cannot be filed with a start date that has passed, nor beyond the balance left
        Refuse(
            "I'm sorry, leave can't be filed with a start date that has already passed.",
            when=Derived((TODAY, "leave_start_date"), _passed),
        ),
        Refuse(
            "I'm sorry, that is more than the {fmla_check.fmla_weeks_remaining} weeks of FMLA leave you have left, "
            "so I can't file it.",
            when=Derived(("leave_start_date", "leave_end_date", "fmla_check.fmla_weeks_remaining"), _beyond_balance),
        ),
        Confirm("I'll open {leave_category} leave from {leave_start_date} to {leave_end_date}. Shall I go ahead?"),
        Call(
            "submit_fmla_case",
            {
                "employee_id": "$employee_id",
                "leave_category": "$leave_category",
                "leave_start_date": "$leave_start_date",
                "leave_end_date": "$leave_end_date",
            },
            name="case",
        ),
        notify("notify_department_manager", "case", "fmla_opened"),
        *scheduling(
            "return_to_work_checkin",
            "schedule_return_to_work_checkin",
            "$employee.employee.department_code",
            {"employee_id": "$employee_id", "case_id": "$case.case_id"},
        ),
    ),
)


def _i9_submit(action: str, notice: str) -> tuple[Call, Call]:
    """Submit and notify for one verification action (the notice type follows the action)."""
    when = f"$verification_action={action}"
    return (
        Call(
            "submit_i9_verification",
            {
                "employee_id": "$employee_id",
                "verification_action": "$verification_action",
                "document_list_type": "$document_list_type",
                "document_type_code": DOCUMENT_CODE,
                "document_number": "$document_number",
                "document_expiration_date": "$document_expiration_date",
                "issuing_country_code": COUNTRY_OF_ISSUE,
            },
            name="verification",
            when=when,
        ),
        notify("notify_hr_compliance", "verification", notice, when=when),
    )


I9 = Workflow(
    name="i9_verification",
    description="A new or rehired employee submits I-9 work authorization documents; HR compliance is notified.",
    intents=("i-9", "i9", "i 9", "work authorization"),
    steps=(
        *employee_auth(),
        employee_record(),
        Call("get_i9_record", {"employee_id": "$employee_id"}, name="i9"),
        Ask(
            Slot(
                "verification_action",
                "choice",
                "Is this an initial verification or a reverification?",
                label="initial verification or a reverification",
                choices=("initial_verification", "reverification"),
            )
        ),
        Ask(
            Slot(
                "document_list_type",
                "choice",
                "Which document list: List A, List B or List C?",
                label="document list",
                choices=("LIST_A", "LIST_B", "LIST_C"),
            )
        ),
        Ask(
            Slot(
                "document_type_code",
                "text",
                "What document type is it?",
                label="document type",
                vocabulary=tuple(DOCUMENT_NAMES),
                said_as=DOCUMENTS_SAID,
            )
        ),
        Ask(
            Slot(
                "document_number",
                "code",
                "What is the document number?",
                label="document number",
                read_back=True,
                pattern=r"[A-Z0-9]{6,12}",
            )
        ),
        Ask(
            Slot(
                "document_expiration_date",
                "text",
                "What is the expiration date?",
                label="expiration date",
                normalize=full_date,
                read_back=True,  # "twenty thirty" heard as 2013: an expired document, caught by the read-back
            )
        ),
        Ask(
            Slot(
                "issuing_country_code",
                "text",
                "Which country issued it? Country of issue, please.",
                label="country of issue",
                vocabulary=COUNTRY_NAMES,
                said_as=COUNTRIES_SAID,
            )
        ),
        Confirm("I'll submit document {document_number}. Shall I go ahead?"),
        *_i9_submit("initial_verification", "i9_verified"),
        *_i9_submit("reverification", "i9_reverified"),
        Say("Your I-9 is submitted, case {verification.case_id}; HR compliance has been notified."),
    ),
)


VISA_DEPENDENT = Workflow(
    name="visa_dependent",
    description="An H-1B employee adds a dependent to their petition via a USCIS amendment.",
    intents=("visa", "dependent to my visa", "h-1b", "petition"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        employee_record(),
        Ask(
            Slot(
                "visa_petition_number",
                "code",
                "What is your visa petition number?",
                label="petition number",
                read_back=True,
                pattern=PETITION_FORM,
            )
        ),
        Call(
            "get_visa_record",
            {"employee_id": "$employee_id", "visa_petition_number": "$visa_petition_number"},
            name="visa",
        ),
        Ask(
            Slot(
                "dependent_first_name",
                "name",
                "Please spell the dependent's first name.",
                label="dependent's first name",
            )
        ),
        Ask(Slot("dependent_last_name", "name", "And spell the dependent's last name.", label="dependent's last name")),
        Ask(
            Slot(
                "relationship",
                "choice",
                "What is their relationship to you?",
                label="relationship",
                choices=("spouse", "child", "domestic_partner"),
            )
        ),
        Ask(
            Slot(
                "dependent_date_of_birth",
                "text",
                "What is the dependent's date of birth?",
                label="dependent's date of birth",
                normalize=full_date,
            )
        ),
        Ask(
            Slot(
                "dependent_country_of_birth",
                "text",
                "What is their country of birth?",
                label="country of birth",
                vocabulary=COUNTRY_NAMES,
                said_as=COUNTRIES_SAID,
            )
        ),
        Ask(
            Slot(
                "uscis_receipt_number",
                "code",
                "What is the USCIS receipt number?",
                label="receipt number",
                read_back=True,
                pattern=PETITION_FORM,
            )
        ),
        Confirm("I'll add {dependent_first_name} {dependent_last_name} to petition {visa_petition_number}. Shall I?"),
        Call(
            "add_visa_dependent",
            {
                "employee_id": "$employee_id",
                "visa_petition_number": "$visa_petition_number",
                "dependent_first_name": "$dependent_first_name",
                "dependent_last_name": "$dependent_last_name",
                "relationship": "$relationship",
                "dependent_date_of_birth": "$dependent_date_of_birth",
                "dependent_country_of_birth": COUNTRY_OF_BIRTH,
                "uscis_receipt_number": "$uscis_receipt_number",
            },
            name="dependent",
        ),
        Call(
            "notify_immigration_counsel",
            {
                "employee_id": "$employee_id",
                "visa_petition_number": "$visa_petition_number",
                "notification_type": "dependent_added",
            },
        ),
        Say("The dependent is added, amendment {dependent.amendment_id}, and immigration counsel has been notified."),
    ),
)


PTO = Workflow(
    name="pto_request",
    description="An employee requests PTO or sick leave within balance and outside department blackouts.",
    intents=("pto", "paid time off", "time off", "sick leave", "vacation", "request pto", "pto days", "sick days"),
    steps=(
        *employee_auth(),
        employee_record(),
        Call("get_pto_balance", {"employee_id": "$employee_id"}, name="balance"),
        Ask(Slot("pto_start_date", "date", "What is the start date of your time off?", label="start date")),
        Ask(Slot("pto_end_date", "date", "And the end date of your time off?", label="end date")),
        Ask(
            Slot(
                "pto_type",
                "choice",
                "Is this general PTO or sick leave?",
                label="general PTO or sick leave",
                choices=("pto", "sick"),
            )
        ),
        eligible(
            "check_pto_eligibility",
            {
                "employee_id": "$employee_id",
                "pto_type": "$pto_type",
                "start_date": "$pto_start_date",
                "end_date": "$pto_end_date",
            },
            "pto_check",
            ("insufficient_pto_balance", "blackout_date_conflict", "pto_overlap", "invalid_date_range"),
        ),
        Confirm("That uses {pto_check.pto_days_required} days. Shall I submit it?"),
        Call(
            "submit_pto_request",
            {
                "employee_id": "$employee_id",
                "pto_type": "$pto_type",
                "start_date": "$pto_start_date",
                "end_date": "$pto_end_date",
            },
            name="request",
        ),
        notify("notify_department_manager", "request", "pto_request_submitted"),
        Say("Request {request.case_id} is submitted and your manager has been notified."),
    ),
)
