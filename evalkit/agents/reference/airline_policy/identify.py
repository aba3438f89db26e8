"""Identifying the caller: the request, the confirmation code and last name (read back and repaired), the
reservation look-up, and the start of the workflow the request asks for."""

from __future__ import annotations

from evalkit.agents.reference.airline_policy.core import PolicyCore
from evalkit.agents.reference.airline_policy.rules import (
    CODE_LENGTH,
    MAX_AUTH_ATTEMPTS,
    MAX_REASKS,
    MAX_REPAIRS,
    classify_intent,
    pick_booking,
)
from evalkit.agents.reference.policy import PolicyReply, ok
from evalkit.dialogue_acts import DialogueAct
from evalkit.domains.airline.policy import route_change
from evalkit.spoken import (
    parse_code,
    parse_correction,
    parse_name,
    parse_spelled_word,
    parse_yes_no,
    say_date,
    say_time,
    spell_code,
)


class IdentifyMixin(PolicyCore):
    """From the opening request to the reservation, then on to the matching workflow."""

    # -- states ------------------------------------------------------------------------------------------
    def _on_intent(self, heard: str) -> PolicyReply:
        self.opening = heard
        self.intent = classify_intent(heard)
        if self.intent is None and not self._about_a_booking(heard):
            return self._reask(
                "Sorry, I didn't catch that. I can help with flight changes, cancellations and refunds. "
                "What would you like to do?",
                "Could you tell me again what you need help with today?",
            )
        self.intent = self.intent or "booking_question"  # the booking will tell what it is about
        self.reasks = 0
        return self._ask(
            "code",
            "Sure, I can help with that. May I have your six character confirmation code?",
            DialogueAct("ask", "confirmation_number"),
        )

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
        # a code spelled twice and still not heard: the phonetic alphabet (EVA-Bench App. K's fallback), as the
        # workflow engine asks for a code it cannot get (its ALPHABET_ASK)
        return PolicyReply(
            "I still didn't get six characters. Could you spell it with the phonetic alphabet, like A as in Alpha?"
        )

    def _read_back(self, what: str) -> PolicyReply:
        """Confirm a spelled value before using it (App. L.4: confirm critical details; the caller corrects)."""
        self.spelling = what
        value = self.code if what == "code" else self.name
        assert value is not None
        field = "confirmation_number" if what == "code" else "last_name"
        return self._ask("check", f"I have {spell_code(value)}. Is that right?", DialogueAct("confirm", field, value))

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
                return self._ask(
                    "name", "Thank you. And the last name on the reservation?", DialogueAct("ask", "last_name")
                )
            return self._look_up(final=True)
        again = self._spelled_again(heard)
        if again:
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

    def _spelled_again(self, heard: str) -> str | None:
        """The value being read back, spelled again in ``heard`` (a code of the right length, a surname)."""
        again = parse_code(heard) if self.spelling == "code" else parse_spelled_word(heard)
        return again if again and (self.spelling != "code" or len(again) == CODE_LENGTH) else None

    def _restated(self, heard: str) -> str | None:
        """A re-spelling that differs from the read-back it answers: the form of a "no, it's ..." answer (issue
        17.2). The same spelling as read back is the same mishearing again, so another hypothesis is preferred."""
        again = self._spelled_again(heard)
        current = (self.code if self.spelling == "code" else self.name) or ""
        return again if again and again.upper() != current.upper() else None

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

    @staticmethod
    def _about_a_booking(heard: str) -> bool:
        low = heard.lower()
        return any(w in low for w in ("flight", "booking", "reservation", "charged", "ticket", "trip"))

    def _start_workflow(self) -> PolicyReply:
        if not (self.reservation or {}).get("bookings"):  # a reservation with no flights: nothing to act on here
            return self._transfer("no_acceptable_option")
        self.focus = pick_booking(self.bookings, self.opening)
        booking = self.booking
        if self.intent == "same_day_change" and booking["date"] != self.today.isoformat():
            self.intent = "voluntary_change"  # "an earlier date": a change to another day
        found = (
            f"I found your booking on flight {booking['flight_number']} from {booking['origin']} to "
            f"{booking['destination']} on {say_date(booking['date'])} at {say_time(booking['departure'])}."
        )
        if self.intent == "same_day_change":
            self.travel_date = self.today
            return self._offer(found)
        if self.intent == "voluntary_change" and (end := route_change(self.opening)) is not None:
            way = "from" if end == "origin" else "into"
            return self._ask_airport(
                end, f"{found} Which airport would you like to fly {way} instead? Please tell me its three-letter code."
            )
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
        if self.intent == "booking_question":
            return self._booking_question(found)
        return self._check_compensation(found)
