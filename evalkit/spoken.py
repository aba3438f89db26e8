"""Spoken forms of entities: how a caller says a code, and how an agent reads one back out of ASR text.

Shared by the scripted simulator (which speaks entities) and the local agent (which must recover them from
what its ASR heard). Parsing is deliberately literal: if the ASR mangles a code, the agent gets a wrong code
and the task can fail — the point of a robustness benchmark.
"""

from __future__ import annotations

import calendar
import difflib
import re
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Literal

import yaml

from evalkit.textnorm import ORDINAL_VALUES, normalize_for_wer

TABLES_FILE = Path(__file__).with_name("spoken.yaml")


def _load_tables(path: Path = TABLES_FILE) -> dict[str, dict[str, str] | list[str]]:
    """The word tables are data (spoken.yaml beside this module); the parsing rules that use them stay here."""
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


_TABLES = _load_tables()
NATO: dict[str, str] = _TABLES["nato"]
LETTER_TO_NATO: dict[str, str] = _TABLES["letter_to_nato"]
DIGIT_WORDS: dict[str, str] = _TABLES["digit_words"]
LETTER_NAMES: dict[str, str] = _TABLES["letter_names"]  # letter names as ASR writes them ("bee", "cee")
HOMOPHONES: dict[str, str] = _TABLES["homophones"]  # what ASR makes of spoken characters ("to" -> 2)
NOT_CODE: set[str] = set(_TABLES["not_code"])
FILLERS: set[str] = set(_TABLES["fillers"])

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}  # "january" -> 1
ORDINALS = ORDINAL_VALUES
TENS = {"twenty": 20, "thirty": 30}


def spell_code(code: str) -> str:
    """'WK2EXB' -> 'W K 2 E X B': digits one at a time, letters as letters (EVA-Bench App. K normalisation)."""
    return " ".join(code.upper())


def nato_code(code: str) -> str:
    """The backup spelling for a second attempt: 'W K 2' -> 'Whiskey Kilo 2'."""
    return " ".join(LETTER_TO_NATO.get(c, c) for c in code.upper())


Spelling = Literal["nato", "as_in", "letters"]


def spell_with_alphabet(code: str, spelling: Spelling) -> str:
    """A code spelled for a listener who misheard it, one character at a time with a pause after each: its letters
    as spelling-alphabet words ("nato": "Alpha, Whiskey, 4"), as a letter and its word ("as_in": "A as in Alpha,
    W as in Whiskey, 4"), or as plain letters ("letters": "A, W, 4"); digits are said as digits in every style."""
    chars = [c for c in code.upper() if c.isalnum()]
    if spelling == "nato":
        return ", ".join(LETTER_TO_NATO.get(c, c) for c in chars)
    if spelling == "as_in":
        return ", ".join(f"{c} as in {LETTER_TO_NATO[c]}" if c in LETTER_TO_NATO else c for c in chars)
    return ", ".join(chars)


# Up to the sixteenth: a caller corrects the tenth character of a 13-character policy number by its place as well
ORDINAL_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
ORDINAL_WORDS += ["eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"]
# A near spelling is read as an ordinal for the first eight only ("forth" is fourth): "ten", "eleven" are numbers
NEAR_ORDINALS = ORDINAL_WORDS[:8]
# The "is" of "the fourth one is Delta": the character is said after it, so the words before it are no candidates.
IS_WORD = re.compile(r"is", re.IGNORECASE)
NATO_WORDS = sorted(NATO)


# "C as in Charlie": the word says which letter was meant, so the letter before it is dropped and the word stands for
# it. The unstressed "as" is often written "is" ("T is in Tango": tiny.en on Piper's voice, issue 28.3)
AS_IN = re.compile(r"(?:\b[A-Za-z]\b[\s,&]*)?\b(?:as|is)\s+in\s+(?=[A-Za-z])", re.IGNORECASE)


