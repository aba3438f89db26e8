"""The caller's interjection when it cuts into the agent (IHBench's six types), drawn from a phrase table."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import yaml

PHRASES_FILE = Path(__file__).with_name("interjections.yaml")


@cache
def phrases() -> dict[str, list[str]]:
    return yaml.safe_load(PHRASES_FILE.read_text(encoding="utf-8"))


def interjection(kind: str, rng: np.random.Generator, heard: str, previous: str) -> str:
    """``heard``: what the agent said before the caller cut in; ``previous``: the caller's own previous answer."""
    options = phrases()[kind]
    template = options[int(rng.integers(len(options)))]
    last_words = " ".join(re.findall(r"[\w'-]+", heard)[-3:]) or "that"
    return template.format(heard=last_words, previous=previous.strip() or "what I said before")


def correction(rng: np.random.Generator, field: str, right: str) -> str:
    """The caller corrects a value it gave wrong earlier (IHBench correction: a self-correction across turns)."""
    from evalkit.simulator.corrections import spoken_value

    options = phrases()["correction_value"]
    template = options[int(rng.integers(len(options)))]
    return template.format(field=field.replace("_", " "), value=spoken_value(right))
