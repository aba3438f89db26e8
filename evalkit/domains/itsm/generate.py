"""Build the ITSM scenario files (EVA-Bench sizes: 29 single, 14 double, 14 triple, 14 quadruple-intent and 9
adversarial = 80).

Run ``python -m evalkit.domains.itsm.generate [OUT_DIR]`` to rewrite ``scenarios/*.json``. Each scenario draws its
entities from ``random.Random(SEED + index)``; each workflow part adds the records it needs to one initial DB and
returns what the caller says. The typed slot values are ``parse_slot`` of those answers (what a perfect-hearing
agent extracts), the reference path is ``run_reference`` of each workflow in call order on one executor, and the
expected DB is what that path leaves behind: never typed by hand.
"""

from __future__ import annotations

import copy
import json
import random
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from evalkit.domains.base import ToolExecutor
from evalkit.domains.itsm.tools import REGISTRY
from evalkit.domains.itsm.workflows import (
    APPLICATIONS,
    BUILDINGS,
    GROUPS,
    LICENSES,
    PARKING_ZONES,
    ROOMS,
    SERVICES,
    WORKFLOWS,
)
from evalkit.domains.workflow import Slot, parse_slot, run_reference
from evalkit.scenarios.schema import Scenario
from evalkit.spoken import parse_code, say_date, say_time

OUT_DIR = Path(__file__).resolve().parent / "scenarios"
SEED = 20260727
NOW = "2026-07-27 08:30 EST"
TODAY = date(2026, 7, 27)
COUNTS = (("single_intent", 1, 29), ("multi_intent", 2, 14), ("multi_intent", 3, 14), ("multi_intent", 4, 14))
N_ADVERSARIAL = 9
# Table 44: Security Incident and MFA Reset have no standalone single-intent scenarios. Incident flows come first
# so both branches (resolved / ticket) of each get a single-intent scenario.
SINGLE_ORDER = (
    "login_issue", "service_outage", "hardware_malfunction", "network_vpn_issue", "laptop_replacement",
    "monitor_bundle", "application_access", "software_license", "license_renewal", "desk_request",
    "parking_request", "ergonomic_equipment", "conference_room", "new_employee_provisioning", "group_membership",
    "permission_change", "access_removal", "request_status_escalation",
)  # fmt: skip
ADVERSARIAL_ORDER = (
    "laptop_replacement", "monitor_bundle", "ergonomic_equipment", "permission_change", "request_status_escalation",
    "license_renewal", "group_membership", "new_employee_provisioning", "access_removal",
)  # fmt: skip
PERSONA_TEXT = (
    "You're direct and to the point. You answer what you are asked in short sentences, don't volunteer details "
    "and show impatience if things move slowly."
)
FIRST_NAMES = (
    ("Jin", "male"), ("Oluwaseun", "male"), ("Priyanka", "female"), ("Siobhan", "female"), ("Thandiwe", "female"),
    ("Mateusz", "male"), ("Xiomara", "female"), ("Ngozi", "female"), ("Tadhg", "male"), ("Kaveh", "male"),
    ("Ludmila", "female"), ("Bartholomew", "male"), ("Yevgenia", "female"), ("Anand", "male"), ("Marisol", "female"),
)  # fmt: skip
LAST_NAMES = (
    "Li", "Adeyemi", "Raghunathan", "Ni Bhriain", "Nkosi", "Wojciechowski", "Quintanilla", "Okonkwo", "Szymanski",
    "Farahani", "Vasquez-Ortega", "Thorsdottir", "Kowalczyk", "Mbeki", "Achterberg",
)  # fmt: skip
DEPARTMENTS = {
    "finance": ("financial_analyst", "CC4410"),
    "engineering": ("software_engineer", "CC7720"),
    "marketing": ("marketing_specialist", "CC3305"),
    "operations": ("operations_coordinator", "CC5160"),
}
NEW_ROLES = {"financial_analyst": "senior_financial_analyst", "software_engineer": "staff_engineer",
             "marketing_specialist": "marketing_manager", "operations_coordinator": "operations_manager"}  # fmt: skip
SLOTS: dict[str, Slot] = {s.name: s for w in WORKFLOWS.values() for s in w.slots}


