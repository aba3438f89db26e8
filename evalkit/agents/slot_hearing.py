"""How the workflow agent hears a slot value in the caller's words and says a value back: the speech around a
value (fillers, the slot's own name, a self-correction) is not part of it, codes are spelled, dates and times said
in words. Pure functions of text, shared by the workflow engine (``evalkit.agents.workflow_policy``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from evalkit.domains.workflow import TEXT_REFERENCE, Slot, lookup, parse_slot
from evalkit.spoken import parse_spelled_word, say_date, say_time, spell_code

# Where a self-correcting caller restarts ("... oh wait, sorry, actually it's E M P ..."): the tail wins.
SELF_CORRECTION = re.compile(r"\b(?:actually|i mean|sorry)\b", re.IGNORECASE)
LEADING_FILLER = re.compile(
    r"^(?:\s*(?:um+|uh+|hmm+|oh|hold on|let me (?:see|think|check)|i think|it's|it is)\b[\s.,!]*)+", re.IGNORECASE
)
NON_ANSWER = re.compile(r"\b(?:not sure|don't know|do not know|don't have|where would i find)\b", re.IGNORECASE)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CLOCK = re.compile(r"^\d{2}:\d{2}$")
SPOKEN_CODE = re.compile(r"^(?=.*\d)[A-Z0-9-]{5,}$")


def spelled_back(slot: Slot) -> bool:
    """Values read back character by character: codes and digit strings always, any slot marked ``read_back``."""
    return slot.kind in ("code", "digits") or slot.read_back


def say_value(value: Any) -> str:
    """A slot or result value as the agent speaks it: codes spelled, ISO dates and clock times in words."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # "3 days", not "3.0 days"
    text = str(value)
    if ISO_DATE.match(text):
        return say_date(text)
    if CLOCK.match(text):
        return say_time(text)
    if isinstance(value, str) and SPOKEN_CODE.match(text):  # IDs are strings; amounts stay numbers
        return spell_code(text.replace("-", ""))
    return text.replace("_", " ")  # choice values: "14_inch" -> "14 inch"


def speak(text: str, scope: Mapping[str, Any]) -> str:
    """``render`` for the ear: the same ``{ref}`` templates, with each value in spoken form (``say_value``)."""
    return TEXT_REFERENCE.sub(lambda m: say_value(lookup(m.group(1), scope)), text)


def hear_slot(slot: Slot, heard: str, today: date) -> Any:
    """``parse_slot`` on what the caller said last: after a self-correction the restated value wins, and the
    slip before it must not be glued onto it (twenty digits instead of ten)."""
    if slot.kind in ("code", "digits"):
        # "My employee ID is E M P ...", "the phone last four is 8 6 3 3": the words naming the slot are not part
        # of the value (an "I D" or a "four" would be read as characters of it).
        for words in {slot.label, slot.name.replace("_", " ")}:
            heard = re.sub(rf"\b{re.escape(words)}\b", " ", heard, flags=re.IGNORECASE)
    if slot.kind == "text":
        text = clean_text(slot, heard)
        return slot.normalize(text) if slot.normalize is not None and text is not None else text
    if slot.kind == "name" and (spelled := parse_spelled_word(heard)) and len(spelled) >= 3:
        return spelled.capitalize()  # "D, E, L, G, A, D, O": parse_name alone would keep the last letter
    parts = SELF_CORRECTION.split(heard)
    if len(parts) > 1 and slot.kind != "text":  # free text keeps every word
        tail = parse_slot(slot, parts[-1], today)
        if tail is not None:
            return tail
    return parse_slot(slot, heard, today)


def clean_text(slot: Slot, heard: str) -> str | None:
    """A free-text value without the speech around it, as a listener would write it down: hesitations
    ("Um...", "hold on..."), "the date of birth is", and pauses ("September 5... 1970..." -> "September 5, 1970").
    A question back ("where would I find that?") is not a value. Hand-written: no library does this for speech."""
    text = heard.strip()
    if re.fullmatch(r"[A-Z]{2,3}\W*", text):  # "OH.": a code as written (Ohio), not the filler "oh"
        return text.strip(" ,.!")
    naming = "|".join(re.escape(w) for w in {slot.label.lower(), slot.name.replace("_", " ")})
    for _ in range(3):  # fillers and the slot's name can come in any order
        text = LEADING_FILLER.sub("", text)
        text = re.sub(rf"^(?:the|my|our|their)\s+(?:{naming})\s+(?:is|are)\b[\s.,]*", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s*\.\.\.+\s*", ", ", text).strip(" ,.!")
    return None if not text or text.endswith("?") or NON_ANSWER.search(text) else text
