"""``Call(each=..., total=...)`` (issue 28.4): one call per item of a list, with result fields summed over the calls,
on a small returns domain built here: every parcel of an order sent back, the refunds of all of them paid in one
payment and quoted as one figure, by the reference run and by the engine alike."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains.base import ToolArgs, ToolExecutor, ToolRegistry
from evalkit.domains.workflow import (
    REQUESTED,
    Ask,
    Call,
    Derived,
    Say,
    Slot,
    Workflow,
    WorkflowError,
    run_reference,
    totalled,
)

TODAY = date(2026, 6, 18)
REGISTRY = ToolRegistry()


class OrderArgs(ToolArgs):
    order_id: str


class ParcelArgs(ToolArgs):
    order_id: str
    parcel_id: str


class PayArgs(ToolArgs):
    order_id: str
    amount: float


@REGISTRY.tool(OrderArgs, writes=False)
def get_order(db: dict[str, Any], args: OrderArgs) -> dict[str, Any]:
    return {"order": db["orders"][args.order_id]}


@REGISTRY.tool(ParcelArgs, writes=True)
def return_parcel(db: dict[str, Any], args: ParcelArgs) -> dict[str, Any]:
    """Send one parcel back: its refund, and a restocking fee only on opened ones (a field some results lack)."""
    parcel = db["orders"][args.order_id]["parcels"][args.parcel_id]
    parcel["returned"] = True
    fee = {"restocking_fee": 5.0} if parcel["opened"] else {}
    return {"parcel_id": args.parcel_id, "refund": parcel["price"], **fee}


@REGISTRY.tool(PayArgs, writes=True)
def pay_refund(db: dict[str, Any], args: PayArgs) -> dict[str, Any]:
    db["payments"].append(args.model_dump())
    return {"paid": args.amount}


PARCELS = Derived(lambda found: [{"parcel_id": p} for p in found["order"]["parcels"]], "$found")
STEPS = (
    Ask(Slot("order_id", "code", "What is your order number?", label="order number", length=6)),
    Call("get_order", {"order_id": "$order_id"}, name="found"),
    Call(
        "return_parcel",
        {"order_id": "$order_id"},
        name="returned",
        each=PARCELS,
        total=("refund", "restocking_fee"),
    ),
    Call("pay_refund", {"order_id": "$order_id", "amount": "$returned.refund"}),
    Say("All parcels are on their way back: {returned.refund} dollars refunded, {returned.restocking_fee} in fees."),
)
WORKFLOWS = {"returns": Workflow("returns", "Return an order.", ("return",), STEPS)}


def fresh_db() -> dict[str, Any]:
    parcels = {"P1": {"price": 20.0, "opened": False}, "P2": {"price": 35.5, "opened": True}}
    return {"orders": {"ORD123": {"parcels": parcels}}, "payments": []}


def test_the_reference_run_sums_the_named_fields_over_every_call() -> None:
    WORKFLOWS["returns"].check(REGISTRY)
    executor = ToolExecutor(REGISTRY, fresh_db())
    run = run_reference(WORKFLOWS["returns"], {"order_id": "ORD123"}, executor)
    assert [name for name, _ in run.calls] == ["get_order", "return_parcel", "return_parcel", "pay_refund"]
    # the totals over both parcels; any other field is the last call's
    assert run.scope["returned"]["refund"] == 55.5 and run.scope["returned"]["restocking_fee"] == 5.0
    assert run.scope["returned"]["parcel_id"] == "P2"
    assert executor.db["payments"] == [{"order_id": "ORD123", "amount": 55.5}]
    assert all(p["returned"] for p in executor.db["orders"]["ORD123"]["parcels"].values())


def test_the_engine_pays_and_quotes_the_total() -> None:
    executor = ToolExecutor(REGISTRY, fresh_db())
    agent = WorkflowPolicy(ToolBox(executor), TODAY, WORKFLOWS)
    agent.greet()
    replies = [agent.step(line).text for line in ("I'd like to return my order.", "O R D 1 2 3", "Yes.")]
    assert "55.5 dollars refunded, 5 in fees" in replies[-1], replies
    assert executor.db["payments"] == [{"order_id": "ORD123", "amount": 55.5}]


def test_a_field_no_result_has_totals_zero_and_total_needs_each() -> None:
    step = STEPS[2]
    assert isinstance(step, Call)
    assert totalled(step, [{"refund": 1.0, "x": "a"}, {"refund": 2, "x": "b"}]) == {
        "refund": 3.0,
        "restocking_fee": 0,
        "x": "b",
    }
    with pytest.raises(WorkflowError, match="total= sums the results of an each= call"):
        Call("pay_refund", {"order_id": "$order_id"}, total=("paid",))


def named_or_all(found: dict[str, Any], requested: str) -> list[dict[str, str]]:
    """The parcels the caller's request names ("just parcel P2"), else every one."""
    parcels = list(found["order"]["parcels"])
    return [{"parcel_id": p} for p in parcels if p.lower() in requested.lower().split()] or [
        {"parcel_id": p} for p in parcels
    ]


def test_the_caller_s_request_is_in_scope_as_requested() -> None:
    step = Call(
        "return_parcel",
        {"order_id": "$order_id"},
        name="returned",
        each=Derived(named_or_all, "$found", f"${REQUESTED}"),
        total=("refund",),
    )
    named = Workflow("returns", "Return an order.", ("return",), (*STEPS[:2], step, *STEPS[3:]))
    named.check(REGISTRY)  # $requested needs no step to gather it
    run = run_reference(named, {"order_id": "ORD123", REQUESTED: "return just p2"}, ToolExecutor(REGISTRY, fresh_db()))
    assert run.scope["returned"]["refund"] == 35.5
    executor = ToolExecutor(REGISTRY, fresh_db())
    agent = WorkflowPolicy(ToolBox(executor), TODAY, {"returns": named})
    agent.greet()
    for line in ("I'd like to return just P2 of my order.", "O R D 1 2 3", "Yes."):
        reply = agent.step(line).text
    assert "35.5 dollars refunded" in reply and executor.db["payments"][0]["amount"] == 35.5, reply