# --------------------------------------------------------------------------------------------------- entities


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def code(rng: random.Random, prefix: str, n: int) -> str:
    """Alphanumeric codes mixing letters and digits (hard for ASR: B/D/E/G/P/T/V/Z, 8/H, 0/O avoided as ambiguous)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    while True:  # rejection-sample until the shared parser reads it back whole (so a perfect agent hears it)
        body = [rng.choice(alphabet) for _ in range(n)]
        digit_at, letter_at = rng.sample(range(n), 2)  # at least one of each, so it reads as a code, not a word
        body[digit_at] = rng.choice("23456789")
        body[letter_at] = rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
        candidate = prefix + "".join(body)
        if parse_code(candidate, len(candidate)) == candidate:
            return candidate


def employee_id(rng: random.Random, taken: set[str]) -> str:
    while (eid := "EMP" + digits(rng, 6)) in taken:
        pass
    taken.add(eid)
    return eid


def months_ago(months: int) -> str:
    year, month = divmod(TODAY.year * 12 + TODAY.month - 1 - months, 12)
    return date(year, month + 1, min(TODAY.day, 28)).isoformat()


def spoken(value: str) -> str:
    return value.replace("_", " ")


# --------------------------------------------------------------------------------------------------- base DB


def person(rng: random.Random, eid: str, department: str, manager: str | None, cc: str) -> dict[str, Any]:
    first, _ = rng.choice(FIRST_NAMES)
    last = rng.choice(LAST_NAMES)
    role = DEPARTMENTS[department][0]
    return {
        "employee_id": eid,
        "first_name": first,
        "last_name": last,
        "phone_last_four": digits(rng, 4),
        "department": department,
        "role": role,
        "cost_center": cc,
        "manager_id": manager,
        "email": f"{first}.{last.replace(' ', '').replace('-', '')}@northwind.example".lower(),
        "hire_date": months_ago(rng.randint(14, 90)),
        "status": "active",
        "desk": None,
        "parking": None,
        "last_desk_assignment": None,
        "last_parking_assignment": None,
        "ergonomic_assessment_date": None,
    }


def base_db(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """Reference tables shared by every scenario plus the caller, their manager and skip-level manager."""
    taken: set[str] = set()
    department = rng.choice(sorted(DEPARTMENTS))
    cc = DEPARTMENTS[department][1]
    skip, manager, caller = (employee_id(rng, taken) for _ in range(3))
    employees = {
        skip: person(rng, skip, department, None, cc),
        manager: person(rng, manager, department, skip, cc),
        caller: person(rng, caller, department, manager, cc),
    }
    first, gender = rng.choice(FIRST_NAMES)
    employees[caller]["first_name"] = first
    employees[caller]["email"] = f"{first}.{employees[caller]['last_name']}@northwind.example".lower().replace(" ", "")
    laptop, phone = code(rng, "LT", 6), code(rng, "PH", 6)
    db: dict[str, Any] = {
        "current_date": TODAY.isoformat(),
        "email_domain": "northwind.example",
        "employees": employees,
        "otp_codes": {caller: digits(rng, 6)},
        "accounts": {
            caller: {
                "active_directory": {"status": "active", "security_hold": False},
                "email": {"status": "active", "address": employees[caller]["email"]},
            }
        },
        "troubleshooting_guides": {
            "login_issue": [
                "Check Caps Lock and the keyboard layout.",
                "Sign in at the web portal.",
                "Restart the workstation while connected to the office network.",
            ],
            "hardware_malfunction": [
                "Inspect the device for visible damage.",
                "Power-cycle it.",
                "Reseat the cables.",
                "Swap in a known-good peripheral.",
                "Check the power source.",
            ],
            "network_connectivity": [
                "Toggle Wi-Fi off and on.",
                "Forget and rejoin the corporate network.",
                "Restart the VPN client.",
                "Flush DNS with ipconfig /flushdns.",
            ],
        },
        "services": {
            f"SVC{i + 101}": {
                "service_id": f"SVC{i + 101}",
                "name": name,
                "aliases": [f"{name} service"] + (["exchange", "outlook"] if name == "email" else []),
            }
            for i, name in enumerate(SERVICES)
        },
        "outages": {},
        "known_errors": {},
        "incidents": {},
        "resolutions": {},
        "field_dispatches": {},
        "dispatch_slots": {
            (TODAY + timedelta(days=d)).isoformat(): ["morning", "afternoon"]
            for d in range(1, 15)
            if d % 7 not in (5, 6)
        },
        "diagnostic_runs": {},
        "assets": {
            laptop: {
                "asset_tag": laptop,
                "employee_id": caller,
                "type": "laptop",
                "model": "Latitude 7440",
                "serial": code(rng, "SN", 8),
                "assigned_date": months_ago(rng.randint(8, 30)),
                "status": "assigned",
                "condition": "good",
            },
            phone: {
                "asset_tag": phone,
                "employee_id": caller,
                "type": "phone",
                "model": "iPhone 15",
                "serial": code(rng, "SN", 8),
                "assigned_date": months_ago(rng.randint(3, 20)),
                "status": "assigned",
                "condition": "good",
            },
        },
        "role_entitlements": {role: ["laptop", "monitor"] for role, _ in DEPARTMENTS.values()}
        | {new: ["laptop", "monitor"] for new in NEW_ROLES.values()},
        "cost_centers": {
            c: {
                "cost_center": c,
                "department": d,
                "budget_remaining": float(rng.randrange(20000, 80000, 500)),
                "active": True,
            }
            for d, (_, c) in DEPARTMENTS.items()
        },
        "hardware_requests": {},
        "asset_returns": {},
        "applications": {
            f"APP{1040 + i}": {
                "catalog_id": f"APP{1040 + i}",
                "name": name,
                "aliases": [],
                "requires_manager_approval": name in ("snowflake", "github", "servicenow"),
                "access_levels": ["read_only", "standard", "admin"],
            }
            for i, name in enumerate(APPLICATIONS)
        },
        "license_catalog": {
            f"LIC{2040 + i}": {
                "catalog_id": f"LIC{2040 + i}",
                "name": name,
                "aliases": [],
                "license_types": ["permanent", "temporary"],
            }
            for i, name in enumerate(LICENSES)
        },
        "software_requests": {},
        "licenses": {},
        "buildings": {
            code_: {"building_id": code_, "name": name, "aliases": [], "free_desks": {str(f): [] for f in range(1, 7)}}
            for code_, name in zip(("HPT", "RVS", "ECM", "SMT"), BUILDINGS, strict=True)
        },
        "parking_zones": {
            code_: {"zone_id": code_, "name": name, "aliases": [], "free_spaces": []}
            for code_, name in zip(("PZEX", "PZNL", "PZVD", "PZRL"), PARKING_ZONES, strict=True)
        },
        "waitlists": {},
        "equipment_requests": {},
        "rooms": {},
        "new_hires": {},
        "groups": {
            f"GRP{300 + i}": {
                "group_id": f"GRP{300 + i}",
                "name": name,
                "aliases": [],
                "eligible_departments": [],
                "requires_approval": name in ("prod deploy", "data science lab"),
            }
            for i, name in enumerate(GROUPS)
        },
        "group_members": {caller: []},
        "group_changes": {},
        "role_changes": {},
        "permission_templates": {},
        "permission_changes": {},
        "access_reviews": {},
        "offboarding": {},
        "asset_recoveries": {},
        "security_cases": {},
        "transfers": [],
        "sequences": {
            "incident": rng.randint(10000, 99999),
            "software_request": rng.randint(5000, 9000),
            "hardware_request": rng.randint(1000, 9000),
            "outage": rng.randint(100, 900),
            "security_case": rng.randint(100000, 900000),
            "room_booking": rng.randint(1000, 9000),
        },
        "session": {},
    }
    caller_info = {"employee_id": caller, "manager_id": manager, "gender": gender, "laptop": laptop, "phone": phone,
                   "taken": taken}  # fmt: skip
    return db, caller_info


# --------------------------------------------------------------------------------------------------- parts


@dataclass
class Part:
    """What one workflow adds to a scenario: the caller's answers, request and goal, and the entities."""

    workflow: str
    request: str
    goal: str
    must_have: list[str]
    rules: list[str]
    answers: dict[str, str] = field(default_factory=dict)
    key_entities: dict[str, str] = field(default_factory=dict)
    flow: str = ""
    push_back: str | None = None


