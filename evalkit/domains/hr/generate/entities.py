"""Entities that are hard for ASR and carry valid checksums (NPI, DEA, codes), and the spoken forms of dates,
times and money.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from evalkit.domains.hr.generate.tables import LETTERS, TODAY
from evalkit.spoken import parse_code, say_date


def luhn_check_digit(digits: str) -> int:
    """The Luhn check digit for ``digits`` (the payload, without its check digit)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:  # doubled: the rightmost payload digit sits next to the check digit
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return (10 - total % 10) % 10


def npi_is_valid(npi: str) -> bool:
    """NPI standard (CMS): 10 digits whose last is the Luhn check digit of the 9 before, prefixed with 80840."""
    return len(npi) == 10 and npi.isdigit() and luhn_check_digit("80840" + npi[:9]) == int(npi[9])


def make_npi(rng: random.Random) -> str:
    body = str(rng.choice((1, 2))) + "".join(str(rng.randrange(10)) for _ in range(8))
    return body + str(luhn_check_digit("80840" + body))


def dea_is_valid(dea: str) -> bool:
    """DEA: two letters, six digits and a check digit = last digit of (d1+d3+d5) + 2*(d2+d4+d6)."""
    if len(dea) != 9 or not dea[:2].isalpha() or not dea[2:].isdigit():
        return False
    d = [int(c) for c in dea[2:]]
    return (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10 == d[6]


def make_dea(rng: random.Random, last_name: str) -> str:
    """Registrant letter (A/B/F: practitioners) + the last name's initial + 6 digits + check digit."""
    while True:
        d = [rng.randrange(10) for _ in range(6)]
        check = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10
        dea = rng.choice("ABF") + last_name[0].upper() + "".join(map(str, d)) + str(check)
        if speakable(dea):
            return dea


def digits(rng: random.Random, n: int) -> str:
    return str(rng.randrange(1, 10)) + "".join(str(rng.randrange(10)) for _ in range(n - 1))


def speakable(code: str) -> bool:
    """A made-up code must come back from its own spelling: 'SEE' would be heard as the letter C, 'EM' as M."""
    return parse_code(code, len(code)) == code


def letters(rng: random.Random, n: int) -> str:
    while not speakable(code := "".join(rng.choice(LETTERS) for _ in range(n))):
        pass
    return code


def mixed(rng: random.Random, n: int) -> str:
    """Letters and at least one digit, e.g. 'PDZP6L'."""
    while True:
        chars = [rng.choice(LETTERS + "23456789") for _ in range(n)]
        chars[rng.randrange(1, n)] = rng.choice("23456789")
        if speakable(code := "".join(chars)):
            return code


def facility(rng: random.Random) -> str:
    """A facility code as the tools write it: 3 letters, a dash, 2 digits and a letter ('KRW-27T')."""
    return f"{letters(rng, 3)}-{digits(rng, 2)}{rng.choice(LETTERS)}"


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def weekday_on_or_after(offset: int) -> int:
    while (TODAY + timedelta(days=offset)).weekday() >= 5:
        offset += 1
    return offset


def spoken_date(iso: str) -> str:
    return say_date(iso)


def spoken_full_date(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def spoken_time(hhmm: str) -> str:
    hour, minute = (int(x) for x in hhmm.split(":"))
    suffix = "p.m." if hour >= 12 else "a.m."  # lower case: an upper-case "11 AM" would be spelled like a code
    h12 = hour % 12 or 12
    return f"{h12} {suffix}" if minute == 0 else f"{h12}:{minute:02d} {suffix}"


def money(amount: int) -> str:
    return f"${amount:,}"
