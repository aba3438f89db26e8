"""What every HR tool module shares: the one ``REGISTRY``, argument normalisers (spoken dates, state and country
names, codes), the shared argument models, entity lookups, the authentication-tier guards and notifications.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

from pydantic import BeforeValidator, field_validator

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, session_of
from evalkit.spoken import MONTHS

REGISTRY = ToolRegistry()

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


class EmployeeArgs(ToolArgs):
    employee_id: Code


class NpiArgs(ToolArgs):
    npi: str


def _missing_certifications(db: dict[str, Any], employee_id: str, unit_code: str) -> list[str]:
    required = db["units"][unit_code]["required_certifications"]
    held = set(_employee(db, employee_id)["certifications"])
    return [c for c in required if c not in held]
