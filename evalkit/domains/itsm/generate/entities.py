"""Entity draws for ITSM scenarios: digits, codes, employee ids, dates months back and spoken forms."""

from __future__ import annotations

import random
import string
from datetime import date

from evalkit.domains.itsm.generate.tables import TODAY
from evalkit.spoken import parse_code


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def code(rng: random.Random, prefix: str, n: int) -> str:
    """Alphanumeric codes mixing letters and digits (hard for ASR: B/D/E/G/P/T/V/Z, 8/H, 0/O avoided as ambiguous)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    while True:  # rejection-sample until the shared parser reads it back whole (so a perfect agent hears it)
        body = [rng.choice(alphabet) for _ in range(n)]
        digit_at, letter_at = rng.sample(range(n), 2)  # at least one of each, so it reads as a code, not a word
        body[digit_at] = rng.choice("23456789")
        body[letter_at] = rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ")
        candidate = prefix + "".join(body)
        if parse_code(candidate, len(candidate)) == candidate:
            return candidate


def employee_id(rng: random.Random, taken: set[str]) -> str:
    while (eid := "EMP" + digits(rng, 6)) in taken:
        pass
    taken.add(eid)
    return eid


def months_ago(months: int) -> str:
    year, month = divmod(TODAY.year * 12 + TODAY.month - 1 - months, 12)
    return date(year, month + 1, min(TODAY.day, 28)).isoformat()


def spoken(value: str) -> str:
    return value.replace("_", " ")


def asset_tag(rng: random.Random, kind: str, taken: set[str]) -> str:
    """``AST-<kind>-NNNNNN`` (kind LPT, MON), unique in the scenario."""
    while (tag := f"AST-{kind}-{digits(rng, 6)}") in taken:
        pass
    taken.add(tag)
    return tag


def spell(value: str) -> str:
    """A code as the caller reads it, dashes dropped: "AST-LPT-284719" -> "A S T L P T 2 8 4 7 1 9"."""
    return " ".join(value.replace("-", ""))
