"""Build the airline scenario files: initial DB, reference path and the expected DB it produces.

Run ``python -m evalkit.domains.airline.generate`` to rewrite ``scenarios/*.json``. The expected end state is
never typed by hand: it is the executor's result of the reference calls on the initial DB (EVA-Bench builds
goal, initial DB and expected DB jointly; this keeps them consistent by construction).

50 scenarios over Table 42's seven categories: AL-001..005 are hand-written (AL-001 is App. J.1's scenario with our
own codes); AL-006..050 come from per-category builders whose names, codes, routes and times are drawn from a
random stream seeded by the scenario id, so adding a scenario never changes another. Each builder states the
category's policy outcome (fees, vouchers, refunds) in its reference calls; the executor then produces the end state.

The package: ``records`` (clock, DB records, reference calls), ``handwritten`` (AL-001..005), ``draws`` (the seeded
draws and the scenario spec), ``changes`` and ``cancellations`` (the category builders); this module lists the
scenarios, builds them and writes the files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit.domains.airline.generate.cancellations import cancellation, compensation, exhausted, waiver_escalation
from evalkit.domains.airline.generate.changes import irrops, missed_connection, same_day, standby_request, voluntary
from evalkit.domains.airline.generate.handwritten import (
    cancel_refund,
    compensation_claim,
    same_day_change,
    same_day_change_gold,
    voluntary_change,
)
from evalkit.domains.airline.generate.records import NOW, TODAY
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.base import ToolExecutor
from evalkit.scenarios.schema import Scenario

__all__ = ["BUILDERS", "GENERATED", "NOW", "OUT_DIR", "TODAY", "build", "main", "named"]

OUT_DIR = Path(__file__).resolve().parent.parent / "scenarios"


def named(sid: str, make: Callable[..., dict[str, Any]], **kw: Any) -> Callable[[], dict[str, Any]]:
    builder = lambda: make(sid, **kw)  # noqa: E731 - a named zero-argument builder per scenario
    builder.__name__ = sid.replace("-", "_").lower()
    return builder


GENERATED = [
    # voluntary change (1.x)
    named("AL-006", voluntary, fare_class="business", target_fare=959),
    named("AL-007", voluntary, fare_class="main_cabin", target_fare=249, elite="platinum", pref="window"),
    named("AL-008", voluntary, fare_class="main_cabin", target_fare=199, max_fee=100),
    named("AL-009", voluntary, fare_class="premium_economy", target_fare=639, max_fee=200),
    named("AL-010", voluntary, fare_class="basic_economy", target_fare=189, meal_request="vegetarian"),
    named("AL-011", voluntary, fare_class="first", target_fare=1190, pref="window"),
    named("AL-012", voluntary, fare_class="main_cabin", target_fare=269, sold_out=True),
    # same-day change and standby (4.x)
    named("AL-013", same_day, fare_class="basic_economy", target_fare=159, max_fee=100),
    named("AL-014", same_day, fare_class="business", target_fare=939, max_fee=150, pref="aisle"),
    named("AL-015", standby_request),
    named("AL-016", standby_request, elite="gold", pick=1),
    named("AL-017", standby_request, tomorrow=True),
    # IRROPS rebooking (2.x)
    named("AL-018", irrops, cause="weather"),
    named("AL-019", irrops, cause="mechanical", same_day_seats=False),
    named("AL-020", irrops, cancelled=False, delay=300, cause="crew availability"),
    named("AL-021", irrops, cancelled=False, delay=165, cause="air traffic control"),
    named("AL-022", irrops, cancelled=False, status="schedule_change", delay=150, cause="schedule change"),
    named("AL-023", irrops, cause="weather", reject_today=True),
    named("AL-024", irrops, cause="mechanical", meal_request="vegan"),
    named("AL-025", irrops, cancelled=False, delay=90, cause="late inbound aircraft"),
    # missed connection (3.x)
    named("AL-026", missed_connection),
    named("AL-027", missed_connection, next_full=True),
    named("AL-028", missed_connection, next_full=True, take_standby=False),
    named("AL-029", missed_connection, none_today=True),
    named("AL-030", missed_connection, elite="gold"),
    named("AL-031", missed_connection, reject_today=True),
    # cancellation and refund (5.x)
    named("AL-032", cancellation, fare_class="main_cabin"),
    named("AL-033", cancellation, fare_class="main_cabin", accept=False),
    named("AL-034", cancellation, fare_class="basic_economy", booked="2026-06-17T15:30", departs="2026-06-28"),
    named("AL-035", cancellation, fare_class="main_cabin", booked="2026-06-17T15:30", departs="2026-06-22"),
    named("AL-036", cancellation, fare_class="main_cabin", disrupted=True, departs=TODAY),
    named("AL-037", cancellation, fare_class="business"),
    named("AL-038", cancellation, fare_class="premium_economy", elite="platinum"),
    named("AL-039", cancellation, fare_class="first", fare_type="refundable"),
    # escalation and availability constraints (6.x)
    named(
        "AL-040",
        waiver_escalation,
        reason="bereavement",
        opening="My father passed away and I need to change my flight for the funeral. Can you waive the fee?",
    ),
    named(
        "AL-041",
        waiver_escalation,
        reason="medical emergency",
        opening="I had a medical emergency and need to change my flight without the change fee.",
    ),
    named(
        "AL-042",
        waiver_escalation,
        reason="military orders",
        accept=False,
        opening="I've received military orders and need the change fee waived on my flight.",
    ),
    named("AL-043", exhausted, cancelled=True, take_refund=True),
    named("AL-044", exhausted, cancelled=True, take_refund=False),
    named("AL-045", exhausted, cancelled=False, take_refund=False),
    named("AL-046", compensation, delay=80, supervisor=True),
    # adversarial compensation claims (7.x)
    named("AL-047", compensation, delay=100, hotel_claim=True),
    named("AL-048", compensation, status="on_time", delay=0),
    named("AL-049", compensation, delay=115, push_backs=2),
    named("AL-050", compensation, status="cancelled", delay=0),
]

BUILDERS = [same_day_change, voluntary_change, cancel_refund, same_day_change_gold, compensation_claim, *GENERATED]


def build(plan: dict[str, Any]) -> Scenario:
    executor = ToolExecutor(REGISTRY, plan["db"])
    for name, arguments in plan["calls"]:
        result = executor.call(name, arguments)
        if result["status"] != "success":
            raise RuntimeError(f"{plan['id']}: reference call {name} failed: {result}")
    return Scenario.model_validate(
        {
            "id": plan["id"],
            "domain": "airline",
            "workflow": plan["workflow"],
            "type": plan["type"],
            "current_date_time": NOW,
            "persona": plan["persona"],
            "user_goal": plan["goal"],
            "key_entities": plan["key_entities"],
            "scenario_db": plan["db"],
            "reference_calls": [{"name": n, "arguments": a} for n, a in plan["calls"]],
            "expected_scenario_db": executor.db,
            "expected_flow": plan["expected_flow"],
        }
    )


def main() -> None:
    OUT_DIR.mkdir(exist_ok=True)
    for builder in BUILDERS:
        scenario = build(builder())
        path = OUT_DIR / f"{scenario.id}.json"
        path.write_text(json.dumps(scenario.model_dump(mode="json"), indent=1, sort_keys=False) + "\n")
        print(f"wrote {path}")
