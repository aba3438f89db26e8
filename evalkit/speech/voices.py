"""The caller's voice for a cell: a pool of speakers (accent x gender), the persona's rate/pitch/pauses on top.

A conversation's speaker is chosen deterministically from the scenario, never from a random draw, so the same
scenario is spoken by the same speaker in every cell and a perturbed cell compares like with like:
``assignment="gender"`` takes the speaker whose gender matches the scenario persona's gender (falling back to
the hash rule when none matches), ``assignment="hash"`` takes speaker ``sha256(scenario id) mod n``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.speech.accents import ACCENTS, AccentedTTS
from evalkit.speech.tts import EspeakTTS

__all__ = ["Speaker", "UserVoice", "pick_speaker"]

Synthesize = Callable[[str], tuple[np.ndarray, int]]
ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)+\s*")


@dataclass(frozen=True)
class Speaker:
    id: str
    gender: str | None
    synthesize: Synthesize


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
        """From ``VoiceConfig`` + ``PersonaConfig``: persona rate overrides, pitch shifts, gaps and pauses apply."""
        speakers = []
        for spec in voice.speakers:
            rate = persona.rate_wpm or spec.rate_wpm or voice.rate_wpm
            pitch = max(0, min(99, spec.pitch + persona.pitch_shift))
            if voice.method == "phonemes":
                base, _, variant = spec.espeak_voice.partition("+")
                accent = ACCENTS[voice.accent]
                if base != accent.voice:
                    raise ValueError(
                        f"voice {voice.name!r} speaker {spec.id!r}: accent {voice.accent!r} is spoken by eSpeak "
                        f"voice {accent.voice!r} (+variant), not {spec.espeak_voice!r}"
                    )
                tts: Any = AccentedTTS(accent, variant, rate, pitch, persona.word_gap_ms)
            else:
                tts = EspeakTTS(spec.espeak_voice, rate, pitch, persona.word_gap_ms)
            speakers.append(Speaker(spec.id, spec.gender, with_pauses(tts.synthesize, persona.pause_ms)))
        return cls(speakers, voice.assignment, persona)

    def for_scenario(self, scenario: Any) -> Synthesize:
        gender = getattr(getattr(scenario, "persona", None), "gender", None)
        return pick_speaker(self.speakers, scenario.id, gender, self.assignment).synthesize

    def __call__(self, text: str) -> tuple[np.ndarray, int]:
        return self.speakers[0].synthesize(text)
