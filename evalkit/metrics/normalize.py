"""The metrics' own reading of spoken entities: numbers, dates, times, amounts and spelled codes.

Metrics compare what was said with what was meant. They must not borrow the parsers of the reference agent or of
the scripted caller (``evalkit.spoken``): those carry rules for one speech pair (how Whisper tiny.en hears eSpeak),
and a tweak there would move the agent and its score together. This module is written from what a careful reader
of a transcript accepts as the same value, and nothing else:

- a structured value's spoken forms: "2026-06-18" is "June 18", "June 18 2026", "18 June", "the 18th of June";
  "13:00" is "1 PM" (and "13:00"); "12:00" is also "noon", "00:00" "midnight"; an amount 1250.5 is "1250.50" and
  "1250 dollars 50 cents" (currency words per language);
- spelled codes in a transcript: single characters ("W K 2"), spelling-alphabet words ("Whiskey Kilo"), digit
  names ("two", "oh", "niner"), the dictionary names of letters ("bee", "aitch", "double-u"), "C as in Charlie"
  (the word names the letter), "double 5" / "triple A", a glued code holding a digit ("WK2EXB");
- a correction of one character: "No, the third one is Echo", "the second character is the number nine".

No fuzzy matching and no word that is only what one recogniser writes for one voice ("Elvis" for Alpha): a
transcript that says something else says something else. Word tables are per language (``TABLES``); records carry
no language today, so metrics read English unless told otherwise.

Numbers and units are compared on ``evalkit.textnorm.normalize_for_wer`` tokens (the shared WER normalisation, no
speech-pair rules), so "$75", "75 dollars" and "seventy-five dollars" are the same tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class Language:
    """The words of one language a careful reader maps to characters, months and units."""

    months: tuple[str, ...]  # January .. December
    alphabet: dict[str, str]  # spelling-alphabet word -> letter
    digits: dict[str, str]  # digit name -> digit
    letters: dict[str, str]  # dictionary name of a letter -> letter
    ordinals: dict[str, int]  # "third" -> 3 (positions in a correction)
    currencies: tuple[tuple[str, str], ...] = ()  # (unit, sub-unit) an amount may be said in
    repeats: dict[str, int] = field(default_factory=dict)  # "double" -> 2
    as_in: re.Pattern[str] = re.compile(r"(?!)")  # "C as in Charlie": the word after it names the letter
    article: frozenset[str] = frozenset()  # one-letter words that are words, not letters, when lower-case
    # words that sound exactly like a letter or digit name ("see" C, "to" 2, "okay" O K): characters only next to
    # another spelled character, as a reader takes "okay AFOR" for O K A F O R but "I want to go" for no code
    homophones: dict[str, str] = field(default_factory=dict)


_ICAO = "Alfa Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliett Kilo Lima Mike November Oscar Papa Quebec Romeo"
_ICAO += " Sierra Tango Uniform Victor Whiskey X-ray Yankee Zulu"
# The ICAO words with their common English spellings (Alpha, Juliet, Whisky, Xray).
_EN_ALPHABET = {w.lower(): w[0] for w in _ICAO.split()} | {"alpha": "A", "juliet": "J", "whisky": "W", "xray": "X"}
_EN_DIGITS = {
    w: str(i) for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])
}
_EN_DIGITS |= {"oh": "0", "niner": "9"}  # "oh" for 0 in codes and phone numbers; "niner", the radio form of nine
_EN_LETTERS = {
    "bee": "B", "cee": "C", "dee": "D", "ee": "E", "ef": "F", "eff": "F", "gee": "G", "aitch": "H", "haitch": "H",
    "jay": "J", "kay": "K", "el": "L", "ell": "L", "em": "M", "en": "N", "pee": "P", "cue": "Q", "ar": "R",
    "ess": "S", "tee": "T", "vee": "V", "ex": "X", "wye": "Y", "zee": "Z", "zed": "Z",
}  # fmt: skip
_EN_ORDINALS = {
    w: i + 1
    for i, w in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
        ]
    )
}
_EN_HOMOPHONES = {
    "okay": "OK", "see": "C", "sea": "C", "be": "B", "you": "U", "are": "R", "why": "Y", "tea": "T", "eye": "I",
    "to": "2", "too": "2", "for": "4", "won": "1", "ate": "8",
}  # fmt: skip

TABLES: dict[str, Language] = {
    "en": Language(
        months=tuple(
            [
                "January",
                "February",
                "March",
                "April",
                "May",
                "June",
                "July",
                "August",
                "September",
                "October",
                "November",
                "December",
            ]
        ),
        alphabet=_EN_ALPHABET,
        digits=_EN_DIGITS,
        letters=_EN_LETTERS,
        ordinals=_EN_ORDINALS,
        currencies=(("dollars", "cents"), ("euros", "cents"), ("pounds", "pence")),
        repeats={"double": 2, "triple": 3},
        as_in=re.compile(r"\b([A-Za-z])[\s,]+as\s+in\s+([A-Za-z][\w-]*)", re.IGNORECASE),
        article=frozenset({"a"}),
        homophones=_EN_HOMOPHONES,
    ),
}
DEFAULT_LANGUAGE = "en"


def language(code: str = DEFAULT_LANGUAGE) -> Language:
    """The tables of ``code`` ("en", "fr-CA" -> "fr"); an unknown language reads as English, the one all seeds use."""
    return TABLES.get(code) or TABLES.get(code.split("-")[0]) or TABLES[DEFAULT_LANGUAGE]


# --- spoken forms of structured values -----------------------------------------------------------------------------

_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?$")
_AMOUNT = re.compile(r"^\d+\.\d{1,2}$")


def date_forms(iso: str, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """'2026-06-18' -> 'June 18', 'June 18 2026', '18 June', '18 June 2026', '18th of June', 'June 18th 2026' (no
    form: no date)."""
    match = _ISO_DATE.match(iso)
    if not match:
        return []
    try:
        day = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return []
    month = language(lang).months[day.month - 1]
    return [
        f"{month} {day.day}",
        f"{month} {day.day} {day.year}",
        f"{day.day} {month}",
        f"{day.day} {month} {day.year}",
        f"{day.day}th of {month}",
        f"{month} {day.day}th {day.year}",  # "September fourteenth, nineteen ninety-seven" (any ordinal suffix:
        # the WER normalisation writes every one "th")
    ]


def time_forms(clock: str) -> list[str]:
    """'13:00' -> '1 PM'; '09:20' -> '9:20 AM'; '12:00' also 'noon', '00:00' 'midnight' (no form: no clock time)."""
    match = _CLOCK.match(clock)
    if not match:
        return []
    hour, minute = int(match[1]), int(match[2])
    if hour > 23 or minute > 59:
        return []
    h12, meridiem = hour % 12 or 12, "PM" if hour >= 12 else "AM"
    forms = [f"{h12} {meridiem}" if minute == 0 else f"{h12}:{minute:02d} {meridiem}"]
    if minute == 0 and hour in (0, 12):
        forms.append("midnight" if hour == 0 else "noon")
    return forms


def amount_forms(text: str, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """'1250.5' -> '1250.50', '1250 dollars 50 cents', ... (each currency of the language); whole amounts need no
    form of their own ('75' and '75 dollars' share their digits)."""
    if not _AMOUNT.match(text):
        return []
    whole, cents = text.split(".")
    cents = cents.ljust(2, "0")
    return [f"{whole}.{cents}"] + [f"{whole} {unit} {cents} {sub}" for unit, sub in language(lang).currencies]


def value_forms(value: object, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """A structured value and the ways a person may say it; none for booleans and missing values."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    return [text, *date_forms(text, lang), *time_forms(text), *amount_forms(text, lang)]


