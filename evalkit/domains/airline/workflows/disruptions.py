"""Airline's IRROPS rebooking on the workflow engine (issue 28.4): a flight the airline cancelled, delayed or
rescheduled, rebooked at no cost (App. L.4 "IRROPS"), with the meal and hotel vouchers the wait earns
("Compensation").

The disruption record decides: a flight without an IRROPS disruption is refused a free change (a regular change has
the usual fees); a delay of two hours or more earns its meal voucher before anything else, whether or not the caller
moves. The flights of the booked day are offered (those still open today), then the next day's when none is open
or the caller takes none (``Offer(fall_through=True)``). After the rebooking: a night's wait earns the overnight meal
voucher and a hotel voucher per night (at most ``MAX_HOTEL_NIGHTS``); a same-day wait after a cancellation its meal
voucher. The seat type, bags and meal request are carried over as for a change.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from evalkit.domains.airline.policy import MAX_HOTEL_NIGHTS, meal_voucher_for_delay
from evalkit.domains.airline.workflows.changes import NEW_FLIGHT, SEAT, SEATS, carried_over
from evalkit.domains.airline.workflows.escalation import no_acceptable_option
from evalkit.domains.airline.workflows.same_day import open_from, standby_steps
from evalkit.domains.airline.workflows.steps import (
    ASKED,
    IDENTIFY,
    PASSENGER,
    cancelling,
    change_options,
    live_bookings,
)
from evalkit.domains.workflow import (
    NOW,
    TODAY,
    Ask,
    Call,
    Compute,
    Confirm,
    Derived,
    Offer,
    Refuse,
    Say,
    Switch,
    Workflow,
)
from evalkit.spoken import say_date


def disrupted(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The booking whose flight was disrupted: a missed one (a connection the late first flight made the caller
    miss), else the first live one (the return when the caller names it)."""
    missed = [b for b in found["reservation"]["bookings"] if b.get("status") == "missed"]
    return missed[0] if missed else cancelling(found, requested)[0]


def _ends(booking: dict[str, Any]) -> tuple[str, str, str]:
    segments = booking.get("segments") or [{}]
    return segments[0].get("origin", ""), segments[-1].get("destination", ""), segments[0].get("date", "")


def replaced(found: dict[str, Any], requested: str) -> dict[str, Any] | None:
    """The booking the airline cancelled and already replaced: a cancelled booking with a live one on the same
    route and day (the rebooking it was given); None when there is none."""
    live = {_ends(b) for b in live_bookings(found) if b.get("status") != "cancelled"}
    gone = [b for b in found["reservation"]["bookings"] if b.get("status") == "cancelled" and _ends(b) in live]
    return gone[0] if gone else None


