"""A building site next door ("loud construction", EVA-Bench App. G), synthesised procedurally.

Construction noise is loud, broadband and impulsive: a jackhammer is a train of ~20 impacts per second, hammer
blows ring, a drill whines, all over a diesel drone, with the reversing beeper of a truck now and then. The
impulses are what sets it apart from stationary noise: each one can wipe out a consonant.

Recipe (``synthesize_construction``; every draw from the given rng):

(a) Engine drone (generator/excavator diesel): firing frequency 25-45 Hz with harmonics 1..12 at 1/k
    (+-30% random), a 0.1-0.3 Hz load wobble of +-3%, plus brown noise low-passed at 300 Hz and a distant
    city ambience (pink noise, -16 dB). The level reference (unit RMS).
(b) Jackhammer: bursts of 1-5 s, 1-6 s apart (at least one per loop), at 16-26 impacts per second; each
    impact is a 2-6 ms noise click plus 3 metallic partials at 1.5-4.5 kHz decaying in 10-30 ms, peaking
    4-8x the drone RMS; the compressor's exhaust (band-passed 500-3000 Hz noise) is gated with each impact.
(c) Drill/grinder: 0-2 runs per 20 s, 2-6 s long; a motor whine (harmonics of 80-200 Hz gliding up from 30%
    over 0.3 s and down over 0.8 s at the end) plus band-passed (2-6 kHz) cutting noise, at -6..0 dB.
(d) Hammer: groups of 3-10 blows at 1.2-2 Hz, 0.05-0.15 groups per second; each blow a 1 ms click plus
    wood (200-800 Hz) or metal (1-4 kHz) partials decaying in 20-150 ms, peaking 3-6x the drone RMS.
(e) Reversing truck (with probability 0.6 per loop): a 1.0-1.25 kHz beeper, 0.5 s on / 0.5 s off for 4-12 s,
    square-ish (tanh-driven sine), at -4..+2 dB.
(f) Outdoors: a slapback echo off a facade (30-120 ms, -12..-6 dB) and a short diffuse tail (RT60
    0.3-0.6 s, wet 0.15-0.3).
Normalised to -20 dBFS RMS. The registered "construction" generator reads four 20 s seamless loops per
sample rate (``registry.looped``).
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.basic import colored_noise
from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    add_at,
    at_rms,
    bandpass,
    decay,
    fades,
    harmonic_tone,
    lowpass,
    reverb,
    top_hz,
)


def _drone(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / sample_rate
    firing = rng.uniform(25.0, 45.0) * (1.0 + 0.03 * np.sin(2.0 * np.pi * rng.uniform(0.1, 0.3) * t))
    amps = [rng.uniform(0.7, 1.3) / k for k in range(1, 13)]
    engine = at_rms(harmonic_tone(firing, sample_rate, amps), 1.0)
    rumble = at_rms(lowpass(colored_noise(n, sample_rate, rng, 2.0), sample_rate, 300.0), 0.6)
    ambience = at_rms(colored_noise(n, sample_rate, rng, 1.0), 0.1)  # the rest of the city, far away
    return at_rms(engine + rumble + ambience, 1.0)


def _strike(
    sample_rate: int, rng: np.random.Generator, band: tuple[float, float], taus: tuple[float, float], click_s: float
) -> np.ndarray:
    """One impact: a decaying noise click plus three ringing partials; peak-normalised to 1."""
    longest = taus[1]
    m = max(4, round(4.0 * longest * sample_rate))
    t = np.arange(m) / sample_rate
    freqs = np.minimum(rng.uniform(*band, 3), top_hz(sample_rate) * rng.uniform(0.8, 1.0, 3))
    ring = (
        np.sin(2.0 * np.pi * freqs * t[:, None] + rng.uniform(0, 6.3, 3)) * np.exp(-t[:, None] / rng.uniform(*taus, 3))
    ).sum(axis=1)
    out = 0.6 * ring
    out += 1.5 * rng.standard_normal(m) * decay(m, sample_rate, click_s / 3.0)
    return out / np.max(np.abs(out))


def _jackhammer(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    seconds = n / sample_rate
    t = rng.uniform(-2.0, 2.0)
    while t < seconds:
        length, rate = rng.uniform(1.0, 5.0), rng.uniform(16.0, 26.0)
        hits = np.arange(t, t + length, 1.0 / rate)
        exhaust = bandpass(rng.standard_normal(round(length * sample_rate) + 1), sample_rate, 500.0, 3000.0)
        gate = np.zeros_like(exhaust)
        for hit in hits:
            at = round(hit * sample_rate)
            add_at(out, rng.uniform(4.0, 8.0) * _strike(sample_rate, rng, (1500.0, 4500.0), (0.01, 0.03), 0.004), at)
            add_at(gate, decay(round(sample_rate / rate), sample_rate, 0.3 / rate), at - round(t * sample_rate))
        add_at(out, 0.8 * exhaust * gate, round(t * sample_rate))
        t += length + rng.uniform(1.0, 6.0)
    return out


def _drill(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    for start in rng.uniform(-2.0, n / sample_rate, int(rng.integers(0, 3))):
        m = round(rng.uniform(2.0, 6.0) * sample_rate)
        t = np.arange(m) / sample_rate
        spin = np.minimum(np.clip(0.3 + 0.7 * t / 0.3, 0.3, 1.0), np.clip(0.3 + 0.7 * (t[-1] - t) / 0.8, 0.3, 1.0))
        whine = harmonic_tone(rng.uniform(80.0, 200.0) * spin, sample_rate, [1.0, 0.6, 0.8, 0.3, 0.5, 0.2, 0.3])
        cutting = bandpass(rng.standard_normal(m), sample_rate, 2000.0, 6000.0) * spin
        run = at_rms(at_rms(whine, 1.0) + 0.7 * at_rms(cutting, 1.0), 10.0 ** (rng.uniform(-6.0, 0.0) / 20.0))
        add_at(out, run * fades(m, sample_rate, 0.05, 0.1), round(start * sample_rate))
    return out


def _hammer(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    for start in rng.uniform(-3.0, n / sample_rate, rng.poisson(rng.uniform(0.05, 0.15) * n / sample_rate + 0.5)):
        metal = rng.random() < 0.5
        band, taus = ((1000.0, 4000.0), (0.02, 0.15)) if metal else ((200.0, 800.0), (0.02, 0.08))
        interval = 1.0 / rng.uniform(1.2, 2.0)
        for k in range(int(rng.integers(3, 11))):
            blow = rng.uniform(3.0, 6.0) * _strike(sample_rate, rng, band, taus, 0.001)
            add_at(out, blow, round((start + k * interval * rng.uniform(0.9, 1.1)) * sample_rate))
    return out


def _beeper(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    if rng.random() >= 0.6:
        return out
    freq = rng.uniform(1000.0, 1250.0)
    m = round(rng.uniform(4.0, 12.0) * sample_rate)
    t = np.arange(m) / sample_rate
    gate = ((t % 1.0) < 0.5).astype(np.float64)
    gate = np.convolve(gate, np.ones(round(0.005 * sample_rate)) / round(0.005 * sample_rate), mode="same")
    tone = np.tanh(3.0 * np.sin(2.0 * np.pi * freq * t)) * gate
    tone = lowpass(tone, sample_rate, 5000.0)
    add_at(out, at_rms(tone, 10.0 ** (rng.uniform(-4.0, 2.0) / 20.0) * np.sqrt(2.0)), int(rng.integers(-m // 2, n)))
    return out


def synthesize_construction(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh construction-site noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    site = (
        _drone(n, sample_rate, rng)
        + _jackhammer(n, sample_rate, rng)
        + _drill(n, sample_rate, rng)
        + _hammer(n, sample_rate, rng)
        + _beeper(n, sample_rate, rng)
    )
    delay = round(rng.uniform(0.03, 0.12) * sample_rate)
    echo = np.zeros(n)
    add_at(echo, site * 10.0 ** (rng.uniform(-12.0, -6.0) / 20.0), delay)
    outdoors = reverb(site + echo, sample_rate, rng, rng.uniform(0.3, 0.6), rng.uniform(0.15, 0.3))
    return normalise(outdoors).astype(np.float32)


construction = register_environment("construction")(looped(synthesize_construction, key=0xC0257, seconds=20.0, banks=4))
