"""Category builders for flight changes: voluntary (1.x), same-day and standby (4.x), IRROPS rebooking (2.x)
and missed connections (3.x).
"""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.generate.draws import FARES, Draw, change_calls, spec, spoken
from evalkit.domains.airline.generate.records import (
    TODAY,
    TOMORROW,
    auth,
    db_of,
    disruption,
    hotel,
    meal,
    reservation,
    search,
    standby,
)
from evalkit.domains.airline.policy import change_fee, elite_waives, meal_voucher_for_delay


def voluntary(
    sid: str,
    fare_class: str,
    target_fare: int,
    *,
    elite: str = "none",
    max_fee: float = 250,
    pref: str = "aisle",
    meal_request: str | None = None,
    sold_out: bool = False,
) -> dict[str, Any]:
    """1.x: a passenger-initiated change to a future date; $75 fee (0 for business/first or Platinum) plus the
    fare difference, a lower fare's difference back as travel credit. ``sold_out``: the wanted flight has no seat."""
    d = Draw(sid)
    paid = FARES[fare_class]
    old = d.journey("2026-06-24", "09:10", "11:35", fare_class, fare=paid)
    new_date = "2026-06-27"
    target = d.journey(new_date, "08:05", "10:30", fare_class, seats=0 if sold_out else 6, fare=target_fare)
    evening = d.journey(new_date, "19:25", "21:50", fare_class, fare=target_fare - 20)
    res = reservation(d.code, d.first, d.last, old, fare_class, paid, elite=elite, meal_request=meal_request)
    fee = change_fee("voluntary", fare_class, elite_waives("voluntary", elite))
    total = fee + max(target_fare - paid, 0)
    accepted = total <= max_fee and not sold_out
    calls = auth(d.code, d.last) + search(old, new_date)
    if accepted:
        calls += change_calls(d, old, target, "voluntary", pref, paid, fare_class, meal_request, elite=elite)
    outcome = (
        f"moved to {target['flights'][0]}: fee ${fee}, fare difference ${target_fare - paid}"
        if accepted
        else (
            "the morning flight is sold out: no change"
            if sold_out
            else f"total ${total} is over ${max_fee:g}: declined"
        )
    )
    return spec(
        d,
        "voluntary_change",
        "single_intent",
        db_of([res], [old, target, evening]),
        goal=f"Move your {d.origin} to {d.destination} flight from June 24 to the morning flight on June 27, "
        f"paying no more than {max_fee:g} dollars in total for the change.",
        must=["travel on June 27", "departs before noon", f"total cost at most ${max_fee:g}"],
        opening="I'd like to change my flight to a different day, please.",
        info=d.answers(new_date="June 27", seat_preference=pref),
        tree=[
            "When asked for the new date, say June 27.",
            f"Choose the morning flight, {spoken(target)}; reject evening flights once, then keep the original.",
            f"When asked for a seat preference, say {pref}.",
            f"Confirm only if the change fee plus fare difference is at most {max_fee:g} dollars.",
        ],
        resolution="The change to the June 27 morning flight is completed.",
        failure="No morning flight on June 27 or too expensive: keep the original booking and end the call.",
        scripted={
            "answers": d.answers(new_date="June 27th", seat_preference=pref),
            "accept_option": target["flights"][0],
            "accept_say": f"The morning one, flight {spoken(target)}.",
            "reject_say": "I need the morning flight on June 27.",
            "max_fee": max_fee,
        },
        entities=d.entities(flight_number=target["flights"][0], new_date=new_date),
        calls=calls,
        flow=f"Voluntary change, {fare_class}, elite {elite}: {outcome}.",
    )


