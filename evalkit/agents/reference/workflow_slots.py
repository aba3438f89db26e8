"""The workflow engine's slots (``evalkit.agents.reference.workflow_policy``): hear the caller's answer to an ``Ask``
step, ask again when nothing usable was heard, read critical values back and take the caller's corrections. A mixin
of ``WorkflowPolicy`` over its state, in its own module so the engine stays small."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from evalkit.agents.reference.policy import DialogueAct, PolicyReply
from evalkit.agents.reference.slot_hearing import choice_hint, hear_slot, read_back_text
from evalkit.agents.reference.workflow_hearing import spells_letters
from evalkit.agents.reference.workflow_run import EngineState
from evalkit.domains.workflow import Ask, Offer, Slot, fit_pattern
from evalkit.spoken import parse_correction, parse_yes_no

ALPHABET_ASK = " Could you spell it with the phonetic alphabet, like A as in Alpha?"
MAX_REPAIRS = 8  # single-character corrections of one read-back before giving up
HINTS = {
    "code": "Please say it slowly, one character at a time.",
    "digits": "Please say the digits slowly, one at a time.",
    "date": "Please tell me the month and the day.",
    "time": "Please tell me the time, for example two thirty PM.",
    "yes_no": "Please say yes or no.",
    "number": "Please tell me the number.",
    "email": "Please say it like john dot smith at company dot com.",
    "name": "Please say just the name.",
}


class WorkflowSlots(EngineState):
    """The ``Ask`` steps of ``WorkflowPolicy`` (the engine's state and methods it relies on: ``EngineState``; below,
    what ``WorkflowHearing`` defines: ``known_names``, ``heard_name``, ``_read_back_first``, ``_offer_choice``,
    ``_restated``)."""

    repairs: int
    unclear: int
    known_names: Callable[[Slot], tuple[str, ...]]
    heard_name: Callable[[Slot, str], str | None]
    _read_back_first: Callable[[Slot, str, Any], bool]
    _offer_choice: Callable[[Slot, str], PolicyReply | None]
    _restated: Callable[[Slot, str], Any]

    @property
    def slot(self) -> Slot:
        assert self.run is not None
        step = self.run.workflow.steps[self.run.index]
        assert isinstance(step, Ask | Offer)
        return step.slot

    def _filled(self, value: Any) -> PolicyReply:
        run = self.run
        assert run is not None
        run.scope[self.slot.name] = value
        self.known[self.slot.name] = value
        self.reasks = 0
        self.repairs = self.unclear = 0
        if run.resume_at is not None:
            run.index, run.resume_at = run.resume_at, None
        else:
            run.index += 1
        return self._advance("Thank you.")

    def _on_slot(self, heard: str) -> PolicyReply:
        slot = self.slot
        if self.known_names(slot):
            value = self.heard_name(slot, heard)
            # none close: the words as said where the tool decides (a listed name), or a code the tool takes said
            # as such ("EAD", "reactivate_full", "AZ": an EVA-Bench record's answer), not any stray sentence
            if value is None and (slot.among is not None or re.fullmatch(r"[\w-]+", heard.strip(" .,!?"))):
                value = hear_slot(slot, heard, self.today)
        else:
            value = hear_slot(slot, heard, self.today)
        if value is None:
            if slot.kind == "choice" and self.reasks and (offer := self._offer_choice(slot, heard)) is not None:
                return offer  # asked twice and still not heard: the options one by one, as yes-or-no questions
            hint = choice_hint(slot) or HINTS.get(slot.kind, "")
            # a code with letters is asked for with the spelling alphabet first (App. L: clarify a misheard code;
            # on tiny.en, eSpeak's "Sierra, Victor, Alpha, 8, 4, Mike" was heard exactly 13/20 against 5/20 for
            # the letters with pauses, scripts/bench_entity_asr.py --hr)
            again = ALPHABET_ASK if spells_letters(slot) else ""
            return self._reask(
                f"Sorry, I didn't catch that. {slot.question}{again}",
                f"{slot.question} {hint}",
                f"could not capture the {slot.label}",
            )
        if self._read_back_first(slot, heard, value):
            return self._read_back(value)
        return self._filled(value)

    # -- read-backs ------------------------------------------------------------------------------------------
    def _read_back(self, value: Any, prefix: str = "") -> PolicyReply:
        """Confirm a critical value before using it (App. L: read codes back; the caller corrects)."""
        self.value = value
        slot = self.slot
        said = read_back_text(slot, value)
        return self._ask("check", f"{prefix}I have {said}. Is that right?", DialogueAct("confirm", slot.name, said))

    def _on_check(self, heard: str) -> PolicyReply:
        slot = self.slot
        value = str(self.value).replace("-", "") if slot.pattern else str(self.value)  # as it was read back
        correction = parse_correction(heard) if slot.kind in ("code", "digits", "name") else None
        if correction is not None and 1 <= correction[0] <= len(value):
            position, char = correction
            if slot.kind != "digits" or char.isdigit():
                self.repairs += 1
                if self.repairs > MAX_REPAIRS:
                    return self._transfer(f"could not capture the {slot.label}")
                fixed = value[: position - 1] + char + value[position:]
                if slot.pattern:  # the characters in the pattern's written form, in the tools' form
                    fitted = fit_pattern(" ".join(fixed), slot.pattern)
                    fixed = (slot.normalize(fitted) if slot.normalize else fitted) if fitted else fixed
                return self._read_back(fixed.capitalize() if slot.kind == "name" else fixed)
        answer = parse_yes_no(heard)
        if answer is True:
            return self._filled(self.value)
        restated = self._restated(slot, heard)  # or, an option offered refused, the next one to offer
        # a value said again in a "no" ("No, it's March 27, 2030."): free text only when it has a form (a date)
        if restated is not None and slot.kind != "yes_no" and (slot.kind != "text" or slot.normalize is not None):
            self.repairs += 1
            if self.repairs > MAX_REPAIRS:
                return self._transfer(f"could not capture the {slot.label}")
            return self._read_back(restated)
        if answer is None and self.unclear < 2:  # twice at most, then the value is asked for again
            # Neither a yes nor a no (a "Yes, that's right." misheard): a careful agent asks again rather than
            # dropping a value it may well have right, and never hands the call over for it.
            self.unclear += 1
            return self._read_back(self.value, "Sorry, I didn't catch that. ")
        # An unusable "no" is a failed repair too (the value given again next resets the re-ask count).
        self.repairs += 1
        if self.repairs > MAX_REPAIRS:
            return self._transfer(f"could not capture the {slot.label}")
        self.pending = "slot"
        return self._reask(
            f"Sorry, could you give me the {slot.label} again?",
            f"{slot.question} {HINTS.get(slot.kind, '')}",
            f"could not capture the {slot.label}",
        )
