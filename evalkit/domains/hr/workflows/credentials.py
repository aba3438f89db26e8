"""Provider credential workflows: license extension, malpractice update, DEA transfer and privilege
reactivation (provider tier, plus OTP where App. L.6 asks for it).
"""

from __future__ import annotations

from evalkit.domains.hr.workflows.steps import (
    NPI,
    eligible,
    employee_auth,
    employee_record,
    otp,
    provider_auth,
    scheduling,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

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


PRIVILEGE_REACTIVATION = Workflow(
    name="privilege_reactivation",
    description="A provider back from leave reactivates suspended privileges after a competency review is booked.",
    intents=("privileges", "reactivate", "clinical privileges", "back from leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        employee_record(),
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