def same_day(
    sid: str, fare_class: str, target_fare: int, *, elite: str = "none", max_fee: float = 100, pref: str = "window"
) -> dict[str, Any]:
    """4.1: a confirmed same-day change to an earlier flight: $199 basic economy, $75 otherwise, waived for
    Gold/Platinum; flights leaving within 30 minutes are closed."""
    d = Draw(sid)
    paid = FARES[fare_class]
    old = d.journey(TODAY, "18:40", "20:05", fare_class, fare=paid)
    closing = d.journey(TODAY, "11:05", "12:30", fare_class, fare=paid)  # leaves in 15 minutes: closed
    target = d.journey(TODAY, "13:35", "15:00", fare_class, fare=target_fare)
    late = d.journey(TODAY, "16:50", "18:15", fare_class, fare=target_fare)
    res = reservation(d.code, d.first, d.last, old, fare_class, paid, elite=elite)
    fee = change_fee("same_day", fare_class, elite_waives("same_day", elite))
    total = fee + max(target_fare - paid, 0)
    accepted = total <= max_fee
    calls = auth(d.code, d.last) + search(old, TODAY)
    if accepted:
        calls += change_calls(d, old, target, "same_day", pref, paid, fare_class, elite=elite)
    return spec(
        d,
        "same_day_change",
        "single_intent",
        db_of([res], [old, closing, target, late]),
        goal=f"Take an earlier {d.origin} to {d.destination} flight today, leaving before 2 PM, if the total "
        f"cost stays at most {max_fee:g} dollars.",
        must=["today", "departs before 2 PM", f"total at most ${max_fee:g}"],
        opening="Can I get on an earlier flight today?",
        info=d.answers(seat_preference=pref),
        tree=[
            f"If {spoken(target)} is offered, choose it.",
            f"When asked for a seat preference, say {pref}.",
            f"Confirm only if the stated total is at most {max_fee:g} dollars; otherwise keep the original flight.",
        ],
        resolution="The same-day change is completed and confirmed.",
        failure="Too expensive or nothing before 2 PM: keep the original flight and end the call.",
        scripted={
            "answers": d.answers(seat_preference=pref),
            "accept_option": target["flights"][0],
            "accept_say": f"I'll take {spoken(target)}.",
            "reject_say": "It has to leave before 2 PM today.",
            "max_fee": max_fee,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=f"Same-day change, {fare_class}, elite {elite}: fee ${fee}, total ${total}, "
        f"{'accepted' if accepted else 'declined'}; {closing['flights'][0]} leaves within 30 minutes.",
    )


def standby_request(sid: str, *, elite: str = "none", pick: int = 0, tomorrow: bool = False) -> dict[str, Any]:
    """4.2: free same-day standby on an earlier (full) flight; the confirmed seat stays. ``tomorrow``: the booking
    is not today, so standby does not apply (policy boundary)."""
    d = Draw(sid)
    fare_class = "main_cabin"
    day = TOMORROW if tomorrow else TODAY
    old = d.journey(day, "20:15", "21:40", fare_class)
    full = [d.journey(day, dep, arr, fare_class, seats=0) for dep, arr in (("14:10", "15:35"), ("17:20", "18:45"))]
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class], elite=elite)
    wanted = full[pick]
    calls = auth(d.code, d.last)
    if not tomorrow:
        calls += search(old, TODAY) + standby(d.code, wanted)
    return spec(
        d,
        "same_day_change",
        "adversarial" if tomorrow else "single_intent",
        db_of([res], [old, *full]),
        goal=f"Get on the standby list for the {spoken(wanted)} flight to {d.destination}, keeping your confirmed "
        "seat on the later flight.",
        must=[f"standby on {wanted['flights'][0]}", "original seat kept"],
        opening="Can you put me on standby for an earlier flight?",
        info=d.answers(),
        tree=[
            f"Choose {spoken(wanted)} for standby.",
            "Agree to be added to the standby list.",
            "If the agent says standby is not possible, accept that and end the call.",
        ],
        resolution="You are on the standby list for the earlier flight.",
        failure="Standby refused: end the call politely.",
        scripted={
            "answers": d.answers(standby="yes"),
            "accept_option": wanted["flights"][0],
            "accept_say": f"The {spoken(wanted)} one, please.",
        },
        entities=d.entities(flight_number=wanted["flights"][0]),
        calls=calls,
        flow="Standby applies to same-day flights only: refuse, write nothing."
        if tomorrow
        else f"Free standby on {wanted['flights'][0]}, position by elite status ({elite}).",
    )


