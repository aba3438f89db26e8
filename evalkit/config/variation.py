"""How one trial of a scenario differs from another (issue 17), and where a persona's caller must stay.

A persona's ``variation`` switches on the per-trial draws (the caller's wording among paraphrases, the reaction time
before each turn, the speaking rate and pitch of each utterance); its ``bounds`` are the range the persona's caller
lives in. Every draw comes from ``SeedSequence(cell seed, scenario, trial[, attempt], turn)``, so the same seed
replays a trial bit for bit while two trials of one scenario differ.

The nominal value each jitter is drawn around lives where it always did (the voice's or the persona's rate, the
speaker's pitch plus the persona's shift, the simulator's ``user_reaction_ms``), so a jitter that would leave the
persona's bounds can only be found with the whole config at hand: :func:`bounds_errors` is run by ``RunConfig``.

:func:`random_sources` says what in a config varies from trial to trial at all. A config with none (variation off,
a persona without random behaviour, the scripted simulator, greedy ASR, a clean channel) runs one trial, not k
identical copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from evalkit.config.schema import RunConfig

ESPEAK_RATE_WPM = (80, 450)  # what eSpeak NG accepts (and what the voice configs validate against)
ESPEAK_PITCH = (0, 99)


class PersonaVariationConfig(BaseModel):
    """What varies between two trials of a scenario (all off when ``enabled`` is false)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=False, description="false: every trial of a scenario says and sounds the same")
    paraphrase: bool = Field(default=False, description="the caller's wording drawn among curated paraphrases")
    reaction_jitter_ms: float = Field(
        default=0.0, ge=0.0, le=5000.0, description="each turn starts simulator.user_reaction_ms ± this after the agent"
    )
    rate_jitter_pct: float = Field(
        default=0.0, ge=0.0, le=50.0, description="each utterance at the speaker's rate × (1 ± this / 100)"
    )
    pitch_jitter: int = Field(default=0, ge=0, le=30, description="each utterance at the speaker's pitch ± this")

    def active(self) -> dict[str, bool]:
        """Which draws actually happen (a switch that is on but has nothing to draw is off)."""
        on = self.enabled
        return {
            "caller wording (persona.variation.paraphrase)": on and self.paraphrase,
            "reaction time (persona.variation.reaction_jitter_ms)": on and self.reaction_jitter_ms > 0,
            "speaking rate (persona.variation.rate_jitter_pct)": on and self.rate_jitter_pct > 0,
            "pitch (persona.variation.pitch_jitter)": on and self.pitch_jitter > 0,
        }


class PersonaBoundsConfig(BaseModel):
    """The persona's range: what its caller can sound like. Nominal values ± their jitter must stay inside."""

    model_config = ConfigDict(extra="forbid")

    rate_wpm: tuple[int, int] = ESPEAK_RATE_WPM  # [low, high] words per minute every drawn rate must stay in
    pitch: tuple[int, int] = ESPEAK_PITCH  # [low, high] eSpeak pitch every drawn pitch must stay in
    reaction_ms: tuple[float, float] = (0.0, 10_000.0)  # [low, high] ms every drawn reaction time must stay in

    @model_validator(mode="after")
    def _ordered_and_possible(self) -> PersonaBoundsConfig:
        for name, (low, high), (floor, ceiling) in (
            ("rate_wpm", self.rate_wpm, ESPEAK_RATE_WPM),
            ("pitch", self.pitch, ESPEAK_PITCH),
            ("reaction_ms", self.reaction_ms, (0.0, float("inf"))),
        ):
            if low > high:
                raise ValueError(f"bounds.{name} [{low}, {high}]: the lower bound is above the upper one")
            if low < floor or high > ceiling:
                raise ValueError(f"bounds.{name} [{low}, {high}] leaves what is possible [{floor}, {ceiling}]")
        return self


