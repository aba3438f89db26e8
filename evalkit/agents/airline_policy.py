"""SkyWay Airlines dialogue policy (EVA-Bench App. L.4): authenticate, find options, explain fees, confirm, act.

It covers the seven workflow categories of Table 42: voluntary change, IRROPS rebooking, missed connection,
same-day change and standby, cancellation and refund, escalation (fee waivers that need a live agent, no acceptable
option, a caller who insists on a supervisor) and compensation claims. Airline keeps this hand-written policy rather
than the declarative workflow engine of HR and ITSM because its tasks are negotiations over tool results (offered
flights, fees, delays, entitlements), not slot filling.

Wording keeps to the paper's voice rules: short sentences, codes spelled out, one or two questions per turn.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.policy import POLICIES, PolicyReply, ok
from evalkit.domains.airline.tools import (
    MAX_HOTEL_NIGHTS,
    MEAL_VOUCHER_AMOUNT,
    cancellation_fee,
    change_fee,
    meal_voucher_for_delay,
)
from evalkit.spoken import (
    flight_digits,
    parse_clock_times,
    parse_code,
    parse_correction,
    parse_date,
    parse_flight_numbers,
    parse_name,
    parse_seat_preference,
    parse_spelled_word,
    parse_yes_no,
    say_date,
    say_time,
    spell_code,
)

MAX_AUTH_ATTEMPTS = 2  # App. L.4: offer a transfer after two failed attempts
MAX_REASKS = 2
MAX_REPAIRS = 8  # corrections (one character or a whole re-spelling) of a read-back before giving up
CODE_LENGTH = 6  # SkyWay confirmation codes have six characters
SAME_DAY_CUTOFF_MINUTES = 30  # same-day changes are permitted up to 30 minutes before departure
WAIVER_KEYWORDS = (  # fee waivers that need documentation a live agent must see (App. L.4 "Fee Waivers")
    ("bereavement", ("bereavement", "funeral", "passed away", "death in")),
    ("medical emergency", ("medical", "hospital", "surgery")),
    ("military orders", ("military", "orders", "deployment", "deployed")),
)
INTENT_KEYWORDS = (  # first match wins: the specific situations before the generic verbs
    ("escalation", tuple(word for _, words in WAIVER_KEYWORDS for word in words)),
    ("missed_connection", ("missed my connect", "missed the connect", "missed connection", "connecting flight")),
    ("standby", ("standby", "stand by")),
    ("compensation_claim", ("voucher", "compensation", "compensate", "hotel")),
    ("cancellation_refund", ("refund", "cancel my", "cancel the", "cancel this", "cancel our", "want to cancel")),
    ("irrops_rebooking", ("cancelled", "canceled", "delayed", "delay", "schedule change", "rebook")),
    ("same_day_change", ("earlier", "today", "sooner")),
    ("voluntary_change", ("change", "different day", "another day", "move", "reschedule")),
)
# A reply to an offer that names no offered flight but says it doesn't fit ("That's too late, I need a morning one").
REJECT_CUES = ("none", "too late", "too early", "can't", "cannot", "rather", "doesn't work", "don't work", "need")
SUPERVISOR_CUES = ("supervisor", "manager", "live agent", "real person", "somebody else", "someone else")


def classify_intent(text: str) -> str | None:
    low = text.lower()
    for intent, words in INTENT_KEYWORDS:
        if any(w in low for w in words):
            return intent
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


class AirlinePolicy:
    def __init__(self, tools: ToolBox, today: date, clock: str = "00:00") -> None:
        self.tools = tools
        self.today = today
        self.clock = clock  # "HH:MM" now: same-day cut-offs and standby need it
        self.pending = "intent"
        self.intent: str | None = None
        self.code: str | None = None
        self.name: str | None = None
        self.spelling: str = "code"  # what the current read-back is about: "code" or "name"
        self.repairs = 0
        self.reservation: dict[str, Any] | None = None
        self.auth_failures = 0
        self.reasks = 0
        self.options: list[dict[str, Any]] = []
        self.rejections = 0
        self.choice: dict[str, Any] | None = None
        self.seat = "no_preference"
        self.travel_date: date | None = None
        self.opening = ""
        self.transfer_reason = ""
        self.refund_type = "standard"
        self.disruption: dict[str, Any] = {}
        self.searched: list[date] = []

    # -- public ------------------------------------------------------------------------------------------
    def greet(self) -> PolicyReply:
        return PolicyReply("Hello! Thank you for calling SkyWay Airlines. How can I help you today?")

    def step(self, heard: str) -> PolicyReply:
        handler = getattr(self, f"_on_{self.pending}")
        return handler(heard)

    # -- helpers -----------------------------------------------------------------------------------------
    def _ask(self, pending: str, text: str) -> PolicyReply:
        self.pending = pending
        return PolicyReply(text)

    def _reask(self, text: str, fallback: str) -> PolicyReply:
        self.reasks += 1
        if self.reasks > MAX_REASKS:
            return self._transfer("unresolved_after_two_attempts")
        return PolicyReply(text if self.reasks == 1 else fallback)

    def _anything_else(self, prefix: str) -> PolicyReply:
        return self._ask("anything_else", f"{prefix} Is there anything else I can help you with?")

    def _transfer(self, reason: str) -> PolicyReply:
        self.tools.call("transfer_to_agent", reason=reason)
        return PolicyReply("I'm sorry I couldn't sort this out. I'm transferring you to a live agent now.", True)

    @property
    def booking(self) -> dict[str, Any]:
        """The booking the call is about: a missed leg if there is one, else the first."""
        assert self.reservation is not None
        bookings = self.reservation["bookings"]
        return next((b for b in bookings if b["status"] == "missed"), bookings[0])

    @property
    def passenger_id(self) -> str:
        assert self.reservation is not None
        return self.reservation["passengers"][0]["passenger_id"]

    # -- states ------------------------------------------------------------------------------------------
    def _on_intent(self, heard: str) -> PolicyReply:
        self.opening = heard
        self.intent = classify_intent(heard)
        if self.intent is None:
            return self._reask(
                "Sorry, I didn't catch that. I can help with flight changes, cancellations and refunds. "
                "What would you like to do?",
                "Could you tell me again what you need help with today?",
            )
        self.reasks = 0
        return self._ask("code", "Sure, I can help with that. May I have your six character confirmation code?")

    def _on_code(self, heard: str) -> PolicyReply:
        code = parse_code(heard)
        if code is not None and len(code) == CODE_LENGTH:
            self.reasks = 0
            self.code = code
            return self._read_back("code")
        self.reasks += 1
        if self.reasks > MAX_REASKS:
            return self._transfer("unresolved_after_two_attempts")
        if self.reasks == 1:
            return PolicyReply("Sorry, I didn't get all six characters. Could you repeat the code slowly?")
        return PolicyReply("I still didn't get six characters. Please spell the code once more, slowly.")

    def _read_back(self, what: str) -> PolicyReply:
        """Confirm a spelled value before using it (App. L.4: confirm critical details; the caller corrects)."""
        self.spelling = what
        value = self.code if what == "code" else self.name
        assert value is not None
        return self._ask("check", f"I have {spell_code(value)}. Is that right?")

    def _on_check(self, heard: str) -> PolicyReply:
        value = (self.code if self.spelling == "code" else self.name) or ""
        correction = parse_correction(heard)
        if correction is not None and 1 <= correction[0] <= len(value):
            self.repairs += 1
            if self.repairs > MAX_REPAIRS:
                return self._transfer("unresolved_after_two_attempts")
            position, char = correction
            value = value[: position - 1] + char + value[position:]
            self._set_spelled(value)
            return self._read_back(self.spelling)
        if parse_yes_no(heard) is True:
            if self.spelling == "code":
                return self._ask("name", "Thank you. And the last name on the reservation?")
            return self._look_up(final=True)
        again = parse_code(heard) if self.spelling == "code" else parse_spelled_word(heard)
        if again and (self.spelling != "code" or len(again) == CODE_LENGTH):
            # A whole re-spelling is a repair too: without this bound a caller the ASR keeps mishearing and the
            # agent's read-back loop until the turn limit (seen with the elderly persona's paused spelling).
            self.repairs += 1
            if self.repairs > MAX_REPAIRS:
                return self._transfer("unresolved_after_two_attempts")
            self._set_spelled(again)
            return self._read_back(self.spelling)
        # A "no" the agent cannot use is a failed repair as well: the re-spelling that follows resets the re-ask
        # count, so without this a correction the ASR always garbles ("the sixth one is Papa" -> "popping") looped
        # until the turn limit (seen in audio: AL-010, 161 turns).
        self.repairs += 1
        if self.repairs > MAX_REPAIRS:
            return self._transfer("unresolved_after_two_attempts")
        thing = "confirmation code" if self.spelling == "code" else "last name"
        self.pending = "code" if self.spelling == "code" else "spell_name"
        return self._reask(
            f"Sorry, could you spell the whole {thing} again?", f"Please spell the {thing} slowly, one at a time."
        )

    def _set_spelled(self, value: str) -> None:
        if self.spelling == "code":
            self.code = value
        else:
            self.name = value.capitalize()

    def _on_name(self, heard: str) -> PolicyReply:
        name = parse_name(heard)
        if name is None:
            return self._reask("Sorry, what is the last name on the booking?", "Could you spell the last name?")
        self.reasks = 0
        self.name = name
        return self._look_up(final=False)

    def _on_spell_name(self, heard: str) -> PolicyReply:
        spelled = parse_spelled_word(heard)
        if spelled is None:
            return self._reask("Sorry, could you spell the last name again?", "One letter at a time, please.")
        self.reasks = 0
        self.name = spelled.capitalize()
        return self._read_back("name")

    def _look_up(self, final: bool) -> PolicyReply:
        assert self.code is not None and self.name is not None
        result = self.tools.call("get_reservation", confirmation_number=self.code, last_name=self.name)
        if ok(result):
            self.reservation = result["reservation"]
            return self._start_workflow()
        self.auth_failures += 1
        if final or self.auth_failures >= MAX_AUTH_ATTEMPTS:
            return self._transfer("authentication_failed")
        return self._ask(
            "spell_name",
            f"I couldn't find a booking under {spell_code(self.code)} with the last name {self.name}. "
            "Could you spell your last name for me?",
        )

    def _start_workflow(self) -> PolicyReply:
        booking = self.booking
        found = (
            f"I found your booking on flight {booking['flight_number']} from {booking['origin']} to "
            f"{booking['destination']} on {say_date(booking['date'])} at {say_time(booking['departure'])}."
        )
        if self.intent == "same_day_change":
            self.travel_date = self.today
            return self._offer(found)
        if self.intent == "voluntary_change":
            return self._ask("date", f"{found} What date would you like to travel instead?")
        if self.intent == "cancellation_refund":
            return self._offer_cancellation(found)
        if self.intent == "irrops_rebooking":
            return self._start_irrops(found)
        if self.intent == "missed_connection":
            return self._start_missed_connection()
        if self.intent == "standby":
            return self._start_standby(found)
        if self.intent == "escalation":
            return self._offer_waiver_transfer(found)
        return self._check_compensation(found)

    # -- searching and choosing ----------------------------------------------------------------------------
    def _on_date(self, heard: str) -> PolicyReply:
        when = parse_date(heard, self.today)
        if when is None:
            return self._reask("Sorry, which date would you like?", "Please tell me the month and the day.")
        self.reasks = 0
        self.travel_date = when
        return self._offer("")

    def _search(self, seats_needed: bool = True) -> list[dict[str, Any]]:
        """Options on the travel date for the booking's route: not the booked journey, not gone (a same-day
        change closes 30 minutes before departure), with a seat in the booked cabin unless ``seats_needed`` is off
        (standby lists on full flights)."""
        booking = self.booking
        assert self.travel_date is not None
        self.searched.append(self.travel_date)
        result = self.tools.call(
            "search_rebooking_options",
            origin=booking["origin"],
            destination=booking["destination"],
            date=self.travel_date.isoformat(),
            passenger_count=1,
            fare_class="any",
        )
        options = result.get("options", []) if ok(result) else []
        options = [o for o in options if o["journey_id"] != booking["journey_id"]]
        if self.travel_date == self.today:
            cutoff = later(self.clock, SAME_DAY_CUTOFF_MINUTES)
            options = [o for o in options if o["departure"] >= cutoff]
        if seats_needed:
            options = [o for o in options if o["seats"].get(booking["fare_class"], 0) >= 1]
        if self.intent in ("same_day_change", "standby"):
            options = [o for o in options if o["departure"] < booking["departure"]]
        return options[:3]

    def _offer(self, prefix: str) -> PolicyReply:
        self.options = self._search()
        assert self.travel_date is not None
        if not self.options:
            if self.intent in ("irrops_rebooking", "missed_connection") and len(self.searched) < 2:
                self.travel_date += timedelta(days=1)
                return self._offer(f"{prefix} I don't see open seats that day, so I checked the next day.".strip())
            if self.intent in ("irrops_rebooking", "missed_connection"):
                return self._no_acceptable_option()
            return self._anything_else(f"{prefix} I'm sorry, I don't see any available flights that day.".strip())
        listed = "; ".join(describe_option(o) for o in self.options)
        return self._ask(
            "choice",
            f"{prefix} On {say_date(self.travel_date.isoformat())} I have {listed}. Which would you like?".strip(),
        )

    def _match_option(self, heard: str) -> dict[str, Any] | None:
        """The offered option the caller named: by flight number, by its digits alone, or by time."""
        numbers = set(parse_flight_numbers(heard))
        times = set(parse_clock_times(heard))
        digits = flight_digits(heard)
        for option in self.options:
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
        if self.intent == "standby":
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
        assert self.reservation is not None and self.choice is not None
        if self.involuntary:
            return self._ask(
                "confirm",
                f"Because the disruption was on our side, there is no change fee and no fare difference. "
                f"Shall I go ahead and move you to {describe_option(self.choice)}?",
            )
        rebooking_type = self.rebooking_type
        elite = self.reservation["passengers"][0]["elite_status"]
        fee = change_fee(rebooking_type, self.booking["fare_class"], elite)
        difference = self.choice["fares"][self.booking["fare_class"]] - self.booking["fare_paid"]
        kind = "same day change" if rebooking_type == "same_day" else "change"
        fee_text = f"The {kind} fee is {fee} dollars" if fee else f"There is no {kind} fee"
        diff_text = (
            "there is no fare difference"
            if difference == 0
            else f"the fare difference is {difference} dollars"
            if difference > 0
            else f"you get a travel credit of {-difference} dollars"
        )
        total = fee + max(difference, 0)
        return self._ask(
            "confirm",
            f"{fee_text}, and {diff_text}, for a total of {total} dollars. "
            f"Shall I go ahead and move you to {describe_option(self.choice)}?",
        )

    @property
    def involuntary(self) -> bool:
        return self.intent in ("irrops_rebooking", "missed_connection")

    @property
    def rebooking_type(self) -> str:
        if self.intent == "irrops_rebooking":
            return "irrops"
        if self.intent == "missed_connection":
            return "missed_connection"
        return "same_day" if self.travel_date == self.today else "voluntary"

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
            waive_change_fee=self.involuntary,
        )
        if not ok(result):
            return self._transfer("system_issue")
        new_id = self.choice["journey_id"]
        if result.get("fare_difference", 0) < 0:  # a downgrade's difference goes back as travel credit
            self.tools.call(
                "issue_travel_credit",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                amount=float(-result["fare_difference"]),
                reason="fare_downgrade",
            )
        seat = self.tools.call(
            "assign_seat",
            confirmation_number=self.code,
            passenger_id=self.passenger_id,
            journey_id=new_id,
            seat_preference=self.seat,
        )
        if old.get("meal_request"):  # principle 5: carry ancillaries over to the new flight
            self.tools.call(
                "update_meal_request",
                confirmation_number=self.code,
                journey_id=new_id,
                meal_request=old["meal_request"],
            )
        parts = [f"All done. You are now on {describe_option(self.choice)} on {say_date(self.choice['date'])}."]
        if ok(seat):
            parts.append(f"Your seat is {seat['seat']}.")
        if old.get("meal_request"):
            parts.append(f"Your {old['meal_request'].replace('_', ' ')} meal is moved as well.")
        if result.get("fare_difference", 0) < 0:
            parts.append(f"The {-result['fare_difference']} dollar fare difference is a travel credit.")
        if self.involuntary:
            parts += self._irrops_vouchers(old)
        parts.append(f"Your confirmation number is still {spell_code(self.code)}.")
        if self.intent == "missed_connection":
            return self._offer_standby_after_rebooking(" ".join(parts))
        return self._anything_else(" ".join(parts))

    # -- disruptions ----------------------------------------------------------------------------------------
    def _start_irrops(self, found: str) -> PolicyReply:
        booking = self.booking
        info = self.tools.call("get_disruption_info", flight_number=booking["flight_number"], date=booking["date"])
        self.disruption = info if ok(info) else {}
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
        cause = f" because of {self.disruption['cause']}" if self.disruption.get("cause") else ""
        self.travel_date = max(date.fromisoformat(booking["date"]), self.today)
        return self._offer(f"{found} I'm sorry, that flight is {what}{cause}. All change fees are waived.")

    def _irrops_vouchers(self, old: dict[str, Any]) -> list[str]:
        """Meal and hotel vouchers after an involuntary rebooking (App. L.4 "Compensation"), issued once the new
        flight is confirmed. Overnight: $25 meal and a hotel night per night waited (at most 3)."""
        assert self.choice is not None and self.code is not None
        nights = (date.fromisoformat(self.choice["date"]) - date.fromisoformat(old["date"])).days
        said: list[str] = []
        meal: tuple[int, str] | None = None
        if self.intent == "irrops_rebooking":
            if nights > 0:
                meal = (MEAL_VOUCHER_AMOUNT["irrops_overnight"], "irrops_overnight")
            elif self.disruption.get("disruption_type") == "cancellation":
                meal = (MEAL_VOUCHER_AMOUNT["cancellation_wait_same_day"], "cancellation_wait_same_day")
            elif self.disruption.get("disruption_type") == "delay":  # a schedule change is no wait at the airport
                meal = meal_voucher_for_delay(self.disruption.get("delay_minutes", 0))
        if meal is not None:
            said.append(f"I've issued a {self._issue_meal(meal)} dollar meal voucher for the airport restaurants.")
        if nights > 0:
            nights = min(nights, MAX_HOTEL_NIGHTS)
            reason = "irrops_overnight" if self.intent == "irrops_rebooking" else "missed_connection_overnight"
            self.tools.call(
                "issue_hotel_voucher",
                confirmation_number=self.code,
                passenger_id=self.passenger_id,
                nights=nights,
                reason=reason,
            )
            said.append(f"And a hotel voucher for {nights} {'night' if nights == 1 else 'nights'} near the airport.")
        return said

    def _issue_meal(self, voucher: tuple[int, str]) -> int:
        amount, reason = voucher
        assert self.code is not None
        self.tools.call(
            "issue_meal_voucher",
            confirmation_number=self.code,
            passenger_id=self.passenger_id,
            amount=float(amount),
            reason=reason,
        )
        return amount

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
        return self._cancel_and_settle("irrops")

    def _start_missed_connection(self) -> PolicyReply:
        assert self.reservation is not None
        missed = [b for b in self.reservation["bookings"] if b["status"] == "missed"]
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
        options = self._search(seats_needed=False)
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
            f"flight {self.choice['flights'][0]}?",
        )

    def _on_standby_confirm(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask("Sorry, shall I add you to the standby list? Yes or no.", "Yes or no, please.")
        if answer is False:
            return self._anything_else("Okay, no standby.")
        assert self.choice is not None and self.code is not None
        result = self.tools.call(
            "add_to_standby",
            confirmation_number=self.code,
            passenger_id=self.passenger_id,
            journey_id=self.choice["journey_id"],
        )
        if not ok(result):
            return self._anything_else(f"I'm sorry, I couldn't add you to standby: {result.get('message')}.")
        return self._anything_else(
            f"You're number {result['standby_position']} on the standby list for flight {self.choice['flights'][0]}."
        )

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

    def _on_anything_else(self, heard: str) -> PolicyReply:
        low = heard.lower()
        if any(c in low for c in SUPERVISOR_CUES):  # insisting on somebody else: offer, then wait for a yes
            self.transfer_reason = "caller_request"
            return self._offer_transfer("I understand.")
        if self.intent == "compensation_claim" and ("voucher" in low or "deserve" in low or "fair" in low):
            return self._anything_else(
                "I understand your frustration. Our policy only allows vouchers for the delays it lists, "
                "so I'm not able to issue one today."
            )
        if parse_yes_no(heard) is False or "bye" in low or "that's all" in low or "that is all" in low:
            return PolicyReply("Thank you for calling SkyWay Airlines. Goodbye!", end_call=True)
        return self._ask("intent", "Sure. What else can I help you with?")


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:5])


@POLICIES.register("airline")
def airline_policy(tools: ToolBox, current_date_time: str) -> AirlinePolicy:
    """Airline's tasks are negotiations over tool results, not slot filling, so it has no workflows to run."""
    return AirlinePolicy(tools, date.fromisoformat(current_date_time[:10]), current_date_time[11:16])
