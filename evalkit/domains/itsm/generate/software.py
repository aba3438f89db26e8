"""Part builders for software: application access, licenses, renewals and request status escalations."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.entities import spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import TODAY
from evalkit.domains.itsm.workflows import APPLICATIONS, LICENSES


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
