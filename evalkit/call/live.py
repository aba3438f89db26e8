"""IHBench interruptions on a live stream: a wire agent on a real clock, cut into while it talks. The call loop
(evalkit.call.loop) asks a ``WireCutter`` to plan a cut once the agent's turn text is in, hands the turn back at
the cut's onset, and ``cut_live`` runs the caller's interjection over the agent's stream and measures what the
agent did (``measured_cut``: when it fell silent, what the caller heard, whether it talked over the caller).

An agent that sends audio only (no transcript: a phone bot) is cut on its audio as it plays (``AudioCutPlanner``):
the session's frame VAD hands over voiced chunks stamped with their arrival, and the gaps between them are the
caller's only view of the agent's words (a gap of ``WORD_GAP_MS``) and sentences (a pause of
``SEGMENT_PAUSE_MS``: a sentence-equivalent ends). With no lookahead (a phone bot sends its audio at the pace it
plays: pipecat's transports do) the caller cannot know the sentence-equivalent under way is not the agent's last,
so it cuts only once an earlier one has ended (never into a one-segment turn), at the start of a later word (the
agent is then known to be still talking). The cut is drawn, and its interjection synthesized, when the turn's
first audio arrives: a person has their "wait—" ready while listening, and a second sentence of a phone bot lasts
1-3 s, less than synthesis takes on a busy machine. A turn that ends after one sentence-equivalent withdraws the
cut (never counted); a cut planned but not made before the turn ended is dropped (counted).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from evalkit.call.channel import SPOKEN_WORDS_PER_S, UserSpeech, text_duration_ms
from evalkit.call.events import AgentSpeech
from evalkit.call.interrupt import Cut, Interrupter, measured_cut


@dataclass
class PlannedCut:
    """A cut planned on a live stream: the caller's interjection is synthesized while the agent still talks."""

    cut: Cut
    text: str
    speech: asyncio.Future[UserSpeech]


ONSET = "onset"  # the planned onset of the caller's interjection has come (agent_turn)
LIVE_CUT_LEAD_MS = 150.0  # a live cut is planned at least this far ahead: time to synthesize the interjection
# A pause this long between the agent's voiced chunks ends a sentence-equivalent (speech pauses between sentences
# run 250-700 ms; inside a sentence they are mostly shorter); a gap of WORD_GAP_MS (two 20 ms frames without voice)
# is a word-like boundary: one unvoiced frame happens inside words.
SEGMENT_PAUSE_MS = 250.0
WORD_GAP_MS = 40.0
# IHBench draws the cut word uniformly within the sentence; with no words known, the caller lets 0..MAX_WORDS_SKIPPED
# word boundaries pass (drawn) after its interjection is ready, then cuts in at the next. Connected speech often has
# no silent gap between words (a phone bot's eSpeak NG voice has none: measured on pipecat's bots), so a word also
# passes with a spoken word's time, as a listener counts words it cannot separate.
MAX_WORDS_SKIPPED = 2
SPOKEN_WORD_MS = 1000.0 / SPOKEN_WORDS_PER_S


class WireCutter:
    """IHBench interruptions on a live stream (a wire agent on a real clock). The cut is planned with the same
    ``plan_cut`` once the agent's turn text is in, at a word boundary of it, placed on the turn's audio by the
    duration the agent announces (else a spoken-rate estimate); the interjection is synthesized at once and sent
    from the onset while the agent's audio keeps coming. What the agent does then is its own: measured."""

    def __init__(self, interrupter: Interrupter) -> None:
        self.interrupter = interrupter
        self.caller_text = ""  # the caller's previous utterance (a restated correction says it again)

    def plan(self, call: Any, chunks: list[tuple[float, AgentSpeech]]) -> PlannedCut | None:
        text = " ".join(s.text for _, s in chunks if s.text)
        start_ms = chunks[0][0]
        announced = next((s.duration_ms for _, s in chunks if s.duration_ms), None)
        duration = announced or text_duration_ms(text)
        not_before = call.clock.now_ms + LIVE_CUT_LEAD_MS
        cut = self.interrupter.maybe_cut(text, start_ms, start_ms + duration, not_before_ms=not_before)
        if cut is None:
            return None
        said = self.interrupter.interjection(cut, self.caller_text)
        # the interjection's turn comes right after the agent's (which is recorded first)
        speech = asyncio.ensure_future(asyncio.to_thread(call.channel.say, said, len(call.turns) + 1, cut.onset_ms))
        return PlannedCut(cut, said, speech)

    def plan_unheard(self, call: Any, now_ms: float) -> PlannedCut | None:
        """A cut into a turn known only as audio (``AudioCutPlanner``): drawn now, the interjection synthesized at
        once; the onset is set when the caller cuts in."""
        cut = self.interrupter.maybe_cut_unheard(now_ms)
        if cut is None:
            return None
        said = self.interrupter.interjection(cut, self.caller_text)
        speech = asyncio.ensure_future(asyncio.to_thread(call.channel.say, said, len(call.turns) + 1, now_ms))
        return PlannedCut(cut, said, speech)

    def withdraw(self, planned: PlannedCut) -> None:
        """A cut drawn ahead on a turn that proved not to be cuttable (one sentence-equivalent, or its text came in
        and the cut was planned on the text): as if never drawn, a correction still to be made."""
        planned.speech.cancel()
        self.interrupter.count -= 1
        self.interrupter.planned -= 1
        if planned.cut.corrects is not None:
            self.interrupter.pending = planned.cut.corrects

    def drop(self, planned: PlannedCut) -> None:
        """A planned cut that never happened (the agent finished first): a correction stays to be made."""
        planned.speech.cancel()
        self.interrupter.count -= 1
        self.interrupter.dropped += 1
        if planned.cut.corrects is not None:
            self.interrupter.pending = planned.cut.corrects


