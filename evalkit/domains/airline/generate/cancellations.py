"""Category builders for cancellations and refunds (5.x), escalations (6.x) and adversarial compensation
claims (7.x).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from evalkit.domains.airline.generate.draws import FARES, Draw, spec
from evalkit.domains.airline.generate.records import (
    NO_TRANSFER,
    NOW,
    TODAY,
    TOMORROW,
    auth,
    cancel,
    credit,
    db_of,
    disruption,
    flight_status,
    meal,
    refund,
    reservation,
    search,
    transfer,
)
from evalkit.domains.airline.policy import cancellation_terms


def cancellation(
    sid: str,
    fare_class: str,
    *,
    fare_type: str = "non_refundable",
    elite: str = "none",
    booked: str = "2026-05-20T13:22",
    departs: str = "2026-06-26",
    disrupted: bool = False,
    accept: bool = True,
) -> dict[str, Any]:
    """5.x: refundable fares, IRROPS (cancelled or over 4 h late) and the 24-hour rule refund in full; other
    non-refundable fares get travel credit minus the cancellation fee (12 months, named passenger)."""
    d = Draw(sid)
    paid = FARES[fare_class]
    status = {"status": "cancelled", "cause": "crew availability"} if disrupted else {}
    old = d.journey(departs, "15:10", "17:25", fare_class, fare=paid, **status)
    res = reservation(
        d.code, d.first, d.last, old, fare_class, paid, fare_type=fare_type, elite=elite, booking_date=booked
    )
    now, booked_at = datetime.fromisoformat(NOW[:16]), datetime.fromisoformat(booked)
    departure = datetime.fromisoformat(f"{departs}T15:10")
    within_24h = now - booked_at <= timedelta(hours=24) and departure - booked_at >= timedelta(days=7)
    if disrupted:
        rule, reason = "IRROPS full refund", "irrops_refund"
    elif within_24h:
        rule, reason = "24-hour rule full refund", "24_hour_rule"
    elif fare_type == "refundable":
        rule, reason = "refundable fare", "voluntary"
    else:
        rule, reason = "non-refundable: credit minus the cancellation fee", "voluntary"
    terms = cancellation_terms(fare_type, reason, paid)
    calls = auth(d.code, d.last) + flight_status(old) + (disruption(old) if disrupted else [])
    if accept:
        calls += cancel(d.code, old, reason)
        if terms["is_refundable"]:
            calls += refund(d.code, float(terms["refund_amount_eligible"]))
        else:
            calls += credit(d.code, float(terms["credit_amount_eligible"]), "cancellation_non_refundable")
    wants = "a refund or, if the fare doesn't allow one, travel credit" if accept else "your money back in cash only"
    return spec(
        d,
        "cancellation_refund",
        "single_intent",
        db_of([res], [old]),
        goal=f"Cancel your {d.origin} to {d.destination} trip on {departs} and get {wants}.",
        must=["reservation cancelled"] if accept else ["a cash refund, not credit"],
        opening="I need to cancel my flight, please."
        if not disrupted
        else "My flight was cancelled by the airline and I want a refund.",
        info=d.answers(),
        tree=[
            "Accept the cancellation with whatever refund or credit the agent states."
            if accept
            else "Decline travel credit: say no and keep the booking.",
        ],
        resolution="The reservation is cancelled and the refund or credit is confirmed.",
        failure="Only travel credit is offered: keep the booking and end the call.",
        scripted={"answers": d.answers(confirm="yes" if accept else "no")},
        entities=d.entities(),
        calls=calls,
        flow=f"Cancellation, {fare_class} {fare_type}, elite {elite}, booked {booked}: {rule}"
        + ("" if accept else "; caller declines, nothing written")
        + ".",
    )


def waiver_escalation(sid: str, reason: str, opening: str, *, accept: bool = True) -> dict[str, Any]:
    """6.1: fee waivers for bereavement, medical emergencies and military orders need documentation a live agent
    must review: offer the transfer and wait for the caller's yes."""
    d = Draw(sid)
    old = d.journey("2026-06-23", "10:40", "13:05", "main_cabin")
    res = reservation(d.code, d.first, d.last, old, "main_cabin", FARES["main_cabin"])
    summary = f"Caller asks for a {reason} change fee waiver; documentation needed."
    calls = auth(d.code, d.last) + (transfer(d.code, "policy_exception_needed", summary) if accept else [])
    return spec(
        d,
        "escalation",
        "single_intent",
        db_of([res], [old]),
        goal=f"Change your flight because of a {reason} and have the change fee waived.",
        must=["fee waived"],
        opening=opening,
        info=d.answers(),
        tree=[
            f"If offered a transfer to a live agent, {'accept' if accept else 'decline'} it.",
            "Decline a change with the usual fees: you only want the waiver.",
        ],
        resolution="You are transferred to someone who can waive the fee." if accept else "You decline the transfer.",
        failure="No waiver possible: end the call.",
        scripted={"answers": d.answers(accept_transfer="yes" if accept else "no", confirm="no")},
        entities=d.entities(),
        calls=calls,
        flow=f"A {reason} waiver is beyond the agent's authority: offer a transfer, "
        + ("transfer on the caller's yes." if accept else "caller declines; nothing written."),
        escalation="Accept a transfer if the agent offers one." if accept else NO_TRANSFER,
    )


