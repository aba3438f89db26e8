"""Healthcare HRSD tools (names after EVA-Bench Table 43; policy after the HRSD agent prompt, App. L.6).

The policy lives here, in the executor, so an agent that skips a rule is caught by the tools rather than trusted:

- authentication tiers: employee (employee ID + date of birth), provider (NPI + facility code + 4-digit PIN,
  which also satisfies employee flows), and a one-time passcode after either for leave, privileges, visa and DEA;
  every record tool refuses with ``authentication_required`` / ``otp_required`` until the tier is met;
- eligibility tools answer ``eligible`` true/false with a ``reason`` (the workflow's policy boundary), and the
  matching write tool re-checks the same rule, so a write that skips the check fails with ``not_eligible``:
  license extensions only within 60 days of expiry, never for an expired license, for exactly 30/60/90 days,
  never self-supervised; FMLA needs 12 months and 1,250 hours, no backdated start, within the weeks remaining;
  payroll corrections only on the caller's own timesheet of an open pay period; swaps and on-call need the unit's
  certifications; PTO within balance and outside department blackouts;
- malpractice per-occurrence limits under $1,000,000 open a re-credentialing case;
- appointments only in slots the availability table offers.

Every tool is a pure function of (db, args); "today" is ``db["meta"]["today"]`` so runs are reproducible.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, session_of
from evalkit.spoken import MONTHS

REGISTRY = ToolRegistry()

MIN_PER_OCCURRENCE = 1_000_000
EXTENSION_WINDOW_DAYS = 60
EXTENSION_DURATIONS = (30, 60, 90)
FMLA_MIN_MONTHS = 12
FMLA_MIN_HOURS = 1250
FMLA_WEEKS = 12

# Hand-written: no dependency-free library maps spoken state/country names to codes; the lists cover what callers say.
US_STATES = {
    "alabama": "AL",
    "alaska": "AK",
    "arizona": "AZ",
    "arkansas": "AR",
    "california": "CA",
    "colorado": "CO",
    "connecticut": "CT",
    "delaware": "DE",
    "florida": "FL",
    "georgia": "GA",
    "hawaii": "HI",
    "idaho": "ID",
    "illinois": "IL",
    "indiana": "IN",
    "iowa": "IA",
    "kansas": "KS",
    "kentucky": "KY",
    "louisiana": "LA",
    "maine": "ME",
    "maryland": "MD",
    "massachusetts": "MA",
    "michigan": "MI",
    "minnesota": "MN",
    "mississippi": "MS",
    "missouri": "MO",
    "montana": "MT",
    "nebraska": "NE",
    "nevada": "NV",
    "new hampshire": "NH",
    "new jersey": "NJ",
    "new mexico": "NM",
    "new york": "NY",
    "north carolina": "NC",
    "north dakota": "ND",
    "ohio": "OH",
    "oklahoma": "OK",
    "oregon": "OR",
    "pennsylvania": "PA",
    "rhode island": "RI",
    "south carolina": "SC",
    "south dakota": "SD",
    "tennessee": "TN",
    "texas": "TX",
    "utah": "UT",
    "vermont": "VT",
    "virginia": "VA",
    "washington": "WA",
    "west virginia": "WV",
    "wisconsin": "WI",
    "wyoming": "WY",
}
COUNTRIES = {
    "united states": "US",
    "usa": "US",
    "india": "IN",
    "china": "CN",
    "mexico": "MX",
    "philippines": "PH",
    "nigeria": "NG",
    "canada": "CA",
    "united kingdom": "GB",
    "vietnam": "VN",
    "brazil": "BR",
    "pakistan": "PK",
    "south korea": "KR",
    "korea": "KR",
    "egypt": "EG",
    "france": "FR",
    "germany": "DE",
    "ghana": "GH",
    "kenya": "KE",
    "colombia": "CO",
    "haiti": "HT",
    "jamaica": "JM",
    "poland": "PL",
    "ukraine": "UA",
}


def normalize_date(value: Any) -> Any:
    """ISO or spoken-form dates ('February 14, 1991', 'February 14th 1991') -> ISO, because dates of birth and
    document expiries lie in other years than the call and so reach the tool as the caller's words."""
    if not isinstance(value, str):
        return value
    text = value.strip().rstrip(".")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    match = re.search(r"([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text)
    if match and match.group(1).lower() in MONTHS:
        month = MONTHS[match.group(1).lower()]
        try:
            return date(int(match.group(3)), month, int(match.group(2))).isoformat()
        except ValueError:
            return value
    return value


def _iso(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError as exc:
        raise ValueError(f"not a date: {value!r} (use YYYY-MM-DD or 'Month D, YYYY')") from exc


def _place(value: str) -> str:
    """'The Philippines.' -> 'philippines': callers' words, as ASR writes them, for the name tables."""
    return re.sub(r"[^a-z ]", "", value.lower()).strip().removeprefix("the ").strip()


def _state(value: Any) -> Any:
    if isinstance(value, str):
        return US_STATES.get(_place(value), value.strip().rstrip(".").upper())
    return value


def _country(value: Any) -> Any:
    if isinstance(value, str):
        return COUNTRIES.get(_place(value), value.strip().rstrip(".").upper())
    return value


IsoDate = Annotated[str, BeforeValidator(normalize_date)]
StateCode = Annotated[str, BeforeValidator(_state)]
CountryCode = Annotated[str, BeforeValidator(_country)]


class _DateArgs(ToolArgs):
    """Validates every ``*date*`` field as a real date (after spoken-form normalisation)."""

    @field_validator("*", mode="after")
    @classmethod
    def _dates(cls, value: Any, info: Any) -> Any:
        if isinstance(value, str) and "date" in (info.field_name or ""):
            return _iso(value)
        return value


def _upper(value: Any) -> Any:
    return value.strip().upper().replace("-", "").replace(" ", "") if isinstance(value, str) else value


Code = Annotated[str, BeforeValidator(_upper)]


def _today(db: dict[str, Any]) -> date:
    return date.fromisoformat(db["meta"]["today"])


# ---------------------------------------------------------------- entity lookups and authentication tiers


def _employee(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    employee = db["employees"].get(employee_id)
    if employee is None:
        raise ToolError("employee_not_found", f"no employee with ID {employee_id}")
    return employee


def _provider(db: dict[str, Any], npi: str) -> dict[str, Any]:
    provider = db["providers"].get(npi)
    if provider is None:
        raise ToolError("provider_not_found", f"no provider with NPI {npi}")
    return provider


def _require_employee(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    """Employee tier: verify_employee_auth, or verify_provider_auth of a provider with this employee ID."""
    employee = _employee(db, employee_id)
    if session_of(db).get("employee_id") != employee_id:
        raise ToolError(
            "authentication_required",
            "Authentication (employee_auth) must be completed for this employee before calling this tool",
        )
    return employee


def _require_otp(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    employee = _require_employee(db, employee_id)
    if session_of(db).get("otp_verified_for") != employee_id:
        raise ToolError("otp_required", "Authentication (otp_auth) must be completed before calling this tool")
    return employee


def _require_provider(db: dict[str, Any], npi: str) -> dict[str, Any]:
    provider = _provider(db, npi)
    if session_of(db).get("provider_npi") != npi:
        raise ToolError(
            "authentication_required", "Authentication (provider_auth) must be completed before calling this tool"
        )
    return provider


def _require_own_provider(db: dict[str, Any], npi: str) -> dict[str, Any]:
    """A provider record the authenticated caller owns (provider auth, or employee auth of its employee)."""
    provider = _provider(db, npi)
    if session_of(db).get("provider_npi") != npi and session_of(db).get("employee_id") != provider["employee_id"]:
        raise ToolError("authentication_required", "the caller is not authenticated as this provider")
    return provider


def _notify(db: dict[str, Any], recipient: str, **fields: Any) -> dict[str, Any]:
    notification_id = f"NTF{len(db['notifications']) + 1:04d}"
    db["notifications"].append({"notification_id": notification_id, "recipient": recipient, **fields})
    return {"notification_id": notification_id, "recipient": recipient, "notified": True}


# ---------------------------------------------------------------- authentication


class EmployeeAuthArgs(ToolArgs):
    employee_id: Code
    date_of_birth: IsoDate


@REGISTRY.tool(EmployeeAuthArgs, writes=False)
def verify_employee_auth(db: dict[str, Any], args: EmployeeAuthArgs) -> dict[str, Any]:
    """Standard verification: employee ID and date of birth."""
    employee = _employee(db, args.employee_id)
    if employee["date_of_birth"] != args.date_of_birth:
        return {"authenticated": False, "reason": "the date of birth does not match our records"}
    session_of(db).update(employee_id=employee["employee_id"])
    return {
        "authenticated": True,
        "employee_id": employee["employee_id"],
        "name": f"{employee['first_name']} {employee['last_name']}",
    }


class ProviderAuthArgs(ToolArgs):
    npi: Annotated[str, BeforeValidator(_upper)]
    facility_code: Code
    pin: str

    @field_validator("npi")
    @classmethod
    def _npi(cls, value: str) -> str:
        if not re.fullmatch(r"\d{10}", value):
            raise ValueError("an NPI is 10 digits")
        return value

    @field_validator("pin")
    @classmethod
    def _pin(cls, value: str) -> str:
        if not re.fullmatch(r"\d{4}", value):
            raise ValueError("the PIN is 4 digits")
        return value


@REGISTRY.tool(ProviderAuthArgs, writes=False)
def verify_provider_auth(db: dict[str, Any], args: ProviderAuthArgs) -> dict[str, Any]:
    """Provider verification: NPI, home facility code and 4-digit PIN (also satisfies employee flows)."""
    provider = _provider(db, args.npi)
    if provider["facility_code"] != args.facility_code or provider["pin"] != args.pin:
        return {"authenticated": False, "reason": "the facility code or PIN does not match our records"}
    session_of(db).update(employee_id=provider["employee_id"], provider_npi=provider["npi"])
    employee = _employee(db, provider["employee_id"])
    return {
        "authenticated": True,
        "npi": provider["npi"],
        "employee_id": provider["employee_id"],
        "name": f"{employee['first_name']} {employee['last_name']}",
    }


class EmployeeArgs(ToolArgs):
    employee_id: Code


@REGISTRY.tool(EmployeeArgs, writes=False)
def initiate_otp_auth(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Send a one-time passcode to the phone on file (after employee or provider verification)."""
    employee = _require_employee(db, args.employee_id)
    db["otp"][args.employee_id]["sent"] = True
    return {"otp_sent": True, "phone_last_four": employee["phone_last_four"]}


class OtpArgs(ToolArgs):
    employee_id: Code
    otp_code: str

    @field_validator("otp_code")
    @classmethod
    def _six(cls, value: str) -> str:
        if not re.fullmatch(r"\d{6}", value):
            raise ValueError("the passcode is 6 digits")
        return value


@REGISTRY.tool(OtpArgs, writes=False)
def verify_otp_auth(db: dict[str, Any], args: OtpArgs) -> dict[str, Any]:
    """Check the 6-digit passcode the caller read from their text message."""
    _require_employee(db, args.employee_id)
    otp = db["otp"][args.employee_id]
    if not otp.get("sent"):
        raise ToolError("otp_not_initiated", "initiate_otp_auth must be called first")
    if otp["code"] != args.otp_code:
        return {"verified": False, "reason": "the passcode does not match"}
    session_of(db).update(otp_verified_for=args.employee_id)
    return {"verified": True}


# ---------------------------------------------------------------- record lookups


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_employee_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's HR record (department, role, unit, hire date, status)."""
    employee = _require_employee(db, args.employee_id)
    public = {k: v for k, v in employee.items() if k not in ("date_of_birth", "certifications")}
    return {"employee": public}


class NpiArgs(ToolArgs):
    npi: str


@REGISTRY.tool(NpiArgs, writes=False)
def get_provider_profile(db: dict[str, Any], args: NpiArgs) -> dict[str, Any]:
    """The provider's credentialing profile: specialty, privileges and their status, EHR access."""
    provider = _require_own_provider(db, args.npi)
    return {"provider": {k: v for k, v in provider.items() if k not in ("pin", "clearance_code")}}


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


# ---------------------------------------------------------------- shifts and swaps


class ShiftArgs(ToolArgs):
    employee_id: Code
    shift_id: Code


def _shift(db: dict[str, Any], shift_id: str) -> dict[str, Any]:
    shift = db["shifts"].get(shift_id)
    if shift is None:
        raise ToolError("shift_not_found", f"no shift {shift_id}")
    return shift


def _own_shift(db: dict[str, Any], employee_id: str, shift_id: str) -> dict[str, Any]:
    _require_employee(db, employee_id)
    shift = _shift(db, shift_id)
    if shift["employee_id"] != employee_id:
        raise ToolError("shift_not_found", f"shift {shift_id} is not assigned to you")
    return shift


@REGISTRY.tool(ShiftArgs, writes=False)
def get_shift_record(db: dict[str, Any], args: ShiftArgs) -> dict[str, Any]:
    """One of the caller's shifts: unit, date and times."""
    return {"shift": _own_shift(db, args.employee_id, args.shift_id)}


class SwapArgs(ToolArgs):
    employee_id: Code
    shift_id: Code
    colleague_employee_id: Code


def _missing_certifications(db: dict[str, Any], employee_id: str, unit_code: str) -> list[str]:
    required = db["units"][unit_code]["required_certifications"]
    held = set(_employee(db, employee_id)["certifications"])
    return [c for c in required if c not in held]


def swap_eligibility(db: dict[str, Any], args: SwapArgs) -> tuple[bool, str]:
    shift = _own_shift(db, args.employee_id, args.shift_id)
    colleague = _employee(db, args.colleague_employee_id)
    if args.colleague_employee_id == args.employee_id:
        return False, "the colleague must be a different employee"
    if date.fromisoformat(shift["date"]) <= _today(db):
        return False, "only future shifts can be swapped"
    if colleague["employment_status"] != "active":
        return False, "the colleague is not currently active"
    if any(s["employee_id"] == colleague["employee_id"] and s["date"] == shift["date"] for s in db["shifts"].values()):
        return False, "the colleague already works a shift that day"
    return True, "eligible"


@REGISTRY.tool(SwapArgs, writes=False)
def check_swap_eligibility(db: dict[str, Any], args: SwapArgs) -> dict[str, Any]:
    """Whether the shift can go to this colleague (future shift, active colleague, no clash)."""
    eligible, reason = swap_eligibility(db, args)
    return {"eligible": eligible, "reason": reason}


class ColleagueCertArgs(ToolArgs):
    shift_id: Code
    colleague_employee_id: Code


@REGISTRY.tool(ColleagueCertArgs, writes=False)
def verify_colleague_certifications(db: dict[str, Any], args: ColleagueCertArgs) -> dict[str, Any]:
    """Whether the colleague holds every certification the shift's unit requires."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "Authentication must be completed before calling this tool")
    shift = _shift(db, args.shift_id)
    _employee(db, args.colleague_employee_id)
    missing = _missing_certifications(db, args.colleague_employee_id, shift["unit_code"])
    return {
        "all_certified": not missing,
        "required": db["units"][shift["unit_code"]]["required_certifications"],
        "missing": missing,
    }


@REGISTRY.tool(SwapArgs, writes=True)
def confirm_shift_swap(db: dict[str, Any], args: SwapArgs) -> dict[str, Any]:
    """Hand the shift to the colleague (re-checks eligibility and certifications)."""
    eligible, reason = swap_eligibility(db, args)
    if not eligible:
        raise ToolError("not_eligible", reason)
    shift = db["shifts"][args.shift_id]
    if _missing_certifications(db, args.colleague_employee_id, shift["unit_code"]):
        raise ToolError("not_eligible", "the colleague lacks certifications the unit requires")
    swap_id = f"SWP{len(db['shift_swaps']) + 1:02d}{args.shift_id[-4:]}"
    db["shift_swaps"][swap_id] = {
        "swap_id": swap_id,
        "shift_id": args.shift_id,
        "from": args.employee_id,
        "to": args.colleague_employee_id,
    }
    shift.update(employee_id=args.colleague_employee_id, swapped_from=args.employee_id)
    return {"swap_id": swap_id, "shift_id": args.shift_id, "new_employee_id": args.colleague_employee_id}


class ManagerNoticeArgs(ToolArgs):
    employee_id: Code
    case_id: str
    notification_type: Literal["shift_swap", "fmla_opened", "payroll_correction", "pto_request", "oncall_registration"]


@REGISTRY.tool(ManagerNoticeArgs, writes=True)
def notify_department_manager(db: dict[str, Any], args: ManagerNoticeArgs) -> dict[str, Any]:
    """Tell the employee's department manager about a schedule, leave or payroll change."""
    employee = _require_employee(db, args.employee_id)
    return _notify(
        db,
        f"manager_{employee['department_code']}",
        employee_id=args.employee_id,
        case_id=args.case_id,
        notification_type=args.notification_type,
    )


# ---------------------------------------------------------------- onboarding and appointments


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_onboarding_checklist(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The new hire's onboarding tasks and their status (never the completion codes)."""
    _require_employee(db, args.employee_id)
    tasks = db["onboarding"].get(args.employee_id, [])
    return {"tasks": [{k: v for k, v in t.items() if k != "completion_code"} for t in tasks]}


OnboardingTask = Literal[
    "hipaa_training", "bls_certification", "badge_photo", "ehr_training", "tb_screening", "fit_test"
]


class CompleteTaskArgs(ToolArgs):
    employee_id: Code
    task_id: OnboardingTask
    completion_code: Code


@REGISTRY.tool(CompleteTaskArgs, writes=True)
def complete_onboarding_task(db: dict[str, Any], args: CompleteTaskArgs) -> dict[str, Any]:
    """Mark a pending onboarding task done after checking its 4-character completion code."""
    _require_employee(db, args.employee_id)
    task = next((t for t in db["onboarding"].get(args.employee_id, []) if t["task_id"] == args.task_id), None)
    if task is None:
        raise ToolError("task_not_found", f"{args.task_id} is not on your checklist")
    if task["status"] != "pending":
        raise ToolError("task_not_pending", f"{args.task_id} is already {task['status']}")
    if task["completion_code"] != args.completion_code:
        raise ToolError("invalid_completion_code", "the completion code does not match this task")
    task["status"] = "completed"
    return {"task_id": args.task_id, "task_status": "completed"}


AppointmentType = Literal["orientation_followup", "return_to_work_checkin", "competency_review"]


class AvailabilityArgs(_DateArgs):
    department_code: Code
    appointment_type: AppointmentType
    preferred_date: str


@REGISTRY.tool(AvailabilityArgs, writes=False)
def check_appointment_availability(db: dict[str, Any], args: AvailabilityArgs) -> dict[str, Any]:
    """Open time slots on the preferred date, or the dates that have any when it has none."""
    if not session_of(db).get("employee_id"):
        raise ToolError("authentication_required", "Authentication must be completed before calling this tool")
    calendar = db["appointment_slots"].get(args.department_code, {}).get(args.appointment_type, {})
    slots = calendar.get(args.preferred_date, [])
    alternatives = [] if slots else sorted(d for d, times in calendar.items() if times)[:3]
    return {"date": args.preferred_date, "available_slots": slots, "alternative_dates": alternatives}


def _book(
    db: dict[str, Any], kind: str, employee_id: str, department: str, day: str, time: str, **extra: Any
) -> dict[str, Any]:
    slots = db["appointment_slots"].get(department, {}).get(kind, {}).get(day, [])
    if time not in slots:
        raise ToolError("slot_unavailable", f"{day} {time} is not an open {kind} slot; check availability first")
    slots.remove(time)
    appointment_id = f"APT{len(db['appointments']) + 1:03d}{employee_id[-4:]}"
    db["appointments"][appointment_id] = {
        "appointment_id": appointment_id,
        "type": kind,
        "employee_id": employee_id,
        "department_code": department,
        "date": day,
        "time": time,
        **extra,
    }
    return {"appointment_id": appointment_id, "appointment_date": day, "appointment_time": time}


class TimeField(ToolArgs):
    @field_validator("appointment_time", check_fields=False)
    @classmethod
    def _hhmm(cls, value: str) -> str:
        if not re.fullmatch(r"\d{2}:\d{2}", value):
            raise ValueError("times are HH:MM (24 h)")
        return value


class OrientationArgs(_DateArgs, TimeField):
    employee_id: Code
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(OrientationArgs, writes=True)
def schedule_orientation_followup(db: dict[str, Any], args: OrientationArgs) -> dict[str, Any]:
    """Book the new hire's orientation follow-up in an open slot."""
    _require_employee(db, args.employee_id)
    return _book(
        db, "orientation_followup", args.employee_id, args.department_code, args.appointment_date, args.appointment_time
    )


# ---------------------------------------------------------------- FMLA


class LeaveEligibilityArgs(_DateArgs):
    employee_id: Code
    leave_start_date: str | None = None
    leave_end_date: str | None = None


def leave_eligibility(
    db: dict[str, Any], employee: dict[str, Any], start: str | None, end: str | None
) -> tuple[bool, str]:
    """FMLA: 12 months employed and 1,250 hours in the past year; with dates, no backdating and within balance."""
    if employee["months_employed"] < FMLA_MIN_MONTHS:
        return False, f"employed {employee['months_employed']} months; FMLA needs at least 12"
    if employee["hours_worked_past_year"] < FMLA_MIN_HOURS:
        return False, f"{employee['hours_worked_past_year']} hours worked in the past year; FMLA needs 1,250"
    if start and end:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
        if first < _today(db):
            return False, "the leave start date has already passed; leave cannot be backdated"
        if last < first:
            return False, "the leave end date is before the start date"
        weeks = ((last - first).days + 1) / 7
        if weeks > employee["fmla_weeks_remaining"]:
            return False, f"{weeks:.1f} weeks requested but only {employee['fmla_weeks_remaining']} weeks remain"
    return True, "eligible"


@REGISTRY.tool(LeaveEligibilityArgs, writes=False)
def check_leave_eligibility(db: dict[str, Any], args: LeaveEligibilityArgs) -> dict[str, Any]:
    """FMLA eligibility (tenure and hours), and with dates also no backdating and within the weeks left."""
    employee = _require_otp(db, args.employee_id)
    eligible, reason = leave_eligibility(db, employee, args.leave_start_date, args.leave_end_date)
    return {
        "eligible": eligible,
        "reason": reason,
        "months_employed": employee["months_employed"],
        "hours_worked_past_year": employee["hours_worked_past_year"],
        "fmla_weeks_remaining": employee["fmla_weeks_remaining"],
    }


LeaveCategory = Literal["employee_medical_condition", "family_member_serious_illness", "bonding", "military_exigency"]


class FmlaArgs(_DateArgs):
    employee_id: Code
    leave_category: LeaveCategory
    leave_start_date: str
    leave_end_date: str


@REGISTRY.tool(FmlaArgs, writes=True)
def submit_fmla_case(db: dict[str, Any], args: FmlaArgs) -> dict[str, Any]:
    """Open an FMLA leave case (re-checks eligibility, backdating and balance)."""
    employee = _require_otp(db, args.employee_id)
    eligible, reason = leave_eligibility(db, employee, args.leave_start_date, args.leave_end_date)
    if not eligible:
        raise ToolError("not_eligible", reason)
    case_id = f"CASEFMLA{args.employee_id[3:]}{len(db['fmla_cases']) + 1}"
    db["fmla_cases"][case_id] = {
        "case_id": case_id,
        "employee_id": args.employee_id,
        "leave_category": args.leave_category,
        "leave_start_date": args.leave_start_date,
        "leave_end_date": args.leave_end_date,
        "status": "open",
    }
    return {"case_id": case_id, "leave_end_date": args.leave_end_date}


class ReturnToWorkArgs(_DateArgs, TimeField):
    employee_id: Code
    case_id: str
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(ReturnToWorkArgs, writes=True)
def schedule_return_to_work_checkin(db: dict[str, Any], args: ReturnToWorkArgs) -> dict[str, Any]:
    """Book the return-to-work check-in, on or after the leave end date."""
    _require_otp(db, args.employee_id)
    case = db["fmla_cases"].get(args.case_id)
    if case is None or case["employee_id"] != args.employee_id:
        raise ToolError("case_not_found", f"no leave case {args.case_id} for this employee")
    if args.appointment_date < case["leave_end_date"]:
        raise ToolError("before_leave_end", "the check-in must be on or after the leave end date")
    return _book(
        db,
        "return_to_work_checkin",
        args.employee_id,
        args.department_code,
        args.appointment_date,
        args.appointment_time,
        case_id=args.case_id,
    )


# ---------------------------------------------------------------- payroll


class TimesheetArgs(ToolArgs):
    employee_id: Code
    timesheet_id: Code


def _timesheet(db: dict[str, Any], timesheet_id: str) -> dict[str, Any]:
    sheet = db["timesheets"].get(timesheet_id)
    if sheet is None:
        raise ToolError("timesheet_not_found", f"no timesheet {timesheet_id}")
    return sheet


@REGISTRY.tool(TimesheetArgs, writes=False)
def get_timesheet_record(db: dict[str, Any], args: TimesheetArgs) -> dict[str, Any]:
    """A timesheet and its pay period; another employee's timesheet shows only that it is not the caller's."""
    _require_employee(db, args.employee_id)
    sheet = _timesheet(db, args.timesheet_id)
    if sheet["employee_id"] != args.employee_id:
        return {"timesheet": {"timesheet_id": sheet["timesheet_id"], "owned_by_caller": False}}
    return {"timesheet": {**sheet, "owned_by_caller": True}}


def correction_eligibility(db: dict[str, Any], employee_id: str, timesheet_id: str) -> tuple[bool, str]:
    sheet = _timesheet(db, timesheet_id)
    if sheet["employee_id"] != employee_id:
        return False, "the timesheet belongs to another employee; only your own timesheets can be corrected"
    if date.fromisoformat(sheet["pay_period_end"]) < _today(db):
        return False, "the pay period has already closed; corrections must be submitted before it closes"
    return True, "eligible"


@REGISTRY.tool(TimesheetArgs, writes=False)
def check_correction_eligibility(db: dict[str, Any], args: TimesheetArgs) -> dict[str, Any]:
    """Whether the timesheet can still be corrected (own timesheet, pay period open)."""
    _require_employee(db, args.employee_id)
    eligible, reason = correction_eligibility(db, args.employee_id, args.timesheet_id)
    return {"eligible": eligible, "reason": reason}


class PayrollArgs(_DateArgs):
    employee_id: Code
    timesheet_id: Code
    shift_date: str
    correction_type: Literal["overtime", "on_call", "missed_differential"]
    corrected_hours: float

    @field_validator("corrected_hours")
    @classmethod
    def _hours(cls, value: float) -> float:
        if not 0 < value <= 24:
            raise ValueError("corrected hours are the category total for one shift: more than 0, at most 24")
        return value


@REGISTRY.tool(PayrollArgs, writes=True)
def submit_payroll_correction(db: dict[str, Any], args: PayrollArgs) -> dict[str, Any]:
    """Record the corrected category total for one shift on an open timesheet."""
    _require_employee(db, args.employee_id)
    eligible, reason = correction_eligibility(db, args.employee_id, args.timesheet_id)
    if not eligible:
        raise ToolError("not_eligible", reason)
    sheet = db["timesheets"][args.timesheet_id]
    entry = next((e for e in sheet["entries"] if e["date"] == args.shift_date), None)
    if entry is None:
        raise ToolError("shift_date_not_on_timesheet", f"{args.shift_date} is not on timesheet {args.timesheet_id}")
    correction_id = f"PAYC{len(db['payroll_corrections']) + 1:02d}{args.timesheet_id[-4:]}"
    field = {"overtime": "overtime_hours", "on_call": "oncall_hours", "missed_differential": "differential_hours"}
    db["payroll_corrections"][correction_id] = {
        "correction_id": correction_id,
        "timesheet_id": args.timesheet_id,
        "shift_date": args.shift_date,
        "correction_type": args.correction_type,
        "previous_hours": entry[field[args.correction_type]],
        "corrected_hours": args.corrected_hours,
        "status": "submitted",
    }
    entry[field[args.correction_type]] = args.corrected_hours
    return {"correction_id": correction_id}


# ---------------------------------------------------------------- privileges


class ReactivationArgs(ToolArgs):
    employee_id: Code
    npi: str
    clearance_code: Code
    leave_type: Literal["medical", "parental", "personal", "military", "administrative"]


def reactivation_eligibility(db: dict[str, Any], args: ReactivationArgs) -> tuple[bool, str]:
    provider = _require_own_provider(db, args.npi)
    if provider["employee_id"] != args.employee_id:
        return False, "the NPI does not belong to this employee"
    if not any(p["status"] == "suspended" for p in provider["privileges"]):
        return False, "no privileges are suspended"
    if provider.get("clearance_code") != args.clearance_code:
        return False, "the occupational health clearance code is not valid"
    if provider.get("leave_type") != args.leave_type:
        return False, "the leave type does not match the leave on record"
    return True, "eligible"


@REGISTRY.tool(ReactivationArgs, writes=False)
def check_reactivation_eligibility(db: dict[str, Any], args: ReactivationArgs) -> dict[str, Any]:
    """Whether suspended privileges may be reactivated (valid clearance code, leave on record)."""
    _require_otp(db, args.employee_id)
    eligible, reason = reactivation_eligibility(db, args)
    provider = db["providers"][args.npi]
    suspended = [p["name"] for p in provider["privileges"] if p["status"] == "suspended"]
    return {"eligible": eligible, "reason": reason, "suspended_privileges": suspended if eligible else []}


class CompetencyArgs(_DateArgs, TimeField):
    employee_id: Code
    npi: str
    department_code: Code
    appointment_date: str
    appointment_time: str


@REGISTRY.tool(CompetencyArgs, writes=True)
def schedule_competency_review(db: dict[str, Any], args: CompetencyArgs) -> dict[str, Any]:
    """Book the competency review that must precede privilege reactivation."""
    _require_otp(db, args.employee_id)
    _require_own_provider(db, args.npi)
    result = _book(
        db,
        "competency_review",
        args.employee_id,
        args.department_code,
        args.appointment_date,
        args.appointment_time,
        npi=args.npi,
    )
    db["providers"][args.npi]["competency_review"] = result["appointment_id"]
    return result


class ReactivateArgs(ToolArgs):
    employee_id: Code
    npi: str
    privileges: list[str]

    @field_validator("privileges", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        """A caller's sentence ('moderate sedation and central lines') -> the names in it, split on 'and'/','."""
        if isinstance(value, str):
            return [p.strip() for p in re.split(r",|\band\b", value) if p.strip()]
        return value


@REGISTRY.tool(ReactivateArgs, writes=True)
def reactivate_privileges(db: dict[str, Any], args: ReactivateArgs) -> dict[str, Any]:
    """Reactivate the suspended privileges the caller confirmed (after the competency review is booked)."""
    _require_otp(db, args.employee_id)
    provider = _require_own_provider(db, args.npi)
    if not provider.get("competency_review"):
        raise ToolError("competency_review_required", "schedule the competency review first")
    suspended = {p["name"].lower(): p for p in provider["privileges"] if p["status"] == "suspended"}
    chosen = []
    for asked in args.privileges:
        key = re.sub(r"^(the|my)\s+", "", asked.lower().rstrip("."))
        match = suspended.get(key) or next((p for name, p in suspended.items() if name in key), None)
        if match is None:
            raise ToolError("privilege_not_suspended", f"{asked!r} is not a suspended privilege")
        chosen.append(match)
    for privilege in chosen:
        privilege["status"] = "active"
    return {"reactivated": [p["name"] for p in chosen], "case_id": f"PRV{args.npi[-5:]}"}


class EhrArgs(ToolArgs):
    employee_id: Code
    access_level: Literal["full", "restricted"]


@REGISTRY.tool(EhrArgs, writes=True)
def update_ehr_access(db: dict[str, Any], args: EhrArgs) -> dict[str, Any]:
    """Restore EHR access (full or restricted) after privileges are reactivated."""
    _require_otp(db, args.employee_id)
    provider = next((p for p in db["providers"].values() if p["employee_id"] == args.employee_id), None)
    if provider is None or not any(p["status"] == "active" for p in provider["privileges"]):
        raise ToolError("no_active_privileges", "reactivate privileges before restoring EHR access")
    provider["ehr_access"] = args.access_level
    return {"ehr_access": args.access_level}


# ---------------------------------------------------------------- on-call


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_oncall_schedule(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's on-call unit and current registrations."""
    _require_employee(db, args.employee_id)
    return {"schedule": db["oncall"].get(args.employee_id, {"unit_code": None, "registrations": []})}


def oncall_eligibility(db: dict[str, Any], employee_id: str) -> tuple[bool, str]:
    employee = _employee(db, employee_id)
    if employee["employment_status"] == "on_leave":
        return False, "employees on leave cannot register for on-call"
    unit = db["oncall"].get(employee_id, {}).get("unit_code")
    if unit is None:
        return False, "no on-call unit assigned"
    missing = _missing_certifications(db, employee_id, unit)
    if missing:
        return False, f"missing certifications required by {unit}: {', '.join(missing)}"
    return True, "eligible"


@REGISTRY.tool(EmployeeArgs, writes=False)
def check_oncall_eligibility(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Whether the employee may register for on-call (not on leave, unit certifications held)."""
    _require_employee(db, args.employee_id)
    eligible, reason = oncall_eligibility(db, args.employee_id)
    return {"eligible": eligible, "reason": reason}


class OncallArgs(_DateArgs):
    employee_id: Code
    start_date: str
    end_date: str
    oncall_role: Literal["primary", "backup"]
    blackout_dates: list[IsoDate] = Field(default_factory=list)

    @field_validator("blackout_dates", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


@REGISTRY.tool(OncallArgs, writes=True)
def register_oncall_availability(db: dict[str, Any], args: OncallArgs) -> dict[str, Any]:
    """Register an on-call availability window with blackout dates inside it."""
    _require_employee(db, args.employee_id)
    eligible, reason = oncall_eligibility(db, args.employee_id)
    if not eligible:
        raise ToolError("not_eligible", reason)
    if args.start_date < _today(db).isoformat() or args.end_date < args.start_date:
        raise ToolError("invalid_window", "the window must start today or later and end after it starts")
    blackouts = sorted(_iso(d) for d in args.blackout_dates)
    if any(not args.start_date <= d <= args.end_date for d in blackouts):
        raise ToolError("blackout_outside_window", "blackout dates must fall within the availability window")
    schedule = db["oncall"][args.employee_id]
    registration_id = f"ONC{len(schedule['registrations']) + 1:02d}{args.employee_id[-4:]}"
    schedule["registrations"].append(
        {
            "registration_id": registration_id,
            "start_date": args.start_date,
            "end_date": args.end_date,
            "oncall_role": args.oncall_role,
            "blackout_dates": blackouts,
        }
    )
    return {"registration_id": registration_id}


# ---------------------------------------------------------------- I-9


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_i9_record(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """The employee's I-9 record, if any."""
    _require_employee(db, args.employee_id)
    record = db["i9_records"].get(args.employee_id)
    return {"has_record": record is not None, "i9": record}


DocumentType = Literal[
    "us_passport",
    "foreign_passport",
    "permanent_resident_card",
    "employment_authorization_document",
    "drivers_license",
    "state_id",
    "social_security_card",
    "birth_certificate",
]


class I9Args(_DateArgs):
    employee_id: Code
    verification_type: Literal["initial", "reverification"]
    document_list: Literal["list_a", "list_b_and_c"]
    document_type: DocumentType
    document_number: Code
    expiration_date: IsoDate
    country_of_issue: CountryCode

    @field_validator("document_number")
    @classmethod
    def _doc(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z0-9]{6,12}", value):
            raise ValueError("document numbers are 6 to 12 letters and digits")
        return value

    @field_validator("country_of_issue")
    @classmethod
    def _iso2(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{2}", value):
            raise ValueError("country of issue must be a two-letter ISO code")
        return value


@REGISTRY.tool(I9Args, writes=True)
def submit_i9_verification(db: dict[str, Any], args: I9Args) -> dict[str, Any]:
    """Record I-9 documents (needs a live new-hire record; reverification needs an I-9 on file)."""
    _require_employee(db, args.employee_id)
    if not db["onboarding"].get(args.employee_id):
        raise ToolError("record_not_live", "the new-hire record is not set up yet; refer the caller to HR")
    existing = db["i9_records"].get(args.employee_id)
    if args.verification_type == "reverification" and existing is None:
        raise ToolError("no_prior_i9", "reverification needs an I-9 on file")
    if args.expiration_date <= _today(db).isoformat():
        raise ToolError("document_expired", "the document has expired")
    verification_id = f"I9V{len(db['i9_verifications']) + 1:02d}{args.employee_id[-4:]}"
    record = {
        "verification_id": verification_id,
        "verification_type": args.verification_type,
        "document_list": args.document_list,
        "document_type": args.document_type,
        "document_number": args.document_number,
        "expiration_date": args.expiration_date,
        "country_of_issue": args.country_of_issue,
        "status": "verified",
    }
    db["i9_verifications"][verification_id] = {"employee_id": args.employee_id, **record}
    db["i9_records"][args.employee_id] = record
    return {"verification_id": verification_id}


class HrComplianceArgs(ToolArgs):
    employee_id: Code
    verification_id: str


@REGISTRY.tool(HrComplianceArgs, writes=True)
def notify_hr_compliance(db: dict[str, Any], args: HrComplianceArgs) -> dict[str, Any]:
    """Tell HR compliance about an I-9 submission."""
    _require_employee(db, args.employee_id)
    return _notify(db, "hr_compliance", employee_id=args.employee_id, case_id=args.verification_id)


# ---------------------------------------------------------------- visa


class VisaArgs(ToolArgs):
    employee_id: Code
    petition_number: Code


def _petition(db: dict[str, Any], employee_id: str, number: str) -> dict[str, Any]:
    _require_otp(db, employee_id)
    record = db["visa_records"].get(number)
    if record is None or record["employee_id"] != employee_id:
        raise ToolError("petition_not_found", f"no visa petition {number} for this employee")
    return record


@REGISTRY.tool(VisaArgs, writes=False)
def get_visa_record(db: dict[str, Any], args: VisaArgs) -> dict[str, Any]:
    """The visa petition (type, status, dependents); needs OTP."""
    return {"visa": _petition(db, args.employee_id, args.petition_number)}


class DependentArgs(_DateArgs):
    employee_id: Code
    petition_number: Code
    dependent_first_name: str
    dependent_last_name: str
    relationship: Literal["spouse", "child", "domestic_partner"]
    dependent_date_of_birth: IsoDate
    country_of_birth: CountryCode
    uscis_receipt_number: Code

    @field_validator("uscis_receipt_number")
    @classmethod
    def _receipt(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{3}\d{10}", value):
            raise ValueError("a USCIS receipt number is three letters and ten digits")
        return value


@REGISTRY.tool(DependentArgs, writes=True)
def add_visa_dependent(db: dict[str, Any], args: DependentArgs) -> dict[str, Any]:
    """Add a dependent to the petition through a USCIS amendment."""
    record = _petition(db, args.employee_id, args.petition_number)
    if args.uscis_receipt_number == args.petition_number:
        raise ToolError("receipt_is_petition", "the USCIS receipt number differs from the petition number")
    if args.dependent_date_of_birth > _today(db).isoformat():
        raise ToolError("invalid_date_of_birth", "the date of birth is in the future")
    dependent_id = f"DEP{len(record['dependents']) + 1:02d}{args.petition_number[-4:]}"
    record["dependents"].append(
        {
            "dependent_id": dependent_id,
            "first_name": args.dependent_first_name,
            "last_name": args.dependent_last_name,
            "relationship": args.relationship,
            "date_of_birth": args.dependent_date_of_birth,
            "country_of_birth": args.country_of_birth,
            "uscis_receipt_number": args.uscis_receipt_number,
        }
    )
    record["amendment_status"] = "amendment_filed"
    return {"dependent_id": dependent_id}


class CounselArgs(ToolArgs):
    employee_id: Code
    petition_number: Code
    dependent_id: str


@REGISTRY.tool(CounselArgs, writes=True)
def notify_immigration_counsel(db: dict[str, Any], args: CounselArgs) -> dict[str, Any]:
    """Tell immigration counsel about a petition amendment."""
    _petition(db, args.employee_id, args.petition_number)
    return _notify(
        db,
        "immigration_counsel",
        employee_id=args.employee_id,
        case_id=args.dependent_id,
        petition_number=args.petition_number,
    )


# ---------------------------------------------------------------- PTO


@REGISTRY.tool(EmployeeArgs, writes=False)
def get_pto_balance(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """General PTO and sick-leave balances (days) and the schedule type that decides which days count."""
    employee = _require_employee(db, args.employee_id)
    balance = db["pto_balances"][args.employee_id]
    return {**balance, "schedule_type": employee["schedule_type"]}


class PtoArgs(_DateArgs):
    employee_id: Code
    pto_type: Literal["general_pto", "sick_leave"]
    start_date: str
    end_date: str


def pto_days(db: dict[str, Any], employee: dict[str, Any], start: str, end: str) -> list[str]:
    """Days that consume PTO: weekdays minus holidays (standard schedule) or scheduled shift dates (shift)."""
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    days = [(first + timedelta(days=i)).isoformat() for i in range((last - first).days + 1)]
    if employee["schedule_type"] == "shift":
        worked = {s["date"] for s in db["shifts"].values() if s["employee_id"] == employee["employee_id"]}
        return [d for d in days if d in worked]
    return [d for d in days if date.fromisoformat(d).weekday() < 5 and d not in db["holidays"]]


def pto_eligibility(db: dict[str, Any], employee: dict[str, Any], args: PtoArgs) -> tuple[bool, str, list[str]]:
    if args.end_date < args.start_date:
        return False, "the end date is before the start date", []
    if args.start_date < _today(db).isoformat():
        return False, "PTO cannot start in the past", []
    counted = pto_days(db, employee, args.start_date, args.end_date)
    for window in db["department_blackouts"].get(employee["department_code"], []):
        if args.start_date <= window["end"] and window["start"] <= args.end_date:
            return False, f"the department blocks PTO from {window['start']} to {window['end']}", counted
    balance = db["pto_balances"][employee["employee_id"]]["pto_days" if args.pto_type == "general_pto" else "sick_days"]
    if len(counted) > balance:
        return False, f"{len(counted)} days requested but only {balance} days available", counted
    if not counted:
        return False, "no working days fall in the requested range", counted
    return True, "eligible", counted


@REGISTRY.tool(PtoArgs, writes=False)
def check_pto_eligibility(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """Days the request would deduct, and whether balance and department blackouts allow it."""
    employee = _require_employee(db, args.employee_id)
    eligible, reason, counted = pto_eligibility(db, employee, args)
    return {"eligible": eligible, "reason": reason, "days_requested": len(counted), "counted_dates": counted}


@REGISTRY.tool(PtoArgs, writes=True)
def submit_pto_request(db: dict[str, Any], args: PtoArgs) -> dict[str, Any]:
    """Submit the request and deduct the counted days from the balance."""
    employee = _require_employee(db, args.employee_id)
    eligible, reason, counted = pto_eligibility(db, employee, args)
    if not eligible:
        raise ToolError("not_eligible", reason)
    balance = db["pto_balances"][args.employee_id]
    key = "pto_days" if args.pto_type == "general_pto" else "sick_days"
    balance[key] -= len(counted)
    request_id = f"PTO{len(db['pto_requests']) + 1:02d}{args.employee_id[-4:]}"
    db["pto_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": args.employee_id,
        "pto_type": args.pto_type,
        "start_date": args.start_date,
        "end_date": args.end_date,
        "days": len(counted),
        "status": "submitted",
    }
    return {"request_id": request_id, "days_deducted": len(counted), "remaining": balance[key]}


# ---------------------------------------------------------------- escalation


class TransferArgs(ToolArgs):
    reason: str
    employee_id: str | None = None


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live HR agent."""
    db["transfers"].append(
        {
            "employee_id": args.employee_id,
            "reason": args.reason,
            "at": datetime.fromisoformat(db["meta"]["today"]).date().isoformat(),
        }
    )
    return {"transferred": True}
