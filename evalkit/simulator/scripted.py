"""The scripted user simulator: follows a scenario's decision tree, answers only what it is asked.

It reads the agent's *intended* text (the simulator's own ear is taken as perfect; EVA-Bench's simulator has
its own STT, which an LLM simulator can add later). Behaviour follows App. K's guardrails: begin with the
starting utterance, give information only when asked, spell codes one character at a time and fall back to
the NATO alphabet on the second attempt, never end the call in the turn that gives information, end the call
once the agent has reported the outcome, after a refused transfer, or after 5 turns without progress.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from evalkit.scenarios import Scenario
from evalkit.simulator.persona import PersonaSpec, PersonaStyle, is_code
from evalkit.spoken import parse_flight_numbers, say_correction

NO_PROGRESS_LIMIT = 5  # App. D / K: end the call after 5 consecutive turns without progress
FIELD_CUES = (
    (
        "confirmation_number",
        ("confirmation number", "confirmation code", "six characters", "repeat the code", "spell the code"),
    ),
    ("last_name", ("last name",)),
    ("new_date", ("what date", "which date", "new date", "the month and the day")),
    ("seat_preference", ("seat preference", "window, an aisle")),
)
CONFIRM_CUES = ("shall i", "should i", "would you like me to", "do you want me to", "yes or no")
REPEATABLE_CUES = ("which would you like", "total of", "shall i go ahead")  # offers and quotes worth re-hearing
STALL_CUES = ("sorry", "didn't get", "still didn't", "again")


@dataclass
class UserUtterance:
    text: str
    end_call: bool = False


def _quoted_total(agent_text: str) -> float | None:
    """The amount the agent quotes as the total (or the largest amount) — what the caller would pay."""
    low = agent_text.lower()
    total = re.search(r"total of \$?(\d+(?:\.\d+)?)", low)
    if total:
        return float(total.group(1))
    amounts = [float(a) for a in re.findall(r"\$?(\d+(?:\.\d+)?) dollars", low)]
    return max(amounts) if amounts else None


class ScriptedSimulator:
    """``persona`` changes how answers are said (``PersonaStyle``); ``rng`` is the conversation's own stream, so
    a persona's choices replay exactly for a (cell seed, scenario, trial)."""

    def __init__(
        self, scenario: Scenario, persona: PersonaSpec | None = None, rng: np.random.Generator | None = None
    ) -> None:
        self.style = PersonaStyle(persona, rng)
        self.pending_repeat: str | None = None
        self.stalled = False
        self.goal = scenario.user_goal
        self.plan = scenario.user_goal.scripted
        self.asked: dict[str, int] = {}
        self.rejected = 0
        self.push_backs = 0
        self.no_progress = 0
        self.last = ""
        self.last_field = ""

    def first_utterance(self) -> UserUtterance:
        return self._say(self.style.opening(self.goal.starting_utterance))

    def _say(self, text: str, end_call: bool = False) -> UserUtterance:
        self.last = text
        return UserUtterance(text, end_call)

    def _answer_field(self, field: str) -> UserUtterance:
        self.asked[field] = self.asked.get(field, 0) + 1
        self.last_field = field
        value = self.plan.answers.get(field)
        if value is None:
            return self._say(self.style.reply("I don't have that, sorry."))
        vague = self.style.vague_first(field, value)
        if vague is not None:
            self.asked[field] -= 1  # a non-answer: the real first attempt is still to come
            return self._say(vague)
        if field == "confirmation_number" or is_code(value):
            # App. K says to fall back to the NATO alphabet on a second attempt; eSpeak's NATO words are
            # harder for the offline ASR than its letters, so a repeat is plain letters with pauses and NATO
            # is kept for single-character corrections ("the fourth one is Echo").
            return self._say(self.style.code(field, value, self.asked[field], self.stalled))
        if field == "last_name":
            text = f"{value}." if self.asked[field] == 1 else f"{value}, {' '.join(value.upper())}."
            return self._say(self.style.answer(field, text, self.stalled))
        if field == "seat_preference":
            return self._say(self.style.answer(field, f"{value.capitalize()}, please.", self.stalled))
        return self._say(self.style.answer(field, f"{value}.", self.stalled))

    def _styled(self, text: str, end_call: bool = False) -> UserUtterance:
        return self._say(self.style.reply(text, self.stalled), end_call)

    def respond(self, agent_text: str) -> UserUtterance:
        low = agent_text.lower()
        ending = any(c in low for c in ("transferring you", "transfer you", "goodbye", "thank you for calling"))
        if self.pending_repeat is not None and not ending:
            # The agent's answer to "could you repeat that?" stands for the repetition: answer the original.
            agent_text, self.pending_repeat = self.pending_repeat, None
            low = agent_text.lower()
        elif any(c in low for c in REPEATABLE_CUES) and not ending:
            request = self.style.ask_repeat()
            if request is not None:
                self.pending_repeat = agent_text
                return self._say(request)
        self.stalled = any(c in low for c in STALL_CUES) or self.no_progress > 0
        if "transferring you" in low or "transfer you" in low:
            return self._styled("Okay. Goodbye.", end_call=True)
        if "goodbye" in low or "thank you for calling" in low:
            return self._styled("Bye.", end_call=True)
        if "anything else" in low:
            refused = "not able to" in low or "can't issue" in low
            if refused and self.push_backs < self.plan.push_back_times and self.plan.push_back_say:
                self.push_backs += 1
                return self._styled(self.plan.push_back_say)
            return self._styled(self.plan.closing, end_call=True)
        if "is that right" in low:
            return self._check_read_back(agent_text)
        if "spell" in low and "last name" in low:
            self.last_field = "last_name"
            return self._styled(", ".join(self.plan.answers.get("last_name", "").upper()) + ".")
        for field, cues in FIELD_CUES:
            if any(c in low for c in cues):
                self.no_progress = 0
                return self._answer_field(field)
        if "which would you like" in low or "which flight" in low:
            return self._choose(agent_text)
        if any(c in low for c in CONFIRM_CUES):
            return self._confirm(agent_text)
        if "sorry" in low and ("catch" in low or "again" in low or "repeat" in low):
            return self._say(self.last)
        self.no_progress += 1
        if self.no_progress >= NO_PROGRESS_LIMIT:
            return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
        return self._styled("Sorry, can you help me with that?")

    def _check_read_back(self, agent_text: str) -> UserUtterance:
        """Compare the agent's spelled read-back with the true value; correct the first wrong character
        (EVA-Bench decision tree rule 1: wait for the read-back, correct mismatches)."""
        truth = self.plan.answers.get(self.last_field, "").upper()
        heard = re.search(r"I have ((?:[A-Z0-9] ?)+)\.", agent_text)
        read_back = heard.group(1).replace(" ", "") if heard else ""
        self.no_progress = 0
        if read_back == truth:
            return self._styled("Yes, that's right.")
        if len(read_back) == len(truth):
            position = next(i for i, (a, b) in enumerate(zip(read_back, truth, strict=True)) if a != b)
            return self._styled(say_correction(position + 1, truth[position]))
        return self._say(f"No. It's {', '.join(truth)}.")

    def _choose(self, agent_text: str) -> UserUtterance:
        offered = parse_flight_numbers(agent_text)
        if self.plan.accept_option and self.plan.accept_option in offered:
            return self._styled(self.plan.accept_say or f"I'll take flight {self.plan.accept_option}.")
        self.rejected += 1
        if self.rejected == 1 and self.plan.reject_say:
            return self._styled(self.plan.reject_say)
        return self._styled("Then I'll keep my original flight. Goodbye.", end_call=True)

    def _confirm(self, agent_text: str) -> UserUtterance:
        total = _quoted_total(agent_text)
        if self.plan.max_fee is not None and total is not None and total > self.plan.max_fee:
            return self._styled("No, that's too expensive. I'll keep my original flight.")
        return self._styled("Yes, please go ahead.")
