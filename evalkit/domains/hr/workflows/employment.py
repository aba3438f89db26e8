"""Employment workflows: onboarding tasks, FMLA leave, I-9 verification, visa dependents and PTO."""

from __future__ import annotations

from evalkit.domains.hr.workflows.steps import eligible, employee_auth, employee_record, otp, scheduling
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

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
                "task_id",
                "choice",
                "Which onboarding task did you finish?",
                label="onboarding task",
                choices=(
                    "hipaa_training",
                    "bls_certification",
                    "badge_photo",
                    "ehr_training",
                    "tb_screening",
                    "fit_test",
                ),
            )
        ),
        Ask(
            Slot(
                "completion_code",
                "code",
                "What is the completion code for that task?",
                label="completion code",
                length=4,
                read_back=True,
            )
        ),
        Call(
            "complete_onboarding_task",
            {"employee_id": "$employee_id", "task_id": "$task_id", "completion_code": "$completion_code"},
        ),
        *scheduling("orientation_followup", "orientation", "schedule_orientation_followup", {}),
    ),
)


FMLA = Workflow(
    name="fmla_leave",
    description="An employee opens an FMLA case after eligibility is verified and books a return-to-work check-in.",
    intents=("fmla", "f m l a", "leave of absence", "medical leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        employee_record(),
        eligible("check_leave_eligibility", {"employee_id": "$employee_id"}, "fmla_check"),
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
        eligible(
            "check_leave_eligibility",
            {
                "employee_id": "$employee_id",
                "leave_start_date": "$leave_start_date",
                "leave_end_date": "$leave_end_date",
            },
            "fmla_dates_check",
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
        Call(
            "notify_department_manager",
            {"employee_id": "$employee_id", "case_id": "$case.case_id", "notification_type": "fmla_opened"},
        ),
        *scheduling(
            "return_to_work_checkin", "return", "schedule_return_to_work_checkin", {"case_id": "$case.case_id"}
        ),
    ),
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
                "verification_type",
                "choice",
                "Is this an initial verification or a reverification?",
                label="initial verification or a reverification",
                choices=("initial", "reverification"),
            )
        ),
        Ask(
            Slot(
                "document_list",
                "choice",
                "Which document list: List A, or List B and C?",
                label="document list",
                choices=("list_a", "list_b_and_c"),
            )
        ),
        Ask(
            Slot(
                "document_type",
                "choice",
                "What document type is it?",
                label="document type",
                choices=(
                    "us_passport",
                    "foreign_passport",
                    "permanent_resident_card",
                    "employment_authorization_document",
                    "drivers_license",
                    "state_id",
                    "social_security_card",
                    "birth_certificate",
                ),
            )
        ),
        Ask(
            Slot(
                "document_number",
                "code",
                "What is the document number?",
                label="document number",
                length=9,
                read_back=True,
            )
        ),
        Ask(Slot("document_expiration", "text", "What is the expiration date?", label="expiration date")),
        Ask(
            Slot(
                "country_of_issue",
                "text",
                "Which country issued it? Country of issue, please.",
                label="country of issue",
            )
        ),
        Confirm("I'll submit document {document_number}. Shall I go ahead?"),
        Call(
            "submit_i9_verification",
            {
                "employee_id": "$employee_id",
                "verification_type": "$verification_type",
                "document_list": "$document_list",
                "document_type": "$document_type",
                "document_number": "$document_number",
                "expiration_date": "$document_expiration",
                "country_of_issue": "$country_of_issue",
            },
            name="verification",
        ),
        Call(
            "notify_hr_compliance", {"employee_id": "$employee_id", "verification_id": "$verification.verification_id"}
        ),
        Say("Your I-9 is submitted, reference {verification.verification_id}; HR compliance has been notified."),
    ),
)


VISA_DEPENDENT = Workflow(
    name="visa_dependent",
    description="An H-1B employee adds a dependent to their petition via a USCIS amendment.",
    intents=("visa", "dependent to my visa", "h-1b", "petition"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        Ask(
            Slot(
                "petition_number",
                "code",
                "What is your visa petition number?",
                label="petition number",
                length=9,
                read_back=True,
            )
        ),
        Call("get_visa_record", {"employee_id": "$employee_id", "petition_number": "$petition_number"}, name="visa"),
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
            )
        ),
        Ask(Slot("country_of_birth", "text", "What is their country of birth?", label="country of birth")),
        Ask(
            Slot(
                "uscis_receipt_number",
                "code",
                "What is the USCIS receipt number?",
                label="receipt number",
                length=13,
                read_back=True,
            )
        ),
        Confirm("I'll add {dependent_first_name} {dependent_last_name} to petition {petition_number}. Shall I?"),
        Call(
            "add_visa_dependent",
            {
                "employee_id": "$employee_id",
                "petition_number": "$petition_number",
                "dependent_first_name": "$dependent_first_name",
                "dependent_last_name": "$dependent_last_name",
                "relationship": "$relationship",
                "dependent_date_of_birth": "$dependent_date_of_birth",
                "country_of_birth": "$country_of_birth",
                "uscis_receipt_number": "$uscis_receipt_number",
            },
            name="dependent",
        ),
        Call(
            "notify_immigration_counsel",
            {
                "employee_id": "$employee_id",
                "petition_number": "$petition_number",
                "dependent_id": "$dependent.dependent_id",
            },
        ),
        Say("The dependent is added and immigration counsel has been notified."),
    ),
)


PTO = Workflow(
    name="pto_request",
    description="An employee requests general PTO or sick leave within balance and outside department blackouts.",
    intents=("pto", "paid time off", "time off", "sick leave", "vacation"),
    steps=(
        *employee_auth(),
        employee_record(),
        Call("get_pto_balance", {"employee_id": "$employee_id"}, name="balance"),
        Ask(Slot("pto_start_date", "date", "What is the first day you want off?", label="first day you want off")),
        Ask(Slot("pto_end_date", "date", "And the last day off?", label="last day off")),
        Ask(
            Slot(
                "pto_type",
                "choice",
                "Is this general PTO or sick leave?",
                label="general PTO or sick leave",
                choices=("general_pto", "sick_leave"),
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
        ),
        Confirm("That deducts {pto_check.days_requested} days. Shall I submit it?"),
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
        Call(
            "notify_department_manager",
            {"employee_id": "$employee_id", "case_id": "$request.request_id", "notification_type": "pto_request"},
        ),
        Say("Request {request.request_id} is submitted and your manager has been notified."),
    ),
)
