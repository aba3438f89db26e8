"""Provider credentials: license extension, malpractice coverage, DEA registration transfer and clinical privilege
reactivation, each followed by its notification (credentialing committee, state PDMP) or EHR access change.

Policy the tools hold: a license extension only within 60 days before expiry (never once expired, pending or under
investigation) and a supervised one only with a supervising physician on file; per-occurrence malpractice limits
under $1,000,000 flag re-credentialing; DEA look-ups and transfers need the passcode on top of provider
verification; privileges reactivate only with the occupational-health clearance code on record.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from evalkit.domains.base import ToolError
from evalkit.domains.hr.tools.auth import Department, NpiArgs, appointment, book_slot, deep
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    AppointmentAt,
    Args,
    CaseId,
    ClearanceCode,
    DeaNumber,
    FacilityCode,
    IsoDate,
    Npi,
    PolicyNumber,
    PrivilegeCode,
    StateCode,
    StateLicense,
    authenticated,
    case_id,
    current_date,
    notified,
    provider,
)

EXTENSION_WINDOW_DAYS = 60
RECREDENTIAL_BELOW_USD = 1_000_000

# ---------------------------------------------------------------- licenses


class LicenseArgs(Args):
    npi: Npi
    state_license_number: StateLicense


def _license(db: dict[str, Any], npi: str, number: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = provider(db, npi)
    found = record.get("licenses", {}).get(number)
    if not found:
        raise ToolError("license_not_found", f"License {number} not found for NPI {npi}")
    return record, found


@REGISTRY.tool(LicenseArgs, writes=False, needs="provider_auth")
def get_license_record(db: dict[str, Any], args: LicenseArgs) -> dict[str, Any]:
    """One of the provider's state licenses: type, state, expiry, status and any extension."""
    return {"license": deep(_license(db, args.npi, args.state_license_number)[1])}


@REGISTRY.tool(LicenseArgs, writes=False, needs="provider_auth")
def check_extension_eligibility(db: dict[str, Any], args: LicenseArgs) -> dict[str, Any]:
    """Whether the license may get a temporary extension now."""
    _, lic = _license(db, args.npi, args.state_license_number)
    if lic.get("extension_status") == "pending":
        raise ToolError("already_extended", "An extension of this license is already pending")
    if lic.get("investigation_hold"):
        raise ToolError("investigation_hold", "The license is under investigation and cannot be extended")
    today, expiry = current_date(db), lic.get("expiration_date") or ""
    if today and expiry:
        days_left = (date.fromisoformat(expiry) - date.fromisoformat(today)).days
        if days_left < 0:
            raise ToolError(
                "license_expired", f"The license expired on {expiry}; an expired license cannot be extended."
            )
        if days_left > EXTENSION_WINDOW_DAYS:
            raise ToolError(
                "extension_too_early",
                f"The license expires in {days_left} days; extensions open {EXTENSION_WINDOW_DAYS} days before expiry.",
            )
    return {
        "eligible": True,
        "license_expiration_date": lic.get("expiration_date"),
        "message": "The license can be extended",
    }


class ExtensionArgs(Args):
    npi: Npi
    state_license_number: StateLicense
    extension_type: Literal["provisional", "supervised"]
    extension_days: Literal[30, 60, 90]
    supervising_physician_npi: Npi | None = None


@REGISTRY.tool(ExtensionArgs, writes=True, needs="provider_auth")
def submit_license_extension(db: dict[str, Any], args: ExtensionArgs) -> dict[str, Any]:
    """File a provisional or supervised extension (30, 60 or 90 days); a supervised one names the supervising
    physician's NPI."""
    record, lic = _license(db, args.npi, args.state_license_number)
    supervisor = args.supervising_physician_npi if args.extension_type == "supervised" else None
    if args.extension_type == "supervised":
        if not supervisor:
            raise ToolError("supervising_physician_required", "A supervised extension needs the supervisor's NPI")
        if supervisor not in db.get("providers", {}):
            raise ToolError("supervising_physician_not_found", f"No provider with NPI {supervisor}")
    case = case_id("LIC", record.get("employee_id", args.npi))
    lic.update(
        extension_status="pending",
        extension_type=args.extension_type,
        extension_days=args.extension_days,
        extension_case_id=case,
    )
    if supervisor:
        lic["supervising_physician_npi"] = supervisor
    return {
        "npi": args.npi,
        "state_license_number": args.state_license_number,
        "extension_type": args.extension_type,
        "extension_days": args.extension_days,
        "supervising_physician_npi": supervisor,
        "case_id": case,
        "message": f"{args.extension_type} extension filed, case {case}",
    }


class CredentialingNoticeArgs(Args):
    npi: Npi
    case_id: CaseId
    notification_type: Literal["license_extension_submitted", "malpractice_updated", "privilege_reactivation"]


