"""What every tool of the EVA-Bench ITSM API shares: the registry, argument types, content-hash identifiers, the
session's authentication flags, date arithmetic and name resolution.

The DB layout is EVA-Bench's (``data/itsm_scenarios/<id>.json``): ``employees`` keyed by ``EMP`` id (each with
``account_status`` per system, ``hardware_entitlements``, ``group_memberships``, ``software_licenses``, ...),
``assets``, ``tickets``, ``requests``, ``facilities`` (``buildings``, ``zones``, ``desks``, ``parking``,
``conference_rooms``), ``software_catalog`` (``applications``, ``licenses``), ``access_groups``, ...; today is
``_current_date``. The ``session`` table holds the authentication flags (``employee_auth``, ``otp_auth``,
``manager_auth``) that gate the tools.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import unicodedata
from datetime import date, timedelta
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry, row, session_of

# Argument field -> the error type EVA-Bench's ITSM tools give an invalid value of it.
FIELD_ERROR_TYPES: dict[str, str] = {
    **dict.fromkeys(
        [
            "employee_id",
            "new_hire_employee_id",
            "manager_employee_id",
            "departing_employee_id",
            "approver_employee_id",
            "escalate_to_employee_id",
        ],
        "invalid_employee_id_format",
    ),
    **dict.fromkeys(["phone_last_four", "new_phone_last_four"], "invalid_phone_format"),
    **dict.fromkeys(["asset_tag", "current_asset_tag"], "invalid_asset_tag_format"),
    **dict.fromkeys(["building_code", "delivery_building"], "invalid_building_code_format"),
    **dict.fromkeys(["floor_code", "delivery_floor"], "invalid_floor_code_format"),
    **dict.fromkeys(["role_code", "new_role_code"], "invalid_role_code"),
    **dict.fromkeys(
        ["date", "start_date", "effective_date", "last_working_day", "review_date", "preferred_date"],
        "invalid_date_format",
    ),
    **dict.fromkeys(["start_time", "end_time"], "invalid_time_format"),
    "otp_code": "invalid_otp_format",
    "manager_auth_code": "invalid_manager_auth_code_format",
    "ticket_number": "invalid_ticket_number_format",
    "catalog_id": "invalid_catalog_id_format",
    "application_name": "invalid_application_name",
    "license_name": "invalid_license_name",
    "license_assignment_id": "invalid_license_assignment_id_format",
    "room_code": "invalid_room_code_format",
    "desk_code": "invalid_desk_code_format",
    "zone_code": "invalid_parking_zone_format",
    "parking_space_id": "invalid_parking_space_id_format",
    "department_code": "invalid_department_code",
    "group_code": "invalid_group_code_format",
    "permission_template_id": "invalid_permission_template_id_format",
    "category": "invalid_incident_category",
    "urgency": "invalid_urgency",
    "issue_category": "invalid_issue_category",
    "request_type": "invalid_request_type",
    "justification": "invalid_justification",
    "monitor_size": "invalid_monitor_size",
    "laptop_os": "invalid_laptop_os",
    "laptop_size": "invalid_laptop_size",
    "access_level": "invalid_access_level",
    "equipment_type": "invalid_equipment_type",
    "action": "invalid_membership_action",
    "removal_scope": "invalid_removal_scope",
    "transfer_reason": "invalid_transfer_reason",
    "service_name": "invalid_service_name",
    "target_system": "invalid_target_system",
    "affected_system": "invalid_affected_system",
    "duration_days": "invalid_duration",
    "sla_tier": "invalid_sla_tier",
    "time_window": "invalid_time_window",
    "recovery_method": "invalid_recovery_method",
    "incident_type": "invalid_security_incident_type",
    "resource_type": "invalid_resource_type",
    "diagnostic_ref_code": "invalid_diagnostic_ref_code_format",
    "request_id": "invalid_request_id_format",
    "case_id": "invalid_case_id_format",
    "security_case_id": "invalid_security_case_id_format",
}

# Without a ``_current_date`` in the DB the tools use EVA-Bench's default day.
DEFAULT_CURRENT_DATE = "2026-08-12"
SLA_HOURS = {"tier_1": (1, 4), "tier_2": (4, 8), "tier_3": (8, 24)}  # tier -> (response, resolution) hours
APPROVAL_HOURS = 48  # an approver's window, and a skip-level approver's after an escalation
RETURN_DAYS = 14  # a replaced device's return deadline
TEMPORARY_LICENSE_DAYS = (30, 60, 90)
TIER_OF_URGENCY = {"high": "tier_1", "medium": "tier_2", "low": "tier_3"}


def _alternatives(*words: str) -> str:
    return "|".join(re.escape(w) for w in words)


# ------------------------------------------------------------------------------------------------ argument types

EmployeeId = Annotated[str, Field(pattern=r"^EMP\d{6}$", description="EMP followed by 6 digits, e.g. EMP048271")]
PhoneLastFour = Annotated[str, Field(pattern=r"^\d{4}$", description="Last 4 digits of the phone number on file")]
OtpCode = Annotated[str, Field(pattern=r"^\d{6}$", description="The 6-digit code from the text message")]
ManagerAuthCode = Annotated[str, Field(pattern=r"^[A-Z0-9]{6}$", description="6-character manager code")]
TicketNumber = Annotated[str, Field(pattern=r"^INC[a-f0-9]{12}$", description="INC plus 12 hex characters")]
AssetTag = Annotated[str, Field(pattern=r"^AST-[A-Z]{3}-\d{6}$", description="AST-XXX-NNNNNN")]
LicenseAssignmentId = Annotated[str, Field(pattern=r"^LASGN-\d{6}$", description="LASGN-NNNNNN")]
BuildingRef = Annotated[
    str, Field(min_length=1, max_length=60, description="Building code (BLD3) or a building name or alias")
]
FloorCode = Annotated[str, Field(pattern=r"^FL\d{1,2}$", description="FL plus 1-2 digits, e.g. FL2")]
RoomCode = Annotated[str, Field(pattern=r"^BLD\d{1,2}-FL\d{1,2}-RM\d{3}$", description="e.g. BLD3-FL2-RM204")]
DeskCode = Annotated[str, Field(pattern=r"^BLD\d{1,2}-FL\d{1,2}-D\d{3}$", description="e.g. BLD3-FL2-D107")]
ZoneRef = Annotated[
    str, Field(min_length=1, max_length=60, description="Parking zone code (PZA) or a zone name or alias")
]
ParkingSpaceId = Annotated[str, Field(pattern=r"^PZ[A-Z]-\d{3}$", description="e.g. PZA-042")]
DepartmentCode = Annotated[
    str,
    Field(pattern=r"^(ENG|MKTG|SALES|FIN|HR|OPS|LEGAL|INFRA|SECUR|EXEC|DSGN|DATA)$", description="Department code"),
]
RoleCode = Annotated[
    str,
    Field(
        pattern=r"^(SWE|PM|DESGN|ANLST|ADMIN|MGENG|MGOPS|MGSLS|MGHR|SECUR|INFRA|DATAN|LEGAL)$",
        description="Role code",
    ),
]
GroupCode = Annotated[str, Field(pattern=r"^GRP-[A-Z]{2,8}$", description="GRP-XXXXXX")]
PermissionTemplateId = Annotated[str, Field(pattern=r"^PTPL-[A-Z]{2,5}-\d{2}$", description="PTPL-XXX-NN")]
RequestId = Annotated[str, Field(pattern=r"^REQ-[A-Z]{2,5}-[a-f0-9]{12}$", description="REQ-<category>-<12 hex>")]
CaseId = Annotated[str, Field(pattern=r"^CASE-[A-Z]{2,5}-[a-f0-9]{12}$", description="CASE-<category>-<12 hex>")]
SecurityCaseId = Annotated[str, Field(pattern=r"^SEC-[a-f0-9]{12}$", description="SEC-<12 hex>")]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
ClockTime = Annotated[str, Field(pattern=r"^\d{2}:\d{2}$", description="HH:MM")]
DiagnosticRef = Annotated[str, Field(pattern=r"^DIAG-[A-Z0-9]{8}$", description="DIAG-XXXXXXXX")]
CatalogName = Annotated[str, Field(min_length=1, max_length=120, description="Catalog item name or alias")]
ServiceName = Literal[
    "email_exchange",
    "vpn_gateway",
    "erp_oracle",
    "crm_platform",
    "hr_portal",
    "code_repository",
    "ci_cd_pipeline",
    "file_storage",
    "sso_identity",
    "print_service",
]
TargetSystem = Literal["active_directory", "sso_identity", "email_exchange", "vpn_gateway", "erp_oracle"]
AffectedSystem = Annotated[
    str,
    Field(
        pattern=rf"^({_alternatives(*get_args(ServiceName), 'active_directory', 'vpn', 'wifi', 'ethernet')}"
        r"|AST-[A-Z]{3}-\d{6})$",
        description="A service or system name, vpn/wifi/ethernet, or an asset tag",
    ),
]

# Optional arguments an agent fills with a placeholder instead of leaving them out count as left out.
EMPTY_WORDS = frozenset({"", ".", "none", "null", "n/a", "na"})


def empty_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and value.strip().lower() in EMPTY_WORDS else value


class EmployeeArgs(ToolArgs):
    employee_id: EmployeeId


# ------------------------------------------------------------------------------------------------ identifiers

# Identifiers are hashes of the record they name (EVA-Bench's scheme), so the same action yields the same id
# whatever ran before it. Other identifiers inside the record and the fields later tools change are left out of
# the hash, so an id stays the one issued at creation.
_ISSUED_ID = re.compile(r"^(REQ-[A-Z]+-|INC|CASE-[A-Z]+-|SEC-|CAL-)[A-Za-z0-9]+$")
_CHANGED_LATER = frozenset(
    {
        "status",
        "resolved_date",
        "sla_tier",
        "sla_response_hours",
        "sla_resolution_hours",
        "linked_known_error_id",
        "dispatch_id",
        "dispatch_date",
        "dispatch_window",
        "diagnostic_ref_code",
        "diagnostic_attached",
        "approval_routed_to",
        "approval_sla_deadline",
        "escalated_to",
        "escalation_sla_deadline",
        "remote_wipe_id",
        "access_review_id",
        "review_date",
    }
)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _hashable(v) for k, v in value.items() if k not in _CHANGED_LATER}
    if isinstance(value, list):
        return [_hashable(v) for v in value]
    if isinstance(value, str) and _ISSUED_ID.match(value):
        return None
    return value


def content_id(prefix: str, record: dict[str, Any]) -> str:
    """``prefix`` + the first 12 hex digits of the SHA-1 of the record's canonical JSON."""
    text = json.dumps(_hashable(record), sort_keys=True, default=str, separators=(",", ":"))
    return prefix + hashlib.sha1(text.encode()).hexdigest()[:12]


