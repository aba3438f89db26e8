"""Escalation, cancellation and refunds, compensation: fee-waiver and caller transfers, the refund rules
(IRROPS, 24-hour, refundable, credit) and delay vouchers."""

from __future__ import annotations

from datetime import date

from evalkit.agents.reference.airline_policy.core import PolicyCore
from evalkit.agents.reference.airline_policy.rules import (
    DISRUPTION_WORDS,
    _minutes,
    waiver_reason,
)
from evalkit.agents.reference.policy import PolicyReply, ok
from evalkit.domains.airline.policy import (
    cancellation_terms,
    meal_voucher_for_delay,
)
from evalkit.spoken import (
    parse_yes_no,
)


class RefundMixin(PolicyCore):
    """Transfers to a live agent, cancellation with refund or credit, and compensation claims."""

    # -- escalation -----------------------------------------------------------------------------------------
    def _offer_waiver_transfer(self, found: str) -> PolicyReply:
        reason = waiver_reason(self.opening)
        self.transfer_reason = "policy_exception"
        sorry = "I'm so sorry for your loss. " if reason == "bereavement" else ""
        return self._offer_transfer(
            f"{found} {sorry}A {reason} fee waiver needs documentation, which only a live agent can review."
        )

    def _offer_transfer(self, prefix: str) -> PolicyReply:
        if not self.transfer_reason:
            self.transfer_reason = "caller_request"
        return self._ask("transfer_offer", f"{prefix} Would you like me to transfer you to a live agent?".strip())

    def _on_transfer_offer(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I transfer you to a live agent? Yes or no.", "Yes or no, please.")
        if answer is False:
            if self.intent == "escalation":  # no waiver without documents; a regular change still is possible
                return self._ask(
                    "regular_change",
                    "Okay, no transfer then. I can still change your flight as a regular change, with the usual "
                    "fees. Would you like me to do that?",
                )
            return self._anything_else("Okay, I won't transfer you.")
        self._call_transfer(self.transfer_reason)
        return PolicyReply("I'm transferring you to a live agent now. Please hold.", True)

    def _on_regular_change(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I look at a regular change? Yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, your booking stays as it is.")
        if any(w in self.opening.lower() for w in ("today", "right now", "right away")):
            self.intent, self.travel_date = "same_day_change", self.today
            return self._offer("")  # type: ignore[attr-defined]
        self.intent = "voluntary_change"
        return self._ask("date", "What date would you like to travel instead?")

    # -- cancellation ---------------------------------------------------------------------------------------
    def _offer_cancellation(self, found: str) -> PolicyReply:
        """Refund rules in order (App. L.4 "Refund Policy"): IRROPS (cancelled or delayed over 4 hours) and the
        24-hour rule refund any fare; refundable fares refund; non-refundable fares get credit minus the fee."""
        assert self.reservation is not None
        booking = self.booking
        told = any(w in self.opening.lower() for w in DISRUPTION_WORDS)  # "my flight time got changed a lot"
        if told or self._flight_state(booking)[0] not in ("scheduled", "on_time"):
            self.disruption = self._look_up_disruption(booking)
        paid = sum(b["fare_paid"] for b in self.cancelling)
        if self.disruption.get("refund_eligible"):
            self.refund_type = "irrops_refund"
            why = "Because that flight was disrupted by the airline, you"
        elif self._booked_within_24_hours():
            self.refund_type = "24_hour_rule"
            why = "You booked within the last 24 hours, so you"
        else:
            self.refund_type = "voluntary"
            why = "Your fare is refundable, so you"
        terms = cancellation_terms(self.reservation.get("fare_type", ""), self.refund_type, paid)
        if terms["is_refundable"]:
            offer = (
                f"{why} get a full refund of {paid:g} dollars to your original payment in five to seven business "
                "days. Shall I go ahead and cancel?"
            )
        else:
            offer = (
                f"Your fare is non-refundable, so instead of a refund you would get a travel credit of "
                f"{terms['credit_amount_eligible']:g} dollars, that's the {paid:g} you paid minus the "
                f"{terms['cancellation_fee']} dollar cancellation fee. It is valid for twelve months, for you only. "
                "Shall I go ahead and cancel?"
            )
        return self._ask("confirm", f"{found} {offer}")

    def _flight_state(self, booking: dict[str, object]) -> tuple[str, int]:
        """A booked flight's operational status and delay in minutes (get_flight_status)."""
        flight, day = booking["flight_number"], booking["date"]
        result = self.tools.call("get_flight_status", flight_number=flight, flight_date=day)
        if not ok(result):
            return "scheduled", 0
        journey = result["journey"]
        delay = max((s.get("delay_minutes") or 0 for s in journey.get("segments", [])), default=0)
        return journey.get("status", "scheduled"), delay

    def _booked_within_24_hours(self) -> bool:
        assert self.reservation is not None
        booked = self.reservation.get("booking_date")
        if not booked:
            return False
        booked_day, booked_clock = date.fromisoformat(booked[:10]), booked[11:16]
        since = (self.today - booked_day).days * 24 * 60 + _minutes(self.clock) - _minutes(booked_clock)
        first = min(date.fromisoformat(b["date"]) for b in self.bookings)
        return since <= 24 * 60 and (first - booked_day).days >= 7

    def _confirm_cancellation(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I cancel the booking? Please say yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, your booking stays as it is.")
        return self._cancel_and_settle(self.refund_type)

    def _cancel_and_settle(self, reason: str) -> PolicyReply:
        """Cancel every live booking with ``reason`` (an EVA-Bench cancellation_reason), then refund what the
        cancellations make refundable, or issue the credit they leave."""
        assert self.reservation is not None and self.code is not None
        refund, credit = 0.0, 0.0
        for booking in self.cancelling:
            result = self.tools.call(
                "cancel_reservation",
                confirmation_number=self.code,
                journey_id=booking["journey_id"],
                cancellation_reason=reason,
            )
            if not ok(result):
                return self._transfer("system_issue")
            refund += result["refund_amount_eligible"]
            credit += result["credit_amount_eligible"]
        if credit > 0:
            self.tools.call(
                "issue_travel_credit",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                amount=credit,
                credit_reason="cancellation_non_refundable",
            )
            return self._anything_else(f"Your booking is cancelled and a travel credit of {credit:g} dollars is ready.")
        if refund <= 0:
            return self._anything_else("Your booking is cancelled.")
        result = self.tools.call(
            "process_refund", confirmation_number=self.code, refund_amount=refund, refund_type="full_fare"
        )
        if not ok(result):
            return self._transfer("system_issue")
        said = f"Your booking is cancelled and a refund of {refund:g} dollars is on its way."
        fees = sum((self.reservation.get("ancillaries") or {}).values()) if reason == "irrops_refund" else 0
        if fees > 0:  # an IRROPS refund includes seat and bag fees, refunded in a call of their own
            self.tools.call(
                "process_refund", confirmation_number=self.code, refund_amount=float(fees), refund_type="ancillary_fees"
            )
            said += f" Your {fees:g} dollars of seat and bag fees are refunded as well."
        return self._anything_else(said)

    # -- a question about a booking that names no task ---------------------------------------------------------
    def _booking_question(self, found: str) -> PolicyReply:
        """The caller asked about the booking without a task the policy knows: a disrupted flight gets its status
        and the meal voucher it earns; anything else is offered to a live agent (beyond this agent's tools)."""
        status, _ = self._flight_state(self.booking)
        if status in ("delayed", "cancelled"):
            return self._check_compensation(found)
        self.transfer_reason = "policy_exception"
        return self._offer_transfer(f"{found} I'm not able to help with that request myself.")

    # -- compensation ---------------------------------------------------------------------------------------
    def _check_compensation(self, found: str) -> PolicyReply:
        """Vouchers only as policy allows (App. L.4 "Compensation"): meal vouchers from a 2-hour delay, hotel
        vouchers only for an overnight IRROPS wait. A claim outside that is refused with the reason."""
        booking = self.booking
        flight_status, delay = self._flight_state(booking)
        if flight_status in ("delayed", "cancelled"):
            self.disruption = self._look_up_disruption(booking)
        if flight_status == "cancelled":
            return self._anything_else(
                f"{found} That flight is cancelled. Vouchers come with a rebooking, so I'm not able to issue one "
                "until you're rebooked. I can rebook you if you like."
            )
        voucher = meal_voucher_for_delay(delay)
        state = f"delayed by {delay} minutes" if delay else "on time"
        wants_hotel = "hotel" in self.opening.lower()
        if voucher is None:
            what = (
                "Hotel vouchers are only for an overnight wait"
                if wants_hotel
                else ("Meal vouchers start at a delay of two hours")
            )
            return self._anything_else(f"{found} It is {state}. {what}, so I'm not able to issue one.")
        amount = self._issue_meal(voucher)
        hotel = " A hotel voucher is only for an overnight wait, so I'm not able to issue that." if wants_hotel else ""
        return self._anything_else(f"{found} It is {state}. I've issued a meal voucher of {amount} dollars.{hotel}")
