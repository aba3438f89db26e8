"""How the embedded agent recovers when the caller cuts into its speech (IHBench's expected recoveries), as one
small rule set shared by its audio and text forms.

- a filler ("mm-hm", "yeah"): continue the cut-off utterance exactly where it stopped: no repeat, no restart, no
  acknowledgement;
- impatience ("let's move on", "skip ahead"): skip the rest and go straight to the pending question;
- anything else (a question, a topic switch, pushback, a correction): acknowledge it briefly, then a fresh start:
  the cut sentence again from its beginning, and the rest (never a continuation mid-sentence), which ends with the
  pending question, so the dialogue policy's next step still gets its answer.

The dialogue policy is not stepped for the interjection: its state already holds the question the caller has not
answered yet. A real agent under test recovers however it does; these rules make the embedded reference behave as
IHBench prescribes, so the recovery metrics have a baseline that passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from evalkit.textnorm import last_sentence, sentence_spans

FILLERS = frozenset({"mm-hm", "mhm", "mm", "hm", "uh-huh", "yeah", "yes", "right", "okay", "ok", "sure"})
IMPATIENT_CUES = ("move on", "skip", "go on", "hurry", "i know", "get to the point")
PUSHBACK_CUES = ("doesn't sound right", "not sure", "don't think", "that's wrong", "why")
CORRECTION_CUES = ("correct", "i meant", "i misspoke", "my mistake", "gave you the wrong")


@dataclass(frozen=True)
class CutOff:
    """What the caller heard of the agent's last utterance before it cut in."""

    delivered: str
    undelivered: str
    full: str


def restart(cut: CutOff) -> str:
    """The utterance again from the start of the sentence the caller cut into."""
    at = len(cut.delivered)
    for start, end in sentence_spans(cut.full):
        if at < end:
            return cut.full[start:]
    return last_sentence(cut.full)


def recovery(cut: CutOff, heard: str) -> str:
    """The agent's next utterance after an interjection ``heard``."""
    words = re.findall(r"[a-z'-]+", heard.lower())
    low = heard.lower()
    if words and len(words) <= 3 and all(w.strip("-") in FILLERS for w in words):
        return cut.undelivered or last_sentence(cut.full)
    if any(cue in low for cue in IMPATIENT_CUES):
        return last_sentence(cut.full)
    again = restart(cut)
    if any(cue in low for cue in CORRECTION_CUES):
        return f"Thanks for the correction, noted. {again}"
    if any(cue in low for cue in PUSHBACK_CUES):
        return f"I understand your concern, and I'm here to help. {again}"
    return f"Good question, I'll come back to that in a moment. {again}"


def active_dbfs(samples: np.ndarray, rate: int) -> float:
    """The level of a clip's speech (dBFS over its 20 ms frames within 30 dB of its loudest), -inf when silent."""
    step = max(1, rate // 50)
    n = len(samples) // step
    if n == 0:
        return float("-inf")
    power = np.mean(np.asarray(samples[: n * step], dtype=np.float64).reshape(n, step) ** 2, axis=1)
    if power.max() <= 0.0:
        return float("-inf")
    active = power[power >= power.max() * 1e-3]
    return float(10.0 * np.log10(active.mean()))