def filed(db: dict[str, Any], table: str, record: dict[str, Any], id_field: str, prefix: str) -> str:
    """File a new record in ``db[table]`` under its content id (``prefix`` + hash, also set as ``id_field``)."""
    record_id = record[id_field] = content_id(prefix, record)
    db.setdefault(table, {})[record_id] = record
    return record_id


# ------------------------------------------------------------------------------------------------ session, dates


def require(db: dict[str, Any], flag: str = "employee_auth") -> None:
    """The session flag the tool needs (``employee_auth``, ``otp_auth`` or ``manager_auth``)."""
    if session_of(db).get(flag) is not True:
        raise ToolError("authentication_required", f"Authentication ({flag}) required")


def require_each(db: dict[str, Any], flags: tuple[str, ...]) -> None:
    """Every session flag a tool registered with ``needs=`` names, in order."""
    for flag in flags:
        require(db, flag)


REGISTRY = ToolRegistry(FIELD_ERROR_TYPES, authorize=require_each)


def employee(db: dict[str, Any], employee_id: str) -> dict[str, Any]:
    return row(db.get("employees", {}), employee_id, "Employee")


def not_found(what: str) -> ToolError:
    return ToolError("not_found", f"{what} not found")


def catalog_entry(db: dict[str, Any], section: str, name: str) -> tuple[str, dict[str, Any]] | None:
    """The software catalog's entry of a section (``applications``, ``licenses``) by name or alias, with its id."""
    for catalog_id, entry in db.get("software_catalog", {}).get(section, {}).items():
        if matches_name(name, entry):
            return catalog_id, entry
    return None


