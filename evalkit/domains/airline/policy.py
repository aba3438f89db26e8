"""SkyWay's numbers (EVA-Bench App. L.4 and its airline agent's policy): change fees by fare class, meal voucher
amounts, the cancellation fee, seat rows, the IRROPS and refund thresholds, and the small rules over them that both
the tools (pricing a change, a cancellation's terms) and the agent (elite waivers, which voucher a delay earns) use."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

VOLUNTARY_FEE = {"basic_economy": 75, "main_cabin": 75, "premium_economy": 75, "business": 0, "first": 0}


SAME_DAY_FEE = {"basic_economy": 199, "main_cabin": 75, "premium_economy": 75, "business": 75, "first": 75}


MEAL_VOUCHER_AMOUNT = {
    "delay_over_2_hours": 12,
    "delay_over_4_hours": 15,
    "cancellation_wait_same_day": 15,
    "irrops_overnight": 25,
}


NON_REFUNDABLE_CANCELLATION_FEE = 100


FEE_FREE_CANCELLATIONS = ("irrops_refund", "24_hour_rule")


MAX_HOTEL_NIGHTS = 3


MAX_BAGS = 5


FIRST_ROW = {"basic_economy": 25, "main_cabin": 20, "premium_economy": 10, "business": 5, "first": 1}


SEAT_LETTER = {"window": "A", "middle": "B", "aisle": "C", "no_preference": "C"}


WAIVER_KEYWORDS = (  # fee waivers that need documentation a live agent must see (App. L.4 "Fee Waivers")
    ("bereavement", ("bereavement", "funeral", "passed away", "death in")),
    ("medical emergency", ("medical", "hospital", "surgery")),
    ("military orders", ("military", "orders", "deployment", "deployed")),
)


# A request to fly from or to another airport than the booked one: which end of the trip moves. The agent knows
# no city names (its tools take airport codes and return no cities), so it asks for the new airport's code.
ROUTE_CHANGE_CUES = (
    ("origin", ("leave from", "leaving from", "depart from", "departing from", "fly out of", "fly from")),
    ("destination", ("destination", "fly into", "fly in to", "arrive in", "land in")),
)


def route_change(text: str) -> str | None:
    """The end of the trip ("origin" or "destination") the caller asks to move to another airport, else None."""
    low = text.lower()
    return next((end for end, cues in ROUTE_CHANGE_CUES if any(c in low for c in cues)), None)


SEARCHABLE_STATUSES = ("scheduled", "on_time", "delayed")


# Policy thresholds the agent applies (App. L.4): the tools do not check them.
IRROPS_DELAY_MINUTES = 120  # delay or schedule change over 2 h: airline-caused, every fee waived


REFUND_DELAY_MINUTES = 240  # airline cancels or delays over 4 h: full refund whatever the fare


MEAL_VOUCHER_DELAY_BANDS = ((240, "delay_over_4_hours"), (120, "delay_over_2_hours"))


def is_irrops(rebooking_type: str) -> bool:
    """The IRROPS rebooking types (airline-caused: every fee waived, the fare paid carried over)."""
    return rebooking_type.startswith("irrops")


def change_fee(rebooking_type: str, fare_class: str, waived: bool = False) -> int:
    """The fee the tool charges for a change, by the original fare class; elite waivers are the agent's to apply
    (``waive_change_fee``)."""
    if waived or is_irrops(rebooking_type):
        return 0
    table = SAME_DAY_FEE if rebooking_type == "same_day" else VOLUNTARY_FEE
    return table.get(fare_class, 75)


def meal_voucher_for_delay(delay_minutes: int) -> str | None:
    """The meal voucher reason a delay earns (None under two hours)."""
    return next((reason for minimum, reason in MEAL_VOUCHER_DELAY_BANDS if delay_minutes >= minimum), None)


def elite_waives(rebooking_type: str, elite_status: str | None) -> bool:
    """Whether the caller's elite status waives the change fee (the agent then passes ``waive_change_fee``):
    Platinum on voluntary changes, Gold and Platinum on same-day changes (App. L.4 "Elite Status Benefits")."""
    if rebooking_type == "voluntary":
        return elite_status == "platinum"
    return rebooking_type == "same_day" and elite_status in ("gold", "platinum")


def journey_id_of(flights: Iterable[str], date: str) -> str:
    return f"FL_{'_'.join(flights)}_{date.replace('-', '')}"


def seat_number(passenger_id: str, fare_class: str, preference: str) -> str:
    """The seat the tool assigns: the fare class's first row plus the passenger's number, letter by preference."""
    digits = passenger_id[-3:]
    row = FIRST_ROW.get(fare_class, 20) + (int(digits) if digits.isdigit() else 0)
    return f"{row}{SEAT_LETTER[preference]}"


def cancellation_terms(fare_type: str, reason: str, fare: float) -> dict[str, Any]:
    """Refund or credit for a cancelled booking: a refundable fare, an IRROPS refund or the 24-hour rule refund in
    full; otherwise the fare less the cancellation fee becomes credit."""
    refundable = reason in FEE_FREE_CANCELLATIONS or fare_type == "refundable"
    fee = 0 if refundable else NON_REFUNDABLE_CANCELLATION_FEE
    net = max(0, fare - fee)
    return {
        "is_refundable": refundable,
        "cancellation_fee": fee,
        "refund_amount_eligible": net if refundable else 0,
        "credit_amount_eligible": 0 if refundable else net,
    }


REFUND_PROCESSING_DAYS = 7
