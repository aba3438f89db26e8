"""The caller's voice for a cell: a pool of speakers (accent x gender), the persona's rate/pitch/pauses on top.

A conversation's speaker is chosen deterministically from the scenario, never from a random draw, so the same
scenario is spoken by the same speaker in every cell and a perturbed cell compares like with like:
``assignment="gender"`` takes the speaker whose gender matches the scenario persona's gender (falling back to
the hash rule when none matches), ``assignment="hash"`` takes speaker ``sha256(scenario id) mod n``.

What does vary is the persona's prosody jitter (issue 17): each utterance of a trial is said at a rate and pitch
drawn from that turn's seeded rng around the speaker's nominal ones (``CallerVoice.vary``), so two trials of a
scenario sound different and the same seed sounds the same, bit for bit.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.speech.accents import ACCENTS, AccentedTTS
from evalkit.speech.tts import EspeakTTS

__all__ = ["CallerVoice", "Prosody", "Speaker", "UserVoice", "pick_speaker"]

Synthesize = Callable[[str], tuple[np.ndarray, int]]
ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)+\s*")


@dataclass(frozen=True)
class Speaker:
    """One voice of the pool. ``at(rate_wpm, pitch)`` (when given) speaks the same voice at another rate and pitch:
    how a trial's prosody jitter is rendered around the nominal ``rate_wpm`` / ``pitch``."""

    id: str
    gender: str | None
    synthesize: Synthesize
    rate_wpm: int | None = None
    pitch: int | None = None
    at: Callable[[int, int], Synthesize] | None = None


@dataclass(frozen=True)
class Prosody:
    """The per-utterance jitter of a persona (issue 17): rate × (1 ± ``rate_pct`` / 100), pitch ± ``pitch``."""

    rate_pct: float = 0.0
    pitch: int = 0

    @classmethod
    def from_persona(cls, persona: Any) -> Prosody:
        variation = getattr(persona, "variation", None)
        if variation is None or not variation.enabled:
            return cls()
        return cls(variation.rate_jitter_pct, variation.pitch_jitter)

    def draw(self, rate_wpm: int, pitch: int, rng: np.random.Generator) -> tuple[int, int]:
        """(rate, pitch) for one utterance; a knob at zero draws nothing. The rate stays inside
        ``evalkit.config.variation.jittered_rate`` (what the persona's bounds were checked against)."""
        if self.rate_pct > 0:
            rate_wpm = round(rate_wpm * (1 + float(rng.uniform(-1.0, 1.0)) * self.rate_pct / 100))
        if self.pitch > 0:
            pitch = pitch + int(rng.integers(-self.pitch, self.pitch + 1))
        return rate_wpm, pitch


class CallerVoice:
    """A scenario's speaker in a cell: ``voice(text)`` speaks at the nominal rate and pitch; ``vary(text, rng)``
    draws this utterance's rate and pitch from the turn's rng and says which it used."""

    def __init__(self, speaker: Speaker, prosody: Prosody) -> None:
        self.speaker = speaker
        self.prosody = prosody

    def __call__(self, text: str) -> tuple[np.ndarray, int]:
        return self.speaker.synthesize(text)

    def vary(self, text: str, rng: np.random.Generator) -> tuple[np.ndarray, int, dict[str, float]]:
        """A speaker without a pitch knob (a remote voice: ``pitch`` None) varies in rate only; its pitch draw is
        still made, so the turn's stream is consumed alike, but neither applied nor reported."""
        speaker = self.speaker
        if speaker.at is None or speaker.rate_wpm is None:
            return (*speaker.synthesize(text), {})
        nominal_pitch = 0 if speaker.pitch is None else speaker.pitch
        rate_wpm, pitch = self.prosody.draw(speaker.rate_wpm, nominal_pitch, rng)
        if speaker.pitch is None:
            pitch = nominal_pitch
        synthesize = speaker.synthesize if (rate_wpm, pitch) == (speaker.rate_wpm, nominal_pitch) else None
        audio, rate = (synthesize or speaker.at(rate_wpm, pitch))(text)
        drawn = {"rate_wpm": float(rate_wpm)}
        if speaker.pitch is not None:
            drawn["pitch"] = float(pitch)
        return audio, rate, drawn


