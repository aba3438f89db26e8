"""The 12 single-intent HRSD workflows of EVA-Bench Table 43, as declarative steps (see evalkit.domains.workflow).

Authentication follows App. L.6: employee tier (ID + date of birth) for scheduling, payroll, onboarding, on-call,
I-9 and PTO; provider tier (NPI + facility code + PIN) for licenses and malpractice; provider + OTP for DEA
transfers; employee + OTP for leave, privileges and visa. Eligibility calls carry ``require={"eligible": True}``:
a false answer ends the workflow with the tool's reason (the adversarial boundary). Slot names are unique per
meaning across workflows (``pto_start_date`` vs ``oncall_start_date``) so one scenario's answers serve a
multi-intent call; identity slots (employee ID, NPI, ...) are shared on purpose.
"""

from __future__ import annotations

from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Step, Workflow

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


def _employee_record() -> Call:
    return Call("get_employee_record", {"employee_id": "$employee_id"}, name="employee")


LICENSE_EXTENSION = Workflow(
    name="license_extension",
    description="A provider requests a provisional or supervised temporary extension of an expiring license.",
    intents=("license extension", "extend my license", "license is expiring", "extension on my license"),
    steps=(
        *provider_auth(),
        Call("get_provider_profile", {"npi": "$npi"}, name="profile"),
        Ask(
            Slot(
                "license_number",
                "code",
                "What is the license number?",
                label="license number",
                length=8,
                read_back=True,
            )
        ),
        Call("get_license_record", {"npi": "$npi", "license_number": "$license_number"}, name="license"),
        Ask(
            Slot(
                "extension_type",
                "choice",
                "Do you want a provisional or a supervised extension type?",
                label="extension type",
                choices=("provisional", "supervised"),
            )
        ),
        Ask(Slot("duration_days", "number", "How long: 30, 60 or 90 days duration?", label="duration")),
        eligible(
            "check_extension_eligibility",
            {
                "npi": "$npi",
                "license_number": "$license_number",
                "extension_type": "$extension_type",
                "duration_days": "$duration_days",
            },
            "extension_check",
        ),
        Ask(
            Slot(
                "supervising_npi",
                "digits",
                "What is the supervising physician's NPI?",
                label="supervising physician's NPI",
                length=10,
                read_back=True,
            ),
            when="$extension_check.supervisor_required",
        ),
        Call(
            "check_extension_eligibility",
            {
                "npi": "$npi",
                "license_number": "$license_number",
                "extension_type": "$extension_type",
                "duration_days": "$duration_days",
                "supervising_physician_npi": "$supervising_npi",
            },
            require={"eligible": True},
            refusal="I'm sorry, that supervising physician can't be accepted for this extension.",
            when="$extension_check.supervisor_required",
        ),
        Confirm(
            "I'll submit a {extension_type} extension of {duration_days} days for license {license_number}. "
            "Shall I go ahead?"
        ),
        Call(
            "submit_license_extension",
            {
                "npi": "$npi",
                "license_number": "$license_number",
                "extension_type": "$extension_type",
                "duration_days": "$duration_days",
                "supervising_physician_npi": "$supervising_npi",
            },
            name="extension",
            when="$extension_check.supervisor_required",
        ),
        Call(
            "submit_license_extension",
            {
                "npi": "$npi",
                "license_number": "$license_number",
                "extension_type": "$extension_type",
                "duration_days": "$duration_days",
            },
            name="extension",
            when="!$extension_check.supervisor_required",
        ),
        Call(
            "notify_credentialing_committee",
            {"npi": "$npi", "case_id": "$extension.extension_id", "notification_type": "license_extension"},
        ),
        Say("Your extension request {extension.extension_id} is with the credentialing committee for review."),
    ),
)