def disrupted_flight(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The flight whose disruption is looked up: the one the airline cancelled and replaced (the caller holds the
    rebooking it was given, which is the booking rebooked again), else the disrupted booking's first."""
    return (replaced(found, requested) or disrupted(found, requested))["segments"][0]


def held_meal(what: dict[str, Any], found: dict[str, Any], requested: str, today: str) -> str | None:
    """The meal voucher a cancellation's same-day wait earns at once when the flight was today and the caller
    already holds the same-day rebooking it was given (issued before anything else, as a delay's is); else None."""
    gone = replaced(found, requested)
    held = gone is not None and _ends(gone)[2] == today and what["kind"] == "cancellation" and what["irrops"]
    return "cancellation_wait_same_day" if held else None


def what_happened(record: dict[str, Any]) -> dict[str, Any]:
    """The disruption record, read as the agent says and acts on it: ``irrops`` (a disruption that waives change
    fees), ``state`` (said when it is none), ``said`` ("cancelled because of weather"), ``kind``, the
    ``rebooking_type`` the tool takes and the meal voucher a delay earns at once (``delay_meal``)."""
    disruption = record.get("disruption") or {}
    kind = disruption.get("disruption_type") or ""
    delay = disruption.get("delay_minutes") or 0
    cause = f" because of {disruption['cause'].replace('_', ' ')}" if disruption.get("cause") else ""
    if kind == "cancellation":
        said = f"cancelled{cause}"
    elif kind == "schedule_change":
        said = f"moved by {delay} minutes by a schedule change{cause}"
    else:
        said = f"delayed by {delay} minutes{cause}"
    irrops = bool(disruption.get("is_irrops"))
    return {
        "irrops": irrops,
        "on_record": bool(disruption),
        "state": f"delayed by {delay} minutes" if delay else "operating on schedule",
        "said": said,
        "kind": kind,
        "rebooking_type": {"delay": "irrops_delay", "schedule_change": "irrops_schedule_change"}.get(
            kind, "irrops_cancellation"
        ),
        "delay_meal": meal_voucher_for_delay(delay) if irrops and kind in ("delay", "schedule_change") else None,
        "refund": bool((disruption.get("passenger_entitled_to") or {}).get("refund_option")),  # when none fits
    }


def first_day(found: dict[str, Any], requested: str, today: str) -> str:
    """The day searched first: the booked flight's, or today when it was in the past."""
    return max(disrupted(found, requested)["segments"][0].get("date") or today, today)


def open_options(
    found: dict[str, Any], requested: str, searched: dict[str, Any], day: str, now: str
) -> list[dict[str, Any]]:
    """The searched flights of ``day`` with a seat in the booked cabin, each with its day; today's only while
    still open (30 minutes before departure)."""
    options = change_options(found, requested, searched, booking=disrupted(found, requested))
    if day == now[:10]:
        options = [o for o in options if o["departs"] >= open_from(now)]
    return [{**o, "date": day, "day": say_date(day)} for o in options]


def vouchers_after(what: dict[str, Any], found: dict[str, Any], requested: str, chosen: dict[str, Any]) -> dict:
    """The vouchers the wait earns once the new flight is confirmed: a night or more, the overnight meal voucher and
    a hotel night per night (at most ``MAX_HOTEL_NIGHTS``); a same-day wait after a cancellation, its meal voucher
    (a delay's was issued at the start); no meal voucher where ``what`` has ``meals`` off (a missed connection:
    the hotel only)."""
    booked = disrupted(found, requested)["segments"][0].get("date") or chosen["date"]
    nights = (date.fromisoformat(chosen["date"]) - date.fromisoformat(booked)).days
    meal = (
        "irrops_overnight" if nights > 0 else "cancellation_wait_same_day" if what["kind"] == "cancellation" else None
    )
    meal = meal if what.get("meals", True) and not what.get("held_meal") else None
    nights = min(max(nights, 0), MAX_HOTEL_NIGHTS)
    return {"meal": meal, "nights": nights, "unit": "night" if nights == 1 else "nights"}


FLIGHT = Derived(lambda found, said: disrupted_flight(found, said)["flight_number"], "$reservation", ASKED)
DAY = Derived(lambda found, said: disrupted_flight(found, said).get("date"), "$reservation", ASKED)
JOURNEY = Derived(lambda found, said: disrupted(found, said)["journey_id"], "$reservation", ASKED)
OPTION = "flight {flight} at {departs} on {day}"


def search(day: str, name: str, when: str | Derived | None = None, cabin: str | None = None) -> Call:
    """The rebooking search of the booked route and cabin (or ``cabin``: "any") on the day in ``$day``."""
    return Call(
        "search_rebooking_options",
        {
            "origin": Derived(
                lambda found, said: disrupted(found, said)["segments"][0]["origin"], "$reservation", ASKED
            ),
            "destination": Derived(
                lambda found, said: disrupted(found, said)["segments"][-1]["destination"], "$reservation", ASKED
            ),
            "date": f"${day}",
            "passenger_count": 1,
            "fare_class": cabin
            or Derived(
                lambda found, said: disrupted(found, said).get("fare_class", "main_cabin"), "$reservation", ASKED
            ),
        },
        name=name,
        when=when,
    )


def voucher(tool: str, name: str, when: str, **args: Any) -> Call:
    """A voucher for the caller (the reservation's first passenger), issued when ``when`` holds."""
    common = {"confirmation_number": "$confirmation_number", "passenger_id": PASSENGER}
    return Call(tool, {**common, **args}, name=name, when=when)


def next_day(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def missed_view(found: dict[str, Any], requested: str) -> dict[str, Any] | None:
    """The missed connection as the agent says it (flight, from, to), None when no booking was missed."""
    booking = disrupted(found, requested)
    if booking.get("status") != "missed":
        return None
    segments = booking["segments"]
    return {"flight": segments[0]["flight_number"], "origin": segments[0]["origin"], "to": segments[-1]["destination"]}


def earlier_full(
    found: dict[str, Any], requested: str, searched: dict[str, Any], chosen: dict[str, Any], now: str
) -> dict[str, Any] | None:
    """A flight today, full in the booked cabin and still open, that leaves before the new one: its standby list is
    offered after a missed connection's same-day rebooking (free, the new seat kept); None when there is none."""
    if chosen["date"] != now[:10]:
        return None
    booking = disrupted(found, requested)
    cabin = booking.get("fare_class", "main_cabin")
    seats = {o["journey_id"]: (o.get("available_seats") or {}).get(cabin, 0) for o in searched.get("options", [])}
    full = [
        o
        for o in change_options(found, requested, searched, seats=False, booking=booking)
        if open_from(now) <= o["departs"] < chosen["departs"] and seats.get(o["journey_id"], 0) < 1
    ]
    return full[0] if full else None


def rebooking_workflow(
    name: str, description: str, intents: tuple[str, ...], opening: tuple, rebooking: dict[str, Any], after: tuple = ()
) -> Workflow:
    """A free rebooking of the disrupted booking: ``opening`` (what happened, said; its refusals), then the booked
    day's open flights, the next day's when none is open or taken, the seat, the confirmation, the rebooking
    (``rebooking``: its ``rebooking_type`` and ``waive_change_fee``), the carried items, the vouchers, ``after``."""
    return Workflow(
        name=name,
        description=description,
        intents=intents,
        steps=(
            *IDENTIFY,
            *opening,
            Compute("first_day", Derived(first_day, "$reservation", ASKED, f"${TODAY}")),
            search("first_day", "search"),
            Compute("options", Derived(open_options, "$reservation", ASKED, "$search", "$first_day", f"${NOW}")),
            Offer(
                "$options",
                "journey_id",
                OPTION,
                NEW_FLIGHT,
                name="chosen",
                none="I don't see a flight that works that day, so let me check the next day.",
                fall_through=True,
            ),
            Compute("next_day", Derived(next_day, "$first_day"), when="!$chosen"),
            search("next_day", "search_next", when="!$chosen"),
            Compute(
                "options",
                Derived(open_options, "$reservation", ASKED, "$search_next", "$next_day", f"${NOW}"),
                when="!$chosen",
            ),
            Offer(
                "$options",
                "journey_id",
                OPTION,
                NEW_FLIGHT,
                name="chosen",
                none="",
                fall_through=True,
                when="!$chosen",
            ),
            # none taken either day: the full refund the disruption entitles, else a live agent offered (App. L.4)
            *no_acceptable_option(JOURNEY),
            Ask(SEAT),
            Confirm(
                "Because the disruption was on our side, there is no change fee and no fare difference. Shall I go "
                "ahead and move you to flight {chosen.flight} on {chosen.day}?"
            ),
            Call(
                "rebook_flight",
                {
                    "confirmation_number": "$confirmation_number",
                    "journey_id": JOURNEY,
                    "new_journey_id": "$new_journey_id",
                    **rebooking,
                },
            ),
            Call(
                "assign_seat",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "journey_id": "$new_journey_id",
                },
                each=SEATS,
                first_ok=True,
            ),
            Compute(
                "carried",
                Derived(lambda found, said: carried_over(found, said, disrupted(found, said)), "$reservation", ASKED),
            ),
            Call(
                "add_baggage_allowance",
                {"confirmation_number": "$confirmation_number", "journey_id": "$new_journey_id", "num_bags": BAGS},
                when="$carried.bags",
            ),
            Call(
                "add_meal_request",
                {
                    "confirmation_number": "$confirmation_number",
                    "passenger_id": PASSENGER,
                    "journey_id": "$new_journey_id",
                    "meal_type": "$carried.meal",
                },
                when="$carried.meal",
            ),
            Compute("vouchers", Derived(vouchers_after, "$what", "$reservation", ASKED, "$chosen")),
            voucher("issue_meal_voucher", "meal", "$vouchers.meal", voucher_reason="$vouchers.meal"),
            voucher("issue_hotel_voucher", "hotel", "$vouchers.nights", num_nights="$vouchers.nights"),
            Say("You are moved to flight {chosen.flight} on {chosen.day}."),
            Say("I've issued a {meal.amount} dollar meal voucher for the airport restaurants.", when="$vouchers.meal"),
            Say("And a hotel voucher for {vouchers.nights} {vouchers.unit} near the airport.", when="$vouchers.nights"),
            *after,
        ),
    )


BAGS = "$carried.bags"
IRROPS = rebooking_workflow(
    "irrops_rebooking",
    "Rebook a flight the airline cancelled, delayed or rescheduled, at no cost, with the vouchers due.",
    # what the caller asks for, not what happened ("my flight was cancelled and I want a refund" is a cancellation)
    ("another flight", "different flight", "rebook", "rebooked", "rebooking", "new flight"),
    (
        Call(
            "get_disruption_info", {"flight_number": FLIGHT, "date": DAY}, name="disruption", errors_ok=("not_found",)
        ),
        Compute(
            "what",
            Derived(
                lambda record, found, said, today: {
                    **(what := what_happened(record)),
                    "held_meal": held_meal(what, found, said, today),
                },
                "$disruption",
                "$reservation",
                ASKED,
                f"${TODAY}",
            ),
        ),
        Compute("flight", FLIGHT),
        # No disruption on record: the caller's own reason, so a regular change on the day the caller names, its fee
        # quoted before anything is written
        Say(
            "I don't see a disruption on flight {flight}, so this would be a regular change with the usual fees.",
            when="!$what.on_record",
        ),
        Switch("voluntary_change", when="!$what.on_record"),
        Refuse(
            "Flight {flight} is {what.state}, which isn't a disruption that waives change fees. A change would be a "
            "regular change with the usual fees.",
            when="!$what.irrops",
        ),
        voucher("issue_meal_voucher", "delay_voucher", "$what.delay_meal", voucher_reason="$what.delay_meal"),
        voucher("issue_meal_voucher", "held_voucher", "$what.held_meal", voucher_reason="$what.held_meal"),
        Say("I'm sorry, that flight is {what.said}. All change fees are waived."),
        Say(
            "You're waiting for the flight you were rebooked on today, so I've issued a {held_voucher.amount} dollar "
            "meal voucher for the airport restaurants.",
            when="$what.held_meal",
        ),
        Say(
            "I've issued a {delay_voucher.amount} dollar meal voucher for the airport restaurants.",
            when="$what.delay_meal",
        ),
    ),
    {"rebooking_type": "$what.rebooking_type", "waive_change_fee": False},  # an IRROPS rebooking has no fee
)
TODAY_FLIGHT = Derived(lambda chosen, now: chosen["date"] == now[:10], "$chosen", f"${NOW}")
MISSED_CONNECTION = rebooking_workflow(
    "missed_connection",
    "Rebook a connection missed because the first flight arrived late, at no cost, with standby on an earlier one.",
    ("missed my connect", "missed the connect", "missed connection", "connecting flight"),
    (
        Compute("missed", Derived(missed_view, "$reservation", ASKED)),
        Refuse("I don't see a missed connection on this reservation.", when="!$missed"),
        Compute("what", {"kind": "missed_connection", "meals": False}),
        Say(
            "I see you missed flight {missed.flight} from {missed.origin} to {missed.to} because your first flight "
            "arrived late. Rebooking is free."
        ),
    ),
    {"rebooking_type": "missed_connection_airline_fault", "waive_change_fee": True},
    (
        # the same day, any cabin: a full flight leaving before the new one has a standby list (free, seat kept)
        search("first_day", "full", when=TODAY_FLIGHT, cabin="any"),
        Compute(
            "standby",
            Derived(earlier_full, "$reservation", ASKED, "$full", "$chosen", f"${NOW}"),
            when=TODAY_FLIGHT,
        ),
        *standby_steps(
            "Flight {standby.flight} at {standby.departs} is full, but standby is free and your new seat stays "
            "confirmed. Shall I add you to the standby list for it?",
            journey="$standby.journey_id",
            flight="{standby.flight}",
        ),
    ),
)
DISRUPTIONS = {IRROPS.name: IRROPS, MISSED_CONNECTION.name: MISSED_CONNECTION}