def pick_speaker(speakers: list[Speaker], scenario_id: str, gender: str | None, assignment: str) -> Speaker:
    """The speaker for a scenario (see the module docstring): deterministic and stable across processes."""
    by_hash = speakers[int(hashlib.sha256(scenario_id.encode("utf-8")).hexdigest(), 16) % len(speakers)]
    if assignment == "gender":
        matching = [s for s in speakers if s.gender == gender]
        if matching:
            return matching[0]
    return by_hash


def with_pauses(synthesize: Synthesize, pause_ms: int) -> Synthesize:
    """Speak each '...'-separated piece and put ``pause_ms`` of silence between them (eSpeak's own ellipsis
    pause is short; an elderly or searching caller's is not)."""
    if pause_ms <= 0:
        return synthesize

    def speak(text: str) -> tuple[np.ndarray, int]:
        pieces = [p for p in ELLIPSIS.split(text) if p.strip()]
        if len(pieces) <= 1:
            return synthesize(text)
        clips: list[np.ndarray] = []
        rate = 0
        for i, piece in enumerate(pieces):
            audio, rate = synthesize(piece + ("..." if i < len(pieces) - 1 else ""))
            clips.append(audio)
            if i < len(pieces) - 1:
                clips.append(np.zeros(int(rate * pause_ms / 1000), dtype=np.float32))
        return np.concatenate(clips).astype(np.float32, copy=False), rate

    return speak


class UserVoice:
    """How the caller sounds in a cell, plus the persona the simulator plays (handed over by the orchestrator).

    Callable like a plain ``synthesize(text)`` (first speaker) so older callers keep working;
    ``for_scenario`` gives the scenario's own speaker.
    """

    def __init__(self, speakers: list[Speaker], assignment: str = "gender", persona: Any = None) -> None:
        if not speakers:
            raise ValueError("a voice needs at least one speaker")
        self.speakers = speakers
        self.assignment = assignment
        self.persona = persona

    @classmethod
    def from_config(cls, voice: Any, persona: Any) -> UserVoice:
        """From ``VoiceConfig`` + ``PersonaConfig``: persona rate overrides, pitch shifts, gaps and pauses apply;
        the persona's variation jitters rate and pitch per utterance (``CallerVoice.vary``)."""
        speakers = []
        prosody = voice.nominal_prosody(persona)
        for spec in voice.speakers:
            rate, pitch = prosody[spec.id]
            if voice.method == "phonemes":
                base = spec.espeak_voice.partition("+")[0]
                accent = ACCENTS[voice.accent]
                if base != accent.voice:
                    raise ValueError(
                        f"voice {voice.name!r} speaker {spec.id!r}: accent {voice.accent!r} is spoken by eSpeak "
                        f"voice {accent.voice!r} (+variant), not {spec.espeak_voice!r}"
                    )
            at = _speaker_at(voice, spec.espeak_voice, persona.word_gap_ms, persona.pause_ms)
            speakers.append(Speaker(spec.id, spec.gender, at(rate, pitch), rate, pitch, at))
        return cls(speakers, voice.assignment, persona)

    def for_scenario(self, scenario: Any) -> CallerVoice:
        gender = getattr(getattr(scenario, "persona", None), "gender", None)
        speaker = pick_speaker(self.speakers, scenario.id, gender, self.assignment)
        return CallerVoice(speaker, Prosody.from_persona(self.persona))

    def __call__(self, text: str) -> tuple[np.ndarray, int]:
        return self.speakers[0].synthesize(text)


def _speaker_at(voice: Any, espeak_voice: str, word_gap_ms: int, pause_ms: int) -> Callable[[int, int], Synthesize]:
    """Speaker ``espeak_voice`` of ``voice`` at any (rate, pitch): engines are cheap but cached per pair, since a
    persona's jitter revisits a handful of values."""

    @functools.lru_cache(maxsize=64)
    def at(rate_wpm: int, pitch: int) -> Synthesize:
        if voice.method == "phonemes":
            _, _, variant = espeak_voice.partition("+")
            tts: Any = AccentedTTS(ACCENTS[voice.accent], variant, rate_wpm, pitch, word_gap_ms)
        else:
            tts = EspeakTTS(espeak_voice, rate_wpm, pitch, word_gap_ms)
        return with_pauses(tts.synthesize, pause_ms)

    return at
