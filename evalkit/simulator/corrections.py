"""IHBench's correction interruptions need a value the caller gave earlier and then corrects ("corrections require
the user to have provided a specific piece of information in a prior turn that they can then revise"). The
scripted caller plants one: it answers a field with a wrong value, then cuts into the agent to correct it. The
wrong value is a pure function of the right one (whether the caller slips is the call's seeded draw), so a record
replays exactly and the metric knows both values.
"""

from __future__ import annotations

import re

from evalkit.simulator.persona import is_code


def wrong_value(value: str) -> str | None:
    """The right value with one character changed: its last digit one higher (9 -> 0), else its last letter one
    later in the alphabet (z -> a, case kept). None when there is nothing to change (no letter or digit)."""
    for i in range(len(value) - 1, -1, -1):
        if value[i].isdigit():
            return value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]
    for i in range(len(value) - 1, -1, -1):
        ch = value[i]
        if ch.isascii() and ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            return value[:i] + chr(base + (ord(ch) - base + 1) % 26) + value[i + 1 :]
    return None


def correctable(field: str, value: str) -> bool:
    """Values a caller gives once and a tool then uses verbatim: codes and IDs, numbers, names (not a yes/no, a
    choice or free text, whose "wrong" twin would be no value at all)."""
    compact = value.replace(" ", "")
    return len(compact) >= 2 and (is_code(value) or bool(re.search(r"\d", value)) or field.endswith("name"))


def spoken_value(value: str) -> str:
    """How the caller says the corrected value: a code character by character (as it spells codes), else as is."""
    return ", ".join(value.replace(" ", "").upper()) if is_code(value) else value
