"""Part builders for incidents (login, outage, hardware, network/VPN) and security (incident, MFA reset)."""

from __future__ import annotations

import random
from typing import Any

from evalkit.domains.itsm.generate.entities import code
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import TODAY
from evalkit.domains.itsm.workflows import SERVICES
from evalkit.spoken import say_date


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
