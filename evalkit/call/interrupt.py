"""Where and when the caller cuts into the agent's speech (IHBench), as pure functions of the agent's text, the
timing of its audio and a seeded generator.

The cut lands on a word boundary inside a sentence that is not the utterance's last (IHBench's round planner: "not
in the last sentence"); the caller starts talking right after that word, and the agent's voice goes on under the
caller's for the drawn overlap before the agent yields (an in-process agent on a virtual clock is stopped there; a
wire agent's own stop is what is measured). The word's time in the audio is taken proportional to its character
offset: the TTS engines behind the interface report no word timings, and speech rate is close to uniform within an
utterance. What the agent said before it went silent (whole words) is ``delivered``; the rest is ``undelivered``;
``full.startswith(delivered)`` always holds (IHBench's invariant).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.textnorm import sentence_spans

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Cut:
    cut_char: int  # end of the cut word in the full text (IHBench's truncated utterance = full[:cut_char])
    onset_ms: float  # the caller starts talking
    overlap_s: float
    stop_ms: float  # the agent falls silent (onset + overlap for an agent stopped by the loop)
    delivered: str
    undelivered: str


def eligible(text: str) -> bool:
    """A cut needs a sentence before the last one: a one-sentence utterance is never interrupted."""
    return len(sentence_spans(text)) >= 2


def delivered_at(text: str, char: int) -> str:
    """The whole words of ``text`` that end at or before character ``char`` (a prefix of ``text``)."""
    ends = [m.end() for m in _WORD.finditer(text) if m.end() <= char]
    return text[: ends[-1]] if ends else ""


def plan_cut(
    text: str, start_ms: float, end_ms: float, overlap_range_s: tuple[float, float], rng: np.random.Generator
) -> Cut | None:
    """The cut of one agent utterance (None: not eligible). ``start_ms``/``end_ms``: its audio on the timeline."""
    spans = sentence_spans(text)
    if len(spans) < 2 or end_ms <= start_ms:
        return None
    a, b = spans[int(rng.integers(len(spans) - 1))]  # any sentence but the last
    words = [m.end() + a for m in _WORD.finditer(text[a:b])]
    cut_char = words[int(rng.integers(len(words)))]
    overlap_s = float(rng.uniform(*overlap_range_s))
    ms_per_char = (end_ms - start_ms) / max(1, len(text))
    onset_ms = start_ms + cut_char * ms_per_char
    stop_ms = min(end_ms, onset_ms + overlap_s * 1000.0)
    delivered = delivered_at(text, int((stop_ms - start_ms) / ms_per_char))
    return Cut(cut_char, onset_ms, overlap_s, stop_ms, delivered, text[len(delivered) :].strip())


class Interrupter:
    """The caller's interruptions in one call: which agent turns are cut (seeded), where, and what the caller says.
    ``config``: an ``InterruptConfig``; ``rng``: the call's own generator (cell seed, scenario, trial, attempt)."""

    def __init__(self, config: Any, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.count = 0

    def maybe_cut(self, text: str, start_ms: float, end_ms: float) -> Cut | None:
        if self.count >= self.config.max_per_call or not eligible(text):
            return None
        if self.rng.random() >= self.config.probability:
            return None
        cut = plan_cut(text, start_ms, end_ms, tuple(self.config.overlap_s), self.rng)
        if cut is not None:
            self.count += 1
        return cut

    def interjection(self, cut: Cut, previous_caller_text: str) -> str:
        from evalkit.simulator.interjections import interjection

        return interjection(self.config.type, self.rng, cut.delivered, previous_caller_text)
