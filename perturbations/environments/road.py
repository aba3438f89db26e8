"""Road noise heard inside a moving car ("road noise", EVA-Bench App. G), synthesised procedurally.

A caller on a hands-free phone in a car: the cabin passes low frequencies and blocks high ones, so the noise is
dominated by rumble below ~500 Hz (most of its power lies under the speech's formants); it mostly masks F0 and
F1 and, like other stationary noise, costs Whisper little at 15 dB. The engine adds tonal lines whose
frequencies follow the rpm, which follows the speed.

Recipe (``synthesize_road``; every draw from the given rng):

(a) Driving: speed 50-110 km/h with a smooth random drift of +-12 km/h (4 s knots); top-gear rpm = speed x
    24-32 rpm per km/h, clamped to 1200-4000 rpm.
(b) Engine (a four-stroke four-cylinder): firing frequency 2 x rpm/60 (40-133 Hz) with harmonics at
    1, 0.45, 0.25, 0.12, 0.06 plus the crank's first order at 0.25, all phase-continuous along the rpm
    contour; level -6..-2 dB re the rumble.
(c) Rumble (tyre/road structure-borne noise): brown noise low-passed at 150-250 Hz plus a cabin boom mode at
    35-60 Hz (Q 3), amplitude proportional to speed.
(d) Tyre/road air-borne noise: pink noise band-passed 250-1200 Hz, -14..-9 dB, amplitude ~ speed^1.5, and
    changing road surfaces (a new surface every 3-10 s at x0.6-1.6, 0.5 s transitions).
(e) Wind: white noise band-passed 800-4000 Hz at -30..-24 dB.
(f) Expansion joints: 0.05-0.15 per second, each a "ba-dum" pair of low thumps (a 25-60 Hz decaying sine
    plus noise, low-passed at 150 Hz, peaking 1.5-3x the rumble RMS) spaced by the wheelbase (2.5-3 m) over
    the speed.
(g) The cabin: the sum is low-passed at 1.2-2 kHz (2nd order: glass and body transmission loss grow with
    frequency). Normalised to -20 dBFS RMS.

The registered "road" generator reads four 20 s seamless loops per sample rate (``registry.looped``).
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
    harmonic_tone,
    lowpass,
    resonator,
    smooth_walk,
)


def _speed_kmh(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(50.0, 110.0) + 12.0 * smooth_walk(rng, n, sample_rate, 4.0)


def _engine(rpm: np.ndarray, sample_rate: int) -> np.ndarray:
    firing = 2.0 * rpm / 60.0
    return harmonic_tone(firing, sample_rate, [1.0, 0.45, 0.25, 0.12, 0.06]) + 0.25 * harmonic_tone(
        rpm / 60.0, sample_rate, [1.0], phase=1.0
    )


def _surfaces(n: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Per-sample gain of the road surface: piecewise constant with 0.5 s linear transitions."""
    edges, gains, t = [0.0], [rng.uniform(0.6, 1.6)], 0.0
    while t < n / sample_rate:
        t += rng.uniform(3.0, 10.0)
        edges += [t, t + 0.5]
        gains += [gains[-1], rng.uniform(0.6, 1.6)]
    return np.interp(np.arange(n) / sample_rate, edges, gains)


def _joints(n: int, sample_rate: int, rng: np.random.Generator, speed_kmh: np.ndarray) -> np.ndarray:
    out = np.zeros(n)
    count = rng.poisson(rng.uniform(0.05, 0.15) * n / sample_rate)
    wheelbase = rng.uniform(2.5, 3.0)
    for start in rng.integers(0, n, count):
        gap = round(wheelbase / (speed_kmh[start] / 3.6) * sample_rate)
        length = round(rng.uniform(0.06, 0.12) * sample_rate) * 3
        t = np.arange(length) / sample_rate
        env = decay(length, sample_rate, length / sample_rate / 3.0)
        thump = env * (np.sin(2.0 * np.pi * rng.uniform(25.0, 60.0) * t) + 0.5 * rng.standard_normal(length))
        thump = lowpass(thump, sample_rate, 150.0)
        thump *= rng.uniform(1.5, 3.0) / max(float(np.max(np.abs(thump))), 1e-12)  # peak re unit rumble RMS
        for offset, level in ((0, 1.0), (gap, 0.8)):
            add_at(out, level * thump, int(start) + offset)
    return out


def synthesize_road(n_samples: int, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh car-interior road noise per the module recipe. float32 at -20 dBFS RMS."""
    n = n_samples
    speed = _speed_kmh(n, sample_rate, rng)
    rpm = np.clip(speed * rng.uniform(24.0, 32.0), 1200.0, 4000.0)
    relative = speed / 80.0

    rumble = lowpass(colored_noise(n, sample_rate, rng, 2.0), sample_rate, rng.uniform(150.0, 250.0))
    rumble = resonator(rumble, sample_rate, rng.uniform(35.0, 60.0), 3.0, gain=1.5)
    rumble = at_rms(rumble, 1.0) * relative
    engine = at_rms(_engine(rpm, sample_rate), 10.0 ** (rng.uniform(-6.0, -2.0) / 20.0))
    tyre = bandpass(colored_noise(n, sample_rate, rng, 1.0), sample_rate, 250.0, 1200.0)
    tyre = at_rms(tyre, 10.0 ** (rng.uniform(-14.0, -9.0) / 20.0)) * relative**1.5 * _surfaces(n, sample_rate, rng)
    wind = at_rms(bandpass(rng.standard_normal(n), sample_rate, 800.0, 4000.0), 10.0 ** (rng.uniform(-30, -24) / 20))
    joints = _joints(n, sample_rate, rng, speed)

    cabin = lowpass(rumble + engine + tyre + wind * relative + joints, sample_rate, rng.uniform(1200.0, 2000.0))
    return normalise(cabin).astype(np.float32)


road = register_environment("road")(looped(synthesize_road, key=0x20AD, seconds=20.0, banks=4))
