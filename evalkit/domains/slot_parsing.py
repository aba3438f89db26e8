"""What an agent hears in the caller's words for a workflow slot (``parse_slot``), by the slot's kind: codes,
digits, names, dates, times, numbers ("1.5 million"), choices, yes/no, text, e-mail addresses. The one parser shared
by the local agent's workflow engine (on ASR text) and the scenario generator (on the true answers)."""

from __future__ import annotations

import itertools
import re
from datetime import date
from typing import TYPE_CHECKING, Any

from evalkit.spoken import (
    DIGIT_NAMES,
    parse_clock_times,
    parse_code,
    parse_date,
    parse_name,
    parse_yes_no,
    spelled_runs,
)

if TYPE_CHECKING:
    from evalkit.domains.workflow import Slot

SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
SMALL_NUMBERS = {**{word: i for i, word in enumerate(DIGIT_NAMES)}, "ten": 10}
SCALED = re.compile(rf"(\d+(?:\.\d+)?|\b(?:{'|'.join(SMALL_NUMBERS)}))\s*(thousand|million|billion)\b", re.IGNORECASE)


def _figure(said: str) -> float:
    """'1.5' -> 1.5, 'one' -> 1.0: the figure before a scale word."""
    return float(SMALL_NUMBERS.get(said.lower(), said))


def parse_slot(slot: Slot, text: str, today: date) -> Any:
    """What an agent extracts from the caller's words for ``slot`` (None: nothing usable heard, ask again).

    The one parser shared by the local agent's workflow engine (on ASR text) and the scenario generator (on the
    scripted answer), so the reference path uses exactly the values a perfect-hearing agent would:
    code -> upper-case code of ``length``; digits -> the digit string (spoken digits included); name -> a name;
    date -> ISO date; time -> "HH:MM"; number -> float; choice -> one of ``choices``; yes_no -> bool;
    email -> "a.b@c.com" from "a dot b at c dot com"; text -> the text itself.
    """
    value = _parse_kind(slot, text.strip(), today)
    return slot.normalize(value) if slot.normalize is not None and value is not None else value


def _parse_kind(slot: Slot, stripped: str, today: date) -> Any:
    match slot.kind:
        case "code" if slot.pattern:
            return fit_pattern(stripped, slot.pattern)
        case "code":
            return parse_code(stripped, slot.length or 6)
        case "digits":
            digits = "".join(str(n) for n in spoken_digits(stripped))
            return digits if digits and (slot.length is None or len(digits) == slot.length) else None
        case "name":
            return parse_name(stripped)
        case "date":
            if iso := re.search(r"\b\d{4}-\d{2}-\d{2}\b", stripped):  # a record's own ISO date, as it stands
                try:
                    return date.fromisoformat(iso.group(0)).isoformat()
                except ValueError:
                    return None
            parsed = parse_date(stripped, today)
            return parsed.isoformat() if parsed else None
        case "time":
            times = parse_clock_times(stripped)
            return times[0] if times else None
        case "number":
            # "2 0 0 0 0 0 0": a figure read digit by digit is one number
            # single digits said one by one ("2 0 0 0 0 0 0", "1, 4", "1-4") are one figure; "14, 1 4" is 14 said twice
            digits_joined = re.sub(r"(?<=\b\d)[\s,-]+(?=\d\b)", "", stripped)
            digits_joined = re.sub(r"(?<=\d),(?=\d{3}\b)", "", digits_joined)  # "750,000"
            # "$1 million", "1.5 million", "250 thousand": eSpeak says "$1,000,000" as "one million dollars"
            digits_joined = SCALED.sub(
                lambda m: f"{_figure(m.group(1)) * SCALES[m.group(2).lower()]:.0f}", digits_joined
            )
            numbers = re.findall(r"\d+(?:\.\d+)?", digits_joined)
            return float(numbers[0]) if numbers else None
        case "choice":
            lowered = stripped.lower()
            compact = re.sub(r"[^a-z0-9]", "", lowered)  # "the I C U" -> "theicu"
            found = [
                c
                for c in slot.choices
                if c.lower().replace("_", " ") in lowered or re.sub(r"[^a-z0-9]", "", c.lower()) in compact
            ]
            return found[0] if len(found) == 1 else None
        case "yes_no":
            return parse_yes_no(stripped)
        case "email":
            spoken = re.sub(r"\s+dot\s+", ".", re.sub(r"\s+at\s+", "@", stripped.lower()))
            email = re.search(r"[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}", spoken.replace(" ", ""))
            return email.group(0) if email else None
        case _:
            # Free text as the caller said it, without the sentence's closing punctuation ("June 25, 1992.").
            return stripped.rstrip(".!?;, ") or None


def fit_pattern(text: str, pattern: str) -> str | None:
    """The last spelled code in ``text`` written in ``pattern``'s form: its characters with the pattern's dashes put
    back ('K A F N one three R' -> 'KAFN-13R' for ``[A-Z]{2,4}-\\d{2}[A-Z]``); None when none fits."""
    # Written out already ('PRV-ECHO-007': no NATO word to read into it); a code has a digit, a word does not
    written = [w for w in re.findall(rf"(?<![A-Z0-9-])(?:{pattern})(?![A-Z0-9-])", text.upper()) if re.search(r"\d", w)]
    if written:
        return written[-1]
    dashes = re.sub(r"\[[^]]*\]", "", pattern).count("-")  # the literal dashes, not the ranges' (A-Z)
    for run in reversed(spelled_runs(text)):
        for cuts in itertools.combinations(range(1, len(run)), dashes):
            bounds = (0, *cuts, len(run))
            candidate = "-".join(run[a:b] for a, b in itertools.pairwise(bounds))
            if re.fullmatch(pattern, candidate):
                return candidate
    return None


DIGIT_WORDS = {name: i for i, name in enumerate(DIGIT_NAMES)} | {"oh": 0}


def spoken_digits(text: str) -> list[int]:
    """Digits in order, written ("1 2 3", "123") or spoken ("one two three", "oh"); "double 9" is 9 9 (how callers
    say a repeated digit, which a recogniser otherwise hears once)."""
    out: list[int] = []
    double = False
    for token in re.findall(r"[a-z]+|\d", text.lower()):
        digit = int(token) if token.isdigit() else DIGIT_WORDS.get(token)
        if digit is not None:
            out += [digit, digit] if double else [digit]
        double = token == "double"
    return out
