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
from dataclasses import dataclass, replace
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
    # a correction of a value the caller gave wrong earlier: {"field", "right", "wrong"} (IHBench correction)
    corrects: dict[str, str] | None = None
    # a wire agent's own stop, measured on the audio received: it fell silent before the caller's interjection
    # ended (True) or talked over all of it (False); None: an in-process agent, stopped by the loop
    yielded: bool | None = None
    # planned on a wire agent's audio, the turn having no text (evalkit.call.live.AudioCutPlanner): cut_char is 0,
    # delivered/undelivered are empty or the caller's transcript of what it heard
    on_audio: bool = False


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


def measured_cut(
    planned: Cut, text: str, start_ms: float, duration_ms: float, silent_ms: float, caller_end_ms: float
) -> Cut:
    """The cut as it happened on a live stream: the caller started at the planned onset, the agent fell silent at
    ``silent_ms`` (its last audio received); what the caller heard is the text up to that point of its audio."""
    ms_per_char = duration_ms / max(1, len(text))
    delivered = delivered_at(text, int((silent_ms - start_ms) / ms_per_char)) if ms_per_char > 0 else text
    if not text.startswith(delivered):  # IHBench's invariant; a broken one is a harness bug, never scored
        raise ValueError(f"delivered {delivered!r} is not a prefix of the agent's text {text!r}")
    return replace(
        planned,
        stop_ms=max(planned.onset_ms, silent_ms),
        delivered=delivered,
        undelivered=text[len(delivered) :].strip(),
        yielded=silent_ms <= caller_end_ms,
    )


class Interrupter:
    """The caller's interruptions in one call: which agent turns are cut (seeded), where, and what the caller says.
    ``config``: an ``InterruptConfig``; ``rng``: the call's own generator (cell seed, scenario, trial, attempt).

    Corrections (IHBench: they need a value the caller gave before): with a caller that can slip (``hook``), the
    caller gives a first answer wrong (``wants_slip``: seeded, ``probability``), and the next eligible agent turn is
    cut to correct it; without one, a correction restates the caller's previous answer (nothing to take up)."""

    def __init__(self, config: Any, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.count = 0  # cuts made so far (a dropped one is given back): capped by max_per_call
        self.planned = 0  # cuts planned, made or not
        self.dropped = 0  # planned on a live stream, never made: the agent fell silent before the onset
        self.slips = False  # the caller plants wrong values for corrections
        self.pending: dict[str, str] | None = None  # a wrong value said and not corrected yet

    def hook(self, caller: Any) -> None:
        """Let a caller that can slip (the scripted one) plant wrong values for a correction call."""
        if self.config.type == "correction" and hasattr(caller, "slip"):
            caller.slip = self.wants_slip
            self.slips = True

    def wants_slip(self, field: str, value: str) -> bool:
        if self.pending is not None or self.count >= self.config.max_per_call:
            return False
        return bool(self.rng.random() < self.config.probability)

    def heard_from(self, caller: Any) -> None:
        """After the caller spoke: a slip it just made is corrected at the next eligible agent turn."""
        slipped = getattr(caller, "slipped", None)
        if slipped is not None:
            field, right, wrong = slipped
            self.pending = {"field": field, "right": right, "wrong": wrong}
            caller.slipped = None

    def _wants_cut(self) -> bool:
        """The draw for one eligible agent turn: under the call's cap, and (a correction call) a wrong value to
        correct, else the type's ``probability``."""
        if self.count >= self.config.max_per_call:
            return False
        if self.slips:
            return self.pending is not None  # a correction needs a wrong value said before: corrected at once
        return bool(self.rng.random() < self.config.probability)

    def _take(self, cut: Cut) -> Cut:
        self.count += 1
        self.planned += 1
        if self.pending is not None:
            cut, self.pending = replace(cut, corrects=self.pending), None
        return cut

    def maybe_cut(self, text: str, start_ms: float, end_ms: float, not_before_ms: float | None = None) -> Cut | None:
        """``not_before_ms``: a live stream's now; a cut whose onset has passed already is not made."""
        if not eligible(text) or not self._wants_cut():
            return None
        cut = plan_cut(text, start_ms, end_ms, tuple(self.config.overlap_s), self.rng)
        if cut is None or (not_before_ms is not None and cut.onset_ms < not_before_ms):
            return None
        return self._take(cut)

    def maybe_cut_unheard(self, now_ms: float) -> Cut | None:
        """A cut into an agent turn known only as audio (a wire agent that sends no transcript), asked once the turn
        is known to hold more than one sentence-equivalent: the same draws as ``maybe_cut`` (the type's probability
        and overlap range) but no words to cut after. Its onset is a word boundary found on the audio later
        (evalkit.call.live.AudioCutPlanner); ``now_ms`` stands in until then. No text: nothing delivered yet."""
        if not self._wants_cut():
            return None
        overlap_s = float(self.rng.uniform(*self.config.overlap_s))
        return self._take(Cut(0, now_ms, overlap_s, now_ms + overlap_s * 1000.0, "", "", on_audio=True))

    def tally(self, delivered: int) -> dict[str, Any]:
        """What the condition did in this call (the record's ``interruptions``)."""
        return {"kind": self.config.type, "planned": self.planned, "dropped": self.dropped, "delivered": delivered}

    def interjection(self, cut: Cut, previous_caller_text: str) -> str:
        from evalkit.simulator.interjections import correction, interjection

        if cut.corrects is not None:
            return correction(self.rng, cut.corrects["field"], cut.corrects["right"])
        return interjection(self.config.type, self.rng, cut.delivered, previous_caller_text)