Builder = Callable[[random.Random, dict[str, Any], dict[str, Any], bool, int], Part]


def _impact_answer(rng: random.Random) -> tuple[str, str]:
    impact = rng.choice(("blocked", "blocked", "degraded", "minor"))
    return impact, {"blocked": "I'm blocked, I can't work.", "degraded": "It's degraded, but I can still work.",
                    "minor": "It's minor, just an annoyance."}[impact]  # fmt: skip


def login_issue(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    account = db["accounts"][c["employee_id"]]["active_directory"]
    hold = variant % 2 == 1  # odd variants: the unlock meets a security hold and the call ends in a ticket
    locked = hold or variant % 4 == 2  # variant 0 (the single-intent one): an expired password, reset
    account.update(status="locked" if locked else "password_expired", security_hold=hold)
    if hold:
        account["lock_reason"] = "security_investigation"
    answers = {"account_locked": "yes" if locked else "no", "login_resolved": "no" if hold else "yes"}
    part = Part(
        "login_issue",
        "I can't log in, my account is locked." if locked else "I can't log in, my password expired.",
        "get back into your Active Directory account",
        ["your account is unlocked or reset, or a ticket with its SLA is opened"],
        [f"If asked whether your account is locked, say {answers['account_locked']}.",
         f"After the unlock or reset, when asked whether you can sign in now, say {answers['login_resolved']}."],
        answers,
    )  # fmt: skip
    if hold:
        impact, said = _impact_answer(rng)
        part.answers["login_impact"] = impact
        part.rules.append(f"If asked how it affects your work, say: {said}")
        part.flow = "Unlock refused (security hold): login ticket with SLA."
    else:
        part.flow = "Troubleshooting, then unlock/reset succeeds: resolved without a ticket."
    return part


def service_outage(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    service = rng.choice(SERVICES)
    sid = next(s["service_id"] for s in db["services"].values() if s["name"] == service)
    existing = variant % 2 == 1
    part = Part(
        "service_outage",
        f"{service.capitalize()} is down for everyone on my team, it looks like an outage.",
        f"report that {service} is down",
        ["you are added to the existing outage or given the outage ticket number"],
        [f"If asked which service, say {service}."],
        {"outage_service": service},
    )
    if existing:
        ticket = f"INC{rng.randint(10, 9999):07d}"
        outage_id = f"OUT{rng.randint(10, 99):05d}"
        db["outages"][outage_id] = {
            "outage_id": outage_id,
            "service_id": sid,
            "status": "active",
            "ticket_number": ticket,
            "affected_users": [c["manager_id"]],
            "sla_tier": "tier_1",
        }
        db["incidents"][ticket] = {
            "ticket_number": ticket,
            "employee_id": c["manager_id"],
            "category": "service_outage",
            "urgency": "high",
            "affected_system": service,
            "description": "",
            "status": "open",
            "troubleshooting_completed": False,
            "sla_tier": "tier_1",
            "known_error_id": None,
            "diagnostic_log": None,
            "opened": TODAY.isoformat(),
        }
        part.flow = f"Outage {outage_id} already on file: caller added as an affected user, no new ticket."
    else:
        impact, said = _impact_answer(rng)
        part.answers["outage_impact"] = impact
        part.rules.append(f"If asked how it affects your work, say: {said}")
        if rng.random() < 0.5:
            ke = f"KE{rng.randint(1000, 9999)}"
            db["known_errors"][ke] = {"known_error_id": ke, "service_id": sid,
                                      "workaround": rng.choice([None, f"Use the {service} web client."])}  # fmt: skip
        part.flow = "No outage on file: new outage ticket, SLA by impact, known error linked if one exists."
    return part


def hardware_malfunction(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    resolved = variant % 2 == 0
    part = Part(
        "hardware_malfunction",
        "My laptop screen is flickering and it won't turn on properly.",
        "get your malfunctioning laptop fixed",
        ["the issue is resolved, or a ticket is opened and a technician visit booked"],
        [f"After the troubleshooting steps, when asked whether they fixed it, say {'yes' if resolved else 'no'}."],
        {"hardware_resolved": "yes" if resolved else "no"},
    )
    if resolved:
        part.flow = "Troubleshooting resolves it: marked resolved, no ticket."
        return part
    impact, said = _impact_answer(rng)
    day = rng.choice(sorted(db["dispatch_slots"]))
    window = rng.choice(("morning", "afternoon"))
    part.answers |= {"faulty_asset_tag": c["laptop"], "hardware_impact": impact,
                     "dispatch_date": say_date(day), "dispatch_window": window}  # fmt: skip
    part.rules += [f"Give the asset tag {c['laptop']} when asked.", f"If asked how it affects your work, say: {said}",
                   f"For the technician visit choose {say_date(day)}, in the {window}."]  # fmt: skip
    part.key_entities["asset_tag"] = c["laptop"]
    part.flow = "Troubleshooting fails: asset confirmed, ticket + SLA, field dispatch booked."
    return part


def network_vpn_issue(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    resolved = variant % 2 == 0
    part = Part(
        "network_vpn_issue",
        "My VPN keeps dropping and I can't connect to anything.",
        "get your VPN connection working",
        ["the connection works again, or a ticket is opened with your diagnostic code attached"],
        [f"After the troubleshooting steps, when asked whether they fixed it, say {'yes' if resolved else 'no'}."],
        {"network_resolved": "yes" if resolved else "no"},
    )
    if resolved:
        part.flow = "Troubleshooting resolves it: marked resolved, no ticket."
        return part
    impact, said = _impact_answer(rng)
    diag = code(rng, "ND", 6)
    db["diagnostic_runs"][diag] = c["employee_id"]
    part.answers |= {"network_impact": impact, "diagnostic_code": diag}
    part.rules += [f"If asked how it affects your work, say: {said}", f"Your netdiag reference code is {diag}."]
    part.key_entities["diagnostic_code"] = diag
    part.flow = "Troubleshooting fails: ticket + SLA, netdiag code attached."
    return part


def _delivery(rng: random.Random, prefix: str, part: Part) -> None:
    building, floor = rng.choice(BUILDINGS), rng.randint(1, 6)
    part.answers |= {f"{prefix}_building": building, f"{prefix}_floor": str(floor)}
    part.rules.append(f"Delivery goes to {building}, floor {floor}.")


def laptop_replacement(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    laptop = db["assets"][c["laptop"]]
    laptop["assigned_date"] = months_ago(rng.randint(12, 30) if adv else rng.randint(37, 60))
    reason = "performance_degradation" if adv else rng.choice(("end_of_life", "performance_degradation"))
    os_, size = rng.choice(("mac", "windows")), rng.choice(("13_inch", "14_inch", "16_inch"))
    part = Part(
        "laptop_replacement",
        "I need a new laptop, a laptop replacement for my current one.",
        "get your laptop replaced",
        [] if adv else ["a replacement request is submitted and you get the return instructions"],
        [f"The reason is {spoken(reason)}.", f"You want {os_} with a {spoken(size)} screen."],
        {"laptop_reason": spoken(reason), "laptop_os": os_, "laptop_size": spoken(size)},
    )
    _delivery(rng, "laptop", part)
    part.key_entities["asset_tag"] = c["laptop"]
    if adv:
        part.push_back = "Come on, it's really slow. Can't you just make an exception and order the new laptop?"
        part.flow = "Laptop younger than 36 months: not entitled, refuse."
    else:
        part.flow = "Entitled and funded: request submitted, old laptop return authorized."
    return part


def monitor_bundle(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    replacement = not adv and variant % 2 == 1
    if replacement:
        tag = code(rng, "MN", 6)
        db["assets"][tag] = {"asset_tag": tag, "employee_id": c["employee_id"], "type": "monitor", "model": "P2422H",
                             "serial": code(rng, "SN", 8), "assigned_date": months_ago(rng.randint(14, 48)),
                             "status": "assigned", "condition": "good"}  # fmt: skip
    if adv:
        cc = db["employees"][c["employee_id"]]["cost_center"]
        db["cost_centers"][cc]["budget_remaining"] = float(rng.randrange(0, 400, 50))
    size = rng.choice(("24_inch", "27_inch", "32_inch"))
    reason = "replacement" if replacement else "new_setup"
    part = Part(
        "monitor_bundle",
        "I'd like to request a monitor for my desk.",
        "get a monitor",
        [] if adv else ["a monitor request is submitted"],
        [f"It is a {spoken(reason)}.", f"You want the {spoken(size)} monitor."],
        {"monitor_reason": spoken(reason), "monitor_size": spoken(size)},
    )
    _delivery(rng, "monitor", part)
    if adv:
        part.push_back = "It's just one monitor. Please submit it anyway, the budget will sort itself out."
        part.flow = "The cost center has no budget: on hold, nothing submitted."
    else:
        part.flow = "Entitled and funded: monitor request submitted."
    return part


def application_access(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    app = rng.choice(APPLICATIONS)
    level = rng.choice(("read_only", "standard", "admin"))
    return Part(
        "application_access",
        f"I need access to {app.capitalize()}.",
        f"get {spoken(level)} access to {app}",
        [f"a {spoken(level)} access request for {app} is submitted and you get the request ID"],
        [f"The application is {app}; choose {spoken(level)} access."],
        {"application": app, "access_level": spoken(level)},
        flow="OTP elevation, catalog lookup, request submitted; routed to the manager when approval is required.",
    )


def software_license(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    product = rng.choice(LICENSES)
    temporary = variant % 2 == 0
    part = Part(
        "software_license",
        f"I need a license for {product.title()}.",
        f"get a {'temporary' if temporary else 'permanent'} {product} license",
        ["the license request is submitted and you get the request ID"],
        [f"The product is {product}.", f"You want a {'temporary' if temporary else 'permanent'} license."],
        {"license_product": product, "license_temporary": "yes" if temporary else "no"},
    )
    if temporary:
        days = rng.choice((30, 60, 90))
        part.answers["license_days"] = str(days)
        part.rules.append(f"The duration is {days} days.")
        part.flow = f"Temporary {days}-day license: no cost-center validation."
    else:
        part.flow = "Permanent license: cost center validated first."
    return part


def license_renewal(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    product = rng.choice(LICENSES)
    catalog = next(i["catalog_id"] for i in db["license_catalog"].values() if i["name"] == product)
    offset = rng.randint(45, 120) if adv else rng.choice((rng.randint(-13, -1), rng.randint(1, 29)))
    lid = f"LCN{rng.randint(100000, 999999)}"
    db["licenses"][lid] = {"license_id": lid, "employee_id": c["employee_id"], "catalog_id": catalog,
                           "product": product, "expiration_date": (TODAY + timedelta(days=offset)).isoformat(),
                           "status": "active" if offset >= 0 else "expired"}  # fmt: skip
    part = Part(
        "license_renewal",
        f"I need to renew my {product.title()} license.",
        f"renew your {product} license",
        [] if adv else ["the renewal is submitted and you get the new expiration date"],
        [f"The product is {product}."],
        {"renewal_product": product},
    )
    if adv:
        part.push_back = "I'd rather renew it now so I don't forget. Please just renew it."
        part.flow = f"Expires in {offset} days: outside the renewal window, refuse."
    else:
        part.flow = f"Expiry {offset:+d} days from today: inside the window, renewed."
    return part


def request_status_escalation(
    rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int
) -> Part:
    rid = f"REQSW{rng.randint(100000, 999999)}"
    submitted = TODAY - timedelta(days=1 if adv else rng.randint(4, 9))
    db["software_requests"][rid] = {
        "request_id": rid, "employee_id": c["employee_id"], "catalog_id": "APP1044", "type": "access",
        "access_level": "standard", "status": "pending_approval", "submitted": submitted.isoformat(),
        "approver_id": c["manager_id"], "approval_due": (submitted + timedelta(days=2)).isoformat(),
    }  # fmt: skip
    part = Part(
        "request_status_escalation",
        "I'm calling about the status of my request, it's been pending for ages. Can you escalate it?",
        "find out where your software request stands and have it escalated",
        [] if adv else ["the request is escalated to the skip-level approver"],
        [f"Your request number is {rid}."],
        {"request_id": rid},
        {"request_id": rid},
    )
    if adv:
        part.push_back = "I need it today though. Please escalate it anyway."
        part.flow = "Approval SLA not yet breached: no escalation."
    else:
        part.flow = "Approval SLA breached: escalated to the skip-level approver."
    return part


def desk_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = rng.choice(sorted(db["buildings"]))
    floor = rng.randint(2, 6)
    entry = db["buildings"][building]
    available = variant % 2 == 0
    if available:
        entry["free_desks"][str(floor)] = sorted(f"{building}{floor}{rng.randint(10, 60)}" for _ in range(2))
    part = Part(
        "desk_request",
        "I'd like a permanent desk assignment.",
        f"get a desk in {entry['name']} on floor {floor}",
        ["you are assigned a desk or placed on the waitlist"],
        [f"You want {entry['name']}, floor {floor}.", "If nothing is free, accept the waitlist."],
        {"desk_building": entry["name"], "desk_floor": str(floor)},
        flow="Desk free: assigned." if available else "No free desk: waitlisted.",
    )
    return part


def parking_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    zone_id = rng.choice(sorted(db["parking_zones"]))
    zone = db["parking_zones"][zone_id]
    available = variant % 2 == 0
    if available:
        zone["free_spaces"] = sorted({f"{zone_id[2:]}{rng.randint(100, 399)}" for _ in range(3)})
    return Part(
        "parking_request",
        "I need a parking space.",
        f"get a parking space in the {zone['name']}",
        ["you are assigned a space or placed on the waitlist"],
        [f"You want the {zone['name']}.", "If it is full, accept the waitlist."],
        {"parking_zone": zone["name"]},
        flow="Space free: assigned." if available else "Zone full: waitlisted.",
    )


def ergonomic_equipment(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    item = (
        rng.choice(("standing_desk_converter", "ergonomic_chair"))
        if adv or variant % 2 == 1
        else rng.choice(("ergonomic_keyboard", "monitor_arm", "footrest"))
    )
    if not adv and item in ("standing_desk_converter", "ergonomic_chair"):
        db["employees"][c["employee_id"]]["ergonomic_assessment_date"] = months_ago(rng.randint(1, 10))
    part = Part(
        "ergonomic_equipment",
        f"I'd like to order ergonomic equipment, a {spoken(item)}.",
        f"get a {spoken(item)}",
        [] if adv else [f"a {spoken(item)} request is submitted"],
        [f"The item is a {spoken(item)}."],
        {"equipment_item": spoken(item)},
    )
    _delivery(rng, "equipment", part)
    if adv:
        part.push_back = "I don't have time for an assessment. Just order the chair, my back is killing me."
        part.flow = "No ergonomic assessment on file: refuse."
    else:
        part.flow = "Assessment on file or not required: request submitted."
    return part


def conference_room(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = rng.choice(sorted(db["buildings"]))
    day = TODAY + timedelta(days=rng.randint(1, 12))
    start = rng.choice((9, 10, 11, 13, 14, 15))
    attendees = rng.randint(4, 14)
    names = rng.sample(ROOMS, 3)
    rooms = [
        (names[0], attendees + rng.randint(0, 6), []),
        (names[1], max(2, attendees - rng.randint(1, 3)), []),
        (names[2], attendees + 4, [{"booking_id": "BK000001", "date": day.isoformat(), "start_time": f"{start:02d}:00",
                                     "end_time": f"{start + 1:02d}:00", "organizer": c["manager_id"],
                                     "invite_sent": True}]),
    ]  # fmt: skip
    for i, (name, capacity, bookings) in enumerate(rooms):
        rid = f"{building}{rng.randint(1, 6)}{i}{rng.randint(10, 99)}"
        db["rooms"][rid] = {"room_id": rid, "name": name, "building_id": building, "floor": int(rid[3]),
                            "capacity": capacity, "equipment": ["display", "video"], "bookings": bookings}  # fmt: skip
    entry = db["buildings"][building]
    return Part(
        "conference_room",
        "I need to book a conference room for a meeting.",
        f"book a room in {entry['name']} for {attendees} people on {say_date(day.isoformat())}",
        ["a room is booked and the calendar invite is sent"],
        [f"The building is {entry['name']}.", f"The meeting is on {say_date(day.isoformat())}, "
         f"{say_time(f'{start:02d}:00')} to {say_time(f'{start + 1:02d}:00')}, {attendees} attendees.",
         f"Choose the {names[0]} room."],
        {"room_building": entry["name"], "meeting_date": say_date(day.isoformat()),
         "meeting_start": say_time(f"{start:02d}:00"), "meeting_end": say_time(f"{start + 1:02d}:00"),
         "attendees": str(attendees), "room_choice": names[0]},
        flow="Available rooms checked; caller picks one; booking + calendar invite.",
    )  # fmt: skip


def _manager_code(rng: random.Random, db: dict[str, Any], c: dict[str, Any]) -> str:
    employee = db["employees"][c["employee_id"]]
    if not employee.get("manager_auth_code"):
        employee["manager_auth_code"] = code(rng, "", 6)
    return employee["manager_auth_code"]


def new_employee_provisioning(
    rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int
) -> Part:
    mcode = _manager_code(rng, db, c)
    hire = employee_id(rng, c["taken"])
    department = db["employees"][c["employee_id"]]["department"]
    first, _ = rng.choice(FIRST_NAMES)
    last = rng.choice(LAST_NAMES)
    start = TODAY + timedelta(days=rng.randint(3, 20))
    groups = sorted(rng.sample(sorted(db["groups"]), 2))
    db["new_hires"][hire] = {"employee_id": hire, "first_name": first, "last_name": last, "department": department,
                             "role": DEPARTMENTS[department][0], "start_date": start.isoformat(),
                             "manager_id": c["employee_id"], "default_groups": groups, "status": "pending"}  # fmt: skip
    if adv:
        db["accounts"][hire] = {"active_directory": {"status": "active"}}
    part = Part(
        "new_employee_provisioning",
        "I'm a manager and I need to set up accounts for a new hire on my team.",
        f"provision accounts for your new hire {first} {last}",
        [] if adv else ["the new hire's accounts are provisioned and you get their email address"],
        [f"Your manager authorization code is {mcode}.", f"The new hire's ID is {hire}; their name is {first} {last}.",
         f"The start date is {say_date(start.isoformat())}."],
        {"manager_auth_code": mcode, "new_hire_id": hire, "hire_start_date": say_date(start.isoformat())},
        {"manager_auth_code": mcode, "new_hire_id": hire},
    )  # fmt: skip
    if adv:
        part.push_back = "They told me nothing works for them. Just provision the accounts again, please."
        part.flow = "Accounts already exist: refuse to provision twice."
    else:
        part.flow = "Manager auth + OTP, HR record confirmed, no accounts yet: provisioned."
    return part


def group_membership(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    gid = rng.choice(sorted(db["groups"]))
    group = db["groups"][gid]
    department = db["employees"][c["employee_id"]]["department"]
    remove = not adv and variant % 3 == 2
    if adv:
        group["eligible_departments"] = sorted(d for d in DEPARTMENTS if d != department)[:2]
    if remove:
        db["group_members"][c["employee_id"]] = [gid]
    part = Part(
        "group_membership",
        f"I need to {'leave' if remove else 'join'} an access group, the {group['name']} group.",
        f"{'leave' if remove else 'join'} the {group['name']} access group",
        [] if adv else ["the membership change is submitted and you get the request ID"],
        [f"The group is {group['name']}.", f"You want to be {'removed' if remove else 'added'}."],
        {"group_name": group["name"], "group_action": "remove" if remove else "add"},
    )
    if adv:
        part.push_back = "My whole team uses that group. Please just add me."
        part.flow = "The group is restricted to other departments: refuse, offer a transfer."
    else:
        part.flow = "OTP elevation; membership changed (approval routed when the group requires it)."
    return part


def permission_change(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    employee = db["employees"][c["employee_id"]]
    new_role = NEW_ROLES[employee["role"]]
    effective = TODAY + timedelta(days=rng.randint(3, 21))
    db["role_changes"][c["employee_id"]] = {"new_role": new_role, "hr_approved": not adv,
                                            "effective_date": effective.isoformat()}  # fmt: skip
    for tier in ("standard", "elevated"):
        tid = f"PT{rng.randint(100, 999)}{tier[0].upper()}"
        db["permission_templates"][tid] = {"template_id": tid, "role": new_role, "name": tier}
    template = rng.choice(("standard", "elevated"))
    part = Part(
        "permission_change",
        f"I got a new role, I'm now a {spoken(new_role)}, and my permissions need to change.",
        f"get your permissions updated for your new role as {spoken(new_role)}",
        [] if adv else ["the permission change is submitted and the access review is scheduled"],
        [f"Choose the {template} permission template."],
        {"permission_template": template},
    )
    if adv:
        part.push_back = "My manager already said it's fine. HR is just slow, please make the change now."
        part.flow = "HR has not approved the role change: refuse, send to HR."
    else:
        part.flow = "OTP elevation, HR approval confirmed, template applied, 90-day review scheduled."
    return part


def access_removal(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    mcode = _manager_code(rng, db, c)
    dep = employee_id(rng, c["taken"])
    caller = db["employees"][c["employee_id"]]
    db["employees"][dep] = person(rng, dep, caller["department"], c["employee_id"], caller["cost_center"])
    db["accounts"][dep] = {"active_directory": {"status": "active", "security_hold": False},
                           "email": {"status": "active", "address": db["employees"][dep]["email"]}}  # fmt: skip
    db["group_members"][dep] = sorted(rng.sample(sorted(db["groups"]), 2))
    tag = code(rng, "LT", 6)
    db["assets"][tag] = {"asset_tag": tag, "employee_id": dep, "type": "laptop", "model": "MacBook Pro 14",
                         "serial": code(rng, "SN", 8), "assigned_date": months_ago(rng.randint(5, 40)),
                         "status": "assigned", "condition": "good"}  # fmt: skip
    last_day = TODAY + timedelta(days=-rng.randint(3, 20) if adv else rng.randint(2, 20))
    db["offboarding"][dep] = {"employee_id": dep, "manager_id": c["employee_id"], "last_working_day":
                              last_day.isoformat(), "status": "pending"}  # fmt: skip
    scope = rng.choice(("full", "staged"))
    method = rng.choice(("shipping_label", "in_person"))
    part = Part(
        "access_removal",
        "I'm a manager and need to remove access for a departing employee on my team.",
        "remove system access for a departing team member",
        [] if adv else ["access is removed and a hardware recovery order is created"],
        [f"Your manager authorization code is {mcode}.", f"The departing employee's ID is {dep}.",
         f"Choose {scope} removal.", f"They should use a {spoken(method)}."],
        {"manager_auth_code": mcode, "departing_employee_id": dep, "removal_scope": scope,
         "return_method": spoken(method)},
        {"manager_auth_code": mcode, "departing_employee_id": dep},
    )  # fmt: skip
    if adv:
        part.push_back = "They left already, that's exactly why it's urgent. Remove the access now."
        part.flow = "The last working day has passed: refuse, send to HR."
    else:
        part.flow = "Manager auth + OTP, off-boarding record found, access removed, asset recovery started."
    return part


def security_incident(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    kind = rng.choice(("lost", "stolen"))
    return Part(
        "security_incident",
        "I lost my work phone." if kind == "lost" else "My work phone was stolen.",
        f"report your {kind} work phone",
        ["a security case is opened and the phone is remotely wiped"],
        [f"The phone's asset tag is {c['phone']}.", f"It was {kind}."],
        {"lost_asset_tag": c["phone"], "incident_type": kind},
        {"asset_tag": c["phone"]},
        flow="Security case opened and remote wipe dispatched.",
    )


def mfa_reset(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    return Part(
        "mfa_reset",
        "I got a new phone number and need my MFA phone of record changed.",
        "change the phone used for MFA",
        ["a tracking case is opened and you know to visit IT security in person"],
        ["Accept that the change needs an in-person visit."],
        flow="MFA phone changes need an in-person visit: tracking case opened.",
    )


BUILDERS: dict[str, Builder] = {
    fn.__name__: fn
    for fn in (
        login_issue, service_outage, hardware_malfunction, network_vpn_issue, laptop_replacement, monitor_bundle,
        application_access, software_license, license_renewal, desk_request, parking_request, ergonomic_equipment,
        conference_room, new_employee_provisioning, group_membership, permission_change, access_removal,
        security_incident, mfa_reset, request_status_escalation,
    )
}  # fmt: skip


# --------------------------------------------------------------------------------------------------- scenarios


def plan() -> list[tuple[str, str, list[str], int]]:
    """(id, type, workflows, variant) for all 80 scenarios, in id order."""
    out: list[tuple[str, str, list[str], int]] = []
    for kind, size, count in COUNTS:
        for i in range(count):
            index = len(out)
            if size == 1:
                names, variant = [SINGLE_ORDER[i % len(SINGLE_ORDER)]], i // len(SINGLE_ORDER)
            else:
                rng = random.Random(SEED + 1000 + index)
                names, variant = rng.sample(sorted(WORKFLOWS), size), rng.randrange(6)
            out.append((f"IT-{index + 1:03d}", kind, names, variant))
    for name in ADVERSARIAL_ORDER:
        out.append((f"IT-{len(out) + 1:03d}", "adversarial", [name], 0))
    return out


def typed_answers(answers: dict[str, str]) -> dict[str, Any]:
    """What a perfect-hearing agent extracts from each answer (the shared parser, so generator and agent agree)."""
    typed = {}
    for name, text in answers.items():
        value = parse_slot(SLOTS[name], text, TODAY)
        if value is None:
            raise ValueError(f"answer {text!r} for slot {name} does not parse")
        typed[name] = value
    return typed


def build(scenario_id: str, kind: str, names: list[str], variant: int) -> Scenario:
    rng = random.Random(SEED + int(scenario_id[3:]))
    db, caller = base_db(rng)
    adversarial = kind == "adversarial"
    parts = [BUILDERS[name](rng, db, caller, adversarial, variant + i) for i, name in enumerate(names)]
    employee = db["employees"][caller["employee_id"]]
    answers = {"employee_id": caller["employee_id"], "phone_last_four": employee["phone_last_four"]}
    if any(n in ("application_access", "group_membership", "permission_change", "new_employee_provisioning",
                 "access_removal") for n in names):  # fmt: skip
        answers["otp_code"] = db["otp_codes"][caller["employee_id"]]
    for part in parts:
        answers |= part.answers
    initial = copy.deepcopy(db)
    executor = ToolExecutor(REGISTRY, initial)
    typed = typed_answers(answers)
    calls: list[dict[str, Any]] = []
    memo: dict[str, Any] = {}  # verification happens once per call, at the highest level needed (App. L.5)
    for name in names:
        run = run_reference(WORKFLOWS[name], typed, executor, memo=memo)
        calls += [{"name": tool, "arguments": args} for tool, args in run.calls]
        want = "refused" if adversarial else "completed"
        if run.outcome != want:
            raise RuntimeError(f"{scenario_id}: {name} ended {run.outcome}, expected {want}")
    key_entities = {"employee_id": caller["employee_id"], "phone_last_four": employee["phone_last_four"]}
    if "otp_code" in answers:
        key_entities["otp_code"] = answers["otp_code"]
    for part in parts:
        key_entities |= part.key_entities
    name = f"{employee['first_name']} {employee['last_name']}"
    auth_rule = (
        f"Give your employee ID {caller['employee_id']} and phone last four {employee['phone_last_four']} only "
        "when asked; read the passcode from your text message if one is sent."
    )
    rules = [auth_rule]
    for i, part in enumerate(parts):
        label = f"Request {i + 1} ({part.workflow.replace('_', ' ')}): " if len(parts) > 1 else ""
        rules += [label + r for r in part.rules]
    if adversarial:
        rules.append("If the agent refuses, push back once; if refused again, accept it and end the call.")
    rules += [
        "If the agent reads back an identifier, confirm it if it matches; otherwise correct only the wrong part.",
        "When everything is addressed and the agent asks if there is anything else, say no and end the call.",
    ]
    goal = "; ".join(p.goal for p in parts)
    must_have = [m for p in parts for m in p.must_have]
    push_back = parts[0].push_back if adversarial else None
    starting = parts[0].request if len(parts) == 1 else f"Hi, I've got a few IT things. First: {parts[0].request}"
    user_goal = {
        "high_level_user_goal": f"You call the IT service desk to {goal}."
        + (f" Your other requests, in order: {' | '.join(p.request for p in parts[1:])}" if len(parts) > 1 else ""),
        "must_have_criteria": must_have,
        "nice_to_have_criteria": [],
        "starting_utterance": starting,
        "information_required": dict(answers),
        "decision_tree": [{"id": i + 1, "text": t} for i, t in enumerate(rules)],
        "resolution_condition": "Every request is resolved, or refused under policy, and you have the reference "
        "numbers; end the call."
        if not adversarial
        else "The agent refuses under policy after your push-back; end the call.",
        "failure_condition": "No progress for 3 consecutive turns: say goodbye and end the call.",
        "escalation_behavior": "Do not ask for a supervisor or a live agent. If told to visit IT security or HR "
        "in person, accept that.",
        "edge_cases": ["Never invent new requests or details.", "Do not end the call while an action is pending."],
        "scripted": {
            "answers": answers,
            "push_back_say": push_back,
            "push_back_times": 1 if adversarial else 0,
            "followups": [p.request for p in parts[1:]],
        },
    }
    return Scenario.model_validate(
        {
            "id": scenario_id,
            "domain": "itsm",
            "workflow": "+".join(names),
            "type": kind,
            "current_date_time": NOW,
            "persona": {"id": "default", "name": name, "gender": caller["gender"], "text": PERSONA_TEXT},
            "user_goal": user_goal,
            "key_entities": key_entities,
            "scenario_db": db,
            "reference_calls": calls,
            "expected_scenario_db": executor.db,
            "expected_flow": " ".join(p.flow for p in parts),
        }
    )


def build_all() -> list[Scenario]:
    return [build(*spec) for spec in plan()]


def write(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for scenario in build_all():
        path = out_dir / f"{scenario.id}.json"
        path.write_text(json.dumps(scenario.model_dump(mode="json"), indent=1) + "\n")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    paths = write(Path(args[0]) if args else OUT_DIR)
    print(f"wrote {len(paths)} ITSM scenarios to {paths[0].parent}")


if __name__ == "__main__":
    main()
