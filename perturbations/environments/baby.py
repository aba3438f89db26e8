"""A crying baby in the room ("baby crying", EVA-Bench App. G), synthesised procedurally.

An infant cry is a loud, harmonic, strongly pitched sound: F0 around 350-600 Hz (far above adult speech),
arched melody contours per cry, vibrato and jitter, bright harmonics shaped by a short vocal tract (formants
near 1.1, 3 and 5 kHz), in cries of about a second separated by audible in-breaths, in bouts separated by
calmer pauses. Its harmonics sit in the speech band and it is intermittent, so it masks whole syllables when
it is on and leaves the speech clean when it is off.

Recipe (``synthesize_baby``; every draw from the given rng):

(a) Bouts of 3-10 cries, 1-5 s apart; the scene joins mid-bout.
(b) Each cry is 0.4-1.6 s long with a base F0 of 350-550 Hz per bout (x0.9-1.1 per cry) and a melody
    contour: rising-falling (60%), falling (25%) or rising (15%), spanning 5-30% of F0; plus 5-8 Hz vibrato
    of +-1-3% and a slow jitter of +-2%.
(c) Source: harmonics 1..N at 1/k^1.1 (bright, pressed phonation) plus 5% aspiration noise; 50 ms attack,
    120 ms release, a slight crescendo; cry level -4..0 dB within a bout.
(d) Vocal tract: three resonances (F1 0.9-1.3 kHz, F2 2.6-3.4 kHz, F3 4.5-5.5 kHz; Q 4-6) over the source.
(e) Between cries, an in-breath of 0.2-0.6 s: band-passed (1-4 kHz) noise 18-24 dB below the cry.
(f) Room: a short reverb (RT60 0.3-0.5 s, wet 0.3-0.5) and room tone (pink + brown) 30 dB below the crying.
Normalised to -20 dBFS RMS. The registered "baby" generator reads four 20 s seamless loops per sample rate
(``registry.looped``).
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.basic import colored_noise
from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    add_at,
    at_rms,
    bandpass,
    fades,
    harmonic_tone,
    resonator,
    reverb,
    rms,
    smooth_walk,
    top_hz,
)


def _contour(m: int, rng: np.random.Generator) -> np.ndarray:
    """Relative F0 contour over one cry (1.0 = the cry's base F0)."""
    p = np.linspace(0.0, 1.0, m)
    span = rng.uniform(0.05, 0.30)
    shape = rng.random()
    if shape < 0.6:
        return 1.0 + span * (np.sin(np.pi * p ** rng.uniform(0.6, 1.4)) - 0.3)
    if shape < 0.85:
        return 1.0 + span * (0.5 - p)
    return 1.0 + span * (p - 0.5)


def _cry(m: int, sample_rate: int, rng: np.random.Generator, f0_base: float) -> np.ndarray:
    t = np.arange(m) / sample_rate
    vibrato = 1.0 + rng.uniform(0.01, 0.03) * np.sin(2.0 * np.pi * rng.uniform(5.0, 8.0) * t + rng.uniform(0, 6.3))
    jitter = 1.0 + 0.02 * smooth_walk(rng, m, sample_rate, 0.05)
    f0 = f0_base * rng.uniform(0.9, 1.1) * _contour(m, rng) * vibrato * jitter
    harmonics = [k**-1.1 for k in range(1, int(top_hz(sample_rate) / f0.min()) + 1)]
    voiced = harmonic_tone(f0, sample_rate, harmonics, phase=rng.uniform(0.0, 6.3))
    voiced += 0.05 * rms(voiced) * rng.standard_normal(m)
    for low, high in ((900.0, 1300.0), (2600.0, 3400.0), (4500.0, 5500.0)):
        voiced = resonator(voiced, sample_rate, rng.uniform(low, high), rng.uniform(4.0, 6.0), gain=2.0)
    crescendo = np.linspace(rng.uniform(0.7, 0.9), 1.0, m)
    return voiced * fades(m, sample_rate, 0.05, 0.12) * crescendo


def _inbreath(m: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    noise = bandpass(rng.standard_normal(m), sample_rate, 1000.0, 4000.0)
    return noise * np.sin(np.pi * np.linspace(0.0, 1.0, m)) ** 2


def synthesize_baby(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh crying-baby noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    crying = np.zeros(n)
    t = -rng.uniform(0.0, 4.0)  # join mid-bout
    while t < n / sample_rate:
        f0_base = rng.uniform(350.0, 550.0)
        for _ in range(int(rng.integers(3, 11))):
            m = round(rng.uniform(0.4, 1.6) * sample_rate)
            level = 10.0 ** (rng.uniform(-4.0, 0.0) / 20.0)
            cry = _cry(m, sample_rate, rng, f0_base)
            add_at(crying, level * cry / max(rms(cry), 1e-12), round(t * sample_rate))
            t += m / sample_rate
            breath = round(rng.uniform(0.2, 0.6) * sample_rate)
            gasp = at_rms(_inbreath(breath, sample_rate, rng), level * 10.0 ** (-rng.uniform(18.0, 24.0) / 20.0))
            add_at(crying, gasp, round(t * sample_rate))
            t += breath / sample_rate
        t += rng.uniform(1.0, 5.0)
    room = reverb(crying, sample_rate, rng, rng.uniform(0.3, 0.5), rng.uniform(0.3, 0.5))
    tone = colored_noise(n, sample_rate, rng, 1.0) + colored_noise(n, sample_rate, rng, 2.0)
    return normalise(room + at_rms(tone, 10.0 ** (-30.0 / 20.0) * rms(room))).astype(np.float32)


baby = register_environment("baby")(looped(synthesize_baby, key=0xBAB1, seconds=20.0, banks=4))
