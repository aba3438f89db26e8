"""Provider credential workflows: license extension, malpractice update, DEA transfer and privilege
reactivation (provider tier, plus the passcode where the policy asks for it).
"""

from __future__ import annotations

from evalkit.domains.hr.places import STATE_NAMES, STATES_SAID
from evalkit.domains.hr.workflows.steps import (
    CLEARANCE_FORM,
    DEA_FORM,
    FACILITY_FORM,
    LICENSE_FORM,
    NPI,
    POLICY_FORM,
    PRIVILEGE_FORM,
    STATE,
    codes_on_record,
    eligible,
    employee_auth,
    named,
    notify,
    otp,
    provider_auth,
    provider_profile,
    scheduling,
    whole,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Refuse, Say, Slot, Workflow

EHR_ACCESS = Derived(("access_change_type",), named({"restricted": "reactivate_restricted", "full": "reactivate_full"}))


def _same_facility(new: str, current: str) -> bool:
    return new.upper() == str(current).upper()


def _other_physician(npi: str, supervisor: str) -> str | None:
    """A provider cannot supervise themselves: their own NPI is no supervisor (the tool then asks for one)."""
    return None if supervisor == npi else supervisor


LICENSE_EXTENSION = Workflow(
    name="license_extension",
    description="A provider requests a provisional or supervised temporary extension of an expiring license.",
    intents=(
        "license extension",
        "extend my license",
        "license is expiring",
        "extension on my license",
        "temporary extension",
        "extension for my",
    ),
    steps=(
        *provider_auth(),
        provider_profile(),
        Ask(
            Slot(
                "state_license_number",
                "code",
                "What is the state license number?",
                label="license number",
                read_back=True,
                pattern=LICENSE_FORM,
            )
        ),
        Call("get_license_record", {"npi": "$npi", "state_license_number": "$state_license_number"}, name="license"),
        eligible(
            "check_extension_eligibility",
            {"npi": "$npi", "state_license_number": "$state_license_number"},
            "extension_check",
            ("already_extended", "investigation_hold", "license_expired", "extension_too_early"),
        ),
        Ask(
            Slot(
                "extension_type",
                "choice",
                "Do you want a provisional or a supervised extension type?",
                label="extension type",
                choices=("provisional", "supervised"),
            )
        ),
        Ask(
            Slot("extension_days", "number", "How long: 30, 60 or 90 days duration?", label="duration", read_back=True)
        ),
        Ask(
            Slot(
                "supervising_physician_npi",
                "digits",
                "What is the supervising physician's NPI?",
                label="supervising physician's NPI",
                length=10,
                read_back=True,
            ),
            when="$extension_type=supervised",
        ),
        Confirm(
            "I'll submit a {extension_type} extension of {extension_days} days for license {state_license_number}. "
            "Shall I go ahead?"
        ),
        Call(
            "submit_license_extension",
            {
                "npi": "$npi",
                "state_license_number": "$state_license_number",
                "extension_type": "$extension_type",
                "extension_days": Derived(("extension_days",), whole),
                "supervising_physician_npi": Derived(("npi", "supervising_physician_npi"), _other_physician),
            },
            name="extension",
            when="$extension_type=supervised",
            refuse_on=("supervising_physician_required", "supervising_physician_not_found"),
            refusal="I'm sorry, the supervising physician must be another provider on file.",
        ),
        Call(
            "submit_license_extension",
            {
                "npi": "$npi",
                "state_license_number": "$state_license_number",
                "extension_type": "$extension_type",
                "extension_days": Derived(("extension_days",), whole),
            },
            name="extension",
            when="!$extension_type=supervised",
        ),
        notify("notify_credentialing_committee", "extension", "license_extension_submitted", owner="npi"),
        Say("Your extension request {extension.case_id} is with the credentialing committee for review."),
    ),
)


MALPRACTICE_UPDATE = Workflow(
    name="malpractice_update",
    description="A provider replaces their malpractice carrier and limits; low limits flag re-credentialing.",
    intents=("malpractice", "malpractice coverage", "malpractice insurance", "update my coverage"),
    steps=(
        *provider_auth(),
        provider_profile(),
        Call("get_malpractice_record", {"npi": "$npi"}, name="current"),
        Ask(
            Slot(
                "new_carrier",
                "choice",
                "Who is the new carrier?",
                label="carrier",
                choices=("proassurance", "coverys", "the_doctors_company", "cna", "zurich", "mag_mutual"),
            )
        ),
        Ask(
            Slot(
                "new_policy_number",
                "code",
                "What is the new policy number?",
                label="new policy number",
                read_back=True,
                pattern=POLICY_FORM,
            )
        ),
        Ask(
            Slot(
                "per_occurrence_limit_usd",
                "number",
                "What is the per-occurrence limit?",
                label="per-occurrence",
                read_back=True,  # App. L: dollar amounts are read back before a change
            )
        ),
        Ask(Slot("aggregate_limit_usd", "number", "And the aggregate limit?", label="aggregate", read_back=True)),
        Ask(Slot("malpractice_effective_date", "date", "What is the policy's effective date?", label="effective date")),
        Ask(
            Slot(
                "malpractice_expiration_date",
                "date",
                "And the policy's expiration date?",
                label="expiration date",
            )
        ),
        Confirm("I'll update your coverage to policy {new_policy_number}. Shall I go ahead?"),
        Call(
            "update_malpractice_coverage",
            {
                "npi": "$npi",
                "new_carrier": "$new_carrier",
                "new_policy_number": "$new_policy_number",
                "per_occurrence_limit_usd": Derived(("per_occurrence_limit_usd",), whole),
                "aggregate_limit_usd": Derived(("aggregate_limit_usd",), whole),
                "effective_date": "$malpractice_effective_date",
                "expiration_date": "$malpractice_expiration_date",
            },
            name="coverage",
        ),
        notify("notify_credentialing_committee", "coverage", "malpractice_updated", owner="npi"),
        Say("Your coverage is updated, case {coverage.case_id}, and the credentialing committee has been notified."),
    ),
)


DEA_TRANSFER = Workflow(
    name="dea_transfer",
    description="A provider moves their DEA registration to a new facility and state; the PDMP is notified.",
    intents=("dea", "dea registration", "transfer my dea", "d e a"),
    steps=(
        *provider_auth(),
        *otp("$auth.employee_id"),
        provider_profile(),
        Ask(
            Slot("dea_number", "code", "What is your DEA number?", label="DEA number", read_back=True, pattern=DEA_FORM)
        ),
        Call("get_dea_record", {"npi": "$npi", "dea_number": "$dea_number"}, name="dea"),
        Ask(
            Slot(
                "new_facility_code",
                "code",
                "What is the new facility code?",
                label="new facility code",
                read_back=True,
                pattern=FACILITY_FORM,
            )
        ),
        # a transfer moves the registration to another facility: to the one it is at is no transfer
        Refuse(
            "I'm sorry, your DEA registration is already at that facility, so there is nothing to transfer.",
            when=Derived(("new_facility_code", "dea.dea_registration.facility_code"), _same_facility),
        ),
        Ask(
            Slot(
                "new_state_code",
                "text",
                "Which state is the new facility in?",
                label="which state",
                vocabulary=STATE_NAMES,
                said_as=STATES_SAID,
            )
        ),
        Ask(
            Slot(
                "transfer_reason",
                "choice",
                "Is the transfer reason a facility relocation, a role change or an additional practice site?",
                label="transfer reason",
                choices=("facility_relocation", "role_change", "additional_practice_site"),
            )
        ),
        Ask(
            Slot(
                "dea_transfer_effective_date",
                "date",
                "What is the effective date of the transfer?",
                label="effective date of the transfer",
            )
        ),
        Confirm("I'll transfer DEA registration {dea_number} to facility {new_facility_code}. Shall I go ahead?"),
        Call(
            "transfer_dea_registration",
            {
                "npi": "$npi",
                "dea_number": "$dea_number",
                "new_facility_code": "$new_facility_code",
                "new_state_code": STATE,
                "transfer_reason": "$transfer_reason",
                "effective_date": "$dea_transfer_effective_date",
            },
            name="transfer",
        ),
        Call(
            "notify_pdmp",
            {
                "npi": "$npi",
                "dea_number": "$dea_number",
                "state_code": "$transfer.new_state_code",
                "facility_code": "$transfer.new_facility_code",
            },
        ),
        Say("The transfer {transfer.case_id} is filed and the state PDMP has been notified."),
    ),
)


PRIVILEGE_REACTIVATION = Workflow(
    name="privilege_reactivation",
    description="A provider back from leave reactivates suspended privileges after a competency review is booked.",
    intents=("privileges", "reactivate", "clinical privileges", "back from leave"),
    steps=(
        *employee_auth(),
        *otp("$employee_id"),
        Ask(NPI),
        provider_profile(),
        Call("get_privilege_record", {"npi": "$npi"}, name="privileges"),
        Ask(
            Slot(
                "clearance_code",
                "code",
                "What is your occupational health clearance code?",
                label="clearance code",
                read_back=True,
                pattern=CLEARANCE_FORM,
            )
        ),
        eligible(
            "check_reactivation_eligibility",
            {"npi": "$npi", "clearance_code": "$clearance_code"},
            "reactivation_check",
            ("invalid_clearance_code",),
        ),
        *scheduling(
            "competency_review", "schedule_competency_review", "$profile.provider.department_code", {"npi": "$npi"}
        ),
        Ask(
            Slot(
                "privilege_codes",
                "text",
                "Which of the suspended privilege codes do you want reactivated?",
                label="privilege codes",
            )
        ),
        Ask(
            Slot(
                "leave_type_on_record",
                "choice",
                "Was your leave a medical leave, a personal leave or FMLA leave type?",
                label="leave type",
                choices=("medical_leave", "personal_leave", "fmla_leave"),
            )
        ),
        Confirm("I'll reactivate {privilege_codes}. Shall I go ahead?"),
        Call(
            "reactivate_privileges",
            {
                "npi": "$npi",
                "privilege_codes": Derived(
                    ("privilege_codes", "privileges.privileges.privilege_list"),
                    lambda text, listed: codes_on_record(text, listed, PRIVILEGE_FORM),
                ),
                "clearance_code": "$clearance_code",
                "leave_type_on_record": "$leave_type_on_record",
            },
            name="reactivated",
        ),
        notify("notify_credentialing_committee", "reactivated", "privilege_reactivation", owner="npi"),
        Ask(
            Slot(
                "access_change_type",
                "text",
                "Do you need full or restricted EHR access?",
                label="EHR access",
                vocabulary=("full access", "restricted access"),  # "restricted access" was heard "this trick to access"
                said_as=(("reactivate_full", "Full access"), ("reactivate_restricted", "Restricted access")),
            )
        ),
        Call(
            "update_ehr_access",
            {"npi": "$npi", "case_id": "$reactivated.case_id", "access_change_type": EHR_ACCESS},
        ),
        Say("Your privileges are active again, case {reactivated.case_id}, and your EHR access is updated."),
    ),
)