def _tokens(text: str) -> list[str]:
    text = AS_IN.sub(" ", text)
    text = re.sub(r"\bdouble[ -]?(u|you)\b", "W", text, flags=re.IGNORECASE)
    text = re.sub(r"\bdouble[ -]?u(?=[A-Z0-9])", "W ", text, flags=re.IGNORECASE)  # 'double UK2XD'
    text = re.sub(r"\bx-ray\b", "xray", text, flags=re.IGNORECASE)
    return re.findall(r"[A-Za-z]+(?:'[A-Za-z]+)?|\d+", text)


def _nato_like(word: str, cutoff: float) -> str | None:
    match = difflib.get_close_matches(word.lower(), NATO_WORDS, n=1, cutoff=cutoff)
    return NATO[match[0]] if match else None


def _code_piece(token: str) -> str | None:
    """The characters a token contributes to a spelled code, or None when it is an ordinary word.

    Deliberately lenient, like a human agent: 'for' is 4, 'key low' (merged earlier) is Kilo, 'Tango' is T.
    """
    low = token.lower()
    if low in NATO:
        return NATO[low]
    if low in DIGIT_WORDS and low != "oh":
        return DIGIT_WORDS[low]
    if token.isdigit():
        return token
    if low in NOT_CODE and not token.isupper():
        return None
    if len(token) == 1:
        return token.upper()
    if low in LETTER_NAMES and (token[0].isupper() or len(low) <= 3):
        return LETTER_NAMES[low]
    if low in HOMOPHONES:
        return HOMOPHONES[low]
    # ASR often glues a spelled code into one token ('WK2EXB', 'UK2XD').
    if re.fullmatch(r"(?=.*\d)[A-Za-z\d]{2,8}", token) or (token.isupper() and len(token) <= 6):
        return token.upper()
    return _nato_like(low, 0.6) if len(low) >= 4 else None