def irrops(
    sid: str,
    *,
    cancelled: bool = True,
    delay: int = 0,
    status: str | None = None,
    cause: str = "weather",
    same_day_seats: bool = True,
    reject_today: bool = False,
    fare_class: str = "main_cabin",
    meal_request: str | None = None,
) -> dict[str, Any]:
    """2.x: an airline disruption (cancellation, delay or schedule change over 2 h) waives all fees; rebook on the
    same day if possible, else the next; meal voucher by the wait, a hotel night when overnight."""
    d = Draw(sid)
    kind = "cancelled" if cancelled else (status or "delayed")
    old = d.journey(TODAY, "12:30", "14:45", fare_class, status=kind, delay_minutes=delay, cause=cause)
    today_opt = d.journey(TODAY, "16:20", "18:35", fare_class, seats=4 if same_day_seats else 0)
    next_opt = d.journey(TOMORROW, "07:45", "10:00", fare_class)
    res = reservation(d.code, d.first, d.last, old, fare_class, FARES[fare_class], meal_request=meal_request)
    irrops_applies = cancelled or delay > 120
    overnight = reject_today or not same_day_seats
    target = next_opt if overnight else today_opt
    calls = auth(d.code, d.last) + disruption(old)
    if irrops_applies:
        if not cancelled:  # a delay or schedule change earns its meal voucher up front
            calls += meal(d.code, meal_voucher_for_delay(delay) or "delay_over_2_hours")
        calls += search(old, TODAY)
        if overnight:
            calls += search(old, TOMORROW)
        calls += change_calls(d, old, target, "irrops", "aisle", FARES[fare_class], fare_class, meal_request)
        if overnight:
            calls += meal(d.code, "irrops_overnight") + hotel(d.code, 1)
        elif cancelled:
            calls += meal(d.code, "cancellation_wait_same_day")
    what = (
        "was cancelled"
        if cancelled
        else (f"is delayed {delay} minutes" if kind == "delayed" else f"was moved {delay} minutes by a schedule change")
    )
    return spec(
        d,
        "irrops_rebooking",
        "single_intent" if irrops_applies else "adversarial",
        db_of([res], [old, today_opt, next_opt]),
        goal=f"Your {d.origin} to {d.destination} flight today {what}. Get onto another flight at no cost"
        + (", but not today: you can only fly tomorrow morning." if reject_today else "."),
        must=["no change fee or fare difference", "a confirmed seat on another flight"],
        opening=f"My flight {what.replace('was ', 'got ').replace('is ', 'is ')}. I need to get on another flight."
        if cancelled
        else f"My flight {what}. Can you rebook me?",
        info=d.answers(seat_preference="aisle"),
        tree=[
            (
                "Reject today's flights once, saying you can only fly tomorrow; take the tomorrow morning flight "
                f"{spoken(next_opt)}."
                if reject_today
                else f"Take the first flight offered to {d.destination}."
            ),
            "When asked for a seat preference, say aisle.",
            "Confirm the rebooking if there is no charge.",
            "If the agent says this is a regular change with fees, thank them and end the call.",
        ],
        resolution="The rebooking is confirmed, with any vouchers the policy gives.",
        failure="No free rebooking: end the call.",
        scripted={
            "answers": d.answers(seat_preference="aisle"),
            "accept_option": target["flights"][0],
            "accept_say": f"Yes, {spoken(target)} works.",
            "reject_say": "I can't fly today anymore. Is there something tomorrow morning?",
            "max_fee": 0,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=(
            f"IRROPS ({kind}, {delay} min, {cause}): fees waived, rebooked on {target['flights'][0]}"
            + (", overnight: $25 meal + 1 hotel night" if overnight else "")
            if irrops_applies
            else f"A {delay}-minute delay is not IRROPS (over 2 h): no free change, nothing written."
        ),
    )


def missed_connection(
    sid: str,
    *,
    next_full: bool = False,
    take_standby: bool = True,
    none_today: bool = False,
    reject_today: bool = False,
    elite: str = "none",
) -> dict[str, Any]:
    """3.x: a late inbound leg made the caller miss the connection; the missed leg is rebooked free (protected for
    7 days); a full earlier flight gets a free standby listing; an overnight wait gets a hotel night."""
    d = Draw(sid)
    hub = "ORD" if d.origin != "ORD" and d.destination != "ORD" else "DFW"
    fare_class = "main_cabin"
    first = d.journey(
        TODAY,
        "06:00",
        "09:40",
        fare_class,
        destination=hub,
        status="delayed",
        delay_minutes=95,
        cause="air traffic control",
    )
    missed = d.journey(TODAY, "10:15", "12:20", fare_class, origin=hub)
    early = d.journey(TODAY, "13:40", "15:45", fare_class, origin=hub, seats=0 if next_full or none_today else 5)
    later_today = d.journey(TODAY, "17:55", "20:00", fare_class, origin=hub, seats=0 if none_today else 7)
    tomorrow = d.journey(TOMORROW, "08:30", "10:35", fare_class, origin=hub)
    res = reservation(
        d.code,
        d.first,
        d.last,
        first,
        fare_class,
        FARES[fare_class],
        elite=elite,
        first_status="flown",
        legs=((missed, "missed"),),
    )
    overnight = none_today or reject_today
    target = tomorrow if overnight else (later_today if next_full else early)
    calls = auth(d.code, d.last) + search(missed, TODAY)
    if overnight:
        calls += search(missed, TOMORROW)
    calls += change_calls(d, missed, target, "missed_connection", "window", 0, fare_class)
    if overnight:
        calls += hotel(d.code, 1)
    else:
        calls += search(missed, TODAY)  # the policy looks for a full earlier flight to offer standby on
        if next_full and take_standby:
            calls += standby(d.code, early)
    return spec(
        d,
        "missed_connection",
        "single_intent",
        db_of([res], [first, missed, early, later_today, tomorrow]),
        goal=f"You missed your connection in {hub} to {d.destination} because your first flight landed late. "
        "Get rebooked at no cost"
        + (", flying tomorrow morning." if reject_today else " on the next flight with a seat."),
        must=["no charge", f"a confirmed seat {hub} to {d.destination}"],
        opening="I missed my connecting flight because my first flight was late.",
        info=d.answers(seat_preference="window"),
        tree=[
            (
                "Reject today's flights once (you want to rest tonight), take tomorrow's morning flight."
                if reject_today
                else f"Take {spoken(target)}."
            ),
            "When asked for a seat preference, say window.",
            "Confirm the rebooking if there is no charge.",
            f"If offered standby on an earlier full flight, {'accept' if take_standby else 'decline'} it.",
        ],
        resolution="The missed leg is rebooked and confirmed.",
        failure="No free rebooking: end the call.",
        scripted={
            "answers": d.answers(seat_preference="window", standby="yes" if take_standby else "no"),
            "accept_option": target["flights"][0],
            "accept_say": f"{spoken(target)}, please.",
            "reject_say": "I'd rather fly tomorrow morning, please.",
            "max_fee": 0,
        },
        entities=d.entities(flight_number=target["flights"][0]),
        calls=calls,
        flow=f"Missed connection (airline fault): free rebooking on {target['flights'][0]}"
        + (", hotel for the night" if overnight else "")
        + (f", standby on full {early['flights'][0]} {'taken' if take_standby else 'declined'}" if next_full else ""),
    )