def gap_kind(gap_ms: float) -> str:
    """What a gap between two voiced chunks of the agent is: 'segment' (a sentence-equivalent ended), 'word' (a
    word-like boundary) or '' (inside a word)."""
    if gap_ms >= SEGMENT_PAUSE_MS:
        return "segment"
    return "word" if gap_ms >= WORD_GAP_MS else ""


class AudioCutPlanner:
    """The caller's cut into one agent turn that comes with audio and no text, decided on the voiced chunks as they
    play (``hear``): the cut is drawn (the interrupter's probability and overlap range) and its interjection
    synthesized at the turn's first voiced chunk; once a sentence-equivalent has ended and the next has begun, the
    interjection ready and the drawn number of word boundaries passed, the caller cuts in at the next word's start.
    ``decided``: the turn is known to hold more than one sentence-equivalent (the audio owns the cut)."""

    def __init__(self, cutter: WireCutter) -> None:
        self.cutter = cutter
        self.last_end_ms: float | None = None  # when the last voiced chunk finished playing
        self.segments_ended = 0
        self.decided = False
        self.planned: PlannedCut | None = None
        self.skip = 0  # word boundaries still to let pass before cutting in
        self.due_ms = 0.0  # or until then: the skipped words' spoken time from the later sentence-equivalent's start

    def hear(self, call: Any, at_ms: float, duration_ms: float) -> PlannedCut | None:
        """A voiced chunk that started playing at ``at_ms``; returns the planned cut when the caller cuts in now."""
        previous, self.last_end_ms = self.last_end_ms, max(at_ms + duration_ms, self.last_end_ms or 0.0)
        if previous is None:  # the turn's first audio: the cut is drawn now, its interjection made while listening
            self.planned = self.cutter.plan_unheard(call, at_ms)
            if self.planned is not None:
                self.skip = int(self.cutter.interrupter.rng.integers(MAX_WORDS_SKIPPED + 1))
            return None
        kind = gap_kind(at_ms - previous)
        starts_later_segment = kind == "segment" and self.segments_ended == 0
        if kind == "segment":
            self.segments_ended += 1
            self.due_ms = at_ms + self.skip * SPOKEN_WORD_MS if starts_later_segment else self.due_ms
        if self.segments_ended == 0:  # still the first sentence-equivalent: it may be the turn's only one
            return None
        self.decided = True
        if self.planned is None or not self.planned.speech.done():
            return None
        if not ((kind and self.skip == 0) or at_ms >= self.due_ms):  # at a word's start, or the words' time is up
            self.skip -= bool(kind and self.skip > 0 and not starts_later_segment)
            return None
        planned, self.planned = self.planned, None
        return replace(planned, cut=replace(planned.cut, onset_ms=at_ms))

    def let_go(self) -> None:
        """The turn ended, or its text came in and the cut is planned on the text: a cut drawn on a turn not yet
        known to hold two sentence-equivalents is withdrawn; one that was due is dropped."""
        if self.planned is None:
            return
        if self.decided:
            self.cutter.drop(self.planned)
        else:
            self.cutter.withdraw(self.planned)
        self.planned = None


async def cut_live(call: Any, partial: Any, check: Callable[[Any], None]) -> tuple[Any, Cut, str, UserSpeech]:
    """The caller talks over the agent's live stream from the planned onset; the rest of the agent's turn is
    received meanwhile and after. The cut is measured on what was received: when the agent fell silent (the end of
    its last audio), what of its text that covers, and whether it stopped before the caller's interjection ended."""
    planned = partial.planned
    assert planned is not None
    speech = await planned.speech
    if call.clock.now_ms > speech.start_ms:  # the voice was late (a busy machine): it starts now
        speech = speech.delayed(call.clock.now_ms - speech.start_ms)
    speech = call.line.aligned(speech)  # on the line's frame grid
    await call.speak_to_agent(speech)
    rest = await call.agent_turn(live_cuts=False, check=False)
    whole = replace(
        partial, chunks=partial.chunks + rest.chunks, end_call=rest.end_call, interrupted=True,
        ended_at_ms=rest.ended_at_ms, planned=None,
    )  # fmt: skip
    check(whole)  # unusable audio fails the call (the loop's check_agent_audio)
    voiced = [(at, s.audio) for at, s in whole.chunks if s.audio is not None and s.audio.samples.size]
    silent_ms = max((at + a.duration_s * 1000.0 for at, a in voiced), default=whole.start_ms)
    announced = next((s.duration_ms for s in whole.speech if s.duration_ms), None)
    duration = announced or text_duration_ms(whole.text)
    heard = [s.text_source for s in whole.speech if s.text]
    if planned.cut.on_audio and not announced and heard and all(source == "caller_asr" for source in heard):
        # the caller's own transcript of what it heard: every word of it was delivered, what was not said is unknown
        duration = max(1.0, silent_ms - whole.start_ms)
    onset = replace(planned.cut, onset_ms=speech.start_ms)
    cut = measured_cut(onset, whole.text, whole.start_ms, duration, silent_ms, speech.end_ms)
    return whole, cut, planned.text, speech