def _merge_split_nato(tokens: list[str]) -> list[str]:
    """'key low' -> 'kilo': ASR splits NATO words it does not know; join a pair that matches one well."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        # the second half alone means nothing, the first is no NATO word or digit of its own
        split = (
            i + 1 < len(tokens)
            and _code_piece(tokens[i + 1]) is None
            and tokens[i].lower() not in NATO
            and not tokens[i].isdigit()
            and tokens[i].lower() not in NOT_CODE | set(DIGIT_WORDS) | set(HOMOPHONES)
        )
        if split:
            match = difflib.get_close_matches((tokens[i] + tokens[i + 1]).lower(), NATO_WORDS, n=1, cutoff=0.6)
            if match:
                out.append(match[0])
                i += 2
                continue
        out.append(tokens[i])
        i += 1
    return out


def piece_runs(tokens: Iterable[str], piece: Callable[[str], str | None]) -> list[str]:
    """Consecutive tokens that each read as a piece of a code, joined into one run per stretch (``piece``: a token's
    character(s), None when it is no part of a code)."""
    runs: list[str] = []
    current = ""
    for token in tokens:
        part = piece(token)
        if part is None:
            if current:
                runs.append(current)
            current = ""
        else:
            current += part
    if current:
        runs.append(current)
    return runs


def spelled_runs(text: str) -> list[str]:
    return piece_runs(_merge_split_nato(_tokens(text)), _code_piece)


def _letter_a(token: str) -> str | None:
    """A lone "a" read as the letter A; any other token as in a code."""
    return "A" if token.lower() == "a" else _code_piece(token)


def parse_code(text: str, length: int = 6) -> str | None:
    """The run of code-like tokens with ``length`` characters (the last one), else the longest run if it is
    within two characters of it; None when nothing code-like was heard, so the agent asks again.

    A lone "a" is the article, unless reading it as the letter A makes a run of exactly ``length`` characters: a
    transcript writes a spoken A as "a" ("It's a Z3UM9." for A Z 3 U M 9), and a listener who expects six
    characters and counts five after it takes the A."""
    runs = spelled_runs(text)
    exact = [r for r in runs if len(r) == length]
    if not exact:
        exact = [r for r in piece_runs(_merge_split_nato(_tokens(text)), _letter_a) if len(r) == length]
    if exact:
        return exact[-1]
    if not runs:
        return None
    best = max(runs, key=len)
    return best if len(best) >= length - 2 else None


# Three or more single letters in a row, in lower case ("m u k h e r j e e."): a spelling written in small letters,
# whose "a" and "m" are letters like the others, not the article or "I'm"
LOWER_CASE_SPELLING = re.compile(r"\b[a-z](?:[\s,.-]+[a-z]\b){2,}")


def parse_spelled_word(text: str) -> str | None:
    """A word spelled letter by letter ('R, A, M, A, N.', 'h a s s a n') -> 'RAMAN' / 'HASSAN' (letters only)."""
    text = LOWER_CASE_SPELLING.sub(lambda m: m.group(0).upper(), text)
    runs = [re.sub(r"\d", "", r) for r in spelled_runs(text)]
    # a letter three times in a row is Whisper looping ("Okay, hey, hey, hey, ..."), not a name: not heard
    runs = [r for r in runs if len(r) >= 2 and not re.search(r"(.)\1\1", r)]
    return max(runs, key=len) if runs else None


def parse_ordinal(text: str) -> int | None:
    """'the third one', 'the 3rd character', 'the forth one' (a near spelling of fourth) -> 3 / 3 / 4."""
    for token in re.findall(r"[a-z]+|\d+(?:st|nd|rd|th)", text.lower()):
        digits = re.fullmatch(r"(\d+)(st|nd|rd|th)", token)
        if digits:
            return int(digits.group(1))
        if token in ORDINAL_WORDS:  # before the near spellings: "eleventh" is near "seventh"
            return ORDINAL_WORDS.index(token) + 1
        match = difflib.get_close_matches(token, NEAR_ORDINALS, n=1, cutoff=0.7)
        if match:
            return ORDINAL_WORDS.index(match[0]) + 1
    return None


def parse_correction(text: str) -> tuple[int, str] | None:
    """'No, the third one is Echo.' -> (3, 'E'); 'the second character is the number nine' -> (2, '9').

    The character is the word after the ordinal that best resembles a NATO word (or a spoken digit after
    'number', or a lone capital letter), so fillers ASR inserts ('the fourth while is tango') do not win.
    """
    position = parse_ordinal(text)
    if position is None:
        return None
    digit = re.search(r"number\s+(\w+)", text.lower())
    if digit and (digit.group(1) in DIGIT_WORDS or digit.group(1).isdigit()):
        value = DIGIT_WORDS.get(digit.group(1), digit.group(1))
        return (position, value) if len(value) == 1 else None
    words = _tokens(text)
    ordinal_at = next((i for i, w in enumerate(words) if parse_ordinal(w) == position), -1)
    after = words[ordinal_at + 1 :]
    # "the fourth one is Delta": only the words after the "is" name the character, so the "one" is neither a
    # candidate nor merged with the "is" into a NATO word
    is_at = next((i for i, w in enumerate(after) if IS_WORD.fullmatch(w)), None)
    if is_at is not None and is_at + 1 < len(after):
        after = after[is_at + 1 :]
    best: tuple[float, str] | None = None
    for token in _merge_split_nato(after):
        low = token.lower()
        if len(token) == 1 and token.isupper():
            return position, token
        if low in LETTER_NAMES:  # the plain letter, written as its name ("the third one is jay")
            return position, LETTER_NAMES[low]
        if len(low) < 3 or low in NOT_CODE:
            continue
        for word in NATO_WORDS:
            score = difflib.SequenceMatcher(None, low, word).ratio()
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, NATO[word])
    return (position, best[1]) if best else None


def say_correction(position: int, char: str) -> str:
    """How the caller corrects one character of a read-back (EVA-Bench K: correct any misheard value)."""
    if char.isdigit():
        return f"No, the {ORDINAL_WORDS[position - 1]} character is the number {DIGIT_NAMES[int(char)]}."
    return f"No, the {ORDINAL_WORDS[position - 1]} one is {LETTER_TO_NATO[char]}."


DIGIT_NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def parse_name(text: str) -> str | None:
    """A surname from an answer like 'My last name is Thompson.' — the last non-filler word."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text) if w.lower().strip("'") not in FILLERS]
    if not words:
        return None
    word = words[-1]
    # 'MacLeod', 'El-Amin' keep their capitals; 'thompson' or an all-capitals 'THOMPSON' become 'Thompson'
    return word if word[:1].isupper() and not word.isupper() else word.capitalize()