def catalog_details(db: dict[str, Any], section: str, name: str, what: str) -> dict[str, Any]:
    """A ``get_*`` tool's answer for a catalog entry: its id and a copy of the entry under ``what``."""
    found = catalog_entry(db, section, name)
    if not found:
        raise ToolError("not_found", f"No {what} named '{name}'; confirm the exact product name")
    catalog_id, entry = found
    return {"catalog_id": catalog_id, what: {**copy.deepcopy(entry), "catalog_id": catalog_id}}


def today(db: dict[str, Any]) -> date:
    return date.fromisoformat(db.get("_current_date", DEFAULT_CURRENT_DATE))


def today_text(db: dict[str, Any]) -> str:
    return db.get("_current_date", DEFAULT_CURRENT_DATE)


def days_after(start: date, days: int) -> str:
    return (start + timedelta(days=days)).isoformat()


def approval_deadline(db: dict[str, Any]) -> str:
    """Approval deadlines: midnight of today + 48 h, as ``YYYY-MM-DD HH:MM``."""
    return f"{days_after(today(db), APPROVAL_HOURS // 24)} 00:00"


def months_between(start: date, end: date) -> int:
    return (end.year - start.year) * 12 + end.month - start.month - (end.day < start.day)


def full_name(person: dict[str, Any]) -> str:
    return f"{person['first_name']} {person['last_name']}"