@REGISTRY.tool(CredentialingNoticeArgs, writes=True, needs=("provider_auth", "otp_auth"))
def notify_credentialing_committee(db: dict[str, Any], args: CredentialingNoticeArgs) -> dict[str, Any]:
    """Tell the credentialing committee about a license, malpractice or privilege case."""
    provider(db, args.npi)
    message = f"Credentialing committee notified ({args.notification_type})"
    return notified(db, "credentialing_committee", args, message)


# ---------------------------------------------------------------- malpractice


def _malpractice(db: dict[str, Any], npi: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = provider(db, npi)
    found = record.get("malpractice")
    if not found:
        raise ToolError("record_not_found", f"No malpractice record on file for NPI {npi}")
    return record, found


@REGISTRY.tool(NpiArgs, writes=False, needs="provider_auth")
def get_malpractice_record(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """The provider's malpractice policy: carrier, number, limits and dates."""
    return {"malpractice": deep(_malpractice(db, args.npi)[1])}


class MalpracticeArgs(Args):
    npi: Npi
    new_carrier: Literal["proassurance", "coverys", "the_doctors_company", "cna", "zurich", "mag_mutual"]
    new_policy_number: PolicyNumber
    per_occurrence_limit_usd: int
    aggregate_limit_usd: int
    effective_date: IsoDate
    expiration_date: IsoDate


@REGISTRY.tool(MalpracticeArgs, writes=True, needs="provider_auth")
def update_malpractice_coverage(db: dict[str, Any], args: MalpracticeArgs) -> dict[str, Any]:
    """Replace the malpractice policy on file; a per-occurrence limit under $1,000,000 flags re-credentialing."""
    record, policy = _malpractice(db, args.npi)
    recredential = args.per_occurrence_limit_usd < RECREDENTIAL_BELOW_USD
    case = case_id("MAL", record.get("employee_id", args.npi))
    terms = {
        "carrier": args.new_carrier,
        "policy_number": args.new_policy_number,
        "per_occurrence_limit_usd": args.per_occurrence_limit_usd,
        "aggregate_limit_usd": args.aggregate_limit_usd,
        "effective_date": args.effective_date,
        "expiration_date": args.expiration_date,
    }
    policy.update(terms, recredential_required=recredential, update_case_id=case)
    message = "Malpractice coverage updated"
    if recredential:
        message += f"; the per-occurrence limit is under the minimum, so re-credentialing is required (case {case})"
    return {
        "npi": args.npi,
        **{("new_" + k if k in ("carrier", "policy_number") else k): v for k, v in terms.items()},
        "recredential_required": recredential,
        "case_id": case,
        "message": message,
    }


# ---------------------------------------------------------------- DEA registration


class DeaArgs(Args):
    npi: Npi
    dea_number: DeaNumber


def _dea(db: dict[str, Any], npi: str, number: str) -> tuple[dict[str, Any], dict[str, Any]]:
    authenticated(db, "provider_auth")
    if not db.get("session", {}).get("otp_auth"):
        raise ToolError("second_factor_required", "DEA records need the one-time passcode as a second factor")
    record = provider(db, npi)
    found = record.get("dea_registration")
    if not found or found.get("dea_number") != number:
        raise ToolError("dea_record_not_found", f"DEA number {number} not found for NPI {npi}")
    return record, found


@REGISTRY.tool(DeaArgs, writes=False)
def get_dea_record(db: dict[str, Any], args: DeaArgs) -> dict[str, Any]:
    """The provider's DEA registration (facility, state, schedules, expiry)."""
    return {"dea_registration": deep(_dea(db, args.npi, args.dea_number)[1])}


class DeaTransferArgs(Args):
    npi: Npi
    dea_number: DeaNumber
    new_facility_code: FacilityCode
    new_state_code: StateCode
    transfer_reason: Literal["facility_relocation", "role_change", "additional_practice_site"]
    effective_date: IsoDate


@REGISTRY.tool(DeaTransferArgs, writes=True)
def transfer_dea_registration(db: dict[str, Any], args: DeaTransferArgs) -> dict[str, Any]:
    """Move a DEA registration to a new facility and state from an effective date; the current registration stays
    until then (a pending transfer on the record)."""
    record, dea = _dea(db, args.npi, args.dea_number)
    case = case_id("DEA", record.get("employee_id", args.npi))
    dea["status"] = "transfer_pending"
    dea["pending_transfer"] = {
        "new_facility_code": args.new_facility_code,
        "new_state_code": args.new_state_code,
        "transfer_reason": args.transfer_reason,
        "effective_date": args.effective_date,
        "transfer_case_id": case,
    }
    return {
        "npi": args.npi,
        "dea_number": args.dea_number,
        "current_facility_code": dea.get("facility_code"),
        "current_state_code": dea.get("state_code"),
        **{k: v for k, v in dea["pending_transfer"].items() if k != "transfer_case_id"},
        "case_id": case,
        "message": f"DEA transfer filed, effective {args.effective_date}; case {case}",
    }


class PdmpArgs(Args):
    npi: Npi
    dea_number: DeaNumber
    state_code: StateCode
    facility_code: FacilityCode


@REGISTRY.tool(PdmpArgs, writes=True, needs="provider_auth")
def notify_pdmp(db: dict[str, Any], args: PdmpArgs) -> dict[str, Any]:
    """Tell the state's prescription drug monitoring program about a DEA transfer."""
    provider(db, args.npi)
    message = f"PDMP of {args.state_code} notified for facility {args.facility_code}"
    return notified(db, "pdmp", args, message, notification_type="dea_transfer")


# ---------------------------------------------------------------- clinical privileges


@REGISTRY.tool(NpiArgs, writes=False, needs="otp_auth")
def get_privilege_record(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """The provider's clinical privileges, each with its code and status."""
    record = provider(db, args.npi)
    if not record.get("privileges"):
        raise ToolError("privilege_record_not_found", f"No privilege record for NPI {args.npi}")
    return {"privileges": deep(record["privileges"])}


class ClearanceArgs(Args):
    npi: Npi
    clearance_code: ClearanceCode


def _cleared(db: dict[str, Any], npi: str, code: str) -> dict[str, Any]:
    authenticated(db, "otp_auth")
    record = provider(db, npi)
    if record.get("clearance_code") != code:
        raise ToolError("invalid_clearance_code", "The clearance code does not match occupational health's records")
    return record


@REGISTRY.tool(ClearanceArgs, writes=False)
def check_reactivation_eligibility(db: dict[str, Any], args: ClearanceArgs) -> dict[str, Any]:
    """Check the occupational-health clearance code and list the suspended privileges it allows reactivating."""
    record = _cleared(db, args.npi, args.clearance_code)
    suspended = [
        p["code"] for p in record.get("privileges", {}).get("privilege_list", []) if p.get("status") == "suspended"
    ]
    return {
        "eligible": True,
        "suspended_privilege_codes": suspended,
        "message": f"Clearance confirmed; {len(suspended)} suspended privilege(s) can be reactivated",
    }


class CompetencyArgs(Args):
    npi: Npi
    department_code: Department
    appointment_datetime: AppointmentAt


@REGISTRY.tool(CompetencyArgs, writes=True, needs="otp_auth")
def schedule_competency_review(db: dict[str, Any], args: CompetencyArgs) -> dict[str, Any]:
    """Book the competency review that precedes a privilege reactivation, in a free slot."""
    record = provider(db, args.npi)
    book_slot(db, "competency_review", args.department_code, args.appointment_datetime)
    booked = case_id("CMP", record.get("employee_id", args.npi))
    record.setdefault("scheduled_appointments", []).append(
        appointment("competency_review", booked, args.appointment_datetime, department_code=args.department_code)
    )
    return {
        "npi": args.npi,
        "appointment_id": booked,
        "department_code": args.department_code,
        "appointment_datetime": args.appointment_datetime,
        "message": f"Competency review booked for {args.appointment_datetime} ({booked})",
    }


class ReactivateArgs(Args):
    npi: Npi
    privilege_codes: list[PrivilegeCode]
    clearance_code: ClearanceCode
    leave_type_on_record: Literal["medical_leave", "personal_leave", "fmla_leave"]


@REGISTRY.tool(ReactivateArgs, writes=True)
def reactivate_privileges(db: dict[str, Any], args: ReactivateArgs) -> dict[str, Any]:
    """Set the named privileges active again (after the competency review is booked)."""
    record = _cleared(db, args.npi, args.clearance_code)
    held = {p.get("code"): p for p in record.get("privileges", {}).get("privilege_list", [])}
    unknown = [code for code in args.privilege_codes if code not in held]
    if unknown:
        raise ToolError("privilege_not_found", f"No privilege with code(s) {unknown}")
    for code in args.privilege_codes:
        held[code]["status"] = "active"
    case = case_id("PRV", record.get("employee_id", args.npi))
    record["privileges"]["reactivation_case_id"] = case
    return {
        "npi": args.npi,
        "activated_privileges": list(args.privilege_codes),
        "leave_type_on_record": args.leave_type_on_record,
        "case_id": case,
        "message": f"Privileges reactivated, case {case}",
    }


class EhrArgs(Args):
    npi: Npi
    case_id: CaseId
    access_change_type: Literal["reactivate_full", "reactivate_restricted"]


@REGISTRY.tool(EhrArgs, writes=True, needs="otp_auth")
def update_ehr_access(db: dict[str, Any], args: EhrArgs) -> dict[str, Any]:
    """Change the provider's EHR access after a privilege change."""
    record = provider(db, args.npi)
    record["ehr_access_status"] = args.access_change_type
    record["ehr_access_case_id"] = args.case_id
    return {**args.model_dump(), "message": f"EHR access set to {args.access_change_type}"}
