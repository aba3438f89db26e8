"""Part builders for incidents (login, outage, hardware, network/VPN) and security (incident, MFA reset)."""

from __future__ import annotations

import random
from typing import Any

from evalkit.domains.itsm.api import content_id
from evalkit.domains.itsm.generate.base_db import person
from evalkit.domains.itsm.generate.entities import code, digits, employee_id, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import BUILDINGS, TODAY
from evalkit.domains.itsm.workflows import SERVICES
from evalkit.spoken import say_date

SYSTEM_WORDS = {
    "active_directory": "active directory",
    "sso_identity": "SSO identity",
    "email_exchange": "email exchange",
    "vpn_gateway": "VPN gateway",
    "erp_oracle": "ERP oracle",
}
URGENCY_WORDS = {
    "high": "I'm completely blocked, I can't work.",
    "medium": "It's degraded, I can work around it for now.",
    "low": "It's minor, it can wait.",
}


def _urgency(rng: random.Random, part: Part, slot: str) -> None:
    level = rng.choice(("high", "high", "medium", "low"))
    part.answers[slot] = URGENCY_WORDS[level]
    part.rules.append(f"If asked how it affects your work, say: {URGENCY_WORDS[level]}")


def _resolved_rule(part: Part, slot: str, resolved: bool) -> None:
    part.answers[slot] = "yes" if resolved else "no"
    part.rules.append(f"After the troubleshooting steps, when asked whether they fixed it, say {part.answers[slot]}.")


