"""How the workflow agent hears a slot value in the caller's words and says a value back: the speech around a
value (fillers, the slot's own name, a self-correction) is not part of it, codes are spelled, dates and times said
in words. Pure functions of text, shared by the workflow engine (``evalkit.agents.reference.workflow_policy``)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from evalkit.domains.workflow import TEXT_REFERENCE, Slot, fit_pattern, lookup, parse_slot
from evalkit.spoken import HOMOPHONES, MONTHS, parse_spelled_word, say_date, say_time, spell_code, spelled_runs

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


def read_back_text(slot: Slot, value: Any) -> str:
    """A value as the agent reads it back: codes, digits and names spelled (a code's dashes are not spoken: the
    caller says the characters and ``Slot.pattern`` puts them back), a date in another year with its year ("August
    19, 2034": an expiry heard as 2013 is caught there), anything else as spoken (``say_value``)."""
    if slot.kind in ("code", "digits", "name"):
        return spell_code(str(value).replace("-", "") if slot.pattern else str(value))
    if slot.kind == "text" and ISO_DATE.match(str(value)):
        return f"{say_value(value)}, {str(value)[:4]}"
    return say_value(value)


def speak(text: str, scope: Mapping[str, Any]) -> str:
    """``render`` for the ear: the same ``{ref}`` templates, with each value in spoken form (``say_value``)."""
    return TEXT_REFERENCE.sub(lambda m: say_value(lookup(m.group(1), scope)), text)


def hear_slot(slot: Slot, heard: str, today: date) -> Any:
    """``parse_slot`` on what the caller said last, heard as a listener who knows the answer's form would: see
    ``_hear_literal``; else ``_hear_in_form``."""
    value = _hear_literal(slot, heard, today)
    if value is not None:
        return value
    value = _hear_in_form(slot, heard)
    return slot.normalize(value) if slot.normalize is not None and value is not None else value


def _hear_in_form(slot: Slot, heard: str) -> Any:
    """What the words give once the answer's form is known (issue 17.2), where the literal parse found nothing:
    a code's fixed letters put back ("CMP 417258" for ``EMP\\d{6}``), digits heard as their homophones ("one for
    zero" for a ten-digit NPI) when that gives the asked length, an option heard nearly ("Magmuteal")."""
    if slot.kind == "code" and slot.pattern:
        return fit_known_prefix(heard, slot.pattern) or fit_pattern(lone_letters_upper(heard), slot.pattern)
    if slot.kind == "digits" and slot.length:
        digits = homophone_digits(_strip_label(slot, heard))
        return digits if len(digits) == slot.length else None
    if slot.kind == "choice":
        return near_choice(heard, slot.choices)
    return None


def _strip_label(slot: Slot, heard: str) -> str:
    for words in {slot.label, slot.name.replace("_", " ")}:
        heard = re.sub(rf"\b{re.escape(words)}\b", " ", heard, flags=re.IGNORECASE)
    return heard


def _hear_literal(slot: Slot, heard: str, today: date) -> Any:
    """``parse_slot`` on what the caller said last: after a self-correction the restated value wins, and the
    slip before it must not be glued onto it (twenty digits instead of ten)."""
    if slot.kind in ("code", "digits"):
        # "My employee ID is E M P ...", "the phone last four is 8 6 3 3": the words naming the slot are not part
        # of the value (an "I D" or a "four" would be read as characters of it).
        heard = _strip_label(slot, heard)
    if slot.kind == "text":
        text = clean_text(slot, heard)
        if slot.normalize is not None and text is not None:
            return slot.normalize(last_year_only(text))
        return text
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


LONE_LOWER = re.compile(r"(?<![\w'])[a-z](?![\w'])")


def lone_letters_upper(text: str) -> str:
    """Single lower-case letters standing alone written as capitals ("It's a k 3 2 0 1 8 9 5" -> "It's A K 3 2 0 1 8 9
    5"): case is the recogniser's writing, not the caller's speech, and a listener who asked for a code hears letters
    there (the article "a" too; the code's pattern decides whether the result is one)."""
    return LONE_LOWER.sub(lambda m: m.group(0).upper(), text)


PREFIX = re.compile(r"^([A-Z]{2,})(-?)")  # a format's fixed leading letters ("EMP", "POL-")
DIGIT_TOKENS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}
DIGIT_TOKENS |= {"seven": "7", "eight": "8", "nine": "9"}


def fit_known_prefix(text: str, pattern: str) -> str | None:
    """A code of a format that starts with fixed letters (``EMP\\d{6}``, ``POL-\\d{4}-[A-Z0-9]{6}``) whose rest was
    heard but whose fixed letters were not: tiny.en writes eSpeak's "E M P" as "CMP", "DMP", "the MP" or "EMB".
    The fixed letters are the format (the domain's, never a caller's value), so a listener who knows it puts them
    back; what follows them must fit the format exactly, and at most one character more than the fixed letters
    may stand before it (heard letters, not digits). None when no run of the text fits so."""
    match = PREFIX.match(pattern)
    if match is None:
        return None
    prefix, rest = match.group(1), pattern[match.end() :]
    for run in reversed(spelled_runs(text)):
        for cut in (len(prefix), *range(len(prefix) + 2)):
            head, tail = run[:cut], run[cut:]
            if len(head) != cut or re.search(r"\d", head) or not tail:
                continue
            fitted = fit_pattern(tail, rest)
            if fitted is not None and len(fitted.replace("-", "")) == len(tail):
                return f"{prefix}{match.group(2)}{fitted}"
    return None


