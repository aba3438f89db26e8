"""How the scripted caller checks what the agent read back or quoted: a figure, an amount, a date with its year
(pure functions of the agent's text and the true value), and how it says a misheard number again."""

from __future__ import annotations

import re

from evalkit.spoken import MONTHS


def same_amount(agent_text: str, truth: str) -> bool:
    """A figure read back as the number it is: "I have 12." for hours of "12.0", "750000" for "$750,000"."""
    amount = re.fullmatch(r"\$?(\d[\d,]*(?:\.\d+)?)", truth)
    said = re.search(r"I have \$?(\d[\d,]*(?:\.\d+)?)\. Is that right", agent_text)
    return bool(amount and said) and float(amount.group(1).replace(",", "")) == float(said.group(1).replace(",", ""))


def same_date(agent_text: str, truth: str) -> bool:
    """A date read back in words with its year ("I have August 19, 2034.") for an ISO value ("2034-08-19")."""
    said = re.search(r"I have ([A-Za-z]+) (\d{1,2}), (\d{4})\. Is that right", agent_text)
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", truth) or said is None or said.group(1).lower() not in MONTHS:
        return False
    return f"{said.group(3)}-{MONTHS[said.group(1).lower()]:02d}-{int(said.group(2)):02d}" == truth


def quoted_total(agent_text: str) -> float | None:
    """The amount the agent quotes as the total (or the largest amount) — what the caller would pay."""
    low = agent_text.lower()
    total = re.search(r"total of \$?(\d+(?:\.\d+)?)", low)
    if total:
        return float(total.group(1))
    amounts = [float(a) for a in re.findall(r"\$?(\d+(?:\.\d+)?) dollars", low)]
    return max(amounts) if amounts else None


def restated_number(truth: str) -> str | None:
    """A two-digit number read back wrong ("14" heard 40) said again with its digits first, as a caller does ("No,
    it's 1 4, 14."); None for other numbers. tiny.en, eSpeak, 4 teens x 4 voices: "No, it's 14 hours." 0/16
    heard 14, "No, it's 14 hours. 1 4." 0/16, "No, 1 4. 14 hours." 4/16, "No, it's 1 4, 14." 11/16."""
    # a whole number only: "12.5" is not 12 (said "No, it's 1 2, 12." it contradicted the caller's own value)
    two_digits = re.match(r"(\d{2})(?:\.0)?(?![.\d])", truth)
    if two_digits is None:
        return None
    number = two_digits.group(1)
    return f"No, it's {' '.join(number)}, {number}."
