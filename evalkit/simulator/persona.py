"""What every caller shares about a persona (EVA-Bench App. G.2, MM-tau-p2 persona levels): ``PersonaSpec``, the
behaviour knobs a persona config sets, read by the scripted caller, the LLM caller's prompt and the call loop; and
``is_code``, which values a caller spells character by character (the interruption conditions' planted wrong values
are spelled the same way). How the scripted caller renders a persona (``PersonaStyle``: terse, slow, disfluent) is
the caller's own, in ``evalkit.simulator.scripted.style``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from evalkit.spoken import Spelling

Level = Literal["none", "easy", "hard"]

CODE_LIKE = re.compile(r"^(?=.*\d)[A-Z\d]{4,}$|^[A-Z]{4,}$")
WRITTEN_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class PersonaSpec:
    """The behaviour knobs of a persona (``conf/persona/*.yaml`` ``behaviour`` + ``level``)."""

    name: str = "default"
    level: Level = "none"
    terse: bool = False
    caps: float = 0.0
    frustration: bool = False
    pauses: bool = False
    ask_repeat: float = 0.0
    max_repeat_requests: int = 2
    disfluency: float = 0.0
    self_correct: float = 0.0
    paraphrase: bool = False  # issue 17: the wording drawn among paraphrases (evalkit.simulator.paraphrase)
    reaction_jitter_ms: float = 0.0  # issue 17: each turn starts user_reaction_ms ± this after the agent
    prompt: str | None = None  # the persona's {user_persona} text for an LLM simulator (App. K, G.2)
    spelling: Spelling = "nato"  # a code's letters once misheard: "Alpha, Whiskey", "A as in Alpha" or "A, W"

    @classmethod
    def from_config(cls, persona: Any) -> PersonaSpec:
        """From a ``PersonaConfig`` (duck-typed: the simulator does not import the config package)."""
        variation = getattr(persona, "variation", None)
        varies = variation is not None and variation.enabled
        return cls(
            name=persona.name,
            level=persona.level,
            **persona.behaviour.model_dump(),
            paraphrase=varies and variation.paraphrase,
            reaction_jitter_ms=variation.reaction_jitter_ms if varies else 0.0,
            prompt=getattr(persona, "prompt", None),
            spelling=getattr(persona, "spelling", "nato"),
        )


def is_code(value: str) -> bool:
    """Values spelled character by character: confirmation codes, IDs, OTPs ('WK2EXB', '7HQ4TZ'), also written
    with dashes ('EJR-99V', 'FL-MD-30058838': a caller reads those out character by character too), and IDs in
    mixed case (``is_mixed_case_id``: 'REQ-SW-214a4860fa72'); a date ('2026-08-20') is no code."""
    if WRITTEN_DATE.fullmatch(value.strip()):
        return False
    upper_case = bool(CODE_LIKE.match(value.replace(" ", "").replace("-", "").upper())) and value.upper() == value
    return upper_case or is_mixed_case_id(value.strip())


# A token of letters and digits, dashes between its parts ("REQ-SW-214a4860fa72", "a3f9c2e1", "inv7b2k9").
ID_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
LETTER_OR_DIGIT_RUN = re.compile(r"[A-Za-z]+|\d+")


def is_mixed_case_id(token: str) -> bool:
    """An identifier with lower-case letters that a person reads out character by character, as they would the
    same ID in capitals: a part where letters and digits alternate at least twice ("214a4860fa72": 214, a, 4860, fa,
    72), which no word has. A number with a suffix ("14th", "10am", "5kg": one switch), a word with a number
    ("covid-19", "mp3") or a word alone is no ID; at least 4 letters and digits in all."""
    if not ID_TOKEN.fullmatch(token) or sum(c.isalnum() for c in token) < 4:
        return False
    return any(len(LETTER_OR_DIGIT_RUN.findall(part)) >= 3 for part in token.split("-"))