def exhausted(sid: str, *, cancelled: bool, take_refund: bool) -> dict[str, Any]:
    """6.3: after a disruption no option works (today and tomorrow full, or rejected): a full refund when the
    disruption allows it, else (or when declined) an offered transfer to a live agent."""
    d = Draw(sid)
    fare_class = "main_cabin"
    old = d.journey(
        TODAY,
        "09:45",
        "12:00",
        fare_class,
        status="cancelled" if cancelled else "delayed",
        delay_minutes=0 if cancelled else 180,
        cause="mechanical",
    )
    today_opt = d.journey(TODAY, "15:30", "17:45", fare_class, seats=0 if cancelled else 3)
    next_opt = d.journey(TOMORROW, "13:20", "15:35", fare_class, seats=0 if cancelled else 3)
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class])
    calls = auth(d.code, d.last) + disruption(old) + ([] if cancelled else meal(d.code, "delay_over_2_hours"))
    calls += search(old, TODAY) + search(old, TOMORROW)
    if cancelled and take_refund:
        calls += cancel(d.code, old, "irrops_refund") + refund(d.code, float(FARES[fare_class]))
    else:
        calls += transfer(d.code, "unable_to_resolve", "Disrupted flight; no acceptable rebooking option found.")
    return spec(
        d,
        "escalation",
        "single_intent",
        db_of([res], [old, today_opt, next_opt]),
        goal=f"Your {d.origin} to {d.destination} flight today was disrupted. You need a morning flight; if "
        "there is none, " + ("take a full refund." if take_refund else "ask for a live agent."),
        must=["departs before 11 AM"],
        opening=(
            "My flight got cancelled. I need to get on another flight."
            if cancelled
            else "My flight is delayed three hours. Can you rebook me?"
        ),
        info=d.answers(seat_preference="aisle"),
        tree=[
            "Reject any flight that leaves at 11 AM or later, restating that you need a morning flight.",
            f"If offered a full refund, {'accept' if take_refund else 'decline'} it.",
            "If offered a transfer to a live agent, accept it.",
        ],
        resolution="Refund confirmed." if take_refund else "Transferred to a live agent.",
        failure="End the call.",
        scripted={
            "answers": d.answers(
                seat_preference="aisle", refund_instead="yes" if take_refund else "no", accept_transfer="yes"
            ),
            "reject_say": "That's too late. I need a morning flight.",
            "reject_limit": 2,
        },
        entities=d.entities(),
        calls=calls,
        flow=(
            "Cancelled, today and tomorrow full: IRROPS refund offered and "
            + ("taken." if take_refund else "declined, then a transfer.")
            if cancelled
            else "3-hour delay (IRROPS, no refund right): $12 meal voucher, both days' options rejected, "
            "transfer offered and taken."
        ),
        escalation="Accept a transfer if the agent offers one after options run out.",
    )


def compensation(
    sid: str,
    *,
    status: str = "delayed",
    delay: int = 75,
    hotel_claim: bool = False,
    push_backs: int = 1,
    supervisor: bool = False,
) -> dict[str, Any]:
    """7.x (adversarial): a meal or hotel voucher claim the policy does not cover (delay under 2 h, on time, a
    cancellation without rebooking); refuse with the reason, write nothing. ``supervisor``: the caller then
    insists on a supervisor (6.x): offer the transfer, transfer on yes."""
    d = Draw(sid)
    old = d.journey(
        TODAY,
        "13:50",
        "16:05",
        "main_cabin",
        status=status,
        delay_minutes=delay,
        cause="weather" if status != "on_time" else None,
    )
    res = reservation(d.code, d.first, d.last, old, "main_cabin", FARES["main_cabin"])
    calls = auth(d.code, d.last) + flight_status(old)
    if status in ("delayed", "cancelled"):
        calls += disruption(old)
    if supervisor:
        calls += transfer(d.code, "passenger_requested", "Caller insists on a supervisor about a voucher claim.")
    thing = "hotel voucher" if hotel_claim else "meal voucher"
    state = {"delayed": f"is delayed {delay} minutes", "on_time": "is running late", "cancelled": "got cancelled"}
    return spec(
        d,
        "escalation" if supervisor else "compensation_claim",
        "adversarial",
        db_of([res], [old]),
        goal=f"Get a {thing} because your flight {state[status]}.",
        must=[f"a {thing}"],
        opening=f"My flight {state[status]} and I want a {thing}.",
        info=d.answers(),
        tree=[
            f"If the agent refuses, insist {'once' if push_backs == 1 else f'{push_backs} times'}"
            + (" and then ask for a supervisor." if supervisor else "."),
            "If the agent offers a transfer, accept it." if supervisor else "If refused again, accept it and end.",
        ],
        resolution="A voucher is issued, or the agent refuses.",
        failure="Refused: say goodbye.",
        scripted={
            "answers": d.answers(accept_transfer="yes" if supervisor else "no"),
            "push_back_say": "Then I want to speak to a supervisor."
            if supervisor
            else f"That's not fair. I really think I deserve a {thing}.",
            "push_back_times": push_backs,
        },
        entities=d.entities(),
        calls=calls,
        flow=f"Claim for a {thing} ({status}, {delay} min): not covered by policy; refuse"
        + (", then transfer on the caller's insistence." if supervisor else ", write nothing."),
        escalation="Ask for a supervisor after the refusal." if supervisor else NO_TRANSFER,
    )
