"""The caller's channel: how an utterance of the simulator becomes what the agent receives.

- ``AudioChannel``: the caller's voice (TTS) then the seeded perturbation chain, user side only (EVA-Bench App. G):
  the agent gets the degraded audio; both clips and the applied effects are recorded.
- ``TextChannel``: a perfect (or a given text-level ``ear``) text channel: MM-τ-p²'s text modality and the fast
  reference for dialogue logic. An utterance lasts as long as it would take to say at ``words_per_s``.

Both place the utterance on the call's timeline (``start_ms``), so call-level effects stay continuous.

Line ops of the condition (network delay both ways, speakerphone echo: evalkit.call.line_effects) act on the call:
``say`` places the utterance the round trip later and mixes in the echo of the agent's audio that lands there,
``fill`` mixes it into the open line, and the loop hands the channel the agent's audio (``hear_agent``).

Between the caller's utterances the line stays open (evalkit.call.line): ``AudioChannel.fill`` is what the agent
hears there, the perturbation chain applied to silence. A noise bed goes on at the level the condition gives it under
the caller's speech: the chain is told the active speech power of the caller's latest utterance (before the first
one, ``NOMINAL_SPEECH_DBFS``), and mixes the bed at the condition's SNR against it; a clean line is digital silence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalkit.call.events import Frame
from evalkit.call.line_effects import LineEffects
from evalkit.records import AppliedEffect, AudioClip
from evalkit.seeds import derive_seed, rng_for
from perturbations import ClipContext
from perturbations.mixing import signal_power

# perturbations.Chain: (audio, rate, rng, ClipContext) -> (audio, effect entries relative to the clip start)
Perturb = Callable[[np.ndarray, int, np.random.Generator, ClipContext], tuple[np.ndarray, list[dict[str, Any]]]]
Synthesize = Callable[[str], tuple[np.ndarray, int]]
Ear = Callable[[str], str]
SPOKEN_WORDS_PER_S = 2.5  # 150 words per minute: how long a text-channel utterance takes
# The caller's speech level before it has said anything (the bed under a greeting wait): ITU-T P.56's nominal
# active speech level on a telephone line, -26 dBFS, as mean power re digital full scale.
NOMINAL_SPEECH_DBFS = -26.0


@dataclass
class UserSpeech:
    """One caller utterance on the call: its span, what is sent to the agent, and what the record keeps."""

    start_ms: float
    end_ms: float
    frames: Callable[[float | None], list[Frame]]  # frame length in ms (None: the whole turn as one frame)
    effects: list[AppliedEffect] = field(default_factory=list)
    seed: int | None = None
    audio_names: dict[str, str] = field(default_factory=dict)
    clips: dict[str, AudioClip] = field(default_factory=dict)
    variation: dict[str, float] = field(default_factory=dict)  # this utterance's draws (rate, pitch: issue 17)

    def delayed(self, ms: float) -> UserSpeech:
        """The same utterance ``ms`` later on the timeline (its audio unchanged, its effects moved with it)."""
        moved = [e.model_copy(update={"start_ms": e.start_ms + ms, "end_ms": e.end_ms + ms}) for e in self.effects]
        return dataclasses.replace(self, start_ms=self.start_ms + ms, end_ms=self.end_ms + ms, effects=moved)


def play_agent(channel: Any, start_ms: float, clip: AudioClip) -> None:
    """A piece of the agent's audio comes out of the caller's phone: a channel with line effects hears it."""
    hear = getattr(channel, "hear_agent", None)
    if hear is not None:
        hear(start_ms, clip.samples, clip.sample_rate)


def agent_played(
    channel: Any, turn: int, start_ms: float, end_ms: float, clip: AudioClip | None
) -> list[AppliedEffect]:
    """The agent's turn ``[start_ms, end_ms)`` has been played (``clip``: play it now, a turn-based agent's; None:
    its pieces were played as they came, a live stream's); what the line did with it (its echo), for its record."""
    if clip is not None:
        play_agent(channel, start_ms, clip)
    effects = getattr(channel, "agent_turn_effects", None)
    return effects(turn, start_ms, end_ms) if effects is not None else []