def parse_yes_no(text: str) -> bool | None:
    low = f" {text.lower()} "
    if re.search(r"\b(no|nope|don't|do not|not|none|cancel that|wait)\b", low) and not re.search(
        r"\b(no problem)\b", low
    ):
        return False
    if re.search(r"\b(yes|yeah|yep|sure|correct|right|please do|go ahead|ok|okay|that works|sounds good)\b", low):
        return True
    return None


# A homophone of "aisle" said as an item of the answer, not as "I will" ("I'll, then window" is aisle first,
# "I'll take the window" is not): a seat type is what was asked, so a listener hears it among the types named.
AISLE_HOMOPHONE = re.compile(r"\b(?:isle|i'll)\b(?=\s*(?:[,.!?]|$|then\b|first\b|please\b|seat\b|or\b|and\b))")


def parse_seat_preferences(text: str) -> list[str]:
    """Every seat type the caller names, in the order named ('aisle, then window' -> ['aisle', 'window']); the
    homophone of aisle counts where it stands as an item ("I'll, then window" -> ['aisle', 'window'])."""
    low = text.lower()
    named = [(low.find(k), k) for k in ("window", "aisle", "middle") if k in low]
    if "aisle" not in low and (homophone := AISLE_HOMOPHONE.search(low)):
        named.append((homophone.start(), "aisle"))
    return [kind for _, kind in sorted(named)]


def parse_seat_preference(text: str) -> str | None:
    """The seat type the caller names first ('aisle, then window' -> aisle; "I'll, then window" -> aisle)."""
    low = text.lower()
    named = parse_seat_preferences(text)
    if named:
        return named[0]
    if re.search(r"\b(isle|i'll)\b", low):  # homophones of 'aisle' ("I'll, please.": tiny.en on Piper's voice)
        return "aisle"
    if "no preference" in low or "don't care" in low or "any seat" in low:
        return "no_preference"
    return None


def _number_words(tokens: list[str]) -> list[int]:
    numbers: list[int] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i].lower()
        if tok in TENS:
            value = TENS[tok]
            if i + 1 < len(tokens) and tokens[i + 1].lower() in ORDINALS and ORDINALS[tokens[i + 1].lower()] < 10:
                value += ORDINALS[tokens[i + 1].lower()]
                i += 1
            numbers.append(value)
        elif tok in ORDINALS:
            numbers.append(ORDINALS[tok])
        else:
            m = re.fullmatch(r"(\d{1,2})(st|nd|rd|th)?", tok)
            if m:
                value = int(m.group(1))
                # 'twenty-second' often comes back from ASR as '20, second'
                nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
                if value in (20, 30) and nxt in ORDINALS and ORDINALS[nxt] < 10:
                    value += ORDINALS[nxt]
                    i += 1
                numbers.append(value)
        i += 1
    return numbers


def parse_date(text: str, today: date) -> date | None:
    """'June 22nd', 'the twenty-second of June', 'tomorrow' -> a date in ``today``'s year; '2026-03-25' (a caller
    reading a date from a record) as written."""
    iso = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", text)
    if iso:
        try:
            return date(int(iso[1]), int(iso[2]), int(iso[3]))
        except ValueError:
            return None
    low = text.lower().replace("-", " ")
    if "tomorrow" in low:
        return date.fromordinal(today.toordinal() + 1)
    if "today" in low:
        return today
    year = said_year(text)
    if year is not None:  # "September 14, 1997": the year's digits are no day
        low = re.sub(r"\b(?:19|20)\d{2}\b", " ", low)
        low = _without_said_year(low, year)
    tokens = re.findall(r"[a-z]+|\d+(?:st|nd|rd|th)?", low)
    at = next((i for i, t in enumerate(tokens) if t in MONTHS), None)
    month = MONTHS[tokens[at]] if at is not None else today.month
    days = [n for n in _number_words(tokens) if 1 <= n <= 31]
    if at is not None:  # the day said with the month ("November 8th", "the 8th of November"), not a code's digits
        after = [n for n in _number_words(tokens[at + 1 : at + 3]) if 1 <= n <= 31]
        before = [n for n in _number_words(tokens[max(0, at - 4) : at]) if 1 <= n <= 31]
        days = after[:1] or before[-1:] or days
    if not days:
        return None
    try:
        return date(year or today.year, month, days[0])
    except ValueError:
        return None


