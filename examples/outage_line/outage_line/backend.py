"""The outage line's back end as an evalkit domain: four tools on a small DB, executed (and recorded) by the harness.

DB layout::

    accounts:  {<account number>: {name, postcode}}
    outages:   {<postcode district>: {cause, restore_eta}}      known faults, by the postcode's first part
    reports:   {<reference>: {account_number, district, hazard, status}}
    callbacks: {<account number>: {phone}}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalkit.domains import Domain, DomainTexts, ToolRegistry, register_domain
from evalkit.domains.base import ToolArgs, ToolError

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


class AccountArgs(ToolArgs):
    account_number: str
    postcode: str


class DistrictArgs(ToolArgs):
    district: str


class ReportArgs(ToolArgs):
    account_number: str
    hazard: bool = False


class CallbackArgs(ToolArgs):
    account_number: str
    phone: str


def district_of(postcode: str) -> str:
    """The outward part of a postcode ("NV3 8QT" -> "NV3"; spaces may be missing: "NV38QT" -> "NV3")."""
    compact = postcode.replace(" ", "").upper()
    return compact[:-3] if len(compact) > 3 else compact


REGISTRY = ToolRegistry()


@REGISTRY.tool(AccountArgs, writes=False)
def verify_account(db: dict[str, Any], args: AccountArgs) -> dict[str, Any]:
    """Find an account by number; the postcode must be the property's."""
    account = db["accounts"].get(args.account_number)
    if account is None or account["postcode"].replace(" ", "") != args.postcode.replace(" ", "").upper():
        raise ToolError("not_verified", "no account with that number at that postcode")
    return {"name": account["name"], "district": district_of(account["postcode"])}


@REGISTRY.tool(DistrictArgs, writes=False)
def outage_status(db: dict[str, Any], args: DistrictArgs) -> dict[str, Any]:
    """Known faults in a postcode district, with the estimated time power is back."""
    fault = db["outages"].get(args.district.upper())
    return {"known_fault": fault is not None, **(fault or {})}


@REGISTRY.tool(ReportArgs, writes=True)
def report_outage(db: dict[str, Any], args: ReportArgs) -> dict[str, Any]:
    """Log a fault at a verified account's property (hazard: a wire down, sparking)."""
    account = db["accounts"].get(args.account_number)
    if account is None:
        raise ToolError("not_found", "no such account")
    reference = f"F{7400 + len(db['reports']) + 1}"  # deterministic: the same call gets the same reference
    db["reports"][reference] = {
        "account_number": args.account_number,
        "district": district_of(account["postcode"]),
        "hazard": args.hazard,
        "status": "emergency crew dispatched" if args.hazard else "open",
    }
    return {"reference": reference, "report_status": db["reports"][reference]["status"]}


@REGISTRY.tool(CallbackArgs, writes=True)
def request_callback(db: dict[str, Any], args: CallbackArgs) -> dict[str, Any]:
    """Ask an engineer to call the account holder back on a number."""
    if args.account_number not in db["accounts"]:
        raise ToolError("not_found", "no such account")
    db["callbacks"][args.account_number] = {"phone": args.phone.replace(" ", "")}
    return {"booked": True}


TEXTS = DomainTexts(
    agent_personality="You are Robin, the voice agent of Northvale Power's outage line.",
    agent_instructions="Verify the account (number and postcode) before reporting on it or logging anything; give "
    "safety advice first when a wire is down.",
    simulator_role="You are a Northvale Power customer calling its outage line.",
    simulator_domain_notes="",
)

DOMAIN = register_domain(
    Domain(name="outage_line", tools=REGISTRY, texts=TEXTS, scenario_dir=SCENARIOS, workflows={}), __name__
)
