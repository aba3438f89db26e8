"""The workflow engine's offer-and-choose step (``Offer`` in ``evalkit.domains.workflow``): say up to ``limit`` items
of a list a tool returned, hear the caller's choice against those items only (the value, an ordinal, the words of
one option), read it back, bind it; a caller who takes none is asked the ``again`` slot once more (a new search).
A mixin of ``WorkflowPolicy`` over its state, in its own module so the engine stays small; the hearing is pure
functions of the words and the options said."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from evalkit.agents.reference.policy import DialogueAct, PolicyReply
from evalkit.agents.reference.slot_hearing import hear_slot, read_back_text, speak
from evalkit.agents.reference.workflow_hearing import closest_name
from evalkit.agents.reference.workflow_run import EngineState
from evalkit.domains.workflow import Ask, Offer, bind_choice, holds, offered
from evalkit.spoken import parse_clock_times, parse_flight_numbers, parse_yes_no

NONE_TAKEN = -1  # the caller takes none of the options (``choose_option``)
# "none of those", "neither", "something else", "a different one", "any other flights?"
# Words of a caller who takes none of the options (heard after any option it names): "none of those", "I can't fly
# today", "that's too late", "I'd rather fly tomorrow".
NONE_CUE = re.compile(
    r"\b(?:none|neither|something else|anything else|different|(?:any )?others?|another|can't|cannot|can not"
    r"|(?:doesn't|don't|won't) work|too (?:early|late)|rather)\b",
    re.IGNORECASE,
)
ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4}
NUMBERS = {"one": 0, "two": 1, "three": 2, "four": 3, "five": 4, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4}
ORDINAL = re.compile(
    rf"\b(?:the )?({'|'.join(ORDINALS)}|last)\b|\b(?:option|number|choice) ({'|'.join(NUMBERS)})\b", re.IGNORECASE
)


def _compact(value: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(value).lower())


def _said_keys(text: str) -> set[str]:
    """The flight numbers and clock times in words, as the caller or the agent says them."""
    return set(parse_flight_numbers(text)) | set(parse_clock_times(text))


def option_list(texts: Sequence[str]) -> str:
    """The options as said in one turn: "I have one option: A." / "I have 3 options: A; B; or C."."""
    if len(texts) == 1:
        return f"I have one option: {texts[0]}."
    return f"I have {len(texts)} options: {'; '.join(texts[:-1])}; or {texts[-1]}."


def choose_option(
    heard: str, step: Offer, items: Sequence[Mapping[str, Any]], texts: Sequence[str], today: date
) -> int | None:
    """Which offered item the caller's words choose: the one whose value they say (as the slot hears it, or written
    in them), the one an ordinal names ("the second one", "option 3", "the last"), else the one whose spoken words
    they are closest to; ``NONE_TAKEN`` when they take none; None when unclear (two fit, or none and no refusal)."""
    values = [_compact(item.get(step.value)) for item in items]
    parsed = hear_slot(step.slot, heard, today)
    said = _compact(heard)
    by_value = {i for i, v in enumerate(values) if v and (v == _compact(parsed) or v in said)}
    if len(by_value) == 1:
        return by_value.pop()
    if by_value:
        return None
    # a flight number or a clock time said in words ("SK seven twenty-two", "the 8:15 one") that one option has
    keys = _said_keys(heard)
    by_key = {i for i, text in enumerate(texts) if keys & _said_keys(text)}
    if len(by_key) == 1:
        return by_key.pop()
    if ordinal := ORDINAL.search(heard):
        word = (ordinal.group(1) or ordinal.group(2)).lower()
        index = len(items) - 1 if word == "last" else ORDINALS.get(word, NUMBERS.get(word, len(items)))
        return index if index < len(items) else None
    if NONE_CUE.search(heard) or parse_yes_no(heard) is False:
        return NONE_TAKEN
    if len(items) == 1 and parse_yes_no(heard) is True:  # "yes, that works" to the one option there is
        return 0
    nearest = closest_name(heard, texts, 0.6)
    return texts.index(nearest) if nearest is not None else None


def several_named(heard: str, texts: Sequence[str]) -> list[int]:
    """The options whose flight number or clock time the words name, when they name more than one ("the 11 and the
    1 PM", "SK110 and SK130"); none otherwise."""
    keys = _said_keys(heard)
    named = [i for i, text in enumerate(texts) if keys & _said_keys(text)]
    return named if len(named) > 1 else []


class WorkflowOffers(EngineState):
    """The ``Offer`` steps of ``WorkflowPolicy`` (the engine's state and methods it relies on: ``EngineState``)."""

    @property
    def _offer_step(self) -> Offer:
        assert self.run is not None
        step = self.run.workflow.steps[self.run.index]
        assert isinstance(step, Offer)
        return step

    def _offered(self) -> tuple[list[Mapping[str, Any]], list[str]]:
        """The items on offer and how each is said."""
        assert self.run is not None
        items = offered(self._offer_step, self.run.scope)
        return items, [speak(self._offer_step.option, item) for item in items]

    def offer_form(self) -> Callable[[str], bool]:
        """Which ASR hypothesis can answer the offer: one that chooses an option or takes none."""
        items, texts = self._offered()
        return lambda text: choose_option(text, self._offer_step, items, texts, self.today) is not None

    def _offer(self, step: Offer, said: list[str]) -> PolicyReply | None:
        """Say the options and ask for a choice; None when a choice the caller already made is among them (it is
        bound and the workflow goes on)."""
        run = self.run
        assert run is not None
        items, texts = self._offered()
        if not items and step.fall_through:  # nothing here: said, and the next step looks elsewhere
            said.append(speak(step.none, run.scope))
            return None
        if not items:  # nothing to offer: the task ends here, as at a Refuse
            self.refused = (run.workflow.name, speak(step.none, run.scope))
            return self._anything_else(" ".join([*said, self.refused[1]]))
        known = self.known.get(step.slot.name)
        chosen = [item for item in items if known is not None and _compact(item.get(step.value)) == _compact(known)]
        if chosen:
            bind_choice(step, chosen[0], run.scope)
            return None
        text = " ".join([*said, option_list(texts), step.slot.question])
        return self._ask("offer", text, DialogueAct("ask", step.slot.name))

    def _on_offer(self, heard: str) -> PolicyReply:
        step = self._offer_step
        items, texts = self._offered()
        several = several_named(heard, texts) if self._several_allowed(step) else []
        if several:  # standby on two flights at once: all of them read back together
            self.value = several
            listed = " and ".join(texts[i] for i in several)
            values = " and ".join(read_back_text(step.slot, items[i].get(step.value)) for i in several)
            return self._ask(
                "offer_check", f"I have {listed}. Is that right?", DialogueAct("confirm", step.slot.name, values)
            )
        index = choose_option(heard, step, items, texts, self.today)
        if index == NONE_TAKEN:
            return self._none_taken(step)
        if index is None:
            return self._reask(
                f"Sorry, which one would you like? {option_list(texts)}",
                f"Please say the {step.slot.label} you want, or say none of them.",
                f"could not capture the {step.slot.label}",
            )
        self.value = index
        value = items[index].get(step.value)
        return self._ask(
            "offer_check",
            f"I have {texts[index]}. Is that right?",
            DialogueAct("confirm", step.slot.name, read_back_text(step.slot, value)),
        )

    def _on_offer_check(self, heard: str) -> PolicyReply:
        step = self._offer_step
        answer = parse_yes_no(heard)
        if answer is True:
            assert self.run is not None
            items, _ = self._offered()
            taken = [items[i] for i in self.value] if isinstance(self.value, list) else [items[self.value]]
            bind_choice(step, taken[0], self.run.scope)
            if step.several:
                self.run.scope[step.several] = taken
            self.known[step.slot.name] = self.run.scope[step.slot.name]
            self.run.index += 1
            self.reasks = 0
            return self._advance("Thank you.")
        if answer is None or re.search(r"\w", re.sub(r"^\W*(?:no|nope)\b", "", heard, flags=re.IGNORECASE)):
            return self._on_offer(heard)  # another choice said (or the same one again): heard as a choice
        self.pending = "offer"
        items, texts = self._offered()
        return self._reask(
            f"Sorry about that. {option_list(texts)} {step.slot.question}",
            f"Please say the {step.slot.label} you want, or say none of them.",
            f"could not capture the {step.slot.label}",
        )

    def _several_allowed(self, step: Offer) -> bool:
        """Whether the caller may take several of the options now (``Offer.several`` under its ``several_when``)."""
        assert self.run is not None
        return step.several is not None and holds(step.several_when, self.run.scope)

    def _none_taken(self, step: Offer) -> PolicyReply:
        """None of the options suits: ask the ``again`` slot once more (a new search), else end the task."""
        run = self.run
        assert run is not None
        if step.fall_through:  # the next step looks elsewhere
            run.index += 1
            self.reasks = 0
            return self._advance(speak(step.none, run.scope))
        asks = {s.slot.name: i for i, s in enumerate(run.workflow.steps) if isinstance(s, Ask)}
        if step.again is None or run.retries.get(run.index, 0) >= step.retries:
            return self._anything_else("Okay, I won't change anything.")
        run.retries[run.index] = run.retries.get(run.index, 0) + 1
        self.known.pop(step.again, None)
        run.scope.pop(step.again, None)
        run.index = asks[step.again]
        self.reasks = 0
        slot = run.workflow.slots[[s.name for s in run.workflow.slots].index(step.again)]
        return self._ask("slot", f"Okay, let's look again. {slot.question}", DialogueAct("ask", slot.name))
