"""Airline's escalation tasks on the workflow engine (issue 28.4): what the agent cannot settle itself is offered to
a live agent, and handed over only on the caller's yes (App. L.4: "always offer the transfer first and wait for the
caller to confirm"; never imposed).

- ``fee_waiver``: a bereavement, medical-emergency or military-orders waiver needs documentation only a live agent can
  review (App. L.4 "Fee Waivers"): the transfer is offered; a caller who declines is offered a regular change with the
  usual fees (the voluntary change's own steps), which a no leaves as it is. Its request also names a change, so the
  workflow has ``priority`` over the change tasks.
- ``no_acceptable_option``: the end of an IRROPS rebooking (``disruptions``) when neither day has a flight the
  caller takes: a full refund where the disruption entitles one (quoted before anything is written), else (or
  declined) a transfer.
- ``live_agent``: a caller who asks for a person (after a refusal, or at the start) is offered the transfer.
- ``charge_dispute``: a caller who disputes a charge on the booking ("I was charged for an upgrade I was told would
  be free"): the agent finds the booking but cannot reverse a charge without a documented authorization, so a live
  agent who can review it is offered.

The transfer's ``issue_summary`` states the situation (the waiver asked for, no option that fits, the caller's
request)."""

from __future__ import annotations

from typing import Any

from evalkit.domains.airline.policy import WAIVER_KEYWORDS, cancellation_terms
from evalkit.domains.airline.workflows.changes import CHANGES
from evalkit.domains.airline.workflows.steps import ASKED, IDENTIFY, cancelling
from evalkit.domains.workflow import Ask, Call, Compute, Confirm, Derived, Say, Slot, Step, Workflow

TRANSFER = Slot("accept_transfer", "yes_no", "Would you like me to transfer you to a live agent?", label="transfer you")
# The same offer when the caller asked for a person: its own answer, not a transfer declined earlier in the call (the
# engine reuses a slot's value for the call's later tasks).
ASKED_FOR = Slot("agent_wanted", "yes_no", TRANSFER.question, label="transfer you")
REFUND = Slot("refund_instead", "yes_no", "Would you like a full refund instead?", label="full refund")
HANDED_OVER = "I'm transferring you to a live agent now. Please hold."


def booked(found: dict[str, Any], requested: str) -> dict[str, Any]:
    """The booking the call is about (the return when the caller names it), as the agent says and searches it: its
    first flight, route, day and departure, cabin, fare and journey."""
    booking = cancelling(found, requested)[0]
    first, last = booking["segments"][0], booking["segments"][-1]
    return {
        "journey_id": booking["journey_id"],
        "flight": first["flight_number"],
        "origin": first.get("origin", ""),
        "destination": last.get("destination", ""),
        "date": first["date"],
        "departs": first.get("scheduled_departure", ""),
        "fare_class": booking.get("fare_class", "main_cabin"),
        "fare_paid": booking["fare_paid"],
    }


BOOKED = Derived(booked, "$reservation", ASKED)
FOUND = (
    "I found your booking on flight {booked.flight} from {booked.origin} to {booked.destination} on {booked.date} "
    "at {booked.departs}."
)


def handover(
    reason: str, summary: str | Derived, when: str | None = None, slot: Slot = TRANSFER
) -> tuple[Ask | Call | Say, ...]:
    """The transfer offered (the question said after what the steps before it said), made on the caller's yes."""
    return (
        Ask(slot, when=when),
        Call(
            "transfer_to_agent",
            {"confirmation_number": "$confirmation_number", "transfer_reason": reason, "issue_summary": summary},
            when=f"${slot.name}",
        ),
        Say(HANDED_OVER, when=f"${slot.name}", end_call=True),
    )


# -- fee waivers that need a live agent ----------------------------------------------------------------------


def waiver_reason(requested: str) -> str:
    """The documented waiver the caller's words ask for (App. L.4 "Fee Waivers"); "fee waiver" when none is named."""
    low = requested.lower()
    return next((reason for reason, words in WAIVER_KEYWORDS if any(w in low for w in words)), "fee waiver")


REASON = Derived(waiver_reason, ASKED)
FEE_WAIVER = Workflow(
    name="fee_waiver",
    description="A fee waiver for a bereavement, a medical emergency or military orders: offered to a live agent.",
    intents=tuple(word for _, words in WAIVER_KEYWORDS for word in words),
    steps=(
        *IDENTIFY,
        Compute("booked", BOOKED),
        Compute("reason", REASON),
        Say(FOUND),
        Say("I'm so sorry for your loss.", when="$reason=bereavement"),
        Say("A {reason} fee waiver needs documentation, which only a live agent can review."),
        *handover(
            "policy_exception_needed",
            Derived(lambda reason: f"Caller asks for a {reason} change fee waiver; documentation needed.", "$reason"),
        ),
        Confirm(
            "Okay, no transfer then. I can still change your flight as a regular change, with the usual fees. Would "
            "you like me to do that?"
        ),
        # the regular change: the voluntary change's own steps after the caller's identification
        *CHANGES["voluntary_change"].steps[len(IDENTIFY) :],
    ),
    priority=1,
)


