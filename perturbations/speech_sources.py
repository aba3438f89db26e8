"""Pluggable speech sources for ``out_of_turn_speech``: name -> ``fn(text, sample_rate, rng) -> float array``.

The library itself ships one source that needs nothing external, "babble": a single procedural formant talker
that says roughly as many syllables as the text has (no words: it is meant to be heard as a voice in the
background, addressed to someone else, not understood). Applications register real TTS engines under their
own names (evalkit registers "espeak"), possibly after op configs were validated, which is why the op checks
the source name only when it runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
from scipy import signal as sps

from perturbations.audio import check_rng, check_sample_rate
from perturbations.environments.cafe import (
    F4_HZ,
    FRAME,
    MAX_FREQ,
    VOWELS,
    _istft,
    _stft,
    _tract_responses,
)
from perturbations.errors import PerturbationError

SpeechSource = Callable[[str, int, np.random.Generator], np.ndarray]

_SOURCES: dict[str, SpeechSource] = {}


def register_speech_source(name: str, fn: SpeechSource | None = None) -> SpeechSource | Callable[..., SpeechSource]:
    """``register_speech_source("espeak", fn)``, or as a decorator ``@register_speech_source("espeak")``.

    Re-registering a name replaces the source (an application may swap engines at run time).
    """
    if not isinstance(name, str) or not name:
        raise PerturbationError(f"speech source name must be a non-empty string, got {name!r}")

    def decorate(source: SpeechSource) -> SpeechSource:
        if not callable(source):
            raise PerturbationError(f"speech source {name!r} must be callable, got {type(source).__name__}")
        _SOURCES[name] = source
        return source

    return decorate if fn is None else decorate(fn)


def available_speech_sources() -> list[str]:
    return sorted(_SOURCES)


def synthesize_speech(source: str, text: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """``text`` spoken by ``source``: float64, finite, 1-D (zeros if the source returned nothing usable)."""
    if source not in _SOURCES:
        raise PerturbationError(
            f"unknown speech source {source!r}; registered speech sources: {', '.join(available_speech_sources())}"
        )
    rate = check_sample_rate(sample_rate)
    out = np.asarray(_SOURCES[source](text, rate, check_rng(rng)), dtype=np.float64).reshape(-1)
    if out.size == 0 or not np.isfinite(out).all():
        raise PerturbationError(f"speech source {source!r} returned no finite audio for {text!r}")
    return out


# Letter -> vowel row of cafe.VOWELS (Peterson & Barney): a->æ, e->ɛ, i->ɪ, o->ɔ, u->ʌ, y->i; only so that the
# same text gives the same vowel sequence, not for intelligibility.
_VOWEL_OF = {"a": 3, "e": 2, "i": 1, "o": 5, "u": 8, "y": 0}
_SYLLABLE = re.compile(r"[^aeiouy]*[aeiouy]+")  # onset consonants + a vowel group, on a lower-cased word


def _syllables(text: str) -> list[tuple[int, bool, bool]]:
    """(vowel row, starts with a consonant, ends a word) per syllable: one per vowel group (trailing consonants
    are ignored); a word with no vowel letter ("hmm", "shh") is one syllable on a closed, nasal-like vowel."""
    out: list[tuple[int, bool, bool]] = []
    for word in re.findall(r"[^\W\d_]+", text.lower()):
        groups = _SYLLABLE.findall(word) or ["m"]
        for i, group in enumerate(groups):
            vowel = group.lstrip("bcdfghjklmnpqrstvwxz")
            row = _VOWEL_OF.get(vowel[:1], 7)  # 7: u as in "hmm": low F1/F2, nasal-ish
            out.append((row, group[0] not in "aeiouy", i == len(groups) - 1))
    return out or [(8, False, True)]


def formant_talker(text: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """The built-in "babble" source: one formant talker (the café babble's recipe, ``environments.cafe``, made
    text-driven): a syllable of 140-280 ms per vowel group, 40-120 ms gaps between words, a sawtooth source
    with declining F0 (male or female), Klatt cascade formants per syllable from the vowel letter, a 30-60 ms
    noise onset for consonant-initial syllables. Peak-normalised to 1."""
    syllables = _syllables(text)
    female = rng.random() < 0.5
    f0_base = rng.uniform(165.0, 250.0) if female else rng.uniform(90.0, 150.0)
    tract = rng.uniform(1.10, 1.22) if female else rng.uniform(0.94, 1.04)
    lengths = rng.uniform(0.14, 0.28, len(syllables))
    gaps = np.array([rng.uniform(0.04, 0.12) if last else 0.0 for _, _, last in syllables])
    starts = np.concatenate([[0.0], np.cumsum(lengths + gaps)[:-1]]) + 0.02
    n = max(1, round((starts[-1] + lengths[-1] + 0.05) * sample_rate))
    t = np.arange(n) / sample_rate

    hop = FRAME // 2
    centres = np.arange(1 + -(-n // hop)) * hop / sample_rate
    index = np.clip(np.searchsorted(starts, centres, side="right") - 1, 0, len(syllables) - 1)
    phase = (centres - starts[index]) / lengths[index]
    inside = (phase >= 0.0) & (phase < 1.0)
    u = 2.0 * phase - 1.0
    envelope = np.where(inside, rng.uniform(0.6, 1.0, len(syllables))[index] * (1.0 - (u * u) ** 2), 0.0)

    f0 = f0_base * (1.1 - 0.2 * t / t[-1] if n > 1 else 1.0)
    cycles = np.cumsum(f0 / sample_rate)
    source = 2.0 * (cycles % 1.0) - 1.0 + 0.05 * rng.standard_normal(n)

    rows = np.array([row for row, _, _ in syllables])
    vowels = VOWELS[rows] * tract * rng.uniform(0.95, 1.05, (len(syllables), 3))
    formants = np.column_stack([vowels, np.full(len(syllables), F4_HZ * tract)])
    freqs = np.fft.rfftfreq(FRAME, 1.0 / sample_rate)
    responses = _tract_responses(formants, sample_rate, freqs)
    frames = _stft(source) * responses[index] * envelope[:, None]

    consonant = np.array([c for _, c, _ in syllables])
    burst_len = rng.uniform(0.03, 0.06, len(syllables))
    bursts = inside & consonant[index] & (centres - starts[index] < burst_len[index])
    if bursts.any():
        top = MAX_FREQ * sample_rate
        band = sps.butter(2, [min(2000.0, 0.5 * top), min(5000.0, top)], "bandpass", fs=sample_rate, output="sos")
        shape = (int(bursts.sum()), freqs.shape[0])
        noise = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        level = 0.3 * np.sqrt(np.mean(np.abs(frames[inside]) ** 2) / 2.0)
        frames[bursts] += level * noise * sps.sosfreqz(band, worN=freqs, fs=sample_rate)[1]
    out = _istft(frames, n)
    peak = float(np.max(np.abs(out)))
    return out / peak if peak > 0.0 else out


register_speech_source("babble", formant_talker)
