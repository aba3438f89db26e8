"""Provider credentials: state licenses and temporary extensions, the credentialing committee, malpractice
coverage and DEA registrations (with the PDMP notice)."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import field_validator

from evalkit.domains.base import ToolArgs, ToolError, session_of
from evalkit.domains.hr.tools.common import (
    REGISTRY,
    US_STATES,
    Code,
    NpiArgs,
    StateCode,
    _DateArgs,
    _notify,
    _require_own_provider,
    _require_provider,
    _today,
)

MIN_PER_OCCURRENCE = 1_000_000
EXTENSION_WINDOW_DAYS = 60
EXTENSION_DURATIONS = (30, 60, 90)


class LicenseArgs(ToolArgs):
    npi: str
    license_number: Code


def _license(db: dict[str, Any], npi: str, number: str) -> dict[str, Any]:
    record = db["licenses"].get(number)
    if record is None or record["npi"] != npi:
        raise ToolError("license_not_found", f"no license {number} for this provider")
    return record


@REGISTRY.tool(LicenseArgs, writes=False)
def get_license_record(db: dict[str, Any], args: LicenseArgs) -> dict[str, Any]:
    """A state license of the provider, with its expiration date and days to expiry."""
    _require_provider(db, args.npi)
    record = _license(db, args.npi, args.license_number)
    days = (date.fromisoformat(record["expiration_date"]) - _today(db)).days
    return {"license": record, "days_until_expiration": days}


class ExtensionArgs(ToolArgs):
    npi: str
    license_number: Code
    extension_type: Literal["provisional", "supervised"]
    duration_days: int
    supervising_physician_npi: str | None = None

    @field_validator("duration_days")
    @classmethod
    def _duration(cls, value: int) -> int:
        if value not in EXTENSION_DURATIONS:
            raise ValueError("extensions are exactly 30, 60 or 90 days")
        return value


def extension_eligibility(db: dict[str, Any], args: ExtensionArgs) -> tuple[bool, str]:
    """Policy: within 60 days of expiry, not expired, supervised needs another credentialed physician."""
    record = _license(db, args.npi, args.license_number)
    days = (date.fromisoformat(record["expiration_date"]) - _today(db)).days
    if days < 0:
        return False, "the license has already expired; extensions cannot be requested for expired licenses"
    if days > EXTENSION_WINDOW_DAYS:
        return False, f"the license expires in {days} days; extensions open 60 days before expiration"
    if record.get("extension"):
        return False, "an extension request is already pending for this license"
    if args.extension_type == "supervised":
        supervisor = args.supervising_physician_npi
        if not supervisor:  # the other criteria hold; the check tool says a supervisor NPI is still needed
            return True, "eligible once a supervising physician NPI is given"
        if supervisor == args.npi:
            return False, "a provider cannot supervise their own extension"
        other = db["providers"].get(supervisor)
        if other is None or other.get("provider_type") != "physician" or other.get("status") != "active":
            return False, "the supervising NPI is not an active credentialed physician"
    return True, "eligible"


@REGISTRY.tool(ExtensionArgs, writes=False)
def check_extension_eligibility(db: dict[str, Any], args: ExtensionArgs) -> dict[str, Any]:
    """Whether a license extension of this type and duration may be requested."""
    _require_provider(db, args.npi)
    eligible, reason = extension_eligibility(db, args)
    needs = eligible and args.extension_type == "supervised" and not args.supervising_physician_npi
    return {"eligible": eligible, "reason": reason, "supervisor_required": needs}


@REGISTRY.tool(ExtensionArgs, writes=True)
def submit_license_extension(db: dict[str, Any], args: ExtensionArgs) -> dict[str, Any]:
    """Submit a provisional or supervised temporary license extension for committee review."""
    _require_provider(db, args.npi)
    eligible, reason = extension_eligibility(db, args)
    if args.extension_type == "supervised" and not args.supervising_physician_npi:
        eligible, reason = False, "a supervised extension needs a supervising physician NPI"
    if not eligible:
        raise ToolError("not_eligible", reason)
    record = db["licenses"][args.license_number]
    extension_id = f"EXT{len(db['license_extensions']) + 1:03d}{args.license_number[-4:]}"
    extension = {
        "extension_id": extension_id,
        "license_number": args.license_number,
        "npi": args.npi,
        "extension_type": args.extension_type,
        "duration_days": args.duration_days,
        "supervising_physician_npi": args.supervising_physician_npi if args.extension_type == "supervised" else None,
        "status": "pending_committee_review",
    }
    db["license_extensions"][extension_id] = extension
    record["extension"] = extension_id
    return {"extension_id": extension_id, "extension": extension}


class CredentialingNoticeArgs(ToolArgs):
    npi: str
    case_id: str
    notification_type: Literal[
        "license_extension", "malpractice_update", "recredentialing_review", "privileges_reactivated"
    ]


@REGISTRY.tool(CredentialingNoticeArgs, writes=True)
def notify_credentialing_committee(db: dict[str, Any], args: CredentialingNoticeArgs) -> dict[str, Any]:
    """Tell the credentialing committee about a credential, privilege or coverage change."""
    _require_own_provider(db, args.npi)
    return _notify(
        db, "credentialing_committee", npi=args.npi, case_id=args.case_id, notification_type=args.notification_type
    )


# ---------------------------------------------------------------- malpractice


@REGISTRY.tool(NpiArgs, writes=False)
def get_malpractice_record(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """The provider's current malpractice policy (carrier, policy number, limits)."""
    _require_provider(db, args.npi)
    record = db["malpractice"].get(args.npi)
    if record is None:
        raise ToolError("malpractice_not_found", "no malpractice policy on file")
    return {"malpractice": record}


