"""The airline policy's numbers and word lists (attempt limits, cut-offs, waiver and intent keywords, cues) and
the small text helpers over them (intent, option wording, waiver reason, clock arithmetic)."""

from __future__ import annotations

import re
from typing import Any

from evalkit.domains.airline.policy import WAIVER_KEYWORDS
from evalkit.spoken import (
    say_time,
    spelled_runs,
)

MAX_AUTH_ATTEMPTS = 2  # App. L.4: offer a transfer after two failed attempts
MAX_REASKS = 2
MAX_REPAIRS = 8  # corrections (one character or a whole re-spelling) of a read-back before giving up
CODE_LENGTH = 6  # SkyWay confirmation codes have six characters
SAME_DAY_CUTOFF_MINUTES = 30  # same-day changes are permitted up to 30 minutes before departure
INTENT_KEYWORDS = (  # first match wins: the specific situations before the generic verbs
    ("escalation", tuple(word for _, words in WAIVER_KEYWORDS for word in words)),
    ("missed_connection", ("missed my connect", "missed the connect", "missed connection", "connecting flight")),
    ("same_day_change", ("missed my flight", "miss my flight")),  # the passenger's own miss: a same-day change
    ("standby", ("standby", "stand by")),
    ("irrops_rebooking", REBOOK_AFTER_DISRUPTION := ("rebooked", "rebook me", "another flight", "different flight")),
    ("compensation_claim", ("voucher", "compensation", "compensate", "hotel")),
    ("cancellation_refund", ("refund", "cancel my", "cancel the", "cancel this", "cancel our", "want to cancel")),
    ("irrops_rebooking", ("cancelled", "canceled", "delayed", "delay", "schedule change", "time changed", "rebook")),
    ("same_day_change", ("earlier", "today", "sooner", "later one")),
    ("voluntary_change", ("change", "different day", "another day", "move", "reschedule")),
)
# Words of a caller who wants another flight (not only information) after a disruption.
REBOOK_WORDS = ("rebook", "another flight", "different flight", "switch", "get me on", "next flight")
DISRUPTION_WORDS = ("cancelled", "canceled", "delayed", "delay", "time changed", "time got changed", "turn back")
CANCEL_VERB = re.compile(r"\bcancel\b")  # "cancel a flight", not "my flight was canceled"
# A reply to an offer that names no offered flight but says it doesn't fit ("That's too late, I need a morning one").
REJECT_CUES = ("none", "too late", "too early", "can't", "cannot", "rather", "doesn't work", "don't work", "need")
SUPERVISOR_CUES = ("supervisor", "manager", "live agent", "real person", "somebody else", "someone else")


# The policy's transfer reasons -> EVA-Bench's transfer_reason values.
TRANSFER_REASONS = {
    "caller_request": "passenger_requested",
    "policy_exception": "policy_exception_needed",
    "no_acceptable_option": "unable_to_resolve",
    "unresolved_after_two_attempts": "unable_to_resolve",
    "authentication_failed": "unable_to_resolve",
    "system_issue": "technical_issue",
}


def booking_view(booking: dict[str, Any]) -> dict[str, Any]:
    """A booking of get_reservation (EVA-Bench layout: segments with route and times) as one flat journey: first
    flight, date, route from the first leg's origin to the last leg's destination, departure, fare, ancillaries."""
    segments = booking.get("segments") or [{}]
    first, last = segments[0], segments[-1]
    return {
        "journey_id": booking.get("journey_id"),
        "flights": [s.get("flight_number") for s in segments],
        "flight_number": first.get("flight_number"),
        "date": first.get("date"),
        "origin": first.get("origin"),
        "destination": last.get("destination"),
        "departure": first.get("scheduled_departure", ""),
        "arrival": last.get("scheduled_arrival", ""),
        "fare_class": booking.get("fare_class", "main_cabin"),
        "fare_paid": booking.get("fare_paid", 0),
        "status": booking.get("status"),
        "meal_request": next((s.get("meal_request") for s in segments if s.get("meal_request") not in NO_MEAL), None),
        "bags": max((s.get("bags_checked") or 0 for s in segments), default=0),
        "seat": first.get("seat"),
    }


NO_MEAL = (None, "none", "standard")


def option_view(option: dict[str, Any], date: str) -> dict[str, Any]:
    """A search_rebooking_options result as one flat journey (the search date added: the result has none)."""
    return {
        "journey_id": option["journey_id"],
        "flights": [s.get("flight_number") for s in option.get("segments", [])],
        "date": date,
        "origin": option.get("origin"),
        "destination": option.get("destination"),
        "departure": option.get("departure_time") or "",
        "arrival": option.get("arrival_time") or "",
        "stops": option.get("num_stops", 0),
        "seats": option.get("available_seats", {}),
        "fare": option.get("fare"),
    }


def classify_intent(text: str) -> str | None:
    low = text.lower().replace("’", "'")
    for intent, words in INTENT_KEYWORDS:
        if any(w in low for w in words):
            # a rebooking asked for after a disruption; without one it is a change ("I need to be rebooked")
            if words is REBOOK_AFTER_DISRUPTION and not any(d in low for d in DISRUPTION_WORDS):
                continue
            return intent
        if intent == "cancellation_refund" and CANCEL_VERB.search(low):
            return intent
    return None


def parse_airport(text: str) -> str | None:
    """A three-letter airport code as spoken ("D T W", "DTW", "Delta Tango Whiskey"): the last such run."""
    runs = [r for r in spelled_runs(text) if len(r) == 3 and r.isalpha()]
    return runs[-1] if runs else None


def pick_booking(bookings: list[dict[str, Any]], request: str) -> dict[str, Any] | None:
    """The booking a request names on a multi-journey reservation: the return (the last one) or the outbound."""
    low = request.lower()
    if len(bookings) > 1 and "return" in low:
        return bookings[-1]
    return None


def describe_option(option: dict[str, Any]) -> str:
    kind = "nonstop" if option["stops"] == 0 else f"with {option['stops']} stop"
    return f"flight {' and '.join(option['flights'])} at {say_time(option['departure'])}, {kind}"


def waiver_reason(text: str) -> str:
    low = text.lower()
    return next((reason for reason, words in WAIVER_KEYWORDS if any(w in low for w in words)), "fee waiver")


def later(hhmm: str, minutes: int) -> str:
    """``hhmm`` plus ``minutes``, capped at 23:59 (a cut-off never wraps into tomorrow)."""
    hours, mins = divmod(min(_minutes(hhmm) + minutes, 23 * 60 + 59), 60)
    return f"{hours:02d}:{mins:02d}"


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:5])