SHIFT_SWAP = Workflow(
    name="shift_swap",
    description="An employee swaps a shift with a colleague who holds the unit's certifications.",
    intents=("swap a shift", "shift swap", "trade a shift", "swap my shift", "swap one of my shifts", "swap"),
    steps=(
        *employee_auth(),
        Ask(Slot("shift_id", "code", "What is the shift ID?", label="shift ID", length=8, read_back=True)),
        Call("get_shift_record", {"employee_id": "$employee_id", "shift_id": "$shift_id"}, name="shift"),
        Ask(
            Slot(
                "colleague_employee_id",
                "code",
                "What is your colleague's employee ID?",
                label="colleague's employee ID",
                length=9,
                read_back=True,
            )
        ),
        eligible(
            "check_swap_eligibility",
            {"employee_id": "$employee_id", "shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            "swap_check",
        ),
        Call(
            "verify_colleague_certifications",
            {"shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            require={"all_certified": True},
            refusal="Your colleague doesn't hold every certification that unit requires, so I can't swap it.",
        ),
        Confirm("I'll give shift {shift_id} to employee {colleague_employee_id}. Shall I confirm the swap?"),
        Call(
            "confirm_shift_swap",
            {"employee_id": "$employee_id", "shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            name="swap",
        ),
        Call(
            "notify_department_manager",
            {"employee_id": "$employee_id", "case_id": "$swap.swap_id", "notification_type": "shift_swap"},
        ),
        Say("The swap is confirmed, reference {swap.swap_id}, and your manager has been notified."),
    ),
)

MALPRACTICE_UPDATE = Workflow(
    name="malpractice_update",
    description="A provider replaces their malpractice carrier and limits; low limits open re-credentialing.",
    intents=("malpractice", "malpractice coverage", "malpractice insurance", "update my coverage"),
    steps=(
        *provider_auth(),
        Call("get_provider_profile", {"npi": "$npi"}, name="profile"),
        Call("get_malpractice_record", {"npi": "$npi"}, name="current"),
        Ask(
            Slot(
                "carrier",
                "choice",
                "Who is the new carrier?",
                label="carrier",
                choices=("coverys", "medpro", "the_doctors_company", "proassurance", "magmutual"),
            )
        ),
        Ask(
            Slot(
                "new_policy_number",
                "code",
                "What is the new policy number?",
                label="new policy number",
                length=6,
                read_back=True,
            )
        ),
        Ask(Slot("per_occurrence_limit", "number", "What is the per-occurrence limit?", label="per-occurrence")),
        Ask(Slot("aggregate_limit", "number", "And the aggregate limit?", label="aggregate")),
        Ask(Slot("coverage_effective_date", "date", "What is the effective date?", label="effective date")),
        Confirm("I'll update your coverage to policy {new_policy_number}. Shall I go ahead?"),
        Call(
            "update_malpractice_coverage",
            {
                "npi": "$npi",
                "carrier": "$carrier",
                "policy_number": "$new_policy_number",
                "per_occurrence_limit": "$per_occurrence_limit",
                "aggregate_limit": "$aggregate_limit",
                "effective_date": "$coverage_effective_date",
            },
            name="coverage",
        ),
        Call(
            "notify_credentialing_committee",
            {"npi": "$npi", "case_id": "$coverage.case_id", "notification_type": "malpractice_update"},
        ),
        Say("Your coverage is updated and the credentialing committee has been notified."),
    ),
)

ONBOARDING = Workflow(
    name="onboarding_task",
    description="A new hire marks an onboarding task done with its completion code and books an orientation follow-up.",
    intents=("onboarding", "onboarding task", "mark a task complete", "orientation"),
    steps=(
        *employee_auth(),
        _employee_record(),
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

DEA_TRANSFER = Workflow(
    name="dea_transfer",
    description="A provider moves their DEA registration to a new facility and state; the PDMP is notified.",
    intents=("dea", "dea registration", "transfer my dea", "d e a"),
    steps=(
        *provider_auth(),
        *otp("$auth.employee_id"),
        Ask(Slot("dea_number", "code", "What is your DEA number?", label="DEA number", length=9, read_back=True)),
        Call("get_dea_record", {"npi": "$npi", "dea_number": "$dea_number"}, name="dea"),
        Ask(
            Slot(
                "new_facility_code",
                "code",
                "What is the new facility code?",
                label="new facility code",
                length=3,
                read_back=True,
            )
        ),
        Ask(Slot("new_state", "text", "Which state is the new facility in?", label="which state")),
        Confirm("I'll transfer DEA registration {dea_number} to facility {new_facility_code}. Shall I go ahead?"),
        Call(
            "transfer_dea_registration",
            {
                "npi": "$npi",
                "dea_number": "$dea_number",
                "new_facility_code": "$new_facility_code",
                "new_state": "$new_state",
            },
            name="transfer",
        ),
        Call(
            "notify_pdmp",
            {
                "npi": "$npi",
                "dea_number": "$dea_number",
                "state": "$transfer.new_state",
                "facility_code": "$transfer.new_facility_code",
                "transfer_id": "$transfer.transfer_id",
            },
        ),
        Say("The transfer {transfer.transfer_id} is filed and the state PDMP has been notified."),
    ),
)

FMLA = Workflow(
    name="fmla_leave",
    description="An employee opens an FMLA case after eligibility is verified and books a return-to-work check-in.",
    intents=("fmla", "f m l a", "leave of absence", "medical leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        _employee_record(),
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

PAYROLL = Workflow(
    name="payroll_correction",
    description="An employee corrects hours on a timesheet of an open pay period.",
    intents=("payroll", "paycheck", "timesheet", "missing hours", "payroll correction"),
    steps=(
        *employee_auth(),
        Ask(Slot("timesheet_id", "code", "What is the timesheet ID?", label="timesheet ID", length=8, read_back=True)),
        Call(
            "get_timesheet_record",
            {"employee_id": "$employee_id", "timesheet_id": "$timesheet_id"},
            name="timesheet",
            require={"timesheet.owned_by_caller": True},
            refusal="That timesheet isn't yours, and I can only correct your own timesheets.",
        ),
        eligible(
            "check_correction_eligibility",
            {"employee_id": "$employee_id", "timesheet_id": "$timesheet_id"},
            "correction_check",
        ),
        Ask(Slot("shift_date", "date", "Which shift date needs correcting?", label="shift date")),
        Ask(
            Slot(
                "correction_type",
                "choice",
                "Is it overtime, on call, or a missed differential correction type?",
                label="correction type",
                choices=("overtime", "on_call", "missed_differential"),
            )
        ),
        Ask(
            Slot(
                "corrected_hours", "number", "What should the corrected total hours be?", label="corrected total hours"
            )
        ),
        Confirm("I'll correct {correction_type} on {shift_date} to {corrected_hours} hours. Shall I submit it?"),
        Call(
            "submit_payroll_correction",
            {
                "employee_id": "$employee_id",
                "timesheet_id": "$timesheet_id",
                "shift_date": "$shift_date",
                "correction_type": "$correction_type",
                "corrected_hours": "$corrected_hours",
            },
            name="correction",
        ),
        Call(
            "notify_department_manager",
            {
                "employee_id": "$employee_id",
                "case_id": "$correction.correction_id",
                "notification_type": "payroll_correction",
            },
        ),
        Say("Correction {correction.correction_id} is submitted and your manager has been notified."),
    ),
)

PRIVILEGE_REACTIVATION = Workflow(
    name="privilege_reactivation",
    description="A provider back from leave reactivates suspended privileges after a competency review is booked.",
    intents=("privileges", "reactivate", "clinical privileges", "back from leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        _employee_record(),
        Ask(NPI),
        Call("get_provider_profile", {"npi": "$npi"}, name="profile"),
        Ask(
            Slot(
                "clearance_code",
                "code",
                "What is your occupational health clearance code?",
                label="clearance code",
                length=8,
                read_back=True,
            )
        ),
        Ask(
            Slot(
                "leave_type",
                "choice",
                "What type of leave were you on?",
                label="type of leave",
                choices=("medical", "parental", "personal", "military", "administrative"),
            )
        ),
        eligible(
            "check_reactivation_eligibility",
            {
                "employee_id": "$employee_id",
                "npi": "$npi",
                "clearance_code": "$clearance_code",
                "leave_type": "$leave_type",
            },
            "reactivation_check",
        ),
        *scheduling("competency_review", "review", "schedule_competency_review", {"npi": "$npi"}),
        Ask(Slot("privileges", "text", "Which of the suspended privileges should I reactivate?", label="privileges")),
        Confirm("I'll reactivate {privileges}. Shall I go ahead?"),
        Call(
            "reactivate_privileges",
            {"employee_id": "$employee_id", "npi": "$npi", "privileges": "$privileges"},
            name="reactivated",
        ),
        Call(
            "notify_credentialing_committee",
            {"npi": "$npi", "case_id": "$reactivated.case_id", "notification_type": "privileges_reactivated"},
        ),
        Ask(
            Slot(
                "ehr_access",
                "choice",
                "Do you need full or restricted EHR access?",
                label="EHR access",
                choices=("full", "restricted"),
            )
        ),
        Call("update_ehr_access", {"employee_id": "$employee_id", "access_level": "$ehr_access"}),
        Say("Your privileges are active again and your EHR access is updated."),
    ),
)

ONCALL = Workflow(
    name="oncall_registration",
    description="An employee registers on-call availability for a window with optional blackout dates.",
    intents=("on-call", "on call", "oncall availability"),
    steps=(
        *employee_auth(),
        Call("get_oncall_schedule", {"employee_id": "$employee_id"}, name="schedule"),
        eligible("check_oncall_eligibility", {"employee_id": "$employee_id"}, "oncall_check"),
        Ask(
            Slot(
                "oncall_start_date",
                "date",
                "What is the first date of your on-call window?",
                label="first date of your on-call window",
            )
        ),
        Ask(
            Slot(
                "oncall_end_date",
                "date",
                "And the last date of the on-call window?",
                label="last date of the on-call window",
            )
        ),
        Ask(
            Slot(
                "oncall_role",
                "choice",
                "Primary or backup on-call role?",
                label="on-call role",
                choices=("primary", "backup"),
            )
        ),
        Ask(
            Slot(
                "has_blackout",
                "yes_no",
                "Are there any blackout dates in that window when you can't be reached?",
                label="any blackout dates",
            )
        ),
        Ask(
            Slot("blackout_date", "date", "Which blackout date is it?", label="which blackout date"),
            when="$has_blackout",
        ),
        Confirm("I'll register you as {oncall_role} from {oncall_start_date} to {oncall_end_date}. Shall I?"),
        Call(
            "register_oncall_availability",
            {
                "employee_id": "$employee_id",
                "start_date": "$oncall_start_date",
                "end_date": "$oncall_end_date",
                "oncall_role": "$oncall_role",
                "blackout_dates": "$blackout_date",
            },
            name="registration",
            when="$has_blackout",
        ),
        Call(
            "register_oncall_availability",
            {
                "employee_id": "$employee_id",
                "start_date": "$oncall_start_date",
                "end_date": "$oncall_end_date",
                "oncall_role": "$oncall_role",
                "blackout_dates": [],
            },
            when="!$has_blackout",
        ),
        Say("You're registered for on-call."),
    ),
)

I9 = Workflow(
    name="i9_verification",
    description="A new or rehired employee submits I-9 work authorization documents; HR compliance is notified.",
    intents=("i-9", "i9", "i 9", "work authorization"),
    steps=(
        *employee_auth(),
        _employee_record(),
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
        _employee_record(),
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

WORKFLOWS: dict[str, Workflow] = {
    w.name: w
    for w in (
        LICENSE_EXTENSION,
        SHIFT_SWAP,
        MALPRACTICE_UPDATE,
        ONBOARDING,
        DEA_TRANSFER,
        FMLA,
        PAYROLL,
        PRIVILEGE_REACTIVATION,
        ONCALL,
        I9,
        VISA_DEPENDENT,
        PTO,
    )
}
