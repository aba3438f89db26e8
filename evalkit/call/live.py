"""IHBench interruptions on a live stream: a wire agent on a real clock, cut into while it talks. The call loop
(evalkit.call.loop) asks a ``WireCutter`` to plan a cut once the agent's turn text is in, hands the turn back at
the cut's onset, and ``cut_live`` runs the caller's interjection over the agent's stream and measures what the
agent did (``measured_cut``: when it fell silent, what the caller heard, whether it talked over the caller).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from evalkit.call.channel import UserSpeech, text_duration_ms
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

    def drop(self, planned: PlannedCut) -> None:
        """A planned cut that never happened (the agent finished first): a correction stays to be made."""
        planned.speech.cancel()
        self.interrupter.count -= 1
        if planned.cut.corrects is not None:
            self.interrupter.pending = planned.cut.corrects


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
    onset = replace(planned.cut, onset_ms=speech.start_ms)
    cut = measured_cut(onset, whole.text, whole.start_ms, duration, silent_ms, speech.end_ms)
    return whole, cut, planned.text, speech
