"""How a person says a record's written values aloud: dates, clock times and amounts (issue 28 point 5).

A record stores "1997-09-14", "07:00" or "$75.00"; a caller reading it out says "September fourteenth, nineteen
ninety-seven", "7 AM", "75 dollars" (written here as a transcript writes them: "September 14th, 1997"). A TTS fed
the written form reads it as written ("nineteen ninety-seven minus zero nine ...") and a listener hears nonsense.
Shared by the scripted caller (which converts what it says) and the LLM caller's prompt (which shows the model the
spoken form beside the record's value); keyed by nothing but the value's written shape, never by a record or scenario.

Also a flight number ("UA1234", "SK 412": a US caller says the airline's letters, then the number in pairs, "UA
twelve thirty-four", "SK four twelve", "SK one oh five"; eSpeak reads "SK412" "S K four hundred twelve"), an amount
with cents ("$45.50" -> "45 dollars and 50 cents": TTS engines read "$45.50" as "dollar forty-five point five zero" or
similar), a whole figure written with a decimal zero ("12.0" hours -> "12") and a phone number ("+1-206-555-0334" ->
"1, 2 0 6, 5 5 5, 0 3 3 4": digit by digit in its groups, where a TTS reads "two hundred six dash ...").

Left as written, because a person would say them the same way or because the written form is ambiguous: a clock
time with a one-digit or 10-12 hour and no AM/PM ("3:30" may be afternoon) and codes (the caller spells those
itself, evalkit.simulator.scripted.style, lists of codes included), a record's identifier in snake case
("reactivate_full": eSpeak, and the Piper voices it phonemises for, read the underscore as a word break, "reactivate
full").
"""

from __future__ import annotations

import re
from datetime import date

MONTHS = [
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
_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
_ORDINAL_OF = {
    "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth",
    "twelve": "twelfth", "twenty": "twentieth", "thirty": "thirtieth",
}  # fmt: skip


def cardinal(n: int) -> str:
    """0 <= n < 100: 'twenty-one', 'nine', 'fourteen'."""
    if n < 10:
        return _UNITS[n]
    if n < 20:
        return _TEENS[n - 10]
    tens, unit = divmod(n, 10)
    return _TENS[tens] + (f"-{_UNITS[unit]}" if unit else "")


def ordinal(n: int) -> str:
    """1 <= n < 100: 'first', 'fourteenth', 'twenty-third'."""
    words = cardinal(n)
    head, _, last = words.rpartition("-")
    last = _ORDINAL_OF.get(last, last + "th")
    return f"{head}-{last}" if head else last


def year_words(year: int) -> str:
    """1997 -> 'nineteen ninety-seven', 2005 -> 'two thousand five', 2026 -> 'twenty twenty-six', 1900 ->
    'nineteen hundred', 2000 -> 'two thousand' (the way English speakers say years)."""
    high, low = divmod(year, 100)
    if 2000 <= year < 2010:
        return "two thousand" + (f" {cardinal(low)}" if low else "")
    if low == 0:
        return f"{cardinal(high)} hundred"
    return f"{cardinal(high)} {'oh ' + cardinal(low) if low < 10 else cardinal(low)}"


def say_date(iso: str, current_year: int | None = None, words: bool = False) -> str | None:
    """'1997-09-14' -> 'September 14th, 1997', as a transcript writes the spoken "September fourteenth, nineteen
    ninety-seven" and as every TTS reads it (``words``: the words themselves, for a prompt). The year is left out
    when it is ``current_year`` (a caller says "August 23rd" for this year's date). None: no valid date."""
    try:
        day = date.fromisoformat(iso)
    except ValueError:
        return None
    if words:
        said, year = f"{MONTHS[day.month - 1]} {ordinal(day.day)}", year_words(day.year)
    else:
        said, year = f"{MONTHS[day.month - 1]} {day.day}{_suffix(day.day)}", str(day.year)
    return said if day.year == current_year else f"{said}, {year}"


def _suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def say_clock(hour: int, minute: int) -> str:
    """24-hour 19:30 -> '7:30 PM', 7:00 -> '7 AM', 12:00 -> '12 PM' (as a transcript writes what is said)."""
    h12, meridiem = hour % 12 or 12, "PM" if hour >= 12 else "AM"
    return f"{h12} {meridiem}" if minute == 0 else f"{h12}:{minute:02d} {meridiem}"


_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_MERIDIEM_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\s*([AaPp])\.?\s?[Mm]\b\.?")
# a 24-hour time that cannot be misread: a leading zero ("07:00") or an hour past noon ("19:30"), no AM/PM after it
_TWENTY_FOUR = re.compile(r"\b(0\d|1[3-9]|2[0-3]):([0-5]\d)\b(?!\s*[AaPp]\.?\s?[Mm]\b)")
_AMOUNT = re.compile(r"\$(\d{1,3}(?:,\d{3})*|\d+)(?:\.(\d{2}))?(?![\d.,]*\d)")
# a flight number: an airline's two-letter designator, then 3-4 digits ("SK130"; "BL42" is as likely a code) or, after
# "flight", 1-4 digits glued or spaced ("flight UA 12"); never part of a dashed code ("MA-MD-7878130") or longer word
FLIGHT_NUMBER = re.compile(r"(?<![\w-])([A-Z]{2}) ?(\d{3,4})(?![\w-])|(?<=\bflight )([A-Z]{2}) ?(\d{1,4})(?![\w-])")
# a phone number (NANP: "+1-206-555-0334", "(206) 555-0334", "206.555.0334"): said digit by digit in its groups
_PHONE = re.compile(r"(?<![\w+])(\+?1[-. ])?\(?(\d{3})\)?[-. ]?(\d{3})[-. ](\d{4})(?![\w-])")
_DECIMAL_ZERO = re.compile(r"(?<![\d.,$])(?<!version )(\d+)\.0+\b(?!\.\d)")  # "12.0" hours: said "12"


def say_written_values(text: str, current_year: int | None = None) -> str:
    """``text`` with every written date, unambiguous clock time, amount and flight number in the form a person says:
    'Born 1997-09-14, shift at 07:00, fee $75.00' -> 'Born September 14th, 1997, shift at 7 AM, fee 75 dollars';
    'flight SK130 for $45.50' -> 'flight SK one thirty for 45 dollars and 50 cents'."""
    text = _ISO.sub(lambda m: say_date(m.group(1), current_year) or m.group(1), text)
    text = _MERIDIEM_TIME.sub(
        lambda m: (
            say_clock(int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0), int(m.group(2)))
            + (m.group(0)[-1] if m.group(0).endswith(".") else "")
            if 1 <= int(m.group(1)) <= 12 and int(m.group(2)) < 60
            else m.group(0)
        ),
        text,
    )
    text = _TWENTY_FOUR.sub(lambda m: say_clock(int(m.group(1)), int(m.group(2))), text)
    text = _AMOUNT.sub(lambda m: say_amount(m.group(1), m.group(2)), text)
    text = _PHONE.sub(lambda m: say_phone(m.group(2, 3, 4), bool(m.group(1))), text)
    text = FLIGHT_NUMBER.sub(lambda m: f"{m.group(1) or m.group(3)} {number_in_pairs(m.group(2) or m.group(4))}", text)
    return _DECIMAL_ZERO.sub(r"\1", text)


