"""Rebooking: the travel date, the flight search, offering and choosing an option, seat preference, fees and the
rebooking itself (credit, seat and meal carried over)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from evalkit.agents.reference.airline_policy.core import PolicyCore
from evalkit.agents.reference.airline_policy.rules import (
    REJECT_CUES,
    SAME_DAY_CUTOFF_MINUTES,
    describe_option,
    later,
    option_view,
    parse_airport,
)
from evalkit.agents.reference.policy import PolicyReply, ok
from evalkit.domains.airline.policy import (
    change_fee,
    elite_waives,
)
from evalkit.spoken import (
    flight_digits,
    parse_clock_times,
    parse_date,
    parse_flight_numbers,
    parse_seat_preference,
    parse_seat_preferences,
    parse_yes_no,
    say_date,
    spell_code,
)


class RebookingMixin(PolicyCore):
    """Searching, offering, choosing and confirming a new flight, then rebooking it."""

    # -- searching and choosing ----------------------------------------------------------------------------
    def _on_date(self, heard: str) -> PolicyReply:
        when = parse_date(heard, self.today)
        if when is None:
            return self._reask("Sorry, which date would you like?", "Please tell me the month and the day.")
        self.reasks = 0
        self.travel_date = when
        return self._offer("")

    def _ask_airport(self, end: str, text: str) -> PolicyReply:
        self.moving = end
        return self._ask("airport", " ".join(text.split()))

    def _on_airport(self, heard: str) -> PolicyReply:
        """The new airport for the end of the trip in ``moving`` (its code: the tools know no city names)."""
        code = parse_airport(heard)
        if code is None:
            if parse_yes_no(heard) is False or any(cue in heard.lower() for cue in REJECT_CUES):
                return self._anything_else("Okay, then I'll leave your booking as it is.")
            return self._reask(
                "Sorry, which airport? Please tell me its three-letter code.",
                "Please spell the airport code, one letter at a time.",
            )
        assert self.moving is not None
        self.reasks = 0
        self.route[self.moving] = code
        if self.travel_date is None:
            return self._ask("date", f"{code}, got it. What date would you like to travel?")
        self.searched.clear()
        return self._offer(f"Let me check {code}.")

    def _search(self, seats_needed: bool = True, limit: int = 3) -> list[dict[str, Any]]:
        """Options on the travel date for the booking's route: not the booked journey, not gone (a same-day
        change closes 30 minutes before departure), with a seat in the booked cabin unless ``seats_needed`` is off
        (standby lists on full flights)."""
        booking = self.booking
        assert self.travel_date is not None
        self.searched.append(self.travel_date)
        day = self.travel_date.isoformat()
        result = self.tools.call(
            "search_rebooking_options",
            origin=self.route.get("origin", booking["origin"]),
            destination=self.route.get("destination", booking["destination"]),
            date=day,
            passenger_count=1,
            fare_class=booking["fare_class"] if seats_needed else "any",  # priced in the booked cabin
        )
        options = [option_view(o, day) for o in result.get("options", [])] if ok(result) else []
        options = [o for o in options if o["journey_id"] != booking["journey_id"]]
        if self.travel_date == self.today:
            cutoff = later(self.clock, SAME_DAY_CUTOFF_MINUTES)
            options = [o for o in options if o["departure"] >= cutoff]
        if seats_needed:
            options = [o for o in options if o["seats"].get(booking["fare_class"], 0) >= 1]
        if self.intent == "standby" or (self.intent == "same_day_change" and self.direction == "earlier"):
            options = [o for o in options if o["departure"] < booking["departure"]]
        elif self.intent == "same_day_change" and self.direction == "later":
            options = [o for o in options if o["departure"] > booking["departure"]]
        return options[:limit]

    def _offer(self, prefix: str) -> PolicyReply:
        self.options = self._search()
        assert self.travel_date is not None
        if not self.options:
            if self.intent in ("irrops_rebooking", "missed_connection") and len(self.searched) < 2:
                self.travel_date += timedelta(days=1)
                return self._offer(f"{prefix} I don't see open seats that day, so I checked the next day.".strip())
            if self.intent in ("irrops_rebooking", "missed_connection"):
                return self._no_acceptable_option()
            if not self.route and self.intent in ("voluntary_change", "same_day_change"):
                # App. L.4 principle 4 (offer alternatives): another airport near the booked destination
                return self._ask_airport(
                    "destination",
                    f"{prefix} I'm sorry, I don't see any available flights to {self.booking['destination']} that "
                    "day. Is there another airport nearby you could fly into instead? If so, please tell me its "
                    "three-letter code.",
                )
            return self._anything_else(f"{prefix} I'm sorry, I don't see any available flights that day.".strip())
        listed = "; ".join(describe_option(o) for o in self.options)
        standby = ""
        if self.intent == "same_day_change" and "cheap" in self.opening.lower():
            # the cheapest way today is free standby on a full flight (App. L.4 "Same-day standby: Free")
            known = {o["journey_id"] for o in self.options}
            self.standby_options = [o for o in self._full_flights() if o["journey_id"] not in known][:1]
            standby = "".join(
                f" {describe_option(o).capitalize()} is full, but standby on it is free." for o in self.standby_options
            )
        return self._ask(
            "choice",
            f"{prefix} On {say_date(self.travel_date.isoformat())} I have {listed}.{standby} "
            "Which would you like?".strip(),
        )

    def _match_option(self, heard: str) -> dict[str, Any] | None:
        """The offered option the caller named: by flight number, by its digits alone, or by time."""
        numbers = set(parse_flight_numbers(heard))
        times = set(parse_clock_times(heard))
        digits = flight_digits(heard)
        for option in [*self.options, *self.standby_options]:
            if numbers & set(option["flights"]) or option["departure"] in times:
                return option
        by_digits = [o for o in self.options if digits & {f[2:] for f in o["flights"]}]
        if len(by_digits) == 1:
            return by_digits[0]
        # A single offer and a plain "yes, that works": the caller took it, whatever the ASR did to its number.
        if len(self.options) == 1 and parse_yes_no(heard) is True:
            return self.options[0]
        return None

    def _on_choice(self, heard: str) -> PolicyReply:
        choice = self._match_option(heard)
        if choice is None:
            if parse_yes_no(heard) is False or any(cue in heard.lower() for cue in REJECT_CUES):
                return self._rejected()
            return self._reask("Sorry, which flight would you like?", "Please tell me the flight number or time.")
        self.reasks = 0
        self.choice = choice
        if self.intent == "standby" or choice in self.standby_options:
            # standby on several flights at once ("the 11 and the 1 PM"): each one the caller named by number
            named = set(parse_flight_numbers(heard))
            self.also = [
                o for o in [*self.options, *self.standby_options] if o is not choice and named & set(o["flights"])
            ]
            return self._confirm_standby()
        return self._ask("seat", "Do you have a seat preference: window, aisle or middle?")

    def _rejected(self) -> PolicyReply:
        """Offer alternatives (App. L.4 principle 4): a disrupted passenger gets the next day searched, then a
        refund or a live agent; a voluntary change stays as it is."""
        self.rejections += 1
        if self.intent in ("irrops_rebooking", "missed_connection"):
            if len(self.searched) < 2:
                assert self.travel_date is not None
                self.travel_date += timedelta(days=1)
                return self._offer("Let me check the next day.")
            return self._no_acceptable_option()
        # Searching the same day again would only repeat the same list (J.1's redundant call): say so instead.
        return self._anything_else(
            "Those are the only flights with seats that day, so I'll leave your booking as it is."
        )

    def _on_seat(self, heard: str) -> PolicyReply:
        seat = parse_seat_preference(heard)
        if seat is None:  # App. L.4: find out the preference, do not assume it
            return self._reask("Sorry, would you like a window, an aisle or a middle seat?", "Window, aisle or middle?")
        self.reasks = 0
        self.seat = seat
        self.seat_choices = parse_seat_preferences(heard) or [seat]
        assert self.reservation is not None and self.choice is not None
        if self.involuntary:
            return self._ask(
                "confirm",
                f"Because the disruption was on our side, there is no change fee and no fare difference. "
                f"Shall I go ahead and move you to {describe_option(self.choice)}?",
            )
        rebooking_type = self.rebooking_type
        fee = change_fee(rebooking_type, self.booking["fare_class"], self.elite_waiver)
        difference = (self.choice["fare"] or 0) - self.booking["fare_paid"]
        kind = "same day change" if rebooking_type == "same_day" else "change"
        fee_text = f"The {kind} fee is {fee:g} dollars" if fee else f"There is no {kind} fee"
        diff_text = (
            "there is no fare difference"
            if difference == 0
            else f"the fare difference is {difference:g} dollars"
            if difference > 0
            else f"you get a travel credit of {-difference:g} dollars"
        )
        total = fee + max(difference, 0)
        return self._ask(
            "confirm",
            f"{fee_text}, and {diff_text}, for a total of {total:g} dollars. "
            f"Shall I go ahead and move you to {describe_option(self.choice)}?",
        )

    def _assign_seat(self, journey_id: str) -> dict[str, Any]:
        """The caller's seat preferences in order until one is available on the new flight (a second choice when the
        first type is not offered in the cabin)."""
        result: dict[str, Any] = {}
        for preference in self.seat_choices or [self.seat]:
            result = self.tools.call(
                "assign_seat",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                journey_id=journey_id,
                seat_preference=preference,
            )
            if ok(result) or result.get("error_type") != "seat_type_unavailable":
                break
        return result

    @property
    def direction(self) -> str | None:
        """Which way a same-day change goes, as the caller asked: "earlier", "later" (also a caller running late
        for the booked flight) or None (either)."""
        low = self.opening.lower()
        if any(w in low for w in ("later", "miss my", "missed my", "running late")):
            return "later"
        if any(w in low for w in ("earlier", "sooner")):
            return "earlier"
        return None

    @property
    def involuntary(self) -> bool:
        return self.intent in ("irrops_rebooking", "missed_connection")

    @property
    def rebooking_type(self) -> str:
        if self.intent == "irrops_rebooking":
            kind = self.disruption.get("disruption_type", "cancellation")
            return {"delay": "irrops_delay", "schedule_change": "irrops_schedule_change"}.get(
                kind, "irrops_cancellation"
            )
        if self.intent == "missed_connection":
            return "missed_connection_airline_fault"
        return "same_day" if self.travel_date == self.today else "voluntary"

    @property
    def elite_waiver(self) -> bool:
        assert self.reservation is not None
        return elite_waives(self.rebooking_type, self.reservation["passengers"][0].get("elite_status"))

    def _on_confirm(self, heard: str) -> PolicyReply:
        if self.intent == "cancellation_refund":
            return self._confirm_cancellation(heard)
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I make the change? Please say yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, I won't make any changes.")
        return self._rebook()

    def _rebook(self) -> PolicyReply:
        assert self.reservation is not None and self.choice is not None and self.code is not None
        old = dict(self.booking)
        result = self.tools.call(
            "rebook_flight",
            confirmation_number=self.code,
            journey_id=old["journey_id"],
            new_journey_id=self.choice["journey_id"],
            rebooking_type=self.rebooking_type,
            waive_change_fee=self.involuntary or self.elite_waiver,
        )
        if not ok(result):
            return self._transfer("system_issue")
        new_id = self.choice["journey_id"]
        # A voluntary downgrade's difference goes back as travel credit (an IRROPS one keeps the fare paid).
        credit = 0 if self.involuntary else result["cost_summary"]["credit_due"]
        if credit > 0:
            self.tools.call(
                "issue_travel_credit",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                amount=float(credit),
                credit_reason="fare_difference_negative",
            )
        seat = self._assign_seat(new_id)
        if old.get("bags"):  # principle 5: carry ancillaries over to the new flight
            self.tools.call(
                "add_baggage_allowance", confirmation_number=self.code, journey_id=new_id, num_bags=old["bags"]
            )
        if old.get("meal_request"):
            self.tools.call(
                "add_meal_request",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                journey_id=new_id,
                meal_type=old["meal_request"],
            )
        parts = [f"All done. You are now on {describe_option(self.choice)} on {say_date(self.choice['date'])}."]
        if ok(seat):
            parts.append(f"Your seat is {seat['seat_assigned']}.")
        if old.get("bags"):
            parts.append(f"Your {old['bags']} checked {'bag is' if old['bags'] == 1 else 'bags are'} moved too.")
        if old.get("meal_request"):
            parts.append(f"Your {old['meal_request'].replace('_', ' ')} meal is moved as well.")
        if credit > 0:
            parts.append(f"The {credit:g} dollar fare difference is a travel credit.")
        if self.involuntary:
            parts += self._irrops_vouchers(old)
        parts.append(f"Your confirmation number is still {spell_code(self.code)}.")
        if self.intent == "missed_connection":
            return self._offer_standby_after_rebooking(" ".join(parts))
        following = self._other_leg(old["journey_id"], new_id)
        if following is not None:  # a round trip to change: the return leg next
            self.focus = following
            parts.append(
                f"Now your return flight {following['flight_number']} on {say_date(following['date'])}. "
                "What return date would you like?"
            )
            return self._ask("date", " ".join(parts))
        return self._anything_else(" ".join(parts))

    def _other_leg(self, changed: str, new_id: str) -> dict[str, Any] | None:
        """The return journey still to change when the caller asked to change a round trip's dates."""
        low = self.opening.lower()
        if self.intent != "voluntary_change" or not any(w in low for w in ("round trip", "round-trip", "both")):
            return None
        done = {changed, new_id, *self.changed}
        self.changed.update((changed, new_id))
        return next((b for b in self.bookings if b["journey_id"] not in done), None)
