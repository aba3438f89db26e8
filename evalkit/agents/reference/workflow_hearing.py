"""The workflow engine's side of format-aware hearing (issue 17.2, ``evalkit.agents.reference.hearing``): which task the
caller's words name and which hypothesis can be the answer to the pending question. A mixin of ``WorkflowPolicy``
(it implements the ``ExpectsForm`` protocol through it), in its own module so the engine stays small. It gives the
recogniser no prompt: the task-name, format-example and alphabet prompts tuned on tiny.en hearing eSpeak were
re-measured with the natural voice and removed (issue 28.3, docs/measurements.md "Lore retired")."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from evalkit.agents.reference.slot_hearing import CLOCK, confirm_first, hear_slot, next_offer, spelled_back
from evalkit.domains.workflow import WorkflowError, resolve
from evalkit.spoken import DIGIT_NAMES, NATO, parse_correction, parse_yes_no

if TYPE_CHECKING:
    from evalkit.domains.workflow import Slot, Workflow


RE_PREFIX = re.compile(r"\bre-(?=[a-z])")


def match_workflows(heard: str, workflows: Mapping[str, Workflow]) -> list[str]:
    """Workflows whose intents (or readable name) occur in ``heard``; of those the highest ``priority`` (a fee waiver
    for a bereavement over a change), then the longest matching phrase wins, so "cancel my leave request" prefers an
    intent "cancel leave" over a bare "cancel". Ties stay ambiguous."""
    low = heard.lower().replace("\u2019", "'")  # a typed or transcribed curly apostrophe ("what’s")
    low = RE_PREFIX.sub("re", low)  # "re-booked", "re-schedule": a hyphen a transcript may put after "re"
    scores: dict[str, int] = {}
    for name, workflow in workflows.items():
        phrases = [*workflow.intents, name.replace("_", " ")]
        found = [len(p) for p in phrases if p and re.search(rf"\b{re.escape(p.lower())}", low)]
        if found:
            scores[name] = workflow.priority * 10_000 + max(found)
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
    reasks: int  # how often the pending question was asked again
    listed: dict[str, tuple[str, ...]]  # per slot: the names a tool listed for it in this call
    requests: list[str]  # the caller's last requests as heard (what the tasks are about), latest last
    _menu: Callable[[], str]  # the engine's spoken list of its tasks
    offer_form: Callable[[], Callable[[str], bool]]  # WorkflowOffers: which words choose an option
    _read_back: Callable[..., Any]  # the engine's read-back of a value ("I have LIST A. Is that right?")

    def known_names(self, slot: Slot) -> tuple[str, ...]:
        """The names the answer is heard against: those a tool listed for the slot in this call, else the slot's
        fixed vocabulary (US states, the document types a tool takes); none for most slots."""
        return self.listed.get(slot.name) or slot.vocabulary

    def heard_name(self, slot: Slot, heard: str) -> str | None:
        """The known name the words are closest to (``closest_name``); against a vocabulary of dozens of names, a
        nearer one than against the few a tool listed ("Thank you" is 0.6 like Ghana)."""
        cutoff = 0.6 if slot.name in self.listed else VOCABULARY_CUTOFF
        return closest_name(heard, self.known_names(slot), cutoff)

    def _read_back_first(self, slot: Slot, heard: str, value: Any) -> bool:
        """Whether the value is read back before it is used: always for codes and digits (``spelled_back``), else
        when this hearing of it is in doubt (``confirm_first``: a spelled name, a date with two years, ...)."""
        return spelled_back(slot) or confirm_first(slot, heard, value, self.today)

    def _choices_offered(self, slot: Slot) -> list[str]:
        """The options of a choice offered so far in this task (kept per run: a later task asks afresh)."""
        offers: dict[tuple[str, int], list[str]] = vars(self).setdefault("_offers", {})
        return offers.setdefault((slot.name, id(self.run)), [])

    def _offer_choice(self, slot: Slot, heard: str) -> Any:
        """A choice twice not heard ("List A" heard "Let's stay"): offer the options one at a time, nearest to the
        words first, as a yes-or-no read-back a caller answers in one word; None once every option was offered."""
        option = self._next_offer(slot, heard)
        return None if option is None else self._read_back(option, "Sorry, the line is unclear. ")

    def _next_offer(self, slot: Slot, heard: str) -> str | None:
        offered = self._choices_offered(slot)
        option = next_offer(heard, slot.choices, offered) if slot.kind == "choice" else None
        offered.extend([option] if option else [])
        return option

    def _restated(self, slot: Slot, heard: str) -> Any:
        """The value said again in a reply to a read-back ("No, it's March 27, 2030."); when the read-back offered
        an option (``_offer_choice``), was refused and the right one was not heard, the next option to offer."""
        said = NO_PREFIX.sub("", heard)
        restated = hear_slot(slot, said, self.today) if said.strip() else None
        if restated is None and self._choices_offered(slot) and parse_yes_no(heard) is False:
            return self._next_offer(slot, heard)
        return restated

    @property
    def request_heard(self) -> str:
        """The caller's requests in this call as heard, as one text (what a free-text answer may repeat)."""
        return " ".join(self.requests)

    def expected_form(self) -> Callable[[str], bool] | None:
        """Which ASR hypothesis can be the answer to what was asked: one that names exactly one task, a slot value
        the slot's own parser accepts (a code of its length or pattern, a date, a time, one of a choice's options),
        a one-character correction of a read-back, a yes or a no; free text and names: the recogniser's best."""
        pending = self.pending
        if pending in ("intent", "choose"):
            pool = self.workflows if pending == "intent" else {n: self.workflows[n] for n in self.candidates}
            return lambda text: len(match_workflows(text, pool)) == 1
        if pending in ("confirm", "offer_check"):
            return lambda text: parse_yes_no(text) is not None
        if pending == "offer":  # one of the options said, or none of them (``choose_option``)
            return self.offer_form()
        if pending not in ("slot", "check") or self.run is None:
            return None
        slot = self.slot
        if pending == "check":
            if slot.kind in ("code", "digits", "name"):
                whole = _slot_form(slot, self.today) if slot.kind != "name" else None
                return lambda text: clear_correction(text) or (whole is not None and whole(text))
            return None
        if self.known_names(slot):
            return lambda text: self.heard_name(slot, text) is not None
        if slot.kind == "name":
            return None
        if slot.kind == "text" and slot.normalize is None:  # free text; one that normalizes has a form (a date)
            said = content_words(self.request_heard)
            # a hypothesis that repeats a word of the request ("GitHub" after "I need access to GitHub"); none
            # does: the recogniser's best (an answer the request did not name)
            return (lambda text: bool(content_words(text) & said)) if said else None
        fits = _slot_form(slot, self.today)
        offered = offered_times(self.run.scope) if slot.kind == "time" else set()
        if offered:  # a time among those a lookup just offered (the open slots), as a listener expects one
            return lambda text: fits(text) and hear_slot(slot, text, self.today) in offered
        return fits


