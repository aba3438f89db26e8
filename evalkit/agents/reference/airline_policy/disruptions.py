"""Disruptions: IRROPS and missed connections (with meal and hotel vouchers, refund or transfer when nothing
works) and same-day standby."""

from __future__ import annotations

from datetime import date
from typing import Any

from evalkit.agents.reference.airline_policy.core import PolicyCore
from evalkit.agents.reference.airline_policy.rules import (
    REBOOK_WORDS,
    booking_view,
    describe_option,
)
from evalkit.agents.reference.policy import PolicyReply, ok
from evalkit.domains.airline.policy import (
    MAX_HOTEL_NIGHTS,
    meal_voucher_for_delay,
)
from evalkit.spoken import (
    parse_yes_no,
    say_date,
    say_time,
)


class DisruptionMixin(PolicyCore):
    """IRROPS, missed connections and standby."""

    # -- disruptions ----------------------------------------------------------------------------------------
    def _start_irrops(self, found: str) -> PolicyReply:
        booking = self.booking
        self.disruption = self._look_up_disruption(booking)
        replaced = self._replaced_disrupted_booking() if not self.disruption else None
        if replaced is not None:  # the airline already rebooked a cancelled flight: that rebooking is the question
            self.disruption = self._look_up_disruption(replaced)
            reason = "irrops_overnight" if booking["date"] > replaced["date"] else "cancellation_wait_same_day"
            found += f" Your original flight {replaced['flight_number']} was cancelled and you were moved to this one."
            found += f" I've issued a {self._issue_meal(reason)} dollar meal voucher for the wait."
        if not self.disruption:  # no disruption on record: the caller's own reason, a regular change
            self.intent = "voluntary_change"
            return self._ask("date", f"{found} What date would you like to travel instead?")
        if not self.disruption.get("irrops"):
            delay = self.disruption.get("delay_minutes", 0)
            state = f"delayed by {delay} minutes" if delay else "operating on schedule"
            return self._anything_else(
                f"{found} The flight is {state}, which isn't a disruption that waives change fees. "
                "A change would be a regular change with the usual fees."
            )
        what = (
            "cancelled"
            if self.disruption["disruption_type"] == "cancellation"
            else (f"delayed by {self.disruption['delay_minutes'] // 60} hours")
        )
        cause = f" because of {self.disruption['cause'].replace('_', ' ')}" if self.disruption.get("cause") else ""
        self.travel_date = max(date.fromisoformat(booking["date"]), self.today)
        said = f"{found} I'm sorry, that flight is {what}{cause}. All change fees are waived."
        if self.disruption["disruption_type"] == "cancellation":
            return self._offer(said)
        # A delay: the wait earns its meal voucher whether or not the caller moves (App. L.4 "Compensation").
        reason = meal_voucher_for_delay(self.disruption.get("delay_minutes", 0))
        if reason is not None:
            said += f" I've issued a {self._issue_meal(reason)} dollar meal voucher for the airport restaurants."
        if any(w in self.opening.lower() for w in REBOOK_WORDS):
            return self._offer(said)
        return self._ask("rebook_offer", f"{said} Would you like me to look for another flight?")

    def _replaced_disrupted_booking(self) -> dict[str, Any] | None:
        """A cancelled booking of the reservation whose flight the airline cancelled (a rebooking it made)."""
        assert self.reservation is not None
        for raw in self.reservation["bookings"]:
            if raw.get("status") == "cancelled":
                view = booking_view(raw)
                journey = self.tools.call(
                    "get_flight_status", flight_number=view["flight_number"], flight_date=view["date"]
                )
                if ok(journey) and journey["journey"].get("status") == "cancelled":
                    return view
        return None

    def _on_rebook_offer(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I look for another flight? Yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, you stay on your flight.")
        return self._offer("")

    def _irrops_vouchers(self, old: dict[str, Any]) -> list[str]:
        """Meal and hotel vouchers after an involuntary rebooking (App. L.4 "Compensation"), issued once the new
        flight is confirmed. Overnight: $25 meal and a hotel night per night waited (at most 3)."""
        assert self.choice is not None and self.code is not None
        nights = (date.fromisoformat(self.choice["date"]) - date.fromisoformat(old["date"])).days
        said: list[str] = []
        meal: str | None = None
        if self.intent == "irrops_rebooking":
            if nights > 0:
                meal = "irrops_overnight"
            elif self.disruption.get("disruption_type") == "cancellation":
                meal = "cancellation_wait_same_day"
            elif self.disruption.get("disruption_type") in ("delay", "schedule_change"):
                meal = meal_voucher_for_delay(self.disruption.get("delay_minutes", 0))
        if meal is not None and not (self.meal_issued and meal != "irrops_overnight"):
            said.append(f"I've issued a {self._issue_meal(meal)} dollar meal voucher for the airport restaurants.")
        if nights > 0:
            nights = min(nights, MAX_HOTEL_NIGHTS)
            self.tools.call(
                "issue_hotel_voucher", confirmation_number=self.code, passenger_id=self.passenger_id, num_nights=nights
            )
            said.append(f"And a hotel voucher for {nights} {'night' if nights == 1 else 'nights'} near the airport.")
        return said

    def _no_acceptable_option(self) -> PolicyReply:
        """Alternatives exhausted: a refund when the disruption allows one, else a live agent (offered, never
        imposed: App. L.4 "always offer the transfer first and wait for the caller to confirm")."""
        days = " and ".join(say_date(d.isoformat()) for d in self.searched)
        if self.disruption.get("refund_eligible"):
            return self._ask(
                "refund_instead",
                f"I've checked {days} and there's nothing that works. Since the airline disrupted your trip, you "
                "can have a full refund to your original payment. Would you like a full refund instead?",
            )
        self.transfer_reason = "no_acceptable_option"
        return self._offer_transfer(f"I've checked {days} and I can't find an option that works.")

    def _on_refund_instead(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, would you like the full refund? Yes or no.", "Yes or no, please.")
        if answer is False:
            self.transfer_reason = "no_acceptable_option"
            return self._offer_transfer("Okay.")
        return self._cancel_and_settle("irrops_refund")

    def _start_missed_connection(self) -> PolicyReply:
        missed = [b for b in self.bookings if b["status"] == "missed"]
        if not missed:
            return self._anything_else("I don't see a missed connection on this reservation.")
        booking = missed[0]
        self.travel_date = max(date.fromisoformat(booking["date"]), self.today)
        return self._offer(
            f"I see you missed flight {booking['flight_number']} from {booking['origin']} to "
            f"{booking['destination']} because your first flight arrived late. Rebooking is free."
        )

    def _offer_standby_after_rebooking(self, done: str) -> PolicyReply:
        """A full flight that leaves earlier than the new one: offer its standby list (free, same day)."""
        assert self.choice is not None
        if self.choice["date"] != self.today.isoformat():
            return self._anything_else(done)
        earlier = [
            o
            for o in self._full_flights()
            if o["departure"] < self.choice["departure"] and o["date"] == self.choice["date"]
        ]
        if not earlier:
            return self._anything_else(done)
        self.choice = earlier[0]
        return self._ask(
            "standby_confirm",
            f"{done} Flight {earlier[0]['flights'][0]} at {say_time(earlier[0]['departure'])} is full, but standby "
            "is free and your new seat stays confirmed. Shall I add you to the standby list for it?",
        )

    def _full_flights(self) -> list[dict[str, Any]]:
        options = self._search(seats_needed=False, limit=20)
        return [o for o in options if o["seats"].get(self.booking["fare_class"], 0) < 1]

    # -- standby --------------------------------------------------------------------------------------------
    def _start_standby(self, found: str) -> PolicyReply:
        if self.booking["date"] != self.today.isoformat():
            return self._anything_else(
                f"{found} Standby is only for flights today, with a confirmed seat on a later flight the same day, "
                "so I'm not able to list you for that."
            )
        self.travel_date = self.today
        self.options = self._search(seats_needed=False)
        if not self.options:
            return self._anything_else(f"{found} I'm sorry, there are no earlier flights today to stand by for.")
        listed = "; ".join(describe_option(o) for o in self.options)
        return self._ask("choice", f"{found} Standby is free. Earlier today I have {listed}. Which would you like?")

    def _confirm_standby(self) -> PolicyReply:
        assert self.choice is not None
        return self._ask(
            "standby_confirm",
            f"The standby list clears at the gate about 15 minutes before departure. If you don't clear, your seat on "
            f"flight {self.booking['flight_number']} stays confirmed. Shall I add you to the standby list for "
            f"flight {' and flight '.join(o['flights'][0] for o in [self.choice, *self.also])}?",
        )

    def _on_standby_confirm(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I add you to the standby list? Yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, no standby.")
        assert self.choice is not None and self.code is not None
        said = []
        for option in [self.choice, *self.also]:
            result = self.tools.call(
                "add_to_standby",
                confirmation_number=self.code,
                passenger_ids=[self.passenger_id],
                journey_id=option["journey_id"],
            )
            if not ok(result):
                said.append(
                    f"I'm sorry, I couldn't add you to standby for flight {option['flights'][0]}: "
                    f"{result.get('message')}."
                )
                continue
            said.append(
                f"You're number {result['standby_list_position']} on the standby list for flight "
                f"{option['flights'][0]}."
            )
        return self._anything_else(" ".join(said))