def login_issue(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    system = "active_directory" if variant % 3 != 2 else rng.choice(("email_exchange", "vpn_gateway"))
    account = db["employees"][c["employee_id"]]["account_status"][system]
    hold = variant % 2 == 1  # odd variants: the unlock meets a security hold and the call ends in a ticket
    locked = hold or variant % 4 == 2  # variant 0 (the single-intent one): an expired password, reset
    account.update(
        locked=locked, lock_reason="security_investigation" if hold else "failed_attempts" if locked else None
    )
    if not locked:
        account["password_expired"] = True
    part = Part(
        "login_issue",
        "I can't log in, my account is locked." if locked else "I can't log in, my password expired.",
        f"get back into your {SYSTEM_WORDS[system]} account",
        ["your account is unlocked or reset, or a ticket with its SLA is opened"],
        [f"The system is {SYSTEM_WORDS[system]}.",
         f"If asked whether your account is locked, say {'yes' if locked else 'no, my password expired'}."],
        {"target_system": SYSTEM_WORDS[system], "account_locked": "yes" if locked else "no, my password expired"},
    )  # fmt: skip
    if hold:
        _urgency(rng, part, "login_urgency")
        part.flow = "Unlock refused (security hold): login ticket with SLA."
    else:
        part.flow = "Troubleshooting, then unlock/reset succeeds: resolved without a ticket."
    return part


def service_outage(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    service = rng.choice(SERVICES)
    said = spoken(service)
    existing = variant % 2 == 1
    part = Part(
        "service_outage",
        f"The {said} is down for everyone on my team, it looks like an outage.",
        f"report that the {said} service is down",
        ["you are added to the existing outage or given the outage ticket number"],
        [f"If asked which service, say {said}."],
        {"affected_service": said},
    )
    if existing:
        reporter = employee_id(rng, c["taken"])
        db["employees"][reporter] = person(rng, reporter, db["employees"][c["employee_id"]]["department_code"], None)
        ticket: dict[str, Any] = {
            "ticket_number": None,
            "employee_id": reporter,
            "category": "service_outage",
            "urgency": "high",
            "affected_system": service,
            "troubleshooting_completed": False,
            "status": "open",
            "sla_tier": "tier_1",
            "created_date": TODAY.isoformat(),
        }
        number = ticket["ticket_number"] = content_id("INC", ticket)
        ticket.update(sla_response_hours=1, sla_resolution_hours=4)
        db["tickets"][number] = ticket
        db["active_outages"][service] = {
            "service_name": service,
            "ticket_number": number,
            "status": "investigating",
            "description": f"{said} unavailable for several teams",
            "affected_users": [reporter],
            "affected_user_count": 1,
        }
        part.flow = "Outage already on file: caller added as an affected user, no new ticket."
    else:
        _urgency(rng, part, "outage_urgency")
        if rng.random() < 0.5:
            known = f"KE-{rng.randint(1000, 9999)}"
            db["known_errors"][service] = {
                "known_error_id": known,
                "service_name": service,
                "summary": f"{said} regression after an update",
                "workaround": rng.choice([None, f"Use the {said} web client."]),
            }
        part.flow = "No outage on file: new outage ticket, SLA by urgency, known error linked if one exists."
    return part


def hardware_malfunction(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    resolved = variant % 2 == 0
    part = Part(
        "hardware_malfunction",
        "My laptop screen is flickering and it won't turn on properly.",
        "get your malfunctioning laptop fixed",
        ["the issue is resolved, or a ticket is opened and a technician visit booked"],
        [],
    )
    _resolved_rule(part, "hardware_resolved", resolved)
    if resolved:
        part.flow = "Troubleshooting resolves it: marked resolved, no ticket."
        return part
    _urgency(rng, part, "hardware_urgency")
    day = rng.choice(sorted(db["field_dispatch_availability"]))
    window = rng.choice(("morning", "afternoon"))
    building = BUILDINGS[db["employees"][c["employee_id"]]["building_code"]][0]
    floor = db["employees"][c["employee_id"]]["floor_code"]
    part.answers |= {"faulty_device": "my laptop", "preferred_date": say_date(day), "preferred_time_window": window,
                     "dispatch_building": building, "dispatch_floor": floor}  # fmt: skip
    part.rules += [f"For the technician visit choose {say_date(day)}, in the {window}, at {building}, {floor}."]
    part.key_entities["asset_tag"] = c["laptop"]
    part.flow = "Troubleshooting fails: asset looked up, ticket + SLA, field dispatch booked."
    return part


def network_vpn_issue(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    resolved = variant % 2 == 0
    network = rng.choice(("vpn", "wifi"))
    part = Part(
        "network_vpn_issue",
        "My VPN keeps dropping and I can't connect to anything."
        if network == "vpn"
        else "The wifi keeps dropping and I can't connect to anything.",
        f"get your {network} connection working",
        ["the connection works again, or a ticket is opened with your diagnostic code attached"],
        [],
    )
    _resolved_rule(part, "network_resolved", resolved)
    if resolved:
        part.flow = "Troubleshooting resolves it: marked resolved, no ticket."
        return part
    _urgency(rng, part, "network_urgency")
    diagnostic = "DIAG-" + code(rng, "", 8)
    part.answers |= {"network_type": network, "diagnostic_ref_code": diagnostic}
    part.rules += [f"It's the {network}.", f"Your diagnostic reference code is {diagnostic}."]
    part.key_entities["diagnostic_ref_code"] = diagnostic
    part.flow = "Troubleshooting fails: ticket + SLA, diagnostic code attached."
    return part


def security_incident(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    kind = rng.choice(("lost", "stolen"))
    return Part(
        "security_incident",
        "I lost my work laptop." if kind == "lost" else "My work laptop was stolen.",
        f"report your {kind} work laptop",
        ["a security case is opened and the laptop is remotely wiped"],
        ["It's your laptop.", f"It was {kind}.", "Agree to the remote wipe."],
        {"lost_device": "my laptop", "incident_type": kind},
        {"asset_tag": c["laptop"]},
        flow="Security case opened and remote wipe dispatched.",
    )


def mfa_reset(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    new_four = digits(rng, 4)
    return Part(
        "mfa_reset",
        "I got a new phone number and need my MFA phone of record changed.",
        "change the phone used for MFA",
        ["a tracking case is opened and you know to visit IT security in person"],
        [f"The new number ends in {new_four}.", "Accept that the change needs an in-person visit."],
        {"new_phone_last_four": new_four},
        {"new_phone_last_four": new_four},
        flow="MFA phone changes need an in-person visit: tracking case opened.",
    )