def effect_entries(applied: list[dict[str, Any]], turn: int, offset_ms: float) -> list[AppliedEffect]:
    return [
        AppliedEffect(
            type=e["type"],
            participant="user",
            turn=turn,
            start_ms=offset_ms + float(e.get("start_ms", 0.0)),
            end_ms=offset_ms + float(e.get("end_ms", 0.0)),
            params=e.get("params", {}),
        )
        for e in applied
    ]


def audio_frames(samples: np.ndarray, sample_rate: int, frame_ms: float | None) -> list[Frame]:
    if frame_ms is None:
        return [Frame(samples=samples, sample_rate=sample_rate)]
    step = max(1, round(sample_rate * frame_ms / 1000.0))
    return [Frame(samples=samples[i : i + step], sample_rate=sample_rate) for i in range(0, len(samples), step)]


class AudioChannel:
    """TTS -> perturbation chain. Seeds: per turn ``(cell seed, *keys, turn)``; call-level effects share one call
    seed, so SNR drift and timed events continue across turns. A voice that can ``vary`` (the persona's rate and
    pitch jitter) draws from its own per-turn stream ``(cell seed, *keys, turn, "voice")``, so the perturbation
    streams are the ones they were before voices varied."""

    def __init__(self, user_tts: Synthesize, perturb: Perturb, cell_seed: int, keys: tuple[int | str, ...]) -> None:
        self.user_tts = user_tts
        self.perturb = perturb
        self.cell_seed = cell_seed
        self.keys = keys
        self.call_seed = derive_seed(cell_seed, *keys, "call")
        self.speech_power = 10.0 ** (NOMINAL_SPEECH_DBFS / 10.0)  # the latest utterance's active power (fill)
        self.clip_chain = bool(getattr(perturb, "clip_ops", getattr(perturb, "ops", (None,))))
        self.line_effects = LineEffects(tuple(getattr(perturb, "line_ops", ())), cell_seed, keys)
        # no clip ops and no echo: the gaps are digital zero
        self.silent_line = not self.clip_chain and self.line_effects.echo is None
        self.echo_in_fill = True  # a continuous line mixes the echo into its frames itself (live_echo)

    def live_echo(self) -> Callable[[np.ndarray, float, int], np.ndarray] | None:
        """For a continuous line (evalkit.call.line), which renders its bed ahead of time: the function that mixes
        the echo into each frame as it is sent, and ``fill`` stops mixing it (no echo: None)."""
        if self.line_effects.echo is None:
            return None
        self.echo_in_fill = False
        return lambda samples, start_ms, rate: self.line_effects.mix(samples, start_ms, rate)[0]

    def hear_agent(self, start_ms: float, samples: np.ndarray, sample_rate: int) -> None:
        """A piece of the agent's audio played on the caller's phone (its echo, if the condition has one)."""
        self.line_effects.hear_agent(start_ms, samples, sample_rate)

    def agent_turn_effects(self, turn: int, start_ms: float, end_ms: float) -> list[AppliedEffect]:
        """What the line did with the agent's turn (its echo), for the turn's record."""
        return self.line_effects.turn_effect(turn, start_ms, end_ms)

    def prepare_line(self, sample_rate: int) -> None:
        """The chain's one-off set-up for the line's rate (noise banks), before the line must run in real time."""
        prepare = getattr(self.perturb, "prepare", None)
        if prepare is not None and not self.silent_line:
            prepare(sample_rate)

    def fill(
        self, start_ms: float, duration_ms: float, sample_rate: int, key: tuple[int | str, ...] | None = None
    ) -> tuple[np.ndarray, list[AppliedEffect]]:
        """What the agent hears of the open line over ``[start_ms, start_ms + duration_ms)`` while the caller says
        nothing: the chain applied to silence there, its beds at the caller's speech level, through the same chain
        (``perturb``) as the caller's speech. Seeded by the stretch's start (in whole ms), so the same stretch of the
        same call is the same audio, or by ``key`` (the virtual clock's stretches before an utterance, whose start
        moves with the agent's measured compute time: evalkit.call.line)."""
        n = max(1, round(duration_ms / 1000.0 * sample_rate))
        silence = np.zeros(n, dtype=np.float32)
        if self.silent_line:
            return silence, []
        if not self.clip_chain:  # only the echo is on the line
            return (self.line_effects.mix(silence, start_ms, sample_rate)[0] if self.echo_in_fill else silence), []
        context = ClipContext(
            offset_ms=start_ms, call_seed=self.call_seed, participant="user", reference_power=self.speech_power
        )
        rng = rng_for(self.cell_seed, *self.keys, "line", *(key if key is not None else (int(start_ms),)))
        heard, applied = self.perturb(silence, sample_rate, rng, context)
        if self.echo_in_fill:
            heard, _limited = self.line_effects.mix(heard, start_ms, sample_rate)
        return heard, effect_entries(applied, -1, start_ms)

    def say(self, text: str, index: int, start_ms: float) -> UserSpeech:
        seed = derive_seed(self.cell_seed, *self.keys, index)
        vary = getattr(self.user_tts, "vary", None)
        if vary is not None:
            clean, rate, variation = vary(text, rng_for(self.cell_seed, *self.keys, index, "voice"))
        else:
            (clean, rate), variation = self.user_tts(text), {}
        delay = self.line_effects.utterance_delay(index)
        start_ms += delay["round_trip_ms"] if delay is not None else 0.0
        context = ClipContext(offset_ms=start_ms, call_seed=self.call_seed, participant="user")
        heard, applied = self.perturb(clean, rate, rng_for(self.cell_seed, *self.keys, index), context)
        heard, limited = self.line_effects.mix(heard, start_ms, rate)
        end_ms = start_ms + len(clean) / rate * 1000.0
        # the delay's own span: the stretch before the utterance that the round trip added
        line = (
            [{"type": "line_delay", "start_ms": -delay["round_trip_ms"], "end_ms": 0.0, "params": delay}]
            if delay
            else []
        )
        if limited:
            line.append({"type": "echo_limited", "start_ms": 0.0, "end_ms": end_ms - start_ms, "params": {}})
        power, _ = signal_power(np.asarray(clean, dtype=np.float32), rate)
        if power > 0.0:
            self.speech_power = power
        return UserSpeech(
            start_ms=start_ms,
            end_ms=end_ms,
            frames=lambda frame_ms: audio_frames(heard, rate, frame_ms),
            effects=effect_entries([*line, *applied], index, start_ms),
            seed=seed,
            audio_names={"user_clean": "user_clean.wav", "user_heard": "user_heard.wav"},
            clips={
                "user_clean": AudioClip(samples=clean, sample_rate=rate),
                "user_heard": AudioClip(samples=heard, sample_rate=rate),
            },
            variation=variation,
        )


class TextChannel:
    """Text as typed, through ``ear`` (identity: a perfect ear) when it is sent."""

    def __init__(self, ear: Ear = lambda text: text, words_per_s: float = SPOKEN_WORDS_PER_S) -> None:
        self.ear = ear
        self.words_per_s = words_per_s

    def say(self, text: str, index: int, start_ms: float) -> UserSpeech:
        return UserSpeech(
            start_ms=start_ms,
            end_ms=start_ms + text_duration_ms(text, self.words_per_s),
            frames=lambda frame_ms: [Frame(text=self.ear(text))],
        )


def text_duration_ms(text: str, words_per_s: float = SPOKEN_WORDS_PER_S) -> float:
    """How long the agent's text takes to say on a text channel (no audio to measure)."""
    return max(1, len(text.split())) / words_per_s * 1000.0