# ------------------------------------------------------------------------------------------------ names


def normalized(text: str) -> str:
    """Lower case without punctuation or symbols (any script), for name and alias matching."""
    return "".join(c for c in text.lower() if not unicodedata.category(c).startswith(("P", "S"))).strip()


def matches_name(name: str, entry: dict[str, Any]) -> bool:
    wanted = normalized(name)
    return normalized(entry.get("name", "")) == wanted or any(
        normalized(alias) == wanted for alias in entry.get("name_aliases", [])
    )


_CODE_FORMS = {"building": re.compile(r"^BLD\d{1,2}$"), "zone": re.compile(r"^PZ[A-Z]$")}
_FACILITY_TABLES = {"building": ("buildings", "Building"), "zone": ("zones", "Parking zone")}


def facility_code(db: dict[str, Any], kind: str, reference: str) -> str:
    """A building (``kind`` "building") or parking zone ("zone") code from its code, name or alias: a reference
    already in code form is taken as is; an unknown name is a ``name_not_found`` error listing the known ones."""
    if _CODE_FORMS[kind].match(reference):
        return reference
    table_name, label = _FACILITY_TABLES[kind]
    table = db.get("facilities", {}).get(table_name, {})
    for code, entry in table.items():
        if matches_name(reference, entry):
            return code
    known = ", ".join(e["name"] for e in table.values() if e.get("name")) or "(none on file)"
    raise ToolError(
        "name_not_found",
        f"{label} '{reference}' not recognized. Provide a code or a known name. Known names: {known}.",
    )


def group_eligible(group: dict[str, Any], person: dict[str, Any]) -> bool:
    """An empty eligibility list leaves that dimension open; otherwise the employee's department/role is in it."""
    departments, roles = group.get("eligible_departments") or [], group.get("eligible_roles") or []
    if departments and person.get("department_code") not in departments:
        return False
    return not (roles and person.get("role_code") not in roles)