def _without_said_year(low: str, year: int) -> str:
    """'twenty third of june twenty twenty six' -> 'twenty third of june ': the words that say ``year``, cut."""
    starts = [m.start() for m in re.finditer(r"\b(?:nineteen|twenty|two thousand)\b", low)]
    for start in reversed(starts):
        if normalize_for_wer(low[start:]).split() == list(str(year)):
            return low[:start]
    return low


def said_year(text: str) -> int | None:
    """The year a date names, written ("1997") or said ("nineteen ninety-seven", "two thousand five", "twenty
    twenty-six"), when it comes after the month or day: the last four digits from 1900 to 2099 once numbers are
    digits; None when the date names no year."""
    digits = normalize_for_wer(text).split()
    years = [
        int("".join(digits[i : i + 4]))
        for i in range(len(digits) - 3)
        if all(d.isdigit() for d in digits[i : i + 4]) and digits[i] + digits[i + 1] in ("19", "20")
        and (i + 4 == len(digits) or not digits[i + 4].isdigit())
    ]  # fmt: skip
    return years[-1] if years else None


# a flight number said in words after its airline's capital letters ("SK one thirty", "U A twelve thirty-four": how a
# caller says one, evalkit.spoken_values.number_in_pairs); the number words and "oh" that can follow
_NUMBER_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty"
_NUMBER_WORD += r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand)"
_SAID_FLIGHT = re.compile(rf"\b([A-Z])[\s.]*([A-Z])\.?\s+((?i:{_NUMBER_WORD}(?:[\s-]+{_NUMBER_WORD})*))\b")


def _said_flight(match: re.Match[str]) -> str:
    digits = "".join(normalize_for_wer(match.group(3)).split())
    return f"{match.group(1)}{match.group(2)}{digits}" if digits.isdigit() and 2 <= len(digits) <= 4 else match.group(0)


_SPELLED_FLIGHT = re.compile(r"\b([A-Za-z])[\s.-]+([A-Za-z])[\s.-]+(\d(?:[\s.-]\d){1,3})\b")


def parse_flight_numbers(text: str) -> list[str]:
    """'SK130', 'SK 130', 'S K 130', 'S K 1 3 0', 'SK one thirty' -> ['SK130']."""
    text = _SAID_FLIGHT.sub(_said_flight, text)
    # spelled character by character ("S K 7 2 2"): the letters apart, as a flight number is read out
    text = _SPELLED_FLIGHT.sub(lambda m: m.group(1) + m.group(2) + re.sub(r"\D", "", m.group(3)), text)
    compact = re.sub(r"\b([A-Za-z])[\s.-]*([A-Za-z])[\s.-]*(\d{2,4})\b", r"\1\2\3", text)
    return [m.upper() for m in re.findall(r"\b[A-Za-z]{2}\d{2,4}\b", compact)]


def flight_digits(text: str) -> set[str]:
    """Digit groups that may be a flight number heard without its letters ('K722' -> {'722'})."""
    return set(re.findall(r"\d{2,4}", text))


