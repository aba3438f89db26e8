"""The workflow engine's side of format-aware hearing (issue 17.2, ``evalkit.agents.hearing``): which task the
caller's words name, what vocabulary primes the ASR and which hypothesis can be the answer to the pending question.
A mixin of ``WorkflowPolicy`` (it implements the ``ExpectsForm`` / ``HasAsrContext`` protocols through it), in its
own module so the engine stays small."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from evalkit.agents.slot_hearing import hear_slot
from evalkit.spoken import DIGIT_NAMES, NATO, parse_correction, parse_yes_no

if TYPE_CHECKING:
    from evalkit.domains.workflow import Slot, Workflow


def match_workflows(heard: str, workflows: Mapping[str, Workflow]) -> list[str]:
    """Workflows whose intents (or readable name) occur in ``heard``; the longest matching phrase wins, so
    "cancel my leave request" prefers an intent "cancel leave" over a bare "cancel". Ties stay ambiguous."""
    low = heard.lower()
    scores: dict[str, int] = {}
    for name, workflow in workflows.items():
        phrases = [*workflow.intents, name.replace("_", " ")]
        found = [len(p) for p in phrases if p and re.search(rf"\b{re.escape(p.lower())}", low)]
        if found:
            scores[name] = max(found)
    if not scores:
        return []
    best = max(scores.values())
    return [name for name, score in scores.items() if score == best]


class WorkflowHearing:
    """What the engine (``WorkflowPolicy``) waits to hear, read off its state: ``pending`` (the kind of question
    asked), ``workflows`` / ``candidates`` (the tasks it can or may mean), the current ``slot`` and ``today``."""

    pending: str
    workflows: dict[str, Workflow]
    candidates: list[str]
    run: Any
    today: date
    slot: Slot  # the engine's pending slot (a property there)
    _menu: Callable[[], str]  # the engine's spoken list of its tasks

    def asr_context(self) -> str | None:
        """While the caller says what they need: the domain's task names (its fixed vocabulary, "DEA transfer, FMLA
        leave"), which tiny.en otherwise writes as "DNA" or "family leave"; a format example on time slots."""
        if self.pending in ("intent", "choose", "anything_else"):
            return f"I can help with {self._menu()}."
        if self.pending == "slot" and self.run is not None and self.slot.kind == "time":
            return "The time, for example 2:30 PM or 7 AM."  # a format example: "7 a.m." was heard "Sam and Em"
        return None

    def expected_form(self) -> Callable[[str], bool] | None:
        """Which ASR hypothesis can be the answer to what was asked: one that names exactly one task, a slot value
        the slot's own parser accepts (a code of its length or pattern, a date, a time, one of a choice's options),
        a one-character correction of a read-back, a yes or a no; free text and names: the recogniser's best."""
        pending = self.pending
        if pending in ("intent", "choose"):
            pool = self.workflows if pending == "intent" else {n: self.workflows[n] for n in self.candidates}
            return lambda text: len(match_workflows(text, pool)) == 1
        if pending == "confirm":
            return lambda text: parse_yes_no(text) is not None
        if pending not in ("slot", "check") or self.run is None:
            return None
        slot = self.slot
        if pending == "check":
            if slot.kind in ("code", "digits", "name"):
                whole = _slot_form(slot, self.today) if slot.kind != "name" else None
                return lambda text: clear_correction(text) or (whole is not None and whole(text))
            return None
        if slot.kind == "name" or (slot.kind == "text" and slot.normalize is None):
            return None  # free text has no form; a text slot that normalizes its value has (a full date)
        fits = _slot_form(slot, self.today)
        offered = offered_times(self.run.scope) if slot.kind == "time" else set()
        if offered:  # a time among those a lookup just offered (the open slots), as a listener expects one
            return lambda text: fits(text) and hear_slot(slot, text, self.today) in offered
        return fits


CLOCK = re.compile(r"^\d{2}:\d{2}$")
# The character of a correction said so it cannot be taken for another: a spelling-alphabet word, a lone capital
# letter, or "the number <digit>" (tiny.en's "the second one is melted" for "... Alpha" is no such thing)
CLEAR_CHARACTER = re.compile(
    rf"\b(?i:{'|'.join(re.escape(w) for w in NATO)})\b|\b(?i:is|as)\s+[A-Z]\b"
    rf"|\b(?i:number)\s+(?i:\d|{'|'.join(DIGIT_NAMES)})\b"
)


def clear_correction(text: str) -> bool:
    """A one-character correction of a read-back whose character was heard as itself: among the n best, the one
    to act on before a near-miss ("Delta" from "melted") that the lenient parser would still read as one."""
    return parse_correction(text) is not None and CLEAR_CHARACTER.search(text) is not None


def offered_times(scope: Mapping[str, Any]) -> set[str]:
    """Clock times ("08:30") listed in the results of the calls made so far in this task (the open slots of an
    availability check): values the agent obtained from its tools, never the scenario's."""
    return {
        item
        for result in scope.values()
        if isinstance(result, Mapping)
        for value in result.values()
        if isinstance(value, list)
        for item in value
        if isinstance(item, str) and CLOCK.match(item)
    }


def _slot_form(slot: Slot, today: date) -> Callable[[str], bool]:
    def fits(text: str) -> bool:
        value = hear_slot(slot, text, today)
        if value is None:
            return False
        return (
            slot.kind not in ("code", "digits")
            or slot.pattern is not None
            or slot.length is None
            or (len(str(value)) == slot.length)
        )

    return fits