# -- a disruption with no flight that fits: a refund or a transfer -----------------------------------------


def irrops_refund(found: dict[str, Any], what: dict[str, Any], requested: str) -> dict[str, Any]:
    """The full refund a disruption gives when no flight fits, if its record entitles one (``owed``: ``what``, the
    rebooking's reading of the record, says ``refund``; a missed connection has none): the domain's
    ``cancellation_terms`` for the fare paid (``amount``), and the seat and bag fees it gives back (``fees``)."""
    reservation = found["reservation"]
    paid = cancelling(found, requested)[0]["fare_paid"]
    terms = cancellation_terms(reservation.get("fare_type", ""), "irrops_refund", paid)
    fees = float(sum((reservation.get("ancillaries") or {}).values()))
    return {"owed": bool(what.get("refund")), "amount": terms["refund_amount_eligible"], "fees": fees}


REFUNDED = "Your booking is cancelled and a refund of {cancel.refund_amount_eligible} dollars is on its way."


def no_acceptable_option(journey: Derived) -> tuple[Step, ...]:
    """What a disrupted caller's rebooking does when neither day has a flight the caller takes (in scope:
    ``first_day``, ``next_day``, ``what``, the disruption as read; no ``chosen``): a full refund where the disruption
    entitles one, quoted and written only on a yes; else, or when it is declined, a transfer offered (App. L.4).
    Every branch ends the task, so the rebooking's steps after these run only for a flight taken."""
    settled = Derived(
        lambda yes, refund: {
            "refund": yes and not refund["fees"],
            "fees": yes and refund["fees"] > 0,
            "none_owed": not refund["owed"],
        },
        "$refund_instead",
        "$refund",
    )
    return (
        Compute("refund", Derived(irrops_refund, "$reservation", "$what", ASKED), when="!$chosen"),
        Compute("refund_instead", False, when="!$chosen"),
        Say(
            "I've checked {first_day} and {next_day} and there's nothing that works. Since the airline disrupted your "
            "trip, you can have a full refund of {refund.amount} dollars to your original payment.",
            when="$refund.owed",
        ),
        Ask(REFUND, when="$refund.owed"),
        Compute("settle", settled, when="!$chosen"),
        Call(
            "cancel_reservation",
            {
                "confirmation_number": "$confirmation_number",
                "journey_id": journey,
                "cancellation_reason": "irrops_refund",
            },
            name="cancel",
            when="$refund_instead",
        ),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": Derived(float, "$cancel.refund_amount_eligible"),
                "refund_type": "full_fare",
            },
            when="$refund_instead",
        ),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": "$refund.fees",
                "refund_type": "ancillary_fees",
            },
            when="$settle.fees",
        ),
        Say(REFUNDED, when="$settle.refund", end=True),
        Say(
            f"{REFUNDED} Your {{refund.fees}} dollars of seat and bag fees are refunded as well.",
            when="$settle.fees",
            end=True,
        ),
        Say(
            "I've checked {first_day} and {next_day} and I can't find an option that works.",
            when="$settle.none_owed",
        ),
        *handover("unable_to_resolve", "Disrupted flight; no acceptable rebooking option found.", when="$refund"),
        Say("Okay, I won't transfer you. Your booking stays as it is.", when="$refund", end=True),
    )


# -- a caller who asks for a person --------------------------------------------------------------------------

LIVE_AGENT = Workflow(
    name="live_agent",
    description="A caller who asks for a supervisor or a live agent: the transfer offered, made on a yes.",
    intents=("supervisor", "manager", "live agent", "real person", "human being", "representative"),
    steps=(
        *IDENTIFY,
        *handover(
            "passenger_requested",
            Derived(lambda said: f"Caller asked for a live agent: {said}"[:500], ASKED),
            slot=ASKED_FOR,
        ),
        Say("Okay, I won't transfer you."),
    ),
)
# -- a disputed charge: only a live agent can review a promise the booking does not document -----------------

CHARGE_DISPUTE = Workflow(
    name="charge_dispute",
    description="A charge the caller disputes (promised free, charged twice): offered to a live agent for review.",
    intents=("charged", "overcharged", "a charge", "the charge", "dispute"),
    steps=(
        *IDENTIFY,
        Compute("booked", BOOKED),
        Say(FOUND),
        Say(
            "I'm not able to reverse a charge on the booking without a documented authorization, but a live agent "
            "can review it."
        ),
        *handover(
            "policy_exception_needed",
            Derived(lambda said: f"Caller disputes a charge on the booking: {said}"[:500], ASKED),
        ),
        Say("Okay, I won't transfer you. The charge stays on the booking as it is."),
    ),
)
ESCALATION = {w.name: w for w in (FEE_WAIVER, LIVE_AGENT, CHARGE_DISPUTE)}
