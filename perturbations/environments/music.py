"""Background music through a small loudspeaker ("background music", EVA-Bench App. G), synthesised.

Pop-style background music: chords, a bass line, a melody and a drum kit, played through a small speaker
(a shop radio, a phone's hold music, a TV in the next room). Unlike babble it is tonal (its energy sits on
equal-tempered pitches and their harmonics) and rhythmic, with sung-melody-like contours; ASR can be lured into
"hearing" it when the melody is prominent, but it lacks the formant structure of speech.

Recipe (``synthesize_music``; every draw from the given rng):

(a) Song: 76-128 BPM, 4/4; a key (root MIDI 48-59) in major or natural minor; a four-chord progression drawn
    from six common ones (I-V-vi-IV, vi-IV-I-V, I-vi-IV-V, ...; minor keys use the relative-minor
    equivalents), one chord per bar, looping.
(b) Keys: a two-operator FM electric piano (Chowning 1973; ratio 1, index decaying from 2-3.5 to ~0.3 in
    0.3 s) plays the triad (close voicing around MIDI 60-72) in one of four rhythm patterns, each note decaying
    over 0.6-1.2 s.
(c) Bass: additive (harmonics 1..6 at 1/k^1.5), the chord root in octave 2, on beats 1 and 3 (sometimes
    the fifth on 3), plucked envelope.
(d) Melody: notes of the key's pentatonic scale in MIDI 67-84, a random walk of 0-2 scale steps, lengths of
    1/2, 1 or 1.5 beats, 20% rests; a flute-like additive voice (harmonics 1, 0.5, 0.25, 0.12, with 5 Hz
    vibrato after 150 ms), -3..0 dB re the keys.
(e) Drums: kick (a sine gliding 150 -> 50 Hz in 40 ms, 150 ms decay) on 1 and 3, snare (band-passed noise
    plus a 190 Hz tone, 120 ms) on 2 and 4, closed hi-hat (high-passed noise, 30 ms) on eighths.
(f) Small speaker: high-pass 150-250 Hz (2nd order), low-pass 6-9 kHz, a cone resonance at 800-1500 Hz
    (+4 dB), gentle tanh saturation; then a room reverb (RT60 0.3-0.7 s, wet 0.2-0.4).
Normalised to -20 dBFS RMS. The registered "music" generator reads four 20 s seamless loops per sample rate
(``registry.looped``); the crossfade at the loop point is 0.25 s, where the rhythm may skip once per loop.
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    add_at,
    bandpass,
    decay,
    fades,
    fm_tone,
    harmonic_tone,
    highpass,
    lowpass,
    midi_hz,
    resonator,
    reverb,
    soft_clip,
)

MAJOR = (0, 2, 4, 5, 7, 9, 11)
MINOR = (0, 2, 3, 5, 7, 8, 10)
# Scale degrees (0 = tonic) of common four-chord progressions; in a minor key they read as i-VII-VI-... etc.
PROGRESSIONS = ((0, 4, 5, 3), (5, 3, 0, 4), (0, 5, 3, 4), (0, 3, 4, 3), (3, 0, 4, 5), (0, 4, 3, 4))
KEYS_RHYTHMS = ((0.0, 2.0), (0.0, 1.5, 3.0), (0.0, 1.0, 2.0, 3.0), (0.5, 1.5, 2.5, 3.5))


def _triad(root: int, scale: tuple[int, ...], degree: int) -> list[int]:
    """MIDI notes of the diatonic triad on ``degree``, folded into 60-72."""
    notes = [root + scale[(degree + step) % 7] + 12 * ((degree + step) // 7) for step in (0, 2, 4)]
    return [60 + (note - 60) % 12 for note in notes]


def _pluck(freq: float, seconds: float, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    m = max(2, round(seconds * sample_rate))
    index = rng.uniform(2.0, 3.5) * np.exp(-np.arange(m) / (0.3 * sample_rate / 2.0)) + 0.3
    tone = fm_tone(freq, m, sample_rate, 1.0, index, phase=rng.uniform(0.0, 6.3))
    return tone * decay(m, sample_rate, seconds / 3.0) * fades(m, sample_rate, 0.003, 0.05)


def _bass(freq: float, seconds: float, sample_rate: int) -> np.ndarray:
    m = max(2, round(seconds * sample_rate))
    tone = harmonic_tone(np.full(m, freq), sample_rate, [k**-1.5 for k in range(1, 7)])
    return tone * decay(m, sample_rate, seconds / 2.0) * fades(m, sample_rate, 0.005, 0.05)


def _flute(freq: float, seconds: float, sample_rate: int) -> np.ndarray:
    m = max(2, round(seconds * sample_rate))
    t = np.arange(m) / sample_rate
    vibrato = 1.0 + 0.008 * np.clip((t - 0.15) / 0.2, 0.0, 1.0) * np.sin(2.0 * np.pi * 5.0 * t)
    tone = harmonic_tone(freq * vibrato, sample_rate, [1.0, 0.5, 0.25, 0.12])
    return tone * fades(m, sample_rate, 0.04, min(0.08, seconds / 3.0))


def _kick(sample_rate: int) -> np.ndarray:
    m = round(0.3 * sample_rate)
    t = np.arange(m) / sample_rate
    f = 50.0 + 100.0 * np.exp(-t / 0.04)
    return np.sin(2.0 * np.pi * np.cumsum(f) / sample_rate) * decay(m, sample_rate, 0.15)


def _snare(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    m = round(0.2 * sample_rate)
    t = np.arange(m) / sample_rate
    body = 0.5 * np.sin(2.0 * np.pi * 190.0 * t) * decay(m, sample_rate, 0.05)
    return body + bandpass(rng.standard_normal(m), sample_rate, 1000.0, 6000.0) * decay(m, sample_rate, 0.06)


def _hat(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    m = round(0.08 * sample_rate)
    return highpass(rng.standard_normal(m), sample_rate, 7000.0) * decay(m, sample_rate, 0.015)


def synthesize_music(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh background music per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    beat = 60.0 / rng.uniform(76.0, 128.0)
    root = int(rng.integers(48, 60))
    scale = MAJOR if rng.random() < 0.6 else MINOR
    progression = PROGRESSIONS[int(rng.integers(len(PROGRESSIONS)))]
    if scale is MINOR:
        progression = tuple((d + 2) % 7 for d in progression)  # major degree d = minor degree d + 2
    rhythm = KEYS_RHYTHMS[int(rng.integers(len(KEYS_RHYTHMS)))]
    pentatonic = [root + scale[d] for d in ((0, 1, 2, 4, 5) if scale is MAJOR else (0, 2, 3, 4, 6))]
    melody_notes = sorted({p + 12 * o for p in pentatonic for o in range(1, 4) if 67 <= p + 12 * o <= 84})

    keys, bass, melody, drums = (np.zeros(n) for _ in range(4))
    snare, hat, kick = _snare(sample_rate, rng), _hat(sample_rate, rng), _kick(sample_rate)
    bars = int(np.ceil(n / sample_rate / (4 * beat))) + 1
    start_bar = int(rng.integers(len(progression)))
    for bar in range(bars):
        t_bar = bar * 4 * beat
        degree = progression[(start_bar + bar) % len(progression)]
        for offset in rhythm:
            for note in _triad(root, scale, degree):
                tone = _pluck(float(midi_hz(note)), rng.uniform(0.6, 1.2), sample_rate, rng)
                add_at(keys, tone * rng.uniform(0.7, 1.0), round((t_bar + offset * beat) * sample_rate))
        chord_root = 36 + (root + scale[degree] - 36) % 12
        for offset, note in ((0.0, chord_root), (2.0, chord_root + (7 if rng.random() < 0.3 else 0))):
            add_at(
                bass, _bass(float(midi_hz(note)), 1.8 * beat, sample_rate), round((t_bar + offset * beat) * sample_rate)
            )
        for eighth in range(8):
            at = round((t_bar + eighth * beat / 2.0) * sample_rate)
            add_at(drums, 0.25 * hat * rng.uniform(0.6, 1.0), at)
            if eighth in (0, 4):
                add_at(drums, kick, at)
            if eighth in (2, 6):
                add_at(drums, 0.6 * snare, at)
    t, index = 0.0, int(rng.integers(len(melody_notes)))
    while t < n / sample_rate:
        length = beat * float(rng.choice([0.5, 1.0, 1.5]))
        if rng.random() >= 0.2:
            index = int(np.clip(index + rng.integers(-2, 3), 0, len(melody_notes) - 1))
            add_at(melody, _flute(float(midi_hz(melody_notes[index])), length, sample_rate), round(t * sample_rate))
        t += length

    def level(x: np.ndarray, db: float) -> np.ndarray:
        r = float(np.sqrt(np.mean(x * x)))
        return x * (10.0 ** (db / 20.0) / r) if r > 0.0 else x

    mix = (
        level(keys, 0.0)
        + level(bass, rng.uniform(-4.0, -1.0))
        + level(melody, rng.uniform(-3.0, 0.0))
        + level(drums, rng.uniform(-6.0, -2.0))
    )
    speaker = highpass(mix, sample_rate, rng.uniform(150.0, 250.0))
    speaker = lowpass(speaker, sample_rate, rng.uniform(6000.0, 9000.0))
    speaker = resonator(speaker, sample_rate, rng.uniform(800.0, 1500.0), 2.0, gain=0.6)
    speaker = soft_clip(speaker / np.max(np.abs(speaker)), 1.5) if np.any(speaker) else speaker
    room = reverb(speaker, sample_rate, rng, rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.4))
    return normalise(room).astype(np.float32)


music = register_environment("music")(looped(synthesize_music, key=0x3051C, seconds=20.0, banks=4))