def say_amount(dollars: str, cents: str | None = None) -> str:
    """'45', '50' -> '45 dollars and 50 cents'; '1' -> '1 dollar'; '0', '50' -> '50 cents'; '75', '00' -> '75
    dollars' (the figures as a transcript writes them; every TTS reads "45 dollars" as a person says it)."""
    whole = f"{dollars} dollar{'' if dollars == '1' else 's'}"
    if cents is None or int(cents) == 0:
        return whole
    change = f"{int(cents)} cent{'' if int(cents) == 1 else 's'}"
    return change if int(dollars.replace(",", "")) == 0 else f"{whole} and {change}"


def say_phone(groups: tuple[str, ...], country: bool = False) -> str:
    """('206', '555', '0334') -> '2 0 6, 5 5 5, 0 3 3 4': each digit, a pause between the groups, as callers read a
    number out (a TTS reads "206-555-0334" "two hundred six dash five hundred fifty-five ..."); ``country``: the
    number was written with its +1, said "1" first."""
    said = ", ".join(" ".join(group) for group in groups)
    return f"1, {said}" if country else said


def number_in_pairs(digits: str) -> str:
    """A flight number as US callers say it, in pairs of digits: '1234' -> 'twelve thirty-four', '130' -> 'one
    thirty', '105' -> 'one oh five', '1005' -> 'ten oh five', '1200' -> 'twelve hundred', '100' -> 'one hundred',
    '2000' -> 'two thousand', '42' -> 'forty-two'; a leading zero is said digit by digit ('0412' -> 'oh four one
    two'). In words: no TTS reads "130" as "one thirty"."""
    if digits.startswith("0") and len(digits) > 1:
        return " ".join("oh" if d == "0" else _UNITS[int(d)] for d in digits)
    number = int(digits)
    if number < 100:
        return cardinal(number)
    high, low = divmod(number, 100)
    if low == 0:
        return f"{cardinal(high // 10)} thousand" if high % 10 == 0 else f"{cardinal(high)} hundred"
    return f"{cardinal(high)} {'oh ' + cardinal(low) if low < 10 else cardinal(low)}"