def homophone_digits(text: str) -> str:
    """The digits in ``text`` with the words ASR writes for spoken digits read as digits too ("for" 4, "to" 2,
    "won" 1, "ate" 8): a listener who asked for a number hears "one for zero" as 1 4 0."""
    out = []
    for token in re.findall(r"[a-z]+|\d", text.lower()):
        if token.isdigit():
            out.append(token)
        elif token in DIGIT_TOKENS:
            out.append(DIGIT_TOKENS[token])
        elif (digit := HOMOPHONES.get(token, "")).isdigit():
            out.append(digit)
    return "".join(out)


# (similarity, lead over the next option): near and clearly nearest ("Magmuteal"), or less near but far nearer than
# any other option ("super nice" is 0.74 like supervised, 0.2 like provisional; "smack up" 0.77 like backup)
NEAR_ENOUGH = ((0.8, 0.05), (0.65, 0.3))


def near_choice(heard: str, choices: tuple[str, ...]) -> str | None:
    """The one option whose letters a run of up to four heard words nearly spell ("Magmuteal" -> mag_mutual);
    None when no option comes close or two come about as close. The options are the slot's fixed vocabulary."""
    scores = choice_scores(heard, choices)
    if not scores:
        return None
    best, runner_up = scores[0][0], scores[1][0] if len(scores) > 1 else 0.0
    return scores[0][1] if any(best >= near and best - runner_up >= lead for near, lead in NEAR_ENOUGH) else None


def choice_scores(heard: str, choices: tuple[str, ...]) -> list[tuple[float, str]]:
    """(similarity, option) for each option, nearest first (declared order among equals): how nearly a run of up
    to four heard words spells it. An option of three characters or fewer ("pto") scores 0: one letter off is
    another word ("to" in "Make sure to leave" is no PTO), so a listener hears such an option only as itself."""
    words = re.findall(r"[a-z0-9]+", heard.lower())
    spans = {"".join(words[i : i + n]) for n in range(1, 5) for i in range(len(words) - n + 1)}
    scores = []
    for choice in choices:
        compact = re.sub(r"[^a-z0-9]", "", choice.lower())
        near = (difflib.SequenceMatcher(None, span, compact).ratio() for span in spans)
        scores.append((max(near, default=0.0) if len(compact) > 3 else 0.0, choice))
    return sorted(scores, key=lambda item: -item[0])  # stable: equals keep the declared order


def choice_hint(slot: Slot) -> str:
    """How a re-ask spells out a choice's options ("Please choose LIST A or LIST B or LIST C."); "" for other kinds."""
    return f"Please choose {' or '.join(c.replace('_', ' ') for c in slot.choices)}." if slot.kind == "choice" else ""


def next_offer(heard: str, choices: tuple[str, ...], offered: list[str]) -> str | None:
    """The option to offer the caller as a yes-or-no question when their choice was not heard ("Is it List A?"),
    as an agent on a bad line does: the nearest to the words heard of those not offered yet; None when all were."""
    return next((choice for _, choice in choice_scores(heard, choices) if choice not in offered), None)


YEAR = re.compile(r"\b(?:1[89]|2[01])\d\d\b")
OLDEST_YEARS = 110  # a date further back than this (a birth in 1900) is no one's living date: read it back


def last_year_only(text: str) -> str:
    """A date said with two years ("May 7, 1900, 1990": the recogniser wrote a year, then the year again as said)
    keeps the last one, as a listener takes the words a speaker settles on; a text with one year is unchanged."""
    years = list(YEAR.finditer(text))
    for found in reversed(years[:-1]):  # drop the earlier years with the comma or space after them
        text = text[: found.start()] + re.sub(r"^[\s,]*", "", text[found.end() :])
    return text


def doubtful_date(heard: str, value: Any, today: date) -> bool:
    """A date value to read back before using it though its slot is not read back: the words held more than one
    year (which one was said?), or the year lies more than ``OLDEST_YEARS`` before today (no living person's)."""
    if not (isinstance(value, str) and ISO_DATE.match(value)):
        return False
    years = {m.group(0) for m in YEAR.finditer(heard)}
    return len(years) > 1 or int(value[:4]) < today.year - OLDEST_YEARS


def confirm_first(slot: Slot, heard: str, value: Any, today: date) -> bool:
    """A value read back before it is used though its slot is not always read back: a name spelled letter by
    letter, a date in doubt, a day heard without its month."""
    return spelled_name(slot, heard) or doubtful_date(heard, value, today) or month_unheard(slot, heard)


def month_unheard(slot: Slot, heard: str) -> bool:
    """A date heard as a day alone ("That sucked over 12" for "October 12"): the parser takes this month, which the
    caller may not have said, so the agent reads the date back with its month ("I have July 12. Is that right?")."""
    if slot.kind != "date" or ISO_IN_TEXT.search(heard):
        return False
    words = set(re.findall(r"[a-z]+", heard.lower()))
    return not words & (set(MONTHS) | RELATIVE_DAYS)


ISO_IN_TEXT = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
RELATIVE_DAYS = {"today", "tomorrow"}  # the days the date parser reads without a month


def spelled_name(slot: Slot, heard: str) -> bool:
    """A name the caller spelled letter by letter: read back letter by letter too, as any code is (one misheard
    letter, "P" heard "D", gives another name that no later step would catch)."""
    return slot.kind == "name" and len(parse_spelled_word(heard) or "") >= 3
