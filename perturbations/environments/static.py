"""A bad connection ("bad connection static", EVA-Bench App. G), synthesised procedurally.

What a poor analogue/radio or badly grounded line adds under the speech: steady hiss, mains hum, impulsive
crackle, and now and then a buzz burst or a moment where the line cuts out. Stationary hiss barely hurts ASR;
the impulses and the buzz are what make this bed different from white noise at the same SNR.

Recipe (``synthesize_static``; every draw from the given rng):

(a) Hiss: white noise high-passed at 150-300 Hz, with slow fading (a smooth random gain of +-3 dB, 1.5 s
    knots). Unit RMS: the reference for the other levels.
(b) Hum: mains at 50 or 60 Hz (one per loop) with harmonics 1-8 whose odd members dominate (rectifier and
    transformer saturation: 1, 0.3, 0.6, 0.15, 0.35, 0.08, 0.2, 0.05), a 0.2-0.8 Hz wobble of +-20%, at
    -8..-3 dB re the hiss.
(c) Crackle: Poisson pops at 5-15 per second plus 0.1-0.3 per second dense "frying" clusters (40-150 pops per
    second for 0.1-0.5 s); each pop is a random-sign impulse ringing down in 0.1-1 ms, high-passed at 500 Hz,
    with a heavy-tailed peak (3.5 x (1 + Pareto(1.5)), capped at 9) re the hiss RMS. These set the crest
    factor (peaks stay below full scale at -20 dBFS RMS).
(d) Buzz bursts: 0.05-0.15 per second, 0.2-1.5 s long: the 217 Hz TDMA buzz of a nearby GSM phone (577 us
    pulses every 4.615 ms), band-passed 200-4000 Hz, at -3..+3 dB re the hiss.
(e) Dropouts: 0.05-0.2 per second, 40-400 ms where the whole line (hiss, crackle, buzz and hum) falls by
    25-45 dB, with 2 ms ramps.
Normalised to -20 dBFS RMS. The registered "static" generator reads four 20 s seamless loops per sample rate
(``registry.looped``).
"""

from __future__ import annotations

import numpy as np

from perturbations.environments.registry import looped, normalise, register_environment
from perturbations.environments.synth import (
    add_at,
    at_rms,
    bandpass,
    decay,
    harmonic_tone,
    highpass,
    smooth_walk,
)

HUM_HARMONICS = (1.0, 0.3, 0.6, 0.15, 0.35, 0.08, 0.2, 0.05)


def _hum(n: int, sample_rate: int, rng: np.random.Generator, mains_hz: float) -> np.ndarray:
    t = np.arange(n) / sample_rate
    wobble = 1.0 + 0.2 * np.sin(2.0 * np.pi * rng.uniform(0.2, 0.8) * t + rng.uniform(0.0, 2.0 * np.pi))
    return wobble * harmonic_tone(np.full(n, mains_hz), sample_rate, HUM_HARMONICS, phase=rng.uniform(0, 6.3))


def _pop(sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    tau = rng.uniform(0.0001, 0.001)
    length = max(2, round(5.0 * tau * sample_rate))
    ring = decay(length, sample_rate, tau) * rng.standard_normal(length)
    ring[0] = 3.0 * rng.choice([-1.0, 1.0])
    return ring


def _crackle(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Pops (sparse and in clusters), each scaled to a heavy-tailed peak re unit hiss."""
    seconds = n / sample_rate
    times = [rng.uniform(0.0, seconds, rng.poisson(rng.uniform(5.0, 15.0) * seconds))]
    for start in rng.uniform(0.0, seconds, rng.poisson(rng.uniform(0.1, 0.3) * seconds)):
        length = rng.uniform(0.1, 0.5)
        times.append(start + rng.uniform(0.0, length, rng.poisson(rng.uniform(40.0, 150.0) * length)))
    out = np.zeros(n)
    for t in np.concatenate(times):
        pop = _pop(sample_rate, rng)
        peak = min(3.5 * (1.0 + rng.pareto(1.5)), 9.0)
        add_at(out, pop * (peak / np.max(np.abs(pop))), int(t * sample_rate))
    return highpass(out, sample_rate, 500.0)


def _buzz(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n)
    period = 0.004615  # GSM TDMA frame: 217 Hz
    for start in rng.uniform(0.0, n / sample_rate, rng.poisson(rng.uniform(0.05, 0.15) * n / sample_rate)):
        length = round(rng.uniform(0.2, 1.5) * sample_rate)
        t = np.arange(length) / sample_rate
        pulses = ((t % period) < 0.000577).astype(np.float64) - 0.125
        burst = bandpass(pulses, sample_rate, 200.0, 4000.0)
        burst = at_rms(burst, 10.0 ** (rng.uniform(-3.0, 3.0) / 20.0))
        ramp = min(length // 2, round(0.005 * sample_rate))
        if ramp:
            burst[:ramp] *= np.linspace(0.0, 1.0, ramp)
            burst[-ramp:] *= np.linspace(1.0, 0.0, ramp)
        add_at(out, burst, round(start * sample_rate))
    return out


def _dropout_gain(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    gain = np.ones(n)
    ramp = max(1, round(0.002 * sample_rate))
    for start in rng.uniform(0.0, n / sample_rate, rng.poisson(rng.uniform(0.05, 0.2) * n / sample_rate)):
        a, length = round(start * sample_rate), round(rng.uniform(0.04, 0.4) * sample_rate)
        floor = 10.0 ** (-rng.uniform(25.0, 45.0) / 20.0)
        shape = np.full(length + 2 * ramp, floor)
        shape[:ramp] = np.linspace(1.0, floor, ramp)
        shape[-ramp:] = np.linspace(floor, 1.0, ramp)
        begin, end = max(a, 0), min(a + shape.shape[0], n)
        if end > begin:
            gain[begin:end] = np.minimum(gain[begin:end], shape[begin - a : end - a])
    return gain


def synthesize_static(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh bad-connection noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    fading = 10.0 ** (3.0 * smooth_walk(rng, n, sample_rate, 1.5) / 20.0)
    hiss = at_rms(highpass(rng.standard_normal(n), sample_rate, rng.uniform(150.0, 300.0)), 1.0) * fading
    mains = float(rng.choice([50.0, 60.0]))
    hum = at_rms(_hum(n, sample_rate, rng, mains), 10.0 ** (rng.uniform(-8.0, -3.0) / 20.0))
    line = hiss + hum + _crackle(n, sample_rate, rng) + _buzz(n, sample_rate, rng)
    return normalise(line * _dropout_gain(n, sample_rate, rng)).astype(np.float32)


static = register_environment("static")(looped(synthesize_static, key=0x57A7, seconds=20.0, banks=4))
