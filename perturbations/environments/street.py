"""A busy city street ("NYC street", EVA-Bench App. G), synthesised procedurally.

Kerbside in Manhattan: a bed of traffic rumble, cars passing close by (a swell of tyre noise with engine tones
that drop in pitch as they pass), frequent horns, a siren now and then, and pedestrians talking. Most of the
energy is low and stationary-ish (it barely hurts ASR at 15 dB); horns, sirens and chatter are the parts that
sit in the speech band.

Recipe (``synthesize_street``; every draw from the given rng):

(a) Traffic rumble: brown noise low-passed at 250-400 Hz with a slow +-4 dB swell (5 s knots). Unit RMS: the
    level reference.
(b) Passing cars: Poisson, 0.3-0.7 per second (the scene joins mid-stream); speed 6-15 m/s, closest distance
    3-15 m. Source level ~ 1/distance (within 8 s of the closest approach). Each car is tyre noise (pink,
    band-passed 300-2500 Hz) plus an engine tone (firing frequency 30-70 Hz, harmonics 1..6 at 1/k) Doppler-
    shifted by c / (c + radial velocity): a glide down of a few semitones as it passes.
(c) Horns: 0.08-0.2 per second and at least one per loop; 1-3 honks of 0.15-1.0 s, two buzzy tones a major
    or minor third apart (the low one 350-480 Hz, harmonics 1..12 at 1/k, a horn resonance near 2-3 kHz),
    0.7-2.5x the rumble RMS.
(d) Siren (probability 0.5 per loop): a wail (sinusoidal sweep 650-1500 Hz, 3-6 s period) or a yelp (8-12
    sweeps per 3 s), harmonics 1-3, passing over 8-20 s (rise and fall of level, -6..+2 dB at its closest),
    with a slight Doppler glide.
(e) Pedestrians: the café's multi-talker babble, low-passed at 3 kHz, at -16..-10 dB.
(f) Street canyon: a diffuse tail (RT60 0.5-1.0 s, wet 0.15-0.35).
Normalised to -20 dBFS RMS. The registered "street" generator reads four 20 s seamless loops per sample rate
(``registry.looped``).
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.basic import colored_noise
from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    SPEED_OF_SOUND,
    add_at,
    at_rms,
    babble,
    bandpass,
    fades,
    harmonic_tone,
    lowpass,
    resonator,
    reverb,
    smooth_walk,
)


def _cars(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    half = 4.0  # s either side of the closest approach
    tyres = bandpass(
        colored_noise(n + round(2 * half * sample_rate), sample_rate, rng, 1.0), sample_rate, 300.0, 2500.0
    )
    tyres /= np.sqrt(np.mean(tyres * tyres))
    for t0 in rng.uniform(
        -half, n / sample_rate + half, rng.poisson(rng.uniform(0.3, 0.7) * (n / sample_rate + 2 * half))
    ):
        speed, closest = rng.uniform(6.0, 15.0), rng.uniform(3.0, 15.0)
        m = round(2 * half * sample_rate)
        t = np.arange(m) / sample_rate - half
        distance = np.hypot(closest, speed * t)
        radial = speed * speed * t / distance  # > 0 when receding
        gain = 2.0 / distance
        engine = harmonic_tone(
            rng.uniform(30.0, 70.0) * SPEED_OF_SOUND / (SPEED_OF_SOUND + radial),
            sample_rate,
            [1.0 / k for k in range(1, 7)],
            phase=rng.uniform(0.0, 6.3),
        )
        offset = int(rng.integers(0, tyres.shape[0] - m))
        car = gain * (tyres[offset : offset + m] + rng.uniform(0.3, 0.8) * engine / 0.9)
        add_at(out, car * fades(m, sample_rate, 0.5, 0.5), round((t0 - half) * sample_rate))
    return out


def _horn(seconds: float, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    m = max(2, round(seconds * sample_rate))
    low = rng.uniform(350.0, 480.0)
    high = low * (1.25 if rng.random() < 0.5 else 1.2)
    partials = [1.0 / k for k in range(1, 13)]
    tone = harmonic_tone(np.full(m, low), sample_rate, partials) + harmonic_tone(
        np.full(m, high), sample_rate, partials, phase=1.0
    )
    tone = resonator(tone, sample_rate, rng.uniform(2000.0, 3000.0), 3.0, gain=1.0)
    return at_rms(tone, 1.0) * fades(m, sample_rate, 0.01, 0.03)


def _horns(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    seconds = n / sample_rate
    starts = np.append(
        rng.uniform(0.0, seconds, rng.poisson(rng.uniform(0.08, 0.2) * seconds)), rng.uniform(0.0, seconds)
    )
    for start in starts:
        level, t = rng.uniform(0.7, 2.5), start
        for _ in range(int(rng.integers(1, 4))):
            length = rng.uniform(0.15, 1.0)
            add_at(out, level * _horn(length, sample_rate, rng), round(t * sample_rate))
            t += length + rng.uniform(0.08, 0.3)
    return out


def _siren(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    if rng.random() >= 0.5:
        return out
    m = round(rng.uniform(8.0, 20.0) * sample_rate)
    t = np.arange(m) / sample_rate
    if rng.random() < 0.5:  # wail
        sweep = 0.5 - 0.5 * np.cos(2.0 * np.pi * t / rng.uniform(3.0, 6.0))
    else:  # yelp
        sweep = 0.5 - 0.5 * np.cos(2.0 * np.pi * t * rng.uniform(8.0, 12.0) / 3.0)
    doppler = 1.0 + 0.03 * np.tanh((m / 2 / sample_rate - t) / 2.0)
    tone = harmonic_tone((650.0 + 850.0 * sweep) * doppler, sample_rate, [1.0, 0.35, 0.15])
    passing = np.sin(np.pi * t / t[-1]) ** 2
    siren = at_rms(tone, 1.0) * passing * 10.0 ** (rng.uniform(-6.0, 2.0) / 20.0) * np.sqrt(2.0)
    add_at(out, lowpass(siren, sample_rate, 4000.0), int(rng.integers(-m // 2, n)))
    return out


def synthesize_street(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh city-street noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    swell = 10.0 ** (4.0 * smooth_walk(rng, n, sample_rate, 5.0) / 20.0)
    rumble = at_rms(lowpass(colored_noise(n, sample_rate, rng, 2.0), sample_rate, rng.uniform(250.0, 400.0)), 1.0)
    chatter = at_rms(lowpass(babble(n, sample_rate, rng), sample_rate, 3000.0), 10.0 ** (rng.uniform(-16, -10) / 20))
    scene = rumble * swell + _cars(n, sample_rate, rng) + _horns(n, sample_rate, rng) + _siren(n, sample_rate, rng)
    canyon = reverb(scene + chatter, sample_rate, rng, rng.uniform(0.5, 1.0), rng.uniform(0.15, 0.35))
    return normalise(canyon).astype(np.float32)


street = register_environment("street")(looped(synthesize_street, key=0x57EE7, seconds=20.0, banks=4))