NO_PREFIX = re.compile(r"^\W*(?:no|nope)\b\W*", re.IGNORECASE)  # "No, it's ..." restates; a bare "No." does not
VOCABULARY_CUTOFF = 0.7  # "Massachuses", "Vietnamese", "employment organization document" are all above 0.8
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


def spells_letters(slot: Slot) -> bool:
    """A code whose caller-specific part has letters (a facility code ``[A-Z]{2,4}-\\d{2}[A-Z]``; not ``EMP\\d{6}``,
    whose only letters are the format's own)."""
    return slot.kind == "code" and (slot.pattern is None or "A-Z" in slot.pattern)


def _slot_form(slot: Slot, today: date) -> Callable[[str], bool]:
    def fits(text: str) -> bool:
        value = hear_slot(slot, text, today)
        if value is None:
            return False
        # a digit string's parser checks its length itself (the value may be normalised to a longer ID)
        return (
            slot.kind != "code" or slot.pattern is not None or slot.length is None or (len(str(value)) == slot.length)
        )

    return fits


def closest_name(heard: str, names: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The one name of ``names`` (a list a tool gave in this call) that the heard words are closest to, as a
    listener who has the list in front of them hears "hardware point" as Harbor Point; None when no name is close
    enough or two are equally close. Compared without case, punctuation or leading words the name cannot hold
    ("That's Harbor Point.")."""
    words = re.findall(r"[a-z0-9]+", heard.lower())
    scores: dict[str, float] = {}
    for name in names:
        target = " ".join(re.findall(r"[a-z0-9]+", name.lower()))
        size = len(target.split())
        # the best window of the heard words of about the name's length ("so it's harbor point please")
        windows = {" ".join(words[i : i + n]) for n in (size - 1, size, size + 1) if n > 0 for i in range(len(words))}
        scores[name] = max((difflib.SequenceMatcher(None, w, target).ratio() for w in windows), default=0.0)
    if not scores:
        return None
    best = max(scores.values())
    winners = [n for n, score in scores.items() if score == best]
    # "South Korea" holds "Korea" too: the name that contains the other equally close ones is the one said
    whole = [w for w in winners if all(o.lower() in w.lower() for o in winners)]
    return whole[0] if best >= cutoff and len(whole) == 1 else None


STOP_WORDS = frozenset(
    {
        "about",
        "access",
        "could",
        "from",
        "have",
        "help",
        "just",
        "like",
        "need",
        "please",
        "that",
        "there",
        "this",
        "want",
        "what",
        "with",
        "would",
        "your",
    }
)


def content_words(text: str) -> set[str]:
    """The words of four letters or more that carry content ("github", "visio", "harbor"), lower case."""
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in STOP_WORDS}


KNOWN_NAMES = re.compile(r"\bKnown names: (.+?)\.?$")


def listed_names(message: str) -> tuple[str, ...]:
    """The names a tool's error lists as the ones it knows ("... Known names: Harbor Point, Summit Tower.")."""
    found = KNOWN_NAMES.search(message)
    names = tuple(n.strip() for n in found.group(1).split(",")) if found else ()
    return tuple(n for n in names if n and not n.startswith("("))  # "(none on file)" is no name


def names_among(slot: Slot, scope: Mapping[str, Any]) -> tuple[str, ...]:
    """The names an earlier call gave for a slot declared ``among`` them (none when that call gave none)."""
    if slot.among is None:
        return ()
    path, name_field = slot.among
    try:
        items = resolve(path, scope)
    except WorkflowError:
        return ()
    names = [str(item.get(name_field)) for item in items or () if isinstance(item, Mapping) and item.get(name_field)]
    return tuple(dict.fromkeys(names))