def jittered_rate(nominal: int, pct: float) -> tuple[int, int]:
    """The slowest and fastest rate a draw can give (the rule :func:`draw_rate` follows)."""
    return round(nominal * (1 - pct / 100)), round(nominal * (1 + pct / 100))


def bounds_errors(persona: Any, voice: Any, simulator: Any) -> list[str]:
    """One message per jitter that would take the caller outside the persona's bounds (empty: all inside)."""
    variation, bounds = persona.variation, persona.bounds
    if not variation.enabled:
        return []
    errors = []
    reaction = simulator.user_reaction_ms
    ranges = {"simulator.user_reaction_ms": (reaction - variation.reaction_jitter_ms,
                                             reaction + variation.reaction_jitter_ms, reaction)}  # fmt: skip
    errors += _outside("reaction_jitter_ms", variation.reaction_jitter_ms, "reaction_ms", bounds.reaction_ms, ranges)
    speakers = {f"speaker {s!r} of voice {voice.name!r}": v for s, v in voice.nominal_prosody(persona).items()}
    rates = {s: (*jittered_rate(r, variation.rate_jitter_pct), r) for s, (r, _) in speakers.items()}
    errors += _outside("rate_jitter_pct", variation.rate_jitter_pct, "rate_wpm", bounds.rate_wpm, rates)
    jitter = variation.pitch_jitter
    pitches = {s: (p - jitter, p + jitter, p) for s, (_, p) in speakers.items() if p is not None}  # None: no knob
    errors += _outside("pitch_jitter", jitter, "pitch", bounds.pitch, pitches)
    return errors


def _outside(knob: str, value: float, bound: str, limits: tuple[float, float], ranges: dict[str, tuple]) -> list[str]:
    """The message for one jitter knob whose draws leave ``limits`` for some nominal values (else nothing)."""
    bad = [f"{who}: {low:g} to {high:g} around {nominal:g}" for who, (low, high, nominal) in ranges.items()
           if low < limits[0] or high > limits[1]]  # fmt: skip
    if not bad:
        return []
    return [
        f"variation.{knob}={value:g} leaves the persona's bounds.{bound} [{limits[0]:g}, {limits[1]:g}] ("
        + "; ".join(bad)
        + "): lower the jitter or widen the bounds"
    ]


def persona_random_sources(persona: Any) -> list[str]:
    """The persona's own draws: its variation, and behaviour knobs that draw from the conversation's rng (see
    ``evalkit.simulator.scripted.style.PersonaStyle``: a knob at zero draws nothing)."""
    sources = [name for name, on in persona.variation.active().items() if on]
    behaviour = persona.behaviour
    if behaviour.caps > 0 or behaviour.disfluency > 0 or behaviour.self_correct > 0:
        sources.append("persona behaviour (caps, disfluency, self-correction)")
    if behaviour.ask_repeat > 0 and behaviour.max_repeat_requests > 0:
        sources.append("persona behaviour (repeat requests)")
    if behaviour.frustration:
        sources.append("persona behaviour (frustration remarks)")
    if persona.level == "hard":
        sources.append("persona level hard (vague first answers)")
    return sources


def random_sources(config: RunConfig) -> list[str]:
    """Everything in a cell that varies from one trial of a scenario to the next. A component kind that does not
    declare itself deterministic (``random_sources`` on its config) counts as random."""
    sources = persona_random_sources(config.persona)
    sources += [f"simulator: {s}" for s in config.simulator.random_sources()]
    if config.modality.name == "text":  # no caller voice, agent ASR or TTS: only the caller's words and timing vary
        return [s for s in sources if not s.startswith(("speaking rate", "pitch"))]
    sources += [f"voice: {s}" for s in config.voice.random_sources()]
    sources += [f"agent: {s}" for s in config.agent.random_sources()]
    if config.perturb is not None:
        sources.append(f"perturbation chain {config.perturb.name!r} (seeded per turn)")
    return sources
