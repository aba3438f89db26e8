"""Airline's IRROPS rebooking and missed connections on the workflow engine
(issue 28.4, ``evalkit/domains/airline/workflows/disruptions.py``):
in text mode with the scripted caller it completes every IRROPS scenario, with the
reference calls: a cancellation rebooked the same day or, with nothing open or the caller taking none, the next day
(``Offer(fall_through=True)``), a delay's meal voucher issued first, the overnight meal and hotel vouchers, a meal
request carried over, and a delay that is no IRROPS disruption refused a free change; a missed connection rebooked
free, a hotel night when the new flight is the next day, and standby offered on a full flight that leaves earlier
the same day (taken or declined as the caller's goal says)."""

from __future__ import annotations

import numpy as np
import pytest

from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.airline.workflows.disruptions import vouchers_after, what_happened
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.text_dialogue import run_text_dialogue, transcript
from tests.test_airline_workflow import engine_completes


def test_the_irrops_and_missed_connection_workflows_are_well_formed() -> None:
    WORKFLOWS["irrops_rebooking"].check(REGISTRY)
    WORKFLOWS["missed_connection"].check(REGISTRY)


# AL-018/024 cancelled, rebooked today (a vegan meal carried over on 024); AL-019 nothing open today: the next day,
# overnight vouchers; AL-020/021/022 a delay or schedule change, its meal voucher first; AL-023 the caller takes
# none of today's flights: the next day; AL-025 a 90-minute delay, no IRROPS disruption: no free change
@pytest.mark.parametrize("sid", ["AL-018", "AL-019", "AL-020", "AL-021", "AL-022", "AL-023", "AL-024", "AL-025"])
def test_the_engine_completes_irrops_rebookings_with_the_reference_calls(sid: str) -> None:
    lines = engine_completes(sid)
    said = " ".join(t for r, t in lines if r == "assistant")
    if sid == "AL-025":
        assert "isn't a disruption that waives change fees" in said
    else:
        assert "no change fee and no fare difference" in said  # said before the rebooking is made


def test_the_disruption_record_decides_the_free_change_and_a_delay_s_meal_voucher() -> None:
    def record(kind: str, delay: int | None, irrops: bool) -> dict:
        return {"disruption": {"disruption_type": kind, "delay_minutes": delay, "is_irrops": irrops, "cause": "fog"}}

    assert what_happened(record("delay", 90, False))["irrops"] is False
    long = what_happened(record("delay", 300, True))
    assert (long["delay_meal"], long["rebooking_type"]) == ("delay_over_4_hours", "irrops_delay")
    assert what_happened(record("delay", 150, True))["delay_meal"] == "delay_over_2_hours"
    cancelled = what_happened(record("cancellation", None, True))
    assert (cancelled["delay_meal"], cancelled["rebooking_type"]) == (None, "irrops_cancellation")
    assert cancelled["said"] == "cancelled because of fog"
    assert what_happened({"status": "error", "error_type": "not_found"})["irrops"] is False  # no record


def test_the_wait_earns_overnight_vouchers_or_a_same_day_meal_voucher_after_a_cancellation() -> None:
    found = {
        "reservation": {"bookings": [{"journey_id": "J", "status": "confirmed", "segments": [{"date": "2026-06-18"}]}]}
    }
    cancelled, delayed = {"kind": "cancellation"}, {"kind": "delay"}
    assert vouchers_after(cancelled, found, "", {"date": "2026-06-19"}) == {
        "meal": "irrops_overnight",
        "nights": 1,
        "unit": "night",
    }
    assert vouchers_after(cancelled, found, "", {"date": "2026-06-18"})["meal"] == "cancellation_wait_same_day"
    assert vouchers_after(delayed, found, "", {"date": "2026-06-18"}) == {"meal": None, "nights": 0, "unit": "nights"}
    assert vouchers_after(delayed, found, "", {"date": "2026-06-25"})["nights"] == 3  # at most MAX_HOTEL_NIGHTS


def searchless(calls: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The calls with the searches' cabin left out: after the rebooking the engine searches any cabin for a full
    flight's standby list, as the former hand-written policy did (EVA-Bench's reference searches the booked one)."""
    return [(n, {k: v for k, v in a.items() if k != "fare_class"}) for n, a in calls]


# AL-026/030 rebooked today, no earlier full flight; AL-027 standby taken on the earlier full SK891; AL-028 standby
# declined (its goal says no); AL-029/031 rebooked on the next day: a hotel night, no standby
@pytest.mark.parametrize("sid", ["AL-026", "AL-027", "AL-028", "AL-029", "AL-030", "AL-031"])
def test_the_engine_completes_missed_connections_with_the_reference_calls(sid: str) -> None:
    scenario = next(s for s in load_scenarios("airline") if s.id == sid)
    conversation = run_text_dialogue(
        scenario, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]
    assert searchless(made) == searchless([(c.name, c.arguments) for c in scenario.reference_calls]), lines
    offered = [t for r, t in lines if r == "assistant" and "standby is free" in t]
    assert bool(offered) == (sid in ("AL-027", "AL-028")), lines
