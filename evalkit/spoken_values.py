"""How a person says a record's written values aloud: dates, clock times and amounts (issue 28 point 5).

A record stores "1997-09-14", "07:00" or "$75.00"; a caller reading it out says "September fourteenth, nineteen
ninety-seven", "7 AM", "75 dollars" (written here as a transcript writes them: "September 14th, 1997"). A TTS fed
the written form reads it as written ("nineteen ninety-seven minus zero nine ...") and a listener hears nonsense.
Shared by the scripted caller (which converts what it says) and the LLM caller's prompt (which shows the model the
spoken form beside the record's value); keyed by nothing but the value's written shape, never by a record or scenario.

Left as written, because a person would say them the same way or because the written form is ambiguous: a clock
time with a one-digit or 10-12 hour and no AM/PM ("3:30" may be afternoon), amounts with cents ("$7.50": every TTS
reads the currency sign), codes (the caller spells those itself, evalkit.simulator.persona).
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
_WHOLE_AMOUNT = re.compile(r"\$(\d{1,3}(?:,\d{3})*|\d+)(?:\.00)?(?![\d.,]*\d)")


def say_written_values(text: str, current_year: int | None = None) -> str:
    """``text`` with every written date, unambiguous clock time and whole amount in the form a person says:
    'Born 1997-09-14, shift at 07:00, fee $75.00' -> 'Born September 14th, 1997, shift at 7 AM, fee 75 dollars'."""
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
    return _WHOLE_AMOUNT.sub(lambda m: f"{m.group(1)} dollars", text)
