"""Conciseness, deterministic proxy of EVA-Bench App. E.5.2 (the paper uses an LLM judge).

Per assistant turn, rating 3 = no failure mode, 2 = exactly one, 1 = more (E.5.2's scale); score = mean of
(r - 1) / 2 over rated turns, pass iff >= 0.5. The failure modes are tested with the only numbers the paper gives
for voice-friendly length, the agent prompt's rules (App. L "Voice-Friendly Communication Rules" / "Response
Style"):

- ``verbosity_or_filler``: a sentence longer than 20 words ("aim for sentences between 5-20 words");
- ``excess_information_density``: more than 4 sentences ("2-4 sentences typically"), or more than 2 questions in a
  turn ("request one or two details maximum per turn").

A spelled code counts as one word (E.5.2 allows spelling out identifiers); the last assistant turn may be longer
(the allowed end-of-call recap), so its sentence count is not tested. ``over_enumeration_or_list_exhaustion`` and
``contextually_disproportionate_detail`` need judgement and are not rated.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "conciseness_proxy"
THRESHOLD = 0.5  # App. E.5.2
MAX_SENTENCE_WORDS = 20  # App. L: sentences of 5-20 words
MAX_SENTENCES = 4  # App. L: 2-4 sentences typically
MAX_QUESTIONS = 2  # App. L: one or two details maximum per turn
_SPELLED = re.compile(r"\b(?:[A-Za-z0-9][,.]?\s){2,}[A-Za-z0-9]\b")


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def word_count(sentence: str) -> int:
    return len(_SPELLED.sub("CODE", sentence).split())


def failure_modes(text: str, final: bool) -> list[str]:
    parts = sentences(text)
    modes = []
    if any(word_count(s) > MAX_SENTENCE_WORDS for s in parts):
        modes.append("verbosity_or_filler")
    if (not final and len(parts) > MAX_SENTENCES) or text.count("?") > MAX_QUESTIONS:
        modes.append("excess_information_density")
    return modes


def turn_rating(modes: list[str]) -> int:
    return 3 if not modes else 2 if len(modes) == 1 else 1


def conciseness_proxy(conversation: Conversation) -> MetricValue:
    assistant = [t for t in conversation.turns if t.role == "assistant" and t.intended_text.strip()]
    if not assistant:
        return unscored(NAME, "the agent said nothing")
    rows: list[dict[str, Any]] = []
    for i, turn in enumerate(assistant):
        modes = failure_modes(turn.intended_text, final=i == len(assistant) - 1)
        rows.append({"turn": turn.index, "failure_modes": modes, "rating": turn_rating(modes)})
    score = float(np.mean([(r["rating"] - 1) / 2 for r in rows]))
    rates = {
        m: sum(m in r["failure_modes"] for r in rows) / len(rows)
        for m in ("verbosity_or_filler", "excess_information_density")
    }
    return value(NAME, score, THRESHOLD, turns=rows, submetrics={f"{k}_rate": v for k, v in rates.items()})


METRICS = (
    Metric(
        name=NAME,
        kind="proxy",
        source="EVA-Bench App. E.5.2 (proxy for the LLM judge; limits from App. L)",
        inputs=("turns[assistant].intended_text",),
        fn=conciseness_proxy,
        threshold=THRESHOLD,
        description="per-turn sentence length / count / question limits of the paper's voice rules",
    ),
)

register_all(METRICS, __name__)