def parse_clock_times(text: str) -> list[str]:
    """'1 PM', '1:00 p.m.', 'one o'clock', '13:00' -> ['13:00'] (24 h). Bare 'one o'clock' is taken as afternoon
    when it is before 7, the way a caller means it."""
    # "7A. M.", "7 a m": the meridiem's letters written apart (tiny.en on Piper's "7 a.m.", issue 28.3)
    low = re.sub(r"(?<![a-z])([ap])[\s,]+m\b", r"\1m", text.lower().replace(".", ""))
    times: list[str] = []
    for hour, minute, meridiem in re.findall(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b", low):
        if 1 <= int(hour) <= 12:  # "30 AM" (tiny.en's "8:30 a.m." without the 8) is no time
            times.append(_to_24h(int(hour), int(minute or 0), meridiem))
    # a written 24-hour time without am/pm ("07:00", "19:30", "00:00"): a record's own value, as it stands (a
    # one-digit hour, "7:00", is left out: spoken, it could be morning or evening)
    for hour, minute in re.findall(r"\b(\d{2}):(\d{2})\b(?!\s*(?:am|pm)\b)", low):
        if int(hour) < 24 and int(minute) < 60:
            times.append(f"{int(hour):02d}:{minute}")
    # a time written without its colon ("420 pm") or with a comma or space for it ("10, 30 AM": tiny.en on Piper's
    # "10:30 AM", issue 28.3): the hour and minutes that were said
    for digits, meridiem in re.findall(r"\b(\d{3,4})\s*(am|pm)\b", low):
        hour, minute = int(digits[:-2]), int(digits[-2:])
        if 1 <= hour <= 12 and minute < 60:
            times.append(_to_24h(hour, minute, meridiem))
    for hour, minute, meridiem in re.findall(r"\b(\d{1,2}),?\s+(\d{2})\s*(am|pm)\b", low):
        if 1 <= int(hour) <= 12 and int(minute) < 60:
            times.append(_to_24h(int(hour), int(minute), meridiem))
    words = {
        v: int(k)
        for k, v in enumerate(
            ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
        )
    }
    for word, meridiem in re.findall(
        r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
        r"(?:\s+o'?clock)?\s*(am|pm|o'?clock)\b",
        low,
    ):
        mer = meridiem if meridiem in ("am", "pm") else ("pm" if words[word] < 7 else "am")
        times.append(_to_24h(words[word], 0, mer))
    return times


def _to_24h(hour: int, minute: int, meridiem: str) -> str:
    hour = hour % 12 + (12 if meridiem == "pm" else 0)
    return f"{hour:02d}:{minute:02d}"


def say_time(hhmm: str) -> str:
    """'13:00' -> '1 PM', '09:20' -> '9:20 AM' (numbers in spoken-friendly form)."""
    hour, minute = (int(x) for x in hhmm.split(":"))
    meridiem = "PM" if hour >= 12 else "AM"
    h12 = hour % 12 or 12
    return f"{h12} {meridiem}" if minute == 0 else f"{h12}:{minute:02d} {meridiem}"


def say_date(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.strftime('%B')} {d.day}"


# The agent's TTS front end (issue 17.3): how a careful speaker says an entity so that it is heard, the job of an SSML
# <say-as> in a production TTS. The words and entities stay those of the intended text; only their spoken form
# changes (pauses between spelled characters, letters of an acronym, the hundreds of a flight number).
_SPELLED_RUN = re.compile(r"\b[A-Z0-9](?: [A-Z0-9]){2,}\b")
_ACRONYM = re.compile(r"\b[A-Z]{3}\b")  # airport codes: eSpeak reads "MIA" as a word
_FLIGHT = re.compile(r"\b([A-Z]{2})(\d)(\d{2})\b")
_MERIDIEM = re.compile(r"\b(\d{1,2}(?::\d{2})?) ?([AP])M\b")


def speakable(text: str) -> str:
    """The text an agent's TTS is fed for ``text``: 'I have W K 2 E X B.' -> 'I have W, K, 2, E, X, B.' (a pause
    keeps a repeated letter from merging: 'M M' was heard as one M), 'LAX' -> 'L A X', 'SK623' -> 'SK 6 23' (eSpeak's
    "S K six hundred and twenty-three" came back "SK6 123"), '8:15 AM' -> '8:15 A M'. Measured with
    ``scripts/bench_agent_speech.py``."""
    text = _SPELLED_RUN.sub(lambda m: ", ".join(m.group(0).split()), text)
    text = _ACRONYM.sub(lambda m: " ".join(m.group(0)), text)
    text = _FLIGHT.sub(r"\1 \2 \3", text)
    return _MERIDIEM.sub(r"\1 \2 M", text)