def written_as_said(text: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """``text`` with its written ISO dates as a person says them ('on 1997-09-14' -> 'on September 14 1997'): a
    caller who reads a date out says the month's name, and a transcript may hold either."""
    return re.sub(r"\b\d{4}-\d{2}-\d{2}\b", lambda m: (date_forms(m.group(0), lang) or [m.group(0)])[1], text)


# --- spelled codes in a transcript ---------------------------------------------------------------------------------


def _words(text: str, lang: Language) -> list[str]:
    text = lang.as_in.sub(lambda m: f" {m.group(2)[0].upper()} ", text)  # "C as in Charlie" -> C
    text = re.sub(r"\bdouble[ -]u\b", " W ", text, flags=re.IGNORECASE)
    # a code written with hyphens ("TOU-77A", "4B-PEDS") is one code: its characters, glued
    text = re.sub(r"\b(?=[\w-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b", lambda m: m.group(0).replace("-", ""), text)
    # "It's" is one word (its "s" is no letter S); a hyphen joins two words only in a spelling word ("X-ray"):
    # "GRP-ENGCORE" is the code GRP and the word ENGCORE
    words = re.findall(r"[A-Za-z]+(?:['’-][A-Za-z]+)?|\d+", text)
    return [p for w in words for p in ([w] if "-" not in w or w.lower() in lang.alphabet else w.split("-"))]


def _piece(word: str, lang: Language) -> str | None:
    """The characters a word stands for in a spelling, None for an ordinary word."""
    low = word.lower()
    if low in lang.alphabet:
        return lang.alphabet[low]
    if low in lang.digits:
        return lang.digits[low]
    if word.isdigit():
        return word
    if len(word) == 1:
        return None if word in lang.article else word.upper()
    if low in lang.letters:
        return lang.letters[low]
    if re.fullmatch(r"(?=.*\d)[A-Za-z\d]+", word):  # a code written glued: "WK2EXB"
        return word.upper()
    if word.isupper() and len(word) <= 6:  # letters written as capitals: "DTW", "GRP"
        return word
    return None


def spelled_runs(text: str, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """Each stretch of spelled characters in ``text``: 'It's Whiskey, K, two, E as in Echo.' -> ['WK2E']."""
    table = language(lang)
    pieces: list[tuple[str | None, bool]] = []  # (characters or None, said as a homophone)
    repeat = 1
    for word in _words(text, table):
        if word.lower() in table.repeats:  # "double 5": the next character twice
            repeat = table.repeats[word.lower()]
            continue
        piece = _piece(word, table)
        homophone = piece is None and word.lower() in table.homophones
        piece = table.homophones[word.lower()] if homophone else piece
        pieces.append((piece * repeat if piece is not None and len(piece) == 1 else piece, homophone))
        repeat = 1
    runs: list[str] = []
    current = ""
    for i, (piece, homophone) in enumerate(pieces):
        beside = [pieces[j] for j in (i - 1, i + 1) if 0 <= j < len(pieces)]
        if homophone and not any(p is not None and not h for p, h in beside):
            piece = None
        if piece is None:
            if current:
                runs.append(current)
            current = ""
        else:
            current += piece
    if current:
        runs.append(current)
    return runs


def spelled_codes(text: str, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """The codes and spelled words a transcript gives (two characters or more), each as spelled and, when it mixes
    in digits, as its letters alone (a spelled name read back without a stray digit name)."""
    out: list[str] = []
    for run in spelled_runs(text, lang):
        for form in (run, re.sub(r"\d", "", run)):
            if len(form) >= 2 and form not in out:
                out.append(form)
    return out


_NUMBER_AFTER = re.compile(r"\bnumber\s+(\w+)", re.IGNORECASE)
_IS = re.compile(r"\b(?:is|should be|was)\b|'s\b", re.IGNORECASE)


def parse_correction(text: str, lang: str = DEFAULT_LANGUAGE) -> tuple[int, str] | None:
    """'No, the third one is Echo.' -> (3, 'E'); 'the 2nd character is the number nine' -> (2, '9'); None when the
    text names no position and one character for it."""
    table = language(lang)
    low = text.lower()
    found = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)\b|\b(" + "|".join(table.ordinals) + r")\b", low)
    if not found:
        return None
    position = int(found[1]) if found[1] else table.ordinals[found[2]]
    rest = text[found.end() :]
    number = _NUMBER_AFTER.search(rest)
    if number:
        digit = _piece(number[1], table)
        return (position, digit) if digit is not None and len(digit) == 1 and digit.isdigit() else None
    said = _IS.search(rest)
    if said is None:
        return None
    for word in _words(rest[said.end() :], table):
        if word.lower() in ("the", "letter", "an"):
            continue
        piece = _piece(word, table)
        return (position, piece) if piece is not None and len(piece) == 1 else None
    return None


def spelled_forms(heard: Iterable[str], lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """Every spelled code of several texts, as single characters and glued ('W K 2', 'WK2')."""
    forms: list[str] = []
    for text in heard:
        for code in spelled_codes(text, lang):
            forms += [" ".join(code), code]
    return list(dict.fromkeys(forms))