Carrier = Literal["coverys", "medpro", "the_doctors_company", "proassurance", "magmutual"]


class MalpracticeArgs(_DateArgs):
    npi: str
    carrier: Carrier
    policy_number: Code
    per_occurrence_limit: int
    aggregate_limit: int
    effective_date: str


@REGISTRY.tool(MalpracticeArgs, writes=True)
def update_malpractice_coverage(db: dict[str, Any], args: MalpracticeArgs) -> dict[str, Any]:
    """Replace the malpractice policy; a per-occurrence limit under $1,000,000 opens re-credentialing."""
    _require_provider(db, args.npi)
    record = db["malpractice"].get(args.npi)
    if record is None:
        raise ToolError("malpractice_not_found", "no malpractice policy on file")
    if args.policy_number == record["policy_number"]:
        raise ToolError("same_policy_number", "the new policy number is the one already on file")
    if args.aggregate_limit < args.per_occurrence_limit:
        raise ToolError("invalid_limits", "the aggregate limit cannot be below the per-occurrence limit")
    record.update(
        carrier=args.carrier,
        policy_number=args.policy_number,
        effective_date=args.effective_date,
        per_occurrence_limit=args.per_occurrence_limit,
        aggregate_limit=args.aggregate_limit,
    )
    case = None
    if args.per_occurrence_limit < MIN_PER_OCCURRENCE:
        case = f"RCR{args.npi[-5:]}{len(db['recredentialing_cases']) + 1:02d}"
        db["recredentialing_cases"][case] = {"case_id": case, "npi": args.npi, "reason": "coverage_below_minimum"}
    record["recredentialing_case"] = case
    return {
        "updated": True,
        "policy_number": args.policy_number,
        "recredentialing_required": case is not None,
        "recredentialing_case_id": case,
        "case_id": case or args.policy_number,
    }


# ---------------------------------------------------------------- DEA


class DeaArgs(ToolArgs):
    npi: str
    dea_number: Code


def _dea(db: dict[str, Any], npi: str, number: str) -> dict[str, Any]:
    _require_provider(db, npi)
    provider = db["providers"][npi]
    if session_of(db).get("otp_verified_for") != provider["employee_id"]:
        raise ToolError("otp_required", "Authentication (otp_auth) must be completed before calling this tool")
    record = db["dea_registrations"].get(number)
    if record is None or record["npi"] != npi:
        raise ToolError("dea_not_found", f"no DEA registration {number} for this provider")
    return record


@REGISTRY.tool(DeaArgs, writes=False)
def get_dea_record(db: dict[str, Any], args: DeaArgs) -> dict[str, Any]:
    """The provider's DEA registration (state, facility, schedules, expiry); needs provider auth and OTP."""
    return {"dea": _dea(db, args.npi, args.dea_number)}


class DeaTransferArgs(ToolArgs):
    npi: str
    dea_number: Code
    new_facility_code: Code
    new_state: StateCode

    @field_validator("new_state")
    @classmethod
    def _two_letters(cls, value: str) -> str:
        if value not in US_STATES.values():
            raise ValueError("the state must be a two-letter US state abbreviation")
        return value


@REGISTRY.tool(DeaTransferArgs, writes=True)
def transfer_dea_registration(db: dict[str, Any], args: DeaTransferArgs) -> dict[str, Any]:
    """Move a DEA registration to a new facility and state."""
    record = _dea(db, args.npi, args.dea_number)
    if record["status"] != "active":
        raise ToolError("not_eligible", f"the registration is {record['status']}")
    if args.new_facility_code not in db["facilities"]:
        raise ToolError("facility_not_found", f"no facility with code {args.new_facility_code}")
    if (args.new_facility_code, args.new_state) == (record["facility_code"], record["state"]):
        raise ToolError("same_facility", "the registration is already at this facility")
    transfer_id = f"DEAT{len(db['dea_transfers']) + 1:02d}{args.dea_number[-4:]}"
    db["dea_transfers"][transfer_id] = {
        "transfer_id": transfer_id,
        "dea_number": args.dea_number,
        "from_state": record["state"],
        "from_facility": record["facility_code"],
        "to_state": args.new_state,
        "to_facility": args.new_facility_code,
    }
    record.update(state=args.new_state, facility_code=args.new_facility_code, status="transfer_pending")
    return {
        "transfer_id": transfer_id,
        "dea_number": args.dea_number,
        "new_state": args.new_state,
        "new_facility_code": args.new_facility_code,
    }


class PdmpArgs(ToolArgs):
    npi: str
    dea_number: Code
    state: StateCode
    facility_code: Code
    transfer_id: str


@REGISTRY.tool(PdmpArgs, writes=True)
def notify_pdmp(db: dict[str, Any], args: PdmpArgs) -> dict[str, Any]:
    """Tell the state prescription drug monitoring program about a DEA transfer."""
    _dea(db, args.npi, args.dea_number)
    return _notify(
        db,
        f"pdmp_{args.state}",
        npi=args.npi,
        dea_number=args.dea_number,
        facility_code=args.facility_code,
        case_id=args.transfer_id,
    )
