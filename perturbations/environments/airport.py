"""An airport departure gate ("airport gate", EVA-Bench App. G), synthesised procedurally.

A gate area is a big, hard, reverberant hall full of people: the dominant layer is crowd babble smeared by a
long reverb (speech-like, so it hurts ASR much like the café does), with rolling suitcases, footsteps on hard
floors and, now and then, a public-address announcement: a chime followed by a voice through band-limited
loudspeakers, itself speech that competes with the caller's.

Recipe (``synthesize_airport``; every draw from the given rng):

(a) Crowd: the café's multi-talker babble (6-10 formant-synthesised talkers, ``cafe._babble``). Unit RMS: the
    level reference.
(b) Rolling suitcases: 0.1-0.25 per second, 3-8 s pass-bys (a sin^2 swell); wheel rumble is noise
    band-passed 150-1500 Hz, plus a click as a wheel crosses each floor-tile joint (2-5 per second), at
    -14..-6 dB.
(c) Footsteps: 0.2-0.5 walkers per second, each 3-8 s of steps at 1.7-2.2 Hz; a step is a heel strike
    (noise band-passed 300-4000 Hz decaying in 8-20 ms), peaking 0.8-2x the crowd RMS.
(d) PA announcement, one per loop at a random time: a chime of 2 or 3 bell tones (partials 1, 2, 3, 4.2 at
    1, 0.4, 0.2, 0.1; decay 0.5-0.9 s; notes 0.45-0.65 s apart; a descending major third or a 1-3-5
    arpeggio from MIDI 72-79), then 3-6 s of one formant-synthesised talker (the café's talker model) at
    1.2-2x the crowd RMS. Both go through the PA loudspeaker: band-pass 350-4000 Hz, a horn resonance at
    1.5-2.5 kHz and tanh saturation.
(e) The hall: everything goes through a long diffuse reverb (RT60 1.2-2.0 s, wet 0.4-0.7); then hall tone
    (pink + brown noise, the ventilation) 22 dB below the crowd.
Normalised to -20 dBFS RMS. The registered "airport" generator reads four 30 s seamless loops per sample rate
(``registry.looped``), so about one turn in four hears part of an announcement.
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.basic import colored_noise
from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    add_at,
    at_rms,
    babble,
    bandpass,
    decay,
    fades,
    harmonic_tone,
    lowpass,
    midi_hz,
    resonator,
    reverb,
    soft_clip,
    talker,
)

BELL_PARTIALS = ((1.0, 1.0), (2.0, 0.4), (3.0, 0.2), (4.2, 0.1))  # (frequency ratio, amplitude)


def _suitcases(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    for start in rng.uniform(-4.0, n / sample_rate, rng.poisson(rng.uniform(0.1, 0.25) * (n / sample_rate + 4.0))):
        m = round(rng.uniform(3.0, 8.0) * sample_rate)
        rumble = bandpass(rng.standard_normal(m), sample_rate, 150.0, 1500.0)
        joints = np.zeros(m)
        click = bandpass(rng.standard_normal(round(0.02 * sample_rate)), sample_rate, 200.0, 3000.0)
        click *= 4.0 * decay(click.shape[0], sample_rate, 0.004)
        for at in np.arange(0.0, m / sample_rate, 1.0 / rng.uniform(2.0, 5.0)):
            add_at(joints, click, round(at * sample_rate))
        swell = np.sin(np.pi * np.linspace(0.0, 1.0, m)) ** 2
        level = 10.0 ** (rng.uniform(-14.0, -6.0) / 20.0)
        add_at(out, level * swell * (at_rms(rumble, 1.0) + joints), round(start * sample_rate))
    return out


def _footsteps(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    for start in rng.uniform(-4.0, n / sample_rate, rng.poisson(rng.uniform(0.2, 0.5) * (n / sample_rate + 4.0))):
        length, pace = rng.uniform(3.0, 8.0), 1.0 / rng.uniform(1.7, 2.2)
        steps = np.arange(0.0, length, pace) + rng.normal(0.0, 0.01, int(np.ceil(length / pace)))
        peak, m = rng.uniform(0.8, 2.0), round(0.06 * sample_rate)
        heels = bandpass(rng.standard_normal(m * len(steps)), sample_rate, 300.0, 4000.0).reshape(len(steps), m)
        heels *= decay(m, sample_rate, rng.uniform(0.008, 0.02))
        for k, at in enumerate(steps):
            swell = np.sin(np.pi * (k + 0.5) / len(steps))  # approaching, then walking away
            heel = heels[k]
            add_at(
                out, peak * swell * heel / max(float(np.max(np.abs(heel))), 1e-12), round((start + at) * sample_rate)
            )
    return out


def _chime(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    base = int(rng.integers(72, 80))
    notes = [base + 4, base] if rng.random() < 0.5 else [base, base + 4, base + 7]
    spacing = rng.uniform(0.45, 0.65)
    tau = rng.uniform(0.5, 0.9)
    m = round((spacing * (len(notes) - 1) + 4.0 * tau) * sample_rate)
    out = np.zeros(m)
    for k, note in enumerate(notes):
        length = m - round(k * spacing * sample_rate)
        f = float(midi_hz(note))
        bell = sum(a * harmonic_tone(np.full(length, ratio * f), sample_rate, [1.0]) for ratio, a in BELL_PARTIALS)
        add_at(out, bell * decay(length, sample_rate, tau) * fades(length, sample_rate, 0.005, 0.05), m - length)
    return out


def _pa_speaker(x: np.ndarray, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    y = bandpass(x, sample_rate, 350.0, 4000.0)
    y = resonator(y, sample_rate, rng.uniform(1500.0, 2500.0), 2.5, gain=0.8)
    peak = float(np.max(np.abs(y)))
    return soft_clip(y / peak, 2.0) * peak if peak > 0.0 else y


def _announcement(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    chime = at_rms(_chime(sample_rate, rng), rng.uniform(1.5, 2.5))
    speech_len = round(rng.uniform(3.0, 6.0) * sample_rate)
    voice = at_rms(talker(speech_len, sample_rate, rng), rng.uniform(1.2, 2.0))
    gap = round(0.2 * sample_rate)
    pa = np.zeros(chime.shape[0] + gap + speech_len)
    pa[: chime.shape[0]] += chime
    pa[chime.shape[0] + gap :] += voice
    add_at(out, _pa_speaker(pa, sample_rate, rng), int(rng.integers(0, max(1, n - pa.shape[0] // 2))))
    return out


def synthesize_airport(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh airport-gate noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    crowd = babble(n, sample_rate, rng)
    scene = crowd + _suitcases(n, sample_rate, rng) + _footsteps(n, sample_rate, rng)
    scene += _announcement(n, sample_rate, rng)
    hall = reverb(scene, sample_rate, rng, rng.uniform(1.2, 2.0), rng.uniform(0.4, 0.7))
    tone = lowpass(
        colored_noise(n, sample_rate, rng, 1.0) + colored_noise(n, sample_rate, rng, 2.0), sample_rate, 2000.0
    )
    return normalise(hall + at_rms(tone, 10.0 ** (-22.0 / 20.0))).astype(np.float32)


airport = register_environment("airport")(looped(synthesize_airport, key=0xA1C0, seconds=30.0, banks=4))
