"""Part builders for software: application access, licenses, renewals and request status escalations."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.api import content_id
from evalkit.domains.itsm.generate.entities import digits, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import APPLICATIONS, LICENSES, TODAY


def application_access(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    name, _, levels, _ = APPLICATIONS[rng.choice(sorted(APPLICATIONS))]
    level = rng.choice(levels)
    return Part(
        "application_access",
        f"I need access to {name}.",
        f"get {spoken(level)} access to {name}",
        [f"a {spoken(level)} access request for {name} is submitted and you get the request ID"],
        [f"The application is {name}; choose {spoken(level)} access."],
        {"application_name": name, "access_level": spoken(level)},
        flow="Catalog lookup, OTP elevation, request submitted; routed to the manager when approval is required.",
    )


def software_license(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    name, _ = LICENSES[rng.choice(sorted(LICENSES))]
    temporary = variant % 2 == 0
    kind = "temporary" if temporary else "permanent"
    part = Part(
        "software_license",
        f"I need a license for {name}.",
        f"get a {kind} {name} license",
        ["the license request is submitted and you get the request ID"],
        [f"The product is {name}.", f"You want a {kind} license."],
        {"license_product_name": name, "license_temporary": "yes" if temporary else "no, a permanent one"},
    )
    if temporary:
        days = rng.choice((30, 60, 90))
        part.answers["duration_days"] = f"{days} days"
        part.rules.append(f"The duration is {days} days.")
        part.flow = f"Temporary {days}-day license: no cost-center validation."
    else:
        part.flow = "Permanent license: cost center validated first."
    return part


def license_renewal(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    catalog_id = rng.choice(sorted(LICENSES))
    name = LICENSES[catalog_id][0]
    offset = rng.randint(45, 120) if adv else rng.choice((rng.randint(-13, -1), rng.randint(1, 29)))
    assignment = f"LASGN-{digits(rng, 6)}"
    db["employees"][c["employee_id"]]["software_licenses"].append(
        {
            "license_assignment_id": assignment,
            "catalog_id": catalog_id,
            "software_name": name,
            "license_type": "permanent",
            "expiration_date": (TODAY + timedelta(days=offset)).isoformat(),
            "status": "active" if offset >= 0 else "expired",
        }
    )
    part = Part(
        "license_renewal",
        f"I need to renew my {name} license.",
        f"renew your {name} license",
        [] if adv else ["the renewal is submitted and you get the new expiration date"],
        [f"The product is {name}."],
        {"renewal_product_name": name},
    )
    return part.outcome(
        adv,
        done=f"Expiry {offset:+d} days from today: inside the window, renewed.",
        refused=f"Expires in {offset} days: outside the renewal window, refuse.",
        push_back="I'd rather renew it now so I don't forget. Please just renew it.",
    )


def request_status_escalation(
    rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int
) -> Part:
    catalog_id = rng.choice(sorted(a for a, entry in APPLICATIONS.items() if entry[3]))
    submitted = TODAY - timedelta(days=1 if adv else rng.randint(4, 9))
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": c["employee_id"],
        "catalog_id": catalog_id,
        "application_name": APPLICATIONS[catalog_id][0],
        "access_level": "standard",
        "status": "pending_approval",
        "requires_manager_approval": True,
        "created_date": submitted.isoformat(),
    }
    request_id = request["request_id"] = content_id("REQ-SW-", request)
    request.update(
        approval_routed_to=c["manager_id"], approval_sla_deadline=f"{(submitted + timedelta(days=2)).isoformat()} 00:00"
    )
    db["requests"][request_id] = request
    part = Part(
        "request_status_escalation",
        "I'm calling about the status of my request, it's been pending for ages. Can you escalate it?",
        "find out where your software request stands and have it escalated",
        [] if adv else ["the request is escalated to the skip-level approver"],
        [f"Your request number is {request_id}."],
        {"request_id": request_id},
        {"request_id": request_id},
    )
    return part.outcome(
        adv,
        done="Approval deadline passed: escalated to the skip-level approver.",
        refused="Approval deadline not yet passed: no escalation.",
        push_back="I need it today though. Please escalate it anyway.",
    )
