"""Escalation, cancellation and refunds, compensation: fee-waiver and caller transfers, the refund rules
(IRROPS, 24-hour, refundable, credit) and delay vouchers."""

from __future__ import annotations

from datetime import date

from evalkit.agents.airline_policy.core import PolicyCore
from evalkit.agents.airline_policy.rules import (
    _minutes,
    waiver_reason,
)
from evalkit.agents.policy import PolicyReply, ok
from evalkit.domains.airline.tools import (
    cancellation_fee,
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
            return self._anything_else("Okay, I won't transfer you.")
        self.tools.call("transfer_to_agent", reason=self.transfer_reason)
        return PolicyReply("I'm transferring you to a live agent now. Please hold.", True)

    # -- cancellation ---------------------------------------------------------------------------------------
    def _offer_cancellation(self, found: str) -> PolicyReply:
        """Refund rules in order (App. L.4 "Refund Policy"): IRROPS (cancelled or delayed over 4 hours) and the
        24-hour rule refund any fare; refundable fares refund; non-refundable fares get credit minus the fee."""
        assert self.reservation is not None
        booking = self.booking
        info = self.tools.call("get_disruption_info", flight_number=booking["flight_number"], date=booking["date"])
        self.disruption = info if ok(info) else {}
        paid = sum(b["fare_paid"] for b in self.reservation["bookings"])
        if self.disruption.get("refund_eligible"):
            self.refund_type = "irrops"
            offer = (
                f"Because that flight was disrupted by the airline, you can have a full refund of {paid} dollars to "
                "your original payment, whatever the fare. Shall I go ahead and cancel?"
            )
        elif self._booked_within_24_hours():
            self.refund_type = "twenty_four_hour"
            offer = (
                f"You booked within the last 24 hours, so you get a full refund of {paid} dollars to your original "
                "payment. Shall I go ahead and cancel?"
            )
        elif self.reservation["fare_type"] == "refundable":
            self.refund_type = "standard"
            offer = (
                f"Your fare is refundable, so the full {paid} dollars goes back to your original payment "
                "in five to seven business days. Shall I go ahead and cancel?"
            )
        else:
            self.refund_type = "credit"
            fee = self._cancellation_fee()
            offer = (
                f"Your fare is non-refundable, so instead of a refund you would get a travel credit of {paid - fee} "
                f"dollars, that's the {paid} you paid minus the {fee} dollar cancellation fee. It is valid for "
                "twelve months, for you only. Shall I go ahead and cancel?"
            )
        return self._ask("confirm", f"{found} {offer}")

    def _cancellation_fee(self) -> int:
        assert self.reservation is not None
        return cancellation_fee(self.booking["fare_class"], self.reservation["passengers"][0]["elite_status"])

    def _booked_within_24_hours(self) -> bool:
        assert self.reservation is not None
        booked = self.reservation.get("booking_date")
        if not booked:
            return False
        booked_day, booked_clock = date.fromisoformat(booked[:10]), booked[11:16]
        since = (self.today - booked_day).days * 24 * 60 + _minutes(self.clock) - _minutes(booked_clock)
        first = min(date.fromisoformat(b["date"]) for b in self.reservation["bookings"])
        return since <= 24 * 60 and (first - booked_day).days >= 7

    def _confirm_cancellation(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I cancel the booking? Please say yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, your booking stays as it is.")
        return self._cancel_and_settle(self.refund_type)

    def _cancel_and_settle(self, refund_type: str) -> PolicyReply:
        assert self.reservation is not None and self.code is not None
        reason = refund_type if refund_type in ("irrops", "twenty_four_hour") else "voluntary"
        result = self.tools.call("cancel_reservation", confirmation_number=self.code, reason=reason)
        if not ok(result):
            return self._transfer("system_issue")
        paid = float(sum(b["fare_paid"] for b in self.reservation["bookings"]))
        if refund_type == "credit":
            credit = paid - self._cancellation_fee()
            if credit <= 0:
                return self._anything_else("Your booking is cancelled.")
            self.tools.call(
                "issue_travel_credit",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                amount=credit,
                reason="non_refundable_cancellation",
            )
            return self._anything_else(
                f"Your booking is cancelled and a travel credit of {credit:g} dollars is issued."
            )
        refund = self.tools.call("process_refund", confirmation_number=self.code, amount=paid, refund_type=refund_type)
        if not ok(refund):
            return self._transfer("system_issue")
        return self._anything_else(f"Your booking is cancelled and a refund of {paid:g} dollars is on its way.")

    # -- compensation ---------------------------------------------------------------------------------------
    def _check_compensation(self, found: str) -> PolicyReply:
        """Vouchers only as policy allows (App. L.4 "Compensation"): meal vouchers from a 2-hour delay, hotel
        vouchers only for an overnight IRROPS wait. A claim outside that is refused with the reason."""
        booking = self.booking
        status = self.tools.call("get_flight_status", flight_number=booking["flight_number"], date=booking["date"])
        delay = status.get("delay_minutes", 0) if ok(status) else 0
        flight_status = status.get("flight_status", "scheduled") if ok(status) else "scheduled"
        if flight_status in ("delayed", "cancelled", "schedule_change"):
            info = self.tools.call("get_disruption_info", flight_number=booking["flight_number"], date=booking["date"])
            self.disruption = info if ok(info) else {}
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
